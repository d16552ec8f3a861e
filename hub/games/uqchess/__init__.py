"""UQChess: networked chess against people and a UCI engine (see docs/uqchess.md)."""
