"""Kuhn poker bound to the engine's contract (envs.engine.contract): the compiled pieces, sizes, names,
results, infos, the table as text, scenarios and the state check."""

from collections.abc import Collection
from typing import Any

import numpy as np

from envs.engine.contract import SearchHooks
from envs.engine.game import Game
from envs.engine.layout import ObsLayout
from envs.kuhn_poker import core
from envs.kuhn_poker.rules import (
    ACTION_NAMES,
    ANTE,
    BET,
    CARD_NAMES,
    LIVE_SEQUENCES,
    MAX_MOVES,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_PLAYERS,
    TERMINAL_SEQUENCES,
    KuhnPokerConfig,
)

OPTION_KEYS = ("cards", "history")


def sequence_of(moves: list[int]) -> str:
    """Action ids as a betting sequence (``[0, 1]`` -> ``"pb"``)."""
    return "".join("pb"[a] for a in moves)


class KuhnPoker(Game):
    """Kuhn poker: three cards, two players, one betting round (seeds/kuhn_poker.md)."""

    # required pieces (envs.engine.contract.GAME_PIECES), compiled ones from core.py
    rules_version = "kuhn_poker-1"  # bump when a rule changes: saved states of other versions are refused
    config_cls = KuhnPokerConfig
    higher_score_wins = True
    max_actions = NUM_ACTIONS
    reset_fn = staticmethod(core.reset)
    step_fn = staticmethod(core.step)
    observe_fn = staticmethod(core.observe)
    observe_into_fn = staticmethod(core.observe_into)
    legal_into_fn = staticmethod(core.legal_into)
    determinize_fn = staticmethod(core.determinize)
    # optional: the byte fast path, a faster random move, the heuristic, the IS-MCTS hooks
    state_dtype = core.STATE_DTYPE
    pick_random_action_fn = staticmethod(core.pick_random_action)
    action_values_fn = staticmethod(core.action_values)
    search = SearchHooks(utility=core.utility)
    # optional: explicit chance for OpenSpiel, the deal as two chance events (reset_fn still deals by itself)
    chance_reset_fn = staticmethod(core.chance_reset)
    chance_outcomes_fn = staticmethod(core.chance_outcomes)
    chance_step_fn = staticmethod(core.chance_step)
    chance_observe_fn = staticmethod(core.chance_observe)
    max_chance_outcomes = NUM_CARDS  # outcome ids are card ids

    # -- sizes and names ---------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return NUM_PLAYERS

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def obs_size(self) -> int:
        return core.OBS_SIZE

    def observation_layout(self) -> ObsLayout:
        return core.LAYOUT

    def new_state(self) -> np.ndarray:
        states = np.zeros(1, core.STATE_DTYPE)
        states["num_players"] = NUM_PLAYERS
        states["first_player"] = self.config.first_player
        states["current"] = -1
        return states

    def action_name(self, action: int) -> str:
        """``pass`` (check or fold) or ``bet`` (bet or call)."""
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"Kuhn poker action must be 0 (pass) or 1 (bet), got {action}")
        return ACTION_NAMES[action]

    def chance_outcome_name(self, outcome: int) -> str:
        """``deal J``, ``deal Q``, ``deal K``."""
        outcome = int(outcome)
        if not 0 <= outcome < NUM_CARDS:
            raise ValueError(f"Kuhn poker chance outcome must be a card id 0..{NUM_CARDS - 1}, got {outcome}")
        return f"deal {CARD_NAMES[outcome]}"

    # -- results -----------------------------------------------------------------------------------
    def final_scores(self, rec: np.void) -> list[float]:
        """Chips won (+) or lost (-) in the hand: 0 each while it is being played."""
        return [float(r) if rec["done"] else 0.0 for r in rec["rewards"][:NUM_PLAYERS]]

    def returns_range(self) -> tuple[float, float]:
        return (-float(ANTE + BET), float(ANTE + BET))  # the antes, or the antes and a called bet

    def returns_sum(self) -> float:
        return 0.0  # zero-sum: one seat's chips are the other's

    def rewards_at_end(self) -> bool:
        return True  # paid with the move that ends the hand

    def max_game_length(self) -> int:
        return MAX_MOVES  # pass, bet, then pass or bet

    def max_chance_events(self) -> int:
        return NUM_PLAYERS  # one card each

    def move_is_public(self, seat: int, action: int) -> bool:
        return True  # every pass and bet is made in the open; only the cards are hidden

    def infos(self, rec: np.void, details: bool = False) -> list[dict[str, Any]]:
        """Each seat's own card; at the end, the winner, the chips and, after a showdown, both cards. Card ids
        (0 J, 1 Q, 2 K) and the same keys at every step; with ``details``, card names and the end's keys then."""
        if not details:
            return self._fixed_infos(rec)
        out: list[dict[str, Any]] = [{"seat": p, "card": CARD_NAMES[int(rec["cards"][p])]} for p in range(NUM_PLAYERS)]
        if rec["done"]:
            showdown = not core.folded(rec)
            winner = 0 if rec["rewards"][0] > 0 else 1
            for p, info in enumerate(out):
                info.update(winner=winner, chips=float(rec["rewards"][p]), showdown=showdown)
                if showdown:
                    info["cards"] = [CARD_NAMES[int(c)] for c in rec["cards"]]
        return out

    def _fixed_infos(self, rec: np.void) -> list[dict[str, Any]]:
        """``infos`` of fixed keys: before the end winner -1, chips 0.0, showdown False and cards [-1, -1]."""
        done = bool(rec["done"])
        showdown = done and not bool(core.folded(rec))
        winner = (0 if rec["rewards"][0] > 0 else 1) if done else -1
        return [
            {
                "seat": p,
                "card": int(rec["cards"][p]),
                "winner": winner,
                "chips": float(rec["rewards"][p]) if done else 0.0,
                "showdown": showdown,
                "cards": rec["cards"].astype(np.int64) if showdown else np.full(NUM_PLAYERS, -1, np.int64),
            }
            for p in range(NUM_PLAYERS)
        ]

    has_svg = True

    def render_svg(self, rec: np.void, seat: int | None, legal: Collection[str] = ()) -> str:
        from envs.kuhn_poker.svg import draw as draw_svg

        return draw_svg(rec, seat, legal)

    def render_ansi(self, rec: np.void, seat: int | None) -> str:
        """The table as text; ``seat`` sees its own card only until a showdown (None: a spectator sees both)."""
        who = ["you" if p == seat else f"player_{p}" for p in range(NUM_PLAYERS)]

        def does(p: int, verb: str) -> str:
            return f"{who[p]} {verb if p == seat else verb + 's'}"

        cards = [int(c) for c in rec["cards"]]
        done = bool(rec["done"])
        showdown = done and not core.folded(rec)
        shown = [  # "-": not dealt yet (explicit chance); "?": hidden from this seat
            "-" if c == core.UNDEALT else CARD_NAMES[c] if seat is None or p == seat or showdown else "?"
            for p, c in enumerate(cards)
        ]
        betting = [f"{who[core.mover(rec, i)]} {ACTION_NAMES[rec['history'][i]]}" for i in range(rec["moves"])]
        lines = [
            f"Kuhn poker  ({does(int(rec['first_player']), 'act')} first)",
            "cards: " + ", ".join(f"{who[p]} {shown[p]}" for p in range(NUM_PLAYERS)),
            "betting: " + (", ".join(betting) or "-"),
            "pot: " + ", ".join(f"{who[p]} {core.chips_in(rec, p)}" for p in range(NUM_PLAYERS)),
        ]
        if core.UNDEALT in cards:  # explicit chance: the deal is under way
            lines.append(f"dealing: a card to {who[cards.index(core.UNDEALT)]}")
        elif not done:
            lines.append(f"to act: {who[int(rec['current'])]}  (pass / bet)")
        else:
            winner = 0 if rec["rewards"][0] > 0 else 1
            how = "showdown" if showdown else does(1 - winner, "fold")
            lines.append(f"hand over ({how}): {does(winner, 'win')} {int(rec['rewards'][winner])}")
        return "\n".join(lines)

    # -- scenarios and the state check ----------------------------------------------------------------
    def apply_options(self, states: np.ndarray, options: dict[str, Any]) -> None:
        """Set up a position: see "Scenarios" in seeds/kuhn_poker.md for the keys."""
        unknown = sorted(set(options) - set(OPTION_KEYS), key=str)
        if unknown:
            raise ValueError(f"unknown Kuhn poker reset option(s) {unknown}; known: {list(OPTION_KEYS)}")
        rec = states[0]
        if "cards" in options:
            names = options["cards"]
            if not isinstance(names, (list, tuple)) or len(names) != NUM_PLAYERS:
                raise ValueError(f"option 'cards' must list 2 card names (seat 0's, seat 1's), got {names!r}")
            for name in names:
                if not (isinstance(name, str) and name.strip().upper() in CARD_NAMES):
                    raise ValueError(f"unknown Kuhn poker card {name!r}; cards are J, Q, K")
            cards = [CARD_NAMES.index(name.strip().upper()) for name in names]
            if cards[0] == cards[1]:
                raise ValueError(f"option 'cards' deals one card twice: {names!r} (there is one J, one Q, one K)")
            rec["cards"][:] = cards
        history = options.get("history", [])
        if not isinstance(history, (list, tuple)):
            raise ValueError(f"option 'history' must be a list of action names ('pass', 'bet'), got {history!r}")
        moves = [self.action_from_name(n) for n in history]
        if sequence_of(moves) not in LIVE_SEQUENCES:
            ended = any(sequence_of(moves[:k]) in TERMINAL_SEQUENCES for k in range(len(moves) + 1))
            why = "ends the hand: there is nothing left to play" if ended else "is not a betting sequence"
            raise ValueError(
                f"option 'history' {list(history)!r} {why}; a hand still to be played has history "
                "[], ['pass'], ['bet'] or ['pass', 'bet']"
            )
        for a in moves:
            core.step(rec, a)  # the rules play the history: they live in one place
        self.validate_state(rec)

    def validate_state(self, rec: np.void) -> None:
        """Every field in range, the betting a sequence of the rules, turn, end and rewards agreeing."""
        super().validate_state(rec)

        def bad(msg: str) -> None:
            raise ValueError(f"invalid Kuhn poker state: {msg}")

        first = int(rec["first_player"])
        if first != self.config.first_player:
            bad(f"first_player {first} differs from the env's config ({self.config.first_player})")
        cards = np.asarray(rec["cards"]).astype(np.int64).tolist()
        if not all(0 <= c < NUM_CARDS for c in cards) or cards[0] == cards[1]:
            bad(f"cards {cards} must be two different cards of 0..{NUM_CARDS - 1} (J, Q, K)")
        moves = int(rec["moves"])
        history = np.asarray(rec["history"]).astype(np.int64).tolist()
        if not 0 <= moves <= MAX_MOVES:
            bad(f"moves {moves} out of range [0, {MAX_MOVES}]")
        if not all(0 <= a < NUM_ACTIONS for a in history[:moves]) or any(history[moves:]):
            bad(f"history {history} must hold {moves} moves of 0 (pass) or 1 (bet), then zeros")
        seq = sequence_of(history[:moves])
        if seq not in LIVE_SEQUENCES + TERMINAL_SEQUENCES:
            bad(f"betting sequence {seq!r} goes on after the hand ended")
        done = bool(rec["done"])
        if done != (seq in TERMINAL_SEQUENCES):
            bad(f"done={int(done)} after the betting sequence {seq!r}")
        if int(rec["info_version"]) != int(done):
            bad(f"info_version {int(rec['info_version'])} (1 once the hand is over, else 0)")
        rewards = np.asarray(rec["rewards"], np.float64).tolist()
        if not done:
            if int(rec["current"]) != first ^ (moves & 1):
                bad(f"seat {int(rec['current'])} to act after {moves} moves; seat {first} acted first")
            if any(rewards):
                bad(f"rewards {rewards} before the hand is over (only the last move pays)")
            return
        end = self.new_state()
        end[0] = rec
        core.settle(end[0])  # what the rules pay for these cards and this betting
        want = end["rewards"][0].tolist()
        if rewards != want:
            bad(f"rewards {rewards} at the end of {seq!r} with cards {cards}; the rules say {want}")
