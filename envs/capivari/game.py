"""Capivari bound to the shared engine: sizes, names, scenarios, infos, state checks."""

from collections.abc import Collection
from typing import Any

import numpy as np

from envs.capivari import core, observation
from envs.capivari.determinize import determinize
from envs.capivari.endgame import (
    NO_VALUE,
    before_last_refill,
    endgame_values,
    is_solvable,
    new_refill_levels,
    new_solver_buffers,
    refill_values,
)
from envs.capivari.heuristic import action_values
from envs.capivari.rules import (
    AVAILABLE_TARGET,
    CARD_NAMES,
    LOC_AVAILABLE,
    LOC_DECK,
    LOC_DISCARD,
    LOC_IN_RIVER,
    LOC_RIVER_CARD,
    LOC_TUCKED,
    MAX_ROUNDS_CAP,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_HERD_CARDS,
    NUM_NUMBERS,
    NUM_PLAYERS,
    NUM_SEGMENTS,
    CapivariConfig,
    action_name,
    card_from_name,
)
from envs.capivari.search import utility
from envs.capivari.state_check import check_state
from envs.capivari.text import render_table
from envs.engine.checks import is_int
from envs.engine.contract import SearchHooks
from envs.engine.game import Game
from envs.engine.layout import ObsLayout

DECK_AFTER_DEAL = NUM_CARDS - NUM_SEGMENTS - AVAILABLE_TARGET  # 11: the most a deck ever holds
_OPTION_KEYS = ("river", "available", "deck", "capybaras", "oncas_in", "current", "round_wins")


