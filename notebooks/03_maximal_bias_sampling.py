# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 03 — The maximal bias, Approach A: most correlated bases and sampling
#
# Notebook 02 fixed the bias and asked for the largest domain. Here the domain $K$ is fixed and we
# ask for the largest bias (question **Q2**). The idea: at each input $x$ only the best basis
# matters — the $n$ elements "most aligned" with $x$ — and the bias of an element must not exceed its
# coefficient at any input where it belongs to that best basis. Taking minima over samples of $K$
# gives a practical estimate with a covering-radius guarantee.
#
# | tag | item |
# |---|---|
# | `[def:mostcorr]` | the most correlated basis $J^*(x)$ |
# | `[prop:maxa]` | the maximal constant bias $\alpha_c$ |
# | `[prop:maxa2]` | the bias $\alpha^\flat_K$ (minimum over $K_i$) is rectifying |
# | `[ex:a]` | a five-vector frame with $\alpha^\flat_{\mathbb{B}} = 0$ and a redundant element |
# | `[def:uniquemaxa]` | bias-exact domains |
# | `[thm:maxa]` | the maximal bias $\alpha^\sharp_K$ |
# | `[thm:samp]` | sampling-based bias estimation, with the covering radius |
#
# plus an **honest-limits** section: in dimension 6 random samples miss the worst directions, and the
# sampling estimate accepts the bias $0$ for a layer that the exact Tukey-depth test proves not
# injective — with a verified colliding pair.
#
# **Erratum** shown below, with a counterexample: the set $K_2$ of Example a is a sector around
# $\phi_2$, not around $e_1$ as printed.
#
# Conventions: rows of a matrix are the frame vectors; the layer is
# $C_\alpha(x) = \mathrm{ReLU}(\Phi x - \alpha)$; code indices are 0-based, the text counts from 1
# (so $J^*(x) = \{1, 3\}$ in the text is `[0, 2]` in code).

# %% tags=["parameters"]
FULL = False  # True: paper-scale sample sizes (slower); False: fast run for CI

# %%
# %matplotlib inline
from itertools import combinations

import numpy as np
from matplotlib.figure import Figure

import relu_frames_nb as rf
from relu_frames_nb.viz import palette

SEED = 20240303
N = 200_000 if FULL else 20_000  # samples of a domain
N_LIMIT = 2_000_000 if FULL else 200_000  # samples in the honest-limits section
TRIALS = 100 if FULL else 20  # random frames for statements "for every frame"
rng = np.random.default_rng(SEED)
np.set_printoptions(precision=4, suppress=True)


def rectifying(layer, K, n=N, seed=SEED):
    """Sampled test of the alpha-rectifying property on K (exact for a finite set of samples)."""
    return rf.check_rectifying(layer, K, n_samples=n, seed=seed).rectifying


# %% [markdown]
# ## 1. Most correlated bases
#
# **[def:mostcorr]** A basis $\Phi_{J^*(x)}$ is a **most correlated basis** for $x$ if it maximizes the
# smallest coefficient among all bases:
# $$\min_{j\in J^*(x)}\langle x,\phi_j\rangle = \max_{J:\ \Phi_J \text{ basis}}\ \min_{j\in J}\langle x,\phi_j\rangle .$$
# $\Phi$ *includes a unique most correlated basis everywhere* on $K$ if $J^*(x)$ is unique for every
# $x \in K$.
#
# The bases of a frame form a matroid, so the greedy rule finds $J^*(x)$: go through the elements by
# decreasing coefficient and keep one whenever it is independent of those kept. For a full-spark
# frame this is just the $n$ largest coefficients.
#
# Check: the library's $J^*(x)$ is a basis and attains the maximum of the definition, computed by
# brute force over all bases, for random frames with and without parallel vectors; in the setting
# of `ex:mb2` (notebook 02), $J^*(x_1) = \{1, 3\}$ and $J^*(x_2) = \{1, 2\}$.

