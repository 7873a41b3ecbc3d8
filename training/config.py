"""The PPO configuration for one game: env, masking module, self-play mapping, resources, per-game settings.

Everything RLlib-specific about "how we train" is here, so the CLI, the Tune sweep, the learning
benchmark and the tests build the same algorithm. Settings are sized for a 2-core laptop; on a
cluster raise ``num_env_runners`` / ``num_learners`` (see docs/training.md).
"""

import math
import types
import typing
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

import envs
from agents.search.budget import check_iterations
from envs.engine.candidate_actions import candidate_actions_of
from training.env_runner import PoolEnvRunner
from training.learner_batch import EpisodeBatchGAE
from training.masking_module import DEFAULT_CONV_FILTERS, MaskedPPOTorchRLModule, image_shape_of
from training.opponents import PoolWeights
from training.selfplay import SelfPlayCallbacks
from training.vector_env import CRITIC_KEY, GameVectorEnv, compiled_opponent

ENV_NAME = "tabuleiro_vector"


@dataclass(frozen=True)
class TrainSettings:
    """The knobs a run is made of (the CLI and the Tune sweep fill them in)."""

    game: str
    game_config: dict = field(default_factory=dict)
    seed: int = 0
    num_env_runners: int = 0
    num_envs_per_env_runner: int = 256  # games per env runner, stepped in one compiled call
    num_learners: int = 0
    # numba threads of each env runner's kernels (observations, opponents); torch waits meanwhile, so with the
    # driver sampling (num_env_runners=0) the CPUs torch learns on are free then
    env_threads: int = 1
    train_batch_size: int = 4000
    minibatch_size: int = 500
    num_epochs: int = 6
    # a rate, or a schedule [[learner decisions, rate], ...] from 0, interpolated linearly (RLlib's Scheduler)
    lr: float | tuple[tuple[int, float], ...] = 3e-4
    gamma: float = 0.995
    lambda_: float = 0.95
    entropy_coeff: float = 0.01
    clip_param: float = 0.2
    hiddens: tuple[int, ...] = (256, 256)
    # one encoder (widths hiddens) for the policy and the value; False: the value has an encoder of its own
    vf_share_layers: bool = True
    # [out channels, kernel, stride] per conv layer, for a board first in the observation (None: the module's default)
    conv_filters: tuple[tuple[int, int, int], ...] | None = None
    # (channels, layers): read the board at full resolution, one logit per (cell, choice) (training.cell_head)
    cell_head: tuple[int, int] | None = None
    # an observation piece added, times a learned scale (initially action_prior_scale), to the logits of the
    # first actions (the Duel's "placement_prior": the heuristic's judgement; training.masking_module)
    action_prior: str | None = None
    action_prior_scale: float = 1.0
    # an observation piece of (rows, features): the rules' features of each legal placement, scored by a small
    # MLP (widths candidate_hiddens) into those placements' logits (the Duel's "placement_candidates" once it has
    # them; training.candidate_head)
    candidate_head: str | None = None
    candidate_hiddens: tuple[int, ...] = (64, 64)
    # with candidate_head: the learner chooses a row (action k: the k-th legal placement, the one row k describes;
    # envs.engine.candidate_actions), so its distribution has a logit per row, not one per game action
    candidate_actions: bool = False
    pool: PoolWeights = field(default_factory=PoolWeights)
    opponent_policy: str | None = None  # the pool's ``policy`` kind: a policy file (.npz) played in the kernel
    opponent_search_iterations: int = 200  # the pool's ``search`` kind: IS-MCTS iterations a move
    snapshot_threshold: float | None = None  # None: 1/players + 0.1 (0.6 with 2 players, 0.35 with 4)
    snapshot_min_games: int = 200
    max_snapshots: int = 6
    # snapshots played inside the vector env's kernel by the compiled forward pass (else by torch, outside), for
    # a module the compiled pass evaluates (training.export.module_arrays; others are always played outside); off
    # by default: with one env thread it was slower than torch's batched pass (docs/training.md)
    compiled_snapshots: bool = False
    shaping: str | None = None  # a training.shaping potential (policy-invariant reward shaping)
    # the value also reads what the learner's seat does not see (GameSpec.hidden, else the other seats'
    # observations); the policy never does (training.masking_module, "Privileged critic"; MLP modules only)
    privileged_critic: bool = False
    # each checkpoint's policy file after this many minutes of training is folded into policy-average.npz, a
    # mean of their weights (agents.policy_average; None: no mean kept)
    average_after_minutes: float | None = None


def preset(game: str) -> dict[str, Any]:
    """The game's departures from the defaults above (``GameSpec.training``), as TrainSettings fields."""
    out = dict(envs.spec(game).training)
    if "pool" in out:
        out["pool"] = PoolWeights(**out["pool"])
    return normalized(out)


