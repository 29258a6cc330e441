# %% [markdown]
# Browser test: the 3-D polytope explorer (pythreejs viewer of the icosahedron frame's
# inscribing polytope with OrbitControls, bias table, vertex selection).

# %%
from IPython.display import display

from relu_frames_nb.viz.widgets import PolytopeExplorer3D

# %%
explorer = PolytopeExplorer3D("icosahedron", domain="ball", width=460, height=460)
explorer.vertex.add_class("rfnb-test-vertex")  # a stable selector for the vertex dropdown
display(explorer)

# %%
print("RFNB-BROWSER" + "-DONE-polytope3d")
