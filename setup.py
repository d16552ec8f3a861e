"""The one compiled part of hub: the Kalah AI's inner search (hub/games/kalah/_search.c).

Optional: where it cannot be built (no C compiler or Python headers), ``pip install`` goes on
and the AI uses its pure-Python search, which plays the same moves, only slower
(docs/decisions.md, "Kalah: a C search"). Everything else is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "hub.games.kalah._search",
            ["hub/games/kalah/_search.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
