"""`tabuleiro play GAME`: a human plays one seat against agents in the terminal; the game can be saved as a replay."""

import argparse
import contextlib
import os
import sys
import tempfile
from typing import Any

import envs
from agents.arena import checked_agents
from agents.human import HumanAgent, QuitGame
from agents.match import play_game
from agents.registry import check_spec, make_agent, parse_spec
from envs.files import write_atomic
from envs.replay import record, save
from tabuleiro.move_text import move_text
from tabuleiro.options import (
    MAX_PLAYERS,
    Terminated,
    add_players_option,
    check_output_file,
    checked,
    int_option,
    seed_option,
)


class _Told:
    """Wraps an opponent so the human reads each of its moves, as far as their seat may know it."""

    def __init__(self, agent: Any, seat: int, viewer: int, game: str, say: Any) -> None:
        self.agent, self.seat, self.viewer, self.game, self.say = agent, seat, viewer, game, say
        self.name = getattr(agent, "name", type(agent).__name__)

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def act(self, observation: dict, env: Any) -> int:
        a = int(self.agent.act(observation, env))
        self.say(move_text(env.game, self.seat, a, self.viewer) + f"  ({self.name})")
        return a


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro play`."""
    parser.add_argument("game", help="game name, e.g. capivari (or capivari_v0), horizonte, dorfromantik_duel")
    add_players_option(parser, "seats at the table, for games with a choice")
    parser.add_argument("--seat", type=int_option(0, MAX_PLAYERS - 1), default=0, help="your seat, 0-based (default 0)")
    parser.add_argument(
        "--opponents",
        type=checked("opponents", checked_agents),
        default="heuristic",
        help="agent specs for the other seats in order, comma-separated; the last fills the rest "
        "(default heuristic; e.g. random, ismcts:iterations=500,exploration=1, heuristic*2)",
    )
    parser.add_argument(
        "--seed", type=seed_option, default=None, help="game seed, 0..2**32-1 (default: a fresh one, printed)"
    )
    parser.add_argument(
        "--save",
        default=None,
        metavar="FILE",
        help="write the finished game as a replay (JSON); the path is checked before the game starts",
    )
    parser.add_argument(
        "--hint",
        type=checked("hint", _checked_spec),
        default="heuristic",
        help="agent spec that answers `hint` (default heuristic)",
    )


def _checked_spec(spec: str) -> str:
    check_spec(spec)
    return spec


def _opponent_specs(text: str | list[str], count: int) -> list[str]:
    """One spec per other seat from ``--opponents`` (the arena's syntax: ``spec*n``, options after a spec)."""
    try:
        specs = text if isinstance(text, list) else checked_agents(text)
    except ValueError as exc:
        raise ValueError("--opponents: " + str(exc).replace("in --agents ", "")) from None
    if len(specs) > count:
        raise ValueError(f"{len(specs)} opponents do not fit: the table has {count} other seat(s)")
    return specs + [specs[-1]] * (count - len(specs))


def _hint_agent(spec: str, game: str, seed: int) -> Any:
    if parse_spec(spec)[0] == "heuristic" and envs.spec(game).heuristic is None:
        return None  # no heuristic for this game yet: `hint` says so
    try:
        return make_agent(spec, game, seed)
    except ValueError as exc:
        raise ValueError(f"--hint: {exc}") from None


def make_table(args: argparse.Namespace) -> tuple[Any, list[str]]:
    """The env (ansi, rendering from the human's seat) and one agent spec per seat (``human`` for the human)."""
    game = envs.game_name(args.game)
    config = {}
    env = envs.make(game)
    if args.players is not None and args.players != len(env.possible_agents):
        if "num_players" not in env.game.config_cls.__dataclass_fields__:
            raise ValueError(f"{game} seats {len(env.possible_agents)} players, not {args.players}")
        config["num_players"] = args.players
    env = envs.make(game, render_mode="ansi", **config)
    n = len(env.possible_agents)
    if not 0 <= args.seat < n:
        raise ValueError(f"--seat must be 0..{n - 1} for {game} with {n} players, got {args.seat}")
    env.render_seat = args.seat
    others = iter(_opponent_specs(args.opponents, n - 1))
    return env, ["human" if p == args.seat else next(others) for p in range(n)]


def run(args: argparse.Namespace) -> int:
    """`tabuleiro play`: 0 when the game ends or the human quits."""
    env, specs = make_table(args)
    if args.save:
        check_output_file(args.save, "--save")  # before the game: a finished game is never lost to the path
    game = env.game.name
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    human = HumanAgent(_hint_agent(args.hint, game, seed))
    agents = [
        human if spec == "human" else _Told(make_agent(spec, game, seed + p), p, args.seat, game, human.say)
        for p, spec in enumerate(specs)
    ]
    lineup = ", ".join(f"player_{p} {'(you)' if s == 'human' else s}" for p, s in enumerate(specs))
    human.say(f"tabuleiro play {game}, seed {seed}: {lineup}")
    human.say("type a move's number or name; help lists the commands")
    try:
        result = play_game(env, agents, seed, record_actions=True)
    except (QuitGame, KeyboardInterrupt) as why:
        human.say(f"\ngame left ({why or 'interrupted'}) after {human.moves} of your moves; nothing saved")
        if isinstance(why, Terminated):
            raise  # SIGTERM: the command exits with 143
        return 0
    except BrokenPipeError:  # the output was piped into a program that stopped reading (e.g. head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    human.say("\n=== game over ===")
    human.say(env.render())
    human.say("returns: " + ", ".join(f"player_{p} {r:+g}" for p, r in enumerate(result.returns)))
    human.say(_verdict(result.returns, args.seat))
    if args.save:
        replay = record(env.game, result, specs)
        try:
            path = save(replay, args.save)
        except OSError as exc:  # the path was writable when the game started, no longer: keep the game anyway
            kept = _save_elsewhere(replay, seed)
            print(f"tabuleiro play: error: --save: cannot write {args.save!r}: {exc.strerror or exc}", file=sys.stderr)
            print(f"tabuleiro play: the replay is kept in {kept}", file=sys.stderr)
            return 1
        human.say(f"replay saved: {path}  (tabuleiro replay {path})")
    sys.stdout.flush()
    return 0


def _save_elsewhere(replay: Any, seed: int) -> str:
    """Write a replay to a fresh file in the temporary folder (or print it, failing that); where it went."""
    path = None
    try:
        fd, path = tempfile.mkstemp(prefix=f"tabuleiro-{replay.game}-{seed}-", suffix=".json")
        os.close(fd)
        write_atomic(path, replay.to_json())
        return path
    except OSError:
        if path is not None:  # no partial replay left behind
            with contextlib.suppress(OSError):
                os.unlink(path)
        print(replay.to_json(), file=sys.stderr)
        return "the text above (stderr)"


def _verdict(returns: list[float], seat: int) -> str:
    best = max(returns)
    if len(set(returns)) == 1:
        return "a draw"
    if returns[seat] < best:
        return "you lose"
    return "you win" if returns.count(best) == 1 else "you share the win"
