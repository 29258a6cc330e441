"""DigitsExplorer driven without a browser: set the widgets' values, assert on the state they produce."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")


import numpy as np  # noqa: E402
import pytest  # noqa: E402

import relu_frames_nb as rf  # noqa: E402

W = pytest.importorskip("ipywidgets")
digits = pytest.importorskip("relu_frames_nb.viz.digits")
DigitsExplorer = digits.DigitsExplorer


def _data(seed=0, N=12, m=128):
    """Images of 8 x 8 pixels in [0, 16] and a layer 64 -> m whose biases leave about half the units active."""
    rng = np.random.default_rng(seed)
    X = np.clip(rng.normal(6.0, 5.0, size=(N, 64)), 0.0, 16.0)
    Wt = rng.standard_normal((m, 64))
    b = -np.median(X @ Wt.T, axis=0)  # PyTorch convention: ReLU(W x + b)
    return X, rf.ReLULayer.from_weights(Wt, b)


def test_initial_state_matches_the_layer():
    X, L = _data()
    ex = DigitsExplorer(L, X, labels=np.arange(len(X)) % 10, dpi=30)
    np.testing.assert_array_equal(ex.image, X[0])
    np.testing.assert_allclose(ex.z, L(X[0]))
    assert ex.n_active == int(ex.active.sum()) == int(np.sum(L.preactivation(X[0]) >= 0))
    assert ex.rank == np.linalg.matrix_rank(L.frame.vectors[ex.active])
    assert ex.invertible == rf.is_rectifying(L, X[0]) == (ex.rank == 64)
    assert ex.last_png.startswith(b"\x89PNG") and ex.n_updates == 1
    assert "digit #0 (label 0)" in ex.summary_text and f"{ex.n_active} of 128 units active" in ex.summary_text


def test_index_slider_updates_activations_and_reconstruction():
    X, L = _data()
    ex = DigitsExplorer(L, X, dpi=30)
    png0 = ex.last_png
    for i in (3, 7, 11):
        ex.index.value = i
        np.testing.assert_array_equal(ex.image, X[i])
        np.testing.assert_allclose(ex.z, L(X[i]))
        assert ex.invertible == rf.is_rectifying(L, X[i])
        if ex.invertible:
            np.testing.assert_allclose(ex.reconstruction, X[i], atol=1e-8)
            np.testing.assert_allclose(ex.reconstruction, rf.reconstruct(L, L(X[i])), atol=1e-10)
            assert ex.error < 1e-8 and "locally invertible" in ex.summary_text
    assert ex.n_updates == 4 and ex.last_png != png0
    assert not ex.error_text


def test_not_invertible_digit_shows_a_preimage_and_says_so():
    X, L = _data()
    # raise the biases so that the first image keeps fewer than 64 active units
    inner = L.frame.vectors @ X[0]
    keep = np.isin(np.arange(L.m), np.argsort(-inner)[:40])
    alpha = np.where(keep, inner - 1.0, inner + 1.0)  # 40 units active at X[0], the others not
    L2 = L.with_bias(alpha)
    ex = DigitsExplorer(L2, X, dpi=30)
    assert ex.n_active == 40 and ex.rank == 40 and not ex.invertible
    assert "not invertible here" in ex.summary_text and np.isnan(ex.error)
    # what is shown is another input with exactly the same activations: a collision
    np.testing.assert_allclose(L2(ex.x_hat), ex.z, rtol=1e-9, atol=1e-9)
    assert np.linalg.norm(ex.x_hat - X[0]) > 1e-3
    assert "another input has the same activations" in ex.summary_text


def test_draw_mode_grid_toggles_and_buttons():
    X, L = _data()
    ex = DigitsExplorer(L, X, dpi=30)
    assert ex._draw_box.layout.display == "none" and not ex.index.disabled
    ex.index.value = 5
    ex.copy_button.click()  # the digit, thresholded at vmax / 2, on the grid
    assert ex.source.value == "draw" and ex.index.disabled and ex._draw_box.layout.display == ""
    np.testing.assert_array_equal(ex.image, np.where(X[5] > 8.0, 16.0, 0.0))
    np.testing.assert_allclose(ex.z, L(ex.image))
    n = ex.n_updates
    k = int(np.flatnonzero(ex.image == 0)[0])
    ex.pixels[k].value = True  # one toggle: one update, and the button turns dark
    assert ex.n_updates == n + 1 and ex.image[k] == 16.0 and ex.pixels[k].value and "mod-active" in ex.pixel_style.value
    np.testing.assert_allclose(ex.z, L(ex.image))
    assert "the drawn image" in ex.summary_text
    ex.clear_button.click()
    assert not ex.image.any() and ex.n_updates == n + 2
    np.testing.assert_allclose(ex.z, L(np.zeros(64)))
    ex.source.value = "data set"  # back to the slider's digit; the grid no longer drives the picture
    np.testing.assert_array_equal(ex.image, X[5])
    n = ex.n_updates
    ex.pixels[0].value = not ex.pixels[0].value
    assert ex.n_updates == n


def test_set_grid_accepts_masks_and_images():
    X, L = _data()
    ex = DigitsExplorer(L, X, dpi=30)
    mask = np.zeros((8, 8), dtype=bool)
    mask[2:6, 3] = True
    ex.set_grid(mask)
    np.testing.assert_array_equal(ex.image, np.where(mask.ravel(), 16.0, 0.0))
    ex.set_grid(X[2], threshold=3.0)
    np.testing.assert_array_equal(ex.image, np.where(X[2] > 3.0, 16.0, 0.0))
    with pytest.raises(rf.DimensionMismatchError):
        ex.set_grid(np.zeros(10))


def test_encoder_decoder_in_the_data_span():
    X, L = _data()
    rng = np.random.default_rng(3)
    V = np.linalg.qr(rng.standard_normal((64, 10)))[0]  # an orthonormal basis of a 10-dimensional subspace
    LV = rf.ReLULayer.from_weights(L.frame.vectors[:40] @ V, -L.alpha[:40])
    ex = DigitsExplorer(LV, X, encode=lambda U: U @ V, decode=lambda C: C @ V.T, dpi=30)
    assert len(ex.last_figure.axes) == 4  # image, as the layer sees it, activations, reconstruction
    for i in range(len(X)):
        ex.index.value = i
        np.testing.assert_allclose(ex.x, X[i] @ V)
        assert ex.invertible == rf.is_rectifying(LV, X[i] @ V)
        if ex.invertible:
            np.testing.assert_allclose(ex.reconstruction, X[i] @ V @ V.T, atol=1e-8)  # the projection, recovered
    assert len(DigitsExplorer(L, X, dpi=30).last_figure.axes) == 3


def test_prediction_is_shown_and_errors_reach_the_error_area():
    X, L = _data()

    def predict(U):
        if U[0, 0] == X[4, 0]:
            raise RuntimeError("model exploded")
        return np.array([7])

    ex = DigitsExplorer(L, X, predict=predict, dpi=30)
    assert "predicted 7" in ex.summary_text
    ex.index.value = 4  # the observer's error is shown, not raised
    assert "model exploded" in ex.error_text and ex.error_count == 1
    ex.index.value = 5
    assert "predicted 7" in ex.summary_text


def test_bad_inputs_are_refused_with_a_message():
    X, L = _data()
    with pytest.raises(rf.DimensionMismatchError, match="64 pixels"):
        DigitsExplorer(L, X[:, :60])
    with pytest.raises(rf.DimensionMismatchError, match="encode must map"):
        DigitsExplorer(L, X, encode=lambda U: U[:, :10])
    with pytest.raises(rf.InputError, match="callable"):
        DigitsExplorer(L, X, encode=np.eye(64))
    with pytest.raises(rf.DimensionMismatchError, match="labels"):
        DigitsExplorer(L, X, labels=[1, 2])
    ex = DigitsExplorer(L, X.reshape(-1, 8, 8), dpi=30)  # images as 8 x 8 arrays
    np.testing.assert_array_equal(ex.image, X[0])


def test_static_picture_for_readers_without_a_kernel():
    X, L = _data()
    ex = DigitsExplorer(L, X, dpi=30)
    bundle = ex._repr_mimebundle_()
    assert "image/png" in bundle and "application/vnd.jupyter.widget-view+json" in bundle


def test_every_index_change_updates_once():
    # the speed is measured in benchmarks/bench_widgets.py, not here (a loaded machine must not fail a test)
    X, L = _data(N=40)
    ex = DigitsExplorer(L, X)
    for i in range(1, 12):
        before = ex.n_updates
        ex.index.value = i
        assert ex.n_updates == before + 1 and np.array_equal(ex.image, X[i])


def test_exported_from_widgets():
    from relu_frames_nb.viz import widgets

    assert widgets.DigitsExplorer is DigitsExplorer
    import relu_frames_nb.viz as viz

    assert viz.digits.DigitsExplorer is DigitsExplorer


def test_state_digest_returns_after_driving_and_undoing():
    X, L = _data()
    ex = DigitsExplorer(L, X, dpi=30)
    first = ex.state_digest()
    ex.index.value = 6
    ex.copy_button.click()
    assert ex.state_digest() != first
    ex.source.value = "data set"
    ex.set_grid(np.zeros(64, dtype=bool))
    ex.source.value = "data set"
    ex.index.value = 0
    assert ex.state_digest() == first
