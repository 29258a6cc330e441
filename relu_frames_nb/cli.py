"""Check whether a trained ReLU layer is injective on a data domain.

``python -m relu_frames_nb check WEIGHTS [--bias B] [--domain SPEC] [--time-limit S] [--json]``

WEIGHTS holding several linear layers (a PyTorch state dict, or an ``.npz`` with keys
``fc1.weight``, ``fc1.bias``, ``fc2.weight``, ...) is checked as a whole network, layer
by layer (:class:`relu_frames_nb.network.Network`); ``--layer NAME`` picks one layer.

Exit status: 0 injective (with a guarantee), 1 not injective (a verified collision pair),
3 undetermined, 2 bad input (unreadable file, wrong shapes, bad option), 4 internal error
(a bug: never reported as a verdict). With ``--json`` every outcome prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ._deprecation import renamed_kwargs
from ._io import ARRAY_SUFFIXES, pick_array, read_array, read_npz
from ._validation import as_count, to_float_array
from .domains import Domain
from .domains import parse_domain as _parse_domain
from .domains.spec import DOMAIN_SPECS
from .errors import InputError, ReluFramesError
from .layer import ReLULayer, as_layer
from .verdict import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, Status

__all__ = [
    "EXIT_INJECTIVE",
    "EXIT_NOT_INJECTIVE",
    "EXIT_BAD_INPUT",
    "EXIT_UNDETERMINED",
    "EXIT_INTERNAL_ERROR",
    "CheckReport",
    "check_layer",
    "load_layer",
    "load_weights",
    "network_state",
    "check_weights",
    "RawWeights",
    "parse_domain",
    "main_check",
    "build_check_parser",
]

EXIT_INJECTIVE = Status.INJECTIVE.exit_code
EXIT_NOT_INJECTIVE = Status.NOT_INJECTIVE.exit_code
EXIT_UNDETERMINED = Status.UNDETERMINED.exit_code

_WEIGHT_KEYS = ("W", "weight", "weights", "Phi", "phi", "frame")
_BIAS_KEYS = ("b", "bias")
_ALPHA_KEYS = ("alpha",)


# ---------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------


def _load_npz(path: Path) -> tuple[np.ndarray, np.ndarray | None, str]:
    arrays = read_npz(path, "weights file")
    _, W = pick_array({k: v for k, v in arrays.items() if np.ndim(v) == 2} or arrays, _WEIGHT_KEYS, "weights file", path)
    for keys, kind in ((_ALPHA_KEYS, "alpha"), (_BIAS_KEYS, "b")):
        for key in keys:
            hit = [v for k, v in arrays.items() if k == key or k.endswith("." + key)]
            if hit:
                return W, to_float_array(hit[0], kind), kind
    return W, None, "b"


def _torch_state(path: Path) -> dict:
    try:
        import torch
    except ImportError:
        raise InputError(
            f"reading {str(path)!r} needs PyTorch, which is not installed; save the weights with numpy "
            "(np.savez('layer.npz', W=W, b=b)) or install torch."
        ) from None
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise InputError(f"weights file {str(path)!r} could not be read as a PyTorch state dict: {exc}") from None
    if hasattr(state, "state_dict"):
        state = state.state_dict()
    if not isinstance(state, dict):
        raise InputError(f"weights file {str(path)!r} must hold a state dict; got {type(state).__name__}.")
    return state


def _linear_weights(state: dict) -> dict:
    return {k: v for k, v in state.items() if k.endswith("weight") and getattr(v, "ndim", 0) == 2}


def network_state(path: str | Path) -> dict | None:
    """The state dict of ``path`` when it holds several linear layers (a whole network), else None.

    PyTorch state dicts (``.pt``/``.pth``) and ``.npz`` files whose keys follow the same
    pattern (``fc1.weight``, ``fc1.bias``, ``fc2.weight``, ...) qualify.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".pt", ".pth"):
        state = _torch_state(path)
    elif suffix == ".npz":
        state = read_npz(path, "weights file")
    else:
        return None
    return state if len(_linear_weights(state)) >= 2 else None


