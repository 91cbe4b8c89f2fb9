r"""Banded matrix factorisation: BandMF (Choquette-Choo et al. 2023) and the BandFHU baseline (seed 003 §2.4).

A *banded* strategy with ``b̂`` bands is an ``n × n`` lower-triangular ``C`` with ``C_ij = 0`` for ``i − j ≥ b̂``:
step ``i`` correlates its noise with at most the ``b̂ − 1`` steps before it, so the noise needs a buffer of
``b̂`` vectors (seed 003 §2.4, Table 1: memory ``b̂·m`` against ``d·m`` for a ``d``-buffer BLT). BandMF
(Choquette-Choo, Ganesh, McKenna, McMahan, Rush, Thakurta, Xu 2023, "(Amplified) Banded Matrix Factorization: A
unified approach to private training") takes ``C`` *column-normalised* (every column of unit ``ℓ₂`` norm) and
optimises it for the RmsLoss of the prefix-sum workload ``A`` with the decoder ``B = A C⁻¹``.

**Sensitivity** (Choquette-Choo et al. 2023, Thm 2; seed 003 §2.4). Columns ``i`` and ``j`` of a banded ``C``
have overlapping row supports ``[i, i + b̂)`` and ``[j, j + b̂)`` only if ``|i − j| < b̂``. Under ``b``-min-separation
participation with ``b ≥ b̂`` every participation pattern therefore meets only pairwise orthogonal columns, the
Gram matrix ``CᵀC`` is diagonal on it, and ``‖Σ_{i∈π} C_{:,i} u_i‖² = Σ_{i∈π} ‖C_{:,i}‖² ‖u_i‖²`` whatever the
signs of ``C``: ``sens² = max_π Σ_{i∈π} ‖C_{:,i}‖²`` exactly, which is ``k' = min(k, ⌈n/b⌉)`` for unit columns. For
``b < b̂`` the columns overlap and :class:`BandedMechanism` falls back on the dense enumeration of
:class:`~dptheory.mechanisms.DenseMechanism` (exact for ``CᵀC ≥ 0``, refused otherwise; see
:meth:`~dptheory.mechanisms.Mechanism.sensitivity_report` for bounds there).

**Optimisation** (:func:`optimize_banded`). With ``b ≥ b̂`` (or one participation) the sensitivity of a
column-normalised ``C`` is the constant ``√k'``, so minimising the RmsLoss is minimising the squared RmsError
``f(C) = ‖A C⁻¹‖_F² / n`` over the band. As in the paper the columns are normalised *inside* the objective: the
free variables are the band entries of ``X`` and ``C = X D⁻¹`` with ``D = diag(‖X_{:,j}‖)``. With ``N = C⁻¹`` and
``B = A N``,

    ``dC⁻¹ = −N dC N``  ⇒  ``d‖B‖² = −2⟨B, A N dC N⟩``  ⇒  ``∂‖A C⁻¹‖_F²/∂C = −2 Nᵀ AᵀA N Nᵀ = −2 (BᵀB) Nᵀ``,

of which only the band entries are kept; through the normalisation ``C_{:,j} = X_{:,j}/‖X_{:,j}‖``,

    ``∂f/∂X_{:,j} = (G_{:,j} − C_{:,j} ⟨C_{:,j}, G_{:,j}⟩) / ‖X_{:,j}‖``  (band entries of column ``j`` only).

One objective-and-gradient evaluation costs ``O(n³)`` dense BLAS-3 work — the triangular inverse ``N``
(``n³/3`` flops, LAPACK ``trtri``), ``BᵀB`` (``syrk``, ``n³``) and ``(BᵀB) Nᵀ`` (``trmm``, ``n³``) — whatever the
number of bands; ``O(n²)`` memory. Measured on this project's shared 2-core machine (``bands = n/5``, OpenBLAS,
one thread): 1 ms at ``n = 128``, 7 ms at ``n = 256``, 40 ms at ``n = 512``, 0.16 s at ``n = 1024`` and
0.5–0.7 s at ``n = 2000``; a converged optimisation took 0.16 s, 1.9 s and 11 s at ``n = 128, 256, 512`` (90, 140
and 210 L-BFGS-B iterations), 105 s at ``n = 1024`` (310 iterations; 60 iterations, 23 s, are within 3e-5 of it).
Seed 003's BandMF of Table 3 / C19 (``n = 2052``, ``b̂ = 342``, ``k = 6``, ``b = 342``): 80 iterations give
RmsLoss 8.5954 (paper 8.60, jax_privacy 8.596) and MaxLoss 10.08 (paper 10.21; not optimised) in about 2 min. Under CPU contention multi-threaded OpenBLAS can be ten times slower than this at
``n ≤ 512`` (``OPENBLAS_NUM_THREADS=1`` avoids it). The paper quotes ``O(n²)`` per gradient (seed 003 §2.4);
the dense BLAS-3 route is used here for its simplicity (a banded-solve route was not tried).

The optimiser is scipy's L-BFGS-B, started deterministically from the column-normalised BandFHU strategy
(:func:`banded_sqrt`), with the diagonal of ``X`` kept positive by a bound (``C`` stays invertible); no Toeplitz
structure is assumed. Every loss reported here is **unsquared** (seed 003 Eq. 10; errata 003 C11).
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.optimize
from scipy.linalg import blas, lapack

from .._validation import check_in_interval, check_int
from .base import DenseMechanism, Participation, _check_participation

__all__ = ["BandedMechanism", "BandedResult", "optimize_banded", "banded_sqrt", "banded_rms_objective"]

#: Column norms within this relative distance of 1 count as unit norm (Thm 2's ``sens = √k'`` applies).
_UNIT_RTOL = 1e-12
_LOSSES = ("rms",)


def _check_bands(bands, n: int) -> int:
    return check_int("bands", bands, 1, n, why=f"a banded n x n strategy has 1 to n = {n} bands")


def _band_index(n: int, bands: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the band ``0 ≤ i − j < bands`` of an ``n × n`` matrix, column by column."""
    cols = np.repeat(np.arange(n), np.minimum(bands, n - np.arange(n)))
    starts = np.concatenate([[0], np.cumsum(np.minimum(bands, n - np.arange(n)))[:-1]])
    rows = cols + (np.arange(cols.size) - np.repeat(starts, np.minimum(bands, n - np.arange(n))))
    return rows, cols


