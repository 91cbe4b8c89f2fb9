"""The cyclic-Poisson accountant and the sampling schemes (``dptheory.accounting.cyclic_poisson``, ``.sampling``).

Routes against which the accountant is checked:

* jax_privacy 2.0's ``DpsgdTrainingAccountant(cycle_length=…)`` (``tests/peer_values/``, a PLD at a grid of 5e-5,
  converged to 2e-5 relative there): 22 cases, cycle 1, 4, 16, 100, δ = 1e-5 and 1e-6, to 1e-3 relative — our PLD
  grid is refined until one halving moves ε by at most ``PLD_RTOL`` = 1e-3;
* the reduction by hand: ``exact_epsilon`` at ``q = B/⌊N/c⌋``, ``T = ⌈n/c⌉`` (bit for bit);
* a second accountant: the Monte-Carlo estimate of the reduced DP-SGD, whose 99 % interval must hold the PLD's ε;
* the unamplified schemes' Gaussian curve against ``scipy.stats.norm``'s δ(ε) of the Gaussian mechanism.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy import stats

import dptheory as dpt
from dptheory import accounting as A
from dptheory.mechanisms import banded_sqrt_toeplitz

PEER = json.loads((Path(__file__).parent / "peer_values" / "jax_privacy_cyclic_poisson.json").read_text())
CASES = PEER["cases"]


def _kw(case: dict) -> dict:
    return dict(dataset_size=case["dataset_size"], batch_size=case["batch_size"], steps=case["steps"],
                cycle_length=case["cycle_length"], delta=case["delta"])


def test_the_peer_file_covers_the_cycles_and_deltas_the_issue_names():
    assert {c["cycle_length"] for c in CASES} >= {1, 4, 16, 100}
    assert {c["delta"] for c in CASES} == {1e-5, 1e-6}
    assert any(c["dataset_size"] % c["cycle_length"] for c in CASES)  # the floor of N/c is exercised


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"nm{c['noise_multiplier']}-N{c['dataset_size']}-c{c['cycle_length']}-d{c['delta']:g}")
def test_epsilon_agrees_with_jax_privacy_to_1e_3(case):
    res = A.cyclic_poisson_epsilon(case["noise_multiplier"], **_kw(case))
    assert res.eps == pytest.approx(case["epsilon"], rel=1e-3)
    assert res.certified and res.neighbouring is A.Neighbouring.ADD_REMOVE
    assert res.sampling is (A.Sampling.POISSON if case["cycle_length"] == 1 else A.Sampling.CYCLIC_POISSON)


def test_the_floor_of_n_over_c_matters_where_it_should():
    # N = 1999, c = 100: 19 records a partition, not 19.99; without the floor ε is 5 % lower (peer file)
    case = next(c for c in CASES if c["dataset_size"] == 1999 and c["delta"] == 1e-5)
    assert A.cyclic_poisson_rounds(**{k: v for k, v in _kw(case).items() if k != "delta"}) == (10 / 19, 10)
    floored = A.cyclic_poisson_epsilon(case["noise_multiplier"], **_kw(case)).eps
    unfloored = A.exact_epsilon(case["noise_multiplier"], q=10 * 100 / 1999, T=10, delta=1e-5).eps
    assert floored == pytest.approx(case["epsilon"], rel=1e-3) and unfloored < 0.97 * floored


@pytest.mark.parametrize("cycle", [1, 3, 16])
def test_the_accountant_is_the_reduction_by_hand(cycle):
    N, B, n, sigma = 20_011, 50, 777, 1.3
    got = A.cyclic_poisson_epsilon(sigma, dataset_size=N, batch_size=B, steps=n, cycle_length=cycle, delta=1e-6)
    by_hand = A.exact_epsilon(sigma, q=B / (N // cycle), T=math.ceil(n / cycle), delta=1e-6, accountant="pld")
    assert got.eps == by_hand.eps and got.discretization == by_hand.discretization


def test_cycle_one_is_dpsgd_with_poisson_sampling():
    got = A.cyclic_poisson_epsilon(1.1, dataset_size=10_000, batch_size=100, steps=500, delta=1e-5)
    assert got == A.exact_epsilon(1.1, q=0.01, T=500, delta=1e-5, accountant="pld")


def test_a_second_accountant_holds_the_pld_value():
    # Monte Carlo over the reduced DP-SGD's privacy losses: an estimate with a 99 % interval
    N, B, n, c, sigma = 50_000, 500, 400, 4, 2.0
    pld = A.cyclic_poisson_epsilon(sigma, dataset_size=N, batch_size=B, steps=n, cycle_length=c, delta=1e-5).eps
    mc = A.exact_epsilon(sigma, q=B / (N // c), T=n // c, delta=1e-5, accountant="mc", n_samples=2**16, seed=3)
    lo, hi = mc.interval
    assert lo * (1 - 2e-3) <= pld <= hi * (1 + 2e-3), (lo, pld, hi)


@pytest.mark.parametrize("target, cycle", [(1.0, 1), (4.0, 4), (8.0, 16)])
def test_sigma_is_the_smallest_noise_multiplier_meeting_the_target(target, cycle):
    kw = dict(dataset_size=60_000, batch_size=256, steps=2344, cycle_length=cycle, delta=1e-5)
    sigma = A.cyclic_poisson_sigma(target, **kw)
    assert A.cyclic_poisson_epsilon(sigma, **kw).eps <= target
    assert A.cyclic_poisson_epsilon(sigma * (1 - 1e-4), **kw).eps > target * (1 - 2e-3)


@pytest.mark.parametrize("kwargs, name", [
    (dict(dataset_size=1000, batch_size=100, steps=10, cycle_length=16), "batch_size \\* cycle_length"),
    (dict(dataset_size=1000, batch_size=10, steps=10, cycle_length=2, bands=4), "cycle_length must be at least"),
    (dict(dataset_size=1000.5, batch_size=10, steps=10), "dataset_size"),
    (dict(dataset_size=1000, batch_size=0, steps=10), "batch_size"),
    (dict(dataset_size=1000, batch_size=10, steps=2.5), "steps"),
    (dict(dataset_size=1000, batch_size=10, steps=10, cycle_length=True), "cycle_length"),
    (dict(dataset_size=1000, batch_size=10, steps=10, cycle_length="4"), "cycle_length"),
])
def test_bad_settings_are_refused_naming_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        A.cyclic_poisson_epsilon(1.0, delta=1e-5, **kwargs)
    with pytest.raises(ValueError, match=name):
        A.cyclic_poisson_sigma(1.0, delta=1e-5, **kwargs)


@pytest.mark.parametrize("delta", [0.0, 1.0, -1e-5, float("nan")])
def test_delta_outside_the_open_unit_interval_is_refused(delta):
    with pytest.raises(ValueError, match="delta"):
        A.cyclic_poisson_epsilon(1.0, dataset_size=1000, batch_size=10, steps=10, delta=delta)
    with pytest.raises(ValueError, match="delta"):
        A.cyclic_poisson_sigma(1.0, dataset_size=1000, batch_size=10, steps=10, delta=delta)


@pytest.mark.parametrize("sigma", [0.0, -1.0, float("inf"), "1"])
def test_bad_noise_multiplier_is_refused(sigma):
    with pytest.raises(ValueError, match="noise_multiplier"):
        A.cyclic_poisson_epsilon(sigma, dataset_size=1000, batch_size=10, steps=10, delta=1e-5)


# -- the schemes ---------------------------------------------------------------------------------------------------

def test_which_mechanisms_each_scheme_applies_to():
    n = 256
    dpsgd, bsr, nu = dpt.dpsgd(), banded_sqrt_toeplitz(8), dpt.nu_ftrl(0.05)
    poisson = A.PoissonSampling(dataset_size=10_000, batch_size=100)
    cyclic = A.CyclicPoisson(dataset_size=10_000, batch_size=100, cycle_length=8)
    fixed = A.FixedOrder(dataset_size=10_000, batch_size=100)
    assert poisson.supports(dpsgd, steps=n) == "" and "bands" in poisson.supports(bsr, steps=n)
    assert cyclic.supports(bsr, steps=n) == "" and cyclic.supports(dpsgd, steps=n) == ""
    assert "256" in cyclic.supports(nu, steps=n)
    assert all(fixed.supports(m, steps=n) == "" for m in (dpsgd, bsr, nu))
    assert poisson.amplified and cyclic.amplified and not fixed.amplified
    assert {s.neighbouring for s in (poisson, cyclic, fixed)} == {A.Neighbouring.ADD_REMOVE}


def test_strategy_bands_agree_with_the_dense_strategy():
    from dptheory.mechanisms import DenseMechanism

    for mech in (dpt.dpsgd(), banded_sqrt_toeplitz(5), dpt.nu_ftrl(0.05), dpt.BLT([0.9, 0.5], [0.2, 0.1])):
        for n in (1, 4, 9):
            assert mech.strategy_bands(n) == DenseMechanism(mech.strategy_matrix(n)).strategy_bands(n), (mech, n)
    assert dpt.TreeAggregation("honaker").strategy_bands(8) == 8  # not square: not banded


def test_the_amplified_sensitivity_is_the_largest_column_norm():
    import numpy as np

    bsr = banded_sqrt_toeplitz(6)
    cyclic = A.CyclicPoisson(dataset_size=10_000, batch_size=100, cycle_length=6)
    C = bsr.strategy_matrix(40)
    assert cyclic.sensitivity(bsr, steps=40) == pytest.approx(float(np.max(np.linalg.norm(C, axis=0))), rel=1e-12)


def test_fixed_order_is_min_separation_by_the_epoch_length():
    fixed = A.FixedOrder(dataset_size=1000, batch_size=30)  # 33 batches an epoch
    assert fixed.participation(100) == dpt.Participation(max_participations=4, min_sep=33)
    assert fixed.sensitivity(dpt.dpsgd(), steps=100) == pytest.approx(2.0)  # √k for DP-SGD
    with pytest.raises(ValueError, match="batch_size"):
        A.FixedOrder(dataset_size=10, batch_size=11)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
def test_the_unamplified_curve_is_the_gaussian_mechanisms(sigma):
    # δ(ε) of the Gaussian mechanism with sensitivity 1 and std σ (Balle & Wang 2018, Thm 8) by scipy.stats
    scheme = A.MinSeparated(max_participations=3, min_sep=10)
    eps = scheme.epsilon(sigma, steps=100, delta=1e-5).eps
    mu = 1.0 / sigma
    delta = stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)
    assert delta == pytest.approx(1e-5, rel=1e-6)
    assert scheme.noise_multiplier(eps, steps=100, delta=1e-5) == pytest.approx(sigma, rel=1e-9)


def test_poisson_sampling_has_one_cycle():
    with pytest.raises(ValueError, match="cycle_length"):
        A.PoissonSampling(dataset_size=100, batch_size=10, cycle_length=2)
    assert str(A.PoissonSampling(dataset_size=100, batch_size=10)).startswith("Poisson sampling")
