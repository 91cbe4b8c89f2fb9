"""Monte-Carlo δ(ε), ε(δ) of Poisson-subsampled Gaussian (add/remove) against exact accountants.

References: ``dp_accounting``'s PLD accountant (``ADD_OR_REMOVE_ONE``, its default) and, without subsampling
(``q = 1``), the closed form of the Gaussian mechanism with ``μ = √T/σ``. PLD is pessimistic and carries a
discretisation error: at the default interval 1e-4 it overstates δ at seed 001's Table 9 setting by 25%
(1.15e-4 against 9.13e-5 at 1e-6), so the checks use PLD at ``value_discretization_interval=1e-5``
(within 0.3% of 1e-6 at these settings) and require the Monte-Carlo CI to contain that value (the σ = 1
setting, at ε = 1 ≫ 1e-4, keeps 1e-4: see ``_pld``). The per-direction check reads dp_accounting's private
``_pld._pmf_remove`` / ``_pmf_add`` (0.6.0).

Every interval is the 99% CLT interval of each direction (the maximum's coverage is ≥ 98%); the seeds are
fixed, so the suite is deterministic.
"""

import functools
import math

import numpy as np
import pytest
from scipy.stats import norm

from dptheory.accounting import montecarlo, montecarlo_paths, montecarlo_tilts
from dptheory.accounting.montecarlo import DirectionDelta, MonteCarloWarning, mc_delta, mc_epsilon
from dptheory.backend import get_backend
from dptheory.proactive.tables import CALCULATOR_TABLES

dpa = pytest.importorskip("dp_accounting")
from dp_accounting.pld import pld_privacy_accountant  # noqa: E402

PLD_INTERVAL = 1e-5  # finer than dp_accounting's 1e-4 default: see the module docstring

TABLE9 = (CALCULATOR_TABLES[0].sigma, 26.07 / 10000, 1918, 0.0105)  # seed 001 Table 9 (DP-SGD-like): δ ≈ 9.1e-5
CIFAR = (6.572, 406.8 / 50000, 860, 0.107)  # DP-SGD-like: δ ≈ 2.0e-5
SMALL_NOISE = (1.0, 0.01, 1000, 1.0)  # σ = 1: skewed losses, δ ≈ 2.6e-3 (remove), 7.9e-4 (add)


@functools.lru_cache(maxsize=None)
def _pld(sigma, q, T):
    # σ = 1 is 7 s at 1e-5 and ε = 1 ≫ 1e-4: there the default interval agrees with 1e-5 to 1e-6 relative.
    interval = 1e-4 if (sigma, q, T) == SMALL_NOISE[:3] else PLD_INTERVAL
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=interval)
    acc.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), T))
    return acc


def pld_delta(sigma, q, T, eps):
    return _pld(sigma, q, T).get_delta(eps)


def gaussian_delta(mu, eps):
    """Exact δ(ε) of the Gaussian mechanism with sensitivity/σ = μ: Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)."""
    a = norm.logcdf(-eps / mu + mu / 2)
    b = eps + norm.logcdf(-eps / mu - mu / 2)
    return math.exp(a) * -math.expm1(b - a)


@functools.lru_cache(maxsize=None)
def _run(setting, n_samples):
    sigma, q, T, eps = setting
    return mc_delta(sigma, q=q, T=T, eps=eps, n_samples=n_samples, seed=1)


# ----------------------------------------------------------------------------------------------------
# δ(ε) against PLD and the closed form
# ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "setting, n_samples",
    [(TABLE9, 2**16), (CIFAR, 2**16), (SMALL_NOISE, 2**14)],
    ids=["table9", "cifar", "small_noise"],
)
def test_mc_delta_ci_contains_pld_delta(setting, n_samples):
    r = _run(setting, n_samples)
    ref = pld_delta(*setting)
    assert r.lo <= ref <= r.hi, (r, ref)
    assert r.estimate == max(r.remove.estimate, r.add.estimate)
    assert (r.lo, r.hi) == (max(r.remove.lo, r.add.lo), max(r.remove.hi, r.add.hi))


