"""Accountants that say where they stop (issue 16, part 4): the PLD accountant's grid, tails and round-off, the
refusals that replace an ``inf``, a 760 GiB allocation or minutes inside dp_accounting, and the model each
accountant's result names.

Independent routes: one Gaussian mechanism, and ``T`` full-batch rounds of one (a Gaussian with ``μ = √T/σ``), have
the exact ε of Dong–Roth–Su Cor. 2.13 (:func:`gdp_epsilon`); dp_accounting's own PLD accountant and reader at a
fixed grid; a much finer or non-nested fixed grid; the RDP accountant (a looser upper bound); dp_accounting's
optimistic PLD (a lower bound). The pessimistic PLD is an upper bound, so the checks are one-sided where they can be.
"""

import math
import time
import warnings

import numpy as np
import pytest

from dptheory.accounting import (
    ACCOUNTANTS, Neighbouring, Sampling, calibrate_sigma, exact_epsilon, exact_minimal_T, gdp_epsilon,
)
from dptheory.accounting import dpsgd
from dptheory.accounting.dpsgd import PLD_RTOL

T9 = dict(q=26.067 / 1e4, T=1918, delta=1e-4)  # Table 9 (seed 001 App. D.4) at sigma = 19.29962
SIGMA9 = 19.29962
WIDE = dict(q=5 / 6423, T=6423, delta=1e-4)  # issue 16: T_min of eq. (6) at N = 1e4, eps = 0.01, k = 5
SIGMA_WIDE = 42.943


def _raw_pld(sigma, q, T, d, *, pessimistic=True, tail=1e-15):
    """dp_accounting's PLD built directly (no checks of ours): the library's own answer to compare against."""
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    pld = pld_lib.from_gaussian_mechanism(sigma, sampling_prob=q, value_discretization_interval=d,
                                          pessimistic_estimate=pessimistic, use_connect_dots=pessimistic)
    return pld if T == 1 else pld.self_compose(T, tail_mass_truncation=tail)


# -- tiny delta: one Gaussian and full-batch compositions have an exact epsilon ------------------------------------

@pytest.mark.parametrize("sigma, delta", [(10.0, 1e-15), (2.0, 1e-30), (0.8, 1e-100), (0.8, 1e-5)])
def test_one_gaussian_is_an_upper_bound_within_rtol_of_its_exact_epsilon_down_to_tiny_delta(sigma, delta):
    # (10, 1e-15) is issue 16's case: dp_accounting's accountant moved 1.5e-15 of truncated mass to an infinite loss
    # and answered inf, where the exact epsilon is 0.7433. Tolerance: rtol, the relative move the grid stops at;
    # the error is measured below it (1e-6 to 1e-4 here) because it shrinks quadratically in the grid.
    exact = gdp_epsilon(1.0 / sigma, delta=delta)
    r = exact_epsilon(sigma, q=1.0, T=1, delta=delta)
    assert exact <= r.eps <= exact * (1.0 + PLD_RTOL)
    assert r.tolerance <= PLD_RTOL and r.discretization > 0.0


def test_issue_16s_single_gaussian_at_delta_1e_15_is_finite_and_0_7433():
    r = exact_epsilon(10, q=1.0, T=1, delta=1e-15)
    assert r.eps == pytest.approx(0.7433, abs=5e-5)  # exact 0.743298 (gdp_epsilon(0.1, delta=1e-15))


@pytest.mark.parametrize("sigma, T, delta", [(3.0, 10, 1e-10), (5.0, 1000, 1e-8), (1.0, 1000, 1e-11)])
def test_full_batch_compositions_are_upper_bounds_within_rtol_of_the_exact_gaussian(sigma, T, delta):
    # T full-batch rounds = one Gaussian with mu = sqrt(T)/sigma, exactly. (1, 1000, 1e-11) has eps = 711.16, where
    # dp_accounting's reader divides by sum p e^-loss, underflows and answers inf; it is read again in log space.
    exact = gdp_epsilon(math.sqrt(T) / sigma, delta=delta)
    r = exact_epsilon(sigma, q=1.0, T=T, delta=delta)
    assert exact <= r.eps <= exact * (1.0 + PLD_RTOL)


