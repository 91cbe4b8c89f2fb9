r"""Prefix-sum errors and losses of any mechanism (seed 003 §3.2, Eqs. 9–10; Prop. 3.3).

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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import check_int
from .base import Mechanism, Participation, _check_participation

__all__ = ["PrefixLoss", "max_error", "rms_error", "prefix_loss", "max_loss", "rms_loss"]


def _energies(mechanism: Mechanism, n: int) -> np.ndarray:
    if not isinstance(mechanism, Mechanism):
        raise ValueError(f"mechanism must be a dptheory.Mechanism, got {type(mechanism).__name__}")
    return mechanism.row_energies(1.0, check_int("n", n, 1))


def max_error(mechanism: Mechanism, n: int) -> float:
    r"""``MaxError(A C⁻¹)`` over ``n`` steps (seed 003 Eq. 9), unsquared.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    n : int
        The number of steps.

    Returns
    -------
    float
        ``max_t ‖e_tᵀ B‖₂``.

    Raises
    ------
    ValueError
        If ``mechanism`` is not a :class:`~dptheory.Mechanism`.
    """
    return math.sqrt(float(np.max(_energies(mechanism, n))))


def rms_error(mechanism: Mechanism, n: int) -> float:
    r"""``RmsError(A C⁻¹)`` over ``n`` steps (seed 003 Eq. 9), unsquared.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    n : int
        The number of steps.

    Returns
    -------
    float
        ``(Σ_t ‖e_tᵀ B‖₂² / n)^{1/2}``.

    Raises
    ------
    ValueError
        If ``mechanism`` is not a :class:`~dptheory.Mechanism`.
    """
    return math.sqrt(float(np.mean(_energies(mechanism, n))))


@dataclass(frozen=True)
class PrefixLoss:
    r"""Seed 003's errors and losses of one mechanism over ``n`` steps under one participation schema.

    Seed 003's Eqs. 9–10, all unsquared; ``participations`` is ``k' = min(k, ⌈n/b⌉)``.

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
    """

    mechanism: str
    n: int
    participation: Participation
    participations: int
    sensitivity: float
    max_error: float
    rms_error: float

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
            f"PrefixLoss({self.mechanism}, n={self.n}, {self.participation} (k'={self.participations}): "
            f"sens={self.sensitivity:.6g}, MaxError={self.max_error:.6g}, RmsError={self.rms_error:.6g}, "
            f"MaxLoss={self.max_loss:.6g}, RmsLoss={self.rms_loss:.6g})"
        )


def prefix_loss(mechanism: Mechanism, n: int, participation: Participation | None = None) -> PrefixLoss:
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

    Returns
    -------
    PrefixLoss
        The errors, the sensitivity and the losses.

    Raises
    ------
    ValueError
        If ``mechanism`` is not a :class:`~dptheory.Mechanism`, or its sensitivity has no exact route.
    """
    participation = _check_participation(participation)
    e = _energies(mechanism, n)
    return PrefixLoss(
        mechanism=mechanism.name,
        n=int(n),
        participation=participation,
        participations=participation.participations(int(n)),
        sensitivity=float(mechanism.sensitivity(int(n), participation)),
        max_error=math.sqrt(float(np.max(e))),
        rms_error=math.sqrt(float(np.mean(e))),
    )


def max_loss(mechanism: Mechanism, n: int, participation: Participation | None = None) -> float:
    r"""``MaxLoss = MaxError · sens_Π`` (seed 003 Eq. 10), **unsquared** (jax_privacy's loss is its square).

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    n : int
        The number of steps.
    participation : Participation or None, optional
        The participation schema; ``None`` (the default) is single participation.

    Returns
    -------
    float
        ``MaxLoss`` (:attr:`PrefixLoss.max_loss`).
    """
    return prefix_loss(mechanism, n, participation).max_loss


def rms_loss(mechanism: Mechanism, n: int, participation: Participation | None = None) -> float:
    r"""``RmsLoss = RmsError · sens_Π`` (seed 003 Eq. 10), **unsquared** (jax_privacy's loss is its square).

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    n : int
        The number of steps.
    participation : Participation or None, optional
        The participation schema; ``None`` (the default) is single participation.

    Returns
    -------
    float
        ``RmsLoss`` (:attr:`PrefixLoss.rms_loss`).
    """
    return prefix_loss(mechanism, n, participation).rms_loss
