"""Every backend-neutral kernel runs unchanged on ``array-api-strict`` (``backend="array_api_strict"``), the stand-in
for a GPU on machines without one: a NumPy-only function, an implicit host conversion, indexing the standard leaves
unspecified (a slice past the axis, a partial multi-axis index) or a dtype it lacks fails there. The random numbers are
NumPy's, moved in through the namespace, so the same seed gives the NumPy backend's numbers (to 1e-12)."""

from __future__ import annotations

import numpy as np
import pytest

import dptheory as dpt
from dptheory.backend import get_backend

pytest.importorskip("array_api_strict")
STRICT = "array_api_strict"
SAME = 1e-12  # the same operations on the same draws; only the order of a reduction may differ


def _same(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    np.testing.assert_allclose(b, a, rtol=SAME, atol=SAME * float(np.max(np.abs(a))))


def test_the_backend_is_the_strict_namespace_with_numpys_generator():
    bk = get_backend(STRICT)
    import array_api_strict

    assert bk.xp is array_api_strict and bk.name == STRICT
    x = bk.asarray(bk.rng(5).standard_normal(4))
    assert type(x).__module__.startswith("array_api_strict")
    _same(np.random.default_rng(5).standard_normal(4), bk.to_numpy(x))


PROBLEMS = [dpt.MeanEstimation(eta=0.1, sigma_sgd=0.3), dpt.LinearRegression(0.1, 1 / np.arange(1, 5), sigma_sgd=0.3),
            dpt.StronglyConvex(eta=0.1, mu=0.1, L=1.0, sigma_sgd=0.1, d=3, loss="logistic")]
MECHANISMS = [dpt.dpsgd(), dpt.toeplitz([1.0, -0.6, 0.08]), dpt.nu_ftrl(0.1), dpt.BLT([0.9, 0.5], [0.2, 0.3]),
              dpt.nu_ftrl_blt(0.1),
              dpt.TreeAggregation("vanilla"), dpt.TreeAggregation("honaker"), dpt.TreeAggregation("full"),
              dpt.mechanisms.banded_sqrt_toeplitz(4)]


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: type(p).__name__)
@pytest.mark.parametrize("mechanism", MECHANISMS, ids=repr)
def test_simulate_at_a_horizon_gives_numpys_numbers(problem, mechanism):
    """Each mechanism's own noise stream (FIR, FFT overlap-save, BLT buffers, tree stacks, Cholesky, banded recursion)
    inside seed 004's Alg. 1, clipped and not, under two participations."""
    kw = dict(rho=1.0, horizon=40, participation=dpt.Participation(max_participations=2, min_sep=16), seeds=8, seed=1)
    for clip in (False, True):
        a = dpt.simulate(mechanism, problem, clip=clip, **kw)
        b = dpt.simulate(mechanism, problem, clip=clip, backend=STRICT, **kw)
        _same(a.chain_means, b.chain_means)
        assert b.settings["backend"] == STRICT


@pytest.mark.parametrize("mechanism", [dpt.nu_ftrl(0.1), dpt.BLT([0.9, 0.5], [0.2, 0.3]), dpt.nu_ftrl_blt(0.1),
                                       dpt.mechanisms.banded_sqrt_toeplitz(4)], ids=repr)
def test_stationary_simulate_gives_numpys_numbers(mechanism):
    kw = dict(rho=1.0, seeds=4, seed=2, steps=300, burn_in=50, taps=None if mechanism.exact_stream else 700)
    a = dpt.simulate(mechanism, PROBLEMS[1], **kw)
    b = dpt.simulate(mechanism, PROBLEMS[1], backend=STRICT, **kw)
    _same(a.chain_means, b.chain_means)


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: type(p).__name__)
def test_a_common_random_numbers_run_gives_numpys_numbers(problem):
    """Several mechanisms as one (mechanisms, chains, d) iterate on the same draws (simulate_common)."""
    mechanisms = [dpt.dpsgd(), dpt.BLT([0.9, 0.5], [0.2, 0.3]), dpt.toeplitz([1.0, -0.6, 0.08])]
    kw = dict(rho=1.0, seeds=4, seed=3, steps=200, burn_in=20)
    for clip in (False, True):
        a = dpt.simulate_common(mechanisms, problem, clip=clip, **kw)
        b = dpt.simulate_common(mechanisms, problem, clip=clip, backend=STRICT, **kw)
        for x, y in zip(a, b):
            _same(x.chain_means, y.chain_means)


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=repr)
def test_prefix_error_simulation_gives_numpys_numbers(mechanism):
    a = dpt.simulation.simulate_prefix_errors(mechanism, 33, chains=16, seed=4)
    b = dpt.simulation.simulate_prefix_errors(mechanism, 33, chains=16, seed=4, backend=STRICT)
    _same(a.squared, b.squared)


def test_the_monte_carlo_accountant_gives_numpys_numbers():
    """seed 001's Monte-Carlo δ(ε) and ε(δ) (importance sampling with a rejection step, both directions)."""
    from dptheory.accounting.montecarlo import mc_delta, mc_epsilon

    kw = dict(q=406.8 / 50000, T=50, n_samples=2**12, seed=11)
    for f, extra in ((mc_delta, dict(eps=0.05)), (mc_epsilon, dict(delta=1e-5))):
        a, b = f(6.572, **kw, **extra), f(6.572, **kw, **extra, backend=STRICT)
        _same([a.estimate if hasattr(a, "estimate") else a.eps, a.lo, a.hi],
              [b.estimate if hasattr(b, "estimate") else b.eps, b.lo, b.hi])


