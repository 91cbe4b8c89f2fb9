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
``b < b̂`` the columns overlap and :class:`BandedMechanism` falls back on the dense route of
:class:`~dptheory.mechanisms.DenseMechanism` (exact for two participations and for ``CᵀC ≥ 0``, refused
otherwise; see :meth:`~dptheory.mechanisms.Mechanism.sensitivity_report` for bounds there).

**Banded Toeplitz** (:class:`BandedToeplitz`, :func:`banded_sqrt_toeplitz`). When ``C_ij = c_{i−j}`` is Toeplitz as
well (BSR, the banded square root of Kalinin & Lampert 2024; seed 003's BandFHU baseline) no ``n × n`` matrix is
needed: it is a :class:`~dptheory.mechanisms.ToeplitzMechanism` with ``C(z) = Σ_{i<b̂} c_i z^i`` and ``β`` the
coefficients of ``1/C(z)``, defined over any horizon (``n = 10⁴`` and the streaming limit). Thm 2 gives
``sens² = Σ_{i<k'} ‖c_{0:min(b̂, n−ib)}‖²`` for ``b ≥ b̂`` in ``O(b̂ + k')``, ``γ∞ = ‖c‖₂``, and the noise is a
recursion with ``b̂ − 1`` buffers, exact over any horizon. ``β`` decays only when ``C(z)`` has no zero in the closed
unit disk (:meth:`BandedToeplitz.noise_is_stable`; true for BSR), which the stationary theory (``F∞``) needs.

**Optimisation** (:func:`optimize_banded`). With ``b ≥ b̂`` (or one participation) the sensitivity of a
column-normalised ``C`` is the constant ``√k'``, so minimising the RmsLoss is minimising the squared RmsError
``f(C) = ‖A C⁻¹‖_F² / n`` over the band. As in the paper the columns are normalised *inside* the objective: the
free variables are the band entries of ``X`` and ``C = X D⁻¹`` with ``D = diag(‖X_{:,j}‖)``. With the gradient
``G = ∂f/∂C`` on the band (below) and through the normalisation ``C_{:,j} = X_{:,j}/‖X_{:,j}‖``,

    ``∂f/∂X_{:,j} = (G_{:,j} − C_{:,j} ⟨C_{:,j}, G_{:,j}⟩) / ‖X_{:,j}‖``  (band entries of column ``j`` only).

**Workloads and cost** (:mod:`.banded_inverse`). For a workload ``W`` with a banded inverse (prefix sums,
momentum, learning-rate schedules; :class:`~dptheory.mechanisms.Workload`, ``workload=``) the objective is
``‖W C⁻¹‖_F² = ‖M⁻¹‖_F²`` with the banded ``M = C W⁻¹`` (bandwidth ``b̂`` for the prefix sums, ``b̂ + 1`` with
momentum); :func:`~dptheory.mechanisms.banded_inverse.inverse_frobenius_sq` evaluates it and ``∂/∂M`` by block
selected inversion in ``O(n b̂²)`` time and ``O(n b̂)`` memory (blocks of ``max(b̂, 64)``), and
``∂/∂C = (∂/∂M) W⁻ᵀ`` on the band. Measured on this project's 2-core machine (one BLAS thread, other jobs
running): 0.10 s per evaluation at ``n = 2052, b̂ = 342`` (the dense ``O(n³)`` route this replaced took 0.5–1.5 s).
Seed 003's BandMF of Table 3 / C19 (``n = 2052``, ``b̂ = 342``, ``k = 6``, ``b = 342``) converges (L-BFGS-B's
relative-reduction test, 471 iterations, 96 s on the idle machine's one core) to RmsLoss 8.595157 (paper 8.60,
jax_privacy 8.596) and MaxLoss 10.21 (paper 10.21; not optimised); 100 iterations (22 s) are within 1e-5 of it.
Two BLAS threads are slower here (0.32 s against 0.13 s per evaluation, idle). The ``n × n`` strategy is formed
only for the result.

The optimiser is scipy's L-BFGS-B, started deterministically from the column-normalised BandFHU strategy
(:func:`banded_sqrt`), over free variables: the objective is infinite where a diagonal entry of ``X`` vanishes
(``C`` singular), so no line search accepts a step onto it, and a diagonal that changed sign would still be an
invertible strategy of the same sensitivity. No bound and :data:`_MEMORY` correction pairs, because L-BFGS-B's own
work per iteration grows with both: at ``n = 2052``, 342 bands (586 698 variables) it took 0.18 s per iteration with
the former bound on the diagonal and 20 pairs, 0.067 s with neither, against 0.13 s per objective evaluation.
No Toeplitz structure is assumed. Every loss reported here is **unsquared** (seed 003 Eq. 10; errata 003 C11).
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.optimize
from array_api_compat import array_namespace

from .._validation import (check_bool, check_in_interval, check_int, check_name, check_real_array, check_real_values,
                           check_shape, check_size)
from .banded_inverse import block_size, inverse_frobenius_sq
from .base import DenseMechanism, Participation, _check_dense_n, _check_participation
from .spectral import is_minimum_phase as _no_zero_in_closed_disk
from .spectral import series_inverse
from .toeplitz import (_COEFF_BYTES, _TAIL_RTOL, ToeplitzMechanism, _check_horizon, _check_length, _check_method,
                       _check_omega)
from .losses import prefix_loss
from .workloads import PREFIX_SUMS, Workload, _check_workload

__all__ = [
    "BandedMechanism", "BandedResult", "optimize_banded", "banded_sqrt", "banded_rms_objective", "BandedToeplitz",
    "banded_sqrt_toeplitz",
]

