r"""Accountants for DP-SGD (the subsampled Gaussian mechanism), each with its model stated, and the
``dp_accounting`` adapters that seed 001 and seed 002 share.

One call, :func:`exact_epsilon`, gives ε for ``T`` rounds of the Gaussian mechanism with noise multiplier
``σ`` (noise std ``σ·C`` for clip norm ``C``) on a sample of rate ``q``:

================= ====================================== ============================== ===========
accountant        route                                  sampling / neighbouring        certified?
================= ====================================== ============================== ===========
``"pld"``         privacy-loss distribution              Poisson(q), add/remove one     upper bound
                  (``dp_accounting``, pessimistic
                  connect-the-dots; grid refined until
                  ε converges, below)
``"rdp"``         Rényi DP (``dp_accounting``)           Poisson(q), add/remove one     upper bound
``"clt"``         Gaussian-DP CLT, Dong–Roth–Su Cor.     fixed batch ``s = qN``,        estimate
                  5.4, eq. (65): what seed 001 App. D.4  replace one but counted as
                  compares against (tf-privacy           sensitivity C, not 2C (seed
                  ``compute_eps_uniform``)               001 footnote 18; errata 001
                                                         §9 #12): no relation certified
``"clt_poisson"`` Gaussian-DP CLT, Poisson form          Poisson(q), add/remove one     estimate
                  ``μ = q√(T(e^{1/σ²} − 1))``
``"mc"``          Monte Carlo over sampled privacy       Poisson(q), add/remove one     estimate
                  losses (:mod:`.montecarlo`), with CI                                  with CI
``"rdp_wor"``     RDP of sampling without replacement    fixed batch ``s = qN`` (whole  upper bound
                  (Wang–Balle–Kasiviswanathan Thm 27,    ``s``, integer ``N``), replace
                  ``dp_accounting``)                     one, sensitivity 2C (Alg. 1
                                                         as written)
================= ====================================== ============================== ===========

Seed 001's analysis assumes Poisson sampling with add/remove adjacency (footnotes 5 and 14), the model of
``"pld"``. Its Algorithm 1 samples a fixed-size batch; under replace-one adjacency the sum of clipped
gradients then moves by up to ``2C``, not ``C`` (the "factor 2 penalty" of footnote 5).

**The factor-2 inconsistency of dp_accounting under REPLACE_ONE.** For the same ``GaussianDpEvent(σ)``
under ``NeighboringRelation.REPLACE_ONE``, the PLD accountant treats the sensitivity as 2 (it returns the ε
of a Gaussian with ``μ = 2/σ``) while the RDP accountant treats it as 1 (its replace-one sampled-without-
replacement formula reduces at ``q = 1`` to ``α/(2σ²)``, the add/remove Gaussian). We do not inherit either
convention: :func:`replace_one_sensitivity` probes the installed library for the sensitivity each accountant
assumes, and ``"rdp_wor"`` rescales σ so that the library sees Alg. 1's replace-one sensitivity ``2C``.

**Where the PLD accountant stops.** dp_accounting's pessimistic connect-the-dots PLD (Doroshenko et al. 2022,
arXiv 2207.04380, Alg. 1) is an upper bound at every value discretisation ``d`` and approaches the true ε from
above as ``d`` shrinks; a fixed ``d`` is biased by an amount that grows with ``T`` (1e-5 overstates ε by 3.6% at
σ = 42.943, q = 5/6423, T = 6423, δ = 1e-4). :func:`exact_epsilon` therefore chooses ``d`` from the ε it
resolves: it starts near ``8·rtol·ε`` (ε guessed by the Poisson CLT), halves ``d`` until one halving moves ε by
at most ``rtol`` (default :data:`PLD_RTOL` = 1e-3) relative and by no more than the halving before it, and
reports the finer value with its grid and that relative move (``EpsilonResult.discretization``,
``.tolerance``). The move over one halving bounds the remaining error of the finer value if the error shrinks
at least linearly in ``d``; it shrinks quadratically here (0.010847, 0.010285, 0.010279 at ``d`` = 1e-4, 1e-5,
1e-6 for Table 9), and asking the moves to shrink keeps two coarse grids that agree by chance from ending the
refinement. dp_accounting's optimistic PLD is no practical lower bound for this: it falls back to privacy
buckets, whose error grows like ``T·d`` (at Table 9 and ``d`` = 1e-6 it is still 9% below).
``discretization=`` fixes ``d`` and skips the convergence check. Three limits are checked, each a
``ValueError`` naming what to change:

* the grid, before dp_accounting builds it: one step spans the privacy losses of dp_accounting's truncated
  Gaussian, ``(ℓ_max − ℓ_min)/d`` points, and the ``T``-fold composition as many as dp_accounting's Chernoff
  bound keeps; either above :data:`PLD_MAX_POINTS` is refused (σ = 1e-3 at ``d`` = 1e-5 would need 5e10
  points, ~760 GiB);
* the tails: dp_accounting truncates the Gaussian at mass ``e^-50`` and each composition at 1e-15, and its
  pessimistic estimate moves that mass to an infinite loss, so ε was ``inf`` for δ ≤ 1e-15; here both
  truncations are at most ``1e-6·δ`` (the Gaussian's mass ``m`` per step with ``T·m ≤ 1e-6·δ``, and the
  composition's), so no δ is refused for this reason;
* floating point: the ``T``-fold composition is an FFT whose round-off puts probability of order 1e-20 on
  every grid point, visible as negative entries (true probabilities are not negative). ``r`` = the grid's size
  times its most negative entry bounds the mass it can have moved; ε is read at ``δ − r``, and a δ where that
  moves ε by more than ``rtol/2`` is refused (σ = 3, q = 1, T = 10, δ = 1e-15 gave 8.615 against the exact
  8.642: not an upper bound). One step (``T = 1``) has no FFT and no such limit.

dp_accounting reads ε from a PLD by dividing by ``Σ p e^{−ℓ}``, which underflows for ε ≳ 700 and returns
``inf``; there ε is read again in log space (σ = 1, q = 1, T = 1000, δ = 1e-11: 711.258 against the exact
711.156, 1.4e-4 high).

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

from scipy.optimize import brentq

from .._validation import check_in_interval, check_int
from .gdp import gdp_epsilon, gdp_mu, mu_clt
from .models import EpsilonResult, Neighbouring, Sampling
from .montecarlo import mc_epsilon
from .rdp import rdp_poisson_gaussian, rdp_sample_wor_gaussian

__all__ = [
    "ACCOUNTANTS",
    "PLD_DISCRETIZATION",
    "PLD_MAX_POINTS",
    "PLD_MAX_T",
    "PLD_MIN_RTOL",
    "PLD_RTOL",
    "accountant_epsilon",
    "dp_accounting_module",
    "wor_rdp_epsilon",
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
#: PLD discretisation of :func:`pld_accountant` (seed 002's adapters): 1e-5 keeps the pessimistic ε within 0.1% of
#: the 3e-6 value at Tables 9–11 (1e-4, dp_accounting's default, overstates Table 9's ε by 5%; errata 001 §4
#: printed 0.0103), but not at larger ``T`` (3.6% high at T = 6423): :func:`exact_epsilon` chooses its own grid.
PLD_DISCRETIZATION = 1e-5
#: Relative tolerance of :func:`exact_epsilon`'s PLD grid: it is halved until one halving moves ε by at most this.
PLD_RTOL = 1e-3
#: Most points a PLD grid may hold, for one step or for the ``T``-fold composition: dp_accounting builds one step
#: point by point in Python (about 10 µs a point) and composes by an FFT (16 bytes a point, a few copies), so
#: 2**22 ≈ 4.2e6 points is about a minute and a few hundred MB at worst.
PLD_MAX_POINTS = 2**22
#: Coarsest grid :func:`exact_epsilon` tries (dp_accounting's connect-the-dots divides by ``e^d − 1``, which
#: overflows above d ≈ 709; 64 still agrees with 8 to 5e-5 at σ = 1e-3, q = 0.01, T = 100, where ε ≈ 3.5e6).
_PLD_COARSEST = 64.0
#: Most rounds the PLD's grid refinement (``discretization=None``) takes: ~10 s at T = 10⁷ and ~30 s at 10⁸
#: (σ = 1 or 5, q = 0.01, measured 2026-12-02); at 10⁹ it stopped unconverged at PLD_MAX_POINTS after 80 s.
PLD_MAX_T = 10**8
#: Smallest ``rtol`` of the PLD's grid refinement: 1e-7 converged at d = 7.6e-6 in 12 s (σ = 1, q = 0.01, T = 100,
#: measured 2026-12-02); each decade below needs grids ~3× finer, towards PLD_MAX_POINTS per step.
PLD_MIN_RTOL = 1e-7
#: dp_accounting's ``_MAX_PMF_SPARSE_SIZE``: a sparse PMF whose ``T``-fold composition could exceed it goes dense
_SPARSE_MAX_SIZE = 1000


def dp_accounting_module():
    """The ``dp_accounting`` package, imported on first use (it is heavy).

    Returns
    -------
    module
        The ``dp_accounting`` module.
    """
    import dp_accounting  # noqa: PLC0415  (heavy import, only when an accountant is used)

    return dp_accounting


def pld_accountant(relation=None, discretization: float = PLD_DISCRETIZATION):
    """A fresh ``dp_accounting`` PLD accountant (pessimistic: its ε is an upper bound).

    Parameters
    ----------
    relation : dp_accounting.NeighboringRelation, optional
        The neighbouring relation; ``None`` (default) is ADD_OR_REMOVE_ONE.
    discretization : float, default PLD_DISCRETIZATION
        The value discretisation of the privacy-loss grid (default :data:`PLD_DISCRETIZATION`).

    Returns
    -------
    dp_accounting.pld.pld_privacy_accountant.PLDAccountant
        An accountant with nothing composed yet.
    """
    from dp_accounting.pld import pld_privacy_accountant  # noqa: PLC0415

    dpa = dp_accounting_module()
    return pld_privacy_accountant.PLDAccountant(relation or dpa.NeighboringRelation.ADD_OR_REMOVE_ONE,
                                                value_discretization_interval=discretization)


def rdp_accountant(relation=None):
    """A fresh ``dp_accounting`` Rényi-DP accountant (Mironov 2017).

    It works on the library's default orders plus integer orders up to 4096.

    Parameters
    ----------
    relation : dp_accounting.NeighboringRelation, optional
        The neighbouring relation; ``None`` (default) is ADD_OR_REMOVE_ONE.

    Returns
    -------
    dp_accounting.rdp.rdp_privacy_accountant.RdpAccountant
        An accountant with nothing composed yet.
    """
    from dp_accounting.rdp import rdp_privacy_accountant  # noqa: PLC0415

    dpa = dp_accounting_module()
    return rdp_privacy_accountant.RdpAccountant(_rdp_orders(), relation or dpa.NeighboringRelation.ADD_OR_REMOVE_ONE)


@functools.cache
def _rdp_orders() -> np.ndarray:
    """The orders of :func:`rdp_accountant`: the library's defaults plus integer orders up to 4096 (large σ and
    small q put the optimum near 400-500, between the defaults 256 and 512: 2% on ε at Table 9); integer orders
    use its exact sum. Built once, read-only."""
    from dp_accounting.rdp import rdp_privacy_accountant  # noqa: PLC0415

    orders = np.unique(np.concatenate([rdp_privacy_accountant.DEFAULT_RDP_ORDERS, np.geomspace(64, 4096, 25).round()]))
    orders.setflags(write=False)
    return orders


def accountant_epsilon(accountant, event, delta: float) -> float:
    """Compose ``event`` into ``accountant`` and return its ε at ``delta``.

    Parameters
    ----------
    accountant : dp_accounting.PrivacyAccountant
        The accountant (e.g. from :func:`pld_accountant` or :func:`rdp_accountant`); ``event`` is composed into
        it.
    event : dp_accounting.DpEvent
        The event to account.
    delta : float
        The δ at which ε is read.

    Returns
    -------
    float
        The accountant's ε at ``delta``.
    """
    accountant.compose(event)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RDP's "optimal order is the largest" advisory
        return float(accountant.get_epsilon(delta))


def wor_rdp_epsilon(dataset_size: int, sample_size: int, noise_multiplier: float, count: int, delta: float) -> float:
    """ε at ``delta`` of ``count`` rounds of ``SampledWithoutReplacementDpEvent(dataset_size, sample_size,
    GaussianDpEvent(noise_multiplier))`` under REPLACE_ONE: what :func:`accountant_epsilon` gives for that event
    composed into ``rdp_accountant(REPLACE_ONE)``, bit for bit (``tests/test_rdp.py``), with the RDP of
    :func:`~dptheory.accounting.rdp.rdp_sample_wor_gaussian` (the library's WBK19 Thm 27 bound, its forward
    differences computed once per σ) read by the library's ``compute_epsilon``.

    Parameters
    ----------
    dataset_size : int
        The data-set size ``N``.
    sample_size : int
        The batch size ``m`` (``1 ≤ m ≤ dataset_size``).
    noise_multiplier : float in (0, inf)
        The noise std over the sensitivity the library assumes (``replace_one_sensitivity()["rdp"]``).
    count : int
        The number of rounds composed.
    delta : float in (0, 1)
        The δ at which ε is read.

    Returns
    -------
    float
        The RDP accountant's ε.
    """
    dataset_size = check_int("dataset_size", dataset_size, 1)
    sample_size = check_int("sample_size", sample_size, 1, dataset_size, why="a batch drawn from the data set")
    count = check_int("count", count, 1)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    return _rdp_epsilon(rdp_sample_wor_gaussian(sample_size / dataset_size, noise_multiplier, _rdp_orders()), count,
                        delta)


def _rdp_epsilon(rdp, count: int, delta: float) -> float:
    """ε at ``delta`` of ``count`` compositions of an event whose RDP at :func:`_rdp_orders` is ``rdp``, as
    ``rdp_accountant()`` composes it (``0 + count·rdp``) and reads it (the library's ``compute_epsilon``)."""
    from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon  # noqa: PLC0415

    orders = _rdp_orders()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RDP's "optimal order is the largest" advisory
        return float(compute_epsilon(orders, np.zeros_like(orders) + count * rdp, delta)[0])


@functools.cache
def replace_one_sensitivity() -> dict[str, float]:
    """The sensitivity that the installed dp_accounting assumes for ``GaussianDpEvent(σ)`` under REPLACE_ONE.

    Probed, not assumed: one Gaussian event (σ = 2, δ = 1e-5) is accounted under REPLACE_ONE and compared
    with the exact ε of a Gaussian mechanism of sensitivity 1 and 2 (PLD; eq. (64) with ``μ = Δ/σ`` is exact
    for one Gaussian) and with the same accountant under ADD_OR_REMOVE_ONE at σ and σ/2 (RDP, whose
    formulas coincide exactly). dp_accounting 0.6 answers ``{"pld": 2.0, "rdp": 1.0}``: the factor-2
    inconsistency documented in the module docstring.

    Returns
    -------
    dict of str to float
        The sensitivity each accountant (``"pld"``, ``"rdp"``) assumes.
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


# -- the PLD accountant, with its grid, tails and round-off checked (module docstring) ----------------------------

class _GridTooLarge(Exception):
    """A PLD grid above :data:`PLD_MAX_POINTS` (``stage``: "one step" or "the composition")."""

    def __init__(self, stage: str, points: float, discretization: float):
        super().__init__(stage, points, discretization)
        self.stage, self.points, self.discretization = stage, points, discretization


def _pld_tails(delta: float, T: int) -> tuple[float, float]:
    """``(ln m, t)``: the Gaussian's truncated mass per step ``m`` (dp_accounting's ``log_mass_truncation_bound``,
    default e^-50) and the composition's truncated mass ``t`` (default 1e-15), each at most ``1e-6·δ`` in all, so
    that the mass the pessimistic estimate moves to an infinite loss cannot decide ε at small δ."""
    return min(-50.0, math.log(1e-6 * delta / T)), min(1e-15, 1e-6 * delta)


def _loss_span(sigma: float, q: float, log_mass: float) -> float:
    """Width of the privacy losses one step's PLD covers (largest over the REMOVE and ADD directions), from
    dp_accounting's own connect-the-dots bounds: the grid of one step has ``span/d + 2`` points."""
    from dp_accounting.pld import privacy_loss_mechanism as plm  # noqa: PLC0415

    adjacencies = (plm.AdjacencyType.REMOVE,) if q == 1.0 else (plm.AdjacencyType.REMOVE, plm.AdjacencyType.ADD)
    spans = []
    for adjacency in adjacencies:
        b = plm.GaussianPrivacyLoss(sigma, sampling_prob=q, log_mass_truncation_bound=log_mass,
                                    adjacency_type=adjacency).connect_dots_bounds()
        spans.append(b.epsilon_upper - b.epsilon_lower)
    return max(spans)


