"""The PPO configuration for one game: env, masking module, self-play mapping, resources, per-game settings.

Everything RLlib-specific about "how we train" is here, so the CLI, the Tune sweep, the learning
benchmark and the tests build the same algorithm. Settings are sized for a 2-core laptop; on a
cluster raise ``num_env_runners`` / ``num_learners`` (see docs/training.md).
"""

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

import envs
from agents.rllib_policy import MAIN_MODULE
from training.env import ENV_NAME, register
from training.masking_module import MaskedPPOTorchRLModule
from training.opponents import PoolWeights
from training.selfplay import SelfPlayCallbacks


@dataclass(frozen=True)
class TrainSettings:
    """The knobs a run is made of (the CLI and the Tune sweep fill them in)."""

    game: str
    game_config: dict = field(default_factory=dict)
    seed: int = 0
    num_env_runners: int = 0
    num_envs_per_env_runner: int = 32  # measured on 2 busy cores: 30% faster iterations than 8
    num_learners: int = 0
    train_batch_size: int = 4000
    minibatch_size: int = 500
    num_epochs: int = 6
    lr: float = 3e-4
    gamma: float = 0.995
    lambda_: float = 0.95
    entropy_coeff: float = 0.01
    clip_param: float = 0.2
    hiddens: tuple[int, ...] = (256, 256)
    pool: PoolWeights = field(default_factory=PoolWeights)
    snapshot_threshold: float | None = None  # None: 1/players + 0.1 (0.6 with 2 players, 0.35 with 4)
    snapshot_min_games: int = 200
    max_snapshots: int = 6
    shaping: str | None = None  # a training.shaping potential (policy-invariant reward shaping)


def preset(game: str) -> dict[str, Any]:
    """The game's departures from the defaults above (``GameSpec.training``), as TrainSettings fields."""
    out = dict(envs.spec(game).training)
    if "pool" in out:
        out["pool"] = PoolWeights(**out["pool"])
    if "hiddens" in out:
        out["hiddens"] = tuple(out["hiddens"])
    return out


def settings_for(game: str, **overrides: Any) -> TrainSettings:
    """Defaults, then the game's preset, then ``overrides`` (values of None are ignored)."""
    gid = envs.game_name(game)
    base = TrainSettings(game=gid)
    merged = {**preset(gid), **{k: v for k, v in overrides.items() if v is not None}}
    return replace(base, **merged)


def snapshot_threshold(s: TrainSettings) -> float:
    """Win rate main needs against the gate before a snapshot: given, or 0.1 above an even share of wins."""
    if s.snapshot_threshold is not None:
        return s.snapshot_threshold
    return 1.0 / len(envs.make(s.game, **s.game_config).possible_agents) + 0.1


def build_config(s: TrainSettings) -> PPOConfig:
    """The PPOConfig (new API stack) for these settings; ``build_algo()`` it inside a running Ray."""
    register()
    env_config = {
        "game": s.game,
        "game_config": dict(s.game_config),
        "pool": asdict(s.pool),
        "seed": s.seed,
        "shaping": s.shaping,
        "gamma": s.gamma,
        "league": {
            "threshold": snapshot_threshold(s),
            "min_games": s.snapshot_min_games,
            "max_snapshots": s.max_snapshots,
        },
    }
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        model_config=DefaultModelConfig(fcnet_hiddens=list(s.hiddens), fcnet_activation="relu"),
    )
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(ENV_NAME, env_config=env_config, disable_env_checking=True)
        .framework("torch")
        .env_runners(
            num_env_runners=s.num_env_runners,
            num_envs_per_env_runner=s.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=s.num_learners)
        .multi_agent(
            policies={MAIN_MODULE},
            # every seat RLlib sees is main's (opponents act inside the env): one mapping for all games
            policy_mapping_fn=_to_main,
            policies_to_train=[MAIN_MODULE],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MAIN_MODULE: module}))
        .training(
            train_batch_size_per_learner=s.train_batch_size,
            minibatch_size=s.minibatch_size,
            num_epochs=s.num_epochs,
            lr=s.lr,
            gamma=s.gamma,
            lambda_=s.lambda_,
            entropy_coeff=s.entropy_coeff,
            clip_param=s.clip_param,
            vf_clip_param=10.0,
        )
        .callbacks(SelfPlayCallbacks)
        .debugging(seed=s.seed)
        .reporting(metrics_num_episodes_for_smoothing=100)
    )


def _to_main(agent_id: Any, episode: Any, **kwargs: Any) -> str:
    return MAIN_MODULE