#: Column norms within this relative distance of 1 count as unit norm (Thm 2's ``sens = √k'`` applies).
_UNIT_RTOL = 1e-12
#: L-BFGS-B's correction pairs in :func:`optimize_banded` (scipy's default; module docstring)
_MEMORY = 10
_LOSSES = ("rms",)
#: ``n × n`` float matrices :func:`optimize_banded`'s result holds (the strategy and the loss route's copies)
_RESULT_MATRICES = 3
#: Bytes per ``n·s`` (``s`` the block size) of one objective evaluation: the blocks ``D⁻¹``, ``F``, ``S F`` and
#: temporaries, and the cached layout's two index arrays
_OBJECTIVE_BYTES = 8.0 * 12


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
    r"""An explicit ``n × n`` lower-triangular strategy ``C`` with ``bands = b̂`` bands.

    ``C_ij = 0`` for ``i − j ≥ b̂``: BandMF (Choquette-Choo et al. 2023) or any banded factorisation
    (seed 003 §2.4, Table 1).

    Everything is :class:`~dptheory.mechanisms.DenseMechanism`'s except the sensitivity under ``b``-min-separation
    with ``b ≥ b̂`` (or a single participation): then distinct participations meet orthogonal columns
    (Choquette-Choo et al. 2023, Thm 2; seed 003 §2.4) and

        ``sens_Π(C)² = max_{π∈Π} Σ_{i∈π} ‖C_{:,i}‖²``,  ``= k' = min(k, ⌈n/b⌉)`` for unit columns,

    exactly, for any signs of ``C`` (a dynamic programme over the column norms of the leading ``n × n`` block; the
    truncated block of a column-normalised ``C`` has shorter last columns). For ``b < b̂`` the dense pattern
    enumeration of the base class applies (exact for two participations and where ``CᵀC ≥ 0`` on the patterns,
    refused otherwise).

    Parameters
    ----------
    strategy : array_like
        The strategy ``C``: square, finite, lower-triangular, with a nonzero diagonal and at most ``bands`` bands.
    bands : int
        The number of bands ``b̂``, in ``[1, n]`` (keyword-only).
    name : str, optional
        The mechanism's name; by default ``BandedMechanism(n=…, bands=…)``.

    Raises
    ------
    ValueError
        If ``strategy`` is not such a matrix or has a nonzero entry below its ``bands`` bands.
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
        """The column norms ``‖C_{:,j}‖₂`` of the leading ``n × n`` block (all of ``C`` by default).

        Parameters
        ----------
        n : int or None, optional
            The number of steps, at most ``size``; ``None`` (the default) is all of ``C``.

        Returns
        -------
        numpy.ndarray
            The ``n`` column norms.
        """
        n = self.size if n is None else self._check_n(n)
        return np.sqrt(np.einsum("ij,ij->j", self.C[:n, :n], self.C[:n, :n]))

    @property
    def column_normalised(self) -> bool:
        """Whether every column of ``C`` has unit norm (to ``1e-12`` relative): BandMF's normalisation."""
        return bool(np.all(np.abs(self.column_norms() - 1.0) <= _UNIT_RTOL))

    def _separated(self, n: int, participation: Participation) -> bool:
        return participation.participations(n) == 1 or participation.min_sep >= self.bands

    def strategy_bands(self, n: int) -> int:
        """The bands of the leading ``n × n`` block: ``min(bands, n)``.

        Parameters
        ----------
        n : int
            The number of steps, at most ``size``.

        Returns
        -------
        int
            ``min(b̂, n)``.
        """
        return min(self.bands, self._check_n(n))

    def sensitivity(self, n: int | None = None, participation: Participation | None = None) -> float:
        r"""The sensitivity ``sens_Π(C)`` over ``n`` steps, exact for ``b ≥ b̂`` from the column norms.

        ``√k'`` exactly for unit columns and ``b ≥ b̂``
        (Choquette-Choo et al. 2023, Thm 2; seed 003 §2.4), ``(max_π Σ_{i∈π} ‖C_{:,i}‖²)^{1/2}`` for other column norms with ``b ≥ b̂``,
        and the dense enumeration (:func:`~dptheory.mechanisms.dense_sensitivity`) for ``b < b̂``.

        Parameters
        ----------
        n : int or None, optional
            The number of steps, at most ``size``; ``None`` (the default) is refused: no streaming limit.
        participation : Participation or None, optional
            The participation schema; ``None`` (the default) is single participation.

        Returns
        -------
        float
            ``sens_Π(C)``.

        Raises
        ------
        ValueError
            If ``n`` is ``None``, or ``b < b̂`` and the dense enumeration has no exact route.
        """
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
        """Which theorem or route :meth:`sensitivity` uses for ``n`` steps under ``participation``.

        Parameters
        ----------
        n : int
            The number of steps.
        participation : Participation
            The participation schema.

        Returns
        -------
        str
            A description of the route, naming its theorem.
        """
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
        """A stable identifier: the number of bands and the SHA-256 of the strategy's bytes.

        Returns
        -------
        str
            ``BandedMechanism:bands=<b̂>:<hex digest>``.
        """
        digest = hashlib.sha256(np.ascontiguousarray(self.C).tobytes()).hexdigest()
        return f"BandedMechanism:bands={self.bands}:{digest}"


def _sqrt_coeffs(m: int) -> np.ndarray:
    """``c_j = C(2j, j)/4^j`` for ``j < m``: the coefficients of ``(1 − x)^{−1/2}`` (the square-root factorisation)."""
    t = np.arange(1, m, dtype=float)
    return np.concatenate([[1.0], np.cumprod((t - 0.5) / t)])[:m]


