"""`tabuleiro serve`: listed by the console command, local by default, a bad replays folder refused up front."""

from tabuleiro.cli import build_parser, main


def test_serve_listens_on_this_machine_only_by_default():
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port) == ("127.0.0.1", 8000)


def test_serve_refuses_a_replays_folder_that_is_not_there(tmp_path, capsys):
    assert main(["serve", "--replays", str(tmp_path / "missing")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_serve_refuses_a_bad_port(capsys):
    assert main(["serve", "--port", "70000"]) == 2