def _pmfs(pld) -> list:
    """The PMFs of a dp_accounting ``PrivacyLossDistribution`` (REMOVE, and ADD unless symmetric), as dense PMFs
    (dp_accounting 0.4–0.6 keep them in ``_pmf_remove``/``_pmf_add``)."""
    pmfs = (pld._pmf_remove,) if pld._symmetric else (pld._pmf_remove, pld._pmf_add)
    return [p.to_dense_pmf() for p in pmfs]


def _epsilon_in_log_space(pmf, delta: float) -> float:
    """The smallest ``ε ≥ 0`` with ``δ(ε) = m + Σ_{ℓ > ε} p_ℓ (1 − e^{ε − ℓ}) ≤ δ`` for a PLD PMF (losses ``ℓ``,
    masses ``p`` clipped at 0, infinite-loss mass ``m``), from suffix sums kept in log space. dp_accounting's own
    reader divides by ``Σ p e^{−ℓ}``, which underflows when ε ≳ 700 and then answers ``inf``."""
    pmf = pmf.to_dense_pmf()
    p = np.clip(np.asarray(pmf._probs, dtype=float), 0.0, None)
    ell = (pmf._lower_loss + np.arange(p.size)) * pmf._discretization
    m = float(pmf._infinity_mass)
    if m > delta:
        return math.inf
    upper = m + np.cumsum(p[::-1])[::-1]  # m + Σ_{j ≥ i} p_j
    with np.errstate(divide="ignore"):
        log_lower = np.logaddexp.accumulate((np.log(p) - ell)[::-1])[::-1]  # ln Σ_{j ≥ i} p_j e^{−ℓ_j}
    upper_next, log_lower_next = np.append(upper[1:], m), np.append(log_lower[1:], -np.inf)
    delta_at = upper_next - np.exp(ell + log_lower_next)  # δ(ℓ_i), nonincreasing in i
    above = np.flatnonzero(delta_at > delta)
    if above.size == 0:  # δ(ℓ_0) ≤ δ: ε ≤ ℓ_0, where δ(ε) = upper[0] − e^ε·lower[0]
        return max(0.0, math.log(upper[0] - delta) - log_lower[0]) if upper[0] > delta else 0.0
    i = above[-1]  # ε lies in (ℓ_i, ℓ_{i+1}], where δ(ε) = upper_next[i] − e^ε·lower_next[i]
    return max(0.0, min(float(ell[i + 1]), math.log(upper_next[i] - delta) - float(log_lower_next[i])))


