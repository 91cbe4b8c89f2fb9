"""Seed 002 (ISRL-DP FL): calibrations, schedules, exact identities, and what the calibrations spend.

Golden values are errata 002 §6 (claims C1–C4, C19–C23, C25, C27, C30, C32, C35), computed there independently,
read from ``dptheory/data/golden.json`` (shared with verify/isrl_calibration.py); tolerances are half a unit of the
last printed digit unless stated.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dptheory.accounting import advanced_composition, gdp_epsilon, zcdp_to_epsilon
from dptheory.data import golden
from dptheory.isrl import calibration as cal, schedules, spend

D6 = 1e-6


def _half_unit(x: float, digits: int) -> float:
    """Half a unit in the last of ``digits`` significant digits of ``x``."""
    return 0.5 * 10 ** (math.floor(math.log10(abs(x))) - digits + 1)


def assert_digits(value, printed, digits):
    assert abs(value - printed) <= _half_unit(printed, digits), (value, printed)


def G(key: str):
    return golden("002", key)


def assert_golden(value, key: str):
    """``value`` against the golden value ``key`` to half a unit of its last printed digit."""
    assert_digits(value, G(key).value, G(key).digits)


# --- Alg. 2 / Thm D.1 ----------------------------------------------------------------------------------------

def test_C1_sigma2_noisy_mbsgd_values_and_scaling():
    assert_golden(cal.sigma2_noisy_mbsgd(1, R=1000, n=1000, eps0=1.0, delta0=D6), "C1.sigma2.R=1000")
    assert_golden(cal.sigma2_noisy_mbsgd(1, R=100, n=1000, eps0=1.0, delta0=D6), "C1.sigma2.R=100")
    base = cal.sigma2_noisy_mbsgd(1.3, R=500, n=1000, eps0=0.7, delta0=D6)
    assert cal.sigma2_noisy_mbsgd(1.3, R=500, n=2000, eps0=0.7, delta0=D6) == pytest.approx(base / 4, rel=1e-13)
    assert cal.sigma2_noisy_mbsgd(1.3, R=500, n=1000, eps0=1.4, delta0=D6) == pytest.approx(base / 4, rel=1e-13)
    assert cal.sigma2_noisy_mbsgd(2.6, R=500, n=1000, eps0=0.7, delta0=D6) == pytest.approx(4 * base, rel=1e-13)


@given(st.floats(0.1, 10), st.integers(1, 10**5), st.integers(10, 10**5), st.floats(0.01, 5), st.floats(1e-12, 0.1),
       st.floats(0, 1))
def test_C1_closed_form_equals_the_proof_chain_for_every_admissible_K(L, R, n, eps0, delta0, u):
    """The σ² rebuilt step by step (budget → subsampling → classic Gaussian) equals Thm D.1's closed form, for any K."""
    kmin = cal.min_batch_size(eps0, n=n, R=R, delta0=delta0)
    if kmin > n:
        return
    K = kmin + u * (n - kmin)
    chain = cal.calibration_chain(L, R=R, n=n, K=K, eps0=eps0, delta0=delta0)
    assert chain.sigma2 == pytest.approx(cal.sigma2_noisy_mbsgd(L, R=R, n=n, eps0=eps0, delta0=delta0), rel=1e-11)
    assert chain.eps_sample <= 1.0 and chain.sensitivity == pytest.approx(2 * L / K)
    assert chain.delta_total == pytest.approx(delta0, rel=1e-12)
    assert chain.eps_total <= eps0


def test_C2_min_batch_size():
    k = cal.min_batch_size(1.0, n=1000, R=1000, delta0=D6)
    assert_golden(k, "C2.K_min.R=1000")
    assert math.ceil(k) == 2
    k = cal.min_batch_size(1.0, n=1000, R=2e5, delta0=D6)
    assert_golden(k, "C2.K_min.R=2e5")
    assert max(1, math.ceil(k)) == 1


@pytest.mark.parametrize("R, printed", [(1000, G("C3.advanced.R=1000").value), (10, G("C3.advanced.R=10").value),
                                       (1e5, G("C3.advanced.R=100000").value)])
