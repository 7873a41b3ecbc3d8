"""Every kind of bad request gets a 4xx with a message, and leaves the table as it was."""

import json

import pytest

from envs.replay import from_dict, verify
from tabuleiro.web.replays import MAX_REPLAY_BYTES

JSON = {"content-type": "application/json"}


def _new(client, **body):
    body = {"game": "capivari", "opponents": "random", "seed": 3, **body}
    r = client.post("/api/play", json=body)
    assert r.status_code == 201, r.json()
    return r.json()


def _refused(response, status):
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert isinstance(message, str) and message
    return message


def _at_your_turn(client, view):
    while not view["your_turn"]:
        view = client.post(f"/api/tables/{view['id']}/advance", json={"ply": view["ply"]}).json()
    return view


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"game": "chess"}, 404, "chess"),
        ({"game": 7}, 400, "wrong type"),
        ({"config": {"no_such_knob": 1}}, 400, "no_such_knob"),
        ({"config": {"subtract_points": -5}}, 400, "bad config"),
        ({"config": {"subtract_points": "many"}}, 400, "bad config"),
        ({"config": [1, 2]}, 400, "wrong type"),
        ({"seat": 2}, 400, "seat"),
        ({"seat": True}, 400, "wrong type"),
        ({"seed": -1}, 400, "seed"),
        ({"seed": 2**40}, 400, "seed"),
        ({"opponents": "grandmaster"}, 400, "unknown agent"),
        ({"opponents": "ismcts:iterations=0"}, 400, "opponents"),
        ({"opponents": "rllib:/tmp/checkpoint"}, 400, "browser"),
        ({"opponents": "random,random"}, 400, "do not fit"),
        ({"opponents": []}, 400, "opponents"),
    ],
)
def test_a_bad_new_game_is_refused_with_the_reason(client, body, status, words):
    full = {"game": "capivari", "opponents": "random", **body}
    assert words in _refused(client.post("/api/play", json=full), status)


@pytest.mark.parametrize("raw", [b"{", b"[1, 2]", b'"game"', b"\xff\xfe", b"", b"[" * 100_000])
def test_malformed_json_is_refused(client, raw):
    assert "JSON" in _refused(client.post("/api/play", content=raw, headers=JSON), 400)
    assert "JSON" in _refused(client.post("/api/watch", content=raw, headers=JSON), 400)


def test_watch_checks_its_agents(client):
    assert "agents" in _refused(client.post("/api/watch", json={"game": "kuhn_poker"}), 400)
    assert "do not fit" in _refused(
        client.post("/api/watch", json={"game": "kuhn_poker", "agents": ["random"] * 3}), 400
    )


def test_illegal_unknown_and_stale_moves_change_nothing(client):
    view = _at_your_turn(client, _new(client))
    key, before = view["id"], client.get(f"/api/tables/{view['id']}").json()
    bad = [
        ({"move": "onca s9 swap", "ply": view["ply"]}, 400),  # no such move
        ({"move": "fly", "ply": view["ply"]}, 400),
        (
            {
                "move": next(m for m in ["crias1", "crias2", "oxes1", "tches5"] if m not in view["moves"]),
                "ply": view["ply"],
            },
            400,
        ),
        ({"move": view["moves"][0], "ply": view["ply"] + 1}, 409),  # stale: another ply
        ({"move": view["moves"][0], "ply": -1}, 400),
        ({"move": view["moves"][0]}, 400),  # no ply
        ({"move": 3, "ply": view["ply"]}, 400),
        ({"ply": view["ply"]}, 400),
    ]
    for body, status in bad:
        _refused(client.post(f"/api/tables/{key}/move", json=body), status)
        assert client.get(f"/api/tables/{key}").json() == before
    _refused(client.post(f"/api/tables/{key}/advance", json={"ply": view["ply"]}), 409)  # agents never move for you
    assert client.get(f"/api/tables/{key}").json() == before
    played = client.post(f"/api/tables/{key}/move", json={"move": view["moves"][0], "ply": view["ply"]})
    assert played.status_code == 200 and played.json()["ply"] == view["ply"] + 1
    again = client.post(
        f"/api/tables/{key}/move", json={"move": view["moves"][0], "ply": view["ply"]}
    )  # a double click
    assert "stale" in _refused(again, 409)


