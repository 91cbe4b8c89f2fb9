r"""Buffered Linear Toeplitz (BLT) strategies (seed 003 §2, Eq. 2, Alg. 2, 3 and 5; Dvijotham et al. 2024).

A ``d``-buffer BLT is the lower-triangular Toeplitz strategy ``C = BLT(θ, ω)`` with buffer decays
``θ ∈ (0, 1]^d`` and output scales ``ω > 0``:

    ``c_0 = 1,  c_i = Σ_j ω_j θ_j^{i−1}  (i ≥ 1)``                                    (seed 003, Eq. 2)

with generating function ``C(x) = 1 + Σ_j ω_j x/(1 − θ_j x) = p(x)/q(x)``, ``q(x) = Π_j (1 − θ_j x)``. Its noising
matrix ``N = C⁻¹`` is again a ``d``-buffer BLT, ``BLT(θ̂, ω̂)``, whose decays are the inverse roots of ``p``:
``θ̂ = eig(diag θ − 1ωᵀ)`` (seed 003 §3.1), and whose scales follow from the decay pair by Alg. 5
(:func:`output_scales`). In seed 004's words ``β`` (the noising coefficients) is ``ĉ`` and ``B(z) = q(z)/p(z)``.

Every quantity of :class:`~dptheory.mechanisms.ToeplitzMechanism` has a closed form here, in ``O(d²)`` or
``O(nd)`` (never ``O(n²)``): coefficients by Eq. 2, the rational DTFT, ``‖c_{0:n}‖²`` by geometric sums and its
limit ``1 + Σ_{j,k} ω_jω_k/(1 − θ_jθ_k)``, the row energies of ``F_q N`` and the pole integrals by partial
fractions, and the noise stream with ``d`` buffers (Alg. 3, :class:`~dptheory.mechanisms.streaming.BLTStream`).

Two facts about the decay pair used throughout (both checked in ``tests/test_blt.py``):

* with ``ω > 0`` the matrix ``diag θ − 1ωᵀ`` is similar to the symmetric ``diag θ − √ω√ωᵀ``, so ``θ̂`` is real
  and interlaces ``θ`` (sorted decreasingly, ``θ̂_i ∈ (θ_{i+1}, θ_i)``); conversely a decreasing pair that
  interlaces gives ``ω > 0`` by the product form of Alg. 5;
* the trace gives ``c_1 = Σ_j ω_j = Σ_j θ_j − Σ_j θ̂_j``.
"""

from __future__ import annotations

import hashlib
import math
from typing import Sequence

import numpy as np

from .._validation import (check_bool, check_choice, check_in_interval, check_int, check_name, check_real_array,
                           check_size)
from .base import Participation, _check_participation, _check_q
from .streaming import BLTStream
from .toeplitz import _TAIL_RTOL, ToeplitzMechanism, _check_horizon, _check_length, _check_method, _check_omega

__all__ = ["BLT", "output_scales", "blt_coeffs", "nu_ftrl_blt"]

_FORMS = ("product", "alg5")


def _check_decays(name: str, values, *, signed: bool, distinct: bool = True) -> np.ndarray:
    arr = np.asarray(values, dtype=float) if np.size(values) == 0 else check_real_array(name, values)
    arr = np.atleast_1d(arr).astype(float)
    if signed:
        bad = (np.abs(arr) > 1.0) | (arr == 0.0)
        rng = "[-1, 1] without 0"
    else:
        bad = (arr <= 0.0) | (arr > 1.0)
        rng = "(0, 1]"
    if np.any(bad):
        raise ValueError(f"{name} must lie in {rng} (buffer decays), got {arr[bad][0]!r}")
    order = np.sort(arr)
    if distinct and order.size > 1 and np.any(np.diff(order) == 0.0):
        dup = order[:-1][np.diff(order) == 0.0][0]
        raise ValueError(
            f"{name} must have distinct decays (Alg. 5 divides by theta_i - theta_j), got {dup!r} twice: "
            f"merge the two buffers into one with the sum of their scales"
        )
    return arr


