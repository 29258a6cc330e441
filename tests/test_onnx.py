"""Network.from_onnx: models built with onnx.helper, read exactly and compared with onnxruntime (or with numpy)."""

from __future__ import annotations

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.errors import InputError

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

RTOL = 1e-9  # the bound on the relative error of a read network's forward (against a float64 reference)
RTOL_ORT = 1e-5  # onnxruntime runs float32 models in float32


def _model(nodes, inits, in_shape, out_name="y", opset=17):
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", *in_shape])],
        [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, ["N", "M"])],
        initializer=[numpy_helper.from_array(np.asarray(v, dtype=np.int64 if np.asarray(v).dtype.kind == "i" else np.float32), k)
                     for k, v in inits.items()],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    return model


def _ort(model, X):
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": X.astype(np.float32)})[0].reshape(len(X), -1)


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32).astype(float)


def _agree_ort(net, model, in_shape, seed=0):
    X = np.random.default_rng(seed).standard_normal((16, *in_shape)).astype(np.float32)
    want = _ort(model, X)
    got = net(X.reshape(16, -1).astype(float))
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= RTOL_ORT * max(1.0, np.abs(want).max())


def test_an_mlp_with_gemm_matmul_add_and_leaky_relu_is_exact():
    rng = np.random.default_rng(0)
    W1, b1, B2, b2 = _f32(rng, 5, 4), _f32(rng, 5), _f32(rng, 5, 3), _f32(rng, 3)
    nodes = [helper.make_node("Gemm", ["x", "W1", "b1"], ["h"], transB=1, name="fc1"),
             helper.make_node("LeakyRelu", ["h"], ["a"], alpha=0.1, name="act"),
             helper.make_node("MatMul", ["a", "B2"], ["z"], name="fc2"),
             helper.make_node("Add", ["z", "b2"], ["y"], name="bias2")]  # fmt: skip
    model = _model(nodes, {"W1": W1, "b1": b1, "B2": B2, "b2": b2}, [4])
    net = rf.Network.from_onnx(model)
    assert net.last_linear and net.n == 4
    X = rng.standard_normal((20, 4))
    h = X @ W1.T + b1
    want = np.where(h >= 0, h, 0.1 * h) @ B2 + b2  # float64 reference on the same (float32-representable) weights
    assert np.abs(net(X) - want).max() <= RTOL * np.abs(want).max()
    _agree_ort(net, model, [4])


def test_a_cnn_with_conv_batchnorm_pooling_prelu_and_a_residual_agrees_with_onnxruntime():
    rng = np.random.default_rng(1)
    inits = {"K1": _f32(rng, 4, 1, 3, 3), "c1": _f32(rng, 4),
             "scale": _f32(rng, 4), "bias": _f32(rng, 4), "mean": _f32(rng, 4), "var": rng.random(4) + 0.5,
             "K2": _f32(rng, 4, 2, 3, 3), "slope": np.abs(_f32(rng, 4, 1, 1)) * 0.2,
             "shape": np.array([0, -1]), "W": _f32(rng, 3, 4 * 3 * 3), "b": _f32(rng, 3)}  # fmt: skip
    nodes = [
        helper.make_node("Conv", ["x", "K1", "c1"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1], name="conv1"),
        helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["n"], epsilon=1e-3, name="bn"),
        helper.make_node("Relu", ["n"], ["r"], name="relu1"),
        helper.make_node("Conv", ["r", "K2"], ["c2"], pads=[2, 2, 2, 2], dilations=[2, 2], group=2, name="conv2"),
        helper.make_node("Add", ["c2", "r"], ["s"], name="residual"),
        helper.make_node("PRelu", ["s", "slope"], ["p"], name="prelu"),
        helper.make_node("MaxPool", ["p"], ["m"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], name="pool"),
        helper.make_node("AveragePool", ["m"], ["a"], kernel_shape=[2, 2], strides=[1, 1], pads=[0, 0, 1, 1], name="avg"),
        helper.make_node("Reshape", ["a", "shape"], ["f"], name="flat"),
        helper.make_node("Gemm", ["f", "W", "b"], ["y"], transB=1, name="fc"),
    ]
    model = _model(nodes, inits, [1, 6, 6])
    net = rf.Network.from_onnx(model)
    assert net.n == 36 and net.last_linear and "max pool 'pool'" in net.note
    _agree_ort(net, model, [1, 6, 6])


