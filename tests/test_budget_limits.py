"""Time and memory budgets that hold where they did not (issue 29's fuzz round).

Each test pins one defect: the rectifying test ran 11.1 s on a 5 s limit (one chunk of 2000 points
took 10 s); 10^9 samples of a disc grew to 24 GB (all drawn at once); the check across the pieces of
a network's image asked for a (T, J, r, r) array of 5.4 GB to 3.77 TiB; six unrolled 70 x 70
convolutions peaked at 4.9 GB at a 0.5 GB limit; the polytope bias read its clock only in two of
its loops; a time limit of 1e300 s. No wall-clock time and no measured RSS is asserted: a fake
clock makes deadlines pass, spies count the work done after them and the sizes of the blocks.
"""

from __future__ import annotations

import math
import time
import types
from itertools import combinations

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb._util import budget as _budget
from relu_frames_nb._util.budget import Budget, BudgetExhausted, MemoryLimit
from relu_frames_nb.network import pieces
from relu_frames_nb.network.image import check_on_image
from relu_frames_nb.paper import rectifying

GiB = 2**30


def _unit(m, n, seed):
    W = np.random.default_rng(seed).standard_normal((m, n))
    return W / np.linalg.norm(W, axis=1, keepdims=True)


def _count_tested_points(monkeypatch) -> list:
    """Spy on the rank test of the rectifying test: one entry (points tested) per chunk."""
    sizes: list[int] = []
    real = rectifying.spanning_mask

    def spy(phi, mask, *args, **kwargs):
        sizes.append(mask.shape[0])
        return real(phi, mask, *args, **kwargs)

    monkeypatch.setattr(rectifying, "spanning_mask", spy)
    return sizes


# ---------------------------------------------------------------------------------
# 1. the rectifying test looks at the deadline
# ---------------------------------------------------------------------------------

# a wide layer whose rectifying test needs the rank test (not full spark): one chunk of all the points used to run
# past any deadline (2000 x 200: 10 s for 2000 points)
WIDE = rf.ReLULayer(_unit(600, 60, 0), 0.0)


@pytest.fixture
def late_after_first_chunk(monkeypatch):
    """Count the points of each chunk of the rank test; every clock reads 'far too late' once the first chunk is done."""
    sizes = _count_tested_points(monkeypatch)
    counting = rectifying.spanning_mask
    late = types.SimpleNamespace(on=False)

    def first_then_late(phi, mask, *args, **kwargs):
        out = counting(phi, mask, *args, **kwargs)
        late.on = True
        return out

    monkeypatch.setattr(rectifying, "spanning_mask", first_then_late)
    clock = types.SimpleNamespace(perf_counter=lambda: time.perf_counter() + (1e9 if late.on else 0.0))
    monkeypatch.setattr(_budget, "time", clock)
    monkeypatch.setattr(rectifying, "time", clock)
    return sizes


def test_is_rectifying_stops_between_chunks_once_the_deadline_has_passed(late_after_first_chunk):
    X = rf.Ball(60).sample(4000, seed=1)
    with pytest.raises(BudgetExhausted):
        rf.is_rectifying(WIDE, X, budget=Budget(3600))
    sizes = late_after_first_chunk
    assert len(sizes) == 1 and sizes[0] < 1000, sizes  # not the 4000 points of one chunk within max_memory


def test_is_rectifying_with_an_expired_budget_does_no_work(monkeypatch):
    sizes = _count_tested_points(monkeypatch)
    with pytest.raises(BudgetExhausted):
        rf.is_rectifying(WIDE, rf.Ball(60).sample(100, seed=1), budget=Budget(0))
    assert sizes == []


def test_is_rectifying_under_a_budget_gives_the_same_answer():
    X = rf.Ball(60).sample(600, seed=2) * 1.5
    np.testing.assert_array_equal(rf.is_rectifying(WIDE, X, budget=Budget(3600)), rf.is_rectifying(WIDE, X))


