# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 13 — A trained network on real data: check it, invert it, make it injective
#
# The chain so far proves the paper's statements on the paper's frames. This notebook asks the question
# a practitioner asks next: *is the first layer of **my** trained network injective, and what does that
# buy me?* We train two small networks with scikit-learn on its bundled handwritten digits (1,797 images
# of 8 × 8 pixels, no download) and put every tool of the kit to work on them.
#
# **What you will learn**
#
# * three honest answers to "is the first layer injective?": on the data set itself (local
#   invertibility at each digit), on every possible image (the pixel box), and on the region around the
#   data (ball and convex hull) — and which method decides each one, and why;
# * to invert a trained layer: digits back from their hidden activations with the ReLU-duals and the
#   ReLU frame algorithm, and how much noise in the activations costs (the stability bounds of
#   [10_stability](10_stability.ipynb));
# * to make a layer injective with a certificate: lower its biases to a certified bound, measure the
#   accuracy it costs, and get the accuracy back by training with the constraint; and what the
#   data-driven bias estimate of the authors' code (samples of the data blown up by noise) guarantees;
# * to check a whole network layer by layer, in Python and from the command line;
# * to explore a digit's hidden code live, or draw your own digit.
#
# | tag | item of the paper, applied to a trained layer |
# |---|---|
# | `[reluinj0]` | Injectivity II: where the active rows do not span, two inputs collide |
# | `[thm:pbe]` | the polytope bias: a certificate on the ball, and its price |
# | `[thm:samp]` | the sampling bias: exact on the samples, nothing in between |
# | `[thm:leftinv]` | ReLU-dual I: exact reconstruction of the digits |
# | `[prop:framealg]` | the ReLU frame algorithm, and its rate on a trained layer |
# | `[prop:local-stability]` | noise in the activations against the local constant $1/A_{I_x}$ |
#
# Conventions: scikit-learn (like PyTorch) computes $\mathrm{ReLU}(Wx + b)$; the paper writes
# $C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)$ with the rows of $W$ as frame vectors, so
# $\alpha = -b$. "Lowering the bias" in the paper lowers the threshold $\alpha$, which **raises** $b$ and
# makes units active more often. `rf.ReLULayer.from_weights(W, b)` and `rf.Network.from_sklearn` do the
# conversion.

# %%
# %matplotlib inline
import copy
import json
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import exercises as ex  # the exercises' checkers: the folder exercises/ next to the notebooks
import numpy as np
from IPython.display import display
from matplotlib.figure import Figure
from scipy.optimize import linprog
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier, MLPRegressor
from threadpoolctl import threadpool_limits

import relu_frames_nb as rf
from relu_frames_nb.paper.local_invertibility import data_span
from relu_frames_nb.viz import palette, space
from relu_frames_nb.viz.readable import readable
from relu_frames_nb.viz.widgets import DigitsExplorer

FULL = rf.full_size()  # RELU_FRAMES_FULL=1: longer training with the constraint, more margins and samples
SEED = 0
# the two networks are the same at both sizes, so that every statement below is about one pair of models
EPOCHS_RAW = 60  # training epochs of the 64-pixel network (stops before scikit-learn's tolerance: on purpose)
EPOCHS_PCA = 400  # ... of the 3-dimensional (PCA) network
EPOCHS_TUNE = 400 if FULL else 150  # epochs of training with the constraint
COPIES = 50 if FULL else 10  # noisy copies of each digit for the data-driven bias
FA_STEPS = 20_000 if FULL else 2_000  # iterations of the ReLU frame algorithm
TIME_LIMIT = 120.0  # seconds for each exact verdict (they need a few)
np.set_printoptions(precision=3, suppress=True)
# small matrices: one BLAS thread is faster than several fighting over two cores, and it makes
# training bit-for-bit reproducible
threadpool_limits(limits=1)


