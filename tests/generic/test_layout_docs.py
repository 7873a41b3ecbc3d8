"""The rules documents' observation tables agree with the layouts the games declare.

Every registered game whose ``Game.observation_layout()`` returns an ``ObsLayout`` has, under the
"Observation" heading of its rules document (``spec.rules``), a table with the columns
``| piece | first | last | shape | content |``: one row per piece, in order, first and last index
inclusive, the shape as a tuple (``(3, 11)``). For a layout that depends on the config the table
shows the default config's.
"""

import ast
import re
from pathlib import Path

import pytest

import envs
from envs.engine.config import build_config
from envs.engine.layout import ObsLayout

ROOT = Path(__file__).resolve().parents[2]
HEADER = ["piece", "first", "last", "shape", "content"]


def _game(spec: envs.GameSpec, config: dict) -> envs.engine.game.Game:
    return spec.game(build_config(spec.game.config_cls, config))


SPECS = [spec for spec in envs.specs() if _game(spec, {}).observation_layout() is not None]


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def observation_table(text: str) -> list[tuple[str, int, int, tuple[int, ...]]]:
    """The (piece, first, last, shape) rows of the piece table under the "Observation" heading."""
    lines = text.splitlines()
    headings = [i for i, line in enumerate(lines) if re.match(r"#+\s+Observation\b", line)]
    assert len(headings) == 1, f"expected one 'Observation' heading, found {len(headings)}"
    level = len(lines[headings[0]]) - len(lines[headings[0]].lstrip("#"))
    rows: list[tuple[str, int, int, tuple[int, ...]]] | None = None
    for line in lines[headings[0] + 1 :]:
        heading = re.match(r"(#+)\s", line)
        if heading and len(heading.group(1)) <= level:
            break  # the section ended
        is_row = line.lstrip().startswith("|")
        if rows is None:
            if is_row and [c.lower() for c in _cells(line)[:5]] == HEADER:
                rows = []
            continue
        if not is_row:
            if rows:
                break  # the table ended
            continue
        cells = _cells(line)
        if all(set(c) <= set("-: ") for c in cells):
            continue  # the separator under the header
        assert len(cells) >= 5, f"a row of the observation table needs 5 cells: {line!r}"
        piece, first, last, shape = cells[:4]
        try:
            dims = ast.literal_eval(shape)
            parsed = (piece.strip("`"), int(first.replace(",", "")), int(last.replace(",", "")), dims)
        except (ValueError, SyntaxError) as e:
            raise AssertionError(f"cannot read the observation table row {line!r}: {e}") from None
        assert isinstance(dims, tuple), f"shape {shape!r} must be written as a tuple, like (3,) or (3, 11)"
        rows.append(parsed)
    assert rows is not None, f"no table with the columns | {' | '.join(HEADER)} | under 'Observation'"
    assert rows, "the observation table has no rows"
    return rows


def test_some_game_declares_a_layout():
    assert SPECS, "no registered game's observation_layout() returns a layout"


@pytest.mark.parametrize("spec", SPECS, ids=[spec.short_name for spec in SPECS])
def test_the_rules_document_lists_the_declared_layout(spec):
    layout = _game(spec, {}).observation_layout()
    assert isinstance(layout, ObsLayout)
    documented = observation_table((ROOT / spec.rules).read_text())
    declared = layout.rows()
    for i, (doc, decl) in enumerate(zip(documented, declared, strict=False)):
        assert doc == decl, f"{spec.rules}, observation table row {i + 1}: {doc} documented, {decl} declared"
    assert len(documented) == len(declared), (
        f"{spec.rules} lists {len(documented)} observation pieces, the game declares {len(declared)}: "
        f"{[row[0] for row in declared]}"
    )


@pytest.mark.parametrize("spec", SPECS, ids=[spec.short_name for spec in SPECS])
@pytest.mark.parametrize("config", ["default", "quick"])
def test_the_observation_size_is_the_layout_size(spec, config):
    game = _game(spec, {} if config == "default" else spec.quick_config)
    assert game.obs_size == game.observation_layout().size


@pytest.mark.parametrize("spec", SPECS, ids=[spec.short_name for spec in SPECS])
def test_each_piece_is_found_by_where_it_starts(spec):
    layout = _game(spec, {}).observation_layout()
    for name, first, last, _ in layout.rows():
        assert layout.piece_at(first) == name
        assert last == first or layout.piece_at(first + 1) is None  # inside a piece, no piece starts
    assert layout.piece_at(layout.size) is None
