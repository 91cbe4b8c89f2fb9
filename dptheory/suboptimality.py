r"""Asymptotic suboptimality ``F∞(β) = lim_{T→∞} E[F(θ_T) − F(θ⋆)]`` (seed 004, eq. 4).

``θ_t`` follows Noisy-FTRL (seed 004, eq. 13), ``θ_{t+1} = θ_t − η(g_t + G σ_dp Σ_τ β_τ w_{t−τ})``,
``w_t ~ N(0, I_d)``, with the noise calibrated to the limiting sensitivity, ``σ_dp = γ∞(β)/√(2ρ)``
(Thm 1.1). Hence ``F∞`` is invariant to rescaling ``β`` and depends on ``β`` only through ``|B(ω)|²``.

Everything is built from two numbers of the mechanism: ``γ∞(β)²`` and the pole integrals
``E_q(β) = (1/2π)∫|B(ω)|²/|1 − q e^{iω}|² dω`` at ``q_j = 1 − ηλ_j``
(:meth:`~dptheory.correlations.ToeplitzMechanism.filtered_energy`). The stationary DP variance of
eigen-direction ``j`` of the linearised dynamics is ``n_j = η² σ² E_{q_j}``, ``σ² = G²γ∞²/(2ρ)``
(Thm F.2, App. B eq. 18, App. C eq. 39).
"""

from __future__ import annotations

import math

import numpy as np

from .mechanisms.toeplitz import MechanismLike, ToeplitzMechanism, as_mechanism
from .problems import LinearRegression, MeanEstimation
from .mechanisms.spectral import _pole_modulus_sq, clustered_even_mean
from .special import ellipk_complement
from ._validation import check_privacy, check_real_values, check_variant

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


def _dp_variances(beta: ToeplitzMechanism, problem, rho: float, G: float, method: str) -> np.ndarray | None:
    r"""Per eigen-direction stationary DP variance ``n_j = η² G²γ∞²/(2ρ) · E_{1−ηλ_j}(β)``; ``None`` if γ∞ = ∞."""
    gamma_sq = beta.limiting_sensitivity(method=method) ** 2
    if not math.isfinite(gamma_sq):
        return None
    energy = beta.filtered_energy(gap=problem.eta * problem.eigs, method=method)
    return problem.eta**2 * G**2 * gamma_sq / (2.0 * rho) * energy


def F_inf(
    beta: MechanismLike,
    problem: MeanEstimation | LinearRegression,
    *,
    rho: float,
    G: float = 1.0,
    kind: str = "exact",
    variant: str = "corrected",
    method: str = "auto",
) -> float:
    r"""Asymptotic suboptimality ``F∞(β)`` of Noisy-FTRL with ``σ_dp = γ∞(β)/√(2ρ)`` (seed 004, eq. 4).

    Parameters
    ----------
    beta : a :class:`~dptheory.correlations.ToeplitzMechanism` or any sequence ``β`` (``β_0 ≠ 0``).
    problem : :class:`MeanEstimation` or :class:`LinearRegression`.
    rho : zCDP level ``ρ > 0`` (Thm 1.1).
    G : clip norm ``G > 0`` (scales the DP noise; Noisy-FTRL does not clip).
    kind :
        ``"exact"`` — the true stationary value. Mean estimation: App. B eq. (18). Linear regression
        with Gaussian inputs: the exact solution of the stationary second-moment equations, which the
        paper does not give (derivation in ``docs/linear_regression_exact.md``); needs
        ``η < problem.eta_max_gaussian``.
        ``"lti"`` — the LTI part (the ``xxᵀ → H`` surrogate; equality case of Thm C.18).
        ``"lower"`` / ``"upper"`` — Thm C.18 / Thm C.15 with their constants (``C_kurt = 3``,
        ``R² = Tr H + 2λ_max``), both require ``η < 1/R²``.
    variant : ``"corrected"`` (default) returns ``E[F − F⋆]`` as eq. (4) defines it. ``"paper"`` reproduces
        App. B, which calls ``lim E[δ²]`` "F∞" and so drops the ½ of ``F − F⋆ = ½δ²`` (digest 004 §10.3);
        mean estimation only.
    method : ``"auto"``, ``"closed_form"``, ``"time"`` or ``"frequency"``: the route for ``γ∞`` and the pole
        integrals (see :meth:`~dptheory.correlations.ToeplitzMechanism.filtered_energy`).

    Returns ``math.inf`` when ``γ∞(β) = ∞`` (Optimal-CC, anti-PGD, non-minimum-phase ``β``; Table 2).
    """
    rho, G = check_privacy(rho, G)
    if type(problem) not in _KINDS:
        raise ValueError(f"problem must be one of {[k.__name__ for k in _KINDS]}, got {type(problem).__name__}")
    if kind not in _KINDS[type(problem)]:
        raise ValueError(f"kind must be one of {_KINDS[type(problem)]} for {type(problem).__name__}, got {kind!r}")
    check_variant(variant)
    if variant == "paper" and not isinstance(problem, MeanEstimation):
        raise ValueError("variant='paper' exists only for MeanEstimation (App. B drops the factor 1/2)")
    beta = as_mechanism(beta)
    if not isinstance(beta, ToeplitzMechanism):
        raise ValueError(f"beta must be a Toeplitz correlation for the stationary theory, got {beta!r}")
    if isinstance(problem, MeanEstimation):
        return _mean_estimation(beta, problem, rho, G, variant, method)
    return _linear_regression(beta, problem, rho, G, kind, method)


