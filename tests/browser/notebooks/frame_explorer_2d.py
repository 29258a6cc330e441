# %% [markdown]
# Browser test: the 2-D frame explorer (triangle frame on the unit ball) and the IPython
# extension's rich repr. The verdict flips at bias offset -1/2: injective at -0.60, not
# injective at -0.45 or above.

# %%
from IPython.display import display

import relu_frames_nb as rf
from relu_frames_nb.viz.widgets import FrameExplorer2D

# %%
# %load_ext relu_frames_nb
display(rf.zoo.mercedes_benz())

# %%
explorer = FrameExplorer2D("mercedes-benz", offset=-0.6, domain="ball", radius=1.0)
explorer.offset.add_class("rfnb-test-offset")  # a stable selector for the bias-offset slider
assert explorer.verdict.status == "injective", explorer.verdict_text
display(explorer)

# %%
print("RFNB-BROWSER" + "-DONE-frame2d")
