"""Check whether a trained ReLU layer or network is injective on a data domain.

``python -m relu_frames_nb check WEIGHTS [--bias B] [--domain SPEC] [--time-limit S] [--json]``

The command runs :func:`relu_frames_nb.check` and prints its :class:`~relu_frames_nb.Verdict`
(``--json``: ``Verdict.to_dict()``). WEIGHTS holding several linear layers (a PyTorch state dict,
or an ``.npz`` with keys ``fc1.weight``, ``fc1.bias``, ``fc2.weight``, ...) is checked as a whole
network, layer by layer; ``--layer NAME`` picks one layer. Biases in files and ``--bias`` are
read in PyTorch's convention ``ReLU(W x + b)`` unless named ``alpha`` (the paper's
``ReLU(W x - alpha)``); the verdict says which it used.

Exit status: 0 injective (with a proof), 1 not injective (a verified colliding pair),
3 undetermined, 2 bad input (unreadable file, wrong shapes, bad option), 4 internal error
(a bug: never reported as a verdict), 130 interrupted (Ctrl-C or SIGTERM). With ``--json``
every outcome prints one JSON object. The check answers within ``--time-limit`` plus a little;
should a stage overrun, a watchdog answers "undetermined" at ``1.1 * limit + 5`` seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from . import reproduce
from ._io import ARRAY_SUFFIXES, existing_file, pick_array, read_array, read_npz
from ._threads import one_blas_thread
from ._validation import to_float_array
from .checking import DEFAULT_MEMORY, DEFAULT_TIME_LIMIT, check
from .domains import DOMAIN_SPECS, parse_domain
from .errors import InputError, ReluFramesError
from .layer import ReLULayer
from .network import Network
from .verdict import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, Status
from .viz.pairs import plot_pair

__all__ = [
    "EXIT_INJECTIVE",
    "EXIT_NOT_INJECTIVE",
    "EXIT_BAD_INPUT",
    "EXIT_UNDETERMINED",
    "EXIT_INTERNAL_ERROR",
    "EXIT_INTERRUPTED",
    "load_weights",
    "load_layer",
    "load_model",
    "network_state",
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


def _matches(key: str, names: tuple[str, ...]) -> bool:
    return any(key == k or key.endswith("." + k) for k in names)


def _load_npz(path: Path) -> tuple[np.ndarray, np.ndarray | None, str]:
    arrays = read_npz(path, "weights file")
    _, W = pick_array({k: v for k, v in arrays.items() if np.ndim(v) == 2} or arrays, _WEIGHT_KEYS, "weights file", path)
    b_keys = [k for k in arrays if _matches(k, _BIAS_KEYS)]
    a_keys = [k for k in arrays if _matches(k, _ALPHA_KEYS)]
    if b_keys and a_keys:
        raise InputError(
            f"weights file {str(path)!r} must hold one bias; got both {b_keys[0]!r} (PyTorch's b, added) and "
            f"{a_keys[0]!r} (the paper's alpha, subtracted). Keep the one you mean."
        )
    named = set(b_keys) | set(a_keys)
    loose = [k for k, v in arrays.items() if np.ndim(v) == 1 and k not in named]
    if loose:
        raise InputError(
            f"weights file {str(path)!r} holds the 1-D array {loose[0]!r}, which is neither 'b' (PyTorch's bias, added) "
            "nor 'alpha' (the paper's, subtracted): save it under one of these names."
        )
    if a_keys:
        return W, to_float_array(arrays[a_keys[0]], "alpha"), "alpha"
    if b_keys:
        return W, to_float_array(arrays[b_keys[0]], "b"), "b"
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


def _weight_entries(state: dict) -> dict:
    """The entries named ``*weight`` that are not 1-D (linear layers, and malformed ones for the network reader)."""
    return {k: v for k, v in state.items() if str(k).endswith("weight") and np.ndim(v) != 1}


def network_state(path: str | Path) -> dict | None:
    """The state dict of ``path`` when it holds several linear layers (a whole network), else None.

    PyTorch state dicts (``.pt``/``.pth``) and ``.npz`` files whose keys follow the same
    pattern (``fc1.weight``, ``fc1.bias``, ``fc2.weight``, ...) qualify.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".pt", ".pth"):
        state = _torch_state(existing_file(path, "weights file"))
    elif suffix == ".npz":
        state = read_npz(path, "weights file")
    else:
        return None
    entries = _weight_entries(state)
    return state if len(entries) >= 2 or any(np.ndim(v) == 4 for v in entries.values()) else None


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
    if not values or not all(math.isfinite(v) for v in values):
        raise InputError(f"--bias must hold finite numbers; got {text!r}.")
    if len(values) == 1:
        return np.full(m, values[0]), kind
    return np.array(values), kind


