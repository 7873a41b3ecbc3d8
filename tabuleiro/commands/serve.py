"""`tabuleiro serve`: the browser app (play a seat against agents, watch agents, step through replays)."""

import argparse
from pathlib import Path

from tabuleiro.options import int_option

LOOPBACK = ("127.0.0.1", "::1")  # bound here, the server answers only Host names of this machine


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `tabuleiro serve`."""
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=int_option(1, 65535), default=8000, help="port (default 8000)")
    parser.add_argument(
        "--replays",
        default=None,
        metavar="DIR",
        help="a folder of replays to offer, e.g. one written by `tabuleiro arena --replays DIR`",
    )
    parser.add_argument(
        "--games",
        default="tabuleiro-games",
        metavar="DIR",
        help="where finished games are saved as replays (default ./tabuleiro-games)",
    )


def run(args: argparse.Namespace) -> int:
    """`tabuleiro serve`: runs until interrupted."""
    import uvicorn  # the web extra: loaded only when serving

    from tabuleiro.web.app import create_app

    replays = Path(args.replays) if args.replays else None
    if replays is not None and not replays.is_dir():
        raise ValueError(f"--replays: {args.replays!r} is not a folder")
    local = args.host in LOOPBACK
    app = create_app(replays=replays, games=Path(args.games), hosts=[*LOOPBACK, "localhost"] if local else None)
    print(f"tabuleiro serve: http://{args.host}:{args.port}/  (finished games are saved in {args.games}/)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
