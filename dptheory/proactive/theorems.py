r"""The theorems of seed 001 as checks that return every condition with its value (never just a boolean).

* Thm 3.1 (:func:`thm31_check`): ``σ = σ(ε, δ)`` of eq. (6), ``δ ≤ 1/N``, ``ε < 0.5``, ``N ≥ 10⁴``,
  ``θ ≤ 6.85``, condition (7) ``(2/e)²k² ≥ ½ + ln(1/δ)`` and (8) ``T ≥ γθ²k²/ε``;
* Thm B.4 (:func:`thmB4_check`): conditions (32)–(35), which also allow ``ε ≥ 0.5``;
* Thm B.2 (:func:`thmB2_min_eps`): the general analysis for a sample-size sequence ``s_i``, solved for the
  smallest ε it certifies;
* Lemma B.3 (:func:`lemmaB3_bound`): the explicit bound on the λ-th log moment ``α_i(λ)`` of one round,
  beside the exact value :func:`log_mgf_exact` of the Poisson-subsampled Gaussian.

Each check returns a :class:`dptheory.hypotheses.TheoremCheck` (the hypothesis type every paper shares):
``.holds``, ``.failed``, the derived values (``γ``, ``T_min``, …), a printable table, and ``.require()`` which
raises :class:`dptheory.hypotheses.ConditionError` naming each failed condition and by how much it fails.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln, logsumexp

from .._validation import check_in_interval, check_int, check_positive_array
from ..hypotheses import Condition, TheoremCheck
from . import closed_form as cf

__all__ = [
    "condition7",
    "thm31_check",
    "thmB4_check",
    "thmB2_min_eps",
    "lemmaB3_bound",
    "log_mgf_exact",
]


def condition7(k, delta) -> Condition:
    """Thm 3.1, eq. (7): ``(2/e)²k² ≥ ½ + ln(1/δ)`` (enough epochs; with δ = 1/N, k ≥ 4.24 at N = 10⁴).

    Parameters
    ----------
    k : float in (0, inf)
        Number of epochs.
    delta : float in (0, 1)
        The δ of (ε, δ)-DP.

    Returns
    -------
    Condition
        The condition with both sides evaluated.

    Raises
    ------
    ValueError
        If ``k`` or ``delta`` lies outside its range.
    """
    k = check_in_interval("k", k, 0.0)
    L = -math.log(check_in_interval("delta", delta, 0.0, 1.0))
    return Condition("(7)", "(2/e)²k² ≥ ½ + ln(1/δ)", (2.0 / math.e) ** 2 * k * k, ">=", 0.5 + L)


def _gamma_condition(sigma, x, reading, variant) -> Condition:
    """``ᾱ`` inside the domain of eq. (55), so that γ exists (for the one-step reading, ``x/2`` must be)."""
    dom = cf.gamma_domain(sigma, variant)
    abar = x / 2.0 if reading == "paper" else x / cf.gamma_min(sigma, x, variant)
    return Condition("(55)", "ᾱ inside the domain of (55)" + (" (ᾱ = x/2)" if reading == "paper" else ""),
                     abar, "<", dom)


def thm31_check(eps, delta, N, k, T=None, theta=1.0, gamma: str = "min", variant: str = "corrected") -> TheoremCheck:
    """Thm 3.1 at ``(ε, δ, N, k, θ)`` and, if given, ``T``: every hypothesis and ``σ, γ, T_min, s_max``.

    ``gamma="min"`` is the theorem's smallest root of (55); ``"paper"`` the one-step value of its calculator.
    Without ``T`` condition (8) is left out and ``T_min`` is what it would require.

    Parameters
    ----------
    eps : float in (0, inf)
        Target ε.
    delta : float in (0, 1)
        The δ of (ε, δ)-DP.
    N : float in (0, inf)
        Local data-set size.
    k : float in (0, inf)
        Number of epochs, ``K = kN``.
    T : float in (0, inf), optional
        Number of rounds; if given, condition (8) is checked against it.
    theta : float, default 1.0
        ``θ = s_max/s̄``.
    gamma : {"min", "paper"}, default "min"
        Reading of γ: the smallest root (``"min"``) or the one-step value of the calculators (``"paper"``).
    variant : {"corrected", "paper"}, default "corrected"
        The corrected or the printed right-hand side of γ's fixed-point equation
        (:func:`~dptheory.proactive.closed_form.rhs55`).

    Returns
    -------
    TheoremCheck
        Every hypothesis of the theorem, with ``values`` holding ``sigma``, ``gamma``, ``T_min`` and ``s_max``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    eps = check_in_interval("eps", eps, 0.0)
    N = check_in_interval("N", N, 0.0)
    x = eps / check_in_interval("k", k, 0.0)
    sigma = cf.sigma_from_eps(eps, delta)
    g = cf.gamma(sigma, x, gamma, variant)
    conds = [
        Condition("δ", "δ ≤ 1/N", float(delta), "<=", 1.0 / N),
        Condition("ε", "ε < 0.5", eps, "<", 0.5),
        Condition("N", "N ≥ 10000", N, ">=", 1e4),
        Condition("θ", "θ ≤ 6.85", float(theta), "<=", 6.85),
        condition7(k, delta),
        _gamma_condition(sigma, x, gamma, variant),
    ]
    values = dict(sigma=sigma, gamma=g, T_min=cf.T_min(eps, k, g, theta) if math.isfinite(g) else math.inf)
    values["s_max"] = cf.s_max(N, k, values["T_min"]) if math.isfinite(values["T_min"]) else 0.0
    if T is not None:
        T = check_in_interval("T", T, 0.0)
        conds.append(Condition("(8)", "T ≥ γθ²k²/ε", T, ">=", values["T_min"]))
    return TheoremCheck("Thm 3.1", tuple(conds), values)


