r"""What seed 002's noise calibrations actually spend, under exact accountants and in each sampling model.

=========================================== ==========================================================================
function                                    what it accounts
=========================================== ==========================================================================
:func:`spent_by_calibration`                ε at δ0 of Alg. 2's calibrated noise under one accountant and model
:func:`spend_bracket`                       Alg. 2's own model (with replacement): [realizable lower, upper bound]
:func:`spent_by_onepass`                    exact ε of the one-pass calibration (one Gaussian per record)
=========================================== ==========================================================================

**What Alg. 2's calibration spends.** Thm D.1 spends ε0/2 by design: advanced composition with slack δ0/2 gives
``√(2R ln(2/δ0))·ε̃ = ε0/2`` plus ``R ε̃(e^ε̃ − 1) ≈ ε0²/(8 ln(2/δ0))`` (0.50863 ε0 at R = 1000, δ0 = 1e-6: C3).
Alg. 2 samples its K records **with replacement** under replace-one neighbours, a model dp_accounting does not
account (its ``SampledWithReplacementDpEvent`` has no accountant), so :func:`spend_bracket` brackets the true ε
of Alg. 2 (n = 1000, ε0 = 1, δ0 = 1e-6, K = ⌈K_min⌉; ``verify/isrl_calibration.py``):

* **lower**: a realizable instance (a linear loss, every record's gradient −L·e1 but one, which is +L·e1 in the
  neighbour) and one test on its transcript: no (ε, δ0) below it can hold. 0.0290 ε0 at R = 10 (K = 15) … 0.0219
  at R = 1e4 (K = 1);
* **upper**: the Gaussian split into one N(0, Kσ²) per draw, so a round is K releases of "one record drawn
  uniformly + Gaussian", each accounted by dp_accounting's RDP for sampling one of n without replacement
  (Wang–Balle–Kasiviswanathan), replace-one: 0.31 ε0 at R = 10 (the split costs most at large K), 0.055 ε0 at
  R = 1000, 0.052 at R = 1e4.

Both are far below ε0: Thm D.1's calibration is private by an independent route, and spends at least 2–3% and at
most 5–31% of ε0 (the advanced-composition total of its own proof is 51%). The
Poisson model (``accountant="pld"``: 0.0263 ε0 at R = 10) is **not** an upper bound for Alg. 2 (it is below the
realizable 0.0290), nor is the fixed batch without replacement of the subsampling lemma the paper cites
(``"rdp_wor"``, errata 002 §8 #20): each :class:`SpendResult` states its sampling model, neighbouring relation,
whether it is an upper or a lower bound, and :attr:`SpendResult.models_algorithm_2`.

The calibrations themselves are in :mod:`dptheory.isrl.calibration`, with the notation (errata 002 §2.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_in_interval, check_int
from ..accounting import (
    PLD_DISCRETIZATION,
    EpsilonResult,
    Neighbouring,
    Sampling,
    accountant_epsilon,
    dp_accounting_module,
    gdp_epsilon,
    pld_accountant,
    replace_one_sensitivity,
    wor_rdp_epsilon,
    zcdp_to_epsilon,
)
from .calibration import _delta, _pos, _rounds, calibration_chain, min_batch_size, sigma2_noisy_mbsgd, sigma2_onepass

__all__ = [
    "SPEND_ACCOUNTANTS",
    "SpendResult",
    "spent_by_calibration",
    "SpendBracket",
    "spend_bracket",
    "spent_by_onepass",
]


#: Accountants of :func:`spent_by_calibration` (model of each in its docstring and on the result); the first two
#: account Alg. 2's own sampling (with replacement, replace-one).
SPEND_ACCOUNTANTS = ("wr_rdp", "wr_lower", "pld", "rdp_wor", "pld_wr", "advanced")
#: ``(sampling, neighbouring, certified, bound)`` of each accountant, with ``q = K/n``, ``s = K`` and ``C = L/K`` (one
#: record's largest contribution to the batch mean): :mod:`dptheory.accounting.models`. ``certified``: an upper
#: bound on the true ε *of that model*; ``bound``: ``"upper"`` or ``"lower"`` (a realizable instance).
_SPEND_MODELS = {
    "wr_rdp": (Sampling.FIXED_BATCH_WR, Neighbouring.REPLACE_ONE, True, "upper"),
    "wr_lower": (Sampling.FIXED_BATCH_WR, Neighbouring.REPLACE_ONE, False, "lower"),
    "pld": (Sampling.POISSON, Neighbouring.REPLACE_ONE, True, "upper"),
    "rdp_wor": (Sampling.FIXED_BATCH_WOR, Neighbouring.REPLACE_ONE, True, "upper"),
    "pld_wr": (Sampling.FIXED_BATCH_WR, Neighbouring.REPLACE_WITH_NULL, True, "upper"),
    "advanced": (Sampling.FIXED_BATCH_WOR, Neighbouring.REPLACE_ONE, True, "upper"),
}


@dataclass(frozen=True)
class SpendResult(EpsilonResult):
    """ε at δ0 for a calibration under one accountant, beside the budget ``eps0`` it was calibrated for.

    An :class:`~dptheory.accounting.models.EpsilonResult` (accountant, sampling model, neighbouring relation,
    ``certified`` = an upper bound for *that* model) with the budget, ``δ0``, the calibration's settings and
    ``bound``: ``"upper"``, or ``"lower"`` for the ε of a realizable instance (no smaller ε can hold).

    Attributes
    ----------
    eps : float
        The ε at ``delta`` (``float()`` of the result).
    accountant : str
        The accountant (one of :data:`SPEND_ACCOUNTANTS`, or ``"onepass_<method>"``).
    sampling : Sampling
        The sampling model ε holds for.
    neighbouring : Neighbouring
        The neighbouring relation ε holds for.
    certified : bool
        Whether ``eps`` is an upper bound on the true ε of that model.
    interval : tuple of float or None, default None
        Monte Carlo only (unused here).
    discretization : float or None, default None
        PLD only: the privacy-loss grid spacing.
    tolerance : float or None, default None
        PLD only: the relative change of ε over the last halving of the grid.
    eps0 : float, default nan
        The budget ε0 the noise was calibrated for.
    delta : float, default nan
        The δ (δ0) at which ε is computed.
    settings : dict
        The calibration's settings (``L``, ``R``, ``n``, ``K``, ``sigma2``, the noise multiplier, …).
    bound : {"upper", "lower"}, default "upper"
        ``"lower"`` for the ε of a realizable instance (no smaller ε can hold).
    """

    eps0: float = math.nan
    delta: float = math.nan
    settings: dict = field(default_factory=dict)
    bound: str = "upper"

    @property
    def ratio(self) -> float:
        """ε spent / ε0 (C3: advanced composition 0.5086; exact accountants far less)."""
        return self.eps / self.eps0

    @property
    def models_algorithm_2(self) -> bool:
        """Whether the model accounted is Alg. 2's: K draws with replacement, replace-one neighbours."""
        return self.sampling is Sampling.FIXED_BATCH_WR and self.neighbouring is Neighbouring.REPLACE_ONE

    def __repr__(self) -> str:
        kind = ("lower bound (realizable instance)" if self.bound == "lower" else
                "upper bound" if self.certified else "estimate")
        whose = ("Alg. 2's model" if self.models_algorithm_2 else
                 "the one-pass Alg. 1's model" if self.accountant.startswith("onepass") else "not Alg. 2's model")
        return (f"SpendResult(eps={self.eps:.6g} = {self.ratio:.4g}·eps0 at delta={self.delta:.3g}; {self.accountant}: "
                f"{self.sampling}; {self.neighbouring}; {kind}; {whose})")


