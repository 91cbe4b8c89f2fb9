"""The frequency-domain bound for strongly convex losses (seed 004, Thm 3.1 / Thm E.1; digest §5, §8 #29–#32).

Tolerances: Clarabel's default gap tolerance is 1e-8 relative; the ω grid (600 points) changes the bound
by < 1e-3 relative (docs/socp_convergence.md), which bounds every comparison with a continuous quantity.
"""

import math
import warnings

import numpy as np
import pytest

import dptheory as dpt
from dptheory.iqc import F_inf_bound, minimum_phase_factor, optimize_correlation

warnings.filterwarnings("ignore", message="Solution may be inaccurate")


def quadratic_F_inf(beta, h, problem, rho=1.0):
    """Exact F∞ of the quadratic F = (h/2)‖θ‖² in d dimensions (analytic core, LTI = exact here)."""
    return dpt.F_inf(beta, dpt.LinearRegression(problem.eta, [h] * problem.d), rho=rho, kind="lti")


@pytest.mark.parametrize("beta", [dpt.dpsgd(), dpt.nu_ftrl(0.3), [1.0, -0.6, 0.1]], ids=repr)
def test_bound_is_the_exact_quadratic_value_when_mu_equals_L(beta):
    problem = dpt.StronglyConvex(eta=0.5, mu=1.0, L=1.0, d=3)
    assert F_inf_bound(beta, problem, rho=1.0).value == pytest.approx(quadratic_F_inf(beta, 1.0, problem), rel=1e-12)


def test_bound_tends_to_the_exact_value_as_kappa_tends_to_1():
    """μ = 0.999 L: the SOCP is solved to optimality and exceeds the worst quadratic by < 0.2% (the 600-point
    grid alone contributes ~5e-4, docs/socp_convergence.md)."""
    problem = dpt.StronglyConvex(eta=0.5, mu=0.999, L=1.0)
    res = F_inf_bound(dpt.dpsgd(), problem, rho=1.0)
    worst = max(quadratic_F_inf(dpt.dpsgd(), h, problem) for h in (0.999, 1.0))
    assert res.solver_stats["status"] == "optimal"
    assert worst <= res.value <= worst * 1.002


@pytest.mark.parametrize("beta", [dpt.dpsgd(), dpt.nu_ftrl(0.05), [1.0, -0.5, 0.2]], ids=repr)
@pytest.mark.parametrize("eta, mu, L", [(1.0, 0.1, 1.0), (0.5, 0.01, 1.0), (0.2, 0.5, 2.0)])
def test_bound_is_at_least_the_exact_F_inf_of_every_quadratic_in_the_class(beta, eta, mu, L):
    """Quadratics with curvature h ∈ [μ, L] are in the class, so the bound must dominate their exact F∞."""
    problem = dpt.StronglyConvex(eta=eta, mu=mu, L=L, d=2)
    bound = F_inf_bound(beta, problem, rho=1.0).value
    for h in np.linspace(mu, L, 9):
        # the quadratic's suboptimality is (h/2)‖θ‖² ≤ (L/2)‖θ‖²; compare like with like
        assert quadratic_F_inf(beta, h, problem) <= bound * (1 + 1e-6)


def test_paper_constant_is_four_times_the_corrected_one_without_gradient_noise():
    problem = dpt.StronglyConvex(eta=1.0, mu=0.1, L=1.0)
    corrected = F_inf_bound(dpt.dpsgd(), problem, rho=1.0).value
    paper = F_inf_bound(dpt.dpsgd(), problem, rho=1.0, variant="paper").value
    assert paper == pytest.approx(4 * corrected, rel=1e-6)


@pytest.mark.parametrize("beta, expected", [(dpt.dpsgd(), 257.1), (dpt.nu_ftrl(0.01), 143.2)], ids=["dpsgd", "nu"])
def test_digest_values_at_kappa_100(beta, expected):
    """digest §5.4: L = G = ρ = d = 1, η = 1, κ = 100, N = 600, K = 20 (paper constant, 4 digits printed)."""
    res = F_inf_bound(beta, dpt.StronglyConvex(eta=1.0, mu=0.01, L=1.0), rho=1.0, variant="paper")
    assert res.value == pytest.approx(expected, rel=5e-4)
    assert res.solver_stats["status"] == "optimal" and not res.solver_stats["multiplier_cap_active"]


@pytest.mark.parametrize("kappa", [1e3, 1e4])
def test_solver_reports_optimal_up_to_kappa_1e4(kappa):
    res = F_inf_bound(dpt.nu_ftrl(1.0 / kappa), dpt.StronglyConvex(eta=1.0, mu=1.0 / kappa, L=1.0), rho=1.0)
    assert res.solver_stats["status"] == "optimal"
    assert res.solver_stats["solve_time"] < 30  # generous: reported, not a performance test