def banded_sqrt(n: int, bands: int, *, normalise: bool = False) -> BandedMechanism:
    r"""BandFHU (Kalinin & Lampert 2024, as seed 003 §2.4 / Fig. 6 uses it) as an ``n × n`` banded strategy.

    The banded Toeplitz strategy with the
    first ``b̂ = bands`` coefficients ``c_j = C(2j, j)/4^j`` of the square-root factorisation ``(1 − x)^{−1/2}``.

    As the digest of seed 003 (C36) reads the paper, BandFHU is **unnormalised** (``normalise=False``, the default):
    column ``j`` has norm ``(Σ_{i < min(b̂, n − j)} c_i²)^{1/2}``, non-increasing in ``j``, and its sensitivity for
    ``b ≥ b̂`` comes from the column norms (:meth:`BandedMechanism.sensitivity`). ``normalise=True`` divides every
    column by its norm (the column-normalised start of :func:`optimize_banded`).

    Parameters
    ----------
    n : int
        The number of steps.
    bands : int
        The number of bands ``b̂``, in ``[1, n]``.
    normalise : bool, default False
        Divide every column by its norm (keyword-only).

    Returns
    -------
    BandedMechanism
        The ``n × n`` strategy.
    """
    n = _check_dense_n(check_int("n", n, 1), 3)
    bands, normalise = _check_bands(bands, n), check_bool("normalise", normalise)
    c = _sqrt_coeffs(bands)
    rows, cols = _band_index(n, bands)
    C = np.zeros((n, n))
    C[rows, cols] = c[rows - cols]
    if normalise:
        C /= np.sqrt(np.einsum("ij,ij->j", C, C))
    kind = "normalised" if normalise else "unnormalised"
    return BandedMechanism(C, bands=bands, name=f"banded_sqrt(n={n}, bands={bands}, {kind})")


# -- banded Toeplitz strategies (streaming, any horizon) -------------------------------------------------------------

_MAX_NOISE_SUPPORT = 1 << 24  # longest time-domain sum of the noising coefficients tried by the doubling search


def _check_coeffs(coeffs) -> np.ndarray:
    """The first column ``c = (c_0, …, c_{b̂−1})`` of a banded Toeplitz strategy: finite reals, 1-D, non-empty,
    ``c_0 ≠ 0``; trailing zeros are dropped (they add no band)."""
    c = check_real_array("coeffs", coeffs)
    if np.ndim(coeffs) != 1:
        raise ValueError(f"coeffs must be a 1-D sequence (the first column c_0, ..., c_(bands-1) of C), got {coeffs!r:.80}")
    if c[0] == 0.0:
        raise ValueError("coeffs[0] must be nonzero (valid range: c_0 != 0): with c_0 = 0 the strategy C is singular")
    return np.trim_zeros(c, "b")


def separated_column_counts(bands: int, n: int, participation: Participation) -> np.ndarray:
    r"""``m_j = #{i < k' : j < min(b̂, n − ib)}``, so that ``sens_Π(C)² = Σ_j m_j c_j²`` for a banded Toeplitz ``C``.

    For ``min_sep = b ≥ b̂`` or ``k' = 1`` (Choquette-Choo et al. 2023, Thm 2; seed 003 §2.4) participations meet
    orthogonal columns, so ``sens² = max_π Σ_{i∈π} ‖C_{:,i}‖²``. Column ``j`` of the ``n × n`` block is ``c``
    shifted down by ``j`` and truncated, of norm² ``‖c_{0:min(b̂, n−j)}‖²``, non-increasing in ``j``; the ``i``-th
    step of any pattern is at least ``ib``, so the earliest ``π* = (0, b, …, (k'−1)b)`` attains the maximum and
    ``sens² = Σ_{i<k'} ‖c_{0:min(b̂, n − ib)}‖²``: coefficient ``j`` counts once per column of ``π*`` it reaches.
    ``O(b̂ + k')``."""
    earliest = participation.earliest(n)
    # past b̂ + (k' − 1)b steps every column of π* is whole: n → that length changes no term (and stays in int64)
    n = min(n, bands + (earliest.size - 1) * participation.min_sep)
    lengths = np.minimum(bands, n - earliest)  # the reach of each column of π*
    return np.bincount(lengths, minlength=bands + 1)[::-1].cumsum()[::-1][1:].astype(float)


def _separated_sensitivity_sq(c: np.ndarray, n: int, participation: Participation) -> float:
    """``sens_Π(C)² = Σ_j m_j c_j²`` (:func:`separated_column_counts`)."""
    return float(np.dot(separated_column_counts(c.size, n, participation), c * c))


def _tail_is_negligible(beta: np.ndarray) -> bool:
    """Whether the second half of ``beta`` carries ``≤ _TAIL_RTOL`` of the first half's energy (false if not finite)."""
    half = beta.size // 2
    head, tail = np.dot(beta[:half], beta[:half]), np.dot(beta[half:], beta[half:])
    return bool(np.isfinite(head) and np.isfinite(tail) and tail <= _TAIL_RTOL * head)


