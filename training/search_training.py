"""Training from search (``tabuleiro train GAME --algo exit``): expert iteration with the compiled guided search.

Anthony et al. 2017 (expert iteration) and Silver et al. 2018 (AlphaZero): the apprentice (``SearchNet``, a masked
MLP or a candidate head) guides the expert (``agents.guided``: determinized PUCT search over its priors and value)
in self-play (``training.search_selfplay``); the network then learns the search's root visit distributions
(cross-entropy), or with ``policy_target="best"`` its move, and the games' outcomes (squared error) from a replay
buffer. One iteration: ``moves_per_iteration`` moves in each of
``games`` self-play games, then ``updates_per_iteration`` minibatches, then ``eval_steps`` steps of the network
alone (argmax) against random and the heuristic in ``GameVectorEnv`` (the curves' win rates).

The run folder is PPO's (``training.loop``): ``checkpoint/`` (``training.search_checkpoint``), ``policy.npz``
beside it, ``policy-average.npz`` with ``average_after_minutes`` (the mean of the policy files saved since),
``progress.jsonl`` (PPO's row keys, so ``format_progress`` and ``tabuleiro learning --from-run`` read it),
``train.lock``; the budget is the total across resumes; Ctrl-C or SIGTERM saves a checkpoint.
"""

import dataclasses
import json
import math
import os
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

import envs
from agents.compiled_policy import POLICY_FILE, CompiledPolicy, game_config_of, load_policy, observer_for, read_arrays
from agents.policy_average import AVERAGE_FILE, average_beside
from envs.engine.game import Game
from envs.files import append_line, write_atomic
from training import search_checkpoint
from training.loop import CHECKPOINT, PROGRESS, _terminate_as_interrupt, format_progress, run_lock, trim_progress
from training.search_net import SearchNet, candidate_layout, file_layout, load_net_arrays, net_arrays
from training.search_selfplay import EXPERTS, Played, SelfPlay
from training.search_targets import POLICY_TARGETS, ReplayBuffer, candidate_targets
from training.vector_env import GameVectorEnv, quiet_threading_layer

ALGO = "exit"  # expert iteration


@dataclass(frozen=True)
class SearchSettings:
    """The knobs of training from search (``tabuleiro train --algo exit --set KEY=VALUE``)."""

    game: str
    game_config: dict = dataclasses.field(default_factory=dict)
    seed: int = 0
    hiddens: tuple[int, ...] = (256, 256)
    # an observation piece of (rows, features) scored by a candidate head, the network then choosing among the
    # rows (the Duel's placement_candidates; training.search_net); None: a plain masked MLP
    candidate_head: str | None = None
    candidate_hiddens: tuple[int, ...] = (64,)
    init_policy: str | None = None  # a policy file to start from (its layout replaces the above); None: from scratch
    # expert=solver: the policy file whose policy the network learns (a plain masked MLP or a candidate head; its
    # observation options may differ from the run's); None: init_policy
    teacher: str | None = None
    # expert=solver: also the positions the game solves in expectation before a refill (Capivari's refill_values)
    solver_before_refill: bool = False
    games: int = 32  # self-play games played side by side
    moves_per_iteration: int = 8  # moves in each game per iteration
    search_iterations: int = 64  # search iterations per move
    # who plays and sets the targets: guided search (by this network), ismcts, or the network alone (epsilon-greedy;
    # "solver": the teacher file's softmax, its worse moves' share given to the best where the game solves a position)
    expert: str = "guided"
    search_threads: int = 1  # searches run side by side in self-play (one a game at a time on each)
    # what the policy learns: the root visit distribution, "best": the expert's move, or "q": the outputs learn the
    # return that followed each move played (Deep Monte Carlo; the policy is their argmax), or "values": the outputs
    # learn IS-MCTS's mean utility of each root move (expert=ismcts; the policy is their argmax)
    policy_target: str = "visits"
    epsilon: float = 0.05  # the network's share of uniformly random moves where it plays
    network_share: float = 0.0  # searched decisions played by the network's argmax, the search still the target
    c_puct: float = 1.5
    value_weight: float = 0.5  # the network's share of a leaf's value in the search (the rest: a random playout)
    temperature_moves: int = 12  # a game's first decisions drawn from the visits; argmax after
    buffer_size: int = 20_000  # positions kept
    min_buffer: int = 512  # no update before the buffer holds this many
    batch_size: int = 256
    updates_per_iteration: int = 8
    lr: float = 1e-3
    weight_decay: float = 1e-4
    value_loss_weight: float = 1.0
    eval_games: int = 64  # games of the network alone (argmax) against random and the heuristic; 0: none
    eval_steps: int = 16  # steps of those games per iteration
    # keep OUT/policy-average.npz, the mean of the policy files saved after this many minutes of training; None: no mean
    average_after_minutes: float | None = None


