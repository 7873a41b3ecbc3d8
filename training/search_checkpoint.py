"""A checkpoint of training from search: plain array files and JSON, sealed by the manifest, replaced atomically.

``checkpoint/`` holds ``policy.npz`` (the network, in the policy file format), ``optimizer.npz`` (AdamW's moments
and step counts), ``replay.npz`` (the replay buffer), ``tabuleiro_train.json`` (``algo``, settings, iteration,
seconds trained) and, written last, ``tabuleiro_complete.json`` (``agents.manifest``: sizes and sha256). Saving
follows PPO's protocol (``training.run_folder``): write ``checkpoint.tmp/``, seal it, rename ``checkpoint/`` to
``checkpoint.old/`` and ``checkpoint.tmp/`` to ``checkpoint/``, remove the old one; a resume takes the newest
complete one of the three. Nothing in it is a pickle.
"""

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.compiled_policy import POLICY_FILE, read_arrays, save_policy
from agents.manifest import verify_checkpoint
from agents.rllib_policy import TRAIN_INFO
from envs.files import write_atomic
from training.run_folder import (
    CHECKPOINT,
    CHECKPOINT_NAMES,
    newest_complete,
    remove_checkpoint,
    seal_checkpoint,
    settle_checkpoints,
)
from training.search_net import SearchNet, load_net_arrays, net_arrays
from training.search_targets import ReplayBuffer

OPTIMIZER = "optimizer.npz"
REPLAY = "replay.npz"
REQUIRED = (TRAIN_INFO, POLICY_FILE, OPTIMIZER, REPLAY)
_MOMENTS = ("exp_avg", "exp_avg_sq")


def newest(run: Path) -> Path | None:
    """The newest complete checkpoint of a run folder among the three names (a tie goes to ``checkpoint/``)."""
    return newest_complete(run, REQUIRED)


def find(run: Path) -> Path:
    """The checkpoint to resume from: a run folder's newest complete one (a checkpoint folder stands for its run)."""
    folder = run.parent if run.name in CHECKPOINT_NAMES else run
    found = newest(folder)
    if found is None:
        raise ValueError(
            f"no complete checkpoint of training from search in {str(run)!r} (expected {CHECKPOINT}/ with "
            f"{', '.join(REQUIRED)} and its manifest)"
        )
    return found


def settle(out: Path) -> Path | None:
    """Make ``out/checkpoint`` the newest complete checkpoint and remove what an interrupted save left."""
    return settle_checkpoints(out, newest)


def _optimizer_arrays(optimizer: torch.optim.Optimizer) -> dict[str, np.ndarray]:
    arrays = {}
    for index, state in optimizer.state_dict()["state"].items():
        arrays[f"{index}.step"] = np.array(float(state["step"]), np.float64)
        for key in _MOMENTS:
            arrays[f"{index}.{key}"] = state[key].detach().cpu().numpy()
    return arrays


def _load_optimizer(optimizer: torch.optim.Optimizer, path: Path) -> None:
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    current = optimizer.state_dict()
    params = [p for group in optimizer.param_groups for p in group["params"]]
    state = {}
    for index, param in enumerate(params):
        if f"{index}.step" not in arrays:
            continue
        moments = {key: arrays.get(f"{index}.{key}") for key in _MOMENTS}
        if any(m is None or m.shape != tuple(param.shape) for m in moments.values()):
            raise ValueError(f"{path}: the optimizer state of parameter {index} does not fit the network")
        state[index] = {"step": torch.tensor(float(arrays[f"{index}.step"]))} | {
            key: torch.from_numpy(np.array(m, np.float32)) for key, m in moments.items()
        }
    optimizer.load_state_dict({"state": state, "param_groups": current["param_groups"]})


def save(
    out: Path, net: SearchNet, optimizer: torch.optim.Optimizer, buffer: ReplayBuffer, game: Any, meta: dict[str, Any]
) -> Path:
    """Write the checkpoint to ``out/checkpoint`` (module docstring) and return it."""
    tmp = out / CHECKPOINT_NAMES[1]
    settle(out)
    if tmp.exists():
        remove_checkpoint(tmp)
    tmp.mkdir(parents=True)
    save_policy(net_arrays(net, game), tmp / POLICY_FILE)
    raw = io.BytesIO()
    np.savez(raw, **_optimizer_arrays(optimizer))
    write_atomic(tmp / OPTIMIZER, raw.getvalue())
    buffer.save(tmp / REPLAY)
    write_atomic(tmp / TRAIN_INFO, json.dumps(meta, indent=1))
    return seal_checkpoint(out, int(meta["iteration"]))  # the manifest written last, then the renames


def load(ckpt: Path, net: SearchNet, optimizer: torch.optim.Optimizer, buffer: ReplayBuffer) -> dict[str, Any]:
    """Check ``ckpt`` against its manifest, then read it into ``net``, ``optimizer`` and ``buffer``; its info."""
    verify_checkpoint(ckpt)
    load_net_arrays(net, read_arrays(ckpt / POLICY_FILE), repr(str(ckpt / POLICY_FILE)))
    _load_optimizer(optimizer, ckpt / OPTIMIZER)
    buffer.load(ckpt / REPLAY)
    return json.loads((ckpt / TRAIN_INFO).read_text())