class _BandedNoiseStream:
    r"""``x = C⁻¹ z`` for the banded Toeplitz ``C`` with first column ``c``, along axis 0, state carried between blocks:
    ``x_t = (z_t − Σ_{i=1}^{b̂−1} c_i x_{t−i}) / c_0`` (forward substitution), with the last ``b̂ − 1`` outputs as
    buffers — exact over any horizon, memory ``O(b̂·m)`` and work ``O(b̂·m)`` per step for steps of ``m`` entries (the
    ``b̂``-vector buffer of seed 003 §2.4, Table 1). On the array namespace of ``like`` (NumPy, CuPy,
    array-api-strict), like :class:`~dptheory.mechanisms.streaming.BLTStream`."""

    def __init__(self, c: np.ndarray, shape: tuple[int, ...], like):
        self.xp = array_namespace(like)
        self.shape = check_shape("shape", shape)
        self._c0 = float(c[0])
        self._rest = self.xp.reshape(self.xp.asarray(np.asarray(c[1:], dtype=float)), (c.size - 1,) + (1,) * len(self.shape))
        self.past = self.xp.zeros((c.size - 1, *self.shape), dtype=self.xp.float64)  # x_{t−1}, …, x_{t−b̂+1}

    def __call__(self, z):
        """The noise for the block ``z`` of shape ``(K, *shape)``."""
        if tuple(z.shape[1:]) != self.shape:
            raise ValueError(f"z must have shape (K, *{self.shape}), got {tuple(z.shape)}")
        xp = self.xp
        if self.past.shape[0] == 0:
            return z / self._c0
        past, out = self.past, []
        for t in range(z.shape[0]):
            x = (z[t, ...] - xp.sum(self._rest * past, axis=0)) / self._c0
            past = xp.concat([xp.expand_dims(x, axis=0), past[:-1, ...]], axis=0)
            out.append(x)
        self.past = past
        return xp.stack(out)


