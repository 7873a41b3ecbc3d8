"""Horizonte bound to the shared engine: sizes, names, scenarios, infos, state checks."""

from collections.abc import Collection
from typing import Any

import numpy as np

from envs.engine.checks import is_int
from envs.engine.contract import SearchHooks
from envs.engine.game import Game
from envs.engine.layout import ObsLayout
from envs.horizonte import chance, core
from envs.horizonte.determinize import determinize
from envs.horizonte.heuristic import action_values
from envs.horizonte.observation import layout
from envs.horizonte.rules import (
    MAX_ACTIONS,
    PHASE_PLAY,
    PREDICT_BASE,
    TRICK_DRAGON,
    HorizonteConfig,
    action_name,
    card_from_name,
    num_actions,
)
from envs.horizonte.search import utility
from envs.horizonte.state_check import MAX_SCORE, check_state, turn_sequence
from envs.horizonte.text import render_table

_OPTION_KEYS = ("hands", "dragon", "dog", "predictions", "round", "scores")


def _seat(value: Any, n: int, key: str) -> int:
    if not is_int(value) or not 0 <= value < n:
        raise ValueError(f"option {key!r} must be a seat 0..{n - 1}, got {value!r}")
    return int(value)


def _ints(value: Any, n: int, lo: int, hi: int, key: str) -> list[int]:
    ok = isinstance(value, (list, tuple)) and len(value) == n
    if ok:
        ok = all(is_int(v) and lo <= v <= hi for v in value)
    if not ok:
        raise ValueError(f"option {key!r} must be a list of {n} ints in [{lo}, {hi}], got {value!r}")
    return [int(v) for v in value]