def test_the_log_space_reader_agrees_with_dp_accountings_where_that_is_finite_and_stays_finite_where_it_is_not():
    # one step (no FFT, no negative entries): the two readers agree to rounding (2e-16 seen). After an FFT ours
    # clips the round-off's negative entries at 0, a pessimistic change: 2e-11 higher at delta = 1e-6 for
    # sigma = 1, T = 10, more as delta nears the round-off (why exact_epsilon reads at delta - r and refuses below).
    # Near eps = 690 dp_accounting's sum of p e^-loss runs into subnormal numbers; at 711 it overflows to inf.
    pmf = _raw_pld(1.0, 1.0, 1, 1 / 32)._pmf_remove
    for delta in (1e-3, 1e-6, 1e-9, 1e-12):
        assert dpsgd._epsilon_in_log_space(pmf, delta) == pytest.approx(pmf.get_epsilon_for_delta(delta), rel=1e-12)
    pmf = _raw_pld(1.0, 1.0, 10, 1 / 32)._pmf_remove
    ours, theirs = dpsgd._epsilon_in_log_space(pmf, 1e-6), pmf.get_epsilon_for_delta(1e-6)
    assert theirs <= ours <= theirs * (1 + 1e-9)
    pmf = _raw_pld(1.0, 1.0, 1000, 1 / 32)._pmf_remove
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # dp_accounting's overflow
        assert pmf.get_epsilon_for_delta(1e-11) == math.inf
    exact = gdp_epsilon(math.sqrt(1000), delta=1e-11)
    assert exact <= dpsgd._epsilon_in_log_space(pmf, 1e-11) <= exact * (1 + PLD_RTOL)


def test_a_delta_within_the_ffts_round_off_is_refused_where_dp_accounting_answers_below_the_truth():
    # sigma = 3, 10 full-batch rounds, delta = 1e-15: dp_accounting's pessimistic PLD (grid 1e-4, tails 1e-21)
    # gives 8.615, below the exact 8.642: FFT round-off of ~1e-20 a point over 3.6e5 points swamps delta
    exact = gdp_epsilon(math.sqrt(10) / 3.0, delta=1e-15)
    raw = _raw_pld(3.0, 1.0, 10, 1e-4, tail=1e-21).get_epsilon_for_delta(1e-15)
    assert raw < exact * (1 - 1e-3)  # the library's number is not an upper bound here
    with pytest.raises(ValueError, match=r"delta = 1e-15 is below what the PLD of T = 10 steps resolves"):
        exact_epsilon(3.0, q=1.0, T=10, delta=1e-15)


# -- the grid: chosen from the epsilon it resolves, converged, and bounded -------------------------------------

def test_the_fixed_1e_5_grid_is_3_6_percent_high_at_t_6423_and_the_default_converges_to_a_finer_grid():
    # independent route: a fixed grid of 2.5e-7, finer than the default's and not nested with it (powers of two)
    fine = exact_epsilon(SIGMA_WIDE, **WIDE, discretization=2.5e-7).eps
    assert exact_epsilon(SIGMA_WIDE, **WIDE, discretization=1e-5).eps > 1.03 * fine  # issue 16: 3.6% high
    r = exact_epsilon(SIGMA_WIDE, **WIDE)
    assert r.eps == pytest.approx(fine, rel=PLD_RTOL)
    assert r.tolerance <= PLD_RTOL
    assert r.eps <= exact_epsilon(SIGMA_WIDE, **WIDE, accountant="rdp").eps  # RDP: a looser certified bound


def test_table_9s_default_lies_in_dp_accountings_two_sided_bracket_and_within_rtol_of_a_grid_8x_finer():
    r = exact_epsilon(SIGMA9, **T9)
    fine = exact_epsilon(SIGMA9, **T9, discretization=r.discretization / 8).eps
    assert fine <= r.eps <= fine * (1 + PLD_RTOL)  # pessimistic on nested grids: the finer one is lower
    # dp_accounting's optimistic PLD (privacy buckets, error ~ T*grid) is a lower bound: 0.0093 at grid 1e-6
    lower = _raw_pld(SIGMA9, T9["q"], T9["T"], 1e-6, pessimistic=False).get_epsilon_for_delta(T9["delta"] + 1e-15)
    assert lower <= r.eps
    assert r.eps == pytest.approx(0.01028, abs=5e-6)  # errata 001 §4 printed 0.0103


