r"""The Toeplitz family of mechanisms (seed 004, Alg. 1 and eq. 13; seed 003 §2 for BLTs).

DP-FTRL adds the noise ``N w`` with a lower-triangular Toeplitz noising matrix ``N_{t,t'} = β_{t−t'}`` (seed 004
writes ``B`` for ``N``) and ``w_t ~ N(0, σ_dp² G² I)``; DP-SGD is ``β = (1, 0, …)``. The strategy ``C = N⁻¹`` is
Toeplitz too, with the coefficients of ``1/B(z)``. Words and symbols: ``docs/notation.md``.

* :class:`ToeplitzMechanism` — everything the theory needs is derived from three primitives a subclass supplies
  (``noising_coeffs``, ``strategy_coeffs``, ``dtft``): the sensitivity under any participation (seed 004
  Thm 1.1; seed 003 Thm 3.1), the limiting sensitivity ``γ∞`` (eq. 5), the row energies of the filtered noise
  and the pole integrals ``(1/2π)∫|B|²/|1 − q e^{iω}|²`` from which every stationary error of seed 004 is built.
  Mechanisms with a rational generating function (BLTs, seed 003) subclass it too.
* :class:`FiniteToeplitz` — any finite user sequence; :class:`SqrtToeplitz` — the family
  ``B(z) = √(1 − (1−ν) z)`` of ν-DP-FTRL (eq. 7), the mean-estimation optimum ``β*`` (Thm 2.1) and
  Optimal-CC (ν = 0), with elliptic-integral closed forms.

Every public function of the package accepts a plain sequence ``β`` wherever it takes a mechanism
(:func:`as_mechanism`).
"""

from __future__ import annotations

import abc
import hashlib
import math
import warnings
from typing import Sequence, Union

import numpy as np
import scipy.linalg
from scipy import fft as sfft
from scipy import integrate

from .. import _validation
from .._validation import (check_choice, check_in_interval, check_int, check_name, check_real_array, check_real_values,
                           check_size, renamed)
from .base import Mechanism, Participation, _check_dense_n, _check_participation, _check_q, _last_row, dense_sensitivity
from .spectral import _INVERSE_BYTES as _COEFF_BYTES  # bytes a coefficient route holds per coefficient
from .spectral import (
    UNIT_ROUNDOFF,
    _pole_modulus_sq,
    geometric_filter_energy,
    inverse_decay_bound,
    inverse_energy_by_step_down,
    inverse_energy_by_trapezoid,
    is_minimum_phase,
    periodic_mean,
    series_inverse,
)
from .streaming import StreamingToeplitzNoise
from ..special import ellipk_complement, sqrt_pole_integral

__all__ = [
    "ToeplitzMechanism",
    "FiniteToeplitz",
    "DampedAntiPGD",
    "SqrtToeplitz",
    "as_mechanism",
    "toeplitz",
    "dpsgd",
    "nu_ftrl",
    "optimal_cc",
    "anti_pgd",
    "damped_anti_pgd",
    "mean_estimation_optimal",
]

_METHODS = ("auto", "closed_form", "time", "frequency")
_STEP_DOWN_TAPS = 1024  # finite β up to this length have the multi-precision step-down route for γ∞
_TAIL_RTOL = 1e-17  # relative energy left out when a time-domain sum is truncated
#: Multiply-adds above which the earliest pattern's sum ``C u(π*)`` is taken by cumulative sums (O(n)), not k' shifts
_PATTERN_SUM_WORK = 1 << 26


def _check_horizon(n) -> int:
    """A number of steps: a whole number ``n >= 1``."""
    return check_int("n", n, 1)


def _check_length(n, per_step: float = _COEFF_BYTES) -> int:
    """A number of coefficients: a whole number ``n >= 0`` whose arrays, ``per_step`` bytes a coefficient, fit the
    size budget (:func:`~dptheory._validation.check_size`)."""
    return check_size("n", check_int("n", n, 0), lambda m: per_step * m, what="the coefficient arrays", lo=0)


def _check_omega(omega) -> np.ndarray:
    """Frequencies: finite reals of any shape."""
    return check_real_values("omega", omega)


def _check_gap(q, gap) -> tuple[np.ndarray, bool]:
    """The pole gaps ``1 − q`` as a 1-D array (and whether the input was a scalar), from exactly one of them."""
    if (q is None) == (gap is None):
        raise ValueError("give exactly one of q (the pole, |q| < 1) and gap = 1 - q (= eta*lambda, in (0, 2))")
    name, value = ("q", q) if gap is None else ("gap", gap)
    arr = check_real_array(name, value)
    if gap is None:
        bad = np.abs(arr) >= 1.0
        if np.any(bad):
            raise ValueError(f"q must lie in (-1, 1) (a stable pole; q = 1 - eta*lambda), got {arr[bad][0]:g}")
        arr = 1.0 - arr
    elif np.any((arr <= 0.0) | (arr >= 2.0)):
        raise ValueError(f"gap must lie in (0, 2) (gap = 1 - q = eta*lambda), got {arr[(arr <= 0) | (arr >= 2)][0]:g}")
    return arr, np.ndim(value) == 0


def _check_method(method: str) -> str:
    return check_choice("method", method, _METHODS)


