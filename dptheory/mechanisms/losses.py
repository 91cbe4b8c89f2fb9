r"""Prefix-sum (and workload) errors and losses of any mechanism (seed 003 §3.2, Eqs. 9–10; Prop. 3.3).

The prefix sums ``A x`` are released as ``A x + B z`` with the decoder ``B = A C⁻¹`` and unit white ``z``. Seed 003
measures a mechanism over ``n`` steps by

* ``MaxError(B) = max_t ‖e_tᵀ B‖₂`` and ``RmsError(B) = (Σ_t ‖e_tᵀ B‖₂² / n)^{1/2}`` (Eq. 9);
* ``MaxLoss = MaxError · sens_Π(C)`` and ``RmsLoss = RmsError · sens_Π(C)`` (Eq. 10).

**None of them is squared.** jax_privacy's ``LossFn.loss`` returns the square ``error² · sens²`` of the same
quantity (errata 003 C11). The row energies ``‖e_tᵀ B‖²`` are :meth:`~dptheory.Mechanism.row_energies` at
``q = 1``: ``O(n)`` for a Toeplitz mechanism (Prop. 3.3: ``B`` is Toeplitz with first column the inclusive
cumulative sum of ``ĉ``; the printed exclusive sum is wrong, errata 003 §3.6), ``O(nd²)`` by partial fractions for a
BLT, dense for any other. Losses are free of the noise multiplier ``α = σ/sens``: for a fixed privacy level a
smaller loss is a smaller error.

**Workloads** (``workload=``, :mod:`.workloads`): training with momentum ``β`` and learning rates ``η_t`` releases
``W x + W C⁻¹ z`` with ``W = A diag(η) M_β``, so the same Eqs. 9–10 apply to the decoder ``B = W C⁻¹`` (the
sensitivity is that of ``C`` and does not depend on ``W``). Its row energies ``‖e_tᵀ W C⁻¹‖²`` take one of three
routes (:func:`_workload_energies`):

* prefix sums (``W = A``, the default): :meth:`~dptheory.Mechanism.row_energies` at ``q = 1``, as above;
* a Toeplitz mechanism and a Toeplitz workload (a constant rate): ``B`` is Toeplitz with first column
  ``b = (w ∗ ĉ)_{0:n}``, the truncated convolution of the workload's and the noising coefficients (direct up to
  2048 steps, by FFT above (:mod:`.workloads`), ``O(n log n)``), and the energies are ``cumsum(b²)``
  (jax_privacy's ``toeplitz.per_query_error(noising_coef=ĉ, workload_coef=w)``);
* otherwise the rows of ``B`` by forward substitution in ``W⁻¹ B = C⁻¹`` with the two sub-diagonals of ``W⁻¹``
  (:meth:`~dptheory.mechanisms.workloads.Workload.inverse_bands`), one row of ``C⁻¹`` at a time: ``O(n²)`` time and
  ``O(n)`` memory for a Toeplitz mechanism (its rows are the reversed ``ĉ``), ``O(nm)`` on the dense ``n × m``
  noising matrix of any other (size-checked before it is built).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import check_int, check_size
from .base import Mechanism, Participation, _check_participation
from .toeplitz import ToeplitzMechanism
from .workloads import PREFIX_SUMS, Workload, _truncated_convolution, _check_workload

__all__ = ["PrefixLoss", "max_error", "rms_error", "prefix_loss", "max_loss", "rms_loss"]


#: Bytes per step of a Toeplitz mechanism's routes: the workload and noising coefficients with their rates, two real
#: FFTs of length ``≈ 2n``, their product and its inverse (the row route needs less: ``ĉ``, three rows of ``B``,
#: the bands and the energies).
_CONVOLUTION_BYTES = 8.0 * 16

#: Bytes per ``n²`` of the dense route: the ``n × m`` noising matrix (``m ≤ 2n`` for a tree) and up to two copies
#: a mechanism keeps or returns, before any row of ``B``.
_DENSE_BYTES = 8.0 * 2 * 3


def _banded_solve_energies(bands: np.ndarray, row) -> np.ndarray:
    r"""``‖e_tᵀ B‖²`` for ``t < n``, the rows of ``B`` solving ``L B = N`` by forward substitution.

    ``L`` is lower-triangular with two sub-diagonals in diagonal storage (``bands[o, j] = L_{j+o, j}``, as
    :meth:`Workload.inverse_bands`); ``row(t)`` returns row ``t`` of ``N`` over a leading slice of its columns at
    least as long as the previous rows' (the rest is zero). Three rows of ``B`` are held, ``O(n·m)`` operations.
    """
    n = bands.shape[1]
    out = np.empty(n)
    prev2 = prev1 = None
    for t in range(n):
        x = np.array(row(t), dtype=float)  # a copy: B_t = (N_t − L_{t,t−1} B_{t−1} − L_{t,t−2} B_{t−2}) / L_{t,t}
        if t >= 1:
            x[: prev1.size] -= bands[1, t - 1] * prev1
        if t >= 2:
            x[: prev2.size] -= bands[2, t - 2] * prev2
        x /= bands[0, t]
        out[t] = x @ x
        prev2, prev1 = prev1, x
    return out


def _workload_energies(mechanism: Mechanism, n: int, workload: Workload) -> np.ndarray:
    r"""The row energies ``‖e_tᵀ W C⁻¹‖²`` for ``t < n`` (seed 003 Eq. 9 with ``B = W C⁻¹``; module docstring)."""
    if workload.is_prefix_sums:
        return mechanism.row_energies(1.0, n)
    if isinstance(mechanism, ToeplitzMechanism):
        w = workload.toeplitz_coeffs(check_size("n", n, lambda m: _CONVOLUTION_BYTES * m,
                                                what="the convolution of the workload and noising coefficients"))
        if w is not None:
            return np.cumsum(_truncated_convolution(w, mechanism.noising_coeffs(n)) ** 2)
        reversed_coeffs = mechanism.noising_coeffs(n)[::-1]  # row t of C⁻¹ is ĉ_t, …, ĉ_0: the last t + 1 of these
        return _banded_solve_energies(workload.inverse_bands(n), lambda t: reversed_coeffs[n - 1 - t:])
    check_size("n", n, lambda m: _DENSE_BYTES * m * m, what="the dense n x m noising matrix of W C^-1 (m <= 2n)")
    N = mechanism.noising_matrix(n)
    return _banded_solve_energies(workload.inverse_bands(n), lambda t: N[t])


def _energies(mechanism: Mechanism, n: int, workload: Workload | None = None) -> np.ndarray:
    if not isinstance(mechanism, Mechanism):
        raise ValueError(f"mechanism must be a dptheory.Mechanism, got {type(mechanism).__name__}")
    n = check_int("n", n, 1)
    return _workload_energies(mechanism, n, _check_workload(workload, n))


def max_error(mechanism: Mechanism, n: int, *, workload: Workload | None = None) -> float:
    r"""``MaxError(W C⁻¹)`` over ``n`` steps (seed 003 Eq. 9 with the decoder ``B = W C⁻¹``), unsquared.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    n : int
        The number of steps.
    workload : Workload or None, optional
        The workload ``W`` (:func:`~dptheory.mechanisms.momentum_workload`); ``None`` (the default) is prefix sums.

    Returns
    -------
    float
        ``max_t ‖e_tᵀ B‖₂``.

    Raises
    ------
    ValueError
        If ``mechanism`` is not a :class:`~dptheory.Mechanism`, ``workload`` is not a :class:`Workload` (or
        ``None``), its schedule holds fewer than ``n`` rates, or the route's memory exceeds the size budget.
    """
    return math.sqrt(float(np.max(_energies(mechanism, n, workload))))


def rms_error(mechanism: Mechanism, n: int, *, workload: Workload | None = None) -> float:
    r"""``RmsError(W C⁻¹)`` over ``n`` steps (seed 003 Eq. 9 with the decoder ``B = W C⁻¹``), unsquared.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    n : int
        The number of steps.
    workload : Workload or None, optional
        The workload ``W`` (:func:`~dptheory.mechanisms.momentum_workload`); ``None`` (the default) is prefix sums.

    Returns
    -------
    float
        ``(Σ_t ‖e_tᵀ B‖₂² / n)^{1/2}``.

    Raises
    ------
    ValueError
        If ``mechanism`` is not a :class:`~dptheory.Mechanism`, ``workload`` is not a :class:`Workload` (or
        ``None``), its schedule holds fewer than ``n`` rates, or the route's memory exceeds the size budget.
    """
    return math.sqrt(float(np.mean(_energies(mechanism, n, workload))))


@dataclass(frozen=True)
class PrefixLoss:
    r"""Seed 003's errors and losses of one mechanism over ``n`` steps under one participation schema.

    Seed 003's Eqs. 9–10 for the decoder ``B = W C⁻¹`` of a workload ``W`` (prefix sums ``A`` by default), all
    unsquared; ``participations`` is ``k' = min(k, ⌈n/b⌉)``.

    Attributes
    ----------
    mechanism : str
        The mechanism's name.
    n : int
        The number of steps.
    participation : Participation
        The participation schema.
    participations : int
        ``k' = min(k, ⌈n/b⌉)``.
    sensitivity : float
        ``sens_Π(C)``.
    max_error : float
        ``MaxError`` (Eq. 9), unsquared.
    rms_error : float
        ``RmsError`` (Eq. 9), unsquared.
    workload : Workload
        The workload ``W`` of the decoder ``B = W C⁻¹`` (prefix sums by default).
    """

    mechanism: str
    n: int
    participation: Participation
    participations: int
    sensitivity: float
    max_error: float
    rms_error: float
    workload: Workload = PREFIX_SUMS

    @property
    def max_loss(self) -> float:
        """``MaxLoss = MaxError · sens_Π``, unsquared."""
        return self.max_error * self.sensitivity

    @property
    def rms_loss(self) -> float:
        """``RmsLoss = RmsError · sens_Π``, unsquared."""
        return self.rms_error * self.sensitivity

    def __repr__(self) -> str:
        return (
            f"PrefixLoss({self.mechanism}, n={self.n}, {self.participation} (k'={self.participations})"
            f"{'' if self.workload.is_prefix_sums else ', workload=' + self.workload.name}: "
            f"sens={self.sensitivity:.6g}, MaxError={self.max_error:.6g}, RmsError={self.rms_error:.6g}, "
            f"MaxLoss={self.max_loss:.6g}, RmsLoss={self.rms_loss:.6g})"
        )


def prefix_loss(mechanism: Mechanism, n: int, participation: Participation | None = None, *,
                workload: Workload | None = None) -> PrefixLoss:
    r"""Both errors, the sensitivity and both losses of ``mechanism`` over ``n`` steps (seed 003 Eqs. 9–10).

    The sensitivity is the mechanism's own :meth:`~dptheory.Mechanism.sensitivity`, which refuses (rather than
    returns a bound as if exact) where no exact route applies.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    n : int
        The number of steps.
    participation : Participation or None, optional
        The participation schema; ``None`` (the default) is single participation.
    workload : Workload or None, optional
        The workload ``W`` (:func:`~dptheory.mechanisms.momentum_workload`); ``None`` (the default) is prefix sums.

    Returns
    -------
    PrefixLoss
        The errors, the sensitivity and the losses.

    Raises
    ------
    ValueError
        If ``mechanism`` is not a :class:`~dptheory.Mechanism`, its sensitivity has no exact route, or ``workload``
        is refused (:func:`max_error`).
    """
    participation = _check_participation(participation)
    workload = _check_workload(workload, check_int("n", n, 1))
    e = _energies(mechanism, n, workload)
    return PrefixLoss(
        mechanism=mechanism.name,
        n=int(n),
        participation=participation,
        participations=participation.participations(int(n)),
        sensitivity=float(mechanism.sensitivity(int(n), participation)),
        max_error=math.sqrt(float(np.max(e))),
        rms_error=math.sqrt(float(np.mean(e))),
        workload=workload,
    )


def max_loss(mechanism: Mechanism, n: int, participation: Participation | None = None, *,
             workload: Workload | None = None) -> float:
    r"""``MaxLoss = MaxError · sens_Π`` (seed 003 Eq. 10), **unsquared** (jax_privacy's loss is its square).

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    n : int
        The number of steps.
    participation : Participation or None, optional
        The participation schema; ``None`` (the default) is single participation.
    workload : Workload or None, optional
        The workload ``W`` (:func:`~dptheory.mechanisms.momentum_workload`); ``None`` (the default) is prefix sums.

    Returns
    -------
    float
        ``MaxLoss`` (:attr:`PrefixLoss.max_loss`).
    """
    return prefix_loss(mechanism, n, participation, workload=workload).max_loss


def rms_loss(mechanism: Mechanism, n: int, participation: Participation | None = None, *,
             workload: Workload | None = None) -> float:
    r"""``RmsLoss = RmsError · sens_Π`` (seed 003 Eq. 10), **unsquared** (jax_privacy's loss is its square).

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    n : int
        The number of steps.
    participation : Participation or None, optional
        The participation schema; ``None`` (the default) is single participation.
    workload : Workload or None, optional
        The workload ``W`` (:func:`~dptheory.mechanisms.momentum_workload`); ``None`` (the default) is prefix sums.

    Returns
    -------
    float
        ``RmsLoss`` (:attr:`PrefixLoss.rms_loss`).
    """
    return prefix_loss(mechanism, n, participation, workload=workload).rms_loss