def normalized(fields: dict[str, Any]) -> dict[str, Any]:
    """TrainSettings fields as the dataclass holds them: ``hiddens``, ``conv_filters`` as tuples (JSON has lists)."""
    out = dict(fields)
    if "hiddens" in out:
        out["hiddens"] = tuple(out["hiddens"])
    if isinstance(out.get("lr"), (list, tuple)):
        out["lr"] = tuple((int(step), float(rate)) for step, rate in out["lr"])
    if "candidate_hiddens" in out:
        out["candidate_hiddens"] = tuple(int(x) for x in out["candidate_hiddens"])
    if out.get("cell_head") is not None:
        out["cell_head"] = tuple(int(x) for x in out["cell_head"])
    if out.get("conv_filters") is not None:
        out["conv_filters"] = tuple(tuple(int(x) for x in layer) for layer in out["conv_filters"])
    return out


# settings the CLI sets with options of their own, not with --set
OWN_OPTIONS = {
    "game": "the GAME argument",
    "game_config": "--config KEY=VALUE",
    "seed": "--seed",
    "pool": "--pool",
    "num_env_runners": "--num-env-runners",
    "num_envs_per_env_runner": "--envs-per-runner",
    "num_learners": "--num-learners",
}


def _fits(value: Any, kind: Any) -> bool:
    """Whether a JSON value fits a TrainSettings annotation (int, float, str, None, unions, tuples)."""
    if kind is type(None):
        return value is None
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if kind is str:
        return isinstance(value, str)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in args)
    if origin is tuple and isinstance(value, (list, tuple)):
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_fits(v, args[0]) for v in value)
        return len(value) == len(args) and all(_fits(v, a) for v, a in zip(value, args, strict=True))
    return False


def checked_overrides(values: dict[str, Any]) -> dict[str, Any]:
    """TrainSettings fields by name (``tabuleiro train --set``), each value checked against the field's type;
    an unknown name, a setting with an option of its own or a value of the wrong kind is refused."""
    kinds = typing.get_type_hints(TrainSettings)
    settable = sorted(set(kinds) - set(OWN_OPTIONS))
    for key, value in values.items():
        if key in OWN_OPTIONS:
            raise ValueError(f"--set {key}: give it with {OWN_OPTIONS[key]}")
        if key not in kinds:
            raise ValueError(f"--set: no training setting {key!r}; settings: {', '.join(settable)}")
        if not _fits(value, kinds[key]):
            shown = kinds[key].__name__ if isinstance(kinds[key], type) else str(kinds[key])
            raise ValueError(f"--set {key}={value!r}: must be {shown}")
    out = normalized(values)
    if "lr" in out:
        check_lr(out["lr"])
    if out.get("average_after_minutes") is not None and out["average_after_minutes"] < 0:
        raise ValueError(f"--set average_after_minutes={out['average_after_minutes']}: must be >= 0")
    return out


def check_lr(lr: float | tuple[tuple[int, float], ...]) -> None:
    """Refuse a rate that is not positive, or a schedule that does not start at 0 and step forward."""
    points = lr if isinstance(lr, tuple) else ((0, lr),)
    if not points or points[0][0] != 0:
        raise ValueError(f"--set lr={list(map(list, points))}: a schedule starts at step 0, e.g. [[0,5e-4],[1e8,1e-5]]")
    if any(b[0] <= a[0] for a, b in zip(points, points[1:], strict=False)):
        raise ValueError(f"--set lr={list(map(list, points))}: the schedule's steps must increase")
    if any(not rate > 0 for _, rate in points):
        raise ValueError(f"--set lr={lr}: rates must be positive")


def settings_for(game: str, **overrides: Any) -> TrainSettings:
    """Defaults, then the game's preset, then ``overrides`` (values of None are ignored)."""
    gid = envs.game_name(game)
    base = TrainSettings(game=gid)
    given = preset(gid)
    merged = {**given, **{k: v for k, v in overrides.items() if v is not None}}
    if isinstance(overrides.get("game_config"), dict):  # a table size given adds to the preset's game config
        merged["game_config"] = {**given.get("game_config", {}), **overrides["game_config"]}
    return replace(base, **merged)


def _game_with_piece(s: TrainSettings, option: str, piece: str | None) -> tuple[Any, Any]:
    """The game of ``s`` and its observation layout, which must hold ``piece`` (named by setting ``option``)."""
    game = envs.make(s.game, **s.game_config).game
    layout = game.observation_layout()
    if layout is None or piece not in layout.names():
        names = [] if layout is None else list(layout.names())
        raise ValueError(
            f"{option} {piece!r} is not a piece of {s.game}'s observation with game config {s.game_config} "
            f"(pieces: {names})"
        )
    return game, layout


