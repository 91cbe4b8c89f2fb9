r"""Suboptimality of Noisy-FTRL: ``F∞ = lim_{T→∞} E[F(θ_T) − F(θ⋆)]`` (seed 004, eq. 4) and its finite-horizon value.

``θ_t`` follows Noisy-FTRL (seed 004, eq. 13), ``θ_{t+1} = θ_t − η(g_t + G σ_dp (N w)_t)``, ``w_t ~ N(0, I_d)``,
with the noising matrix ``N`` of the mechanism (seed 004's ``B``) and the noise calibrated by the one helper
:func:`dptheory.accounting.calibrate_noise`: ``σ_dp = sens_Π(C; n)/√(2ρ)`` (Thm 1.1).

* ``horizon=None`` (seed 004's ``F∞``): the stationary limit, ``σ_dp = γ∞/√(2ρ)``. Hence ``F∞`` is invariant to
  rescaling ``β`` and depends on ``β`` only through ``|B(ω)|²``. Everything is built from ``γ∞(β)²`` and the pole
  integrals ``E_q(β) = (1/2π)∫|B(ω)|²/|1 − q e^{iω}|² dω`` at ``q_j = 1 − ηλ_j``
  (:meth:`~dptheory.ToeplitzMechanism.filtered_energy`): the stationary DP variance of eigen-direction ``j`` of
  the linearised dynamics is ``n_j = η² σ² E_{q_j}``, ``σ² = G²γ∞²/(2ρ)`` (Thm F.2, App. B eq. 18, App. C eq. 39).
  Only stationary (Toeplitz) mechanisms have it.
* ``horizon=n``: ``F_n = E[F(θ_n) − F⋆]``, the last iterate after ``n`` noisy steps from ``θ_0 = θ⋆``, with
  ``σ_dp = sens_Π(C; n)/√(2ρ)``. Direction ``j`` then carries the DP variance ``η² σ² ‖e_{n−1}ᵀ F_{q_j} N‖²``
  (:meth:`~dptheory.Mechanism.final_row_energy`, the finite sum whose limit is ``E_{q_j}``) and the gradient-noise
  variance ``η²σ_sgd²λ_j Σ_{t<n} q_j^{2t}``; every mechanism has it. ``F_n → F∞`` as ``n → ∞`` for a Toeplitz
  mechanism whose sensitivity converges (``tests/test_mechanisms.py``).
"""

from __future__ import annotations

import math

import numpy as np

from .accounting.calibration import calibrate_noise
from .mechanisms.base import Participation, require_stationary
from .mechanisms.toeplitz import MechanismLike, as_mechanism
from .problems import LinearRegression, MeanEstimation
from .mechanisms.spectral import _pole_modulus_sq, clustered_even_mean
from .special import ellipk_complement
from ._validation import check_int, check_privacy, check_real_values, check_size, check_variant, renamed

__all__ = [
    "F_inf",
    "F_inf_lti_infimum",
    "mean_estimation_dpsgd",
    "mean_estimation_optimum",
    "mean_estimation_ratio",
]

_KINDS = {
    MeanEstimation: ("exact",),
    LinearRegression: ("exact", "lti", "lower", "upper"),
}


def _transient(problem, horizon: int | None) -> np.ndarray:
    r"""``1 − q_j^{2n}`` per direction (``q_j = 1 − ηλ_j``): the share of the stationary variance of white gradient
    noise reached after ``n`` steps from ``θ⋆`` (``1`` at ``horizon=None``)."""
    q = 1.0 - problem.eta * problem.eigs
    if horizon is None:
        return np.ones_like(q)
    with np.errstate(divide="ignore"):
        return -np.expm1(2 * horizon * np.log(np.abs(q)))


def _dp_variances(mechanism, problem, rho, G, method, horizon, participation, *, every_step=False) -> np.ndarray | None:
    r"""Per eigen-direction DP variance ``η²G²σ_dp²·E`` (module docstring), ``None`` if ``σ_dp = ∞``: ``E`` is the
    pole integral ``E_{1−ηλ_j}`` at ``horizon=None`` and the last row energy ``‖e_{n−1}ᵀ F_{q_j} N‖²`` at ``n``
    (``every_step``: the row energies of every step, shape ``(d, n)``)."""
    sigma = calibrate_noise(mechanism, rho=rho, horizon=horizon, participation=participation,
                            method=None if method == "auto" else method)
    if not math.isfinite(sigma):
        return None
    q = 1.0 - problem.eta * problem.eigs
    if horizon is None:
        energy = mechanism.filtered_energy(gap=problem.eta * problem.eigs, method=method)
    elif every_step:
        energy = mechanism.row_energies(q, horizon)
    else:
        energy = mechanism.final_row_energy(q, horizon)
    return problem.eta**2 * G**2 * sigma**2 * energy


