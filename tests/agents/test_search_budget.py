"""A search's budget per move (``agents.search.budget.spend``): iterations exactly, or seconds on a clock that the
fake search below advances by a fixed time an iteration."""

import pytest

from agents.search import budget


class FakeClock:
    """``perf_counter`` for ``budget``: it moves only when the fake search runs, ``per_iteration`` an iteration."""

    def __init__(self, per_iteration: float) -> None:
        self.now = 100.0
        self.per_iteration = per_iteration
        self.calls: list[tuple[int, int]] = []

    def perf_counter(self) -> float:
        return self.now

    def run(self, done: int, count: int) -> int:
        self.calls.append((done, count))
        self.now += count * self.per_iteration
        return count


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock(per_iteration=2e-6)  # 500,000 iterations a second
    monkeypatch.setattr(budget.time, "perf_counter", fake.perf_counter)
    return fake


def test_an_iteration_budget_runs_exactly_that_many_in_one_call(clock):
    assert budget.spend(1000, None, 64, clock.run) == 1000
    assert clock.calls == [(0, 1000)]


def test_a_time_budget_sizes_each_call_to_the_rate_and_the_last_to_the_time_left(clock):
    done = budget.spend(None, 0.05, 64, clock.run)
    counts = [count for _, count in clock.calls]
    assert counts[0] == 64  # the first call: the agent's guess, before any rate is known
    per_call = round(budget.CALL_SECONDS / 2e-6)  # then a millisecond's worth each (to the iteration, below it)
    assert all(per_call - 1 <= count <= per_call for count in counts[1:-2])
    assert max(counts[-2:]) < per_call - 1  # the last ones fit what was left
    assert [d for d, _ in clock.calls] == [sum(counts[:k]) for k in range(len(counts))]  # each after the ones done
    assert done == sum(counts)
    assert 100.0 + 0.05 <= clock.now <= 100.0 + 0.05 + 3e-6  # it stops at the deadline, not a whole call past it
    assert len(counts) <= 0.05 / budget.CALL_SECONDS + 2


def test_a_search_slower_than_the_call_size_still_runs_one_iteration_a_call(monkeypatch):
    fake = FakeClock(per_iteration=0.004)  # one iteration takes longer than CALL_SECONDS
    monkeypatch.setattr(budget.time, "perf_counter", fake.perf_counter)
    assert budget.spend(None, 0.02, 1, fake.run) == 5
    assert [count for _, count in fake.calls] == [1, 1, 1, 1, 1]
