"""Random-play steps/s of every tabuleiro game through its OpenSpiel adapter (``envs.openspiel``), for the bench.

The same measure as ``benchmarks.throughput.spiel_rate`` for pyspiel's native games (random legal moves,
chance resolved at random and not counted, with ``tensors`` the information-state tensor and the legal-action
mask read at every decision), run on ``tabuleiro_<game>`` in its default chance mode, so the two sit side by
side in one table (``tabuleiro bench`` measures each game the same way, ``throughput.adapter_rate``):

    python -m benchmarks.openspiel_rate --seconds 1 --repeats 3 [--ismcts]

``--ismcts`` adds IS-MCTS iterations/s from each game's opening position: ours (``agents.ismcts``, as the bench
measures it) beside OpenSpiel's bot on the adapter (``agents.openspiel_ismcts``).
"""

import argparse
import sys
import time

import envs
from agents.ismcts import iterations_per_second
from benchmarks.throughput import adapter_rate, spiel_rate

NATIVE = ("kuhn_poker", "hex")  # pyspiel's own games, measured the same way for comparison


def adapter_rates(seconds: float = 1.0, repeats: int = 3, tensors: bool = False) -> dict[str, float]:
    """Steps/s of random play through pyspiel for every registered game: ``{"tabuleiro_capivari": ..., ...}``."""
    import envs.openspiel as eo  # optional heavy: pyspiel (the peers extra); registers the games

    return {eo.openspiel_name(spec.name): adapter_rate(spec.name, tensors, seconds, repeats) for spec in envs.specs()}


def openspiel_ismcts_rate(game: str, iterations: int = 50, seed: int = 0) -> float:
    """OpenSpiel's IS-MCTS bot's simulations per second from the game's opening position (after a warm-up search)."""
    from agents.openspiel_ismcts import OpenSpielISMCTSAgent  # optional heavy: pyspiel

    env = envs.make(game)
    env.reset(seed=seed)
    observation = env.observe(env.agent_selection)
    agent = OpenSpielISMCTSAgent(game, iterations=iterations, seed=seed)
    agent.act(observation, env)  # warm-up: compiles and loads what the search calls
    start = time.perf_counter()
    agent.act(observation, env)
    return iterations / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one timed run, 0.1..60")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per figure (the median is reported), 1..100")
    ap.add_argument("--ismcts", action="store_true", help="also IS-MCTS iterations/s: ours and OpenSpiel's bot")
    args = ap.parse_args(argv)
    if not 0.1 <= args.seconds <= 60 or not 1 <= args.repeats <= 100:
        ap.error("--seconds must be in 0.1..60 and --repeats in 1..100")
    print(f"{'game':<34}{'steps/s':>12}{'+tensors':>12}")
    rows = {}
    for tensors in (False, True):
        for name, rate in adapter_rates(args.seconds, args.repeats, tensors).items():
            rows.setdefault(name, []).append(rate)
        for name in NATIVE:
            rows.setdefault(f"pyspiel {name}", []).append(spiel_rate(name, tensors, args.seconds, args.repeats))
    for name, (bare, full) in rows.items():
        print(f"{name:<34}{bare:>12,.0f}{full:>12,.0f}")
    if args.ismcts:
        print(f"\n{'IS-MCTS iterations/s':<34}{'ours':>12}{'OpenSpiel':>12}")
        for spec in envs.specs():
            ours = iterations_per_second(spec.name, seconds=args.seconds)
            print(f"{spec.name:<34}{ours:>12,.0f}{openspiel_ismcts_rate(spec.name):>12,.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
