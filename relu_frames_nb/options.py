"""The options of a check, said once: ``python -m relu_frames_nb check`` and the ``%relu_check`` magic parse with them.

:data:`CHECK_OPTIONS` is one ordered table: each option's flags, its argparse settings (the
validators below among them) and whether the magic offers it (options about files and output
are the command line's alone). Both front ends build an argparse parser from the table
(:func:`add_check_options`), so a value one refuses the other refuses with the same words.
A refused value raises :class:`OptionError` (an :class:`~relu_frames_nb.errors.InputError`)
carrying the usage line; nothing here prints or exits.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field
from typing import Any

from ._util.budget import DEFAULT_MEMORY, DEFAULT_TIME_LIMIT
from .domains import DOMAIN_SPECS
from .errors import InputError

__all__ = ["CHECK_OPTIONS", "Option", "OptionError", "Parser", "add_check_options", "magic_parser", "METHODS"]

#: the values of ``--method``
METHODS = ("auto", "fast", "exact")


def _domain_help(specs: str) -> str:
    """The ``--domain`` help: every spelling, each with its name (``box:FILE`` said in full, its rows the bounds)."""
    parts = []
    for part in (p.strip() for p in specs.split(" | ")):
        if ":" not in part and parts and parts[-1].startswith("box:") and part == "FILE":
            part = "box:FILE (two rows: the lower and the upper bound of each coordinate)"
        parts.append(part)
    return " | ".join(parts)


class OptionError(InputError):
    """A command line or magic line that the option schema refuses; ``usage`` is the parser's usage line."""

    def __init__(self, message: str, usage: str = "") -> None:
        super().__init__(message)
        self.usage = usage


class Parser(argparse.ArgumentParser):
    """An argparse parser that raises :class:`OptionError` instead of printing and exiting."""

    def error(self, message: str):  # noqa: D102 - argparse's hook
        raise OptionError(f"{self.prog}: error: {message}", self.format_usage())


# ---------------------------------------------------------------------------------
# Validators (argparse ``type=``): a value or argparse.ArgumentTypeError
# ---------------------------------------------------------------------------------


def at_least(minimum: int):
    """A parser of integers ``>= minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}; got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}; got {value}")
        return value

    return parse


def image_shape(text: str) -> tuple[int, ...]:
    """``C,H,W`` (or ``H,W``: one channel; or one number: the features of a network of linear layers), positive integers."""
    try:
        dims = tuple(int(t) for t in text.replace("x", ",").split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be C,H,W, H,W or FEATURES, positive integers; got {text!r}") from None
    if len(dims) == 2:
        dims = (1, *dims)
    if len(dims) not in (1, 3) or min(dims) < 1:
        raise argparse.ArgumentTypeError(f"must be C,H,W, H,W or FEATURES, positive integers; got {text!r}")
    return dims


def conv_option(text: str) -> tuple[str, tuple[int, int]]:
    """``NAME:STRIDE:PADDING`` with stride >= 1 and padding >= 0."""
    name, _, rest = text.rpartition(":")
    name, _, stride = name.rpartition(":")
    try:
        values = int(stride), int(rest)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be NAME:STRIDE:PADDING (integers); got {text!r}") from None
    if not name or values[0] < 1 or values[1] < 0:
        raise argparse.ArgumentTypeError(f"must be NAME:STRIDE:PADDING with stride >= 1, padding >= 0; got {text!r}")
    return name, values


def seconds(text: str) -> float:
    """A finite number of seconds ``>= 0``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0; got {text!r}") from None
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0; got {text!r}")
    return value