def fit_quietly(model, X, y):
    """Fit a scikit-learn model; the short default training stops before its tolerance, on purpose."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y)


# %% [markdown]
# ## 1. The data and two networks
#
# The digits are 8 × 8 images with grey levels $0, \dots, 16$, flattened to 64 numbers. We hold out 30 %
# for testing and train two multilayer perceptrons with ReLU activations:
#
# * **raw**: the 64 pixels → 128 → 32 hidden units → 10 classes;
# * **PCA**: the pixels projected to their first **three** principal components (whitened) → 8 → 16 → 10.
#   Three inputs let us draw the first layer's polytope in 3-D and make every exact tool fast; the
#   price is accuracy (three numbers cannot tell all ten digits apart).

# %%
digits = load_digits()
X, y = digits.data, digits.target
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=SEED, stratify=y)
mlp_raw = fit_quietly(MLPClassifier(hidden_layer_sizes=(128, 32), max_iter=EPOCHS_RAW, random_state=SEED), X_tr, y_tr)

pca = PCA(n_components=3, whiten=True, random_state=SEED).fit(X_tr)
Z, Z_tr, Z_te = pca.transform(X), pca.transform(X_tr), pca.transform(X_te)
mlp_pca = fit_quietly(MLPClassifier(hidden_layer_sizes=(8, 16), max_iter=EPOCHS_PCA, random_state=SEED), Z_tr, y_tr)
acc_raw, acc_pca = mlp_raw.score(X_te, y_te), mlp_pca.score(Z_te, y_te)
print(f"{X.shape[0]} digits, {X_tr.shape[0]} for training, {X_te.shape[0]} held out")
print(f"raw network 64 -> 128 -> 32 -> 10: held-out accuracy {acc_raw:.3f}")
print(f"PCA network  3 ->   8 -> 16 -> 10: held-out accuracy {acc_pca:.3f} "
      f"(3 components keep {pca.explained_variance_ratio_.sum():.1%} of the pixel variance)")

# %%
assert X.shape == (1797, 64) and X.min() == 0 and X.max() == 16
assert acc_raw > 0.95 and 0.65 < acc_pca < acc_raw
assert mlp_raw.activation == mlp_pca.activation == "relu"

# %% [markdown]
# The first layers in the paper's notation. `rf.Network.from_sklearn` reads the fitted `coefs_` and
# `intercepts_` (scikit-learn stores $W^\top$) without importing scikit-learn, and leaves out the
# output layer (softmax, not a ReLU layer).

# %%
net_raw, net_pca = rf.Network.from_sklearn(mlp_raw), rf.Network.from_sklearn(mlp_pca)
L_raw, L_pca = net_raw.layer(0), net_pca.layer(0)
print(net_raw, "|", net_pca, "|", net_pca.note)
np.testing.assert_allclose(L_raw.frame.vectors, mlp_raw.coefs_[0].T)
np.testing.assert_allclose(L_raw.alpha, -mlp_raw.intercepts_[0])  # alpha = -b
H = np.maximum(X @ mlp_raw.coefs_[0] + mlp_raw.intercepts_[0], 0)  # scikit-learn's own first hidden layer
np.testing.assert_allclose(L_raw(X), H, atol=1e-10)
np.testing.assert_allclose(net_pca(Z), np.maximum(np.maximum(Z @ mlp_pca.coefs_[0] + mlp_pca.intercepts_[0], 0)
                                                  @ mlp_pca.coefs_[1] + mlp_pca.intercepts_[1], 0), atol=1e-10)

# %%
fig = Figure(figsize=(10, 3.2), layout="constrained")
sub = fig.subfigures(1, 2, width_ratios=[1.5, 1])
axs = sub[0].subplots(2, 8)
for k, ax in enumerate(axs.flat):
    ax.imshow(X[k].reshape(8, 8), cmap="gray_r", vmin=0, vmax=16)
    ax.set_title(f"#{k}: {y[k]}", fontsize=9)
    ax.set_axis_off()
sub[0].suptitle("the first 16 digits (index: label)", fontsize=11)
ax = sub[1].add_subplot()
sc = ax.scatter(Z[:, 0], Z[:, 1], c=y, cmap="tab10", s=5)
ax.set_xlabel("principal component 1 (whitened)")
ax.set_ylabel("principal component 2")
ax.set_title("the digits' PCA codes (2 of 3 coordinates)", fontsize=11)
sub[1].colorbar(sc, ax=ax, label="label", ticks=range(10))
readable(fig)  # text that reads at 9 px or more where the book shows it

# %% [markdown]
# ## 2. Is the first layer injective?
#
# ### 2a. On the data set: local invertibility
#
# On a finite data set the question has an exact but weak answer: no two of the 1,797 digits share a
# hidden code. The useful question is **local**: near each digit, do the hidden activations determine
# the input? At $x$ they do iff the active rows $\Phi_{I_x}$ span the space the inputs live in
# (Injectivity I and II, [02_injectivity](02_injectivity.ipynb)). The inputs here live in the data's
# span: three pixels are 0 in every digit (the left and right pixel of row 5 and the top left corner), so
# the digits span 61 of the 64 dimensions. `rf.local_invertibility` tests
# $\operatorname{rank}(\Phi_{I_x} V) = \dim V$ for an orthonormal basis $V$ of that span.

# %%
finite = rf.check(L_raw, rf.Samples(X))  # a finite set: outputs compared, exact
loc = rf.local_invertibility(L_raw, X)
dead = np.flatnonzero(X.max(axis=0) == 0)
print(finite.text)
print(loc.text)
print(f"always-blank pixels: {dead.tolist()}; without the span (rank n = 64 required) the share is "
      f"{rf.is_rectifying(L_raw, X).mean():.1%}")
fail = loc.failing
print(f"the {fail.size} digits where it fails, by label:", np.bincount(y[fail], minlength=10).tolist())

# %%
V = data_span(X)
assert finite.status == "injective" and V.shape == (64, 61) and dead.tolist() == [0, 32, 39]
assert 0.9 < loc.fraction < 1.0 and loc.span_dim == 61
for i in range(0, X.shape[0], 7):  # an independent rank test in the span, at every 7th digit
    rows = L_raw.frame.vectors[L_raw.active_set(X[i])] @ V
    spans = rows.shape[0] >= 61 and np.linalg.svd(rows, compute_uv=False)[-1] > 1e-10 * np.linalg.norm(rows, 2)
    assert spans == loc.invertible[i], i
assert rf.is_rectifying(L_raw, X).mean() < loc.fraction  # the full space asks more than the data need

# %% [markdown]
# The digits where the layer is not locally invertible, with the number of active units and the rank of
# their rows in the data's 61-dimensional span. A rank below 61 means there is a direction in which these
# digits can be changed without changing a single hidden activation.

# %%
show = fail[:12]
fig = Figure(figsize=(10, 2.4), layout="constrained")
axs = fig.subplots(1, len(show))
for ax, i in zip(axs, show):
    act = L_raw.active_set(X[i])
    ax.imshow(X[i].reshape(8, 8), cmap="gray_r", vmin=0, vmax=16)
    ax.set_title(f"#{i}: {y[i]}\n{act.sum()} active\nrank {np.linalg.matrix_rank(L_raw.frame.vectors[act] @ V)}",
                 fontsize=9, color=palette.BAD)
    ax.set_axis_off()
fig.suptitle(f"digits where the raw layer is not locally invertible ({fail.size} of {X.shape[0]})", fontsize=11)
readable(fig)  # text that reads at 9 px or more where the book shows it

# %%
for i in show:
    assert np.linalg.matrix_rank(L_raw.frame.vectors[L_raw.active_set(X[i])] @ V) < 61

# %% [markdown]
# ### 2b. On the pixel box: every possible image
#
# The network will be shown images that are not digits. On the box $[0, 16]^{64}$ of all images the exact
# verdict (`rf.check(..., method="exact")`: searches for a witness first -- samples, a greedy descent, the
# LP relaxation --, then a mixed-integer program) either certifies injectivity or
# returns a point whose active rows do not span, turned into two images with **identical** hidden
# activations and checked in floating point.
#
# **[reluinj0]** Injectivity II in action: at such a point $x$ the active rows miss a direction $v$
# ($\Phi_{I_x} v = 0$), and $x$ and $x + t v$ have the same output for every $t$ small enough that no
# inactive unit switches on. The verdict's pair is only a small step apart. To see how far it goes: every
# image $x + Nw$, $N$ a basis of the null space of the active rows, has the same output as long as the
# inactive units stay off and the image stays in the box — linear conditions on $w$, so two small linear
# programs find two far-apart images with the output of $x$.

# %%
box = rf.Box(np.zeros(64), np.full(64, 16.0))


def spread_pair(L, pair, K, margin=1e-6):
    """Two images of K with the same output as pair[0], far apart along the pair's direction.

    Every x + N w, with N a basis of the null space of the active rows (in the free coordinates of K),
    keeps the active units' values; it keeps the output as long as the inactive units stay below their
    thresholds and the image stays in K. Those conditions are linear in w: two small LPs find the
    extremes along the pair's direction. A margin of 1e-6 keeps every inequality strict.
    """
    x, direction = pair[0], pair[1] - pair[0]
    free = K.lo < K.hi
    act = L.active_set(x)
    _, sv, vt = np.linalg.svd(L.frame.vectors[act][:, free])
    rank = int(np.sum(sv > 1e-10 * sv[0]))
    N = np.zeros((x.size, int(free.sum()) - rank))
    N[free] = vt[rank:].T
    off = L.frame.vectors[~act]
    A_ub = np.vstack([off @ N, N[free], -N[free]])
    b_ub = np.concatenate([L.alpha[~act] - margin - off @ x, (K.hi - margin - x)[free], (x - K.lo - margin)[free]])
    ends = []
    for sign in (1.0, -1.0):
        res = linprog(-sign * (N.T @ direction), A_ub=A_ub, b_ub=b_ub, bounds=(None, None), method="highs")
        assert res.status == 0, res.message
        ends.append(x + N @ res.x)
    return ends[1], ends[0]


verdict_box = rf.check(L_raw, box, method="exact", time_limit=TIME_LIMIT)
a, b = spread_pair(L_raw, verdict_box.pair, box)
share_dead = np.sum((a - b)[dead] ** 2) / np.sum((a - b) ** 2)
print(f"exact verdict on the pixel box: {verdict_box.status} (method: {verdict_box.method}); "
      f"the witness has fewer than 64 active rows: {verdict_box.details['exact']['n_active'] < 64}")
print(f"spread pair: |a - b| = {np.linalg.norm(a - b):.1f}, largest pixel difference {np.abs(a - b).max():.1f} grey levels, "
      f"{share_dead:.0%} of |a - b|^2 on the 3 always-blank pixels")

# %%
assert verdict_box.status == "not injective" and verdict_box.pair is not None
np.testing.assert_allclose(L_raw(verdict_box.pair[0]), L_raw(verdict_box.pair[1]), rtol=1e-9, atol=1e-9)
np.testing.assert_allclose(L_raw(a), L_raw(b), rtol=1e-9, atol=1e-9)  # the spread pair collides too
assert box.contains(a) and box.contains(b) and np.abs(a - b).max() > 8  # half the grey scale at some pixel
assert share_dead > 0.5
print("column norms of W: always-blank pixels", np.linalg.norm(L_raw.frame.vectors[:, dead], axis=0).round(4),
      "| median pixel", np.median(np.linalg.norm(L_raw.frame.vectors, axis=0)).round(2))
assert np.linalg.norm(L_raw.frame.vectors[:, dead], axis=0).max() < 0.1 * np.median(np.linalg.norm(L_raw.frame.vectors, axis=0))

# %% [markdown]
# Most of the difference sits on the three pixels that are blank in every training digit: training never
# had a reason to give them weight, their columns of $W$ are tiny, and the layer barely sees them. Is
# that all? Fix those pixels at 0 (a box that is flat in three coordinates; the exact verdict works in
# the other 61) and ask again.

# %%
hi_live = np.full(64, 16.0)
hi_live[dead] = 0.0
box_live = rf.Box(np.zeros(64), hi_live)
verdict_live = rf.check(L_raw, box_live, method="exact", time_limit=TIME_LIMIT)
a2, b2 = spread_pair(L_raw, verdict_live.pair, box_live)
top = np.argsort(-np.abs(a2 - b2))[:3]
print(f"exact verdict with the blank pixels fixed at 0: {verdict_live.status} (method: {verdict_live.method}); "
      f"spread pair |a - b| = {np.linalg.norm(a2 - b2):.1f}")
for k in top:
    print(f"  pixel (row {k // 8 + 1}, column {k % 8 + 1}): differs by {abs(a2 - b2)[k]:.1f}; "
          f"non-zero in {np.mean(X[:, k] > 0):.1%} of the digits")

# %%
assert verdict_live.status == "not injective"
np.testing.assert_allclose(L_raw(a2), L_raw(b2), rtol=1e-9, atol=1e-9)
assert box_live.contains(a2) and box_live.contains(b2) and np.abs(a2 - b2)[dead].max() == 0
assert np.abs(a2 - b2).max() > 8 and np.mean(X[:, top[0]] > 0) < 0.01

# %% [markdown]
# Again the largest difference sits on a pixel that almost no digit uses. The layer is blind where the
# training data were blank: injectivity on *every* image fails there first, and the data's own span
# (section 2a) is the fairer domain for the question "can the digits be recovered?".

# %%
fig = Figure(figsize=(10, 4.6), layout="constrained")
rows = fig.subfigures(2, 1)
for sf, (p, q), title in [(rows[0], (a, b), "pixel box [0, 16]^64"),
                          (rows[1], (a2, b2), "pixel box with the 3 always-blank pixels fixed at 0")]:
    axs = sf.subplots(1, 4, width_ratios=[1, 1, 1, 2.6])
    for ax, img, name in [(axs[0], p, "image a"), (axs[1], q, "image b")]:
        ax.imshow(img.reshape(8, 8), cmap="gray_r", vmin=0, vmax=16)
        ax.set_title(name, fontsize=9)
        ax.set_axis_off()
    lim = np.abs(p - q).max()
    axs[2].imshow((q - p).reshape(8, 8), cmap="RdBu", vmin=-lim, vmax=lim)
    axs[2].set_title("b - a", fontsize=9)
    axs[2].set_axis_off()
    units = np.arange(1, L_raw.m + 1)
    axs[3].vlines(units, 0, L_raw(p), color=palette.OKABE_ITO["blue"], lw=2.2, label="activations of a")
    axs[3].plot(units, L_raw(q), ".", color=palette.OKABE_ITO["orange"], ms=3, label="activations of b")
    axs[3].set_xlabel("hidden unit", fontsize=9)
    axs[3].set_ylabel("activation", fontsize=9)
    axs[3].legend(fontsize=8, loc="upper right")
    axs[3].tick_params(labelsize=8)
    sf.suptitle(f"[reluinj0] {title}: two images, identical hidden activations", fontsize=10)
readable(fig)  # text that reads at 9 px or more where the book shows it

# %% [markdown]
# ### 2c. The PCA network: ball and convex hull of the data
#
# With three inputs every tool applies. The digits' codes $z \in \mathbb{R}^3$ lie in the ball of radius
# $R = \max\|z\|$ and, more tightly, in their convex hull. The first layer has only 8 units
# (redundancy $8/3$).

# %%
R = float(np.linalg.norm(Z, axis=1).max())
ball, hull = rf.Ball(3, R), rf.Hull(Z)
loc_pca = rf.local_invertibility(L_pca, Z)
v_hull = rf.check(L_pca, hull, method="exact", time_limit=TIME_LIMIT)
v_ball = rf.check(L_pca, ball, method="exact", time_limit=TIME_LIMIT)
print(f"R = {R:.3f}; {loc_pca.text}")
for name, v in [("convex hull", v_hull), ("ball B_R", v_ball)]:
    x_w = v.pair[0]
    print(f"{name:11s}: {v.status} (method {v.method}): at a point of norm {np.linalg.norm(x_w):.2f} only "
          f"{v.details['exact']['n_active']} units are active, rank {v.details['exact']['rank']} < 3")

# %%
assert loc_pca.fraction == 1.0  # every digit: locally invertible ...
assert v_hull.status == v_ball.status == "not injective"  # ... and yet not injective between the digits
for v, K in [(v_hull, hull), (v_ball, ball)]:
    p, q = v.pair
    np.testing.assert_allclose(L_pca(p), L_pca(q), rtol=1e-9, atol=1e-12)
    assert K.contains(p) and K.contains(q) and not np.allclose(p, q)
    assert np.linalg.matrix_rank(L_pca.frame.vectors[L_pca.active_set(p)]) < 3

# %% [markdown]
# The layer is invertible near every digit, but not on the hull: the witness lies between digits, where
# only two units are active. Now the two bias estimates of the paper, side by side with the trained bias:
#
# * **[thm:pbe]** the polytope bias on the ball $\mathbb{B}_R$ is a **certificate**: any $\alpha$ below it
#   (element by element) is injective on the ball. It is only sufficient: a trained bias above it proves
#   nothing.
# * **[thm:samp]** the sampling bias of the 1,797 codes is **exact on those points** (every digit keeps
#   its most correlated basis active) and says nothing between them.
#
# The trained bias exceeds both at some elements, so neither decides; `rf.check` runs its tests in
# order and says which one did.

# %%
pbe = rf.polytope_bias(L_pca.frame, ball)
samp = rf.sampling_bias(L_pca.frame, rf.Samples(Z), progress=False)
d_ball, d_hull = rf.check(L_pca, ball, time_limit=TIME_LIMIT), rf.check(L_pca, hull, time_limit=TIME_LIMIT)
print(f"{'unit':>4} {'trained α':>10} {'polytope (ball)':>16} {'sampling (data)':>16}")
for i in range(L_pca.m):
    print(f"{i + 1:>4} {L_pca.alpha[i]:>10.3f} {pbe.values[i]:>16.3f} {samp.values[i]:>16.3f}")
print(f"polytope bias: {pbe.guarantee}, margin min(bound - α) = {d_ball.details['polytope_margin']:.3f}; "
      f"sampling bias: exceeded at {int(np.sum(L_pca.alpha > samp.values))} of {L_pca.m} units")
print(f"rf.check on the ball: {d_ball.status}, decided by: {d_ball.method}")
print(f"rf.check on the hull: {d_hull.status}, decided by: {d_hull.method}")

# %%
assert pbe.guarantee == "guaranteed" and d_ball.details["polytope_margin"] < 0 and np.any(L_pca.alpha > pbe.values)
assert np.any(L_pca.alpha > samp.values)
assert rf.is_rectifying(L_pca.with_bias(np.minimum(L_pca.alpha, samp.values)), Z).all()  # exact on the data
assert d_ball.status == d_hull.status == "not injective"
assert d_ball.method == "collision" and d_hull.method.startswith("exact")
# the samples of the ball fail somewhere, those of the hull nowhere
assert d_ball.details["points_failing"] > 0 and d_hull.details["points_failing"] == 0
samples_ball = ball.sample(20_000, seed=SEED)  # the polytope bias is a proof on the ball: no sample fails
assert rf.is_rectifying(L_pca.with_bias(np.minimum(L_pca.alpha, pbe.values)), samples_ball).all()
share_hull = np.mean(~rf.is_rectifying(L_pca, hull.sample(20_000, seed=SEED)))
print(f"share of the hull (uniform samples) where the trained layer is not rectifying: {share_hull:.2%}")
assert share_hull < 0.01  # a thin sliver

# %% [markdown]
# On the ball, the samples `rf.check` draws already contain points where fewer than three units are
# active, so its collision search finds a verified pair and the answer comes fast. On the hull those
# fast tests find nothing (the failing region is a thin sliver between digits), and the exact verdict
# settles it by solving one small linear program per plane spanned by two frame vectors.

# %%
fig = Figure(figsize=(8, 3.4), layout="constrained")
ax = fig.add_subplot()
k = np.arange(1, L_pca.m + 1)
ax.bar(k - 0.27, L_pca.alpha, 0.26, color=palette.INK, label="trained α = -b")
ax.bar(k, pbe.values, 0.26, color=palette.OKABE_ITO["blue"], label="polytope bias on $\\mathbb{B}_R$ (certificate)")
ax.bar(k + 0.27, samp.values, 0.26, color=palette.OKABE_ITO["orange"], label="sampling bias of the data (exact on it)")
ax.axhline(0, color=palette.MUTED, lw=0.8)
ax.set_xticks(k, [f"φ{i}" for i in k])
ax.set_ylabel("bias α")
ax.set_ylim(top=1.3)
ax.set_title("[thm:pbe] [thm:samp] first layer of the PCA network: trained bias above both bounds", fontsize=11)
ax.legend(fontsize=8, loc="upper right", ncols=3)
fig

# %% [markdown]
# In 3-D: the inscribing polytope of the 8 normalized frame vectors, and for the unit that exceeds the
# polytope bias most, the plane of its trained bias $\{x : \langle x, \phi_i\rangle = \alpha_i\}$ and its
# star (the facets that set its polytope bias). The viewer draws the unit ball; since
# $\langle x, \phi\rangle \ge \alpha$ on $\mathbb{B}_R$ is $\langle x/R, \phi\rangle \ge \alpha/R$ on the unit ball, it
# shows the biases divided by $R$. Drag to rotate; without a kernel a still picture stands in.

# %%
worst = int(np.argmax(L_pca.alpha - pbe.values))
viewer = space.PolytopeViewer(L_pca.frame, layers=["facets", "edges", "vertices", "labels", "bias_plane", "star"],
                              domain=rf.Ball(3), bias=L_pca.alpha / R, element=worst, vertex=worst, width=420, height=420)
viewer

# %%
np.testing.assert_allclose(viewer.scene.estimate.values * R, pbe.values, atol=1e-12)  # the same bound, scaled
assert viewer.scene.element == viewer.scene.vertex == worst and viewer.visible >= {"bias_plane", "star"}
print(f"φ{worst + 1}: trained α/R = {L_pca.alpha[worst] / R:.3f} above its polytope bias {pbe.values[worst] / R:.3f}")

# %% [markdown]
# ## 3. Invert it
#
# The raw layer is invertible near 96 % of the digits. There, the digit comes back from its 128 hidden
# activations alone. We work in the data's span (coordinates $c = V^\top x$, frame $\Phi V$): the
# blank pixels carry no information, and the reconstruction is $x = V c$.
#
# **[thm:leftinv]** ReLU-dual I: with $J = \{i : z_i > 0\}$, $c = (\Phi V)_J^{+}(z_J + \alpha_J)$ is exact
# wherever $(\Phi V)_J$ spans; `rf.reconstruct` does this for all digits at once and refuses where it
# does not span.

# %%
L_span = rf.ReLULayer.from_weights(L_raw.frame.vectors @ V, -L_raw.alpha)  # the layer on the data's span
C = X @ V
ok = loc.invertible
X_rec = rf.reconstruct(L_span, L_span(C[ok])) @ V.T
err_dual = np.linalg.norm(X_rec - X[ok], axis=1)
print(f"{ok.sum()} digits reconstructed from their activations: largest error {err_dual.max():.1e} (pixel units)")
try:
    rf.reconstruct(L_span, L_span(C[fail[:1]]))
    raise AssertionError("expected a refusal")
except rf.NotInjectiveError as exc:
    print(f"digit #{fail[0]}: refused —", str(exc).split(";")[0].split(": ", 1)[1])

# %%
np.testing.assert_allclose(L_span(C), L_raw(X), atol=1e-9)  # the same layer, on the data
np.testing.assert_allclose(X_rec, X[ok], atol=1e-6)
assert err_dual.max() < 1e-6

# %% [markdown]
# **[prop:framealg]** The ReLU frame algorithm reconstructs without inverting a matrix, at the rate
# $1 - 2A_x/(A+B)$ per step, $A_x$ the lower frame bound of the active rows. For this trained layer that
# rate is painfully close to 1: the data's weakest directions (low-variance combinations of border
# pixels) get tiny weights, so $A_x$ is about $10^{-4}$ while $B \approx 3.7$. After a few thousand steps
# the digits are recognisable but not exact; the ReLU-dual is exact at once.

# %%
pick = np.flatnonzero(ok)[:8]
fa = rf.relu_frame_algorithm(L_span, L_span(C[pick]), x_true=C[pick], n_iter=FA_STEPS, tol=1e-12)
X_fa = fa.x @ V.T
A_span, B_span = L_span.frame.bounds
err_fa = np.linalg.norm(X_fa - X[pick], axis=1)
print(f"frame bounds of Phi V: A = {A_span:.2e}, B = {B_span:.2f}; active lower bounds A_x of these digits in "
      f"[{fa.active_lower_bound.min():.1e}, {fa.active_lower_bound.max():.1e}]")
print(f"rate bound per step in [{fa.rate_bound.min():.6f}, {fa.rate_bound.max():.6f}]; after {FA_STEPS} steps the "
      f"error is {err_fa.min():.2f} to {err_fa.max():.2f} (digits have norm about {np.linalg.norm(X[pick], axis=1).mean():.0f})")

# %%
np.testing.assert_allclose(fa.rate_bound, 1 - 2 * fa.active_lower_bound / (A_span + B_span))
assert np.all(fa.rate_bound > 0.999)
assert np.all(err_fa < np.linalg.norm(X[pick], axis=1))  # on its way ...
assert np.all(err_fa > 1e3 * err_dual.max())  # ... but far from the ReLU-dual's exact answer

# %% [markdown]
# **[prop:local-stability]** Noise. Suppose the activations arrive with 1 % relative noise on each
# non-zero entry (the pattern of zeros is kept, so the ReLU-dual uses the same rows $J = I_x$). The
# ReLU-dual is linear on $J$, so the error is $(\Phi V)_J^+ e_J$ and
# $\|\hat c - c\| \le \|e_J\| / \sqrt{A_J}$: the local constant $\kappa_x = 1/A_{I_x}$ of notebook 10. We
# measure the error of every invertible digit against that bound.

# %%
rng = np.random.default_rng(SEED)
Z_clean = L_span(C[ok])
NOISE = 0.01
E = NOISE * Z_clean * rng.standard_normal(Z_clean.shape)  # 1 % relative noise; zeros stay zeros
C_noisy = rf.reconstruct(L_span, Z_clean + E)
err_noise = np.linalg.norm(C_noisy - C[ok], axis=1)
A_x = rf.active_lower_bound(L_span, C[ok])
bound = np.linalg.norm(E, axis=1) / np.sqrt(A_x)
print(f"noise |e|: median {np.median(np.linalg.norm(E, axis=1)):.2f}; reconstruction error: median "
      f"{np.median(err_noise):.2f}, largest {err_noise.max():.1f} (pixel units; the digits' median norm is "
      f"{np.median(np.linalg.norm(X, axis=1)):.0f})")
print(f"bound |e|/sqrt(A_x): median {np.median(bound):.0f}; measured / bound at most {np.max(err_noise / bound):.2f}")
s0 = rf.local_stability(L_span, C[ok][0])
print(f"digit #{np.flatnonzero(ok)[0]}: local constant kappa = 1/A_J = {s0.kappa:.0f} (notebook 10's local_stability)")

# %%
assert np.all(Z_clean + E >= 0) and np.all((Z_clean + E > 0) == (Z_clean > 0))  # the same rows J
assert np.all(err_noise <= bound * (1 + 1e-9))  # the stability bound holds for every digit
np.testing.assert_allclose(s0.kappa, 1 / A_x[0], rtol=1e-8)
assert np.median(err_noise / bound) < 0.5  # ... and is pessimistic: the noise rarely hits the worst direction

# %%
pos = np.searchsorted(np.flatnonzero(ok), pick)  # the picked digits among the invertible ones
fig = Figure(figsize=(10, 5.4), layout="constrained")
axs = fig.subplots(4, len(pick))
for j, i in enumerate(pick):
    for r, (img, name) in enumerate([(X[i], "digit"), (X_rec[pos[j]], "ReLU-dual"), (X_fa[j], f"frame alg.\n{FA_STEPS} steps"),
                                     (C_noisy[pos[j]] @ V.T, f"ReLU-dual\n{NOISE:.0%} noise")]):
        axs[r, j].imshow(np.clip(img, 0, 16).reshape(8, 8), cmap="gray_r", vmin=0, vmax=16)
        axs[r, j].set_xticks([])
        axs[r, j].set_yticks([])
        if j == 0:
            axs[r, j].set_ylabel(name, fontsize=9)
    axs[0, j].set_title(f"#{i}: {y[i]}", fontsize=9)
    axs[3, j].set_xlabel(f"error {err_noise[pos[j]]:.1f}", fontsize=8)
fig.suptitle("[thm:leftinv] [prop:framealg] [prop:local-stability] digits from their hidden activations", fontsize=11)
readable(fig)  # text that reads at 9 px or more where the book shows it

# %%
fig = Figure(figsize=(10, 3.6), layout="constrained")
ax0, ax1 = fig.subplots(1, 2)
order = np.argsort(err_dual)
ax0.semilogy(np.arange(ok.sum()), np.maximum(err_dual[order], 1e-16), color=palette.GOOD, lw=1.5,
             label="ReLU-dual, exact activations")
ax0.semilogy(np.arange(ok.sum()), np.sort(err_noise), color=palette.BAD, lw=1.5, label=f"ReLU-dual, {NOISE:.0%} noise")
ax0.set_xlabel("digit (sorted by error)")
ax0.set_ylabel("reconstruction error $\\|\\hat x - x\\|$")
ax0.set_title("error per digit", fontsize=11)
ax0.legend(fontsize=8)
ax0.grid(alpha=0.3)
ax1.loglog(bound, err_noise, ".", ms=3, color=palette.OKABE_ITO["blue"])
lims = [min(bound.min(), err_noise.min()), bound.max()]
ax1.plot(lims, lims, "--", color=palette.MUTED, label="error = bound")
ax1.set_xlabel("bound $\\|e\\|/\\sqrt{A_{I_x}}$")
ax1.set_ylabel("measured error")
ax1.set_title("[prop:local-stability] noisy activations vs the bound", fontsize=11)
ax1.legend(fontsize=8)
ax1.grid(alpha=0.3)
readable(fig)  # text that reads at 9 px or more where the book shows it

# %% [markdown]
# ## 4. Make it injective
#
# Back to the PCA network, whose first layer is not injective on the data's hull. Lowering biases only
# makes more units active, and a bias below a certified bound is injective. Four choices, each with what
# it guarantees:
#
# * **polytope**: $\min(\alpha, \alpha_{\text{polytope}})$ on the ball $\mathbb{B}_R$ — a proof on the ball
#   (and on the hull inside it);
# * **exact threshold**: lower every unit by the same amount $s\|\phi_i\|$, with the smallest $s$ that
#   the exact verdict certifies on the hull (bisection) — a proof on the hull, found by the solver;
# * **sampling (data)**: $\min(\alpha, \alpha_{\text{sampling}})$ of the 1,797 codes — exact on those
#   points only;
# * **sampling (data + noise)**: the data-driven estimate of the authors' code: the sampling bias of
#   copies of the data blown up by Gaussian noise of scale $\sigma$ — an estimate for a neighbourhood of
#   the data, no proof anywhere.
#
# The price is measured by putting the new bias into a copy of the trained network (the other layers
# unchanged) and scoring it on the held-out digits.

# %%
def with_first_bias(model, alpha):
    """A copy of a fitted MLP whose first layer has the paper's bias alpha (b = -alpha)."""
    m = copy.deepcopy(model)
    m.intercepts_[0] = -np.asarray(alpha, dtype=float)
    return m