def test_C3_advanced_composition_spends_about_half_of_eps0(R, printed):
    eps_t, delta_t = cal.per_round_budget(1.0, delta0=D6, R=R)
    eps, delta = advanced_composition(eps_t, delta=delta_t, k=R, delta_prime=D6 / 2)
    assert_digits(eps, printed, 5)
    assert delta == pytest.approx(D6, rel=1e-12)
    # the first term is exactly ε0/2; the rest is R ε̃(e^ε̃ − 1) ≈ ε0²/(8 ln(2/δ0))
    assert eps - 0.5 == pytest.approx(1 / (8 * math.log(2 / D6)), rel=0.02)


def test_C4_onepass_sigma2_and_its_zcdp_spend():
    assert_golden(cal.sigma2_onepass(1, K=100, eps0=1.0, delta0=D6), "C4.sigma2_onepass")
    zc = spend.spent_by_onepass(1.0, delta0=D6, method="zcdp")
    assert_golden(zc.eps, "C4.zcdp_spend")
    assert_digits(8 * math.log(1 / D6), 110.52, 5)
    rho = lambda e: e**2 / (16 * math.log(1.25 / D6))  # noqa: E731
    assert_golden(zcdp_to_epsilon(rho(120), delta=D6, method="bun_steinke"), "C4.outside_range")
    # the range is sufficient, not sharp: at its edge the conversion is still below ε0 (ln 1.25/δ0 > ln 1/δ0)
    edge = 8 * math.log(1 / D6)
    assert zcdp_to_epsilon(rho(edge), delta=D6, method="bun_steinke") < edge
    assert zcdp_to_epsilon(rho(113.3), delta=D6, method="bun_steinke") > 113.3


def test_onepass_exact_spend_is_below_the_zcdp_route():
    gdp, opt, bs = (spend.spent_by_onepass(1.0, delta0=D6, method=m).eps for m in ("gdp", "zcdp_optimal", "zcdp"))
    assert gdp < opt < bs <= 1.0
    mu = 1.0 / math.sqrt(8 * math.log(1.25 / D6))
    assert gdp == pytest.approx(gdp_epsilon(mu, delta=D6), rel=1e-12)
    assert gdp == pytest.approx(0.37298, abs=5e-6)


# --- what Alg. 2's calibration spends ------------------------------------------------------------------------

def _instance_pld(R, K, sigma, n=1000, h=2e-5):
    """dp_accounting's PLD (pessimistic) of the realizable instance behind "wr_lower": R rounds of
    Σ_m Bin(m; K, 1/n) N(2mL/K, σ²) against N(0, σ²), L = 1, both orders: an upper estimate of its exact ε."""
    from dp_accounting.pld import privacy_loss_distribution as pld
    from scipy.stats import binom

    m = np.arange(K + 1)
    p = binom.pmf(m, K, 1.0 / n)
    keep = p > 1e-300
    dist = pld.from_mixture_gaussian_mechanism(sigma, list(m[keep] * 2.0 / K), list(p[keep] / p[keep].sum()),
                                               value_discretization_interval=h)
    return dist.self_compose(R).get_epsilon_for_delta(D6)


def test_alg2_spend_bracket_at_R10_K15_and_the_poisson_figure_is_not_an_upper_bound():
    """Alg. 2 (K draws with replacement, replace-one) at R = 10, K = ⌈K_min⌉ = 15: its ε lies in
    [0.0290, 0.307] ε0; the Poisson model's 0.0263 (once reported as certified) is below the realizable 0.0290."""
    b = spend.spend_bracket(1, R=10, n=1000, eps0=1.0, delta0=D6)
    lo, up = b.lower, b.upper
    assert lo.settings["K"] == up.settings["K"] == 15
    assert lo.models_algorithm_2 and up.models_algorithm_2
    assert (lo.bound, lo.certified, up.bound, up.certified) == ("lower", False, "upper", True)
    assert lo.eps == pytest.approx(0.028951, abs=5e-6) and up.eps == pytest.approx(0.30736, abs=5e-5)
    poisson = spend.spent_by_calibration(1, R=10, n=1000, eps0=1.0, delta0=D6, accountant="pld")
    assert not poisson.models_algorithm_2 and poisson.certified  # an upper bound for Poisson sampling only
    assert poisson.eps == pytest.approx(0.026322, abs=5e-6)
    assert poisson.eps < lo.eps
    assert "lower bound (realizable instance); Alg. 2's model" in repr(lo) and "[0.02895, 0.3074]" in repr(b)