# %%
for t in range(TRIALS):
    n = 2 + t % 3
    phi = rf.zoo.gaussian(n + 3, n, seed=SEED + t).vectors
    if t % 2:
        phi = np.vstack([phi, -phi[0], 3.0 * phi[1]])  # not full spark: the top-n rule would be wrong
    F = rf.Frame(phi)
    bases = [J for J in combinations(range(F.m), n) if F.spans(J)]
    X = rf.Ball(n).sample(200, seed=t)
    G = X @ phi.T
    best = np.max([G[:, J].min(axis=1) for J in bases], axis=0)  # brute force: max over bases of the min
    Jstar = rf.most_correlated_basis(F, X)
    assert all(F.spans(J) for J in Jstar)
    np.testing.assert_allclose(np.take_along_axis(G, Jstar, axis=1).min(axis=1), best, atol=1e-12)

Ftri = rf.zoo.mercedes_benz()
s3 = np.sqrt(3) / 2
J1, tie1 = rf.most_correlated_basis(Ftri, [0.5, s3], return_ties=True)
J2, tie2 = rf.most_correlated_basis(Ftri, [-0.5, s3], return_ties=True)
assert set(J1) == {0, 2} and set(J2) == {0, 1} and not tie1 and not tie2
print(f"greedy J* = brute force on {TRIALS} frames; J*(x1) = {{1, 3}}, J*(x2) = {{1, 2}} (1-based)")

# %% [markdown]
# ## 2. The maximal constant bias
#
# **[prop:maxa]** The largest constant bias $\mathbf r = (r, \dots, r)$ for which $\Phi$ is
# $\mathbf r$-rectifying on $K$ is
# $$\alpha_c = \inf_{x\in K}\ \max_{J \text{ basis}}\ \min_{j\in J}\langle x,\phi_j\rangle
#   = \inf_{x\in K}\ \min_{j\in J^*(x)}\langle x,\phi_j\rangle ,$$
# i.e. $\Phi$ is $\mathbf r$-rectifying on $K$ iff $r \le \alpha_c$. (With $r \le \alpha_c$ the most
# correlated basis of every $x$ is active; with $r > \alpha_c$ some $x$ has no active basis.)
#
# Check: on a *finite* data set $X$ the value is exact, so both directions can be verified exactly —
# rectifying at $r = \alpha_c$ on every point, not rectifying at the attaining point for any
# $r > \alpha_c$. For the triangle frame on the unit circle, $\alpha_c = -\tfrac12$.

# %%
for t in range(TRIALS):
    n = 2 + t % 3
    F = rf.zoo.random_sphere(int(rng.integers(n + 1, 4 * n)), n, seed=SEED + 100 + t)
    X = rf.Ball(n).sample(500, seed=t)
    a_c = rf.max_constant_bias(F, X)
    ok = rf.is_rectifying(rf.ReLULayer(F, a_c), X)
    assert np.all(ok)
    worse = rf.is_rectifying(rf.ReLULayer(F, a_c + 1e-9), X)
    assert not np.all(worse)  # r slightly above alpha_c fails (at the attaining point)
a_c = rf.max_constant_bias(Ftri, rf.Sphere(2), n_samples=N, seed=SEED)
assert -0.5 <= a_c < -0.5 + 1e-3
assert rectifying(rf.ReLULayer(Ftri, -0.5), rf.Sphere(2)) and not rectifying(rf.ReLULayer(Ftri, -0.49), rf.Sphere(2))
print(f"α_c exact on {TRIALS} finite data sets; triangle on the circle: α_c ≈ {a_c:.4f}")

# %% [markdown]
# ## 3. A bias per element
#
# A constant bias is wasteful when the frame is irregular. Split the domain by membership in most
# correlated bases, $K_i = \{x \in K : i \in J^*(x)\}$ (the $K_i$ cover $K$; an element with
# $K_i = \emptyset$ never matters and gets $\alpha_i = +\infty$), and take the smallest coefficient of
# $\phi_i$ on its own piece:
#
# **[prop:maxa2]** If $J^*$ is unique on $K$ and
# $$(\alpha^\flat_K)_i = \inf_{x\in K_i}\langle x,\phi_i\rangle ,$$
# then $\Phi$ is $\alpha^\flat_K$-rectifying on $K$ (at every $x$, the basis $J^*(x)$ is active).
#
# Check: on finite data sets $X$, where $\alpha^\flat_X$ is computed exactly, $\Phi$ is
# $\alpha^\flat_X$-rectifying at every point; the constant $\alpha_c$ is the smallest entry;
# elements that belong to no $J^*(x)$ get $+\infty$.

