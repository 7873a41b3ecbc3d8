"""The Starlette app of `tabuleiro serve`: the page, and a JSON API for tables (play, watch) and replays.

Requests are checked in ``requests.py``; a refused one is a 4xx with ``{"error": message}`` and changes nothing.
Agents' moves run in the thread pool, one request at a time per table.
"""

import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import envs
from agents.registry import AGENTS
from envs.engine.config import config_json
from tabuleiro.web import requests as checks
from tabuleiro.web.replays import ReplayView, parse_replay, read_replay_file, replay_files
from tabuleiro.web.tables import Conflict, Table
from tabuleiro.web.views import seat_of_turn

STATIC = Path(__file__).parent / "static"
MAX_TABLES = 64  # the oldest table is dropped beyond this
MAX_REPLAYS = 32


class _Store:
    """Open tables or replays by an unguessable id (one person cannot move at another's table), the oldest dropped
    beyond ``limit``; safe to use from the thread pool."""

    def __init__(self, limit: int) -> None:
        self.items: OrderedDict[str, Any] = OrderedDict()
        self.limit = limit
        self.lock = threading.Lock()

    def add(self, item: Any) -> str:
        key = secrets.token_urlsafe(12)
        with self.lock:
            self.items[key] = item
            while len(self.items) > self.limit:
                self.items.popitem(last=False)
        return key

    def get(self, key: str) -> Any:
        with self.lock:
            item = self.items.get(key)
        if item is None:
            raise checks.BadRequest(f"no such table or replay {key!r} (it may have been closed)", 404)
        return item


