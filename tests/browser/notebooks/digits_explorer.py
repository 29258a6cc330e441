# %% [markdown]
# Browser test: the digits explorer (DigitsExplorer) on scikit-learn's bundled digits, with a
# random first layer 64 -> 128 whose biases leave about half of the units active.

# %%
import numpy as np
from IPython.display import display
from sklearn.datasets import load_digits

import relu_frames_nb as rf
from relu_frames_nb.viz.widgets import DigitsExplorer

# %%
X, y = load_digits(return_X_y=True)
rng = np.random.default_rng(0)
W = rng.standard_normal((128, 64))
layer = rf.ReLULayer.from_weights(W, -np.median(X @ W.T, axis=0))  # PyTorch convention: b = -alpha
explorer = DigitsExplorer(layer, X[:40], labels=y[:40])
display(explorer)

# %%
print("RFNB-BROWSER" + "-DONE-digits")
