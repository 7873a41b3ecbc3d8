"""House rules a reader relies on: code comments say what and why (history lives in docs/ and commits),
the README stays the short page a newcomer reads, and its links into the repository hold."""

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("envs", "agents", "training", "benchmarks", "tabuleiro", "tests")
# a number of our own tracker's issues; an upstream project's issue named as a reason may stay
OUR_ISSUE = re.compile(r"(?<!numba )(?<!numba's )\bissues? #?\d+\b", re.IGNORECASE)
README_MAX_LINES = 200


def _comments_and_docstrings(path: Path) -> list[tuple[int, str]]:
    out = []
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    previous = tokenize.NEWLINE
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
        elif tok.type == tokenize.STRING and previous in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT):
            out.append((tok.start[0], tok.string))  # a string on its own line: a docstring
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            previous = tok.type
    return out


def test_no_comment_cites_our_issues() -> None:
    offenders = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for line, text in _comments_and_docstrings(path):
                if OUR_ISSUE.search(text):
                    offenders.append(f"{path.relative_to(ROOT)}:{line}")
    assert not offenders, f"comments citing our issues (history belongs in docs/ and commits): {offenders}"


def test_the_readme_is_short_and_its_links_into_the_repository_hold() -> None:
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= README_MAX_LINES
    targets = [t for t in re.findall(r"\]\(([^)#\s]+)", text) if not t.startswith(("http:", "https:"))]
    assert targets, "the README links into docs/"
    for target in targets:
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"
