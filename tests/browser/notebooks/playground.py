# %% [markdown]
# Browser test for Voila: the reconstruction playground (pick x, see z = ReLU(Phi x - alpha),
# reconstruct with the ReLU-dual and the frame algorithm).

# %%
from IPython.display import display

import relu_frames_nb as rf
from relu_frames_nb.viz.widgets import ReconstructionPlayground

# %%
# %load_ext relu_frames_nb
display(rf.zoo.mercedes_benz())

# %%
playground = ReconstructionPlayground("mercedes-benz", offset=-0.5)
playground.sliders[0].add_class("rfnb-test-x1")  # a stable selector for the x1 slider
display(playground)

# %%
print("RFNB-BROWSER" + "-DONE-playground")