def test_the_check_stops_the_rectifying_test_at_its_deadline(late_after_first_chunk):
    """The deadline passes while the first chunk is tested: the stage stops there, names itself, answers undetermined."""
    v = rf.check(WIDE, rf.Ball(60), time_limit=600, method="fast", n_samples=4000)
    assert v.status == "undetermined"
    assert any("rectifying test" in n for n in v.notes) or "rectifying test" in v.text, v.report()
    sizes = late_after_first_chunk
    assert len(sizes) == 1 and sizes[0] < 1000, sizes


def test_find_collision_tests_only_the_points_its_time_allows(monkeypatch):
    sizes = _count_tested_points(monkeypatch)
    X = rf.Ball(60).sample(4000, seed=3)
    c = rf.find_collision(WIDE, rf.Ball(60), points=X, time_limit=0)
    assert not c.found
    assert len(sizes) == 1 and sizes[0] < 1000, sizes  # the first chunk only (some answer, never all 4000)


def test_check_rectifying_chunks_follow_the_clock_not_the_memory(monkeypatch):
    sizes = _count_tested_points(monkeypatch)
    part = rf.check_rectifying(WIDE, rf.Ball(60), n_samples=4000, time_limit=0)
    assert not part.complete and part.n_checked == sizes[0] < 1000


# ---------------------------------------------------------------------------------
# 2. samples in blocks that fit the memory
# ---------------------------------------------------------------------------------

DOMAINS = {
    "ball": rf.Ball(3),
    "sphere": rf.Sphere(4, 2.0),
    "shell": rf.Shell(3, 0.5, 1.0),
    "positive ball": rf.PositiveBall(3),
    "real space": rf.RealSpace(3),
    "exterior": rf.Exterior(3, 2.0),
    "box": rf.Box([0.0, -1.0, 2.0], [1.0, 1.0, 3.0]),
    "hull": rf.Hull(np.random.default_rng(0).standard_normal((30, 3))),
    "polytope": rf.Polytope(np.random.default_rng(1).standard_normal((20, 3)), np.ones(20)),
}


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_blocks_that_fit_are_the_one_draw_of_the_seed(name):
    K = DOMAINS[name]
    (block,) = list(K.sample_blocks(500, block=500, seed=7))
    np.testing.assert_array_equal(block, K.sample(500, seed=7))


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_blocks_beyond_the_memory_are_bounded_and_reproducible(name):
    K = DOMAINS[name]
    blocks = list(K.sample_blocks(1000, block=300, seed=7))
    assert [b.shape for b in blocks] == [(300, K.n)] * 3 + [(100, K.n)]
    again = np.vstack(list(K.sample_blocks(1000, block=300, seed=7)))
    np.testing.assert_array_equal(np.vstack(blocks), again)
    assert np.all(K.contains(np.vstack(blocks)))


def test_a_shell_of_large_radius_in_high_dimension_samples():
    # r^n overflowed a Python float: OverflowError instead of samples
    X = rf.Shell(200, 1e-3, 1e3).sample(50, seed=0)
    r = np.linalg.norm(X, axis=1)
    assert np.all((r >= 1e-3) & (r <= 1e3))


def test_many_samples_are_drawn_in_blocks_that_fit(monkeypatch):
    """rf.check(L, Ball(2), n_samples=10**9) drew all of them at once (24 GB); the stage draws blocks of at most a
    quarter of the memory allowance (here 2 * 10^7 samples, 64 MiB), and the deadline ends the stage as usual."""
    drawn = []
    real = rf.Ball.sample

    def spy(self, N, *, seed=None):
        drawn.append(N)
        return real(self, N, seed=seed)

    monkeypatch.setattr(rf.Ball, "sample", spy)
    def clock():
        return time.perf_counter() + (1e9 if len(drawn) >= 3 else 0.0)

    monkeypatch.setattr(_budget, "time", types.SimpleNamespace(perf_counter=clock))
    memory = 64 * 2**20
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.45)
    v = rf.check(L, rf.Ball(2), n_samples=2 * 10**7, memory_limit=memory, time_limit=600, method="fast")
    assert v.status in ("undetermined", "not injective")
    big = [N for N in drawn if N > 1000]
    assert big and max(big) * 2 * 8 <= 0.25 * memory, big