def _max_separated_sum(w: np.ndarray, k: int, b: int) -> float:
    r"""``max Σ_{i∈π} w_i`` over sets ``π ⊆ [0, n)`` of at most ``k`` indices pairwise ``≥ b`` apart, ``w ≥ 0``.

    Dynamic programme ``F_m[t] = max(F_{m−1}[t], F_m[t−1], F_{m−1}[t−b] + w_{t−1})`` (best over indices ``< t`` with
    at most ``m`` picks), ``O(nk)`` time."""
    n = w.size
    F = np.zeros(n + 1)
    for _ in range(k):
        prev = np.concatenate([np.zeros(1), F[np.maximum(np.arange(1, n + 1) - b, 0)] + w])
        F = np.maximum.accumulate(np.maximum(F, prev))
    return float(F[-1])


class BandedMechanism(DenseMechanism):
    r"""An explicit ``n × n`` lower-triangular strategy ``C`` with ``bands = b̂`` bands (``C_ij = 0`` for
    ``i − j ≥ b̂``): BandMF (Choquette-Choo et al. 2023) or any banded factorisation (seed 003 §2.4, Table 1).

    Everything is :class:`~dptheory.mechanisms.DenseMechanism`'s except the sensitivity under ``b``-min-separation
    with ``b ≥ b̂`` (or a single participation): then distinct participations meet orthogonal columns
    (Choquette-Choo et al. 2023, Thm 2; seed 003 §2.4) and

        ``sens_Π(C)² = max_{π∈Π} Σ_{i∈π} ‖C_{:,i}‖²``,  ``= k' = min(k, ⌈n/b⌉)`` for unit columns,

    exactly, for any signs of ``C`` (a dynamic programme over the column norms of the leading ``n × n`` block; the
    truncated block of a column-normalised ``C`` has shorter last columns). For ``b < b̂`` the dense pattern
    enumeration of the base class applies (exact where ``CᵀC ≥ 0`` on the patterns, refused otherwise).
    """

    def __init__(self, strategy, *, bands: int, name: str | None = None):
        try:
            C = np.array(strategy, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"strategy must be a square matrix of real numbers, got {strategy!r:.80}") from None
        super().__init__(C, name=name)
        self.bands = _check_bands(bands, self.size)
        below = np.tril(self.C, -self.bands)
        if np.any(below != 0.0):
            i, j = np.argwhere(below != 0.0)[0]
            raise ValueError(
                f"strategy must have at most bands = {self.bands} bands (C_ij = 0 for i - j >= bands), got "
                f"C[{i}, {j}] = {self.C[i, j]:g} at i - j = {i - j}"
            )
        if name is None:
            self.name = f"BandedMechanism(n={self.size}, bands={self.bands})"

    def column_norms(self, n: int | None = None) -> np.ndarray:
        """``‖C_{:,j}‖₂`` of the leading ``n × n`` block (all of ``C`` by default)."""
        n = self.size if n is None else self._check_n(n)
        return np.sqrt(np.einsum("ij,ij->j", self.C[:n, :n], self.C[:n, :n]))

    @property
    def column_normalised(self) -> bool:
        """Every column of ``C`` has unit norm (to ``1e-12`` relative): BandMF's normalisation."""
        return bool(np.all(np.abs(self.column_norms() - 1.0) <= _UNIT_RTOL))

    def _separated(self, n: int, participation: Participation) -> bool:
        return participation.participations(n) == 1 or participation.min_sep >= self.bands

    def sensitivity(self, n: int | None = None, participation: Participation | None = None) -> float:
        r"""``sens_Π(C)`` over ``n`` steps: ``√k'`` exactly for unit columns and ``b ≥ b̂`` (Choquette-Choo et al.
        2023, Thm 2; seed 003 §2.4), ``(max_π Σ_{i∈π} ‖C_{:,i}‖²)^{1/2}`` for other column norms with ``b ≥ b̂``,
        and the dense enumeration (:func:`~dptheory.mechanisms.dense_sensitivity`) for ``b < b̂``."""
        if n is None:
            raise ValueError(f"n must be a number of steps: {self.name} has no streaming limit (n = None)")
        n = self._check_n(n)
        participation = _check_participation(participation)
        if not self._separated(n, participation):
            return super().sensitivity(n, participation)
        k = participation.participations(n)
        norms = self.column_norms(n)
        if np.all(np.abs(norms - 1.0) <= _UNIT_RTOL):
            return math.sqrt(k)
        return math.sqrt(_max_separated_sum(norms**2, k, participation.min_sep))

    def sensitivity_route(self, n: int, participation: Participation) -> str:
        """Which theorem or route :meth:`sensitivity` uses for ``n`` steps under ``participation``."""
        participation = _check_participation(participation)
        if participation.participations(n) > 1 and participation.min_sep >= self.bands:
            return (f"min_sep b = {participation.min_sep} >= bands = {self.bands}: participations meet orthogonal "
                    f"columns, sens^2 = max over patterns of the sum of squared column norms (= k' for unit columns; "
                    f"Choquette-Choo et al. 2023, Thm 2; seed 003 §2.4)")
        parent = getattr(super(), "sensitivity_route", None)
        if parent is not None:
            return parent(n, participation)
        if participation.participations(n) == 1:  # pragma: no cover - older base class
            return "largest column norm of C (one participation; seed 004 Thm 1.1, eq. 24)"
        return "enumeration of the participation patterns over C^T C >= 0 (seed 003 eq. 6)"  # pragma: no cover

    def cache_key(self) -> str:
        digest = hashlib.sha256(np.ascontiguousarray(self.C).tobytes()).hexdigest()
        return f"BandedMechanism:bands={self.bands}:{digest}"