def _check_mechanism_and_horizon(mechanism, problem, kind: str, horizon, method: str):
    mechanism = as_mechanism(mechanism)
    if horizon is None:
        require_stationary(mechanism, "stationary suboptimality F_inf")
        return mechanism, None
    horizon = check_int("horizon", horizon, 1)
    if kind not in ("exact", "lti"):
        raise ValueError(
            f"kind must be 'exact' or 'lti' (linear regression) at a finite horizon, got {kind!r}: "
            f"the bounds of Thm C.15/C.18 are stationary results (horizon=None)"
        )
    if method != "auto":
        raise ValueError(f"method selects the stationary routes (horizon=None); at a finite horizon it must be 'auto', got {method!r}")
    return mechanism, horizon


def F_inf(
    mechanism: MechanismLike,
    problem: MeanEstimation | LinearRegression,
    *,
    rho: float,
    G: float = 1.0,
    horizon: int | None = None,
    participation: Participation | None = None,
    kind: str = "exact",
    variant: str = "corrected",
    method: str = "auto",
) -> float:
    r"""Suboptimality of Noisy-FTRL calibrated by :func:`~dptheory.accounting.calibrate_noise` (seed 004, eq. 4).

    See the module docstring for what ``horizon`` means.

    Parameters
    ----------
    mechanism : Mechanism or array_like
        Any :class:`~dptheory.Mechanism`, or a sequence ``β`` (``β_0 ≠ 0``, a :class:`FiniteToeplitz`).
    problem : MeanEstimation or LinearRegression
        The learning problem (:class:`MeanEstimation` or :class:`LinearRegression`).
    rho : float in (0, inf)
        The zCDP level ``ρ > 0`` (Thm 1.1).
    G : float in (0, inf), default 1.0
        The clip norm ``G > 0`` (scales the DP noise; Noisy-FTRL does not clip).
    horizon : int, optional
        ``None`` (default) for the stationary ``F∞`` of a Toeplitz mechanism; an integer ``n ≥ 1`` for
        ``E[F(θ_n) − F⋆]`` from ``θ_0 = θ⋆`` with the noise calibrated to ``n`` steps (``kind="exact"`` or, for linear
        regression, ``"lti"``).
    participation : Participation, optional
        A :class:`~dptheory.Participation` (default: single participation), the schema the noise is
        calibrated to.
    kind : {"exact", "lti", "lower", "upper"}, default "exact"
        ``"exact"`` — the true value. Mean estimation: App. B eq. (18). Linear regression with Gaussian inputs:
        the exact solution of the stationary second-moment equations, which the paper does not give
        (derivation in ``docs/linear_regression_exact.md``); needs ``η < problem.eta_max_gaussian``. At a
        finite horizon the exact ``n``-step second-moment recursion of the same derivation, any ``η``, ``O(nd)``.
        ``"lti"`` — the LTI part (the ``xxᵀ → H`` surrogate; equality case of Thm C.18).
        ``"lower"`` / ``"upper"`` — Thm C.18 / Thm C.15 with their constants (``C_kurt = 3``,
        ``R² = Tr H + 2λ_max``), both require ``η < 1/R²``.
    variant : {"corrected", "paper"}, default "corrected"
        ``"corrected"`` (default) returns ``E[F − F⋆]`` as eq. (4) defines it. ``"paper"`` reproduces
        App. B, which calls ``lim E[δ²]`` "F∞" and so drops the ½ of ``F − F⋆ = ½δ²`` (errata 004 §10.3);
        mean estimation only.
    method : {"auto", "closed_form", "time", "frequency"}, default "auto"
        The route for ``γ∞`` and the pole integrals at ``horizon=None`` (see
        :meth:`~dptheory.ToeplitzMechanism.filtered_energy`).

    Returns
    -------
    float
        ``F∞`` (``horizon=None``) or ``F_n``. ``math.inf`` when the sensitivity is infinite (``γ∞ = ∞``:
        Optimal-CC, anti-PGD, non-minimum-phase ``β``; Table 2).

    Raises
    ------
    ValueError
        For a non-Toeplitz mechanism at ``horizon=None``, which has no stationary value; for a ``kind`` or
        ``variant`` the problem does not have, or ``η`` outside the range the chosen ``kind`` needs.
    """
    rho, G = check_privacy(rho, G)
    if type(problem) not in _KINDS:
        raise ValueError(f"problem must be one of {[k.__name__ for k in _KINDS]}, got {type(problem).__name__}")
    if kind not in _KINDS[type(problem)]:
        raise ValueError(f"kind must be one of {_KINDS[type(problem)]} for {type(problem).__name__}, got {kind!r}")
    check_variant(variant)
    if variant == "paper" and not isinstance(problem, MeanEstimation):
        raise ValueError("variant='paper' exists only for MeanEstimation (App. B drops the factor 1/2)")
    mechanism, horizon = _check_mechanism_and_horizon(mechanism, problem, kind, horizon, method)
    exact_linreg_at_horizon = horizon is not None and kind == "exact" and isinstance(problem, LinearRegression)
    if exact_linreg_at_horizon:  # the (d, n) row energies and Isserlis sums, the d × d coupling
        d = check_size("problem.d", problem.d, lambda m: 24.0 * m * m, what="the d x d coupling of the Isserlis sums")
        check_size("horizon", horizon, lambda m: 8.0 * (6 * d * m + 3 * d * d),
                   what=f"the row energies of d = {d} directions over every step")
    with renamed("n", "horizon"):  # the mechanism's routes name the horizon n
        n = _dp_variances(mechanism, problem, rho, G, method, horizon, participation,
                          every_step=exact_linreg_at_horizon)
    if n is None:
        return math.inf
    if exact_linreg_at_horizon:
        return _linear_regression_exact_at_horizon(problem, n)
    if isinstance(problem, MeanEstimation):
        return _mean_estimation(problem, n, _transient(problem, horizon), variant)
    return _linear_regression(problem, n, _transient(problem, horizon), kind)


