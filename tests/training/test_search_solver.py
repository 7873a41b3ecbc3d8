"""Learning a game's solved positions from a teacher (``--algo exit --set expert=solver``): the network plays, the
target is the teacher's policy, and where the game solves a position (Capivari's round endings) the teacher's share
of the moves worth less than the best goes to the best ones."""

import numpy as np
import pytest

import envs
from agents.compiled_policy import CompiledPolicy, load_policy, save_policy
from tests.agents.test_compiled_policy import mlp_arrays
from tests.training.test_monte_carlo import AFTERSTATES, tiny_afterstate_run
from tests.training.test_monte_carlo import TINY as AFTERSTATE_TINY
from tests.training.test_search_training import TINY as SEARCH_TINY
from tests.training.test_search_training import one_torch_thread  # noqa: F401  (autouse: one torch thread here too)


def _steps(selfplay):
    """(states, observations, masks) of every batch step self-play takes from now on."""
    seen = []
    step = selfplay.env.step

    def record(actions):
        seen.append((selfplay.env.states.copy(), selfplay.obs.copy(), selfplay.masks.copy()))
        return step(actions)

    selfplay.env.step = record
    return seen


def test_targets_are_the_teachers_policy_with_its_share_of_worse_moves_moved_to_the_solved_best():
    from training.search_selfplay import SelfPlay, teacher_targets

    game = envs.make("capivari").game
    student, teacher = CompiledPolicy(mlp_arrays("capivari_v0", seed=1)), CompiledPolicy(mlp_arrays("capivari_v0"))
    selfplay = SelfPlay(game, student, 4, 1, 1.5, 0.5, 0, 3, "solver", epsilon=0.0, teacher=teacher)
    seen = _steps(selfplay)
    played = selfplay.play(120)
    assert played.games >= 4
    rows = {obs.tobytes(): target for obs, target in zip(played.obs, played.policy, strict=True)}
    solved = unsolved = 0
    for states, obs, masks in seen:
        taught = teacher_targets(teacher, obs, masks)
        for i in range(len(obs)):
            target = rows.get(obs[i].tobytes())
            if target is None:  # a game still running when play stopped
                continue
            values = game.solved_values(states[i : i + 1])
            if values is None:
                np.testing.assert_allclose(target, taught[i], rtol=1e-5, atol=1e-7)
                unsolved += 1
                continue
            best = values == values.max()
            assert target[~best].sum() == 0 and target.sum() == pytest.approx(1.0)
            if taught[i][best].sum() > 1e-6:
                np.testing.assert_allclose(target[best], taught[i][best] / taught[i][best].sum(), rtol=1e-4)
            solved += 1
    assert solved > 50 and unsolved > 100


def test_a_tiny_run_from_a_teacher_writes_a_policy_file(tmp_path):
    from training.search_training import checked_settings, train_from_search

    teacher = save_policy(mlp_arrays("capivari_v0"), tmp_path / "teacher.npz")
    values = {**SEARCH_TINY, "expert": "solver", "init_policy": str(teacher)}
    meta = train_from_search(
        checked_settings("capivari", {}, 0, values), tmp_path / "run", iterations=2, checkpoint_every=1, echo=print
    )
    assert meta["iteration"] == 2 and meta["settings"]["expert"] == "solver"
    assert (tmp_path / "run" / "policy.npz").is_file()


def test_an_afterstate_network_learns_from_a_teacher_that_observes_without_the_rows(tmp_path):
    from training.search_selfplay import SelfPlay, teacher_targets

    path = save_policy(mlp_arrays("capivari_v0"), tmp_path / "t.npz")  # the default config: no afterstate rows
    teacher = load_policy(path, "capivari")
    values = {**SEARCH_TINY, "expert": "solver", "teacher": str(path), "candidate_head": "afterstates"}
    meta = tiny_afterstate_run(tmp_path / "run", {**values, "candidate_hiddens": [8]})
    assert meta["settings"]["teacher"].endswith("t.npz")
    game = envs.make("capivari", **AFTERSTATES).game
    student = load_policy(tmp_path / "run", "capivari")
    selfplay = SelfPlay(game, student, 3, 1, 1.5, 0.5, 0, 4, "solver", epsilon=0.0, teacher=teacher)
    taught = selfplay._teacher_obs()
    plain = envs.make("capivari").game
    assert taught.shape[1] == plain.obs_size < game.obs_size
    np.testing.assert_array_equal(taught, selfplay.obs[:, : plain.obs_size])  # the rows are the last piece
    assert teacher_targets(teacher, taught, selfplay.masks).shape == (3, game.num_actions)


