"""The chess library shared by the chess plug-ins (not a plug-in): rules on python-chess, board
art, perft, the search, UCI text both ways and the engine client (see docs/chess.md)."""
