"""Check whether a trained ReLU layer is injective on a data domain.

``python -m relu_frames_nb check WEIGHTS [--bias B] [--domain SPEC] [--json]``

Exit status: 0 injective (with a guarantee), 1 not injective (a verified collision pair),
3 undetermined, 2 bad input (unreadable file, wrong shapes, bad option).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ._validation import as_count, to_float_array
from .domains import Ball, Domain, PositiveBall, RealSpace, Samples, Shell, Sphere
from .errors import InputError, ReluFramesError
from .layer import ReLULayer, as_layer

__all__ = [
    "EXIT_INJECTIVE",
    "EXIT_NOT_INJECTIVE",
    "EXIT_BAD_INPUT",
    "EXIT_UNDETERMINED",
    "CheckReport",
    "check_layer",
    "load_layer",
    "parse_domain",
    "main_check",
    "build_check_parser",
]

EXIT_INJECTIVE = 0
EXIT_NOT_INJECTIVE = 1
EXIT_BAD_INPUT = 2
EXIT_UNDETERMINED = 3

_WEIGHT_KEYS = ("W", "weight", "weights", "Phi", "phi", "frame")
_BIAS_KEYS = ("b", "bias")
_ALPHA_KEYS = ("alpha",)


# ---------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------


def _read_array(path: Path, what: str) -> np.ndarray:
    suffix = path.suffix.lower()
    if not path.exists():
        raise InputError(f"{what} file must exist; got {str(path)!r} (no such file).")
    try:
        if suffix == ".npy":
            arr = np.load(path, allow_pickle=False)
        elif suffix in (".csv", ".txt"):
            arr = np.loadtxt(path, delimiter="," if suffix == ".csv" else None, ndmin=2)
        else:
            raise InputError(f"{what} file must be .npy, .npz, .csv or .txt; got {str(path)!r}.")
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"{what} file {str(path)!r} could not be read: {exc}") from None
    return to_float_array(arr, what)


def _pick(mapping: dict[str, np.ndarray], keys: tuple[str, ...]) -> tuple[str, np.ndarray] | None:
    for key in keys:
        for k, v in mapping.items():
            if k == key or k.endswith("." + key):
                return k, v
    return None


def _load_npz(path: Path) -> tuple[np.ndarray, np.ndarray | None, str]:
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except Exception as exc:
        raise InputError(f"weights file {str(path)!r} could not be read as .npz: {exc}") from None
    if not arrays:
        raise InputError(f"weights file {str(path)!r} must contain an array; got an empty .npz.")
    w = _pick(arrays, _WEIGHT_KEYS)
    if w is None:
        two_d = [k for k, v in arrays.items() if np.ndim(v) == 2]
        if len(two_d) != 1:
            raise InputError(
                f"weights file {str(path)!r} must name the weight matrix 'W' or 'weight' (or hold exactly one 2-D array); "
                f"got keys {sorted(arrays)}."
            )
        w = (two_d[0], arrays[two_d[0]])
    a = _pick(arrays, _ALPHA_KEYS)
    if a is not None:
        return w[1], to_float_array(a[1], "alpha"), "alpha"
    b = _pick(arrays, _BIAS_KEYS)
    return w[1], (None if b is None else to_float_array(b[1], "b")), "b"


def _load_torch(path: Path, layer_name: str | None) -> tuple[np.ndarray, np.ndarray | None]:
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
    if p.suffix.lower() in (".npy", ".csv", ".txt") or p.exists():
        return _read_array(p, "bias").reshape(-1), kind
    try:
        values = [float(tok) for tok in text.replace(";", ",").split(",") if tok.strip()]
    except ValueError:
        raise InputError(f"--bias must be a file or comma-separated numbers; got {text!r}.") from None
    if len(values) == 1:
        return np.full(m, values[0]), kind
    return np.array(values), kind


def load_layer(weights: str | Path, *, bias: str | None = None, layer_name: str | None = None) -> ReLULayer:
    """Build a :class:`ReLULayer` from a weights file and an optional bias.

    Weights: ``.npy``/``.csv``/``.txt`` (rows are the frame vectors), ``.npz`` (keys ``W``
    or ``weight``, optional ``b``/``bias`` in the PyTorch convention or ``alpha`` in the
    paper's), or a PyTorch state dict ``.pt``/``.pth`` (loaded with ``weights_only=True``).
    ``bias`` overrides the file's bias: a file, one number, or comma-separated numbers,
    read as PyTorch's ``b`` (``alpha = -b``) unless prefixed with ``alpha:``.
    """
    path = Path(weights)
    suffix = path.suffix.lower()
    if not path.exists():
        raise InputError(f"weights file must exist; got {str(path)!r} (no such file).")
    file_bias, kind = None, "b"
    if suffix == ".npz":
        W, file_bias, kind = _load_npz(path)
    elif suffix in (".pt", ".pth"):
        W, file_bias = _load_torch(path, layer_name)
    else:
        W = _read_array(path, "weights")
    if W.ndim != 2:
        raise InputError(f"weights must be a 2-D matrix (rows are frame vectors); got shape {W.shape}.")
    override, okind = _parse_bias(bias, W.shape[0])
    if override is not None:
        file_bias, kind = override, okind
    if file_bias is None:
        return ReLULayer.from_weights(W)
    if kind == "alpha":
        return ReLULayer(W, file_bias)
    return ReLULayer.from_weights(W, file_bias)


def parse_domain(spec: str, n: int) -> Domain:
    """Parse ``ball:r``, ``sphere[:r]``, ``shell:s,r``, ``positive-ball:r``, ``real-space`` or ``samples:FILE``."""
    if not isinstance(spec, str) or not spec:
        raise InputError(f"--domain must be a string like 'ball:1'; got {spec!r}.")
    name, _, arg = spec.partition(":")
    name = name.strip().lower()
    try:
        if name == "samples":
            if not arg:
                raise InputError("--domain samples needs a file: samples:FILE (.npy, .npz, .csv).")
            p = Path(arg)
            if p.suffix.lower() == ".npz":
                with np.load(p, allow_pickle=False) as data:
                    arr = data[data.files[0]]
            else:
                arr = _read_array(p, "samples")
            dom: Domain = Samples(arr)
        else:
            nums = [float(t) for t in arg.split(",") if t.strip()] if arg else []
            if name == "ball":
                dom = Ball(n, *(nums or [1.0]))
            elif name == "sphere":
                dom = Sphere(n, *(nums or [1.0]))
            elif name in ("shell", "donut"):
                if len(nums) != 2:
                    raise InputError(f"--domain shell needs two radii 'shell:s,r'; got {spec!r}.")
                dom = Shell(n, nums[0], nums[1])
            elif name in ("positive-ball", "positive_ball"):
                dom = PositiveBall(n, *(nums or [1.0]))
            elif name in ("real-space", "rn"):
                dom = RealSpace(n)
            else:
                raise InputError(
                    "--domain must be one of ball:r, sphere[:r], shell:s,r, positive-ball:r, real-space, "
                    f"samples:FILE; got {spec!r}."
                )
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"--domain {spec!r} could not be parsed: {exc}") from None
    if dom.n != n:
        raise InputError(f"--domain samples must have {n} columns (the layer's input dimension); got {dom.n}.")
    return dom


# ---------------------------------------------------------------------------------
# The check
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckReport:
    """Result of :func:`check_layer`."""

    verdict: str  # "injective" | "not-injective" | "undetermined"
    reason: str
    layer: ReLULayer
    domain: Domain
    polytope: Any = None  # BiasEstimate or None
    polytope_note: str = ""
    sampling: Any = None  # BiasEstimate or None
    collision: Any = None  # Collision or None
    details: dict = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0 injective, 1 not injective, 3 undetermined."""
        return {"injective": EXIT_INJECTIVE, "not-injective": EXIT_NOT_INJECTIVE}.get(self.verdict, EXIT_UNDETERMINED)

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
            f"layer: m={self.layer.m} frame vectors in R^{self.layer.n}; domain: {self.domain!r}",
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
        if self.sampling is not None:
            lines.append(f"sampling: {self.sampling.n_samples} samples, {self.sampling.guarantee}")
        if self.collision is not None and self.collision.found:
            c = self.collision
            lines.append(f"collision: x={np.array2string(c.x, precision=6)} y={np.array2string(c.y, precision=6)}")
            lines.append(f"           common output {np.array2string(c.output, precision=6)}")
        return "\n".join(lines)


def check_layer(
    layer: ReLULayer,
    domain: Domain,
    *,
    n_samples: int = 200_000,
    seed: int = 0,
    max_facets: int = 200_000,
    tol: float = 1e-9,
) -> CheckReport:
    """Decide, as far as the theory allows, whether ``layer`` is injective on ``domain``.

    The verdict comes from :func:`relu_frames_nb.verdict.decide` (polytope bias as a proof
    of injectivity, a verified collision pair as a proof of non-injectivity, exact answers
    on finite data sets and, for zero bias on R^n, the Tukey-depth test). The report adds
    the per-element polytope and sampling bias estimates.
    """
    from ._validation import as_nonnegative
    from .verdict import decide

    layer = as_layer(layer)
    if not isinstance(domain, Domain):
        raise InputError(f"domain must be a Domain; got {type(domain).__name__}.")
    n_samples = as_count(n_samples, "n_samples")
    tol = as_nonnegative(tol, "tol")
    polytope, note, failure = None, "", None
    if domain.bounded and not isinstance(domain, Samples):
        try:
            from .bias.polytope import polytope_bias

            polytope = polytope_bias(layer.frame, domain, max_facets=max_facets)
        except ReluFramesError as exc:
            note, failure = f"not available: {exc}", exc
    verdict = decide(
        layer,
        domain,
        polytope=polytope if polytope is not None else failure,
        n_samples=min(n_samples, 50_000),
        seed=seed,
        max_facets=max_facets,
        tol=tol,
    )
    sampling = None
    if not isinstance(domain, RealSpace):
        from .bias.correlated import sampling_bias

        sampling = sampling_bias(layer.frame, domain, n_samples=n_samples, seed=seed, progress=False)
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
    status = verdict.status.replace(" ", "-")
    return CheckReport(status, reason, layer, domain, polytope, note, sampling, verdict.collision, details)


# ---------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors exit with EXIT_BAD_INPUT, no traceback
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def build_check_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``check`` sub-command."""
    p = parser or _Parser(prog="python -m relu_frames_nb check", description=__doc__.split("\n\n")[0])
    p.add_argument("weights", help="weights: .npy, .npz, .csv/.txt (rows = frame vectors) or a PyTorch .pt/.pth state dict")
    p.add_argument(
        "--bias", help="bias: file or comma-separated numbers, PyTorch convention b (alpha = -b); prefix 'alpha:' for the paper's"
    )
    p.add_argument(
        "--domain", default="ball:1", help="ball:r | sphere[:r] | shell:s,r | positive-ball:r | real-space | samples:FILE"
    )
    p.add_argument("--layer", dest="layer_name", help="which linear layer of a state dict (its name)")
    p.add_argument("--samples", type=int, default=200_000, help="number of samples for the sampling estimate")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-facets", type=int, default=200_000, help="refuse polytopes with more facets than this")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    return p


def main_check(args: argparse.Namespace) -> int:
    """Run the ``check`` sub-command; returns the exit status."""
    try:
        layer = load_layer(args.weights, bias=args.bias, layer_name=args.layer_name)
        domain = parse_domain(args.domain, layer.n)
        report = check_layer(layer, domain, n_samples=args.samples, seed=args.seed, max_facets=args.max_facets)
    except (ReluFramesError, ValueError, OSError) as exc:
        if getattr(args, "json", False):
            print(json.dumps({"verdict": "error", "exit_code": EXIT_BAD_INPUT, "error": str(exc)}))
        else:
            print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.to_text())
    return report.exit_code


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
    args = parser.parse_args(argv)
    if args.command == "check":
        return main_check(args)
    from . import reproduce

    return reproduce.main(args.rest)
