r"""The frequency-domain bound on ``F∞`` for strongly convex losses (seed 004, Thm 3.1 / Thm E.1).

For a ``μ``-strongly convex, ``L``-smooth ``F`` the gradient map satisfies the Zames–Falb integral quadratic
constraint (IQC) of Heath & Wills (2005) for every multiplier
``Λ(ω) = λ_0 − Σ_{0<|k|≤K} λ_k e^{−iωk}``, ``λ_k ≥ 0``, ``Σ_{k≠0} λ_k ≤ λ_0`` (the sign the OCR of App. E garbles;
``tests/test_iqc.py`` shows that this one is valid and the printed ``+`` is not). Any ``ψ ≥ 0`` with

    diag(−c, ψ(ω)) − A(ω)* M_{μ,L}^{(λ)}(ω) A(ω) ⪰ 0   for all ω           (eq. 90, per coordinate)

then bounds ``lim E‖θ_t − θ⋆‖² ≤ (1/c)(1/2π)∫ψ(ω) tr S_ζ(ω) dω`` with ``ζ = Bw + ε`` the total noise. Per ω the
constraint is one 2×2 Hermitian PSD block, i.e. a second-order cone (digest 004 §5.2), so minimising over
``(ψ, λ)`` on a grid of ω is an SOCP, solved here with cvxpy + Clarabel.

Constants. ``F − F⋆ ≤ (L/2)‖θ − θ⋆‖²``; the DP noise has PSD ``G²γ∞²|B(ω)|²/(2ρ)`` per coordinate, and the
gradient noise (a martingale difference, uncorrelated with ``w`` at every lag) has ``tr S_ε ≤ σ_sgd²``. Hence
the default (``variant="corrected"``)

    F∞ ≤ (L/2c) · (1/2π)∫ ψ(ω) (d·G²γ∞²|B(ω)|²/(2ρ) + σ_sgd²) dω,

which is *exact* for quadratics with ``μ = L`` (tested). ``variant="paper"`` returns Thm 3.1 as printed,
``(Ld/2π)∫(G²ρ⁻¹|B|²γ∞² + σ_sgd²)ψ / c``: a Cauchy–Schwarz factor 2 on the noise PSD and the DP PSD counted as
``G²γ²/ρ`` (digest §10.10) make it 4× larger at ``σ_sgd = 0``.

Numerics (digest §5.2): ``c = 2μL``; ``ψ = ψ_0 φ`` with ``ψ_0 = η²/|1 − ημ − e^{iω}|²`` (the exact quadratic
answer at curvature ``μ``) and each 2×2 block congruence-scaled by ``diag(1, ψ_0^{-1/2})``; ω on ``[0, π]`` (all
data are even in ω) clustered at 0 as ``ω = π u²`` because ψ peaks there with width ~ημ; trapezoid weights.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np

from ._validation import check_in_interval, check_privacy, check_variant
from .correlations import BetaLike, FiniteToeplitz, ToeplitzCorrelation, as_correlation, nu_ftrl
from .problems import StronglyConvex

__all__ = [
    "BoundResult",
    "F_inf_bound",
    "OptimizedCorrelation",
    "optimize_correlation",
    "minimum_phase_factor",
    "frequency_grid",
    "DEFAULT_GRID",
    "DEFAULT_TAU_MAX",
]

DEFAULT_GRID = 600  #: grid points on [0, π]; see docs/socp_convergence.md
DEFAULT_TAU_MAX = 20  #: multiplier truncation τ_max (K); see docs/socp_convergence.md
_LAMBDA_CAP = 1e4  # λ_0 ≤ cap·(c = 2μL units); λ_0 ~ 1/(1 − μ/L) near μ = L, O(1)–O(10) for κ ≥ 1.1


@dataclass(frozen=True)
class BoundResult:
    """The bound with the optimal ``ψ`` on the grid, the multiplier ``λ_{−K..K}`` and the solver's report."""

    value: float
    omega: np.ndarray = field(repr=False)
    psi: np.ndarray = field(repr=False)
    multiplier: dict = field(repr=False)
    solver_stats: dict = field(repr=False)
    settings: dict = field(repr=False)

    def __repr__(self) -> str:
        s = self.settings
        return (
            f"BoundResult(value={self.value:.6g}, beta={s['beta']}, kappa={s['kappa']:g}, eta={s['eta']:g}, "
            f"grid={s['n_grid']}, tau_max={s['tau_max']}, status={self.solver_stats['status']}, "
            f"solve_time={self.solver_stats['solve_time']:.2f}s)"
        )


