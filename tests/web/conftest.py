"""Fixtures of the web tests: the app behind Starlette's test client, a live server, and headless Debian chromium."""

import os
import shutil
import socket
import threading
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install -e '.[web]'")

from starlette.testclient import TestClient  # noqa: E402

from tabuleiro.web.app import create_app  # noqa: E402

CHROMIUM = os.environ.get("TABULEIRO_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture
def client(tmp_path):
    """The app with finished games saved in a temporary folder."""
    with TestClient(create_app(games=tmp_path / "games")) as c:
        yield c


@pytest.fixture(scope="session")
def replay_folder(tmp_path_factory) -> Path:
    """A folder with one replay in it, as `tabuleiro arena --replays` writes them."""
    from agents.match import play_game
    from agents.registry import make_agent
    from envs import make
    from envs.replay import record, save

    folder = tmp_path_factory.mktemp("replays")
    env = make("capivari_v0")
    specs = ["heuristic", "random"]
    result = play_game(env, [make_agent(s, "capivari_v0", 1) for s in specs], 7, record_actions=True)
    save(record(env.game, result, specs), folder / "game_00000.json")
    return folder


@pytest.fixture(scope="session")
def server(tmp_path_factory, replay_folder):
    """`tabuleiro serve`'s app on a free local port, in a thread; its base URL."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(replays=replay_folder, games=tmp_path_factory.mktemp("games"))
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    started = threading.Event()
    original = srv.startup

    async def startup(sockets=None):
        await original(sockets)
        started.set()

    srv.startup = startup
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    assert started.wait(60), "the server did not start"
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="session")
def browser():
    """Headless chromium from Debian's package (`make test` installs it): playwright cannot download browsers here."""
    from playwright.sync_api import sync_playwright

    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.fail(f"no chromium at {CHROMIUM}: `make browser` installs Debian's package (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    """A fresh page on the app, ready (the games listed)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready=yes]")
    yield pg
    context.close()