def test_each_direction_matches_its_own_pld_direction():
    """PLD keeps both directions (``_pmf_remove``, ``_pmf_add``); each Monte-Carlo direction must match its
    own, not just the maximum -- the add direction has a different proposal (exponential tilt by rejection)."""
    for setting in (CIFAR, SMALL_NOISE):
        r = _run(setting, 2**16 if setting is CIFAR else 2**14)
        pld = _pld(*setting[:3])._pld  # the PrivacyLossDistribution
        eps = setting[3]
        ref_r, ref_a = pld._pmf_remove.get_delta_for_epsilon(eps), pld._pmf_add.get_delta_for_epsilon(eps)
        assert r.remove.lo <= ref_r <= r.remove.hi, (r.remove, ref_r)
        assert r.add.lo <= ref_a <= r.add.hi, (r.add, ref_a)
        assert ref_a < 0.9 * ref_r  # the directions differ, so matching each is a real check


@pytest.mark.parametrize("sigma, T, eps", [(2.0, 4, 1.0), (2.0, 4, 4.0), (4.0, 25, 3.0)])
def test_no_subsampling_matches_the_gaussian_closed_form(sigma, T, eps):
    """q = 1: T rounds are one Gaussian mechanism with μ = √T/σ (δ from 0.13 down to 5e-5)."""
    r = mc_delta(sigma, q=1.0, T=T, eps=eps, n_samples=2**14, seed=2)
    exact = gaussian_delta(math.sqrt(T) / sigma, eps)
    assert r.lo <= exact <= r.hi, (r, exact)
    for d in (r.remove, r.add):  # both directions have the same law of L at q = 1
        assert d.lo <= exact <= d.hi, (d, exact)


def test_mc_epsilon_ci_contains_pld_epsilon():
    sigma, q, T, _ = CIFAR
    r = mc_epsilon(sigma, q=q, T=T, delta=1e-5, n_samples=2**15, seed=3)
    ref = _pld(sigma, q, T).get_epsilon(1e-5)
    assert r.lo <= ref <= r.hi, (r, ref)
    assert r.lo <= r.eps <= r.hi
    assert (r.hi - r.lo) / r.eps < 0.02
    # inverting on the same samples: δ̂ at the returned ε is δ (same seed, same proposal)
    back = mc_delta(sigma, q=q, T=T, eps=r.eps, n_samples=2**15, seed=3, proposal=r.proposal)
    assert back.lo <= 1e-5 <= back.hi


# ----------------------------------------------------------------------------------------------------
# the estimator
# ----------------------------------------------------------------------------------------------------


def test_importance_sampling_agrees_with_plain_monte_carlo_at_a_large_delta():
    """δ ≈ 0.07 (remove) / 0.05 (add): plain Monte Carlo (θ = 0 in both directions) is accurate there, so the
    tilted estimator's interval must overlap the plain one in each direction (independent seeds)."""
    setting = dict(sigma=2.0, q=0.5, T=10, eps=1.0)
    plain = mc_delta(**setting, n_samples=2**15, seed=4, proposal="plain")
    tilted = mc_delta(**setting, n_samples=2**15, seed=5)
    assert plain.proposal == (0, 0.0)
    assert tilted.proposal[0] > 0 and tilted.proposal[1] > 0.0  # really a different estimator
    for p, t in ((plain.remove, tilted.remove), (plain.add, tilted.add)):
        assert max(p.lo, t.lo) <= min(p.hi, t.hi), (p, t)
        assert 0.04 < t.estimate < 0.08


def test_relative_half_width_at_small_delta_with_the_default_sample_size():
    """The point of the importance sampling: at δ ≈ 1e-4 and 2e-5 the 99% CI is a few percent wide
    (measured: ≈ 1% for both), where plain Monte Carlo's would be ±50% or worse (ess ≈ 10)."""
    for setting in (TABLE9, CIFAR):
        r = _run(setting, 2**16)
        assert 1e-5 < r.estimate < 2e-4
        assert r.half_width < 0.2, r
        assert min(r.remove.ess, r.add.ess) > 1000, r