class BandedToeplitz(ToeplitzMechanism):
    r"""The banded lower-triangular **Toeplitz** strategy ``C_{ij} = c_{i−j}`` for ``0 ≤ i − j < b̂``.

    Its first column is
    ``c = (c_0, …, c_{b̂−1})``, ``c_0 ≠ 0`` and ``bands = b̂`` (seed 003 §2.4, Table 1; BSR, Kalinin & Lampert 2024):
    a :class:`~dptheory.mechanisms.ToeplitzMechanism` with ``C(z) = Σ_{i<b̂} c_i z^i`` and noising generating function
    ``B(z) = 1/C(z)`` (seed 004's ``β``), defined over any horizon without an ``n × n`` matrix.

    * ``strategy_coeffs`` — ``c`` padded with zeros; ``noising_coeffs`` — the coefficients of ``1/C(z)``,
      ``β_t = −(Σ_{i=1}^{min(t, b̂−1)} c_i β_{t−i})/c_0`` (:func:`~dptheory.mechanisms.spectral.series_inverse`,
      ``O(n·b̂)``); ``dtft`` — ``B(ω) = 1/C(e^{−iω})``.
    * ``γ∞² = ‖c‖₂²`` exactly (seed 004 eq. 5: ``γ_n = ‖c_{0:n}‖₂`` reaches it at ``n = b̂``), so
      :meth:`is_minimum_phase` (``c ∈ ℓ²``, the package's meaning) always holds. The noise ``β`` decays only if
      ``C(z)`` has no zero in the closed unit disk, :meth:`noise_is_stable`; the stationary theory (``F∞`` and
      :func:`~dptheory.simulate` at ``horizon=None``) needs it and refuses otherwise (:meth:`_support`).
    * Sensitivity: for ``min_sep = b ≥ b̂`` the participations meet orthogonal columns
      (Choquette-Choo et al. 2023, Thm 2; seed 003 §2.4) and ``sens² = Σ_{i<k'} ‖c_{0:min(b̂, n−ib)}‖²`` in ``O(b̂ + k')``
      (:func:`_separated_sensitivity_sq`); for ``b < b̂`` the Toeplitz routes (seed 003 Thm 3.1 when ``c ≥ 0`` is
      non-increasing, else the dense enumeration).
    * Noise stream: the recursion ``x_t = (z_t − Σ_{i≥1} c_i x_{t−i})/c_0`` with ``b̂ − 1`` buffers, exact over any
      horizon (``exact_stream``).

    Parameters
    ----------
    coeffs : array_like
        The first column ``c = (c_0, …, c_{b̂−1})``: finite reals, 1-D, non-empty, ``c_0 ≠ 0``
        (trailing zeros are dropped: they add no band).
    name : str, optional
        The mechanism's name; by default ``BandedToeplitz(bands=…)``.

    Raises
    ------
    ValueError
        If ``coeffs`` is not such a sequence.
    """

    exact_stream = True

    def __init__(self, coeffs, *, name: str | None = None):
        c = _check_coeffs(coeffs)
        c.setflags(write=False)
        self.coeffs = c
        self.bands = int(c.size)
        self.name = check_name("name", name) or f"BandedToeplitz(bands={self.bands})"
        self._stable: bool | None = None
        self._noise_support: int | None = None

    # -- Toeplitz primitives ------------------------------------------------------------------------------------
    def strategy_coeffs(self, n: int) -> np.ndarray:
        """The strategy coefficients ``c_0, …, c_{n−1}``: the band, then zeros.

        Parameters
        ----------
        n : int
            The number of coefficients.

        Returns
        -------
        numpy.ndarray
            Shape ``(n,)``.
        """
        n = _check_length(n)
        out = np.zeros(n)
        out[: min(n, self.bands)] = self.coeffs[:n]
        return out

    def strategy_bands(self, n: int) -> int:
        """The bands over ``n`` steps: ``min(bands, n)``, without building the coefficients.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        int
            ``min(b̂, n)``.
        """
        return min(self.bands, _check_length(n))

    def noising_coeffs(self, n: int) -> np.ndarray:
        r"""The noising coefficients ``β_0, …, β_{n−1}``, the coefficients of ``1/C(z)``.

        By forward substitution in ``O(n·b̂)``
        (:func:`~dptheory.mechanisms.spectral.series_inverse`); they overflow to ``±inf``/``nan`` when ``C`` has a zero
        inside the disk and ``n`` is long (:meth:`noise_is_stable`).

        Parameters
        ----------
        n : int
            The number of coefficients.

        Returns
        -------
        numpy.ndarray
            Shape ``(n,)``.
        """
        return series_inverse(self.coeffs, _check_length(n))

    def dtft(self, omega) -> np.ndarray:
        r"""The DTFT ``B(ω) = 1/C(e^{−iω})`` (``inf`` at a zero of ``C`` on the circle).

        Parameters
        ----------
        omega : float or array_like
            The frequencies ``ω``.

        Returns
        -------
        numpy.ndarray
            ``B(ω)``, complex, of ``omega``'s shape.
        """
        z = np.exp(-1j * _check_omega(omega))
        with np.errstate(divide="ignore", invalid="ignore"):
            return 1.0 / np.polynomial.polynomial.polyval(z, self.coeffs)

    def is_minimum_phase(self) -> bool:
        r"""Whether ``B = 1/C`` has no zero in the closed unit disk: always, ``c`` being finite.

        That is ``B⁻¹e_0 = c ∈ ℓ²`` and ``γ∞ < ∞`` (errata 004 §10.17). Whether the noise ``β`` is in ``ℓ²``
        is :meth:`noise_is_stable`.

        Returns
        -------
        bool
            ``True``.
        """
        return True

    def noise_is_stable(self) -> bool:
        r"""Whether every zero of ``C(z) = Σ_i c_i z^i`` lies outside the closed unit disk.

        That is, the poles of
        ``B = 1/C`` do, so that ``β`` decays geometrically (``β ∈ ℓ¹``): what ``F∞`` and the stationary simulation
        need. Decided by :func:`~dptheory.mechanisms.spectral.is_minimum_phase` on ``c`` (companion-matrix roots,
        ``numpy.roots``, each compared with the circle against its own rounding error; the argument principle above
        256 taps). For ``c`` positive and strictly decreasing (the banded square root) it holds by Eneström–Kakeya.

        Returns
        -------
        bool
            Whether ``β`` decays.
        """
        if self._stable is None:
            self._stable = bool(_no_zero_in_closed_disk(self.coeffs))
        return self._stable

    def _support(self) -> int:
        r"""The number of noising coefficients after which the rest carries ``< _TAIL_RTOL`` of the energy: a doubling
        search from ``max(1024, 4b̂)`` that stops when the second half of ``β_{0:n}`` carries ``≤ 1e-17`` of the first's
        energy (as :meth:`ToeplitzMechanism._inverse_support`). ``ValueError`` when ``β`` does not decay
        (:meth:`noise_is_stable` false), ``RuntimeError`` when it decays too slowly for ``2²⁴`` terms."""
        if self._noise_support is None:
            if not self.noise_is_stable():
                raise ValueError(
                    f"{self.name} has a strategy polynomial C(z) with a zero in the closed unit disk: its noising "
                    f"coefficients beta = 1/C do not decay (noise_is_stable() is False), so it has no stationary noise "
                    f"(F_inf or simulate at horizon=None); use a finite horizon"
                )
            n = max(1024, 4 * self.bands)
            while not _tail_is_negligible(self.noising_coeffs(n)):
                n *= 2
                if n > _MAX_NOISE_SUPPORT:
                    raise RuntimeError(f"the noising coefficients of {self.name} decay too slowly for a time-domain sum")
            self._noise_support = n
        return self._noise_support

    def _inverse_support(self) -> int:
        """The strategy coefficients vanish past ``b̂``: every time-domain sum over ``c`` is exact with ``b̂`` terms."""
        return self.bands

    def _gamma_inf_sq_closed_form(self) -> float:
        r"""``γ∞² = ‖c‖₂² = Σ_{i<b̂} c_i²`` (seed 004 eq. 5, reached at ``n = b̂``)."""
        return float(np.dot(self.coeffs, self.coeffs))

    def cache_key(self) -> str:
        """A stable identifier: the SHA-256 of the band's bytes.

        Returns
        -------
        str
            ``BandedToeplitz:<hex digest>``.
        """
        return f"BandedToeplitz:{hashlib.sha256(np.ascontiguousarray(self.coeffs).tobytes()).hexdigest()}"

    # -- sensitivity ----------------------------------------------------------------------------------------------
    def _limit_horizon(self, participation: Participation) -> int:
        r"""A horizon at which ``sens_Π`` equals its streaming limit: ``b̂ + (k − 1)·max(b, b̂)``. Participations more than
        ``b̂`` apart fall in groups on orthogonal columns whose contributions add, each unchanged by a shift (Toeplitz),
        so closing every such gap to ``max(b, b̂)`` keeps the value: some worst pattern spans ``≤ (k − 1)·max(b, b̂)``
        steps, and ``b̂`` more steps hold its columns whole."""
        k, b = participation.max_participations, participation.min_sep
        return self.bands + (k - 1) * max(b, self.bands)

    def sensitivity(self, n: int | None = None, participation: Participation | None = None, *, method: str = "auto") -> float:
        r"""The sensitivity ``sens_Π(C)`` over ``n`` steps (``n = None``: the streaming limit).

        ``sens_Π(C)`` of seed 003 eq. 6.
        For ``min_sep = b ≥ b̂`` (or one participation) ``sens² = Σ_{i<k'} ‖c_{0:min(b̂, n−ib)}‖²`` exactly, whatever the
        signs of ``c`` (Choquette-Choo et al. 2023, Thm 2; :func:`_separated_sensitivity_sq`), in ``O(b̂ + k')``; its
        streaming limit is ``√k·‖c‖₂``. For ``b < b̂``, :meth:`ToeplitzMechanism.sensitivity` (seed 003 Thm 3.1 for
        ``c ≥ 0`` non-increasing, else the dense enumeration), with the streaming limit taken at the horizon
        :meth:`_limit_horizon`, where it is exact. ``method`` is the route of ``γ∞`` (single participation, ``n = None``).

        Parameters
        ----------
        n : int or None, optional
            The number of steps; ``None`` (the default) is the streaming limit ``n → ∞``.
        participation : Participation or None, optional
            The participation schema; ``None`` (the default) is single participation.
        method : {"auto", "closed_form", "time", "frequency"}, default "auto"
            The route of ``γ∞`` and of :meth:`ToeplitzMechanism.sensitivity` where it is used (keyword-only).

        Returns
        -------
        float
            ``sens_Π(C)``.
        """
        participation, method = _check_participation(participation), _check_method(method)
        if n is None:
            if participation.single:
                return super().sensitivity(None, participation, method=method)
            n = self._limit_horizon(participation)
        n = _check_horizon(n)
        if participation.participations(n) > 1 and participation.min_sep < self.bands:
            return super().sensitivity(n, participation, method=method)
        return math.sqrt(_separated_sensitivity_sq(self.coeffs, n, participation))

    def sensitivity_route(self, n: int, participation: Participation) -> str:
        """Which theorem or route :meth:`sensitivity` uses for ``n`` steps under ``participation`` (for reports).

        Parameters
        ----------
        n : int
            The number of steps.
        participation : Participation
            The participation schema.

        Returns
        -------
        str
            A description of the route, naming its theorem.
        """
        participation = _check_participation(participation)
        if participation.participations(n) > 1 and participation.min_sep >= self.bands:
            return (f"min_sep b = {participation.min_sep} >= bands = {self.bands}: participations meet orthogonal columns, "
                    f"sens^2 = sum of the squared column norms of pi* = (0, b, ..., (k'-1)b), the column norms being "
                    f"non-increasing (Choquette-Choo et al. 2023, Thm 2; seed 003 §2.4)")
        return super().sensitivity_route(n, participation)

    # -- streaming --------------------------------------------------------------------------------------------------
    def noise_stream(self, shape, like, steps: int | None = None):
        r"""The noise stream ``N z = C⁻¹ z`` by a recursion with ``b̂ − 1`` buffers.

        The recursion is ``x_t = (z_t − Σ_{i=1}^{b̂−1} c_i x_{t−i})/c_0`` with ``b̂ − 1`` buffers of one
        step's shape, on the array namespace of ``like``: exact over any horizon (``steps`` is accepted for the common
        signature and not needed).

        Parameters
        ----------
        shape : tuple of int
            The shape of one step's noise.
        like : array
            An array whose namespace (NumPy, CuPy, …) the stream computes on.
        steps : int, optional
            Checked to be a number of steps if given, else unused.

        Returns
        -------
        callable
            A callable turning blocks of white noise ``z`` of shape ``(K, *shape)`` into ``N z``.
        """
        if steps is not None:
            check_int("steps", steps, 1)
        return _BandedNoiseStream(self.coeffs, shape, like)