@pytest.mark.parametrize("R", [1, 10, 100])
def test_alg2_lower_bound_is_below_the_instance_exact_eps_and_exact_at_one_round(R):
    """The threshold test never exceeds the instance's exact ε (pessimistic PLD, a second route); at R = 1 the
    likelihood ratio of Σ_m p_m N(2mL/K, σ²) against N(0, σ²) is increasing in y, so by Neyman–Pearson the
    threshold test is optimal and the two agree to the PLD's discretisation."""
    lo = spend.spent_by_calibration(1, R=R, n=1000, eps0=1.0, delta0=D6, accountant="wr_lower")
    exact = _instance_pld(R, lo.settings["K"], math.sqrt(lo.settings["sigma2"]))
    assert lo.eps <= exact
    assert lo.eps >= (0.999 if R == 1 else 0.98) * exact


@pytest.mark.parametrize("R, K", [(10, 15), (10, 200), (100, 5), (1000, 2), (300, 1000)])
def test_alg2_bracket_is_ordered_and_below_eps0(R, K):
    b = spend.spend_bracket(1, R=R, n=1000, eps0=1.0, delta0=D6, K=K)
    assert 0 < b.lower.eps <= b.upper.eps <= 1.0  # Thm D.1: (ε0, δ0)-ISRL-DP with ε0 = 1


def test_alg2_upper_bound_at_one_draw_is_the_fixed_batch_route():
    """At K = 1 a draw with replacement is a draw without replacement: splitting the noise per draw changes
    nothing, and "wr_rdp" equals "rdp_wor" (same sensitivity convention, same event)."""
    kw = dict(R=10_000, n=1000, eps0=1.0, delta0=D6, K=1)
    assert spend.spent_by_calibration(1, accountant="wr_rdp", **kw).eps == pytest.approx(
        spend.spent_by_calibration(1, accountant="rdp_wor", **kw).eps, rel=1e-12)


def test_spend_of_other_models_states_it_is_not_alg2():
    res = {a: spend.spent_by_calibration(1, R=1000, n=1000, eps0=1.0, delta0=D6, accountant=a) for a in ("pld", "rdp_wor", "advanced")}
    for r in res.values():
        assert r.certified and not r.models_algorithm_2 and r.eps <= r.eps0 and r.delta == D6
        assert r.settings["K"] == 2  # ⌈K_min⌉
    assert res["advanced"].ratio == pytest.approx(G("C3.advanced.R=1000").value, abs=5e-6)
    # PLD (Poisson, replace-one) ≈ 0.023 ε0; RDP (fixed batch w/o replacement) ≈ 0.055 ε0
    assert 0.015 < res["pld"].ratio < 0.035
    assert 0.03 < res["rdp_wor"].ratio < 0.08
    assert res["pld"].eps < res["rdp_wor"].eps < res["advanced"].eps
    default = spend.spent_by_calibration(1, R=1000, n=1000, eps0=1.0, delta0=D6)
    assert default.accountant == "wr_rdp" and default.models_algorithm_2 and default.bound == "upper"


def test_spend_pld_convention_matches_gdp_at_full_batch():
    """At K = n (q = 1) the PLD route is R Gaussians of sensitivity 2L/K: GDP μ = √R·(2L/K)/σ exactly (eq. (64))."""
    L, R, n, eps0 = 1.0, 20, 50, 1.0
    r = spend.spent_by_calibration(L, R=R, n=n, eps0=eps0, delta0=D6, K=n, accountant="pld")
    mu = math.sqrt(R) / r.settings["noise_multiplier"]
    exact = gdp_epsilon(mu, delta=D6)
    assert exact <= r.eps <= exact * 1.002 + 1e-5  # pessimistic discretisation: an upper bound, tight
    rdp = spend.spent_by_calibration(L, R=R, n=n, eps0=eps0, delta0=D6, K=n, accountant="rdp_wor")
    assert exact <= rdp.eps <= 1.5 * exact  # RDP: a looser upper bound of the same Gaussian


