"""One spelling for domains (parse_domain <-> Domain.spec), domains that describe themselves,
the Exterior domain, and the CLI's handling of bad input (exit codes, JSON on every outcome)."""

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

import relu_frames_nb as rf
from relu_frames_nb.domains import Exterior, parse_domain
from relu_frames_nb.errors import InputError, NotAFrameError
from relu_frames_nb.verdict import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, Status

ROUND = [rf.Ball(3, 2.0), rf.Sphere(3), rf.Shell(3, 0.5, 1.0), rf.PositiveBall(3, 1.5), rf.RealSpace(3), Exterior(3, 2.0)]


@pytest.mark.parametrize("K", ROUND, ids=repr)
def test_spec_reads_back_and_describe_names_the_domain(K):
    assert parse_domain(K.spec, 3) == K
    text = K.describe()
    assert isinstance(text, str) and text and "(" not in text.split()[0]


def test_domains_state_what_the_bias_code_needs():
    assert rf.Ball(2).inner_radius == 0 and rf.Sphere(2, 2.0).inner_radius == 2.0
    assert rf.Shell(2, 0.5, 1.0).inner_radius == 0.5 and Exterior(2, 3.0).inner_radius == 3.0
    assert rf.PositiveBall(2).nonnegative and not rf.Ball(2).nonnegative
    S = rf.Samples([[1.0, 2.0], [3.0, 0.0]])
    assert S.finite and S.nonnegative and S.inner_radius == pytest.approx(np.sqrt(5.0))
    assert not Exterior(2).bounded and not Exterior(2).open_or_convex


def test_exterior_samples_lie_outside_the_ball():
    X = Exterior(4, 1.5).sample(500, seed=1)
    assert np.all(np.linalg.norm(X, axis=1) >= 1.5) and Exterior(4, 1.5).contains(X).all()
    assert not Exterior(4, 1.5).contains(np.zeros(4))


@pytest.mark.parametrize(
    "spec,match",
    [
        ("ball:1,2,3", "one radius"),
        ("real-space:5", "no argument"),
        ("shell:1", "two radii"),
        ("shell:1,0.5", "smaller"),
        ("cube", "must be one of"),
        ("samples", "needs a file"),
        ("ball:x", "numbers"),
        ("", "string like"),
    ],
)
def test_parse_domain_refuses_with_a_clear_message(spec, match):
    with pytest.raises(InputError, match=match):
        parse_domain(spec, 2)


def test_samples_npz_with_several_arrays_must_name_one(tmp_path):
    np.savez(tmp_path / "two.npz", W=np.ones((3, 2)), V=np.zeros((4, 2)))
    with pytest.raises(InputError, match="must name its array"):
        parse_domain(f"samples:{tmp_path / 'two.npz'}", 2)
    np.savez(tmp_path / "named.npz", X=np.ones((3, 2)), V=np.zeros((4, 2)))
    assert parse_domain(f"samples:{tmp_path / 'named.npz'}", 2).points.shape == (3, 2)


def test_cr_only_line_endings_are_rows(tmp_path):
    (tmp_path / "X.csv").write_bytes(b"1,0\r0,1\r-1,-1\r")
    assert parse_domain(f"samples:{tmp_path / 'X.csv'}", 2).points.shape == (3, 2)


def test_the_domain_keyword_is_K_only():
    L = rf.ReLULayer(rf.zoo.mercedes_benz(), -0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = rf.check(L, K=rf.Ball(2))
    assert v.status == Status.INJECTIVE == "injective"
    with pytest.raises(TypeError, match="domain"):
        rf.check(L, domain=rf.Ball(2))


def test_status_is_one_vocabulary():
    assert [s.exit_code for s in Status] == [0, 1, 3]
    assert f"{Status.NOT_INJECTIVE}" == "not injective" and json.dumps(Status.UNDETERMINED) == '"undetermined"'
    assert EXIT_INTERNAL_ERROR not in (0, 1, 2, 3) and EXIT_BAD_INPUT == 2


@pytest.mark.parametrize("scale", [1e160, 1e-200])
def test_frames_of_extreme_scale_are_frames(scale):
    W = np.random.default_rng(0).standard_normal((6, 3))
    F = rf.Frame(W * scale)
    np.testing.assert_allclose(F.norms / scale, np.linalg.norm(W, axis=1))


def test_frame_rank_tol_is_validated():
    with pytest.raises(InputError, match="rank_tol"):
        rf.Frame(np.eye(2), rank_tol=-1)
    with pytest.raises(NotAFrameError):
        rf.Frame([[1.0, 0.0], [2.0, 0.0]])


def _run(*args):
    proc = subprocess.run([sys.executable, "-m", "relu_frames_nb", *map(str, args)], capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def test_cli_bad_options_exit_2_with_json(tmp_path):
    np.save(tmp_path / "W.npy", rf.zoo.mercedes_benz().vectors)
    for extra in (["--seed", "-1"], ["--max-facets", "0"], ["--domain", "real-space:5"], ["--layer", "enc"]):
        rc, out, err = _run("check", tmp_path / "W.npy", *extra, "--json")
        assert rc == EXIT_BAD_INPUT, (extra, out, err)
        assert json.loads(out)["status"] == "error" and "Traceback" not in err


def test_cli_junk_files_are_bad_input_not_verdicts(tmp_path):
    np.save(tmp_path / "W.npy", rf.zoo.mercedes_benz().vectors)
    (tmp_path / "junk.npz").write_bytes(b"this is not a zip file")
    for args in ([tmp_path / "junk.npz"], [tmp_path / "W.npy", "--domain", f"samples:{tmp_path / 'junk.npz'}"]):
        rc, out, err = _run("check", *args, "--json")
        assert rc == EXIT_BAD_INPUT and json.loads(out)["error_kind"] == "bad input" and "Traceback" not in err


def test_cli_bias_npz(tmp_path):
    np.save(tmp_path / "W.npy", rf.zoo.mercedes_benz().vectors)
    np.savez(tmp_path / "b.npz", b=np.full(3, 0.5))
    rc, out, _ = _run("check", tmp_path / "W.npy", "--bias", tmp_path / "b.npz", "--samples", "2000", "--json", "--quiet")
    rep = json.loads(out)
    assert rc == 0 and "PyTorch" in rep["details"]["bias"]
    np.testing.assert_allclose(rep["details"]["polytope_bias"], [-0.5] * 3)  # the bound the bias -b = -0.5 meets


def test_internal_error_is_never_a_verdict(monkeypatch, capsys):
    from relu_frames_nb import cli

    def boom(*args, **kwargs):
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(cli, "check", boom)
    args = cli.build_check_parser().parse_args(["unused.npy", "--json", "--quiet"])
    monkeypatch.setattr(cli, "load_model", lambda *a, **k: (rf.ReLULayer(rf.zoo.mercedes_benz(), 0.0), "b"))
    rc = cli.main_check(args)
    out = json.loads(capsys.readouterr().out)
    assert rc == EXIT_INTERNAL_ERROR and out["error_kind"] == "internal error" and "simulated bug" in out["error"]


def test_parse_matrix_refuses_overflowing_numbers():
    from relu_frames_nb.viz.parsing import MatrixParseError, parse_matrix

    with pytest.raises(MatrixParseError, match="finite numbers; got '1e309'"):
        parse_matrix("1e309 0\n0 1")
    assert parse_matrix("1e308 0\n0 1")[0, 0] == 1e308
