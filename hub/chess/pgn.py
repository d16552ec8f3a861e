"""The chess game's export: a record as PGN (python-chess; pure). ``hub games export --format
pgn`` writes it, through `hub.chess.game.ChessGame.exports`.

PGN tags: the Seven Tag Roster from the record (Event ``hub chess``, or ``hub match`` for a
match's game; Site ``hub``; the local date the game started; Round, the game's number in its
match counting from 1; White = seat 0, Black = seat 1; Result), ``SetUp``/``FEN`` when the
game did not start from the initial position, ``Termination`` in PGN's words (``normal``,
``time forfeit``, ``rules infraction``, ``abandoned``; ``adjudication`` as cutechess writes
it for a game an arbiter decided: a ply cap, ``--resign``, ``--draw``), ``WhiteType``/``BlackType``
(``human`` for a person, ``program`` otherwise), ``TimeControl`` when both seats had the
same ``base+increment`` clock, and hub's own tags: ``HubGameId``, ``HubMatchId``,
``HubTermination`` (the hub's word), ``HubDetail`` (how it ended, or the fault's details)
and ``HubTimeControl`` (the clocks as recorded). The UCI moves become SAN; a move
python-chess cannot play stops the game text there, with a comment saying so.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hub.core.model.events import GameRecord
from hub.core.model.referee import Termination, adjudicated

if TYPE_CHECKING:
    import chess.pgn

PGN_TERMINATION = {
    Termination.NORMAL: "normal",
    Termination.RESIGNATION: "normal",
    Termination.TIMEOUT: "time forfeit",
    Termination.ILLEGAL_MOVE: "rules infraction",
    Termination.MALFORMED: "rules infraction",
    Termination.DISCONNECT: "abandoned",
    Termination.ABORTED: "unterminated",
}
PGN_TIME_CONTROL = re.compile(r"\d+(\.\d+)?\+\d+(\.\d+)?")


def pgn_game(
    record: GameRecord, *, match_id: str | None = None, index: int | None = None
) -> chess.pgn.Game:
    """The chess ``record`` as a python-chess game (see the module doc for the tags);
    ``match_id`` and ``index`` (from 0) place it in its match."""
    import chess
    import chess.pgn

    from hub.records.render import when

    game = chess.pgn.Game()
    fen = record.initial_state.get("fen") if isinstance(record.initial_state, dict) else None
    board = chess.Board(fen) if fen else chess.Board()
    if board.fen() != chess.STARTING_FEN:
        game.setup(board)
    names = [player.name for player in record.players] + ["?", "?"]
    kinds = [player.kind for player in record.players] + ["", ""]
    headers = game.headers
    headers["Event"] = "hub chess" if match_id is None else "hub match"
    headers["Site"] = "hub"
    headers["Date"] = when(record.started_at)[:10].replace("-", ".")
    headers["Round"] = "-" if index is None else str(index + 1)
    headers["White"], headers["Black"] = names[0], names[1]
    headers["Result"] = record.result_text()
    headers["Termination"] = (
        "adjudication" if adjudicated(record.detail) else PGN_TERMINATION[record.termination]
    )
    headers["WhiteType"], headers["BlackType"] = (
        "human" if kind == "person" else "program" for kind in kinds[:2]
    )
    controls = set(record.time_controls)
    if len(controls) == 1:
        (control,) = controls
        if control == "none":
            headers["TimeControl"] = "-"
        elif PGN_TIME_CONTROL.fullmatch(control):
            headers["TimeControl"] = control
    headers["HubGameId"] = record.game_id
    if match_id is not None:
        headers["HubMatchId"] = match_id
    headers["HubTermination"] = record.termination.value
    detail = record.fault.detail if record.fault is not None else record.detail
    if detail:
        headers["HubDetail"] = detail
    if record.time_controls:
        headers["HubTimeControl"] = " / ".join(record.time_controls)
    node: chess.pgn.GameNode = game
    for ply, move in enumerate(record.moves, start=1):
        try:
            played = board.parse_uci(move.move)
        except ValueError:
            node.comment = f"hub: move {ply} {move.move!r} is not legal here; the record goes on"
            break
        node = node.add_variation(played)
        board.push(played)
    if record.fault is not None and record.fault.move:
        node.comment = (node.comment + " " if node.comment else "") + (
            f"{record.termination.value}: {record.fault.move}"
        )
    return game


def pgn_text(record: GameRecord, *, match_id: str | None = None, index: int | None = None) -> str:
    """The PGN of one chess game, ending with a blank line (games concatenate)."""
    return str(pgn_game(record, match_id=match_id, index=index)) + "\n\n"
