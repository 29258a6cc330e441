"""Checkers for the exercises of 13_real_network (a trained network on the digits: certify, invert, find a blind spot).

The checkers receive the notebook's objects (the trained layers, the model, the held-out data) as keyword
arguments, so that they judge the answer against exactly what the student worked with.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

import relu_frames_nb as rf

from . import ON_BOUNDARY, ZERO, Feedback, elements, report

__all__ = ["NOISE_13_2", "DIGIT_13_3", "noisy_code_13_2", "check_13_1", "check_13_2", "check_13_3"]

#: standard deviation of the channel noise of exercise 13.2 (activations are of order 1 to 25)
NOISE_13_2 = 1e-3
#: the digit (index in ``sklearn.datasets.load_digits()``) behind the code of exercise 13.2: the answer, private (the
#: student edition has neither it nor the functions using it; its self-check compares with a hash, its code is data)
_DIGIT_13_2 = 1500
#: the digit of exercise 13.3 (the raw layer is invertible there)
DIGIT_13_3 = 1
#: exercise 13.2: largest accepted distance to the digit (pixel units, Euclidean over the 64 pixels)
TOL_13_2 = 2.0
#: exercise 13.1: the accuracy may drop by at most this much
COST_13_1 = 0.05


def _digits() -> np.ndarray:
    from sklearn.datasets import load_digits  # bundled with scikit-learn: no download

    return load_digits().data


def _vector(ans: Any, size: int, what: str) -> np.ndarray:
    v = np.asarray(ans, dtype=float).ravel()
    if v.size != size:
        raise ValueError(f"{what} should have {size} numbers; yours has {v.size}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{what} has entries that are not finite numbers")
    return v


def _units(idx: Any) -> str:
    return elements(idx)


# ---------------------------------------------------------------------------------
# 13.1
# ---------------------------------------------------------------------------------


def check_13_1(answer: Any, *, layer: rf.ReLULayer, domain: Any, model: Any, test: tuple) -> Feedback:
    """Exercise 13.1: a bias, only lowered, injective on ``domain`` (rf.check proves it), accuracy within COST_13_1."""

    def verify(ans):
        alpha = _vector(ans, layer.m, "your bias")
        raised = np.flatnonzero(alpha > layer.alpha + ZERO)
        if raised.size:
            return False, (
                f"you raised the bias of {_units(raised)}: raising a bias only switches units off and never helps "
                f"injectivity; lower entries of layer.alpha instead"
            )
        v = rf.check(layer.with_bias(alpha), domain, time_limit=120)
        if v.status == "undetermined":
            return False, f"rf.check could not decide it ({v.text}); try a slightly lower bias"
        if v.status == "not injective":
            x = np.asarray(v.pair[0])
            pre = layer.frame.vectors @ x - alpha
            on = np.flatnonzero(pre >= 0)
            off = np.flatnonzero(pre < 0)
            gaps = -pre[off] / layer.frame.norms[off]
            near = off[np.argsort(gaps)[:2]]
            return False, (
                f"your bias is too large: the layer is not injective on {domain.describe()}. At x = "
                f"{np.round(x, 3)} only {_units(on)} are active and their rows do not span R^{layer.n}, so x and a "
                f"point next to it share the output. The inactive units closest to switching on there are "
                f"{_units(near)} (missing by {np.round(np.sort(gaps)[:2], 3)} in distance): lower their biases, "
                f"or all biases a little"
            )
        m = copy.deepcopy(model)
        m.intercepts_[0] = -alpha
        acc, acc0 = m.score(*test), model.score(*test)
        if acc < acc0 - COST_13_1:
            return False, (
                f"injective on {domain.describe()} (rf.check: {v.method}), but the held-out accuracy fell from {acc0:.3f} to "
                f"{acc:.3f}: you lowered more than needed (by {np.round(layer.alpha - alpha, 2)}). Lower every unit "
                f"a little rather than a few a lot"
            )
        return True, (
            f"injective on {domain.describe()} (rf.check, method {v.method}), held-out accuracy {acc:.3f} "
            f"(cost {acc0 - acc:+.3f})"
        )

    return report("13.1", answer, verify)


def _wrong_answers_13_1(value):
    """For the leak probe: a bias raised far above the trained one, and one lowered far too much (cheap verdicts)."""
    a = np.asarray(value, dtype=float)
    return [a + 100.0, a - 100.0]


# ---------------------------------------------------------------------------------
# 13.2
# ---------------------------------------------------------------------------------


def _target_13_2(basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = _digits()[_DIGIT_13_2]
    return x, x @ basis


def noisy_code_13_2(layer: rf.ReLULayer, basis: np.ndarray | None = None) -> np.ndarray:
    """The hidden code of digit _DIGIT_13_2 (a layer on the data's span) plus N(0, NOISE_13_2^2) on every entry."""
    from relu_frames_nb.paper.local_invertibility import data_span

    V = data_span(_digits()) if basis is None else np.asarray(basis, dtype=float)
    _, c = _target_13_2(V)
    z = layer(c)
    return z + NOISE_13_2 * np.random.default_rng(1302).standard_normal(z.shape)


def check_13_2(answer: Any, *, layer: rf.ReLULayer, basis: np.ndarray) -> Feedback:
    """Exercise 13.2: the digit behind ``noisy_code_13_2(layer)``, within TOL_13_2."""

    def verify(ans):
        img = _vector(ans, 64, "your image")
        x, _ = _target_13_2(np.asarray(basis, dtype=float))
        err = float(np.linalg.norm(img - x))
        if err <= TOL_13_2:
            return True, f"your image is {err:.2f} from the digit (pixel units): the code was read correctly"
        worst = np.argsort(-np.abs(img - x))[:3]  # where, not by how much: the digit's pixels are the answer
        where = ", ".join(f"(row {k // 8 + 1}, column {k % 8 + 1})" for k in worst)
        return False, (
            f"your image is {err:.1f} from the digit (pixel units; accepted: {TOL_13_2}); it is furthest off at "
            f"{where}. Some positive entries of the noisy code are zeros of the clean code with noise on them: "
            f"which ones, and what does reading them as active do to the reconstruction?"
        )

    return report("13.2", answer, verify)


# ---------------------------------------------------------------------------------
# 13.3
# ---------------------------------------------------------------------------------


def check_13_3(answer: Any, *, layer: rf.ReLULayer, images: np.ndarray) -> Feedback:
    """Exercise 13.3: an image within 2 grey levels of digit DIGIT_13_3 where the active rows do not span R^64."""

    def verify(ans):
        img = _vector(ans, 64, "your image")
        x = np.asarray(images, dtype=float)[DIGIT_13_3]
        if not rf.is_rectifying(layer, x):  # the premise of the exercise
            raise AssertionError(f"the layer is not invertible at digit {DIGIT_13_3} itself: the exercise needs another digit")
        if img.min() < -ON_BOUNDARY or img.max() > 16 + ON_BOUNDARY:
            k = int(np.argmax(np.maximum(-img, img - 16)))
            return False, f"pixel (row {k // 8 + 1}, column {k % 8 + 1}) is {img[k]:.2f}, outside the grey levels [0, 16]"
        far = np.abs(img - x)
        if far.max() > 2 + ON_BOUNDARY:
            k = int(np.argmax(far))
            return False, (
                f"pixel (row {k // 8 + 1}, column {k % 8 + 1}) is {img[k]:.2f}, {far[k]:.2f} away from the digit's "
                f"{x[k]:.0f}: stay within 2 grey levels (a box around the digit, rf.Box)"
            )
        active = layer.active_set(img)
        rank = int(np.linalg.matrix_rank(layer.frame.vectors[active])) if active.any() else 0
        if rank == layer.n:
            return False, (
                f"at your image {int(active.sum())} units are active and their rows span R^{layer.n}: the layer is "
                f"invertible there. Look for an image near the digit at which fewer units are active, so few that "
                f"their rows lose a direction"
            )
        return True, (
            f"at your image only {int(active.sum())} units are active, rank {rank} < {layer.n}: a direction of the image "
            f"is invisible to the layer, and the digit's neighbourhood contains two images with one hidden code"
        )

    return report("13.3", answer, verify)


# ---------------------------------------------------------------------------------
# grading (scripts/grade.py, private: nothing a student calls): the objects the checks need, from the notebook's recipe
# ---------------------------------------------------------------------------------

#: the notebook's recipe (13_real_network, section 1): the split, the two networks and their training
SEED_13 = 0
EPOCHS_RAW_13 = 60
EPOCHS_PCA_13 = 400
HIDDEN_RAW_13 = (128, 32)
HIDDEN_PCA_13 = (8, 16)


class _TrainedMLP:
    """A fitted ``MLPClassifier`` as its weights: ``coefs_``, ``intercepts_``, ``classes_`` and its forward pass.

    What check_13_1 needs of a model (``intercepts_`` to change, :meth:`score`), rebuilt from arrays: no
    scikit-learn object crosses from one process to another, and nothing is unpickled. ``rf.Network.from_sklearn``
    reads it as it reads the model.
    """

    activation = "relu"
    out_activation_ = "softmax"

    def __init__(self, coefs, intercepts, classes):
        self.coefs_ = [np.asarray(c, dtype=float) for c in coefs]
        self.intercepts_ = [np.asarray(b, dtype=float) for b in intercepts]
        self.classes_ = np.asarray(classes)

    def predict(self, X) -> np.ndarray:
        """The class of each row of ``X``: ReLU hidden layers, then the largest logit (softmax keeps the order)."""
        h = np.asarray(X, dtype=float)
        for W, b in zip(self.coefs_[:-1], self.intercepts_[:-1]):
            h = np.maximum(h @ W + b, 0.0)
        return self.classes_[np.argmax(h @ self.coefs_[-1] + self.intercepts_[-1], axis=1)]

    def score(self, X, y) -> float:
        """The accuracy on ``(X, y)``, as ``MLPClassifier.score``."""
        return float(np.mean(self.predict(X) == np.asarray(y)))


def _reference_arrays() -> dict[str, np.ndarray]:
    """The notebook's data and networks rebuilt from its recipe, as arrays (for ``np.savez``; no pickle).

    Seeded, with one BLAS thread as the notebook trains: the weights are bit for bit those of its Run All.
    The grader builds them once per class in a process of its own, before any submission runs, so that a
    notebook that changes its own networks or data changes nothing the checks compare with.
    """
    import warnings

    from sklearn.datasets import load_digits
    from sklearn.decomposition import PCA
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPClassifier
    from threadpoolctl import threadpool_limits

    digits = load_digits()
    X, y = digits.data, digits.target
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=SEED_13, stratify=y)
    out: dict[str, np.ndarray] = {"y_te": y_te}
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        raw = MLPClassifier(hidden_layer_sizes=HIDDEN_RAW_13, max_iter=EPOCHS_RAW_13, random_state=SEED_13).fit(X_tr, y_tr)
        pca = PCA(n_components=3, whiten=True, random_state=SEED_13).fit(X_tr)
        Z, Z_tr, Z_te = pca.transform(X), pca.transform(X_tr), pca.transform(X_te)
        small = MLPClassifier(hidden_layer_sizes=HIDDEN_PCA_13, max_iter=EPOCHS_PCA_13, random_state=SEED_13).fit(Z_tr, y_tr)
    for name, model in (("raw", raw), ("pca", small)):
        for k, (W, b) in enumerate(zip(model.coefs_, model.intercepts_)):
            out[f"{name}_coef_{k}"], out[f"{name}_intercept_{k}"] = W, b
        out[f"{name}_classes"] = model.classes_
    out["Z_te"] = Z_te
    out["R"] = np.array(float(np.linalg.norm(Z, axis=1).max()))
    return out


