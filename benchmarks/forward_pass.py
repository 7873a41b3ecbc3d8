"""The compiled forward pass against torch on the same network: microseconds per observation.

A policy file's network (``--policy reference`` or a path) evaluated on observations of random games, by
``CompiledPolicy.forward`` (numba, one observation after another) and by torch (the same layers as ``nn.Linear``,
the whole batch in one call, ``--threads`` intra-op threads); medians of ``--repeats``. MLP policies only.

    python -m benchmarks.forward_pass horizonte --players 4
"""

import argparse
import sys
import time

import numpy as np
import torch

from agents.compiled_policy import CompiledPolicy, load_policy
from envs.engine.policy_net import ACTOR, CRITIC, PI, S_CUT_LEN, S_KIND, VF
from training.vector_env import MASK_KEY, OBS_KEY, GameVectorEnv


def torch_nets(p: CompiledPolicy) -> dict[int, torch.nn.Sequential]:
    """Each network of the policy as torch layers, with the file's weights."""
    nets = {}
    for net in (ACTOR, CRITIC, PI, VF):
        first, count = (int(x) for x in p.nets[net])
        layers: list[torch.nn.Module] = []
        for w, b, n_in, n_out, act in p.layers[first : first + count]:
            linear = torch.nn.Linear(int(n_in), int(n_out), bias=b >= 0)
            weight = p.params[w : w + n_in * n_out].reshape(n_in, n_out).T
            linear.weight.data = torch.from_numpy(np.ascontiguousarray(weight))
            if b >= 0:
                linear.bias.data = torch.from_numpy(p.params[b : b + n_out].copy())
            layers += [linear] + ([torch.nn.ReLU()] if act == 1 else [torch.nn.Tanh()] if act == 2 else [])
        nets[net] = torch.nn.Sequential(*layers)
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
    p = load_policy(args.policy, args.game)
    if p.spec[S_KIND] != 0 or p.spec[S_CUT_LEN] > 0:
        print("forward_pass: MLP policies without a cut only", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    obs = GameVectorEnv(args.game, args.batch, opponents="random", **config).reset(seed=0)[0]
    x, mask = obs[OBS_KEY], obs[MASK_KEY]
    nets = torch_nets(p)
    p.forward(x[:2], mask[:2])  # compiled code loaded before timing
    compiled, batched = [], []
    for _ in range(args.repeats):
        start = time.perf_counter()
        logits, _ = p.forward(x, mask)
        compiled.append((time.perf_counter() - start) / len(x))
        start = time.perf_counter()
        with torch.no_grad():
            t = torch.from_numpy(x)
            actor = nets[ACTOR](t)
            out = nets[PI](actor)
            nets[VF](nets[CRITIC](t) if len(nets[CRITIC]) else actor)
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