_SUM_TEST_ELEMENTS = 1 << 20


def _with_replacement_sum_test(L: float, *, R: int, n: int, K: int, sigma: float, delta: float) -> float:
    r"""A lower bound on the ε (at δ) of Alg. 2 with replacement: the largest ``ln((P(S) − δ)/Q(S))`` over
    threshold events ``S`` of one realizable instance.

    Instance: ``f(w, x) = ⟨w, x⟩`` (convex, L-Lipschitz), every record ``x = −L e1`` in ``X'``, record j
    ``+L e1`` in ``X``. The gradients do not depend on w, so the R rounds are independent; the first
    coordinates' sum over the rounds is ``N(0, Rσ²)`` under ``X'`` (after removing the constant ``−RL``) and
    ``N(2LM/K, Rσ²)`` given ``M ~ Bin(RK, 1/n)`` copies of record j under ``X``. Every (ε, δ)-DP guarantee
    must satisfy ``P(S) ≤ e^ε Q(S) + δ`` for the events ``{sum > t}`` (X against X') and ``{sum < t}`` (X'
    against X). ``P`` and ``Q`` are exact normal and binomial sums; the binomial tail beyond ``M_max`` is dropped
    from a numerator and added to a denominator, so the result stays a lower bound.
    """
    from scipy import optimize, special, stats  # noqa: PLC0415

    RK, p = R * K, 1.0 / n
    mean, sd = RK * p, math.sqrt(RK * p * (1.0 - p))
    m_max = int(min(RK, math.ceil(mean + 12.0 * sd + 30.0)))
    M = np.arange(m_max + 1)
    pm = stats.binom.pmf(M, RK, p)
    tail = float(stats.binom.sf(m_max, RK, p))
    s, step = math.sqrt(R) * sigma, 2.0 * L / K
    log_ratio = lambda P, Q: [math.log((a - delta) / b) if a > delta else -math.inf for a, b in zip(P, Q)]

    # the standard normal's cdf and sf are ndtr(x) and ndtr(−x) (what scipy.stats.norm evaluates); each row of
    # thresholds t is reduced over M as one 1-D sum, so an array of t gives what each t alone gives
    def eps_above(t):  # X against X': S = {sum > t}
        P = np.sum(pm * special.ndtr(-((t[:, None] - step * M) / s)), axis=1)
        return log_ratio(P, special.ndtr(-(t / s)))

    def eps_below(t):  # X' against X: S = {sum < t}
        Q = np.sum(pm * special.ndtr((t[:, None] - step * M) / s), axis=1) + tail
        return log_ratio(special.ndtr(t / s), Q)

    rows = max(1, _SUM_TEST_ELEMENTS // M.size)  # thresholds per array: at most 2^20 normal tails at once
    best = 0.0
    for f in (eps_above, eps_below):
        grid = s * np.linspace(-12.0, 12.0, 2401)
        vals = np.array([v for c in range(0, grid.size, rows) for v in f(grid[c:c + rows])])
        i = int(np.argmax(vals))
        best = max(best, float(vals[i]))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        res = optimize.minimize_scalar(lambda t: -f(np.array([t]))[0], bounds=(lo, hi), method="bounded",
                                       options=dict(xatol=1e-10 * s))
        if np.isfinite(res.fun):
            best = max(best, -float(res.fun))
    return best


def spent_by_calibration(L, *, R, n, eps0, delta0, K=None, accountant: str = "wr_rdp",
                         discretization: float = PLD_DISCRETIZATION) -> SpendResult:
    """The ε (at δ0) of Alg. 2 run with Thm D.1's σ² (:func:`~dptheory.isrl.calibration.sigma2_noisy_mbsgd`), under one accountant and model.

    Per round a silo releases ``(1/K)Σ_{k≤K} ∇f(w, x_{i_k}) + N(0, σ² I)``, the ``i_k`` drawn uniformly **with
    replacement** (Alg. 2); over R rounds the silo's transcript is the composition (later rounds depend on earlier
    ones only through public messages). The ratio ``z = σ/(2L/K)`` of noise std to the replace-one sensitivity of
    the batch mean is the noise multiplier. ``K`` defaults to ``⌈K_min⌉`` and must satisfy K_min ≤ K ≤ n.
    dp_accounting accounts no sampling with replacement, so each accountant states its sampling and relation
    (also on the result, with :attr:`SpendResult.models_algorithm_2` and :attr:`SpendResult.bound`):

    * ``"wr_rdp"`` (default; **Alg. 2's model, an upper bound**): write the noise as ``(1/K)Σ_k ν_k``,
      ``ν_k ~ N(0, Kσ² I)``: the round is a post-processing of the K releases ``∇f(w, x_{i_k}) + ν_k``, each "one
      record drawn uniformly from n, Gaussian of std √K σ, replace-one sensitivity 2L". dp_accounting's RDP for
      ``SampledWithoutReplacementDpEvent(n, 1, ·)`` (a sample of one: with and without replacement coincide;
      Wang–Balle–Kasiviswanathan 2019), composed K·R times. The split costs little at K ≈ 1 and much at large K.
    * ``"wr_lower"`` (**Alg. 2's model, a lower bound**): a realizable instance and a threshold test on it
      (:func:`_with_replacement_sum_test`): Alg. 2 cannot be (ε, δ0)-DP for a smaller ε.
    * ``"pld"``: Poisson sampling at rate K/n, replace-one (each record contributes ≤ L/K to the mean).
      dp_accounting's PLD, pessimistic: an upper bound **for Poisson sampling only**, below Alg. 2's realizable
      lower bound at small R. Its REPLACE_ONE Gaussian reads σ_lib with contributions ±1, i.e. sensitivity 2
      (probed by :func:`~dptheory.accounting.dpsgd.replace_one_sensitivity`), so σ_lib = z·2.
    * ``"rdp_wor"``: a fixed batch of K drawn without replacement, replace-one, sensitivity 2L/K (the model of
      the subsampling lemma the paper cites, errata 002 §8 #20); RDP (Wang–Balle–Kasiviswanathan), an upper
      bound for that model only. The library's RDP REPLACE_ONE Gaussian assumes sensitivity 1, so σ_lib = z.
    * ``"pld_wr"``: sampling with replacement (multiplicity ~ Bin(K, 1/n)) as a mixture of Gaussians, under the
      weaker relation "replace one record by a null record" (dp_accounting's REPLACE_SPECIAL): not Alg. 2's
      replace-one relation.
    * ``"advanced"``: the paper's own total: Dwork–Roth Thm 3.20 on the per-round (ε̃, δ̃) with slack δ0/2.

    :func:`spend_bracket` returns the two Alg. 2 bounds together.

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    R : int
        Number of rounds, a whole number >= 1.
    n : int
        Records per silo.
    eps0 : float in (0, 2 ln(2/delta0)]
        The budget ε0 σ² is calibrated for.
    delta0 : float in (0, 1)
        The δ0 of the calibration, and the δ at which ε is computed.
    K : int, optional
        Batch size, a whole number in ``[K_min, n]``. Default: ``⌈K_min⌉`` (:func:`~dptheory.isrl.calibration.min_batch_size`).
    accountant : {"wr_rdp", "wr_lower", "pld", "rdp_wor", "pld_wr", "advanced"}, default "wr_rdp"
        The accountant and model (:data:`SPEND_ACCOUNTANTS`, listed above).
    discretization : float, default PLD_DISCRETIZATION
        Privacy-loss grid spacing of the PLD accountants (``"pld"``, ``"pld_wr"``).

    Returns
    -------
    SpendResult
        ε at δ0 with its accountant, model, bound kind and the calibration's settings.

    Raises
    ------
    ValueError
        If ``accountant`` is unknown, ``K_min > n`` (no admissible batch size), ``K`` is not a whole number in
        ``[K_min, n]``, or another argument lies outside its range.

    Examples
    --------
    >>> spent_by_calibration(1, R=1000, n=1000, eps0=1.0, delta0=1e-6, accountant="advanced").ratio  # doctest: +ELLIPSIS
    0.5086...
    """
    if accountant not in SPEND_ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {SPEND_ACCOUNTANTS}, got {accountant!r}")
    L = _pos("L", L)
    R = _rounds(R)
    n = check_int("n", n, 1)
    delta0 = _delta("delta0", delta0)
    sigma2 = sigma2_noisy_mbsgd(L, R=R, n=n, eps0=eps0, delta0=delta0)  # validates eps0
    eps0 = float(eps0)
    kmin = min_batch_size(eps0, n=n, R=R, delta0=delta0)
    if kmin > n:
        raise ValueError(f"K_min = eps0 n/(4 sqrt(2R ln(2/delta0))) = {kmin:.6g} exceeds n = {n}: "
                         f"no admissible batch size (increase R)")
    K = max(1, math.ceil(kmin - 1e-12)) if K is None else K
    K = check_in_interval("K", K, kmin, n, lo_closed=True, hi_closed=True,
                          why=f"Thm D.1 needs K >= K_min = {kmin:.6g} (and K <= n)")
    if K != int(K):
        raise ValueError(f"K must be a whole number of records, got {K:g}")
    K = int(K)
    sigma = math.sqrt(sigma2)
    z = sigma * K / (2.0 * L)  # noise std / replace-one sensitivity of the batch mean
    q = K / n
    sampling, neighbouring, certified, bound = _SPEND_MODELS[accountant]
    settings = dict(L=L, R=R, n=n, K=K, sigma2=sigma2, noise_multiplier=z, q=q)
    if accountant == "advanced":
        eps = calibration_chain(L, R=R, n=n, K=K, eps0=eps0, delta0=delta0).eps_total
    elif accountant == "wr_lower":
        eps = _with_replacement_sum_test(L, R=R, n=n, K=K, sigma=sigma, delta=delta0)
    elif accountant == "wr_rdp":
        z_draw = math.sqrt(K) * sigma / (2.0 * L)  # one draw: std √K σ, replace-one sensitivity 2L
        settings["noise_multiplier_per_draw"] = z_draw
        # K·R rounds of SampledWithoutReplacementDpEvent(n, 1, ·): the RDP accountant's ε, bit for bit
        eps = wor_rdp_epsilon(n, 1, z_draw * replace_one_sensitivity()["rdp"], K * R, delta0)
    elif accountant == "rdp_wor":  # R rounds of SampledWithoutReplacementDpEvent(n, K, ·), likewise
        eps = wor_rdp_epsilon(n, K, z * replace_one_sensitivity()["rdp"], R, delta0)
    else:
        dpa = dp_accounting_module()
        rel = dpa.NeighboringRelation
        if accountant == "pld":
            sub = dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z * replace_one_sensitivity()["pld"]))
            acc = pld_accountant(rel.REPLACE_ONE, discretization)
        else:
            from dp_accounting.dp_event import MixtureOfGaussiansDpEvent  # noqa: PLC0415
            from scipy.stats import binom  # noqa: PLC0415

            m = np.arange(K + 1)
            p = binom.pmf(m, K, 1.0 / n)
            keep = p > 1e-300
            sub = MixtureOfGaussiansDpEvent(sigma, list(m[keep] * L / K), list(p[keep] / p[keep].sum()))
            acc = pld_accountant(rel.REPLACE_SPECIAL, discretization)
        eps = accountant_epsilon(acc, dpa.SelfComposedDpEvent(sub, R), delta0)
    return SpendResult(float(eps), accountant, sampling, neighbouring, certified, eps0=eps0, delta=delta0,
                       settings=settings, bound=bound)


