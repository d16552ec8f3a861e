"""Finding an installed program: next to the running interpreter first, then on PATH.

A venv's console scripts (``hub``, ``clubhub``, ``uqchessserver`` ...) sit beside its
``python``; a demo or a fallback that runs one of them wants that copy, not whatever
happens to be first on PATH. Standard library only (cheap to import).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def which_program(name: str) -> str | None:
    """``name`` next to the running interpreter (a venv's bin), else on PATH, else None."""
    sibling = Path(sys.executable).parent / name
    if sibling.exists():
        return str(sibling)
    return shutil.which(name)


def find_program(name: str) -> str:
    """`which_program`, else ``name`` itself (so that running it reports it is missing)."""
    return which_program(name) or name


def resolve_program(spec: str) -> str | None:
    """The executable a player spec names: a path (it has a slash) to an executable file, or
    a name found by `which_program`; None if there is none (say so before starting a match)."""
    if os.sep in spec:
        return spec if os.path.isfile(spec) and os.access(spec, os.X_OK) else None
    return which_program(spec)


def program_problem(spec: str) -> str | None:
    """None if `resolve_program` finds ``spec``, else what is wrong, in words: a path that
    is not an executable file, or a name found neither beside hub's interpreter nor on PATH."""
    if resolve_program(spec) is not None:
        return None
    if os.sep in spec:
        return f"{spec}: no such program (not an executable file)"
    return f"{spec}: no such program on PATH (or give a path to an executable)"
