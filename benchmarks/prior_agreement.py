"""How a policy file's prior compares with a strong search's choice, on the positions of random games where the acting
seat has a choice: how peaked the prior is (its largest probability, its entropy over the legal actions divided
by the entropy of a uniform choice) and how often its favourite is the search's move; and the prior it gives the
search's move, which is what PUCT's selection starts from.

    python -m benchmarks.prior_agreement capivari --policy reference --search ismcts:iterations=20000 --games 12
"""

import argparse
import json
import sys
from typing import Any

import numpy as np

import envs
from agents.compiled_policy import load_policy
from agents.registry import check_spec, make_agent
from envs.engine.config import key_value, key_values
from envs.files import write_atomic

LOW_PRIOR = 0.05  # a move the prior gives less than this is one PUCT rarely looks at early


def measure(
    game: str, policy: str, search: str, games: int = 12, seed: int = 100, config: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The prior's statistics over every position with a choice in ``games`` random games (module docstring)."""
    config = config or {}
    prior_net = load_policy(policy, game)
    searcher = make_agent(search, game, seed=seed)
    env = envs.make(game, **config)
    rng = np.random.default_rng(seed)
    top, entropy, agree, of_search = [], [], [], []
    for g in range(games):
        env.reset(seed=seed + g)
        while env.agents:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = observation["action_mask"]
            legal = np.flatnonzero(mask)
            if len(legal) > 1:
                logits, _ = prior_net.game_logits(observation["observation"], mask)
                z = np.asarray(logits, np.float64)[legal]
                p = np.exp(z - z.max())
                p /= p.sum()
                chosen = int(np.flatnonzero(legal == searcher.act(observation, env))[0])
                top.append(float(p.max()))
                entropy.append(float(-(p * np.log(p + 1e-300)).sum() / np.log(len(legal))))
                agree.append(int(np.argmax(p)) == chosen)
                of_search.append(float(p[chosen]))
            env.step(int(rng.choice(legal)))
    if not top:
        raise ValueError(f"no position with a choice in {games} random game(s) of {game}")
    return {
        "game": game,
        "policy": policy,
        "search": search,
        "positions": len(top),
        "median_top_prior": float(np.median(top)),
        "share_top_prior_above_0.9": float(np.mean(np.array(top) > 0.9)),
        "median_normalised_entropy": float(np.median(entropy)),
        "favourite_is_search_move": float(np.mean(agree)),
        "median_prior_of_search_move": float(np.median(of_search)),
        f"share_search_move_prior_below_{LOW_PRIOR}": float(np.mean(np.array(of_search) < LOW_PRIOR)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--policy", default="reference", help="a policy file, run folder or reference")
    parser.add_argument("--search", default="ismcts:iterations=20000", help="the agent whose move is compared")
    parser.add_argument("--games", type=int, default=12, help="random games the positions come from (default 12)")
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--config", type=key_value, action="append", default=[], help="a game config knob KEY=VALUE")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        game = envs.game_name(args.game)
        check_spec(args.search)
        result = measure(game, args.policy, args.search, args.games, args.seed, key_values(args.config, "--config"))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for key, value in result.items():
        print(f"{key:40s} {value:.3f}" if isinstance(value, float) else f"{key:40s} {value}")
    if args.json:
        write_atomic(args.json, json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
