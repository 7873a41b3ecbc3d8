"""Dorfromantik: The Duel bound to the shared engine: sizes, names, scenarios, infos, state checks."""

from collections.abc import Collection
from typing import Any

import numpy as np

from envs.dorfromantik_duel import rules
from envs.dorfromantik_duel.determinize import determinize
from envs.dorfromantik_duel.heuristic import action_values
from envs.dorfromantik_duel.observation import layout, observe, observe_into
from envs.dorfromantik_duel.placement import legal_into, pick_random_action
from envs.dorfromantik_duel.rules import CARD_KINDS, CARD_LANDSCAPES, PHASE_NAMES, POI_NAMES, DorfromantikDuelConfig
from envs.dorfromantik_duel.scenario import apply_scenario
from envs.dorfromantik_duel.score_pad import score_pads
from envs.dorfromantik_duel.search import SEARCH_HOOKS
from envs.dorfromantik_duel.setup import reset
from envs.dorfromantik_duel.state import STATE_DTYPE
from envs.dorfromantik_duel.state import state_dtype as record_dtype
from envs.dorfromantik_duel.state_check import SWITCH_FIELDS, check_state
from envs.dorfromantik_duel.text import render_table
from envs.dorfromantik_duel.tiles import TASK_TYPES, TILE_NAMES
from envs.dorfromantik_duel.turn import step
from envs.engine.game import Game
from envs.engine.layout import ObsLayout

POI_ROWS = ("special tile", "cameras", "hearts")


def module_details(rec: np.void, p: int) -> dict[str, Any]:
    """What makes up seat p's module rows: each task card, each point of interest."""
    out: dict[str, Any] = {}
    if rec["module_task_cards"]:
        out["task cards"] = {
            land: {
                "card": CARD_KINDS[int(rec["cards"][k])],
                "closed territories 2+": int(rec["closed2"][p, k]),
                "points": int(rec["card_points"][p, k]),
            }
            for k, land in enumerate(CARD_LANDSCAPES)
        }
    if rec["module_poi"]:
        taken = [POI_NAMES[i] for i in range(len(POI_NAMES) - 1) if rec["poi_taken"][p, i]]
        out["points of interest"] = {
            "taken": taken,
            "due": int(rec["poi_due"][p]),
            "hearts left": int(rec["hearts_left"][p]),
            "cameras": int(rec["cameras"][p]),
            "cameras left": int(rec["cameras_left"]),
            "points": {row: int(v) for row, v in zip(POI_ROWS, rec["poi_points"][p], strict=True)},
        }
    return out


def _fixed_infos(rec: np.void) -> list[dict[str, Any]]:
    """Both seats' infos of fixed keys and shapes: ids where the details have names (-1: none)."""
    tile = int(rec["tile"])
    marked = tile >= 0 and rec["mk_type"] >= 0
    over = bool(rec["done"])
    pads = [list(pad.values()) for pad in score_pads(rec)]  # in PAD_ROWS order
    common = {
        "turn": int(rec["turn"]),
        "tile": tile,
        "marker_type": int(rec["mk_type"]) if marked else -1,
        "marker_value": int(rec["mk_value"]) if marked else 0,
        "phase": -1 if over else int(rec["phase"]),
        "winner": int(rec["winner"]) if over else -1,
    }
    return [
        dict(
            common,
            seat=p,
            open_markers=int(rec["open_markers"][p]),
            score=np.asarray(pads[p], np.int64),
            total=pads[p][-1],
            opponent_total=pads[1 - p][-1],
        )
        for p in range(rules.NUM_PLAYERS)
    ]