@pytest.mark.parametrize("sigma, q, d, log_mass", [
    (1.0, 0.01, 1e-3, -50.0), (0.7, 0.1, 1e-4, -60.0), (3.0, 1e-3, 1e-4, -50.0), (0.5, 0.5, 1e-3, -70.0),
    (10.0, 0.02, 1e-5, -50.0), (SIGMA9, T9["q"], 1e-4, -50.0), (2.0, 1.0, 1e-3, -50.0),
])
def test_the_vectorised_gaussian_pld_is_dp_accountings_bit_for_bit(sigma, q, d, log_mass):
    # the one-pass inversion of the subsampled privacy loss replaces the library's per-point Python loop: the
    # PMFs (grid offset, every mass, the infinite-loss mass) must be exactly the library's, in both directions
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    ref = pld_lib.from_gaussian_mechanism(sigma, sampling_prob=q, value_discretization_interval=d,
                                          log_mass_truncation_bound=log_mass)
    ours = dpsgd._gaussian_pld(sigma, q, d, log_mass)
    assert ours._symmetric == ref._symmetric
    for a, b in zip(dpsgd._pmfs(ours), dpsgd._pmfs(ref), strict=True):
        assert (a._lower_loss, a._probs.size, a._infinity_mass) == (b._lower_loss, b._probs.size, b._infinity_mass)
        np.testing.assert_array_equal(a._probs, b._probs)


def test_without_the_librarys_private_builders_the_pld_is_its_public_one(monkeypatch):
    # a dp_accounting release without the two private builders the array route goes through: the public route
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    monkeypatch.setattr(dpsgd, "_PLD_BUILDERS", ("_a_builder_this_release_lacks",))
    monkeypatch.setattr(dpsgd, "_vectorised_gaussian_loss", lambda: pytest.fail("the array route was taken"))
    ours = dpsgd._gaussian_pld(1.0, 0.01, 1e-3, -50.0)
    ref = pld_lib.from_gaussian_mechanism(1.0, sampling_prob=0.01, value_discretization_interval=1e-3,
                                          log_mass_truncation_bound=-50.0)
    for a, b in zip(dpsgd._pmfs(ours), dpsgd._pmfs(ref), strict=True):
        np.testing.assert_array_equal(a._probs, b._probs)


def test_the_vectorised_loss_keeps_the_librarys_scalar_answer_and_its_edges():
    # a scalar ε goes to the library's own code; the divergence within 1e-12 and 1e-6 of the edge ∓ln(1 − q), on both
    # sides of zero, and far out in both tails is the library's, exactly
    from dp_accounting.pld import privacy_loss_mechanism as plm

    q = 0.05
    for kind, edge in ((plm.AdjacencyType.ADD, -math.log1p(-q)), (plm.AdjacencyType.REMOVE, math.log1p(-q))):
        ours = dpsgd._vectorised_gaussian_loss()(1.3, sampling_prob=q, adjacency_type=kind)
        ref = plm.GaussianPrivacyLoss(1.3, sampling_prob=q, adjacency_type=kind)
        eps = np.array([edge * (1 - 1e-12), edge * (1 - 1e-6), edge, -2.0, -0.01, 0.0, 0.01, 0.04, 2.0])
        eps = eps[eps < -math.log1p(-q)] if kind == plm.AdjacencyType.ADD else eps
        np.testing.assert_array_equal(ours.get_delta_for_epsilon(eps), ref.get_delta_for_epsilon(eps))
        assert ours.get_delta_for_epsilon(0.3) == ref.get_delta_for_epsilon(0.3)