def _mean_estimation(beta, problem: MeanEstimation, rho, G, variant, method) -> float:
    r"""App. B eq. (18): ``lim E δ² = η²σ² E_{1−η}(β) + ησ_sgd²/(2 − η)``; ``F∞ = ½ lim E δ²``."""
    eta = problem.eta
    n = _dp_variances(beta, problem, rho, G, method)
    if n is None:
        return math.inf
    second_moment = float(n[0]) + eta * problem.sigma_sgd**2 / (2.0 - eta)
    return second_moment if variant == "paper" else 0.5 * second_moment


def _linear_regression(beta, problem: LinearRegression, rho, G, kind, method) -> float:
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
    n = _dp_variances(beta, problem, rho, G, method)
    if n is None:
        return math.inf
    dp_lti = 0.5 * float(np.sum(lam * n))  # = η²G²γ²/(8πρ) ∫|B|²h dω  (eq. 20–21)
    if kind == "lti":
        return dp_lti + 0.5 * eta * s2 * float(np.sum(lam / (2.0 - eta * lam)))
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


def F_inf_lti_infimum(problem: LinearRegression, *, rho: float, G: float = 1.0, variant: str = "corrected") -> float:
    r"""``inf_β`` of the LTI part of ``F∞`` (Thm C.18, second display), attained by ``|B⋆(ω)|² = h(ω)^{-1/2}``.

    By Cauchy–Schwarz, ``inf_β γ∞(β)² (1/2π)∫|B|²h = ((1/2π)∫√h)²``, so the DP part is
    ``η²G²/(16π²ρ) (∫_{−π}^{π} √h dω)²`` with ``h(ω) = Σ_j λ_j/|1 − ηλ_j − e^{iω}|²`` (eq. 21). The SGD part is
    the exact LTI value ``(ησ_sgd²/2)Σ_j λ_j/(2 − ηλ_j)``; ``variant="paper"`` uses the theorem's weaker
    ``(η/4)σ_sgd² Tr H`` instead.
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
    r"""Closed form, DP-SGD on mean estimation (Thm 2.1; Lemma F.12 with ``l = 0``):
    ``lim E δ² = ηG²/(2ρ(2 − η)) + ησ_sgd²/(2 − η)``; ``F∞`` is half of it (``variant="paper"``: all of it)."""
    problem = MeanEstimation(eta, sigma_sgd)
    eta = problem.eta
    rho, G = check_privacy(rho, G)
    check_variant(variant)
    second_moment = eta * G**2 / (2.0 * rho * (2.0 - eta)) + eta * problem.sigma_sgd**2 / (2.0 - eta)
    return second_moment if variant == "paper" else 0.5 * second_moment


def mean_estimation_optimum(eta: float, *, rho: float, G: float = 1.0, sigma_sgd: float = 0.0, variant: str = "corrected") -> float:
    r"""Closed form, ``inf_β F∞(β) = F∞(β*)`` on mean estimation (Thm 2.1; App. B after eq. 18; Lemma F.15):
    ``lim E δ² = η²G²/(8π²ρ)(∫dω/|1 − η − e^{iω}|)² + ησ_sgd²/(2 − η) = 2η²G²K(|1 − η|)²/(π²ρ) + ησ_sgd²/(2 − η)``
    (modulus ``k = |1 − η|``, evaluated as ``ellipkm1(η(2 − η))``)."""
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
    ``η → 2``. The caption's "orders of magnitude better at η → 1" contradicts this (digest 004 §10.4).
    """
    e = check_real_values("eta", eta, 0.0, 2.0, why="the stability range of mean estimation")
    m1 = e * (2.0 - e)
    return 4.0 * m1 * ellipk_complement(m1) ** 2 / math.pi**2
