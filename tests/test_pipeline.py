"""The checking pipeline: a problem built once, one context, ordered stages, one assembler (issue 29)."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb import _layer_check
from relu_frames_nb._util.budget import Budget, BudgetExhausted
from relu_frames_nb.exact.engine import ENGINE_STAGES
from relu_frames_nb.pipeline import Context, Evidence, Problem, Stage, Tolerances, run_stages
from relu_frames_nb.verdict import Status

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------------
# the building blocks
# ---------------------------------------------------------------------------------


def test_a_problem_is_immutable_and_leaves_the_callers_arrays_alone():
    W = np.array([[1.0, 0.0], [0.0, 3.0], [-1.0, -1.0]])
    alpha = np.array([-0.5, -0.5, -0.5])
    P = Problem.build(W, alpha, rf.Ball(2, 8.0))
    with pytest.raises(ValueError):
        P.W[0, 0] = 2.0
    with pytest.raises(AttributeError):
        P.input_set = "box"  # frozen
    W[0, 0] = 5.0  # the caller's array stays writable
    assert P.normal.s == 2.0**-4 and P.where == rf.Ball(2, 8.0).describe()
    np.testing.assert_array_equal(P.to_user(P.normal.to_normal(np.array([1.0, 2.0]))), [1.0, 2.0])


def test_a_context_makes_the_same_random_stream_for_every_stage():
    ctx = Context.create(time_limit=None, seed=7)
    a, b = ctx.generator().random(5), ctx.share(0.5).generator().random(5)
    np.testing.assert_array_equal(a, b)
    gen = np.random.default_rng(3)
    assert Context.create(time_limit=None, seed=gen).generator() is gen
    with pytest.raises(rf.InputError):
        Context.create(seed=-1)


def test_a_share_never_outlives_its_parent():
    ctx = Context.create(time_limit=10)
    sub = ctx.share(0.5)
    assert sub.remaining() <= 5.0 + 1e-6 and sub.findings is ctx.findings and sub.tol is ctx.tol
    assert ctx.share(1.0) is ctx
    assert sub.share(1.0, seconds=1.0).remaining() <= 1.0 + 1e-6


def test_tolerances_are_named_documented_and_validated():
    table = Tolerances.table()
    assert {name for name, _, _ in table} >= {"bias_proof_margin", "certificate_eps", "boundary_tol", "rank_rtol"}
    assert all(text and value >= 0 for _, value, text in table)
    with pytest.raises(ValueError):
        Tolerances(certificate_eps=2.0)
    assert Tolerances().used("certificate_eps") == {"certificate_eps": 1e-6}


class _Says(Stage):
    def __init__(self, name, status=None, share=1.0, applies=True, raises=False):
        self.name, self.status, self.share, self._applies, self.raises = name, status, share, applies, raises
        self.ran = False

    def applies(self, problem, ctx):
        return self._applies

    def run(self, problem, ctx):
        self.ran = True
        if self.raises:
            raise BudgetExhausted(self.name)
        return None if self.status is None else Evidence(self.status, self.name, "because")


def _problem():
    return Problem.build(np.eye(2), np.zeros(2), rf.Ball(2))


def test_stages_run_in_order_until_one_decides():
    stages = [_Says("a"), _Says("skipped", Status.INJECTIVE, applies=False), _Says("b", Status.UNDETERMINED),
              _Says("c", Status.NOT_INJECTIVE), _Says("never", Status.INJECTIVE)]  # fmt: skip
    ctx = Context.create(time_limit=None)
    ev = run_stages(stages, _problem(), ctx)
    assert ev.status == Status.NOT_INJECTIVE and ev.method == "c"
    assert ctx.findings.stages == ["a", "b", "c"] and not stages[1].ran and not stages[4].ran
    only_open = run_stages(stages[:3], _problem(), Context.create(time_limit=None))
    assert only_open.status == Status.UNDETERMINED and only_open.method == "b"


def test_a_stage_that_uses_up_its_share_lets_the_next_one_run():
    stages = [_Says("slow", share=0.5, raises=True), _Says("next", Status.INJECTIVE)]
    ctx = Context.create(time_limit=60)
    ev = run_stages(stages, _problem(), ctx)
    assert ev.method == "next" and any("slow: its share of the time ran out" in n for n in ctx.findings.notes)
    # the check's own deadline ends the list
    with pytest.raises(BudgetExhausted):
        run_stages([_Says("slow", raises=True), _Says("next", Status.INJECTIVE)], _problem(), Context.create(time_limit=60))
    with pytest.raises(BudgetExhausted):
        run_stages([_Says("next", Status.INJECTIVE)], _problem(), Context(Budget(0.0)))


# ---------------------------------------------------------------------------------
# the lists a reader sees, and the page generated from them
# ---------------------------------------------------------------------------------


def test_the_lists_are_what_the_check_runs():
    d = rf.describe_stages()
    assert [r["name"] for r in d["methods"]["fast"]] == ["finite set", "polytope bias", "rectifying test",
                                                         "collision search", "interior point", "Tukey depth"]  # fmt: skip
    assert [r["name"] for r in d["methods"]["exact"]] == ["finite set", "interior point", "exact"]
    assert [r["name"] for r in d["exact engine"]] == [s.name for s in ENGINE_STAGES]
    assert [r["name"] for r in d["network"]] == ["first look", "layer by layer", "two copies"]
    assert [r["name"] for r in d["network layer"]] == ["layer on its input set", "pair of the network", "image MILP"]
    v = rf.check(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.6), rf.Ball(2), method="fast")
    assert v.details["stages"][:1] == ["polytope bias"] and v.method == "polytope bias"
    assert v.certificate.tolerances == {"bias_proof_margin": 1e-9}


def test_the_book_page_shows_every_stage_and_tolerance(tmp_path):
    pytest.importorskip("nbformat")
    sys.path.insert(0, str(ROOT / "book"))
    try:
        import sources
    finally:
        sys.path.remove(str(ROOT / "book"))
    text = sources.write_stages_page(tmp_path / "page.md")
    d = rf.describe_stages()
    for rows in [*d["methods"].values(), d["exact engine"], d["network"], d["network layer"]]:
        for row in rows:
            assert f"`{row['name']}`" in text
    for name, _, _ in [*d["tolerances"], *d["guards"]]:
        assert f"`{name}`" in text
    assert "api/how-a-check-runs" in (ROOT / "book" / "index.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------
# defects of issue 29
# ---------------------------------------------------------------------------------


def _mb_output(x: tuple[Fraction, Fraction], alpha: Fraction) -> list[Fraction]:
    """The Mercedes-Benz layer's output at x in exact rational arithmetic (the float frame as given)."""
    rows = [[Fraction(float(c)) for c in r] for r in rf.zoo.mercedes_benz().vectors]
    return [max(Fraction(0), r[0] * x[0] + r[1] * x[1] - alpha) for r in rows]


