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


@pytest.mark.parametrize("beta, taps", [([1.0, -0.5], None), (dpt.nu_ftrl(0.05), 600)], ids=["direct", "FFT"])
def test_the_block_changes_no_number(beta, taps):
    """Each array has its own generator, drawn block after block: any block gives the same random numbers, so the
    same results to rounding (the loss is summed a block at a time, and the FFT's transform length follows the
    block: 1e-12 relative is ~1e4 ulp), where 0.1.0's one generator gave another draw at every block."""
    problem = dpt.LinearRegression(0.05, [1.0, 0.5])
    run = lambda block: dpt.simulate(beta, problem, rho=1.0, seeds=16, steps=3000, seed=3, block=block, taps=taps)
    a, c = run(64), run(1000)
    assert not np.array_equal(a.chain_means, dpt.simulate(beta, problem, rho=1.0, seeds=16, steps=3000, seed=4,
                                                         block=64, taps=taps).chain_means)
    np.testing.assert_allclose(a.chain_means, c.chain_means, rtol=1e-12)


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


def test_step_size_beyond_the_second_moment_threshold_is_refused_before_running():
    problem = dpt.LinearRegression(0.33, 1.0 / np.arange(1, 129))  # eta_max_gaussian = 0.325342
    with pytest.raises(ValueError, match=r"eta must lie in \(0, 0\.317054\).*second moment from eta_max_gaussian = 0\.325342"):
        dpt.simulate(dpt.dpsgd(), problem, rho=1.0, seeds=2, steps=10)


@pytest.mark.parametrize(
    "problem, beta",
    [(dpt.LinearRegression(0.55, [1.0]), dpt.dpsgd()), (dpt.LinearRegression(0.5, [1.0, 0.5], sigma_sgd=0.3), [1.0, -0.5])],
    ids=["d=1,eta=.55", "d=2,eta=.5"],
)
def test_step_size_with_an_infinite_fourth_moment_is_refused(problem, beta):
    """Issue 18's cases: second moment finite (η < eta_max_gaussian), fourth infinite, and 10/20 resp. 12/20
    Student-t intervals covered the exact F∞ when they were simulated."""
    assert problem.eta_max_fourth_moment < problem.eta < problem.eta_max_gaussian
    with pytest.raises(ValueError, match=r"eta must lie in \(0, 0\.3\d+\).*fourth moment.*no confidence interval is valid"):
        dpt.simulate(beta, problem, rho=1.0, seeds=2, steps=10)


def test_below_the_fourth_moment_threshold_the_intervals_cover():
    """The configuration that covered 12/20 at η = 0.5 > 0.3749, at η = 0.15: ≥ 17 of 20 independent runs'
    95 % intervals contain the exact F∞ (P[≤ 16 | 95 %] = 1.6 %)."""
    problem = dpt.LinearRegression(0.15, [1.0, 0.5], sigma_sgd=0.3)
    exact = dpt.F_inf([1.0, -0.5], problem, rho=1.0)
    runs = [dpt.simulate([1.0, -0.5], problem, rho=1.0, seeds=16, seed=s) for s in range(20)]
    assert sum(lo <= exact <= hi for lo, hi in (r.interval() for r in runs)) >= 17


def test_a_truncation_that_moves_F_inf_is_recorded_and_warned():
    """ν-FTRL with ν = 1e-6 at the default 2¹⁴ taps: the simulated β has 15 % less F∞ than the requested one."""
    problem = dpt.MeanEstimation(0.1)
    beta = dpt.nu_ftrl(1e-6)
    with pytest.warns(UserWarning, match=r"first 16384 taps of nu_ftrl\(1e-06\).*moves F_inf from 0\.01624"):
        sim = dpt.simulate(beta, problem, rho=1.0, seeds=4, steps=200, burn_in=0)
    t = sim.truncation
    assert (t.requested, t.taps, sim.mechanism.beta.size) == ("nu_ftrl(1e-06)", 16384, 16384)
    assert t.F_inf_requested == pytest.approx(dpt.F_inf(beta, problem, rho=1.0), rel=1e-13)  # simulate's BLAS: one thread
    assert t.F_inf_simulated == pytest.approx(dpt.F_inf(sim.mechanism, problem, rho=1.0), rel=1e-13)  # simulate's BLAS: one thread
    assert t.relative_shift == pytest.approx(-0.147, abs=0.005)
    assert t.gamma_ratio == pytest.approx(sim.settings["sigma_dp"] * math.sqrt(2.0) / beta.limiting_sensitivity())  # ρ = 1