def test_poisson_spend_is_nearly_independent_of_K():
    """σ² does not depend on K, and q/z = 2L/(nσ) is K-free: the Poisson model's PLD spend barely moves with K."""
    e = [spend.spent_by_calibration(1, R=200, n=1000, eps0=1.0, delta0=D6, K=K, accountant="pld").eps for K in (4, 40)]
    assert e[1] == pytest.approx(e[0], rel=0.05)


# --- silo sampling, participation (C22, C23) -----------------------------------------------------------------

@pytest.mark.parametrize("N, M, printed", [(10, 3, G("C22.factor.N=10.M=3").value), (100, 10, G("C22.factor.N=100.M=10").value),
                                           (10, 10, 0.0), (2, 1, 1.0)])
def test_C22_silo_sampling_factor(N, M, printed):
    assert cal.silo_sampling_factor(N, M=M) == pytest.approx(printed, abs=5e-7)


@pytest.mark.parametrize("N, M", [(2, 1), (7, 3), (10, 3), (12, 6), (12, 12), (5, 1)])
def test_C22_identity_by_exhaustive_enumeration(N, M):
    y = np.random.default_rng(N * 100 + M).normal(size=(N, 4)) * np.arange(1, 5)
    lhs, rhs = cal.silo_sampling_variance_exact(y, M)
    assert lhs == pytest.approx(rhs, rel=1e-12, abs=1e-14)


def test_C22_identity_by_sampling():
    y = np.random.default_rng(3).standard_t(5, size=(30, 3))
    mean, se, pred = cal.silo_sampling_variance_mc(y, M=7, trials=100_000, seed=1)
    assert abs(mean - pred) < 4 * se
    assert se < 0.01 * pred


def test_C23_harmonic_participation():
    assert_golden(cal.harmonic_M(range(1, 11)), "C23.M")
    assert_golden(cal.M_prime(range(1, 11)), "C23.M_prime")
    assert cal.harmonic_M({5: 1.0}) == 5 and cal.M_prime([5]) == pytest.approx(5)
    assert cal.M_prime(range(1, 11)) <= cal.harmonic_M(range(1, 11))
    # Monte Carlo: E‖ū_r‖² = dσ²/M for M_r ~ Unif{1..10}
    rng = np.random.default_rng(0)
    d, sigma2, trials = 4, 2.0, 200_000
    m = rng.integers(1, 11, size=trials)
    u_bar = rng.normal(size=(trials, d)) * np.sqrt(sigma2 / m)[:, None]  # mean of m i.i.d. N(0, σ²I)
    vals = np.sum(u_bar**2, axis=1)
    assert abs(vals.mean() - d * sigma2 / cal.harmonic_M(range(1, 11))) < 4 * vals.std() / math.sqrt(trials)


# --- one-pass batch sizes, multi-stage schedule (C19–C21) -----------------------------------------------------

def test_C19_onepass_convex():
    K = schedules.onepass_batch_convex(1, beta=1, D=1, n=1000, d=100, eps0=1.0, delta0=D6, M=100)
    assert_golden(K, "C19.K")
    assert_digits(1000 / K, 9.374, 4)
    assert_golden(cal.sigma2_onepass(1, K=K, eps0=1.0, delta0=D6), "C19.sigma2")


def test_C20_onepass_sc():
    n, M, d = 1e4, 10, 10
    assert min(n**2 * M / (d * math.log(1 / D6)), n * M) == pytest.approx(1e5)  # the nM/φ² branch
    K = schedules.onepass_batch_sc(n, kappa=100, mu=1, Delta=1, eps0=1.0, M=M, L=1, d=d, delta0=D6, phi=1)
    assert_golden(K, "C20.K")
    assert_golden(n / K, "C20.R")
    assert_golden(cal.sigma2_onepass(1, K=K, eps0=1.0, delta0=D6), "C20.sigma2")