def load_weights(
    weights: str | Path, *, bias: str | None = None, layer_name: str | None = None
) -> tuple[np.ndarray, np.ndarray, str]:
    """Read ``(W, alpha, convention)`` from a weights file: ``alpha`` in the paper's convention, and
    ``convention`` ``"b"`` (the file or ``--bias`` gave PyTorch's ``b``; ``alpha = -b``) or ``"alpha"``.

    The rows need not span (a rank-deficient trained layer is a verdict, not an error).
    """
    path = Path(weights)
    suffix = path.suffix.lower()
    existing_file(path, "weights file")
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
        return W, np.zeros(W.shape[0]), kind
    if np.shape(file_bias) not in ((), (W.shape[0],)):
        name = "alpha" if kind == "alpha" else "b"
        raise InputError(
            f"{name} must be a vector of length {W.shape[0]} (one value per row of W); got shape {np.shape(file_bias)}."
        )
    values = np.broadcast_to(np.asarray(file_bias, dtype=float), (W.shape[0],)).copy()
    return W, (values if kind == "alpha" else -values), kind


def load_layer(weights: str | Path, *, bias: str | None = None, layer_name: str | None = None) -> ReLULayer:
    """A :class:`ReLULayer` from a weights file and an optional bias (see :func:`load_weights`)."""
    W, alpha, _ = load_weights(weights, bias=bias, layer_name=layer_name)
    return ReLULayer(W, alpha)


def load_model(weights: str | Path, *, bias: str | None = None, layer_name: str | None = None,
               last: str | None = None, input_shape: Any = None, conv: Any = None) -> tuple[Any, str]:  # fmt: skip
    """The model in a weights file (a :class:`ReLULayer`, or a :class:`Network`) and the bias convention it was read in.

    A state dict with ``Conv2d`` weights (4-D) is a network on images of ``input_shape``
    (``--input-shape``), its convolutions' strides and paddings given in ``conv``
    (``--conv NAME:STRIDE:PADDING``) or inferred (:meth:`Network.from_state_dict`).

    A file with several linear layers is a network (PyTorch's convention); ``--bias`` then has
    no meaning and is refused. A state dict does not say whether its last layer is followed by
    a ReLU: ``last`` (``"relu"`` or ``"linear"``, the CLI's ``--last-relu`` / ``--last-linear``)
    says it; None reads it with a ReLU and the network's note says so. Any weights make a
    single layer (zero rows, fewer rows than inputs, a rank deficiency).
    """
    if last not in (None, "relu", "linear"):
        raise InputError(f"last must be None, 'relu' or 'linear'; got {last!r}.")
    if layer_name is None:
        state = network_state(weights)
        if state is not None:
            if bias is not None:
                n_layers = len(_weight_entries(state))
                raise InputError(
                    f"--bias applies to one layer; {str(weights)!r} holds {n_layers} linear layers with their own biases "
                    "(choose one with --layer NAME for a PyTorch file, or save that layer alone)."
                )
            order = "natural" if Path(weights).suffix.lower() == ".npz" else "given"
            net = Network.from_state_dict(state, order=order, last=last or "relu", input_shape=input_shape, conv=conv)
            said = (f"the last layer ({net.names[-1]}) is read as " + ("affine, no ReLU after it (--last-linear)"
                    if last == "linear" else "followed by a ReLU" + (" (--last-relu)" if last else
                    ": the file does not say; pass --last-linear if it gives a classifier's logits")))  # fmt: skip
            net.note = "; ".join(p for p in (net.note, said) if p)
            return net, "b"
    if last is not None:
        raise InputError("--last-linear / --last-relu apply to a file with several linear layers (a network); "
                         f"{str(weights)!r} holds one layer.")  # fmt: skip
    if input_shape is not None or conv:
        raise InputError(f"--input-shape / --conv apply to a state dict with convolutions; {str(weights)!r} has none.")
    W, alpha, kind = load_weights(weights, bias=bias, layer_name=layer_name)
    return ReLULayer(W, alpha), kind


