"""`Outcome.detail`: how the rules ended a game, in words, carried into the record."""

from __future__ import annotations

import json

from hub.core.model.events import GameRecord, record_from_json, to_json
from hub.core.model.referee import Outcome
from hub.core.play.match import Match
from tests.core.test_match import seats
from tests.core.toys import Nim, NimState


class WordyNim(Nim):
    def outcome(self, state: NimState) -> Outcome | None:
        outcome = super().outcome(state)
        if outcome is None:
            return None
        return Outcome(outcome.scores, outcome.winners, detail="took the last one")


async def test_the_detail_of_the_outcome_is_in_the_record_and_survives_json() -> None:
    result = await Match(WordyNim(), NimState(3), seats([3], [], log=[])).run()
    assert result.record.detail == "took the last one"
    again = record_from_json(json.loads(json.dumps(to_json(result.record))))
    assert again == result.record


async def test_without_a_detail_the_record_says_nothing_more() -> None:
    result = await Match(Nim(), NimState(3), seats([3], [], log=[])).run()
    assert result.record.detail == ""
    data = to_json(result.record)
    del data["detail"]  # a record written before the field existed
    restored: GameRecord = record_from_json(data)
    assert restored.detail == ""
