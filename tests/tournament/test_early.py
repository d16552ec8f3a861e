"""What ``hub match`` decides before its parser exists or its games start: how many workers
to start at once (`workers_asked`), and checking each distinct player once
(`check_players`)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, cast

import pytest

from hub.core.play.kit import TournamentKit
from hub.tournament.cli import check_players, workers_asked


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["chess", "a", "b", "--concurrency", "2"], 2),
        (["chess", "a", "b", "--concurrency=4", "--games", "30"], 4),
        (["chess", "a", "b"], 0),
        (["chess", "a", "b", "--concurrency", "1"], 0),
        (["chess", "a", "b", "--concurrency", "two"], 0),
        (["chess", "a", "b", "--concurrency", "2", "--cluster", "ray"], 0),
        (["chess", "a", "b", "--concurrency", "2", "--help"], 0),
        (["chess", "--", "--concurrency", "2"], 0),
        (["chess", "a", "b", "--conc", "2"], 0),  # abbreviated: started after parsing
        (["chess", "a", "--concurrency"], 0),
    ],
)
def test_the_workers_a_command_line_asks_for(args: list[str], expected: int) -> None:
    assert workers_asked(args) == expected


class CountingKit:
    """A kit whose check says who is unknown and counts its calls (from any thread)."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.lock = threading.Lock()

    def check_player(self, spec: str, settings: Mapping[str, Any]) -> str | None:
        with self.lock:
            self.calls.append(spec)
        return None if spec.startswith("ok") else f"{spec}: unknown"


def test_each_distinct_player_is_checked_once_and_answered_in_order() -> None:
    kit = CountingKit()
    players = ["ok1", "bad1", "ok1", "bad2", "ok2", "ok1"]
    problems = check_players(cast(TournamentKit, kit), players, {})
    assert problems == [None, "bad1: unknown", None, "bad2: unknown", None, None]
    assert sorted(kit.calls) == ["bad1", "bad2", "ok1", "ok2"]


def test_one_player_given_twice_is_checked_once() -> None:
    kit = CountingKit()
    assert check_players(cast(TournamentKit, kit), ["ok", "ok"], {}) == [None, None]
    assert kit.calls == ["ok"]