def exact_threshold(L, K, *, steps=7, s_max=1.0):
    """The smallest s (to s_max / 2**steps) such that alpha - s |phi_i| is certified injective on K."""
    lo, hi = 0.0, s_max
    def certified(s):
        v = rf.check(L.with_bias(L.alpha - s * L.frame.norms), K, method="exact", time_limit=TIME_LIMIT)
        return v.status == "injective"

    assert certified(hi)
    for _ in range(steps):
        mid = (lo + hi) / 2
        if certified(mid):
            hi = mid
        else:
            lo = mid
    return hi


SIGMA = 0.3  # noise scale in whitened PCA units (the codes have unit variance per coordinate)
Z_noisy = np.repeat(Z, COPIES, axis=0) + SIGMA * rng.standard_normal((COPIES * Z.shape[0], 3))
samp_noise = rf.sampling_bias(L_pca.frame, rf.Samples(Z_noisy), progress=False)
s_star = exact_threshold(L_pca, hull)
choices = {
    "trained": (L_pca.alpha, "—"),
    "polytope (ball)": (np.minimum(L_pca.alpha, pbe.values), "proof on B_R"),
    "exact threshold (hull)": (L_pca.alpha - s_star * L_pca.frame.norms, "proof on the hull"),
    "sampling (data)": (np.minimum(L_pca.alpha, samp.values), "exact on the data"),
    f"sampling (data + noise, σ = {SIGMA})": (np.minimum(L_pca.alpha, samp_noise.values), "estimate"),
}
table = {}
print(f"exact threshold: s* = {s_star:.4f} (units lowered by s*|φ_i|)")
print(f"{'bias':36s} {'guarantee':18s} {'hull':14s} {'ball':14s} {'accuracy':>8s}")
for name, (alpha, guarantee) in choices.items():
    Lc = L_pca.with_bias(alpha)
    st = [rf.check(Lc, K, method="exact", time_limit=TIME_LIMIT).status for K in (hull, ball)]
    acc = with_first_bias(mlp_pca, alpha).score(Z_te, y_te)
    table[name] = (*st, acc)
    print(f"{name:36s} {guarantee:18s} {st[0]:14s} {st[1]:14s} {acc:8.3f}")