def test_plain_monte_carlo_is_much_worse_at_small_delta():
    """Same sample size and seed, δ ≈ 8e-5 (T = 200): the tilted interval is at least 5 times narrower than
    plain Monte Carlo's (measured: 11.6 times)."""
    sigma, q, _, _ = CIFAR
    with pytest.warns(MonteCarloWarning, match="effective sample size"):  # and says so (ESS ≈ 50 < 100)
        plain = mc_delta(sigma, q=q, T=200, eps=0.04, n_samples=2**13, seed=6, proposal="plain", unreliable="warn")
    tilted = mc_delta(sigma, q=q, T=200, eps=0.04, n_samples=2**13, seed=6)
    assert tilted.reliable and not plain.reliable
    assert plain.estimate > 0.0 and 2e-5 < tilted.estimate < 2e-4
    assert (tilted.hi - tilted.lo) * 5 < plain.hi - plain.lo, (plain, tilted)


def test_same_seed_same_numbers_and_a_different_seed_different_numbers():
    args = dict(sigma=3.0, q=0.05, T=30, eps=0.5)
    a = mc_delta(**args, n_samples=2**10, seed=7)
    b = mc_delta(**args, n_samples=2**10, seed=7)
    c = mc_delta(**args, n_samples=2**10, seed=8)
    assert a == b
    assert a.remove.estimate != c.remove.estimate and a.add.estimate != c.add.estimate
    same = dict(q=0.05, T=30, delta=1e-3, n_samples=2**10, seed=7)
    assert mc_epsilon(3.0, **same) == mc_epsilon(3.0, **same)


@pytest.mark.filterwarnings("ignore::dptheory.accounting.montecarlo.MonteCarloWarning")  # ESS ≈ 1: not the point
def test_chunks_cover_every_round():
    """Untilted "add" (no rejection): the normals are drawn step-major, so any chunk size consumes the same
    stream and the sums agree to rounding; a lost or repeated round would change them."""
    args = dict(sigma=3.0, q=0.05, T=37, eps=0.3, n_samples=2**10, seed=9, proposal=(2, 0.0), unreliable="warn")
    ref = mc_delta(**args, chunk=37)
    for chunk in (1, 5, 36, 100):
        r = mc_delta(**args, chunk=chunk)
        for x, y in ((r.remove, ref.remove), (r.add, ref.add)):
            assert math.isclose(x.estimate, y.estimate, rel_tol=1e-11), (chunk, x, y)


@pytest.mark.parametrize("sigma, q, theta", [(0.8, 0.02, 3), (1.0, 0.01, 6), (6.572, 406.8 / 50000, 86),
                                             (19.29962, 26.07 / 10000, 374), (2.0, 1.0, 4)])
