r"""Rounds, step sizes and batch sizes that seed 002's theorems prescribe (Lowy & Razaviyayn, ISRL-DP FL).

=========================================== ==========================================================================
function                                    source (seed 002)
=========================================== ==========================================================================
:func:`noisy_mbsgd_convex_schedule` & co.   Thm D.1/D.2 rounds, step sizes, Moreau smoothing; Thm 3.1/E.1 batches
:func:`multi_stage_schedule`                App. E.1 (printed ν_k and the corrected ν_k, errata 002 §8 #17)
:func:`acsa_steps`                          the AC-SA step sizes and weights of the accelerated one-pass variant
=========================================== ==========================================================================

The noise each of them is run with is calibrated in :mod:`dptheory.isrl.calibration`; the notation is that module's
(errata 002 §2.1). A function whose arguments include two numbers or more takes its first argument positionally
and the others by keyword only, as in :mod:`dptheory.accounting`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import VARIANTS, check_in_interval, check_int
from .calibration import _delta, _pos, sigma2_noisy_mbsgd

__all__ = [
    "Schedule",
    "noisy_mbsgd_convex_schedule",
    "explicit_convex_bound",
    "noisy_mbsgd_sc_schedule",
    "stich_schedule",
    "moreau_beta_convex",
    "moreau_beta_sc",
    "onepass_batch_convex",
    "onepass_batch_sc",
    "Stage",
    "multi_stage_schedule",
    "acsa_steps",
]


@dataclass(frozen=True)
class Schedule:
    """Rounds, constant step and averaging weights prescribed by a theorem.

    Rounds ``R`` (the theorem's real-valued expression: round up to run), constant step ``eta`` and the
    averaging weights ``gamma_r/Γ_R`` (``None``: uniform 1/R), with the theorem it comes from.

    Attributes
    ----------
    R : float
        The number of rounds, the theorem's real-valued expression (round up to run).
    eta : float
        The constant step size.
    weights : numpy.ndarray or None, default None
        The averaging weights ``gamma_r/Γ_R``, one per round run; ``None``: uniform ``1/R``.
    source : str, default ""
        The theorem (or lemma) the schedule comes from.
    """

    R: float
    eta: float
    weights: np.ndarray | None = field(default=None, repr=False)
    source: str = ""


def noisy_mbsgd_convex_schedule(L, *, D, beta, M, n, d, eps0) -> Schedule:
    """Rounds and constant step of Noisy MB-SGD for β-smooth convex f (Thm D.1).

    Thm D.1, β-smooth convex: ``R = (βD√M/L)·min{√n, ε0n/√d} + min{nM, ε0²n²M/d}``,
    ``η = min(1/β, (D/(L√R))·min{1, ε0n√M/√(Rd), √(nM/R)})``, ``γ_r = 1/R``.

    Non-smooth f (Thm D.2): pass ``beta=moreau_beta_convex(...)``; then ``R = 2·min{nM, ε0²n²M/d}`` exactly.

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    D : float in (0, inf)
        Diameter of ``W``.
    beta : float in (0, inf)
        Smoothness β (or the Moreau smoothing parameter).
    M : float in (0, inf)
        (Harmonic) number of participating silos.
    n : float in (0, inf)
        Records per silo.
    d : float in (0, inf)
        Dimension.
    eps0 : float in (0, inf)
        The ISRL-DP ε0 of every silo.

    Returns
    -------
    Schedule
        ``R`` (real-valued), ``η`` and uniform weights.
    """
    L, D, beta, M, n, d, eps0 = (_pos(k, v) for k, v in dict(L=L, D=D, beta=beta, M=M, n=n, d=d, eps0=eps0).items())
    a = min(math.sqrt(n), eps0 * n / math.sqrt(d))
    R = beta * D * math.sqrt(M) / L * a + min(n * M, eps0**2 * n**2 * M / d)
    eta = min(1.0 / beta, D / (L * math.sqrt(R)) * min(1.0, eps0 * n * math.sqrt(M) / math.sqrt(R * d),
                                                       math.sqrt(n * M / R)))
    return Schedule(R, eta, None, "Thm D.1 (convex)")


def explicit_convex_bound(*, L, D, R, eta, n, M, d, sigma2) -> float:
    """Explicit excess-risk bound of Thm D.1's proof at the step ``eta`` used.

    Thm D.1's proof at the step ``eta`` used (convex, β-smooth, ``η ≤ 1/β``, ``γ_r = 1/R``): Lemma D.2's
    stability ``2L²Rη/(nM)`` plus Lemma D.6's empirical error ``D²/(2ηR) + (η/2)(dσ²/M + L²)``; the
    registry's ``isrl_iid_cvx_explicit`` is its optimum over η for ``R ≫ nM``.

    Parameters
    ----------
    L : float
        Lipschitz constant of ``f(·, x)``.
    D : float
        Diameter of ``W``.
    R : float
        Number of rounds.
    eta : float
        The constant step size (``η ≤ 1/β``).
    n : float
        Records per silo.
    M : float
        (Harmonic) number of participating silos.
    d : float
        Dimension.
    sigma2 : float
        Per-coordinate noise variance σ² of each silo.

    Returns
    -------
    float
        ``2L²Rη/(nM) + D²/(2ηR) + (η/2)(dσ²/M + L²)``.
    """
    return 2 * L**2 * R * eta / (n * M) + D**2 / (2 * eta * R) + eta / 2 * (d * sigma2 / M + L**2)


def noisy_mbsgd_sc_schedule(L, *, D, beta, mu, M, n, d, eps0, delta0, sigma2=None) -> Schedule:
    """Rounds, step and weights of Noisy MB-SGD for μ-strongly convex f (Thm D.1).

    Thm D.1, μ-strongly convex: ``R = max(2κ ln(βD²μMε0²n²/(dL²)), min{Mn, Mε0²n²/d})`` and Stich's
    constant step (Lemma D.5, a = μ, g = 2β, c = dσ²/M + L², r0 = D²):
    ``η = min{1/(2β), ln(max{2, μ²D²R²/c})/(μR)}``, ``γ_r ∝ (1 − μη)^{−(r+1)}``, r = 0..⌈R⌉−1.

    ``sigma2`` defaults to :func:`~dptheory.isrl.calibration.sigma2_noisy_mbsgd` at the prescribed R rounded up (the rounds that are run).

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    D : float in (0, inf)
        Diameter of ``W``.
    beta : float in (0, inf)
        Smoothness β (or the Moreau smoothing parameter).
    mu : float in (0, beta]
        Strong-convexity modulus μ.
    M : float in (0, inf)
        (Harmonic) number of participating silos.
    n : float in (0, inf)
        Records per silo.
    d : float in (0, inf)
        Dimension.
    eps0 : float in (0, inf)
        The ISRL-DP ε0 of every silo.
    delta0 : float in (0, 1)
        The ISRL-DP δ0 of every silo (used for the default ``sigma2``).
    sigma2 : float in [0, inf), optional
        Per-coordinate noise variance σ² in ``c``. Default: :func:`~dptheory.isrl.calibration.sigma2_noisy_mbsgd` at ``⌈R⌉``.

    Returns
    -------
    Schedule
        ``R`` (real-valued), ``η`` and the weights ``γ_r/Γ_R``.
    """
    L, D, beta, mu, M, n, d, eps0 = (_pos(k, v) for k, v in
                                     dict(L=L, D=D, beta=beta, mu=mu, M=M, n=n, d=d, eps0=eps0).items())
    check_in_interval("mu", mu, 0.0, beta, hi_closed=True, why="mu <= beta")
    kappa = beta / mu
    R = max(2.0 * kappa * math.log(beta * D**2 * mu * M * eps0**2 * n**2 / (d * L**2)),
            min(M * n, M * eps0**2 * n**2 / d))
    s2 = sigma2_noisy_mbsgd(L, R=math.ceil(R), n=n, eps0=eps0, delta0=delta0) if sigma2 is None else check_in_interval(
        "sigma2", sigma2, 0.0, lo_closed=True)
    sch = stich_schedule(R=R, mu=mu, beta=beta, c=d * s2 / M + L**2, r0=D**2)
    return Schedule(R, sch.eta, sch.weights, "Thm D.1 (strongly convex) + Lemma D.5")


def stich_schedule(*, R, mu, beta, c, r0) -> Schedule:
    r"""Stich's constant step and exponential weights at a given number of rounds ``R``.

    Lemma D.5 (Stich 2019; ``a = μ, b = 2, g = 2β``) at a given number of rounds ``R``:
    ``η = min{1/(2β), ln(max{2, μ²r₀R²/c})/(μR)}``, ``γ_r ∝ (1 − μη)^{−(r+1)}`` for ``r < ⌈R⌉`` (normalised in
    log space). :func:`noisy_mbsgd_sc_schedule` applies it at Thm D.1's ``R``; the Monte-Carlo protocol keeps
    ``R`` fixed across a sweep (errata 002 §6), so it is also an entry point of its own.

    Parameters
    ----------
    R : float in [1, inf)
        Number of rounds (``⌈R⌉`` weights).
    mu : float in (0, inf)
        Strong-convexity modulus μ.
    beta : float in (0, inf)
        Smoothness β.
    c : float in (0, inf)
        The gradient second-moment bound ``c`` (``dσ²/M + L²`` for Noisy MB-SGD).
    r0 : float in (0, inf)
        A bound ``r₀`` on ``‖w₀ − w⋆‖²`` (``D²``).

    Returns
    -------
    Schedule
        ``R``, ``η`` and the normalised weights ``γ_r/Γ_R``.

    Examples
    --------
    >>> s = stich_schedule(R=1000, mu=1.0, beta=1.0, c=74.0, r0=16.0)
    >>> round(s.eta, 6), round(float(s.weights.sum()), 12)
    (0.012284, 1.0)
    """
    R = check_in_interval("R", R, 1.0, lo_closed=True)
    mu, beta, c, r0 = (_pos(k, v) for k, v in dict(mu=mu, beta=beta, c=c, r0=r0).items())
    eta = min(1.0 / (2.0 * beta), math.log(max(2.0, mu**2 * r0 * R**2 / c)) / (mu * R))
    logw = -(np.arange(math.ceil(R)) + 1.0) * math.log1p(-mu * eta)
    w = np.exp(logw - logw.max())
    return Schedule(R, eta, w / w.sum(), f"Lemma D.5 (Stich) at R = {R:g}, c = {c:.4g}, r0 = {r0:.4g}")


def moreau_beta_convex(L, *, D, M, n, d, eps0) -> float:
    """Smoothing parameter for non-smooth convex f (Thm D.2): ``β = (L√M/D)·min{√n, ε0n/√d}`` (C17: 316.23 at P1).

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    D : float in (0, inf)
        Diameter of ``W``.
    M : float in (0, inf)
        (Harmonic) number of participating silos.
    n : float in (0, inf)
        Records per silo.
    d : float in (0, inf)
        Dimension.
    eps0 : float in (0, inf)
        The ISRL-DP ε0 of every silo.

    Returns
    -------
    float
        The Moreau smoothing parameter β.
    """
    L, D, M, n, d, eps0 = (_pos(k, v) for k, v in dict(L=L, D=D, M=M, n=n, d=d, eps0=eps0).items())
    return L * math.sqrt(M) / D * min(math.sqrt(n), eps0 * n / math.sqrt(d))


def moreau_beta_sc(mu, *, M, n, d, eps0, delta0) -> float:
    """Smoothing parameter for non-smooth μ-SC f (Thm D.2): ``β = μM/(1/n + d ln(1/δ0)/(ε0²n²))``.

    Parameters
    ----------
    mu : float in (0, inf)
        Strong-convexity modulus μ.
    M : float in (0, inf)
        (Harmonic) number of participating silos.
    n : float in (0, inf)
        Records per silo.
    d : float in (0, inf)
        Dimension.
    eps0 : float in (0, inf)
        The ISRL-DP ε0 of every silo.
    delta0 : float in (0, 1)
        The ISRL-DP δ0 of every silo.

    Returns
    -------
    float
        The Moreau smoothing parameter β.
    """
    mu, M, n, d, eps0 = (_pos(k, v) for k, v in dict(mu=mu, M=M, n=n, d=d, eps0=eps0).items())
    delta0 = _delta("delta0", delta0)
    return mu * M / (1.0 / n + d * math.log(1.0 / delta0) / (eps0**2 * n**2))


def onepass_batch_convex(L, *, beta, D, n, d, eps0, delta0, M) -> float:
    """Thm 3.1/E.1 convex: ``K = (L/(βD))^{2/5} n^{3/5} (d ln(1/δ0))^{1/5}/(ε0^{2/5} M^{1/5})``, R = n/K.

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    beta : float in (0, inf)
        Smoothness β.
    D : float in (0, inf)
        Diameter of ``W``.
    n : float in (0, inf)
        Records per silo.
    d : float in (0, inf)
        Dimension.
    eps0 : float in (0, inf)
        The ISRL-DP ε0 of every silo.
    delta0 : float in (0, 1)
        The ISRL-DP δ0 of every silo.
    M : float in (0, inf)
        (Harmonic) number of participating silos.

    Returns
    -------
    float
        The batch size ``K`` (real-valued); the one pass runs ``R = n/K`` rounds.

    Examples
    --------
    >>> round(onepass_batch_convex(1, beta=1, D=1, n=1000, d=100, eps0=1.0, delta0=1e-6, M=100), 2)  # C19
    106.68
    """
    L, beta, D, n, d, eps0, M = (_pos(k, v) for k, v in
                                 dict(L=L, beta=beta, D=D, n=n, d=d, eps0=eps0, M=M).items())
    delta0 = _delta("delta0", delta0)
    return ((L / (beta * D)) ** 0.4 * n**0.6 * (d * math.log(1.0 / delta0)) ** 0.2
            / (eps0**0.4 * M**0.2))


def onepass_batch_sc(n, *, kappa, mu, Delta, eps0, M, L, d, delta0, phi) -> float:
    """Thm 3.1/E.1 μ-SC: ``K = n/(√κ ln(μΔ·min{ε0²n²M/(L²d ln(1/δ0)), nM/φ²}))``, R = n/K.

    Parameters
    ----------
    n : float in (0, inf)
        Records per silo.
    kappa : float in (0, inf)
        Condition number κ = β/μ.
    mu : float in (0, inf)
        Strong-convexity modulus μ.
    Delta : float in (0, inf)
        Δ ≥ F(w0) − F⋆.
    eps0 : float in (0, inf)
        The ISRL-DP ε0 of every silo.
    M : float in (0, inf)
        (Harmonic) number of participating silos.
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    d : float in (0, inf)
        Dimension.
    delta0 : float in (0, 1)
        The ISRL-DP δ0 of every silo.
    phi : float in (0, inf)
        Within-silo gradient standard deviation φ.

    Returns
    -------
    float
        The batch size ``K`` (real-valued); the one pass runs ``R = n/K`` rounds.

    Raises
    ------
    ValueError
        If the argument of the log is at most 1 (no positive batch size).

    Examples
    --------
    >>> round(onepass_batch_sc(1e4, kappa=100, mu=1, Delta=1, eps0=1.0, M=10, L=1, d=10, delta0=1e-6, phi=1), 3)  # C20
    86.859
    """
    n, kappa, mu, Delta, eps0, M, L, d, phi = (_pos(k, v) for k, v in dict(
        n=n, kappa=kappa, mu=mu, Delta=Delta, eps0=eps0, M=M, L=L, d=d, phi=phi).items())
    delta0 = _delta("delta0", delta0)
    arg = mu * Delta * min(eps0**2 * n**2 * M / (L**2 * d * math.log(1.0 / delta0)), n * M / phi**2)
    if arg <= 1.0:
        raise ValueError(f"the log argument muDelta*min(...) must exceed 1 for a positive batch size, got {arg:g}")
    return n / (math.sqrt(kappa) * math.log(arg))


@dataclass(frozen=True)
class Stage:
    """One stage of the multi-stage accelerated method: ``R`` rounds of AC-SA with step parameter ``nu``.

    Attributes
    ----------
    R : int
        Rounds of the stage.
    nu : float
        Step parameter ν of the stage (:func:`acsa_steps`).
    """

    R: int
    nu: float


def multi_stage_schedule(beta, *, mu, V, Delta, U, nu_form: str = "corrected") -> list[Stage]:
    """Stages of the multi-stage AC-SA, printed or corrected ``ν_k`` (App. E.1).

    Multi-stage AC-SA (App. E.1, after Ghadimi & Lan 2013): ``U`` stages,
    ``R_k = ⌈max{4√(2β/μ), 128V²/(3μΔ·2^{−(k+1)})}⌉``, and ``ν_k = max{2β, √(X_k)}`` with

    * ``nu_form="paper"`` (as printed): ``X_k = μV²/(3Δ2^{−(k−1)} R_k(R_k+1)(R_k+2))`` — so ν_k = 2β for every
      practical R_k (C21: 20 at β = 10);
    * ``nu_form="corrected"`` (default): ``X_k = μV² R_k(R_k+1)(R_k+2)/(3Δ2^{−(k−1)})`` — the cubic in the
      numerator, as in the convex AC-SA step and Ghadimi–Lan (errata 002 §8 #17; C21: 1302.3, 5186.7, …).

    Stage k then runs :func:`acsa_steps` ``(R_k, ν_k)`` from q_{k−1} (q_0 = w_0, errata 002 §8 #18).

    Parameters
    ----------
    beta : float in (0, inf)
        Smoothness β.
    mu : float in (0, inf)
        Strong-convexity modulus μ.
    V : float in (0, inf)
        ``V²`` is the variance of the (noisy) gradient oracle.
    Delta : float in (0, inf)
        Δ ≥ F(w0) − F⋆.
    U : int
        Number of stages, >= 1.
    nu_form : {"corrected", "paper"}, default "corrected"
        The corrected ``ν_k`` or the printed one.

    Returns
    -------
    list of Stage
        ``(R_k, ν_k)`` for ``k = 1..U``.

    Raises
    ------
    ValueError
        If ``nu_form`` is not ``"corrected"`` or ``"paper"``, or another argument lies outside its range.

    Examples
    --------
    >>> [s.R for s in multi_stage_schedule(10, mu=1, V=1, Delta=1, U=5)]  # C21
    [171, 342, 683, 1366, 2731]
    """
    beta, mu, V, Delta = _pos("beta", beta), _pos("mu", mu), _pos("V", V), _pos("Delta", Delta)
    U = check_int("U", U, 1)
    if nu_form not in VARIANTS:
        raise ValueError(f"nu_form must be one of {VARIANTS}, got {nu_form!r}")
    stages = []
    for k in range(1, U + 1):
        Rk = math.ceil(max(4.0 * math.sqrt(2.0 * beta / mu), 128.0 * V**2 / (3.0 * mu * Delta * 2.0 ** (-(k + 1)))))
        cubic = Rk * (Rk + 1.0) * (Rk + 2.0)
        base = mu * V**2 / (3.0 * Delta * 2.0 ** (-(k - 1)))
        X = base * cubic if nu_form == "corrected" else base / cubic
        stages.append(Stage(Rk, max(2.0 * beta, math.sqrt(X))))
    return stages


def acsa_steps(R, *, nu) -> tuple[np.ndarray, np.ndarray]:
    """AC-SA weights of one stage: ``α_r = 2/(r+1)``, ``η_r = 4ν/(r(r+1))``, r = 1..R (App. E.1).

    Parameters
    ----------
    R : int
        Rounds of the stage, >= 1.
    nu : float in (0, inf)
        Step parameter ν.

    Returns
    -------
    alphas : numpy.ndarray
        ``α_r``, r = 1..R.
    etas : numpy.ndarray
        ``η_r``, r = 1..R.
    """
    R = check_int("R", R, 1)
    nu = _pos("nu", nu)
    r = np.arange(1, R + 1, dtype=float)
    return 2.0 / (r + 1.0), 4.0 * nu / (r * (r + 1.0))
