"""The match page's standings as HTML (``hub match --web``: /match, and ``html`` in /api/match).

Made from the match's JSON (`hub.web.app.Standings.json`: ``hub match --json``'s object
plus ``summary``, ``notes``, ``history``, ``llr_bounds`` and ``ratings``), so the web view
names no game and no format: a table of the standings, the crosstable when there is one
(each cell links to its games), a chart of every player's points as games finished (inline
SVG, no script library), the LLR against its bounds while an SPRT runs, and the notes
under the terminal's table. Wide tables sit in a box that scrolls sideways by itself; the
page never does (style.css: ``.scroll``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any

COLOURS = ("#2e6bd1", "#d1452e", "#1d8a4e", "#b7791f", "#7b3fbf", "#0f8a8a", "#c2185b",
           "#5d6d7e", "#8d6e63", "#3949ab")  # fmt: skip
"""A player's line in the chart (in turn)."""
CELL_LINKS = 12
"""Games linked one by one in a crosstable cell (more: the cell links to its first)."""
WIDTH, HEIGHT, PAD = 600, 220, 34
SOFT_BREAKS = {"timeouts": "time&shy;outs", "crashes": "crash&shy;es", "points": "po&shy;ints",
               "adjudicated": "adjud&shy;icated"}  # fmt: skip
"""Headers that may break (with a hyphen) where a phone wraps the table's cells."""


def _num(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}"
    return escape(str(value))


def _points(value: float) -> str:
    whole, half = divmod(round(2 * value), 2)
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"


def _score(row: Mapping[str, Any]) -> str:
    score = row.get("score")
    if score is None:
        return "-"
    margin = row.get("score_margin")
    text = f"{100 * score:.1f}%"
    return text + (f" ± {100 * margin:.1f}%" if margin is not None else "")