def test_a_truncation_below_the_standard_error_is_recorded_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim = dpt.simulate(dpt.nu_ftrl(0.05), dpt.MeanEstimation(0.1), rho=1.0, seeds=4, steps=200, taps=2000)
    assert abs(sim.truncation.relative_shift) < 1e-12 and sim.truncation.taps == sim.mechanism.beta.size == 2000


def test_nu_ftrl_at_the_default_taps_runs_its_blt_stand_in_and_records_it():
    """ν = 0.05: the cost model takes nu_ftrl_blt (≈ 10 ns per step and column against the 1000-tap truncation's
    FFT, ≈ 25 ns); ``result.mechanism`` is the BLT, whose exact F∞ is within 1e-6 relative of ν-FTRL's (its
    docstring states 2.3e-7 measured), and the run estimates it (3 SE). Outside ν ∈ [1e-5, 0.5] (its measured
    range), and whenever ``taps`` is given, the truncation runs."""
    problem = dpt.LinearRegression(0.05, [1.0, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim = dpt.simulate(dpt.nu_ftrl(0.05), problem, rho=1.0, seeds=32, seed=5)
    t = sim.truncation
    assert isinstance(sim.mechanism, dpt.BLT) and t.stand_in == sim.mechanism.name == "nu_ftrl_blt(0.05, step=0.45)"
    assert t.taps is None and sim.settings["taps"] is None
    assert sim.settings["route"].startswith("stand-in nu_ftrl_blt(0.05, step=0.45): BLT, ")
    assert t.F_inf_simulated == pytest.approx(dpt.F_inf(sim.mechanism, problem, rho=1.0), rel=1e-13)  # simulate's BLAS: one thread
    assert abs(t.relative_shift) < 1e-6
    assert abs(sim.mean - t.F_inf_simulated) <= 3 * sim.stderr, sim
    assert dpt.simulate(dpt.nu_ftrl(0.05), problem, rho=1.0, seeds=2, steps=10, taps=50).truncation.stand_in is None
    with pytest.warns(UserWarning, match="first 16384 taps"):
        far = dpt.simulate(dpt.nu_ftrl(1e-6), dpt.MeanEstimation(0.1), rho=1.0, seeds=4, steps=200, burn_in=0)
    assert far.truncation.stand_in is None


@pytest.mark.parametrize("beta, route", [
    (dpt.dpsgd(), "white noise (beta = (1))"),
    (dpt.toeplitz([1.0, -0.6, 0.1]), "direct sum over 3 taps"),
    (dpt.toeplitz(dpt.nu_ftrl(0.01).noising_coeffs(600)), "overlap-save FFT over 600 taps, 1800-point transforms per 1200-step block"),
    (dpt.nu_ftrl_blt(0.01), "BLT, 38 buffers, Alg. 2 in chunks of 32 steps"),
    (dpt.BLT([0.9, 0.5], [0.1, 0.05]), "BLT, 2 buffers, Alg. 3 one step at a time"),
])
def test_the_route_that_ran_is_recorded(beta, route):
    problem = dpt.LinearRegression(0.05, [1.0, 0.5])
    sim = dpt.simulate(beta, problem, rho=1.0, seeds=2, steps=10, burn_in=2000)
    assert sim.settings["route"] == route


def test_a_finite_beta_streams_only_the_taps_that_reach_back_within_the_run():
    """A 200-step run of a 5000-tap β keeps 199 past inputs, not 4999, and transforms 200 taps; the numbers are
    those of the whole filter's stream (the later taps reach no output), to FFT rounding."""
    from dptheory.mechanisms.streaming import StreamingToeplitzNoise

    beta = dpt.nu_ftrl(1e-3).noising_coeffs(5000)
    problem = dpt.LinearRegression(0.05, [1.0, 0.5])
    sim = dpt.simulate(beta, problem, rho=1.0, seeds=2, steps=150, burn_in=50, block=64)
    assert sim.settings["route"] == "overlap-save FFT over 200 taps, 270-point transforms per 64-step block"
    z = np.random.default_rng(0).standard_normal((200, 3))
    short, whole = StreamingToeplitzNoise(beta[:200], (3,), z), StreamingToeplitzNoise(beta, (3,), z)
    np.testing.assert_allclose(np.concatenate([short(z[:64]), short(z[64:])]),
                               np.concatenate([whole(z[:64]), whole(z[64:])]), rtol=1e-12, atol=1e-14)


def test_a_finite_beta_run_whole_has_no_truncation_and_a_shortened_one_has():
    problem = dpt.MeanEstimation(0.1)
    assert dpt.simulate([1.0, -0.7, 0.2], problem, rho=1.0, seeds=2, steps=10).truncation is None
    with pytest.warns(UserWarning, match="first 1 taps"):
        short = dpt.simulate([1.0, -0.7, 0.2], problem, rho=1.0, seeds=2, steps=10, taps=1)
    assert short.truncation.F_inf_simulated == pytest.approx(dpt.F_inf(dpt.dpsgd(), problem, rho=1.0), rel=1e-13)  # simulate's BLAS: one thread


def test_a_strongly_convex_truncation_records_the_gamma_ratio():
    """No exact F∞ exists there: the record carries γ∞(simulated)/γ∞(requested) and the F∞ fields are None."""
    problem = dpt.StronglyConvex(eta=0.5, mu=0.5, L=0.5, d=2, loss="quadratic")
    with pytest.warns(UserWarning, match=r"sigma_dp\^2 by a factor"):
        sim = dpt.simulate(dpt.nu_ftrl(0.001), problem, rho=1.0, seeds=8, steps=200, taps=64)
    t = sim.truncation
    assert t.F_inf_simulated is None and t.relative_shift is None
    assert t.gamma_ratio == pytest.approx(sim.mechanism.limiting_sensitivity() / dpt.nu_ftrl(0.001).limiting_sensitivity())
    assert t.gamma_ratio < 1.0



def test_a_run_above_its_memory_runs_its_chains_in_groups_each_a_run_of_its_own_spawned_seed():
    """ν-DP-FTRL through 2048 taps, 12 chains, d = 8: the stream's history and blocks take 11 MB. Under 4 MiB the
    chains split into the fewest equal groups that fit (here 3 groups of 4, block 4096 each), group ``g`` being
    exactly the one-group run of ``SeedSequence(seed).spawn``'s ``g``-th child; the estimate is of the same law
    (exact F∞ within 3 SE); within the budget the run is one group from ``seed`` itself."""
    from dptheory.simulation import _child_seed

    problem = dpt.LinearRegression(0.05, 1.0 / np.arange(1, 9))
    kw = dict(rho=1.0, steps=6000, taps=2048, seed=11)
    whole = dpt.simulate(dpt.nu_ftrl(0.05 / 8), problem, seeds=12, **kw)
    split = dpt.simulate(dpt.nu_ftrl(0.05 / 8), problem, seeds=12, memory=4 << 20, **kw)
    assert (whole.settings["chain_groups"], split.settings["chain_groups"]) == (1, 3)
    assert 8 * (2048 - 1 + 3 * split.settings["block"]) * 4 * 8 <= 4 << 20 < 8 * (2048 - 1 + 3 * 4096) * 5 * 8
    children = np.random.SeedSequence(11).spawn(3)
    for g, child in enumerate(children):
        alone = dpt.simulate(dpt.nu_ftrl(0.05 / 8), problem, seeds=4, block=split.settings["block"],
                             **(kw | dict(seed=_child_seed(child))))
        np.testing.assert_array_equal(split.chain_means[4 * g : 4 * g + 4], alone.chain_means)
    exact = dpt.F_inf(split.mechanism, problem, rho=1.0)
    assert abs(split.mean - exact) <= 3 * split.stderr, split
    np.testing.assert_array_equal(whole.chain_means, dpt.simulate(dpt.nu_ftrl(0.05 / 8), problem, seeds=12,
                                                                   memory=1 << 40, **kw).chain_means)


def test_the_chain_groups_are_the_fewest_that_fit_and_one_chain_is_the_floor():
    from dptheory.simulation import _chain_groups

    # Figure 2's η = 0.005 point: 65 536 taps, 32 chains of d = 128 need 2.1 GB of history in one group
    assert _chain_groups(32, 128, 65536, 665_000, None, 1 << 30, history=65535) == ([4] * 8, 65536)
    assert _chain_groups(64, 128, 4096, 4096, 1024, 1 << 30, history=4095) == ([64], 1024)  # fits: one group, the block given
    assert _chain_groups(10, 8, 100, 1000, 10, 8 * (99 + 30) * 8 * 3, history=99) == ([3, 3, 3, 1], 10)  # 3 chains fit, 4 groups
    assert _chain_groups(3, 4, 10**6, 10**6, 10, 1, history=10**6 - 1) == ([1, 1, 1], 10)  # nothing fits: one chain per group
    # a BLT keeps a few buffers, not the filter's inputs: Table 3's horizon n = 2052 at 2048 chains of d = 16 fits
    assert _chain_groups(2048, 16, 2052, 2052, None, 1 << 30, history=0) == ([2048], 1024)


@pytest.mark.parametrize("mechanism, history", [
    (dpt.dpsgd(), 0),                                  # β = (1): no past input
    (dpt.toeplitz([1.0, -0.6, 0.1]), 2),               # a finite β holds len(β) − 1, whatever the horizon
    (dpt.BLT([0.995335, 0.812293], [0.128287, 0.329059]), 0),  # d buffers of sums, no inputs
    (dpt.TreeAggregation("vanilla"), 0),               # O(log n) node sums, no inputs
    (dpt.TreeAggregation("honaker"), 0),
    (dpt.TreeAggregation("full"), 2051),               # the dense factor reads every past input
    (dpt.nu_ftrl(0.05), 2051),                         # an infinite β at horizon n: every past input
], ids=lambda v: getattr(v, "name", str(v)))
def test_a_stream_holds_the_past_inputs_its_mechanism_says_and_the_blocks_follow_them_not_the_horizon(mechanism, history):
    """``stream_history(n)`` is what the stream keeps, and a finite-horizon run's blocks are sized to it: at Table 3's
    n = 2052 over 2048 chains of d = 8, a stream with no history now takes 256-step blocks (2048-step blocks of
    134 MB each before, 1.07 GB for a BLT's run); a filter of every past input keeps the horizon-long block."""
    assert mechanism.stream_history(2052) == history
    problem = dpt.LinearRegression(0.05, np.geomspace(1.0, 0.01, 8))
    from dptheory.simulation import _plan, _stream_steps

    plan = _plan(mechanism, problem, rho=1.0, G=1.0, horizon=2052, participation=None, taps=None)
    assert plan.simulated.stream_history(_stream_steps(plan.simulated, 2052, 2052)) == history
    if history == 0:
        sim = dpt.simulate(mechanism, problem, rho=1.0, horizon=64, seeds=2048, seed=0)
        assert sim.settings["block"] == 64  # the whole run (it was 2·n, capped at the run, too)
        from dptheory.simulation import _chain_groups

        # at n = 2052 over 2048 chains of d = 8: 256-step blocks (2048 when the blocks followed the horizon)
        assert _chain_groups(2048, 8, history + 1, 2052, None, 1 << 30, history=0) == ([2048], 256)


@pytest.mark.parametrize("mechanism", [
    dpt.dpsgd(),                                        # returns its input
    dpt.toeplitz([1.0, -0.6, 0.1]),                     # the direct sum
    dpt.toeplitz(0.5 ** np.arange(40)),                 # the direct sum at these blocks (fir_route)
    dpt.toeplitz(0.99 ** np.arange(2000)),              # direct at 7 steps, then the FFT route at 24 and 29
    dpt.BLT([0.995335, 0.812293], [0.128287, 0.329059]),
    dpt.TreeAggregation("vanilla"), dpt.TreeAggregation("honaker"), dpt.TreeAggregation("full"),
    dpt.mechanisms.BandedToeplitz([1.0, 0.5, 0.25]),
], ids=lambda v: getattr(v, "name", str(v)))
def test_a_streams_output_is_the_callers_to_overwrite(mechanism):
    """What ``simulate`` relies on when it scales a lone stream's block in place: a stream returns a new array or its
    input, never its own state, so writing into one block's output leaves every later block as it was."""
    z = np.random.default_rng(0).standard_normal((60, 3))
    kept, spoiled = (mechanism.noise_stream((3,), z, 60) for _ in range(2))
    for a, b in [(0, 7), (7, 31), (31, 60)]:
        expected = np.array(kept(z[a:b].copy()))
        out = spoiled(z[a:b].copy())
        np.testing.assert_array_equal(out, expected)
        out *= 1e3


def test_stream_history_refuses_an_unbounded_stream_it_cannot_give():
    assert dpt.BLT([0.9], [0.1]).stream_history(None) == 0 and dpt.toeplitz([1.0, 0.5]).stream_history(None) == 1
    for mechanism in (dpt.TreeAggregation("vanilla"), dpt.DenseMechanism(np.tril(np.ones((4, 4))))):
        with pytest.raises(ValueError, match="steps must be a number of steps"):
            mechanism.stream_history(None)


BAD_INPUTS = [
    (dict(steps=2.7), "steps must be an integer"),
    (dict(steps=0), r"steps must lie in \[1"),
    (dict(steps=float("nan")), "steps must be finite"),
    (dict(steps="10"), "steps must be a real number"),
    (dict(seeds=1), r"seeds must lie in \[2"),
    (dict(seeds=2.5), "seeds must be an integer"),
    (dict(seed=-1), r"seed must lie in \[0"),
    (dict(seed=float("nan")), "seed must be finite"),
    (dict(seed=1.5), "seed must be an integer"),
    (dict(burn_in=-1), r"burn_in must lie in \[0"),
    (dict(burn_in=float("inf")), "burn_in must be finite"),
    (dict(taps=0), r"taps must lie in \[1"),
    (dict(taps=True), "taps must be a real number"),
    (dict(block=0), r"block must lie in \[1"),
    (dict(block=-5), r"block must lie in \[1"),
    (dict(block=2.5), "block must be an integer"),
    (dict(memory=0), r"memory must lie in \[1"),
    (dict(memory=1.5), "memory must be an integer"),
    (dict(clip="yes"), "clip must be True or False"),
    (dict(clip=1), "clip must be True or False"),
    (dict(backend=3), "backend must be None or one of"),
    (dict(rho=float("nan")), "rho must be finite"),
    (dict(rho=-1.0), r"rho must lie in \(0"),
    (dict(G=float("inf")), "G must be finite"),
]


@pytest.mark.parametrize("kwargs, message", BAD_INPUTS, ids=[f"{k}={v!r}" for kw, _ in BAD_INPUTS for k, v in kw.items()])
def test_each_bad_input_is_refused_naming_the_parameter(kwargs, message):
    args = dict(rho=1.0, seeds=2, steps=10) | kwargs
    with pytest.raises(ValueError, match=message):
        dpt.simulate(dpt.dpsgd(), dpt.MeanEstimation(0.1), **args)


def test_mean_estimation_beyond_unit_gradients_is_refused():
    """The simulation draws z = σ_sgd·s (Rademacher s) and assumes |z| ≤ 1; F_inf's closed form has no such limit."""
    problem = dpt.MeanEstimation(0.1, sigma_sgd=2.0)
    assert math.isfinite(dpt.F_inf(dpt.dpsgd(), problem, rho=1.0))
    with pytest.raises(ValueError, match=r"sigma_sgd must lie in \[0, 1\] to simulate MeanEstimation.*\|z\| <= 1"):
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


def test_burn_in_and_steps_follow_the_slowest_mode_also_for_eta_above_one():
    """Mean estimation at η = 1.9 contracts by |1 − η| = 0.9 per step: mixing time 1/(2 − η) = 10, not 1/η."""
    sim = dpt.simulate(dpt.dpsgd(), dpt.MeanEstimation(1.9), rho=1.0, seeds=2, steps=10)
    assert sim.settings["burn_in"] == 5 * 10 + 1
    sim = dpt.simulate(dpt.dpsgd(), dpt.MeanEstimation(0.5), rho=1.0, seeds=2, steps=10)
    assert sim.settings["burn_in"] == 5 * 2 + 1


# -- several mechanisms on common random numbers (simulate_common) ------------------------------------------------

COMMON = [dpt.dpsgd(), dpt.nu_ftrl_blt(0.05), dpt.toeplitz([1.0, -0.7, 0.2, 0.05])]


@pytest.mark.parametrize("loss_elements", [1 << 18, 40], ids=["one sum per block", "sums of a few steps"])
def test_a_common_run_gives_each_mechanism_exactly_its_own_run_at_the_same_settings(monkeypatch, loss_elements):
    """One (mechanisms, chains, d) iterate on one draw per step: each mechanism's chains are those of its own
    simulate() with the same seed, burn-in and block, to the last bit (the axis mixes nothing), on every problem;
    also where the block's loss is summed a few steps at a time (the steps per sum follow chains·d only)."""
    from dptheory import simulation

    monkeypatch.setattr(simulation, "_LOSS_ELEMENTS", loss_elements)
    problems = [dpt.MeanEstimation(0.1, sigma_sgd=0.5), dpt.LinearRegression(0.1, 1.0 / np.arange(1, 9), sigma_sgd=0.3),
                dpt.StronglyConvex(eta=0.1, mu=0.1, L=1.0, sigma_sgd=0.1, d=3, loss="piecewise_quadratic")]
    for problem in problems:
        for kw in (dict(steps=500, burn_in=100, clip=True), dict(horizon=64)):
            together = dpt.simulate_common(COMMON, problem, rho=1.0, seeds=8, seed=5, block=128, **kw)
            assert [r.settings["common_random_numbers"] for r in together] == [[m.name for m in COMMON]] * 3
            for mechanism, result in zip(COMMON, together):
                alone = dpt.simulate(mechanism, problem, rho=1.0, seeds=8, seed=5, block=128, **kw)
                np.testing.assert_array_equal(result.chain_means, alone.chain_means)
                assert "common_random_numbers" not in alone.settings


def test_common_random_numbers_each_result_matches_its_exact_F_inf_and_the_difference_is_sharper():
    """Mean estimation, η = 0.1: every result covers its exact F∞ (3 SE), and the difference of two close
    mechanisms (ν-DP-FTRL at ν = 0.05 and 0.06) has a standard error far below that of two
    independent runs, sqrt(se₁² + se₂²): the point of sharing the draws (below 0.1 of it; measured 0.025)."""
    problem = dpt.MeanEstimation(0.1, sigma_sgd=0.5)
    pair = [dpt.nu_ftrl_blt(0.05), dpt.nu_ftrl_blt(0.06)]
    a, b = dpt.simulate_common(pair, problem, rho=1.0, seeds=128, steps=4000, seed=1)
    for r in (a, b):
        assert abs(r.mean - dpt.F_inf(r.mechanism, problem, rho=1.0)) <= 3 * r.stderr, r
    paired = np.std(a.chain_means - b.chain_means, ddof=1) / math.sqrt(a.chain_means.size)
    assert paired < 0.1 * math.hypot(a.stderr, b.stderr)
    exact_gap = dpt.F_inf(a.mechanism, problem, rho=1.0) - dpt.F_inf(b.mechanism, problem, rho=1.0)
    assert abs((a.mean - b.mean) - exact_gap) <= 3 * paired


@pytest.mark.parametrize("mechanisms", [[], (), dpt.dpsgd(), np.array([1.0, -0.5]), None], ids=repr)
def test_common_runs_refuse_anything_but_a_non_empty_list_of_mechanisms(mechanisms):
    with pytest.raises(ValueError, match="mechanisms must be a non-empty list or tuple"):
        dpt.simulate_common(mechanisms, dpt.MeanEstimation(0.1), rho=1.0, seeds=2, steps=10)
