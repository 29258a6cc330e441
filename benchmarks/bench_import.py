"""Import time of the core: ``import relu_frames_nb`` against ``import numpy, scipy``.

Targets: at most 2x the time of ``import numpy, scipy`` (scipy's top level is light: its
submodules load lazily, as the core's uses of scipy do) and at most 100 ms over numpy alone.

Each import runs in a fresh interpreter (best of several runs, minus the bare interpreter
start-up). The core imports numpy eagerly and scipy lazily, and no optional dependency
(matplotlib, numba, tqdm, dask, ipywidgets) at all. ``python -X importtime`` names the
slowest modules of the package, for whoever wants to shave them.
"""

from __future__ import annotations

import subprocess
import sys

from benchmarks._common import Target, at_most

OPTIONAL = ("matplotlib", "numba", "tqdm", "dask", "distributed", "ipywidgets", "pythreejs", "IPython", "scipy")


def wall(code: str, repeat: int = 7) -> float:
    best = float("inf")
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", f"import time; t=time.perf_counter(); {code}; print(time.perf_counter()-t)"],
            capture_output=True,
            text=True,
            check=True,
        )
        best = min(best, float(out.stdout.strip().splitlines()[-1]))
    return best


def slowest_modules(k: int = 6) -> list[tuple[float, str]]:
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import relu_frames_nb"], capture_output=True, text=True)
    rows = []
    for line in out.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[0].strip().startswith("import time:") and "relu_frames_nb" in parts[2]:
            try:
                rows.append((int(parts[0].split(":")[1]) / 1e6, parts[2].strip()))
            except ValueError:
                continue
    return sorted(rows, reverse=True)[:k]


def main() -> list[Target]:
    t_np = wall("import numpy")
    t_base = wall("import numpy, scipy")
    t_core = wall("import relu_frames_nb")
    t_exp = wall("import relu_frames_nb.experiments")
    print(f"import numpy: {t_np * 1e3:.0f} ms; numpy + scipy: {t_base * 1e3:.0f} ms")
    over = (t_core - t_np) * 1e3
    print(f"import relu_frames_nb: {t_core * 1e3:.0f} ms ({t_core / t_base:.2f}x numpy + scipy; {over:.0f} ms over numpy)")
    print(f"import relu_frames_nb.experiments: {t_exp * 1e3:.0f} ms")
    check = subprocess.run(
        [sys.executable, "-c", f"import sys, relu_frames_nb; print(','.join(m for m in {OPTIONAL!r} if m in sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = [m for m in check.stdout.strip().split(",") if m]
    print(f"optional or lazy dependencies loaded by 'import relu_frames_nb': {loaded or 'none'}")
    print("slowest modules of the package (self time):")
    for sec, name in slowest_modules():
        print(f"  {sec * 1e3:7.1f} ms  {name}")
    exp = subprocess.run(
        [sys.executable, "-c", "import sys, relu_frames_nb.experiments; print('numba' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    numba_eager = exp.stdout.strip() == "True"
    print(f"'import relu_frames_nb.experiments' imports numba: {numba_eager} (it should only when a kernel runs)")
    return [
        at_most("import relu_frames_nb / import numpy+scipy", t_core / t_base, 2.0, "x"),
        at_most("import relu_frames_nb over import numpy", over, 100.0, " ms"),
        Target("core import loads no optional dependency", float(len(loaded)), 0.0, not loaded, "", "= 0 modules"),
        Target("experiments import leaves numba for later", float(numba_eager), 0.0, not numba_eager, "", "= no"),
    ]


if __name__ == "__main__":
    main()