# %%
assert table["trained"][:2] == ("not injective", "not injective") and table["trained"][2] == acc_pca
assert table["polytope (ball)"][:2] == ("injective", "injective")
assert table["exact threshold (hull)"][0] == "injective"
assert rf.check(L_pca.with_bias(L_pca.alpha - (s_star - 1 / 2**7) * L_pca.frame.norms), hull, method="exact",
                time_limit=TIME_LIMIT).status == "not injective"  # s* is the threshold, to 1/128
cost_pbe = acc_pca - table["polytope (ball)"][2]
cost_exact = acc_pca - table["exact threshold (hull)"][2]
assert cost_pbe > 0.1 and cost_exact < 0.02  # the certificate found by the solver is far cheaper
assert np.all(samp_noise.values <= samp.values + 1e-12)  # more (noisy) samples only lower the estimate
print(f"accuracy cost: polytope bias {cost_pbe:.3f}, exact threshold {cost_exact:.3f}")

# %% [markdown]
# The polytope bias is a proof, but a blunt one: it pushes some thresholds down by almost two units of
# length and costs 18 points of accuracy. The exact threshold lowers every unit a little and costs less than
# one point — but it needs the solver, and it holds on the hull only. The sampling bias of the data
# protects the 1,797 points and nothing else: the hull stays non-injective. The noisy version (the
# authors' data-driven estimate) happens to be injective on the hull here, which nothing in its
# construction promises, and not on the ball; both cost more accuracy than the exact threshold.
#
# **Training with the constraint.** Rather than paying in accuracy, let training adapt the weights to a
# certified bias: continue training with `partial_fit`, one epoch at a time, and after each epoch clamp the
# first layer's biases below the polytope bias of its *current* weights, with a safety margin $\delta$:
# $\alpha_i \le \alpha_{\text{polytope},i} - \delta\|\phi_i\|$, i.e. $b \leftarrow \max(b, -\alpha_{\text{polytope}} +
# \delta\|\phi\|)$, in place (the optimizer keeps a reference to the array). The margin has a meaning:
# with it the layer is injective on the ball of radius $R + \delta$ (every $y = x + e$, $\|x\| \le R$,
# $\|e\| \le \delta$, keeps at least the units that the polytope bias keeps active at $x$), i.e. also for
# codes up to $\delta$ outside the data's ball. If the weights ever stop being omnidirectional there is no
# polytope bias; the fallback is Lemma $B_r$, $\alpha_i = -R\|\phi_i\|$, which keeps every unit active on the
# ball. A copy trained without the clamp ("free") shows what the margin
# $\min_i(\alpha_{\text{polytope},i} - \alpha_i)/\|\phi_i\|$ does on its own.

