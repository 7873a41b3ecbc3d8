"""Compiled code lives in real files: no source in strings, templates compiled per game from their own file,
tracebacks pointing into them, and knowledge kept where it belongs."""

import ast
import traceback
from pathlib import Path

import numpy as np
import pytest

import envs
from agents.search import guided_loop, ismcts_loop
from envs.engine import batch_kernels
from envs.engine.contract import template_bindings
from envs.engine.record import header_fields
from envs.engine.templates import binding_digest, instantiate, kernels_of, tag_of
from envs.kuhn_poker.game import KuhnPoker
from training import opponent_loop

ROOT = Path(__file__).resolve().parents[2]
KUHN_BINDINGS = template_bindings(KuhnPoker)  # the batch template's stand-ins bound to Kuhn poker's pieces
PACKAGES = ("envs", "agents", "training", "benchmarks", "tabuleiro")
TEMPLATES = (batch_kernels, ismcts_loop, guided_loop, opponent_loop)
# keys of plain dicts that a game's record also has as fields
DICT_KEYS = {
    ("selfplay.py", "history"),
    ("vector_env.py", "score"),
    ("search_training.py", "score"),
    ("duel_reach.py", "radius"),
}


def _modules(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))


def _docstrings(tree: ast.Module) -> set[int]:
    """ids of the docstring nodes of a module, its classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def test_no_string_holds_compiled_code() -> None:
    offenders = []
    for path in _modules(*PACKAGES):
        tree = ast.parse(path.read_bytes(), str(path))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                if "njit" in node.value:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, f"strings mentioning njit (compiled code kept as text?): {offenders}"


def test_the_templates_are_linted_modules() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    for template in TEMPLATES:
        path = Path(template.__file__).resolve()
        assert path.is_relative_to(ROOT), path
        assert path.name not in pyproject.split("extend-exclude")[1].split("\n")[0], "ruff must read it"
        ast.parse(path.read_bytes())  # a real module, no source assembled at run time


def test_each_game_gets_its_own_compiled_copy_named_after_it() -> None:
    copies = {spec.name: kernels_of(spec.game) for spec in envs.specs()}
    assert len({id(k) for k in copies.values()}) == len(copies)
    for spec in envs.specs():
        k = copies[spec.name]
        assert k is kernels_of(spec.game)  # compiled once per game
        assert k.batch_step.py_func.__qualname__.startswith(f"{tag_of(spec.game)}_")
        assert k.batch_step.py_func.__qualname__.endswith(".batch_step")
        assert k.batch_step.py_func.__code__.co_filename == batch_kernels.__file__
        assert k.step is spec.game.step_fn


def test_a_failure_inside_a_template_points_at_its_file_and_line() -> None:
    """The Python fallback of a compiled template function: the traceback names the template's own line."""

    def failing_step(s: object, action: int) -> int:
        raise ZeroDivisionError("a rule went wrong")

    k = instantiate(batch_kernels, dict(KUHN_BINDINGS, step=failing_step), "traceback_test")
    state = KuhnPoker(KuhnPoker.config_cls()).new_state()
    KuhnPoker.reset_fn(state[0], np.uint64(1))
    with pytest.raises(ZeroDivisionError) as caught:
        k.random_playout.py_func(state.view(np.recarray)[0], 3, np.zeros(2))
    frames = traceback.extract_tb(caught.value.__traceback__)
    lines = Path(batch_kernels.__file__).read_text().splitlines()
    inside = [f for f in frames if f.filename == batch_kernels.__file__]
    assert inside, [f.filename for f in frames]
    assert inside[-1].name == "random_playout"
    assert "step(s, pick_random_action(s, mask, r))" in lines[inside[-1].lineno - 1]


def test_other_bindings_get_other_compiled_names() -> None:
    """A game.py that binds another function must not load machine code compiled for the old one."""
    base = KUHN_BINDINGS
    other = dict(base, legal_into=KuhnPoker.pick_random_action_fn)
    assert binding_digest(base) == binding_digest(dict(base))
    assert binding_digest(base) != binding_digest(other)
    assert binding_digest(base) != binding_digest(dict(base, NUM_ACTIONS=3))


def test_an_unbound_stand_in_is_refused() -> None:
    with pytest.raises(RuntimeError, match="needs .*'step'"):
        instantiate(batch_kernels, {"legal_into": KuhnPoker.legal_into_fn}, "unbound_test")


def _game_only_fields() -> set[str]:
    header = {name for name, *_ in header_fields(8)}
    fields = set()
    for spec in envs.specs():
        fields |= set(spec.game(spec.game.config_cls()).new_state().dtype.names)
    return fields - header


def test_no_module_outside_a_game_reads_its_record_fields() -> None:
    """Game knowledge stays in envs/<game>/: outside, only the engine's header fields are read by name."""
    fields = _game_only_fields()
    game_dirs = {ROOT / "envs" / spec.name.rsplit("_v", 1)[0] for spec in envs.specs()}
    template_files = {Path(t.__file__).resolve() for t in TEMPLATES}
    offenders = []
    for path in _modules(*PACKAGES):
        if any(path.is_relative_to(d) for d in game_dirs):
            continue
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            key = None
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                key = node.slice.value
            elif isinstance(node, ast.Attribute) and path.resolve() in template_files:
                key = node.attr
            if isinstance(key, str) and key in fields and (path.name, key) not in DICT_KEYS:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {key}")
    assert not offenders, offenders


def test_the_engine_holds_no_training_concept() -> None:
    words = ("learner", "opponent_slot", "snapshot", "OPPONENT_SALT")
    for path in _modules("envs/engine"):
        text = path.read_text()
        assert not [w for w in words if w in text], f"{path.relative_to(ROOT)} speaks of training"