def test_a_candidate_head_teacher_teaches_its_softmax_carried_to_the_game_actions_and_a_run_starts_from_it(tmp_path):
    from training.search_selfplay import SelfPlay, teacher_targets

    tiny_afterstate_run(tmp_path / "teacher", {**AFTERSTATE_TINY, "candidate_hiddens": [8]})
    teacher = load_policy(tmp_path / "teacher", "capivari")
    assert teacher.candidates is not None
    game = envs.make("capivari", **AFTERSTATES).game
    selfplay = SelfPlay(game, teacher, 6, 1, 1.5, 0.5, 0, 5, "solver", epsilon=0.0, teacher=teacher)
    seen = _steps(selfplay)
    selfplay.play(12)
    checked = 0
    for _, obs, masks in seen:
        taught = teacher_targets(teacher, obs, masks)
        for i in range(len(obs)):
            logits, _ = teacher.game_logits(obs[i], masks[i])
            z = np.where(masks[i] > 0, np.exp(logits.astype(np.float64) - logits.max()), 0.0)
            np.testing.assert_allclose(taught[i], z / z.sum(), rtol=1e-5, atol=1e-7)
            assert taught[i][masks[i] == 0].sum() == 0
            checked += 1
    assert checked == 72
    values = {**SEARCH_TINY, "expert": "solver", "init_policy": str(tmp_path / "teacher" / "policy.npz"),
              "candidate_head": "afterstates", "candidate_hiddens": [8]}  # fmt: skip
    meta = tiny_afterstate_run(tmp_path / "student", values)
    assert meta["settings"]["expert"] == "solver"


def test_a_candidate_head_in_the_games_action_space_as_ppo_writes_it_starts_a_run_as_the_same_policy(tmp_path):
    import json

    from agents.compiled_policy import read_arrays
    from training.search_net import load_net_arrays, net_arrays
    from training.search_training import checked_settings, network_of

    tiny_afterstate_run(tmp_path / "exit", {**AFTERSTATE_TINY, "candidate_hiddens": [8]})
    arrays = read_arrays(tmp_path / "exit" / "policy.npz")
    model = json.loads(str(arrays["model"][()]))
    game = envs.make("capivari", **AFTERSTATES).game
    model.update(candidate_actions=None, outputs=game.num_actions)  # PPO's file: the head's rows for all 36 actions
    model["candidate_head"]["actions"] = game.num_actions
    ppo = save_policy({**arrays, "model": np.array(json.dumps(model))}, tmp_path / "ppo.npz")
    settings = checked_settings("capivari", AFTERSTATES, 0, {**AFTERSTATE_TINY, "init_policy": str(ppo)})
    assert settings.candidate_head == "afterstates" and tuple(settings.candidate_hiddens) == (8,)
    net = network_of(settings, game)
    load_net_arrays(net, read_arrays(ppo), "ppo.npz")
    started, original = CompiledPolicy(net_arrays(net, game)), load_policy(ppo, "capivari")
    env = envs.make("capivari", **AFTERSTATES)
    env.reset(seed=5)
    compared = 0
    while compared < 40 and not any(env.terminations.values()):
        observation = env.observe(env.agent_selection)
        obs, mask = observation["observation"], observation["action_mask"]
        ours, theirs = started.game_logits(obs, mask)[0], original.game_logits(obs, mask)[0]
        np.testing.assert_allclose(ours[mask > 0], theirs[mask > 0], rtol=1e-5, atol=1e-5)
        env.step(int(np.flatnonzero(mask)[-1]))
        compared += 1
    assert compared >= 20
    model["candidate_head"]["rows"] = 12  # rows the game's piece does not have
    with pytest.raises(ValueError, match="rows"):
        bad = save_policy({**arrays, "model": np.array(json.dumps(model))}, tmp_path / "bad.npz")
        checked_settings("capivari", AFTERSTATES, 0, {**AFTERSTATE_TINY, "init_policy": str(bad)})