@pytest.mark.parametrize("sigma, q, T, d", [
    (1.0, 0.01, 100, 1e-3), (0.7, 0.1, 10, 1e-4), (0.5, 0.5, 5, 1e-3), (0.3, 1.0, 1, 1e-3), (50.0, 0.5, 3, 1e-4),
])
def test_the_array_reader_gives_dp_accountings_epsilon_bit_for_bit(sigma, q, T, d):
    # dp_accounting reads ε by a Python loop over the PMF; the array version must give its number exactly, at a δ
    # where ε is large, small, zero (δ = 0.5) and where the infinite-loss mass decides (δ = 1e-12)
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    pld = pld_lib.from_gaussian_mechanism(sigma, sampling_prob=q, value_discretization_interval=d)
    pld = pld if T == 1 else pld.self_compose(T)
    for delta in (0.5, 1e-2, 1e-4, 1e-6, 1e-9, 1e-12):
        for pmf in dpsgd._pmfs(pld):
            assert dpsgd._epsilon_for_delta(pmf, delta) == pmf.get_epsilon_for_delta(delta)


def test_a_fixed_grid_reproduces_dp_accountings_own_pld_accountant():
    # explicit discretization= keeps its meaning: the accountant's number at that grid. Tails are 1e-15 either way
    # at delta = 1e-4; reading at delta - r (r: the FFT's round-off, ~1e-16) moves the 1e-4 grid's value by 1.5e-9
    # and dp_accounting's extra composition with the identity PLD by 1e-12, hence 1e-8
    for d in (1e-4, 1e-5):
        ours = exact_epsilon(SIGMA9, **T9, discretization=d)
        dpa = dpsgd.dp_accounting_module()
        event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(T9["q"], dpa.GaussianDpEvent(SIGMA9)), T9["T"])
        ref = dpsgd.accountant_epsilon(dpsgd.pld_accountant(discretization=d), event, T9["delta"])
        assert ours.eps == pytest.approx(ref, rel=1e-8)
        assert ours.discretization == d and ours.tolerance is None
        assert "convergence not checked" in repr(ours)


def test_where_the_grid_cap_stops_the_refinement_it_warns_and_still_answers_an_upper_bound(monkeypatch):
    monkeypatch.setattr(dpsgd, "PLD_MAX_POINTS", 4096)
    with pytest.warns(RuntimeWarning, match="not converged to rtol = 0.001"):
        r = exact_epsilon(SIGMA9, **T9)
    monkeypatch.undo()
    assert r.tolerance > PLD_RTOL  # it says how far it got
    assert r.eps >= exact_epsilon(SIGMA9, **T9, discretization=1e-6).eps  # coarser pessimistic: still above


def test_a_tiny_sigma_with_a_fixed_grid_is_refused_before_dp_accounting_allocates_it():
    # issue 16: sigma = 1e-3 at grid 1e-5 asked dp_accounting for ~760 GiB; now a ValueError naming sigma and
    # discretization with their valid ranges, from dp_accounting's loss bounds alone (well under a second)
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"sigma = 0.001 .* discretization = 1e-05 needs a PLD grid of 5.1e\+10 points "
                                         r"for one step.*discretization >= .*or sigma >= "):
        exact_epsilon(1e-3, q=0.01, T=100, delta=1e-5, discretization=1e-5)
    assert time.perf_counter() - start < 1.0


def test_a_tiny_sigma_by_default_coarsens_and_stays_below_the_unsubsampled_gaussian():
    # independent upper bound: Poisson subsampling cannot hurt, and 100 full-batch rounds are one Gaussian with
    # mu = 10/sigma = 1e4 (eps = 5.0e7); the PLD (3.5e6) uses a coarse grid instead of 5e10 points
    r = exact_epsilon(1e-3, q=0.01, T=100, delta=1e-5)
    assert math.isfinite(r.eps) and r.eps <= gdp_epsilon(math.sqrt(100) / 1e-3, delta=1e-5)
    assert r.discretization >= 1.0 and r.tolerance <= PLD_RTOL


@pytest.mark.parametrize("bad", [-1, 0, math.inf, math.nan, "1e-5"])
def test_the_discretization_must_be_a_positive_finite_number(bad):
    with pytest.raises(ValueError, match="discretization must"):
        exact_epsilon(2.0, q=0.01, T=10, delta=1e-5, discretization=bad)


