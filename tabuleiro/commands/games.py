"""`tabuleiro games [NAME]`: every registered game with its seats, action count and config knobs."""

import argparse

import envs
from envs.engine.config import describe_config


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro games`."""
    parser.add_argument("name", nargs="?", help="show one game only")


def run(args: argparse.Namespace) -> int:
    """`tabuleiro games`: every registered game with its seats, action count and config knobs."""
    chosen = [envs.spec(args.name)] if args.name else envs.specs()
    for spec in chosen:
        env = envs.make(spec.name)
        game = env.game
        print(f"{spec.name}  ({spec.title})")
        print(f"  players: {len(env.possible_agents)}  actions: {game.num_actions}  observation: {game.obs_size}")
        print(f"  rules: {spec.rules}")
        print("  config knobs (keyword arguments of env()/make()):")
        for key, default, allowed in describe_config(game.config_cls):
            print(f"    {key:<18} default {default!r:<8} {allowed}")
        print()
    return 0