def _pairwise_products(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Π_j (a_i − b_j)`` and ``Π_{j≠i} (a_i − a_j)`` for every ``i``."""
    num = np.prod(a[:, None] - b[None, :], axis=1)
    diff = a[:, None] - a[None, :]
    np.fill_diagonal(diff, 1.0)
    return num, np.prod(diff, axis=1)


def output_scales(theta, theta_hat, *, form: str = "product") -> np.ndarray:
    r"""The unique ``ω`` with ``BLT(θ, ω)⁻¹`` having decays ``θ̂`` (seed 003 Alg. 5, ``calc_output_scale``).

    ``form="product"``: ``ω_i = Π_j (θ_i − θ̂_j) / Π_{j≠i} (θ_i − θ_j)`` (the partial-fraction residue of
    ``C(x) = p(x)/q(x)``; jax_privacy's ``blt_pair_from_theta_pair``). ``form="alg5"``: Alg. 5 as printed,
    ``f(x) = (p(x) − q(x))/x``, ``z = Π_i(−θ_i)``, ``w_i = (Π_{j≠i}(θ_i⁻¹ − θ_j⁻¹))⁻¹``,
    ``ω_i = f(θ_i⁻¹)·(−θ_i w_i)/z``. The two are the same rational function (``tests/test_blt.py``, C1).
    Swapping the arguments gives the inverse's scales ``ω̂``. ``O(d²)``; the decays must be distinct.

    Parameters
    ----------
    theta : array_like
        The ``d`` decays ``θ`` of the strategy, distinct, in ``[−1, 1]`` without 0.
    theta_hat : array_like
        The ``d`` decays ``θ̂`` of its inverse, distinct, in ``[−1, 1]`` without 0.
    form : {"product", "alg5"}, default "product"
        The formula (above); keyword-only.

    Returns
    -------
    numpy.ndarray
        The output scales ``ω``, shape ``(d,)``.

    Raises
    ------
    ValueError
        If the decays are out of range or repeated, ``theta`` and ``theta_hat`` differ in length, or ``form`` is
        not one of the two.
    """
    th = _check_decays("theta", theta, signed=True)
    thh = _check_decays("theta_hat", theta_hat, signed=True)
    if th.size != thh.size:
        raise ValueError(f"theta and theta_hat must have the same length d, got {th.size} and {thh.size}")
    check_choice("form", form, _FORMS)
    if form == "product":
        num, den = _pairwise_products(th, thh)
        return num / den
    # Alg. 5 as printed: p, q in increasing powers of x; f = (p − q)/x drops the (equal) constant terms
    p = np.polynomial.polynomial.polyfromroots(1.0 / thh) * np.prod(-thh)
    q = np.polynomial.polynomial.polyfromroots(1.0 / th) * np.prod(-th)
    f = (p - q)[1:]
    z = np.prod(-th)
    inv = 1.0 / th
    _, den = _pairwise_products(inv, inv)
    w = 1.0 / den
    return np.polynomial.polynomial.polyval(inv, f) * (-th * w) / z


def blt_coeffs(theta: np.ndarray, omega: np.ndarray, n: int) -> np.ndarray:
    r"""The first ``n`` Toeplitz coefficients of ``BLT(θ, ω)``: ``(1, Σω, Σωθ, Σωθ², …)`` (seed 003 Eq. 2), ``O(nd)``.

    Parameters
    ----------
    theta : array_like
        The ``d`` buffer decays ``θ``, in ``[−1, 1]`` without 0 (empty: ``d = 0``).
    omega : array_like
        The ``d`` output scales ``ω``, finite, one per decay.
    n : int
        The number of coefficients (at least 0).

    Returns
    -------
    numpy.ndarray
        ``c_0, …, c_{n−1}``, shape ``(n,)``.

    Raises
    ------
    ValueError
        If a decay or scale is not finite or out of range, ``theta`` and ``omega`` differ in length, or the
        ``O(nd)`` powers would not fit the size budget.
    """
    theta = np.zeros(0) if np.size(theta) == 0 else _check_decays("theta", theta, signed=True, distinct=False)
    omega = np.zeros(0) if np.size(omega) == 0 else check_real_array("omega", omega)
    if theta.size != omega.size:
        raise ValueError(f"theta and omega must have the same length d, got {theta.size} and {omega.size}")
    n = _check_length(n, per_step=8.0 * (theta.size + 2))
    out = np.zeros(n)
    if n == 0:
        return out
    out[0] = 1.0
    if n > 1 and theta.size:
        powers = np.power.outer(theta, np.arange(n - 1, dtype=float))  # (d, n−1)
        out[1:] = omega @ powers
    return out


def _log_abs(x: np.ndarray) -> np.ndarray:
    """``log|x|`` with ``log1p`` near 1, so that ``1 − x`` keeps its relative precision (``θ = 1 − 10⁻¹¹``)."""
    a = np.abs(x)
    near = a > 0.5
    return np.where(near, np.log1p(np.where(near, a, 1.0) - 1.0), np.log(np.where(near, 1.0, a)))


def _geometric_sum(r: np.ndarray, m) -> np.ndarray:
    r"""``Σ_{t<m} r^t = (1 − r^m)/(1 − r)`` elementwise (``m`` where ``r = 1``), by ``expm1`` for ``0 < r < 1``
    so that ``r = 1 − 10⁻¹¹`` keeps full relative precision; ``m`` broadcasts against ``r``. The logarithms are
    taken on ``r`` before broadcasting (``r`` holds ``(d + 1)²`` ratios, ``m`` the ``n`` steps)."""
    r, m = np.asarray(r, dtype=float), np.asarray(m, dtype=float)
    pos, neg = (r > 0.0) & (r != 1.0), r <= 0.0
    L = _log_abs(np.where(pos, r, 0.5))  # 0.5: a placeholder where r is not in (0, 1) ∪ (1, ∞)
    out = np.where(pos, np.expm1(m * L) / np.expm1(L), m)
    if np.any(neg):
        r_neg = np.where(neg, r, 0.0)
        out = np.where(neg, (1.0 - r_neg**m) / (1.0 - r_neg), out)
    return np.asarray(out, dtype=float)


#: The most buffers :meth:`BLT.rational_approximation` builds: at its defaults double precision resolves the
#: strategy's decays up to 24 buffers and not at 25 (measured 2026-12-02); jax_privacy's optimiser stops at 15
_RA_MAX_BUFFERS = 24


def _pillutla_score(theta: np.ndarray, omega: np.ndarray) -> float:
    r"""``Σ_i ω_i/θ_i`` (:meth:`BLT.pillutla_score`)."""
    return float(np.sum(omega / theta))


#: The largest partial-fraction weight ``|a_u|`` the finite-``n`` sums (:meth:`BLT.row_energies` at ``q = 1``,
#: :meth:`BLT.final_row_energy`) accept: they lose ``~max|a|²(d+1)²ε`` (≤ 3e-13 at ``d = 4``) and have the
#: recursion to fall back on. The pole integral (``n = ∞``) accepts ``10³``: its other route truncates.
_FINITE_SUM_BOUND = 10.0


class BLT(ToeplitzMechanism):
    r"""The ``d``-buffer BLT strategy ``C = BLT(θ, ω)`` (seed 003 Eq. 2; module docstring).

    ``theta = omega = ()`` is DP-SGD (``C = I``, ``d = 0``).

    Parameters
    ----------
    theta : array_like
        The buffer decays, distinct, in ``(0, 1]``.
    omega : array_like
        The output scales, ``> 0`` (the paper's ``ω ∈ ℝ₊^d``), one per decay.
    signed : bool, default False
        Allow decays in ``[−1, 1] \ {0}`` and scales of either sign — a general rational Toeplitz matrix
        such as the inverse :meth:`inverse` (whose scales ``ω̂`` are negative). Thm 3.1's hypothesis is then
        checked on the coefficients rather than assumed.
    name : str, optional
        The mechanism's name; by default ``BLT(theta=…, omega=…)``.
    _theta_hat : numpy.ndarray, optional
        Internal: the inverse decays ``θ̂`` where the caller already knows them (:meth:`from_theta_pair`,
        :meth:`inverse`, :meth:`from_noising`), so that they are not recomputed.
    _omega_hat : numpy.ndarray, optional
        Internal: the inverse scales ``ω̂``, in the order of ``_theta_hat``, where the BLT is defined by them
        (:meth:`from_noising`); its noise stream then runs on ``(θ̂, ω̂)``.

    Raises
    ------
    ValueError
        If a decay or scale is out of range, the decays repeat, or ``theta`` and ``omega`` differ in length.
    """

    exact_stream = True

    def __init__(self, theta: Sequence[float], omega: Sequence[float], *, signed: bool = False, name: str | None = None,
                 _theta_hat: np.ndarray | None = None, _omega_hat: np.ndarray | None = None):
        signed, name = check_bool("signed", signed), check_name("name", name)
        th = _check_decays("theta", theta, signed=signed)
        om = np.atleast_1d(np.asarray(omega, dtype=float)) if np.size(omega) == 0 else check_real_array("omega", omega)
        if om.size != th.size:
            raise ValueError(f"theta and omega must have the same length d (one scale per buffer), got {th.size} and {om.size}")
        if not signed and np.any(om <= 0.0):
            raise ValueError(
                f"omega must be positive (valid range (0, inf): the output scales of seed 003 Eq. 2), got {om[om <= 0][0]!r}; "
                f"a buffer with scale 0 does nothing (drop it), and signed=True builds a general rational Toeplitz matrix"
            )
        if signed and np.any(om == 0.0):
            raise ValueError("omega must be nonzero (a buffer with scale 0 does nothing: drop it)")
        order = np.argsort(-th, kind="stable")
        self.theta, self.omega = th[order], om[order]
        self.theta.setflags(write=False)
        self.omega.setflags(write=False)
        self.signed = signed
        self.d = int(th.size)
        self._theta_hat = None if _theta_hat is None else np.sort(_theta_hat)[::-1]
        self._omega_hat = None
        self._inverse_scales = None  # ω̂ of Alg. 5 once computed (row energies ask for it once per q)
        if _omega_hat is not None:
            self._omega_hat = np.asarray(_omega_hat, dtype=float)[np.argsort(-np.asarray(_theta_hat), kind="stable")]
        self._name = name or None  # the default is formatted on first use: the optimisers build BLTs by the thousand

    @property
    def name(self) -> str:
        """The mechanism's name: the one given, else ``BLT(theta=[…], omega=[…])`` to 6 digits."""
        if self._name is None:
            self._name = (f"BLT(theta={np.array2string(self.theta, precision=6, separator=', ')}, "
                          f"omega={np.array2string(self.omega, precision=6, separator=', ')})")
        return self._name

    # -- constructors ------------------------------------------------------------------------------------
    @classmethod
    def from_theta_pair(cls, theta, theta_hat, *, name: str | None = None) -> "BLT":
        r"""The strategy whose inverse has decays ``θ̂``: ``BLT(θ, ω)`` with ``ω = output_scales(θ, θ̂)``.

        Seed 003 §3.3, the optimiser's parameterisation. ``θ̂`` must be a valid inverse: interlacing ``θ`` so that
        every ``ω_i > 0``.

        Parameters
        ----------
        theta : array_like
            The buffer decays ``θ``, distinct, in ``(0, 1]``.
        theta_hat : array_like
            The inverse decays ``θ̂``, interlacing ``θ``.
        name : str, optional
            The mechanism's name.

        Returns
        -------
        BLT
            The strategy, with positive output scales.

        Raises
        ------
        ValueError
            If ``θ̂`` does not interlace ``θ`` (some ``ω_i ≤ 0``) or the decays are out of range.
        """
        th = _check_decays("theta", theta, signed=False)
        thh = _check_decays("theta_hat", theta_hat, signed=True)
        omega = output_scales(th, thh)
        if np.any(omega <= 0.0):
            raise ValueError(
                "theta_hat is not the inverse decays of a BLT with positive output scales: sorted decreasingly it must "
                "interlace theta (theta_hat_i in (theta_{i+1}, theta_i), theta_hat_d < theta_d), "
                f"got theta={th!r}, theta_hat={thh!r}"
            )
        return cls(th, omega, name=name, _theta_hat=thh)

    @classmethod
    def from_noising(cls, theta_hat, omega_hat, *, name: str | None = None) -> "BLT":
        r"""The strategy ``C`` whose noising matrix is ``C⁻¹ = BLT(θ̂, ω̂)``: ``ĉ_0 = 1``, ``ĉ_t = Σ_j ω̂_jθ̂_j^{t−1}``.

        The BLT defined by its noising coefficients (seed 004's ``β``), e.g. :func:`nu_ftrl_blt`. Its strategy
        ``(θ, ω)`` follows as for :meth:`inverse` (``θ = eig(diag θ̂ − 1ω̂ᵀ)``, ``ω = output_scales(θ, θ̂)``, a signed
        BLT), while ``(θ̂, ω̂)`` are kept as given: :meth:`noising_coeffs`, the pole integrals and the noise stream
        use them, and the stream runs Alg. 2 on the noising BLT (no feedback), in chunks of matrix products.

        Parameters
        ----------
        theta_hat : array_like
            The noising decays ``θ̂``, distinct, in ``[−1, 1]`` without 0.
        omega_hat : array_like
            The noising scales ``ω̂``, nonzero, one per decay.
        name : str, optional
            The mechanism's name.

        Returns
        -------
        BLT
            ``C``, signed, with ``inverse_decays() = θ̂`` and ``inverse_scales() = ω̂``.

        Raises
        ------
        ValueError
            If a decay or scale is out of range or the decays repeat, or the strategy's decays are complex.
        """
        name = check_name("name", name)
        try:
            noising = cls(theta_hat, omega_hat, signed=True)
        except ValueError as exc:  # the noising BLT's own check: its theta and omega are the caller's (θ̂, ω̂)
            message = str(exc)
            caller = ("theta_hat and omega_hat" if message.startswith("theta and omega") else
                      "theta_hat" if message.startswith("theta") else "omega_hat")
            raise ValueError(f"{caller} (the noising BLT's decays and scales): {message}") from None
        try:
            theta = noising.inverse_decays()
            return cls(theta, output_scales(theta, noising.theta), signed=True, name=name, _theta_hat=noising.theta,
                       _omega_hat=noising.omega)
        except ValueError as exc:  # a derived θ out of range, complex or repeated: the caller gave (θ̂, ω̂)
            raise ValueError(f"theta_hat and omega_hat define no BLT strategy: the strategy's decays "
                             f"theta = eig(diag theta_hat - 1 omega_hat^T) must be real, distinct and in [-1, 1] "
                             f"without 0 ({exc})") from None

    @classmethod
    def rational_approximation(cls, buffers: int, *, max_decay: float = 1.0, max_pillutla_score: float | None = None,
                               decay_scale: float = 1.6, decay_shift: int = -1, name: str | None = None) -> "BLT":
        r"""RA-BLT: a rational approximation of ``1/√(1 − x)`` as a BLT (Dvijotham et al. 2024, Prop. 4.5).

        ``1/√(1 − x)`` is the generating function of the square-root factorisation ``c_j = C(2j, j)/4^j``
        (:func:`~dptheory.mechanisms.optimal_cc`'s strategy, seed 003's "√-factorisation"). As in that proposition
        (arXiv 2404.16706v2) and jax_privacy 2.0's ``BufferedToeplitz.from_rational_approx_to_sqrt_x`` the
        approximation is built for the noising matrix, ``√(1 − x)``, and inverted: with ``d₁ = ⌈d/2⌉``, step
        ``h = decay_scale·π/√(2(d₁ + 1))`` and the ``d`` nodes ``k = −d₁ + 1 + decay_shift, …, d − d₁ + decay_shift``,
        the noising BLT has decays and scales

            ``θ̂_k = 1/(1 + e^{2hk})``,   ``ω̂_k = −θ̂_k² e^{3hk} / Σ_l e^{hl} θ̂_l``

        (the constant term normalised to 1), and ``C = BLT(θ̂, ω̂)⁻¹``: ``θ = eig(diag θ̂ − 1ω̂ᵀ)``
        (:meth:`inverse_decays` of the noising BLT, Newton-polished) and ``ω`` by Alg. 5's product form
        (:func:`output_scales`). Then, as jax_privacy does, the decays are scaled by ``min(1, max_decay/θ_1)`` (the
        largest decay is ``1`` to double precision, or rounds above it) and, if ``max_pillutla_score`` is given,
        the scales by ``min(1, max_pillutla_score/Σ_iω_i/θ_i)`` (:meth:`pillutla_score`). The scaled BLT no longer
        has the inverse ``(θ̂, ω̂)``. jax_privacy's optimiser starts from ``max_decay = max_pillutla_score = 1 − 10⁻⁶``
        (``get_init_blt``), which :func:`dptheory.blt.optimize` offers as ``init="rational"``.

        In exact arithmetic ``θ_1 = 1`` (the approximation of ``√(1 − x)`` vanishes at ``x = 1``). Its coefficients
        tend to ``C(2j, j)/4^j`` as ``d`` grows, though not by every step: the step ``h`` depends on ``⌈d/2⌉``, and
        ``max_j |c_j − C(2j, j)/4^j|`` falls from ``d`` to ``d + 2`` (0.49, 0.11, 0.028, 0.021, … at odd ``d``; 0.082,
        0.058, 0.037, 0.023, … at even ``d``, measured over 4096 coefficients) but rises from ``d = 2`` to ``3``.
        RA-BLTs are much worse than optimised BLTs at a given ``n`` (jax_privacy's note). ``O(d³)``.

        Parameters
        ----------
        buffers : int in [1, 24]
            The number of buffers ``d`` (the degree of the rational function). At the defaults double precision
            resolves the strategy's decays up to ``d = 24`` (at 25 the largest two round together).
        max_decay : float in (0, 1], default 1.0
            The largest decay ``θ_1`` allowed (keyword-only, as the rest).
        max_pillutla_score : float in (0, inf), optional
            The largest Pillutla score allowed; ``None`` (default) leaves the scales as they are.
        decay_scale : float in (0, inf), default 1.6
            Scales the step ``h``: larger spreads the decays further towards 0 and 1.
        decay_shift : int, default -1
            Shifts the nodes ``k``; negative moves the decays towards 1 (``-1`` recommended by jax_privacy).
        name : str, optional
            The mechanism's name; by default ``rational_approximation(d)``.

        Returns
        -------
        BLT
            The strategy ``C = BLT(θ, ω)``, ``θ ∈ (0, max_decay]``, ``ω > 0``.

        Raises
        ------
        ValueError
            For an argument out of its range, or where double precision does not resolve the strategy's ``d``
            decays (two equal, or a scale that is not positive), naming ``buffers`` and the settings.
        """
        d = check_int("buffers", buffers, 1, _RA_MAX_BUFFERS, why="the number of BLT buffers d of the RA-BLT")
        max_decay = check_in_interval("max_decay", max_decay, 0.0, 1.0, hi_closed=True)
        if max_pillutla_score is not None:
            max_pillutla_score = check_in_interval("max_pillutla_score", max_pillutla_score, 0.0)
        h_scale = check_in_interval("decay_scale", decay_scale, 0.0)
        shift = check_int("decay_shift", decay_shift, -math.inf)
        name = check_name("name", name)
        d1 = (d + 1) // 2
        h = h_scale * math.pi / math.sqrt(2 * (d1 + 1))
        k = np.arange(-d1 + 1, d - d1 + 1, dtype=float) + shift
        theta_hat = 1.0 / (1.0 + np.exp(2.0 * h * k))
        omega_hat = -(theta_hat**2) * np.exp(3.0 * h * k) / np.sum(np.exp(h * k) * theta_hat)
        settings = (f"buffers = {d}, decay_scale = {h_scale:g}, decay_shift = {shift} (the RA-BLT's decays "
                    f"theta_hat = {theta_hat.tolist()!r})")
        try:
            theta = cls(theta_hat, omega_hat, signed=True).inverse_decays()  # may round above 1: no BLT yet
        except ValueError as exc:
            raise ValueError(f"rational_approximation: double precision does not resolve {settings}: {exc}") from None
        num, den = _pairwise_products(theta, theta_hat)  # output_scales' product form, on θ before the scaling
        omega = num / den
        theta = theta * min(1.0, max_decay / float(theta[0]))
        if max_pillutla_score is not None:
            omega = omega * min(1.0, max_pillutla_score / _pillutla_score(theta, omega))
        if not (np.all(omega > 0.0) and np.all(np.diff(theta) < 0.0) and theta[-1] > 0.0):
            raise ValueError(f"rational_approximation: double precision does not resolve the strategy's decays at "
                             f"{settings}: theta = {theta.tolist()!r}, omega = {omega.tolist()!r} (a smaller buffers "
                             f"or decay_scale keeps them apart)")
        return cls(theta, omega, name=name or f"rational_approximation({d})")

    # -- the inverse BLT(θ̂, ω̂) ----------------------------------------------------------------------------
    def inverse_decays(self) -> np.ndarray:
        r"""The inverse decays ``θ̂ = eig(diag θ − 1ωᵀ)``, decreasing.

        Real for ``ω > 0`` (symmetric similar form), polished by
        Newton steps on the secular equation ``1 + Σ_j ω_j/(λ − θ_j) = 0`` (the zeros of ``C(1/λ)``).

        Returns
        -------
        numpy.ndarray
            ``θ̂``, shape ``(d,)``, decreasing.

        Raises
        ------
        ValueError
            If the inverse decays are complex (a signed BLT whose inverse is not a real BLT).
        """
        if self._theta_hat is None:
            if self.d == 0:
                lam = np.zeros(0)
            elif np.all(self.omega > 0.0):
                s = np.sqrt(self.omega)
                lam = np.linalg.eigvalsh(np.diag(self.theta) - np.outer(s, s))
            else:
                lam = np.linalg.eigvals(np.diag(self.theta) - np.outer(np.ones(self.d), self.omega))
                if np.any(np.abs(lam.imag) > 1e-12 * np.maximum(1.0, np.abs(lam))):
                    raise ValueError(f"{self.name} has complex inverse decays {lam}: its inverse is not a real BLT")
                lam = lam.real
            for _ in range(2):
                diff = lam[:, None] - self.theta[None, :]
                if np.any(diff == 0.0):
                    break
                g = 1.0 + np.sum(self.omega / diff, axis=1)
                dg = -np.sum(self.omega / diff**2, axis=1)
                step = np.where(dg != 0.0, g / dg, 0.0)
                lam = np.where(np.abs(step) < 1e-6 * np.maximum(np.abs(lam), 1e-300), lam - step, lam)
            self._theta_hat = np.sort(lam)[::-1]
        return self._theta_hat.copy()

    def inverse_scales(self) -> np.ndarray:
        r"""The inverse scales ``ω̂ = output_scales(θ̂, θ)`` (seed 003 Alg. 4, second call of Alg. 5).

        Returns
        -------
        numpy.ndarray
            ``ω̂``, shape ``(d,)``.
        """
        if self._omega_hat is not None:
            return self._omega_hat.copy()
        if self._inverse_scales is None:
            self._inverse_scales = output_scales(self.inverse_decays(), self.theta) if self.d else np.zeros(0)
        return self._inverse_scales.copy()

    def inverse(self) -> "BLT":
        r"""The noising matrix ``C⁻¹ = BLT(θ̂, ω̂)`` as a (signed) BLT; its own inverse is ``C`` again.

        Returns
        -------
        BLT
            ``BLT(θ̂, ω̂, signed=True)``.
        """
        thh = self.inverse_decays()
        return BLT(thh, self.inverse_scales(), signed=True, name=f"inverse of {self.name}", _theta_hat=self.theta)

    def pillutla_score(self) -> float:
        r"""The Pillutla score ``Σ_i ω_i/θ_i`` (McMahan & Pillutla 2025, Thm 1; jax_privacy's ``pillutla_score``).

        For a BLT with decays ``θ ∈ (0, 1]`` and scales ``ω > 0`` the inverse decays ``θ̂`` are the roots of the
        secular equation ``g(λ) = 1 + Σ_j ω_j/(λ − θ_j) = 0``: one in each gap ``(θ_{i+1}, θ_i)`` and one below
        ``θ_d``, where ``g`` falls from 1 (``λ → −∞``) to ``−∞``. So the smallest, ``θ̂_d``, is positive exactly when
        ``g(0) = 1 − Σ_j ω_j/θ_j > 0``: **score < 1 certifies that C⁻¹ = BLT(θ̂, ω̂) has every decay in (0, 1)**,
        interlacing ``0 < θ̂_d < θ_d < … < θ̂_1 < θ_1`` (its scales ``ω̂`` are then negative by Alg. 5's product
        form) — the well-behaved BLTs of part (a) of that theorem (arXiv 2504.21413), whose noise has no
        oscillating term ``θ̂_d^t`` of alternating sign; score ``= 1`` gives ``θ̂_d = 0`` and score ``> 1`` a
        negative ``θ̂_d``. jax_privacy's optimiser penalises score ``≥ 1``; the decay pairs of
        :func:`dptheory.blt.optimize` have ``θ̂_d > 0`` at every iterate, hence score ``< 1``. The statement is
        for an unsigned BLT: for a signed one the sum is returned as is, certifying nothing.

        Returns
        -------
        float
            ``Σ_i ω_i/θ_i`` (``0`` for ``d = 0``).
        """
        return _pillutla_score(self.theta, self.omega)

    # -- Toeplitz primitives --------------------------------------------------------------------------------
    def strategy_coeffs(self, n: int) -> np.ndarray:
        """The strategy coefficients ``c_0, …, c_{n−1}`` by Eq. 2, ``O(nd)``.

        Parameters
        ----------
        n : int
            The number of coefficients.

        Returns
        -------
        numpy.ndarray
            Shape ``(n,)``.
        """
        return blt_coeffs(self.theta, self.omega, n)

    def noising_coeffs(self, n: int) -> np.ndarray:
        r"""The noising coefficients ``ĉ_0, …, ĉ_{n−1}`` (seed 004's ``β``) by Eq. 2 on ``(θ̂, ω̂)``.

        ``O(nd)`` (seed 003 Table 2's route).

        Parameters
        ----------
        n : int
            The number of coefficients.

        Returns
        -------
        numpy.ndarray
            Shape ``(n,)``.
        """
        if self.d == 0:
            return blt_coeffs(self.theta, self.omega, n)
        return blt_coeffs(self.inverse_decays(), self.inverse_scales(), n)

    def dtft(self, omega) -> np.ndarray:
        r"""The DTFT ``B(ω) = 1/C(e^{−iω})`` with ``C(z) = 1 + Σ_j ω_j z/(1 − θ_j z)`` (no eigenvalues needed).

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
        C = 1.0 + np.sum(self.omega * (z[..., None] / (1.0 - self.theta * z[..., None])), axis=-1)
        return 1.0 / C

    def is_minimum_phase(self) -> bool:
        r"""Whether ``B(z) = 1/C(z)`` has no zero on the closed unit disk, i.e. ``c ∈ ℓ²`` and ``γ∞ < ∞``.

        That is every ``|θ_j| < 1`` (the zeros of ``B`` are the poles ``1/θ_j`` of ``C``). A BLT with ``θ_j = 1``
        has a finite sensitivity at every horizon but none in the streaming limit.

        Returns
        -------
        bool
            Whether every ``|θ_j| < 1``.
        """
        return bool(np.all(np.abs(self.theta) < 1.0))

    def strategy_is_minimum_phase(self) -> bool:
        r"""Whether ``C`` is minimum phase — its inverse, the noising coefficients ``ĉ``, is in ``ℓ²``.

        That holds iff every ``|θ̂_j| < 1``: what the stationary theory of seed 004 (``F∞``, pole integrals) needs
        of a BLT.

        Returns
        -------
        bool
            Whether every ``|θ̂_j| < 1``.
        """
        return bool(np.all(np.abs(self.inverse_decays()) < 1.0))

    def _support(self) -> int:
        thh = np.abs(self.inverse_decays())
        if thh.size == 0 or np.max(thh) == 0.0:
            return 1
        if np.max(thh) >= 1.0:
            raise ValueError(f"{self.name} has an inverse decay of modulus 1: its noising coefficients do not decay")
        return int(math.ceil(0.5 * math.log(_TAIL_RTOL) / float(np.max(_log_abs(thh))))) + 2

    def cache_key(self) -> str:
        """A stable identifier: whether signed, and the SHA-256 of ``(θ, ω)`` (and of ``(θ̂, ω̂)`` for a BLT defined by
        them, :meth:`from_noising`).

        Returns
        -------
        str
            ``BLT:<signed>:<hex digest>``.
        """
        parts = [self.theta, self.omega] + ([self._theta_hat, self._omega_hat] if self._omega_hat is not None else [])
        blob = np.concatenate(parts).tobytes()
        return f"BLT:{self.signed}:{hashlib.sha256(blob).hexdigest()}"

    # -- closed forms -------------------------------------------------------------------------------------------
    def _one_minus_products(self) -> np.ndarray:
        r"""``1 − θ_jθ_k`` formed as ``(1 − θ_j) + θ_j(1 − θ_k)`` (``1 − θ`` is exact for ``θ`` near 1)."""
        g = 1.0 - self.theta
        return g[:, None] + self.theta[:, None] * g[None, :]

    def strategy_energy(self, n: int | None = None) -> float:
        r"""The strategy energy ``‖c_{0:n}‖²`` in ``O(d²)``.

        ``‖c_{0:n}‖² = 1 + Σ_{j,k} ω_jω_k (1 − (θ_jθ_k)^{n−1})/(1 − θ_jθ_k)``; ``n = None``: the limit
        ``1 + Σ_{j,k} ω_jω_k/(1 − θ_jθ_k)`` (``inf`` unless every ``|θ_j| < 1``). The single-participation
        sensitivity is its square root (seed 004 Thm 1.1).

        Parameters
        ----------
        n : int or None, optional
            The number of steps; ``None`` (the default) is the limit ``n → ∞``.

        Returns
        -------
        float
            ``‖c_{0:n}‖²``.
        """
        W = np.outer(self.omega, self.omega)
        if n is None:
            if not self.is_minimum_phase():
                return math.inf
            return float(1.0 + np.sum(W / self._one_minus_products()))
        n = _check_horizon(n)
        return float(1.0 + np.sum(W * _geometric_sum(np.outer(self.theta, self.theta), n - 1)))

    def _gamma_inf_sq_closed_form(self) -> float:
        return self.strategy_energy(None)

    def theorem_3_1_holds(self) -> bool:
        r"""Whether seed 003 Thm 3.1's hypothesis holds for every horizon.

        ``ω > 0``, ``θ ∈ (0, 1]`` and ``c_1 = Σω ≤ 1``
        make ``c`` non-negative and non-increasing (errata 003 §3.5).

        Returns
        -------
        bool
            Whether the BLT is unsigned with ``Σω ≤ 1``.
        """
        return not self.signed and float(np.sum(self.omega)) <= 1.0

    def sensitivity(self, n: int | None = None, participation: Participation | None = None, *, method: str = "auto") -> float:
        r"""The sensitivity, as :meth:`ToeplitzMechanism.sensitivity`, with closed forms for a BLT.

        Single participation by :meth:`strategy_energy` in ``O(d²)``; the
        streaming limit under ``k`` participations ``b`` apart, where Thm 3.1 holds (:meth:`theorem_3_1_holds`), in
        ``O(k²d²)``: ``‖Σ_{i<k} S^{ib} c‖² = Σ_{i,i'} R(|i − i'|b)`` with the autocorrelation ``R(0) = ‖c‖²`` and
        ``R(δ) = c_δ + Σ_{j,l} ω_jω_l θ_l^δ/(1 − θ_jθ_l)`` for ``δ ≥ 1``.

        Parameters
        ----------
        n : int or None, optional
            The number of steps; ``None`` (the default) is the streaming limit ``n → ∞``.
        participation : Participation or None, optional
            The participation schema; ``None`` (the default) is single participation.
        method : {"auto", "closed_form", "time", "frequency"}, default "auto"
            The closed forms above are taken with ``"auto"`` only; otherwise, and where none applies,
            :meth:`ToeplitzMechanism.sensitivity` with this route (keyword-only).

        Returns
        -------
        float
            ``sens_Π(C)``.
        """
        participation, method = _check_participation(participation), _check_method(method)
        if method == "auto" and participation.single and n is not None:
            return math.sqrt(self.strategy_energy(n))
        if method == "auto" and n is None and not participation.single and self.theorem_3_1_holds():
            if not self.is_minimum_phase():
                return math.inf
            k, b = participation.max_participations, participation.min_sep
            lags = b * np.arange(1, k)
            powers = np.power.outer(self.theta, lags.astype(float))  # θ_l^δ
            c = self.omega @ (powers / self.theta[:, None])  # c_δ = Σ_j ω_j θ_j^{δ−1}
            tail = np.einsum("j,l,jl,lm->m", self.omega, self.omega, 1.0 / self._one_minus_products(), powers)
            R = c + tail
            return math.sqrt(k * self.strategy_energy(None) + 2.0 * float(np.sum((k - np.arange(1, k)) * R)))
        return super().sensitivity(n, participation, method=method)

    def _partial_fractions(self, qs, bound: float = 1e3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r"""``y_t = Σ_u a_u λ_u^t`` for the first column ``y`` of ``F_q N`` (``λ = (q, θ̂)``), every ``q`` at once:
        ``a_0 = 1 + Σ_j ω̂_j/(q − θ̂_j)``, ``a_j = −ω̂_j/(q − θ̂_j)``. Returns ``(a, λ, ok)``, each ``(len(q), d + 1)``
        but ``ok`` ``(len(q),)``: ``ok`` is false where a ``θ̂_j`` is so close to ``q`` that the terms cancel
        (``|q − θ̂_j| < 10⁻³|q|`` or some ``|a_u| > bound``; those rows hold placeholders and the callers use
        another route there). The sums over ``u, v`` lose about ``max|a|²·ε`` to cancellation."""
        thh, omh = self.inverse_decays(), self.inverse_scales()
        qs = np.asarray(qs, dtype=float).reshape(-1, 1)
        diff = qs - thh  # (Q, d)
        near = np.any(np.abs(diff) < 1e-3 * np.maximum(np.abs(qs), 1e-300), axis=1)
        tail = -omh / np.where(near[:, None], 1.0, diff)
        a = np.concatenate([1.0 - np.sum(tail, axis=1, keepdims=True), tail], axis=1)
        ok = ~near & (np.max(np.abs(a), axis=1) <= bound)
        lam = np.concatenate([qs, np.broadcast_to(thh, (qs.shape[0], thh.size))], axis=1)
        return a, lam, ok

    def row_energies(self, q, n: int) -> np.ndarray:
        r"""The row energies ``‖e_tᵀ F_q N‖²`` for ``t < n``: by partial fractions at ``q = 1``, else by the recursion.

        At ``q = 1`` these are the prefix-sum error variances ``‖e_tᵀ A C⁻¹‖²`` of seed 003 Prop. 3.3, summed in closed
        form: ``Σ_{s≤t} y_s² = Σ_{u,v} a_u a_v (1 − (λ_uλ_v)^{t+1})/(1 − λ_uλ_v)`` with the partial fractions of
        :meth:`_partial_fractions` (``O(nd²)``), where the ``O(n)`` recursion of :meth:`ToeplitzMechanism.row_energies`
        accumulates its rounding over ``n`` (measured against mpmath at ``n = 10⁵``, ``d = 1``: 1.2e-14 against
        2.6e-12). For ``|q| < 1`` the recursion forgets its rounding at rate ``q`` and is both faster (4–10× at
        ``n = 256``–``10⁴``) and as accurate or more (the partial fractions lose ``max|a|²·ε`` next to an inverse
        decay: 1.3e-10 against 2e-16 for ``BLT([0.999], [0.5])`` at ``q = 0.5``), so it is used there, and wherever
        the partial fractions would cancel.

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
        qs, scalar = _check_q(q)
        n = check_size("n", _check_horizon(n), lambda m: 8.0 * ((self.d + 1) ** 2 + qs.size + 4) * m,
                       what="the row energies")
        closed = np.zeros(qs.size, dtype=bool)
        if self.d > 0 and np.any(qs == 1.0):
            a, lam, ok = self._partial_fractions(1.0, bound=_FINITE_SUM_BOUND)
            closed = (qs == 1.0) & ok[0]
        out = np.empty((qs.size, n))
        if np.any(closed):
            t = np.arange(1, n + 1, dtype=float)
            S = _geometric_sum(np.outer(lam[0], lam[0])[..., None], t[None, None, :])  # (d+1, d+1, n)
            out[closed] = np.einsum("u,v,uvt->t", a[0], a[0], S)
        if not np.all(closed):
            out[~closed] = super().row_energies(qs[~closed], n)
        return out[0] if scalar else out

    def final_row_energy(self, q, n: int):
        r"""The last row energy ``‖e_{n−1}ᵀ F_q N‖² = Σ_{u,v} a_u a_v (1 − (λ_uλ_v)^n)/(1 − λ_uλ_v)``.

        The ``t = n − 1`` term of :meth:`row_energies` alone: ``O(d²)`` per ``q`` instead of ``O(nd²)``, every ``q``
        at once (``F_n`` at a finite horizon needs only this row, :func:`dptheory.F_inf`); the ``O(nd)`` recursion
        where the partial fractions would lose more than ~1e-13 (``max|a| > 10``).

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
        if self.d == 0:
            return super().final_row_energy(q, n)
        a, lam, ok = self._partial_fractions(qs, bound=_FINITE_SUM_BOUND)
        S = _geometric_sum(lam[:, :, None] * lam[:, None, :], float(n))  # (Q, d+1, d+1)
        out = np.einsum("qu,qv,quv->q", a, a, S)
        if not np.all(ok):
            out[~ok] = super().row_energies(qs[~ok], n)[:, -1]
        return float(out[0]) if scalar else out

    def _energy_closed_form(self, gaps: np.ndarray) -> np.ndarray | None:
        r"""``(1/2π)∫|B|²/|1 − q e^{iω}|² = Σ_{u,v} a_u a_v/(1 − λ_uλ_v)`` (the ``t → ∞`` row energy), with
        ``1 − q² = g(2 − g)`` from the gap; ``None`` (time route) where partial fractions would cancel."""
        if self.d == 0 or not self.strategy_is_minimum_phase():
            return None
        gaps = np.asarray(gaps, dtype=float).ravel()
        a, lam, ok = self._partial_fractions(1.0 - gaps)
        if not np.all(ok):
            return None
        den = 1.0 - lam[:, :, None] * lam[:, None, :]
        den[:, 0, 0] = gaps * (2.0 - gaps)
        return np.einsum("qu,qv,quv->q", a, a, 1.0 / den)

    # -- streaming ---------------------------------------------------------------------------------------------
    def noise_stream(self, shape, like, steps: int | None = None):
        r"""The noise stream by Alg. 3 of seed 003: ``N z = C⁻¹ z`` with ``d`` buffers and the same ``(θ, ω)``.

        Exact over any horizon,
        memory ``O(d·m)``, one update per step (``steps`` is accepted for the common signature and not needed).
        A BLT defined by its noising BLT (:meth:`from_noising`) runs Alg. 2 on ``(θ̂, ω̂)`` instead, ``chunk``
        steps per three matrix products (:class:`~dptheory.mechanisms.streaming.BLTStream`).

        Parameters
        ----------
        shape : tuple of int
            The shape of one step's noise (``m`` entries).
        like : array
            An array whose namespace (NumPy, CuPy, …) the stream computes on.
        steps : int, optional
            Checked to be a number of steps if given, else unused.

        Returns
        -------
        BLTStream
            A callable turning blocks of white noise ``z`` of shape ``(K, *shape)`` into ``N z``.
        """
        if steps is not None:
            check_int("steps", steps, 1)
        if self._omega_hat is not None:  # defined by its noising BLT (from_noising): Alg. 2 on (θ̂, ω̂), in chunks
            return BLTStream(self._theta_hat, self._omega_hat, shape, like, inverse=False)
        return BLTStream(self.theta, self.omega, shape, like, inverse=True)

    def strategy_stream(self, shape, like) -> BLTStream:
        """Alg. 2 of seed 003: ``C ẑ`` with ``d`` buffers (Dvijotham et al. Alg. 1).

        Parameters
        ----------
        shape : tuple of int
            The shape of one step.
        like : array
            An array whose namespace (NumPy, CuPy, …) the stream computes on.

        Returns
        -------
        BLTStream
            A callable multiplying blocks of shape ``(K, *shape)`` by ``C``.
        """
        return BLTStream(self.theta, self.omega, shape, like, inverse=False)

    def __repr__(self) -> str:
        return f"BLT(theta={self.theta.tolist()!r}, omega={self.omega.tolist()!r}{', signed=True' if self.signed else ''})"


#: ``s = e^u`` from ``ν·10⁻⁴`` to this in :func:`nu_ftrl_blt` (the nodes beyond add < 1e-17 to ``β_1``)
_SQRT_S_MAX = 80.0
#: :func:`nu_ftrl_blt`'s nodes beyond this ``s`` (decays below ``e^{−12}``) are merged into one buffer
_SQRT_S_MERGE = 12.0
#: The most buffers :func:`nu_ftrl_blt` builds: none beyond about 100 has decays that double precision resolves
_NU_MAX_BUFFERS = 256


def nu_ftrl_blt(nu: float, *, step: float = 0.45) -> BLT:
    r"""A BLT whose noising coefficients are ν-DP-FTRL's to quadrature accuracy: a sum of exponentials.

    For ``t ≥ 1`` ν-DP-FTRL's coefficients (seed 004, eq. 7; ``r = 1 − ν``) are a completely monotone sequence,

        ``β_t = (−1)^t C(½, t) r^t = −(1/π) ∫₀^∞ r^t e^{−s(t − 1/2)} (1 − e^{−s})^{1/2} ds``

    (``x = e^{−s}`` in ``−(−1)^tC(½,t) = (1/π)∫₀¹ x^{t−3/2}(1 − x)^{1/2} dx``, the Beta integral). With ``s = e^u`` the
    integrand is analytic and decays exponentially in ``u`` on both sides, so the trapezoid rule with step ``h``
    (nodes ``u_k`` from ``ln(ν·10⁻⁴)`` to ``ln 80``) converges like ``e^{−π²/h}``; node ``k`` is one buffer,

        ``β̃_t = Σ_k ω̂_k θ̂_k^{t−1}``,  ``θ̂_k = r e^{−s_k}``,  ``ω̂_k = −(h/π) s_k e^{−s_k/2} (1 − e^{−s_k})^{1/2} r``,

    the noising BLT of :meth:`BLT.from_noising`. Where the nodes stop, the integral left out is at most
    ``(2/3π)(ν·10⁻⁴)^{3/2} r^t`` (``s`` below the first node) and ``(2/π)e^{−40}`` (beyond the last). The nodes with
    ``s > 12`` (decays below ``e^{−12}``, which the strategy's eigenvalues would resolve only to ``1e-16``
    absolutely) are merged into one buffer with the same ``Σω̂`` and ``Σω̂θ̂``: ``β̃_1`` and ``β̃_2`` are unchanged,
    and ``β̃_t`` for ``t ≥ 3`` moves by less than ``e^{−2·12}Σ|ω̂|``.

    The result is a different mechanism, like a truncation, but one with every closed form of a BLT (exact ``F∞``)
    and a stream of ``d`` buffers with no history: :func:`dptheory.simulate` runs it whole, in ``O(d)`` memory per
    chain and coordinate, however small ``ν``. How far it is from ν-DP-FTRL is measured, not assumed: at the default
    step, ``‖β̃ − β‖₂ ≤ 3.1e-8`` and ``F∞`` moves by ≤ 2.3e-7 relative for ``ν`` from 1e-5 to 0.5 on seed 004's
    linear regression (measured 2026-11-25; ``tests/test_blt.py`` holds them to 1e-7 and 1e-6); compare ``F_inf``
    of both for a problem of your own.

    Double precision resolves the strategy's decays (the eigenvalues of ``diag θ̂ − 1ω̂ᵀ``) only where the
    nodes' decays ``r e^{−s_k}`` stay apart: at the default step for ``ν`` from about ``1e-6`` to ``1 − 1e-10``
    (measured 2026-12-02; a smaller step narrows it). Outside, the call refuses naming ``nu`` and ``step``;
    ``nu_ftrl(nu)`` is the mechanism itself.

    Parameters
    ----------
    nu : float in (0, 1)
        The damping ``ν``.
    step : float in (0, 1], default 0.45
        The trapezoid step ``h`` in ``u = ln s``: about ``(ln 12 − ln(ν·10⁻⁴))/h + 1`` buffers (50 at ``ν = 3.9e-5``).

    Returns
    -------
    BLT
        The strategy ``C`` (signed) defined by its noising BLT, named ``nu_ftrl_blt(ν)``.

    Raises
    ------
    ValueError
        If ``nu`` or ``step`` is out of range, ``step`` gives more than 256 buffers, or double precision cannot
        resolve the strategy's decays at this ``nu`` and ``step``.
    """
    nu = check_in_interval("nu", nu, 0.0, 1.0)
    h = check_in_interval("step", step, 0.0, 1.0, hi_closed=True)
    r = 1.0 - nu
    span = math.log(_SQRT_S_MERGE) - math.log(nu * 1e-4)  # the nodes kept apart; those beyond 12 become one buffer
    buffers = math.floor(span / h) + 2
    if buffers > _NU_MAX_BUFFERS:  # refused before the O(d²) arrays and the O(d³) eigenproblem
        raise ValueError(
            f"nu = {nu:g} at step = {h:g} gives {buffers} buffers, more than the {_NU_MAX_BUFFERS} nu_ftrl_blt builds "
            f"(double precision resolves the strategy's decays of none beyond about 100; measured): the smallest "
            f"step at this nu is {span / (_NU_MAX_BUFFERS - 2):.3g} (served at the default step for nu from about "
            f"1e-6 to 1 - 1e-10)")
    s = np.exp(np.arange(math.log(nu * 1e-4), math.log(_SQRT_S_MAX) + h, h))
    theta_hat = r * np.exp(-s)
    omega_hat = -(h / math.pi) * s * np.exp(-0.5 * s) * np.sqrt(-np.expm1(-s)) * r
    fast = s > _SQRT_S_MERGE  # one buffer with their Σω̂ and Σω̂θ̂: β̃_1 and β̃_2 unchanged
    merged = float(np.sum(omega_hat[fast]))
    theta_hat = np.append(theta_hat[~fast], float(np.sum(omega_hat[fast] * theta_hat[fast])) / merged)
    omega_hat = np.append(omega_hat[~fast], merged)
    try:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return BLT.from_noising(theta_hat, omega_hat, name=f"nu_ftrl_blt({nu:g}, step={h:g})")
    except ValueError as exc:
        raise ValueError(
            f"nu = {nu:g} at step = {h:g} is beyond what double precision resolves for nu_ftrl_blt (served at the "
            f"default step for nu from about 1e-6 to 1 - 1e-10; use nu_ftrl(nu) itself, or a larger step): {exc}"
        ) from None
