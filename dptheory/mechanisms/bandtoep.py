r"""BandToep: the banded Toeplitz strategy optimised for a loss (McKenna 2024, arXiv 2405.15913; seed 003 Table 1,
ref. [27]; jax_privacy's ``toeplitz.optimize_banded_toeplitz``).

A banded Toeplitz strategy ``C`` has first column ``c = (c_0, …, c_{b̂−1})``
(:class:`~dptheory.mechanisms.BandedToeplitz`). For a Toeplitz workload ``W`` (first column ``w``: the prefix
sums, or momentum at a constant learning rate, :meth:`~dptheory.mechanisms.Workload.toeplitz_coeffs`) the
decoder ``B = W C⁻¹`` is Toeplitz with first column ``r = (w * ĉ)_{0:n}``, ``ĉ`` the inverse series of ``c``
(``1/C(z)``), so the per-query squared errors are ``cumsum(r²)`` (seed 003 Prop. 3.3 for ``W = A``) and

    ``RmsError² = Σ_t (n − t) r_t² / n``,     ``MaxError² = Σ_t r_t²`` (the last row).

Under ``b``-min-separation with ``b ≥ b̂`` (or one participation) ``sens² = Σ_j m_j c_j²``
(:func:`~dptheory.mechanisms.banded.separated_column_counts`), so the squared loss ``f(c) = sens²(c) · Error²(c)``
is smooth and scale-free in ``c``. Its gradient, with ``ḡ = ∂Error²/∂r`` and ``q = (ĉ * ĉ)_{0:n}``
(``dĉ = −ĉ * dc * ĉ``):

    ``∂Error²/∂ĉ_j = Σ_{t ≥ j} ḡ_t w_{t−j}``,     ``∂Error²/∂c_m = −Σ_{t ≥ m} (∂Error²/∂ĉ)_t q_{t−m}``,

convolutions and correlations as in the losses (direct up to 2048 steps, by FFT above): ``O(n log n + n b̂)`` per
evaluation at large ``n`` (``ĉ`` by the recurrence). L-BFGS-B from BandFHU
(:func:`~dptheory.mechanisms.banded_sqrt_toeplitz`, the start jax_privacy takes), the result scaled to ``‖c‖₂ = 1``.
Losses are unsquared (seed 003 Eq. 10; errata 003 C11). A non-Toeplitz workload (a learning-rate schedule) is
refused: :func:`~dptheory.mechanisms.optimize_banded` takes any workload with a banded inverse.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.signal

from .._validation import check_choice, check_in_interval, check_int, check_name, check_real_array
from .banded import BandedToeplitz, _check_bands, banded_sqrt_toeplitz, separated_column_counts
from .base import Participation, _check_participation
from .losses import prefix_loss
from .workloads import Workload, _truncated_convolution, _truncated_correlation, _check_workload

__all__ = ["BandToepResult", "optimize_banded_toeplitz", "banded_toeplitz_objective"]

_LOSSES = ("rms", "max")
_TOEPLITZ_ROUTE = "a banded Toeplitz strategy (its decoder B = W C⁻¹ is then Toeplitz)"


def _row_weights(n: int, loss: str) -> np.ndarray:
    """``Error² = Σ_t weights_t r_t²``: ``(n − t)/n`` for the RmsError, ``1`` for the MaxError (the last row)."""
    return (n - np.arange(n)) / n if loss == "rms" else np.ones(n)


def _objective(c: np.ndarray, w: np.ndarray, weights: np.ndarray, counts: np.ndarray) -> tuple[float, np.ndarray]:
    n = w.size
    if c[0] == 0.0:
        return math.inf, np.zeros_like(c)
    impulse = np.zeros(n)
    impulse[0] = 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        inverse = scipy.signal.lfilter([1.0], c, impulse)  # ĉ, the first column of C⁻¹
        r = _truncated_convolution(w, inverse)
        error = float(np.dot(weights, r * r))
    if not math.isfinite(error):  # C(z) with a zero inside the disk: ĉ grows geometrically
        return math.inf, np.zeros_like(c)
    sens_sq = float(np.dot(counts, c * c))
    grad_inverse = _truncated_correlation(2.0 * weights * r, w)
    grad_error = -_truncated_correlation(grad_inverse, _truncated_convolution(inverse, inverse))[: c.size]
    return sens_sq * error, 2.0 * error * counts * c + sens_sq * grad_error


def _check_start(name: str, coeffs) -> np.ndarray:
    c = check_real_array(name, coeffs)
    if np.ndim(coeffs) != 1:  # a scalar, which check_real_array would take as one coefficient
        raise ValueError(f"{name} must be a 1-D sequence c_0, ..., c_(bands-1), got {coeffs!r:.80}")
    if c[0] <= 0.0:
        raise ValueError(f"{name}[0] must be positive (valid range (0, inf)), got {c[0]:g}")
    return c


def _check_separated(participation: Participation, n: int, bands: int) -> None:
    if participation.participations(n) > 1 and participation.min_sep < bands:
        raise ValueError(
            f"participation must have min_sep >= bands = {bands} (or allow one participation): with {participation} "
            f"the columns of a banded C overlap and sens^2 is not the quadratic sum_j m_j c_j^2"
        )


def banded_toeplitz_objective(coeffs, n: int, participation: Participation | None = None, *, loss: str = "rms",
                              workload: Workload | None = None) -> tuple[float, np.ndarray]:
    r"""BandToep's squared loss ``f(c) = sens²(c) · Error²(c)`` and ``∂f/∂c`` (module docstring).

    Parameters
    ----------
    coeffs : array_like
        ``c_0, …, c_{b̂−1}`` (``c_0 ≠ 0``).
    n : int
        The number of steps.
    participation : Participation or None, optional
        With ``min_sep ≥ b̂`` or one participation; ``None`` is single participation.
    loss : {"rms", "max"}, default "rms"
        ``RmsLoss²`` or ``MaxLoss²``.
    workload : Workload or None, optional
        A Toeplitz workload; ``None`` is the prefix sums.

    Returns
    -------
    f : float
        The squared loss (``inf`` where ``1/C(z)`` overflows).
    grad : numpy.ndarray
        ``∂f/∂c``.

    Raises
    ------
    ValueError
        If an argument is out of range, the workload is not Toeplitz, or the participation's separation is below
        the bands.
    """
    c = _check_start("coeffs", coeffs)
    n = check_int("n", n, 1)
    participation = _check_participation(participation)
    loss = check_choice("loss", loss, _LOSSES)
    w = _check_workload(workload, n, toeplitz_for=_TOEPLITZ_ROUTE).toeplitz_coeffs(n)
    _check_separated(participation, n, c.size)
    return _objective(c, w, _row_weights(n, loss), separated_column_counts(c.size, n, participation))


@dataclass(frozen=True)
class BandToepResult:
    r"""What :func:`optimize_banded_toeplitz` found: the BandToep mechanism and its losses (unsquared).

    Attributes
    ----------
    mechanism : BandedToeplitz
        The optimised strategy, ``‖c‖₂ = 1``.
    n : int
        The number of steps.
    bands : int
        ``b̂``.
    participation : Participation
        The participation schema (``min_sep ≥ b̂`` or one participation).
    workload : Workload
        The (Toeplitz) workload.
    loss : str
        The loss minimised, ``"rms"`` or ``"max"``.
    sensitivity : float
        ``sens_Π(C)``.
    rms_error, max_error : float
        Seed 003 Eq. 9 for ``B = W C⁻¹``, unsquared.
    initial_loss : float
        The minimised loss (unsquared) at the BandFHU start.
    converged : bool
        L-BFGS-B's own convergence test.
    iterations, evaluations : int
        L-BFGS-B's iterations and objective evaluations.
    seconds : float
        Wall-clock time.
    message : str
        L-BFGS-B's message.
    """

    mechanism: BandedToeplitz
    n: int
    bands: int
    participation: Participation
    workload: Workload
    loss: str
    sensitivity: float
    rms_error: float
    max_error: float
    initial_loss: float
    converged: bool
    iterations: int
    evaluations: int
    seconds: float
    message: str

    @property
    def rms_loss(self) -> float:
        """``RmsLoss = RmsError · sens_Π``, unsquared."""
        return self.rms_error * self.sensitivity

    @property
    def max_loss(self) -> float:
        """``MaxLoss = MaxError · sens_Π``, unsquared."""
        return self.max_error * self.sensitivity

    def __repr__(self) -> str:
        state = "converged" if self.converged else "NOT converged"
        return (f"BandToepResult(n={self.n}, bands={self.bands}, {self.participation}, {self.workload.name}, "
                f"loss={self.loss}: RmsLoss={self.rms_loss:.6g}, MaxLoss={self.max_loss:.6g} (sens="
                f"{self.sensitivity:.6g}; start {self.initial_loss:.6g}), {state} after {self.iterations} iterations "
                f"in {self.seconds:.3g} s: {self.message})")


def optimize_banded_toeplitz(n: int, *, bands: int, participation: Participation | None = None, loss: str = "rms",
                             workload: Workload | None = None, init=None, steps: int = 250, gtol: float = 1e-10,
                             ftol: float = 1e-13, name: str | None = None) -> BandToepResult:
    r"""BandToep (McKenna 2024): the banded Toeplitz ``C`` with ``bands`` bands minimising the loss over ``n`` steps.

    Module docstring for the objective; L-BFGS-B over ``c`` from the BandFHU coefficients (or ``init``), at most
    ``steps`` iterations. ``O(n log n + n b̂)`` per evaluation, no ``n × n`` matrix.

    Parameters
    ----------
    n : int
        The number of steps.
    bands : int
        ``b̂``, in ``[1, n]``.
    participation : Participation or None, optional
        ``min_sep ≥ bands`` or one participation; ``None`` is single participation.
    loss : {"rms", "max"}, default "rms"
        The loss minimised (both are reported).
    workload : Workload or None, optional
        A Toeplitz workload (:meth:`Workload.toeplitz_coeffs` not ``None``); ``None`` is the prefix sums.
    init : array_like, optional
        The start ``c`` (``bands`` entries, ``c_0 > 0``); default BandFHU.
    steps : int, default 250
        The most L-BFGS-B iterations (jax_privacy's default ``max_optimizer_steps``); 0 returns the start.
    gtol, ftol : float
        L-BFGS-B's tolerances on the projected gradient and the relative decrease.
    name : str, optional
        The mechanism's name; by default ``BandToep(n=…, bands=…)``.

    Returns
    -------
    BandToepResult
        The mechanism, its losses and the optimiser's record.

    Raises
    ------
    ValueError
        If an argument is out of range, ``init`` has the wrong length or a non-positive ``c_0``, the workload is not
        Toeplitz, or ``participation.min_sep < bands`` with more than one participation.
    """
    n = check_int("n", n, 1)
    bands, name = _check_bands(bands, n), check_name("name", name)
    participation = _check_participation(participation)
    loss = check_choice("loss", loss, _LOSSES)
    workload = _check_workload(workload, n, toeplitz_for=_TOEPLITZ_ROUTE)
    w = workload.toeplitz_coeffs(n)
    _check_separated(participation, n, bands)
    steps = check_int("steps", steps, 0)
    gtol = check_in_interval("gtol", gtol, 0.0)
    ftol = check_in_interval("ftol", ftol, 0.0)
    c0 = banded_sqrt_toeplitz(bands).strategy_coeffs(bands) if init is None else _check_start("init", init)
    if c0.size != bands:
        raise ValueError(f"init must hold bands = {bands} coefficients, got {c0.size}")
    weights, counts = _row_weights(n, loss), separated_column_counts(bands, n, participation)
    f0, _ = _objective(c0, w, weights, counts)
    t0 = time.perf_counter()
    evaluations = 0

    def fun(c):
        nonlocal evaluations
        evaluations += 1
        return _objective(c, w, weights, counts)

    if steps == 0:
        c, iterations, converged, message = c0, 0, False, "no steps taken (steps = 0)"
    else:
        bounds = [(1e-12, None)] + [(None, None)] * (bands - 1)
        res = scipy.optimize.minimize(fun, c0, jac=True, method="L-BFGS-B", bounds=bounds,
                                      options={"maxiter": steps, "maxfun": 4 * steps + 20, "gtol": gtol, "ftol": ftol,
                                               "maxcor": 20})
        c, iterations, converged, message = res.x, int(res.nit), bool(res.success), str(res.message)
    seconds = time.perf_counter() - t0
    mech = BandedToeplitz(c / np.linalg.norm(c), name=name or f"BandToep(n={n}, bands={bands})")
    report = prefix_loss(mech, n, participation, workload=workload)
    return BandToepResult(mechanism=mech, n=n, bands=bands, participation=participation, workload=workload, loss=loss,
                          sensitivity=report.sensitivity, rms_error=report.rms_error, max_error=report.max_error,
                          initial_loss=math.sqrt(f0), converged=converged, iterations=iterations,
                          evaluations=evaluations, seconds=seconds, message=message)