def _epsilon_for_delta(pmf, delta: float) -> float | None:
    """dp_accounting's ``DensePLDPmf.get_epsilon_for_delta`` on arrays; ``None`` where an ``e^{−ℓ}`` overflows (the
    caller then asks the library).

    The library walks the losses from the top in Python, accumulating ``m + Σ p`` and ``Σ p e^{−ℓ}`` until
    ``ln((m + Σ p − δ)/Σ p e^{−ℓ}) ≥ ℓ``. Here the same running sums are ``cumsum``'s (sequential, so the same
    additions in the same order), the losses the library's repeated subtraction from the top, and the stopping
    rules (that one, and its early return where ``Σ p e^{−ℓ}`` is still 0) are found by the first index that meets
    them (:func:`_walk`). NumPy's vectorised ``exp`` differs from the library's ``math.exp`` by one ulp in ~5% of
    the elements on some CPUs (AVX-512 builds; it moved ε by 2e-16), so it only locates the stop: the walk is then
    redone on the library's ``math.exp`` of the losses up to there (and past it only if the stop moved), which
    gives the library's ε bit for bit in every reading of ``tests/test_pld_edges.py``.
    """
    m, d = float(pmf._infinity_mass), float(pmf._discretization)
    if m > delta:
        return math.inf
    probs = np.flip(np.asarray(pmf._probs, dtype=float))
    if probs.size == 0:
        return 0.0
    steps = np.full(probs.size, -d)
    steps[0] = (pmf._lower_loss + probs.size - 1) * d
    losses = np.cumsum(steps)  # the library's itertools.count(top, −d)
    with np.errstate(over="ignore", invalid="ignore"):
        weighted = np.exp(-losses) * probs
    if not np.all(np.isfinite(weighted)):
        return None
    n = min(probs.size, _walk(m, losses, probs, weighted, delta)[0] + _STOP_MARGIN)
    while True:
        exact = np.fromiter(map(math.exp, (-losses[:n]).tolist()), dtype=float, count=n) * probs[:n]
        k, eps = _walk(m, losses[:n], probs[:n], exact, delta)
        if k < n or n == probs.size:
            return eps
        n = probs.size  # the exact walk went past the prefix (a near-tie moved the stop): walk it all