def test_C21_multi_stage_printed_vs_corrected():
    cor = schedules.multi_stage_schedule(10, mu=1, V=1, Delta=1, U=5)
    pap = schedules.multi_stage_schedule(10, mu=1, V=1, Delta=1, U=5, nu_form="paper")
    assert [s.R for s in cor] == [s.R for s in pap] == list(G("C21.R_k").value)
    assert sum(s.R for s in cor) == 5293
    assert [s.nu for s in pap] == [G("C21.nu_paper").value] * 5  # = 2β: the printed ν_k never leaves its floor
    for s, printed in zip(cor, G("C21.nu_corrected").value):
        assert abs(s.nu - printed) <= 0.05  # printed to one decimal
    # the corrected ν_k grows ~ 2^{2k}: roughly ×4 per stage
    assert all(3.9 < b.nu / a.nu < 4.1 for a, b in zip(cor, cor[1:]))
    alpha, eta = schedules.acsa_steps(cor[0].R, nu=cor[0].nu)
    assert alpha[0] == 1.0 and eta[0] == pytest.approx(2 * cor[0].nu)


# --- Thm D.1 schedules, Moreau smoothing --------------------------------------------------------------------

def test_thm_d1_schedules_at_P1():
    beta = schedules.moreau_beta_convex(1, D=1, M=100, n=1000, d=100, eps0=1.0)
    assert beta == pytest.approx(316.2278, abs=1e-4)
    s = schedules.noisy_mbsgd_convex_schedule(1, D=1, beta=beta, M=100, n=1000, d=100, eps0=1.0)
    assert s.R == pytest.approx(2 * min(1000 * 100, 1000**2 * 100 / 100), rel=1e-12)  # = 2e5: Thm D.2
    assert s.eta <= 1 / beta
    sc = schedules.noisy_mbsgd_sc_schedule(1, D=1, beta=1, mu=1, M=100, n=1000, d=100, eps0=1.0, delta0=D6)
    assert sc.R == pytest.approx(1e5)
    assert sc.eta <= 0.5 and sc.weights.sum() == pytest.approx(1.0) and np.all(np.diff(sc.weights) > 0)


# --- shuffling, compositionality, conversions (C25, C30, C26) -----------------------------------------------

@pytest.mark.parametrize("args, key", [((0.1, 10, 1e4, 1e-6), "C25.eq21.0.1.10.10000.1e-06"),
                                       ((0.01, 100, 1e4, 1e-6), "C25.eq21.0.01.100.10000.1e-06"),
                                       ((0.1, 10, 1e6, 1e-6), "C25.eq21.0.1.10.1e+06.1e-06"),
                                       ((0.001, 1000, 1e6, 1e-8), "C25.eq21.0.001.1000.1e+06.1e-08")])
def test_C25_shuffle_amplification_eq21(args, key):
    eps0_r, n, N, delta_r = args
    assert_golden(cal.shuffle_amplification_round(eps0_r, n=n, N=N, delta_r=delta_r)[0], key)


def test_C25_validity_and_clone_lemma():
    assert_golden(cal.shuffle_amplification_validity(10, N=1e4, delta_r=1e-6), "C25.validity")
    with pytest.raises(ValueError, match=r"eps0_r .*0\.376.*got 0\.4"):
        cal.shuffle_amplification_round(0.4, n=10, N=1e4, delta_r=1e-6)
    assert_golden(cal.clone_lemma_epsilon(1.0, N=1e4, delta=1e-6), "C25.lemmaD10.p=1")
    assert_golden(cal.clone_lemma_epsilon(0.5, N=1e4, delta=1e-6), "C25.lemmaD10.p=0.5")
    eps, delta = cal.shuffle_amplification_round(0.1, n=10, N=1e4, delta_r=1e-6, delta0_r=1e-12)
    assert delta == pytest.approx(1e-6 + 2 * 1e4 * 10 * math.exp(0.9) * 1e-12)


