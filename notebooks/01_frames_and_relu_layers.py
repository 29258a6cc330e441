# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 01 — Frames and ReLU layers
#
# A ReLU layer with weight rows $\phi_1, \dots, \phi_m \in \mathbb{R}^n$ and bias $\alpha \in \mathbb{R}^m$
# keeps a coefficient $\langle x, \phi_i\rangle - \alpha_i$ when it is positive and sets it to zero
# otherwise. Whether the input can be recovered from the output depends on *which* rows survive at
# each input. This notebook sets up the language of the whole chain.
#
# **What you will learn**
#
# * what a frame is: analysis and synthesis operators, frame bounds, the canonical dual and the
#   reconstruction formula $\tilde D C = I$;
# * the ReLU layer $C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)$ and how it relates to the
#   deep-learning convention $\mathrm{ReLU}(Wx + b)$;
# * active sets $I_x^\alpha$, the half-spaces $\Omega_i^\alpha$ and the central notion of an
#   **$\alpha$-rectifying frame**;
# * why the property only gets easier on smaller domains and with smaller biases.
#
# | tag | item |
# |---|---|
# | `[relulayer]` | the ReLU layer and the PyTorch sign convention $\alpha = -b$ |
# | `[alpharect]` | $\alpha$-rectifying frames: the active sub-frame spans at every point of $K$ |
# | `[fig:fig1]` | Figure 1: an active set $I_x^\alpha$, a half-space $\Omega_1^\alpha$, a basis on $K$ |
# | `[prop:inclusive]` | the property is monotone in the domain and in the bias |
#
# Conventions (the whole chain): rows of a matrix are the frame vectors; the layer is
# $C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)$ (the bias is *subtracted*); code indices are
# 0-based, the text counts $\phi_1, \phi_2, \dots$ from 1. Next:
# [02_injectivity](02_injectivity.ipynb) proves that $\alpha$-rectifying is the same as injective.

# %%
# %matplotlib inline
import numpy as np

import relu_frames_nb as rf
from relu_frames_nb.viz import plane

import exercises as ex  # the exercises' checkers: the folder exercises/ next to the notebooks

FULL = rf.full_size()  # RELU_FRAMES_FULL=1 selects the paper's sizes
SEED = 20240101
N = 200_000 if FULL else 20_000  # samples for checks "on the domain"
TRIALS = 200 if FULL else 40  # random layers for statements "for every frame and bias"
rng = np.random.default_rng(SEED)
np.set_printoptions(precision=4, suppress=True)

# %% [markdown]
# ## 1. Frames
#
# A collection $\Phi = (\phi_i)_{i=1}^m \subset \mathbb{R}^n$ is a **frame** for $\mathbb{R}^n$ when there
# are constants $0 < A \le B$ with
# $$A\|x\|^2 \;\le\; \sum_{i=1}^m \langle x,\phi_i\rangle^2 \;\le\; B\|x\|^2 \qquad (x \in \mathbb{R}^n);$$
# in finite dimension this just says that the $\phi_i$ span $\mathbb{R}^n$. Two operators come with it:
#
# * the **analysis operator** $C : \mathbb{R}^n \to \mathbb{R}^m$, $Cx = (\langle x,\phi_i\rangle)_{i}$ —
#   the matrix with rows $\phi_i$ (`Frame.analysis`);
# * the **synthesis operator** $D = C^\top : \mathbb{R}^m \to \mathbb{R}^n$, $Dc = \sum_i c_i\phi_i$
#   (`Frame.synthesis`).
#
# Their product $S = DC = \Phi^\top\Phi$ is the **frame operator**; the optimal bounds $A$ and $B$
# are its smallest and largest eigenvalues (`Frame.bounds`). Since $S$ is invertible, the
# **canonical dual** $\tilde\phi_i = S^{-1}\phi_i$ (`Frame.canonical_dual()`) reconstructs every
# vector from its coefficients: with $\tilde D$ its synthesis operator,
# $$\tilde D C x = \sum_i \langle x,\phi_i\rangle\, S^{-1}\phi_i = S^{-1}S x = x, \qquad \tilde D C = I .$$
# A frame is **tight** when $A = B$; then $\tilde\phi_i = \phi_i / A$. The triangle
# (Mercedes-Benz) frame of three unit vectors at $120^\circ$ is tight with $A = B = \tfrac32$.
#
# Check, for a random frame of 7 vectors in $\mathbb{R}^3$: the operators are the matrices above
# and adjoint to each other, the frame inequality holds with the computed bounds (and they are
# attained at eigenvectors), $\tilde D C = I$, and the triangle frame is tight.

