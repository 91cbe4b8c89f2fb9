"""The simulator-throughput grid (issue 38): `simulate` against drawing its Gaussians alone, point by point.

One definition for ``make bench`` (tests/test_benchmarks.py) and ``python docs/scaling.py --grid``. The grid is a
star around :data:`BASE` (linear regression ``H = diag(1/j)``, ``d = 128``, 64 chains, 2048 steps, burn-in 0,
``nu_ftrl(0.01)`` at the default taps, ``rho = 1``): each axis of :data:`AXES` varied with the others at the base,
the base counted once (:data:`GRID`, 12 points). A point's ratio is the time of drawing exactly the run's Gaussians
(:func:`raw_draws`) divided by the time of the run (1.0 = as fast as its random numbers can be drawn). Beside it, what
bounds the point: the time of the run's noise stream alone (:func:`stream_alone`, the same stream on the same
blocks), so that ``(raw + stream) / sim`` is the share of the run its random numbers and its stream take, and the
rest is the per-step loop (a few array operations per step, each ~1–2 µs of interpreter and dispatch).
"""

from __future__ import annotations

import time
import timeit
import warnings
from dataclasses import dataclass, replace

import numpy as np

import dptheory as dpt

MECHANISM = dpt.nu_ftrl(0.01)  # one instance for every run: its own cached γ∞ is not timed again


@dataclass(frozen=True)
class Point:
    """One configuration of the grid: ``steps`` (burn-in 0), ``taps`` (``None``: the default), ``chains``, ``d``."""

    steps: int = 2048
    taps: int | None = None
    chains: int = 64
    d: int = 128

    @property
    def label(self) -> str:
        """E.g. ``"steps=2048 taps=default chains=64 d=128"``."""
        taps = "default" if self.taps is None else self.taps
        return f"steps={self.steps} taps={taps} chains={self.chains} d={self.d}"


BASE = Point()
AXES = {"steps": (512, 2048, 8192, 32768), "taps": (None, 16, 256, 4096, 65536), "chains": (8, 64, 256), "d": (1, 16, 128)}
GRID = list(dict.fromkeys(replace(BASE, **{axis: value}) for axis, values in AXES.items() for value in values))


@dataclass(frozen=True)
class Measurement:
    """The timings of one point: ``sim`` and ``raw`` are minimum wall times in seconds over the same rounds.

    ``route`` is the run's ``settings["route"]`` verbatim (``"?"`` where it has none), ``block`` and ``groups`` its
    ``settings["block"]`` and ``settings["chain_groups"]``.
    """

    point: Point
    sim: float
    raw: float
    route: str
    block: int
    groups: int
    stream: float = 0.0

    @property
    def ratio(self) -> float:
        """``raw / sim``: the share of the run that drawing its Gaussians alone takes."""
        return self.raw / self.sim

    @property
    def ratio_with_stream(self) -> float:
        """``(raw + stream) / sim``: the share its random numbers and its noise stream alone take."""
        return (self.raw + self.stream) / self.sim

    @property
    def loop_us_per_step(self) -> float:
        """What is left, ``sim − raw − stream``, per step in µs: the per-step loop and the run's fixed costs."""
        return (self.sim - self.raw - self.stream) / self.point.steps * 1e6