def _mean_estimation(problem: MeanEstimation, n: np.ndarray, transient: np.ndarray, variant: str) -> float:
    r"""App. B eq. (18): ``lim E δ² = η²σ² E_{1−η}(β) + ησ_sgd²/(2 − η)``; ``F∞ = ½ lim E δ²`` (at a horizon the
    row energy and ``(1 − q^{2n})`` in their places)."""
    eta = problem.eta
    second_moment = float(n[0]) + eta * problem.sigma_sgd**2 / (2.0 - eta) * float(transient[0])
    return second_moment if variant == "paper" else 0.5 * second_moment


def _linear_regression(problem: LinearRegression, n: np.ndarray, transient: np.ndarray, kind: str) -> float:
    eta, lam, s2 = problem.eta, problem.eigs, problem.sigma_sgd**2
    if kind in ("lower", "upper") and eta * problem.R2 >= 1.0:
        raise ValueError(
            f"eta must lie in (0, 1/R^2) = (0, {1.0 / problem.R2:g}) for Thm C.15/C.18 "
            f"(R^2 = Tr H + 2 lambda_max = {problem.R2:g}), got {eta:g}"
        )
    if kind == "exact" and not eta < problem.eta_max_gaussian:
        raise ValueError(
            f"eta must lie in (0, {problem.eta_max_gaussian:.6g}) for the stationary second moment to exist "
            f"with Gaussian inputs (eta*lambda_max < 1 and sum_j eta*lambda_j/(2(1-eta*lambda_j)) < 1), got {eta:g}"
        )
    dp_lti = 0.5 * float(np.sum(lam * n))  # = η²G²γ²/(8πρ) ∫|B|²h dω  (eq. 20–21)
    if kind == "lti":
        return dp_lti + 0.5 * eta * s2 * float(np.sum(lam / (2.0 - eta * lam) * transient))
    if kind == "lower":  # Thm C.18
        return 0.25 * eta * s2 * problem.trace + dp_lti
    if kind == "upper":  # Thm C.15: the DP integral term is 4·dp_lti
        root = 1.0 - math.sqrt(eta * problem.R2)
        return (1.0 + 1.0 / root**2) * eta * problem.R2 * s2 + (1.0 + problem.C_kurt / root**2) * 4.0 * dp_lti
    # exact Gaussian stationary value: Tr(HS)/2 with S solving the rank-one-coupled Lyapunov system
    c = problem.coupling()
    x = eta * lam
    forced = float(np.sum(lam * n * (2.0 - x) / (2.0 * (1.0 - x))))
    return 0.5 * (forced + s2 * c) / (1.0 - c)


