"""Checkers of the exercises of ``01_frames_and_relu_layers``.

1.1 recover an input from its frame coefficients (canonical dual);
1.2 the active set of a PyTorch layer at a point (sign convention alpha = -b);
1.3 a point of the unit ball where a layer is not rectifying.
"""

from __future__ import annotations

import numpy as np

import relu_frames_nb as rf

from . import VECTOR_ATOL, element_numbers, elements, report
from . import vec as _vec

__all__ = ["frame_1_1", "COEFFICIENTS_1_1", "W_1_2", "B_1_2", "X_1_2", "layer_1_3", "check_1_1", "check_1_2", "check_1_3"]


# ---------------------------------------------------------------------------------------------
# 1.1 — recover an input from its coefficients
# ---------------------------------------------------------------------------------------------

#: the coefficients c = C x of an unknown x for the frame of :func:`frame_1_1`
COEFFICIENTS_1_1 = (3.0, -3.0, -0.5, -0.5)


def frame_1_1() -> rf.Frame:
    """Four vectors in R^3 (the rows)."""
    return rf.Frame([[2.0, 0.0, 1.0], [0.0, 1.0, -1.0], [1.0, 1.0, 0.0], [-1.0, 2.0, 1.0]])


def check_1_1(answer):
    """``answer``: the input x in R^3 with C x = COEFFICIENTS_1_1."""

    def verify(x):
        F = frame_1_1()
        x = np.asarray(x, dtype=float)
        if x.shape != (3,):
            return False, f"x should be a vector of R^3 (shape (3,)); got shape {x.shape}"
        c = np.asarray(COEFFICIENTS_1_1)
        Cx = F.analysis(x)
        err = float(np.max(np.abs(Cx - c)))
        if err > VECTOR_ATOL * max(1.0, float(np.linalg.norm(c))):
            return False, (f"your x has the coefficients C x = {_vec(Cx)}, not c = {_vec(c)} (largest difference "
                           f"{err:.3g}); the synthesis operator of the canonical dual is a left inverse of C")  # fmt: skip
        return True, f"C x = c for x = {_vec(x)}; C is injective (a frame), so this is the only such input"

    return report("1.1", answer, verify)


# ---------------------------------------------------------------------------------------------
# 1.2 — the active set of a PyTorch layer
# ---------------------------------------------------------------------------------------------

#: ``torch.nn.Linear(2, 4)`` weight and bias, followed by ReLU
W_1_2 = ((1.0, 2.0), (-1.5, 0.5), (0.5, -1.0), (2.0, 1.0))
B_1_2 = (0.3, -0.2, 0.1, -1.0)
#: the input
X_1_2 = (0.4, -0.1)


def check_1_2(answer):
    """``answer``: the active set I_x^alpha at X_1_2, as row numbers counted from 1 like the text (a list or set)."""

    def verify(ans):
        W, b, x = np.asarray(W_1_2), np.asarray(B_1_2), np.asarray(X_1_2)
        L = rf.ReLULayer.from_weights(W, b)
        got, problem = element_numbers(ans, len(b))
        if problem:
            return False, problem
        right = np.flatnonzero(L.active_set(x)).tolist()
        if got == right:
            spans = bool(rf.is_rectifying(L, x))
            return True, (f"I_x = {elements(right)}: the coefficients {_vec(W @ x)} against alpha = -b = {_vec(L.alpha)}; "
                          f"these rows {'span' if spans else 'do not span'} R^2")  # fmt: skip
        if got == np.flatnonzero(W @ x >= b).tolist():
            return False, ("these are the rows with <x, w_i> >= b_i; if you compared with b_i: the paper's bias is "
                           "alpha = -b (ReLU(Wx + b) = ReLU(Wx - alpha)), so compare <x, w_i> with -b_i")  # fmt: skip
        if [i + 1 for i in got] == right:
            return False, "counted from 0? the exercises number the rows from 1, like the text (w_1 ... w_4)"
        extra, missing = sorted(set(got) - set(right)), sorted(set(right) - set(got))
        parts = [f"row {i + 1} is not active: <x, w_{i + 1}> - alpha_{i + 1} = {W[i] @ x - L.alpha[i]:.3g} < 0"
                 for i in extra]  # fmt: skip
        if missing:
            parts.append(f"{'an active row is' if len(missing) == 1 else f'{len(missing)} active rows are'} missing: "
                         "compare <x, w_i> with alpha_i for every row")  # fmt: skip
        return False, "; ".join(parts)

    return report("1.2", answer, verify)


# ---------------------------------------------------------------------------------------------
# 1.3 — a point where a layer is not rectifying
# ---------------------------------------------------------------------------------------------


def layer_1_3() -> rf.ReLULayer:
    """Unit rows at 0, 80, 170 and 250 degrees, bias alpha = (-0.2, 0.1, -0.3, 0.25)."""
    t = np.radians([0.0, 80.0, 170.0, 250.0])
    return rf.ReLULayer(np.column_stack([np.cos(t), np.sin(t)]), [-0.2, 0.1, -0.3, 0.25])


def check_1_3(answer):
    """``answer``: a point x of the closed unit ball at which the active rows of layer_1_3 do not span R^2."""

    def verify(x):
        L = layer_1_3()
        x = np.asarray(x, dtype=float)
        if x.shape != (2,):
            return False, f"x should be a point of R^2 (shape (2,)); got shape {x.shape}"
        if not rf.Ball(2).contains(x):
            return False, f"x = {_vec(x)} is outside the unit ball (norm {np.linalg.norm(x):.4g})"
        active = np.flatnonzero(L.active_set(x))
        if rf.is_rectifying(L, x):
            return False, (f"at x = {_vec(x)} the active elements {elements(active)} span R^2: a rectifying point; "
                           "look where fewer elements are active")  # fmt: skip
        return True, f"at x = {_vec(x)} only the elements {elements(active)} are active, and they do not span R^2"

    return report("1.3", answer, verify)