def test_a_finished_game_takes_no_more_moves_and_is_saved_as_a_replay(client):
    view = _new(client, game="kuhn_poker")
    while not view["done"]:
        if view["your_turn"]:
            view = client.post(f"/api/tables/{view['id']}/move", json={"move": "pass", "ply": view["ply"]}).json()
        else:
            view = client.post(f"/api/tables/{view['id']}/advance", json={"ply": view["ply"]}).json()
    _refused(client.post(f"/api/tables/{view['id']}/move", json={"move": "pass", "ply": view["ply"]}), 409)
    _refused(client.post(f"/api/tables/{view['id']}/advance", json={"ply": view["ply"]}), 409)
    saved = json.loads(open(view["replay"], encoding="utf-8").read())
    downloaded = client.get(f"/api/tables/{view['id']}/replay").json()
    assert saved == downloaded and saved["format"] == "tabuleiro-replay/1" and saved["returns"] == view["returns"]
    assert verify(from_dict(saved)) == view["returns"]  # it re-simulates exactly, as `tabuleiro replay` checks


def test_unknown_tables_and_replays_are_404(client):
    _refused(client.get("/api/tables/999"), 404)
    _refused(client.post("/api/tables/999/move", json={"move": "pass", "ply": 0}), 404)
    _refused(client.get("/api/replays/999?step=0"), 404)
    assert client.get("/api/nothing").status_code == 404


def test_a_game_in_progress_has_no_replay_yet(client):
    view = _new(client)
    _refused(client.get(f"/api/tables/{view['id']}/replay"), 409)


def _replay_text(client):
    view = _new(client, game="kuhn_poker", seat=1)
    while not view["done"]:
        if view["your_turn"]:
            view = client.post(f"/api/tables/{view['id']}/move", json={"move": "bet", "ply": view["ply"]}).json()
        else:
            view = client.post(f"/api/tables/{view['id']}/advance", json={"ply": view["ply"]}).json()
    return client.get(f"/api/tables/{view['id']}/replay").text


def test_bad_replays_are_refused_with_the_reason(client):
    good = json.loads(_replay_text(client))
    cases = [
        (b"not json", 400, "JSON"),
        (b"[]", 400, "object"),
        (json.dumps({**good, "format": "other"}).encode(), 400, "not a tabuleiro replay"),
        (json.dumps({**good, "actions": good["actions"] + ["bet"]}).encode(), 400, "over"),
        (json.dumps({**good, "actions": ["fly"]}).encode(), 400, "unknown"),
        (json.dumps({**good, "returns": [5.0, -5.0]}).encode(), 400, "returns"),
        (json.dumps({**good, "game": "chess"}).encode(), 400, "chess"),
        (json.dumps({**good, "rules_version": "kuhn_poker-0"}).encode(), 400, "rules version"),
        (b" " * (MAX_REPLAY_BYTES + 10_000), 413, "larger"),
    ]
    for raw, status, words in cases:
        assert words in _refused(client.post("/api/replays", content=raw, headers=JSON), status)
    r = client.post("/api/replays", content=json.dumps(good), headers=JSON)
    assert r.status_code == 201
    key, steps = r.json()["id"], r.json()["steps"]
    for query in [f"step={steps + 1}", "step=-1", "step=x", "step=0&seat=2", "step=0&seat=me"]:
        _refused(client.get(f"/api/replays/{key}?{query}"), 400)


def test_an_oversized_body_is_refused_before_it_is_read(client):
    r = client.post("/api/play", content=b"{}", headers={**JSON, "content-length": str(10**9)})
    assert "larger" in _refused(r, 413)


def test_only_listed_replays_open_from_the_folder(tmp_path, replay_folder):
    from starlette.testclient import TestClient

    from tabuleiro.web.app import create_app

    with TestClient(create_app(replays=replay_folder, games=tmp_path)) as c:
        assert c.get("/api/games").json()["replays"] == ["game_00000.json"]
        assert c.post("/api/replays/open", json={"name": "game_00000.json"}).status_code == 201
        for name in ["../game_00000.json", "/etc/passwd", "game_00001.json"]:
            _refused(c.post("/api/replays/open", json={"name": name}), 404)
        _refused(c.post("/api/replays/open", json={"name": 5}), 400)


def test_only_json_bodies_are_taken(client):
    # a form or text/plain post is what another site's page may send without asking: refused
    for kind in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]:
        r = client.post(
            "/api/play", content=b'{"game": "capivari", "opponents": "random"}', headers={"content-type": kind}
        )
        assert "application/json" in _refused(r, 415)


def test_a_local_server_answers_only_its_own_host_names(tmp_path):
    from starlette.testclient import TestClient

    from tabuleiro.web.app import create_app

    app = create_app(games=tmp_path, hosts=["127.0.0.1", "localhost"])
    with TestClient(app, base_url="http://attacker.example") as c:
        assert c.get("/api/games").status_code == 400
    with TestClient(app, base_url="http://localhost:8000") as c:
        assert c.get("/api/games").status_code == 200