@dataclass(frozen=True)
class SpendBracket:
    """What Alg. 2 with Thm D.1's σ² spends, in its own model: a lower and an upper bound.

    The model is K draws with replacement, replace-one: the true ε at δ0 lies in ``[lower.eps, upper.eps]``
    (:func:`spend_bracket`).

    Attributes
    ----------
    lower : SpendResult
        The realizable lower bound (``accountant="wr_lower"``).
    upper : SpendResult
        The RDP upper bound of per-draw Gaussians (``accountant="wr_rdp"``).
    """

    lower: SpendResult
    upper: SpendResult

    @property
    def interval(self) -> tuple[float, float]:
        """``(lower.eps, upper.eps)``: the interval the true ε at δ0 lies in."""
        return self.lower.eps, self.upper.eps

    def __repr__(self) -> str:
        s = self.lower.settings
        return (f"SpendBracket(Alg. 2 at R={s['R']}, K={s['K']}, n={s['n']}: eps in [{self.lower.eps:.4g}, "
                f"{self.upper.eps:.4g}] = [{self.lower.ratio:.4g}, {self.upper.ratio:.4g}]·eps0 at delta0="
                f"{self.lower.delta:.3g}; lower: realizable instance, upper: RDP of per-draw Gaussians)")


def spend_bracket(L, *, R, n, eps0, delta0, K=None) -> SpendBracket:
    """``[lower, upper]`` on the ε (at δ0) of Alg. 2 with Thm D.1's σ², sampling with replacement, replace-one.

    :func:`spent_by_calibration` with ``accountant="wr_lower"`` and ``"wr_rdp"``.

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    R : int
        Number of rounds, a whole number >= 1.
    n : int
        Records per silo.
    eps0 : float in (0, 2 ln(2/delta0)]
        The budget ε0 σ² is calibrated for.
    delta0 : float in (0, 1)
        The δ0 of the calibration, and the δ at which ε is computed.
    K : int, optional
        Batch size in ``[K_min, n]``. Default: ``⌈K_min⌉``.

    Returns
    -------
    SpendBracket
        The lower and the upper bound.

    Examples
    --------
    >>> b = spend_bracket(1, R=10, n=1000, eps0=1.0, delta0=1e-6)   # K = ⌈K_min⌉ = 15
    >>> [round(x, 3) for x in b.interval]
    [0.029, 0.307]
    """
    kw = dict(R=R, n=n, eps0=eps0, delta0=delta0, K=K)
    return SpendBracket(spent_by_calibration(L, accountant="wr_lower", **kw), spent_by_calibration(L, accountant="wr_rdp", **kw))


