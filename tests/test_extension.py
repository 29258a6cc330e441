"""IPython extension: reprs, ``%%frame`` and ``%relu_check``, driven through an InteractiveShell."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb import extension

IPython = pytest.importorskip("IPython")
from IPython.core.error import UsageError  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402


def get_ipython():
    return InteractiveShell.instance()


@pytest.fixture
def ip():
    shell = get_ipython()
    shell.run_line_magic("load_ext", "relu_frames_nb")
    yield shell
    shell.run_line_magic("unload_ext", "relu_frames_nb")
    for name in ("T", "L", "P", "lin"):
        shell.user_ns.pop(name, None)


def _html(shell, obj) -> str:
    return shell.display_formatter.formatters["text/html"].lookup(obj)(obj)


def test_import_does_not_load_ipython_or_widgets():
    code = (
        "import sys, relu_frames_nb\n"
        "print([m for m in ('IPython', 'ipywidgets', 'matplotlib', 'pythreejs') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_load_ext_is_reachable_from_the_package():
    assert callable(rf.load_ipython_extension) and callable(rf.unload_ipython_extension)


def test_frame_magic_binds_a_frame(ip):
    ip.run_cell_magic("frame", "T", "0 1\n-0.8660254037844386 -0.5\n0.8660254037844386, -0.5\n")
    T = ip.user_ns["T"]
    assert isinstance(T, rf.Frame) and T.m == 3 and T.n == 2
    assert np.allclose(T.vectors, rf.zoo.mercedes_benz().vectors)


@pytest.mark.parametrize("newline", ["\r", "\r\n"])
def test_frame_magic_reads_cr_and_crlf_line_ends(ip, newline):
    ip.run_cell_magic("frame", "T", newline.join(["0 1", "-0.8660254037844386 -0.5", "0.8660254037844386, -0.5", ""]))
    T = ip.user_ns["T"]
    assert T.m == 3 and T.n == 2
    assert np.allclose(T.vectors, rf.zoo.mercedes_benz().vectors)


@pytest.mark.parametrize(
    "line,cell,match",
    [
        ("T", "1 0\n0 __import__('os')", "plain numbers"),
        ("T", "1 0\n0 0", "non-zero"),
        ("T", "1 1\n2 2\n-1 -1", "span"),
        ("T", "  # only a comment\n", "no numbers"),
        ("1bad", "1 0\n0 1", "identifier"),
        ("", "1 0\n0 1", "identifier"),
        ("__builtins__", "1 0\n0 1", "builtin or a dunder"),
        ("print", "1 0\n0 1", "builtin or a dunder"),
        ("lambda", "1 0\n0 1", "keyword"),
    ],
)
def test_frame_magic_refuses_bad_input(ip, line, cell, match):
    with pytest.raises(UsageError, match=match):
        ip.run_cell_magic("frame", line, cell)
    assert "T" not in ip.user_ns


@pytest.mark.parametrize(
    "name",
    ["_oh", "Out", "In", "_ih", "_dh", "_", "__", "___", "_i", "_ii", "_iii", "_i1", "_i42", "_7", "exit", "quit",
     "get_ipython"],
)  # fmt: skip
def test_frame_magic_refuses_ipython_names(ip, name):
    sentinel = object()
    before = ip.user_ns.get(name, sentinel)
    with pytest.raises(UsageError, match=rf"must not be one of IPython's own names \(.*\); got {re.escape(repr(name))}\."):
        ip.run_cell_magic("frame", name, "1 0\n0 1")
    assert ip.user_ns.get(name, sentinel) is before


def test_frame_magic_refuses_to_rebind_a_module(ip):
    ip.run_cell("import numpy as np_alias")
    try:
        with pytest.raises(UsageError, match="must not rebind a module; got 'np_alias' .the module numpy."):
            ip.run_cell_magic("frame", "np_alias", "1 0\n0 1")
        assert ip.user_ns["np_alias"] is np
        ip.user_ns["T"] = 3  # any other value may be replaced
        ip.run_cell_magic("frame", "T", "1 0\n0 1")
        assert isinstance(ip.user_ns["T"], rf.Frame)
    finally:
        ip.user_ns.pop("np_alias", None)


def test_relu_check_magic_mirrors_the_cli(ip):
    ip.user_ns["L"] = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.6)
    v = ip.run_line_magic("relu_check", "L --domain ball:1 --samples 2000")
    assert isinstance(v, rf.Verdict) and v.status == "injective" and v.exit_code == 0
    ip.user_ns["L"] = rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0)
    v = ip.run_line_magic("relu_check", "L --domain=sphere --samples 2000 --seed 3 --time-limit 5 --method fast")
    assert v.status == "not injective" and v.exit_code == 1 and v.pair is not None
    html = v._repr_html_()  # a Verdict shows itself; IPython calls _repr_html_
    assert "not injective" in html and "pair" in html
    ip.user_ns["net"] = rf.Network.from_weights([(rf.zoo.mercedes_benz().vectors, np.full(3, 0.6))])
    assert ip.run_line_magic("relu_check", "net --domain ball:1").status == "injective"  # a network too


def test_relu_check_magic_takes_near_as_a_name_or_a_file(ip, tmp_path):
    W = np.array([[1.0, 0], [-1, 0], [0, 1], [0, -1]])
    ip.user_ns["L4"] = rf.ReLULayer(W, 0.5)  # ReLU(+-x_i - 1/2): every point near the centre has no active row
    x0 = np.array([0.1, 0.05])
    ip.user_ns["x0"] = x0
    v = ip.run_line_magic("relu_check", "L4 --domain box:-1,1 --near x0 --time-limit 20")
    assert v.status == "not injective" and "near" in v.details
    assert np.allclose(ip.user_ns["L4"](v.pair[0]), ip.user_ns["L4"](v.pair[1]))
    np.save(tmp_path / "x0.npy", x0)
    v = ip.run_line_magic("relu_check", f"L4 --domain box:-1,1 --near {tmp_path / 'x0.npy'} --time-limit 20")
    assert v.status == "not injective" and "near" in v.details
    with pytest.raises(UsageError, match="near"):
        ip.run_line_magic("relu_check", "L4 --domain box:-1,1 --near nothing_by_that_name.npy")


def test_relu_check_accepts_a_linear_module(ip):
    class Linear:  # duck-typed torch.nn.Linear (PyTorch convention: b = -alpha)
        weight = rf.zoo.mercedes_benz().vectors
        bias = np.full(3, 0.6)

    ip.user_ns["lin"] = Linear()
    v = ip.run_line_magic("relu_check", "lin --samples 1000")
    assert v.status == "injective"  # read as PyTorch's b = 0.6: alpha = -0.6 < -1/2
    ip.user_ns["lin"].bias = np.full(3, 0.4)  # alpha = -0.4 > -1/2: not injective on the ball
    assert ip.run_line_magic("relu_check", "lin --samples 1000").status == "not injective"


@pytest.mark.parametrize(
    "line,match",
    [
        ("", "name the layer"),
        ("missing", "no variable"),
        ("P", "ReLULayer"),
        ("L --domain cube:1", "domain"),
        ("L --samples many", "integer"),
        ("L --samples 0", ">= 1"),
        ("L --bogus 1", "unrecognized arguments: --bogus"),
        ("L M", "unrecognized arguments: M"),
        ("L --domain", "expected one argument"),
        ("L 'unclosed", "quotation"),
        ("L --time-limit -1", "time-limit"),
        ("L --method quick", "method"),
    ],
)
def test_relu_check_usage_errors(ip, line, match):
    ip.user_ns["L"] = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.6)
    ip.user_ns["P"] = 3
    with pytest.raises(UsageError, match=match):
        ip.run_line_magic("relu_check", line)


def test_reprs_are_registered_and_removed():
    shell = get_ipython()
    shell.run_line_magic("load_ext", "relu_frames_nb")
    objs = [
        rf.zoo.platonic("icosahedron"),
        rf.ReLULayer(rf.zoo.mercedes_benz(), [-0.5, 0.1, 0.2]),
        rf.Ball(2),
        rf.Shell(3, 0.5, 1.0),
        rf.Samples(np.eye(2)),
        rf.polytope_bias(rf.zoo.platonic("cube"), rf.Ball(3)),
    ]
    for obj in objs:
        assert "<table" in _html(shell, obj)
    shell.run_line_magic("unload_ext", "relu_frames_nb")
    fmt = shell.display_formatter.formatters["text/html"]
    for obj in objs:
        with pytest.raises(KeyError):
            fmt.lookup(obj)
    assert "frame" not in shell.magics_manager.magics["cell"]
    assert "relu_check" not in shell.magics_manager.magics["line"]


def test_frame_html_content():
    h = extension.frame_html(rf.zoo.platonic("icosahedron"))
    for text in ("vectors m", "redundancy", "4, 4 (tight)", "normalized", "spark", "omnidirectional", "yes", "φ12"):
        assert text in h
    big = extension.frame_html(rf.zoo.random_sphere(60, 9, seed=0))
    assert "not computed" in big and "more)" not in big  # n > 8: no vector table
    many = extension.frame_html(rf.zoo.random_sphere(40, 3, seed=0))
    assert "more)" in many and "φ40" in many
    nonomni = extension.frame_html(rf.zoo.standard_basis(2))
    assert "omnidirectional</th><td>no" in nonomni
    with pytest.raises(ValueError):
        extension.frame_html(np.eye(2))


def test_layer_domain_and_estimate_html():
    h = extension.layer_html(rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5))
    assert "−0.5" in h or "-0.5" in h
    assert "(constant)" in h and "PyTorch" in h
    assert "the shell 0.5 ≤ |x| ≤ 1" in extension.domain_html(rf.Shell(2, 0.5, 1.0))
    assert "open or convex</th><td>no" in extension.domain_html(rf.Sphere(2))
    est = rf.polytope_bias(rf.zoo.standard_basis(2).vectors.tolist() + [[-1.0, -1.0]], rf.PositiveBall(2))
    h = extension.estimate_html(est)
    assert "guaranteed" in h and "facet" in h
    with pytest.raises(ValueError):
        extension.layer_html(rf.zoo.mercedes_benz())


def test_parse_relu_check_args():
    assert extension.parse_relu_check_args("L") == {"name": "L", "domain": "ball:1", "samples": 4000, "seed": 0,
                                                    "max-facets": 200_000, "method": "auto", "time-limit": 30.0,
                                                    "workers": 1, "memory-limit": 2.0, "near": None}  # fmt: skip
    assert extension.parse_relu_check_args("L --workers 2")["workers"] == 2
    assert extension.parse_relu_check_args("L --seed=4 --domain positive-ball:2")["seed"] == 4
    with pytest.raises(ValueError):
        extension.parse_relu_check_args("--domain ball:1")


# the magic and the command line read their options from one schema (relu_frames_nb.options)
_REFUSED = [
    ("--seed", "-1"),  # the magic took it, the command line refused it
    ("--seed", "1.5"),
    ("--samples", "0"),
    ("--max-facets", "0"),
    ("--time-limit", "-1"),
    ("--time-limit", "inf"),
    ("--time-limit", "nan"),
    ("--memory-limit", "0"),
    ("--method", "quick"),
]


@pytest.mark.parametrize("option,value", _REFUSED)
def test_relu_check_refuses_what_the_cli_refuses_in_the_same_words(ip, capsys, option, value):
    from relu_frames_nb import cli

    ip.user_ns["L"] = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.6)
    with pytest.raises(UsageError) as magic_error:
        ip.run_line_magic("relu_check", f"L {option} {value}")
    rc = cli.main(["check", "unused.npy", option, value, "--json"])
    cli_error = json.loads(capsys.readouterr().out)["error"]
    assert rc == cli.EXIT_BAD_INPUT and cli_error.startswith("python -m relu_frames_nb check: error: argument")
    reason = cli_error.split(": error: ", 1)[1]  # "argument --seed: must be an integer >= 0; got -1"
    assert reason.startswith(f"argument {option}:") and reason in str(magic_error.value)


def test_relu_check_takes_the_cli_options_for_a_model_in_memory(ip, monkeypatch):
    seen = {}

    def fake_check(model, K, **kw):
        seen.update(kw)
        return rf.check(model, K, time_limit=None)

    monkeypatch.setattr(extension, "check", fake_check)
    ip.user_ns["L"] = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.6)
    v = ip.run_line_magic("relu_check", "L --seed 7 --max-facets 50 --memory-limit 0.5 --time-limit 1e10")
    assert v.status == "injective"
    assert seen["seed"] == 7 and seen["max_facets"] == 50 and seen["memory_limit"] == 0.5 * 1024**3
    assert seen["time_limit"] == 1e10
    for cli_only in ("--json", "--quiet", "--bias 0.1", "--layer fc1", "--save-pair p.png"):  # files and output: the CLI's
        with pytest.raises(UsageError, match="unrecognized arguments"):
            ip.run_line_magic("relu_check", f"L {cli_only}")