def banded_sqrt_toeplitz(bands: int) -> BandedToeplitz:
    r"""The banded square root (BSR), seed 003's banded-Toeplitz baseline, as a :class:`BandedToeplitz`.

    The banded square root (BSR; Kalinin & Lampert 2024, "Banded Square Root Matrix Factorization for
    Differentially Private Model Training"), seed 003's banded-Toeplitz baseline (BandFHU, §2.4 / Fig. 6): the first
    ``b̂ = bands`` coefficients ``c_j = C(2j, j)/4^j`` of ``(1 − x)^{−1/2}``, the square-root factorisation of the
    prefix-sum workload (Fichtenberger et al. 2023). With ``bands ≥ n`` it is that factorisation over ``n`` steps
    (Optimal-CC's strategy); :func:`banded_sqrt` is the same strategy as an ``n × n`` :class:`BandedMechanism`.
    ``c`` is positive and strictly decreasing, so :meth:`BandedToeplitz.noise_is_stable` holds for every ``bands``
    (Eneström–Kakeya) and seed 003 Thm 3.1 applies for ``min_sep < bands``.

    Parameters
    ----------
    bands : int
        The number of bands ``b̂``, at least 1.

    Returns
    -------
    BandedToeplitz
        The strategy.
    """
    bands = check_int("bands", bands, 1, why="a banded strategy has at least one band")
    check_size("bands", bands, lambda m: _COEFF_BYTES * m, what="the band coefficients")
    return BandedToeplitz(_sqrt_coeffs(bands), name=f"banded_sqrt_toeplitz(bands={bands})")


