# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 12 — Playground: the explorers together, for a class
#
# Three interactive explorers from `relu_frames_nb.viz.widgets`, set up for a lecture or an exercise
# session. Everything they compute comes from the same library calls as the rest of the chain, so what
# a student sees on screen is what the notebooks prove.
#
# **What you will learn**
#
# * to watch a layer on $\mathbb{R}^2$ switch from injective to not injective as the bias grows, with
#   the proof of the verdict and, when it fails, two inputs with one output;
# * to read the per-element bias of a polytope for $\mathbb{R}^3$ off its facets, in 3-D;
# * to invert a layer: from the output $z$ back to $x$, exactly with a ReLU-dual and step by step with
#   the ReLU frame algorithm.
#
# Without a running kernel (GitHub, nbviewer, the book) each explorer shows a still picture of its
# first state, captioned as such: run the notebook for the live explorers.

# %% [markdown] tags=["voila-hide", "kit-only"]
# **As an app.** With Voilà the code cells disappear and only the explorers remain:
# `voila notebooks/12_playground.ipynb` from the repository root (the kit's test environment has
# Voilà), or on Binder
# `https://mybinder.org/v2/gh/<owner>/<repo>/HEAD?urlpath=voila/render/notebooks/12_playground.ipynb%3Ftemplate%3Drelu-frames`
# (the kit's Voilà template, which hides the same cells and asks nothing from a CDN).
# The repository's `voila.json` (read from the directory Voilà starts in) removes the cells tagged
# `voila-hide` — this paragraph, the check cells, the exercises and their solutions — so a class sees
# only the explorers and their explanations.
#
# The cells after each explorer check the statements made about it. They drive the widgets the way a
# student would (setting a slider's value), so they also prove that the controls work, and they end by
# checking that the explorer is back in its first state (`state_digest()` covers every control, the
# picture and the 3-D scene), the one the class sees.

# %%
# %matplotlib inline
import numpy as np
from IPython.display import display

import relu_frames_nb as rf
from relu_frames_nb.viz.widgets import FrameExplorer2D, PolytopeExplorer3D, ReconstructionPlayground

FULL = rf.full_size()  # RELU_FRAMES_FULL=1 selects the paper's sizes (here: finer pictures)
RES = 241 if FULL else 141  # grid points per axis of the 2-D pictures
np.set_printoptions(precision=3, suppress=True)

# %% [markdown]
# ## 1. A layer on the plane
#
# The Mercedes-Benz frame (three unit vectors at 120°) with one bias $\alpha$ for all rows, on the unit
# ball. Move the **offset** slider: the verdict line says injective or not, how it knows (a proof or a
# colliding pair), and the picture marks in vermillion where the active rows fail to span. Try the other
# presets, type your own frame as a matrix (one row per vector), or switch the domain.
#
# *Try it.* Find the largest offset for which the layer is injective on the ball. Then on the
# sphere. Why are the answers the same? (Answer in notebook 03, `03_properties_of_frames`: the app
# serves this page only, so that is a name, not a link.)

# %%
explorer2d = FrameExplorer2D("mercedes-benz", offset=-0.6, resolution=RES)
display(explorer2d)

# %% tags=["voila-hide"]
# the answer: -1/2 on the ball, and on the sphere as well (the failures sit on the boundary)
first_state_2d = explorer2d.state_digest()  # what the class sees
assert explorer2d.verdict.status == "injective"
for offset, expected in [(-0.55, "injective"), (-0.45, "not injective")]:
    explorer2d.offset.value = offset
    assert explorer2d.verdict.status == expected, (offset, explorer2d.verdict_text)
x_pair, y_pair = explorer2d.verdict.pair  # two points of the ball, verified to share their output
assert not np.allclose(x_pair, y_pair)
np.testing.assert_allclose(explorer2d.layer(x_pair), explorer2d.layer(y_pair), atol=1e-12)
c = rf.polytope_bias(rf.zoo.mercedes_benz(), rf.Ball(2)).values  # a guarantee, and here the maximal bias
np.testing.assert_allclose(c, -0.5, atol=1e-12)
explorer2d.domain_kind.value = "sphere"
assert explorer2d.verdict.status == "not injective"  # offset -0.45 > -1/2: fails on the sphere as well
explorer2d.offset.value = -0.55
assert explorer2d.verdict.status == "injective"  # and -0.55 < -1/2 is fine there too: the same threshold
explorer2d.domain_kind.value = "ball"
explorer2d.offset.value = -0.6
assert explorer2d.verdict.status == "injective" and not explorer2d.error_text
assert explorer2d.state_digest() == first_state_2d  # back in its first state, for the class
print("largest constant bias on the ball:", c)
print(explorer2d.verdict_text)

