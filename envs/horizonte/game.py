"""Horizonte bound to the shared engine: sizes, names, scenarios, infos, state checks."""

from typing import Any

import numpy as np

from envs.engine.game import Game
from envs.horizonte import core
from envs.horizonte.determinize import determinize
from envs.horizonte.render import render_table
from envs.horizonte.rules import (
    CARD_SUIT,
    NUM_CARDS,
    PHASE_OVER,
    PHASE_PLAY,
    PHASE_PREDICT,
    TRICK_DOG,
    TRICK_DRAGON,
    HorizonteConfig,
    action_name,
    card_from_name,
    num_actions,
)

_OPTION_KEYS = ("hands", "dragon", "dog", "predictions", "round", "scores")
_MAX_SCORE = 1_000_000


def turn_sequence(n: int, dragon: int, dog: int) -> list[tuple[int, int]]:
    """(seat, trick) of every play in one cycle of tricks, in order (the interruption order).

    Separate mode: the Dragon trick from its holder up to the Dog holder, the whole Dog
    trick, then the rest of the Dragon trick from the Dog holder. Merged: one trick.
    """
    if dragon == dog:
        return [((dragon + i) % n, TRICK_DRAGON) for i in range(n)]
    before = (dog - dragon) % n
    seq = [((dragon + i) % n, TRICK_DRAGON) for i in range(before)]
    seq += [((dog + i) % n, TRICK_DOG) for i in range(n)]
    seq += [((dog + i) % n, TRICK_DRAGON) for i in range(n - before)]
    return seq