def test_the_solver_expert_is_refused_without_a_teacher_a_distribution_target_or_a_game_that_solves(tmp_path):
    from training.search_training import checked_settings

    with pytest.raises(ValueError, match="give the teacher with --set teacher=FILE"):
        checked_settings("capivari", {}, 0, {"expert": "solver"})
    teacher = str(save_policy(mlp_arrays("capivari_v0"), tmp_path / "teacher.npz"))
    with pytest.raises(ValueError, match="keep policy_target=visits"):
        checked_settings("capivari", {}, 0, {"expert": "solver", "init_policy": teacher, "policy_target": "best"})
    with pytest.raises(ValueError, match="already plays every move with expert=solver"):
        checked_settings("capivari", {}, 0, {"expert": "solver", "init_policy": teacher, "network_share": 0.5})
    with pytest.raises(ValueError, match="only with --set expert=solver"):
        checked_settings("capivari", {}, 0, {"expert": "ismcts", "teacher": teacher})
    with pytest.raises(ValueError, match="was exported for horizonte_v0"):
        horizonte = str(save_policy(mlp_arrays("horizonte_v0"), tmp_path / "horizonte.npz"))
        checked_settings("capivari", {}, 0, {"expert": "solver", "teacher": horizonte})
    kuhn = str(save_policy(mlp_arrays("kuhn_poker_v0"), tmp_path / "kuhn.npz"))
    with pytest.raises(ValueError, match="kuhn_poker_v0 solves no position"):
        checked_settings("kuhn_poker", {}, 0, {"expert": "solver", "init_policy": kuhn})


def test_before_the_last_refill_the_targets_keep_only_the_moves_of_best_expected_worth():
    from training.search_selfplay import SelfPlay

    game = envs.make("capivari").game
    student, teacher = CompiledPolicy(mlp_arrays("capivari_v0", seed=1)), CompiledPolicy(mlp_arrays("capivari_v0"))
    selfplay = SelfPlay(game, student, 4, 1, 1.5, 0.5, 0, 3, "solver", epsilon=0.0, teacher=teacher, before_refill=True)
    seen = _steps(selfplay)
    played = selfplay.play(80)
    rows = {obs.tobytes(): target for obs, target in zip(played.obs, played.policy, strict=True)}
    corrected = 0
    for states, obs, _masks in seen:
        for i in range(len(obs)):
            target = rows.get(obs[i].tobytes())
            values = game.refill_values(states[i : i + 1])
            if target is None or values is None:
                continue
            assert target[values < values.max()].sum() == 0 and target.sum() == pytest.approx(1.0)
            corrected += 1
    assert corrected > 20


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"expert": "ismcts", "solver_before_refill": True}, "only with --set expert=solver"),
        ({"expert": "solver", "solver_before_refill": "yes"}, "must be true or false"),
    ],
)
def test_solver_before_refill_is_refused_where_it_means_nothing(values, message):
    from training.search_training import checked_settings

    with pytest.raises(ValueError, match=message):
        checked_settings("capivari", {}, 0, values)


def test_solver_before_refill_is_refused_for_a_game_that_solves_nothing(tmp_path):
    from training.search_training import checked_settings

    teacher = save_policy(mlp_arrays("dorfromantik_duel_v0"), tmp_path / "t.npz")
    with pytest.raises(ValueError, match="solves"):
        checked_settings(
            "dorfromantik_duel", {}, 0, {"expert": "solver", "teacher": str(teacher), "solver_before_refill": True}
        )