# %%
n_irrelevant = 0
for t in range(TRIALS):
    n = 2 + t % 3
    F = rf.zoo.random_sphere(int(rng.integers(n + 1, 5 * n)), n, seed=SEED + 200 + t)
    X = rf.Ball(n).sample(300, seed=t) + rng.normal(0.0, 0.3, size=n)  # a shifted data set
    flat = rf.sampling_bias(F, X, progress=False)
    assert flat.is_guarantee  # exact on a finite set
    assert np.all(rf.is_rectifying(rf.ReLULayer(F, flat.finite(fill=1e6)), X))
    np.testing.assert_allclose(flat.values.min(), rf.max_constant_bias(F, X))
    J = rf.most_correlated_basis(F, X)
    assert np.array_equal(flat.irrelevant, ~np.isin(np.arange(F.m), J))
    n_irrelevant += int(flat.irrelevant.sum())
print(f"α♭ rectifying on {TRIALS} finite data sets; {n_irrelevant} elements were in no J*(x) (bias +inf)")

# %% [markdown]
# $\alpha^\flat_K$ can often be raised further: an element $\phi_i$ only needs its bias below its
# coefficient at inputs where nothing *outside* $J^*(x)$ is active. That leads to the set
# $$K_i^\sharp = \Big\{x \in K_i : \langle x,\phi_j\rangle < (\alpha^\flat_K)_j \text{ for all } j \notin J^*(x)\Big\}.$$
# (The paper writes it as $K_i \setminus \bigcap_{y\in K_i}\bigcup_{j\notin J^*(y)}\Omega_j^{\alpha^\flat_K}$.
# Under uniqueness both say the same: $J^*(x) \subseteq I_x^{\alpha^\flat_K}$ always, so $x$ has an extra
# active element iff $|I_x^{\alpha^\flat_K}| > n$, and then it lies in $\Omega_j$ for some $j \notin J^*(y)$
# whatever $y$ is. So $K_i^\sharp = \{x \in K_i : |I_x^{\alpha^\flat_K}| = n\}$.)
# The next example shows that $K_i^\sharp$ can be empty.
#
# **[ex:a]** The frame
# $\Phi = \big(e_1,\ \tfrac{1}{\sqrt2}(e_1+e_2),\ e_2,\ -e_1,\ -e_2\big)$ on $K = \mathbb{B}$ has
# $\alpha^\flat_{\mathbb{B}} = \mathbf 0$ (every $K_i$ touches the origin). The set $K_2$ is the sector of
# half-angle $3\pi/8$ around $\phi_2$, and on all of it at least three elements are active for
# $\alpha = 0$ — one more than the basis. So $K_2^\sharp = \emptyset$: $\phi_2$ is redundant; without it
# the $\pm$ basis is still $\mathbf 0$-rectifying, and the bias of $\phi_2$ can be raised at will.
#
# Check: sampling gives $\alpha^\flat \to 0$ from above; $K_2$ is the sector (on a polar grid, away
# from the tie rays); three active elements on $K_2$; $\phi_2$ can be dropped, or its bias set to 10.