def _seat(value: Any, n: int, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < n:
        raise ValueError(f"option {key!r} must be a seat 0..{n - 1}, got {value!r}")
    return int(value)


def _ints(value: Any, n: int, lo: int, hi: int, key: str) -> list[int]:
    ok = isinstance(value, (list, tuple)) and len(value) == n
    if ok:
        ok = all(not isinstance(v, bool) and isinstance(v, (int, np.integer)) and lo <= v <= hi for v in value)
    if not ok:
        raise ValueError(f"option {key!r} must be a list of {n} ints in [{lo}, {hi}], got {value!r}")
    return [int(v) for v in value]


class Horizonte(Game):
    """Horizonte: simultaneous Dragon and Dog tricks and a secret prediction (seeds/horizonte.md)."""

    name = "horizonte_v0"
    rules_version = "horizonte-1"
    config_cls = HorizonteConfig
    reset_fn = staticmethod(core.reset)
    step_fn = staticmethod(core.step)
    observe_fn = staticmethod(core.observe)
    observe_into_fn = staticmethod(core.observe_into)
    legal_into_fn = staticmethod(core.legal_into)
    determinize_fn = staticmethod(determinize)  # core.determinize, made independent of the hidden deal

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def num_actions(self) -> int:
        return num_actions(self.config.max_prediction)

    @property
    def obs_size(self) -> int:
        c = self.config
        return int(core.obs_size(c.num_players, c.max_prediction, c.rounds))

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

    def infos(self, rec: np.void) -> list[dict[str, Any]]:
        """Each seat's finished rounds (prediction, tricks won, pairs, rest, points) and the totals."""
        n = self.num_players
        done_rounds = int(rec["rounds_done"])
        scores = rec["score"][:n].tolist()
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

    def render_ansi(self, rec: np.void, seat: int | None) -> str:
        return render_table(rec, seat)

    has_rgb = True

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
            if isinstance(rnd, bool) or not isinstance(rnd, (int, np.integer)) or not 1 <= rnd <= c.rounds:
                raise ValueError(f"option 'round' must be 1..{c.rounds}, got {rnd!r}")
            rec["rounds_done"] = int(rnd) - 1
        if "scores" in options:
            rec["score"][:n] = _ints(options["scores"], n, 0, _MAX_SCORE, "scores")
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
        """Everything compiled code indexes with, and the turn order, must be consistent."""
        super().validate_state(rec)
        c = self.config
        n = c.num_players

        def bad(msg: str) -> None:
            raise ValueError(f"invalid Horizonte state: {msg}")

        config = (c.max_prediction, c.points_per_unit, c.rounds, int(c.reward == "points"), c.hand_size)
        got = tuple(
            int(rec[k]) for k in ("max_prediction", "points_per_unit", "num_rounds", "reward_points", "hand_size")
        )
        in_deck = np.ones(NUM_CARDS, np.uint8)
        in_deck[list(c.removed_cards)] = 0
        if got != config or not np.array_equal(rec["in_deck"], in_deck):
            bad(f"config fields {got} or the deck differ from this env's config")
        phase, rnd = int(rec["phase"]), int(rec["rounds_done"])
        if phase not in (PHASE_PREDICT, PHASE_PLAY, PHASE_OVER) or (phase == PHASE_OVER) != bool(rec["done"]):
            bad(f"phase {phase} with done={int(rec['done'])}")
        if not 0 <= rnd <= c.rounds or (rnd == c.rounds) != (phase == PHASE_OVER):
            bad(f"round {rnd} with phase {phase}")
        dragon, dog = int(rec["dragon"]), int(rec["dog"])
        if not (0 <= dragon < n and 0 <= dog < n):
            bad(f"initiative holders {dragon}, {dog}")
        hand, dealt, played = (np.asarray(rec[k], np.int64) for k in ("hand", "dealt", "played"))
        for name, arr in (("hand", hand), ("dealt", dealt), ("played", played)):
            if arr.min() < 0 or arr.max() > 1 or arr[n:].any():
                bad(f"field {name!r} must be 0/1 for the {n} seats")
        if (hand & played).any() or not np.array_equal(hand | played, dealt):
            bad("hands and played cards do not add up to the dealt hands")
        if dealt.sum(axis=0).max() > 1 or (dealt.sum(axis=0) > in_deck).any():
            bad("a card is dealt twice or is not in the deck")
        void = np.asarray(rec["void"], np.int64)
        if void.min() < 0 or void.max() > 1 or void[n:].any():
            bad("field 'void' must be 0/1 for the seats")
        if any(void[p, CARD_SUIT[c]] for p in range(n) for c in np.flatnonzero(hand[p])):
            bad("a seat marked void in a suit holds a card of it")
        sizes = dealt[:n].sum(axis=1)
        if phase != PHASE_OVER and (len(set(sizes.tolist())) != 1 or not 2 <= sizes[0] <= c.hand_size):
            bad(f"dealt hand sizes {sizes.tolist()}")
        if not np.array_equal(rec["hand_count"][:n], hand[:n].sum(axis=1)) or rec["hand_count"][n:].any():
            bad("hand_count does not match the hands")
        pred = rec["prediction"][:n].astype(np.int64)
        if pred.min() < -1 or pred.max() > c.max_prediction or int(rec["predicted"]) != int((pred >= 0).sum()):
            bad(f"predictions {pred.tolist()} / predicted {int(rec['predicted'])}")
        for key in ("dragon_tricks", "dog_tricks"):
            v = rec[key].astype(np.int64)
            if v.min() < 0 or v.max() > 4 * c.hand_size:
                bad(f"{key} {v.tolist()}")
        if rec["score"].min() < 0 or rec["score"].max() > _MAX_SCORE * 2:
            bad("scores out of range")
        lw, lc = rec["last_winner"].astype(np.int64), rec["last_card"].astype(np.int64)
        if lw.min() < -1 or lw.max() >= n or lc.min() < -1 or lc.max() >= NUM_CARDS:
            bad("last resolution out of range")
        if phase == PHASE_OVER:
            return
        counts = rec["trick_count"].astype(np.int64)
        if phase == PHASE_PREDICT:
            if counts.any() or int(rec["current"]) != (dragon + int(rec["predicted"])) % n or rec["predicted"] >= n:
                bad("a prediction phase with cards in the tricks or out of turn")
            return
        if int(rec["predicted"]) != n:
            bad("playing before every prediction is made")
        self._check_tricks(rec, hand, counts, dragon, dog)

    @staticmethod
    def _check_tricks(rec: np.void, hand: np.ndarray, counts: np.ndarray, dragon: int, dog: int) -> None:
        n = int(rec["num_players"])
        seq = turn_sequence(n, dragon, dog)
        pos = int(counts.sum())
        if counts.min() < 0 or counts.max() >= n + (dragon != dog) or pos >= len(seq):
            raise ValueError(f"invalid Horizonte state: trick counts {counts.tolist()}")
        done = seq[:pos]
        for t in (TRICK_DRAGON, TRICK_DOG):
            seats = [p for p, tt in done if tt == t]
            k = len(seats)
            cards = rec["trick_card"][t, :k].astype(np.int64)
            if k != counts[t] or rec["trick_seat"][t, :k].tolist() != seats:
                raise ValueError("invalid Horizonte state: the tricks do not follow the turn order")
            if k and (cards.min() < 0 or cards.max() >= NUM_CARDS or not all(rec["played"][seats, cards])):
                raise ValueError("invalid Horizonte state: a trick holds a card its seat has not played")
        seat, trick = seq[pos]
        if int(rec["current"]) != seat or int(rec["active"]) != trick:
            raise ValueError(f"invalid Horizonte state: seat {int(rec['current'])} to act, the turn order says {seat}")
        owed = np.zeros(n, np.int64)
        for p, _ in seq[pos:]:
            owed[p] += 1
        if (hand[:n].sum(axis=1) < owed).any():
            raise ValueError("invalid Horizonte state: a seat has too few cards to finish the tricks")


__all__ = ["Horizonte", "turn_sequence"]
