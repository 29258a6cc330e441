"""Checkers for the exercises of 08_random_layers (exact zero-bias verdicts, sampled tests)."""

from __future__ import annotations

from typing import Any

import numpy as np

import relu_frames_nb as rf

from . import CLOSE_ATOL, Feedback, report

__all__ = ["frame_8_1", "M_8_2", "TRIALS_8_2", "frame_8_2", "frame_8_3", "sampled_test_8_3",
           "check_8_1", "check_8_2", "check_8_3"]  # fmt: skip

M_8_2 = (6, 9, 12, 15)  # numbers of frame vectors in exercise 8.2 (n = 3)
TRIALS_8_2 = 40  # frames per m in exercise 8.2


def frame_8_1() -> rf.Frame:
    """The frame of exercise 8.1: 20 Gaussian vectors in R^4."""
    return rf.zoo.gaussian(20, 4, seed=3)


def frame_8_2(m: int, k: int) -> rf.Frame:
    """Frame number ``k`` (0, 1, ...) with ``m`` Gaussian vectors in R^3 (exercise 8.2)."""
    return rf.zoo.gaussian(m, 3, seed=1000 * m + k)


def frame_8_3(seed: int) -> rf.Frame:
    """The frame of exercise 8.3 for a seed: 25 Gaussian vectors in R^5."""
    return rf.zoo.gaussian(25, 5, seed=int(seed))


def sampled_test_8_3(seed: int) -> bool:
    """The experiment's sampled test for the zero bias: 2·10^4 samples of R^5, paper correction; True = accepted."""
    F = frame_8_3(seed)
    est = rf.sampling_bias(F, rf.RealSpace(5), n_samples=20_000, seed=int(seed), init="none", correction="paper",
                           progress=False)  # fmt: skip
    return bool(np.all(est.admits(0.0)))


def _depth_answer(ans):
    """A depth answered to exercise 8.1 read: ``(depth, None)``, or ``(None, feedback)`` when it is a verdict or not whole
    (shared with the edition's self-check)."""
    if isinstance(ans, (bool, np.bool_)):
        return None, (False, "give the depth (a whole number), not the verdict")
    d = int(ans)
    if d != float(ans):
        return None, (False, "the Tukey depth is a whole number (a count of frame vectors)")
    return d, None


def check_8_1(answer: Any) -> Feedback:
    """Exercise 8.1: the Tukey depth of the origin among the vectors of ``frame_8_1()``."""

    def verify(ans):
        d, failed = _depth_answer(ans)
        if failed:
            return failed
        F = frame_8_1()
        res = rf.zero_bias_injective(F)
        if d == res.depth:
            verdict = "injective" if res.injective else "not injective"
            return True, (
                f"depth {d} {'>=' if res.injective else '<'} n = {F.n}: the zero-bias layer is {verdict} on R^4 "
                f"(Tukey-depth test, exact)"
            )
        if d > res.depth:
            return False, (
                "too large: some direction u has fewer frame vectors with <u, phi_i> >= 0 than your depth "
                "(the depth is the minimum of that count over all directions u)"
            )
        return False, (
            "too small: every direction u has more frame vectors with <u, phi_i> >= 0; count the closed "
            "half-space (>= 0, not > 0) and take the minimum over u"
        )

    return report("8.1", answer, verify)


def check_8_2(answer: Any) -> Feedback:
    """Exercise 8.2: ``{m: fraction}`` of the TRIALS_8_2 frames ``frame_8_2(m, k)`` that are injective (zero bias)."""

    def verify(ans):
        if not isinstance(ans, dict) or sorted(int(m) for m in ans) != list(M_8_2):
            return False, f"answer_8_2 should be a dict with keys {list(M_8_2)} (m) and fractions as values"
        wrong = []
        for m in M_8_2:
            inj = [bool(rf.zero_bias_injective(frame_8_2(m, k)).injective) for k in range(TRIALS_8_2)]
            frac = float(np.mean(inj))
            got = float(ans[m] if m in ans else ans[str(m)])
            if not np.isclose(got, frac, atol=CLOSE_ATOL):
                if got > frac:
                    k = inj.index(False)
                    hint = f"too high: e.g. frame k = {k} is not injective (Tukey depth below 3)"
                else:
                    k = inj.index(True) if any(inj) else 0
                    hint = f"too low: e.g. frame k = {k} is injective (Tukey depth at least 3)"
                wrong.append(f"m = {m}: {hint}")
        if wrong:
            return False, "; ".join(wrong)
        vals = [float(ans[m] if m in ans else ans[str(m)]) for m in M_8_2]
        return True, (
            f"p_(m,3) estimated as {dict(zip(M_8_2, vals))} from {TRIALS_8_2} frames each: it rises with the "
            f"redundancy q = m/3, here from q = 2 to q = 5"
        )

    return report("8.2", answer, verify)


def _wrong_answers_8_2(value):
    """For the leak probe: one fraction off by one frame (each check recomputes all 160 frames)."""
    m = M_8_2[0]
    v = float(value[m])
    return [{**value, m: v + 1 / TRIALS_8_2 if v < 1 else v - 1 / TRIALS_8_2}]


def check_8_3(answer: Any) -> Feedback:
    """Exercise 8.3: a seed whose layer the sampled test accepts although it is not injective."""

    def verify(ans):
        seed = int(ans)
        if seed != float(ans) or not 0 <= seed < 100:
            return False, "give a seed: a whole number between 0 and 99"
        if not sampled_test_8_3(seed):
            return False, (
                f"the sampled test rejects the layer of seed {seed} (some entry's estimate is below 0), so it "
                f"does not over-accept it; try another seed"
            )
        v = rf.check(rf.ReLULayer(frame_8_3(seed), 0.0), rf.Ball(5), method="exact", time_limit=60)
        if v.status == "injective":
            return False, f"the layer of seed {seed} is injective (exact verdict, {v.method}): the sampled test was right"
        if v.status != "not injective":
            return False, f"the exact verdict could not decide seed {seed} in time; try another seed"
        return True, (
            f"seed {seed}: the sampled test accepts, but at x = {np.round(v.pair[0], 3)} only "
            f"{v.details['exact']['n_active']} of 25 vectors are active (rank {v.details['exact']['rank']} < 5), "
            f"and two inputs of the ball collide"
        )

    return report("8.3", answer, verify)


def _wrong_answers_8_3(value):
    """For the leak probe: seeds out of range (another seed in range may be right too)."""
    return [100, -1]
