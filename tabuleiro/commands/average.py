"""`tabuleiro average FILE... --out FILE`: policy files of one layout averaged weight by weight into one.

``agents.policy_average`` does the work; a file that is itself a mean counts as as many policies as it averages.
"""

import argparse

from agents.compiled_policy import policy_path
from agents.policy_average import averaged_count, write_average
from tabuleiro.options import check_output_file


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro average`."""
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="policy files (.npz) of one game, config and layout, e.g. a run's copies over its last minutes; "
        "a run folder stands for its policy.npz",
    )
    parser.add_argument("--out", required=True, help="the averaged policy file to write (replaced atomically)")


def run(args: argparse.Namespace) -> int:
    """`tabuleiro average`: 0 with the file written; a ValueError (exit 2) for a file that is not a policy file or
    differs from the first in game, config, observation or layout."""
    out = check_output_file(args.out, "--out")
    mean = write_average([policy_path(f) for f in args.files], out)  # checked as the arena reads it
    game = str(mean["game"][()])
    print(f"wrote {out}: the mean of {averaged_count(mean)} {game} policies ({len(args.files)} files)")
    return 0
