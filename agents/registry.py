"""Agents by name: ``make_agent("ismcts:iterations=2000", "capivari_v0", seed=1)``.

A spec is a name, optionally followed by ``:key=value,key=value`` options; ``rllib:<checkpoint>``
takes a path (and options after it: ``rllib:/ckpt/dir,deterministic=true``), as do ``policy:<file.npz>``
(``policy:runs/x/policy.npz,sample=true``) and ``guided:<file.npz>`` (``guided:reference,seconds=0.05``). Any agent
takes ``solve=true``: exact play wherever the game solves the position (``policy:reference,solve=true``).
"""

import importlib
from collections.abc import Callable
from typing import Any

import envs
from agents.base import Agent
from agents.heuristic import HeuristicAgent
from agents.ismcts import ISMCTSAgent, check_budget
from agents.random_agent import RandomAgent
from agents.solved_endings import SolvedEndings, check_solves


def _random(game: str, seed: int | None, options: dict[str, str]) -> Agent:
    _no_options("random", options)
    return RandomAgent(seed)


def _heuristic(game: str, seed: int | None, options: dict[str, str]) -> Agent:
    _no_options("heuristic", options)
    return HeuristicAgent(game, seed)


def _typed_options(agent: str, options: dict[str, str], kinds: dict[str, type], note: str = "") -> dict[str, Any]:
    """A spec's options as keyword arguments of the types in ``kinds``; ValueError naming an unknown or bad one."""
    unknown = sorted(set(options) - set(kinds))
    if unknown:
        raise ValueError(f"unknown {agent} option(s) {unknown}; known: {sorted(kinds)}{note}")
    kwargs: dict[str, Any] = {}
    for key, text in options.items():
        try:
            kwargs[key] = kinds[key](text)
        except ValueError:
            raise ValueError(f"{agent} option {key}={text!r} must be a {kinds[key].__name__}") from None
    return kwargs


def _ismcts_options(options: dict[str, str]) -> dict[str, Any]:
    """The keyword arguments of ``ISMCTSAgent`` from a spec's options, typed and range-checked
    (``agents.ismcts.check_budget``: finite, bounded budgets)."""
    kwargs = _typed_options("ismcts", options, {"iterations": int, "seconds": float, "exploration": float})
    check_budget(**kwargs)
    return kwargs


def _ismcts(game: str, seed: int | None, options: dict[str, str]) -> Agent:
    agent = ISMCTSAgent(game, seed=seed, **_ismcts_options(options))
    return agent


def _openspiel_ismcts_options(options: dict[str, str]) -> dict[str, Any]:
    """The keyword arguments of ``OpenSpielISMCTSAgent`` from a spec's options, typed and range-checked."""
    from agents.openspiel_ismcts import check_options  # needs no pyspiel: that loads when an agent is made

    kinds = {"iterations": int, "exploration": float}
    kwargs = _typed_options("openspiel-ismcts", options, kinds, " (the bot's budget is simulations: no seconds=)")
    check_options(**kwargs)
    return kwargs


def _openspiel_ismcts(game: str, seed: int | None, options: dict[str, str]) -> Agent:
    from agents.openspiel_ismcts import OpenSpielISMCTSAgent  # optional: pyspiel loads when the agent is made

    return OpenSpielISMCTSAgent(game, seed=seed, **_openspiel_ismcts_options(options))


def _rllib(game: str, seed: int | None, options: dict[str, str], path: str) -> Agent:
    if not path:
        raise ValueError("rllib needs a checkpoint: rllib:<path>")
    try:
        rllib_policy = importlib.import_module("agents.rllib_policy")
    except ImportError as exc:
        raise ValueError(f"rllib agents need agents.rllib_policy and the rl extra: {exc}") from None
    if seed is not None and "seed" not in options:
        options = dict(options, seed=str(seed))
    return rllib_policy.load_agent(path, game, **options)


def _policy_options(options: dict[str, str]) -> dict[str, Any]:
    """``policy:FILE`` options: ``sample`` (true/false: sample the masked softmax, seeded; default argmax)."""
    unknown = sorted(set(options) - {"sample"})
    if unknown:
        raise ValueError(f"unknown policy option(s) {unknown}; known: ['sample']")
    return {"sample": _flag("policy", "sample", options.get("sample", "false"))}


def _flag(agent: str, key: str, text: str) -> bool:
    """A true/false option (also 1/0, yes/no); ValueError naming it otherwise."""
    word = text.strip().lower()
    if word not in ("true", "false", "1", "0", "yes", "no"):
        raise ValueError(f"{agent} option {key}={text!r} must be true or false")
    return word in ("true", "1", "yes")


def _policy(game: str, seed: int | None, options: dict[str, str], path: str) -> Agent:
    from agents.compiled_policy import load_agent  # numba and numpy only: never torch or Ray

    if not path:
        raise ValueError("policy needs a policy file: policy:<file.npz> (or a training run folder)")
    return load_agent(path, game, seed=seed, **_policy_options(options))