def action_prior_slice(s: TrainSettings) -> dict[str, Any]:
    """Where ``s.action_prior`` lies in the observation: ``{"start", "length", "scale"}`` for the masking module."""
    game, layout = _game_with_piece(s, "action_prior", s.action_prior)
    length = int(np.prod(layout.shape(s.action_prior)))
    if length > game.num_actions:
        raise ValueError(f"action_prior {s.action_prior!r} has {length} numbers for {game.num_actions} actions")
    return {"start": int(layout.offset(s.action_prior)), "length": length, "scale": float(s.action_prior_scale)}


def candidate_head_spec(s: TrainSettings) -> dict[str, Any]:
    """``s.candidate_head``'s place in the observation and the actions its rows cover, for the masking module:
    ``{"start", "rows", "features", "actions", "hiddens"}`` (``actions``: the game's ``candidate_actions``)."""
    game, layout = _game_with_piece(s, "candidate_head", s.candidate_head)
    shape = tuple(layout.shape(s.candidate_head))
    actions = game.candidate_actions
    if len(shape) != 2 or not isinstance(actions, (int, np.integer)) or isinstance(actions, bool):
        raise ValueError(
            f"candidate_head {s.candidate_head!r}: needs a (rows, features) piece and the game's int "
            f"candidate_actions; {s.game} with game config {s.game_config} has shape {shape} and candidate_actions "
            f"{actions!r} (pieces: {list(layout.names())})"
        )
    return {
        "start": int(layout.offset(s.candidate_head)),
        "rows": int(shape[0]),
        "features": int(shape[1]),
        # in the candidate action space the first ``rows`` actions are the rows' placements
        "actions": int(shape[0]) if s.candidate_actions else int(actions),
        "hiddens": [int(h) for h in s.candidate_hiddens],
    }


def candidate_actions_config(s: TrainSettings) -> dict[str, int]:
    """``model_config["candidate_actions"]``: how a policy trained in the candidate action space maps its actions
    to the game's (``placements`` leading game actions, ``rows`` candidate rows; ``agents.rllib_policy`` reads it)."""
    game, _ = _game_with_piece(s, "candidate_head", s.candidate_head)
    view = candidate_actions_of(game, s.candidate_head)
    return {"placements": view.placements, "rows": view.rows}


def privileged_critic_spec(s: TrainSettings) -> dict[str, Any]:
    """``model_config["privileged_critic"]``: how many numbers the critic's own observations take (the vector
    env's), and the value MLP's widths over them and the encoder's embedding (one layer as wide as the encoder's
    last)."""
    if s.candidate_head is not None or s.cell_head is not None:
        raise ValueError("privileged_critic cannot be combined with candidate_head or cell_head")
    space = make_env({"game": s.game, "game_config": s.game_config, "privileged_critic": True}).single_observation_space
    return {"size": int(space[CRITIC_KEY].shape[0]), "hiddens": [int(s.hiddens[-1])]}


def snapshot_threshold(s: TrainSettings) -> float:
    """Win rate main needs against the gate before a snapshot: given, or 0.1 above an even share of wins."""
    if s.snapshot_threshold is not None:
        return s.snapshot_threshold
    return 1.0 / len(envs.make(s.game, **s.game_config).possible_agents) + 0.1


def make_env(env_config: dict[str, Any]) -> GameVectorEnv:
    """RLlib's env factory: the game's vector env with ``env_config["num_envs"]`` games (vector entry point)."""
    return GameVectorEnv(
        env_config["game"],
        int(env_config.get("num_envs", 1)),
        opponents=dict(env_config.get("pool") or {"random": 1.0}),
        shaping=env_config.get("shaping"),
        shaping_gamma=float(env_config.get("shaping_gamma", 1.0)),
        threads=int(env_config.get("threads", 1)),
        candidate_actions=env_config.get("candidate_actions"),
        opponent_policy=env_config.get("opponent_policy"),
        opponent_search_iterations=int(env_config.get("opponent_search_iterations", 200)),
        privileged_critic=bool(env_config.get("privileged_critic", False)),
        **dict(env_config.get("game_config") or {}),
    )


def register() -> None:
    """Register the env factory under ``ENV_NAME`` with Ray Tune's registry (every process building an algorithm)."""
    from ray.tune.registry import register_env  # optional heavy: ray, only when registering

    register_env(ENV_NAME, make_env)