def test_C30_compositionality():
    assert cal.compositionality_constant([1.0] * 18, 1.0) == pytest.approx(G("C30.alg3").value, abs=5e-4)
    eps_t, _ = cal.per_round_budget(1.0, delta0=D6, R=1000)
    assert cal.compositionality_constant([eps_t] * 1000, 1.0) == pytest.approx(G("C30.alg2").value, abs=5e-5)
    assert cal.compositionality_constant([1.0] * 9, 1.0) == pytest.approx(3.0)  # one-pass: √R


def test_user_level_conversions_round_trip():
    e0, d0 = cal.user_to_isrl(1.0, delta=D6, n=100)
    assert (e0, d0) == pytest.approx((0.01, 2.5e-9))
    e, d = cal.isrl_to_user_level(e0, delta0=d0, n=100)
    assert e == pytest.approx(1.0) and d <= D6


# --- unbalanced (C27), shuffled (C32), experiments (C35) -------------------------------------------------------

def test_C27_unbalanced():
    x = cal.xi([100, 200, 400, 800], eps_i=1.0, delta_i=D6, R=100)
    for v, printed in zip(x, G("C27.xi").value):
        assert_digits(v, printed, 5)
    ratio = cal.Xi(x, [4]) / x.max()
    assert_golden(ratio, "C27.Xi_over_ximax")
    assert_digits(math.sqrt(ratio), 0.576, 3)
    v = range(1, 5)
    assert_digits(cal.harmonic_M(v), 1.92, 3)
    assert_golden(cal.M_prime(v), "C27.M_prime")
    assert_golden(cal.Xi(x, v), "C27.Xi")
    assert_golden(cal.Xi(x, v) / cal.M_prime(v), "C27.factor")
    assert_digits(x.max() / cal.harmonic_M(v), 0.014612, 5)
    assert cal.unbalanced_privacy_factor(x, v) == pytest.approx(cal.Xi(x, v) / cal.M_prime(v))
    s2 = cal.sigma2_unbalanced(1, R=100, n_i=[100, 200, 400, 800], eps_i=1.0, delta_i=D6)
    assert s2[0] == pytest.approx(cal.sigma2_noisy_mbsgd(1, R=100, n=100, eps0=1.0, delta0=D6), rel=1e-13)


def test_C32_shuffled_vs_isrl_noise():
    n, N, M, eps = 1000, 100, 100, 0.1
    R = round(n**2 * N**2 * eps**2 / M)  # Thm G.1's floor n²N²ε²/M (1000000.0000000002 in floating point): a whole R
    assert R == 10**6
    assert_golden(cal.sigma2_shuffled(1, R=R, M=M, n=n, N=N, eps=eps, delta=D6), "C32.sdp")
    assert_golden(cal.sigma2_noisy_mbsgd(1, R=R, n=n, eps0=eps * N / math.sqrt(M), delta0=D6), "C32.isrl")
    assert cal.shuffled_participation_floor(R, M=M, N=N, delta=D6) > M  # Thm 5.1's M-condition fails at this setting


@pytest.mark.parametrize("eps, K, s2", [(1.0, "C35.K.eps=1", "C35.sigma2.eps=1"), (0.75, "C35.K.eps=0.75", "C35.sigma2.eps=0.75"),
                                        (18, "C35.K.eps=18", "C35.sigma2.eps=18")])
def test_C35_experiment_calibration(eps, K, s2):
    n, R, delta = 1238, 35, 1238**-2
    assert_golden(cal.batch_size_experiment(n, eps=eps, R=R), K)
    assert_golden(cal.sigma2_experiment(1, R=R, n=n, eps=eps, delta=delta), s2)


def test_C35_local_sgd():
    K = cal.batch_size_experiment(1238, eps=1.0, R=35)
    assert_golden(cal.sigma2_local_sgd(1, R=35, K=K, n=1238, eps=1.0, delta=1238**-2), "C35.local_sgd")


