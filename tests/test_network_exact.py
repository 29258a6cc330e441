"""Small networks decided exactly: the two-copy stage (network/two_copy.py) against region enumeration.

Every verdict is confronted with the independent oracle of tests/_region_oracle.py (linear regions
by LPs, then LPs for every pair of regions), every pair is recomputed by evaluating the network,
and the random 3-layer networks that crashed the layer-by-layer check (InputError from
``_lift -> reconstruct``) are kept as reproducers.
"""

from __future__ import annotations

import os
from functools import cache

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb._util.budget import Budget
from relu_frames_nb.network.check import NETWORK_STAGES
from relu_frames_nb.network.two_copy import check_two_copies, two_copy_applies
from tests._region_oracle import box_rows, collide, decide, forward


def _weights(seed: int, n: int, layers: int, wmin: int, wmax: int, bias: float | None = None, mean: float = 0.5):
    rng = np.random.default_rng(seed)
    widths = [n] + [int(rng.integers(wmin, wmax + 1)) for _ in range(layers)]
    pairs = []
    for a, b in zip(widths[:-1], widths[1:]):
        W = rng.normal(size=(b, a))
        v = np.full(b, bias) if bias is not None else rng.normal(size=b) * 0.5 + mean
        pairs.append((W, v))
    return pairs


def _polygon(seed: int, n: int):
    """A random polytope around 0 (``(G, g)`` and the domain)."""
    rng = np.random.default_rng(1000 + seed)
    G = np.vstack([np.eye(n), -np.eye(n), rng.normal(size=(n + 1, n))])  # bounded by the first 2n rows
    g = rng.uniform(0.8, 1.5, size=G.shape[0])
    return G, g, rf.Polytope(G, g)


#: the large sweeps against the oracle (minutes) run only with RFNB_SLOW=1 (pyproject registers no "slow" mark)
slow = pytest.mark.skipif(os.environ.get("RFNB_SLOW") != "1", reason="slow sweep: set RFNB_SLOW=1")


# ---------------------------------------------------------------------------------
# the 3-layer crash (input 2, widths 3-12, box [-1, 1]^2): InputError from _lift -> reconstruct
# ---------------------------------------------------------------------------------

#: seeds of _weights(seed, 2, 3, 3, 12, bias=0.6) that raised InputError / NotAFrameError before the fix
CRASHED = (1, 3, 6, 7, 9, 13, 16)


