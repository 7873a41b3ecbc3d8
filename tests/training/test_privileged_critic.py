"""The privileged critic: the value reads what the learner's seat does not see, the policy never does.

The vector env's ``critic_observations`` are what the game's spec declares hidden (Capivari's deck order: the
cards that will become available, in turn; Horizonte's other hands and predictions), or else each other seat's
observation of the same state (Kuhn poker: the AEC env's ``observe`` of that seat, card included); the learner's
own observations are unchanged by the option, and in the module the value depends on them while the action
logits do not.
"""

import gymnasium as gym
import numpy as np
import pytest
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

import envs
from tests.common import random_legal_rows
from training.config import TrainSettings, build_config, privileged_critic_spec
from training.masking_module import CRITIC_KEY, MASK_KEY, OBS_KEY, MaskedPPOTorchRLModule
from training.vector_env import GameVectorEnv

N = 8


def _other_seats(game: str, seed: int, learner: int, actions: list[int]) -> np.ndarray:
    """Seat learner + 1, + 2, ...'s observations after replaying a game on the AEC env, one block each."""
    aec = envs.game_module(game).raw_env()
    aec.reset(seed=seed)
    for a in actions:
        aec.step(int(a))
    agents = aec.possible_agents
    return np.concatenate(
        [aec.observe(agents[(learner + k) % len(agents)])["observation"] for k in range(1, len(agents))]
    )


def test_capivari_critic_sees_the_cards_the_deck_will_reveal_in_order() -> None:
    """Block k holds the deck's k-th card from the top: the cards a step reveals are the blocks' first ones, in
    that order, and the next critic observation is the rest of the same list."""
    env = GameVectorEnv("capivari_v0", N, seed=4, privileged_critic=True)
    assert env.single_observation_space[CRITIC_KEY].shape == (11 * 18,)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(2)
    refills = 0
    for _ in range(12):
        deck = obs[CRITIC_KEY].reshape(N, 11, 18)
        assert set(np.unique(deck)) <= {0.0, 1.0} and (deck.sum(axis=2) <= 1).all()
        upcoming = [[int(np.argmax(row)) for row in deck[i] if row.any()] for i in range(N)]
        states = env.batch.states.copy()
        obs, _, terminated, _, _ = env.step(random_legal_rows(rng, obs[MASK_KEY]))
        after = env.batch.states
        for i in range(N):
            if terminated[i] or after["rounds_done"][i] != states["rounds_done"][i]:
                continue  # a new round reshuffles the deck
            revealed = int(after["deck_pos"][i] - states["deck_pos"][i])
            now = [int(np.argmax(row)) for row in obs[CRITIC_KEY][i].reshape(11, 18) if row.any()]
            assert now == upcoming[i][revealed:]
            in_play = {c for c in range(18) if int(after["avail"][i]) >> c & 1}
            before = {c for c in range(18) if int(states["avail"][i]) >> c & 1}
            assert in_play - before <= set(upcoming[i][:revealed])  # what appeared came off the deck's top
            refills += revealed > 0
    assert refills > 0


def test_horizonte_critic_sees_the_other_hands_and_nothing_of_its_own() -> None:
    """Block k - 1 is seat learner + k's hand and prediction: with the learner's own hand they are every card
    still held, each once; a 4-player table leaves the fifth seat's block empty."""
    env = GameVectorEnv("horizonte_v0", N, seed=6, privileged_critic=True)
    obs, _ = env.reset(seed=6)
    rng = np.random.default_rng(3)
    for _ in range(5):
        blocks = obs[CRITIC_KEY].reshape(N, 4, 52)
        states = env.batch.states
        for i in range(N):
            seat = i % 4
            held = states["hand"][i, :4].astype(np.int64)
            np.testing.assert_array_equal(blocks[i, :3, :50].sum(axis=0) + held[seat], held.sum(axis=0))
            for k in (1, 2, 3):
                other = (seat + k) % 4
                np.testing.assert_array_equal(blocks[i, k - 1, :50], held[other])
                assert blocks[i, k - 1, 50] == (states["prediction"][i, other] >= 0)
            assert not blocks[i, 3].any()
        obs = env.step(random_legal_rows(rng, obs[MASK_KEY]))[0]


def test_without_a_hidden_part_the_critic_sees_the_other_seats_observations() -> None:
    """Kuhn poker's spec declares no hidden part: replayed move by move on the AEC env, every game's critic
    observation is the other seat's own (its card included) until the game ends, and the learner's observations
    are what the env without the option gives."""
    game, seed = "kuhn_poker_v0", 5
    env = GameVectorEnv(game, N, seed=seed, record_opponent_actions=True, privileged_critic=True)
    plain = GameVectorEnv(game, N, seed=seed)
    size = env.game.obs_size
    assert env.single_observation_space[CRITIC_KEY].shape == (size,)
    obs, infos = env.reset(seed=seed)
    expected, _ = plain.reset(seed=seed)
    history = [list(infos["opponent_actions"][i]) for i in range(N)]
    live = np.ones(N, bool)
    rng = np.random.default_rng(1)
    checked = 0
    while live.any():
        np.testing.assert_array_equal(obs[OBS_KEY], expected[OBS_KEY])
        for i in np.flatnonzero(live):
            np.testing.assert_array_equal(obs[CRITIC_KEY][i], _other_seats(game, seed + i, i % 2, history[i]))
            assert not np.array_equal(obs[CRITIC_KEY][i], obs[OBS_KEY][i])  # another seat's view
            checked += 1
        actions = random_legal_rows(rng, obs[MASK_KEY])
        obs, _, terminated, _, infos = env.step(actions)
        expected = plain.step(actions)[0]
        for i in range(N):
            history[i] += [int(actions[i]), *infos["opponent_actions"][i]]
        live &= ~terminated
    assert checked > N


