"""Budgets that hold on every path: every stage looks at the clock, and memory stays bounded.

No wall-clock time is asserted here (the suite must pass on a loaded machine): a fake clock makes
the deadline pass at a chosen checkpoint, and the tests check that the check then stops at once,
names the stage it reached and answers "undetermined". How closely the real limit is kept is
measured by ``benchmarks/bench_budget.py``. Memory is measured with tracemalloc (deterministic).
"""

from __future__ import annotations

import time
import tracemalloc
import types

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb._util import budget as _budget


class FakeClock:
    """Real time until the ``expire_at``-th reading of the budget's clock, then far in the future."""

    def __init__(self, expire_at: int) -> None:
        self.calls = 0
        self.expire_at = expire_at
        self.after = 0  # readings after the deadline

    def perf_counter(self) -> float:
        self.calls += 1
        if self.calls >= self.expire_at:
            self.after += 1
            return time.perf_counter() + 1e9
        return time.perf_counter()


@pytest.fixture
def clock(monkeypatch):
    def install(expire_at):
        fake = FakeClock(expire_at)
        monkeypatch.setattr(_budget, "time", types.SimpleNamespace(perf_counter=fake.perf_counter))
        return fake

    return install


def _unit(m, n, seed):
    W = np.random.default_rng(seed).standard_normal((m, n))
    return W / np.linalg.norm(W, axis=1, keepdims=True)


HARD = {
    # a wide layer near the transition: every stage has work to do
    "ball": (rf.ReLULayer(_unit(60, 12, 0), -0.05), rf.Ball(12)),
    "box": (rf.ReLULayer(_unit(60, 12, 1), -0.05), rf.Box(-1, 1, n=12)),
    "positive ball": (rf.ReLULayer(_unit(50, 10, 2), -0.1), rf.PositiveBall(10)),
    "hull": (rf.ReLULayer(_unit(36, 12, 3), 0.4), rf.Hull(np.random.default_rng(4).standard_normal((50, 12)))),
    "network": (rf.Network.from_weights([(_unit(30, 8, 5), np.full(30, 0.05)), (_unit(60, 30, 6), np.full(60, 0.02))]),
                rf.Ball(8)),  # fmt: skip
}


@pytest.mark.parametrize("name", sorted(HARD))
@pytest.mark.parametrize("expire_at", [2, 5, 20, 80])
def test_the_check_stops_at_the_first_checkpoint_after_the_deadline(clock, name, expire_at):
    model, K = HARD[name]
    fake = clock(expire_at)
    v = rf.check(model, K, time_limit=30)
    if fake.calls < expire_at:
        return  # decided before the deadline
    assert v.status == "undetermined", v.text
    assert any("time limit" in n for n in v.notes) or "time limit" in v.text, v.report()
    # after the deadline only a few readings: the stage that noticed it, and the ones that wind down
    assert fake.after <= 12, (fake.after, v.details.get("stages"))


def _noticed(clock, model, K, want: tuple) -> set:
    """The stages that report the deadline when it passes at each checkpoint in turn (until all of ``want`` have)."""
    noticed: set = set()
    for expire_at in range(2, 400, 3):
        fake = clock(expire_at)
        v = rf.check(model, K, time_limit=30)
        if fake.calls < expire_at:
            break
        noticed.update(n.split("time limit reached during ", 1)[1] for n in v.notes if "time limit reached during" in n)
        if all(any(s.startswith(stage) for s in noticed) for stage in want):
            break
    return noticed


def test_every_stage_looks_at_the_clock(clock, monkeypatch):
    """Make the deadline pass at each checkpoint in turn: the stages that notice it are all the stages."""
    from relu_frames_nb.exact import engine

    model, K = HARD["ball"]
    want = ("polytope bias", "rectifying test", "hyperplanes through frame vectors", "samples", "removal sets")
    noticed = _noticed(clock, model, K, want)
    for stage in want:
        assert any(s.startswith(stage) for s in noticed), (stage, sorted(noticed))
    # the search over removal sets decides this layer before the MILP: ask the MILP without it
    monkeypatch.setattr(engine, "removal_stage", lambda *args, **kwargs: None)
    noticed = _noticed(clock, model, K, ("milp",))
    assert any(s.startswith("milp") for s in noticed), sorted(noticed)


@pytest.mark.parametrize("name", sorted(HARD))
def test_a_zero_time_limit_answers_at_once(name):
    model, K = HARD[name]
    v = rf.check(model, K, time_limit=0)
    assert v.status == "undetermined"
    assert len(v.details["stages"]) <= 2, v.details["stages"]


def test_progress_moves_until_the_end():
    events = []
    model, K = HARD["box"]
    rf.check(model, K, time_limit=5, progress=events.append)
    assert events and all("stage" in e and "done" in e and e["total"] == 5 for e in events)
    done = [e["done"] for e in events]
    assert done == sorted(done)  # seconds only move forward
    assert len({e["stage"] for e in events}) >= 3