def test_concat_flatten_global_pool_sub_dropout_identity_and_constants():
    rng = np.random.default_rng(2)
    inits = {"K": _f32(rng, 3, 2, 2, 2), "two": np.array(2.0), "off": _f32(rng, 1, 5, 1, 1)}
    nodes = [
        helper.make_node("Conv", ["x", "K"], ["c"], auto_pad="SAME_UPPER", name="conv"),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Concat", ["r", "x"], ["k"], axis=1, name="cat"),
        helper.make_node("Constant", [], ["half"], value=numpy_helper.from_array(np.array(0.5, dtype=np.float32)), name="cst"),
        helper.make_node("Mul", ["k", "half"], ["h"], name="scale"),
        helper.make_node("Sub", ["h", "off"], ["d"], name="shift"),
        helper.make_node("Dropout", ["d"], ["e"], name="drop"),
        helper.make_node("Identity", ["e"], ["i"], name="id"),
        helper.make_node("Div", ["i", "two"], ["q"], name="div"),
        helper.make_node("GlobalAveragePool", ["q"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["y"], axis=1, name="flat"),
    ]
    model = _model(nodes, inits, [2, 4, 4])
    net = rf.Network.from_onnx(model)
    assert net.widths[-1] == 5
    _agree_ort(net, model, [2, 4, 4])


def test_a_file_is_read_and_input_shapes_are_checked(tmp_path):
    rng = np.random.default_rng(3)
    nodes = [helper.make_node("Gemm", ["x", "W", "b"], ["h"], transB=1, name="fc"),
             helper.make_node("Relu", ["h"], ["y"], name="act")]  # fmt: skip
    model = _model(nodes, {"W": _f32(rng, 6, 4), "b": _f32(rng, 6), "stale": np.ones(3)}, [4])
    onnx.save(model, tmp_path / "m.onnx")
    net = rf.Network.from_onnx(tmp_path / "m.onnx")
    assert net.widths == (4, 6) and not net.last_linear and "not used by the graph" in net.note and "stale" in net.note
    assert rf.Network.from_onnx(model, input_shape=(4,)).n == 4
    with pytest.raises(InputError, match="input_shape must match"):
        rf.Network.from_onnx(model, input_shape=(5,))
    with pytest.raises(InputError, match="must be readable"):
        rf.Network.from_onnx(tmp_path / "missing.onnx")


@pytest.mark.parametrize(
    "node,words",
    [
        (helper.make_node("Sigmoid", ["x"], ["y"], name="squash"), ["Sigmoid", "'squash'"]),
        (helper.make_node("Softmax", ["x"], ["y"], name="sm"), ["Softmax", "'sm'"]),
        (helper.make_node("Mul", ["x", "x"], ["y"], name="sq"), ["Mul", "'sq'", "not piecewise linear"]),
        (helper.make_node("Transpose", ["x"], ["y"], name="tr"), ["Transpose", "'tr'"]),
    ],
)
def test_other_operations_are_refused_by_name(node, words):
    model = _model([node], {}, [4])
    with pytest.raises(InputError) as err:
        rf.Network.from_onnx(model)
    for word in words:
        assert word in str(err.value)


def test_load_model_reads_an_onnx_file_as_its_network(tmp_path):
    from relu_frames_nb.loading import load_model

    rng = np.random.default_rng(4)
    nodes = [helper.make_node("Gemm", ["x", "W", "b"], ["h"], transB=1, name="fc"),
             helper.make_node("Relu", ["h"], ["r"], name="act"),
             helper.make_node("Gemm", ["r", "V"], ["y"], transB=1, name="logits")]  # fmt: skip
    onnx.save(_model(nodes, {"W": _f32(rng, 6, 3), "b": _f32(rng, 6), "V": _f32(rng, 2, 6)}, [3]), tmp_path / "m.onnx")
    net, kind = load_model(tmp_path / "m.onnx")
    assert kind == "b" and net.widths == (3, 6, 2) and net.last_linear
    assert load_model(tmp_path / "m.onnx", last="linear")[0].widths == (3, 6, 2)
    with pytest.raises(InputError, match="--last-relu must agree"):
        load_model(tmp_path / "m.onnx", last="relu")
    with pytest.raises(InputError, match="--bias"):
        load_model(tmp_path / "m.onnx", bias="0.5")