class Capivari(Game):
    """Capivari: two players push capybaras down a three-segment river (seeds/capivari.md)."""

    rules_version = "capivari-1"
    config_cls = CapivariConfig
    max_actions = NUM_ACTIONS
    state_dtype = core.STATE_DTYPE
    reset_fn = staticmethod(core.reset)
    step_fn = staticmethod(core.step)
    observe_fn = staticmethod(observation.observe)
    observe_into_fn = staticmethod(observation.observe_into)
    legal_into_fn = staticmethod(core.legal_into)
    determinize_fn = staticmethod(determinize)
    pick_random_action_fn = staticmethod(core.pick_random_action)
    action_values_fn = staticmethod(action_values)
    search = SearchHooks(utility=utility)

    @property
    def num_players(self) -> int:
        return NUM_PLAYERS

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def obs_size(self) -> int:
        return self.observation_layout().size

    def observation_layout(self) -> ObsLayout:
        """This config's observation pieces (``observation.layout``)."""
        c = self.config
        return observation.layout(c.observe_margins, c.observe_unseen, c.observes_rows, c.observe_replies)

    def obs_bounds(self) -> tuple[float, float]:
        return (-1.0, 1.0)

    @property
    def candidate_actions(self) -> int | None:
        """With the ``afterstates`` rows (``observe_afterstates`` or ``observe_replies``): every action is one the
        rows describe (row k: the k-th legal action)."""
        return NUM_ACTIONS if self.config.observes_rows else None

    def new_state(self) -> np.ndarray:
        states = np.zeros(1, core.STATE_DTYPE)
        c = self.config
        states["num_players"] = NUM_PLAYERS
        states["first_player"] = c.first_player
        states["subtract_points"] = c.subtract_points
        states["wins_needed"] = c.wins_needed
        states["max_rounds"] = c.max_rounds
        states["observe_margins"] = c.observe_margins
        states["observe_unseen"] = c.observe_unseen
        states["observe_afterstates"] = c.observe_afterstates
        states["observe_replies"] = c.observe_replies
        states["current"] = -1
        return states

    def action_name(self, action: int) -> str:
        return action_name(int(action))

    def infos(self, rec: np.void, details: bool = False) -> list[dict[str, Any]]:
        """The match so far (seeds/capivari.md, "Infos"): fixed shapes, or with ``details`` the played rounds only."""
        played = int(rec["rounds_done"])
        winner = int(rec["winner"])
        if details:
            scores, wins = rec["round_scores"][:played].tolist(), rec["round_wins"].tolist()
            return [
                {"seat": p, "round_scores": scores, "round_wins": wins, "rounds_played": played, "winner": winner}
                for p in range(NUM_PLAYERS)
            ]
        scores = rec["round_scores"][: self.config.max_rounds]  # rows past rounds_played are 0
        return [
            {
                "seat": p,
                "round_scores": scores.astype(np.int64),  # each seat its own arrays
                "round_wins": rec["round_wins"].astype(np.int64),
                "rounds_played": played,
                "winner": winner,
            }
            for p in range(NUM_PLAYERS)
        ]

    higher_score_wins = True

    def final_scores(self, rec: np.void) -> list[float]:
        """Rounds won."""
        return [float(w) for w in rec["round_wins"][:NUM_PLAYERS]]

    def move_is_public(self, seat: int, action: int) -> bool:
        return True  # every card is taken face up

    def returns_range(self) -> tuple[float, float]:
        return (-1.0, 1.0)  # +1 / -1 to the match winner / loser, 0 each in a draw

    def returns_sum(self) -> float:
        return 0.0

    def rewards_at_end(self) -> bool:
        return True

    def max_game_length(self) -> int:
        return 14 * self.config.max_rounds  # 14 cards taken a round (11 from the deck, 3 of the 4 available)

    def solved_values(self, state: np.ndarray) -> np.ndarray | None:
        """Once the deck holds at most two cards nothing is hidden: the round's end solved exactly
        (``envs.capivari.endgame``: each move's match value, later rounds counted as fair coins)."""
        if not is_solvable(state[0]):
            return None
        out = np.empty(self.num_actions, np.float64)
        endgame_values(state, *self._solver_work(state), out)
        return np.where(out > NO_VALUE, out, -np.inf)

    def refill_values(self, state: np.ndarray) -> np.ndarray | None:
        """In the three turns before the round's last refill (a deck of its seen top and four unseen cards): each
        move's exact expected worth, the refill's 12 outcomes averaged and exact play after it
        (``envs.capivari.endgame.refill_values``); None elsewhere. It reads which cards are unseen, not their order."""
        if not before_last_refill(state[0]):
            return None
        levels = self.__dict__.get("_refill_levels")
        if levels is None or levels.dtype != state.dtype:
            levels = self.__dict__["_refill_levels"] = new_refill_levels(state)
        out = np.empty(self.num_actions, np.float64)
        refill_values(state, levels, *self._solver_work(state), out)
        return np.where(out > NO_VALUE, out, -np.inf)

    def _solver_work(self, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The solver's work arrays for records like ``state``'s, made once per layout and kept on the game."""
        buffers = self.__dict__.get("_solver_buffers")
        if buffers is None or buffers[0].dtype != state.dtype:
            buffers = self.__dict__["_solver_buffers"] = new_solver_buffers(state, self.num_actions)
        return buffers

    def render_ansi(self, rec: np.void, seat: int | None) -> str:
        return render_table(rec, seat)

    has_rgb = True

    has_svg = True

    def render_svg(self, rec: np.void, seat: int | None, legal: Collection[str] = ()) -> str:
        from envs.capivari.svg import draw as draw_svg

        return draw_svg(rec, seat, legal)

    def render_rgb(self, rec: np.void, seat: int | None) -> np.ndarray:
        from envs.capivari.picture import draw  # matplotlib loads only when a picture is asked for

        return draw(rec, seat)

    # -- scenarios ---------------------------------------------------------------------------
    def apply_options(self, states: np.ndarray, options: dict[str, Any]) -> None:
        """Set up a position: see "Scenarios" in seeds/capivari.md for the keys."""
        unknown = sorted(set(options) - set(_OPTION_KEYS))
        if unknown:
            raise ValueError(f"unknown Capivari reset option(s) {unknown}; known: {list(_OPTION_KEYS)}")
        rec = states[0]
        seen: dict[int, str] = {}

        def cards(key: str, lo: int, hi: int) -> list[int]:
            names = options.get(key, [])
            if not isinstance(names, (list, tuple)) or not lo <= len(names) <= hi:
                raise ValueError(f"option {key!r} must be a list of {lo}..{hi} card names, got {names!r}")
            out = []
            for name in names:
                c = card_from_name(name)
                if c in seen:
                    raise ValueError(f"card {name!r} appears twice (in {seen[c]!r} and {key!r})")
                seen[c] = key
                out.append(c)
            return out

        river = cards("river", NUM_SEGMENTS, NUM_SEGMENTS)
        available = cards("available", 1, AVAILABLE_TARGET)
        deck = cards("deck", 0, NUM_CARDS)
        placed = self._capybaras(options.get("capybaras", []), seen)
        oncas_in = options.get("oncas_in", [])
        what = f"option 'oncas_in' must list segments 1..3 (ints), got {oncas_in!r}"
        if not isinstance(oncas_in, (list, tuple)):
            raise ValueError(what)
        oncas_in = [_int_in(g, 1, NUM_SEGMENTS, what) for g in oncas_in]
        if len(set(oncas_in)) != len(oncas_in):
            raise ValueError(f"option 'oncas_in' repeats a segment: {oncas_in!r}")
        current = None
        if "current" in options:
            cur = options["current"]
            current = _int_in(cur, 0, 1, f"option 'current' must be seat 0 or 1 (an int), got {cur!r}")
        wins = None
        if "round_wins" in options:
            wins = options["round_wins"]
            what = f"option 'round_wins' must be two small non-negative ints, got {wins!r}"
            if not isinstance(wins, (list, tuple)) or len(wins) != 2:
                raise ValueError(what)
            wins = [_int_in(w, 0, MAX_ROUNDS_CAP - 1, what) for w in wins]
            need = self.config.wins_needed
            if max(wins) >= need and wins[0] != wins[1]:
                raise ValueError(
                    f"option 'round_wins' {wins}: the match is already decided ({need} round wins needed, "
                    "and more than the other)"
                )

        rec["loc"][:] = LOC_DISCARD
        rec["river_card"][:] = river
        rec["loc"][river] = LOC_RIVER_CARD
        rec["loc"][available] = LOC_AVAILABLE
        rec["loc"][deck] = LOC_DECK
        rec["deck"][:] = 0
        rec["deck"][: len(deck)] = deck
        rec["deck_pos"] = 0
        rec["deck_len"] = len(deck)
        rec["seg_num"][:, :] = 0
        rec["seg_side"][:, :] = 0
        for seg, card, side in placed:
            rec["seg_num"][seg, card // NUM_NUMBERS] = card % NUM_NUMBERS + 1
            rec["seg_side"][seg, card // NUM_NUMBERS] = side
            rec["loc"][card] = LOC_IN_RIVER
        rec["onca_in"][:] = 0
        free_oncas = [c for c in range(NUM_HERD_CARDS, NUM_CARDS) if c not in seen]
        for g in oncas_in:
            rec["onca_in"][g - 1] = 1
            if free_oncas:  # the Capionça tucked there: one not named elsewhere
                rec["loc"][free_oncas.pop()] = LOC_TUCKED
        if current is not None:
            rec["current"] = current
            rec["round_starter"] = current
        if wins is not None:
            rec["round_wins"][:] = wins
        if len(available) == 1 and deck:
            # "If only 1 available card is left, reveal cards from the deck until 4 are available
            # or the deck is empty" (seeds/capivari.md, "End of turn"): a turn never starts with 1
            refill = deck[: AVAILABLE_TARGET - 1]
            rec["loc"][refill] = LOC_AVAILABLE
            rec["deck_pos"] = len(refill)
        core.sync_available(rec)
        mask = np.zeros(NUM_ACTIONS, np.int8)
        if core.legal_into(rec, mask) == 0:
            raise ValueError("this scenario leaves the player to act without a legal action")
        if len(available) == 1 and not deck:
            raise ValueError(
                "option 'available' names 1 card and option 'deck' is empty: the round is already over "
                "(it ends when 1 available card is left and the deck is empty); name 2..4 available cards, "
                "or deck cards to refill from"
            )
        to_play = [CARD_NAMES[c] for c in range(NUM_HERD_CARDS, NUM_CARDS) if c in available or c in deck]
        if len(to_play) > NUM_SEGMENTS - len(oncas_in) + 1:
            raise ValueError(
                f"option 'oncas_in' {oncas_in} leaves {NUM_SEGMENTS - len(oncas_in)} segment(s) for the Capionças "
                f"still to play ({to_play}): a turn could come with only Capionças available and nowhere to put "
                "them; tuck fewer, or leave a Capionça out of 'available' and 'deck'"
            )
        left = int(rec["deck_len"]) - int(rec["deck_pos"])
        if left > DECK_AFTER_DEAL:
            raise ValueError(
                f"option 'deck' leaves {left} cards in the deck; it holds at most {DECK_AFTER_DEAL} "
                f"({NUM_CARDS} cards less {NUM_SEGMENTS} in the river and {AVAILABLE_TARGET} available at the deal)"
            )
        self.validate_state(rec)

    @staticmethod
    def _capybaras(entries: Any, seen: dict[int, str]) -> list[tuple[int, int, int]]:
        if not isinstance(entries, (list, tuple)):
            raise ValueError(f"option 'capybaras' must be a list of [segment 1..3, card, seat], got {entries!r}")
        out = []
        herds_at: set[tuple[int, int]] = set()
        for e in entries:
            if not isinstance(e, (list, tuple)) or len(e) != 3:
                raise ValueError(f"each capybara must be [segment 1..3, card name, seat 0|1], got {e!r}")
            seg, name, side = e
            what = f"option 'capybaras': capybara {e!r}: segment must be 1..3 and seat 0 or 1 (ints)"
            seg = _int_in(seg, 1, NUM_SEGMENTS, what)
            side = _int_in(side, 0, 1, what)
            card = card_from_name(name)
            if card >= NUM_HERD_CARDS:
                raise ValueError(f"capybara {e!r}: a Capionça is not a capybara in the river")
            if card in seen:
                raise ValueError(f"card {name!r} appears twice (in {seen[card]!r} and 'capybaras')")
            seen[card] = "capybaras"
            herd = card // NUM_NUMBERS
            if (seg, herd) in herds_at:
                raise ValueError(f"segment {seg} holds two capybaras of one herd ({name!r})")
            herds_at.add((seg, herd))
            out.append((seg - 1, card, side))
        return out

    # -- state checks ------------------------------------------------------------------------
    def validate_state(self, rec: np.void) -> None:
        """Every field in range for its phase, the cards and the turn consistent, a move for a live seat."""
        super().validate_state(rec)
        check_state(self.config, rec)


def _int_in(value: Any, lo: int, hi: int, what: str) -> int:
    """``value`` as an int in [lo, hi]: Python and numpy integers only (no bools, no floats); else ``what``."""
    if not is_int(value) or not lo <= value <= hi:
        raise ValueError(what)
    return int(value)


__all__ = ["Capivari", "CARD_NAMES"]