# ---------------------------------------------------------------------------------
# memory (tracemalloc counts numpy's allocations)
# ---------------------------------------------------------------------------------


def _peak(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


MB = 1024**2


def test_a_polytope_of_5000_constraints_is_tested_in_chunks():
    # the fuzz round: Polytope._contains built samples x constraints at once (14.4 GB)
    rng = np.random.default_rng(0)
    K = rf.Polytope(rng.standard_normal((5000, 10)), np.ones(5000))
    X = rng.standard_normal((100_000, 10)) * 0.01
    assert _peak(lambda: K.contains(X)) < 100 * MB
    assert _peak(lambda: K.sample(20_000, seed=1)) < 300 * MB


def test_rank_deficient_wide_weights_build_no_square_matrix():
    # the fuzz round: a rank-deficient 2 x 20000 layer asked for a 20000 x 20000 matrix (9.2 GB)
    W = np.random.default_rng(0).standard_normal((2, 20000))
    net = rf.Network.from_weights([(W, np.zeros(2))])
    peak = _peak(lambda: rf.check(net, rf.Ball(20000), time_limit=20))
    assert peak < 200 * MB


def test_sampling_a_hull_of_many_points_is_chunked():
    # the fuzz round: Hull.sample on 10^5 points asked for 37 GB (an N x N_points array)
    K = rf.Hull(np.random.default_rng(0).standard_normal((100_000, 3)))
    assert _peak(lambda: K.sample(4000, seed=0)) < 200 * MB
    assert _peak(lambda: K.support(np.random.default_rng(1).standard_normal((2000, 3)))) < 200 * MB


def test_the_budget_sizes_chunks_from_the_memory_allowance():
    b = _budget.Budget(None, memory=64 * MB)
    assert b.rows(8 * 1000, fraction=0.25) == (16 * MB) // 8000
    assert _budget.Budget(None, memory=64 * MB).rows(1e12) == 1  # at least one row


def test_the_collision_search_looks_at_the_clock_between_candidates(monkeypatch):
    """A membership proof can take an LP per point (a hull in high dimension): the search must not
    finish the 40 steps of a candidate direction after its deadline. Each proof here costs 10 s of a
    fake clock; with a 25 s limit only the proofs started before the deadline run."""
    from relu_frames_nb.paper import rectifying

    now = types.SimpleNamespace(t=0.0)
    monkeypatch.setattr(rectifying, "time", types.SimpleNamespace(perf_counter=lambda: now.t))
    calls = []

    def slow_proof(layer, K, x, y):
        calls.append(now.t)
        now.t += 10.0
        return False

    monkeypatch.setattr(rectifying, "_verify", slow_proof)
    layer = rf.ReLULayer(_unit(20, 12, 7), 0.5)  # few rows active anywhere: not rectifying, many candidates
    c = rf.find_collision(layer, rf.Ball(12), n_samples=200, time_limit=25)
    assert not c.found
    assert 1 <= len(calls) <= 3 and all(t <= 25 for t in calls), calls


@pytest.mark.parametrize("limit", [None, float("inf")])
def test_no_time_limit_reaches_every_stage(limit):
    """``time_limit=None`` (or inf: what a budget without a deadline has left) is no limit in every stage:
    the half-space depth stage refused the infinite time a budget without a deadline hands down."""
    v = rf.check(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.Ball(2), time_limit=limit)
    assert v.status == "injective"
    model, K = HARD["ball"]
    assert rf.check(model, K, time_limit=limit).status in ("injective", "not injective")
    with pytest.raises(rf.InputError, match="non-negative"):
        rf.check(model, K, time_limit=-1.0)


def test_the_witness_builder_reads_the_clock_between_membership_proofs():
    """A membership proof can take an LP (a hull in high dimension): once the budget has expired the
    shrinking step stops proving (it used to run its 40 halvings)."""
    from relu_frames_nb.exact._witness import build_pair

    class Slow:  # a domain that proves the starting point only, with no margin to start from
        calls = 0

        def margin(self, z):
            return None

        def radial(self):
            return None

        def contains_certified(self, y):
            if np.array_equal(y, [1.0, 0.0]):
                return True
            Slow.calls += 1
            return False

    Phi = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    a = np.array([0.5, 5.0, 5.0])  # at z = (1, 0) only the first row is active: rank 1 < 2
    ticks = iter([False, False, True])
    assert build_pair(Phi, a, Slow(), np.array([1.0, 0.0]), None, expired=lambda: next(ticks, True)) is None
    assert Slow.calls == 2
    Slow.calls = 0
    assert build_pair(Phi, a, Slow(), np.array([1.0, 0.0]), None) is None
    assert Slow.calls == 40  # without a clock: every halving
