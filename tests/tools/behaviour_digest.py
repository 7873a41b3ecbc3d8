"""Digests of seeded games, to show a refactor changed no behaviour (run on two commits, compare).

    python -m tests.tools.behaviour_digest --games 300 --out /tmp/after.json
    python -m tests.tools.behaviour_digest --compare /tmp/before.json /tmp/after.json

For each config family: ``--games`` games of random legal play (actions from a seeded NumPy
generator), plus heuristic and IS-MCTS games through ``agents.registry.make_agent``; each game's
digest is the sha256 of its action sequence and of the final state record's bytes. Then the batch
API's random play and the vector env with compiled opponents, each a digest of the records it leaves.
"""

import argparse
import hashlib
import json
import sys

import numpy as np

from envs.files import write_atomic

FAMILIES = {
    "capivari": ("capivari_v0", {}),
    "capivari-long": ("capivari_v0", {"max_rounds": 64, "wins_needed": 5}),
    "horizonte-3": ("horizonte_v0", {"num_players": 3}),
    "horizonte-4": ("horizonte_v0", {"num_players": 4}),
    "horizonte-5": ("horizonte_v0", {"num_players": 5}),
    "horizonte-neblina": ("horizonte_v0", {"num_players": 4, "neblina": True}),
    "duel": ("dorfromantik_duel_v0", {}),
    "duel-cards": ("dorfromantik_duel_v0", {"module_task_cards": True}),
    "duel-poi": ("dorfromantik_duel_v0", {"module_points_of_interest": True}),
}


def _digest(actions: list[int], env: object) -> str:
    h = hashlib.sha256(np.asarray(actions, np.int64).tobytes())
    h.update(env._states.tobytes())
    return h.hexdigest()[:20]


def random_games(game: str, config: dict, count: int) -> list[str]:
    import envs

    env = envs.game_module(game).raw_env(**config)
    out = []
    for seed in range(count):
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        actions = []
        while not env._rec["done"]:
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            actions.append(int(legal[rng.integers(legal.size)]))
            env.step(actions[-1])
        out.append(_digest(actions, env))
    return out


def agent_games(game: str, config: dict, specs: list[str], count: int) -> list[str]:
    import envs
    from agents.registry import make_agent

    env = envs.game_module(game).raw_env(**config)
    out = []
    for seed in range(count):
        agents = [
            make_agent(specs[(p + seed) % len(specs)], game, seed=seed * 10 + p)
            for p in range(len(env.possible_agents))
        ]
        env.reset(seed=seed)
        actions = []
        while not env._rec["done"]:
            seat = env.possible_agents.index(env.agent_selection)
            actions.append(int(agents[seat].act(env.observe(env.agent_selection), env)))
            env.step(actions[-1])
        out.append(_digest(actions, env))
    return out


def kernel_games(game: str, config: dict) -> list[str]:
    """The batch API's random play and the vector env's compiled opponents (random and heuristic) from fixed seeds."""
    from envs.batch import BatchEnv
    from training.vector_env import GameVectorEnv

    batch = BatchEnv(game, 16, threads=1, **config)
    batch.reset(seed=5)
    batch.random_steps(200, seed=9)
    out = [hashlib.sha256(batch.states.tobytes()).hexdigest()[:20]]
    vector = GameVectorEnv(game, 8, seed=3, opponents={"random": 0.5, "heuristic": 0.5}, **config)
    obs, _ = vector.reset(seed=3)
    rng = np.random.default_rng(0)
    h = hashlib.sha256()
    for _ in range(60):
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in obs["action_mask"]])
        obs, rewards, terminated, _, _ = vector.step(actions)
        h.update(rewards.tobytes() + terminated.tobytes())
    h.update(vector.batch.states.tobytes())
    out.append(h.hexdigest()[:20])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--agent-games", type=int, default=6)
    ap.add_argument("--out")
    ap.add_argument("--compare", nargs=2)
    args = ap.parse_args(argv)
    if args.compare:
        a, b = (json.load(open(p)) for p in args.compare)
        differ = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        for k in sorted(a):
            print(f"{k:40s} {len(a[k]):5d} games  {'DIFFERENT' if k in differ else 'identical'}")
        return 1 if differ else 0
    result = {}
    for family, (game, config) in FAMILIES.items():
        count = args.games if not game.startswith("dorfromantik") else max(1, args.games // 3)
        result[f"{family} random"] = random_games(game, config, count)
        result[f"{family} heuristic"] = agent_games(game, config, ["heuristic", "random"], args.agent_games)
        result[f"{family} ismcts"] = agent_games(game, config, ["ismcts:iterations=60", "heuristic"], 2)
        result[f"{family} kernels"] = kernel_games(game, config)
        print(family, "done", file=sys.stderr, flush=True)
    write_atomic(args.out, json.dumps(result, indent=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