# %%
def certified_bound(W):
    """The polytope bias of the rows of W on the ball B_R (or Lemma B_r's -R|phi_i| if not omnidirectional)."""
    try:
        return rf.polytope_bias(W, ball).values, "polytope"
    except rf.NotOmnidirectionalError:
        return -R * np.linalg.norm(W, axis=1), "lemma B_r"


def train_with_clamp(delta):
    """Continue training mlp_pca for EPOCHS_TUNE epochs; after each, clamp alpha <= bound - delta |phi| (None: free)."""
    model = copy.deepcopy(mlp_pca)
    b = model.intercepts_[0]  # the optimizer updates this very array: clamp it in place
    acc, margin, fallback = [], [], 0
    for epoch in range(EPOCHS_TUNE + 1):
        if epoch:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.partial_fit(Z_tr, y_tr)
        W1 = model.coefs_[0].T
        bound_now, kind = certified_bound(W1)
        fallback += kind != "polytope"
        norms = np.linalg.norm(W1, axis=1)
        if delta is not None:
            np.maximum(b, -(bound_now - delta * norms), out=b)
        acc.append(model.score(Z_te, y_te))
        margin.append(float(np.min((bound_now + b) / norms)))  # (bound - alpha) / |phi|, alpha = -b
    return model, np.array(acc), np.array(margin), fallback


DELTAS = [0.0, 0.25, 0.5, 0.75, 1.0, 1.5] if FULL else [0.0, 0.5, 1.0]
runs = {None: train_with_clamp(None)} | {d: train_with_clamp(d) for d in DELTAS}
print(f"{'run':>12s} {'accuracy after clamping':>24s} {'after training':>15s} {'margin':>8s} {'injective on':>22s}")
for d, (model, acc, margin, fallback) in runs.items():
    K_d = ball if d is None else rf.Ball(3, R + d)
    st = rf.check(rf.Network.from_sklearn(model).layer(0), K_d, method="exact", time_limit=TIME_LIMIT).status
    runs[d] = (model, acc, margin, fallback, st)
    name = "free" if d is None else f"δ = {d}"
    print(f"{name:>12s} {acc[0]:>24.3f} {acc[-1]:>15.3f} {margin[-1]:>+8.3f} {f'B(R + {d or 0}): ' + st:>22s}"
          + (f"  (Lemma B_r in {fallback} epochs)" if fallback else ""))
mlp_inj = runs[0.0][0]
L_inj = rf.Network.from_sklearn(mlp_inj).layer(0)
v_inj = [rf.check(L_inj, K, method="exact", time_limit=TIME_LIMIT).status for K in (hull, ball)]
print(f"δ = 0: exact verdict on the hull {v_inj[0]}, on the ball {v_inj[1]}; accuracy {runs[0.0][1][-1]:.3f} "
      f"against {acc_pca:.3f} trained: cost {acc_pca - runs[0.0][1][-1]:+.3f} (clamping alone: {cost_pbe:+.3f})")