# %%
F = rf.zoo.gaussian(7, 3, seed=SEED)
Phi = F.vectors
X = rng.standard_normal((500, 3))
Cs = rng.standard_normal((500, 7))

np.testing.assert_allclose(F.analysis(X), X @ Phi.T)  # C x = (<x, phi_i>)_i
np.testing.assert_allclose(F.synthesis(Cs), Cs @ Phi)  # D c = sum_i c_i phi_i
np.testing.assert_allclose(np.sum(F.analysis(X) * Cs, axis=1), np.sum(X * F.synthesis(Cs), axis=1))  # <Cx, c> = <x, Dc>
np.testing.assert_allclose(F.frame_operator, Phi.T @ Phi)

A, B = F.bounds
ratio = np.sum(F.analysis(X) ** 2, axis=1) / np.sum(X**2, axis=1)  # ||Cx||^2 / ||x||^2
assert np.all(A * (1 - 1e-12) <= ratio) and np.all(ratio <= B * (1 + 1e-12))
ev, U = np.linalg.eigh(F.frame_operator)
np.testing.assert_allclose([ev[0], ev[-1]], [A, B])
np.testing.assert_allclose(np.sum(F.analysis(U.T) ** 2, axis=1)[[0, -1]], [A, B])  # optimal: attained

Fd = F.canonical_dual()
np.testing.assert_allclose(Fd.synthesis(F.analysis(X)), X, atol=1e-12)  # D~ C = I
np.testing.assert_allclose(Fd.vectors.T @ Phi, np.eye(3), atol=1e-12)  # the same, as matrices

T = rf.zoo.mercedes_benz()
assert T.is_tight() and T.is_normalized()
np.testing.assert_allclose(T.bounds, [1.5, 1.5])
np.testing.assert_allclose(T.canonical_dual().vectors, T.vectors / 1.5)
print(F, f"A = {A:.4f}, B = {B:.4f}; D~C = I on 500 points")
print(T, f"is tight with A = B = {T.bounds[0]:.4f}")

# %% [markdown]
# ## 2. ReLU layers
#
# **[relulayer]** For a frame $\Phi = (\phi_i)_{i=1}^m$, a bias $\alpha \in \mathbb{R}^m$ and a domain
# $K \subseteq \mathbb{R}^n$, the ReLU layer is the analysis operator followed by a shifted
# rectifier:
# $$C_\alpha : K \to \mathbb{R}^m, \qquad C_\alpha(x) = \big(\max\{0, \langle x, \phi_i\rangle - \alpha_i\}\big)_{i=1}^m .$$
# A deep-learning library (PyTorch's `Linear` followed by `ReLU`) writes the same layer as
# $\mathrm{ReLU}(Wx + b)$: the weight matrix is the analysis operator ($W = \Phi$) and the bias changes
# sign, $\alpha = -b$. For $\alpha = 0$ the output is $\max(Cx, 0)$.
#
# Check: the batched forward pass equals the formula entry by entry and the deep-learning form;
# `from_weights(W, b)` stores $\alpha = -b$ and `to_weights()` gives $(W, b)$ back; with $\alpha=0$ the
# layer is the positive part of the analysis operator.

