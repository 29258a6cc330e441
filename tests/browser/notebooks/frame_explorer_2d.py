# %% [markdown]
# Browser test: 2-D frame explorer (triangle frame on the unit ball, one bias offset slider).
# The explorer's verdict flips at offset -1/2: injective below, not injective above.

# %%
import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

import relu_frames_nb as rf
from relu_frames_nb.rectifying import check_rectifying

# %%
frame = rf.zoo.mercedes_benz()
offset = widgets.FloatSlider(value=-0.6, min=-1.0, max=0.0, step=0.05, description="bias offset", continuous_update=False)
verdict = widgets.HTML()
verdict.add_class("rfnb-verdict")
plot = widgets.Output()


def update(change=None):
    a = float(offset.value)
    check = check_rectifying(rf.ReLULayer(frame, np.full(frame.m, a)), rf.Ball(2), n_samples=4000, seed=0)
    verdict.value = f"<b>{'injective' if check.rectifying else 'not injective'}</b> on the unit ball (bias offset {a:+.2f})"
    fig, ax = plt.subplots(figsize=(3.5, 3.5))
    t = np.linspace(0, 2 * np.pi, 200)
    ax.plot(np.cos(t), np.sin(t), "k-", lw=1)
    for phi in frame.vectors:
        ax.arrow(0, 0, *phi, head_width=0.05, color="C0")
        p, d = a * phi, np.array([-phi[1], phi[0]])
        ax.plot(*np.transpose([p - 2 * d, p + 2 * d]), color="C1")
    ax.set(xlim=(-1.3, 1.3), ylim=(-1.3, 1.3), aspect="equal", title=f"alpha = {a:+.2f}")
    with plot:
        plot.clear_output(wait=True)
        display(fig)
    plt.close(fig)


offset.observe(update, names="value")
update()
display(widgets.VBox([offset, verdict, plot]))

# %%
print("RFNB-BROWSER" + "-DONE-frame2d")