def thmB4_check(eps, delta, sigma, N, K, T, theta=1.0, gamma: str = "min", variant: str = "corrected") -> TheoremCheck:
    """Thm B.4's conditions (32)–(35) at ``(ε, δ, σ, N, K, T, θ)`` with ``s̄ = K/T`` and ``x = εN/K``.

    (32) ``s̄ ≤ g(σ(ε, δ))N/θ``, (33) ``ε ≤ γh(σ)K/N``, (34) ``ε ≥ γθ²(K/N)(s̄/N)`` (⟺ ``T ≥ γθ²k²/ε``),
    (35) ``σ ≥ σ(ε, δ)``; plus the existence of γ.

    Parameters
    ----------
    eps : float in (0, inf)
        Target ε.
    delta : float in (0, 1)
        The δ of (ε, δ)-DP.
    sigma : float in (0, inf)
        Noise multiplier σ.
    N : float in (0, inf)
        Local data-set size.
    K : float in (0, inf)
        Total number of gradient computations ``Σ s_i``.
    T : float in (0, inf)
        Number of rounds.
    theta : float in [1, inf), default 1.0
        ``θ = s_max/s̄``.
    gamma : {"min", "paper"}, default "min"
        Reading of γ: the smallest root (``"min"``) or the one-step value of the calculators (``"paper"``).
    variant : {"corrected", "paper"}, default "corrected"
        The corrected or the printed right-hand side of γ's fixed-point equation
        (:func:`~dptheory.proactive.closed_form.rhs55`).

    Returns
    -------
    TheoremCheck
        Conditions (32)–(35) and the existence of γ, with ``values`` holding ``gamma``, ``s_bar``, ``k`` and
        ``T_min``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    eps = check_in_interval("eps", eps, 0.0)
    sigma = check_in_interval("sigma", sigma, 0.0)
    N = check_in_interval("N", N, 0.0)
    K = check_in_interval("K", K, 0.0)
    T = check_in_interval("T", T, 0.0)
    theta = check_in_interval("theta", theta, 1.0, lo_closed=True, why="theta = s_max/s_bar >= 1")
    s_bar, x = K / T, eps * N / K
    sig_eps = cf.sigma_from_eps(eps, delta)
    g = cf.gamma(sigma, x, gamma, variant)
    conds = (
        Condition("(32)", "s̄ ≤ g(σ(ε,δ))·N/θ", s_bar, "<=", cf.g(sig_eps) * N / theta),
        Condition("(33)", "ε ≤ γ·h(σ)·K/N", eps, "<=", g * cf.h(sigma) * K / N),
        Condition("(34)", "ε ≥ γθ²(K/N)(s̄/N)", eps, ">=", g * theta**2 * (K / N) * (s_bar / N)),
        # (35) at equality is the calculators' own choice; 1e-12 relative absorbs the ε ↔ σ round trip
        Condition("(35)", "σ ≥ √(2(ε+ln(1/δ))/ε)", sigma, ">=", sig_eps * (1 - 1e-12)),
        _gamma_condition(sigma, x, gamma, variant),
    )
    return TheoremCheck("Thm B.4", conds, dict(gamma=g, s_bar=s_bar, k=K / N, T_min=g * theta**2 * (K / N) ** 2 / eps))


def _lemma_r(r0: float, u0: float, u1: float, sigma: float) -> float:
    """Lemma B.3 / Thm B.2: ``r = r₀·2³(1/(1 − u₀) + e³/((1 − u₁)σ³))·e^{3/σ²}``."""
    return r0 * 8.0 * (1.0 / (1.0 - u0) + math.e**3 / ((1.0 - u1) * sigma**3)) * math.exp(3.0 / sigma**2)


def thmB2_min_eps(s, N, sigma, delta, r0=None) -> TheoremCheck:
    """Thm B.2 for the sample-size sequence ``s = (s_0, …, s_{T−1})``: its hypotheses and the smallest ε it certifies.

    ``r₀`` defaults to ``σ·max s_i/N``, the smallest value the hypothesis ``s_i/N ≤ r₀/σ`` allows (``r``
    grows with ``r₀``). With ``Ŝ_j = (1/T)Σ s_i^j/(N(N − s_i)^{j−1})``, ``ρ = Ŝ₁Ŝ₃/Ŝ₂²``, ``ρ̂ = Ŝ₁²/Ŝ₂`` and
    ``c(x) = min{(√(2rρx + 1) − 1)/(rρx), 2/(ρ̂x)}``, the guarantee holds for ``ε = c₁TŜ₁²`` when
    ``σ ≥ (2/√c(c₁))·√(Ŝ₂T(ε + ln(1/δ)))/ε``; the bound decreases in ε, so the set of certified ε is
    ``[ε_min, ∞)`` and ``ε_min`` is found by bracketing in ``log ε``. When the ``2/(ρ̂x)`` branch is active
    the bound is exactly eq. (6) (``ρ̂`` cancels), which the tests use as an independent check.

    Parameters
    ----------
    s : array_like
        The positive sample sizes ``s_0, …, s_{T−1}``, one per round.
    N : float
        Local data-set size, above every ``s_i``.
    sigma : float in (0, inf)
        Noise multiplier σ.
    delta : float in (0, 1)
        The δ of (ε, δ)-DP.
    r0 : float in (0, inf), optional
        ``r₀``; default ``σ·max s_i/N``.

    Returns
    -------
    TheoremCheck
        The hypotheses, with ``values`` holding ``r0``, ``u0``, ``u1``, ``rho``, ``rho_hat``, ``S1``–``S3`` and, when
        every hypothesis holds, ``r`` and ``eps_min`` (``inf`` if no ε up to 10⁶ is certified).

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    s = check_positive_array("s", s)
    N = check_in_interval("N", N, float(s.max()), why="every sample size s_i must be below N")
    sigma = check_in_interval("sigma", sigma, 0.0)
    L = -math.log(check_in_interval("delta", delta, 0.0, 1.0))
    T = s.size
    r0 = float(sigma * s.max() / N) if r0 is None else check_in_interval("r0", r0, 0.0)
    u0 = 2.0 * math.sqrt(r0 * sigma) / (sigma - r0)
    u1 = 2.0 * math.e * math.sqrt(r0 * sigma) / ((sigma - r0) * sigma)
    conds = [
        Condition("σ", "σ ≥ 216/215", sigma, ">=", 216.0 / 215.0),
        Condition("r₀", "r₀ ≤ 1/e", r0, "<=", 1.0 / math.e),
        Condition("s/N", "max s_i/N ≤ r₀/σ", float(s.max()) / N, "<=", r0 / sigma * (1 + 1e-12)),
        Condition("u₀", "u₀ = 2√(r₀σ)/(σ − r₀) < 1", u0 if sigma > r0 else math.inf, "<", 1.0),
        Condition("u₁", "u₁ = 2e√(r₀σ)/((σ − r₀)σ) < 1", u1 if sigma > r0 else math.inf, "<", 1.0),
    ]
    S1, S2, S3 = (float(np.mean(s**j / (N * (N - s) ** (j - 1)))) for j in (1, 2, 3))
    rho, rho_hat = S1 * S3 / S2**2, S1**2 / S2
    values = dict(r0=r0, u0=u0, u1=u1, rho=rho, rho_hat=rho_hat, S1=S1, S2=S2, S3=S3)
    if all(c.holds for c in conds):
        r = _lemma_r(r0, u0, u1, sigma)

        def bound(eps: float) -> float:
            y = eps / (T * S1**2)
            c = min((math.sqrt(2 * r * rho * y + 1) - 1) / (r * rho * y), 2.0 / (rho_hat * y))
            return 2.0 / math.sqrt(c) * math.sqrt(S2 * T * (eps + L)) / eps

        f = lambda le: sigma - bound(math.exp(le))
        lo, hi = math.log(1e-12), math.log(1e6)
        eps_min = math.exp(brentq(f, lo, hi, xtol=1e-15)) if f(lo) < 0 < f(hi) else (math.inf if f(hi) < 0 else 0.0)
        values.update(r=r, eps_min=eps_min)
    return TheoremCheck("Thm B.2", tuple(conds), values)