# %%
Fa = rf.zoo.example_a()
flat = rf.sampling_bias(Fa, rf.Ball(2), n_samples=N, seed=SEED, progress=False)
assert np.all(flat.values >= 0) and np.all(flat.values < 0.05)
theta = np.linspace(-np.pi, np.pi, 3601)[:-1]
rad = np.linspace(0.01, 1.0, 40)
P = (rad[:, None, None] * np.stack([np.cos(theta), np.sin(theta)], axis=-1)[None]).reshape(-1, 2)
J, ties = rf.most_correlated_basis(Fa, P, return_ties=True)
in_K2 = np.any(J == 1, axis=1)
t_P = np.angle(P[:, 0] + 1j * P[:, 1])
sector = np.abs(np.angle(np.exp(1j * (t_P - np.pi / 4)))) <= 3 * np.pi / 8  # around phi_2 at angle pi/4
assert np.array_equal(in_K2[~ties], sector[~ties])
L0 = rf.ReLULayer(Fa, 0.0)
assert np.all(L0.active_set(P[in_K2]).sum(axis=1) >= 3)  # an extra active element everywhere on K_2
assert rectifying(rf.ReLULayer(np.delete(Fa.vectors, 1, axis=0), 0.0), rf.RealSpace(2))  # drop phi_2
assert rectifying(rf.ReLULayer(Fa, [0.0, 10.0, 0.0, 0.0, 0.0]), rf.Ball(2))  # or raise its bias
print("α♭ (sampled):", flat.values, f"| K_2 covers {in_K2.mean():.1%} of the polar grid")

# %% [markdown]
# ### Erratum: the set $K_2$ in Example a
#
# The paper writes $K_2 = \{s(\cos t, \sin t) : t \in [-\tfrac{3\pi}8, \tfrac{3\pi}8],\ s \in [0,1]\}$, a
# sector centred at $e_1$. It is centred at $\phi_2$, at angle $\pi/4$:
# $t \in [-\tfrac{\pi}8, \tfrac{5\pi}8]$. (For $t$ just below $-\pi/8$ the coefficient of $-e_2$,
# $-\sin t$, overtakes the one of $\phi_2$, $\cos(t - \pi/4)$, for the second place behind $e_1$.)
# Counterexample to the printed set: $x = (\cos(-\tfrac\pi4), \sin(-\tfrac\pi4))$ lies in it, but
# its coefficients are $(0.71, 0, -0.71, -0.71, 0.71)$, so $J^*(x) = \{1, 5\} \not\ni 2$; and the angle
# $t = \tfrac{5\pi}8 - 0.01$, outside the printed set, has $2 \in J^*(x)$. (The redrawn Figure 3 (right)
# in notebook 02 shows the correct sector.)

# %%
x_in_printed = np.array([np.cos(-np.pi / 4), np.sin(-np.pi / 4)])
x_out_printed = np.array([np.cos(5 * np.pi / 8 - 0.01), np.sin(5 * np.pi / 8 - 0.01)])
Jin, tin = rf.most_correlated_basis(Fa, x_in_printed, return_ties=True)
Jout, tout = rf.most_correlated_basis(Fa, x_out_printed, return_ties=True)
assert set(Jin) == {0, 4} and not tin  # J* = {1, 5}: phi_2 is not in it
assert 1 in Jout and not tout
for t in (-np.pi / 8 + 0.01, np.pi / 4, 5 * np.pi / 8 - 0.01):  # inside the corrected sector
    assert 1 in rf.most_correlated_basis(Fa, [np.cos(t), np.sin(t)])
for t in (-np.pi / 8 - 0.01, 5 * np.pi / 8 + 0.01):  # just outside it
    assert 1 not in rf.most_correlated_basis(Fa, [np.cos(t), np.sin(t)])
print("printed sector: wrong at t = -π/4 and t = 5π/8 - 0.01; corrected: t ∈ [-π/8, 5π/8]")

# %% [markdown]
# **[def:uniquemaxa]** $K$ is **bias-exact** for $\Phi$ if $K_i^\sharp \ne \emptyset$ for every $i$.
#
# Check, with the description $K_i^\sharp = \{x \in K_i : \text{exactly } n \text{ elements active for }
# \alpha^\flat_K\}$ derived above: Example a on $\mathbb{B}$ is not bias-exact ($K_2^\sharp$ is empty on a
# dense polar grid), while the triangle frame on $\mathbb{B}$ is (every $K_i^\sharp$ has points), and so
# is a basis ($J^*(x)$ is the whole basis, nothing else can be active: $K_i^\sharp = K_i = K$).