def _sqrt_coeffs(m: int) -> np.ndarray:
    """``c_j = C(2j, j)/4^j`` for ``j < m``: the coefficients of ``(1 − x)^{−1/2}`` (the square-root factorisation)."""
    t = np.arange(1, m, dtype=float)
    return np.concatenate([[1.0], np.cumprod((t - 0.5) / t)])[:m]


def banded_sqrt(n: int, bands: int, *, normalise: bool = False) -> BandedMechanism:
    r"""BandFHU (Kalinin & Lampert 2024, as seed 003 §2.4 / Fig. 6 uses it): the banded Toeplitz strategy with the
    first ``b̂ = bands`` coefficients ``c_j = C(2j, j)/4^j`` of the square-root factorisation ``(1 − x)^{−1/2}``.

    As the digest of seed 003 (C36) reads the paper, BandFHU is **unnormalised** (``normalise=False``, the default):
    column ``j`` has norm ``(Σ_{i < min(b̂, n − j)} c_i²)^{1/2}``, non-increasing in ``j``, and its sensitivity for
    ``b ≥ b̂`` comes from the column norms (:meth:`BandedMechanism.sensitivity`). ``normalise=True`` divides every
    column by its norm (the column-normalised start of :func:`optimize_banded`).
    """
    n = check_int("n", n, 1)
    bands = _check_bands(bands, n)
    c = _sqrt_coeffs(bands)
    rows, cols = _band_index(n, bands)
    C = np.zeros((n, n))
    C[rows, cols] = c[rows - cols]
    if normalise:
        C /= np.sqrt(np.einsum("ij,ij->j", C, C))
    kind = "normalised" if normalise else "unnormalised"
    return BandedMechanism(C, bands=bands, name=f"banded_sqrt(n={n}, bands={bands}, {kind})")