def _trained(arrays, name: str) -> _TrainedMLP:
    k = 0
    coefs, intercepts = [], []
    while f"{name}_coef_{k}" in arrays:
        coefs.append(arrays[f"{name}_coef_{k}"])
        intercepts.append(arrays[f"{name}_intercept_{k}"])
        k += 1
    return _TrainedMLP(coefs, intercepts, arrays[f"{name}_classes"])


def _grading_objects(arrays) -> dict[str, dict[str, Any]]:
    """``{exercise: keyword arguments of its check}``, made from :func:`_reference_arrays` (a dict or an ``np.load``).

    The same objects as the notebook's check cells pass: ``L_pca``, ``ball``, ``mlp_pca``, ``(Z_te, y_te)``
    for 13.1; ``L_span``, ``V`` for 13.2; ``L_raw``, ``X`` for 13.3.
    """
    from relu_frames_nb.paper.local_invertibility import data_span

    raw, small = _trained(arrays, "raw"), _trained(arrays, "pca")
    L_raw = rf.Network.from_sklearn(raw).layer(0)
    L_pca = rf.Network.from_sklearn(small).layer(0)
    X = _digits()
    V = data_span(X)
    L_span = rf.ReLULayer.from_weights(L_raw.frame.vectors @ V, -L_raw.alpha)
    ball = rf.Ball(3, float(arrays["R"]))
    return {
        "13.1": {"layer": L_pca, "domain": ball, "model": small,
                 "test": (np.asarray(arrays["Z_te"]), np.asarray(arrays["y_te"]))},
        "13.2": {"layer": L_span, "basis": V},
        "13.3": {"layer": L_raw, "images": X},
    }
