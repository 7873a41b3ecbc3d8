"""One Ray instance for the whole test session (tests that need it ask for ``ray_session``)."""

import os

import pytest

pytest.importorskip("ray.rllib", reason="training tests need the rl extra (ray[rllib], torch)")


@pytest.fixture(scope="session")
def ray_session():
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    import ray
    import torch

    torch.set_num_threads(1)  # one observation at a time: extra threads only contend on 2 cores
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, object_store_memory=200 * 1024**2, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()