# %% [markdown]
# ## 2. A polytope in space
#
# The icosahedron frame: its inscribing polytope (the convex hull of the twelve unit vectors) has twenty
# triangular facets. The polytope bias of a vertex on the ball is read off the facets around it; pick a
# **vertex** to see its star, switch the **domain**, or compare with the **sampling** estimate. Drag to
# rotate.
#
# *Try it.* Every vertex of the icosahedron sits in five facets. Which value does the table show for
# all of them on the sphere, and why is it the same for every vertex?

# %%
explorer3d = PolytopeExplorer3D("icosahedron", domain="sphere")
display(explorer3d)

# %% tags=["voila-hide"]
first_state_3d = explorer3d.state_digest()  # what the class sees
assert explorer3d.selected_vertex is None and explorer3d.vertex.label == "none"  # not an empty menu
assert "rfnb-table-note" not in explorer3d.bias_table_html  # all twelve rows beside the canvas, no scrolling
ico = rf.zoo.get("icosahedron")
pbe = rf.polytope_bias(ico, rf.Sphere(3))
np.testing.assert_allclose(explorer3d.estimate.values, pbe.values, atol=1e-12)
np.testing.assert_allclose(pbe.values, 1 / np.sqrt(5), atol=1e-12)  # the same for all twelve vertices: symmetry
assert explorer3d.viewer.scene.P.n_facets == 20
assert all(len(explorer3d.viewer.scene.P.facets_of(i)) == 5 for i in range(ico.m))  # five facets at every vertex
first_vertex = explorer3d.vertex.value
explorer3d.vertex.value = 3
assert explorer3d.viewer.scene.star().vertex == 3 and len(explorer3d.viewer.scene.star().facets) == 5
explorer3d.domain_kind.value = "ball"
np.testing.assert_allclose(explorer3d.estimate.values, 0.0, atol=1e-12)  # s * a with a = 1/sqrt5 > 0 on the ball
explorer3d.domain_kind.value = "sphere"
explorer3d.vertex.value = first_vertex
assert not explorer3d.error_text
assert explorer3d.state_digest() == first_state_3d  # back in its first state, for the class
print(f"polytope bias of every vertex on the sphere: {pbe.values[0]:.6f} = 1/√5; on the ball: 0")

# %% [markdown]
# ## 3. Reconstruction
#
# Pick $x$ with the sliders. The report shows $z = \mathrm{ReLU}(\Phi x - \alpha)$ and which rows are
# active, then the input recovered by the ReLU-dual (exact as soon as the active rows span) and by the
# ReLU frame algorithm, whose error curve is drawn. Raise the offset until reconstruction breaks down.

# %%
playground = ReconstructionPlayground("mercedes-benz", offset=-0.5)
display(playground)

# %% tags=["voila-hide"]
first_state_playground = playground.state_digest()  # what the class sees
assert playground.x_dual is not None and playground.dual_error < 1e-12
np.testing.assert_allclose(playground.x_dual, playground.x, atol=1e-12)
assert playground.errors_curve[-1] < playground.errors_curve[0]  # the frame algorithm converges
playground.offset.value = 0.5  # far above the maximal bias: at most one row survives at this x
assert playground.active.sum() < 2 and playground.x_dual is None
playground.offset.value = -0.5
assert playground.x_dual is not None and not playground.error_text
assert playground.state_digest() == first_state_playground  # back in its first state, for the class
print("x =", playground.x, "| z =", playground.z, "| active rows:", np.flatnonzero(playground.active) + 1,
      "| ReLU-dual:", playground.x_dual)

# %% [markdown]
# ## What we saw
#
# * The 2-D explorer's verdict flips exactly at the maximal constant bias $-\tfrac12$ of the
#   Mercedes-Benz frame, and above it the explorer shows a verified pair of inputs with one output.
# * The 3-D explorer's table is the library's polytope bias: $1/\sqrt5$ for every vertex of the
#   icosahedron on the sphere, and $0$ on the ball.
# * Below the maximal bias the ReLU-dual recovers $x$ exactly and the frame algorithm converges; far
#   above it too few rows survive to recover anything.

# %% [markdown] tags=["voila-hide"]
# ## Exercises
#
# Each exercise has a cell for your answer, a worked solution (collapsed: click the bar or the three
# dots to open it, after trying) and a check that says what is right or wrong with your answer.

# %% tags=["voila-hide"]
import exercises as ex  # the checkers (exercises/nb12.py next to the notebooks), not part of the library