# ---------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------


class _UsageError(Exception):
    pass


class _Interrupted(BaseException):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt."""


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


def _image_shape(text: str) -> tuple[int, int, int]:
    try:
        dims = tuple(int(t) for t in text.replace("x", ",").split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be C,H,W (or H,W) positive integers; got {text!r}") from None
    if len(dims) == 2:
        dims = (1, *dims)
    if len(dims) != 3 or min(dims) < 1:
        raise argparse.ArgumentTypeError(f"must be C,H,W (or H,W) positive integers; got {text!r}")
    return dims


def _conv_option(text: str) -> tuple[str, tuple[int, int]]:
    name, _, rest = text.rpartition(":")
    name, _, stride = name.rpartition(":")
    try:
        values = int(stride), int(rest)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be NAME:STRIDE:PADDING (integers); got {text!r}") from None
    if not name or values[0] < 1 or values[1] < 0:
        raise argparse.ArgumentTypeError(f"must be NAME:STRIDE:PADDING with stride >= 1, padding >= 0; got {text!r}")
    return name, values


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0; got {text!r}") from None
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0; got {text!r}")
    return value


def _gigabytes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive number of gigabytes; got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a positive number of gigabytes; got {text!r}")
    return value


def build_check_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``check`` sub-command."""
    p = parser or _Parser(prog="python -m relu_frames_nb check", description=__doc__.split("\n\n")[0])
    p.add_argument("weights", help="weights: .npy, .npz, .csv/.txt (rows = frame vectors) or a PyTorch .pt/.pth state dict")
    p.add_argument(
        "--bias", help="bias: file or comma-separated numbers, PyTorch convention b (alpha = -b); prefix 'alpha:' for the paper's"
    )
    p.add_argument("--domain", default="ball:1", help=DOMAIN_SPECS)
    p.add_argument("--layer", dest="layer_name", help="which linear layer of a state dict (its name)")
    last = p.add_mutually_exclusive_group()
    last.add_argument("--last-linear", dest="last", action="store_const", const="linear",
                      help="a network file's last layer is affine (a classifier's logits, no ReLU after it)")  # fmt: skip
    last.add_argument("--last-relu", dest="last", action="store_const", const="relu",
                      help="a network file's last layer is followed by a ReLU (the default, said in the verdict)")  # fmt: skip
    p.add_argument("--input-shape", type=_image_shape, metavar="C,H,W",
                   help="shape of one input image, for a state dict with Conv2d layers (H,W: one channel)")  # fmt: skip
    p.add_argument("--conv", type=_conv_option, action="append", metavar="NAME:STRIDE:PADDING",
                   help="stride and padding of a Conv2d layer of the state dict (inferred when only one choice fits); "
                        "repeat for each")  # fmt: skip
    p.add_argument("--samples", type=_at_least(1), default=4000, help="points of the domain for the rectifying test")
    p.add_argument("--seed", type=_at_least(0), default=0, help="seed of the samples (a non-negative integer)")
    p.add_argument("--max-facets", type=_at_least(1), default=200_000, help="refuse polytopes with more facets than this")
    p.add_argument("--method", choices=("auto", "fast", "exact"), default="auto",
                   help="fast: the paper's tests; exact: the MILP; auto: both (default)")  # fmt: skip
    p.add_argument("--time-limit", type=_seconds, default=DEFAULT_TIME_LIMIT,
                   help=f"seconds for the whole check (default {DEFAULT_TIME_LIMIT:g})")  # fmt: skip
    p.add_argument("--memory-limit", type=_gigabytes, default=DEFAULT_MEMORY / 1024**3,
                   help=f"gigabytes of working memory (default {DEFAULT_MEMORY / 1024**3:g})")  # fmt: skip
    p.add_argument("--save-pair", metavar="FILE",
                   help="draw a colliding pair into FILE (.png, .pdf or .svg; images when the input is a square "
                        "number of pixels); needs matplotlib")  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--json", action="store_true", help="machine-readable output: Verdict.to_dict()")
    return p


