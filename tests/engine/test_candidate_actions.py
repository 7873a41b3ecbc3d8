"""The candidate action space: action k is the k-th legal placement, then the game's other actions."""

import numpy as np
import pytest

import envs
from envs.engine.candidate_actions import CandidateActions, candidate_actions_of

VIEW = CandidateActions(num_actions=10, placements=8, rows=4)  # 8 placements described by up to 4 rows, 2 others


def game_masks(*legal: list[int]) -> np.ndarray:
    out = np.zeros((len(legal), VIEW.num_actions), np.int8)
    for i, actions in enumerate(legal):
        out[i, actions] = 1
    return out


def test_the_first_rows_are_the_legal_placements_then_the_other_actions():
    full = game_masks([1, 4, 6, 9], [8], [0, 1, 2, 3])
    assert VIEW.size == 6
    assert VIEW.masks(full).tolist() == [[1, 1, 1, 0, 0, 1], [0, 0, 0, 0, 1, 0], [1, 1, 1, 1, 0, 0]]
    assert VIEW.game_actions(full, np.array([2, 4, 3])).tolist() == [6, 8, 3]
    assert VIEW.game_actions(full, np.array([0, 4, 0])).tolist() == [1, 8, 0]
    assert VIEW.game_actions(full[:1], np.array([5])).tolist() == [9]


def test_a_game_action_maps_back_to_its_candidate_action():
    full = game_masks([1, 4, 6, 9], [8], [0, 1, 2, 3])
    assert VIEW.choices(full, np.array([6, 8, 3])).tolist() == [2, 4, 3]
    assert VIEW.choices(full[:1], np.array([9])).tolist() == [5]
    rng = np.random.default_rng(0)
    for _ in range(500):  # choices inverts game_actions, over masks of up to `rows` legal placements
        full = np.zeros((1, VIEW.num_actions), np.int8)
        full[0, rng.choice(8, rng.integers(0, VIEW.rows + 1), replace=False)] = 1
        full[0, 8:] = rng.random(2) < 0.5
        if not full.any():
            continue
        action = np.array([rng.choice(np.flatnonzero(full[0]))])
        assert VIEW.game_actions(full, VIEW.choices(full, action)).tolist() == action.tolist()
    with pytest.raises(ValueError, match="forbids"):
        VIEW.choices(game_masks([1, 4]), np.array([2]))


@pytest.mark.parametrize("chosen", [3, 4, -1, 6, 99])
def test_a_choice_past_the_legal_rows_or_a_masked_other_action_is_refused(chosen):
    with pytest.raises(ValueError, match=f"candidate action {chosen} is not legal"):
        VIEW.game_actions(game_masks([1, 4, 6, 9]), np.array([chosen]))


def test_more_legal_placements_than_rows_and_wrong_shapes_are_refused():
    with pytest.raises(ValueError, match="5 legal placements, more than the 4 candidate rows"):
        VIEW.masks(game_masks([0, 1, 2, 3, 4]))
    with pytest.raises(ValueError, match=r"game masks must be \(n, 10\)"):
        VIEW.masks(np.zeros((2, 9), np.int8))
    with pytest.raises(ValueError, match="one candidate action per mask row"):
        VIEW.game_actions(game_masks([1]), np.array([0, 0]))
    with pytest.raises(ValueError, match="placements <= num_actions"):
        CandidateActions(num_actions=5, placements=8, rows=4)


def test_the_duels_candidate_rows_describe_its_placements():
    game = envs.make("dorfromantik_duel", placement_candidates=True, board_radius=9).game
    view = candidate_actions_of(game, "placement_candidates")
    rows = game.observation_layout().shape("placement_candidates")[0]
    assert (view.num_actions, view.placements, view.rows) == (game.num_actions, game.candidate_actions, rows)
    assert view.size == rows + 1  # the rows, then pass
    with pytest.raises(ValueError, match="candidate actions need an observation piece 'placement_candidates'"):
        candidate_actions_of(envs.make("dorfromantik_duel", board_radius=9).game, "placement_candidates")
    with pytest.raises(ValueError, match="candidate_actions None"):
        candidate_actions_of(envs.make("capivari").game, "placement_candidates")