def _load_torch(path: Path, layer_name: str | None) -> tuple[np.ndarray, np.ndarray | None]:
    state = _torch_state(path)
    weights = {k: v for k, v in state.items() if k.endswith("weight") and getattr(v, "ndim", 0) == 2}
    if layer_name is not None:
        key = layer_name if layer_name.endswith("weight") else f"{layer_name}.weight"
        if key not in weights:
            raise InputError(f"--layer must name a linear layer; got {layer_name!r}; available: {sorted(weights)}.")
    elif len(weights) == 1:
        key = next(iter(weights))
    else:
        raise InputError(f"the state dict holds {len(weights)} weight matrices; choose one with --layer from {sorted(weights)}.")
    bias = state.get(key[: -len("weight")] + "bias")
    return to_float_array(weights[key], "W"), (None if bias is None else to_float_array(bias, "b"))


def _parse_bias(text: str | None, m: int) -> tuple[np.ndarray | None, str]:
    """--bias: a file (.npy/.csv/.txt), a number, or comma-separated numbers (PyTorch b unless alpha: prefix)."""
    if text is None:
        return None, "b"
    kind = "b"
    if text.startswith("alpha:"):
        kind, text = "alpha", text[len("alpha:") :]
    p = Path(text)
    if p.suffix.lower() in ARRAY_SUFFIXES or p.exists():
        return read_array(p, "bias", keys=_ALPHA_KEYS if kind == "alpha" else _BIAS_KEYS).reshape(-1), kind
    try:
        values = [float(tok) for tok in text.replace(";", ",").split(",") if tok.strip()]
    except ValueError:
        raise InputError(f"--bias must be a file or comma-separated numbers; got {text!r}.") from None
    if len(values) == 1:
        return np.full(m, values[0]), kind
    return np.array(values), kind


