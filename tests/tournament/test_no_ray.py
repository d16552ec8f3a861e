"""Ray is an optional extra: no hub module but hub.tournament.ray_backend imports it."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import importlib, pkgutil, sys
import hub
names = [m.name for m in pkgutil.walk_packages(hub.__path__, "hub.")]
assert "hub.tournament.ray_backend" in names and "hub.tournament.cli" in names, names
for name in names:
    if name != "hub.tournament.ray_backend":
        importlib.import_module(name)
print(len(names), "ray" in sys.modules)
"""


def test_no_module_but_the_ray_backend_imports_ray() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    count, imported = done.stdout.split()
    assert int(count) > 40
    assert imported == "False"
