"""bench/pgn_plies.py, the PGN reader with which bench/fastchess.py counts the plies of both
tools' games: a wrong count would skew the plies per second of one side only."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path
from types import ModuleType

import chess
import chess.pgn

BENCH = Path(__file__).resolve().parent.parent / "bench" / "pgn_plies.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pgn_plies", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pgn_plies = _load()

# As `hub games export --format pgn` writes a game from an EPD opening.
HUB_GAME = """[Event "hub match"]
[Site "hub"]
[Round "1"]
[White "/usr/games/stockfish?Threads=1&Hash=16"]
[Black "/usr/games/stockfish?Threads=1&Hash=16"]
[Result "1/2-1/2"]
[FEN "r1bqkb1r/1ppp1ppp/p1n2n2/4p3/B3P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 1"]
[SetUp "1"]
[Termination "normal"]
[HubDetail "threefold repetition"]

1. O-O Be7 2. Re1 b5 3. Bb3 d6 4. c3 O-O 5. h3 Nb8 6. d4 Nbd7 7. Nbd2 Bb7
8. Bc2 Re8 9. Nf1 Bf8 10. Ng3 g6 11. Bg5 h6 12. Bd2 Bg7 13. Bd3 Kh7 14. Bc2 Kg8
15. Bd3 Kh7 16. Bc2 Kg8 1/2-1/2

"""

# As fastchess's -pgnout writes games (latency=true), one starting with Black to move and
# ending on a time loss, the reason in the last move's comment.
FASTCHESS_GAMES = """[Event "Fastchess Tournament"]
[Site "?"]
[Round "1"]
[White "sf1"]
[Black "sf2"]
[Result "0-1"]
[SetUp "1"]
[FEN "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]
[GameDuration "00:00:01"]
[PlyCount "5"]
[Termination "time forfeit"]
[TimeControl "0.3+0.003"]

1... e5 {+0.31/12 0.012s, latency=1ms} 2. Nf3 {+0.28/11 0.011s, latency=0ms}
2... Nc6 {-0.20/13 0.010s, latency=0ms} 3. Bb5 {+0.33/10 0.009s, latency=1ms}
3... a6 {-0.15/12 0.008s, latency=2ms, White loses on time} 0-1

[Event "Fastchess Tournament"]
[Site "?"]
[Round "1"]
[White "sf2"]
[Black "sf1"]
[Result "1-0"]
[PlyCount "3"]
[Termination "normal"]

1. f3 {book} e5 {-0.10/1 0.001s, latency=0ms} 2. g4?! $6 {+M1/2 0.002s, latency=0ms}
(2. e4 Nc6 (2... d5) 3. d4) 2... Qh4# {+M1/3 0.001s, Black mates} 0-1

"""


def test_a_hub_game_counts_its_plies_from_the_setup_position() -> None:
    [game] = pgn_plies.read_games(HUB_GAME)
    assert game.plies == 32
    assert game.result == "1/2-1/2"
    assert game.tags["FEN"].startswith("r1bqkb1r/")
    assert game.tags["Termination"] == "normal"
    reference = chess.pgn.read_game(io.StringIO(HUB_GAME))
    assert reference is not None
    assert game.plies == len(list(reference.mainline_moves()))


def test_fastchess_games_skip_comments_variations_and_nags_and_agree_with_plycount() -> None:
    games = pgn_plies.read_games(FASTCHESS_GAMES)
    assert [game.plies for game in games] == [5, 4]
    assert [game.result for game in games] == ["0-1", "0-1"]
    assert [game.tags["Termination"] for game in games] == ["time forfeit", "normal"]
    assert games[0].plies == int(games[0].tags["PlyCount"])
    assert pgn_plies.total_plies(games) == 9
    stream = io.StringIO(FASTCHESS_GAMES)
    mainlines = []
    while (reference := chess.pgn.read_game(stream)) is not None:
        mainlines.append(len(list(reference.mainline_moves())))
    assert mainlines == [5, 4]


def test_a_game_without_its_result_ends_where_the_next_tags_begin() -> None:
    text = (
        '[Event "a"]\n[White "x \\"quoted\\" ]"]\n\n1. e4 e5 ; a comment 2. d4\n2. Nf3\n\n'
        '[Event "b"]\n\n1. d4 *\n\n[Event "c"]\n\n1. c4 c5\n'
    )
    games = pgn_plies.read_games(text)
    assert [(game.tags["Event"], game.plies, game.result) for game in games] == [
        ("a", 3, "*"),
        ("b", 1, "*"),
        ("c", 2, "*"),
    ]
    assert games[0].tags["White"] == 'x "quoted" ]'


def test_nothing_is_no_game() -> None:
    assert pgn_plies.read_games("") == []
    assert pgn_plies.read_games("\n% an escaped line\n") == []
