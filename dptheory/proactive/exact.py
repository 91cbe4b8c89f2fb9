r"""Exact and reference accountants for DP-SGD beside seed 001's closed form, each with its model stated.

One call, :func:`exact_epsilon`, gives ε for ``T`` rounds of the Gaussian mechanism with noise multiplier
``σ`` (noise std ``σ·C`` for clip norm ``C``) on a sample of rate ``q``:

============== ====================================== ============================== ===========
accountant     route                                  sampling / neighbouring        certified?
============== ====================================== ============================== ===========
``"pld"``      privacy-loss distribution              Poisson(q), add/remove one     upper bound
               (``dp_accounting``, pessimistic)
``"rdp"``      Rényi DP (``dp_accounting``)           Poisson(q), add/remove one     upper bound
``"clt"``      Gaussian-DP CLT, Dong–Roth–Su Cor.     fixed batch ``s = qN`` as the  estimate
               5.4, eq. (65): what seed 001 App. D.4  paper applies it (footnote 18)
               compares against (tf-privacy
               ``compute_eps_uniform``)
``"clt_poisson"`` Gaussian-DP CLT, Poisson form        Poisson(q), add/remove one     estimate
               ``μ = q√(T(e^{1/σ²} − 1))``
``"mc"``       Monte Carlo over sampled privacy       Poisson(q), add/remove one     estimate
               losses (:mod:`.montecarlo`), with CI                                  with CI
``"rdp_wor"``  RDP of sampling without replacement    fixed batch ``s = qN``,        upper bound
               (Wang–Balle–Kasiviswanathan Thm 27,    replace one (Alg. 1 as
               ``dp_accounting``)                     written)
============== ====================================== ============================== ===========

Seed 001's analysis assumes Poisson sampling with add/remove adjacency (footnotes 5 and 14), the model of
``"pld"``. Its Algorithm 1 samples a fixed-size batch; under replace-one adjacency the sum of clipped
gradients then moves by up to ``2C``, not ``C`` (the "factor 2 penalty" of footnote 5).

**The factor-2 inconsistency of dp_accounting under REPLACE_ONE.** For the same ``GaussianDpEvent(σ)``
under ``NeighboringRelation.REPLACE_ONE``, the PLD accountant treats the sensitivity as 2 (it returns the ε
of a Gaussian with ``μ = 2/σ``) while the RDP accountant treats it as 1 (its replace-one sampled-without-
replacement formula reduces at ``q = 1`` to ``α/(2σ²)``, the add/remove Gaussian). We do not inherit either
convention: :func:`replace_one_sensitivity` probes the installed library for the sensitivity each accountant
assumes, and ``"rdp_wor"`` rescales σ so that the library sees Alg. 1's replace-one sensitivity ``2C``.
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr, ndtr

from .._validation import check_in_interval, check_int

__all__ = [
    "ACCOUNTANTS",
    "EpsilonResult",
    "exact_epsilon",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu",
    "mu_clt",
    "replace_one_sensitivity",
    "exact_minimal_T",
    "calibrate_sigma",
]

ACCOUNTANTS = ("pld", "rdp", "clt", "clt_poisson", "mc", "rdp_wor")
_POISSON = "Poisson sampling with rate q"
_ADD_REMOVE = "add/remove one record"
_MODELS = {
    "pld": (_POISSON, _ADD_REMOVE, True),
    "rdp": (_POISSON, _ADD_REMOVE, True),
    "clt": ("fixed batch s = qN, uniform (Dong-Roth-Su CLT)", "sensitivity C, as seed 001 applies it (footnote 18)", False),
    "clt_poisson": (_POISSON, _ADD_REMOVE, False),
    "mc": (_POISSON, _ADD_REMOVE, False),
    "rdp_wor": ("fixed batch s = qN, uniformly without replacement", "replace one record (sensitivity 2C)", True),
}
#: PLD discretisation of ``"pld"``: 1e-5 keeps its (pessimistic) ε within 0.1% of the 3e-6 value at Tables
#: 9–11 (1e-4, dp_accounting's default, overstates Table 9's ε by 5%; digest 001 §4 printed 0.0103).
PLD_DISCRETIZATION = 1e-5


@dataclass(frozen=True)
class EpsilonResult:
    """ε at ``δ`` from one accountant, with the sampling model and neighbouring relation it assumes."""

    eps: float
    accountant: str
    sampling: str
    neighbouring: str
    certified: bool  # an upper bound on the true ε of that model (False: an estimate)
    interval: tuple[float, float] | None = None  # Monte Carlo only

    def __float__(self) -> float:
        return self.eps

    def __repr__(self) -> str:
        ci = f", CI [{self.interval[0]:.6g}, {self.interval[1]:.6g}]" if self.interval else ""
        kind = "upper bound" if self.certified else "estimate"
        return f"EpsilonResult(eps={self.eps:.6g}{ci}; {self.accountant}: {self.sampling}, {self.neighbouring}; {kind})"


def gdp_delta(eps, mu) -> float:
    """Dong–Roth–Su Cor. 2.13, eq. (64): ``δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)`` of μ-GDP (log-space second term)."""
    a = -eps / mu
    return float(ndtr(a + mu / 2) - math.exp(eps + log_ndtr(a - mu / 2)))


def gdp_epsilon(mu, delta) -> float:
    """The ε at which μ-GDP gives ``δ`` (root of eq. (64); 0 if ``δ(0) ≤ δ``)."""
    mu = check_in_interval("mu", mu, 0.0)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    if gdp_delta(0.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while gdp_delta(hi, mu) > delta:
        hi *= 2.0
    return brentq(lambda e: gdp_delta(e, mu) - delta, 0.0, hi, xtol=1e-15, rtol=1e-14)


def mu_clt(sigma, q, T, form: str = "uniform") -> float:
    """GDP parameter of DP-SGD by the CLT (Dong–Roth–Su Cor. 5.4; seed 001 eq. (65)).

    ``"uniform"``: ``μ = q√T·√2·√(e^{σ⁻²}Φ(1.5/σ) + 3Φ(−0.5/σ) − 2)`` (tf-privacy ``compute_mu_uniform``,
    what Tables 9–11 used). ``"poisson"``: ``μ = q√(T(e^{σ⁻²} − 1))``.
    """
    if form == "uniform":
        inner = math.exp(sigma**-2) * ndtr(1.5 / sigma) + 3.0 * ndtr(-0.5 / sigma) - 2.0
        return q * math.sqrt(T) * math.sqrt(2.0) * math.sqrt(inner)
    if form == "poisson":
        return q * math.sqrt(T * math.expm1(sigma**-2))
    raise ValueError(f"form must be 'uniform' or 'poisson', got {form!r}")


def _dpa():
    import dp_accounting  # noqa: PLC0415  (heavy import, only when an accountant is used)

    return dp_accounting


def _poisson_event(sigma: float, q: float, T: int):
    dpa = _dpa()
    return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), T)


def _pld_accountant(relation=None, discretization: float = PLD_DISCRETIZATION):
    from dp_accounting.pld import pld_privacy_accountant  # noqa: PLC0415

    dpa = _dpa()
    return pld_privacy_accountant.PLDAccountant(relation or dpa.NeighboringRelation.ADD_OR_REMOVE_ONE,
                                                value_discretization_interval=discretization)


def _rdp_accountant(relation=None):
    from dp_accounting.rdp import rdp_privacy_accountant  # noqa: PLC0415

    dpa = _dpa()
    # the library's default orders plus integer orders up to 4096 (large σ and small q put the optimum
    # near 400-500, between the defaults 256 and 512: 2% on ε at Table 9); integer orders use its exact sum
    orders = np.unique(np.concatenate([rdp_privacy_accountant.DEFAULT_RDP_ORDERS, np.geomspace(64, 4096, 25).round()]))
    return rdp_privacy_accountant.RdpAccountant(orders, relation or dpa.NeighboringRelation.ADD_OR_REMOVE_ONE)


def _epsilon(accountant, event, delta: float) -> float:
    accountant.compose(event)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RDP's "optimal order is the largest" advisory
        return float(accountant.get_epsilon(delta))


@functools.cache
def replace_one_sensitivity() -> dict[str, float]:
    """The sensitivity that the installed dp_accounting assumes for ``GaussianDpEvent(σ)`` under REPLACE_ONE.

    Probed, not assumed: one Gaussian event (σ = 2, δ = 1e-5) is accounted under REPLACE_ONE and compared
    with the exact ε of a Gaussian mechanism of sensitivity 1 and 2 (PLD; eq. (64) with ``μ = Δ/σ`` is exact
    for one Gaussian) and with the same accountant under ADD_OR_REMOVE_ONE at σ and σ/2 (RDP, whose
    formulas coincide exactly). dp_accounting 0.6 answers ``{"pld": 2.0, "rdp": 1.0}``: the factor-2
    inconsistency documented in the module docstring.
    """
    dpa = _dpa()
    rel = dpa.NeighboringRelation
    sigma, delta = 2.0, 1e-5
    one = lambda s: dpa.GaussianDpEvent(s)
    found = {}
    pld = _epsilon(_pld_accountant(rel.REPLACE_ONE, 1e-4), one(sigma), delta)
    ref = {d: gdp_epsilon(d / sigma, delta) for d in (1.0, 2.0)}
    found["pld"] = min(ref, key=lambda d: abs(ref[d] - pld))
    rdp = _epsilon(_rdp_accountant(rel.REPLACE_ONE), one(sigma), delta)
    ref = {d: _epsilon(_rdp_accountant(), one(sigma / d), delta) for d in (1.0, 2.0)}
    found["rdp"] = min(ref, key=lambda d: abs(ref[d] - rdp))
    return found


def exact_epsilon(sigma, q, T, delta, accountant: str = "pld", *, N=None, discretization: float = PLD_DISCRETIZATION,
                  n_samples: int = 2**16, seed: int = 0, level: float = 0.99, backend=None) -> EpsilonResult:
    """ε of ``T`` rounds of DP-SGD with noise multiplier ``σ`` and sampling rate ``q``, at ``δ``.

    ``accountant`` is one of :data:`ACCOUNTANTS` (table in the module docstring); the result states the
    sampling model and neighbouring relation of its number. ``"rdp_wor"`` needs the data-set size ``N``
    (batch ``s = round(qN)``). ``"mc"`` takes ``n_samples``, ``seed``, ``level`` and ``backend`` and returns its
    confidence interval in ``.interval``. ``T`` must be whole except for ``"clt"``, whose formula
    takes ``T = kN/s`` as tf-privacy does.
    """
    if accountant not in ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {ACCOUNTANTS}, got {accountant!r}")
    sigma = check_in_interval("sigma", sigma, 0.0)
    q = check_in_interval("q", q, 0.0, 1.0, hi_closed=True)
    T = (check_in_interval("T", T, 1.0, lo_closed=True) if accountant == "clt"
         else check_int("T", T, 1, why=f"a whole number of rounds for accountant={accountant!r}"))
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    sampling, neighbouring, certified = _MODELS[accountant]
    interval = None
    if accountant == "pld":
        eps = _epsilon(_pld_accountant(discretization=discretization), _poisson_event(sigma, q, T), delta)
    elif accountant == "rdp":
        eps = _epsilon(_rdp_accountant(), _poisson_event(sigma, q, T), delta)
    elif accountant in ("clt", "clt_poisson"):
        eps = gdp_epsilon(mu_clt(sigma, q, T, "uniform" if accountant == "clt" else "poisson"), delta)
    elif accountant == "mc":
        from .montecarlo import mc_epsilon  # noqa: PLC0415

        res = mc_epsilon(sigma, q, T, delta, n_samples=n_samples, seed=seed, level=level, backend=backend)
        eps, interval = res.eps, (res.lo, res.hi)
    else:
        if N is None:
            raise ValueError("accountant='rdp_wor' needs N, the data-set size (batch s = round(q N))")
        N = int(check_in_interval("N", N, 1.0))
        s = max(1, round(q * N))
        dpa = _dpa()
        # Alg. 1's replace-one sensitivity is 2C; the library assumes replace_one_sensitivity()["rdp"]·σ_lib.
        sigma_lib = sigma * replace_one_sensitivity()["rdp"] / 2.0
        event = dpa.SelfComposedDpEvent(dpa.SampledWithoutReplacementDpEvent(N, s, dpa.GaussianDpEvent(sigma_lib)), T)
        eps = _epsilon(_rdp_accountant(dpa.NeighboringRelation.REPLACE_ONE), event, delta)
    return EpsilonResult(float(eps), accountant, sampling, neighbouring, certified, interval)


def exact_minimal_T(eps_target, sigma, k, delta, accountant: str = "pld", T_max: int = 10**7) -> int:
    """The fewest rounds ``T`` at which ``accountant`` certifies ``ε_target`` for ``k`` epochs (``q = k/T``).

    For fixed ``k`` the batch shrinks as ``T`` grows and ε decreases in ``T`` (digest 001 §3.10; tested), so
    the answer is found by dp_accounting's calibration (``calibrate_dp_mechanism``, discrete) over
    ``T ∈ [⌈k⌉, T_max]``. Raises if even ``T_max`` rounds do not reach ``ε_target``.
    """
    eps_target = check_in_interval("eps_target", eps_target, 0.0)
    k = check_in_interval("k", k, 0.0)
    lo = max(1, math.ceil(k))
    eps_at = lambda T: exact_epsilon(sigma, k / T, T, delta, accountant).eps
    if eps_at(lo) <= eps_target:
        return lo
    hi = 2 * lo
    while eps_at(hi) > eps_target:  # a tight bracket keeps the calibration short
        if hi >= T_max:
            raise ValueError(f"eps_target = {eps_target:g} is not reached by {accountant} within T_max = {T_max} rounds")
        lo, hi = hi, min(2 * hi, T_max)
    from dp_accounting import mechanism_calibration as mc  # noqa: PLC0415

    if accountant == "pld":
        return int(mc.calibrate_dp_mechanism(_pld_accountant, lambda T: _poisson_event(sigma, k / T, T), eps_target,
                                             delta, mc.ExplicitBracketInterval(lo, hi), discrete=True))
    while hi - lo > 1:  # other accountants: integer bisection on the same monotone map
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if eps_at(mid) <= eps_target else (mid, hi)
    return hi


def calibrate_sigma(eps, delta, q, T) -> float:
    """The smallest σ at which the PLD accountant certifies ``(ε, δ)`` for ``T`` Poisson rounds of rate ``q``.

    dp_accounting's ``calibrate_dp_mechanism`` (Brent on σ, tolerance 1e-6): the baseline against which the
    closed form of eq. (6) is timed (``make bench``).
    """
    from dp_accounting import mechanism_calibration as mc  # noqa: PLC0415

    eps = check_in_interval("eps", eps, 0.0)
    q = check_in_interval("q", q, 0.0, 1.0, hi_closed=True)
    T = int(check_in_interval("T", T, 1.0, lo_closed=True))
    # bracket around the Poisson GDP-CLT guess μ = q√(T(e^{1/σ²} − 1)); a σ far below it makes the PLD grid huge
    mu = gdp_mu(eps, delta)
    guess = 1.0 / math.sqrt(math.log1p(mu**2 / (q * q * T)))
    return float(mc.calibrate_dp_mechanism(_pld_accountant, lambda s: _poisson_event(s, q, T), eps, delta,
                                           mc.ExplicitBracketInterval(0.5 * guess, 2.0 * guess)))


def gdp_mu(eps, delta) -> float:
    """The μ at which μ-GDP gives exactly ``(ε, δ)`` (eq. (64) increases in μ): ``μ*(ε, δ)`` of digest 001 §3.11d."""
    eps = check_in_interval("eps", eps, 0.0, lo_closed=True)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    hi = 1.0
    while gdp_delta(eps, hi) < delta:
        hi *= 2.0
    return brentq(lambda m: gdp_delta(eps, m) - delta, 1e-12, hi, xtol=1e-14)
