"""Every ``python`` block of docs/clients.md runs as it is, each in a fresh namespace (one example per library)."""

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested:UserWarning")
PAGE = Path(__file__).resolve().parents[2] / "docs" / "clients.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(), re.MULTILINE | re.DOTALL)


def test_the_page_has_examples():
    assert len(BLOCKS) >= 9


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_example_runs(block):
    libraries = ("torchrl", "tianshou", "skrl", "sb3_contrib", "ray.rllib", "pyspiel")
    for library in libraries:
        if re.search(rf"^(from|import) {re.escape(library)}\b", block, re.MULTILINE):
            pytest.importorskip(library, reason="needs the clients, rl or peers extra")
    exec(compile(block, str(PAGE), "exec"), {"__name__": "docs_clients_example"})