@pytest.mark.parametrize("game", ["capivari_v0", "horizonte_v0", "kuhn_poker_v0"])
def test_observe_into_fills_the_critic_array_too(game: str) -> None:
    env = GameVectorEnv(game, N, seed=2, privileged_critic=True)
    plain = GameVectorEnv(game, N, seed=2, privileged_critic=True)
    size = env.game.obs_size
    obs, masks = np.full((N, size), np.nan, np.float32), np.full((N, env.num_choices), np.nan, np.float32)
    critic = np.full((N, env.single_observation_space[CRITIC_KEY].shape[0]), np.nan, np.float32)
    env.observe_into(obs, masks, critic)
    got, _ = env.reset(seed=2)
    want, _ = plain.reset(seed=2)
    assert got[CRITIC_KEY] is critic
    np.testing.assert_array_equal(critic, want[CRITIC_KEY])
    with pytest.raises(ValueError, match="critic must be"):
        env.observe_into(obs, masks, None)
    with pytest.raises(ValueError, match="privileged_critic=True"):
        GameVectorEnv(game, N, seed=2).observe_into(obs, masks, critic)


def _module(size: int = 5) -> MaskedPPOTorchRLModule:
    torch.manual_seed(0)
    space = gym.spaces.Dict(
        {
            OBS_KEY: gym.spaces.Box(-1, 1, (7,), np.float32),
            MASK_KEY: gym.spaces.Box(0, 1, (4,), np.float32),
            CRITIC_KEY: gym.spaces.Box(-1, 1, (size,), np.float32),
        }
    )
    config = DefaultModelConfig(fcnet_hiddens=[16])
    config = {**config.__dict__, "privileged_critic": {"size": 5, "hiddens": [8]}}
    return MaskedPPOTorchRLModule(observation_space=space, action_space=gym.spaces.Discrete(4), model_config=config)


def test_the_value_reads_the_critic_observations_and_the_policy_does_not() -> None:
    module = _module()
    rng = np.random.default_rng(0)
    obs = torch.as_tensor(rng.uniform(-1, 1, (16, 7)).astype(np.float32))
    mask = torch.ones(16, 4)
    one = torch.as_tensor(rng.uniform(-1, 1, (16, 5)).astype(np.float32))
    other = torch.as_tensor(rng.uniform(-1, 1, (16, 5)).astype(np.float32))
    first = {Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask, CRITIC_KEY: one}}
    second = {Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask, CRITIC_KEY: other}}
    with torch.no_grad():
        train = module.forward_train(first)
        logits = train[Columns.ACTION_DIST_INPUTS]
        assert torch.equal(logits, module.forward_train(second)[Columns.ACTION_DIST_INPUTS])
        inference = module.forward_inference({Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask}})  # no critic key needed
        assert torch.allclose(inference[Columns.ACTION_DIST_INPUTS], logits)
        values = module.compute_values(first)
        assert values.shape == (16,)
        assert not torch.allclose(values, module.compute_values(second))
        # the loss's call, with the embeddings of forward_train, gives the same values
        assert torch.allclose(values, module.compute_values(first, embeddings=train[Columns.EMBEDDINGS]))


def test_a_critic_size_the_env_does_not_give_is_refused() -> None:
    with pytest.raises(ValueError, match="privileged_critic size 5"):
        _module(size=6)


def test_the_training_config_sizes_the_critic_from_the_game() -> None:
    s = TrainSettings(game="horizonte_v0", game_config={"num_players": 4}, privileged_critic=True)
    assert privileged_critic_spec(s) == {"size": 4 * 52, "hiddens": [256]}
    kuhn = TrainSettings(game="kuhn_poker_v0", privileged_critic=True)
    assert privileged_critic_spec(kuhn)["size"] == envs.make("kuhn_poker_v0").game.obs_size
    assert privileged_critic_spec(TrainSettings(game="capivari_v0", privileged_critic=True))["size"] == 11 * 18
    config = build_config(s)
    assert config.env_config["privileged_critic"] is True
    with pytest.raises(ValueError, match="privileged_critic cannot be combined"):
        privileged_critic_spec(TrainSettings(game="capivari_v0", privileged_critic=True, candidate_head="x"))


def test_the_policy_file_of_a_privileged_module_has_a_zero_value_and_the_modules_logits() -> None:
    from agents.compiled_policy import CompiledPolicy
    from training.export import module_arrays

    s = TrainSettings(game="kuhn_poker_v0", privileged_critic=True, hiddens=(16, 16))
    spec = build_config(s).rl_module_spec
    env = GameVectorEnv("kuhn_poker_v0", N, seed=0, privileged_critic=True)
    spec.observation_space, spec.action_space = env.single_observation_space, env.single_action_space
    module = spec.build()
    policy = CompiledPolicy(module_arrays(module, "kuhn_poker_v0"), "a test")
    obs, _ = env.reset(seed=0)
    logits, values = policy.forward(obs[OBS_KEY], obs[MASK_KEY])
    assert not values.any()
    with torch.no_grad():
        torch_logits = module.forward_inference({Columns.OBS: {k: torch.from_numpy(v) for k, v in obs.items()}})
    legal = obs[MASK_KEY] > 0
    np.testing.assert_allclose(logits[legal], torch_logits[Columns.ACTION_DIST_INPUTS].numpy()[legal], atol=1e-4)