def test_a_margin_inside_the_rounding_bound_is_never_a_proof():
    # MB frame, alpha = -1/2 + 1e-12 on the unit ball: NOT injective (an exact pair near the top of the ball)
    alpha = -0.5 + 1e-12
    F = rf.zoo.mercedes_benz()
    top = int(np.argmax(F.vectors[:, 1]))
    assert np.allclose(F.vectors[top], [0.0, 1.0])
    x = (Fraction(3e-13), Fraction(1) - Fraction(1e-12))
    y = (-x[0], x[1])
    assert x[0] ** 2 + x[1] ** 2 < 1 and _mb_output(x, Fraction(alpha)) == _mb_output(y, Fraction(alpha))
    for method in ("auto", "fast", "exact"):
        v = rf.check(rf.ReLULayer(F, alpha), rf.Ball(2), method=method, time_limit=20)
        assert v.status != "injective", (method, v.text)
        if v.pair is not None:
            assert v.status == "not injective"


@pytest.mark.parametrize("k", [-3, 0, 4])
def test_the_boundary_verdict_does_not_change_with_scale(k):
    F = rf.zoo.mercedes_benz()
    c = 10.0**k
    v = rf.check(rf.ReLULayer(F.vectors, c * (-0.5 + 1e-12)), rf.Ball(2, c), time_limit=20)
    assert v.status != "injective", v.text


def test_the_verdict_is_built_once_and_not_changed_afterwards(monkeypatch):
    built = []
    real = _layer_check._assemble

    def spy(*args):
        v = real(*args)
        built.append(v)
        return v

    monkeypatch.setattr(_layer_check, "_assemble", spy)
    v = rf.check(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.45), rf.Ball(2))
    assert len(built) == 1 and "stages" not in built[0].details  # the front door adds by building a new verdict
    assert v.details["stages"] and v.status == built[0].status and v.pair is not None