# --- bad inputs -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, pattern", [
    (lambda: cal.sigma2_noisy_mbsgd(1, R=100, n=1000, eps0=40.0, delta0=D6), r"eps0 must lie in \(0, 29\.0.*2 ln\(2/delta0\).*got 40"),
    (lambda: cal.sigma2_onepass(1, K=10, eps0=120.0, delta0=D6), r"eps0 must lie in \(0, 110\.5.*8 ln\(1/delta0\).*got 120"),
    (lambda: cal.silo_sampling_factor(5, M=6), r"M must lie in \(0, 5\].*got 6"),
    (lambda: spend.spent_by_calibration(1, R=10, n=1000, eps0=1.0, delta0=D6, K=5), r"K must lie in \[14\.67.*K_min.*got 5"),
    (lambda: cal.calibration_chain(1, R=10, n=1000, K=5, eps0=1.0, delta0=D6), r"K must lie in \[14\.67.*got 5"),
    (lambda: cal.sigma2_noisy_mbsgd(0, R=100, n=1000, eps0=1.0, delta0=D6), r"L must lie in \(0, inf\).*got 0"),
    (lambda: cal.sigma2_noisy_mbsgd(1, R=-1, n=1000, eps0=1.0, delta0=D6), r"R must lie in \[1, inf\) \(a whole number of rounds\), got -1"),
    (lambda: cal.sigma2_noisy_mbsgd(1, R=0.3, n=1000, eps0=1.0, delta0=D6), r"R must lie in \[1, inf\) \(a whole number of rounds\), got 0\.3"),
    (lambda: cal.min_batch_size(1.0, n=1000, R=2.5, delta0=D6), r"R must be an integer in \[1, inf\) \(a whole number of rounds\), got 2\.5"),
    (lambda: cal.xi([10, 20], eps_i=1.0, delta_i=D6, R=0.5), r"R must lie in \[1, inf\).*got 0\.5"),
    (lambda: cal.sigma2_shuffled(1, R=10.5, M=5, n=100, N=10, eps=0.5, delta=D6), r"R must be an integer in \[1, inf\).*got 10\.5"),
    (lambda: cal.sigma2_noisy_mbsgd(1, R=100, n=1000, eps0=1.0, delta0=1.0), r"delta0 must lie in \(0, 1\).*got 1"),
    (lambda: cal.sigma2_onepass(1, K=10, eps0=1.0, delta0=0.0), r"delta0 must lie in \(0, 1\).*got 0"),
    (lambda: cal.sigma2_shuffled(1, R=10, M=11, n=100, N=10, eps=0.5, delta=D6), r"M must lie in \(0, 10\].*got 11"),
    (lambda: cal.harmonic_M([1, 2], [0.5, 0.6]), r"probs must sum to 1"),
    (lambda: schedules.multi_stage_schedule(10, mu=1, V=1, Delta=1, U=3, nu_form="numerator"), r"nu_form must be one of"),
    (lambda: spend.spent_by_calibration(1, R=10, n=1000, eps0=1.0, delta0=D6, accountant="moments"), r"accountant must be one of"),
    (lambda: cal.user_to_isrl(2.0, delta=D6, n=10), r"eps must lie in \(0, 1\].*got 2"),
    (lambda: cal.xi([10, 20], eps_i=[1.0, 40.0], delta_i=D6, R=10), r"eps_i must lie in .*eps_i\[1\] = 40"),
    (lambda: cal.clone_lemma_epsilon(1e-4, N=1e4, delta=D6), r"p must lie in \[0\.02"),
])
def test_bad_inputs_name_the_condition_and_value(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()


def test_explicit_convex_bound_at_its_optimal_step_is_digest_C31():
    """Thm D.1's proof at P1 (n = 1000, N = M = 100, d = 100, ε0 = 1, δ0 = 1e-6, R = 2e5): η* = 1.58e-5, bound 0.31638."""
    from scipy.optimize import minimize_scalar

    s2 = cal.sigma2_noisy_mbsgd(1, R=2e5, n=1000, eps0=1.0, delta0=1e-6)
    f = lambda log_eta: schedules.explicit_convex_bound(L=1, D=1, R=2e5, eta=math.exp(log_eta), n=1000, M=100, d=100, sigma2=s2)
    best = minimize_scalar(f, bounds=(-20.0, 0.0), method="bounded", options=dict(xatol=1e-10))
    assert math.exp(best.x) == pytest.approx(1.58e-5, abs=5e-8)
    assert best.fun == pytest.approx(0.31638, abs=5e-6)
