"""Replays: round trip, exact re-simulation, and the clear errors for other rules versions and tampered files."""

import json
from pathlib import Path

import matplotlib.image
import pytest

import envs
from agents.arena import run_arena
from agents.match import play_game
from agents.random_agent import RandomAgent
from envs.replay import Replay, load, make_env, record, save, steps, verify
from tabuleiro.cli import main
from tabuleiro.move_text import move_text

GAMES = [("capivari_v0", {}), ("horizonte_v0", {"num_players": 3}), ("dorfromantik_duel_v0", {})]


def _recorded(game: str, config: dict, seed: int = 5) -> tuple[Replay, bytes]:
    """A replay of a random game and the final state's bytes."""
    env = envs.make(game, **config)
    agents = [RandomAgent() for _ in env.possible_agents]
    result = play_game(env, agents, seed, record_actions=True)
    return record(env.game, result, ["random"] * len(agents)), env.core_state.tobytes()


@pytest.fixture(scope="module", params=GAMES, ids=[g for g, _ in GAMES])
def recorded(request) -> tuple[Replay, bytes]:
    return _recorded(*request.param)


def test_round_trip_and_exact_resimulation(recorded, tmp_path):
    replay, final_bytes = recorded
    path = save(replay, tmp_path / "game.json")
    again = load(path)
    assert again == replay
    assert verify(again) == replay.returns
    env = make_env(again, render_mode=None)
    for _ in steps(again, env):
        pass
    assert env.core_state.tobytes() == final_bytes  # the very same final state, not just the same returns
    data = json.loads(path.read_text())
    assert data["rules_version"] == env.game.rules_version and data["tabuleiro_version"]
    assert all(isinstance(a, str) for a in data["actions"])


def _edited(replay: Replay, tmp_path, **changes) -> str:
    data = json.loads(replay.to_json())
    data.update(changes)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_other_rules_version_fails_clearly(recorded, tmp_path, capsys):
    replay, _ = recorded
    path = _edited(replay, tmp_path, rules_version="old-0")
    with pytest.raises(ValueError, match="rules version 'old-0'.*this build implements"):
        make_env(load(path))
    assert main(["replay", path, "--quiet"]) == 2
    assert "rules version 'old-0'" in capsys.readouterr().err


def test_unknown_action_names_its_step(recorded, tmp_path):
    replay, _ = recorded
    actions = list(replay.actions)
    actions[6] = "fly to the moon"
    with pytest.raises(ValueError, match=r"step 7 \(player_\d\): unknown action name 'fly to the moon'"):
        verify(load(_edited(replay, tmp_path, actions=actions)))


def test_illegal_action_names_its_step(recorded, tmp_path):
    replay, _ = recorded
    env = make_env(replay, render_mode=None)
    for step in steps(replay, env):
        if step.index == 4:
            illegal = next(a for a in range(env.game.num_actions) if a not in env.legal_actions())
            break
    actions = list(replay.actions)
    actions[4] = env.action_name(illegal)
    with pytest.raises(ValueError, match=r"step 5 \(player_\d\): .* is not legal here; legal: "):
        verify(load(_edited(replay, tmp_path, actions=actions)))


def test_moves_after_the_end_or_a_cut_replay_or_other_returns_fail(recorded, tmp_path):
    replay, _ = recorded
    n = len(replay.actions)
    with pytest.raises(ValueError, match=rf"step {n + 1}: the game is already over"):
        verify(load(_edited(replay, tmp_path, actions=replay.actions + replay.actions[:1])))
    with pytest.raises(ValueError, match="the game is not over"):
        verify(load(_edited(replay, tmp_path, actions=replay.actions[:-1])))
    with pytest.raises(ValueError, match="re-simulation gives returns"):
        verify(load(_edited(replay, tmp_path, returns=[9.0] * len(replay.returns))))


@pytest.mark.parametrize(
    "text, message",
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"format": "something else"}', "not a tabuleiro replay"),
        ('{"format": "tabuleiro-replay/1"}', "lacks field"),
    ],
)
def test_malformed_files_fail_clearly(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load(path)


def test_wrong_field_types_and_unknown_games_fail_clearly(tmp_path):
    replay, _ = _recorded("capivari_v0", {})
    with pytest.raises(ValueError, match="'seed' has the wrong type"):
        load(_edited(replay, tmp_path, seed="five"))
    with pytest.raises(ValueError, match="'actions' must list action names"):
        load(_edited(replay, tmp_path, actions=[1, 2]))
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        make_env(load(_edited(replay, tmp_path, game="chess")))
    with pytest.raises(ValueError, match="config 'wins_needed'"):
        make_env(load(_edited(replay, tmp_path, config={"wins_needed": 99})))
    with pytest.raises(ValueError, match="cannot read replay"):
        load(tmp_path / "missing.json")


def test_replay_command_prints_each_step_from_a_seat_and_writes_pictures(tmp_path, capsys):
    replay, _ = _recorded("capivari_v0", {})
    path = save(replay, tmp_path / "game.json")
    assert main(["replay", str(path), "--seat", "1", "--png", str(tmp_path / "png")]) == 0
    out = capsys.readouterr().out
    n = len(replay.actions)
    assert f"step {n}/{n}: " in out and "re-simulated exactly" in out
    assert "deck order (spectator)" not in out  # player_1's view
    pictures = sorted((tmp_path / "png").glob("step_*.png"))
    assert len(pictures) == n + 1
    image = matplotlib.image.imread(pictures[-1])
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
    assert main(["replay", str(path), "--seat", "7"]) == 2


def test_arena_saves_every_game_as_a_replay(tmp_path):
    run_arena("capivari", ["random", "random"], games=2, seed=3, workers=1, progress=False, replays=str(tmp_path))
    files = sorted(tmp_path.glob("game_*.json"))
    assert len(files) == 2
    for f in files:
        replay = load(f)
        assert replay.agents == ["random", "random"]
        verify(replay)


def test_secret_moves_are_not_named_to_other_seats():
    hz = envs.make("horizonte_v0", num_players=3).game
    predict3, c14 = hz.action_from_name("predict 3"), hz.action_from_name("C14")
    assert move_text(hz, 1, predict3, 0) == "player_1 moves (hidden from you for now)"
    assert move_text(hz, 1, predict3, None) == "player_1 plays predict 3"
    assert move_text(hz, 1, predict3, 1) == "player_1 plays predict 3"
    assert move_text(hz, 1, c14, 0) == "player_1 plays C14"
    duel = envs.make("dorfromantik_duel_v0").game
    place = duel.action_from_name("place q=0 r=0 rot=0")
    assert "hidden" in move_text(duel, 0, place, 1)
    assert move_text(duel, 1, place, 0) == "player_1 plays place q=0 r=0 rot=0"
    cap = envs.make("capivari_v0").game
    assert move_text(cap, 0, cap.action_from_name("crias1"), 1) == "player_0 plays crias1"


def test_the_documented_replays_still_replay_exactly():
    files = sorted((Path(__file__).resolve().parents[2] / "docs" / "replays").glob("*.json"))
    assert {f.stem for f in files} == {"capivari", "horizonte", "dorfromantik_duel"}
    for f in files:
        verify(load(f))
