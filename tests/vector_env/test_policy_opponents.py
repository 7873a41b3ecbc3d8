"""Policy files as opponents inside the vector env's kernel: they play what their logits say (a policy that
always bets bets at every turn of Kuhn poker), only legal moves in every game, sampled as the softmax says,
a file with other observation options plays as it would at its own table, and a file for another game or other
rules is refused."""

import numpy as np
import pytest

import envs
from agents.compiled_policy import CompiledPolicy, save_policy
from tests.agents.test_compiled_policy import DUEL, DUEL_CONFIG, candidate_arrays, mlp_arrays
from training.vector_env import MASK_KEY, GameVectorEnv

KUHN = "kuhn_poker_v0"


def _kuhn_policy(bet_logit: float) -> CompiledPolicy:
    """A Kuhn poker policy whose logits are 0 for pass and ``bet_logit`` for bet, whatever it sees."""
    arrays = mlp_arrays(KUHN)
    last = max(int(k.split(".")[1]) for k in arrays if k.startswith("pi."))
    for key in [k for k in arrays if k.startswith("pi.")]:
        arrays[key] = np.zeros_like(arrays[key])
    arrays[f"pi.{last}.bias"][envs.make(KUHN).game.action_from_name("bet")] = bet_logit
    return CompiledPolicy(arrays)


def _play(env: GameVectorEnv, steps: int, seed: int) -> list[int]:
    """Random legal learner moves for ``steps`` steps; every opponent action the kernel played."""
    obs, infos = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    played = [int(a) for row in infos["opponent_actions"] for a in row]
    for _ in range(steps):
        masks = obs[MASK_KEY]
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], np.int64)
        obs, _, _, _, infos = env.step(actions)
        played += [int(a) for row in infos["opponent_actions"] for a in row]
    return played


def test_a_policy_that_always_bets_bets_at_every_turn():
    env = GameVectorEnv(KUHN, 16, opponents="policy", opponent_policy=_kuhn_policy(40.0), record_opponent_actions=True)
    assert env.available() == ["policy"]
    played = _play(env, 30, seed=1)
    bet = env.game.action_from_name("bet")
    assert len(played) > 100 and set(played) == {bet}
    assert env.pop_stats()["opponents"]["policy"]["games"] > 0


def test_policy_opponents_sample_their_softmax():
    # logits 0 and log(3): bet three times as often as pass
    env = GameVectorEnv(
        KUHN, 64, opponents="policy", opponent_policy=_kuhn_policy(np.log(3.0)), record_opponent_actions=True
    )
    played = np.array(_play(env, 60, seed=2))
    share = (played == env.game.action_from_name("bet")).mean()
    assert played.size > 1000 and 0.70 < share < 0.80, share


@pytest.mark.parametrize("game", ["capivari_v0", "horizonte_v0", DUEL])
def test_policy_opponents_play_only_legal_moves(game, tmp_path):
    config = DUEL_CONFIG if game == DUEL else {}
    arrays = candidate_arrays() if game == DUEL else mlp_arrays(game)
    path = save_policy(arrays, tmp_path / "opponent.npz")
    env = GameVectorEnv(game, 8, opponents="policy", opponent_policy=path, record_opponent_actions=True, **config)
    _play(env, 60, seed=3)  # an illegal kernel move would raise (IllegalActionError) or corrupt the records
    stats = env.pop_stats()
    assert stats["opponents"]["policy"]["games"] >= 1 and stats["decisions"] > stats["learner_decisions"]


@pytest.mark.parametrize(
    ("game", "file_config", "table_config"),
    [
        ("capivari_v0", {"observe_unseen": True, "observe_afterstates": True}, {"observe_margins": True}),
        (DUEL, DUEL_CONFIG, {"board_radius": 4}),  # the table observes the boards and no placement candidates
    ],
)
def test_a_file_with_other_observation_options_plays_as_at_its_own_table(game, file_config, table_config, tmp_path):
    arrays = candidate_arrays(file_config) if game == DUEL else mlp_arrays(game, file_config)
    path = save_policy(arrays, tmp_path / "opponent.npz")
    tables = [
        GameVectorEnv(game, 8, opponents="policy", opponent_policy=path, record_opponent_actions=True, **config)
        for config in (file_config, table_config)
    ]
    played = [_play(env, 40, seed=5) for env in tables]
    assert len(played[0]) > 100
    assert played[1] == played[0]  # the same moves: it observed the table's records as its own config does


def test_a_policy_for_another_game_or_rules_is_refused(tmp_path):
    path = save_policy(mlp_arrays("capivari_v0"), tmp_path / "capivari.npz")
    with pytest.raises(ValueError, match="exported for capivari_v0"):
        GameVectorEnv("horizonte_v0", 2, opponents="policy", opponent_policy=path)
    with pytest.raises(ValueError, match="exported for .* only in observation options"):  # another board radius
        GameVectorEnv(DUEL, 2, opponents="policy", opponent_policy=save_policy(candidate_arrays(), tmp_path / "d.npz"))