# name -> (kind, low, high): every setting a --set may give, with its bounds
_BOUNDS: dict[str, tuple[type, float, float]] = {
    "games": (int, 1, 4096),
    "moves_per_iteration": (int, 1, 100_000),
    "search_iterations": (int, 1, 1_000_000),
    "search_threads": (int, 1, 256),
    "c_puct": (float, 0.0, 100.0),
    "value_weight": (float, 0.0, 1.0),
    "epsilon": (float, 0.0, 1.0),
    "network_share": (float, 0.0, 1.0),
    "temperature_moves": (int, 0, 1_000_000),
    "buffer_size": (int, 1, 10_000_000),
    "min_buffer": (int, 1, 10_000_000),
    "batch_size": (int, 1, 65_536),
    "updates_per_iteration": (int, 0, 100_000),
    "lr": (float, 1e-9, 1.0),
    "weight_decay": (float, 0.0, 1.0),
    "value_loss_weight": (float, 0.0, 1000.0),
    "eval_games": (int, 0, 4096),
    "eval_steps": (int, 1, 100_000),
    "average_after_minutes": (float, 0.0, 1e6),
}
OWN_OPTIONS = {"game": "the GAME argument", "game_config": "--config KEY=VALUE", "seed": "--seed"}


def checked_settings(game: str, game_config: dict[str, Any], seed: int, values: dict[str, Any]) -> SearchSettings:
    """``SearchSettings`` from ``--set`` values, each checked (a known name, a value of the right kind and range,
    ``hiddens`` and ``candidate_hiddens`` lists of 1-8 widths in 1..4096, ``candidate_head`` a piece of candidate
    rows, ``init_policy`` a loadable policy file for this game and config, a plain MLP or a candidate head);
    ValueError naming the setting otherwise."""
    settable = sorted({f.name for f in dataclasses.fields(SearchSettings)} - set(OWN_OPTIONS))
    for key, value in values.items():
        if key in OWN_OPTIONS:
            raise ValueError(f"--set {key}: give it with {OWN_OPTIONS[key]}")
        if key not in settable:
            raise ValueError(f"--set: no setting {key!r} of training from search; settings: {', '.join(settable)}")
        if key in _BOUNDS:
            kind, lo, hi = _BOUNDS[key]
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if (
                not number
                or (kind is int and not isinstance(value, int))
                or not (math.isfinite(value) and lo <= value <= hi)
            ):
                raise ValueError(
                    f"--set {key}={value!r}: must be {'an int' if kind is int else 'a number'} in [{lo:g}, {hi:g}]"
                )
    widths = {key: values.get(key, getattr(SearchSettings, key)) for key in ("hiddens", "candidate_hiddens")}
    for key, hiddens in widths.items():
        if (
            not isinstance(hiddens, (list, tuple))
            or not 1 <= len(hiddens) <= 8
            or not all(isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= 4096 for h in hiddens)
        ):
            raise ValueError(f"--set {key}={hiddens!r}: must be a list of 1 to 8 layer widths in 1..4096")
    piece = values.get("candidate_head")
    if piece is not None and not isinstance(piece, str):
        raise ValueError(f"--set candidate_head={piece!r}: must be the name of an observation piece (a string)")
    expert = values.get("expert", SearchSettings.expert)
    if expert not in EXPERTS:
        raise ValueError(f"--set expert={expert!r}: must be one of {', '.join(EXPERTS)}")
    before_refill = values.get("solver_before_refill", False)
    if not isinstance(before_refill, bool):
        raise ValueError(f"--set solver_before_refill={before_refill!r}: must be true or false")
    if before_refill and expert != "solver":
        raise ValueError("--set solver_before_refill: only with --set expert=solver")
    target = values.get("policy_target", SearchSettings.policy_target)
    if target not in POLICY_TARGETS:
        raise ValueError(f"--set policy_target={target!r}: must be one of {', '.join(POLICY_TARGETS)}")
    if expert == "network" and target != "q":
        raise ValueError(
            f"--set expert=network with policy_target={target!r}: the network would learn its own moves; "
            "use policy_target=q (each move's output fitted to the return that followed it)"
        )
    if target == "values" and expert != "ismcts":
        raise ValueError(f"--set policy_target=values learns IS-MCTS's root means: needs expert=ismcts, not {expert!r}")
    if values.get("network_share", 0) and expert in ("network", "solver"):
        raise ValueError(f"--set network_share: the network already plays every move with expert={expert}")
    init = values.get("init_policy")
    teacher = values.get("teacher", init)
    if expert == "solver" and (teacher is None or target != "visits"):
        raise ValueError(
            "--set expert=solver learns the game's solved positions and a teacher's policy elsewhere: give the "
            "teacher with --set teacher=FILE (or --set init_policy=FILE, the run then starting from it) and keep "
            "policy_target=visits"
        )
    if values.get("teacher") is not None and expert != "solver":
        raise ValueError("--set teacher: only with --set expert=solver")
    if teacher is not None and not isinstance(teacher, str):
        raise ValueError(f"--set teacher={teacher!r}: must be the path of a policy file (a string)")
    if init is not None and not isinstance(init, str):
        raise ValueError(f"--set init_policy={init!r}: must be the path of a policy file (a string)")
    settings = SearchSettings(
        game=envs.game_name(game),
        game_config=dict(game_config),
        seed=seed,
        **{**values, **{key: tuple(w) for key, w in widths.items()}},
    )
    if settings.min_buffer > settings.buffer_size:
        raise ValueError(f"--set min_buffer={settings.min_buffer} exceeds buffer_size={settings.buffer_size}")
    game_obj = envs.make(settings.game, **settings.game_config).game
    if settings.candidate_head is not None:
        try:
            candidate_layout(game_obj, settings.candidate_head, settings.candidate_hiddens)
        except ValueError as exc:
            raise ValueError(f"--set candidate_head={settings.candidate_head!r}: {exc}") from None
    if game_obj.returns_range() is None:
        raise ValueError(f"training from search needs a game whose returns are bounded; {settings.game} gives no range")
    if envs.spec(settings.game).search is None:
        raise ValueError(f"{settings.game} has no search hooks: training from search needs them")
    if init is not None:
        arrays = read_arrays(Path(init).expanduser())
        policy = CompiledPolicy(arrays, repr(init))  # every check of a policy file
        if envs.game_name(policy.game) != settings.game or policy.info.game_config != game_config_of(game_obj):
            raise ValueError(
                f"--set init_policy={init!r} is a policy for {policy.game} with config {policy.info.game_config}, "
                f"not for {settings.game} with config {game_config_of(game_obj)}"
            )
        hiddens_file, candidates = file_layout(arrays, game_obj, repr(init))
        settings = dataclasses.replace(
            settings,
            hiddens=hiddens_file,
            candidate_head=candidates.piece if candidates is not None else None,
            candidate_hiddens=candidates.slice.hiddens if candidates is not None else settings.candidate_hiddens,
        )
    if expert == "solver":
        if type(game_obj).solved_values is Game.solved_values:
            raise ValueError(f"--set expert=solver: {settings.game} solves no position (Game.solved_values)")
        if settings.solver_before_refill and type(game_obj).refill_values is Game.refill_values:
            raise ValueError(f"--set solver_before_refill: {settings.game} solves nothing before a refill")
        taught = load_policy(Path(teacher).expanduser(), settings.game)  # every check of a policy file
        observer_for(taught, game_obj, repr(teacher))  # the same rules as the run's table
        settings = dataclasses.replace(settings, teacher=teacher)
    return settings