# %%
W = rng.standard_normal((7, 3))
b = rng.standard_normal(7)
L = rf.ReLULayer.from_weights(W, b)
X = rng.standard_normal((500, 3))

np.testing.assert_allclose(L.alpha, -b)
np.testing.assert_allclose(L(X), np.maximum(X @ W.T + b, 0.0))  # the deep-learning convention
x = X[0]
explicit = [max(0.0, float(np.dot(x, W[i])) - L.alpha[i]) for i in range(7)]  # the paper's formula
np.testing.assert_allclose(L(x), explicit)
W2, b2 = L.to_weights()
np.testing.assert_allclose(W2, W)
np.testing.assert_allclose(b2, b)
np.testing.assert_allclose(L.with_bias(0.0)(X), np.maximum(L.frame.analysis(X), 0.0))
print(L)
print("C_alpha(x) for the first sample:", L(x))

# %% [markdown]
# ## 3. Active sets and alpha-rectifying frames
#
# At an input $x$ the bias switches off every element with $\langle x, \phi_i\rangle < \alpha_i$. The
# survivors form the **active set**, and each element has a closed half-space where it is active:
# $$I_x^\alpha = \{i : \langle x,\phi_i\rangle \ge \alpha_i\}, \qquad
#   \Omega_i^\alpha = \{x : \langle x,\phi_i\rangle \ge \alpha_i\}.$$
# (An element with $\langle x,\phi_i\rangle = \alpha_i$ counts as active: its output is $0$, but
# knowing that the coefficient equals $\alpha_i$ is information too.)
#
# **[alpharect]** $\Phi$ is **$\alpha$-rectifying on $K$** if for every $x \in K$ the active
# sub-collection $\Phi_{I_x^\alpha} = (\phi_i)_{i \in I_x^\alpha}$ is a frame for $\mathbb{R}^n$, i.e.
# has rank $n$. A point where this holds is a *rectifying point*.
#
# Check: the library's test (`rf.is_rectifying`) agrees with a direct rank computation at random
# points, and `active_set` with the definition, for a frame with a repeated and a parallel vector
# (so that counting active elements would not be enough).

# %%
phi = rng.standard_normal((6, 3))
phi = np.vstack([phi, phi[0], -2.0 * phi[1]])  # a repeated and a parallel vector
alpha = rng.normal(0.0, 0.7, size=8)
L = rf.ReLULayer(phi, alpha)
X = rf.Ball(3, 2.0).sample(N, seed=SEED)

mask = X @ phi.T >= alpha  # the active sets, from the definition
assert np.array_equal(L.active_set(X), mask)
by_rank = np.array([np.linalg.matrix_rank(phi[row]) == 3 if row.any() else False for row in mask[:2000]])
assert np.array_equal(rf.is_rectifying(L, X[:2000]), by_rank)
assert 0 < by_rank.sum() < 2000  # both kinds of points occur
print(f"rectifying at {by_rank.sum()} of 2000 random points of B_2; rank test and library agree at every point")

# %% [markdown]
# **[fig:fig1]** Figure 1 of the paper, redrawn. Left: the active set at a point $x$ of the unit
# ball $\mathbb{B}$ (grey arrows are switched off; the lines are the boundaries
# $\langle x,\phi_i\rangle = \alpha_i$). Middle: the half-space $\Omega_1^\alpha$ inside $\mathbb{B}$.
# Right: a *basis* $(\phi_1, \phi_2)$ has no spare elements, so it is $\alpha$-rectifying on $K$
# exactly when $K \subseteq \Omega_1^\alpha \cap \Omega_2^\alpha$.

# %%
fig1 = plane.figure1()
fig1.suptitle("[fig:fig1] active sets and half-spaces")
fig1

# %% [markdown]
# Check of the caption: for random bases of $\mathbb{R}^2$ and random biases, a point is a
# rectifying point iff it lies in both half-spaces.

