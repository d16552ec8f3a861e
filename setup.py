"""The compiled parts of hub: the Kalah AI's inner search (hub/games/kalah/_search.c) and
`hub engine`'s chess search (hub/chess/_engine.c).

Optional: where they cannot be built (no C compiler or Python headers), ``pip install`` goes
on and hub uses its pure-Python searches: the Kalah AI plays the same moves, only slower
(docs/decisions.md, "Kalah: a C search"), and `hub engine` searches with `EngineSearcher`,
weaker (docs/decisions.md, "`hub engine`: a C search"). Everything else is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "hub.games.kalah._search",
            ["hub/games/kalah/_search.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
        Extension(
            "hub.chess._engine",
            ["hub/chess/_engine.c"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
    ]
)