def _fail(args: argparse.Namespace, code: int, message: str) -> int:
    kind = {EXIT_BAD_INPUT: "bad input", EXIT_INTERRUPTED: "interrupted"}.get(code, "internal error")
    if getattr(args, "json", False):
        status = "interrupted" if code == EXIT_INTERRUPTED else "error"
        _emit(json.dumps({"status": status, "error_kind": kind, "exit_code": code, "error": message}))
    else:
        print(f"{'interrupted' if code == EXIT_INTERRUPTED else 'error'}: {message}", file=sys.stderr)
    return code


class _Watch:
    """Progress on stderr (unless ``--quiet``) and the last stage reached, for the watchdog."""

    def __init__(self, quiet: bool, total: float) -> None:
        self.stage = "loading"
        self.bar = None
        if not quiet:
            try:
                from tqdm.auto import tqdm

                self.bar = tqdm(total=round(total, 1), unit="s", desc="check", file=sys.stderr, leave=False)
            except ImportError:  # pragma: no cover - tqdm is optional
                self.bar = None

    def __call__(self, event: dict) -> None:
        self.stage = str(event.get("stage") or self.stage)
        if self.bar is not None:
            self.bar.n = min(float(event.get("done", 0.0)), self.bar.total or math.inf)
            lo, up = event.get("lower"), event.get("upper")
            extra = f", bounds [{'?' if lo is None else lo}, {'?' if up is None else up}]" if (lo, up) != (None, None) else ""
            self.bar.set_postfix_str(f"{self.stage}{extra}", refresh=False)
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _watchdog(args: argparse.Namespace, watch: _Watch) -> threading.Timer:
    """Answer "undetermined" and end the process if the check overruns its limit by 10 % + 5 s."""
    limit = 1.1 * args.time_limit + 5.0

    def fire() -> None:
        for child in multiprocessing.active_children():
            child.kill()
        watch.close()
        text = (f"undetermined — the check overran its time limit of {args.time_limit:g} s during '{watch.stage}' "
                f"and was stopped at {limit:.1f} s")  # fmt: skip
        out = {"status": "undetermined", "exit_code": EXIT_UNDETERMINED, "text": text, "method": "",
               "details": {"stopped_by": "watchdog", "stage": watch.stage}}  # fmt: skip
        _emit(json.dumps(out, indent=2, ensure_ascii=False) if args.json else text)
        sys.stdout.flush()
        os._exit(EXIT_UNDETERMINED)

    timer = threading.Timer(limit, fire)
    timer.daemon = True
    timer.start()
    return timer


def main_check(args: argparse.Namespace) -> int:
    """Run the ``check`` sub-command; returns the exit status (never 1 unless a collision was verified)."""

    def on_term(signum, frame):  # SIGTERM is handled like Ctrl-C: one line, no traceback
        raise _Interrupted()

    old = None
    if threading.current_thread() is threading.main_thread():
        old = signal.signal(signal.SIGTERM, on_term)
    watch = _Watch(args.quiet, args.time_limit)
    timer = _watchdog(args, watch)
    try:
        with one_blas_thread():
            return _main_check(args, watch)
    except (KeyboardInterrupt, _Interrupted):
        watch.close()
        return _fail(args, EXIT_INTERRUPTED, f"the check was interrupted during '{watch.stage}'; no verdict")
    finally:
        timer.cancel()
        watch.close()
        if old is not None:
            signal.signal(signal.SIGTERM, old)