@pytest.mark.parametrize("seed", CRASHED)
@pytest.mark.parametrize("method", ["fast", "auto"])
def test_three_layer_networks_that_crashed_are_answered(seed, method):
    ws = _weights(seed, 2, 3, 3, 12, bias=0.6)
    net = rf.Network.from_weights(ws)
    v = rf.check(net, rf.Box([-1, -1], [1, 1]), method=method, time_limit=3)
    assert v.status in ("injective", "not injective", "undetermined")
    if v.pair is not None:
        x, y = v.pair
        assert np.max(np.abs(x - y)) > 0 and np.allclose(net(x), net(y), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------------
# the two-copy stage against the oracle
# ---------------------------------------------------------------------------------

def _cases(count: int = 40, big: bool = False):
    """Small networks: n = 2 and 3, 2 and 3 layers, widths 3-6 (3-12 when ``big``), box or polytope, some with an
    affine last layer; every other one with larger biases (more often injective)."""
    out = []
    for seed in range(count):
        n = 2 if seed % 4 < 3 else 3
        layers = 2 + seed % 2
        wmin, wmax = (3, 12 if n == 2 else 8) if big else ((n + 1, 6) if layers == 2 else (n + 1, 5))
        ws = _weights(seed, n, layers, wmin, wmax, mean=1.0 if seed % 2 == 0 else 0.5)
        linear = seed % 5 == 4
        if seed % 3 == 2:
            G, g, K = _polygon(seed, n)
        else:
            (G, g), K = box_rows(-np.ones(n), np.ones(n)), rf.Box(-np.ones(n), np.ones(n))
        out.append((seed, ws, linear, G, g, K))
    return out


@cache
def _results(count: int, big: bool = False):
    rows = []
    for seed, ws, linear, G, g, K in _cases(count, big):
        res = check_two_copies(ws, K, budget=Budget(30), linear_last=linear,
                               verify_pair=lambda x, y, ws=ws, K=K, lin=linear: K.contains(x) and K.contains(y)
                               and collide(ws, x, y, last_linear=lin))  # fmt: skip
        injective, pair, regions = decide(ws, G, g, last_linear=linear)
        rows.append((seed, ws, linear, K, res, injective, pair, regions))
    return rows


def test_two_copy_verdicts_agree_with_region_enumeration():
    _agree(_results(12))  # the oracle is slow: 12 here, 40 + 40 in the slow tests below


@slow
def test_two_copy_verdicts_agree_with_region_enumeration_on_40_networks():
    _agree(_results(40))


@slow
def test_two_copy_verdicts_agree_with_region_enumeration_widths_up_to_12():
    _agree(_results(40, big=True))


def _agree(rows):
    decided = 0
    for seed, ws, linear, K, res, injective, pair, _ in rows:
        if pair is not None:  # the oracle's own pair, recomputed
            assert collide(ws, *pair, last_linear=linear), seed
        if res.status == "injective":
            assert injective, (seed, res.text)
        if res.status == "not injective":
            assert not injective, seed
            x, y = res.pair
            assert K.contains(x) and K.contains(y)
            assert collide(ws, x, y, last_linear=linear), seed
        decided += res.status != "undetermined"
    kinds = {inj for *_, inj, _, _ in rows}
    assert kinds == {True, False}  # both answers occur: the comparison is not vacuous
    assert decided >= 0.9 * len(rows), [(r[0], r[4].text) for r in rows if r[4].status == "undetermined"]


def test_the_check_reports_the_two_copy_verdict_and_its_certificate():
    # 2 -> 8 -> 8: the layers one by one leave it open (layer 2's count falls short), two copies decide
    ws = _weights(1, 2, 2, 6, 10)
    net, K = rf.Network.from_weights(ws), rf.Box([-1, -1], [1, 1])
    G, g = box_rows(-np.ones(2), np.ones(2))
    assert decide(ws, G, g)[0]
    v = rf.check(net, K, time_limit=60)
    assert v.status == "injective"
    if v.details.get("two_copy") is not None:
        assert v.certificate.kind == "two copies" and "two copies" in v.text
        assert v.details["two_copy"]["far_bound"] < 5e-4


def test_a_pair_of_the_two_copy_milp_is_verified_before_it_is_reported():
    ws = _weights(0, 2, 3, 5, 8)
    K = rf.Box([-1, -1], [1, 1])
    rejected = check_two_copies(ws, K, budget=Budget(30), verify_pair=lambda x, y: False)
    assert rejected.status != "not injective" and rejected.pair is None
    found = check_two_copies(ws, K, budget=Budget(30), verify_pair=lambda x, y: collide(ws, x, y))
    assert found.status == "not injective"
    x, y = found.pair
    np.testing.assert_allclose(forward(ws, x), forward(ws, y), rtol=1e-9, atol=1e-12)


def test_a_tiny_budget_ends_undetermined_and_the_stage_is_listed():
    ws = _weights(2, 2, 2, 6, 10)
    res = check_two_copies(ws, rf.Box([-1, -1], [1, 1]), budget=Budget(1e-3))
    assert res.status == "undetermined" and "time limit" in res.text
    assert "two copies" in [s.name for s in NETWORK_STAGES]
    assert two_copy_applies(ws, rf.Ball(2))  # a ball is bounded: it applies (through an outer polytope)
    assert not two_copy_applies([(np.ones((3, 5)), np.zeros(3)), (np.ones((2, 3)), np.zeros(2))], rf.Box(-np.ones(5), np.ones(5)))