def _quadratic_weight(eta: float, h: float, omega: np.ndarray) -> np.ndarray:
    """``η²/|1 − ηh − e^{iω}|²``: the exact ψ/c of the quadratic with curvature ``h`` (Thm F.2)."""
    return eta**2 / np.abs(1.0 - eta * h - np.exp(1j * omega)) ** 2


def frequency_grid(n: int, power: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    r"""Grid ``ω_j = π u_j^p`` on ``[0, π]`` and trapezoid weights ``q_j`` with ``Σ q_j f(ω_j) ≈ (1/2π)∫_{−π}^{π} f``
    for even ``f``."""
    u = np.linspace(0.0, 1.0, n)
    omega = math.pi * u**power
    dw = np.diff(omega)
    q = np.zeros(n)
    q[:-1] += dw / 2
    q[1:] += dw / 2
    return omega, q / math.pi


def _solve_psi(weight: np.ndarray, omega: np.ndarray, q: np.ndarray, problem: StronglyConvex, tau_max: int, lambda_cap: float = _LAMBDA_CAP):
    """min_{ψ, λ} Σ_j q_j weight_j ψ_j subject to the IQC cone at every grid point; returns (value/c, ψ, λ, stats).

    ``λ_0 ≤ lambda_cap`` (in units of ``c = 2μL``) keeps the program bounded as ``μ → L``, where the optimal
    ``λ_0`` grows like ``1/(1 − μ/L)``; ``solver_stats["multiplier_cap_active"]`` says whether it binds.
    """
    eta, mu, L = problem.eta, problem.mu, problem.L
    c = 2.0 * mu * L
    x, s = 1.0 - np.cos(omega), np.sin(omega)
    psi0 = _quadratic_weight(eta, mu, omega)
    k = np.concatenate([np.arange(1, tau_max + 1), -np.arange(1, tau_max + 1)])
    Ccos, Csin = np.cos(np.outer(omega, k)), np.sin(np.outer(omega, k))

    phi = cp.Variable(omega.size, nonneg=True)
    lam0 = cp.Variable(nonneg=True)
    lamk = cp.Variable(k.size, nonneg=True) if tau_max > 0 else None
    r = lam0 - Ccos @ lamk if lamk is not None else lam0 * np.ones(omega.size)
    m = Csin @ lamk if lamk is not None else np.zeros(omega.size)
    D1 = -c + cp.multiply(2 * mu * L - (2 / eta) * (L + mu) * x + 4 * x / eta**2, r) - cp.multiply((2 / eta) * (L - mu) * s, m)
    root = np.sqrt(psi0)
    u_re = cp.multiply((L + mu - 2 * x / eta) / root, r)
    u_im = cp.multiply((L - mu) / root, m) - cp.multiply(2 * s / (eta * root), r)
    D2 = phi + cp.multiply(2.0 / psi0, r)
    cones = [cp.SOC(D1 + D2, cp.vstack([2 * u_re, 2 * u_im, D1 - D2]), axis=0)]
    cones.append(lam0 <= lambda_cap)
    if lamk is not None:
        cones.append(cp.sum(lamk) <= lam0)
    obj_weights = q * weight * psi0
    scale = float(np.sum(obj_weights))  # keep the objective O(1) for the solver
    prob = cp.Problem(cp.Minimize(obj_weights / scale @ phi), cones)
    start = time.perf_counter()
    try:
        prob.solve(solver=cp.CLARABEL)
    except cp.error.SolverError as exc:
        raise RuntimeError(f"the SOCP solver failed: {exc}") from exc
    stats = dict(status=prob.status, solver="CLARABEL", solve_time=time.perf_counter() - start,
                 iterations=prob.solver_stats.num_iters if prob.solver_stats else None)
    if prob.status != cp.OPTIMAL:
        raise RuntimeError(
            f"the SOCP of Thm 3.1 was not solved to optimality: solver status {prob.status!r} "
            f"(eta={eta:g}, mu={mu:g}, L={L:g}, grid={omega.size}, tau_max={tau_max})"
        )
    stats["multiplier_cap_active"] = bool(lam0.value >= 0.999 * lambda_cap)
    psi = psi0 * phi.value
    lam = {0: float(lam0.value)}
    if lamk is not None:
        lam.update({int(kk): float(v) for kk, v in zip(k, lamk.value)})
    return prob.value * scale / c, psi, lam, stats


def F_inf_bound(
    beta: BetaLike,
    problem: StronglyConvex,
    *,
    rho: float,
    G: float = 1.0,
    n_grid: int = DEFAULT_GRID,
    tau_max: int = DEFAULT_TAU_MAX,
    variant: str = "corrected",
) -> BoundResult:
    r"""Upper bound on ``F∞(β)`` for a strongly convex problem (seed 004, Thm 3.1 / Thm E.1), by an SOCP.

    Returns ``value = inf`` (and no program) when ``γ∞(β) = ∞``: the noise needed for privacy is unbounded.
    Raises ``RuntimeError`` carrying the solver status when Clarabel does not report ``optimal``.
    """
    rho, G = check_privacy(rho, G)
    check_variant(variant)
    if not isinstance(problem, StronglyConvex):
        raise ValueError(f"problem must be StronglyConvex, got {type(problem).__name__}")
    n_grid = int(check_in_interval("n_grid", n_grid, 16, 1e6, lo_closed=True))
    tau_max = int(check_in_interval("tau_max", tau_max, 0, 1e4, lo_closed=True))
    corr = as_correlation(beta)
    if not isinstance(corr, ToeplitzCorrelation):
        raise ValueError(f"beta must be a Toeplitz correlation, got {corr!r}")
    settings = dict(beta=corr.name, kappa=problem.kappa, eta=problem.eta, mu=problem.mu, L=problem.L,
                    sigma_sgd=problem.sigma_sgd, d=problem.d, rho=rho, G=G, n_grid=n_grid, tau_max=tau_max, variant=variant)
    gamma_sq = corr.limiting_sensitivity() ** 2
    omega, q = frequency_grid(n_grid)
    if not math.isfinite(gamma_sq):
        return BoundResult(math.inf, omega, np.full(n_grid, np.nan), {}, dict(status="not solved: gamma_inf = inf",
                           solver=None, solve_time=0.0, iterations=None), settings)
    d, s2 = problem.d, problem.sigma_sgd**2
    dp, factor = (d * G**2 * gamma_sq / (2 * rho), problem.L / 2) if variant == "corrected" else (G**2 * gamma_sq / rho, problem.L * d)
    if problem.mu == problem.L:
        return _quadratic_limit(corr, problem, dp, factor, omega, settings)
    value, psi, lam, stats = _solve_psi(dp * corr.spectrum(omega) + s2, omega, q, problem, tau_max)
    return BoundResult(factor * value, omega, psi, lam, stats, settings)


def _quadratic_limit(corr, problem: StronglyConvex, dp: float, factor: float, omega, settings) -> BoundResult:
    r"""``μ = L``: the program's infimum is approached as ``λ_0/c → ∞`` and not attained (the 2×2 blocks become
    singular at every ω), so no solver reports ``optimal``. Its limit is ``ψ/c = η²/|1 − ηL − e^{iω}|²``, the
    exact transfer function of the quadratic, which makes the bound the exact quadratic ``F∞`` (Thm F.2):
    ``factor·η²(dp·E_q(β) + σ_sgd²/(1 − q²))``, ``q = 1 − ηL``, with the pole integral of the analytic core."""
    eta, q = problem.eta, 1.0 - problem.eta * problem.L
    value = eta**2 * (dp * corr.filtered_energy(q) + problem.sigma_sgd**2 / (1.0 - q**2))
    psi = _quadratic_weight(eta, problem.L, omega)
    stats = dict(status="closed form (mu = L: the limit of the program)", solver=None, solve_time=0.0, iterations=None)
    return BoundResult(factor * value, omega, psi, {0: math.inf}, stats, settings)


@dataclass(frozen=True)
class OptimizedCorrelation:
    """Result of :func:`optimize_correlation`: the causal ``β`` and the history of the alternating minimisation."""

    beta: object
    history: list = field(repr=False)
    abs2: np.ndarray = field(repr=False)
    omega: np.ndarray = field(repr=False)
    psi: np.ndarray = field(repr=False)

    def __repr__(self) -> str:
        return f"OptimizedCorrelation(J={self.history[-1]:.6g}, iterations={len(self.history) - 1}, taps={self.beta.beta.size})"


def minimum_phase_factor(abs2, n_fft: int = 1 << 15, taps: int | None = None, tol: float = 1e-12):
    r"""Causal, minimum-phase ``β`` with ``|B(ω)|² = abs2(ω)`` (``abs2`` a callable on ``[0, π]``, even in ω).

    Real-cepstrum method: ``log|B| = ½ log abs2`` on a uniform grid of ``n_fft`` points; fold the cepstrum onto
    ``t ≥ 0`` (double ``1 ≤ t < n/2``); exponentiate its FFT. ``β`` is normalised to ``β_0 = 1`` (``F∞`` and the
    bound are scale-free) and cut where the remaining energy is below ``tol``.
    """
    w = 2 * math.pi * np.arange(n_fft) / n_fft
    log_mag = 0.5 * np.log(abs2(np.minimum(w, 2 * math.pi - w)))
    cep = np.fft.ifft(log_mag).real
    fold = np.zeros(n_fft)
    fold[0] = cep[0]
    fold[1 : n_fft // 2] = 2 * cep[1 : n_fft // 2]
    fold[n_fft // 2] = cep[n_fft // 2]
    beta = np.fft.ifft(np.exp(np.fft.fft(fold))).real[: n_fft // 2]
    beta = beta / beta[0]
    if taps is None:
        tail = np.cumsum((beta**2)[::-1])[::-1]
        taps = int(np.argmax(tail <= tol * tail[0])) or beta.size
    return FiniteToeplitz(beta[:taps], name=f"optimized[{taps} taps]")


def optimize_correlation(
    problem: StronglyConvex,
    *,
    start: BetaLike | None = None,
    n_grid: int = DEFAULT_GRID,
    tau_max: int = DEFAULT_TAU_MAX,
    max_iter: int = 20,
    rtol: float = 1e-4,
) -> OptimizedCorrelation:
    r"""Alternating minimisation of ``J(B, ψ) = γ∞(B)²·(1/2π)∫|B|²ψ`` (the "Optimized" DP-FTRL of Fig. 3).

    ψ-step: the SOCP of Thm 3.1 for fixed ``|B|²``. B-step: Cauchy–Schwarz, ``|B|² ∝ ψ^{-1/2}``, which gives
    ``J = ((1/2π)∫√ψ)²`` (digest 004 §5.3). Starts from ν-DP-FTRL with ``ν = ημ`` unless ``start`` is given; stops
    when ``J`` decreases by less than ``rtol`` relative; raises if ``J`` increases by more than the solver's
    tolerance (1e-5 relative). ``σ_sgd`` does not depend on ``B`` and is ignored here. Returns the minimum-phase
    spectral factor of the final ``|B|²`` as a causal Toeplitz ``β`` usable everywhere in the toolkit.
    ``history`` holds ``J`` in the units of Thm 3.1 with ``L = G = ρ = d = 1`` (the paper-constant bound is
    ``L·d·G²/ρ·J``; the corrected one is a quarter of it).
    """
    if problem.mu == problem.L:
        raise ValueError("mu must be < L for the alternating minimisation (at mu = L the optimum is beta* of Thm 2.1)")
    omega, q = frequency_grid(n_grid)
    corr = as_correlation(start) if start is not None else nu_ftrl(min(problem.eta * problem.mu, 0.999))
    abs2 = corr.spectrum(omega)
    history = []
    psi = None
    for _ in range(max_iter):
        gamma_sq = float(np.sum(q / abs2))  # γ∞² = (1/2π)∫|B|^{-2} on the same grid
        J, psi, _, _ = _solve_psi(gamma_sq * abs2, omega, q, problem, tau_max)
        if history and J > history[-1] * (1 + 1e-5):
            raise RuntimeError(f"alternating minimisation is not monotone: J rose from {history[-1]:.8g} to {J:.8g}")
        history.append(J)
        if len(history) > 1 and history[-2] - J <= rtol * J:
            break
        abs2 = 1.0 / np.sqrt(psi)
        abs2 = abs2 / abs2[0]
    abs2_final = abs2
    interp = lambda w: np.exp(np.interp(w, omega, np.log(abs2_final)))
    beta = minimum_phase_factor(interp)
    return OptimizedCorrelation(beta, history, abs2_final, omega, psi)
