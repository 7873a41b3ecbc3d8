"""The forged-state campaign as a script: many forgeries per family, in subprocesses that may crash.

    python -m tests.fuzz.campaign --states 100000 --boundscheck          # every game, 100k each
    python -m tests.fuzz.campaign --family horizonte --states 2000     # one family

Each game's ``--states`` are spread over its config families. Workers run in chunks in child
processes, so a crash (a segfault from memory corruption) is counted and the campaign goes on.
``--boundscheck`` sets ``NUMBA_BOUNDSCHECK=1`` in the children, with a numba cache of its own:
an out-of-bounds access then raises IndexError and is counted as a crash with its traceback.
"""

import argparse
import json
import os
import subprocess
import sys
import time
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from tqdm import tqdm


def _families() -> dict[str, tuple[str, dict]]:
    from tests.fuzz.forge import FAMILIES

    return FAMILIES


def worker(family: str, states: int, seed: int, progress: Path) -> None:
    """Run one chunk; print one JSON line of counts and defects; ``progress`` holds the state in hand."""
    from tests.fuzz.forge import campaign

    counts: Counter = Counter()
    defects = []
    for i, (what, outcome) in enumerate(campaign(family, states, seed)):
        progress.write_text(f"{i} {what}")
        counts[outcome.kind] += 1
        if outcome.defect and len(defects) < 20:
            defects.append({"family": family, "seed": seed, "index": i, "forged": what, **outcome.__dict__})
    print(json.dumps({"counts": counts, "defects": defects}))


def run_chunk(family: str, states: int, seed: int, env: dict, workdir: Path) -> dict:
    progress = workdir / f"progress-{family}-{seed}"
    cmd = [sys.executable, "-m", "tests.fuzz.campaign", "--worker", "--family", family]
    cmd += ["--states", str(states), "--seed", str(seed), "--progress", str(progress)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode == 0:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    last = progress.read_text() if progress.exists() else "before the first state"
    detail = f"exit {proc.returncode} at {last}: {proc.stderr.strip()[-2000:]}"
    return {"counts": {"crash": 1}, "defects": [{"family": family, "seed": seed, "kind": "crash", "detail": detail}]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", action="append", help="config family (default: all); repeatable")
    ap.add_argument("--states", type=int, default=1000, help="forged states per game (spread over its families)")
    ap.add_argument("--chunk", type=int, default=2000, help="forgeries per child process")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="child processes at once")
    ap.add_argument("--boundscheck", action="store_true", help="NUMBA_BOUNDSCHECK=1 with its own numba cache")
    ap.add_argument("--json", type=Path, help="write the counts and defects here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--progress", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    families = _families()
    if args.worker:
        worker(args.family[0], args.states, args.seed, args.progress)
        return 0
    chosen = args.family or list(families)
    unknown = sorted(set(chosen) - set(families))
    if unknown:
        ap.error(f"--family: unknown {unknown}; known: {sorted(families)}")
    if args.states < 1 or args.chunk < 1 or args.jobs < 1:
        ap.error("--states, --chunk and --jobs must be positive")
    per_game = Counter(families[f][0] for f in chosen)
    env = dict(os.environ)
    if args.boundscheck:
        env["NUMBA_BOUNDSCHECK"] = "1"
        base = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        env["NUMBA_CACHE_DIR"] = str(base / "tabuleiro" / "numba-boundscheck")
    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / f"tabuleiro-fuzz-{os.getpid()}"
    workdir.mkdir(parents=True, exist_ok=True)
    jobs = []
    for family in chosen:
        total = -(-args.states // per_game[families[family][0]])
        for k, start in enumerate(range(0, total, args.chunk)):
            jobs.append(
                (
                    family,
                    min(args.chunk, total - start),
                    args.seed * 1_000_003 + k * 7919 + zlib.crc32(family.encode()) % 997,
                )
            )
    by_family: dict[str, Counter] = {f: Counter() for f in chosen}
    defects: list[dict] = []
    began = time.time()
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_chunk, f, count, seed, env, workdir): f for f, count, seed in jobs}
        for future in tqdm(as_completed(futures), total=len(futures), desc="forged-state chunks", unit="chunk"):
            result = future.result()
            by_family[futures[future]].update(result["counts"])
            defects.extend(result["defects"])
    print(f"forged-state campaign: boundscheck={'on' if args.boundscheck else 'off'}, {time.time() - began:.0f} s")
    print(f"{'family':20s} {'forged':>8s} {'refused':>8s} {'played':>8s} {'defects':>8s}")
    for family, c in by_family.items():
        bad = sum(v for k, v in c.items() if k not in ("refused", "played"))
        print(f"{family:20s} {sum(c.values()):8d} {c['refused']:8d} {c['played']:8d} {bad:8d}")
    for d in defects[:30]:
        print(json.dumps(d)[:1500])
    if args.json:
        args.json.write_text(json.dumps({"families": by_family, "defects": defects}, indent=1))
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