# %%
def k_sharp_points(frame, alpha_flat, X):
    """Per element i, the points of X that lie in K_i^sharp (i in J*(x), exactly n active elements)."""
    J = rf.most_correlated_basis(frame, X)
    exact_n = rf.ReLULayer(frame, alpha_flat).active_set(X).sum(axis=1) == frame.n
    return [X[np.any(J == i, axis=1) & exact_n] for i in range(frame.m)]


Ka = k_sharp_points(Fa, np.zeros(5), P)
assert len(Ka[1]) == 0 and all(len(Ka[i]) > 0 for i in (0, 2, 3, 4))
Kt = k_sharp_points(Ftri, np.full(3, -0.5), rf.Ball(2).sample(N, seed=SEED))
assert all(len(k) > 0 for k in Kt)
Fb = rf.zoo.gaussian(3, 3, seed=SEED)
Xb = rf.Ball(3).sample(N, seed=SEED)
Kb = k_sharp_points(Fb, -Fb.norms, Xb)
assert all(len(k) == N for k in Kb)
print("Example a: |K_2♯ ∩ grid| = 0 (not bias-exact); triangle and basis: every K_i♯ is non-empty")

# %% [markdown]
# ## 4. The maximal bias
#
# **[thm:maxa]** If $J^*$ is unique on $K$ and $K$ is bias-exact, the maximal bias is
# $$(\alpha^\sharp_K)_i = \inf_{x\in K_i^\sharp}\langle x,\phi_i\rangle ,$$
# i.e. $\Phi$ is $\alpha$-rectifying on $K$ iff $\alpha \le \alpha^\sharp_K$. Raising a single entry
# $i$ by $\varepsilon$ fails at a point $x_0 \in K_i^\sharp$ whose coefficient with $\phi_i$ is within
# $\varepsilon$ of the infimum: there the active set is $J^*(x_0) \setminus \{i\}$, only $n - 1$
# elements.
#
# Check, where the hypotheses hold (notebook 01): for a basis on $\mathbb{B}$,
# $\alpha^\sharp = -(\|\phi_i\|)_i$, attained at $x_0 = -\phi_i/\|\phi_i\|$; every random
# $\alpha \le \alpha^\sharp$ passes, and $\alpha^\sharp + \varepsilon e_i$ fails at $x_0$ with exactly
# $n - 1$ active elements. For the triangle frame ($\alpha^\sharp = -\tfrac12$) the same, with
# $x_0$ on the unit circle just past $\phi_j$, rotated towards $\phi_i$. Without bias-exactness there
# is no such threshold: in Example a the bias of $\phi_2$ can be raised to $10$ (above).

# %%
a_sharp = -Fb.norms
flat = rf.sampling_bias(Fb, rf.Sphere(3), n_samples=N, seed=SEED, progress=False)
np.testing.assert_allclose(flat.values, a_sharp, rtol=0.02)  # alpha^flat = alpha^sharp for a basis
for t in range(TRIALS):
    a = a_sharp - rng.exponential(0.3, size=3) * (rng.random(3) < 0.7)
    assert np.all(rf.is_rectifying(rf.ReLULayer(Fb, a), np.vstack([Xb, rf.Sphere(3).sample(2000, seed=t)])))
eps = 1e-6
for i in range(3):
    a = a_sharp.copy()
    a[i] += eps
    x0 = -Fb.vectors[i] / Fb.norms[i]
    L = rf.ReLULayer(Fb, a)
    assert L.active_set(x0).sum() == 2 and not rf.is_rectifying(L, x0)

for i in range(3):  # triangle: raise element i, fail just past phi_j towards phi_i
    j = (i + 1) % 3
    a = np.full(3, -0.5)
    a[i] += eps
    tj, ti = (np.angle(complex(*Ftri.vectors[k])) for k in (j, i))
    step = np.angle(np.exp(1j * (ti - tj)))  # signed angle from phi_j to phi_i
    x0 = np.array([np.cos(tj + 1e-7 * np.sign(step)), np.sin(tj + 1e-7 * np.sign(step))])
    L = rf.ReLULayer(Ftri, a)
    assert L.active_set(x0).sum() == 1 and not rf.is_rectifying(L, x0)
    assert rf.is_rectifying(L.with_bias(-0.5), x0)
