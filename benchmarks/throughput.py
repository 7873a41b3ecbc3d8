"""Our games' throughput beside OpenSpiel's and PettingZoo's, in one run (the command: `tabuleiro bench`).

Every figure is a median over ``repeats`` timed runs of about ``seconds`` each, in this
process. A "step" is one player decision (chance events are not counted).

- raw: the compiled random-rollout kernel (``BatchEnv.random_steps``), 1 thread and all
  cores, over several batch sizes
- batch: ``BatchEnv.step`` from Python with observations and masks every step, actions
  picked from the masks with numpy (a policy's view; one random key per action and step)
- aec: ``env()`` with its safety checks, the ``agent_iter()``/``last()``/``step()`` loop,
  a random legal action from the mask each turn
- peers: pyspiel ``oh_hell``, ``hearts``, ``hex`` (with and without the information-state
  tensor and legal-action mask read at every decision) and PettingZoo ``connect_four_v3``
  and ``tictactoe_v3`` through the same AEC loop as ours; Pgx ``hex``, ``connect_four``,
  ``kuhn_poker``, ``leduc_holdem`` (random play inside ``jax.jit``, observations included, all
  cores) at the batch sizes of our raw kernel (``benchmarks.pgx_peer``)
- through OpenSpiel: each of our games loaded in pyspiel through ``envs.openspiel`` and played
  exactly as the pyspiel peers are (``spiel_rate``), with and without tensors
"""

import importlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from tqdm import tqdm

import envs
from agents.ismcts import iterations_per_second
from benchmarks.pgx_peer import PEER_PGX, pgx_available, pgx_runner
from envs.batch import BatchEnv
from envs.files import save_figure

PEER_SPIEL = ("oh_hell", "hearts", "hex")
PEER_PETTINGZOO = ("connect_four_v3", "tictactoe_v3")
PGX_REFERENCE = {"dorfromantik_duel_v0": "hex", "kuhn_poker_v0": "kuhn_poker"}  # our game -> its Pgx peer
MAX_REPEATS = 100  # bounds of --repeats and --seconds (a figure takes at most 100 min)
MAX_SECONDS = 60.0


# -- timing ---------------------------------------------------------------------------------


def timed_rate(run: Callable[[], int], seconds: float, repeats: int) -> float:
    """Median over ``repeats`` of (units done / time) where ``run`` is called until ``seconds`` pass."""
    rates = []
    for _ in range(repeats):
        done = 0
        start = time.perf_counter()
        while True:
            done += run()
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        rates.append(done / elapsed)
    return statistics.median(rates)


# -- our loops ------------------------------------------------------------------------------