# %%
assert runs[None][4] == "not injective" and np.all(runs[None][2] < 0)  # free: the certificate never holds
for d in DELTAS:
    model, acc, margin, fallback, st = runs[d]
    assert np.all(margin >= d - 1e-9), d  # the clamp keeps the margin at every epoch ...
    assert st == "injective", d  # ... and the exact verdict confirms the ball of radius R + delta
assert v_inj == ["injective", "injective"]
assert runs[0.0][1][0] == table["polytope (ball)"][2]  # epoch 0 is the clamped trained network
assert runs[0.0][1][-1] >= acc_pca - 0.02 and runs[0.0][1][-1] > runs[0.0][1][0] + 0.1  # training won it back
after_clamp = [runs[d][1][0] for d in DELTAS]
assert all(p > q for p, q in zip(after_clamp, after_clamp[1:]))  # right after the clamp, a larger margin costs more
assert all(runs[d][1][-1] >= acc_pca - 0.05 for d in DELTAS if d <= 1.0)  # ... and training wins most of it back

# %%
fig = Figure(figsize=(10, 3.8), layout="constrained")
ax0, ax1 = fig.subplots(1, 2)
ep = np.arange(EPOCHS_TUNE + 1)
colors = {None: palette.BAD} | {d: c for d, c in zip(DELTAS, [palette.ELEMENT_COLORS[k] for k in (0, 2, 3, 4, 5, 6)])}
for d, (_, acc, _, _, _) in runs.items():
    ax0.plot(ep, acc, color=colors[d], lw=1.5, label="free" if d is None else f"clamped, δ = {d}")
ax0.axhline(acc_pca, color=palette.MUTED, ls="--", lw=1, label="trained")
ax0.set_xlabel("epoch of further training (0: right after the clamp)")
ax0.set_ylabel("held-out accuracy")
ax0.set_title("accuracy while training with the constraint", fontsize=11)
ax0.legend(fontsize=8, loc="lower right")
ax0.grid(alpha=0.3)
for d, (_, acc, margin, _, st) in runs.items():
    ax1.plot(margin, acc, "-", color=colors[d], lw=0.8, alpha=0.6)
    ax1.plot(margin[-1], acc[-1], "o" if d is None else "s", color=colors[d], ms=7,
             label=f"{'free' if d is None else f'δ = {d}'}: {st} on B(R + {d or 0})")
ax1.axvline(0, color=palette.MUTED, lw=1)
ax1.set_xlabel("margin $\\min_i(\\alpha_{polytope,i} - \\alpha_i)/\\|\\phi_i\\|$ (≥ 0: certified on $\\mathbb{B}_R$)")
ax1.set_ylabel("held-out accuracy")
ax1.set_title("[thm:pbe] accuracy against the injectivity margin (lines: epochs)", fontsize=11)
ax1.legend(fontsize=8, loc="lower left")
ax1.grid(alpha=0.3)
readable(fig)  # text that reads at 9 px or more where the book shows it

# %% [markdown]
# ## 5. The whole network
#
# A network is injective on $K$ if layer 1 is injective on $K$ and each later layer is injective on a set
# containing the image of the layers before it. `rf.check(net, K)` certifies layer 1 on $K$ and layer
# $k + 1$ on a box enclosing the image of layer $k$ (interval bounds); a pair found for a later layer
# counts only if it lifts back to two inputs in $K$. When the box decides nothing, the layer is asked
# again on the **true image**: the layers before it are written into a mixed-integer model exactly (one
# binary per unit that can switch, with LP-tightened bounds), and the MILP looks for the point of the
# image with the fewest strictly active rows. More than $h$ of them everywhere is a certificate for any
# set, convex or not; a point where the network's Jacobian is singular gives a colliding pair of inputs.
#
# When the input has few dimensions (here 3), a third argument works **across the pieces** of the image.
# Two inputs $x \ne y$ whose images collide are either far apart — then two copies of the exact encoding,
# tied together by equal outputs, show with a MILP that no such pair is farther apart than a tiny $\delta$
# — or close: then $G(x) - G(y) = \Theta W_1 (x - y)$ with secant slopes $\theta_u \in [0, 1]$ of the
# ReLUs, which are fixed (0 or 1) except for units within $\delta$ of their kink, and every row of layer
# 2 that is strictly active gives $w_i \Theta W_1 (x - y) = 0$. The rows *pulled back to the 3-dimensional
# input space* must then lie in one plane; in every cell of the input (cut by the units' signs and their
# kinks) fewer of them can do so, for any slopes, than stay strictly active. Each layer's verdict says
# which input set carried it. Here, for the trained and the constrained PCA network on the data's hull:

# %%
net_inj = rf.Network.from_sklearn(mlp_inj)
nets = {"trained": net_pca, "with the constraint": net_inj}
checks = {name: rf.check(net, hull, time_limit=TIME_LIMIT) for name, net in nets.items()}
for name, nv in checks.items():
    print(f"{name}: {nv.status}")
    widths = nets[name].widths
    for k, c in enumerate(nv.layers):
        print(f"   {c.details['layer']} ({widths[k]} → {widths[k + 1]}): {c.status} on {c.details['input_set']}; "
              f"the layer alone on its domain: {c.details['layer_status']}")
        if "image" in c.details:
            img = c.details["image"]
            print(f"      on the true image: {img['status']}; fewest strictly active rows {img['lower']} to {img['upper']}, "
                  f"h = {img['h']}")
    print("\n".join("   | " + line for line in nv.report().splitlines()))
on_codes = rf.check(net_inj, Z)  # an array is a finite data set
print("on the 1,797 codes themselves:", on_codes.status)

# %%
nv_tr, nv_inj = checks["trained"], checks["with the constraint"]
assert nv_tr.status == "not injective" and nv_tr.pair_layer == 1
np.testing.assert_allclose(net_pca(nv_tr.pair[0]), net_pca(nv_tr.pair[1]), rtol=1e-8, atol=1e-10)
assert nv_inj.layers[0].status == "injective" and nv_inj.status == "injective"
lay2 = nv_inj.layers[1]
assert lay2.details["layer_status"] == "not injective" and lay2.status == "injective"  # not on the box; on the image
assert lay2.details["input_set"] == "image"
img = lay2.details["image"]
assert img["lower"] == img["upper"] == img["h"] == 7  # counting in R^8 falls one row short ...
assert img["pieces"]["status"] == "injective" and img["pieces"]["largest_plane"] < 7  # ... the pieces do not
assert img["pieces"]["far_bound"] < 1e-6
x_few = lay2.details["image_point"]  # the input where only 7 rows of layer 2 are strictly active
assert hull.contains(x_few)
(W1, b1), (W2, b2) = net_inj.weights
z_few = net_inj.forward(x_few, upto=1)
on2 = W2 @ z_few + b2 > 0
assert on2.sum() == 7 and np.linalg.matrix_rank(W2[on2]) < 8  # 7 rows cannot span R^8 ...
on1 = W1 @ x_few + b1 > 0
assert np.linalg.matrix_rank(W2[on2] @ (W1 * on1[:, None])) == 3  # ... but pulled back to R^3 they span it
print(f"at the input with the fewest: {on2.sum()} rows of layer 2 active, rank {np.linalg.matrix_rank(W2[on2])} in R^8, "
      f"rank {np.linalg.matrix_rank(W2[on2] @ (W1 * on1[:, None]))} pulled back to R^3")
assert on_codes.status == "injective"

# %% [markdown]
# With the constraint, layer 1 is certified; layer 2 (8 → 16) is not injective on the 8-dimensional box
# that encloses layer 1's image, but the pair it finds there could not be lifted back to two inputs of the
# hull (the image of layer 1 is a 3-dimensional surface inside that box). On the true image the MILP
# settles the count exactly: some input of the hull leaves only 7 of layer 2's 16 rows strictly active,
# and 7 rows cannot span $\mathbb{R}^8$ (checked above at that very input), so counting alone cannot
# certify the layer. Seven rows in $\mathbb{R}^8$ are not a collision, though: the image is only
# 3-dimensional, and pulled back to the input space the same 7 rows span $\mathbb{R}^3$. The argument
# across the pieces turns that into a proof for every pair of inputs of the hull, near or far, so the
# **whole constrained network is injective on the data's hull** — a certificate for two layers of a
# trained network, not only for its first layer. On the 1,797 codes themselves it is injective too
# (exact). The trained network without the constraint is not: its first layer already folds the hull.
#
# The same check from the command line, on weights saved the way a training script would save them (an
# `.npz` with `fc1.weight`, `fc1.bias`, `fc2.weight`, ...) and the codes as a `.npy` (`hull:FILE` is
# their convex hull). The exit status says it: 0 injective, 1 not injective, 3 undetermined.

