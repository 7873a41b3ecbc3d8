"""Which turns a policy loses on: the policy hands the moves of some turns to a search agent and plays that search
agent. If searching turns a-b brings the mixed player from the policy's win rate up to 50% (the search against
itself), the policy's loss lies in those turns. A turn is read from the observation: the piece ``--turn-piece``
times ``--turn-scale`` (Capivari's ``turns_taken`` x 14: the turns taken in the current round, 0-13; the Duel's
``turn`` x 100: the turns of the game, both seats placing in each).

    python -m benchmarks.search_turns --policy policy:reference --search ismcts:iterations=1000 --turns 0-4 4-10 10-14
    python -m benchmarks.search_turns --game dorfromantik_duel --turn-piece turn --turn-scale 100 \
        --search ismcts:iterations=200 --turns 0-20 20-58
"""

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

import numpy as np
from tqdm import tqdm

import envs
from agents.arena import game_seed, rotation
from agents.match import play_game
from agents.registry import check_spec, make_agent
from agents.results import wilson_interval
from envs.files import write_atomic

MAX_TURN = 10_000  # a bound for --turns, above any game's turns
CHUNK = 10  # games a worker plays per task (the progress bar moves by them)


class SearchOnTurns:
    """The policy's move, except on turns ``first`` to ``last - 1`` (counted from 0), the search's; the turn is the
    observation's number at ``offset`` times ``scale``."""

    def __init__(
        self, game: str, policy: str, search: str, turns: tuple[int, int], turn_at: tuple[int, float], seed: int | None
    ) -> None:
        self.policy = make_agent(policy, game, seed)
        self.search = make_agent(search, game, seed)
        self.first, self.last = turns
        self.offset, self.scale = turn_at
        self.name = f"search on turns {self.first}-{self.last}"

    def reset(self, seed: int | None = None) -> None:
        self.policy.reset(seed)
        self.search.reset(seed)

    def act(self, observation: dict[str, np.ndarray], env: Any) -> int:
        turn = int(round(float(observation["observation"][self.offset]) * self.scale))
        agent = self.search if self.first <= turn < self.last else self.policy
        return agent.act(observation, env)


def _wins(task: tuple[str, str, str, tuple[int, int], tuple[int, float], int, list[int]]) -> tuple[int, int]:
    """Games won and drawn by the mixed player among ``indices`` (arena seeds and seat rotation)."""
    game, policy, search, turns, turn_at, seed, indices = task
    env = envs.make(game)
    lineup = [SearchOnTurns(game, policy, search, turns, turn_at, None), make_agent(search, game)]  # reset each game
    wins = draws = 0
    for g in indices:
        deal = game_seed(seed, g, 2)
        seats = [lineup[p] for p in rotation(g, 2)]
        result = play_game(env, seats, deal)
        mine = rotation(g, 2).index(0)
        wins += result.returns[mine] > result.returns[1 - mine]
        draws += result.returns[mine] == result.returns[1 - mine]
    return int(wins), int(draws)


def turn_reading(game: str, turn_piece: str, turn_scale: float, tool: str) -> tuple[int, float]:
    """Where a two-seat game's observation holds the turn and its scale; ValueError for a game of other than two seats
    or without a one-number observation piece ``turn_piece``."""
    g = envs.make(game)
    layout = g.game.observation_layout()
    if len(g.possible_agents) != 2:
        raise ValueError(f"{game} seats {len(g.possible_agents)} players: {tool} plays two-seat games")
    if turn_piece not in layout.names() or layout.length(turn_piece) != 1:
        raise ValueError(f"{game}: no one-number observation piece {turn_piece!r} to read the turn from")
    return int(layout.offset(turn_piece)), float(turn_scale)


def parse_turns(text: str) -> tuple[int, int]:
    """``"a-b"``: turns a to b - 1 searched (0 <= a <= b)."""
    first, dash, last = text.partition("-")
    if not dash or not first.isdigit() or not last.isdigit() or not 0 <= int(first) <= int(last) <= MAX_TURN:
        raise argparse.ArgumentTypeError(f"--turns {text!r}: give a-b with 0 <= a <= b <= {MAX_TURN}")
    return int(first), int(last)


def measure(
    policy: str,
    search: str,
    turns: list[tuple[int, int]],
    games: int = 1000,
    workers: int = 2,
    seed: int = 1,
    game: str = "capivari",
    turn_piece: str = "turns_taken",
    turn_scale: float = 14.0,
) -> list[dict[str, Any]]:
    """The mixed player's wins against ``search`` for each range of searched turns, ``games`` games each; ValueError
    for a game of other than two seats or without a one-number observation piece ``turn_piece``."""
    check_spec(policy)
    check_spec(search)
    turn_at = turn_reading(game, turn_piece, turn_scale, "search_turns")
    rows = []
    with ProcessPoolExecutor(workers) as pool:
        for first, last in turns:
            parts = [list(range(k, min(k + CHUNK, games))) for k in range(0, games, CHUNK)]
            task = (game, policy, search, (first, last), turn_at, seed)
            jobs = {pool.submit(_wins, (*task, p)): len(p) for p in parts}
            wins = draws = 0
            with tqdm(total=games, desc=f"turns {first}-{last}", unit="game", file=sys.stderr) as bar:
                for job in as_completed(jobs):
                    won, drawn = job.result()
                    wins, draws = wins + won, draws + drawn
                    bar.update(jobs[job])
            low, high = wilson_interval(wins, games)
            rows.append({"searched_turns": [first, last], "games": games, "wins": wins, "draws": draws,
                         "win_rate": wins / games, "ci95": [low, high]})  # fmt: skip
            print(f"search on turns {first:2d}-{last:2d}: {wins / games:6.1%} [{low:.1%}, {high:.1%}] of {games}",
                  file=sys.stderr, flush=True)  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="capivari", help="a two-seat game")
    p.add_argument("--turn-piece", default="turns_taken", help="the observation piece that counts turns")
    p.add_argument("--turn-scale", type=float, default=14.0, help="the piece's number times this is the turn")
    p.add_argument("--policy", default="policy:reference", help="the agent whose turns are handed over (a spec)")
    p.add_argument("--search", default="ismcts:iterations=1000", help="the search: opponent and stand-in (a spec)")
    p.add_argument("--turns", nargs="+", type=parse_turns, default=[(0, 0), (0, MAX_TURN)], help="ranges a-b to search")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="write the rows here too")
    a = p.parse_args(argv)
    if a.games < 2 or a.games % 2 or a.workers < 1:
        p.error("--games must be even and at least 2 (both seats of each deal); --workers at least 1")
    try:
        rows = measure(a.policy, a.search, a.turns, a.games, a.workers, a.seed, a.game, a.turn_piece, a.turn_scale)
    except ValueError as exc:
        p.error(str(exc))
    head = {"game": a.game, "policy": a.policy, "search": a.search, "seed": a.seed, "turn_piece": a.turn_piece}
    text = json.dumps(head | {"turn_scale": a.turn_scale, "rows": rows}, indent=1)
    if a.json:
        write_atomic(a.json, text + "\n")
    print(text)


if __name__ == "__main__":
    main()
