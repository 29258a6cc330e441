"""The threshold experiment (relu_frames_nb.experiments.threshold): exact verdicts against brute force.

* every verdict of the depth question on R^n (zero bias and with a bias) against the cells of the
  hyperplane arrangement, enumerated around its vertices, for n = 2, 3;
* zero bias against data-depth (an independent exact half-space depth) for n <= 6;
* the scale of a bias does not matter on R^n; a layer injective on R^n is injective on the ball;
* the statistics (Wilson intervals, logistic crossing, the 1/n trend) on data with known answers;
* reproducibility, persistence, errors, the figure.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import relu_frames_nb as rf
import relu_frames_nb.experiments as ex
from relu_frames_nb.errors import InputError
from relu_frames_nb.experiments._threshold import _decide

halfspace = pytest.importorskip("depth.model.multivariate.Halfspace").halfspace


def _cells_injective(W: np.ndarray, alpha: np.ndarray) -> bool:
    """Brute force on R^n: is the active set of every open cell of the arrangement spanning?

    The arrangement of the hyperplanes ``<w_i, x> = alpha_i`` (general position, normals spanning R^n)
    has only pointed cells, so every cell has a vertex: the 2^n cells around each vertex (the solution
    of ``n`` of the equations) are all the cells. Points on hyperplanes have more active rows than the
    cells around them, so the open cells decide.
    """
    m, n = W.shape
    for S in itertools.combinations(range(m), n):
        A = W[list(S)]
        p = np.linalg.solve(A, alpha[list(S)])
        gap = np.abs(W @ p - alpha)
        others = np.setdiff1d(np.arange(m), S)
        eps = 1e-3 * min(1.0, float(gap[others].min()) if others.size else 1.0)
        Ainv = np.linalg.inv(A)
        for s in itertools.product((-1.0, 1.0), repeat=n):
            x = p + eps * (Ainv @ np.array(s)) / np.linalg.norm(Ainv @ np.array(s))
            act = W @ x - alpha > 0
            if np.linalg.matrix_rank(W[act]) < n:
                return False
    return True


def _data_depth(W: np.ndarray) -> int:
    m, n = W.shape
    return int(round(float(halfspace(np.zeros((1, n)), W, exact=True, method="recursive")[0]) * m))


@pytest.mark.parametrize("n", [2, 3])
def test_biased_verdicts_on_real_space_agree_with_the_cells_of_the_arrangement(n):
    seen = set()
    for seed in range(40 if n == 2 else 25):
        rng = np.random.default_rng(seed)
        m = int(rng.integers(2 * n, 7 * n))
        W, z = rng.standard_normal((m, n)), rng.standard_normal(m)
        code, _, _ = _decide(W, z, 60.0)
        assert code in (ex.INJECTIVE, ex.NOT_INJECTIVE)
        assert (code == ex.INJECTIVE) == _cells_injective(W, z), (n, seed, m)
        seen.add(code)
    assert seen == {ex.INJECTIVE, ex.NOT_INJECTIVE}  # both answers were tested


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_zero_bias_verdicts_agree_with_data_depth(n):
    seen = set()
    for seed in range(10):
        rng = np.random.default_rng(100 * n + seed)
        m = int(rng.integers(4 * n, 7 * n + 1))
        W = rng.standard_normal((m, n))
        code, _, _ = _decide(W, np.zeros(m), 60.0)
        assert (code == ex.INJECTIVE) == (_data_depth(W) >= n), (n, seed, m)
        seen.add(code)
    if n <= 5:
        assert seen == {ex.INJECTIVE, ex.NOT_INJECTIVE}


def test_the_scale_of_a_bias_does_not_matter_on_real_space():
    for seed in range(12):
        rng = np.random.default_rng(seed)
        W, z = rng.standard_normal((22, 4)), rng.standard_normal(22)
        codes = {_decide(W, s * z, 60.0)[0] for s in (1e-3, 0.3, 1.0, 1e3)}
        assert len(codes) == 1, seed


def test_a_layer_injective_on_real_space_is_injective_on_the_ball():
    found = 0
    for seed in range(15):
        rng = np.random.default_rng(seed)
        W, z = rng.standard_normal((24, 3)), rng.standard_normal(24)
        if _decide(W, z, 60.0)[0] == ex.INJECTIVE:
            found += 1
            assert rf.check(rf.ReLULayer(W, 0.3 * z), rf.Ball(3)).status == "injective"
    assert found >= 3


def test_the_experiment_is_reproducible_and_round_trips(tmp_path):
    kw = dict(n_values=[3, 4], points=5, layers=12, ball_max_n=3, seed=3)
    a = ex.threshold(max_workers=1, **kw)
    b = ex.threshold(max_workers=2, cache_dir=tmp_path / "cache", **kw)
    np.testing.assert_array_equal(a.status, b.status)
    assert a.columns.tolist() == ["zero bias", "bias, R^n", "bias 0.1, ball", "bias 1, ball"]
    assert a.m[a.n == 3].tolist() == [6, 12, 18, 24, 30]
    # ball columns only up to ball_max_n, every other question decided
    assert np.all(a.status[a.n == 4][:, 2:] == ex.NOT_RUN)
    assert np.all(a.status[:, :2] >= 0) and np.all(a.status[a.n == 3] >= 0)
    # every layer can be drawn again and checked through the front door
    for i in (2, 7):
        n_, m_ = int(a.n[i]), int(a.m[i])
        W, z = a.layer(n_, m_, 5)
        assert W.shape == (m_, n_)
        v = rf.check(rf.ReLULayer(W, 0.0), rf.RealSpace(n_))
        assert v.status == ("injective" if a.status[i, 0, 5] == ex.INJECTIVE else "not injective")
    with pytest.raises(InputError, match="t must be a layer"):
        a.layer(3, 6, 12)
    p = a.save(tmp_path / "thr")
    c = ex.load_result(p)
    assert isinstance(c, ex.ThresholdResult)
    np.testing.assert_array_equal(c.status, a.status)
    assert c.summary() == a.summary()
    # the zero-bias column never says injective where a redundancy below 2 forbids it
    assert np.all(a.status[(a.m < 2 * a.n), 0, :] == ex.NOT_INJECTIVE)
    # on R^n the bias can only remove injectivity the zero-bias layer has at infinity
    assert np.all(a.status[:, 1, :][a.status[:, 0, :] == ex.NOT_INJECTIVE] == ex.NOT_INJECTIVE)


def test_wilson_interval_matches_known_values():
    lo, hi = ex.wilson_interval([0, 5, 10], [10, 10, 10])
    np.testing.assert_allclose(lo, [0.0, 0.2366, 0.7225], atol=1e-4)
    np.testing.assert_allclose(hi, [0.2775, 0.7634, 1.0], atol=1e-4)
    lo, hi = ex.wilson_interval(0, 0)
    assert (float(lo), float(hi)) == (0.0, 1.0)
    with pytest.raises(InputError, match="between 0 and n"):
        ex.wilson_interval(3, 2)


def _synthetic(q50_of_n, layers=400, seed=0, undetermined=0):
    """A result whose verdicts follow a logistic curve with known crossings."""
    rng = np.random.default_rng(seed)
    ns, ms, rows = [], [], []
    for n, q50 in q50_of_n.items():
        for m in range(2 * n, 10 * n + 1, max(1, n // 2)):
            p = 1 / (1 + np.exp(-2.5 * (m / n - q50)))
            s = (rng.random(layers) < p).astype(np.int8)
            s[:undetermined] = ex.UNDETERMINED
            ns.append(n), ms.append(m), rows.append(s)
    status = np.stack(rows)[:, None, :]
    return ex.ThresholdResult(
        n=np.array(ns), m=np.array(ms), columns=np.array(["zero bias"]), status=status,
        seconds=np.zeros(status.shape, np.float32), nodes=np.zeros(status.shape, np.int64),
    )  # fmt: skip


def test_crossing_and_trend_recover_known_values():
    truth = {n: 6.7 - 6.0 / n for n in (4, 6, 8, 12, 16)}
    res = _synthetic(truth)
    for n, q in truth.items():
        c = res.crossing(n)
        assert abs(c["q50"] - q) < 4 * c["se"] + 0.02, (n, c, q)
        assert abs(c["interpolated"] - q) < 0.3
    tr = res.trend()
    assert abs(tr["q_inf"] - 6.7) < 4 * tr["se"] + 0.05 and abs(tr["c"] + 6.0) < 1.5
    # undetermined layers widen the interval on both sides
    und = _synthetic({6: 5.5}, layers=100, undetermined=10)
    p, lo, hi = und.probability()
    assert np.all(lo <= p) and np.all(p <= hi) and int(und.counts()["undetermined"].sum()) == 10 * und.n.size
    assert np.all(hi - lo > 0.1)
    assert und.crossing(6)["undetermined"] == 10 * und.n.size


def test_bad_input_is_refused():
    with pytest.raises(InputError, match="size"):
        ex.threshold(size="huge")
    with pytest.raises(InputError, match="n_values"):
        ex.threshold(n_values=[1])
    with pytest.raises(InputError, match="ball_variances must be positive"):
        ex.threshold(n_values=[3], ball_variances=[0.0])
    with pytest.raises(InputError, match="time_limit"):
        ex.threshold(n_values=[3], time_limit=-1)
    res = _synthetic({4: 5.0}, layers=10)
    with pytest.raises(InputError, match="column must be one of"):
        res.counts("bias 7, ball")
    with pytest.raises(InputError, match="n must be a dimension"):
        res.crossing(5)


def test_the_figure_draws_three_panels():
    pytest.importorskip("matplotlib")
    from relu_frames_nb.viz.experiments import plot_threshold

    res = ex.threshold(n_values=[3], points=5, layers=10, ball_max_n=3, max_workers=1)
    fig = plot_threshold(res, tag="thr")
    assert len(fig.axes) == 3 and fig.axes[0].get_title().startswith("[thr]")
    assert "n = 3" in [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    with pytest.raises(InputError, match="ThresholdResult"):
        plot_threshold(object())


def test_the_shipped_full_run_is_the_full_preset_and_its_verdicts_reproduce():
    full = ex.threshold_full_run()
    assert full.params["size"] == "full" and full.params["seed"] == 0
    assert full.params["n_values"] == list(ex._THRESHOLD_SIZES["full"]["n_values"])
    s = full.summary()
    assert s["zero bias"]["layers"] == 32_600 and all(s[c]["undetermined"] == 0 for c in full.columns.tolist())
    # the crossing climbs with n and stays below the asymptotic threshold at every size run
    q = [s["q50"][n] for n in sorted(s["q50"])]
    assert all(b > a for a, b in zip(q, q[1:])) and q[-1] < ex.CONJECTURED_REDUNDANCY
    # layers redrawn from the seed get the stored verdicts: zero bias against data-depth (independent),
    # and with the bias by the depth search, one injective and one not injective layer per dimension
    zero, biased = full.status[:, 0, :], full.status[:, 1, :]
    for n in (4, 6):
        rows = np.flatnonzero(full.n == n)
        k = rows[np.argmin(np.abs(full.probability("zero bias")[0][rows] - 0.5))]
        m = int(full.m[k])
        for want in (ex.INJECTIVE, ex.NOT_INJECTIVE):
            t = int(np.flatnonzero(zero[k] == want)[0])
            W, z = full.layer(n, m, t)
            assert (_data_depth(W) >= n) == (want == ex.INJECTIVE), (n, m, t)
            assert _decide(W, z, 60.0)[0] == biased[k, t], (n, m, t)


def test_a_run_with_other_dimensions_resumes_from_the_same_cache(tmp_path):
    """``--n 3`` and then ``--n 3,4``: the second run reads every layer of n = 3 from the cache."""
    kw = dict(points=4, layers=6, bias_max_n=0, ball_max_n=0, seed=5, cache_dir=tmp_path / "cache", max_workers=1)
    first = ex.threshold(n_values=[3], **kw)
    both = ex.threshold(n_values=[3, 4], **kw)
    assert both.info["cached"] == first.info["tasks"] and both.info["tasks"] > first.info["tasks"]
    np.testing.assert_array_equal(both.status[both.n == 3], first.status)


def test_combined_runs_equal_one_run_over_all_dimensions():
    kw = dict(points=4, layers=5, bias_max_n=0, ball_max_n=0, seed=7, max_workers=1)
    both = ex.threshold(n_values=[3, 4], **kw)
    a, b = ex.threshold(n_values=[4], **dict(kw, layers=3)), ex.threshold(n_values=[3], **kw)
    c = ex.ThresholdResult.combine(a, b)
    assert c.n.tolist() == both.n.tolist() and c.m.tolist() == both.m.tolist()
    np.testing.assert_array_equal(c.status[c.n == 3], both.status[both.n == 3])
    np.testing.assert_array_equal(c.status[c.n == 4][:, :, :3], both.status[both.n == 4][:, :, :3])
    assert np.all(c.status[c.n == 4][:, :, 3:] == ex.NOT_RUN)  # the shorter run is padded with "not run"
    assert c.params["n_values"] == [3, 4] and len(c.params["parts"]) == 2
    with pytest.raises(InputError, match="more than one run"):
        ex.ThresholdResult.combine(both, a)
    with pytest.raises(InputError, match="different seeds"):
        ex.ThresholdResult.combine(b, ex.threshold(n_values=[4], **dict(kw, seed=8)))


def test_the_trend_with_a_second_order_term_recovers_it():
    truth = {n: 6.7 - 6.0 / n + 9.0 / n**2 for n in (4, 5, 6, 8, 10, 12, 16)}
    res = _synthetic(truth, layers=2000)
    one, two = res.trend(n_min=4), res.trend(n_min=4, order=2)
    assert abs(two["q_inf"] - 6.7) < 4 * two["se"] + 0.05 and two["se"] > one["se"]
    assert two["dof"] == one["dof"] - 1 == len(truth) - 3 and np.isnan(one["c2"])
    assert two["se_scaled"] >= two["se"] and one["chi2"] >= 0
    assert np.isnan(res.trend(n_min=12, order=2)["q_inf"])  # two dimensions cannot fit three numbers
    with pytest.raises(InputError, match="order"):
        res.trend(order=3)


def test_the_fits_figure_draws_one_interval_per_fit():
    pytest.importorskip("matplotlib")
    from relu_frames_nb.viz.experiments import plot_threshold_fits

    res = _synthetic({n: 6.7 - 6.0 / n for n in (4, 5, 6, 8, 12)})
    fig = plot_threshold_fits(res, fits=[(4, 1), (4, 2), (12, 2)], marks=[(6.44, "earlier fit")], tag="fits")
    left, right = fig.axes
    assert left.get_title().startswith("[fits]")
    # the fit over n >= 12 has one dimension for three numbers: it is left out, not drawn as NaN
    assert [t.get_text() for t in right.get_xticklabels()] == ["n ≥ 4, c/n", "n ≥ 4, c/n + c₂/n²"]
    assert any("6.44 earlier fit" in t.get_text() for t in right.texts)
    with pytest.raises(InputError, match="ThresholdResult"):
        plot_threshold_fits(object())
    with pytest.raises(InputError, match="fits"):
        plot_threshold_fits(res, fits=[])


def test_cached_only_assembles_what_a_stopped_run_left(tmp_path):
    """A run cut short and looked at with ``cached_only``: its layers are there, the others are "not run"."""
    kw = dict(points=4, layers=6, bias_max_n=0, ball_max_n=0, seed=5, cache_dir=tmp_path / "cache", max_workers=1)
    whole = ex.threshold(n_values=[3, 4], **dict(kw, cache_dir=None))
    ex.threshold(n_values=[3], **kw)  # the part of the run that finished
    part = ex.threshold(n_values=[3, 4], cached_only=True, **kw)
    info = part.info
    assert info["computed"] == 0 and info["not_run"] > 0 and info["cached"] == info["tasks"] - info["not_run"]
    np.testing.assert_array_equal(part.status[part.n == 3], whole.status[whole.n == 3])
    assert np.all(part.status[part.n == 4] == ex.NOT_RUN) and part.counts()["run"][part.n == 4].sum() == 0
    assert part.crossing(3)["q50"] == whole.crossing(3)["q50"]
    with pytest.raises(InputError, match="cache_dir"):
        ex.threshold(n_values=[3], cached_only=True, **dict(kw, cache_dir=None))


def test_the_shipped_n14_run_is_the_full_preset_at_n14_and_its_verdicts_reproduce():
    r, full = ex.threshold_n14_run(), ex.threshold_full_run()
    mine = {k: v for k, v in r.params.items() if k != "n_values"}
    theirs = {k: v for k, v in full.params.items() if k != "n_values"}
    assert mine == theirs and r.params["n_values"] == [14]  # the same preset and seed: the layers of one experiment
    c = r.counts()
    ran = c["run"] > 0
    assert set(c["run"].tolist()) <= {0, 40} and ran.sum() >= 5
    # a layer is undetermined only when it used the preset's whole time limit (counted, and drawn as such)
    und = r.status[:, 0, :] == ex.UNDETERMINED
    assert und.sum() <= 2 and np.all(r.seconds[:, 0, :][und] >= 0.99 * r.params["time_limit"])
    assert r.info.get("not_run", 0) == 40 * (~ran).sum()  # what was not run is counted, whole ratios only
    both = ex.ThresholdResult.combine(full, r)
    q = {n: both.crossing(n)["q50"] for n in (12, 14)}
    assert 5.5 < q[14] < ex.CONJECTURED_REDUNDANCY and np.isfinite(both.trend(n_min=5, order=2)["q_inf"])
    st, sec = r.status[:, 0, :], r.seconds[:, 0, :]
    for want in (ex.NOT_INJECTIVE, ex.INJECTIVE):  # the quickest layer of each kind, redrawn from the seed
        k, t = np.unravel_index(np.argmin(np.where(st == want, sec, np.inf)), st.shape)
        W, _ = r.layer(14, int(r.m[k]), int(t))
        assert _decide(W, np.zeros(len(W)), 600.0)[0] == want, (int(r.m[k]), int(t))  # zero bias
