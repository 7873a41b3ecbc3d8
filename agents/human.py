"""A human at the terminal: sees the table from their seat only, types a move by number or name.

Bad input is answered with the reason and asked again, never played; ``quit`` or the end
of input raises ``QuitGame`` so the caller can stop cleanly.
"""

import sys
from typing import Any, TextIO

import numpy as np

HELP = """commands:
  a number      play the move with that number in the list
  a name        play the move with that name (e.g. as listed; case does not matter)
  hint          what the hint agent would play here
  moves         list the legal moves again
  table         show the table again
  help          this text
  quit          leave the game (also: end of input)"""


class QuitGame(Exception):
    """The human left the game (typed quit, or the input ended)."""


class HumanAgent:
    """Asks a person for each move of one seat; the screen shows only what that seat may see.

    ``env`` must render as ``ansi`` with ``env.render_seat`` set to this seat (``tabuleiro.commands.play``
    does so). ``hint_agent`` (optional) answers ``hint``; it sees what a search agent may see.
    """

    name = "human"

    def __init__(self, hint_agent: Any = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.hint_agent = hint_agent
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        self.moves = 0

    def reset(self, seed: int | None = None) -> None:
        self.moves = 0
        if self.hint_agent is not None:
            self.hint_agent.reset(seed)

    def say(self, text: str = "") -> None:
        """Print a line to the human."""
        print(text, file=self.stdout, flush=True)

    def act(self, observation: dict[str, np.ndarray], env: Any) -> int:
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        if not legal:
            raise ValueError("no legal action in the mask: the human was asked to act out of turn")
        names = [env.action_name(a) for a in legal]
        self.moves += 1
        self.say(f"\n=== your move {self.moves} ({env.agent_selection}) ===")
        self.say(env.render())
        self._list(names)
        while True:
            self.stdout.write("your move> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self.say("")
                raise QuitGame("end of input")
            text = " ".join(line.split())
            if not _is_tty(self.stdin):
                self.say(text)  # a scripted session: show what was typed, as a terminal would
            command = text.lower()
            if command in ("quit", "exit", "q"):
                raise QuitGame("quit")
            if command in ("help", "?", ""):
                self.say(HELP)
            elif command == "hint":
                self.say(self._hint(observation, env, legal, names))
            elif command in ("moves", "list"):
                self._list(names)
            elif command in ("table", "board"):
                self.say(env.render())
            else:
                try:
                    action = self._parse(text, legal, names, env)
                except ValueError as exc:
                    self.say(f"not played: {exc}; type help for the commands")
                    continue
                self.say(f"you play {env.action_name(action)}")
                return action

    def _list(self, names: list[str]) -> None:
        cells = [f"{i:>3}: {name}" for i, name in enumerate(names, start=1)]
        width = max(len(c) for c in cells) + 2
        per_line = max(1, 110 // width)
        self.say(f"legal moves ({len(names)}), type a number or a name:")
        for i in range(0, len(cells), per_line):
            self.say("".join(c.ljust(width) for c in cells[i : i + per_line]).rstrip())

    @staticmethod
    def _parse(text: str, legal: list[int], names: list[str], env: Any) -> int:
        if text.lstrip("+-").isdigit():
            k = int(text)
            if not 1 <= k <= len(legal):
                raise ValueError(f"{k} is not a move number; the moves are numbered 1..{len(legal)}")
            return legal[k - 1]
        folded = {name.lower(): a for name, a in zip(names, legal, strict=True)}
        if text.lower() in folded:
            return folded[text.lower()]
        try:
            action = env.action_from_name(text)
        except ValueError:
            raise ValueError(f"{text!r} is neither a move number nor a move name") from None
        raise ValueError(f"{env.action_name(action)!r} is not a legal move now")

    def _hint(self, observation: dict[str, np.ndarray], env: Any, legal: list[int], names: list[str]) -> str:
        if self.hint_agent is None:
            return "no hint agent for this game"
        a = int(self.hint_agent.act(observation, env))
        label = getattr(self.hint_agent, "name", "the hint agent")
        return f"hint: {label} would play {names[legal.index(a)]} (number {legal.index(a) + 1})"


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
