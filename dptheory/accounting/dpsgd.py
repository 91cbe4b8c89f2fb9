r"""Accountants for DP-SGD (the subsampled Gaussian mechanism), each with its model stated, and the
``dp_accounting`` adapters that seed 001 and seed 002 share.

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

A function whose arguments include two numbers or more takes its first argument positionally and the others
by keyword only (``exact_epsilon(sigma, q=0.01, T=1000, delta=1e-5)``), so that σ, q, T, ε and δ cannot be
swapped.

The adapters :func:`dp_accounting_module`, :func:`pld_accountant`, :func:`rdp_accountant` and
:func:`accountant_epsilon` are also what seed 002's :func:`~dptheory.isrl.calibration.spent_by_calibration`
accounts with. The sampling model and neighbouring relation of each result are :mod:`.models` values.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from .._validation import check_in_interval, check_int
from .gdp import gdp_epsilon, gdp_mu, mu_clt
from .models import EpsilonResult, Neighbouring, Sampling
from .montecarlo import mc_epsilon

__all__ = [
    "ACCOUNTANTS",
    "PLD_DISCRETIZATION",
    "accountant_epsilon",
    "dp_accounting_module",
    "exact_epsilon",
    "pld_accountant",
    "rdp_accountant",
    "replace_one_sensitivity",
    "exact_minimal_T",
    "calibrate_sigma",
]

ACCOUNTANTS = ("pld", "rdp", "clt", "clt_poisson", "mc", "rdp_wor")
#: ``(sampling, neighbouring, certified)`` of each accountant (module docstring).
_MODELS = {
    "pld": (Sampling.POISSON, Neighbouring.ADD_REMOVE, True),
    "rdp": (Sampling.POISSON, Neighbouring.ADD_REMOVE, True),
    "clt": (Sampling.FIXED_BATCH_WOR, Neighbouring.SENSITIVITY_C, False),
    "clt_poisson": (Sampling.POISSON, Neighbouring.ADD_REMOVE, False),
    "mc": (Sampling.POISSON, Neighbouring.ADD_REMOVE, False),
    "rdp_wor": (Sampling.FIXED_BATCH_WOR, Neighbouring.REPLACE_ONE, True),
}
#: PLD discretisation of ``"pld"``: 1e-5 keeps its (pessimistic) ε within 0.1% of the 3e-6 value at Tables
#: 9–11 (1e-4, dp_accounting's default, overstates Table 9's ε by 5%; errata 001 §4 printed 0.0103).
PLD_DISCRETIZATION = 1e-5


def dp_accounting_module():
    """The ``dp_accounting`` package, imported on first use (it is heavy)."""
    import dp_accounting  # noqa: PLC0415  (heavy import, only when an accountant is used)

    return dp_accounting


def _poisson_event(sigma: float, q: float, T: int):
    dpa = dp_accounting_module()
    return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), T)


def pld_accountant(relation=None, discretization: float = PLD_DISCRETIZATION):
    """A fresh ``dp_accounting`` PLD accountant (pessimistic: its ε is an upper bound) for ``relation``
    (a ``dp_accounting.NeighboringRelation``, default ADD_OR_REMOVE_ONE) at value discretisation
    ``discretization`` (default :data:`PLD_DISCRETIZATION`)."""
    from dp_accounting.pld import pld_privacy_accountant  # noqa: PLC0415

    dpa = dp_accounting_module()
    return pld_privacy_accountant.PLDAccountant(relation or dpa.NeighboringRelation.ADD_OR_REMOVE_ONE,
                                                value_discretization_interval=discretization)


def rdp_accountant(relation=None):
    """A fresh ``dp_accounting`` Rényi-DP accountant (Mironov 2017) for ``relation`` (a
    ``dp_accounting.NeighboringRelation``, default ADD_OR_REMOVE_ONE), on the library's default orders plus
    integer orders up to 4096."""
    from dp_accounting.rdp import rdp_privacy_accountant  # noqa: PLC0415

    dpa = dp_accounting_module()
    # the library's default orders plus integer orders up to 4096 (large σ and small q put the optimum
    # near 400-500, between the defaults 256 and 512: 2% on ε at Table 9); integer orders use its exact sum
    orders = np.unique(np.concatenate([rdp_privacy_accountant.DEFAULT_RDP_ORDERS, np.geomspace(64, 4096, 25).round()]))
    return rdp_privacy_accountant.RdpAccountant(orders, relation or dpa.NeighboringRelation.ADD_OR_REMOVE_ONE)


def accountant_epsilon(accountant, event, delta: float) -> float:
    """Compose ``event`` (a ``dp_accounting.DpEvent``) into ``accountant`` and return its ε at ``delta``."""
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
    dpa = dp_accounting_module()
    rel = dpa.NeighboringRelation
    sigma, delta = 2.0, 1e-5
    one = lambda s: dpa.GaussianDpEvent(s)
    found = {}
    pld = accountant_epsilon(pld_accountant(rel.REPLACE_ONE, 1e-4), one(sigma), delta)
    ref = {d: gdp_epsilon(d / sigma, delta=delta) for d in (1.0, 2.0)}
    found["pld"] = min(ref, key=lambda d: abs(ref[d] - pld))
    rdp = accountant_epsilon(rdp_accountant(rel.REPLACE_ONE), one(sigma), delta)
    ref = {d: accountant_epsilon(rdp_accountant(), one(sigma / d), delta) for d in (1.0, 2.0)}
    found["rdp"] = min(ref, key=lambda d: abs(ref[d] - rdp))
    return found


def exact_epsilon(sigma, *, q, T, delta, accountant: str = "pld", N=None, discretization: float = PLD_DISCRETIZATION,
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
        eps = accountant_epsilon(pld_accountant(discretization=discretization), _poisson_event(sigma, q, T), delta)
    elif accountant == "rdp":
        eps = accountant_epsilon(rdp_accountant(), _poisson_event(sigma, q, T), delta)
    elif accountant in ("clt", "clt_poisson"):
        eps = gdp_epsilon(mu_clt(sigma, q=q, T=T, form="uniform" if accountant == "clt" else "poisson"), delta=delta)
    elif accountant == "mc":
        res = mc_epsilon(sigma, q=q, T=T, delta=delta, n_samples=n_samples, seed=seed, level=level, backend=backend)
        eps, interval = res.eps, (res.lo, res.hi)
    else:
        if N is None:
            raise ValueError("accountant='rdp_wor' needs N, the data-set size (batch s = round(q N))")
        N = int(check_in_interval("N", N, 1.0))
        s = max(1, round(q * N))
        dpa = dp_accounting_module()
        # Alg. 1's replace-one sensitivity is 2C; the library assumes replace_one_sensitivity()["rdp"]·σ_lib.
        sigma_lib = sigma * replace_one_sensitivity()["rdp"] / 2.0
        event = dpa.SelfComposedDpEvent(dpa.SampledWithoutReplacementDpEvent(N, s, dpa.GaussianDpEvent(sigma_lib)), T)
        eps = accountant_epsilon(rdp_accountant(dpa.NeighboringRelation.REPLACE_ONE), event, delta)
    return EpsilonResult(float(eps), accountant, sampling, neighbouring, certified, interval)


def exact_minimal_T(eps_target, *, sigma, k, delta, accountant: str = "pld", T_max: int = 10**7) -> int:
    """The fewest rounds ``T`` at which ``accountant`` certifies ``ε_target`` for ``k`` epochs (``q = k/T``).

    For fixed ``k`` the batch shrinks as ``T`` grows and ε decreases in ``T`` (errata 001 §3.10; tested), so
    the answer is found by dp_accounting's calibration (``calibrate_dp_mechanism``, discrete) over
    ``T ∈ [⌈k⌉, T_max]``. Raises if even ``T_max`` rounds do not reach ``ε_target``.
    """
    eps_target = check_in_interval("eps_target", eps_target, 0.0)
    k = check_in_interval("k", k, 0.0)
    lo = max(1, math.ceil(k))
    eps_at = lambda T: exact_epsilon(sigma, q=k / T, T=T, delta=delta, accountant=accountant).eps
    if eps_at(lo) <= eps_target:
        return lo
    hi = 2 * lo
    while eps_at(hi) > eps_target:  # a tight bracket keeps the calibration short
        if hi >= T_max:
            raise ValueError(f"eps_target = {eps_target:g} is not reached by {accountant} within T_max = {T_max} rounds")
        lo, hi = hi, min(2 * hi, T_max)
    from dp_accounting import mechanism_calibration as mc  # noqa: PLC0415

    if accountant == "pld":
        return int(mc.calibrate_dp_mechanism(pld_accountant, lambda T: _poisson_event(sigma, k / T, T), eps_target,
                                             delta, mc.ExplicitBracketInterval(lo, hi), discrete=True))
    while hi - lo > 1:  # other accountants: integer bisection on the same monotone map
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if eps_at(mid) <= eps_target else (mid, hi)
    return hi


def calibrate_sigma(eps, *, delta, q, T) -> float:
    """The smallest σ at which the PLD accountant certifies ``(ε, δ)`` for ``T`` Poisson rounds of rate ``q``.

    dp_accounting's ``calibrate_dp_mechanism`` (Brent on σ, tolerance 1e-6): the baseline against which the
    closed form of eq. (6) is timed (``make bench``).
    """
    from dp_accounting import mechanism_calibration as mc  # noqa: PLC0415

    eps = check_in_interval("eps", eps, 0.0)
    q = check_in_interval("q", q, 0.0, 1.0, hi_closed=True)
    T = check_int("T", T, 1, why="a number of rounds")
    # bracket around the Poisson GDP-CLT guess μ = q√(T(e^{1/σ²} − 1)); a σ far below it makes the PLD grid huge
    mu = gdp_mu(eps, delta=delta)
    guess = 1.0 / math.sqrt(math.log1p(mu**2 / (q * q * T)))
    return float(mc.calibrate_dp_mechanism(pld_accountant, lambda s: _poisson_event(s, q, T), eps, delta,
                                           mc.ExplicitBracketInterval(0.5 * guess, 2.0 * guess)))
