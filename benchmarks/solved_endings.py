"""What exact play is worth where the game solves a position: an agent plays against an opponent twice on the same
deals, once alone and once with the moves of the solved positions (``Game.solved_values``; Capivari: once the deck
holds two cards) taken from the solver, from turn ``--from-turn`` of the observation's turn piece on. With
``--before-refill``, also the positions Capivari's ``Game.refill_values`` solves in expectation (the three turns before
a round's last refill).

    python -m benchmarks.solved_endings --agent policy:reference --against heuristic --games 2000
    python -m benchmarks.solved_endings --agent policy:reference --against ismcts:iterations=1000 --from-turn 11
    python -m benchmarks.solved_endings --agent policy:reference --against ismcts:iterations=1000 --before-refill
"""

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from tqdm import tqdm

import envs
from agents.arena import game_seed, rotation
from agents.match import play_game
from agents.registry import check_spec, make_agent
from agents.results import wilson_interval
from agents.solved_endings import SolvedEndings, check_solves
from benchmarks.search_turns import turn_reading
from envs.files import write_atomic

CHUNK = 20  # games a worker plays per task


def _wins(task: tuple[str, str, str, bool, int, tuple[int, float], bool, int, list[int]]) -> tuple[int, int]:
    """Games won and drawn by the (solver-helped) agent among ``indices`` (arena deals and seat rotation)."""
    game, agent, against, solved, first, turn_at, before_refill, seed, indices = task
    env = envs.make(game)
    player = make_agent(agent, game)
    helped = SolvedEndings(player, first, turn_at, before_refill) if solved else player
    lineup = [helped, make_agent(against, game)]
    wins = draws = 0
    for g in indices:
        result = play_game(env, [lineup[p] for p in rotation(g, 2)], game_seed(seed, g, 2))
        mine = rotation(g, 2).index(0)
        wins += result.returns[mine] > result.returns[1 - mine]
        draws += result.returns[mine] == result.returns[1 - mine]
    return int(wins), int(draws)


def measure(
    agent: str, against: str, games: int = 1000, first: int = 0, *, workers: int = 2, seed: int = 1,
    game: str = "capivari", turn_piece: str = "turns_taken", turn_scale: float = 14.0, before_refill: bool = False,
) -> list[dict[str, Any]]:  # fmt: skip
    """The agent's wins against ``against`` alone and with the solver's moves; ValueError for a game that solves no
    position (or, with ``before_refill``, has no ``refill_values``), one of other than two seats, or one without a
    one-number observation piece ``turn_piece``."""
    check_spec(agent)
    check_spec(against)
    check_solves(game, before_refill)
    turn_at = turn_reading(game, turn_piece, turn_scale, "solved_endings")
    rows = []
    with ProcessPoolExecutor(workers) as pool:
        for solved in (False, True):
            parts = [list(range(k, min(k + CHUNK, games))) for k in range(0, games, CHUNK)]
            tasks = [(game, agent, against, solved, first, turn_at, before_refill, seed, p) for p in parts]
            wins = draws = 0
            label = f"{agent}{(' + solver' + (' before refill' if before_refill else '')) if solved else ''}"
            with tqdm(total=games, desc=label, unit="game", file=sys.stderr) as bar:
                for (won, drawn), part in zip(pool.map(_wins, tasks), parts, strict=True):
                    wins, draws = wins + won, draws + drawn
                    bar.update(len(part))
            low, high = wilson_interval(wins, games)
            rows.append({"agent": label, "against": against, "solver_from_turn": first if solved else None,
                         "before_refill": before_refill and solved,
                         "games": games, "wins": wins, "draws": draws, "win_rate": wins / games,
                         "ci95": [low, high]})  # fmt: skip
            print(f"{label} vs {against}: {wins / games:6.1%} [{low:.1%}, {high:.1%}] of {games}", flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="capivari")
    parser.add_argument("--agent", default="policy:reference", help="the agent the solver helps (an arena spec)")
    parser.add_argument("--against", default="heuristic", help="its opponent (an arena spec)")
    parser.add_argument("--from-turn", type=int, default=0, help="the solver plays solved positions from this turn")
    parser.add_argument(
        "--before-refill",
        action="store_true",
        help="also the turns before a round's last refill, solved in expectation (Game.refill_values)",
    )
    parser.add_argument("--turn-piece", default="turns_taken", help="the observation piece that holds the turn")
    parser.add_argument("--turn-scale", type=float, default=14.0, help="the turn is that piece times this")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 1 or args.from_turn < 0:
        parser.error("--games and --workers must be >= 1, --from-turn >= 0")
    try:
        rows = measure(args.agent, args.against, args.games, args.from_turn, workers=args.workers, seed=args.seed,
                       game=args.game, turn_piece=args.turn_piece, turn_scale=args.turn_scale,
                       before_refill=args.before_refill)  # fmt: skip
    except ValueError as exc:
        parser.error(str(exc))
    if args.json:
        write_atomic(args.json, json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