# %% [markdown] tags=["exercise"]
# ### Exercise 12.1 — the pentagon on the sphere
#
# In the 2-D explorer above choose the preset `pentagon` (five unit vectors at 72°) and the domain
# `sphere`. Find the **largest constant bias** $\alpha$ for which the layer is injective on the unit
# sphere, to three decimals (the slider moves in steps of 0.05: type values with
# `explorer2d.offset.value = ...`, or ask the library). Then switch the domain to `ball`: why is the
# answer there $0$?

# %% tags=["answer"]
answer_12_1 = None  # a number

# %% jupyter={"source_hidden": true} tags=["solution"]
# The polytope bias on the sphere is a guarantee (Thm PBE); for a regular polygon it is also the
# largest bias: just above it there are two points of the sphere with one output (what the explorer's
# verdict shows when the offset passes it).
from relu_frames_nb.viz.plane import boundary_points  # the points of the circle where active sets change

pentagon = rf.zoo.get("pentagon")
answer_12_1 = float(rf.polytope_bias(pentagon, rf.Sphere(2)).values.min())
above = rf.ReLULayer(pentagon, answer_12_1 + 0.01)
pair = rf.find_collision(above, rf.Sphere(2), points=boundary_points(above, rf.Sphere(2)))
assert pair.found and np.allclose(above(pair.x), above(pair.y))
print(f"largest constant bias on the sphere: {answer_12_1:.4f} = cos 72° = {np.cos(np.deg2rad(72)):.4f}")
ex.solution("12.1", answer_12_1)

# %% tags=["check"]
ex.nb12.check_12_1(answer_12_1)

# %% [markdown] tags=["exercise"]
# ### Exercise 12.2 — the cube in space
#
# In the 3-D explorer choose the frame `cube` (the eight vectors $(\pm1, \pm1, \pm1)/\sqrt3$) and the
# domain `sphere`. Give the pair `(bias, facets)`: the polytope bias of a vertex (the table shows the
# same value for all eight: why?) and the number of facets of the cube's polytope that meet at a vertex
# (pick a vertex to see its star).

# %% tags=["answer"]
answer_12_2 = None  # (a number, a whole number)

# %% jupyter={"source_hidden": true} tags=["solution"]
# The explorer's table is the library's polytope bias, its vertex star the facets at the chosen vertex.
cube = rf.zoo.get("cube")
cube_bias = rf.polytope_bias(cube, rf.Sphere(3)).values
answer_12_2 = (float(cube_bias[0]), len(rf.inscribing_polytope(cube).facets_of(0)))
assert np.allclose(cube_bias, answer_12_2[0])  # every vertex alike: the cube's symmetry
print(f"polytope bias of every vertex of the cube on the sphere: {answer_12_2[0]:.4f}; facets at a vertex: {answer_12_2[1]}")
ex.solution("12.2", answer_12_2)

# %% tags=["check"]
ex.nb12.check_12_2(answer_12_2)

# %% [markdown] tags=["exercise"]
# ### Exercise 12.3 — a collision of your own
#
# For the Mercedes-Benz frame with the constant bias $\alpha = -0.45$ (above its maximal bias
# $-\tfrac12$) the layer is not injective on the unit ball. Find **your own** pair: two different points
# $x \ne y$ of the closed unit ball with $C_\alpha x = C_\alpha y$, as `(x, y)`. *Hint:* where only
# one element $\phi_i$ is active, the output does not change along the direction orthogonal to
# $\phi_i$. The 2-D explorer (offset $-0.45$) shows where that happens.

# %% tags=["answer"]
answer_12_3 = None  # (x, y), two points of R^2

# %% jupyter={"source_hidden": true} tags=["solution"]
# At x = 0.97 (cos -30°, sin -30°) only φ3 = (√3/2, -1/2) is active: <x, φ1> = <x, φ2> = -0.485 < -0.45.
# Moving by t·(1/2, √3/2), orthogonal to φ3, keeps <., φ3>; for a small t the other two stay inactive
# and y stays in the ball.
L123 = rf.ReLULayer(rf.zoo.mercedes_benz(), ex.nb12.OFFSET_12_3)
x123 = 0.97 * np.array([np.cos(np.deg2rad(-30)), np.sin(np.deg2rad(-30))])
y123 = x123 + 0.02 * np.array([0.5, np.sqrt(3) / 2])
assert np.flatnonzero(L123(x123)).tolist() == [2] and np.linalg.norm(y123) <= 1
answer_12_3 = (x123, y123)
print("x =", x123, "y =", y123, "common output:", L123(x123))
ex.solution("12.3", answer_12_3)

# %% tags=["check"]
ex.nb12.check_12_3(answer_12_3)

# %% tags=["voila-hide"]
print("12_playground: all checks passed")
