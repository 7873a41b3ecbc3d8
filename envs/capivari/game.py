"""Capivari bound to the shared engine: sizes, names, scenarios, infos, state checks."""

from typing import Any

import numpy as np

from envs.capivari import core
from envs.capivari.determinize import determinize
from envs.capivari.render import render_table
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
from envs.engine.game import Game

_OPTION_KEYS = ("river", "available", "deck", "capybaras", "oncas_in", "current", "round_wins")


class Capivari(Game):
    """Capivari: two players push capybaras down a three-segment river (seeds/capivari.md)."""

    name = "capivari_v0"
    rules_version = "capivari-1"
    config_cls = CapivariConfig
    reset_fn = staticmethod(core.reset)
    step_fn = staticmethod(core.step)
    observe_fn = staticmethod(core.observe)
    observe_into_fn = staticmethod(core.observe_into)
    legal_into_fn = staticmethod(core.legal_into)
    determinize_fn = staticmethod(determinize)

    @property
    def num_players(self) -> int:
        return NUM_PLAYERS

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def obs_size(self) -> int:
        return core.OBS_SIZE

    def obs_bounds(self) -> tuple[float, float]:
        return (-1.0, 1.0)

    def new_state(self) -> np.ndarray:
        states = np.zeros(1, core.STATE_DTYPE)
        c = self.config
        states["num_players"] = NUM_PLAYERS
        states["first_player"] = c.first_player
        states["subtract_points"] = c.subtract_points
        states["wins_needed"] = c.wins_needed
        states["max_rounds"] = c.max_rounds
        states["current"] = -1
        return states

    def action_name(self, action: int) -> str:
        return action_name(int(action))

    def infos(self, rec: np.void) -> list[dict[str, Any]]:
        played = int(rec["rounds_done"])
        scores = rec["round_scores"][:played].tolist()
        wins = rec["round_wins"].tolist()
        winner = int(rec["winner"])
        return [
            {"seat": p, "round_scores": scores, "round_wins": wins, "rounds_played": played, "winner": winner}
            for p in range(NUM_PLAYERS)
        ]

    def render_ansi(self, rec: np.void, seat: int | None) -> str:
        return render_table(rec, seat)

    has_rgb = True

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
        if not isinstance(oncas_in, (list, tuple)) or any(g not in (1, 2, 3) for g in oncas_in):
            raise ValueError(f"option 'oncas_in' must list segments 1..3, got {oncas_in!r}")
        if len(set(oncas_in)) != len(oncas_in):
            raise ValueError(f"option 'oncas_in' repeats a segment: {oncas_in!r}")

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
        core.sync_available(rec)
        rec["onca_in"][:] = 0
        free_oncas = [c for c in range(NUM_HERD_CARDS, NUM_CARDS) if c not in seen]
        for g in oncas_in:
            rec["onca_in"][g - 1] = 1
            if free_oncas:
                rec["loc"][free_oncas.pop()] = LOC_TUCKED
        if "current" in options:
            cur = options["current"]
            if cur not in (0, 1) or isinstance(cur, bool):
                raise ValueError(f"option 'current' must be seat 0 or 1, got {cur!r}")
            rec["current"] = cur
            rec["round_starter"] = cur
        if "round_wins" in options:
            wins = options["round_wins"]
            ok = isinstance(wins, (list, tuple)) and len(wins) == 2
            if not ok or any(not isinstance(w, int) or not 0 <= w < MAX_ROUNDS_CAP for w in wins):
                raise ValueError(f"option 'round_wins' must be two small non-negative ints, got {wins!r}")
            rec["round_wins"][:] = wins
        mask = np.zeros(NUM_ACTIONS, np.int8)
        if core.legal_into(rec, mask) == 0:
            raise ValueError("this scenario leaves the player to act without a legal action")

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
            if seg not in (1, 2, 3) or side not in (0, 1) or isinstance(side, bool):
                raise ValueError(f"capybara {e!r}: segment must be 1..3 and seat 0 or 1")
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
        super().validate_state(rec)
        c = self.config
        checks = {
            "loc": (rec["loc"], 0, LOC_DISCARD),
            "river_card": (rec["river_card"], 0, NUM_CARDS - 1),
            "onca_in": (rec["onca_in"], 0, 1),
            "seg_num": (rec["seg_num"], 0, NUM_NUMBERS),
            "seg_side": (rec["seg_side"], 0, 1),
            "deck": (rec["deck"], 0, NUM_CARDS - 1),
            "deck_len": (rec["deck_len"], 0, NUM_CARDS),
            "deck_pos": (rec["deck_pos"], 0, int(rec["deck_len"])),
            "rounds_done": (rec["rounds_done"], 0, c.max_rounds),
            "round_wins": (rec["round_wins"], 0, MAX_ROUNDS_CAP),
            "round_starter": (rec["round_starter"], 0, 1),
            "winner": (rec["winner"], -1, 2),
        }
        for key, (values, lo, hi) in checks.items():
            arr = np.asarray(values)
            if arr.size and (arr.min() < lo or arr.max() > hi):
                raise ValueError(f"state field {key!r} out of range [{lo}, {hi}]")
        from_loc = sum(1 << i for i in range(NUM_CARDS) if rec["loc"][i] == LOC_AVAILABLE)
        if int(rec["avail"]) != from_loc:
            raise ValueError("state field 'avail' disagrees with 'loc'")
        expected = (c.first_player, c.subtract_points, c.wins_needed, c.max_rounds)
        got = tuple(int(rec[k]) for k in ("first_player", "subtract_points", "wins_needed", "max_rounds"))
        if got != expected:
            raise ValueError(f"state config fields {got} differ from the env's config {expected}")


__all__ = ["Capivari", "CARD_NAMES"]