def spent_by_onepass(eps0, *, delta0, method: str = "gdp") -> SpendResult:
    """The ε (at δ0) of the one-pass calibration :func:`~dptheory.isrl.calibration.sigma2_onepass` (Thm 3.1/E.1).

    Each record enters exactly one round's batch (disjoint batches), so a silo's transcript under replace-one is
    one Gaussian of sensitivity 2L/K and std σ (parallel composition): μ = 2L/(Kσ) = ε0/√(8 ln(1.25/δ0)),
    independent of L and K. ``method``: ``"gdp"`` exact (Dong–Roth–Su eq. (64), via
    :func:`~dptheory.accounting.gdp.gdp_epsilon`); ``"zcdp"`` the paper's route (Bun–Steinke Prop. 1.3,
    ρ = μ²/2: C4's 0.50046 ε0); ``"zcdp_optimal"`` the Balle et al. conversion.

    Parameters
    ----------
    eps0 : float in (0, 8 ln(1/delta0)]
        The budget ε0 σ² is calibrated for.
    delta0 : float in (0, 1)
        The δ0 of the calibration, and the δ at which ε is computed.
    method : {"gdp", "zcdp", "zcdp_optimal"}, default "gdp"
        The conversion (see above).

    Returns
    -------
    SpendResult
        ε at δ0 (accountant ``"onepass_<method>"``, disjoint batches, replace-one).

    Raises
    ------
    ValueError
        If ``method`` is unknown or ``eps0 > 8 ln(1/delta0)``.
    """
    delta0 = _delta("delta0", delta0)
    sigma2_onepass(1.0, K=1.0, eps0=eps0, delta0=delta0)  # validates eps0 <= 8 ln(1/delta0)
    eps0 = float(eps0)
    mu = eps0 / math.sqrt(8.0 * math.log(1.25 / delta0))
    rel, sampling = Neighbouring.REPLACE_ONE, Sampling.DISJOINT_BATCHES
    if method == "gdp":
        eps, certified = gdp_epsilon(mu, delta=delta0), True
    elif method == "zcdp":
        eps, certified = zcdp_to_epsilon(mu**2 / 2.0, delta=delta0, method="bun_steinke"), True
    elif method == "zcdp_optimal":
        eps, certified = zcdp_to_epsilon(mu**2 / 2.0, delta=delta0, method="optimal"), True
    else:
        raise ValueError(f"method must be one of ('gdp', 'zcdp', 'zcdp_optimal'), got {method!r}")
    return SpendResult(float(eps), f"onepass_{method}", sampling, rel, certified, eps0=eps0, delta=delta0, settings=dict(mu=mu))