#: indices past NumPy's stop that :func:`_epsilon_for_delta` walks with ``math.exp`` (a near-tie can move the stop)
_STOP_MARGIN = 16


def _walk(m: float, losses, probs, weighted, delta: float) -> tuple[int, float]:
    """The library's walk over ``(losses, probs)`` with ``weighted = p·e^{−ℓ}``: ``(k, ε)``, ``k`` the index where it
    stops (``losses.size`` if it runs to the end, where ``ε`` holds only for the whole PMF). Its stopping test
    ``ln(…) ≥ ℓ`` is decided by ``math.log``, as the library's, wherever NumPy's ``log`` lies within 4 ulp of ``ℓ``."""
    upper = np.cumsum(np.concatenate(([m], probs)))  # before index k: upper[k]; after: upper[k + 1]
    lower = np.cumsum(np.concatenate(([0.0], weighted)))
    with np.errstate(divide="ignore", invalid="ignore"):
        valid = (upper[:-1] > delta) & (lower[:-1] > 0)
        ratio = (upper[:-1] - delta) / lower[:-1]
        log_ratio = np.log(ratio)
    stop = valid & (log_ratio >= losses)
    for k in np.flatnonzero(valid & (np.abs(log_ratio - losses) <= 4 * np.spacing(np.abs(losses)))):
        stop[k] = math.log(float(ratio[k])) >= float(losses[k])
    early = (upper[1:] >= delta) & (lower[1:] == 0)  # checked after adding index k, so only before a stop at k + 1
    k_stop = int(np.argmax(stop)) if stop.any() else losses.size
    k_early = int(np.argmax(early)) if early.any() else losses.size
    if k_early < k_stop:
        return k_early, max(0.0, float(losses[k_early]))
    u, low = float(upper[k_stop]), float(lower[k_stop])
    if u <= low + delta:
        return k_stop, 0.0
    return k_stop, math.log((u - delta) / low)


