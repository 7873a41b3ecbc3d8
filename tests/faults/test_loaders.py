"""No code from data: a pickle payload given to every loader of the project never runs.

Checkpoints (the arena's ``rllib:DIR``, ``tabuleiro export``, ``tabuleiro train --resume``) are checked against
their manifest before anything is unpickled, and a folder without one is refused unless trusted; OpenSpiel state
strings, policy files and replays are parsed. Each case ends with a clear error (exit 2 for the commands) and
no marker file.
"""

import base64
import json

import numpy as np
import pytest

from agents.manifest import MANIFEST, CheckpointError, verify_checkpoint, write_manifest
from tabuleiro.cli import main
from tests.faults.payload import MODULE, Payload, forged_checkpoint, payload_bytes

pytest.importorskip("ray.rllib", reason="checkpoint loaders need the rl extra")


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "payload-ran"
    yield path
    assert not path.exists(), "a pickle payload ran"


def _damage(folder, how: str) -> None:
    """Change the checkpoint after its manifest was written, as a bad disk, a copy cut short or a forger would."""
    target = folder / MODULE / "module_state.pkl"
    data = target.read_bytes()
    if how == "flipped byte":
        target.write_bytes(data[:10] + bytes([data[10] ^ 0xFF]) + data[11:])
    elif how == "truncated":
        target.write_bytes(data[: len(data) // 2])
    elif how == "missing":
        target.unlink()
    elif how == "added file":
        (folder / MODULE / "extra.pkl").write_bytes(data)
    elif how == "replaced manifest":
        (folder / MANIFEST).write_text(json.dumps({"format": "tabuleiro-checkpoint/1", "iteration": 3, "files": {}}))


def _agent(path, **options):
    from agents.registry import make_agent

    spec = ",".join([f"rllib:{path}", *(f"{k}={v}" for k, v in options.items())])
    return make_agent(spec, "capivari")


DAMAGES = ["flipped byte", "truncated", "missing", "added file", "replaced manifest"]


@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_checkpoint_is_refused_by_the_arena_export_and_resume_before_unpickling(
    tmp_path, marker, how, capsys
):
    run = tmp_path / "run"
    checkpoint = forged_checkpoint(run / "checkpoint", marker)
    verify_checkpoint(checkpoint)  # sealed as written
    _damage(checkpoint, how)
    with pytest.raises(CheckpointError):
        verify_checkpoint(checkpoint)
    for path in (run, checkpoint, checkpoint / MODULE):
        with pytest.raises(CheckpointError):
            _agent(path)
    assert main(["export", str(run), str(tmp_path / "p.npz")]) == 2
    assert "checkpoint" in capsys.readouterr().err
    assert not (tmp_path / "p.npz").exists()
    code = main(["train", "capivari", "--resume", str(run), "--iterations", "5", "--eval-games", "0"])
    err = capsys.readouterr().err
    assert code == 2 and "error" in err and "Traceback" not in err


def test_a_checkpoint_without_a_manifest_is_refused_unless_trusted(tmp_path, marker, capsys):
    run = tmp_path / "run"
    forged_checkpoint(run / "checkpoint", marker, manifest=False)
    with pytest.raises(CheckpointError, match="trust=true"):
        _agent(run)
    assert main(["export", str(run), str(tmp_path / "p.npz")]) == 2
    assert "--trust-checkpoint" in capsys.readouterr().err
    assert main(["arena", "capivari", "--agents", f"rllib:{run},random", "--games", "2"]) == 2
    assert "manifest" in capsys.readouterr().err


def test_a_trusted_checkpoint_cut_short_gives_a_clear_error_not_a_traceback(tmp_path):
    from agents.rllib_policy import load_module

    module_dir = tmp_path / "ckpt" / MODULE
    module_dir.mkdir(parents=True)
    (module_dir / "class_and_ctor_args.pkl").write_bytes(payload_bytes(tmp_path / "m")[:9])
    (module_dir / "module_state.pkl").write_bytes(b"\x80\x05")
    with pytest.raises(CheckpointError, match="cannot be read"):
        load_module(tmp_path / "ckpt", trust=True)


def test_a_real_module_loads_once_sealed_and_not_once_changed(tmp_path):
    """The manifest passes the checkpoint as written (a real RLModule), and catches a one-byte change."""
    import gymnasium as gym
    import torch
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    from agents.rllib_policy import load_module
    from training.masking_module import MASK_KEY, OBS_KEY, MaskedPPOTorchRLModule

    torch.manual_seed(0)
    space = gym.spaces.Dict({OBS_KEY: gym.spaces.Box(-1, 1, (6,)), MASK_KEY: gym.spaces.Box(0, 1, (4,))})
    module = MaskedPPOTorchRLModule(
        observation_space=space, action_space=gym.spaces.Discrete(4), model_config=DefaultModelConfig(fcnet_hiddens=[8])
    )
    folder = tmp_path / "ckpt"
    module.save_to_path(str(folder / MODULE))
    write_manifest(folder, 1)
    loaded = load_module(folder)
    assert all(
        torch.equal(a, b) for a, b in zip(module.state_dict().values(), loaded.state_dict().values(), strict=True)
    )
    _damage(folder, "flipped byte")
    with pytest.raises(CheckpointError, match="sha256"):
        load_module(folder)


def test_an_openspiel_state_string_with_a_pickle_is_refused(marker):
    pyspiel = pytest.importorskip("pyspiel")
    import envs.openspiel  # noqa: F401

    game = pyspiel.load_game("tabuleiro_kuhn_poker")
    forged = "history=\nmove_number=0\n__dict__=" + base64.b64encode(payload_bytes(marker)).decode()
    with pytest.raises(ValueError, match="pickle"):
        game.deserialize_state(forged)
    state = game.new_initial_state()
    state.apply_action(0)
    good = state.serialize()
    assert game.deserialize_state(good).serialize() == good
    for bad in (
        good.replace("move_number=1", "move_number=2"),
        good.replace("history=-1:0", "history=-1:7"),
        good.replace('"record": "', '"record": "AAAA'),
        good.replace("history=-1:0", "history=0:0"),
        good + "\nmore",
        "x" * 10_000_000,
    ):
        with pytest.raises(ValueError):
            game.deserialize_state(bad)


def test_a_policy_file_with_a_pickled_array_is_refused(tmp_path, marker):
    from agents.compiled_policy import load_policy

    path = tmp_path / "forged.npz"
    np.savez(path, payload=np.array([Payload(marker)], dtype=object))
    with pytest.raises(ValueError):
        load_policy(path)


def test_a_replay_that_is_a_pickle_is_refused(tmp_path, marker):
    from envs.replay import load

    path = tmp_path / "forged.json"
    path.write_bytes(payload_bytes(marker))
    with pytest.raises(ValueError):
        load(path)