def test_remove_tilt_normaliser_is_the_renyi_divergence_of_the_sampled_gaussian(sigma, q, theta):
    """``κ(θ) = log E_Q (P/Q)^{1+θ}`` in closed form (binomial expansion at integer θ) against two oracles:
    dp_accounting's RDP of the Poisson-subsampled Gaussian at order ``α = 1 + θ`` (``κ = θ·RDP_α``) and
    adaptive quadrature of ``E_Q (P/Q)^{1+θ}``."""
    from dp_accounting.rdp.rdp_privacy_accountant import _compute_rdp_poisson_subsampled_gaussian
    from scipy import integrate

    assert q == 1.0 or montecarlo_tilts._remove_terms(sigma, q, theta).size == theta + 2  # no far components dropped
    kappa = montecarlo_tilts._remove_kappa(sigma, q, theta)
    rdp = float(_compute_rdp_poisson_subsampled_gaussian(q, sigma, [1.0 + theta])[0])
    assert kappa == pytest.approx(theta * rdp, rel=1e-9)

    def integrand(n, shift):  # φ(n)(1 − q + q e^z)^{1+θ}, x = σn, z = (2x − 1)/(2σ²), scaled by e^{−shift}
        z = (2.0 * sigma * n - 1.0) / (2.0 * sigma**2)
        return math.exp(-0.5 * n * n + (1.0 + theta) * montecarlo_tilts._loss(q, z) - shift) / math.sqrt(2.0 * math.pi)

    mode = (1.0 + theta) / sigma if q == 1.0 else 0.0  # the heaviest component sits near x = 1 + θ at q = 1
    shift = -0.5 * mode**2 + (1.0 + theta) * montecarlo_tilts._loss(q, (2.0 * sigma * mode - 1.0) / (2.0 * sigma**2))
    pts = [0.0, (1.0 + theta) / sigma]
    quad = integrate.quad(integrand, -40.0, pts[1] + 40.0, args=(shift,), points=pts, limit=500, epsrel=1e-12)[0]
    assert kappa == pytest.approx(math.log(quad) + shift, rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("sigma, q, T, proposal", [(1.0, 0.1, 20, (2, 3.0)), (3.0, 0.05, 37, (10, 10.0)),
                                                   (2.0, 1.0, 4, (3, 2.0)), (19.29962, 26.07 / 10000, 2, (6000, 0.0)),
                                                   (10.0, 0.01, 1, (1500, 0.0))],
                         ids=["sigma1", "sigma3", "q1", "table9_far_dropped", "sigma10_far_dropped"])
def test_weights_average_to_one_under_each_proposal(sigma, q, T, proposal):
    """``E_θ W = 1`` for the likelihood ratio ``W = dP/dP_θ``: a sampler that did not draw ``P_θ`` (a wrong mixture
    weight, a lost level of the component counts, a wrong rejection envelope) or a wrong ``κ`` would move the mean
    of the weights off 1. The last two drop the far components of the "remove" mixture (1942 of 6002 and 337 of
    1502 kept), whose weight neglects a factor below 1 + 1e-17 per round. Tolerance: 5 standard errors (2¹⁵
    paths; measured within 1.5)."""
    bk = get_backend("numpy")
    n = 2**15
    for paths in montecarlo_paths._sample(sigma, q, T, proposal, n, bk.rng(12), bk, montecarlo._default_chunk(n, T)):
        W = np.exp(paths.logW)
        assert abs(W.mean() - 1.0) <= 5.0 * W.std() / math.sqrt(n) + 1e-12, (paths.theta, W.mean(), W.std())


def test_far_components_dropped_where_the_order_needs_them_gone():
    """Table 9's σ and q with T = 50 at ε = 0.0105 (δ_remove ≈ 2e-30): the best order with every component stops
    at θ = 4428, where the far mode (k near 1 + θ) sets in and the main mode's mean of L is 0.0047 < ε, and its
    effective sample size was 1 of 2¹⁴. With the far components dropped the order reaches θ ≈ 1e4, the run is reliable
    and two different orders (independent seeds) agree."""
    sigma, q, T, eps = CALCULATOR_TABLES[0].sigma, 26.07 / 10000, 50, 0.0105
    r = mc_delta(sigma, q=q, T=T, eps=eps, n_samples=2**12, seed=13)
    theta = r.proposal[0]
    assert theta > 8000 and montecarlo_tilts._remove_terms(sigma, q, theta).size < theta // 2
    assert r.reliable and r.remove.bound < 20 * r.remove.estimate
    other = mc_delta(sigma, q=q, T=T, eps=eps, n_samples=2**12, seed=14, proposal=(9000, r.proposal[1]))
    assert max(r.remove.lo, other.remove.lo) <= min(r.remove.hi, other.remove.hi), (r.remove, other.remove)
    assert 1e-30 < r.remove.estimate < 4e-30


def test_small_sigma_uses_the_stable_loss_and_matches_the_noiseless_limit():
    """σ = 0.06: e^z overflows, so the kernel takes the overflow-free forms of the loss. The reference is
    exact to ~1e-6 here (PLD needs minutes at this σ): an included round has ``z ≥ 139 − |n|/σ``, so unless
    ``|n| > 5`` (probability 6e-7) its loss exceeds 50 and any path with an inclusion has ``(1 − e^{ε−L}) = 1``,
    while an excluded round has ``ℓ = log(1 − q)`` to within ``e^{−50}``. Hence ``δ_remove = 1 − (1 − q)^T``
    and ``δ_add = 1 − e^ε (1 − q)^T`` (``L = −T log(1 − q) > ε``)."""
    sigma, q, T, eps = 0.06, 0.3, 2, 0.5
    r = mc_delta(sigma, q=q, T=T, eps=eps, n_samples=2**14, seed=10)
    remove, add = 1.0 - (1.0 - q) ** T, 1.0 - math.exp(eps) * (1.0 - q) ** T
    assert r.remove.lo <= remove <= r.remove.hi, (r.remove, remove)
    assert abs(r.add.estimate - add) < 1e-9, (r.add, add)  # no randomness left in L to this precision
    assert r.lo <= max(remove, add) <= r.hi


def test_result_objects_read_well():
    r = _run(SMALL_NOISE, 2**14)
    assert isinstance(r.remove, DirectionDelta) and r.remove.direction == "remove"
    text = repr(r)
    assert "99% CI" in text and "theta_remove=" in text and "theta_add=" in text and "ess=" in text
    assert float(r) == r.estimate


def test_cupy_backend_agrees_with_numpy():
    pytest.importorskip("cupy")
    args = dict(sigma=6.572, q=406.8 / 50000, T=200, eps=0.05)
    a = mc_delta(**args, n_samples=2**14, seed=11, backend="numpy")
    b = mc_delta(**args, n_samples=2**14, seed=11, backend="cupy")
    assert max(a.lo, b.lo) <= min(a.hi, b.hi), (a, b)


# ----------------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------------

GOOD = dict(sigma=1.0, q=0.1, T=10)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(sigma=0.0), r"sigma must lie in \(0, inf\)"),
        (dict(sigma=-1.0), "sigma"),
        (dict(sigma=float("nan")), "sigma"),
        (dict(q=0.0), r"q must lie in \(0, 1\]"),
        (dict(q=1.5), r"q must lie in \(0, 1\]"),
        (dict(T=0), r"T must lie in \[1, inf\)"),
        (dict(T=2.5), "T must be an integer"),
        (dict(eps=-0.1), r"eps must lie in \[0, inf\)"),
        (dict(n_samples=1), r"n_samples must lie in \[2, inf\)"),
        (dict(n_samples=100.5), "n_samples must be an integer"),
        (dict(level=1.0), r"level must lie in \(0, 1\)"),
        (dict(chunk=0), "chunk"),
        (dict(proposal=(1.5,)), "proposal"),
        (dict(proposal=(-1, 1.0)), r"proposal\[0\] \(theta_remove\) must lie in \[0, 1e\+06\]"),
        (dict(proposal=(0.5, 1.0)), r"proposal\[0\] \(theta_remove\) must be an integer"),
        (dict(proposal=(1, -1.0)), r"proposal\[1\] \(theta_add\) must lie in \[0, inf\)"),
        (dict(proposal="tilted"), "proposal"),
    ],
)
def test_mc_delta_rejects_bad_input_naming_the_parameter(kwargs, match):
    args = {**GOOD, "eps": 1.0, "n_samples": 16, **kwargs}
    with pytest.raises(ValueError, match=match):
        mc_delta(**args)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(delta=0.0), r"delta must lie in \(0, 1\)"),
        (dict(delta=1.0), r"delta must lie in \(0, 1\)"),
        (dict(delta=-1e-5), "delta"),
        (dict(sigma=0.0), "sigma"),
        (dict(q=0.0), "q must lie"),
        (dict(T=0.5), "T must lie"),
        (dict(n_samples=1), "n_samples"),
    ],
)
def test_mc_epsilon_rejects_bad_input_naming_the_parameter(kwargs, match):
    args = {**GOOD, "delta": 1e-5, "n_samples": 16, **kwargs}
    with pytest.raises(ValueError, match=match):
        mc_epsilon(**args)

