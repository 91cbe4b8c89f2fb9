"""Seed 001 (Proactive DP): the closed form, its theorems and calculators, and the exact accountants beside them.

Golden values are the paper's printed tables or errata 001 §7 (which reproduced them independently);
tolerances are half a unit of the last printed digit unless stated.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dptheory as dpt
from dptheory.accounting import (
    Neighbouring, calibrate_sigma, exact_epsilon, exact_minimal_T, gdp_epsilon, replace_one_sensitivity,
)
from dptheory.hypotheses import ConditionError
from dptheory.proactive import closed_form as cf
from dptheory.proactive.__main__ import main as cli
from dptheory.proactive.algorithm1 import SpendBracket, algorithm1_spend, realisable_lower_bound, realisable_pair_delta
from dptheory.proactive.calculators import phase_calculator, phase_parameters
from dptheory.proactive.tables import BUDGET_TABLES, CALCULATOR_TABLES
from dptheory.proactive.theorems import lemmaB3_bound, log_mgf_exact, thm31_check, thmB2_min_eps, thmB4_check

P = dpt.proactive
T9 = CALCULATOR_TABLES[0]  # Table 9 as printed: σ = 19.29962, N = 10⁴, k = 5
TABLE9 = dict(sigma=T9.sigma, N=T9.N, k=T9.k)


# --- eq. (6), the legacy σ, h and g -----------------------------------------------------------------------

@given(st.floats(1e-4, 50.0), st.floats(1e-12, 0.5))
def test_eq6_and_its_inverse_round_trip(eps, delta):
    assert P.eps_from_sigma(P.sigma_from_eps(eps, delta), delta) == pytest.approx(eps, rel=1e-12)


@pytest.mark.parametrize("N, sigma", [(1e4, 6.2323), (1e5, 6.9319)])
def test_sigma_at_eps_one_half_is_sqrt_2_plus_4_ln_N(N, sigma):
    assert P.sigma_from_eps(0.5, 1 / N) == pytest.approx(math.sqrt(2 + 4 * math.log(N)), rel=1e-14)
    assert P.sigma_from_eps(0.5, 1 / N) == pytest.approx(sigma, abs=5e-5)


@pytest.mark.parametrize("sigma, delta, printed", [(19.29962, 1e-4, 0.04945), (12.10881, 1 / 60000, 0.15007), (6.572, 2e-5, 0.50102)])
def test_tables_3_to_5_print_the_legacy_eps_not_eq6(sigma, delta, printed):
    assert cf.legacy_eps_from_sigma(sigma, delta) == pytest.approx(printed, abs=5e-6)
    assert P.eps_from_sigma(sigma, delta) > printed * 1.005  # eq. (6) certifies less at the printed σ


def test_h_matches_the_printed_values_and_its_cancellation_free_form():
    assert cf.h(6.0) == pytest.approx(0.41576, abs=5e-6) and cf.h(10.0) == pytest.approx(0.58440, abs=5e-6)
    for x in (0.5, 3.0, 50.0):
        printed = (math.sqrt(1 + (math.e / x) ** 2) - math.e / x) ** 2
        assert cf.h(x) == pytest.approx(printed, rel=1e-12)
    assert cf.h(1e-9) == pytest.approx((1e-9 / (2 * math.e)) ** 2, rel=1e-6)  # the printed form returns 0 here


def test_g_switches_from_h_to_one_over_e_x_near_2_468():
    assert cf.g(2.4) == cf.h(2.4) and cf.g(2.5) == pytest.approx(1 / (math.e * 2.5))
    assert cf.g(6.0) == pytest.approx(1 / (6 * math.e))  # B.4 → 3.1: g(σ) = 1/(eσ) for σ ≥ 6


# --- γ of eq. (55) ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("t, one_step, smallest", [(CALCULATOR_TABLES[0], 3.81495, 3.12524),
                                                   (CALCULATOR_TABLES[1], 5.28111, 3.66788),
                                                   (CALCULATOR_TABLES[2], 9.22533, 4.62462)])
def test_gamma_readings_at_tables_9_to_11(t, one_step, smallest):
    x = P.eps_from_sigma(t.sigma, 1 / t.N) / t.k
    assert cf.gamma_one_step(t.sigma, x, "paper") == pytest.approx(one_step, abs=5e-6)
    g = cf.gamma_min(t.sigma, x, "paper")
    assert g == pytest.approx(smallest, abs=5e-6)
    assert cf.gamma_rhs(g, t.sigma, x, "paper") == pytest.approx(g, rel=1e-12)  # a fixed point
    assert cf.gamma_min(t.sigma, x) > g  # the corrected first term is larger


@given(st.floats(2.0, 40.0), st.floats(1e-5, 0.5))
def test_rhs55_decreases_in_gamma_so_the_smallest_root_is_below_the_one_step_value(sigma, x):
    g1 = cf.gamma_one_step(sigma, x)
    if math.isfinite(g1):
        gm = cf.gamma_min(sigma, x)
        assert 2.0 <= gm <= g1 * (1 + 1e-12)
        assert cf.gamma_rhs(2.5 * gm, sigma, x) <= cf.gamma_rhs(gm, sigma, x)


def test_gamma_min_is_found_where_plain_iteration_fails():
    """errata 001 §3.11a: at σ = 3.32, x = 0.41 plain iteration γ ← RHS(γ) drifts to 3.08; the root is
    9.692731635 (mpmath findroot at 40 digits; the digest's "9.67" is a loose bisection)."""
    g = cf.gamma_min(3.32, 0.41, "paper")
    assert g == pytest.approx(9.692731635038432, rel=1e-12)
    assert cf.gamma_rhs(g, 3.32, 0.41, "paper") == pytest.approx(g, rel=1e-10)


@pytest.mark.parametrize("sigma", [6.5, 12.1, 19.3])
def test_gamma_expansion_has_a_three_halves_remainder(sigma):
    rem = [(cf.rhs55(a, sigma, "paper") - cf.gamma_linear(sigma, a)) / a**1.5 for a in (1e-6, 1e-8)]
    assert 100 < rem[0] < 1000 and rem[1] == pytest.approx(rem[0], rel=0.05)


def test_rhs55_is_infinite_off_its_domain_and_the_correction_shrinks_the_domain():
    assert cf.rhs55(0.2, 20.0, "corrected") == math.inf  # needs ᾱ < 3 − 2√2 ≈ 0.1716
    assert math.isfinite(cf.rhs55(0.2, 20.0, "paper"))
    assert cf.rhs55(cf.h(3.0) * 1.0001, 3.0, "paper") == math.inf


# --- Theorems 3.1, B.4, B.2 and Lemma B.3 -----------------------------------------------------------------

def test_thm31_reports_every_condition_and_by_how_much_T_falls_short():
    check = thm31_check(0.05, 1e-4, 1e4, 5, T=1000)
    assert [c.label for c in check.conditions] == ["δ", "ε", "N", "θ", "(7)", "(55)", "(8)"]
    assert [c.label for c in check.failed] == ["(8)"]
    assert check["(8)"].rhs == pytest.approx(check.values["T_min"]) and check["(8)"].slack == pytest.approx(1000 / check.values["T_min"] - 1)
    with pytest.raises(ConditionError, match=r"\(8\) T ≥ γθ²k²/ε: 1000"):
        check.require()
    assert thm31_check(0.05, 1e-4, 1e4, 5, T=2000).holds


@pytest.mark.parametrize("kwargs, label", [(dict(eps=0.6), "ε"), (dict(delta=2e-4), "δ"), (dict(k=4.0), "(7)"),
                                           (dict(N=5000, delta=1e-4), "N"), (dict(theta=7.0), "θ")])
def test_thm31_bad_inputs_name_the_failing_condition(kwargs, label):
    args = dict(eps=0.05, delta=1e-4, N=1e4, k=5, T=10**6) | kwargs
    check = thm31_check(**args)
    assert label in [c.label for c in check.failed]


def test_thm31_rejects_non_numbers_and_non_positive_parameters():
    with pytest.raises(ValueError, match="eps must lie in"):
        thm31_check(-0.1, 1e-4, 1e4, 5)
    with pytest.raises(ValueError, match="delta must lie in"):
        thm31_check(0.1, 1.5, 1e4, 5)


def test_thmB4_conditions_32_to_35_at_table_9():
    eps = P.eps_from_sigma(T9.sigma, 1e-4)
    T = cf.T_min(eps, 5, cf.gamma_min(T9.sigma, eps / 5))
    ok = thmB4_check(eps, 1e-4, T9.sigma, 1e4, 5e4, T * 1.001)
    assert ok.holds, str(ok)
    short = thmB4_check(eps, 1e-4, T9.sigma, 1e4, 5e4, T * 0.5)
    assert [c.label for c in short.failed] == ["(34)"]
    low_sigma = thmB4_check(eps, 1e-4, 15.0, 1e4, 5e4, T * 2)
    assert "(35)" in [c.label for c in low_sigma.failed]


@pytest.mark.parametrize("t", CALCULATOR_TABLES, ids=lambda t: t.name)
def test_thmB2_reduces_to_eq6_at_the_tables_and_fails_at_the_asymptotic_batch(t):
    r = P.calculator(t.sigma, t.N, t.k, variant="paper")
    T = round(r.T_min)
    b2 = thmB2_min_eps(np.full(T, t.k * t.N / T), t.N, t.sigma, 1 / t.N)
    assert b2.holds and b2.values["eps_min"] == pytest.approx(r.eps, rel=1e-9)
    asym = thmB2_min_eps(np.full(round(r.T_min_asym), r.s_max_asym), t.N, t.sigma, 1 / t.N)
    assert not asym.holds and "r₀" in [c.label for c in asym.failed]


def test_exact_log_mgf_matches_dp_accounting_and_lemma_B3_bounds_it():
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    for sigma, q, lam in [(19.3, 0.0026, 1), (6.572, 0.00812, 43), (4.0, 0.02, 10), (10.0, 0.001, 80)]:
        lib = lam * float(rdp._compute_rdp_poisson_subsampled_gaussian(q, sigma, [lam + 1.0])[0])
        assert log_mgf_exact(lam, q, sigma) == pytest.approx(lib, rel=1e-9)
        b = lemmaB3_bound(lam, q * 1e4, 1e4, sigma)
        assert b.holds and b.values["exact"] <= b.values["bound"] <= 5 * b.values["exact"]
    assert lemmaB3_bound(1, 26, 1e4, 19.3).values["bound"] == pytest.approx(3.643e-8, rel=1e-3)  # errata 001 §3.2


def test_lemma_B3_reports_a_lambda_beyond_its_range():
    b = lemmaB3_bound(10**6, 26, 1e4, 19.3)
    assert "λ" in [c.label for c in b.failed] and "bound" not in b.values


# --- the calculators --------------------------------------------------------------------------------------

@pytest.mark.parametrize("t", CALCULATOR_TABLES, ids=lambda t: t.name)
def test_D4_calculator_reproduces_tables_9_to_11_with_the_papers_readings(t):
    r = P.calculator(t.sigma, t.N, t.k, gamma="paper", variant="paper")
    assert round(r.eps, 4) == t.eps_target
    assert (math.floor(r.s_max), math.floor(r.s_max_asym)) == t.s_max
    clt, _ = r.exact_columns("clt")
    _, doubled = r.exact_columns("clt", asym_batch_factor=2.0)
    assert (round(clt.eps, 4), round(doubled.eps, 4)) == t.eps_fdp
    assert (round(r.eps / clt.eps, 4), round(r.eps / doubled.eps, 4)) == t.factor
    assert str(t.s_max[0]) in r.table()


def test_D4_calculator_flags_table_11_outside_thm31_and_corrected_eq55_changes_s_max():
    r = P.calculator(6.572, 50_000, 7, variant="paper")
    assert not r.holds and [c.label for c in r.check.failed] == ["ε"]
    with pytest.raises(ConditionError, match="ε < 0.5"):
        r.require()
    assert math.floor(P.calculator(**TABLE9).s_max) == 25  # corrected (55): 25, printed: 26
    assert P.calculator(**TABLE9, gamma="min", variant="paper").s_max == pytest.approx(31.82, abs=0.005)  # errata 001 §7 #12


def test_D4_calculator_bad_inputs():
    with pytest.raises(ValueError, match=r"sigma\*\*2 > 2"):
        P.calculator(1.4, 1e4, 5)
    with pytest.raises(ValueError, match="gamma must be one of"):
        P.calculator(19.3, 1e4, 5, gamma="smallest")
    with pytest.raises(ValueError, match="increase k"):
        P.calculator(2.0, 1e4, 0.01)
    with pytest.raises(ValueError, match="theta must lie in"):
        P.calculator(19.3, 1e4, 5, theta=0.5)


@pytest.mark.parametrize("table", BUDGET_TABLES, ids=lambda t: t.name)
def test_E1_calculator_with_the_legacy_sigma_reproduces_the_sigma_column_of_tables_6_to_8(table):
    for row in table.rows[1:] if table.name == "Table 6" else table.rows:
        ph = phase_parameters(row.s_used, table.K, table.N, 10.0, delta=table.delta, sigma_rule="legacy", variant="paper")
        assert ph.sigma == pytest.approx(row.sigma, rel=1e-4), row


def test_E1_scan_returns_the_largest_accepted_batch_or_none():
    best = phase_calculator(5e4, 1e4, 0.25, delta=1e-4, sigma_rule="legacy", variant="paper")
    assert best.s == 103 and best.accepted
    nxt = phase_parameters(104, 5e4, 1e4, 0.25, delta=1e-4, sigma_rule="legacy", variant="paper")
    assert not nxt.accepted and nxt.eps > 0.25
    assert phase_calculator(5e4, 1e4, 1e-5) is None  # the client cannot participate
    with pytest.raises(ValueError, match="sigma_j is required"):
        phase_parameters(10, 5e4, 1e4, 0.5, previous=[(20, 100)])
    later = phase_parameters(10, 5e4, 1e4, 2.0, previous=[(20, 100)], sigma_j=5.0)
    assert later.theta == pytest.approx(20 / later.s_bar) and later.eps >= P.eps_from_sigma(5.0, 1e-4)


def test_cli_prints_the_table_and_reports_bad_input(capsys):
    assert cli(["calculator", "--sigma", "19.29962", "--N", "10000", "--k", "5", "--variant", "paper"]) == 0
    out = capsys.readouterr().out
    assert "26" in out and "198" in out and "0.0105" in out
    assert cli(["eps", "--sigma", "1.2", "--delta", "1e-4"]) == 2
    assert "sigma**2 > 2" in capsys.readouterr().err


# --- exact accountants ------------------------------------------------------------------------------------

def test_accountants_at_table_9_and_their_order():
    q, T = 26.067 / 1e4, 1918
    eps = {a: exact_epsilon(T9.sigma, q=q, T=T, delta=1e-4, accountant=a) for a in ("pld", "rdp", "clt", "clt_poisson")}
    eps["rdp_wor"] = exact_epsilon(T9.sigma, q=26 / 1e4, T=T, delta=1e-4, accountant="rdp_wor", N=10_000)  # a whole batch
    assert eps["clt"].eps == pytest.approx(0.010527, abs=2e-6)  # the paper's ε_f-DP
    assert eps["pld"].eps == pytest.approx(0.01029, abs=1e-5)
    assert eps["pld"].eps < eps["rdp"].eps < eps["rdp_wor"].eps
    assert eps["pld"].certified and not eps["clt"].certified
    assert eps["pld"].neighbouring is Neighbouring.ADD_REMOVE and eps["rdp_wor"].neighbouring is Neighbouring.REPLACE_ONE


def test_pld_discretisation_default_is_converged():
    fine = exact_epsilon(T9.sigma, q=26.067 / 1e4, T=1918, delta=1e-4, discretization=3e-6).eps
    assert exact_epsilon(T9.sigma, q=26.067 / 1e4, T=1918, delta=1e-4).eps == pytest.approx(fine, rel=1e-3)


def test_gdp_closed_form_equals_pld_for_one_gaussian():
    for sigma in (0.8, 2.0, 6.0):
        assert exact_epsilon(sigma, q=1.0, T=1, delta=1e-5).eps == pytest.approx(gdp_epsilon(1 / sigma, delta=1e-5), rel=2e-3)


def test_dp_accountings_replace_one_conventions_are_detected_and_compensated():
    assert replace_one_sensitivity() == {"pld": 2.0, "rdp": 1.0}
    # full batch under replace-one: a Gaussian of sensitivity 2C, whichever convention the library uses
    assert exact_epsilon(4.0, q=1.0, T=16, delta=1e-5, accountant="rdp_wor", N=100).eps == pytest.approx(exact_epsilon(2.0, q=1.0, T=16, delta=1e-5, accountant="rdp").eps, rel=1e-9)


def test_exact_epsilon_bad_inputs():
    with pytest.raises(ValueError, match="accountant must be one of"):
        exact_epsilon(2.0, q=0.1, T=10, delta=1e-5, accountant="moments")
    with pytest.raises(ValueError, match="needs N"):
        exact_epsilon(2.0, q=0.1, T=10, delta=1e-5, accountant="rdp_wor")
    with pytest.raises(ValueError, match="whole number"):
        exact_epsilon(2.0, q=0.1, T=10.5, delta=1e-5, accountant="pld")
    with pytest.raises(ValueError, match="q must lie in"):
        exact_epsilon(2.0, q=1.5, T=10, delta=1e-5)


def test_exact_minimal_T_at_table_9_and_the_monotonicity_it_relies_on():
    eps_target = P.eps_from_sigma(T9.sigma, 1e-4)
    T = exact_minimal_T(eps_target, sigma=T9.sigma, k=5, delta=1e-4)
    assert T == 138  # errata 001 §4: PLD needs 138 rounds where Thm 3.1 asks 1918 (one-step γ)
    at = lambda t: exact_epsilon(T9.sigma, q=5 / t, T=t, delta=1e-4).eps
    assert at(T) <= eps_target < at(T - 1)
    eps = [at(t) for t in (20, 60, 200, 600, 2000)]
    assert all(a > b for a, b in zip(eps, eps[1:]))


def test_thm31_is_sound_against_pld_at_its_own_T_min():
    for N, eps, k in [(1e4, 0.05, 5), (6e4, 0.3, 20)]:
        sigma = P.sigma_from_eps(eps, 1 / N)
        T = math.ceil(cf.T_min(eps, k, cf.gamma_min(sigma, eps / k)))
        assert thm31_check(eps, 1 / N, N, k, T=T).holds
        assert exact_epsilon(sigma, q=k / T, T=T, delta=1 / N).eps <= eps


def test_calibrating_sigma_with_pld_recovers_the_target():
    sigma = calibrate_sigma(0.05, delta=1e-4, q=0.0026, T=1918)
    assert exact_epsilon(sigma, q=0.0026, T=1918, delta=1e-4).eps == pytest.approx(0.05, rel=1e-5)
    assert sigma < P.sigma_from_eps(0.05, 1e-4) / 3  # eq. (6) needs σ = 19.25 for the same (ε, δ) with T ≥ T_min


# --- bad input names its parameter (issue 16's validation gaps) -------------------------------------------


@pytest.mark.parametrize("kwargs, message", [
    (dict(sigma=-1.0, q=0.01, T=100), "sigma must lie in (0, inf)"),
    (dict(sigma=1.0, q=2.0, T=100), "q must lie in (0, 1]"),
    (dict(sigma=1.0, q=0.01, T=0.0), "T must lie in (0, inf)"),
])
def test_mu_clt_refuses_a_negative_sigma_a_rate_above_one_and_no_steps(kwargs, message):
    from dptheory.accounting.gdp import mu_clt

    sigma = kwargs.pop("sigma")
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")):
        mu_clt(sigma, **kwargs)


def test_lemma_b3_refuses_a_fractional_moment_order_instead_of_truncating_it():
    with pytest.raises(ValueError, match="lam must be an integer"):
        lemmaB3_bound(2.7, 26, 1e4, 19.3)
    assert lemmaB3_bound(3.0, 26, 1e4, 19.3).values == lemmaB3_bound(3, 26, 1e4, 19.3).values


def test_calibrate_sigma_refuses_a_fractional_number_of_rounds():
    with pytest.raises(ValueError, match="T must be an integer"):
        calibrate_sigma(1.0, delta=1e-5, q=0.01, T=10.5)


def test_phase_parameters_refuses_a_fractional_sample_size_instead_of_truncating_it():
    with pytest.raises(ValueError, match="s must be an integer"):
        phase_parameters(3.7, 5e4, 1e4, 0.5)
    whole = phase_parameters(4.0, 5e4, 1e4, 0.5)
    assert whole.s == 4 and whole == phase_parameters(4, 5e4, 1e4, 0.5)
    assert phase_parameters(4, 5e4, 1e4, 0.5).sigma != phase_parameters(3, 5e4, 1e4, 0.5).sigma  # s matters


def test_D4_calculator_lists_thm31s_hypotheses_but_not_8_which_T_min_meets_by_construction():
    r = P.calculator(**TABLE9, variant="paper")
    assert [c.label for c in r.check.conditions] == ["δ", "ε", "N", "θ", "(7)", "(55)"]
    # (8) is a real condition elsewhere: at a T below T_min it fails
    assert not thm31_check(r.eps, r.delta, r.N, r.k, T=0.9 * r.T_min, gamma="paper", variant="paper").holds


# --- Algorithm 1 as written: a bracket on its ε (fixed batch, replace-one) --------------------------------


def _pair_pld(sigma, q, T, delta, pessimistic):
    """dp_accounting's PLD of the Poisson add/remove subsampled Gaussian (sensitivity 2, i.e. σ/2), one estimate."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    one = pld.from_gaussian_mechanism(sigma, sensitivity=2.0, pessimistic_estimate=pessimistic,
                                      value_discretization_interval=1e-5, sampling_prob=q, use_connect_dots=pessimistic)
    return one.self_compose(T).get_epsilon_for_delta(delta)


@pytest.mark.parametrize("sigma, s, N, delta", [(2.0, 100, 1000, 1e-5), (1.0, 10, 10, 1e-3), (6.0, 30, 1000, 1e-4)])
def test_lower_end_at_one_round_is_the_exact_pair_that_dp_accounting_brackets(sigma, s, N, delta):
    """T = 1: the statistic S is the whole output, so the closed form is the pair's exact ε; dp_accounting's
    optimistic and pessimistic PLDs of the Poisson pair at σ/2 (a different algorithm) must sandwich it."""
    lo = realisable_lower_bound(sigma, s=s, N=N, T=1, delta=delta)
    opt, pess = _pair_pld(sigma, s / N, 1, delta, False), _pair_pld(sigma, s / N, 1, delta, True)
    assert opt - 1e-9 <= lo <= pess + 1e-9
    assert pess - opt < 2e-3 * pess  # the sandwich is tight, so the check has teeth


def test_lower_end_at_table_9_is_the_issues_0_024_and_a_post_processing_of_the_pair():
    """Table 9 (T = 1918, s = 26): 0.02373, below dp_accounting's pessimistic PLD of the whole pair (data processing:
    S sees less than the pair) and within 0.5% of it (S is nearly sufficient at σ = 19.3, q = 0.0026)."""
    lo = realisable_lower_bound(T9.sigma, s=26, N=10_000, T=1918, delta=1e-4)
    pair = _pair_pld(T9.sigma, 26 / 1e4, 1918, 1e-4, True)
    assert lo == pytest.approx(0.023727, abs=5e-6)
    assert 0.995 * pair <= lo <= pair


def test_lower_end_agrees_with_a_literal_simulation_of_algorithm_1_on_the_pair():
    """Alg. 1 run as written on d = N records with clipped gradient +C·e₁ and d' = one of them −C·e₁: each round a
    uniform s-subset (drawn literally, by ranking N uniform keys), U₁ = C·Σ_batch ξ + Cσ·Z; S = Σ_t (U₁ − sC)/(2C).
    The Monte-Carlo δ(ε) of S (both orders, exact densities as the test's own oracle) contains the closed form."""
    from scipy import stats
    from scipy.special import logsumexp

    sigma, s, N, T, eps, C = 2.0, 3, 10, 20, 1.0, 0.7
    rng = np.random.default_rng(0)
    n = 20_000
    xi = np.full(N, C)
    xi_prime = xi.copy()
    xi_prime[0] = -C
    keys = rng.random((n, T, N))
    in_batch = np.argsort(np.argsort(keys, axis=2), axis=2) < s  # rank < s: the s smallest keys form the batch
    noise = C * sigma * rng.standard_normal((2, n, T))
    S_d = ((in_batch * xi).sum(axis=2) + noise[0] - s * C).sum(axis=1) / (2 * C)
    S_dp = ((in_batch * xi_prime).sum(axis=2) + noise[1] - s * C).sum(axis=1) / (2 * C)
    tau, j = math.sqrt(T) * sigma / 2, np.arange(T + 1)
    log_p = lambda x: stats.norm.logpdf(x, 0.0, tau)
    log_q = lambda x: logsumexp(stats.binom.logpmf(j, T, s / N)[None, :] + stats.norm.logpdf(x[:, None], -j[None, :], tau), axis=1)
    terms = [np.maximum(0.0, 1 - np.exp(eps - (log_p(S_d) - log_q(S_d)))),     # order (d, d'), under d
             np.maximum(0.0, 1 - np.exp(eps - (log_q(S_dp) - log_p(S_dp))))]  # order (d', d), under d'
    mc = [(t.mean(), t.std(ddof=1) / math.sqrt(n)) for t in terms]
    exact = realisable_pair_delta(eps, sigma, s=s, N=N, T=T)
    best = max(mc)
    assert abs(best[0] - exact) <= 4 * best[1], (mc, exact)
    assert best[1] < 0.05 * exact  # a precise comparison: δ ≈ 0.1 to within a few percent
    # and the batch membership is what the reduction says: the replaced record is in a round's batch w.p. s/N
    assert in_batch[:, :, 0].mean() == pytest.approx(s / N, abs=4 * math.sqrt(0.3 * 0.7 / (n * T)))


def test_bracket_verdicts_say_undetermined_when_the_target_lies_inside():
    b = SpendBracket(sigma=19.3, s=26, N=10_000, T=1918, delta=1e-4, lo=0.024, pair_upper=0.0241, hi=0.063)
    assert [b.verdict(t) for t in (0.0497, 0.07, 0.02, 0.063, 0.024)] == ["undetermined", "holds", "fails", "holds", "undetermined"]
    assert b.describe(0.0497) == "undetermined: target 0.0497 within [0.024, 0.063]"
    assert b.describe(0.02).startswith("fails:") and "0.024" in repr(b)
    with pytest.raises(ValueError, match="eps_target must lie in"):
        b.verdict(-1.0)


def test_bracket_at_table_9_leaves_thm31_undetermined_for_algorithm_1_as_written():
    b = algorithm1_spend(T9.sigma, s=26, N=10_000, T=1918, delta=1e-4)
    assert b.lo == pytest.approx(0.023727, abs=5e-6) and b.hi == pytest.approx(0.0630, abs=5e-5)
    assert b.lo <= b.pair_upper <= b.hi
    assert b.verdict(P.eps_from_sigma(T9.sigma, 1e-4)) == "undetermined"


@pytest.mark.slow
def test_bracket_is_ordered_on_the_whole_tightness_grid():
    """Both ends bound the same ε from either side, by independent routes: lower ≤ upper at ⌈T_min⌉ (γ smallest
    root) on the grid of verify/proactive_tightness.py (N ∈ {10⁴, 6·10⁴}, ε ∈ {.05, .15, .3, .45}, k ∈ {5, 20, 50})."""
    worst = 0.0
    for N in (10_000, 60_000):
        for eps in (0.05, 0.15, 0.3, 0.45):
            for k in (5, 20, 50):
                sigma = P.sigma_from_eps(eps, 1 / N)
                T = math.ceil(cf.T_min(eps, k, cf.gamma_min(sigma, eps / k)))
                s = round(k * N / T)
                lo = realisable_lower_bound(sigma, s=s, N=N, T=T, delta=1 / N)
                hi = exact_epsilon(sigma, q=s / N, T=T, delta=1 / N, accountant="rdp_wor", N=N).eps
                assert 0 < lo <= hi, (N, eps, k, lo, hi)
                assert lo <= eps  # no grid point where Alg. 1 provably fails Thm 3.1 (issue 16: closest 0.40 vs 0.45)
                worst = max(worst, lo / eps)
    assert 0.8 < worst < 0.9  # the closest point, N = 6·10⁴, ε = 0.45, k = 50: 0.3955/0.45


@pytest.mark.parametrize("kwargs, message", [(dict(s=26.5), "s must be an integer"), (dict(s=20_000), r"s must lie in \[1, 10000\]"),
                                             (dict(T=10.5), "T must be an integer"), (dict(N=1e4 + 0.5), "N must be an integer")])
def test_bracket_refuses_a_fractional_batch_rounds_or_data_set(kwargs, message):
    args = dict(s=26, N=10_000, T=100, delta=1e-4) | kwargs
    with pytest.raises(ValueError, match=message):
        realisable_lower_bound(19.3, **args)