def test_counts_beyond_any_float_are_written_not_crashed_on():
    from math import comb

    from relu_frames_nb._util.format import count_text

    assert count_text(comb(1568, 784)) == "2.09e+470" and count_text(25_000_000) == "2.5e+07"
    rng = np.random.default_rng(0)
    big = rng.standard_normal((1400, 700))  # C(1400, 699) overflows a float
    with pytest.raises(rf.TooExpensiveError, match=r"e\+4\d\d subsets"):
        rf.zero_bias_injective(big)


# --- the paper tools take the check's context ---------------------------------------------------
def test_paper_tools_use_the_context_seed_and_time():
    from relu_frames_nb.errors import TooExpensiveError
    from relu_frames_nb.paper.bias.polytope import polytope_bias
    from relu_frames_nb.paper.bias.sampling import sampling_bias
    from relu_frames_nb.paper.rectifying import check_rectifying, find_collision
    from relu_frames_nb.pipeline import Context

    W = np.random.default_rng(3).standard_normal((7, 3))
    L = rf.ReLULayer(W, 0.4)
    ctx = Context.create(time_limit=60, seed=11)
    # the context's seed replaces the tool's default seed (same samples as seed=11 given directly)
    r1 = check_rectifying(L, rf.Ball(3), n_samples=500, ctx=ctx)
    r2 = check_rectifying(L, rf.Ball(3), n_samples=500, seed=11)
    assert r1.n_failed == r2.n_failed and np.array_equal(r1.failures, r2.failures)
    a = sampling_bias(W, rf.Ball(3), n_samples=300, ctx=ctx).values
    b = sampling_bias(W, rf.Ball(3), n_samples=300, seed=11).values
    np.testing.assert_array_equal(a, b)
    c = sampling_bias(W, rf.Ball(3), n_samples=300, seed=12).values
    assert not np.array_equal(a, c)  # the seed matters, so the equality above is about the context
    # a context with no time left caps the tool's own (larger) time limit
    spent = Context.create(time_limit=0.0, seed=0)
    assert Context.for_tool(spent, 100.0, 5) == (0.0, 0)
    with pytest.raises(TooExpensiveError):
        polytope_bias(rf.zoo.platonic("icosahedron"), rf.Sphere(3), time_limit=100.0, ctx=spent)
    coll = find_collision(rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0), rf.Ball(2), ctx=spent)
    assert not coll.found or np.allclose(L(coll.x), L(coll.y))
    with pytest.raises(TypeError, match="Context"):
        find_collision(L, rf.Ball(3), ctx="fast")


def test_numerical_guards_are_named_documented_and_used():
    from relu_frames_nb.pipeline import tolerances as tol

    rows = tol.guard_table()
    assert {name for name, _, _ in rows} == set(tol.GUARD_DOCS)
    for name, value, text in rows:
        values = value if isinstance(value, tuple) else (value,)
        assert all(0 <= v < 1 for v in values) and max(values) > 0 and len(text) > 20, name
    # the exact engine reads them by name (no bare 1e-9 feasibility tolerance or 1e-300 floor left there)
    for path in (ROOT / "relu_frames_nb" / "exact").glob("*.py"):
        code = "\n".join(line.split("#")[0] for line in path.read_text(encoding="utf-8").splitlines())
        assert "1e-300" not in code, path.name
        assert "_tolerance\": 1e-" not in code, path.name


def _bare_tolerances(source: str) -> list[tuple[int, float]]:
    """``(line, value)`` of every float constant ``0 < |v| < 1e-3`` in the code (docstrings and comments are text)."""
    import ast

    return [(node.lineno, node.value) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, float) and 0 < abs(node.value) < 1e-3]  # fmt: skip


def test_every_tolerance_of_the_package_lives_in_the_tolerance_module():
    # the scan sees a literal in code, a keyword default, a negated one; not a number in a docstring or comment
    planted = 'def f(x, tol=1e-9):\n    """Up to 1e-12."""\n    return x > -1e-300  # 1e-7\n'
    assert [v for _, v in _bare_tolerances(planted)] == [1e-9, 1e-300]
    package = ROOT / "relu_frames_nb"
    found = {}
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel == "_util/tolerances.py":
            continue
        hits = _bare_tolerances(path.read_text(encoding="utf-8"))
        if hits:
            found[rel] = hits
    assert not found, f"name these in relu_frames_nb/_util/tolerances.py (with a GUARD_DOCS entry): {found}"
