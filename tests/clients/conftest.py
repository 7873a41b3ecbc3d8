"""Stable-Baselines3 makes a log folder on every ``learn`` (an empty ``SB3-<date>`` in the system's temp
folder when none is named): the client tests point it at their own temporary folder."""

import pytest


@pytest.fixture(autouse=True)
def sb3_log_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3"))
