"""The documentation points only inside the repository: every relative link in README.md and
docs/*.md names a file or folder that exists here, and no page names the specifications'
files outside it (``shared/...``), which a reader of a clone does not have."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
INLINE = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def link_targets(markdown: str) -> list[str]:
    """The targets of the inline and reference links (and images) outside code."""
    text = CODE_SPAN.sub("", FENCE.sub("", markdown))
    return INLINE.findall(text) + REFERENCE.findall(text)


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` that do not name an existing path in the repository."""
    broken = []
    for target in link_targets(page.read_text(encoding="utf-8")):
        if SCHEME.match(target) or target.startswith("#"):
            continue  # a URL, mailto:, or an anchor on the same page
        path = target.split("#", 1)[0].split("?", 1)[0]
        resolved = (
            ROOT / path.lstrip("/") if path.startswith("/") else page.parent / path
        ).resolve()
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(target)
    return broken


def test_the_link_finder_sees_links_and_skips_code(tmp_path: Path) -> None:
    sample = (
        'See [a](docs/a.md#part), ![b](img/b.png "title"), [c][ref] and <https://x.org>.\n'
        "`[not](a-link.md)` and\n```\n[nor](this.md)\n```\n[ref]: ../outside.md\n"
    )
    assert link_targets(sample) == ["docs/a.md#part", "img/b.png", "../outside.md"]


def test_a_missing_or_outside_target_is_reported(tmp_path: Path) -> None:
    page = ROOT / "docs" / "architecture.md"
    sample = tmp_path / "page.md"
    sample.write_text(
        "[ok](https://example.org) [ok](#layers) [gone](no-such-file.md) "
        f"[outside](../{'../' * len(ROOT.parts)}etc/hostname) [here]({page})\n"
    )
    # tmp_path is outside the repository: every relative link from it is outside too
    assert broken_links(sample) == [
        "no-such-file.md",
        f"../{'../' * len(ROOT.parts)}etc/hostname",
        str(page),
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_names_a_file_in_the_repository(page: Path) -> None:
    assert broken_links(page) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_no_page_names_the_specification_files_outside_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert not re.findall(r"(?<![\w-])(?:\.\./)*shared/[\w./-]+", text)


def _modules(folder: Path) -> set[str]:
    return {path.name for path in folder.glob("*.py")} - {"__init__.py"}


def test_the_architecture_page_lists_every_module_and_no_other() -> None:
    """docs/architecture.md names every module of ``hub/core/`` in its layer diagram and every
    module of each plug-in and of ``hub/chess/`` under "Modules of the plug-ins"; every
    ``core/X.py``, ``chess/X.py`` or ``GAME/X.py`` it names exists."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    hub = ROOT / "hub"
    diagram = page.split("   hub/core/\n", 1)[1].split("```", 1)[0]
    named = set(re.findall(r"\b(\w+\.py)\b", diagram))
    core = {path.name for path in (hub / "core").rglob("*.py")} - {"__init__.py"}  # any depth
    assert sorted(named ^ core) == []  # missing from the page, or gone
    section = page.split("### Modules of the plug-ins", 1)[1].split("\n### ", 1)[0]
    for game in sorted(path.name for path in (hub / "games").iterdir() if path.is_dir()):
        if not _modules(hub / "games" / game):
            continue
        (row,) = [line for line in section.splitlines() if line.startswith(f"| `{game}/`")]
        assert set(re.findall(r"`(\w+\.py)`", row)) == _modules(hub / "games" / game), game
    library = section.split("The chess library", 1)[1]
    assert set(re.findall(r"`(\w+\.py)`", library)) == _modules(hub / "chess")
    folders = {"core": hub / "core", "chess": hub / "chess"}
    folders |= {p.name: p for p in (hub / "core").iterdir() if (p / "__init__.py").exists()}
    folders |= {path.name: path for path in (hub / "games").iterdir() if path.is_dir()}
    for folder, module in re.findall(r"\b(\w+)/(\w+\.py)\b", page):
        if folder in folders and folder != "chess":
            assert (folders[folder] / module).exists(), f"{folder}/{module}"
        elif folder == "chess":  # the library or the plug-in
            assert (hub / "chess" / module).exists() or (hub / "games" / "chess" / module).exists()
