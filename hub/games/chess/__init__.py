"""Chess in the terminal and `hub engine` (see docs/chess.md)."""
