"""The match page's standings drawn from the match's JSON (hub/web/standings.py), without a
browser: real tables, crosstable links, the charts, escaping."""

from __future__ import annotations

import re
from typing import Any

from hub.web.standings import standings_html


def row(player: str, rank: int, **more: Any) -> dict[str, Any]:
    return {"rank": rank, "player": player, "games": 2, "wins": 1, "draws": 0, "losses": 1,
            "points": 1.0, "score": 0.5, "score_margin": 0.4, "timeouts": 0, "illegal": 0,
            "crashes": 0, "aborted": 0, **more}  # fmt: skip


def tournament() -> dict[str, Any]:
    cell = {"points": 1.5, "games": 2, "results": [{"id": "m-00000", "points": 1.0},
                                                   {"id": "m-00001", "points": 0.5}]}  # fmt: skip
    other = {"points": 0.5, "games": 2, "results": [{"id": "m-00000", "points": 0.0},
                                                    {"id": "m-00001", "points": 0.5}]}  # fmt: skip
    return {
        "summary": "match m: connect4, 2 of 2 games scored, 0 aborted, running (0:01, in-process)",
        "standings": [
            row("<b>x</b>", 1, elo=50.0, elo_margin=300.0),
            row("ai:1", 2, elo=-50.0, elo_margin=300.0),
        ],
        "format": {"name": "round-robin", "winner": None},
        "crosstable": {
            "names": ["ai:1", "<b>x</b>"],
            "order": [1, 0],
            "cells": [[None, other], [cell, None]],
        },
        "names": ["ai:1", "<b>x</b>"],
        "history": [
            {"games": 1, "points": [0.0, 1.0], "llr": None},
            {"games": 2, "points": [0.5, 1.5], "llr": None},
        ],
        "llr_bounds": None,
        "notes": ["Distinct games: 2 of 2"],
        "ratings": [],
    }


def test_the_standings_and_the_crosstable_are_tables_with_links_to_the_games() -> None:
    page = standings_html(tournament())
    assert '<table id="standings-table"' in page and '<table id="crosstable"' in page
    assert "<pre" not in page
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page  # names are escaped
    assert "+50 ± 300" in page  # the Elo column
    rows = re.findall(
        r"<tr><th scope=\"row\">(.*?)</th>(.*?)</tr>", page.split('<table id="crosstable"')[1]
    )
    assert [name for name, _ in rows] == ["1. &lt;b&gt;x&lt;/b&gt;", "2. ai:1"]  # by rank
    first = rows[0][1]
    assert '<td class="self">-</td>' in first and "1½/2" in first
    assert '<a href="/game/m-00000">1</a>' in first and '<a href="/game/m-00001">½</a>' in first
    assert "running (0:01" in page and "<li>Distinct games: 2 of 2</li>" in page


def test_the_points_chart_has_a_line_a_player_and_no_llr_chart_without_an_sprt() -> None:
    page = standings_html(tournament())
    chart = page.split('id="points-chart"')[1].split("</figure>")[0]
    assert chart.count("<polyline") == 2 and 'data-games="2"' in chart
    assert 'viewBox="0 0 ' in chart  # scales to the screen
    assert "llr-chart" not in page


def test_an_sprt_draws_its_llr_between_its_bounds() -> None:
    data = tournament()
    data["llr_bounds"] = [-2.94, 2.94]
    data["history"] = [{"games": n, "points": [n / 2, n / 2], "llr": 0.1 * n} for n in (1, 2, 3)]
    data.pop("crosstable")
    page = standings_html(data)
    chart = page.split('id="llr-chart"')[1].split("</figure>")[0]
    assert chart.count("<polyline") == 3  # the LLR and its two bounds
    assert "H0 -2.94" in chart and "H1 2.94" in chart
    assert '<table id="crosstable"' not in page  # a match of one table has none