def banded_rms_objective(x: np.ndarray, n: int, bands: int, *, workload: Workload | None = None) -> tuple[float, np.ndarray]:
    r"""BandMF's objective ``f = ‖W C⁻¹‖_F² / n`` and its gradient ``∂f/∂x`` (``W = A`` by default).

    ``f`` is the squared RmsError of seed 003 Eq. 9, for the column-normalised
    banded ``C = X D⁻¹`` whose band entries ``x`` are listed column by column (``i = j, …, min(j + b̂, n) − 1``).

    Module docstring for the gradient; ``O(n b̂²)`` BLAS-3 time, ``O(n b̂)`` memory (:mod:`.banded_inverse`). A
    singular ``C`` (a zero column or diagonal) gives ``f = inf``.

    Parameters
    ----------
    x : array_like
        The band entries of ``X``, column by column.
    n : int
        The number of steps.
    bands : int
        The number of bands ``b̂``.
    workload : Workload or None, optional
        The workload ``W`` (a banded inverse: :class:`~dptheory.mechanisms.Workload`); ``None`` is the prefix sums.

    Returns
    -------
    f : float
        ``‖W C⁻¹‖_F² / n`` (``inf`` for a singular ``C``).
    grad : numpy.ndarray
        ``∂f/∂x``, of ``x``'s shape.

    Raises
    ------
    ValueError
        If ``n`` or ``bands`` is out of range, the blocks would not fit the size budget, ``workload`` is not a
        :class:`~dptheory.mechanisms.Workload` (or its schedule is shorter than ``n``), or ``x`` is not a finite 1-D
        array of the band's length.
    """
    n = check_int("n", n, 1)
    bands = _check_bands(bands, n)
    workload = _check_objective_size(n, bands, workload)
    rows, cols = _band_index(n, bands)
    x = check_real_values("x", x, ndim=1)
    if x.size != rows.size:
        raise ValueError(f"x must hold the {rows.size} band entries of an n x n = {n} x {n} strategy with {bands} "
                         f"bands (column by column), got {x.size}")
    return _objective(x, n, rows, cols, workload)


#: Largest ``n`` at which :func:`optimize_banded` runs its ``n × n`` BLAS calls on one thread: a threaded BLAS on
#: matrices this small gains little idle and loses badly on a busy machine (n = 256, 256 bands, 2 cores with other
#: work running: 21.6 s on OpenBLAS's 2 threads against 2.9 s on one, the same 205 iterations).
_ONE_THREAD_LIMIT = 1024


def _one_blas_thread(n: int):
    """A context in which BLAS runs on one thread where ``n ≤ _ONE_THREAD_LIMIT`` (threadpoolctl), else no change."""
    import contextlib

    if n > _ONE_THREAD_LIMIT:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _objective(x: np.ndarray, n: int, rows: np.ndarray, cols: np.ndarray,
               workload: Workload = PREFIX_SUMS) -> tuple[float, np.ndarray]:
    norms = np.sqrt(np.bincount(cols, weights=x * x, minlength=n))
    diag = x[rows == cols]
    if np.any(norms == 0.0) or np.any(diag == 0.0):
        return math.inf, np.zeros_like(x)
    c = x / norms[cols]
    strategy = np.zeros((int(np.max(rows - cols)) + 1, n))  # C in diagonal storage: strategy[o, j] = C[j + o, j]
    strategy[rows - cols, cols] = c
    inverse = _workload_inverse(workload, n)
    f, grad_m = inverse_frobenius_sq(_times_banded(strategy, inverse))
    g = _times_banded_adjoint(grad_m, inverse, strategy.shape[0])[rows - cols, cols]
    proj = np.bincount(cols, weights=c * g, minlength=n)
    grad = (g - c * proj[cols]) / norms[cols]
    return f / n, grad / n


def _check_objective_size(n: int, bands: int, workload) -> Workload:
    """``workload`` (``None``: prefix sums) after the size check of the objective's ``O(n·s)`` memory."""
    check_size("n", n, lambda m: _OBJECTIVE_BYTES * m * block_size(m, bands + 1),
               what=f"the blocks of BandMF's objective with {bands} bands")
    return _check_workload(workload, n)


def _workload_inverse(workload: Workload, n: int) -> np.ndarray:
    """``W⁻¹`` in diagonal storage, without its trailing all-zero diagonals (the prefix sums' inverse is bidiagonal)."""
    inverse = workload.inverse_bands(n)
    nonzero = np.flatnonzero(np.any(inverse != 0.0, axis=1))
    return inverse[: nonzero[-1] + 1]


def _times_banded(strategy: np.ndarray, inverse: np.ndarray) -> np.ndarray:
    r"""``M = C W⁻¹`` in diagonal storage: ``M[l + o, l] = Σ_q C[l + o, l + q] (W⁻¹)[l + q, l]``."""
    b, n = strategy.shape
    product = np.zeros((b + inverse.shape[0] - 1, n))
    for q in range(inverse.shape[0]):
        product[q : q + b, : n - q] += strategy[:, q:] * inverse[q, : n - q]
    return product


def _times_banded_adjoint(grad: np.ndarray, inverse: np.ndarray, b: int) -> np.ndarray:
    """The adjoint of :func:`_times_banded` in ``C``: ``∂/∂C = (∂/∂M) W⁻ᵀ`` on ``C``'s band."""
    n = grad.shape[1]
    out = np.zeros((b, n))
    for q in range(inverse.shape[0]):
        out[:, q:] += grad[q : q + b, : n - q] * inverse[q, : n - q]
    return out


