# %% [markdown]
# Browser test for Voila: reconstruction playground (pick x, see z = ReLU(Phi x - alpha),
# reconstruct x from z with the ReLU-dual of the active sub-frame).

# %%
import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

import relu_frames_nb as rf

# %%
frame = rf.zoo.mercedes_benz()
alpha = np.full(frame.m, -0.5)
layer = rf.ReLULayer(frame, alpha)
angle = widgets.FloatSlider(value=0.0, min=0.0, max=360.0, step=5.0, description="angle of x", continuous_update=False)
report = widgets.HTML()
report.add_class("rfnb-report")
plot = widgets.Output()


def update(change=None):
    t = np.deg2rad(angle.value)
    x = 0.8 * np.array([np.cos(t), np.sin(t)])
    z = layer(x)
    active = z > 0
    x_rec = np.linalg.pinv(frame.vectors[active]) @ (z[active] + alpha[active])
    report.value = f"x = {np.round(x, 3)}, z = {np.round(z, 3)}, active = {np.flatnonzero(active)}, x_rec = {np.round(x_rec, 3)}"
    fig, ax = plt.subplots(figsize=(3.5, 3.5))
    ax.plot(*frame.vectors.T, "o", color="C0")
    ax.plot(*x, "x", color="C1", ms=12)
    ax.plot(*x_rec, "+", color="C2", ms=16)
    ax.set(xlim=(-1.2, 1.2), ylim=(-1.2, 1.2), aspect="equal", title=f"angle {angle.value:.0f}")
    with plot:
        plot.clear_output(wait=True)
        display(fig)
    plt.close(fig)


angle.observe(update, names="value")
update()
display(widgets.VBox([angle, report, plot]))

# %%
print("RFNB-BROWSER" + "-DONE-playground")
