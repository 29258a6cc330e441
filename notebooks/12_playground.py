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
# **As an app.** With Voilà the code cells disappear and only the explorers remain:
# `voila notebooks/12_playground.ipynb` locally (the kit's test environment has Voilà), or on Binder
# `https://mybinder.org/v2/gh/<owner>/<repo>/HEAD?urlpath=voila/render/notebooks/12_playground.ipynb`.
# Without a running kernel (GitHub, nbviewer) each explorer shows a still picture of its first state.
#
# The cells after each explorer check the statements made about it. They drive the widgets the way a
# student would (setting a slider's value), so they also prove that the controls work.

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
# *Exercise.* Find the largest offset for which the layer is injective on the ball. Then on the
# sphere. Why are the answers the same? (Answer in the next check cell and in
# [03_properties_of_frames](03_properties_of_frames.ipynb).)

# %%
explorer2d = FrameExplorer2D("mercedes-benz", offset=-0.6, resolution=RES)
display(explorer2d)

# %%
# the answer: -1/2 on the ball, and on the sphere as well (the failures sit on the boundary)
assert explorer2d.verdict.status == "injective"
for offset, expected in [(-0.55, "injective"), (-0.45, "not injective")]:
    explorer2d.offset.value = offset
    assert explorer2d.verdict.status == expected, (offset, explorer2d.verdict_text)
collision = explorer2d.verdict.collision
np.testing.assert_allclose(explorer2d.layer(collision.x), explorer2d.layer(collision.y), atol=1e-12)
c = rf.polytope_bias(rf.zoo.mercedes_benz(), rf.Ball(2)).values  # a guarantee, and here the maximal bias
np.testing.assert_allclose(c, -0.5, atol=1e-12)
explorer2d.domain_kind.value = "sphere"
assert explorer2d.verdict.status == "not injective"  # offset -0.45 > -1/2: fails on the sphere as well
explorer2d.offset.value = -0.55
assert explorer2d.verdict.status == "injective"  # and -0.55 < -1/2 is fine there too: the same threshold
explorer2d.domain_kind.value = "ball"
explorer2d.offset.value = -0.6
assert explorer2d.verdict.status == "injective" and not explorer2d.error_text
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
# *Exercise.* Every vertex of the icosahedron sits in five facets. Which value does the table show for
# all of them on the sphere, and why is it the same for every vertex?

# %%
explorer3d = PolytopeExplorer3D("icosahedron", domain="sphere")
display(explorer3d)

# %%
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
explorer3d.vertex.value = first_vertex  # back to the first state, for the class
assert not explorer3d.error_text
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

# %%
assert playground.x_dual is not None and playground.dual_error < 1e-12
np.testing.assert_allclose(playground.x_dual, playground.x, atol=1e-12)
assert playground.errors_curve[-1] < playground.errors_curve[0]  # the frame algorithm converges
playground.offset.value = 0.5  # far above the maximal bias: at most one row survives at this x
assert playground.active.sum() < 2 and playground.x_dual is None
playground.offset.value = -0.5
assert playground.x_dual is not None and not playground.error_text
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

# %%
print("12_playground: all checks passed")