def banded_rms_objective(x: np.ndarray, n: int, bands: int) -> tuple[float, np.ndarray]:
    r"""``f = ‖A C⁻¹‖_F² / n`` (the squared RmsError of seed 003 Eq. 9) and ``∂f/∂x`` for the column-normalised
    banded ``C = X D⁻¹`` whose band entries ``x`` are listed column by column (``i = j, …, min(j + b̂, n) − 1``).

    Module docstring for the gradient; ``O(n³)`` BLAS-3 time, ``O(n²)`` memory. A singular ``C`` (a zero column or
    diagonal) gives ``f = inf``.
    """
    rows, cols = _band_index(n, bands)
    return _objective(np.asarray(x, dtype=float), n, rows, cols)


def _objective(x: np.ndarray, n: int, rows: np.ndarray, cols: np.ndarray) -> tuple[float, np.ndarray]:
    norms = np.sqrt(np.bincount(cols, weights=x * x, minlength=n))
    diag = x[rows == cols]
    if np.any(norms == 0.0) or np.any(diag == 0.0):
        return math.inf, np.zeros_like(x)
    c = x / norms[cols]
    C = np.zeros((n, n), order="F")
    C[rows, cols] = c
    N, info = lapack.dtrtri(C, lower=1)
    if info != 0:  # pragma: no cover - the diagonal was checked above
        return math.inf, np.zeros_like(x)
    N = np.tril(N)
    B = np.cumsum(N, axis=0)
    f = float(np.einsum("ij,ij->", B, B))
    S = blas.dsyrk(1.0, B, trans=1, lower=1)  # lower triangle of BᵀB
    S = S + np.tril(S, -1).T
    G = blas.dtrmm(-2.0, N, S, side=1, lower=1, trans_a=1)  # −2 (BᵀB) Nᵀ
    g = G[rows, cols]
    proj = np.bincount(cols, weights=c * g, minlength=n)
    grad = (g - c * proj[cols]) / norms[cols]
    return f / n, grad / n


@dataclass(frozen=True)
class BandedResult:
    r"""What :func:`optimize_banded` found: the column-normalised BandMF ``mechanism`` and its losses over ``n`` steps
    under ``participation`` (``min_sep ≥ bands`` or one participation, so ``sens = √k'`` exactly), all unsquared
    (seed 003 Eqs. 9–10); ``initial_rms_loss`` is the same loss at the BandFHU start. ``converged`` is L-BFGS-B's
    own convergence test (``message`` says which); ``iterations`` its iterations, ``evaluations`` the
    objective-and-gradient evaluations, ``seconds`` the wall-clock time."""

    mechanism: BandedMechanism
    n: int
    bands: int
    participation: Participation
    sensitivity: float
    rms_error: float
    max_error: float
    initial_rms_loss: float
    converged: bool
    iterations: int
    evaluations: int
    seconds: float
    message: str

    @property
    def rms_loss(self) -> float:
        return self.rms_error * self.sensitivity

    @property
    def max_loss(self) -> float:
        return self.max_error * self.sensitivity

    def __repr__(self) -> str:
        state = "converged" if self.converged else "NOT converged"
        return (
            f"BandedResult({self.mechanism.name}, n={self.n}, bands={self.bands}, {self.participation}: RmsLoss={self.rms_loss:.6g}, "
            f"MaxLoss={self.max_loss:.6g} (sens={self.sensitivity:.6g}; start RmsLoss={self.initial_rms_loss:.6g}), "
            f"{state} after {self.iterations} iterations / {self.evaluations} evaluations in {self.seconds:.3g} s: "
            f"{self.message})"
        )