@dataclass(frozen=True)
class BandedResult:
    r"""What :func:`optimize_banded` found: the BandMF mechanism and its losses.

    The column-normalised BandMF ``mechanism`` and its losses over ``n`` steps
    under ``participation`` (``min_sep ≥ bands`` or one participation, so ``sens = √k'`` exactly), all unsquared
    (seed 003 Eqs. 9–10); ``initial_rms_loss`` is the same loss at the BandFHU start. ``converged`` is L-BFGS-B's
    own convergence test (``message`` says which); ``iterations`` its iterations, ``evaluations`` the
    objective-and-gradient evaluations, ``seconds`` the wall-clock time.

    Attributes
    ----------
    mechanism : BandedMechanism
        The column-normalised BandMF strategy.
    n : int
        The number of steps.
    bands : int
        The number of bands ``b̂``.
    participation : Participation
        The participation schema.
    workload : Workload
        The workload ``W`` of the decoder ``B = W C⁻¹`` (prefix sums by default).
    sensitivity : float
        ``sens_Π(C) = √k'``.
    rms_error : float
        ``RmsError`` (Eq. 9), unsquared.
    max_error : float
        ``MaxError`` (Eq. 9), unsquared.
    initial_rms_loss : float
        The RmsLoss at the BandFHU start.
    converged : bool
        L-BFGS-B's own convergence test.
    iterations : int
        L-BFGS-B's iterations.
    evaluations : int
        The objective-and-gradient evaluations.
    seconds : float
        The wall-clock time.
    message : str
        L-BFGS-B's message (which test stopped it).
    """

    mechanism: BandedMechanism
    n: int
    bands: int
    participation: Participation
    workload: Workload
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
        """``RmsLoss = RmsError · sens_Π``, unsquared."""
        return self.rms_error * self.sensitivity

    @property
    def max_loss(self) -> float:
        """``MaxLoss = MaxError · sens_Π``, unsquared."""
        return self.max_error * self.sensitivity

    def __repr__(self) -> str:
        state = "converged" if self.converged else "NOT converged"
        return (
            f"BandedResult({self.mechanism.name}, n={self.n}, bands={self.bands}, {self.participation}"
            f"{'' if self.workload.is_prefix_sums else ', workload=' + self.workload.name}: RmsLoss={self.rms_loss:.6g}, "
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
    workload: Workload | None = None,
) -> BandedResult:
    r"""BandMF (Choquette-Choo et al. 2023; seed 003 §2.4, Table 1): the optimal column-normalised banded ``C``.

    The column-normalised lower-triangular ``C`` with
    ``bands = b̂`` bands minimising the RmsLoss of the prefix-sum workload over ``n`` steps.

    ``participation`` (default single) must have ``min_sep ≥ bands`` or allow one participation only: there
    ``sens = √k'`` is a constant (:class:`BandedMechanism`), so the RmsLoss objective is the squared RmsError
    ``‖A C⁻¹‖_F²/n`` (:func:`banded_rms_objective`); for ``b < b̂`` the sensitivity depends on ``C`` and this is not
    the paper's objective. ``loss = "rms"`` only (the paper's BandMF objective; MaxError is not smooth).

    scipy L-BFGS-B with the analytic gradient, at most ``steps`` iterations, stopping on ``gtol`` (projected
    gradient) or ``ftol`` (relative decrease); deterministic start ``init`` (an ``n × n`` banded strategy, default
    the column-normalised BandFHU :func:`banded_sqrt`). No Toeplitz structure is assumed. ``O(n b̂²)`` per
    evaluation (module docstring): 0.1 s at ``n = 2052, bands = 342`` on one core.

    Parameters
    ----------
    n : int
        The number of steps.
    bands : int
        The number of bands ``b̂``, in ``[1, n]`` (keyword-only).
    loss : {"rms"}, default "rms"
        The objective: the RmsLoss only.
    steps : int, default 500
        The most L-BFGS-B iterations (0: return the start).
    participation : Participation or None, optional
        The participation schema, with ``min_sep ≥ bands`` or one participation; ``None`` (the default) is single
        participation.
    init : array_like or BandedMechanism, optional
        The start: an ``n × n`` strategy with at most ``bands`` bands and a positive diagonal; by default the
        column-normalised BandFHU :func:`banded_sqrt`.
    gtol : float, default 1e-9
        L-BFGS-B's tolerance on the projected gradient.
    ftol : float, default 1e-13
        L-BFGS-B's tolerance on the relative decrease.
    name : str, optional
        The name of the returned mechanism; by default ``BandMF(n=…, bands=…)``.
    workload : Workload or None, optional
        The workload ``W`` of the RmsError ``‖W C⁻¹‖_F²/n`` (:func:`~dptheory.mechanisms.momentum_workload`: momentum
        and any learning-rate schedule); ``None`` (the default) is the prefix sums.

    Returns
    -------
    BandedResult
        The optimised mechanism, its losses and the optimiser's record.

    Raises
    ------
    ValueError
        If ``loss`` is not ``"rms"``, ``participation`` has ``min_sep < bands`` with more than one participation,
        or ``init`` is not a valid start, or the ``n × n`` work matrices would not fit the size budget.
    """
    n = _check_dense_n(check_int("n", n, 1), _RESULT_MATRICES)
    bands, name = _check_bands(bands, n), check_name("name", name)
    workload = _check_objective_size(n, bands, workload)
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
    f0, _ = _objective(x0, n, rows, cols, workload)
    t0 = time.perf_counter()
    evaluations = 0

    def fun(x):
        nonlocal evaluations
        evaluations += 1
        return _objective(x, n, rows, cols, workload)

    if steps == 0:
        x, iterations, converged, message = x0, 0, False, "no steps taken (steps = 0)"
    else:
        with _one_blas_thread(block_size(n, bands + 1)):
            res = scipy.optimize.minimize(
                fun, x0, jac=True, method="L-BFGS-B",
                options={"maxiter": steps, "maxfun": 4 * steps + 20, "gtol": gtol, "ftol": ftol, "maxcor": _MEMORY},
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
    report = prefix_loss(mech, n, participation, workload=workload)
    return BandedResult(
        mechanism=mech, n=n, bands=bands, participation=participation, workload=workload,
        sensitivity=report.sensitivity, rms_error=report.rms_error, max_error=report.max_error,
        initial_rms_loss=math.sqrt(f0) * report.sensitivity, converged=converged, iterations=iterations,
        evaluations=evaluations, seconds=seconds, message=message,
    )
