"""The RLlib env wrapper: RLlib's keys and dtypes, main's seats only, seeded opponent draws, outcomes."""

import numpy as np
import pytest

import envs
from training.config import settings_for
from training.env import SelfPlayEnv, outcome
from training.masking_module import MASK_KEY, OBS_KEY
from training.opponents import PoolWeights


def play(env: SelfPlayEnv, seed: int | None = None) -> tuple[dict, dict, set]:
    """One episode with the first legal action; (main's summed rewards, last infos, agents seen)."""
    obs, _ = env.reset(seed=seed)
    totals, seen = {}, set()
    while True:
        assert len(obs) == 1, "turn-based: one main seat acts at a time"
        ((agent, o),) = obs.items()
        seen.add(agent)
        assert env.observation_spaces[agent].contains(o)
        assert o[OBS_KEY].dtype == np.float32 and o[MASK_KEY].dtype == np.float32
        obs, rewards, terms, truncs, infos = env.step({agent: int(np.flatnonzero(o[MASK_KEY])[0])})
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        if terms["__all__"]:
            assert set(obs) == set(rewards) == set(infos) == seen
            assert all(terms[a] for a in obs) and not truncs["__all__"]
            return totals, infos, seen
        assert set(obs) <= seen | set(obs) and not terms[next(iter(obs))]


@pytest.mark.parametrize("game", [spec.name for spec in envs.specs()])
def test_a_game_against_random_reports_main_only(game):
    config = settings_for(game).game_config  # the table training uses
    env = SelfPlayEnv({"game": game, "game_config": config, "pool": {"random": 1, "heuristic": 0, "snapshot": 0}})
    totals, infos, seen = play(env, seed=5)
    assert len(seen) == 1
    ((agent, info),) = infos.items()
    assert info["opponent"] == "random" and info["turns"] > 0 and not info["illegal"]
    assert totals[agent] == pytest.approx(info["score"])  # every reward reached main exactly once
    assert info["win"] in (0.0, 1.0)


def test_mirror_game_exposes_every_seat():
    env = SelfPlayEnv({"game": "capivari_v0", "pool": {"random": 0, "heuristic": 0, "snapshot": 0, "self": 1}})
    totals, infos, seen = play(env, seed=2)
    assert seen == set(env.possible_agents)
    assert sum(totals.values()) == pytest.approx(0.0)  # zero-sum
    assert {i["opponent"] for i in infos.values()} == {"self"}


def test_draws_are_seeded():
    def draws(seed: int) -> list[tuple[str, str]]:
        env = SelfPlayEnv({"game": "capivari_v0", "pool": {"random": 1, "heuristic": 0, "snapshot": 0, "self": 1}})
        out = []
        for i in range(12):
            obs, _ = env.reset(seed=seed if i == 0 else None)
            out.append((env.kind, next(iter(obs))))
        return out

    assert draws(7) == draws(7)
    assert draws(7) != draws(8)
    assert {seat for _, seat in draws(7)} == {"player_0", "player_1"}  # main plays every seat


def test_snapshots_join_the_pool():
    class First:
        name = "first"

        def reset(self, seed=None):
            pass

        def act(self, observation, env=None):
            return int(np.flatnonzero(observation["action_mask"])[0])

    env = SelfPlayEnv({"game": "capivari_v0", "pool": {"random": 0, "heuristic": 0, "snapshot": 1}})
    play(env, seed=0)
    assert env.kind == "random"  # no snapshot yet: falls back to random
    env.set_snapshot("main_v1", First())
    _, infos, _ = play(env, seed=1)
    assert env.kind == "snapshot" and next(iter(infos.values()))["opponent_name"] == "main_v1"
    env.drop_snapshot("main_v1")
    play(env, seed=2)
    assert env.kind == "random"


def test_outcome_is_strictly_first():
    assert outcome(np.array([1.0, -1.0]), 0) == 1.0
    assert outcome(np.array([0.0, 0.0]), 0) == 0.0
    assert outcome(np.array([-0.5, 1.0, -0.5]), 1) == 1.0


def test_pool_weights_parse_and_validate():
    w = PoolWeights.parse("random=0.25, heuristic=0.75")
    assert (w.random, w.heuristic, w.snapshot, w.self) == (0.25, 0.75, 0.0, 0.0)
    for bad in ("robot=1", "random=x", "random=0", "random=-1"):
        with pytest.raises(ValueError):
            PoolWeights.parse(bad)


def test_shaping_telescopes_to_the_game_reward():
    """Potential-based shaping adds gamma*phi' - phi per decision and -phi at the end: with gamma 1 the
    shaped return is the game's return minus phi at main's first decision."""
    base = {"game": "dorfromantik_duel_v0", "game_config": {"board_radius": 6}, "pool": {"random": 1, "heuristic": 0}}
    env = SelfPlayEnv(base | {"shaping": "duel_margin", "gamma": 1.0})
    obs, _ = env.reset(seed=4)
    phi0 = float(env._last_phi[env._seat_of[next(iter(obs))]])
    total = 0.0
    while True:
        ((agent, o),) = obs.items()
        obs, rewards, terms, _, infos = env.step({agent: int(np.flatnonzero(o[MASK_KEY])[-1])})
        total += sum(rewards.values())
        if terms["__all__"]:
            break
    ((agent, info),) = infos.items()
    assert total == pytest.approx(info["score"] - phi0)
    with pytest.raises(ValueError, match="unknown reward shaping"):
        SelfPlayEnv(base | {"shaping": "nope"})
