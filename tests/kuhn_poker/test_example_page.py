"""docs/adding-a-game.md walks through Kuhn poker as it is.

The page lists exactly the package's files, shows the contract's table as ``describe()`` prints it,
quotes the code line for line (its ``python`` blocks; ``pycon`` blocks are sessions, not quotes) and
links only to files inside the repository.
"""

import re
from pathlib import Path

from envs.engine.contract import describe

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "adding-a-game.md"
TEXT = PAGE.read_text()
SOURCES = [*sorted((ROOT / "envs" / "kuhn_poker").glob("*.py")), ROOT / "envs" / "__init__.py"]


def _files_block() -> str:
    return TEXT.split("## The files", 1)[1].split("```")[1]


def test_the_page_lists_exactly_the_examples_files():
    block = _files_block()
    listed = re.findall(r"^  (\S+\.py)\s", block, re.MULTILINE)  # the lines under envs/kuhn_poker/
    assert sorted(listed) == sorted(p.name for p in (ROOT / "envs" / "kuhn_poker").glob("*.py"))
    tests = sorted(p.name for p in (ROOT / "tests" / "kuhn_poker").glob("*.py"))
    assert all(name in block for name in tests), f"the page's file list leaves out one of {tests}"
    for path in re.findall(r"^(\S+)\s", block, re.MULTILINE):  # the other paths it names
        assert (ROOT / path).exists(), f"the page lists {path}, which does not exist"


def test_the_page_shows_the_contract_as_declared():
    assert describe() in TEXT, (
        "docs/adding-a-game.md must show the table of envs.engine.contract.describe() as it prints now: "
        'paste the output of `python -c "from envs.engine.contract import describe; print(describe())"`'
    )


def test_the_pages_code_is_quoted_from_the_sources():
    source_lines = {line.strip() for path in SOURCES for line in path.read_text().splitlines()}
    blocks = re.findall(r"^ *```python\n(.*?)^ *```", TEXT, re.MULTILINE | re.DOTALL)
    assert blocks
    for block in blocks:
        for line in block.splitlines():
            if line.strip() and line.strip() != "...":
                assert line.strip() in source_lines, f"docs/adding-a-game.md quotes a line the code lacks: {line!r}"


def test_the_page_links_only_to_files_in_the_repository():
    assert "http:" not in TEXT and "https:" not in TEXT
    targets = re.findall(r"\]\(([^)#\s]+)", TEXT)
    assert targets
    for target in targets:
        assert (PAGE.parent / target).resolve().is_relative_to(ROOT), target
        assert (PAGE.parent / target).exists(), f"the page links to {target}, which does not exist"