def _linear_regression_exact_at_horizon(problem: LinearRegression, dp: np.ndarray) -> float:
    r"""``E[F(θ_n) − F⋆]`` for Gaussian linear regression after ``n`` steps from ``θ⋆`` (``docs/linear_regression_exact.md``,
    "At a finite horizon").

    The multiplicative noise ``m_t = (x_t x_tᵀ − H)θ'_t`` is white and uncorrelated with the DP noise at every step,
    so ``S_t = E[θ'_t θ'_tᵀ]`` is diagonal in ``H``'s eigenbasis and splits into the DP part ``D_j(t)`` (the LTI
    filter of the coloured noise, ``dp[:, t−1]``) and a white part that obeys, with ``s_j = D_j + w_j`` and
    ``τ = Σ_j λ_j s_j``,

        ``w_j(t+1) = (1 − ηλ_j)² w_j(t) + η²(λ_j² s_j(t) + λ_j τ(t) + σ_sgd² λ_j)``,  ``w(0) = 0``,

    by the Gaussian fourth moment (Isserlis): ``w(t+1) = M w(t) + f(t)`` with the symmetric
    ``M = diag((1 − ηλ)² + η²λ²) + η²λλᵀ`` and ``f(t) = η²λ(λD(t) + λ·D(t) + σ_sgd²)``. So
    ``w(n) = Σ_{t<n} M^{n−1−t} f(t)``, summed in the eigenbasis of ``M`` (``O(nd²)``, no loop over steps);
    ``F_n = τ(n)/2``; tends to the stationary value as ``n → ∞`` (tested)."""
    eta, lam, s2 = problem.eta, problem.eigs, problem.sigma_sgd**2
    n = dp.shape[1]
    D = np.concatenate([np.zeros((lam.size, 1)), dp[:, :-1]], axis=1)  # D(t) for t = 0 … n−1 (θ'_0 = θ⋆)
    f = eta**2 * lam[:, None] * (lam[:, None] * D + (lam @ D)[None, :] + s2)
    M = np.diag((1.0 - eta * lam) ** 2 + (eta * lam) ** 2) + eta**2 * np.outer(lam, lam)
    mu, V = np.linalg.eigh(M)  # μ > 0: M is a positive diagonal (entries ≥ ½) plus a PSD rank-one term
    powers = np.exp(np.log(mu)[:, None] * np.arange(n - 1, -1, -1)[None, :])  # μ^{n−1−t}
    w = V @ np.sum(powers * (V.T @ f), axis=1)
    return 0.5 * float(lam @ (dp[:, -1] + w))


def F_inf_lti_infimum(problem: LinearRegression, *, rho: float, G: float = 1.0, variant: str = "corrected") -> float:
    r"""``inf_β`` of the LTI part of ``F∞`` (Thm C.18, second display), attained by ``|B⋆(ω)|² = h(ω)^{-1/2}``.

    By Cauchy–Schwarz, ``inf_β γ∞(β)² (1/2π)∫|B|²h = ((1/2π)∫√h)²``, so the DP part is
    ``η²G²/(16π²ρ) (∫_{−π}^{π} √h dω)²`` with ``h(ω) = Σ_j λ_j/|1 − ηλ_j − e^{iω}|²`` (eq. 21). The SGD part is
    the exact LTI value ``(ησ_sgd²/2)Σ_j λ_j/(2 − ηλ_j)``; ``variant="paper"`` uses the theorem's weaker
    ``(η/4)σ_sgd² Tr H`` instead.

    Parameters
    ----------
    problem : LinearRegression
        The problem (a :class:`MeanEstimation` is accepted too, ``H = 1``).
    rho : float in (0, inf)
        The zCDP level ``ρ``.
    G : float in (0, inf), default 1.0
        The clip norm.
    variant : {"corrected", "paper"}, default "corrected"
        The SGD part: the exact LTI value, or the theorem's ``(η/4)σ_sgd² Tr H``.

    Returns
    -------
    float
        The infimum over ``β`` of the LTI part of ``F∞``.
    """
    rho, G = check_privacy(rho, G)
    check_variant(variant)
    if not isinstance(problem, (LinearRegression, MeanEstimation)):
        raise ValueError(f"problem must be a LinearRegression (or a MeanEstimation, H = 1), got {type(problem).__name__}")
    eta, lam, s2 = problem.eta, problem.eigs, problem.sigma_sgd**2
    gaps = eta * lam

    def sqrt_h(w):
        return np.sqrt(np.sum(lam / _pole_modulus_sq(gaps, w)))

    mean_sqrt_h = clustered_even_mean(sqrt_h, gaps)
    dp = eta**2 * G**2 / (4.0 * rho) * mean_sqrt_h**2
    if variant == "paper":
        return dp + 0.25 * eta * s2 * float(np.sum(lam))  # Tr H
    return dp + 0.5 * eta * s2 * float(np.sum(lam / (2.0 - eta * lam)))