def _isrl_runs():
    from dptheory.isrl.problems import HardLinear, LogisticRegression, SCQuadratic
    from dptheory.isrl.simulation import (accelerated_noisy_mbsgd, coupled_stability, local_sgd, noisy_mbsgd,
                                          sc_schedule)

    sc, r = SCQuadratic(d=4, radius=3.0), np.arange(1, 11, dtype=float)
    lin = HardLinear(d=4, tau=0.3, radius=1.0)
    logistic = LogisticRegression(d=3, w_true=np.linspace(1, -1, 3), lam=0.05, radius=3.0)
    yield "noisy_mbsgd", lambda bk: noisy_mbsgd(sc, N=5, n=60, K=2, sigma2=1.0, M=3, seeds=4, seed=3, backend=bk,
                                                schedule=sc_schedule(sc, R=10, sigma2=1.0, M=3)).per_seed
    yield "noisy_mbsgd_logistic", lambda bk: noisy_mbsgd(logistic, N=3, n=40, K=2, sigma2=1.0, seeds=3, seed=1, backend=bk,
                                                         schedule=sc_schedule(logistic, R=6, sigma2=1.0, M=3)).per_seed
    yield "coupled_stability", lambda bk: coupled_stability(sc, N=5, n=50, K=3, sigma2=1.0, seeds=4, seed=1, backend=bk,
                                                            schedule=sc_schedule(sc, R=8, sigma2=1.0, M=5)).final
    yield "accelerated", lambda bk: accelerated_noisy_mbsgd(lin, N=4, n=100, K=5, sigma2=1.0, alphas=2 / (r + 1),
                                                            etas=4 * 5.0 / (r * (r + 1)), mu=0.1, lam=0.1, seeds=3,
                                                            seed=0, backend=bk).per_seed
    yield "local_sgd", lambda bk: local_sgd(sc, N=5, n=50, R=6, K=3, eta=0.05, M=3, sigma2=1.0, seeds=4, seed=0,
                                            backend=bk).per_seed


@pytest.mark.parametrize("name, run", list(_isrl_runs()), ids=[n for n, _ in _isrl_runs()])
def test_the_isrl_simulators_give_numpys_numbers(name, run):
    """seed 002's Noisy ISRL-DP MB-SGD (Alg. 2), its coupled-stability run, the accelerated variant and local SGD."""
    _same(run("numpy"), run(STRICT))


def _logistic(n=24, p=3, chains=2):
    from dptheory.treeagg import ftrl as F

    rng = np.random.default_rng(0)
    X = rng.standard_normal((chains, n, p))
    X /= np.linalg.norm(X, axis=-1, keepdims=True)
    return F.LogisticLosses(X, np.where(rng.random((chains, n)) < 0.5, 1.0, -1.0))


@pytest.mark.parametrize("readout", ["vanilla", "honaker"])
@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_seed_000s_dp_ftrl_and_noisy_sgd_give_numpys_numbers(readout, momentum):
    """seed 000 Alg. 1 (lazy projection, restarts) and its Noisy-SGD form on their tree streams."""
    from dptheory.treeagg import ftrl as F

    kw = dict(sigma=1.5, readout=readout, chains=2, seed=3, momentum=momentum)
    for run in (lambda bk: F.dp_ftrl(_logistic(), lam=4.0, radius=2.0, restart_every=16, backend=bk, **kw),
                lambda bk: F.noisy_sgd(_logistic(), eta=0.25, backend=bk, **kw)):
        a, b = run("numpy"), run(STRICT)
        _same(a.theta, b.theta)
        _same(a.losses, b.losses)


def test_seed_000s_dp_ftrl_ls_and_regret_give_numpys_numbers():
    from dptheory.treeagg import ftrl as F
    from dptheory.treeagg.regret import logistic_regret

    rng = np.random.default_rng(4)
    X = rng.standard_normal((20, 3))
    X /= 1.2 * np.linalg.norm(X, axis=-1, keepdims=True)
    y = rng.uniform(-1, 1, 20)
    a, b = (F.dp_ftrl_ls(X, y, lam=0.7, sigma=1.0, chains=2, seed=1, backend=bk) for bk in ("numpy", STRICT))
    _same(a.theta, b.theta)
    a, b = (logistic_regret(32, p=3, seeds=2, seed=5, backend=bk) for bk in ("numpy", STRICT))
    _same(a.regret, b.regret)


def test_seed_001s_utility_graph_gives_numpys_numbers():
    from dptheory.proactive.utility import synthetic_classification, utility_graph

    data = synthetic_classification(200, 100, 4, seed=3)
    a, b = (utility_graph(data, [0.1], [0.0, 5.0], K=200, s=10, draws=4, seed=7, backend=bk) for bk in ("numpy", STRICT))
    _same(a.ratio_draws, b.ratio_draws)
    assert np.ptp(a.ratio_draws[:, -1, :]) > 0  # the noisy column has spread: the draws entered
