"""Monte-Carlo of Noisy-FTRL / DP-FTRL against the exact F∞ (seed 004 Thm 2.1, Thm 2.2, App. B, App. C).

Each check: the exact prediction for the simulated mechanism lies within 3 standard errors (across
independent chains) of the simulated time-averaged suboptimality. At 3σ a correct simulation fails one
check in ~370; the seeds are fixed, so the suite is deterministic.
"""

import math
import warnings

import numpy as np
import pytest

import dptheory as dpt

MEAN_BETAS = [dpt.dpsgd(), dpt.nu_ftrl(0.05), dpt.mean_estimation_optimal(0.1), [1.0, -0.7, 0.2, 0.05]]


@pytest.mark.parametrize("beta", MEAN_BETAS, ids=repr)
def test_mean_estimation_simulation_matches_exact_F_inf(beta):
    problem = dpt.MeanEstimation(0.1, sigma_sgd=0.5)
    sim = dpt.simulate(beta, problem, rho=1.0, seeds=128, steps=4000, seed=1)
    exact = dpt.F_inf(sim.mechanism, problem, rho=1.0)
    assert abs(sim.mean - exact) <= 3 * sim.stderr, sim


@pytest.mark.parametrize("beta", [dpt.dpsgd(), dpt.nu_ftrl(0.05 / 8), [1.0, -0.6, 0.1]], ids=repr)
def test_linear_regression_simulation_matches_exact_gaussian_F_inf_and_lies_between_the_bounds(beta):
    """d = 8, λ_k = 1/k, η = 0.05 (ηR² = 0.24 < 1): exact within 3 SE, and Thm C.18 ≤ simulated ≤ Thm C.15."""
    problem = dpt.LinearRegression(0.05, 1.0 / np.arange(1, 9), sigma_sgd=0.3)
    sim = dpt.simulate(beta, problem, rho=1.0, seeds=64, seed=2)
    exact = dpt.F_inf(sim.mechanism, problem, rho=1.0)
    assert abs(sim.mean - exact) <= 3 * sim.stderr, sim
    lo, hi = sim.interval(0.997)
    assert dpt.F_inf(sim.mechanism, problem, rho=1.0, kind="lower") <= hi
    assert lo <= dpt.F_inf(sim.mechanism, problem, rho=1.0, kind="upper")
    # and the LTI surrogate is measurably below the truth here (the (1 + O(ηR²)) factor)
    assert dpt.F_inf(sim.mechanism, problem, rho=1.0, kind="lti") < lo


def test_same_seed_same_numbers_and_a_different_seed_different_numbers():
    problem = dpt.LinearRegression(0.05, [1.0, 0.5])
    a = dpt.simulate(dpt.nu_ftrl(0.1), problem, rho=1.0, seeds=4, steps=500, seed=7)
    b = dpt.simulate(dpt.nu_ftrl(0.1), problem, rho=1.0, seeds=4, steps=500, seed=7)
    c = dpt.simulate(dpt.nu_ftrl(0.1), problem, rho=1.0, seeds=4, steps=500, seed=8)
    np.testing.assert_array_equal(a.chain_means, b.chain_means)
    assert not np.array_equal(a.chain_means, c.chain_means)


def test_block_size_changes_the_draw_order_but_not_the_statistics():
    """The generator is consumed block by block: equal blocks give identical streams, different blocks a
    different stream of the same law (means agree within 4 combined standard errors)."""
    problem = dpt.LinearRegression(0.05, [1.0, 0.5])
    run = lambda block: dpt.simulate([1.0, -0.5], problem, rho=1.0, seeds=64, steps=3000, seed=3, block=block)
    a, b, c = run(64), run(64), run(1000)
    np.testing.assert_array_equal(a.chain_means, b.chain_means)
    assert not np.array_equal(a.chain_means, c.chain_means)
    assert abs(a.mean - c.mean) <= 4 * math.hypot(a.stderr, c.stderr)


def test_dp_ftrl_with_a_large_clip_norm_is_noisy_ftrl_and_clipping_bites_when_small():
    problem = dpt.MeanEstimation(0.2, sigma_sgd=0.8)  # |∇f| = |z| ≤ 0.8
    args = dict(rho=1.0, G=1.0, seeds=8, steps=1000, seed=4)
    noisy = dpt.simulate(dpt.nu_ftrl(0.2), problem, **args)
    clipped = dpt.simulate(dpt.nu_ftrl(0.2), problem, clip=True, **args)
    np.testing.assert_array_equal(noisy.chain_means, clipped.chain_means)
    lin = dpt.LinearRegression(0.05, [1.0, 0.5], sigma_sgd=1.0)
    a = dpt.simulate(dpt.dpsgd(), lin, rho=1.0, G=0.1, seeds=8, steps=1000, seed=4)
    b = dpt.simulate(dpt.dpsgd(), lin, rho=1.0, G=0.1, seeds=8, steps=1000, seed=4, clip=True)
    assert not np.array_equal(a.chain_means, b.chain_means)


def test_unstable_step_size_is_refused_before_running():
    problem = dpt.LinearRegression(0.33, 1.0 / np.arange(1, 129))
    with pytest.raises(ValueError, match=r"eta must lie in \(0, 0\.3253"):
        dpt.simulate(dpt.dpsgd(), problem, rho=1.0, seeds=2, steps=10)


def test_non_finite_iterates_stop_with_the_step():
    with pytest.raises(FloatingPointError, match="non-finite iterate or loss by step 10"):
        dpt.simulate(dpt.dpsgd(), dpt.MeanEstimation(0.1), rho=5e-324, seeds=2, steps=10, burn_in=0)


def test_non_minimum_phase_beta_is_refused():
    with pytest.raises(ValueError, match="minimum phase"):
        dpt.simulate([1.0, -2.0], dpt.MeanEstimation(0.1), rho=1.0, seeds=2, steps=10)


def test_missing_cupy_falls_back_to_numpy_with_a_warning(monkeypatch):
    monkeypatch.setenv("DPTHEORY_BACKEND", "cupy")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            import cupy  # noqa: F401
        except ImportError:
            sim = dpt.simulate(dpt.dpsgd(), dpt.MeanEstimation(0.1), rho=1.0, seeds=2, steps=10)
            assert sim.settings["backend"] == "numpy"
            assert any("CuPy backend unavailable" in str(w.message) for w in caught)
        else:
            pytest.skip("CuPy is installed here")


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="backend must be one of"):
        dpt.simulate(dpt.dpsgd(), dpt.MeanEstimation(0.1), rho=1.0, seeds=2, steps=10, backend="jax")


def test_result_interval_contains_the_mean():
    sim = dpt.simulate(dpt.dpsgd(), dpt.MeanEstimation(0.1), rho=1.0, seeds=16, steps=500)
    lo, hi = sim.interval()
    assert lo < sim.mean < hi and math.isclose(hi - sim.mean, sim.mean - lo)
    assert "95% CI" in repr(sim)