async def _body(request: Request) -> bytes:
    """The body, refused past ``MAX_BODY_BYTES`` without reading the rest. Only JSON is taken: another site's page
    cannot send that to this server without the browser asking first (CORS), and this server never says yes."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise checks.BadRequest("send the body as application/json", 415)
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > checks.MAX_BODY_BYTES):
        raise checks.BadRequest(f"the body is larger than {checks.MAX_BODY_BYTES // 1024} KB", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > checks.MAX_BODY_BYTES:
            raise checks.BadRequest(f"the body is larger than {checks.MAX_BODY_BYTES // 1024} KB", 413)
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(replays: Path | None = None, games: Path | None = None, hosts: list[str] | None = None) -> Starlette:
    """The app; ``replays``: a folder of replays to offer (e.g. from `tabuleiro arena --replays`); ``games``: where
    finished games are saved as replays (None: not saved, only downloadable); ``hosts``: the Host names answered
    (None: any), so a page from another site cannot reach a local server through a DNS name of its own."""
    tables = _Store(MAX_TABLES)
    opened = _Store(MAX_REPLAYS)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def list_games(request: Request) -> Response:
        out = []
        for name in envs.GAMES:
            game = envs.make(name).game
            defaults = config_json(game.config)
            out.append({"name": name, "players": game.num_players, "config": defaults})
        agents = [a for a in AGENTS if a not in checks.WEB_AGENTS_REFUSED]
        return JSONResponse({"games": out, "agents": agents, "replays": replay_files(replays)})

    def _new_table(data: dict[str, Any], watch: bool) -> dict[str, Any]:
        game = checks.game_name(data)
        config = checks.config(data, game)
        seed = checks.seed(data)
        n = envs.make(game, **config).game.num_players
        if watch:
            specs = checks.fill_seats(checks.agent_specs(data, "agents"), n, "agents")
            human = None
        else:
            human = checks.field(data, "seat", int, 0)
            if not 0 <= human < n:
                raise checks.BadRequest(f"seat must be 0..{n - 1} for {game} with {n} players, got {human}")
            others = iter(checks.fill_seats(checks.agent_specs(data, "opponents"), n - 1, "opponents"))
            specs = ["human" if p == human else next(others) for p in range(n)]
        try:
            table = Table(game, config, specs, human, seed)
        except ValueError as exc:  # e.g. a heuristic the game does not have
            raise checks.BadRequest(str(exc)) from None
        key = tables.add(table)
        return {"id": key, **table.view()}

    async def new_play(request: Request) -> Response:
        data = checks.parse_json(await _body(request))
        return JSONResponse(await run_in_threadpool(_new_table, data, False), status_code=201)

    async def new_watch(request: Request) -> Response:
        data = checks.parse_json(await _body(request))
        return JSONResponse(await run_in_threadpool(_new_table, data, True), status_code=201)

    def _locked(key: str, work: Any) -> dict[str, Any]:
        table = tables.get(key)
        if not table.lock.acquire(blocking=False):
            raise Conflict("the table is busy with another request")
        try:
            work(table)
            table.finish(games)
            return {"id": key, **table.view()}
        finally:
            table.lock.release()

    async def show_table(request: Request) -> Response:
        key = request.path_params["key"]
        return JSONResponse(await run_in_threadpool(_locked, key, lambda t: None))

    async def move(request: Request) -> Response:
        data = checks.parse_json(await _body(request))
        name, ply = checks.field(data, "move", str), checks.ply(data)
        key = request.path_params["key"]
        return JSONResponse(await run_in_threadpool(_locked, key, lambda t: t.move(name, ply)))

    async def advance(request: Request) -> Response:
        data = checks.parse_json(await _body(request))
        ply = checks.ply(data)
        key = request.path_params["key"]
        return JSONResponse(await run_in_threadpool(_locked, key, lambda t: t.advance(ply)))

    def _replay_text(key: str) -> tuple[str, str]:
        table = tables.get(key)
        if not table.lock.acquire(blocking=False):
            raise Conflict("the table is busy with another request")
        try:
            if seat_of_turn(table.env) is not None:
                raise Conflict("the game is not over yet")
            return f"{table.env.game.name}-{table.seed}.json", table.replay().to_json()
        finally:
            table.lock.release()

    async def table_replay(request: Request) -> Response:
        name, text = await run_in_threadpool(_replay_text, request.path_params["key"])
        headers = {"content-disposition": f'attachment; filename="{name}"'}
        return Response(text, media_type="application/json", headers=headers)

    def _open(raw: bytes, name: str) -> dict[str, Any]:
        view = ReplayView(parse_replay(raw), name)
        key = opened.add(view)
        return {"id": key, **view.view(0, None)}

    async def upload_replay(request: Request) -> Response:
        raw = await _body(request)
        return JSONResponse(await run_in_threadpool(_open, raw, "uploaded replay"), status_code=201)

    async def open_replay(request: Request) -> Response:
        name = checks.field(checks.parse_json(await _body(request)), "name", str)
        try:
            raw = read_replay_file(replays, name)
        except LookupError as exc:
            raise checks.BadRequest(str(exc), 404) from None
        return JSONResponse(await run_in_threadpool(_open, raw, name), status_code=201)

    async def replay_step(request: Request) -> Response:
        view = opened.get(request.path_params["key"])
        step, seat = request.query_params.get("step", "0"), request.query_params.get("seat", "all")
        if not step.isdigit() or not (seat == "all" or seat.isdigit()):
            raise checks.BadRequest("step must be a number and seat a number or 'all'")
        out = await run_in_threadpool(view.view, int(step), None if seat == "all" else int(seat))
        return JSONResponse({"id": request.path_params["key"], **out})

    async def refused(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status", 409 if isinstance(exc, Conflict) else 400)
        return JSONResponse({"error": str(exc)}, status_code=status)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    routes = [
        Route("/", index),
        Route("/api/games", list_games),
        Route("/api/play", new_play, methods=["POST"]),
        Route("/api/watch", new_watch, methods=["POST"]),
        Route("/api/tables/{key}", show_table),
        Route("/api/tables/{key}/move", move, methods=["POST"]),
        Route("/api/tables/{key}/advance", advance, methods=["POST"]),
        Route("/api/tables/{key}/replay", table_replay),
        Route("/api/replays", upload_replay, methods=["POST"]),
        Route("/api/replays/open", open_replay, methods=["POST"]),
        Route("/api/replays/{key}", replay_step),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {ValueError: refused, HTTPException: http_error}
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=hosts)] if hosts else []
    return Starlette(routes=routes, exception_handlers=handlers, middleware=middleware)