def settings_from_json(d: dict[str, Any]) -> SearchSettings:
    widths = {key: tuple(d[key]) for key in ("hiddens", "candidate_hiddens") if key in d}
    return SearchSettings(**{**d, **widths})


def network_of(s: SearchSettings, game: Any) -> SearchNet:
    """The settings' network for an engine ``Game``: a plain masked MLP, or a candidate head over
    ``s.candidate_head`` in the candidate action space."""
    if s.candidate_head is None:
        return SearchNet(game.obs_size, game.num_actions, s.hiddens)
    layout = candidate_layout(game, s.candidate_head, s.candidate_hiddens)
    return SearchNet(game.obs_size, layout.view.size, s.hiddens, layout)


class _Learner:
    """The network, its optimizer and the buffer; ``update`` runs the minibatches of one iteration."""

    def __init__(self, s: SearchSettings, game: Any) -> None:
        torch.manual_seed(s.seed)
        self.net = network_of(s, game)
        self.optimizer = torch.optim.AdamW(self.net.parameters(), lr=s.lr, weight_decay=s.weight_decay)
        self.buffer = ReplayBuffer(s.buffer_size, game.obs_size, self.net.num_actions)
        self.s = s

    def add(self, played: Played) -> None:
        """Self-play's positions into the buffer, in the network's action space."""
        mask, policy = played.mask, played.policy
        if self.net.candidates is not None:
            mask, policy = candidate_targets(self.net.candidates.view, mask, policy)
        self.buffer.add(played.obs, mask, policy, played.value)

    def update(self, rng: np.random.Generator) -> dict[str, float | None]:
        """The iteration's minibatches (none while the buffer is short of ``min_buffer``); mean losses (None without
        minibatches) and the learning rate."""
        s = self.s
        losses: dict[str, list[float]] = {"loss": [], "policy_loss": [], "vf_loss": [], "entropy": []}
        if self.buffer.size >= s.min_buffer:
            for _ in range(s.updates_per_iteration):
                obs, mask, target, value = (torch.from_numpy(a) for a in self.buffer.sample(s.batch_size, rng))
                logits, v = self.net(obs, mask.float())
                logp = torch.log_softmax(logits, dim=-1).clamp_min(-1e30)  # masked: finite, times a 0 target
                if s.policy_target == "q":  # the played move's output against the return that followed it
                    q = logits.gather(1, target.argmax(-1, keepdim=True)).squeeze(1)
                    policy_loss = ((q - value) ** 2).mean()
                elif s.policy_target == "values":  # each searched move's output against the search's mean
                    known = torch.isfinite(target) & (mask > 0)
                    error = torch.where(known, logits - torch.nan_to_num(target), 0.0)
                    policy_loss = (error**2).sum() / known.sum().clamp_min(1)
                else:
                    policy_loss = -(target * logp).sum(-1).mean()
                vf_loss = ((v - value) ** 2).mean()
                loss = policy_loss + s.value_loss_weight * vf_loss
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                entropy = -(logp.exp() * logp).sum(-1).mean()
                for key, x in zip(losses, (loss, policy_loss, vf_loss, entropy), strict=True):
                    losses[key].append(float(x.detach()))
        means = {k: (float(np.mean(v)) if v else None) for k, v in losses.items()}
        return means | {"lr": float(self.optimizer.param_groups[0]["lr"])}

    def policy(self, game: Any) -> CompiledPolicy:
        """The network as the compiled search reads it (non-finite weights refused: a diverged run stops)."""
        return CompiledPolicy(net_arrays(self.net, game), "<the network in training>")


