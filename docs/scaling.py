r"""How the hot paths' cost grows with chains, dimension, taps, steps and samples (``docs/performance.md``).

    python docs/scaling.py          # prints the markdown table (about a minute on 2 cores)
    python docs/scaling.py --grid   # the simulator-throughput grid of tests/throughput_grid.py (a few minutes)

Each row times one path at a base size and with one parameter multiplied by 4, and reports the time ratio and
the exponent ``log(ratio)/log(4)`` (1 = linear). Times are the minimum of 3 runs on an otherwise idle machine;
the exponents, not the times, are what the table is for.

``--grid`` times `simulate` at each point of the star of tests/throughput_grid.py (the grid of ``make bench``)
and drawing exactly its Gaussians alone, each the minimum of the same rounds (2 where a run takes over 2 s, else
3), and prints per point the route that ran, its block and chain groups, both times and their ratio raw / sim, the
time of its noise stream alone on the same blocks, the share ``(raw + stream) / sim`` and what is left per step
(the per-step loop and the run's fixed costs): the profile of what bounds the point. Then the worst point.
"""

from __future__ import annotations

import math
import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout: this checkout's dptheory

import numpy as np  # noqa: E402

import dptheory as dpt  # noqa: E402
from dptheory import isrl  # noqa: E402
from tests import throughput_grid  # noqa: E402


def _best(fn) -> float:
    """The minimum wall time of 3 calls."""
    return min(timeit.repeat(fn, number=1, repeat=3))


def _simulate(*, taps: int, seeds: int, d: int, steps: int):
    beta = dpt.nu_ftrl(1e-3) if taps > 1 else dpt.dpsgd()
    problem = dpt.LinearRegression(0.02, 1.0 / np.arange(1, d + 1))  # H = diag(1/j)
    kwargs = dict(taps=taps) if taps > 1 else {}
    return lambda: dpt.simulate(beta, problem, rho=1.0, seeds=seeds, steps=steps, burn_in=0, **kwargs)


def _mc(*, n_samples: int, T: int):
    return lambda: dpt.proactive.mc_delta(1.0, q=0.01, T=T, eps=1.0, n_samples=n_samples)


def _isrl(*, seeds: int, R: int, n: int):
    problem = isrl.SCQuadratic(d=10, radius=2.0)
    s2 = isrl.sigma2_noisy_mbsgd(problem.L, R=R, n=n, eps0=1.0, delta0=1e-6)
    sch = isrl.sc_schedule(problem, R=R, sigma2=s2, M=10)
    return lambda: isrl.noisy_mbsgd(problem, N=10, n=n, K=16, sigma2=s2, schedule=sch, seeds=seeds, seed=1)


ROWS = [
    ("simulate, ν-DP-FTRL (FFT stream), linear regression", _simulate, dict(taps=1024),
     ("seeds", "d", "taps", "steps")),
    ("simulate, DP-SGD, linear regression", _simulate, dict(taps=1), ("seeds", "d", "steps")),
    ("Monte-Carlo δ(ε) accountant", _mc, {}, ("n_samples", "T")),
    ("Noisy ISRL-DP MB-SGD (N = 10, K = 16, d = 10)", _isrl, {}, ("seeds", "R", "n")),
]

DEFAULTS = {"_simulate": dict(seeds=32, d=32, steps=2048), "_mc": dict(n_samples=2**14, T=500),
            "_isrl": dict(seeds=32, R=200, n=4000)}


def table() -> str:
    lines = ["| path | base size | ×4 in | time ratio | exponent |", "|---|---|---|---|---|"]
    for label, make, fixed, params in ROWS:
        base_kw = {**DEFAULTS[make.__name__], **fixed}
        base = _best(make(**base_kw))
        size = ", ".join(f"{k} = {v}" for k, v in base_kw.items())
        for p in params:
            ratio = _best(make(**{**base_kw, p: base_kw[p] * 4})) / base
            lines.append(f"| {label} | {size} ({base * 1e3:.0f} ms) | {p} | {ratio:.2f} | {math.log(ratio) / math.log(4):.2f} |")
    return "\n".join(lines)


def grid_table() -> str:
    """The throughput grid as a markdown table, one row per point, then a line naming the lowest ratio."""
    lines = ["| point | route | block | groups | sim s | raw s | stream s | ratio | (raw + stream) / sim | rest, µs/step |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    measured = [throughput_grid.measure(point) for point in throughput_grid.GRID]
    for m in measured:
        lines.append(f"| {m.point.label} | {m.route} | {m.block} | {m.groups} | {m.sim:.3g} | {m.raw:.3g} | {m.stream:.3g} "
                     f"| {m.ratio:.2f} | {m.ratio_with_stream:.2f} | {m.loop_us_per_step:.3g} |")
    low = min(measured, key=lambda m: m.ratio)
    lines.append(f"\nworst point: {low.point.label}, ratio {low.ratio:.2f} ({low.route})")
    return "\n".join(lines)


if __name__ == "__main__":
    import argparse
    import warnings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", action="store_true", help="the simulator-throughput grid instead of the scaling table")
    grid = parser.parse_args().grid
    warnings.simplefilter("ignore", UserWarning)  # the truncation warning of ν-FTRL's finite taps
    print(grid_table() if grid else table())