@pytest.mark.parametrize("bad", [0, 1, -0.1])
def test_the_grid_tolerance_must_lie_in_zero_one(bad):
    with pytest.raises(ValueError, match=r"rtol must lie in \(0, 1\)"):
        exact_epsilon(2.0, q=0.01, T=10, delta=1e-5, rtol=bad)


# -- calibration and the fewest rounds ----------------------------------------------------------------------------

def test_calibrate_sigma_refuses_at_once_where_every_sigma_certifies():
    # q = 1e-9, T = 10: a record joins some batch with probability 1e-8 < delta = 1e-5, so (0, delta) holds at any
    # sigma and there is no smallest one; it spent 228 s inside dp_accounting before failing
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"eps = 1, delta = 1e-05, q = 1e-09, T = 10: a record joins some batch"):
        calibrate_sigma(1.0, delta=1e-5, q=1e-9, T=10)
    assert time.perf_counter() - start < 1.0
    # the fact behind the message, by the accountant itself
    assert [exact_epsilon(s, q=1e-9, T=10, delta=1e-5).eps for s in (0.1, 1.0, 10.0)] == [0.0, 0.0, 0.0]


def test_calibrated_sigma_spends_its_target_by_a_grid_8x_finer_than_the_one_it_was_found_on():
    sigma = calibrate_sigma(0.05, delta=1e-4, q=0.0026, T=1918)
    r = exact_epsilon(sigma, q=0.0026, T=1918, delta=1e-4)
    assert r.eps <= 0.05  # on the private side of its own grid
    fine = exact_epsilon(sigma, q=0.0026, T=1918, delta=1e-4, discretization=r.discretization / 8).eps
    assert 0.05 * (1 - PLD_RTOL) <= fine <= 0.05  # converged: a finer grid moves it by less than rtol


@pytest.mark.slow  # ~10 s: a few dozen PLD evaluations at T ~ 400
def test_exact_minimal_T_at_t_6423s_setting_agrees_with_the_converged_epsilon_on_both_sides():
    T = exact_minimal_T(0.01, sigma=SIGMA_WIDE, k=5, delta=1e-4)
    at = lambda t: exact_epsilon(SIGMA_WIDE, q=5 / t, T=t, delta=1e-4).eps
    assert at(T) <= 0.01 < at(T - 1)
    assert T <= exact_minimal_T(0.01, sigma=SIGMA_WIDE, k=5, delta=1e-4, discretization=1e-5)  # coarse: biased up


# -- the fixed-batch accountant and the models every result names --------------------------------------------------

def test_rdp_wor_needs_an_integer_data_set_and_a_whole_batch():
    with pytest.raises(ValueError, match=r"N must be an integer"):
        exact_epsilon(2.0, q=0.4, T=10, delta=1e-5, accountant="rdp_wor", N=2.5)
    with pytest.raises(ValueError, match=r"s = qN, which must be a whole number: got q = 0.3, N = 5, so s = 1.5"):
        exact_epsilon(2.0, q=0.3, T=10, delta=1e-5, accountant="rdp_wor", N=5)
    # 0.1·0.3·100 = 3.0000000000000004 is the whole batch 3 up to rounding, and 100.0 is the integer 100
    assert exact_epsilon(4.0, q=0.1 * 0.3, T=1, delta=1e-5, accountant="rdp_wor", N=100.0).eps > 0.0


def test_every_accountant_names_its_sampling_model_and_a_neighbouring_relation():
    relations = ("add/remove one record", "replace one record")
    for accountant in ACCOUNTANTS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # mc's effective-sample-size advisory at this small n_samples
            r = exact_epsilon(4.0, q=1.0, T=1, delta=1e-5, accountant=accountant, N=100, n_samples=2**10)
        assert isinstance(r.sampling, Sampling) and isinstance(r.neighbouring, Neighbouring)
        assert str(r.neighbouring).startswith(relations), (accountant, str(r.neighbouring))
        assert str(r.sampling) in repr(r) and str(r.neighbouring) in repr(r)
    clt = exact_epsilon(4.0, q=0.01, T=100, delta=1e-5, accountant="clt")
    assert "sensitivity C (not 2C)" in repr(clt) and not clt.certified
    assert np.isfinite(clt.eps)