class _Evaluation:
    """The network alone (argmax, compiled) against random and the heuristic, ``eval_steps`` steps an iteration."""

    def __init__(self, s: SearchSettings) -> None:
        self.env = GameVectorEnv(
            s.game,
            s.eval_games,
            seed=s.seed + 7_919,
            opponents={"random": 0.25, "heuristic": 0.75},
            candidate_actions=s.candidate_head,
            **s.game_config,
        )
        self.obs, _ = self.env.reset(seed=s.seed + 7_919)
        self.steps = s.eval_steps

    def run(self, policy: CompiledPolicy) -> dict[str, Any]:
        for _ in range(self.steps):
            logits, _ = policy.forward(self.obs["observations"], self.obs["action_mask"])
            self.obs, *_ = self.env.step(logits.argmax(axis=1))
        opponents = {}
        for kind, o in self.env.pop_stats()["opponents"].items():
            games = o["games"]
            opponents[kind] = o | ({"win_rate": o["wins"] / games, "mean_score": o["score"] / games} if games else {})
        return opponents


def train_from_search(
    settings: SearchSettings | None,
    out: str | Path,
    minutes: float | None = None,
    iterations: int | None = None,
    resume: str | Path | None = None,
    checkpoint_every: int = 10,
    echo: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Train until the budget is spent (or Ctrl-C / SIGTERM); returns the final checkpoint's metadata (with
    ``interrupted`` when stopped so). ``resume``: a run folder or its checkpoint, whose settings are reused."""
    if minutes is None and iterations is None:
        raise ValueError("give a budget: minutes or iterations")
    if (minutes is not None and not (isinstance(minutes, (int, float)) and math.isfinite(minutes) and minutes > 0)) or (
        iterations is not None and iterations < 1
    ):
        raise ValueError(f"the budget must be positive and finite, got minutes={minutes!r}, iterations={iterations!r}")
    if settings is None and resume is None:
        raise ValueError("give settings, or a run to resume")
    out = Path(out)
    if resume is None and (out / PROGRESS).is_file() and (out / PROGRESS).stat().st_size > 0:
        raise ValueError(f"{str(out)!r} already holds a training run: continue it with --resume, or give another --out")
    out.mkdir(parents=True, exist_ok=True)
    with run_lock(out):
        return _train(settings, out, minutes, iterations, resume, checkpoint_every, echo)


def _train(
    settings: SearchSettings | None,
    out: Path,
    minutes: float | None,
    iterations: int | None,
    resume: str | Path | None,
    checkpoint_every: int,
    echo: Callable[[str], None],
) -> dict[str, Any]:
    quiet_threading_layer()
    state = {"iteration": 0, "elapsed_s": 0.0, "env_steps": 0}
    ckpt = None
    if resume is not None:
        ckpt = search_checkpoint.find(Path(resume))
        meta = json.loads((ckpt / search_checkpoint.TRAIN_INFO).read_text())
        if meta.get("algo") != ALGO:
            raise ValueError(f"{str(resume)!r} was trained with --algo {meta.get('algo', 'ppo')}, not {ALGO}")
        loaded = settings_from_json(meta["settings"])
        if settings is not None and settings.game != loaded.game:
            raise ValueError(f"{str(resume)!r} trains {loaded.game}, not {settings.game}")
        settings = loaded
        state = {k: meta[k] for k in state}
    assert settings is not None
    game = envs.make(settings.game, **settings.game_config).game
    learner = _Learner(settings, game)
    if ckpt is not None:
        search_checkpoint.load(ckpt, learner.net, learner.optimizer, learner.buffer)
        trim_progress(out / PROGRESS, state["iteration"], echo)
        echo(f"resumed {settings.game} from {ckpt} at iteration {state['iteration']}")
    elif settings.init_policy is not None:
        path = Path(settings.init_policy).expanduser()
        load_net_arrays(learner.net, read_arrays(path), repr(str(path)))
    teacher = None  # the solver expert's policy where the game solves nothing: the file the run started from
    if settings.expert == "solver":
        path = settings.teacher if settings.teacher is not None else settings.init_policy
        teacher = load_policy(Path(path).expanduser(), settings.game)
    # a resumed run continues with fresh draws (seed shifted by the iterations done), still reproducible
    seed = settings.seed + 1_000_003 * state["iteration"]
    torch.manual_seed(seed)
    selfplay = SelfPlay(
        game,
        learner.policy(game),
        settings.games,
        settings.search_iterations,
        settings.c_puct,
        settings.value_weight,
        settings.temperature_moves,
        seed,
        settings.expert,
        settings.search_threads,
        settings.policy_target,
        settings.epsilon,
        settings.network_share,
        teacher,
        settings.solver_before_refill,
    )
    evaluation = _Evaluation(settings) if settings.eval_games > 0 else None
    rng = np.random.default_rng([settings.seed, state["iteration"], 0xE817])
    return _run(
        learner, selfplay, evaluation, game, settings, out, state, minutes, iterations, checkpoint_every, rng, echo
    )


def _run(
    learner: _Learner,
    selfplay: SelfPlay,
    evaluation: _Evaluation | None,
    game: Any,
    settings: SearchSettings,
    out: Path,
    state: dict[str, Any],
    minutes: float | None,
    iterations: int | None,
    checkpoint_every: int,
    rng: np.random.Generator,
    echo: Callable[[str], None],
) -> dict[str, Any]:
    budget_s = None if minutes is None else 60.0 * minutes
    last_s = 0.0
    saved_at = state["iteration"]

    def meta() -> dict[str, Any]:
        return {
            "algo": ALGO,
            "game": settings.game,
            "game_config": settings.game_config,
            "settings": asdict(settings),
        } | {k: state[k] for k in ("iteration", "elapsed_s", "env_steps")}

    def more() -> bool:
        if iterations is not None and state["iteration"] >= iterations:
            return False
        return budget_s is None or state["elapsed_s"] + last_s <= budget_s

    def save() -> None:
        ckpt = search_checkpoint.save(out, learner.net, learner.optimizer, learner.buffer, game, meta())
        write_atomic(out / POLICY_FILE, (ckpt / POLICY_FILE).read_bytes())  # the arena's policy:RUN
        average_beside(out / POLICY_FILE, settings.average_after_minutes, state["elapsed_s"], echo)

    if state["iteration"] == 0:
        (out / AVERAGE_FILE).unlink(missing_ok=True)  # a new run's mean holds only its own policies

    previous = _terminate_as_interrupt()
    interrupted = None
    try:
        log = os.open(out / PROGRESS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            while more():
                t0 = time.perf_counter()
                played = selfplay.play(settings.moves_per_iteration)
                learner.add(played)
                sample_s = time.perf_counter() - t0
                losses = learner.update(rng)
                policy = learner.policy(game)
                selfplay.set_policy(policy)
                opponents = evaluation.run(policy) if evaluation is not None else {}
                last_s = time.perf_counter() - t0
                state["iteration"] += 1
                state["elapsed_s"] += last_s
                state["env_steps"] += played.decisions
                row = _progress_row(state, last_s, sample_s, played, losses, opponents, learner.buffer)
                append_line(log, json.dumps(row))  # whole lines only, fsynced
                echo(format_progress(row) + f"  games {played.games}  buffer {learner.buffer.size}")
                if state["iteration"] - saved_at >= checkpoint_every:
                    save()
                    saved_at = state["iteration"]
        finally:
            os.close(log)
    except KeyboardInterrupt as exc:
        interrupted = "SIGTERM" if str(exc) == "SIGTERM" else "Ctrl-C"
        echo("interrupted: saving a checkpoint to resume from (tabuleiro train --resume)")
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if state["iteration"] > saved_at or search_checkpoint.newest(out) is None:
        save()
    echo(f"checkpoint: {out / CHECKPOINT}  ({state['iteration']} iterations, {state['elapsed_s'] / 60:.1f} min)")
    return meta() | ({"interrupted": interrupted} if interrupted else {})


def _progress_row(
    state: dict[str, Any],
    seconds: float,
    sample_s: float,
    played: Played,
    losses: dict[str, float | None],
    opponents: dict[str, Any],
    buffer: ReplayBuffer,
) -> dict[str, Any]:
    """PPO's progress row keys (``training.loop.progress_row``) with self-play's numbers: every decision is the
    learner's (``sample_s``: self-play's wall-clock time), ``opponents`` the network alone against each kind."""
    rate = played.decisions / seconds if seconds > 0 else 0.0
    return {
        "iteration": state["iteration"],
        "elapsed_s": round(state["elapsed_s"], 2),
        "iteration_s": round(seconds, 3),
        "sample_s": round(sample_s, 3),
        "learn_s": round(max(seconds - sample_s, 0.0), 3),
        "env_steps": played.decisions,
        "env_steps_lifetime": state["env_steps"],
        "steps_per_s": rate,
        "learner_decisions": played.decisions,
        "decisions": played.decisions,
        "learner_decisions_per_s": rate,
        "decisions_per_s": rate,
        "episodes": played.games,
        **losses,
        "opponents": opponents,
        "snapshots": [],
        "new_snapshot": None,
        "algo": ALGO,
        "searches": played.searches,
        "buffer": buffer.size,
        "positions": buffer.added,
        "mean_game_length": float(np.mean(played.lengths)) if played.lengths else None,
    }