class DorfromantikDuel(Game):
    """Dorfromantik: The Duel, base game: both players place the same hex tile each turn."""

    rules_version = "dorfromantik-duel-1"
    config_cls = DorfromantikDuelConfig
    max_actions = rules.num_actions(rules.MAX_BOARD_RADIUS, True)  # the largest board, Module 2 on
    state_dtype = STATE_DTYPE  # the default radius's layout
    reset_fn = staticmethod(reset)
    step_fn = staticmethod(step)
    observe_fn = staticmethod(observe)
    observe_into_fn = staticmethod(observe_into)
    legal_into_fn = staticmethod(legal_into)
    determinize_fn = staticmethod(determinize)
    pick_random_action_fn = staticmethod(pick_random_action)
    action_values_fn = staticmethod(action_values)
    search = SEARCH_HOOKS

    @property
    def radius(self) -> int:
        return self.config.board_radius

    @property
    def num_players(self) -> int:
        return rules.NUM_PLAYERS

    @property
    def num_actions(self) -> int:
        return rules.num_actions(self.radius, self.config.module_points_of_interest)

    @property
    def obs_size(self) -> int:
        return self.observation_layout().size

    def observation_layout(self) -> ObsLayout:
        """This config's observation pieces (``observation.layout``, declared once there)."""
        c = self.config
        return layout(
            self.radius,
            c.module_task_cards,
            c.module_points_of_interest,
            c.placement_prior,
            c.placement_candidates,
            c.observe_boards,
        )

    def obs_bounds(self) -> tuple[float, float]:
        """[0, 1]; the ``placement_candidates`` rows hold changes, down to -1."""
        return (-1.0 if self.config.placement_candidates else 0.0, 1.0)

    @property
    def candidate_actions(self) -> int:
        """The leading actions (the placements) whose legal ones the ``placement_candidates`` rows describe."""
        return rules.num_cells(self.radius) * rules.NUM_ROT

    def new_state(self) -> np.ndarray:
        states = np.zeros(1, record_dtype(self.radius))
        states["num_players"] = rules.NUM_PLAYERS
        states["radius"] = self.radius
        for field, name in SWITCH_FIELDS:
            states[field] = getattr(self.config, name)
        states["current"] = -1
        return states

    # names -----------------------------------------------------------------------------------
    def action_name(self, action: int) -> str:
        return rules.action_name(self.radius, int(action), self.config.module_points_of_interest)

    def action_from_name(self, name: str) -> int:
        return rules.action_from_name(self.radius, name, self.config.module_points_of_interest)

    # scenarios, infos, text, checks ------------------------------------------------------------
    def apply_options(self, states: np.ndarray, options: dict[str, Any]) -> None:
        """Set up a position: see "Scenarios" in seeds/dorfromantik_duel.md for the keys."""
        apply_scenario(states[0], options)
        self.validate_state(states[0])  # the same checks as a deserialized state: nothing unchecked runs

    def infos(self, rec: np.void, details: bool = False) -> list[dict[str, Any]]:
        """The turn, its tile and marker, and the score pads (seeds/dorfromantik_duel.md, "Infos"): numbers
        of fixed shapes, or with ``details`` names, the pad as a dict and each module's parts."""
        if not details:
            return _fixed_infos(rec)
        tile = int(rec["tile"])
        marker = None
        if tile >= 0 and rec["mk_type"] >= 0:
            marker = {"type": TASK_TYPES[int(rec["mk_type"])], "value": int(rec["mk_value"])}
        over = bool(rec["done"])
        turn, pads, open_markers = int(rec["turn"]), score_pads(rec), rec["open_markers"].tolist()
        out = []
        for p in range(rules.NUM_PLAYERS):
            info: dict[str, Any] = {
                "turn": turn,
                "tile": TILE_NAMES[tile] if tile >= 0 else None,
                "marker": marker,
                "open_markers": open_markers[p],
                "score": pads[p],
                "opponent_total": pads[1 - p]["total"],
            }
            if rec["module_task_cards"] or rec["module_poi"]:
                info["modules"] = module_details(rec, p)
            if rec["module_poi"] and not over:
                info["phase"] = PHASE_NAMES[int(rec["phase"])]
            if over:
                info["winner"] = int(rec["winner"])
            out.append(info)
        return out

    higher_score_wins = True

    def final_scores(self, rec: np.void) -> list[float]:
        """The score pad's total."""
        return [float(t) for t in rec["total"][: rules.NUM_PLAYERS]]

    def move_is_public(self, seat: int, action: int) -> bool:
        return seat == 1  # seat 1's choice ends the simultaneous decision: both choices show

    def returns_range(self) -> tuple[float, float]:
        return (-1.0, 1.0)  # +1 / -1 / 0 at the end

    def returns_sum(self) -> float:
        return 0.0

    def rewards_at_end(self) -> bool:
        return True

    def render_ansi(self, rec: np.void, seat: int | None) -> str:
        return render_table(rec, seat)

    has_rgb = True

    has_svg = True

    def render_svg(self, rec: np.void, seat: int | None, legal: Collection[str] = ()) -> str:
        from envs.dorfromantik_duel.svg import draw as draw_svg

        return draw_svg(rec, seat, legal)

    def render_rgb(self, rec: np.void, seat: int | None) -> np.ndarray:
        from envs.dorfromantik_duel.picture import draw  # matplotlib loads only when a picture is asked for

        return draw(rec, seat)

    def validate_state(self, rec: np.void) -> None:
        super().validate_state(rec)
        check_state(rec, self.config)


__all__ = ["DorfromantikDuel"]
