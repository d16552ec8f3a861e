"""Line streams, child processes, TCP serving and its log, the terminal's bytes: the I/O
every game and program shares (bounded lines, `ChildProcess`, `serve_lines`, the lobby's
queue, EPIPE-safe output).

May import: `hub.core.model` (a server logs the games it hears of). Knows no game and no
match loop; the layers above it do.
"""