def _iqc_sum(theta, mu, L, lam, sign):
    """Σ_t ⟨Lθ_t − g_t, λ_0(g_t − μθ_t) + sign·Σ_k λ_k(g_{t−k} − μθ_{t−k})⟩ for ∇F = μθ + (L−μ)max(θ, 0)."""
    g = mu * theta + (L - mu) * np.maximum(theta, 0)
    p, qv = L * theta - g, g - mu * theta
    total = lam[0] * np.dot(p, qv)
    for k in range(1, len(lam)):
        total += sign * lam[k] * np.dot(p[k:], qv[:-k])
    return total


def test_zames_falb_multiplier_sign():
    """digest §8 #32: the valid multiplier is λ_0 − Σλ_k e^{−iωk}; the literal OCR '+' violates the IQC."""
    theta = np.random.default_rng(0).standard_normal(100_000)
    lam = [1.0, 0.5, 0.3]
    assert _iqc_sum(theta, 0.1, 1.0, lam, sign=-1) > 0
    assert _iqc_sum(theta, 0.1, 1.0, lam, sign=+1) < 0


def test_infinite_sensitivity_gives_an_infinite_bound_said_plainly():
    res = F_inf_bound(dpt.anti_pgd(), dpt.StronglyConvex(eta=1.0, mu=0.1, L=1.0), rho=1.0)
    assert res.value == math.inf and "gamma_inf = inf" in res.solver_stats["status"]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(eta=1.0, mu=0.0, L=1.0), "mu must lie in"),
        (dict(eta=1.0, mu=0.5, L=0.2), "L must lie in"),
        (dict(eta=2.0, mu=0.1, L=1.0), r"eta must lie in \(0, 2\)"),
        (dict(eta=1.0, mu=0.1, L=1.0, d=0), "d must be a positive integer"),
        (dict(eta=1.0, mu=0.1, L=1.0, loss="hinge"), "loss must be one of"),
    ],
)
def test_bad_strongly_convex_parameters_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        dpt.StronglyConvex(**kwargs)


def test_a_solve_that_is_not_optimal_raises_with_the_status(monkeypatch):
    """A solver stopped after 3 iterations: the bound is refused and the status quoted, never returned."""
    import cvxpy as cp

    solve = cp.Problem.solve
    monkeypatch.setattr(cp.Problem, "solve", lambda self, **kw: solve(self, max_iter=3, **kw))
    with pytest.raises(RuntimeError, match="not solved to optimality: solver status"):
        F_inf_bound(dpt.dpsgd(), dpt.StronglyConvex(eta=1.0, mu=0.01, L=1.0), rho=1.0)


def test_alternating_minimisation_is_monotone_and_its_beta_reproduces_the_bound():
    """digest §5.4: κ = 100, η = 1 → Optimized J ≈ 116.4 < ν-FTRL 143.2, in ≤ 6 iterations."""
    problem = dpt.StronglyConvex(eta=1.0, mu=0.01, L=1.0)
    opt = optimize_correlation(problem)
    assert np.all(np.diff(opt.history) <= 1e-5 * opt.history[0])
    assert len(opt.history) <= 8
    assert opt.history[-1] == pytest.approx(116.4, rel=1e-3)
    beta = opt.beta
    assert beta.is_minimum_phase()
    again = F_inf_bound(beta, problem, rho=1.0, variant="paper").value
    assert again == pytest.approx(opt.history[-1], rel=1e-3)
    # usable everywhere: sensitivity, F∞ of a quadratic, simulation
    assert math.isfinite(beta.limiting_sensitivity())
    assert math.isfinite(dpt.F_inf(beta, dpt.MeanEstimation(0.5), rho=1.0))


def test_minimum_phase_factor_recovers_a_known_sequence():
    target = dpt.toeplitz([1.0, -0.6, 0.1])
    beta = minimum_phase_factor(target.spectrum)
    np.testing.assert_allclose(beta.beta[:3], [1.0, -0.6, 0.1], atol=1e-10)
    assert np.max(np.abs(beta.beta[3:]), initial=0.0) < 1e-10


@pytest.mark.parametrize("loss", ["piecewise_quadratic", "logistic"])
def test_simulated_non_quadratic_losses_lie_below_the_bound(loss):
    """Thm 3.1 on two non-quadratic μ-strongly convex, L-smooth losses: the simulation's upper 99.7% limit
    is below the bound (here by a factor ≥ 5: the IQC bound is conservative)."""
    problem = dpt.StronglyConvex(eta=0.5, mu=0.1, L=1.0, d=4, sigma_sgd=0.3, loss=loss)
    for beta in (dpt.dpsgd(), dpt.nu_ftrl(problem.eta * problem.mu)):
        sim = dpt.simulate(beta, problem, rho=1.0, seeds=16, seed=5)
        assert sim.interval(0.997)[1] < F_inf_bound(sim.mechanism, problem, rho=1.0).value


def test_simulated_quadratic_equals_the_bound_when_mu_equals_L():
    problem = dpt.StronglyConvex(eta=0.5, mu=0.5, L=0.5, d=4, loss="quadratic")
    sim = dpt.simulate(dpt.nu_ftrl(0.25), problem, rho=1.0, seeds=64, seed=6)
    assert abs(sim.mean - F_inf_bound(sim.mechanism, problem, rho=1.0).value) <= 3 * sim.stderr