# %%
for t in range(TRIALS):
    Fb = rf.zoo.gaussian(2, 2, seed=SEED + t)
    Lb = rf.ReLULayer(Fb, rng.normal(0.0, 0.5, size=2))
    P = rf.Ball(2, 1.5).sample(2000, seed=t)
    in_both = np.all(P @ Fb.vectors.T >= Lb.alpha, axis=1)
    assert np.array_equal(rf.is_rectifying(Lb, P), in_both)
assert len(fig1.axes) == 3 and fig1.get_suptitle().startswith("[fig:fig1]")
print("a basis is rectifying exactly on the intersection of its half-spaces:", TRIALS, "random bases checked")

# %% [markdown]
# ## 4. Smaller domains, smaller biases
#
# **[prop:inclusive]** The property is monotone. If $\Phi$ is $\alpha'$-rectifying on $K'$, then
# (i) it is $\alpha'$-rectifying on every $K \subseteq K'$ (the definition is pointwise), and
# (ii) it is $\alpha$-rectifying on $K'$ for every $\alpha \le \alpha'$ (entrywise): lowering a bias
# can only add active elements, $I_x^{\alpha'} \subseteq I_x^{\alpha}$, and a collection that
# contains a spanning one spans.
#
# Check: (ii) pointwise for random frames, biases and decrements; (i) on five subsets of the unit
# ball (sphere, shell, smaller ball, positive quarter, a finite set) for the triangle frame at
# $\alpha = -\tfrac12$, which is rectifying on the whole ball (Example "mb" in
# [03_properties_of_frames](03_properties_of_frames.ipynb)).

# %%
for t in range(TRIALS):
    F = rf.zoo.gaussian(5, 2, seed=SEED + 100 + t)
    a_big = rng.normal(0.0, 0.5, size=5)
    a_small = a_big - rng.exponential(0.3, size=5)
    L_big, L_small = rf.ReLULayer(F, a_big), rf.ReLULayer(F, a_small)
    P = rf.Ball(2, 2.0).sample(2000, seed=t)
    assert np.all(L_big.active_set(P) <= L_small.active_set(P))  # I_x^{alpha'} is a subset of I_x^{alpha}
    assert np.all(rf.is_rectifying(L_small, P)[rf.is_rectifying(L_big, P)])  # rectifying for alpha' => for alpha

Ltri = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
assert rf.check_rectifying(Ltri, rf.Ball(2), n_samples=N).rectifying
subsets = [rf.Sphere(2), rf.Shell(2, 0.5, 1.0), rf.Ball(2, 0.3), rf.PositiveBall(2), rf.Samples(rf.Ball(2).sample(50, seed=3))]
for K in subsets:
    assert rf.check_rectifying(Ltri, K, n_samples=N).rectifying, K
print(f"monotone in the bias ({TRIALS} random layers) and in the domain ({len(subsets)} subsets of the ball)")

# %% [markdown]
# ## What we saw
#
# * A frame is a spanning collection; its analysis operator $C$ has a left inverse, the synthesis
#   operator $\tilde D$ of the canonical dual, and the frame bounds are the extreme eigenvalues
#   of $\Phi^\top\Phi$.
# * A ReLU layer is the analysis operator followed by a shifted rectifier; in deep-learning
#   notation $\mathrm{ReLU}(Wx+b)$ the bias is $\alpha = -b$.
# * At each input only the active elements $I_x^\alpha$ carry information about $x$; the frame is
#   $\alpha$-rectifying on $K$ when they span at every point of $K$ — a rank test, not a count.
# * A basis is rectifying exactly on the intersection of its half-spaces (Figure 1).
# * Shrinking the domain or lowering the bias never destroys the property.

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your answer, a worked solution (collapsed: try first) and a cell that
# checks the answer and says what is wrong. The checkers are in `notebooks/exercises/nb01.py`.