def _guided_options(options: dict[str, str]) -> dict[str, Any]:
    """The keyword arguments of ``GuidedAgent`` from a spec's options, typed and range-checked."""
    from agents.guided import check_options

    kinds = {
        "iterations": int,
        "seconds": float,
        "c_puct": float,
        "value_weight": float,
        "prior_temperature": float,
        "network_depth": int,
        "playout": str,
        "playout_steps": int,
    }
    options = dict(options)
    flags = {name: options.pop(name) for name in ("root_candidates", "game_search") if name in options}
    kwargs = _typed_options("guided", options, kinds, ", root_candidates and game_search")
    check_options(**kwargs)
    for name, value in flags.items():
        kwargs[name] = _flag("guided", name, value)
    return kwargs


def _guided(game: str, seed: int | None, options: dict[str, str], path: str) -> Agent:
    from agents.guided import load_agent

    if not path:
        raise ValueError("guided needs a policy file: guided:<file.npz> (or a run folder, or reference)")
    return load_agent(path, game, seed=seed, **_guided_options(options))


# name -> (factory, one-line description)
AGENTS: dict[str, tuple[Callable[..., Agent], str]] = {
    "random": (_random, "uniform over the legal actions, seeded"),
    "heuristic": (_heuristic, "the game's rule of thumb (envs/<game>/heuristic.py)"),
    "ismcts": (
        _ismcts,
        "IS-MCTS with determinization; options iterations=N (<= 1,000,000) | seconds=S (<= 600), exploration=C",
    ),
    "rllib": (_rllib, "a trained RLlib policy: rllib:<checkpoint>[,key=value...]"),
    "policy": (
        _policy,
        "a policy file, compiled (no torch, no Ray): policy:<file.npz, run folder or reference>[,sample=true]",
    ),
    "guided": (
        _guided,
        "IS-MCTS guided by a policy file's priors and value: guided:<file.npz, run folder or reference>"
        "[,iterations=N | seconds=S, c_puct=C, value_weight=W, prior_temperature=T, network_depth=D, "
        "playout=random|heuristic|network, playout_steps=K, root_candidates=true, game_search=true]",
    ),
    "openspiel-ismcts": (
        _openspiel_ismcts,
        "OpenSpiel's IS-MCTS bot over our determinizer (needs open_spiel); options iterations=N, exploration=C",
    ),
}


PATH_AGENTS = ("rllib", "policy", "guided")  # the agents whose spec starts with a path


def parse_spec(spec: str) -> tuple[str, str, dict[str, str]]:
    """``(name, path, options)`` of a spec; ``path`` only for ``PATH_AGENTS`` (``rllib:<checkpoint>``, ...)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; agents: {', '.join(AGENTS)}")
    parts = [p.strip() for p in rest.split(",")] if rest else []
    path = ""
    if name in PATH_AGENTS and parts and "=" not in parts[0]:
        path = parts.pop(0)
    options: dict[str, str] = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise ValueError(f"agent option {part!r} in {spec!r} must look like key=value")
        if key.strip() in options:
            raise ValueError(f"agent option {key.strip()!r} given twice in {spec!r}")
        options[key.strip()] = value.strip()
    return name, path, options


def check_spec(spec: str) -> None:
    """ValueError unless ``spec`` names a known agent with well-formed, in-range options; needs no game
    and builds nothing (for command lines, before any work starts). An rllib checkpoint is checked when loaded."""
    name, path, options = parse_spec(spec)
    pop_solve(options)
    if name in ("random", "heuristic"):
        _no_options(name, options)
    elif name == "ismcts":
        _ismcts_options(options)
    elif name == "openspiel-ismcts":
        _openspiel_ismcts_options(options)
    elif name == "rllib" and not path:
        raise ValueError("rllib needs a checkpoint: rllib:<path>")
    elif name == "policy":
        _policy_options(options)
        if not path:
            raise ValueError("policy needs a policy file: policy:<file.npz> (or a training run folder)")
    elif name == "guided":
        _guided_options(options)
        if not path:
            raise ValueError("guided needs a policy file: guided:<file.npz> (or a run folder, or reference)")


def make_agent(spec: str, game: str, seed: int | None = None) -> Agent:
    """An agent for ``game`` from a spec such as ``random``, ``heuristic``, ``ismcts:seconds=0.5``; with
    ``solve=true``, exact play wherever the game solves the position (``agents.solved_endings``)."""
    name, path, options = parse_spec(spec)
    game = envs.game_name(game)
    solve = pop_solve(options)
    if solve:
        check_solves(game)
    factory = AGENTS[name][0]
    agent = factory(game, seed, options, path) if name in PATH_AGENTS else factory(game, seed, options)
    if solve:
        return SolvedEndings(agent, before_refill=True, name=f"{getattr(agent, 'name', name)}+solve")
    return agent


def pop_solve(options: dict[str, str]) -> bool:
    """Pop ``solve`` (any agent's option: exact play where the game solves the position) from a spec's ``options``;
    whether it asks for the solver."""
    return _flag("agent", "solve", options.pop("solve")) if "solve" in options else False


def _no_options(name: str, options: dict[str, str]) -> None:
    if options:
        raise ValueError(f"agent {name!r} takes no options, got {sorted(options)}")