def _main_check(args: argparse.Namespace, watch: _Watch) -> int:
    t0 = time.perf_counter()
    try:
        model, kind = load_model(args.weights, bias=args.bias, layer_name=args.layer_name, last=args.last,
                                 input_shape=args.input_shape, conv=dict(args.conv or ()))  # fmt: skip
        domain = parse_domain(args.domain, model.n, name="--domain")
        # reading the files counts against the limit (a hull of 60,000 images takes seconds to read and factor)
        left = max(0.0, args.time_limit - (time.perf_counter() - t0))
        verdict = check(model, domain, method=args.method, time_limit=left,
                        memory_limit=args.memory_limit * 1024**3, progress=watch, seed=args.seed,
                        n_samples=args.samples, max_facets=args.max_facets)  # fmt: skip
        if isinstance(model, ReLULayer):
            said = (
                "bias read as the paper's alpha (ReLU(W x - alpha))" if kind == "alpha"
                else "bias read as PyTorch's b (ReLU(W x + b), alpha = -b)"
            )  # fmt: skip
            verdict.details["bias"] = said
            verdict = replace(verdict, notes=(*verdict.notes, said))
        watch.close()
        if args.save_pair:
            verdict = _save_pair(verdict, model, args.save_pair)
        text = json.dumps(verdict.to_dict(), indent=2, ensure_ascii=False) if args.json else verdict.report()
    except (ReluFramesError, ValueError, OSError) as exc:
        return _fail(args, EXIT_BAD_INPUT, str(exc))
    except MemoryError:
        return _fail(args, EXIT_INTERNAL_ERROR, f"out of memory during '{watch.stage}'; lower --memory-limit or the input size")
    except (KeyboardInterrupt, _Interrupted):
        raise
    except Exception as exc:  # a bug: report it, never as a verdict
        return _fail(args, EXIT_INTERNAL_ERROR, f"internal error ({type(exc).__name__}: {exc}); please report it")
    return _emit(text, verdict.exit_code)


def _save_pair(verdict: Any, model: Any, path: str) -> Any:
    """Draw the verdict's pair into ``path`` (and say so in the verdict); without a pair, say that instead."""
    target = Path(path)
    if target.suffix.lower() not in (".png", ".pdf", ".svg"):
        raise InputError(f"--save-pair must name a .png, .pdf or .svg file; got {path!r}.")
    if verdict.pair is None:
        return replace(verdict, notes=(*verdict.notes, f"--save-pair: no pair to draw ({verdict.status}); {path} not written"))
    out = model(verdict.pair[0])
    title = f"two inputs with the same output ({verdict.status}, layer {verdict.pair_layer or 1})"
    try:
        fig = plot_pair(verdict.pair, outputs=out, title=title)
    except ImportError as exc:  # pragma: no cover - matplotlib missing
        raise InputError(f"--save-pair needs matplotlib: {exc}") from None
    fig.savefig(target, dpi=120)
    verdict.details["pair_figure"] = str(target)
    return replace(verdict, notes=(*verdict.notes, f"the pair is drawn in {path}"))


def _emit(text: str, code: int = 0) -> int:
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
        return reproduce.main(argv[1:])
    parser = _Parser(prog="python -m relu_frames_nb", description="Injectivity of ReLU layers.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    build_check_parser(sub.add_parser("check", help="check a trained layer or network", description=__doc__.split("\n\n")[0]))
    rep = sub.add_parser("reproduce", help="regenerate the paper's experiments", add_help=False)
    rep.add_argument("rest", nargs=argparse.REMAINDER)
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        message, usage = exc.args
        if "--json" in argv:
            print(json.dumps({"status": "error", "error_kind": "bad input", "exit_code": EXIT_BAD_INPUT, "error": message}))
        else:
            sys.stderr.write(usage + message + "\n")
        return EXIT_BAD_INPUT
    if args.command == "check":
        return main_check(args)
    return reproduce.main(args.rest)