# %% [markdown] tags=["exercise"]
# ### Exercise 1.1 — Recover an input from its coefficients
#
# The frame `ex.nb01.frame_1_1()` has the four rows $(2, 0, 1)$, $(0, 1, -1)$, $(1, 1, 0)$, $(-1, 2, 1)$.
# An unknown $x \in \mathbb{R}^3$ has the coefficients $Cx = c = (3, -3, -\tfrac12, -\tfrac12)$
# (`ex.nb01.COEFFICIENTS_1_1`). Find $x$ from the frame and $c$ alone (section 1 says how), and set
# `answer_1_1` to it.

# %% tags=["answer"]
answer_1_1 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
F11 = ex.nb01.frame_1_1()
c11 = np.array(ex.nb01.COEFFICIENTS_1_1)
answer_1_1 = F11.canonical_dual().synthesis(c11)  # D~ c = D~ C x = x
print("x =", answer_1_1, "| C x =", F11.analysis(answer_1_1))
ex.solution("1.1", answer_1_1)

# %% tags=["check"]
ex.nb01.check_1_1(answer_1_1)

# %% [markdown] tags=["exercise"]
# ### Exercise 1.2 — Which neurons fire?
#
# A PyTorch layer `torch.nn.Linear(2, 4)` followed by `ReLU` has the weight
# `ex.nb01.W_1_2` $= \big((1, 2), (-1.5, 0.5), (0.5, -1), (2, 1)\big)$ and the bias
# `ex.nb01.B_1_2` $= (0.3, -0.2, 0.1, -1)$. Which of its rows are active (in the sense of section 3) at
# $x = (0.4, -0.1)$ (`ex.nb01.X_1_2`)? Set `answer_1_2` to the list of their numbers, counted from 1
# as in the text (the rows are $w_1, \dots, w_4$). Mind the sign convention of section 2. Do the active rows
# span $\mathbb{R}^2$?

# %% tags=["answer"]
answer_1_2 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
L12 = rf.ReLULayer.from_weights(np.array(ex.nb01.W_1_2), np.array(ex.nb01.B_1_2))  # alpha = -b
x12 = np.array(ex.nb01.X_1_2)
answer_1_2 = [int(i) + 1 for i in np.flatnonzero(L12.active_set(x12))]  # numbered from 1, as in the text
print("coefficients", L12.frame.analysis(x12), "vs alpha", L12.alpha, "-> active rows", answer_1_2,
      "| rectifying at x:", bool(rf.is_rectifying(L12, x12)))  # fmt: skip
ex.solution("1.2", answer_1_2)

# %% tags=["check"]
ex.nb01.check_1_2(answer_1_2)

# %% [markdown] tags=["exercise"]
# ### Exercise 1.3 — A point that is not rectifying
#
# The layer `ex.nb01.layer_1_3()` has unit rows at $0^\circ, 80^\circ, 170^\circ, 250^\circ$ and the bias
# $\alpha = (-0.2, 0.1, -0.3, 0.25)$. Find a point $x$ of the closed unit ball at which its active rows
# do not span $\mathbb{R}^2$ (by [02_injectivity](02_injectivity.ipynb) the layer then loses information
# near $x$), and set `answer_1_3` to it.

# %% tags=["answer"]
answer_1_3 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
L13 = ex.nb01.layer_1_3()
chk13 = rf.check_rectifying(L13, rf.Ball(2), n_samples=2000, seed=SEED)
answer_1_3 = chk13.failures[0]
print(f"{chk13.n_failed} of {chk13.n_checked} samples fail; at x = {answer_1_3} the active rows are",
      [int(i) + 1 for i in np.flatnonzero(L13.active_set(answer_1_3))])  # fmt: skip
ex.solution("1.3", answer_1_3)

# %% tags=["check"]
ex.nb01.check_1_3(answer_1_3)

# %%
print("01_frames_and_relu_layers: all checks passed")