def load_weights(weights: str | Path, *, bias: str | None = None, layer_name: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Read ``(W, alpha)`` (paper convention) from a weights file, as :func:`load_layer` does,
    without requiring the rows to span (a rank-deficient trained layer is a verdict, not an error).
    """
    path = Path(weights)
    suffix = path.suffix.lower()
    if not path.exists():
        raise InputError(f"weights file must exist; got {str(path)!r} (no such file).")
    file_bias, kind = None, "b"
    if layer_name is not None and suffix not in (".pt", ".pth"):
        raise InputError(f"--layer names a layer of a PyTorch state dict (.pt/.pth); got {str(path)!r}, which holds one layer.")
    if suffix == ".npz":
        W, file_bias, kind = _load_npz(path)
    elif suffix in (".pt", ".pth"):
        W, file_bias = _load_torch(path, layer_name)
    else:
        W = read_array(path, "weights")
    if W.ndim != 2 or min(W.shape) < 1:
        raise InputError(f"weights must be a non-empty 2-D matrix (rows are frame vectors); got shape {W.shape}.")
    override, okind = _parse_bias(bias, W.shape[0])
    if override is not None:
        file_bias, kind = override, okind
    if file_bias is None:
        return W, np.zeros(W.shape[0])
    if np.shape(file_bias) not in ((), (W.shape[0],)):
        name = "alpha" if kind == "alpha" else "b"
        raise InputError(
            f"{name} must be a vector of length {W.shape[0]} (one value per row of W); got shape {np.shape(file_bias)}."
        )
    alpha = np.broadcast_to(np.asarray(file_bias, dtype=float), (W.shape[0],)).copy()
    return W, (alpha if kind == "alpha" else -alpha)


def load_layer(weights: str | Path, *, bias: str | None = None, layer_name: str | None = None) -> ReLULayer:
    """Build a :class:`ReLULayer` from a weights file and an optional bias.

    Weights: ``.npy``/``.csv``/``.txt`` (rows are the frame vectors), ``.npz`` (keys ``W``
    or ``weight``, optional ``b``/``bias`` in the PyTorch convention or ``alpha`` in the
    paper's), or a PyTorch state dict ``.pt``/``.pth`` (loaded with ``weights_only=True``).
    ``bias`` overrides the file's bias: a file, one number, or comma-separated numbers,
    read as PyTorch's ``b`` (``alpha = -b``) unless prefixed with ``alpha:``.
    """
    W, alpha = load_weights(weights, bias=bias, layer_name=layer_name)
    return ReLULayer(W, alpha)


def parse_domain(spec: str, n: int) -> Domain:
    """Parse a ``--domain`` spelling (see :func:`relu_frames_nb.domains.parse_domain`)."""
    return _parse_domain(spec, n, name="--domain")


# ---------------------------------------------------------------------------------
# The check
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RawWeights:
    """Weights ``(W, alpha)`` whose rows do not span R^n: no :class:`ReLULayer`, still a verdict."""

    W: np.ndarray
    alpha: np.ndarray

    @property
    def m(self) -> int:
        """Number of rows (outputs)."""
        return self.W.shape[0]

    @property
    def n(self) -> int:
        """Input dimension."""
        return self.W.shape[1]

    def __call__(self, X: Any) -> np.ndarray:
        """The layer's output ``ReLU(W x - alpha)``."""
        return np.maximum(np.asarray(X, dtype=float) @ self.W.T - self.alpha, 0.0)


@dataclass(frozen=True)
class CheckReport:
    """Result of :func:`check_layer` / :func:`check_weights`."""

    verdict: Status
    reason: str
    layer: Any  # ReLULayer, or RawWeights when the rows do not span
    domain: Domain
    polytope: Any = None  # BiasEstimate or None
    polytope_note: str = ""
    sampling: Any = None  # BiasEstimate or None
    collision: Any = None  # Collision or None
    details: dict = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0 injective, 1 not injective, 3 undetermined."""
        return Status(self.verdict).exit_code

    def to_dict(self) -> dict:
        """A JSON-serialisable summary (``inf`` written as ``null``)."""

        def vec(a):
            return None if a is None else [None if not np.isfinite(v) else float(v) for v in np.asarray(a, dtype=float)]

        out = {
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "reason": self.reason,
            "m": self.layer.m,
            "n": self.layer.n,
            "domain": repr(self.domain),
            "domain_description": self.domain.describe(),
            "alpha": vec(self.layer.alpha),
            "polytope_bias": vec(None if self.polytope is None else self.polytope.values),
            "polytope_note": self.polytope_note,
            "sampling_bias": vec(None if self.sampling is None else self.sampling.values),
            "sampling_guarantee": None if self.sampling is None else self.sampling.guarantee,
            "sampling_samples": None if self.sampling is None else int(self.sampling.n_samples),
            "collision": None
            if self.collision is None or not self.collision.found
            else {"x": vec(self.collision.x), "y": vec(self.collision.y), "output": vec(self.collision.output)},
        }
        out.update(self.details)
        return out

    def to_text(self) -> str:
        """A human-readable report with one line per frame element."""
        lines = [
            f"layer: m={self.layer.m} frame vectors in R^{self.layer.n}; domain: {self.domain.describe()}",
            f"verdict: {self.verdict.upper()} — {self.reason}",
            "",
            f"{'i':>4} {'alpha_i':>12} {'polytope':>12} {'sampling':>12}",
        ]
        pol = None if self.polytope is None else self.polytope.values
        sam = None if self.sampling is None else self.sampling.values

        def fmt(v):
            return f"{'—':>12}" if v is None else (f"{'any':>12}" if np.isinf(v) else f"{v:12.6g}")

        for i, a in enumerate(self.layer.alpha):
            lines.append(f"{i:>4} {a:12.6g} {fmt(None if pol is None else pol[i])} {fmt(None if sam is None else sam[i])}")
        if self.polytope_note:
            lines.append(f"polytope: {self.polytope_note}")
        if "local_invertibility" in self.details:
            lines.append(f"data: {self.details['local_invertibility']['text']}")
            lines.append(f"      {self.details['hull_hint']}")
        if self.sampling is not None:
            lines.append(f"sampling: {self.sampling.n_samples} samples, {self.sampling.guarantee}"
                         + (f" ({self.details['sampling_note']})" if "sampling_note" in self.details else ""))  # fmt: skip
        if self.collision is not None and self.collision.found:
            c = self.collision
            lines.append(f"collision: x={np.array2string(c.x, precision=6)} y={np.array2string(c.y, precision=6)}")
            lines.append(f"           common output {np.array2string(c.output, precision=6)}")
        return "\n".join(lines)


@renamed_kwargs(domain="K")
def check_layer(
    layer: ReLULayer,
    K: Domain,
    *,
    n_samples: int = 200_000,
    seed: int = 0,
    max_facets: int = 200_000,
    tol: float = 1e-9,
    time_limit: float = 60.0,
    progress: Any = None,
) -> CheckReport:
    """Decide, as far as the theory allows, whether ``layer`` is injective on ``K``.

    The verdict comes from :func:`relu_frames_nb.verdict.decide` (polytope bias as a proof
    of injectivity, a verified collision pair as a proof of non-injectivity, exact answers
    on finite data sets and, for zero bias on R^n, the Tukey-depth test). The report adds
    the per-element polytope and sampling bias estimates.
    """
    from ._validation import as_nonnegative
    from .verdict import decide

    layer = as_layer(layer)
    if not isinstance(K, Domain):
        raise InputError(f"K must be a Domain; got {type(K).__name__}.")
    domain = K
    n_samples = as_count(n_samples, "n_samples")
    tol = as_nonnegative(tol, "tol")
    polytope, note, failure = None, "", None
    if domain.bounded and not domain.finite:
        try:
            from .bias.polytope import polytope_bias

            polytope = polytope_bias(layer.frame, domain, max_facets=max_facets)
        except ReluFramesError as exc:
            note, failure = f"not available: {exc}", exc
    # the rectifying test costs about m n + n^3 per point: keep it to a few seconds on large layers
    work = layer.m * layer.n + layer.n**3
    n_decide = min(n_samples, 50_000, max(2_000, int(2e9 // work)))
    verdict = decide(
        layer,
        domain,
        polytope=polytope if polytope is not None else failure,
        n_samples=n_decide,
        seed=seed,
        max_facets=max_facets,
        tol=tol,
        time_limit=time_limit,
        progress=progress,
    )
    sampling = None
    if domain.bounded:
        from .bias.correlated import sampling_bias

        sampling = sampling_bias(layer.frame, domain, n_samples=n_samples, seed=seed, progress=None if progress else False,
                                 time_limit=20.0, init="none" if layer.m > 10_000 else "auto")  # fmt: skip
    reason = verdict.text
    if verdict.status == "undetermined" and sampling is not None:
        ok = bool(np.all(layer.alpha <= sampling.values))
        reason += f"; the sampling estimate ({sampling.guarantee}) {'admits' if ok else 'does not admit'} this bias"
    details = {
        "method": verdict.method,
        "margin": None if not np.isfinite(verdict.margin) else float(verdict.margin),
        "points_failing": verdict.n_failing,
        "points_checked": verdict.n_checked,
    }
    if sampling is not None and sampling.info.get("time_limit_hit"):
        details["sampling_note"] = f"from {sampling.n_samples} of {n_samples} samples (time limit)"
    if verdict.exact is not None:
        ex = verdict.exact
        details["exact"] = {"status": str(ex.status), "method": ex.method, "lower_bound": ex.lower_bound,
                            "upper_bound": ex.upper_bound, "h": ex.h, "h_method": ex.h_method,
                            "seconds": round(float(ex.seconds), 3), "notes": list(ex.notes)}  # fmt: skip
    return CheckReport(verdict.status, reason, layer, domain, polytope, note, sampling, verdict.collision, details)


def _data_details(layer: Any, K: Domain) -> dict:
    from .local_invertibility import local_invertibility

    pair = (layer.W, layer.alpha) if isinstance(layer, RawWeights) else layer
    li = local_invertibility(pair, K.points)
    return {"local_invertibility": {"fraction": li.fraction, "span_dim": li.span_dim, "n_points": int(li.invertible.size),
                                    "failing_points": li.failing[:50].tolist(), "text": li.text},
            "hull_hint": "for a verdict on the data's convex hull (a polytope) use --domain hull:FILE"}  # fmt: skip


def check_weights(
    W: Any,
    alpha: Any,
    K: Domain,
    *,
    n_samples: int = 200_000,
    seed: int = 0,
    max_facets: int = 200_000,
    tol: float = 1e-9,
    time_limit: float = 60.0,
    progress: Any = None,
) -> CheckReport:
    """Like :func:`check_layer`, from raw weights ``(W, alpha)`` (paper convention) that need not span.

    Weights whose rows do not span R^n get a verdict, not an error: not injective on any
    full-dimensional domain (a verified pair along their null space), and on a data set or a
    domain inside a subspace the exact verdict works in that subspace and says so.
    """
    from .errors import NotAFrameError
    from .exact import exact_verdict

    W = to_float_array(W, "W")
    try:
        layer = ReLULayer(W, alpha)
    except NotAFrameError:
        layer = None
    if layer is not None:
        report = check_layer(layer, K, n_samples=n_samples, seed=seed, max_facets=max_facets, tol=tol,
                             time_limit=time_limit, progress=progress)  # fmt: skip
        if K.finite:
            report.details.update(_data_details(layer, K))
        return report
    raw = RawWeights(W, np.asarray(alpha, dtype=float))
    if not isinstance(K, Domain) or K.n != raw.n:
        raise InputError(f"K must be a Domain in R^{raw.n}; got {K!r}.")
    ex = exact_verdict((raw.W, raw.alpha), K, time_limit=time_limit, progress=progress, seed=seed)
    collision = None
    if ex.pair is not None:
        from .rectifying import Collision

        x, y = (np.asarray(p, dtype=float) for p in ex.pair)
        collision = Collision(True, x, y, raw(x), "verified", 1, "exact (null space)")
    rank = int(np.linalg.matrix_rank(W))
    details = {"method": f"exact ({ex.method})" if ex.method else "exact", "weights_rank": rank,
               "exact": {"status": str(ex.status), "lower_bound": ex.lower_bound, "upper_bound": ex.upper_bound,
                         "seconds": round(float(ex.seconds), 3), "notes": list(ex.notes)}}  # fmt: skip
    if K.finite:
        details.update(_data_details(raw, K))
    reason = f"{ex.text} (the weights have rank {rank} < n = {raw.n}: no frame for R^{raw.n})"
    return CheckReport(Status(ex.status), reason, raw, K, None, "not available: the rows do not span", None,
                       collision, details)  # fmt: skip


# ---------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors exit with EXIT_BAD_INPUT, no traceback (see main)
        raise _UsageError(f"{self.prog}: error: {message}", self.format_usage())


def _at_least(minimum: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}; got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}; got {value}")
        return value

    return parse


def build_check_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``check`` sub-command."""
    p = parser or _Parser(prog="python -m relu_frames_nb check", description=__doc__.split("\n\n")[0])
    p.add_argument("weights", help="weights: .npy, .npz, .csv/.txt (rows = frame vectors) or a PyTorch .pt/.pth state dict")
    p.add_argument(
        "--bias", help="bias: file or comma-separated numbers, PyTorch convention b (alpha = -b); prefix 'alpha:' for the paper's"
    )
    p.add_argument("--domain", default="ball:1", help=DOMAIN_SPECS)
    p.add_argument("--layer", dest="layer_name", help="which linear layer of a state dict (its name)")
    p.add_argument("--samples", type=_at_least(1), default=200_000, help="number of samples for the sampling estimate")
    p.add_argument("--seed", type=_at_least(0), default=0, help="seed of the samples (a non-negative integer)")
    p.add_argument("--max-facets", type=_at_least(1), default=200_000, help="refuse polytopes with more facets than this")
    p.add_argument("--time-limit", type=float, default=30.0, help="seconds for the exact verdict (MILP), default 30")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    return p


def _fail(args: argparse.Namespace, code: int, message: str) -> int:
    kind = "bad input" if code == EXIT_BAD_INPUT else "internal error"
    if getattr(args, "json", False):
        print(json.dumps({"verdict": "error", "error_kind": kind, "exit_code": code, "error": message}))
    else:
        print(f"error: {message}", file=sys.stderr)
    return code


def _check_network(args: argparse.Namespace, state: dict) -> tuple[str, int]:
    from .network import Network

    net = Network.from_state_dict(state)
    domain = parse_domain(args.domain, net.n)
    verdict = net.check(domain, time_limit=args.time_limit, progress=not args.quiet, seed=args.seed)
    text = json.dumps(verdict.to_dict(), indent=2) if args.json else verdict.report()
    return text, verdict.status.exit_code


def main_check(args: argparse.Namespace) -> int:
    """Run the ``check`` sub-command; returns the exit status (never 1 unless a collision was verified)."""
    from ._threads import one_blas_thread

    with one_blas_thread():
        return _main_check(args)


def _main_check(args: argparse.Namespace) -> int:
    try:
        if not args.time_limit >= 0:
            raise InputError(f"--time-limit must be a number of seconds >= 0; got {args.time_limit}.")
        state = None if args.layer_name is not None or args.bias is not None else network_state(args.weights)
        if state is not None:
            text, code = _check_network(args, state)
            return _emit(text, code)
        W, alpha = load_weights(args.weights, bias=args.bias, layer_name=args.layer_name)
        domain = parse_domain(args.domain, W.shape[1])
        report = check_weights(W, alpha, domain, n_samples=args.samples, seed=args.seed, max_facets=args.max_facets,
                             time_limit=args.time_limit, progress=not args.quiet)  # fmt: skip
        text = json.dumps(report.to_dict(), indent=2) if args.json else report.to_text()
    except (ReluFramesError, ValueError, OSError) as exc:
        return _fail(args, EXIT_BAD_INPUT, str(exc))
    except MemoryError:
        return _fail(args, EXIT_INTERNAL_ERROR, "out of memory; lower --samples or the size of the data set")
    except Exception as exc:  # a bug: report it, never as a verdict
        return _fail(args, EXIT_INTERNAL_ERROR, f"internal error ({type(exc).__name__}: {exc}); please report it")
    return _emit(text, report.exit_code)


def _emit(text: str, code: int) -> int:
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into `head`: the verdict stands, the reader left
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return code


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``relu-frames`` / ``python -m relu_frames_nb``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["reproduce"]:  # its own parser (argparse.REMAINDER drops leading options)
        from . import reproduce

        return reproduce.main(argv[1:])
    parser = _Parser(prog="python -m relu_frames_nb", description="Injectivity of ReLU layers.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    build_check_parser(sub.add_parser("check", help="check a trained layer", description=__doc__.split("\n\n")[0]))
    rep = sub.add_parser("reproduce", help="regenerate the paper's experiments", add_help=False)
    rep.add_argument("rest", nargs=argparse.REMAINDER)
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        message, usage = exc.args
        if "--json" in argv:
            print(json.dumps({"verdict": "error", "error_kind": "bad input", "exit_code": EXIT_BAD_INPUT, "error": message}))
        else:
            sys.stderr.write(usage + message + "\n")
        return EXIT_BAD_INPUT
    if args.command == "check":
        return main_check(args)
    from . import reproduce

    return reproduce.main(args.rest)