def standings_table(data: Mapping[str, Any]) -> str:
    rows = data.get("standings") or []
    elo = any("elo" in row for row in rows)
    head = ["#", "player", "games", "W", "D", "L", "points", "score"]
    head += ["Elo"] if elo else []
    head += ["timeouts", "illegal", "crashes", "aborted"]
    adjudicated = bool(data.get("adjudicated"))  # a column only when a game was
    head += ["adjudicated"] if adjudicated else []
    # hidden on a phone: games is W+D+L, the rank is the order of the rows
    narrow = {"#", "games", "illegal", "aborted", "adjudicated"}
    cells = "".join(
        f'<th scope="col"{" class=narrow-hide" if title in narrow else ""}>'
        f"{SOFT_BREAKS.get(title, title)}</th>"
        for title in head
    )
    body = []
    for row in rows:
        values = [
            _num(row["rank"]),
            f'<th scope="row">{escape(str(row["player"]))}</th>',
            _num(row["games"]),
            _num(row["wins"]),
            _num(row["draws"]),
            _num(row["losses"]),
            _num(row["points"]),
            _score(row),
        ]
        if elo:
            values.append(f"{row['elo']:+.0f} ± {row['elo_margin']:.0f}")
        values += [_num(row["timeouts"]), _num(row["illegal"]), _num(row["crashes"]),
                   _num(row["aborted"])]  # fmt: skip
        if adjudicated:
            values.append(_num(row.get("adjudicated", 0)))
        tds = []
        for title, value in zip(head, values, strict=True):
            if value.startswith("<th"):
                tds.append(value)
                continue
            hide = " class=narrow-hide" if title in narrow else ""
            tds.append(f"<td{hide}>{value}</td>")
        body.append("<tr>" + "".join(tds) + "</tr>")
    return (
        '<div class="scroll"><table id="standings-table" class="standings-table">'
        f"<thead><tr>{cells}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def crosstable(data: Mapping[str, Any], root: str = "") -> str:
    """Rows and columns in the order of the standings; a cell: the row player's points
    against the column's, of games, each game a link (its result for the row's player;
    ``root``: where the game pages are, ``/connect4`` in ``hub serve``'s site)."""
    table = data.get("crosstable")
    if not table:
        return ""
    names, order, cross = table["names"], table["order"], table["cells"]
    head = "".join(
        f'<th scope="col" title="{escape(names[p])}">{n + 1}</th>' for n, p in enumerate(order)
    )
    rows = []
    for n, player in enumerate(order):
        tds = []
        for other in order:
            cell = cross[player][other]
            if other == player:
                tds.append('<td class="self">-</td>')
            elif cell is None:
                tds.append('<td class="none">·</td>')
            else:
                results = cell["results"]
                links = " ".join(
                    f'<a href="{root}/game/{escape(game["id"])}">{_points(game["points"])}</a>'
                    for game in results[:CELL_LINKS]
                )
                if len(results) > CELL_LINKS or not links:
                    links = (
                        f'<a href="{root}/game/{escape(results[0]["id"])}">first</a>'
                        if results
                        else ""
                    )
                tds.append(
                    f'<td><span class="total">{_points(cell["points"])}/{cell["games"]}</span>'
                    f'<span class="games">{links}</span></td>'
                )
        name = escape(names[player])
        rows.append(f'<tr><th scope="row">{n + 1}. {name}</th>{"".join(tds)}</tr>')
    fmt = data.get("format") or {}
    caption = (
        f"Crosstable ({escape(str(fmt.get('name', '')))}): the row's points against the column"
    )
    if fmt.get("winner"):
        caption += f"; the winner: {escape(str(fmt['winner']))}"
    return (
        '<div class="scroll"><table id="crosstable" class="crosstable">'
        f"<caption>{caption}</caption>"
        f'<thead><tr><th scope="col">player</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _polyline(points: Sequence[tuple[float, float]], colour: str, dashed: bool = False) -> str:
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    return f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>'


Scale = Callable[[float], float]


def _frame(low: float, high: float, games: int, label: str) -> tuple[str, Scale, Scale]:
    span = (high - low) or 1.0

    def x(value: float) -> float:
        return PAD + (WIDTH - 2 * PAD) * (value / max(games, 1))

    def y(value: float) -> float:
        return HEIGHT - PAD + (value - low) / span * -(HEIGHT - 2 * PAD)

    bottom = HEIGHT - PAD
    axes = (
        f'<line x1="{PAD}" y1="{bottom}" x2="{WIDTH - PAD}" y2="{bottom}" stroke="#999"/>'
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="#999"/>'
        f'<text x="{PAD}" y="{HEIGHT - 8}" font-size="14">0</text>'
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - 8}" font-size="14" text-anchor="end">'
        f"{games} games</text>"
        f'<text x="{PAD - 4}" y="{PAD + 4}" font-size="14" text-anchor="end">{high:g}</text>'
        f'<text x="{PAD - 4}" y="{HEIGHT - PAD}" font-size="14" text-anchor="end">{low:g}</text>'
        f'<text x="{PAD + 6}" y="{PAD - 10}" font-size="14">{escape(label)}</text>'
    )
    return axes, x, y


def points_chart(data: Mapping[str, Any]) -> str:
    """Each player's points as the games finished (one line each, a legend below)."""
    history = data.get("history") or []
    names = list(data.get("names") or [])
    if not history or not names:
        return ""
    games = history[-1]["games"]
    high = max(max(point["points"]) for point in history) or 1.0
    axes, x, y = _frame(0.0, float(high), games, "points")
    lines = []
    for player in range(len(names)):
        points = [(x(0), y(0))] + [
            (x(point["games"]), y(point["points"][player])) for point in history
        ]
        lines.append(_polyline(points, COLOURS[player % len(COLOURS)]))
    legend = "".join(
        f'<li><span class="swatch" style="background:{COLOURS[p % len(COLOURS)]}"></span>'
        f"{escape(names[p])}</li>"
        for p in range(len(names))
    )
    return (
        '<figure class="chart" id="points-chart">'
        f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="points as games finished"'
        f' data-games="{games}">{axes}{"".join(lines)}</svg>'
        f'<figcaption>Points as games finished<ul class="legend">{legend}</ul></figcaption>'
        "</figure>"
    )


def llr_chart(data: Mapping[str, Any]) -> str:
    """The SPRT's log-likelihood ratio as games finished, between its two bounds."""
    bounds = data.get("llr_bounds")
    history = [point for point in data.get("history") or [] if point.get("llr") is not None]
    if not bounds or not history:
        return ""
    lower, upper = bounds
    games = history[-1]["games"]
    values = [point["llr"] for point in history]
    low, high = min(lower, *values), max(upper, *values)
    axes, x, y = _frame(round(low, 2), round(high, 2), games, "LLR")
    line = _polyline([(x(0), y(0))] + [(x(p["games"]), y(p["llr"])) for p in history],
                     COLOURS[0])  # fmt: skip
    bound_lines = "".join(
        _polyline([(x(0), y(value)), (x(games), y(value))], "#999", dashed=True)
        + f'<text x="{WIDTH - PAD}" y="{y(value) - 4:.1f}" font-size="14" text-anchor="end">'
        f"{name} {value:.2f}</text>"
        for name, value in (("H0", lower), ("H1", upper))
    )
    return (
        '<figure class="chart" id="llr-chart">'
        f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="LLR as games finished">'
        f"{axes}{bound_lines}{line}</svg>"
        "<figcaption>The SPRT's log-likelihood ratio against its bounds</figcaption></figure>"
    )


def standings_html(data: Mapping[str, Any], root: str = "") -> str:
    """The whole standings section's content (``root``: where the game pages are)."""
    parts = [f'<p class="summary">{escape(str(data.get("summary", "")))}</p>']
    if data.get("standings") is not None:
        parts.append(standings_table(data))
    parts.append(crosstable(data, root))
    charts = points_chart(data) + llr_chart(data)
    if charts:
        parts.append(f'<div class="charts">{charts}</div>')
    notes = data.get("notes") or []
    if notes:
        parts.append(
            '<ul class="notes">' + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>"
        )
    ratings = data.get("ratings") or []
    if ratings:
        parts.append(
            "<details><summary>Ratings from every recorded game (hub games ratings)</summary>"
            f'<pre class="ratings">{escape(chr(10).join(ratings))}</pre></details>'
        )
    return "".join(parts)
