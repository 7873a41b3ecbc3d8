"""Forged data for the fault suite: a pickle that would create a marker file if anything unpickled it, and a
checkpoint-shaped folder (what `tabuleiro train` writes, with small files) to damage."""

import json
import pickle
from pathlib import Path

from agents.manifest import write_manifest

MODULE = Path("learner_group", "learner", "rl_module", "default_policy")


class Payload:
    """Unpickled, it opens (so creates) ``marker``: the stand-in for code run from data."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self) -> tuple:
        return (open, (self.marker, "w"))


def payload_bytes(marker: Path) -> bytes:
    return pickle.dumps(Payload(marker))


def forged_checkpoint(folder: Path, marker: Path, iteration: int = 3, manifest: bool = True) -> Path:
    """A checkpoint folder laid out like train's, every pickle a payload; sealed by a manifest if ``manifest``."""
    module = folder / MODULE
    module.mkdir(parents=True)
    for pkl in (folder / "algorithm_state.pkl", module / "class_and_ctor_args.pkl", module / "module_state.pkl"):
        pkl.write_bytes(payload_bytes(marker))
    (module / "metadata.json").write_text(json.dumps({"checkpoint_version": "2.1"}))
    (folder / "rllib_checkpoint.json").write_text(json.dumps({"type": "Algorithm"}))
    settings = {"game": "capivari_v0", "game_config": {}, "iteration": iteration, "elapsed_s": 1.0, "env_steps": 10}
    (folder / "tabuleiro_train.json").write_text(json.dumps(settings))
    if manifest:
        write_manifest(folder, iteration)
    return folder