print("α♯ of a basis:", a_sharp, "— every α ≤ α♯ passes; raising one entry by 1e-6 fails (basis and triangle)")

# %% [markdown]
# ## 5. Sampling-based bias estimation
#
# $\alpha^\flat_K$ and $\alpha^\sharp_K$ have no closed form in general. Replace $K$ by samples
# $X_N = (x_k)_{k=1}^N \subset K$ and run through them:
#
# **[thm:samp]** Start from $\alpha^{(0)}$ (e.g. $+\infty$) and for $k = 1, \dots, N$ and
# $i \in J^*(x_k)$ set
# $$\alpha^{(k)}_i = \min\{\langle x_k,\phi_i\rangle,\ \alpha^{(k-1)}_i\}$$
# (other entries unchanged). Then $\Phi$ is $\alpha^{(N)}$-rectifying on $X_N$, and — for a unit-norm
# frame — $(\alpha^{(N)} - \rho)$-rectifying on all of $K$, where
# $\rho = \rho(X_N; K) = \sup_{x\in K}\min_k\|x - x_k\|$ is the covering radius of the samples.
# (Every $x \in K$ has a sample $x_k$ within $\rho$, and each active coefficient of $x_k$ drops by at
# most $\rho$ at $x$. For other frames subtract $\rho\,\|\phi_i\|$.)
#
# Check: the library's vectorized estimate equals the iteration run literally; it is rectifying on
# the samples; without the correction a fresh point of $K$ can fail; with a *proven* upper bound
# of the covering radius (a grid argument, feasible in low dimension) it passes on dense fresh
# samples of the ball and of its boundary.

# %%
F4 = rf.zoo.random_sphere(4, 2, seed=SEED + 305)
assert rf.is_omnidirectional(F4)  # needed by the polytope bias below
X = rf.Ball(2).sample(N, seed=SEED)
est = rf.sampling_bias(F4, X, history=True, progress=False)

alpha_k = np.full(F4.m, np.inf)  # the iteration of the theorem, literally
for x, Jx in zip(X, rf.most_correlated_basis(F4, X)):
    alpha_k[Jx] = np.minimum(F4.vectors[Jx] @ x, alpha_k[Jx])
np.testing.assert_allclose(est.values, alpha_k)
assert np.all(est.history[1:] <= est.history[:-1])  # the estimate only decreases

assert np.all(rf.is_rectifying(rf.ReLULayer(F4, est.values), X))  # rectifying on X_N
fresh = rf.Ball(2).sample(20 * N, seed=SEED + 1)
assert not np.all(rf.is_rectifying(rf.ReLULayer(F4, est.values), fresh))  # but not on K without the correction

rho = rf.covering_radius(X, rf.Ball(2), kind="guaranteed", max_points=400_000)
assert rho.is_guarantee
corrected = est.values - rho.value * F4.norms
Xcheck = np.vstack([fresh, rf.Sphere(2).sample(5 * N, seed=SEED + 2)])
assert np.all(rf.is_rectifying(rf.ReLULayer(F4, corrected), Xcheck))
pbe = rf.polytope_bias(F4, rf.Ball(2))  # Approach B (notebook 04), another proof
assert np.all(rf.is_rectifying(rf.ReLULayer(F4, pbe.values), Xcheck))
print(f"covering radius ≤ {rho.value:.4f} (proven)")
print("α^(N)            :", est.values)
print("α^(N) - ρ (proof):", corrected)
print("polytope (proof) :", pbe.values)

# %% [markdown]
# How the estimate settles: each entry of $\alpha^{(k)}$ against the number of samples $k$ (log scale).
# The curves drop in steps and approach $\alpha^\flat$ from above; the dashed lines are the corrected,
# guaranteed values.

# %%
fig = Figure(figsize=(7.5, 3.6), layout="constrained")
ax = fig.subplots()
steps = np.maximum(est.history_steps, 1)
for i in range(F4.m):
    c = palette.element_color(i)
    ax.step(steps, np.where(np.isfinite(est.history[:, i]), est.history[:, i], np.nan), where="post", color=c, lw=1.6,
            label=rf"$\alpha^{{(k)}}_{i + 1}$")
    ax.axhline(corrected[i], color=c, lw=1.0, ls="--")