def raw_rates(game: str, threads: int, batch: int, seconds: float, repeats: int) -> tuple[float, float]:
    """(steps/s, games/s) of the compiled random rollout with ``batch`` games on ``threads`` threads."""
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        env = BatchEnv(game, batch, seed=0)
        env.reset()
        steps_per_call = max(20, 200_000 // batch)  # long calls: thread start-up and barriers amortized
        env.random_steps(steps_per_call, seed=1)  # compile and warm
        games = [0]
        calls = [0]

        def run() -> int:
            calls[0] += 1
            games[0] += env.random_steps(steps_per_call, seed=calls[0])
            return steps_per_call * batch

        steps = timed_rate(run, seconds, repeats)
        return steps, steps * games[0] / max(1, calls[0] * steps_per_call * batch)
    finally:
        numba.set_num_threads(previous)


def batch_api_rate(game: str, batch: int, seconds: float, repeats: int, threads: int | None = None) -> float:
    """Steps/s of BatchEnv.step from Python, observations and masks returned every step."""
    env = BatchEnv(game, batch, seed=0, threads=threads)
    _, masks, _ = env.reset()
    rng = np.random.default_rng(0)
    state = {"masks": masks}

    def run() -> int:
        for _ in range(10):
            # a uniformly random legal action in each game: the legal action with the highest random key; one key
            # per action, shared by the step's games, so picking is one pass over the masks (a key per game and
            # action cost more than the Duel's whole step: 6,535 actions x 256 games)
            keys = rng.random(state["masks"].shape[1], dtype=np.float32) + np.float32(1.0)
            _, state["masks"], _, _, _ = env.step((state["masks"] * keys).argmax(axis=1))
        return 10 * batch

    run()
    return timed_rate(run, seconds, repeats)


def aec_loop_rate(make_env: Callable[[], Any], seconds: float, repeats: int) -> float:
    """Steps/s of the usual PettingZoo AEC loop with a random legal action from the mask."""
    env = make_env()
    rng = np.random.default_rng(0)
    seed = [0]

    def run() -> int:
        seed[0] += 1
        env.reset(seed=seed[0])
        steps = 0
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                nz = np.flatnonzero(obs["action_mask"])
                action = nz[rng.integers(len(nz))]
                steps += 1
            env.step(action)
        return steps

    run()
    return timed_rate(run, seconds, repeats)


# -- peers ----------------------------------------------------------------------------------


def spiel_rate(name: str, tensors: bool, seconds: float, repeats: int) -> float:
    """Steps/s of random play in pyspiel; with ``tensors``, the state tensor and mask read at each decision."""
    import pyspiel  # optional: the peers extra

    game = pyspiel.load_game(name)
    use_info = game.get_type().provides_information_state_tensor
    rng = np.random.default_rng(0)

    def run() -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            if tensors:
                player = state.current_player()
                if use_info:
                    state.information_state_tensor(player)
                else:
                    state.observation_tensor(player)
                state.legal_actions_mask(player)
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
        return steps

    run()
    return timed_rate(run, seconds, repeats)


def pettingzoo_peer(name: str) -> Callable[[], Any]:
    """Constructor of a PettingZoo classic env (its default wrappers included)."""
    module = importlib.import_module(f"pettingzoo.classic.{name}")
    return module.env


def peers_available() -> tuple[bool, bool, str]:
    """Whether pyspiel and PettingZoo's classic games import, and why not."""
    why = []
    try:
        import pyspiel  # noqa: F401 - optional: the peers extra

        spiel = True
    except ImportError as exc:
        spiel = False
        why.append(f"OpenSpiel not installed ({exc}); install the 'peers' extra: pip install -e '.[peers]'")
    try:
        pettingzoo_peer("connect_four_v3")
        pz = True
    except Exception as exc:  # classic games need pygame
        pz = False
        why.append(f"PettingZoo classic games unavailable ({exc}); install the 'peers' extra")
    return spiel, pz, "; ".join(why)


# -- start-up and size ----------------------------------------------------------------------

_FIRST_STEP = (
    "import time; t = time.perf_counter(); import envs; e = envs.make({game!r}); e.reset(seed=0); "
    "e.step(e.legal_actions()[0]); print(time.perf_counter() - t)"
)


def start_times(game: str) -> tuple[float, float]:
    """(cold, warm) seconds from import to first step in a fresh process; cold has an empty numba cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        runs = []
        for _ in range(2):
            out = subprocess.run(
                [sys.executable, "-c", _FIRST_STEP.format(game=game)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            runs.append(float(out.stdout.strip().splitlines()[-1]))
    return runs[0], runs[1]


# -- the run ------------------------------------------------------------------------------


def run_bench(
    games: list[str] | None = None,
    quick: bool = False,
    repeats: int | None = None,
    seconds: float | None = None,
    peers: bool = True,
    startup: bool = True,
) -> dict:
    """Measure everything; returns the results as a dict (what ``--json`` writes)."""
    games = [envs.game_name(g) for g in games] if games else sorted(envs.GAMES)  # unknown names fail here
    repeats = repeats or (1 if quick else 5)
    seconds = seconds or (0.2 if quick else 1.0)
    if not 0 < seconds <= MAX_SECONDS or not 1 <= repeats <= MAX_REPEATS:  # NaN and infinities fail too
        raise ValueError(f"seconds must be in (0, {MAX_SECONDS:g}] and repeats in 1..{MAX_REPEATS}")
    cores = numba.config.NUMBA_NUM_THREADS
    sizes = [16, 256] if quick else [1, 16, 256, 4096]
    thread_counts = sorted({1, cores})
    spiel_ok, pz_ok, why = peers_available() if peers else (False, False, "peers skipped (--no-peers)")
    pgx_ok, pgx_why = pgx_available() if peers else (False, "")
    why = "; ".join(w for w in (why, pgx_why) if w)

    jobs: list[tuple[str, Callable[[], Any]]] = []
    results: dict[str, Any] = {
        "machine": {"cores": cores, "python": sys.version.split()[0], "numba": numba.__version__},
        "repeats": repeats,
        "seconds_per_repeat": seconds,
        "games": {},
        "peers": {},
        "pgx": {},
        "skipped": why,
    }
    for g in games:
        r = results["games"][g] = {
            "raw": {},
            "batch_api": {},
            "bytes_per_state": int(envs.make(g).game.new_state().dtype.itemsize),
        }
        for t in thread_counts:
            for n in sizes:
                jobs.append(
                    (
                        f"{g} raw {t}T x{n}",
                        _store(r["raw"], f"{t}x{n}", lambda g=g, t=t, n=n: raw_rates(g, t, n, seconds, repeats)),
                    )
                )
        for t, n in batch_api_sizes(thread_counts, quick):
            jobs.append(
                (
                    f"{g} batch API {t}T x{n}",
                    _store(r["batch_api"], f"{t}x{n}", lambda g=g, t=t, n=n: batch_api_rate(g, n, seconds, repeats, t)),
                )
            )
        jobs.append(
            (f"{g} AEC env()", _store(r, "aec", lambda g=g: aec_loop_rate(envs.game_module(g).env, seconds, repeats)))
        )
        if startup:
            jobs.append((f"{g} cold/warm start", _store(r, "start", lambda g=g: start_times(g))))
        jobs.append((f"{g} IS-MCTS", _store(r, "ismcts_iterations_per_s", lambda g=g: _ismcts_rate(g, seconds))))
    if spiel_ok:
        for name in PEER_SPIEL:
            for tensors in (False, True):
                key = f"pyspiel {name}" + (" +tensors" if tensors else "")
                jobs.append(
                    (key, _store(results["peers"], key, lambda n=name, x=tensors: spiel_rate(n, x, seconds, repeats)))
                )
    if spiel_ok:
        for g in games:
            for tensors in (False, True):
                key = f"{g} through OpenSpiel" + (" +tensors" if tensors else "")
                jobs.append(
                    (
                        key,
                        _store(r_adapter(results, g), key, lambda g=g, x=tensors: adapter_rate(g, x, seconds, repeats)),
                    )
                )
    if pz_ok:
        for name in PEER_PETTINGZOO:
            key = f"pettingzoo {name}"
            jobs.append(
                (key, _store(results["peers"], key, lambda n=name: aec_loop_rate(pettingzoo_peer(n), seconds, repeats)))
            )
    if pgx_ok:
        # --quick: only the Pgx peers of the games benched (each batch size is a JIT compile of several seconds)
        pgx_games = [PGX_REFERENCE[g] for g in games if g in PGX_REFERENCE] if quick else PEER_PGX
        for name in pgx_games:
            rates = results["pgx"][name] = {}
            for n in sizes:
                jobs.append(
                    (f"pgx {name} x{n}", _store(rates, str(n), lambda m=name, n=n: pgx_rate(m, n, seconds, repeats)))
                )
    bar = tqdm(jobs, desc="bench", unit="measure")
    for label, job in bar:
        bar.set_postfix_str(label)
        job()
    results["ratios"] = ratios(results)
    return results


def batch_api_sizes(thread_counts: list[int], quick: bool) -> list[tuple[int, int]]:
    """(threads, games) of the batch API figures: 256 games on each thread count, and 4096 on all cores."""
    sizes = [(t, 256) for t in thread_counts]
    return sizes if quick else sizes + [(thread_counts[-1], 4096)]


def r_adapter(results: dict, game: str) -> dict:
    """Where a game's figures through its OpenSpiel adapter go (``results["games"][game]["openspiel"]``)."""
    return results["games"][game].setdefault("openspiel", {})


def adapter_rate(game: str, tensors: bool, seconds: float, repeats: int) -> float:
    """Steps/s of random play of ``game`` through pyspiel (``envs.openspiel``), measured as ``spiel_rate``."""
    import envs.openspiel  # optional heavy: pyspiel (the peers extra); registers tabuleiro_<game>

    return spiel_rate(envs.openspiel.openspiel_name(game), tensors, seconds, repeats)


def pgx_rate(name: str, batch: int, seconds: float, repeats: int) -> float:
    """Steps/s of Pgx's ``name`` with ``batch`` games, random play and observations inside ``jax.jit``."""
    return timed_rate(pgx_runner(name, batch), seconds, repeats)


def _store(target: dict, key: str, measure: Callable[[], Any]) -> Callable[[], None]:
    def job() -> None:
        target[key] = measure()

    return job


def _ismcts_rate(game: str, seconds: float) -> float:
    return float(iterations_per_second(game, seconds))


def ratios(results: dict) -> dict[str, float]:
    """The target ratios (ours / peer) from one run's figures."""
    peers = results["peers"]
    out = {}
    for g, r in results["games"].items():
        raw1 = max((v[0] for k, v in r["raw"].items() if k.startswith("1x")), default=None)
        ref = "pyspiel hex" if g.startswith("dorfromantik") else "pyspiel oh_hell"
        if raw1 and ref in peers:
            out[f"{g} raw 1 thread / {ref}"] = raw1 / peers[ref]
        if "pettingzoo connect_four_v3" in peers:
            out[f"{g} AEC / pettingzoo connect_four_v3"] = r["aec"] / peers["pettingzoo connect_four_v3"]
        pgx_ref = PGX_REFERENCE.get(g)
        pgx = results.get("pgx", {}).get(pgx_ref, {})
        for key, rate in r.get("batch_api", {}).items():
            threads, n = key.split("x")
            if n in pgx and int(threads) > 1:
                out[f"{g} batch API {threads}T x{n} / pgx {pgx_ref} x{n}"] = rate / pgx[n]
        for key, (steps, _) in r["raw"].items():
            threads, n = key.split("x")
            if n == "4096" and n in pgx and int(threads) > 1:
                out[f"{g} raw {threads}T x{n} / pgx {pgx_ref} x{n}"] = steps / pgx[n]
    return out


# -- output ---------------------------------------------------------------------------------


def format_table(results: dict) -> str:
    """Every figure of a run as a text table, then the target ratios."""
    lines = [
        f"tabuleiro bench: median of {results['repeats']} repeats of ~{results['seconds_per_repeat']} s each; "
        f"{results['machine']['cores']} cores, Python {results['machine']['python']}, "
        f"numba {results['machine']['numba']}. A step is one player decision.",
        "",
        f"{'measure':<56}{'steps/s':>14}{'games/s':>12}",
    ]
    for g, r in results["games"].items():
        for key, (steps, games) in r["raw"].items():
            threads, batch = key.split("x")
            lines.append(f"{g + f' raw kernel, {threads} thread(s), {batch} games':<56}{steps:>14,.0f}{games:>12,.0f}")
        for key, rate in r["batch_api"].items():
            threads, batch = key.split("x")
            lines.append(f"{g + f' batch API from Python, {threads} thread(s), {batch} games':<56}{rate:>14,.0f}")
        lines.append(f"{g + ' AEC env() loop (obs+mask every turn)':<56}{r['aec']:>14,.0f}")
        if r.get("ismcts_iterations_per_s"):
            lines.append(f"{g + ' IS-MCTS iterations/s':<56}{r['ismcts_iterations_per_s']:>14,.0f}")
        if "start" in r:
            cold, warm = r["start"]
            lines.append(f"{g + ' start to first step: cold / warm (s)':<56}{cold:>14.2f}{warm:>12.2f}")
        for key, rate in r.get("openspiel", {}).items():
            lines.append(f"{key:<56}{rate:>14,.0f}")
        lines.append(f"{g + ' bytes per game state':<56}{r['bytes_per_state']:>14,}")
        lines.append("")
    for key, rate in results["peers"].items():
        lines.append(f"{key:<56}{rate:>14,.0f}")
    for name, rates in results.get("pgx", {}).items():
        for n, rate in rates.items():
            lines.append(f"{f'pgx {name}, all cores, {n} games (obs included)':<56}{rate:>14,.0f}")
    if results["skipped"]:
        lines.append(f"skipped: {results['skipped']}")
    if results["ratios"]:
        lines += ["", "ratios (ours / peer, same run):"]
        lines += [f"  {k:<70}{v:>8.1f}x" for k, v in results["ratios"].items()]
    return "\n".join(lines)


def plot(results: dict, path: str) -> None:
    """PNG: steps/s of every loop (log scale) beside the peers, and the raw kernel's scaling curve."""
    import matplotlib  # optional heavy: loaded only to draw

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # optional heavy: after the Agg backend is chosen

    labels, values, colours = [], [], []
    for g, r in results["games"].items():
        short = g.replace("_v0", "")
        raw1 = max(v[0] for k, v in r["raw"].items() if k.startswith("1x"))
        batch1 = r["batch_api"].get("1x256", 0.0)
        for label, v in ((f"{short} raw 1T", raw1), (f"{short} batch API 1T", batch1), (f"{short} AEC", r["aec"])):
            labels.append(label)
            values.append(v)
            colours.append("tab:blue")
    for key, rate in results["peers"].items():
        labels.append(key)
        values.append(rate)
        colours.append("tab:gray")
    for name, rates in results.get("pgx", {}).items():
        if rates:
            n = max(rates, key=int)
            labels.append(f"pgx {name} x{n}")
            values.append(rates[n])
            colours.append("tab:orange")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(15, 6), gridspec_kw={"width_ratios": [3, 2]})
    ax1.barh(labels, values, color=colours)
    ax1.set_xscale("log")
    ax1.invert_yaxis()
    ax1.set_xlabel("steps per second (log scale)")
    ax1.set_title("tabuleiro (blue) vs OpenSpiel / PettingZoo (grey) and Pgx (orange)")
    for g, r in results["games"].items():
        by_threads: dict[str, list[tuple[int, float]]] = {}
        for key, (steps, _) in r["raw"].items():
            t, n = key.split("x")
            by_threads.setdefault(t, []).append((int(n), steps))
        for t, points in sorted(by_threads.items()):
            points.sort()
            ax2.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=f"{g.replace('_v0', '')}, {t}T")
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel("games in the batch")
    ax2.set_ylabel("raw kernel steps per second")
    ax2.set_title("scaling of the compiled random rollout")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)  # whole or not at all
    plt.close(fig)
