"""The compiled forward pass against torch on the same network: microseconds per observation.

A policy file's network (``--policy reference`` or a path) evaluated on observations of random games, by
``CompiledPolicy.forward`` (numba, one observation after another) and by torch (the same layers as ``nn.Linear``,
the whole batch in one call, ``--threads`` intra-op threads); medians of ``--repeats``. MLP policies only.

    python -m benchmarks.forward_pass horizonte --players 4
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

from agents.compiled_policy import POLICY_FILE, REFERENCE, CompiledPolicy, read_arrays, reference_file
from envs.engine.policy_net import S_CUT_LEN, S_KIND
from training.vector_env import MASK_KEY, OBS_KEY, GameVectorEnv

ACTIVATION = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}


def torch_nets(p: CompiledPolicy, arrays: dict[str, np.ndarray]) -> dict[str, torch.nn.Sequential]:
    """Each network the policy file describes, as torch layers with the file's weights (``arrays``: the file's,
    stored as torch's)."""
    nets = {}
    for name, described in p.info.model["nets"].items():
        layers: list[torch.nn.Module] = []
        for i, layer in enumerate(described):
            weight = arrays[f"{name}.{i}.weight"]
            linear = torch.nn.Linear(weight.shape[1], weight.shape[0], bias=layer["bias"])
            linear.weight.data = torch.from_numpy(weight)
            if layer["bias"]:
                linear.bias.data = torch.from_numpy(arrays[f"{name}.{i}.bias"])
            layers += [linear] + ([ACTIVATION[layer["activation"]]()] if layer["activation"] in ACTIVATION else [])
        nets[name] = torch.nn.Sequential(*layers)
    return nets


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("--policy", default="reference")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args(argv)
    config = {} if args.players is None else {"num_players": args.players}
    path = reference_file(args.game) if args.policy == REFERENCE else Path(args.policy).expanduser()
    arrays = read_arrays(path / POLICY_FILE if path.is_dir() else path)
    p = CompiledPolicy(arrays, str(path))
    if p.spec[S_KIND] != 0 or p.spec[S_CUT_LEN] > 0:
        print("forward_pass: MLP policies without a cut only", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    obs = GameVectorEnv(args.game, args.batch, opponents="random", **config).reset(seed=0)[0]
    x, mask = obs[OBS_KEY], obs[MASK_KEY]
    nets = torch_nets(p, arrays)
    p.forward(x[:2], mask[:2])  # compiled code loaded before timing
    compiled, batched = [], []
    for _ in range(args.repeats):
        start = time.perf_counter()
        logits, _ = p.forward(x, mask)
        compiled.append((time.perf_counter() - start) / len(x))
        start = time.perf_counter()
        with torch.no_grad():
            t = torch.from_numpy(x)
            actor = nets["actor_encoder"](t)
            out = nets["pi"](actor)
            nets["vf"](nets["critic_encoder"](t) if "critic_encoder" in nets else actor)
        batched.append((time.perf_counter() - start) / len(x))
    legal = mask > 0
    gap = float(np.abs(out.numpy()[legal] - logits[legal]).max())
    sizes = [(int(r[2]), int(r[3])) for r in p.layers]
    print(f"{args.game} {p.source}: layers {sizes}, batch {len(x)}, legal logits agree within {gap:.1e}")
    print(f"compiled forward, one observation at a time: {1e6 * np.median(compiled):.1f} us an observation")
    print(f"torch, the batch in one call ({args.threads} thread(s)): {1e6 * np.median(batched):.1f} us an observation")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