def gigabytes(text: str) -> float:
    """A finite positive number of gigabytes."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive number of gigabytes; got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a positive number of gigabytes; got {text!r}")
    return value


# ---------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """One option: its flags, its ``add_argument`` settings, whether ``%relu_check`` offers it, its exclusive group."""

    flags: tuple[str, ...]
    settings: dict[str, Any] = field(default_factory=dict)
    magic: bool = True
    group: str = ""


# fmt: off
CHECK_OPTIONS: tuple[Option, ...] = (
    Option(("--bias",), {"help": "bias: file or comma-separated numbers, PyTorch convention b (alpha = -b); "
                                 "prefix 'alpha:' for the paper's"}, magic=False),
    Option(("--domain",), {"default": "ball:1", "help": _domain_help(DOMAIN_SPECS)}),
    Option(("--layer",), {"dest": "layer_name", "help": "which linear layer of a state dict (its name)"}, magic=False),
    Option(("--last-linear",), {"dest": "last", "action": "store_const", "const": "linear",
                                "help": "a network file's last layer is affine (a classifier's logits, no ReLU after it)"},
           magic=False, group="last"),
    Option(("--last-relu",), {"dest": "last", "action": "store_const", "const": "relu",
                              "help": "a network file's last layer is followed by a ReLU (the default, said in the verdict)"},
           magic=False, group="last"),
    Option(("--input-shape",), {"type": image_shape, "metavar": "C,H,W",
                                "help": "shape of one input: C,H,W for a state dict with Conv2d layers (H,W: one channel); for "
                                        "linear layers only, it must hold their inputs (FEATURES, or H,W / C,H,W)"},
           magic=False),
    Option(("--conv",), {"type": conv_option, "action": "append", "metavar": "NAME:STRIDE:PADDING",
                         "help": "stride and padding of a Conv2d layer of the state dict (inferred when only one choice "
                                 "fits); repeat for each"}, magic=False),
    Option(("--samples",), {"type": at_least(1), "default": 4000, "help": "points of the domain for the rectifying test"}),
    Option(("--seed",), {"type": at_least(0), "default": 0, "help": "seed of the samples (a non-negative integer)"}),
    Option(("--max-facets",), {"type": at_least(1), "default": 200_000, "help": "refuse polytopes with more facets than this"}),
    Option(("--method",), {"choices": METHODS, "default": "auto",
                           "help": "fast: the paper's tests; exact: the MILP; auto: both (default)"}),
    Option(("--time-limit",), {"type": seconds, "default": DEFAULT_TIME_LIMIT,
                               "help": f"seconds for the whole check (default {DEFAULT_TIME_LIMIT:g})"}),
    Option(("--workers",), {"type": at_least(1), "default": 1,
                            "help": "threads of the exact depth search (zero bias, or a bias on R^n; with numba): its "
                                    "subtrees in parallel, within the same time limit (default 1)"}),
    Option(("--memory-limit",), {"type": gigabytes, "default": DEFAULT_MEMORY / 1024**3,
                                 "help": f"gigabytes of working memory (default {DEFAULT_MEMORY / 1024**3:g})"}),
    Option(("--near",), {"metavar": "FILE.npy",
                         "help": "start the search for a colliding pair at this input (a .npy array with one entry per "
                                 "input, an image flattened row by row; it must lie in the domain); the verdict says how "
                                 "far the pair lies from it; in %%relu_check also the name of a vector in the namespace"}),
    Option(("--save-pair",), {"metavar": "FILE", "help": "draw a colliding pair into FILE (.png, .pdf or .svg; images when "
                              "the input is a square number of pixels); needs matplotlib"}, magic=False),
    Option(("--quiet",), {"action": "store_true", "help": "no progress on stderr"}, magic=False),
    Option(("--json",), {"action": "store_true", "help": "machine-readable output: Verdict.to_dict()"}, magic=False),
)
# fmt: on


def add_check_options(parser: argparse.ArgumentParser, *, magic: bool = False) -> argparse.ArgumentParser:
    """Add the options of :data:`CHECK_OPTIONS` to ``parser`` (with ``magic=True`` only those ``%relu_check`` offers)."""
    groups: dict[str, Any] = {}
    for opt in CHECK_OPTIONS:
        if magic and not opt.magic:
            continue
        target = parser
        if opt.group:
            if opt.group not in groups:
                groups[opt.group] = parser.add_mutually_exclusive_group()
            target = groups[opt.group]
        target.add_argument(*opt.flags, **opt.settings)
    return parser


def magic_parser() -> Parser:
    """The parser of ``%relu_check MODEL [options]``: the command line's check options that apply to a model in memory."""
    p = add_check_options(Parser(prog="%relu_check", add_help=False), magic=True)
    options = " ".join(p.format_usage().split()[2:])  # after "usage: %relu_check"
    p.usage = f"%(prog)s MODEL {options}"
    p.add_argument("name", nargs="?", metavar="MODEL", help="the name of a ReLULayer, Network or torch.nn.Linear")
    return p