ax.plot([], [], color=palette.INK, lw=1.0, ls="--", label=r"$\alpha^{(N)} - \rho\,\|\phi_i\|$")
ax.set_xscale("log")
ax.set_xlabel("number of samples $k$")
ax.set_ylabel("bias estimate")
ax.set_title("[thm:samp] sampling-based bias estimation on $\\mathbb{B}$, random frame $m=4$, $n=2$", fontsize=10)
ax.legend(ncol=3, fontsize=8, frameon=False)
ax.grid(alpha=0.3)
assert np.all(est.history[-1] == est.values)
fig

# %% [markdown]
# ## 6. Honest limits: high dimension
#
# The guarantee of `thm:samp` needs the covering radius, and for uniform samples on the sphere
# $\mathbb{E}\,\rho \asymp (\log N / N)^{1/n}$: in dimension 6, two hundred thousand samples of the ball
# still leave holes of radius about $0.2$ (measured below). The paper's experiments subtract the heuristic $0.05\,(\log N/N)^{1/n}$ instead.
# That is not a guarantee, and here is a layer where it fails.
#
# For $\alpha = 0$ there is an exact test on $\mathbb{R}^n$ (and, the bias being 0, on every ball):
# for a full-spark frame $C_0$ is injective iff every closed half-space $\{x : \langle x, u\rangle \ge 0\}$
# contains at least $n$ frame vectors, i.e. iff the **Tukey depth** of the origin among the $\phi_i$
# is at least $n$. The depth is a minimum over the $2\binom{m}{n-1}$ directions orthogonal to $n - 1$
# frame vectors, so it is exact and cheap for small $n$.
#
# A Gaussian frame with $m = 30$, $n = 6$ (seed 3): sampling over the ball gives a positive estimate
# for every element, so it "accepts" the bias $0$ — with or without the paper's heuristic correction.
# The Tukey depth is $5 < 6$: there is a direction where only 5 elements are active, and the
# constructive proof of Injectivity II (notebook 01) turns it into two different inputs with the same
# output. A proven correction would not have been fooled: the covering radius of the samples is at
# least the (probe) estimate below, larger than the estimate itself.

# %%
F = rf.zoo.gaussian(30, 6, seed=3)
K = rf.Ball(6)
X = K.sample(N_LIMIT, seed=SEED)
est = rf.sampling_bias(F, X, progress=False)  # exact on the samples
heur = rf.paper_correction(6, N_LIMIT)
assert np.all(est.values > 0) and np.all(est.values - heur * F.norms > 0)  # sampling accepts alpha = 0
L0 = rf.ReLULayer(F, 0.0)
assert np.all(rf.is_rectifying(L0, X))  # every sample is fine ...

tukey = rf.zero_bias_injective(F)  # ... but the exact test says no
assert tukey.full_spark and tukey.depth == 5 and not tukey.injective
w = tukey.witness
assert (F.vectors @ w >= 0).sum() == 5 and not rf.is_rectifying(L0, w)

coll = rf.find_collision(L0, K, points=[0.5 * w / np.linalg.norm(w)])
assert coll.found and coll.certainty == "verified"
assert K.contains(coll.x) and K.contains(coll.y) and np.linalg.norm(coll.x - coll.y) > 1e-4
np.testing.assert_allclose(L0(coll.x), L0(coll.y), atol=1e-12)

rho_low = rf.covering_radius(X, K, kind="heuristic", n_probes=20_000, seed=SEED)  # a lower bound of rho
assert rho_low.value > est.values.min()  # the proven correction would reject alpha = 0
print(f"samples: {N_LIMIT}; smallest sampled bias {est.values.min():.4f} > 0, heuristic correction {heur:.4f}")
print(f"Tukey depth {tukey.depth} < n = 6: not injective; colliding pair at distance {np.linalg.norm(coll.x - coll.y):.2e}")
print(f"covering radius ≥ {rho_low.value:.3f} (probe estimate), so α^(N) - ρ < 0 somewhere")

# %%
print("all checks passed")