def test_the_failing_points_kept_for_the_collision_search_are_bounded(monkeypatch):
    """Most samples fail (few rows active on the unit ball): the count is exact, the points kept are bounded."""
    from relu_frames_nb import _layer_check

    kept = {}
    real = _layer_check.Collision.run

    def spy(self, problem, ctx):
        kept["n"] = ctx.findings.scratch["failing"].shape[0]
        return real(self, problem, ctx)

    monkeypatch.setattr(_layer_check.Collision, "run", spy)
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.9)  # a row is active only near the rim of the unit disc
    memory = 2**20
    v = rf.check(L, rf.Ball(2), n_samples=200_000, memory_limit=memory, method="fast", time_limit=600)
    assert v.status in ("not injective", "undetermined")
    assert v.details["points_checked"] == 200_000
    assert v.details["points_failing"] > kept["n"]  # every failure counted, not every one kept
    assert kept["n"] * 2 * 8 <= 0.05 * memory


# ---------------------------------------------------------------------------------
# 3. networks: the check across the pieces sizes its arrays from the budget
# ---------------------------------------------------------------------------------


def _spy_det(monkeypatch) -> list:
    batches: list[int] = []
    real = np.linalg.det

    def spy(a):
        a = np.asarray(a)
        batches.append(int(np.prod(a.shape[:-2])))
        return real(a)

    monkeypatch.setattr(pieces.np.linalg, "det", spy)
    return batches


def test_the_determinants_across_the_pieces_come_in_blocks_that_fit(monkeypatch):
    rng = np.random.default_rng(0)
    Rs, WV = rng.standard_normal((30, 16)), rng.standard_normal((16, 3))
    batches = _spy_det(monkeypatch)
    memory = 16 * 2**20
    q = pieces._plane_count(Rs, WV, [], 3, 10**6, Budget(None, memory=memory), [0])
    assert 2 <= q <= 30
    per_pair = 16 * (3 * 3 + 3 + 4)
    assert max(batches) <= 0.1 * memory / per_pair, max(batches)  # not the 4060 x 560 minors at once


