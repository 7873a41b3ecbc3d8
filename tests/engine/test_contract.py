"""The game contract (``envs.engine.contract``): each piece of a copy of Kuhn poker removed or broken in turn
fails at registration with an error that names it."""

import dataclasses

import numpy as np
import pytest
from numba import njit

import envs
from envs.engine.contract import CHANCE_SET, GAME_PIECES, SEARCH_PIECES, ContractError, check_game
from envs.engine.game import Game
from envs.kuhn_poker.game import KuhnPoker

KUHN = envs.spec("kuhn_poker")
_NOT_COPIED = ("__dict__", "__weakref__", "_abc_impl", "__abstractmethods__", "_registered_name")


def kuhn_copy(**changes: object) -> type:
    """A new Game class with Kuhn poker's pieces, ``changes`` applied (a value of ``...`` removes the piece)."""
    body = {k: v for k, v in vars(KuhnPoker).items() if k not in _NOT_COPIED}
    for key, value in changes.items():
        if value is ...:
            body.pop(key, None)
        else:
            body[key] = value
    return type("KuhnCopy", (Game,), body)


def register(cls: type) -> None:
    dataclasses.replace(KUHN, game=cls).registered("kuhn_copy_v0")


def test_the_copy_registers() -> None:
    register(kuhn_copy())


@njit(cache=True)
def _two(a, b):
    return 0


def _python(s, seed):
    return 0


def _broken(piece: object) -> object:
    """A value of the wrong kind for ``piece``."""
    if piece.kind == "compiled":
        return staticmethod(_two) if piece.arity != 2 else staticmethod(_python)
    if piece.kind == "python":
        return _python
    if piece.kind in ("int", "float"):
        return "7"
    if piece.kind == "bool":
        return 1
    if piece.kind == "str":
        return ""
    if piece.kind == "dtype":
        return [("done", "u1")]
    return 42


@pytest.mark.parametrize("piece", GAME_PIECES, ids=[p.name for p in GAME_PIECES])
def test_each_game_piece_removed_or_broken_is_named(piece) -> None:
    in_chance_set = piece.name in CHANCE_SET
    if piece.required:
        with pytest.raises(ContractError, match=rf"\.{piece.name} is missing"):
            register(kuhn_copy(**{piece.name: None}))
    elif in_chance_set:  # the explicit-chance functions come together
        with pytest.raises(ContractError, match=rf"explicit chance needs all of .*'{piece.name}'. is missing"):
            register(kuhn_copy(**{piece.name: None}))
    elif piece.name == "max_chance_outcomes":  # Kuhn poker has explicit chance: it needs the outcome count
        with pytest.raises(ContractError, match="max_chance_outcomes must be >= 1"):
            register(kuhn_copy(**{piece.name: None}))
    elif piece.kind == "method":  # an optional method is left out (Game's default), never None
        register(kuhn_copy(**{piece.name: ...}))
        with pytest.raises(ContractError, match=rf"\.{piece.name} must not be None"):
            register(kuhn_copy(**{piece.name: None}))
    else:
        register(kuhn_copy(**{piece.name: None}))  # optional: leaving it out is fine
    with pytest.raises(ContractError, match=rf"\.{piece.name} must"):
        register(kuhn_copy(**{piece.name: _broken(piece)}))


@pytest.mark.parametrize("method", sorted(Game.__abstractmethods__))
def test_each_abstract_method_left_out_is_named(method: str) -> None:
    with pytest.raises(ContractError, match=rf"does not implement .*'{method}'"):
        register(kuhn_copy(**{method: ...}))


@pytest.mark.parametrize("piece", SEARCH_PIECES, ids=[p.name for p in SEARCH_PIECES])
def test_each_search_hook_removed_or_broken_is_named(piece) -> None:
    def with_hook(value: object) -> type:
        return kuhn_copy(search=dataclasses.replace(KuhnPoker.search, **{piece.name: value}))

    if piece.required:
        with pytest.raises(ContractError, match=rf"\.search\.{piece.name} is missing"):
            register(with_hook(None))
    broken = _broken(piece)
    if isinstance(broken, staticmethod):
        broken = broken.__func__
    with pytest.raises(ContractError, match=rf"\.search\.{piece.name} must"):
        register(with_hook(broken))


def test_search_hooks_of_another_kind_are_refused() -> None:
    with pytest.raises(ContractError, match=r"\.search must be a SearchHooks"):
        register(kuhn_copy(search={"utility": KuhnPoker.search.utility}))


def test_spec_fields_are_checked() -> None:
    with pytest.raises(ContractError, match="seats"):
        dataclasses.replace(KUHN, seats=(3, 2))
    with pytest.raises(ContractError, match="shaping 'nope' is not one of its potentials"):
        dataclasses.replace(KUHN, training={"shaping": "nope"})
    with pytest.raises(ContractError, match="game must be a Game subclass"):
        dataclasses.replace(KUHN, game=object)


def test_a_class_takes_one_registered_name() -> None:
    cls = kuhn_copy()
    register(cls)
    assert cls(KuhnPoker.config_cls()).name == "kuhn_copy_v0"
    with pytest.raises(ContractError, match="registered as 'kuhn_copy_v0' already"):
        dataclasses.replace(KUHN, game=cls).registered("other_v0")


def test_every_registered_game_meets_the_contract() -> None:
    for spec in envs.specs():
        check_game(spec.game)
        assert spec.game(spec.game.config_cls()).name == spec.name


def test_the_kernels_are_compiled_from_the_declared_pieces() -> None:
    from envs.engine.templates import kernels_of

    k = kernels_of(KuhnPoker)
    assert k.step is KuhnPoker.step_fn and k.legal_into is KuhnPoker.legal_into_fn
    assert k.action_values is KuhnPoker.action_values_fn and k.NUM_ACTIONS == KuhnPoker.max_actions
    states = np.repeat(KuhnPoker(KuhnPoker.config_cls()).new_state(), 4)
    k.batch_reset(states, np.arange(4, dtype=np.uint64))
    assert k.random_steps(states, 3, 20) > 0


def test_a_game_unpickled_where_the_registry_is_not_loaded_knows_its_name() -> None:
    """Ray workers unpickle games before anything there calls envs.spec(): the name travels in the pickle."""
    import pickle
    import subprocess
    import sys

    data = pickle.dumps(envs.make("kuhn_poker").game)
    code = "import pickle, sys; print(pickle.loads(sys.stdin.buffer.read()).name)"
    out = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=True).stdout
    assert out.decode().strip() == "kuhn_poker_v0"