# %%
def save_npz(network, path):
    """Weights in the PyTorch layout: fc{k}.weight of shape (out, in), fc{k}.bias."""
    np.savez(path, **{f"fc{k + 1}.{name}": arr for k, (W_k, b_k) in enumerate(network.weights)
                      for name, arr in (("weight", W_k), ("bias", b_k))})


cli = {}
with tempfile.TemporaryDirectory() as tmp:
    np.save(Path(tmp) / "digits_pca.npy", Z)
    for name, model in [("trained", mlp_pca), ("with the constraint", mlp_inj)]:
        save_npz(rf.Network.from_sklearn(model), Path(tmp) / "net.npz")
        cmd = [sys.executable, "-m", "relu_frames_nb", "check", "net.npz", "--domain", "hull:digits_pca.npy",
               "--time-limit", str(int(TIME_LIMIT)), "--quiet", "--json"]  # the same limit as the check above
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=600)
        cli[name] = (proc.returncode, json.loads(proc.stdout))
        print(f"$ python {' '.join(cmd[1:])}   # {name}")
        print(f"  exit status {proc.returncode}: {cli[name][1]['status']}; layers: "
              + ", ".join(f"{lay['details']['layer']}: {lay['status']}" for lay in cli[name][1]["layers"]))

# %%
assert cli["trained"][0] == 1 and cli["with the constraint"][0] == 0
for name, nv in checks.items():
    assert cli[name][1]["status"] == nv.status
    assert [lay["status"] for lay in cli[name][1]["layers"]] == [str(c.status) for c in nv.layers]

# %% [markdown]
# ### 5b. A decoder: the direction in which injectivity matters
#
# A classifier throws information away on purpose; a **decoder** (the generator of a GAN, the second half of
# an autoencoder) maps a small latent code to an image and must be injective for its codes to be recovered
# from its images (Puthawala et al., *Globally injective ReLU networks*, JMLR 2022). We train two decoders
# from the 6 whitened principal components of the digits back to the 64 pixels (scikit-learn's
# `MLPRegressor`, ReLU hidden layer, **affine** output): one with 32 hidden units and a bottleneck with 5.
#
# `rf.Network.from_sklearn(model, include_output=True)` keeps the output layer as the affine map it is
# (`net.last_linear`). An affine last layer whose weights have full column rank is injective on all of its
# input space, so the decoder is injective on the box of latent codes exactly when its ReLU layer is there;
# when the rank is short, the check reads $s = Wh + b$ as the ReLU layer of rows $[W; -W]$, which has the
# same colliding pairs ($s = \mathrm{ReLU}(s) - \mathrm{ReLU}(-s)$).

# %%
LATENT = 6
pca6 = PCA(n_components=LATENT, whiten=True, random_state=SEED).fit(X)
codes = pca6.transform(X)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    decoders = {width: MLPRegressor(hidden_layer_sizes=(width,), max_iter=300, random_state=SEED).fit(codes, X / 16)
                for width in (32, 5)}  # fmt: skip
latent_box = rf.Box(codes.min(axis=0), codes.max(axis=0))
dec_nets = {w: rf.Network.from_sklearn(d, include_output=True) for w, d in decoders.items()}
dec_checks = {w: rf.check(net, latent_box, time_limit=TIME_LIMIT) for w, net in dec_nets.items()}
for w, dv in dec_checks.items():
    rmse = np.sqrt(np.mean((decoders[w].predict(codes) - X / 16) ** 2))
    print(f"decoder {dec_nets[w]}: root-mean-square pixel error {rmse:.2f} (pixels in [0, 1]) — {dv.status}")
    for c in dv.layers:
        print("   ", c.text.split(" — ")[0])

# %%
dv32, dv5 = dec_checks[32], dec_checks[5]
assert all(net.last_linear for net in dec_nets.values())
assert dv32.status == "injective" and dv32.certificate is not None
assert dv32.layers[-1].status == "injective" and "full column rank 32" in dv32.layers[-1].text
# the network map is the decoder's own prediction (affine output, no ReLU after it)
np.testing.assert_allclose(dec_nets[32](codes[:50]), decoders[32].predict(codes[:50]), atol=1e-12)
assert dv5.status == "not injective"
c1, c2 = dv5.pair
assert latent_box.contains(c1) and latent_box.contains(c2) and np.linalg.norm(c1 - c2) > 0
assert np.max(np.abs(np.subtract(*decoders[5].predict(np.vstack([c1, c2]))))) <= 1e-9  # two codes, one image
# the pair is close; five rows in R^6 have a common null vector: along it no hidden unit moves at all
W_h, b_h = dec_nets[5].weights[0]
null = np.linalg.svd(W_h)[2][-1]
assert np.max(np.abs(W_h @ null)) <= 1e-12 * np.max(np.abs(W_h))
steps = np.linspace(0, 10, 1001)
t_max = max(t for t in steps if latent_box.contains(c1 + t * null))
far = c1 + t_max * null
img1, img2 = decoders[5].predict(np.vstack([c1, far]))
print(f"the check's pair is {np.linalg.norm(c2 - c1):.3f} apart; along the common null vector of the hidden rows "
      f"{t_max:.2f} apart, the images differ by less than 1e-12")
assert t_max > 0.5 and np.max(np.abs(img1 - img2)) <= 1e-12

# %% [markdown]
# The 32-unit decoder is **injective on the whole box of latent codes**: its hidden layer is certified on
# the box, and its output layer is affine of full column rank. The 5-unit bottleneck cannot be: five
# hidden units cannot tell six latent numbers apart, and the check returns two codes of the box that decode
# to the same image. They are close (the witness builder takes a short step); the reason is plain to see in
# the weights: five rows in $\mathbb{R}^6$ have a common null vector, and along it no hidden unit moves, so
# the image stays the same from one side of the box to the other:

# %%
fig = Figure(figsize=(7.5, 2.4), layout="constrained")
axs = fig.subplots(1, 3, width_ratios=[1, 1, 1.6])
for ax, img, name in zip(axs[:2], (img1, img2), ("code 1", "code 2")):  # code 2: along the null vector
    ax.imshow(16 * img.reshape(8, 8), cmap="gray_r", vmin=0, vmax=16)
    ax.set_title(f"decoded {name}", fontsize=10)
    ax.set_axis_off()
ax = axs[2]
ax.bar(np.arange(LATENT) - 0.2, c1, width=0.4, color=palette.INK, label="code 1")
ax.bar(np.arange(LATENT) + 0.2, far, width=0.4, color=palette.MUTED, label="code 2")
ax.set_xticks(range(LATENT), [f"z{j + 1}" for j in range(LATENT)])
ax.set_title("the two latent codes", fontsize=10)
ax.legend(fontsize=8)
fig

# %% [markdown]
# ### 5c. Two copies of the whole network
#
# Layer by layer is a *sufficient* route: each layer certified on a set holding its input. When one layer
# cannot be certified on any set the check can build (its enclosing box is too large, and across the pieces
# of the image only one earlier layer can be handled), the whole network can still be asked at once. Put two
# copies of the network into one mixed-integer model — inputs $x, y \in K$, the exact big-M encoding of
# every unit in each copy (Tjeng, Xiao and Tedrake, ICLR 2019), and equal outputs — and maximise
# $x_t - y_t$ for each coordinate $t$. A dual bound below a small $\delta$ rules out every colliding pair
# farther apart than $\delta$ (this two-copy model is how global properties such as robustness are verified,
# cf. Katz et al., Reluplex, CAV 2017). Pairs closer than $\delta$ are ruled out by the secant-slope argument
# of the previous section, now run through every layer. Here a small random network, 2 → 8 → 8 → 8 on the
# square $[-1, 1]^2$, whose third layer stays undetermined layer by layer:

# %%
rng_tc = np.random.default_rng(7)
net_tc = rf.Network.from_weights([(rng_tc.standard_normal((m, n)) / np.sqrt(n), np.full(m, 0.6))
                                  for n, m in [(2, 8), (8, 8), (8, 8)]])  # fmt: skip
square = rf.Box([-1, -1], [1, 1])
v_tc = rf.check(net_tc, square, time_limit=60)
print(f"{net_tc} on the square: {v_tc.status}")
for c in v_tc.layers:
    print(f"   {c.details['layer']}: {c.status}")
print(f"   the whole network by two copies: {v_tc.details['two_copy']['status']}")