def build_config(s: TrainSettings) -> PPOConfig:
    """The PPOConfig (new API stack, single-agent vector env runner) for these settings; ``build_algo()`` it in Ray."""
    register()
    env_config = {
        "game": s.game,
        "game_config": dict(s.game_config),
        "pool": asdict(s.pool),
        "opponent_policy": s.opponent_policy,
        "opponent_search_iterations": s.opponent_search_iterations,
        "compiled_snapshots": s.compiled_snapshots,
        "seed": s.seed,
        "shaping": s.shaping,
        "shaping_gamma": s.gamma,  # policy-invariant only with the learner's own discount
        "threads": s.env_threads,
        "candidate_actions": s.candidate_head if s.candidate_actions else None,
        "privileged_critic": s.privileged_critic,
        "league": {
            "threshold": snapshot_threshold(s),
            "min_games": s.snapshot_min_games,
            "max_snapshots": s.max_snapshots,
        },
    }
    model_config: Any = DefaultModelConfig(
        fcnet_hiddens=list(s.hiddens), fcnet_activation="relu", vf_share_layers=s.vf_share_layers
    )
    image = image_shape_of(envs.make(s.game, **s.game_config).game.observation_layout())
    if image is not None:  # a board first in the observation: a conv stack reads it (training.masking_module)
        filters = [list(layer) for layer in s.conv_filters] if s.conv_filters else DEFAULT_CONV_FILTERS
        model_config = asdict(model_config) | {"image_shape": list(image), "conv_filters": filters}
        if s.cell_head is not None:
            model_config["cell_head"] = [int(x) for x in s.cell_head]
    elif s.cell_head is not None:
        raise ValueError(f"cell_head needs a board first in the observation; {s.game}'s has none")
    if s.candidate_head is not None and (s.action_prior is not None or s.cell_head is not None):
        raise ValueError("candidate_head cannot be combined with action_prior or cell_head: give one of them")
    if s.action_prior is not None:
        model_config = (model_config if isinstance(model_config, dict) else asdict(model_config)) | {
            "action_prior": action_prior_slice(s)
        }
    if s.candidate_actions and s.candidate_head is None:
        raise ValueError("candidate_actions needs candidate_head (the rows the learner's actions index)")
    if s.pool.policy > 0 and s.opponent_policy is None:
        raise ValueError("the pool's policy kind needs a policy file: --set opponent_policy=FILE.npz")
    check_iterations("opponent_search_iterations: the search opponent's", s.opponent_search_iterations)
    if s.pool.search > 0 and envs.spec(s.game).search is None:
        raise ValueError(f"the pool's search kind needs IS-MCTS; {envs.spec(s.game).name} has no search hooks")
    if s.opponent_policy is not None:  # the file is checked here, before any sampling starts
        compiled_opponent(s.opponent_policy, envs.make(s.game, **s.game_config).game)
    if s.candidate_head is not None:
        model_config = (model_config if isinstance(model_config, dict) else asdict(model_config)) | {
            "candidate_head": candidate_head_spec(s)
        }
        if s.candidate_actions:
            model_config["candidate_actions"] = candidate_actions_config(s)
    if s.privileged_critic:
        model_config = (model_config if isinstance(model_config, dict) else asdict(model_config)) | {
            "privileged_critic": privileged_critic_spec(s)
        }
    module = RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model_config)
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        # no normalize/clip: they deep-copy every action batch, and discrete actions have nothing to scale
        .environment(
            ENV_NAME, env_config=env_config, disable_env_checking=True, normalize_actions=False, clip_actions=False
        )
        .framework("torch")
        .env_runners(
            env_runner_cls=PoolEnvRunner,
            num_env_runners=s.num_env_runners,
            num_envs_per_env_runner=s.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
            gym_env_vectorize_mode=gym.VectorizeMode.VECTOR_ENTRY_POINT,
            rollout_fragment_length="auto",
        )
        .learners(
            num_learners=s.num_learners,
            # the env runner's numpy episode chunks become the train batch in one pass (training.learner_batch)
            learner_connector=lambda obs_space, act_space: EpisodeBatchGAE(
                gamma=s.gamma, lambda_=s.lambda_, seed=s.seed
            ),
            add_default_connectors_to_learner_pipeline=False,
        )
        .rl_module(rl_module_spec=module)
        .training(
            train_batch_size_per_learner=s.train_batch_size,
            minibatch_size=s.minibatch_size,
            num_epochs=s.num_epochs,
            lr=[list(point) for point in s.lr] if isinstance(s.lr, tuple) else s.lr,
            gamma=s.gamma,
            lambda_=s.lambda_,
            entropy_coeff=s.entropy_coeff,
            clip_param=s.clip_param,
            vf_clip_param=10.0,
            # EpisodeBatchGAE shuffles the chunks once; a shuffle per epoch would copy the whole batch
            shuffle_batch_per_epoch=False,
        )
        .callbacks(SelfPlayCallbacks)
        .debugging(seed=s.seed)
        .reporting(metrics_num_episodes_for_smoothing=100)
    )