def log_mgf_exact(lam: int, q, sigma) -> float:
    """Exact λ-th log moment ``α(λ) = λ·RDP(λ + 1)`` of one Poisson-subsampled Gaussian round (integer λ).

    ``log Σ_{j=0}^{λ+1} C(λ+1, j)(1 − q)^{λ+1−j} q^j e^{j(j−1)/(2σ²)}`` (Mironov, Talwar & Zhang 2019,
    the dominant ordering of the two neighbours); summed in log space.

    Parameters
    ----------
    lam : int
        The moment order λ, at least 1.
    q : float in (0, 1]
        Sampling rate.
    sigma : float in (0, inf)
        Noise multiplier σ.

    Returns
    -------
    float
        ``α(λ)``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    lam = check_int("lam", lam, 1, why="the moment order λ of Lemma B.3 is a positive integer")
    q = check_in_interval("q", q, 0.0, 1.0, hi_closed=True)
    sigma = check_in_interval("sigma", sigma, 0.0)
    j = np.arange(lam + 2)
    logb = gammaln(lam + 2) - gammaln(j + 1) - gammaln(lam + 2 - j)
    terms = logb + j * math.log(q) + (lam + 1 - j) * math.log1p(-q) + j * (j - 1) / (2 * sigma**2)
    if q == 1.0:
        terms = terms[-1:]
    return float(logsumexp(terms))


def lemmaB3_bound(lam: int, s, N, sigma, r0=None) -> TheoremCheck:
    """Lemma B.3: ``α_i(λ) ≤ s²λ(λ+1)/(N(N−s)σ²) + (r/r₀)·s³λ²(λ+1)/(N(N−s)²σ³)`` and its hypotheses.

    Hypotheses: ``r₀ < 1``, ``σ ≥ 216/215``, ``s/N ≤ r₀/σ``, ``λ ≤ σ² ln(N/(sσ))``, ``U₀(λ) < 1`` and
    ``U₁(λ) < 1``, with ``U₀ = 2√(λr₀/σ)/(σ − r₀)``, ``U₁ = 2e√(λr₀/σ)/((σ − r₀)σ)`` taken as ``u₀, u₁``.
    ``r₀`` defaults to ``σs/N``. The leading term is twice the exact ``q²λ(λ+1)/(2σ²)``: the factor 2
    inherited from Abadi et al.'s Lemma 3 (errata 001 §3.2). ``values["bound"]`` is the bound;
    ``values["exact"]`` is :func:`log_mgf_exact` at ``q = s/N``.

    Parameters
    ----------
    lam : int
        The moment order λ, at least 1.
    s : float in (0, N)
        Sample size of the round.
    N : float in (0, inf)
        Local data-set size.
    sigma : float in (0, inf)
        Noise multiplier σ.
    r0 : float in (0, inf), optional
        ``r₀``; default ``σs/N``.

    Returns
    -------
    TheoremCheck
        The hypotheses, with ``values["exact"]`` and, when every hypothesis holds, ``values["bound"]``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    lam = check_int("lam", lam, 1, why="the moment order λ of Lemma B.3 is a positive integer")
    N = check_in_interval("N", N, 0.0)
    s = check_in_interval("s", s, 0.0, N)
    sigma = check_in_interval("sigma", sigma, 0.0)
    r0 = sigma * s / N if r0 is None else check_in_interval("r0", r0, 0.0)
    root = math.sqrt(lam * r0 / sigma)
    U0 = 2.0 * root / (sigma - r0) if sigma > r0 else math.inf
    U1 = 2.0 * math.e * root / ((sigma - r0) * sigma) if sigma > r0 else math.inf
    conds = (
        Condition("r₀", "r₀ < 1", r0, "<", 1.0),
        Condition("σ", "σ ≥ 216/215", sigma, ">=", 216.0 / 215.0),
        Condition("s/N", "s/N ≤ r₀/σ", s / N, "<=", r0 / sigma * (1 + 1e-12)),
        Condition("λ", "λ ≤ σ² ln(N/(sσ))", float(lam), "<=", sigma**2 * math.log(N / (s * sigma))),
        Condition("U₀", "U₀(λ) < 1", U0, "<", 1.0),
        Condition("U₁", "U₁(λ) < 1", U1, "<", 1.0),
    )
    values = dict(exact=log_mgf_exact(lam, s / N, sigma))
    if all(c.holds for c in conds):
        r = _lemma_r(r0, U0, U1, sigma)
        values["bound"] = (s**2 * lam * (lam + 1) / (N * (N - s) * sigma**2)
                           + r / r0 * s**3 * lam**2 * (lam + 1) / (N * (N - s) ** 2 * sigma**3))
    return TheoremCheck("Lemma B.3", conds, values)
