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


@pytest.mark.parametrize("mechanism", [dpt.nu_ftrl(0.1), dpt.BLT([0.9, 0.5], [0.2, 0.3]),
                                       dpt.mechanisms.banded_sqrt_toeplitz(4)], ids=repr)
def test_stationary_simulate_gives_numpys_numbers(mechanism):
    kw = dict(rho=1.0, seeds=4, seed=2, steps=300, burn_in=50, taps=None if mechanism.exact_stream else 700)
    a = dpt.simulate(mechanism, PROBLEMS[1], **kw)
    b = dpt.simulate(mechanism, PROBLEMS[1], backend=STRICT, **kw)
    _same(a.chain_means, b.chain_means)


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=repr)
def test_prefix_error_simulation_gives_numpys_numbers(mechanism):
    a = dpt.simulation.simulate_prefix_errors(mechanism, 33, chains=16, seed=4)
    b = dpt.simulation.simulate_prefix_errors(mechanism, 33, chains=16, seed=4, backend=STRICT)
    _same(a.squared, b.squared)