class Horizonte(Game):
    """Horizonte: simultaneous Dragon and Dog tricks and a secret prediction (seeds/horizonte.md)."""

    rules_version = "horizonte-1"
    max_actions = MAX_ACTIONS
    state_dtype = core.STATE_DTYPE
    config_cls = HorizonteConfig
    reset_fn = staticmethod(core.reset)
    step_fn = staticmethod(core.step)
    observe_fn = staticmethod(core.observe)
    observe_into_fn = staticmethod(core.observe_into)
    legal_into_fn = staticmethod(core.legal_into)
    determinize_fn = staticmethod(determinize)  # determinize.py: independent of the hidden deal
    action_values_fn = staticmethod(action_values)
    search = SearchHooks(utility=utility)

    # explicit chance (chance.py): the initiative and each deal as chance events, for OpenSpiel's
    # EXPLICIT_STOCHASTIC (envs.openspiel, explicit_chance=True); the functions above, the default path,
    # draw and deal inside reset_fn and step_fn as before. Sampled is OpenSpiel's default for Horizonte:
    # sampling algorithms (IS-MCTS, MCTS) then get a whole deal in one step, not one event per card.
    chance_reset_fn = staticmethod(chance.chance_reset)
    chance_outcomes_fn = staticmethod(chance.chance_outcomes)
    chance_step_fn = staticmethod(chance.chance_step)
    chance_observe_fn = staticmethod(chance.chance_observe)
    chance_move_fn = staticmethod(chance.chance_move)
    max_chance_outcomes = chance.MAX_CHANCE_OUTCOMES
    chance_explicit_by_default = False

    def max_chance_events(self) -> int:
        c = self.config
        return 1 + c.rounds * c.num_players * c.hand_size  # the initiative, then at most one event a card

    def chance_outcome_name(self, outcome: int) -> str:
        return chance.outcome_name(int(outcome))

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def num_actions(self) -> int:
        return num_actions(self.config.max_prediction)

    @property
    def obs_size(self) -> int:
        return self.observation_layout().size

    def observation_layout(self) -> ObsLayout:
        """This config's observation pieces (``envs.horizonte.observation.layout``)."""
        c = self.config
        return layout(c.num_players, c.max_prediction, c.rounds)

    def new_state(self) -> np.ndarray:
        states = np.zeros(1, core.STATE_DTYPE)
        c = self.config
        states["num_players"] = c.num_players
        states["max_prediction"] = c.max_prediction
        states["points_per_unit"] = c.points_per_unit
        states["num_rounds"] = c.rounds
        states["reward_points"] = c.reward == "points"
        states["hand_size"] = c.hand_size
        states["in_deck"][0, :] = 1
        states["in_deck"][0, list(c.removed_cards)] = 0
        states["current"] = -1
        states["done"] = 1
        return states

    def action_name(self, action: int) -> str:
        return action_name(int(action), self.config.max_prediction)

    def infos(self, rec: np.void, details: bool = False) -> list[dict[str, Any]]:
        """Each seat's finished rounds (prediction, tricks won, pairs, rest, points) and the totals
        (seeds/horizonte.md, "Rewards and infos"): per round arrays of fixed length, or with ``details`` a
        dict per finished round."""
        n = self.num_players
        done_rounds = int(rec["rounds_done"])
        scores = rec["score"][:n].tolist()
        if not details:
            return [self._fixed_info(rec, p, done_rounds, scores) for p in range(n)]
        out = []
        for p in range(n):
            rounds = []
            for r in range(done_rounds):
                dragon, dog = int(rec["hist_dragon"][r, p]), int(rec["hist_dog"][r, p])
                rounds.append(
                    {
                        "prediction": int(rec["hist_prediction"][r, p]),
                        "dragon_tricks": dragon,
                        "dog_tricks": dog,
                        "pairs": min(dragon, dog),
                        "rest": abs(dragon - dog),
                        "points": int(rec["hist_points"][r, p]),
                    }
                )
            info = {"seat": p, "rounds": rounds, "score": scores[p], "scores": scores}
            if rec["done"]:
                info["winner"] = scores[p] == min(scores)
            out.append(info)
        return out

    def _fixed_info(self, rec: np.void, p: int, done_rounds: int, scores: list[int]) -> dict[str, Any]:
        """Seat p's infos: one entry per round of the config (-1 prediction, 0 elsewhere: not played yet)."""
        rounds = self.config.rounds
        return {
            "seat": p,
            "rounds_played": done_rounds,
            "round_predictions": rec["hist_prediction"][:rounds, p].astype(np.int64),
            "round_dragon_tricks": rec["hist_dragon"][:rounds, p].astype(np.int64),
            "round_dog_tricks": rec["hist_dog"][:rounds, p].astype(np.int64),
            "round_points": rec["hist_points"][:rounds, p].astype(np.int64),
            "score": scores[p],
            "scores": np.asarray(scores, np.int64),
            "winner": bool(rec["done"]) and scores[p] == min(scores),
        }

    higher_score_wins = False  # penalty points: the lowest total wins

    def final_scores(self, rec: np.void) -> list[float]:
        """Penalty points."""
        return [float(x) for x in rec["score"][: self.num_players]]

    def move_is_public(self, seat: int, action: int) -> bool:
        return int(action) < PREDICT_BASE  # predictions stay secret until all are in

    def returns_range(self) -> tuple[float, float] | None:
        return (-1.0, 1.0) if self.config.reward == "rank" else None

    def returns_sum(self) -> float | None:
        return 0.0 if self.config.reward == "rank" else None

    def rewards_at_end(self) -> bool:
        return self.config.reward == "rank"

    def max_game_length(self) -> int:
        c = self.config
        return c.rounds * c.num_players * (c.hand_size + 1)  # a prediction and every card, each round

    def render_ansi(self, rec: np.void, seat: int | None) -> str:
        return render_table(rec, seat)

    has_rgb = True

    has_svg = True

    def render_svg(self, rec: np.void, seat: int | None, legal: Collection[str] = ()) -> str:
        from envs.horizonte.svg import draw as draw_svg

        return draw_svg(rec, seat, legal)

    def render_rgb(self, rec: np.void, seat: int | None) -> np.ndarray:
        from envs.horizonte.picture import draw  # matplotlib loads only when a picture is asked for

        return draw(rec, seat)

    # -- scenarios ---------------------------------------------------------------------------
    def apply_options(self, states: np.ndarray, options: dict[str, Any]) -> None:
        """Set up a position; the keys are documented under "Scenarios" in seeds/horizonte.md."""
        unknown = sorted(set(options) - set(_OPTION_KEYS))
        if unknown:
            raise ValueError(f"unknown Horizonte reset option(s) {unknown}; known: {list(_OPTION_KEYS)}")
        rec = states[0]
        c = self.config
        n = c.num_players
        if "hands" in options:
            self._set_hands(rec, options["hands"])
        if ("dragon" in options) != ("dog" in options):
            raise ValueError("options 'dragon' and 'dog' (the initiative holders) go together")
        if "dragon" in options:
            rec["dragon"] = _seat(options["dragon"], n, "dragon")
            rec["dog"] = _seat(options["dog"], n, "dog")
        if "round" in options:
            rnd = options["round"]
            if not is_int(rnd) or not 1 <= rnd <= c.rounds:
                raise ValueError(f"option 'round' must be 1..{c.rounds}, got {rnd!r}")
            rec["rounds_done"] = int(rnd) - 1
        if "scores" in options:
            rec["score"][:n] = _ints(options["scores"], n, 0, MAX_SCORE, "scores")
        rec["current"] = rec["dragon"]
        rec["active"] = TRICK_DRAGON
        if "predictions" in options:
            rec["prediction"][:n] = _ints(options["predictions"], n, 0, c.max_prediction, "predictions")
            rec["predicted"] = n
            rec["phase"] = PHASE_PLAY
        self.validate_state(rec)

    def _set_hands(self, rec: np.void, hands: Any) -> None:
        c = self.config
        n = c.num_players
        if not isinstance(hands, (list, tuple)) or len(hands) != n:
            raise ValueError(f"option 'hands' must be a list of {n} hands (lists of card names), got {hands!r}")
        seen: dict[int, int] = {}
        ids = []
        for p, hand in enumerate(hands):
            if not isinstance(hand, (list, tuple)):
                raise ValueError(f"option 'hands': seat {p}'s hand must be a list of card names, got {hand!r}")
            row = []
            for name in hand:
                card = card_from_name(name)
                if card in c.removed_cards:
                    raise ValueError(f"card {name!r} is not in the deck of this config (removed: {c.removed})")
                if card in seen:
                    raise ValueError(f"card {name!r} appears twice (seats {seen[card]} and {p})")
                seen[card] = p
                row.append(card)
            ids.append(row)
        sizes = {len(row) for row in ids}
        if len(sizes) != 1 or not 2 <= len(ids[0]) <= c.hand_size:
            raise ValueError(
                f"option 'hands' must give every seat the same number of cards, 2..{c.hand_size}; "
                f"got sizes {[len(row) for row in ids]}"
            )
        rec["hand"][:, :] = 0
        rec["played"][:, :] = 0
        for p, row in enumerate(ids):
            rec["hand"][p, row] = 1
        rec["hand_count"][:n] = len(ids[0])
        rec["dealt"][:, :] = rec["hand"]
        rec["void"][:, :] = 0

    # -- state checks ------------------------------------------------------------------------
    def validate_state(self, rec: np.void) -> None:
        """Every field in range for its phase (finished games too), the cards and turns consistent, a move
        for a live seat (envs/horizonte/state_check.py)."""
        super().validate_state(rec)
        check_state(self.config, rec)


__all__ = ["Horizonte", "turn_sequence"]