def test_the_grouped_sums_are_the_sums_of_the_terms():
    """The (T, J) terms enter only through their sums over the J that hold the same near units."""
    rng = np.random.default_rng(1)
    m, ns, r, free = 9, 7, 3, [1, 4]
    Rs, WV = rng.standard_normal((m, ns)), rng.standard_normal((ns, r))
    T = np.array(list(combinations(range(m), r)))
    J = np.array(list(combinations(range(ns), r)))
    dW = np.linalg.det(WV[J])
    hadW = np.prod(np.linalg.norm(WV[J], axis=2), axis=1)
    holds = np.stack([np.any(J == u, axis=1) for u in free], axis=1)
    groups, group_of = np.unique(holds, axis=0, return_inverse=True)
    terms, errs = pieces._grouped_terms(Rs, T, J, dW, hadW, group_of.reshape(-1), len(groups), r,
                                        Budget(None, memory=2**14))  # fmt: skip
    subR = Rs[T[:, None, :, None], J[None, :, None, :]]
    full = np.linalg.det(subR) * dW[None, :]
    bound = pieces.DET_MARGIN * np.prod(np.linalg.norm(subR, axis=3), axis=2) * hadW[None, :]
    for theta in ([0.3, 0.9], [1.0, 0.0], [0.5, 0.5]):
        w_J = np.prod(np.where(holds, np.array(theta)[None, :], 1.0), axis=1)
        w_g = np.prod(np.where(groups, np.array(theta)[None, :], 1.0), axis=1)
        np.testing.assert_allclose(terms @ w_g, full @ w_J, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(errs @ w_g, bound @ w_J, rtol=1e-12, atol=1e-20)


def test_pieces_that_do_not_fit_are_refused_before_allocating(monkeypatch):
    batches = _spy_det(monkeypatch)
    rng = np.random.default_rng(0)
    Rs, WV = rng.standard_normal((80, 40)), rng.standard_normal((40, 4))  # 1.4e11 minors: 3.77 TiB at once
    with pytest.raises((MemoryLimit, pieces._TooMuchWork)):
        pieces._plane_count(Rs, WV, [], 4, 10**6, Budget(None, memory=0.5 * GiB), [0])
    with pytest.raises(MemoryLimit, match="memory"):
        pieces._plane_count(Rs[:30], WV[:16, :3], [], 3, 10**6, Budget(None, memory=1e5), [0])
    assert batches == []


def test_the_check_across_the_pieces_ends_undetermined_at_the_memory_limit():
    # a 2 -> 6 -> 9 network that the pieces certify with the default memory (tests/test_network_pieces.py, seed 0)
    rng = np.random.default_rng(0)
    w1, w2 = int(rng.integers(3, 7)), int(rng.integers(5, 11))
    ws = [(rng.normal(size=(w1, 2)), rng.normal(size=w1) * 0.3 + 0.4),
          (rng.normal(size=(w2, w1)), rng.normal(size=w2) * 0.5 + 1.0)]
    box = rf.Box(-np.ones(2), np.ones(2))
    assert check_on_image(ws, 1, box, budget=Budget(60)).pieces.status == "injective"
    res = check_on_image(ws, 1, box, budget=Budget(60, memory=2e3))
    assert res.status == "undetermined" and res.pieces.status == "undetermined"
    assert "memory limit" in res.pieces.text


def _random_net(widths, seed=0, bias=0.1):
    rng = np.random.default_rng(seed)
    pairs = [(rng.standard_normal((b, a)) / np.sqrt(a), bias * rng.standard_normal(b)) for a, b in zip(widths[:-1], widths[1:])]
    return rf.Network.from_weights(pairs, last="linear")


def test_a_network_4_40_80_6_answers_within_half_a_gigabyte():
    # it crashed with InputError: a layer pair with negative coordinates has no preimage (network/check._lift)
    net = _random_net([4, 40, 80, 6])
    v = rf.check(net, rf.Ball(4), memory_limit=0.5 * GiB, time_limit=60)
    assert v.status in ("undetermined", "injective", "not injective")
    if v.pair is not None:
        x, y = v.pair
        assert np.linalg.norm(x - y) > 0 and np.allclose(net(x), net(y), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------------
# 4. unrolled convolutions
# ---------------------------------------------------------------------------------


def _convs(n_conv, H, seed=0):
    rng = np.random.default_rng(seed)
    state = {}
    for k in range(n_conv):
        state[f"conv{k + 1}.weight"] = rng.standard_normal((1, 1, 3, 3)) / 3
        state[f"conv{k + 1}.bias"] = 0.01 * rng.standard_normal(1)
    state["fc.weight"] = rng.standard_normal((10, H * H)) / H
    state["fc.bias"] = np.zeros(10)
    return state, {f"conv{k + 1}": (1, 1) for k in range(n_conv)}


def test_unrolled_convolutions_beyond_the_memory_limit_are_refused_by_name():
    state, conv = _convs(6, 70)  # six 4900 x 4900 matrices: 1.07 GiB of float64
    with pytest.raises(rf.InputError, match=r"conv1 4900 x 4900.*conv6 4900 x 4900") as err:
        rf.Network.from_state_dict(state, input_shape=(1, 70, 70), conv=conv, last="linear", memory_limit=0.5 * GiB)
    assert "1.07 GiB" in str(err.value) and "0.5 GiB" in str(err.value) and "memory_limit" in str(err.value)


def test_unrolled_convolutions_that_fit_are_built():
    state, conv = _convs(2, 12)
    net = rf.Network.from_state_dict(state, input_shape=(1, 12, 12), conv=conv, last="linear", memory_limit=0.5 * GiB)
    assert net.widths[:3] == (144, 144, 144)
    with pytest.raises(rf.InputError, match="memory limit"):
        rf.Network.from_state_dict(state, input_shape=(1, 12, 12), conv=conv, last="linear", memory_limit=2**16)


def test_from_torch_refuses_unrolled_convolutions_beyond_the_memory_limit():
    class Conv2d:
        def __init__(self, W, b):
            self.weight, self.bias, self.stride, self.padding = W, b, 1, 1

    class ReLU:
        pass

    rng = np.random.default_rng(0)
    mods = []
    for _ in range(6):
        mods += [Conv2d(rng.standard_normal((1, 1, 3, 3)), np.zeros(1)), ReLU()]
    with pytest.raises(rf.InputError, match="conv|memory"):
        rf.Network.from_torch(mods, input_shape=(1, 70, 70), memory_limit=0.5 * GiB)
    assert rf.Network.from_torch(mods[:2], input_shape=(1, 10, 10), memory_limit=0.5 * GiB).n == 100


# ---------------------------------------------------------------------------------
# 5. the polytope bias reads its clock between its steps
# ---------------------------------------------------------------------------------


def test_the_polytope_bias_stops_when_its_time_is_up():
    # 200 directions in R^3: every facet's vertices are close, no projection is needed, so the only loop that read the
    # clock never ran and a time limit of 0 finished the whole computation
    F = rf.zoo.gaussian(200, 3, seed=0)
    with pytest.raises(rf.TooExpensiveError, match="time limit"):
        rf.polytope_bias(F, rf.Ball(3), time_limit=0)
    assert np.all(np.isfinite(rf.polytope_bias(F, rf.Ball(3), time_limit=600).values))


def test_the_polytope_bias_reads_the_clock_inside_the_hull_steps(monkeypatch):
    """The deadline passes after the hull is built: the next step notices it."""
    from relu_frames_nb.paper.bias import polytope

    now = types.SimpleNamespace(t=0.0)
    monkeypatch.setattr(polytope, "time", types.SimpleNamespace(perf_counter=lambda: now.t))
    real = polytope.omnidirectional_polytope

    def slow_hull(*args, **kwargs):
        P = real(*args, **kwargs)
        now.t += 100.0  # the hull took 100 s of the fake clock
        return P

    monkeypatch.setattr(polytope, "omnidirectional_polytope", slow_hull)
    with pytest.raises(rf.TooExpensiveError, match="inscribing polytope"):
        rf.polytope_bias(rf.zoo.gaussian(200, 3, seed=0), rf.Ball(3), time_limit=10)


def test_a_polytope_beyond_max_facets_is_refused_before_any_work_on_its_hull(monkeypatch):
    """1024 rows in R^784: the flatness test (an SVD) and the import of qhull ran before the facet bound refused the
    hull, 0.6 to 5.5 s of a polytope-bias stage given 0.2 to 1 s; the bound is asked first."""
    from relu_frames_nb.paper.bias import polytope

    def no_hull(*args, **kwargs):
        raise AssertionError("the hull was started")

    monkeypatch.setattr(polytope, "omnidirectional_polytope", no_hull)
    with pytest.raises(rf.TooExpensiveError, match="max_facets"):
        rf.polytope_bias(rf.zoo.gaussian(300, 100, seed=0), rf.Ball(100), time_limit=600)


# ---------------------------------------------------------------------------------
# 6. a time limit of 1e300 is no limit
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1e10, 1e300])
def test_a_huge_time_limit_is_no_limit(limit):
    b = Budget(limit)
    assert b.time_limit == math.inf and b.remaining() == math.inf and not b.expired()
    assert b.share(fraction=0.5).time_limit == math.inf
    assert b.share(fraction=0.0).time_limit == 0.0
    assert b.share(fraction=0.5, seconds=limit).remaining() == math.inf
    b.check("anything")  # no OverflowError, no BudgetExhausted
    assert Budget(5e8).time_limit == 5e8  # below NO_LIMIT_ABOVE a limit stays one
    v = rf.check(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5), rf.Ball(2), time_limit=limit)
    assert v.status == "injective"


def test_no_limit_shares_no_nan():
    b = Budget(None)
    child = b.share(fraction=0.0)
    assert child.time_limit == 0.0 and child.expired()
    assert b.share(fraction=0.25).time_limit == math.inf


def test_the_budget_says_what_does_not_fit():
    b = Budget(None, memory=GiB)
    assert b.fits(0.5 * GiB) and not b.fits(0.5 * GiB, fraction=0.25)
    with pytest.raises(MemoryLimit, match=r"3.77 TiB.*1 GiB") as err:
        b.need(3.77 * 2**40, "the minors")
    assert isinstance(err.value, MemoryError)
    assert Budget(None, memory=1e300).rows(8) == 2**62  # no number of rows beyond what an index can hold
