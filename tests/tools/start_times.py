"""Start times of a source tree: a fresh process's wall time to its first step, cold (an empty numba cache) and
warm (the median of repeats), per game and path; to compare two commits (say, before and after a refactor).

    python -m tests.tools.start_times --tree /path/to/checkout --label before --repeats 3 --out before.json

Paths: ``aec`` (``envs.make``, reset, one step), ``batch`` (``BatchEnv`` random steps), ``ismcts`` (one move of
50 iterations), ``vector`` (``GameVectorEnv`` with random and heuristic opponents, one step).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SNIPPETS = {
    "aec": "import envs, numpy as np\ne=envs.make('{g}'); e.reset(seed=0); o=e.observe(e.agent_selection)\n"
    "e.step(int(np.flatnonzero(o['action_mask'])[0]))",
    "batch": "from envs.batch import BatchEnv\nb=BatchEnv('{g}', 16, threads=1); b.reset(seed=0); b.random_steps(5)",
    "ismcts": "import envs\nfrom agents.registry import make_agent\ne=envs.make('{g}'); e.reset(seed=0)\n"
    "a=make_agent('ismcts:iterations=50','{g}',seed=0); a.act(e.observe(e.agent_selection), e)",
    "vector": "from training.vector_env import GameVectorEnv\nimport numpy as np\n"
    "v=GameVectorEnv('{g}', 8, opponents={{'random':0.5,'heuristic':0.5}}); o,_=v.reset(seed=0)\n"
    "v.step(np.array([int(np.flatnonzero(m)[0]) for m in o['action_mask']]))",
}
GAMES = ("capivari", "horizonte", "dorfromantik_duel", "kuhn_poker")


def wall_time(tree: str, code: str, cache: str) -> float:
    """Seconds for a new Python process to run ``code`` in ``tree`` with numba's cache in ``cache``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=tree)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", default=".")
    ap.add_argument("--label", default="tree")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    result = {}
    scratch = tempfile.mkdtemp(prefix="start-times-")
    try:
        for kind, snippet in SNIPPETS.items():
            for game in GAMES:
                code = snippet.format(g=game)
                cache = os.path.join(scratch, f"{kind}-{game}")
                cold = wall_time(args.tree, code, cache)
                warm = statistics.median(wall_time(args.tree, code, cache) for _ in range(args.repeats))
                result[f"{kind} {game}"] = {"cold": round(cold, 2), "warm": round(warm, 2)}
                print(args.label, kind, game, f"cold {cold:.2f} s, warm {warm:.2f} s", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.out:
        with open(args.out + ".tmp", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(args.out + ".tmp", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