# %%
assert [str(c.status) for c in v_tc.layers] == ["injective", "injective", "undetermined"]
assert v_tc.status == "injective" and v_tc.certificate.kind == "two copies"
assert v_tc.details["two_copy"]["far_bound"] < 1e-6
# a plain test that could refute it: outputs of 200,000 points of the square, no two of them equal
P_tc = square.sample(200_000, seed=SEED)
out_tc = net_tc(P_tc)
order_tc = np.lexsort(out_tc.T)
gaps = np.max(np.abs(np.diff(out_tc[order_tc], axis=0)), axis=1)
assert np.all(gaps > 0)

# %% [markdown]
# Layer 3 on the box enclosing layer 2's image is not injective, and no argument that looks at one layer at
# a time can rule the enclosure's extra points out; the two copies never leave the true inputs, so the
# question they answer is exactly the network's. The price is size: the model has two copies of every unit,
# and the near-pair cells grow with the input dimension, so the stage runs for inputs of dimension at most 4
# and a few hundred units, after the layer-by-layer check has had three quarters of the time.

# %% [markdown]
# ## 6. Explore a digit's hidden code
#
# Pick a digit with the slider, or switch to **draw** and click pixels on the 8 × 8 grid (**copy digit
# to grid** starts from the current digit). The explorer shows the 128 hidden activations of the raw
# network's first layer (green: active), how many units are active and the rank of their rows against the
# 61 dimensions of the data's span, and the image reconstructed from the activations alone. Where the
# rank falls short it shows another image with exactly the same activations instead. Try a failing digit
# (e.g. the first one listed in section 2a), then draw a thin "1" and thin it further.

# %%
explorer = DigitsExplorer(L_span, X, labels=y, encode=lambda U: U @ V, decode=lambda Cs: Cs @ V.T,
                          predict=mlp_raw.predict, index=int(fail[0]))
display(explorer)

# %%
first_state = explorer.state_digest()  # what the reader sees
assert not explorer.invertible and explorer.rank < 61 and "not invertible" in explorer.summary_text
np.testing.assert_allclose(L_span(explorer.x_hat), explorer.z, rtol=1e-9, atol=1e-9)  # same activations ...
assert np.linalg.norm(explorer.x_hat - explorer.x) > 1e-6  # ... another input
for i in np.flatnonzero(ok)[:6]:
    explorer.index.value = int(i)
    assert explorer.invertible and explorer.error < 1e-6
    np.testing.assert_allclose(explorer.reconstruction, X[i], atol=1e-6)
explorer.set_grid(X[fail[0]])  # draw mode, from the digit
assert explorer.source.value == "draw" and explorer.n_active == int(np.sum(L_span.active_set(explorer.x)))
explorer.source.value = "data set"
explorer.set_grid(np.zeros(64, dtype=bool))
explorer.source.value = "data set"
explorer.index.value = int(fail[0])
assert explorer.state_digest() == first_state
print("the explorer is back in its first state")

# %% [markdown]
# ## What we saw
#
# * A trained 64 → 128 layer is **locally invertible** near 96 % of the digits (its active rows span the
#   data's 61-dimensional span there); at the others a direction of the image is invisible to the layer.
# * On **every possible image** it is not injective: the exact verdict returns two images with identical
#   hidden activations, and stretched along the invisible direction they differ visibly — first on the
#   three pixels no digit ever uses, and with those fixed, on pixels that matter.
# * For the 3-input PCA network, every digit is locally invertible and yet the layer is **not injective
#   on the hull** of the data: the failure lies between digits. The polytope bias and the sampling bias
#   are both exceeded by the trained bias, so neither decides; the collision search decides on the ball,
#   the exact verdict on the hull.
# * Where the layer is invertible the ReLU-dual recovers the digits exactly; the ReLU frame algorithm
#   crawls (rate $1 - 2A_x/(A+B) > 0.999$, because training leaves the data's weak directions with tiny
#   weights). Noise is amplified by up to $1/\sqrt{A_{I_x}}$, a bound that holds for every digit and is
#   usually pessimistic.
# * Making the layer injective with the polytope bias costs 18 points of accuracy; the exact
#   threshold found by the solver costs almost none; training with the clamp recovers the accuracy with
#   the certificate kept at every epoch; a safety margin $\delta \le 1$ (certified on the ball of radius
#   $R + \delta$) costs more right after the clamp, and after training stays within a few points.
#   Sampling estimates, with or without noise, guarantee nothing beyond their samples.
# * Layer by layer, the constrained network's first layer is certified on the hull; the second is not
#   injective on the box around the first layer's image but is certified on the image itself, by pulling
#   its rows back to the 3-dimensional input space — the whole network is injective on the hull, with the
#   same answer from Python and from the command line.
# * A decoder from 6 latent numbers to 64 pixels with 32 hidden units is injective on the whole box of
#   latent codes (its affine output layer has full column rank, its hidden layer is certified); a 5-unit
#   bottleneck is not, and the check hands back two codes with one image.

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your answer, a worked solution (collapsed: try first) and a cell that
# checks the answer and says what is wrong. The checkers are in `notebooks/exercises/nb13.py`.

# %% [markdown] tags=["exercise"]
# ### Exercise 13.1 — Injective on the ball, at a small price
#
# Section 4 made the PCA network's first layer injective on the **hull** of the codes at almost no cost.
# Now ask for more: every code in the ball $\mathbb{B}_R$ (`ball`), where the polytope bias costs 18
# points. Find a bias vector `alpha` for `L_pca` (lower some entries of `L_pca.alpha`, change nothing
# else in the network) that the exact verdict certifies injective on the ball while the held-out accuracy
# stays at least `acc_pca - 0.05`. Set `answer_13_1 = alpha`.

# %% tags=["answer"]
answer_13_1 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
s_ball = exact_threshold(L_pca, ball)  # the same bisection as in section 4, on the ball
alpha_131 = L_pca.alpha - s_ball * L_pca.frame.norms
print(f"s = {s_ball:.4f}: accuracy {with_first_bias(mlp_pca, alpha_131).score(Z_te, y_te):.3f}")
answer_13_1 = alpha_131
ex.solution("13.1", answer_13_1, layer=L_pca, domain=ball, model=mlp_pca, test=(Z_te, y_te))

# %% tags=["check"]
ex.nb13.check_13_1(answer_13_1, layer=L_pca, domain=ball, model=mlp_pca, test=(Z_te, y_te))

# %% [markdown] tags=["exercise"]
# ### Exercise 13.2 — Read a noisy hidden code
#
# `z_noisy = ex.nb13.noisy_code_13_2(L_span)` is the hidden code of a digit (a layer input in the
# data's span, coordinates $c = V^\top x$), sent over a channel that adds a little Gaussian noise to
# **every** entry, the zeros included. Recover the digit's 64 pixels. (`rf.reconstruct` refuses negative
# entries and reads every positive one as active: what should count as zero?) Set `answer_13_2` to your
# image, an array of 64 pixels.

# %% tags=["answer"]
answer_13_2 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
z_132 = ex.nb13.noisy_code_13_2(L_span)
tau = 3 * ex.nb13.NOISE_13_2  # entries below three noise levels are read as zeros
c_132 = rf.reconstruct(L_span, np.where(z_132 > tau, z_132, 0.0))
answer_13_2 = c_132 @ V.T
ex.solution("13.2", answer_13_2, layer=L_span, basis=V)

# %% tags=["check"]
ex.nb13.check_13_2(answer_13_2, layer=L_span, basis=V)

# %% [markdown] tags=["exercise"]
# ### Exercise 13.3 — An image the layer cannot invert, next to a digit
#
# Digit `ex.nb13.DIGIT_13_3` of the data set is one where the raw layer `L_raw` **is** invertible (its
# active rows span $\mathbb{R}^{64}$). Find an image within 2 grey levels of it (every pixel within
# $\pm 2$, and in $[0, 16]$) at which the active rows of `L_raw` do **not** span $\mathbb{R}^{64}$ — a point
# where the layer forgets a direction. Set `answer_13_3` to that image (64 numbers).

# %% tags=["answer"]
answer_13_3 = None

# %% jupyter={"source_hidden": true} tags=["solution"]
x_133 = X[ex.nb13.DIGIT_13_3]
near = rf.Box(np.clip(x_133 - 2, 0, 16), np.clip(x_133 + 2, 0, 16))  # the images near the digit
v_133 = rf.check(L_raw, near, method="exact", time_limit=TIME_LIMIT)
print(v_133.status, "| active rows at the witness:", v_133.details["exact"]["n_active"])
answer_13_3 = v_133.pair[0]
ex.solution("13.3", answer_13_3, layer=L_raw, images=X)

# %% tags=["check"]
ex.nb13.check_13_3(answer_13_3, layer=L_raw, images=X)

# %%
print("13_real_network: all checks passed")
