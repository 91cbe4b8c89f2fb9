r"""Workloads: the linear map ``W`` from the gradient stream to what training releases (seed 003 §3.2 with ``A = W``).

A matrix mechanism releases ``W x + B z`` with the decoder ``B = W C⁻¹`` for its strategy ``C`` (docs/notation.md).
Seed 003 (and seed 000) measure the prefix-sum workload ``W = A`` (``A`` lower-triangular ones); training with
momentum ``β`` and learning rates ``η_t`` releases the model iterates, whose workload is jax_privacy's
``streaming_matrix.momentum_sgd_matrix(momentum=β, learning_rates=η)``::

    W = A · diag(η) · M_β,      (M_β)_{s,r} = β^{s−r} (s ≥ r),      so  W_{t,r} = Σ_{s=r}^{t} η_s β^{s−r}.

With ``β = 0`` and ``η ≡ 1`` this is ``A``. Two structures make the losses cheap:

* ``W`` is Toeplitz when the learning rate is constant (:meth:`Workload.toeplitz_coeffs`, its first column
  ``w_k = η (1 − β^{k+1})/(1 − β)``), so ``B = W C⁻¹`` is Toeplitz for a Toeplitz ``C``;
* ``W⁻¹ = M_β⁻¹ · diag(1/η) · A⁻¹`` is banded with two sub-diagonals for any schedule
  (:meth:`Workload.inverse_bands`; ``M_β⁻¹ = I − βS`` and ``A⁻¹ = I − S`` with the down-shift ``S``), so
  ``B = W C⁻¹ = (C W⁻¹)⁻¹`` is the inverse of a banded matrix for a banded ``C``.

A learning-rate schedule holds at least ``n`` rates for a horizon ``n`` (the first ``n`` are used); jax_privacy
repeats the last rate past the schedule's end, which this module refuses rather than guesses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import fft as sfft

from .._validation import check_in_interval, check_int, check_positive_array, check_size

__all__ = ["Workload", "PREFIX_SUMS", "prefix_sums", "momentum_workload"]

#: Up to this many steps :func:`_truncated_convolution` convolves directly (``O(n²)``, each entry a plain sum of
#: products; 0.4 ms at ``n = 2048``); above it by FFT (``O(n log n)``, an absolute error of a few ulps of
#: ``‖a‖₂‖b‖₂`` on every entry).
_DIRECT_CONVOLUTION_MAX = 2048


@dataclass(frozen=True, eq=True)
class Workload:
    r"""The workload ``W = A · diag(η) · M_β`` of momentum-SGD's iterates (module docstring).

    Build it with :func:`prefix_sums` or :func:`momentum_workload`.

    Attributes
    ----------
    momentum : float
        ``β ∈ [0, 1)``; 0 is plain SGD.
    learning_rates : tuple of float or None
        The schedule ``η_0, η_1, …`` (positive), or ``None`` for the constant rate 1.
    """

    momentum: float = 0.0
    learning_rates: tuple[float, ...] | None = None

    def __post_init__(self):
        object.__setattr__(self, "momentum", check_in_interval("momentum", self.momentum, 0.0, 1.0, lo_closed=True))
        if self.learning_rates is not None:
            rates = check_positive_array("learning_rates", self.learning_rates)
            object.__setattr__(self, "learning_rates", tuple(float(r) for r in rates))

    @property
    def is_prefix_sums(self) -> bool:
        """Whether ``W = A`` (no momentum, constant rate 1)."""
        return self.momentum == 0.0 and (self.learning_rates is None or all(r == 1.0 for r in self.learning_rates))

    @property
    def name(self) -> str:
        """A short label: ``"prefix sums"`` or ``"momentum(β=…, …)"``."""
        if self.is_prefix_sums:
            return "prefix sums"
        lr = "η=1" if self.learning_rates is None else f"{len(self.learning_rates)} learning rates"
        return f"momentum(β={self.momentum:g}, {lr})"

    def rates(self, n: int) -> np.ndarray:
        """The learning rates ``η_0 … η_{n−1}`` (ones without a schedule).

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            Shape ``(n,)``.

        Raises
        ------
        ValueError
            If the schedule holds fewer than ``n`` rates.
        """
        n = check_int("n", n, 1)
        if self.learning_rates is None:
            return np.ones(n)
        if len(self.learning_rates) < n:
            raise ValueError(f"learning_rates holds {len(self.learning_rates)} rates, fewer than the n = {n} steps "
                             f"(give one rate per step)")
        return np.asarray(self.learning_rates[:n], dtype=float)

    def toeplitz_coeffs(self, n: int) -> np.ndarray | None:
        r"""The first column ``w_0 … w_{n−1}`` of ``W`` where ``W`` is Toeplitz (a constant rate), else ``None``.

        ``w_k = η Σ_{j ≤ k} β^j = η (1 − β^{k+1})/(1 − β)``.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray or None
            Shape ``(n,)``; ``None`` where the first ``n`` rates are not all equal.
        """
        n = check_size("n", check_int("n", n, 1), lambda m: 16.0 * m, what="the workload coefficients")
        if not self.is_toeplitz(n):
            return None
        k = np.arange(n)
        beta = self.momentum
        geometric = np.ones(k.size) if beta == 0.0 else -np.expm1((k + 1.0) * math.log(beta)) / (1.0 - beta)
        return self.rates(1)[0] * geometric

    def is_toeplitz(self, n: int) -> bool:
        """Whether ``W`` over ``n`` steps is Toeplitz: the first ``n`` learning rates are equal (or there are none).

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        bool
            Whether the first ``n`` rates are equal.

        Raises
        ------
        ValueError
            If the schedule holds fewer than ``n`` rates.
        """
        if self.learning_rates is None:
            return True
        eta = self.rates(n)
        return bool(np.all(eta == eta[0]))

    def inverse_bands(self, n: int) -> np.ndarray:
        r"""``W⁻¹`` in diagonal storage: ``L[o, j] = (W⁻¹)_{j+o, j}`` for ``o = 0, 1, 2`` (zero past row ``n − 1``).

        ``W⁻¹ = (I − βS) diag(1/η) (I − S)``: diagonal ``1/η_j``, first sub-diagonal ``−1/η_{j+1} − β/η_j``,
        second ``β/η_{j+1}``.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            Shape ``(3, n)``.
        """
        eta = self.rates(check_size("n", n, lambda m: 48.0 * m, what="the workload's inverse bands"))
        inv = 1.0 / eta
        nxt = np.append(inv[1:], 0.0)  # 1/η_{j+1}, zero past the end
        beta = self.momentum
        L = np.zeros((3, n))
        L[0] = inv
        L[1, : n - 1] = -nxt[: n - 1] - beta * inv[: n - 1]
        L[2, : n - 2] = beta * nxt[: n - 2]
        return L

    def matrix(self, n: int) -> np.ndarray:
        """The dense ``n × n`` lower-triangular ``W`` (size-checked), for oracles and small ``n``.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            ``W[:n, :n]``, shape ``(n, n)``.
        """
        n = check_size("n", check_int("n", n, 1), lambda m: 16.0 * m * m, what="the dense n x n workload")
        eta = self.rates(n)
        k = np.arange(n)
        M = np.tril(self.momentum ** np.clip(k[:, None] - k[None, :], 0, None)) if self.momentum else np.eye(n)
        return np.cumsum(eta[:, None] * M, axis=0)

    def cache_key(self) -> str:
        """A stable key for caches.

        Returns
        -------
        str
            The momentum and every learning rate, by ``repr``.
        """
        rates = "1" if self.learning_rates is None else ",".join(repr(r) for r in self.learning_rates)
        return f"Workload(momentum={self.momentum!r}, learning_rates={rates})"

    def __repr__(self) -> str:
        return f"Workload({self.name})"


#: The prefix-sum workload ``W = A`` of seeds 000 and 003.
PREFIX_SUMS = Workload()


def prefix_sums() -> Workload:
    """The prefix-sum workload ``W = A`` (seed 003 §3.2).

    Returns
    -------
    Workload
        :data:`PREFIX_SUMS`.
    """
    return PREFIX_SUMS


def momentum_workload(momentum: float, learning_rates=None) -> Workload:
    r"""Momentum-SGD's workload ``W = A · diag(η) · M_β`` (jax_privacy's ``momentum_sgd_matrix``).

    Parameters
    ----------
    momentum : float
        ``β ∈ [0, 1)``.
    learning_rates : array_like or None, optional
        The positive schedule ``η_t`` (at least one per step of the horizon it is used at); ``None`` is the constant
        rate 1.

    Returns
    -------
    Workload
        The workload.

    Raises
    ------
    ValueError
        If ``momentum`` is outside ``[0, 1)`` or a learning rate is not a positive finite number.
    """
    return Workload(momentum=momentum, learning_rates=None if learning_rates is None else tuple(
        check_positive_array("learning_rates", learning_rates)))


def _check_workload(workload, n: int, *, toeplitz_for: str | None = None) -> Workload:
    """``workload`` (``None``: the prefix sums) if it is a :class:`Workload` with a rate for each of ``n`` steps and,
    where a route needs a Toeplitz ``W`` (``toeplitz_for`` names it), a constant rate; else refused naming
    ``workload`` (or ``learning_rates``)."""
    if workload is None:
        return PREFIX_SUMS
    if not isinstance(workload, Workload):
        raise ValueError(
            f"workload must be a dptheory.mechanisms.Workload (prefix_sums() or momentum_workload(momentum, "
            f"learning_rates)) or None for prefix sums, got {type(workload).__name__} {workload!r}"
        )
    if not workload.is_toeplitz(n) and toeplitz_for is not None:  # is_toeplitz refuses a schedule shorter than n
        raise ValueError(f"workload must be Toeplitz (a constant learning rate) for {toeplitz_for}, got {workload}: "
                         f"dptheory.mechanisms.optimize_banded (BandMF) takes any learning-rate schedule")
    return workload


def _truncated_convolution(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(a ∗ b)_k`` for ``k < n`` of two real length-``n`` sequences: the first column of the product of two
    lower-triangular Toeplitz matrices (e.g. ``B = W C⁻¹`` from ``w`` and ``ĉ``); direct up to
    :data:`_DIRECT_CONVOLUTION_MAX` steps, else by FFT."""
    n = a.size
    if n <= _DIRECT_CONVOLUTION_MAX:
        return np.convolve(a, b)[:n]
    L = sfft.next_fast_len(2 * n - 1, real=True)  # no wrap-around onto k < n
    return sfft.irfft(sfft.rfft(a, L) * sfft.rfft(b, L), L)[:n]


def _truncated_correlation(g: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``Σ_{t ≥ j} g_t a_{t−j}`` for ``j < n``: the transpose of ``b ↦ (a ∗ b)_{0:n}`` (:func:`_truncated_convolution`),
    what a gradient through it needs."""
    return _truncated_convolution(g[::-1], a)[::-1]