def run(point: Point) -> dpt.SimulationResult:
    """`simulate` at ``point`` with its truncation warnings silenced.

    Parameters
    ----------
    point : Point
        The configuration.

    Returns
    -------
    SimulationResult
        The run of :data:`MECHANISM` on ``LinearRegression(0.02, 1 / (1..d))``, ``seeds=chains``, burn-in 0.
    """
    problem = dpt.LinearRegression(0.02, 1.0 / np.arange(1, point.d + 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return dpt.simulate(MECHANISM, problem, rho=1.0, seeds=point.chains, steps=point.steps, burn_in=0,
                            taps=point.taps)


def raw_draws(chains: int, d: int, steps: int, block: int) -> None:
    """Draw exactly the Gaussians the linear-regression simulator draws, in the same block shapes.

    Per block of ``k = min(block, remaining)`` steps: the DP white noise ``(k, chains, d)``, the inputs ``x``
    ``(k, chains, d)`` and the residuals ``ξ`` ``(k, chains)``, each array from its own generator as the simulator
    draws them (three spawned from one seed).

    Parameters
    ----------
    chains, d, steps, block : int
        The run's chains, dimension, steps and ``settings["block"]``.
    """
    noise, inputs, residuals = (np.random.default_rng(s) for s in np.random.SeedSequence(0).spawn(3))
    for t in range(0, steps, block):
        k = min(block, steps - t)
        noise.standard_normal((k, chains, d))
        inputs.standard_normal((k, chains, d))
        residuals.standard_normal((k, chains))


def stream_alone(point: Point, result: dpt.SimulationResult, n_rounds: int) -> float:
    """The minimum time over ``n_rounds`` of the run's noise stream alone: ``result.mechanism``'s stream as
    :func:`dptheory.simulate` builds it (a finite ``β`` through the taps within the run), fed the run's block shapes
    of white noise drawn beforehand (not timed).

    Parameters
    ----------
    point : Point
        The configuration.
    result : SimulationResult
        Its run (the mechanism and the block).
    n_rounds : int
        Rounds.

    Returns
    -------
    float
        Seconds.
    """
    from dptheory.simulation import _stream_steps

    block, mech = result.settings["block"], result.mechanism
    steps = _stream_steps(mech, None, point.steps)  # burn-in 0: the run's total is its steps
    shape = (point.chains, point.d)
    rng = np.random.default_rng(0)
    blocks = [rng.standard_normal((min(block, point.steps - t), *shape)) for t in range(0, point.steps, block)]

    def once():
        stream = mech.noise_stream(shape, blocks[0], steps)
        for z in blocks:
            stream(z)

    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):  # as simulate runs it
        return min(timeit.repeat(once, number=1, repeat=n_rounds))


def rounds(seconds: float) -> int:
    """Timed rounds for a point whose one run takes ``seconds``: 2 past 2 s, else 3."""
    return 2 if seconds > 2.0 else 3


def record(point: Point, result: dpt.SimulationResult, sim: float, n_rounds: int) -> Measurement:
    """The :class:`Measurement` of ``point`` from its timed run: ``result`` and ``sim`` (the run's minimum time),
    with :func:`raw_draws` timed at the run's block and :func:`stream_alone`, each the minimum of ``n_rounds``."""
    block = result.settings["block"]
    raw = min(timeit.repeat(lambda: raw_draws(point.chains, point.d, point.steps, block), number=1, repeat=n_rounds))
    return Measurement(point, sim, raw, str(result.settings.get("route", "?")), block, result.settings["chain_groups"],
                       stream_alone(point, result, n_rounds))


def timed_run(point: Point) -> tuple[float, dpt.SimulationResult]:
    """``(seconds, result)`` of one :func:`run` at ``point``, by wall clock."""
    start = time.perf_counter()
    result = run(point)
    return time.perf_counter() - start, result


def measure(point: Point, n_rounds: int | None = None) -> Measurement:
    """Time :func:`run` at ``point`` and its raw draws, each the minimum of the same rounds.

    Parameters
    ----------
    point : Point
        The configuration.
    n_rounds : int, optional
        Rounds of each; by default :func:`rounds` of the first run's time (that run is the first round).

    Returns
    -------
    Measurement
        Both minimum times, and the run's route, block and chain groups.
    """
    seconds, result = timed_run(point)
    times = [seconds]
    for _ in range((n_rounds or rounds(seconds)) - 1):
        seconds, result = timed_run(point)
        times.append(seconds)
    return record(point, result, min(times), len(times))