def _windowed(c: np.ndarray, b: int, k: int) -> np.ndarray:
    r"""``c̄_t = Σ_{i<k, ib≤t} c_{t−ib}`` (``c̄ = C u(π*)``, seed 003 Thm 3.1) in ``O(n)``: blocks of length ``b``,
    a running sum over blocks and the same sum ``k`` blocks back subtracted (any dtype: the BLT optimiser's
    complex-step checks use it too)."""
    n = c.size
    m = -(-n // b)
    blocks = np.zeros((m, b), dtype=c.dtype)
    blocks.ravel()[:n] = c
    s = np.cumsum(blocks, axis=0)
    if k < m:
        s[k:] -= s[:-k].copy()
    return s.ravel()[:n]


def _earliest_pattern_sum(c: np.ndarray, k: int, b: int) -> np.ndarray:
    """``C u(π*) = Σ_{j<k} c`` shifted by ``j b``: ``k`` shifted adds, or past :data:`_PATTERN_SUM_WORK` multiply-adds
    :func:`_windowed` (``O(n)`` whatever ``k``)."""
    n = c.size
    if k * n > _PATTERN_SUM_WORK:
        return _windowed(c, b, k)
    v = np.zeros(n)
    for start in range(0, k * b, b):
        v[start:] += c[: n - start]
    return v


def _row_energy_bytes(poles: int, n: int) -> float:
    """Bytes :meth:`ToeplitzMechanism.row_energies` holds for ``poles`` values of ``q`` over ``n`` steps."""
    return 8.0 * (poles + 4) * n


def _geometric_tail(q: np.ndarray, m: int) -> np.ndarray:
    """``Σ_{j=1}^{m} q^{2j}`` elementwise for ``|q| ≤ 1`` (``m`` where ``|q| = 1``), by ``expm1`` so that ``q`` near 1
    keeps its relative precision."""
    q2 = q * q
    out = np.full(q.shape, float(m))
    inside = (q2 < 1.0) & (q2 > 0.0)
    log_q2 = np.log(np.where(inside, q2, 0.5))
    out[inside] = (q2 * -np.expm1(m * log_q2) / -np.expm1(log_q2))[inside]
    out[q2 == 0.0] = 0.0
    return out


def _theorem_3_1_applies(c: np.ndarray) -> bool:
    """Seed 003 Thm 3.1's hypothesis on the strategy coefficients actually used: non-negative and non-increasing."""
    return bool(np.all(c >= 0.0) and np.all(np.diff(c) <= 0.0))


def _norm(c: np.ndarray) -> float:
    """‖c‖₂, with ``inf`` when the coefficients overflowed (non-minimum-phase ``B``)."""
    if not np.all(np.isfinite(c)):
        return math.inf
    return float(np.linalg.norm(c))


class ToeplitzMechanism(Mechanism):
    r"""A mechanism with a Toeplitz noising matrix ``N_{t,t'} = β_{t−t'}`` and Toeplitz strategy ``C = N⁻¹``.

    ``N`` is seed 004's ``B``, with generating function ``B(z) = Σ_t β_t z^t``; the coefficients of ``C`` are
    those of ``1/B(z)``.

    Subclasses supply :meth:`noising_coeffs`, :meth:`strategy_coeffs`, :meth:`dtft`, :meth:`is_minimum_phase`,
    :meth:`_support` (how many coefficients carry all but ``_TAIL_RTOL`` of the energy) and :meth:`cache_key`;
    they may add closed forms by overriding :meth:`_gamma_inf_sq_closed_form` / :meth:`_energy_closed_form`, a
    certified quadrature of ``γ∞²`` (:meth:`_gamma_inf_sq_certified`) and a decay bound on the inverse
    coefficients (:meth:`_inverse_decay`).
    """

    stationary = True

    # -- primitives -------------------------------------------------------------------------------
    @abc.abstractmethod
    def noising_coeffs(self, n: int) -> np.ndarray:
        """The noising coefficients ``β_0, …, β_{n−1}`` (the first column of ``B``).

        Parameters
        ----------
        n : int
            The number of coefficients.

        Returns
        -------
        numpy.ndarray
            ``β_0, …, β_{n−1}``, shape ``(n,)``.
        """

    @abc.abstractmethod
    def strategy_coeffs(self, n: int) -> np.ndarray:
        """First ``n`` coefficients of ``1/B(z)``: the first column of ``B⁻¹`` (Toeplitz, App. A).

        Parameters
        ----------
        n : int
            The number of coefficients.

        Returns
        -------
        numpy.ndarray
            ``c_0, …, c_{n−1}``, shape ``(n,)``.
        """

    def strategy_bands(self, n: int) -> int:
        r"""The number of bands ``b̂`` of ``C`` over ``n`` steps: one more than the last nonzero of :meth:`strategy_coeffs`.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        int
            ``b̂`` in ``[1, n]`` (``n`` for a strategy whose coefficients never vanish, e.g. a BLT or ν-DP-FTRL).
        """
        nonzero = np.flatnonzero(self.strategy_coeffs(check_int("n", n, 1)))
        return int(nonzero[-1]) + 1 if nonzero.size else 1

    @abc.abstractmethod
    def dtft(self, omega) -> np.ndarray:
        r"""The DTFT ``B(ω) = Σ_t β_t e^{−iωt}``.

        Parameters
        ----------
        omega : float or array_like
            The frequencies ``ω``.

        Returns
        -------
        numpy.ndarray
            ``B(ω)``, complex, of ``omega``'s shape.
        """

    @abc.abstractmethod
    def is_minimum_phase(self) -> bool:
        """Whether ``B(z) ≠ 0`` on the closed unit disk, i.e. ``B⁻¹e_0 ∈ ℓ²`` (errata 004 §10.17).

        Returns
        -------
        bool
            Whether ``β`` is minimum phase.
        """

    @abc.abstractmethod
    def _support(self) -> int:
        """Number of coefficients after which the rest carries < ``_TAIL_RTOL`` of the energy."""

    def _gamma_inf_sq_closed_form(self) -> float | None:
        return None

    def _gamma_inf_sq_certified(self) -> float | None:
        """``γ∞²`` by a quadrature with a certified error ≤ 1e-12 relative, taken by ``"auto"`` after the closed form;
        ``None`` where none applies."""
        return None

    def _inverse_decay(self) -> tuple[float, float] | None:
        """``(R, K)`` with ``|c_t| ≤ K R^{−t}`` for every inverse coefficient, or ``None`` where none is certified."""
        return None

    def _energy_closed_form(self, q: np.ndarray) -> np.ndarray | None:
        return None

    # -- derived quantities -------------------------------------------------------------------------
    def spectrum(self, omega) -> np.ndarray:
        r"""The power spectrum ``|B(ω)|²``, even in ω for real ``β``.

        Parameters
        ----------
        omega : float or array_like
            The frequencies ``ω``.

        Returns
        -------
        numpy.ndarray
            ``|B(ω)|²``, of ``omega``'s shape.
        """
        return np.abs(self.dtft(omega)) ** 2

    def noising_matrix(self, n: int) -> np.ndarray:
        """The leading ``n × n`` block of ``N``: lower-triangular Toeplitz of :meth:`noising_coeffs`.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            ``N[:n, :n]``, shape ``(n, n)``.
        """
        n = _check_dense_n(_check_horizon(n))
        return scipy.linalg.toeplitz(self.noising_coeffs(n), np.zeros(n))

    def strategy_matrix(self, n: int) -> np.ndarray:
        """The leading ``n × n`` block of ``C``: lower-triangular Toeplitz of :meth:`strategy_coeffs`.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            ``C[:n, :n]``, shape ``(n, n)``.
        """
        n = _check_dense_n(_check_horizon(n))
        return scipy.linalg.toeplitz(self.strategy_coeffs(n), np.zeros(n))

    def sensitivity(self, n: int | None = None, participation: Participation | None = None, *, method: str = "auto") -> float:
        r"""The sensitivity ``sens_Π(C)`` over ``n`` steps (``n = None``: the streaming limit).

        ``sens_Π(C)`` of seed 003 eq. 6.

        Single participation (seed 004 Thm 1.1, eq. 24): the columns of ``C`` are shifted, truncated copies of
        its first column, so the maximum is column 0, ``γ_n = ‖c_{0:n}‖₂``, non-decreasing in ``n``, in
        ``O(n log n)`` or better (:func:`~dptheory.mechanisms.spectral.series_inverse`); ``n = None`` gives
        :meth:`limiting_sensitivity` by the route ``method``. ``inf`` when the coefficients overflow double precision
        (non-minimum-phase ``β``, e.g. ``(1, −2)`` has ``γ_n² = (4^n − 1)/3``). Where a decay bound ``|c_t| ≤ K R^{−t}``
        is certified (:meth:`_inverse_decay`, finite ``β``) and puts ``Σ_{t≥n} c_t² ≤ K²R^{−2n}/(1 − R^{−2})`` below
        1e-17 of ``c_0² ≤ γ_n²``, ``γ_n = γ∞`` in double precision and :meth:`limiting_sensitivity` is returned.

        ``k`` participations ``b`` apart: when ``c`` is non-negative and non-increasing the worst pattern is
        ``π* = (0, b, …, (k'−1)b)`` and ``sens = ‖C u(π*)‖₂`` in ``O(k n)`` (seed 003 Thm 3.1, eq. 7, after Kalinin
        & Lampert); otherwise the dense enumeration of :func:`~dptheory.mechanisms.dense_sensitivity`. The
        streaming limit sums ``c`` over its support plus ``(k − 1)b`` steps (the rest is below 1e-17 relative).

        Parameters
        ----------
        n : int or None, optional
            The number of steps; ``None`` (the default) is the streaming limit ``n → ∞``.
        participation : Participation or None, optional
            The participation schema; ``None`` (the default) is single participation.
        method : {"auto", "closed_form", "time", "frequency"}, default "auto"
            The route of :meth:`limiting_sensitivity` where it is used (keyword-only).

        Returns
        -------
        float
            ``sens_Π(C)``; ``inf`` where the coefficients overflow (non-minimum-phase ``β``).
        """
        participation = _check_participation(participation)
        method = _check_method(method)
        if n is None:
            if participation.single:
                return self.limiting_sensitivity(method=method)
            if not self.is_minimum_phase():
                return math.inf
            n = self._inverse_support() + (participation.max_participations - 1) * participation.min_sep
        n = _check_horizon(n)
        if participation.participations(n) == 1 and n > 16 * 1024 and self.is_minimum_phase():
            if self._tail_below_rounding(n):
                return self.limiting_sensitivity()
            # past the inverse's support the rest of ‖c_{0:n}‖² is < 1e-17 of it, below double rounding. The search
            # tries two lengths from its start s (3s of work, below n/5 when n > 16s), else c_{0:n} directly.
            start = self._inverse_search_start()
            head = self._search_inverse_head(2 * start) if n > 16 * start else None
            if head is not None and head.size < n:
                return _norm(head)
        c = self.strategy_coeffs(n)
        if not np.all(np.isfinite(c)):
            return math.inf
        if participation.participations(n) == 1:
            return _norm(c)
        if _theorem_3_1_applies(c):
            return _norm(_earliest_pattern_sum(c, participation.participations(n), participation.min_sep))
        return dense_sensitivity(self.strategy_matrix(n), participation)

    def _tail_below_rounding(self, n: int) -> bool:
        """Whether the certified decay bound puts ``Σ_{t≥n} c_t²`` below ``_TAIL_RTOL·c_0²`` (see :meth:`sensitivity`)."""
        decay = self._inverse_decay()
        if decay is None:
            return False
        R, K = decay
        log_R = math.log(R)
        log_tail = 2.0 * math.log(K) - 2.0 * n * log_R - math.log(-math.expm1(-2.0 * log_R))
        return log_tail <= math.log(_TAIL_RTOL) - 2.0 * math.log(abs(self.noising_coeffs(1)[0]))  # c_0 = 1/β_0

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
        if participation.participations(n) > 1 and _theorem_3_1_applies(self.strategy_coeffs(_check_horizon(n))):
            return "||C u(pi*)|| with pi* = (0, b, ..., (k'-1)b): seed 003 Thm 3.1, c non-negative and non-increasing"
        return super().sensitivity_route(n, participation)

    def final_row_energy(self, q, n: int):
        """The last of :meth:`row_energies` (:meth:`Mechanism.final_row_energy`).

        The structured route costs no more for all rows than the dense one for the last. Where its ``O(n)`` rows
        would not fit the size budget, the last row alone by :meth:`_long_row_energy` (a closed form for finite
        ``β``, the certified limit for ν-DP-FTRL) where the mechanism has one; otherwise refused.

        Parameters
        ----------
        q : float or array_like
            The contraction, ``q ∈ [−1, 1]``: a scalar or a 1-D array.
        n : int
            The number of steps.

        Returns
        -------
        float or numpy.ndarray
            A float for scalar ``q``, an array of shape ``(len(q),)`` for 1-D ``q``.
        """
        qs, scalar = _check_q(q)
        n = _check_horizon(n)
        if _row_energy_bytes(qs.size, n) > _validation.SIZE_BUDGET:
            last = self._long_row_energy(qs, n)
            if last is not None:
                return float(last[0]) if scalar else last
        return _last_row(self.row_energies(q, n))

    def _long_row_energy(self, qs: np.ndarray, n: int) -> np.ndarray | None:
        """``‖e_{n−1}ᵀ F_q N‖²`` per ``q`` without the ``O(n)`` rows, or ``None`` where no such route is certified."""
        return None

    def row_energies(self, q, n: int) -> np.ndarray:
        r"""The row energies ``‖e_tᵀ F_q N‖²`` for ``t < n`` (:meth:`Mechanism.row_energies`).

        For Toeplitz ``N`` the product
        ``F_q N`` is Toeplitz with first column ``y_t = Σ_{s≤t} q^{t−s} β_s``, so row ``t`` has energy
        ``Σ_{s≤t} y_s²``: one recursion and a cumulative sum, ``O(n)`` per ``q``. As ``t → ∞`` with ``|q| < 1`` it
        tends to :meth:`filtered_energy` (Lemma C.4); at ``q = 1``, ``y`` is the decoder's first column
        (seed 003 Prop. 3.3) and the energies are the prefix-sum error variances.

        Parameters
        ----------
        q : float or array_like
            The contraction, ``q ∈ [−1, 1]``: a scalar or a 1-D array.
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            The energies, shape ``(n,)`` for scalar ``q``, ``(len(q), n)`` for 1-D ``q``.
        """
        from scipy.signal import lfilter  # here, not at import: scipy.signal takes ~0.45 s to load

        qs, scalar = _check_q(q)
        n = check_size("n", _check_horizon(n), lambda m: _row_energy_bytes(qs.size, m), what="the row energies")
        beta = self.noising_coeffs(n)
        out = np.stack([np.cumsum(lfilter([1.0], [1.0, -qi], beta) ** 2) for qi in qs])
        return out[0] if scalar else out

    def noise_stream(self, shape, like, steps: int | None):
        """The noise stream: :class:`~dptheory.mechanisms.streaming.StreamingToeplitzNoise` over ``β``.

        Over the first ``steps`` coefficients (exact for ``steps`` steps); ``steps = None`` needs a finite ``β``,
        streamed whole.

        Parameters
        ----------
        shape : tuple of int
            The shape of one step's noise.
        like : array
            An array whose namespace (NumPy, CuPy, …) the stream computes on.
        steps : int or None
            The horizon the stream is exact for; ``None`` streams a finite ``β`` whole.

        Returns
        -------
        StreamingToeplitzNoise
            A callable turning blocks of white noise ``z`` of shape ``(K, *shape)`` into ``N z``.

        Raises
        ------
        ValueError
            If ``steps`` is ``None`` and ``β`` has infinitely many coefficients.
        """
        if steps is None:
            raise ValueError(f"steps must be a number of steps: {self.name} has infinitely many coefficients")
        with renamed("n", "steps"):
            taps = self.noising_coeffs(check_int("steps", steps, 1))
        return StreamingToeplitzNoise(taps, shape, like)

    def limiting_sensitivity(self, *, method: str = "auto") -> float:
        r"""The limiting sensitivity ``γ∞(β) = lim_T γ_T = ((1/2π)∫|B(ω)|^{-2} dω)^{1/2}``.

        ``γ∞`` of eq. 5, 26; Property C.1.

        ``math.inf`` when ``β`` is not minimum phase: a zero inside the disk makes ``γ_T`` grow
        geometrically even though the frequency integral can be finite (``β = (1, −2)``: the integral is
        1/3), and a zero on the circle makes both diverge (anti-PGD, Optimal-CC).

        ``method``: ``"closed_form"`` where the subclass has one, ``"time"`` (``Σ_t c_t²`` over the inverse
        coefficients, truncated where the rest is below 1e-17 relative), ``"frequency"`` (adaptive periodic
        trapezoid of ``1/|B|²``, stopped at ``max(1e-13, 4u·err_B/min|B|)`` relative — the rounding floor of
        evaluating ``|B|`` near a zero close to the circle, :meth:`_dtft_abs_error`; where the grid cannot
        resolve the integrand within 2²⁴ points it warns and falls back to the closed form or the time route).
        ``"auto"`` takes the closed form if any, else a certified quadrature if any (finite ``β``:
        :func:`~dptheory.mechanisms.spectral.inverse_energy_by_trapezoid`, relative error ≤ 1e-12, one FFT), else the
        time route.

        Parameters
        ----------
        method : {"auto", "closed_form", "time", "frequency"}, default "auto"
            The route (above); keyword-only.

        Returns
        -------
        float
            ``γ∞``; ``math.inf`` when ``β`` is not minimum phase.

        Raises
        ------
        ValueError
            If ``method`` is not a route, or is ``"closed_form"`` where the mechanism has none.

        Warns
        -----
        RuntimeWarning
            If the ``"frequency"`` route cannot resolve the integrand and falls back.
        """
        return math.sqrt(self._gamma_inf_sq(_check_method(method)))

    def _gamma_inf_sq(self, method: str) -> float:
        cache = self.__dict__.setdefault("_gamma_inf_sq_by_method", {})  # mechanisms are immutable
        if method not in cache:
            cache[method] = self._compute_gamma_inf_sq(method)
        return cache[method]

    def _compute_gamma_inf_sq(self, method: str) -> float:
        if not self.is_minimum_phase():
            return math.inf
        if method in ("auto", "closed_form"):
            value = self._gamma_inf_sq_closed_form()
            if value is not None:
                return value
            if method == "closed_form":
                raise ValueError(f"{self.name} has no closed form for the limiting sensitivity")
        if method == "auto":
            value = self._gamma_inf_sq_certified()
            if value is not None:
                return value
        if method == "frequency":
            try:
                return self._gamma_inf_sq_frequency()
            except RuntimeError as exc:
                fallback = self._gamma_inf_sq_closed_form()
                warnings.warn(f"{exc}; gamma_inf of {self.name} taken from the "
                              f"{'time route' if fallback is None else 'closed form'} instead", RuntimeWarning, stacklevel=3)
                if fallback is not None:
                    return fallback
        try:
            c = self._inverse_head()
        except RuntimeError:
            value = self._gamma_inf_sq_slow_decay()
            if value is None:
                raise
            return value
        return float(np.dot(c, c))

    def _gamma_inf_sq_slow_decay(self) -> float | None:
        """``γ∞²`` where the inverse decays too slowly for a time-domain sum; ``None`` if no route exists."""
        return None

    def _max_inverse_support(self) -> int:
        """The longest time-domain sum tried before :meth:`_gamma_inf_sq_slow_decay` takes over."""
        return 1 << 26

    def _dtft_abs_error(self) -> float:
        """Bound on the absolute rounding error of :meth:`dtft` (sets the frequency routes' accuracy floor)."""
        return 4.0 * UNIT_ROUNDOFF

    def _gamma_inf_sq_frequency(self) -> float:
        grid = 2.0 * np.pi * np.arange(4096) / 4096
        floor = 4.0 * self._dtft_abs_error() / math.sqrt(float(np.min(self.spectrum(grid))))
        return float(periodic_mean(lambda w: 1.0 / self.spectrum(w), rtol=max(1e-13, floor)))

    def _inverse_support(self) -> int:
        """Length after which the inverse coefficients carry < 1e-17 of their energy (doubling search); the
        coefficients found are kept (:meth:`_inverse_head`), so the search is paid once per mechanism."""
        head = self._search_inverse_head(self._max_inverse_support())
        if head is None:
            raise RuntimeError(f"the inverse coefficients of {self.name} decay too slowly for a time-domain sum")
        return head.size

    def _search_inverse_head(self, limit: int) -> np.ndarray | None:
        """The doubling search of :meth:`_inverse_support` over lengths ``≤ limit``; ``None`` if it does not end there."""
        cached = self.__dict__.get("_inverse_head_cache")  # mechanisms are immutable
        if cached is not None:
            return cached
        n = self._inverse_search_start()
        while n <= limit:
            c = self.strategy_coeffs(n)
            head, tail = np.dot(c[: n // 2], c[: n // 2]), np.dot(c[n // 2 :], c[n // 2 :])
            if tail <= _TAIL_RTOL * head:
                c.setflags(write=False)
                self.__dict__["_inverse_head_cache"] = c
                return c
            n *= 2
        return None

    def _inverse_search_start(self) -> int:
        """The first length the doubling search of :meth:`_inverse_support` tries."""
        return max(1024, 4 * self._support())

    def _inverse_head(self) -> np.ndarray:
        """The inverse coefficients ``c_0 … c_{N−1}`` up to :meth:`_inverse_support` ``= N`` (all but < 1e-17 of
        ``γ∞²``), computed once."""
        n = self._inverse_support()
        cached = self.__dict__.get("_inverse_head_cache")
        return cached if cached is not None and cached.size == n else self.strategy_coeffs(n)

    def filtered_energy(self, q=None, *, gap=None, method: str = "auto") -> np.ndarray:
        r"""The pole integral ``E_q(β) = (1/2π)∫_{−π}^{π} |B(ω)|² / |1 − q e^{iω}|² dω``.

        For ``|q| < 1``, vectorised over ``q``.

        This is the stationary variance of ``y_{t+1} = q y_t + (Bw)_t`` for unit white ``w`` (Thm F.2), the
        building block of App. B eq. (18) (``q = 1 − η``) and of App. C (``q = 1 − ηλ_j``). Equal to
        ``⟨β, T_j β⟩ / (1 − q²)`` (Lemma C.4). Pass the pole either as ``q`` or as ``gap = 1 − q = ηλ``: the
        integral depends on ``1 − q`` and ``1 − q²`` near ``q = 1``, which re-forming from ``q`` loses to
        cancellation (relative error ~1e-16/ηλ), so callers that know ``ηλ`` pass ``gap``.
        Routes: ``"closed_form"`` (subclass), ``"time"`` (exact geometric-filter sum over the coefficients,
        Lemma C.4/F.12), ``"frequency"`` (adaptive periodic trapezoid; error decays like ``|q|^M``).
        ``"auto"``: closed form, else time domain.

        Parameters
        ----------
        q : float or array_like, optional
            The pole, ``|q| < 1``; give exactly one of ``q`` and ``gap``.
        gap : float or array_like, optional
            The gap ``1 − q = ηλ``, in ``(0, 2)``; keyword-only.
        method : {"auto", "closed_form", "time", "frequency"}, default "auto"
            The route (above); keyword-only.

        Returns
        -------
        float or numpy.ndarray
            ``E_q(β)``: a float for a scalar pole, else a 1-D array, one per pole.

        Raises
        ------
        ValueError
            If not exactly one of ``q`` and ``gap`` is given, either is out of range, or ``method`` is
            ``"closed_form"`` where the mechanism has none.
        """
        method = _check_method(method)
        gaps, scalar = _check_gap(q, gap)
        out = None
        if method in ("auto", "closed_form"):
            out = self._energy_closed_form(gaps)
            if out is None and method == "closed_form":
                raise ValueError(f"{self.name} has no closed form for the pole integral")
        if out is None and method in ("auto", "time"):
            out = geometric_filter_energy(self.noising_coeffs(self._support()), gaps)
        if out is None:
            out = np.concatenate([self._energy_frequency(chunk) for chunk in np.array_split(gaps, -(-gaps.size // 64))])
        return float(out[0]) if scalar else out

    def _energy_frequency(self, gaps: np.ndarray) -> np.ndarray:
        min_points = 64.0 / max(1e-12, float(np.min(gaps)))
        return periodic_mean(
            lambda w: self.spectrum(w)[:, None] / _pole_modulus_sq(gaps[None, :], w[:, None]),
            min_points=int(min(min_points, 1 << 22)),
        )


class FiniteToeplitz(ToeplitzMechanism):
    r"""``B`` generated by a finite sequence ``β = (β_0, …, β_{n−1})``, ``β_0 ≠ 0``.

    Exact time-domain routes (the pole integral is a finite geometric-filter sum), minimum-phase test by
    polynomial roots or the argument principle.

    Parameters
    ----------
    beta : array_like
        The taps ``β``, 1-D, with ``β_0 ≠ 0`` (trailing zeros are dropped).
    name : str, optional
        The mechanism's name; by default ``toeplitz([...])`` with the taps.

    Raises
    ------
    ValueError
        If ``β_0 = 0``.
    """

    def __init__(self, beta: Sequence[float] | np.ndarray, *, name: str | None = None):
        b = check_real_array("beta", beta).copy()
        if b[0] == 0.0:
            raise ValueError(
                "beta[0] must be nonzero (valid range: beta[0] != 0): with beta[0] = 0 the matrix B is "
                "singular and no sensitivity exists"
            )
        b = np.trim_zeros(b, "b")
        self.beta = b
        self.beta.setflags(write=False)
        self.name = check_name("name", name) or f"toeplitz({np.array2string(b, threshold=6, precision=4)})"
        self._min_phase: bool | None = None

    def noising_coeffs(self, n: int) -> np.ndarray:
        """The first ``n`` taps ``β_0, …, β_{n−1}``, zero past the last one.

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
        k = min(n, self.beta.size)
        out[:k] = self.beta[:k]
        return out

    def dtft(self, omega) -> np.ndarray:
        r"""The DTFT ``B(ω) = Σ_t β_t e^{−iωt}``, a polynomial in ``e^{−iω}``.

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
        return np.polynomial.polynomial.polyval(z, self.beta)

    def spectrum(self, omega) -> np.ndarray:
        r"""The power spectrum ``|B(ω)|²``, by one FFT on a uniform grid.

        Parameters
        ----------
        omega : float or array_like
            The frequencies ``ω``.

        Returns
        -------
        numpy.ndarray
            ``|B(ω)|²``, of ``omega``'s shape.
        """
        omega = _check_omega(omega)
        M = omega.size
        # On a uniform grid ω_k = ω_0 + 2πk/M (what periodic_mean evaluates) the DTFT is one FFT of the
        # modulated sequence β_t e^{−iω_0 t}, folded modulo M; elsewhere evaluate the polynomial.
        if M > 1 and omega.ndim == 1 and abs(omega[1] - omega[0] - 2 * np.pi / M) < 1e-12 and abs(
            omega[-1] - omega[0] - 2 * np.pi * (M - 1) / M
        ) < 1e-9:
            t = np.arange(self.beta.size)
            modulated = self.beta * np.exp(-1j * omega[0] * t)
            folded = np.bincount(t % M, weights=modulated.real, minlength=M) + 1j * np.bincount(
                t % M, weights=modulated.imag, minlength=M
            )
            return np.abs(sfft.fft(folded)) ** 2
        return np.abs(self.dtft(omega)) ** 2

    def is_minimum_phase(self) -> bool:
        """Whether ``B(z) ≠ 0`` on the closed unit disk, decided once and kept.

        A certified decay bound (:meth:`_inverse_decay`, one FFT) settles it where it exists; elsewhere
        :func:`~dptheory.mechanisms.spectral.is_minimum_phase` (roots or the argument principle) decides.

        Returns
        -------
        bool
            Whether ``β`` is minimum phase.
        """
        if self._min_phase is None:
            self._min_phase = self._inverse_decay() is not None or is_minimum_phase(self.beta)
        return self._min_phase

    def _support(self) -> int:
        return self.beta.size

    def _gamma_inf_sq_certified(self) -> float | None:
        try:
            return inverse_energy_by_trapezoid(self.beta)
        except RuntimeError:  # a zero close to the circle: the time route or the step-down recursion
            return None

    def _inverse_decay(self) -> tuple[float, float] | None:
        """:func:`~dptheory.mechanisms.spectral.inverse_decay_bound`; ``None`` where its annulus cannot be certified
        (a zero close to the circle) or ``β`` is not minimum phase (its argument principle found a zero in the disk)."""
        if "_decay" not in self.__dict__:  # β is immutable
            try:
                self.__dict__["_decay"] = inverse_decay_bound(self.beta)
            except (RuntimeError, ValueError):
                self.__dict__["_decay"] = None
        return self.__dict__["_decay"]

    def _gamma_inf_sq_slow_decay(self) -> float | None:
        return inverse_energy_by_step_down(self.beta) if self.beta.size <= _STEP_DOWN_TAPS else None

    def _max_inverse_support(self) -> int:
        # with the step-down route behind it, a sum past 2²⁰ terms costs more than the O(len(β)²) recursion
        return 1 << 20 if self.beta.size <= _STEP_DOWN_TAPS else super()._max_inverse_support()

    def _dtft_abs_error(self) -> float:
        return 4.0 * UNIT_ROUNDOFF * math.log2(max(2, self.beta.size)) * float(np.sum(np.abs(self.beta)))

    # -- first order, β = (β_0, β_1): the inverse is geometric, c_t = a^t/β_0 with a = −β_1/β_0 -----------------
    def _first_order_gap(self) -> float:
        """``|β_0| − |β_1|`` (exact by Sterbenz's lemma when the two are close; damped anti-PGD: ν)."""
        return abs(self.beta[0]) - abs(self.beta[1])

    def _first_order(self) -> tuple[float, float, float] | None:
        r"""``(β_0, a, log|a|)`` for a minimum-phase ``β`` of two taps, else ``None``; for ``|a| ≥ ½`` ``log|a|`` is
        formed as ``log1p(−gap/|β_0|)`` so that ``|a|^t`` keeps full relative precision as ``|a| → 1``."""
        if self.beta.size != 2 or self._first_order_gap() <= 0.0:
            return None
        b0, b1 = self.beta
        ratio = abs(b1) / abs(b0)
        log_abs = math.log(ratio) if ratio < 0.5 else math.log1p(-self._first_order_gap() / abs(b0))
        return b0, -b1 / b0, log_abs

    def strategy_coeffs(self, n: int) -> np.ndarray:
        r"""First ``n`` coefficients of ``1/B(z)``: geometric for two taps, else by series inversion.

        The first column of ``B⁻¹`` (Toeplitz, App. A).

        Parameters
        ----------
        n : int
            The number of coefficients.

        Returns
        -------
        numpy.ndarray
            ``c_0, …, c_{n−1}``, shape ``(n,)``.
        """
        n = _check_length(n)
        first = self._first_order()
        if first is None:
            return series_inverse(self.beta, n)
        b0, a, log_abs = first
        t = np.arange(n)
        return np.sign(a) ** t * np.exp(t * log_abs) / b0

    def sensitivity(self, n: int | None = None, participation: Participation | None = None, *, method: str = "auto") -> float:
        r"""The sensitivity, as :meth:`ToeplitzMechanism.sensitivity`, with a closed form for two taps.

        For two taps and single participation the closed form
        ``γ_n² = (1 − a^{2n})/(β_0²(1 − a²))`` (seed 004 Thm 1.1).

        Parameters
        ----------
        n : int or None, optional
            The number of steps; ``None`` (the default) is the streaming limit ``n → ∞``.
        participation : Participation or None, optional
            The participation schema; ``None`` (the default) is single participation.
        method : {"auto", "closed_form", "time", "frequency"}, default "auto"
            The route of :meth:`limiting_sensitivity` where it is used (keyword-only).

        Returns
        -------
        float
            ``sens_Π(C)``.
        """
        _check_method(method)
        first = self._first_order()
        if n is None or first is None or not _check_participation(participation).single:
            return super().sensitivity(n, participation, method=method)
        n = _check_horizon(n)
        return math.sqrt(-math.expm1(2 * n * first[2]) * self._first_order_gamma_inf_sq())

    def noise_stream(self, shape, like, steps: int | None = None):
        """The stream of ``β`` itself (exact over any horizon), or of its first ``steps`` taps.

        Parameters
        ----------
        shape : tuple of int
            The shape of one step's noise.
        like : array
            An array whose namespace (NumPy, CuPy, …) the stream computes on.
        steps : int or None, optional
            Keep only the first ``steps`` taps; ``None`` (the default) keeps them all.

        Returns
        -------
        StreamingToeplitzNoise
            A callable turning blocks of white noise ``z`` of shape ``(K, *shape)`` into ``N z``.
        """
        taps = self.beta if steps is None else self.beta[: check_int("steps", steps, 1)]
        return StreamingToeplitzNoise(taps, shape, like)

    def _long_row_energy(self, qs: np.ndarray, n: int) -> np.ndarray | None:
        r"""Past the last tap ``y_t = q^{t−L+1} y_{L−1}``: ``Σ_{t<L} y_t² + y_{L−1}² Σ_{j=1}^{n−L} q^{2j}``, exact in
        ``O(L)`` per ``q`` (``n > L``)."""
        from scipy.signal import lfilter  # here, not at import: scipy.signal takes ~0.45 s to load

        L = self.beta.size
        if n <= L:
            return None
        out = np.empty(qs.size)
        for i, qi in enumerate(qs):
            y = lfilter([1.0], [1.0, -qi], self.beta)
            out[i] = float(np.sum(y * y)) + float(y[-1] ** 2 * _geometric_tail(np.asarray(qi), n - L))
        return out

    def stream_history(self, steps: int | None) -> int:
        """The past inputs the stream of ``β`` keeps: ``len(β) − 1`` at most, whatever the horizon.

        Parameters
        ----------
        steps : int or None
            The horizon of the stream; ``None`` streams ``β`` whole.

        Returns
        -------
        int
            ``min(steps, len(β)) − 1`` (0 for DP-SGD's ``β = (1)``).
        """
        return (self.beta.size if steps is None else min(check_int("steps", steps, 1), self.beta.size)) - 1

    def cache_key(self) -> str:
        """A stable identifier: the SHA-256 of the taps' bytes.

        Returns
        -------
        str
            ``FiniteToeplitz:<hex digest>``.
        """
        return f"FiniteToeplitz:{hashlib.sha256(np.ascontiguousarray(self.beta).tobytes()).hexdigest()}"

    def _first_order_gamma_inf_sq(self) -> float:
        """``1/(β_0²(1 − a²)) = 1/((|β_0| − |β_1|)(|β_0| + |β_1|))``."""
        return 1.0 / (self._first_order_gap() * (abs(self.beta[0]) + abs(self.beta[1])))

    def _gamma_inf_sq_closed_form(self) -> float | None:
        return None if self._first_order() is None else self._first_order_gamma_inf_sq()

    def _energy_closed_form(self, gaps: np.ndarray) -> np.ndarray | None:
        r"""Two taps: ``y = (β_0, β_0 q + β_1, q(β_0 q + β_1), …)``, so ``E = β_0² + (B(1) − β_0 g)²/(g(2 − g))`` with
        ``g = 1 − q`` and ``B(1) = β_0 + β_1`` formed as ``±(|β_0| − |β_1|)`` when the taps have opposite signs."""
        if self._first_order() is None:
            return None
        b0, b1 = self.beta
        dc = math.copysign(self._first_order_gap(), b0) if b0 * b1 < 0 else b0 + b1
        return b0**2 + (dc - b0 * gaps) ** 2 / (gaps * (2.0 - gaps))


class SqrtToeplitz(ToeplitzMechanism):
    r"""``B(z) = √(1 − r z)``, ``r = 1 − ν``: ``β_t = (−1)^t C(1/2, t) r^t`` (eq. 7; Thm 2.1).

    ``ν ∈ (0, 1)`` is ν-DP-FTRL; ``ν = 0`` is Optimal-CC (Fichtenberger et al. 2023, γ∞ = ∞); ``ν = η ∈ (0, 2)``
    is the mean-estimation optimum ``β*`` of Thm 2.1. Closed forms:

    * ``|B(ω)|² = |1 − ν − e^{iω}|`` (eq. 19);
    * ``γ∞² = Σ_t (C(2t,t)/4^t)² r^{2t} = ₂F₁(½,½;1;r²) = (2/π) K(|r|)`` (Lemma F.15 + Landen), evaluated as
      ``(2/π)·ellipkm1(ν(2 − ν))`` — stable as ``ν → 0``;
    * ``(1/2π)∫|B|²/|1 − q e^{iω}|² = I(ν, 1 − q)/(2π)`` (Lemma F.16), with ``I(a, a) = 4K(1 − a)`` (F.15).

    Coefficients by the stable recurrences ``β_t = β_{t−1}·r(t − 3/2)/t`` and ``c_t = c_{t−1}·r(t − 1/2)/t``
    for the inverse ``C(2t,t)/4^t · r^t``.

    Parameters
    ----------
    nu : float
        ``ν ∈ [0, 2)``.
    name : str, optional
        The mechanism's name; by default ``SqrtToeplitz(nu=…)``.
    """

    def __init__(self, nu: float, *, name: str | None = None):
        self.nu = check_in_interval("nu", nu, 0.0, 2.0, lo_closed=True)
        self.r = 1.0 - self.nu
        self.name = check_name("name", name) or f"SqrtToeplitz(nu={self.nu:g})"

    def _recurrence(self, n: int, shift: float) -> np.ndarray:
        n = _check_length(n)
        t = np.arange(1, n, dtype=float)
        return np.concatenate([[1.0], np.cumprod(self.r * (t - shift) / t)])[:n]

    def noising_coeffs(self, n: int) -> np.ndarray:
        r"""The first ``n`` coefficients ``β_t = (−1)^t C(1/2, t) r^t`` of ``√(1 − r z)``.

        Parameters
        ----------
        n : int
            The number of coefficients.

        Returns
        -------
        numpy.ndarray
            ``β_0, …, β_{n−1}``, shape ``(n,)``.
        """
        return self._recurrence(n, 1.5)

    def strategy_coeffs(self, n: int) -> np.ndarray:
        r"""The first ``n`` coefficients ``C(2t,t)/4^t · r^t`` of ``1/√(1 − r z)``.

        The first column of ``B⁻¹`` (Toeplitz, App. A).

        Parameters
        ----------
        n : int
            The number of coefficients.

        Returns
        -------
        numpy.ndarray
            ``c_0, …, c_{n−1}``, shape ``(n,)``.
        """
        return self._recurrence(n, 0.5)

    def _long_row_energy(self, qs: np.ndarray, n: int) -> np.ndarray | None:
        r"""The limit :meth:`filtered_energy` where it equals the last row energy in double precision, else ``None``.

        ``|β_t| ≤ |r|^t`` (``|C(½, t)| ≤ ½`` for ``t ≥ 1``), so ``|y_t| ≤ (t + 1)ρ^t`` with ``ρ = max(|q|, |r|)`` and
        the rows past ``n`` add at most ``Σ_{t≥n} (t+1)²ρ^{2t} ≤ (n+1)²ρ^{2n}/(1 − a)``, ``a = ((n+2)/(n+1))²ρ²``; where
        that is below ``_TAIL_RTOL`` of ``y_0² = 1`` (at most the energy) the limit is returned."""
        rho = max(float(np.max(np.abs(qs))), abs(self.r))
        a = ((n + 2) / (n + 1)) ** 2 * rho**2
        if not a < 1.0:
            return None
        if rho > 0.0 and 2.0 * math.log(n + 1) + 2.0 * n * math.log(rho) - math.log1p(-a) > math.log(_TAIL_RTOL):
            return None
        return np.atleast_1d(np.asarray(self.filtered_energy(qs), dtype=float))

    def dtft(self, omega) -> np.ndarray:
        r"""The DTFT ``B(ω) = √(1 − r e^{−iω})``.

        Parameters
        ----------
        omega : float or array_like
            The frequencies ``ω``.

        Returns
        -------
        numpy.ndarray
            ``B(ω)``, complex, of ``omega``'s shape.
        """
        return np.sqrt(1.0 - self.r * np.exp(-1j * _check_omega(omega)))

    def spectrum(self, omega) -> np.ndarray:
        r"""The power spectrum ``|B(ω)|² = |1 − r e^{−iω}|``.

        Parameters
        ----------
        omega : float or array_like
            The frequencies ``ω``.

        Returns
        -------
        numpy.ndarray
            ``|B(ω)|²``, of ``omega``'s shape.
        """
        return np.abs(1.0 - self.r * np.exp(-1j * _check_omega(omega)))

    def is_minimum_phase(self) -> bool:
        """Whether ``B(z) ≠ 0`` on the closed unit disk: ``ν > 0`` (the zero ``1/r`` lies outside).

        Returns
        -------
        bool
            ``ν > 0``.
        """
        return self.nu > 0.0

    def cache_key(self) -> str:
        """A stable identifier: ``ν``.

        Returns
        -------
        str
            ``SqrtToeplitz:<ν>``.
        """
        return f"SqrtToeplitz:{self.nu!r}"

    def _support(self) -> int:
        if self.nu == 0.0:
            raise ValueError("Optimal-CC (nu = 0) has non-summable coefficients: no time-domain route")
        # |β_t| ≤ |r|^t; energy beyond N is below |r|^{2N} ≤ _TAIL_RTOL.
        return int(math.ceil(0.5 * math.log(_TAIL_RTOL) / math.log(abs(self.r)))) + 1 if self.r != 0 else 1

    def _gamma_inf_sq_closed_form(self) -> float:
        return float(2.0 / math.pi * ellipk_complement(self.nu * (2.0 - self.nu)))

    def _energy_closed_form(self, gaps: np.ndarray) -> np.ndarray:
        if self.nu == 0.0:
            return np.array([_optimal_cc_pole_integral(g) for g in gaps])
        return sqrt_pole_integral(self.nu, gaps) / (2.0 * math.pi)


def _optimal_cc_pole_integral(b: float) -> float:
    """``(1/2π)∫|1 − e^{iω}|/|1 − b − e^{iω}|² dω`` by adaptive quadrature (F.16 degenerates at a = 0)."""
    f = lambda w: abs(1.0 - np.exp(1j * w)) / _pole_modulus_sq(b, w)
    val, _ = integrate.quad(f, 0.0, math.pi, points=[min(b, 1.0)], limit=500, epsabs=0.0, epsrel=1e-13)
    return val / math.pi


MechanismLike = Union[Mechanism, Sequence[float], np.ndarray]


def as_mechanism(mechanism: MechanismLike) -> Mechanism:
    """A :class:`~dptheory.mechanisms.Mechanism` as it is, or a finite sequence ``β`` as :class:`FiniteToeplitz`.

    Parameters
    ----------
    mechanism : Mechanism or array_like
        A mechanism, or the taps ``β`` of a finite Toeplitz one.

    Returns
    -------
    Mechanism
        ``mechanism`` itself, or ``FiniteToeplitz(mechanism)``.
    """
    return mechanism if isinstance(mechanism, Mechanism) else FiniteToeplitz(mechanism)


def toeplitz(coeffs: Sequence[float] | np.ndarray) -> FiniteToeplitz:
    """Toeplitz ``B`` from any user sequence ``β`` (``β_0 ≠ 0``).

    Parameters
    ----------
    coeffs : array_like
        The taps ``β``, 1-D, with ``β_0 ≠ 0``.

    Returns
    -------
    FiniteToeplitz
        The mechanism.
    """
    return FiniteToeplitz(coeffs)


def dpsgd() -> FiniteToeplitz:
    """DP-SGD / Noisy-SGD: ``B = I``, ``β = (1, 0, 0, …)``, ``γ_T = γ∞ = 1``.

    Returns
    -------
    FiniteToeplitz
        The mechanism with ``β = (1)``.
    """
    return FiniteToeplitz([1.0], name="dpsgd()")


def nu_ftrl(nu: float) -> SqrtToeplitz:
    r"""ν-DP-FTRL (seed 004, eq. 7): ``β_t = (−1)^t C(1/2, t)(1 − ν)^t``, ``0 < ν < 1``.

    Parameters
    ----------
    nu : float in (0, 1)
        The damping ``ν``.

    Returns
    -------
    SqrtToeplitz
        The mechanism.
    """
    nu = check_in_interval("nu", nu, 0.0, 1.0)
    return SqrtToeplitz(nu, name=f"nu_ftrl({nu:g})")


def optimal_cc() -> SqrtToeplitz:
    r"""Optimal-CC (Fichtenberger et al. 2023): eq. (7) with ν = 0; ``γ_T² ≈ (1/π) ln T``, ``γ∞ = ∞``.

    Returns
    -------
    SqrtToeplitz
        The mechanism with ``ν = 0``.
    """
    return SqrtToeplitz(0.0, name="optimal_cc()")


def anti_pgd() -> FiniteToeplitz:
    """Anti-PGD (Orvieto et al. 2022): ``β = (1, −1)``; ``B⁻¹`` is all-ones, ``γ_T² = T``, ``γ∞ = ∞``.

    Returns
    -------
    FiniteToeplitz
        The mechanism with ``β = (1, −1)``.
    """
    return FiniteToeplitz([1.0, -1.0], name="anti_pgd()")


class DampedAntiPGD(FiniteToeplitz):
    r"""``β = (1, −(1 − ν))``: :class:`FiniteToeplitz` whose first-order closed forms use ``ν`` itself.

    ``1 − ν`` rounds ν to ~1e-16 absolute, i.e. 1e-4 relative at ν = 1e-12; keeping ν makes
    ``γ∞² = 1/(ν(2 − ν))``, ``γ_T`` and the pole integrals exact to rounding down to ν = 1e-12 and below.

    Parameters
    ----------
    nu : float in (0, 1)
        The damping ``ν``.
    """

    def __init__(self, nu: float):
        self.nu = check_in_interval("nu", nu, 0.0, 1.0)
        super().__init__([1.0, -(1.0 - self.nu)], name=f"damped_anti_pgd({self.nu:g})")

    def cache_key(self) -> str:
        """A stable identifier: ``ν``.

        Returns
        -------
        str
            ``DampedAntiPGD:<ν>``.
        """
        return f"DampedAntiPGD:{self.nu!r}"

    def _first_order_gap(self) -> float:
        return self.nu

    def is_minimum_phase(self) -> bool:
        """Whether ``B(z) ≠ 0`` on the closed unit disk: always, for ``ν ∈ (0, 1)``.

        Returns
        -------
        bool
            ``True``.
        """
        return True  # the zero 1/(1 − ν) lies outside the disk for every ν ∈ (0, 1)


def damped_anti_pgd(nu: float) -> DampedAntiPGD:
    r"""Anti-PGD with damping (Table 2): ``β = (1, −(1 − ν))``, ``0 < ν < 1``; ``γ∞² = 1/(ν(2 − ν))``.

    Parameters
    ----------
    nu : float in (0, 1)
        The damping ``ν``.

    Returns
    -------
    DampedAntiPGD
        The mechanism.
    """
    return DampedAntiPGD(nu)


def mean_estimation_optimal(eta: float) -> SqrtToeplitz:
    r"""``β*`` of Thm 2.1 (App. B eq. 19): the optimum for mean estimation.

    ``B*(ω) = √(1 − (1−η)e^{−iω})``, optimal for mean estimation
    with learning rate ``η ∈ (0, 2)`` (the stability range; the paper assumes ``η < 1``).

    Parameters
    ----------
    eta : float in (0, 2)
        The learning rate ``η``.

    Returns
    -------
    SqrtToeplitz
        The mechanism with ``ν = η``.
    """
    eta = check_in_interval("eta", eta, 0.0, 2.0, why="the stability range of mean estimation")
    return SqrtToeplitz(eta, name=f"mean_estimation_optimal({eta:g})")