def optimize_banded(
    n: int,
    *,
    bands: int,
    loss: str = "rms",
    steps: int = 500,
    participation: Participation | None = None,
    init=None,
    gtol: float = 1e-9,
    ftol: float = 1e-13,
    name: str | None = None,
) -> BandedResult:
    r"""BandMF (Choquette-Choo et al. 2023; seed 003 §2.4, Table 1): the column-normalised lower-triangular ``C`` with
    ``bands = b̂`` bands minimising the RmsLoss of the prefix-sum workload over ``n`` steps.

    ``participation`` (default single) must have ``min_sep ≥ bands`` or allow one participation only: there
    ``sens = √k'`` is a constant (:class:`BandedMechanism`), so the RmsLoss objective is the squared RmsError
    ``‖A C⁻¹‖_F²/n`` (:func:`banded_rms_objective`); for ``b < b̂`` the sensitivity depends on ``C`` and this is not
    the paper's objective. ``loss = "rms"`` only (the paper's BandMF objective; MaxError is not smooth).

    scipy L-BFGS-B with the analytic gradient, at most ``steps`` iterations, stopping on ``gtol`` (projected
    gradient) or ``ftol`` (relative decrease); deterministic start ``init`` (an ``n × n`` banded strategy, default
    the column-normalised BandFHU :func:`banded_sqrt`). No Toeplitz structure is assumed. ``O(n³)`` per
    evaluation (module docstring): about 40 ms at ``n = 512`` and 0.5–0.7 s at ``n = 2000`` on one core; a converged
    optimisation at ``n = 512, bands = 102`` takes about 210 iterations (11 s).
    """
    n = check_int("n", n, 1)
    bands = _check_bands(bands, n)
    if loss not in _LOSSES:
        raise ValueError(f"loss must be one of {_LOSSES} (BandMF minimises the RmsLoss), got {loss!r}")
    steps = check_int("steps", steps, 0)
    gtol = check_in_interval("gtol", gtol, 0.0)
    ftol = check_in_interval("ftol", ftol, 0.0)
    participation = _check_participation(participation)
    if participation.participations(n) > 1 and participation.min_sep < bands:
        raise ValueError(
            f"participation must have min_sep >= bands = {bands} (or allow one participation): with {participation} "
            f"the sensitivity of a banded C is not the constant sqrt(k'), so the RmsError is not the objective"
        )
    rows, cols = _band_index(n, bands)
    if init is None:
        x0 = banded_sqrt(n, bands, normalise=True).C[rows, cols]
    else:
        start = init if isinstance(init, BandedMechanism) else BandedMechanism(init, bands=bands)
        if start.size != n or start.bands > bands:
            raise ValueError(f"init must be an n x n = {n} x {n} strategy with at most bands = {bands} bands, "
                             f"got {start.size} x {start.size} with {start.bands}")
        x0 = start.C[rows, cols]
        if np.any(x0[rows == cols] <= 0.0):
            raise ValueError("init must have a positive diagonal (the optimiser keeps the diagonal of C positive)")
    f0, _ = _objective(x0, n, rows, cols)
    diag = rows == cols
    bounds = [(1e-12, None) if d else (None, None) for d in diag]
    t0 = time.perf_counter()
    evaluations = 0

    def fun(x):
        nonlocal evaluations
        evaluations += 1
        return _objective(x, n, rows, cols)

    if steps == 0:
        x, iterations, converged, message = x0, 0, False, "no steps taken (steps = 0)"
    else:
        res = scipy.optimize.minimize(
            fun, x0, jac=True, method="L-BFGS-B", bounds=bounds,
            options={"maxiter": steps, "maxfun": 4 * steps + 20, "gtol": gtol, "ftol": ftol, "maxcor": 20},
        )
        x, iterations, converged = res.x, int(res.nit), bool(res.success)
        message = str(res.message)
        if res.fun > f0:  # pragma: no cover - L-BFGS-B never returns a point worse than its start
            x = x0
    seconds = time.perf_counter() - t0
    c = x / np.sqrt(np.bincount(cols, weights=x * x, minlength=n))[cols]
    C = np.zeros((n, n))
    C[rows, cols] = c
    mech = BandedMechanism(C, bands=bands, name=name or f"BandMF(n={n}, bands={bands})")
    energies = mech.row_energies(1.0, n)
    sens = mech.sensitivity(n, participation)
    return BandedResult(
        mechanism=mech, n=n, bands=bands, participation=participation, sensitivity=sens,
        rms_error=math.sqrt(float(np.mean(energies))), max_error=math.sqrt(float(np.max(energies))),
        initial_rms_loss=math.sqrt(f0) * sens, converged=converged, iterations=iterations,
        evaluations=evaluations, seconds=seconds, message=message,
    )