def _read_epsilon(pld, delta: float) -> float:
    """ε of a PLD at δ: dp_accounting's reader (:func:`_epsilon_for_delta`, its loop on arrays), or
    :func:`_epsilon_in_log_space` where that overflowed to ``inf`` (its infinite-loss mass is below δ here, so a
    finite ε exists)."""
    read = [_epsilon_for_delta(p, delta) for p in _pmfs(pld)]
    if None in read:
        with np.errstate(over="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            eps = float(pld.get_epsilon_for_delta(delta))
    else:
        eps = max(read)
    if math.isfinite(eps):
        return eps
    return max(_epsilon_in_log_space(p, delta) for p in _pmfs(pld))


#: the private builders of dp_accounting (0.4–0.6) that :func:`_gaussian_pld` goes through
_PLD_BUILDERS = ("_create_pld_pmf_from_monotone_privacy_loss", "_pld_for_subsampled_mechanism")


@functools.cache
def _vectorised_gaussian_loss():
    """dp_accounting's ``GaussianPrivacyLoss`` with ``get_delta_for_epsilon`` over an array of ε in one pass.

    dp_accounting builds a PLD from the hockey-stick divergence at every grid point and inverts the subsampled
    privacy loss point by point in Python (two thirds of a PLD's cost, ~1.9 million calls in ``verify --quick``).
    The same formulas run here on the whole array: the ``c < 0`` branch of its ``log_a_times_exp_b_plus_c``
    (``a = 1/q``, ``c = 1 − 1/q``), its ``math.isclose`` test at the edge ``∓ln(1 − q)``, and the Gaussian's
    inverse ``x = −Δ/2 − ℓσ²/Δ`` (``+Δ`` for ADD); the PMFs are bit for bit dp_accounting's
    (``tests/test_pld_edges.py``). Other adjacencies and ``q = 1`` go to the library's own loop.
    """
    from dp_accounting.pld import privacy_loss_mechanism as plm  # noqa: PLC0415

    class VectorisedGaussianLoss(plm.GaussianPrivacyLoss):
        def get_delta_for_epsilon(self, epsilon):
            q, kind = self.sampling_prob, self.adjacency_type
            if q == 1.0 or kind not in (plm.AdjacencyType.ADD, plm.AdjacencyType.REMOVE) or np.ndim(epsilon) != 1:
                return super().get_delta_for_epsilon(epsilon)
            add = kind == plm.AdjacencyType.ADD
            eps = np.asarray(epsilon, dtype=float)
            deltas = np.zeros_like(eps)
            edge = -math.log1p(-q) if add else math.log1p(-q)
            inside = eps < edge if add else eps > edge
            if not add:  # below the edge the divergence is 1 − e^ε
                deltas[~inside] = -np.expm1(eps[~inside])
            e = eps[inside]
            b, a, c = (-e if add else e), 1.0 / q, 1.0 - 1.0 / q
            with np.errstate(divide="ignore", invalid="ignore"):
                shifted = b + np.log(a)
                log_sum = np.where(b == 0, np.log(a + c), shifted + np.log1p(-np.exp(np.log(-c) - shifted)))
            loss = -log_sum if add else log_sum  # the loss without subsampling
            at_edge = np.abs(e - edge) <= 1e-9 * np.maximum(np.abs(e), abs(edge))  # math.isclose's default test
            loss = np.where(at_edge, math.inf if add else -math.inf, loss)
            x = -0.5 * self.sensitivity - loss * self._standard_deviation**2 / self.sensitivity
            if add:
                x = self.sensitivity + x
            deltas[inside] = self.mu_upper_cdf(x) - np.exp(e + self.mu_lower_log_cdf(x))
            return np.clip(deltas, 0, 1)

    return VectorisedGaussianLoss


def _gaussian_pld(sigma: float, q: float, d: float, log_mass: float):
    """dp_accounting's ``from_gaussian_mechanism(sigma, sampling_prob=q, value_discretization_interval=d,
    log_mass_truncation_bound=log_mass)`` (pessimistic connect-the-dots, add/remove), built through
    :func:`_vectorised_gaussian_loss`: the same PLD, bit for bit, 4–8× faster."""
    from dp_accounting.pld import privacy_loss_distribution as pld_lib  # noqa: PLC0415

    if not all(hasattr(pld_lib, name) for name in _PLD_BUILDERS):  # a release without them: the library's own route
        return pld_lib.from_gaussian_mechanism(sigma, sampling_prob=q, value_discretization_interval=d,
                                               log_mass_truncation_bound=log_mass)
    loss = _vectorised_gaussian_loss()

    def single(adjacency):
        return pld_lib._create_pld_pmf_from_monotone_privacy_loss(
            loss(sigma, sensitivity=1.0, pessimistic_estimate=True, log_mass_truncation_bound=log_mass,
                 sampling_prob=q, adjacency_type=adjacency),
            pessimistic_estimate=True, value_discretization_interval=d, use_connect_dots=True)

    return pld_lib._pld_for_subsampled_mechanism(single, q)


def _pld_epsilon_at(sigma: float, q: float, T: int, delta: float, d: float, span: float | None = None,
                    rtol: float = PLD_RTOL) -> tuple[float, int]:
    """Pessimistic connect-the-dots ε of ``T`` Poisson-subsampled Gaussian steps at discretisation ``d``, and the
    points of its largest grid. Raises :class:`_GridTooLarge` before any grid above :data:`PLD_MAX_POINTS` is built,
    and ``ValueError`` naming ``delta`` where the FFT's round-off would move ε by more than ``rtol/2``."""
    from dp_accounting.pld import common  # noqa: PLC0415

    log_mass, tail = _pld_tails(delta, T)
    if span is None:
        span = _loss_span(sigma, q, log_mass)
    if span / d + 2 > PLD_MAX_POINTS:
        raise _GridTooLarge("one step", span / d + 2, d)
    pld = _gaussian_pld(sigma, q, d, log_mass)
    points = max(p.size for p in _pmfs(pld))
    if T == 1:
        return _read_epsilon(pld, delta), points
    if T * (points - 1) + 1 > PLD_MAX_POINTS:  # dp_accounting's own Chernoff truncation of the composition
        for p in _pmfs(pld):
            lo, hi = common.compute_self_convolve_bounds(p._probs, T, tail)
            if hi - lo + 1 > PLD_MAX_POINTS:
                raise _GridTooLarge("the composition", hi - lo + 1, d)
    pld = _densified(pld, T).self_compose(T, tail_mass_truncation=tail)
    composed = _pmfs(pld)
    points = max(p.size for p in composed)
    # true probabilities are >= 0, so the negative entries sample the FFT's round-off, which sits on every point:
    # r = n·max|negative| bounds the mass it can have moved, and ε is read at δ − r
    roundoff = max(p.size * max(0.0, -float(np.min(p._probs))) for p in composed)
    shifted = _read_epsilon(pld, delta - roundoff) if roundoff < delta else math.inf
    if roundoff <= 1e-9 * delta:  # moves ε by ~1e-9/(ε·|d ln δ/dε|): far below any rtol; skip the second read
        return shifted, points
    eps = _read_epsilon(pld, delta)
    if not shifted <= eps * (1.0 + 0.5 * rtol):
        raise ValueError(
            f"delta = {delta:g} is below what the PLD of T = {T} steps resolves (sigma = {sigma:g}, q = {q:g}): the "
            f"FFT of its {points} points carries round-off of up to {roundoff:.2g} of probability, which moves epsilon "
            f"by more than rtol/2 = {0.5 * rtol:g} ({eps:.6g} at delta, {shifted:.6g} at delta - {roundoff:.2g}); "
            f"a larger delta or a single step (T = 1, no FFT) is resolved")
    return shifted, points


def _densified(pld, T: int):
    """``pld`` with each sparse PMF that dp_accounting would turn dense for ``T`` compositions already dense.

    Its sparse ``self_compose`` decides by the exact integer ``size**T`` (above 1000 it converts and composes by
    FFT): at ``T = 10⁹`` that power alone has billions of bits and takes minutes. Deciding by ``T·ln(size)``
    gives the same route, hence the same result, at once."""
    from dp_accounting.pld import privacy_loss_distribution as pld_lib  # noqa: PLC0415

    def dense(pmf):
        sparse = hasattr(pmf, "_loss_probs") and pmf.size > 1
        return pmf.to_dense_pmf() if sparse and T * math.log(pmf.size) > math.log(_SPARSE_MAX_SIZE) else pmf

    if pld._symmetric:
        return pld_lib.PrivacyLossDistribution(dense(pld._pmf_remove))
    return pld_lib.PrivacyLossDistribution(dense(pld._pmf_remove), dense(pld._pmf_add))


def _grid_error(exc: _GridTooLarge, sigma: float, q: float, T: int, span: float, log_mass: float) -> ValueError:
    """The ``ValueError`` for a fixed discretisation whose grid is too large: the valid discretisations, and for one
    step also the valid σ."""
    d, cap = exc.discretization, PLD_MAX_POINTS
    if exc.stage == "one step":
        lo, hi = math.log(sigma), math.log(sigma) + 1.0
        while _loss_span(math.exp(hi), q, log_mass) / d + 2 > cap and hi < 700:
            lo, hi = hi, hi + 1.0
        for _ in range(40):  # the privacy-loss span decreases in σ
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if _loss_span(math.exp(mid), q, log_mass) / d + 2 > cap else (lo, mid)
        fix = f"use discretization >= {span / (cap - 2):.3g}, or sigma >= {math.exp(hi):.3g} at this discretization"
    else:
        fix = f"use discretization >= {d * exc.points / cap:.3g}"
    return ValueError(f"sigma = {sigma:g} (q = {q:g}, T = {T}) at discretization = {d:g} needs a PLD grid of "
                      f"{exc.points:.3g} points for {exc.stage}, above PLD_MAX_POINTS = {cap}: {fix}, or "
                      f"discretization=None, which chooses the grid from the ε it resolves")


def _pld_fixed(sigma: float, q: float, T: int, delta: float, d: float, rtol: float = PLD_RTOL) -> float:
    """:func:`_pld_epsilon_at` with a grid too large reported as a ``ValueError`` naming sigma and discretization."""
    log_mass = _pld_tails(delta, T)[0]
    span = _loss_span(sigma, q, log_mass)
    try:
        return _pld_epsilon_at(sigma, q, T, delta, d, span, rtol)[0]
    except _GridTooLarge as exc:
        raise _grid_error(exc, sigma, q, T, span, log_mass) from None


def _clt_scale(sigma: float, q: float, T: int, delta: float) -> float | None:
    """ε of the Poisson GDP CLT (a guess of the PLD's ε, to start its grid near), or ``None`` where it overflows."""
    try:
        mu = mu_clt(sigma, q=q, T=T, form="poisson")
        return gdp_epsilon(mu, delta=delta) if mu < 1e3 else None
    except (OverflowError, ValueError):
        return None


def _pld_converged(sigma: float, q: float, T: int, delta: float, rtol: float) -> tuple[float, float, float]:
    """``(ε, d, moved)``: the pessimistic PLD ε at a grid ``d`` halved until one halving moves ε by at most
    ``rtol`` relative and by no more than the halving before it (``moved`` is that last move; module docstring).
    Two coarse grids can agree by chance (σ = 0.8, T = 1, δ = 1e-100 moved 6e-4 from d = 0.25 to 0.125 while
    0.125 was still 1e-3 high); shrinking moves show the grid has reached its converging regime.

    The first grid is ``8·rtol·ε_CLT`` rounded down to a power of two (coarser if one step would hold more than
    2**16 points; at most :data:`_PLD_COARSEST`), so that successive grids are nested. Warns and returns the finest
    value reached if the next halving would exceed :data:`PLD_MAX_POINTS`; raises a ``ValueError`` naming sigma if
    even the coarsest grid does."""
    log_mass, _ = _pld_tails(delta, T)
    span = _loss_span(sigma, q, log_mass)
    scale = _clt_scale(sigma, q, T, delta) or span
    d = 2.0 ** min(max(math.floor(math.log2(8.0 * rtol * scale)), math.ceil(math.log2(span / 2**16))),
                   math.log2(_PLD_COARSEST))
    prev = moved = None
    for _ in range(200):
        try:
            eps, points = _pld_epsilon_at(sigma, q, T, delta, d, span, rtol)
        except _GridTooLarge as exc:
            if prev is None:  # the composition is wider than one step suggested: start coarser
                if d >= _PLD_COARSEST:
                    raise _grid_error(exc, sigma, q, T, span, log_mass) from None
                d = min(4.0 * d, _PLD_COARSEST)
                continue
            eps, d, points = prev[0], prev[1], math.inf
        else:
            if prev is not None:
                last, moved = moved, (0.0 if eps == prev[0] else abs(prev[0] - eps) / eps if 0.0 < eps < math.inf
                                      else math.inf)
                if moved <= rtol and last is not None and moved <= last:
                    return eps, d, moved
        if 2 * points > PLD_MAX_POINTS or 2.0 * span / d + 2 > PLD_MAX_POINTS:
            warnings.warn(f"PLD epsilon not converged to rtol = {rtol:g} (sigma = {sigma:g}, q = {q:g}, T = {T}, "
                          f"delta = {delta:g}): the last halving of the grid, to {d:g}, moved it by "
                          f"{moved if moved is not None else math.inf:.2g}, and the next one would exceed "
                          f"PLD_MAX_POINTS = {PLD_MAX_POINTS}; the value is still an upper bound", RuntimeWarning,
                          stacklevel=3)
            return eps, d, math.inf if moved is None else moved
        prev = (eps, d)
        d /= 2.0
    raise RuntimeError("unreachable: the PLD grid loop ends by convergence or by PLD_MAX_POINTS")


def _check_refinement_cost(T: int, rtol: float) -> None:
    """Refuse a PLD grid refinement whose cost is past its stated limits (:data:`PLD_MAX_T`, :data:`PLD_MIN_RTOL`)."""
    if T > PLD_MAX_T:
        raise ValueError(
            f"T = {T} rounds is above PLD_MAX_T = {PLD_MAX_T:.0e} for the PLD accountant's grid refinement (30 s at "
            f"T = 1e8; at 1e9 it stops unconverged after minutes): pass discretization= for one fixed grid (an upper "
            f"bound), or use accountant='rdp' (an upper bound, O(1) in T) or 'clt_poisson' (an estimate)")
    if rtol < PLD_MIN_RTOL:
        raise ValueError(
            f"rtol = {rtol:g} is below PLD_MIN_RTOL = {PLD_MIN_RTOL:g}, the smallest tolerance the PLD's grid "
            f"refinement reaches in its stated cost (12 s at 1e-7; each decade below needs ~3x finer grids): use "
            f"rtol >= {PLD_MIN_RTOL:g}, or discretization= for one fixed grid")


def exact_epsilon(sigma, *, q, T, delta, accountant: str = "pld", N=None, discretization=None, rtol=PLD_RTOL,
                  n_samples: int = 2**16, seed: int = 0, level: float = 0.99, backend=None) -> EpsilonResult:
    """ε of ``T`` rounds of DP-SGD with noise multiplier ``σ`` and sampling rate ``q``, at ``δ``.

    ``accountant`` is one of :data:`ACCOUNTANTS` (table in the module docstring); the result states the
    sampling model and neighbouring relation of its number.

    ``"pld"`` refines its grid until one halving moves ε by at most ``rtol`` (default :data:`PLD_RTOL`), and no more
    than the halving before it, and says where it stopped (``.discretization``, ``.tolerance``); it warns
    (``RuntimeWarning``) if :data:`PLD_MAX_POINTS` stops it first. ``discretization=d`` fixes the grid instead
    (``.tolerance`` is then ``None``; ``rtol`` then only bounds the round-off check).

    ``"rdp_wor"`` needs the data-set size ``N`` (an integer) with a whole batch ``s = qN`` (to 1e-9 relative):
    pass ``q = s/N`` for the batch you mean. ``"mc"`` takes ``n_samples``, ``seed``, ``level`` and ``backend`` and
    returns its confidence interval in ``.interval``. ``T`` must be whole except for ``"clt"``, whose formula
    takes ``T = kN/s`` as tf-privacy does.

    Parameters
    ----------
    sigma : float in (0, inf)
        The noise multiplier σ (noise std ``σ·C`` for clip norm ``C``).
    q : float in (0, 1]
        The sampling rate.
    T : int
        The number of rounds, ``T ≥ 1`` (a real ``T`` for ``"clt"``).
    delta : float in (0, 1)
        The δ at which ε is given.
    accountant : str, default "pld"
        One of :data:`ACCOUNTANTS`.
    N : int, optional
        ``"rdp_wor"`` only (and required there): the data-set size.
    discretization : float in (0, inf), optional
        ``"pld"`` only: a fixed privacy-loss grid spacing; ``None`` (default) chooses it from the ε it resolves.
    rtol : float in (0, 1), default PLD_RTOL
        ``"pld"`` only: the relative tolerance of the grid refinement (at least :data:`PLD_MIN_RTOL`) and the
        round-off check.
    n_samples : int, default 2**16
        ``"mc"`` only: the number of Monte-Carlo samples.
    seed : int, default 0
        ``"mc"`` only: the random seed.
    level : float, default 0.99
        ``"mc"`` only: the confidence level of the interval.
    backend : str or Backend, optional
        ``"mc"`` only: the array backend (:func:`dptheory.backend.get_backend`).

    Returns
    -------
    EpsilonResult
        ε with the accountant's sampling model, neighbouring relation and whether it is certified (and, for
        ``"pld"``, its grid and tolerance; for ``"mc"``, its interval).

    Raises
    ------
    ValueError
        For an unknown ``accountant`` or an argument out of range; for ``"pld"``, a grid above
        :data:`PLD_MAX_POINTS` points, or a δ the FFT's round-off would move ε at by more than ``rtol/2``, is
        refused naming the parameter to change (module docstring), and so is a grid refinement past its cost:
        ``T`` above :data:`PLD_MAX_T` or ``rtol`` below :data:`PLD_MIN_RTOL`; a ``sigma`` so large that the
        ``"clt"``/``"clt_poisson"`` formula cancels to 0 or ``"mc"`` cannot bracket ``delta``.
    """
    if accountant not in ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {ACCOUNTANTS}, got {accountant!r}")
    sigma = check_in_interval("sigma", sigma, 0.0)
    q = check_in_interval("q", q, 0.0, 1.0, hi_closed=True)
    T = (check_in_interval("T", T, 1.0, lo_closed=True) if accountant == "clt"
         else check_int("T", T, 1, why=f"a whole number of rounds for accountant={accountant!r}"))
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    if discretization is not None:
        discretization = check_in_interval("discretization", discretization, 0.0,
                                           why="the PLD's privacy-loss grid spacing; None chooses it")
    rtol = check_in_interval("rtol", rtol, 0.0, 1.0, why="the PLD grid's relative tolerance")
    sampling, neighbouring, certified = _MODELS[accountant]
    interval = grid = moved = None
    if accountant == "pld":
        if discretization is None:
            _check_refinement_cost(T, rtol)
            eps, grid, moved = _pld_converged(sigma, q, T, delta, rtol)
        else:
            eps, grid = _pld_fixed(sigma, q, T, delta, discretization, rtol), discretization
    elif accountant == "rdp":
        # what accountant_epsilon gives for T Poisson-sampled Gaussians composed into rdp_accountant(), bit for bit
        eps = _rdp_epsilon(rdp_poisson_gaussian(q, sigma, _rdp_orders()), T, delta)
    elif accountant in ("clt", "clt_poisson"):
        mu = mu_clt(sigma, q=q, T=T, form="uniform" if accountant == "clt" else "poisson")
        if not mu > 0.0:  # e^{σ⁻²} rounds to 1 (σ ≳ 1e8): μ cancels to 0 in double precision
            raise ValueError(f"sigma = {sigma:g} is beyond what the CLT formula resolves in double precision "
                             f"(mu = q sqrt(T (e^(1/sigma^2) - 1)) cancels to 0; eps is then ~0): use a smaller sigma, "
                             f"or accountant='rdp' or 'pld'")
        eps = gdp_epsilon(mu, delta=delta)
    elif accountant == "mc":
        try:
            res = mc_epsilon(sigma, q=q, T=T, delta=delta, n_samples=n_samples, seed=seed, level=level, backend=backend)
        except ValueError as exc:
            if "different signs" not in str(exc):  # scipy's root bracket: the sampled losses cannot reach delta
                raise
            raise ValueError(f"sigma = {sigma:g} is beyond what the Monte-Carlo accountant resolves at q = {q:g}, "
                             f"T = {T}, delta = {delta:g} (its sampled privacy losses do not bracket delta; eps is "
                             f"then ~0): use accountant='pld' or 'rdp'") from None
        eps, interval = res.eps, (res.lo, res.hi)
    else:
        if N is None:
            raise ValueError("accountant='rdp_wor' needs N, the data-set size (fixed batch s = qN)")
        N = check_int("N", N, 1, why="the data-set size of accountant='rdp_wor'")
        s = round(q * N)
        if abs(q * N - s) > 1e-9 * max(1.0, q * N):
            raise ValueError(f"accountant='rdp_wor' samples a fixed batch s = qN, which must be a whole number: got "
                             f"q = {q:g}, N = {N}, so s = {q * N:.6g}; pass q = s/N for the batch s you mean "
                             f"(e.g. q = {max(1, s)}/{N})")
        # Alg. 1's replace-one sensitivity is 2C; the library assumes replace_one_sensitivity()["rdp"]·σ_lib.
        sigma_lib = sigma * replace_one_sensitivity()["rdp"] / 2.0
        eps = wor_rdp_epsilon(N, s, sigma_lib, T, delta)
    return EpsilonResult(float(eps), accountant, sampling, neighbouring, certified, interval, grid, moved)


def exact_minimal_T(eps_target, *, sigma, k, delta, accountant: str = "pld", T_max: int = 10**7,
                    discretization=None, rtol=PLD_RTOL) -> int:
    """The fewest rounds ``T`` at which ``accountant`` certifies ``ε_target`` for ``k`` epochs (``q = k/T``).

    For fixed ``k`` the batch shrinks as ``T`` grows and ε decreases in ``T`` (errata 001 §3.10; tested), so the
    answer is bracketed by doubling and found by integer bisection over ``T ∈ [⌈k⌉, T_max]``. For ``"pld"`` the
    search runs on one fixed grid (coarse, ``rtol·ε_target`` rounded down to a power of two, while doubling; then
    the grid :func:`exact_epsilon` converges to at the bracket's upper end) and the answer is then checked, and
    stepped if needed, with :func:`exact_epsilon` itself: the result ``T`` satisfies
    ``exact_epsilon(T) ≤ ε_target < exact_epsilon(T − 1)`` with the same ``discretization``/``rtol``.

    Parameters
    ----------
    eps_target : float in (0, inf)
        The ε to certify.
    sigma : float in (0, inf)
        The noise multiplier σ.
    k : float in (0, inf)
        The number of epochs (``q = k/T``).
    delta : float in (0, 1)
        The δ at which ε is certified.
    accountant : str, default "pld"
        One of :data:`ACCOUNTANTS` (see :func:`exact_epsilon`).
    T_max : int, default 10**7
        The most rounds searched.
    discretization : float, optional
        ``"pld"`` only: a fixed grid spacing, as in :func:`exact_epsilon`.
    rtol : float, default PLD_RTOL
        ``"pld"`` only: the relative tolerance, as in :func:`exact_epsilon`.

    Returns
    -------
    int
        The fewest rounds ``T``.

    Raises
    ------
    ValueError
        If even ``T_max`` rounds do not reach ``ε_target``.
    """
    eps_target = check_in_interval("eps_target", eps_target, 0.0)
    k = check_in_interval("k", k, 0.0)
    T_max = check_int("T_max", T_max, 1)
    lo = max(1, math.ceil(k))
    first = lo
    final = lambda T: exact_epsilon(sigma, q=k / T, T=T, delta=delta, accountant=accountant,
                                    discretization=discretization, rtol=rtol).eps
    if final(lo) <= eps_target:
        return lo
    if accountant == "pld":
        grid = discretization or 2.0 ** math.floor(math.log2(rtol * eps_target))
        search = lambda T: _pld_fixed(sigma, k / T, T, delta, grid, rtol)
    else:
        search = final
    unreached = f"eps_target = {eps_target:g} is not reached by {accountant} within T_max = {T_max} rounds"
    hi = 2 * lo
    while search(hi) > eps_target:  # a tight bracket keeps the bisection short
        if hi >= T_max:
            raise ValueError(unreached)
        lo, hi = hi, min(2 * hi, T_max)
    if accountant == "pld" and discretization is None:
        grid = exact_epsilon(sigma, q=k / hi, T=hi, delta=delta, rtol=rtol).discretization
    while hi - lo > 1:  # integer bisection on the monotone map
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if search(mid) <= eps_target else (mid, hi)
    T = hi
    if accountant != "pld" or discretization is not None:
        return T
    while final(T) > eps_target:  # the search grid and exact_epsilon's converged grid may differ by a round or two
        if T >= T_max:
            raise ValueError(unreached)
        T += 1
    while T > first and final(T - 1) <= eps_target:
        T -= 1
    return T


def calibrate_sigma(eps, *, delta, q, T, rtol=PLD_RTOL) -> float:
    """The smallest σ at which the PLD accountant certifies ``(ε, δ)`` for ``T`` Poisson rounds of rate ``q``.

    Brent's method on σ (relative tolerance 1e-9) over the pessimistic PLD on the grid :func:`exact_epsilon`
    converges to (``rtol``) at the Poisson GDP-CLT guess ``μ = q√(T(e^{1/σ²} − 1))``, rechecked at the answer; the
    result satisfies ``exact_epsilon(σ, q=q, T=T, delta=δ).eps ≤ ε``. The baseline against which the closed form
    of eq. (6) is timed (``make bench``).

    Parameters
    ----------
    eps : float in (0, inf)
        The target ε.
    delta : float in (0, 1)
        The target δ.
    q : float in (0, 1]
        The Poisson sampling rate.
    T : int
        The number of rounds, ``T ≥ 1``.
    rtol : float in (0, 1), default PLD_RTOL
        The relative tolerance of the PLD grid (as in :func:`exact_epsilon`).

    Returns
    -------
    float
        The smallest σ.

    Raises
    ------
    ValueError
        A record joins some batch with probability ``1 − (1 − q)^T``; where that is at most δ every σ, even none,
        gives ``(0, δ)``, so there is no smallest σ and this raises a ``ValueError`` naming eps, delta, q and T at
        once (it used to spend minutes inside dp_accounting). So does a calibration whose bracket reaches a σ
        whose PLD grid exceeds :data:`PLD_MAX_POINTS`.
    """
    eps = check_in_interval("eps", eps, 0.0)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    q = check_in_interval("q", q, 0.0, 1.0, hi_closed=True)
    T = check_int("T", T, 1, why="a number of rounds")
    rtol = check_in_interval("rtol", rtol, 0.0, 1.0, why="the PLD grid's relative tolerance")
    setting = f"eps = {eps:g}, delta = {delta:g}, q = {q:g}, T = {T}"
    reach = 1.0 if q == 1.0 else -math.expm1(T * math.log1p(-q))
    if reach <= delta:
        raise ValueError(f"no smallest sigma for {setting}: a record joins some batch with probability "
                         f"1 - (1 - q)^T = {reach:.3g} <= delta, so every sigma (even no noise) is (0, delta)-DP; "
                         f"calibration needs delta < 1 - (1 - q)^T")
    mu = gdp_mu(eps, delta=delta)
    try:  # the Poisson GDP-CLT guess μ = q√(T(e^{1/σ²} − 1)), solved for σ
        guess = 1.0 / math.sqrt(math.log1p(mu**2 / (q * q * T)))
    except (OverflowError, ZeroDivisionError):
        guess = 1.0

    known: dict[tuple[float, float], float] = {}

    def excess(s: float, d: float) -> float:
        if (s, d) not in known:
            try:
                known[s, d] = _pld_epsilon_at(s, q, T, delta, d, rtol=rtol)[0]
            except _GridTooLarge as exc:
                raise ValueError(f"cannot calibrate sigma for {setting}: the bracket reaches sigma = {s:.3g}, whose "
                                 f"PLD grid at discretization {d:.3g} needs {exc.points:.3g} points for {exc.stage} "
                                 f"(PLD_MAX_POINTS = {PLD_MAX_POINTS}); a larger eps or delta needs less") from None
        return known[s, d] - eps

    at_guess = exact_epsilon(guess, q=q, T=T, delta=delta, rtol=rtol)
    d = at_guess.discretization
    known[guess, d] = at_guess.eps
    lo = hi = guess
    for _ in range(3):  # the grid converged at the answer can differ from the one at the guess
        for _ in range(200):  # ε decreases in σ: widen by factors of 2
            if excess(lo, d) > 0:
                break
            lo /= 2.0
        else:
            raise ValueError(f"cannot calibrate sigma for {setting}: epsilon stays <= eps down to sigma = {lo:.3g}")
        for _ in range(200):
            if excess(hi, d) <= 0:
                break
            hi *= 2.0
        else:
            raise ValueError(f"cannot calibrate sigma for {setting}: epsilon stays > eps up to sigma = {hi:.3g}")
        sigma = brentq(lambda s: excess(s, d), lo, hi, xtol=1e-300, rtol=1e-9)
        while excess(sigma, d) > 0:  # land on the private side
            sigma *= 1.0 + 1e-9
        found = exact_epsilon(sigma, q=q, T=T, delta=delta, rtol=rtol)
        if found.discretization == d:
            return float(sigma)
        d, lo, hi = found.discretization, sigma / 1.01, sigma * 1.01
    while exact_epsilon(sigma, q=q, T=T, delta=delta, rtol=rtol).eps > eps:  # grids kept alternating: step up
        sigma *= 1.0 + 1e-7
    return float(sigma)