def mean_estimation_dpsgd(eta: float, *, rho: float, G: float = 1.0, sigma_sgd: float = 0.0, variant: str = "corrected") -> float:
    r"""``F∞`` of DP-SGD on mean estimation in closed form.

    Closed form, DP-SGD on mean estimation (Thm 2.1; Lemma F.12 with ``l = 0``):
    ``lim E δ² = ηG²/(2ρ(2 − η)) + ησ_sgd²/(2 − η)``; ``F∞`` is half of it (``variant="paper"``: all of it).

    Parameters
    ----------
    eta : float in (0, 2)
        The learning rate.
    rho : float in (0, inf)
        The zCDP level ``ρ``.
    G : float in (0, inf), default 1.0
        The clip norm.
    sigma_sgd : float in [0, inf), default 0.0
        The standard deviation of ``z − E z``.
    variant : {"corrected", "paper"}, default "corrected"
        ``"corrected"``: ``F∞ = ½ lim E δ²``; ``"paper"``: all of ``lim E δ²``.

    Returns
    -------
    float
        ``F∞``.
    """
    problem = MeanEstimation(eta, sigma_sgd)
    eta = problem.eta
    rho, G = check_privacy(rho, G)
    check_variant(variant)
    second_moment = eta * G**2 / (2.0 * rho * (2.0 - eta)) + eta * problem.sigma_sgd**2 / (2.0 - eta)
    return second_moment if variant == "paper" else 0.5 * second_moment


def mean_estimation_optimum(eta: float, *, rho: float, G: float = 1.0, sigma_sgd: float = 0.0, variant: str = "corrected") -> float:
    r"""The optimal ``F∞`` on mean estimation in closed form.

    Closed form, ``inf_β F∞(β) = F∞(β*)`` on mean estimation (Thm 2.1; App. B after eq. 18; Lemma F.15):
    ``lim E δ² = η²G²/(8π²ρ)(∫dω/|1 − η − e^{iω}|)² + ησ_sgd²/(2 − η) = 2η²G²K(|1 − η|)²/(π²ρ) + ησ_sgd²/(2 − η)``
    (modulus ``k = |1 − η|``, evaluated as ``ellipkm1(η(2 − η))``).

    Parameters
    ----------
    eta : float in (0, 2)
        The learning rate.
    rho : float in (0, inf)
        The zCDP level ``ρ``.
    G : float in (0, inf), default 1.0
        The clip norm.
    sigma_sgd : float in [0, inf), default 0.0
        The standard deviation of ``z − E z``.
    variant : {"corrected", "paper"}, default "corrected"
        ``"corrected"``: ``F∞ = ½ lim E δ²``; ``"paper"``: all of ``lim E δ²``.

    Returns
    -------
    float
        ``F∞(β*)``.
    """
    problem = MeanEstimation(eta, sigma_sgd)
    eta = problem.eta
    rho, G = check_privacy(rho, G)
    check_variant(variant)
    K = float(ellipk_complement(eta * (2.0 - eta)))
    second_moment = 2.0 * eta**2 * G**2 * K**2 / (math.pi**2 * rho) + eta * problem.sigma_sgd**2 / (2.0 - eta)
    return second_moment if variant == "paper" else 0.5 * second_moment


def mean_estimation_ratio(eta) -> np.ndarray:
    r"""Figure 1 (left): ``F∞(β*)/F∞(DP-SGD) = 4η(2 − η)K(|1 − η|)²/π²`` at ``σ_sgd = 0``, vectorised.

    Symmetric under ``η ↔ 2 − η``, equal to 1 at ``η = 1`` (where ``β* = DP-SGD``) and → 0 as ``η → 0`` or
    ``η → 2``. The caption's "orders of magnitude better at η → 1" contradicts this (errata 004 §10.4).

    Parameters
    ----------
    eta : float or array_like
        Learning rates in ``(0, 2)``.

    Returns
    -------
    float or numpy.ndarray
        The ratio, of the shape of ``eta``.
    """
    e = check_real_values("eta", eta, 0.0, 2.0, why="the stability range of mean estimation")
    m1 = e * (2.0 - e)
    return 4.0 * m1 * ellipk_complement(m1) ** 2 / math.pi**2
