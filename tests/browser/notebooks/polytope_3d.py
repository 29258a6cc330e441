# %% [markdown]
# Browser test: the 3-D polytope explorer (pythreejs viewer of the icosahedron frame's
# inscribing polytope with OrbitControls, bias table, vertex selection), and one with a
# 60-element frame whose bias table scrolls.

# %%
from IPython.display import display

from relu_frames_nb.viz.widgets import PolytopeExplorer3D

# %%
explorer = PolytopeExplorer3D("icosahedron", domain="ball", width=460, height=460)
explorer.vertex.add_class("rfnb-test-vertex")  # a stable selector for the vertex dropdown
display(explorer)

# %%
# a frame with more elements than fit beside the canvas: the bias table must scroll visibly
long_table = PolytopeExplorer3D("random", m=60, domain="ball", width=300, height=300)
long_table.add_class("rfnb-test-long-table")
display(long_table)

# %%
print("RFNB-BROWSER" + "-DONE-polytope3d")
