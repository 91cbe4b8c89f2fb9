"""dptheory.stats: the Student-t interval, Estimate, the log-log slope fits and the family-wise quantile."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from dptheory.stats import (
    Estimate,
    SlopeFit,
    family_quantile,
    gamma_interval,
    loglog_slope,
    loglog_slope_bootstrap,
    loglog_slope_delta,
    t_interval,
)


@pytest.mark.parametrize("n, level", [(2, 0.95), (5, 0.9), (30, 0.99), (1000, 0.5)])
def test_t_interval_is_scipy_t(n, level):
    lo, hi = t_interval(3.0, 0.2, n, level)
    q = sps.t(df=n - 1).ppf(1 - (1 - level) / 2)
    assert lo == pytest.approx(3.0 - 0.2 * q, rel=1e-14) and hi == pytest.approx(3.0 + 0.2 * q, rel=1e-14)
    assert sps.t(df=n - 1).cdf((hi - 3.0) / 0.2) - sps.t(df=n - 1).cdf((lo - 3.0) / 0.2) == pytest.approx(level)


def test_t_interval_is_elementwise():
    lo, hi = t_interval(np.array([0.0, 1.0]), np.array([1.0, 2.0]), 10)
    q = sps.t.ppf(0.975, 9)
    np.testing.assert_allclose(lo, [-q, 1 - 2 * q])
    np.testing.assert_allclose(hi, [q, 1 + 2 * q])


def test_t_interval_coverage_by_simulation():
    """20000 sets of n = 8 normal samples: the 95% interval of each set's mean covers the true mean in a fraction
    within a 4.5-sigma binomial band of 0.95 (a correct interval leaves it with probability ~1e-5); the normal
    quantile in place of t_7 covers ~91%, far outside the band."""
    rng = np.random.default_rng(20240)
    sets, n, level, mu = 20000, 8, 0.95, 1.5
    x = rng.normal(mu, 2.0, size=(sets, n))
    mean, se = x.mean(axis=1), x.std(axis=1, ddof=1) / math.sqrt(n)
    lo, hi = t_interval(mean, se, n, level)
    assert Estimate.from_samples(x[0]).interval(level) == pytest.approx((lo[0], hi[0]), rel=1e-14)
    band = 4.5 * math.sqrt(level * (1 - level) / sets)
    assert abs(np.mean((lo <= mu) & (mu <= hi)) - level) <= band
    z = sps.norm.ppf(0.5 + level / 2)
    assert np.mean(np.abs(mean - mu) <= z * se) < level - band


def test_estimate_from_samples_and_interval():
    x = np.array([1.0, 2.0, 4.0, 7.0])
    e = Estimate.from_samples(x)
    assert e.value == x.mean() and e.stderr == x.std(ddof=1) / 2 and e.n == 4
    assert e.interval(0.9) == tuple(float(v) for v in t_interval(e.value, e.stderr, 4, 0.9))
    # declared non-negative: the union with the gamma interval, which reaches further right (the law is skewed)
    lo, hi = Estimate.from_samples(x, nonnegative=True).interval(0.9)
    g_lo, g_hi = gamma_interval(e.value, e.stderr, 0.9)
    assert (lo, hi) == (e.interval(0.9)[0], g_hi) and g_hi > e.interval(0.9)[1]
    with pytest.raises(ValueError, match="samples must be non-negative when nonnegative=True, got a minimum of -1"):
        Estimate.from_samples([-1.0, 2.0], nonnegative=True)
    assert "n=4" in repr(e) and "95% CI" in repr(e)


@pytest.mark.parametrize("kwargs, name", [(dict(value=1.0, stderr=-1.0, n=3), "stderr"),
                                          (dict(value=1.0, stderr=0.1, n=0), "n"),
                                          (dict(value=1.0, stderr=0.1, n=2.5), "n")])
def test_estimate_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        Estimate(**kwargs)


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="level"):
        t_interval(0.0, 1.0, 5, level=1.0)
    with pytest.raises(ValueError, match="n must"):
        t_interval(0.0, 1.0, 0)
    with pytest.raises(ValueError, match="samples"):
        Estimate.from_samples([1.0])
    with pytest.raises(ValueError, match="x must"):
        loglog_slope([1.0, -2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="y must"):
        loglog_slope([1.0, 2.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="points"):
        loglog_slope_delta([1.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="per_seed"):
        loglog_slope_bootstrap([1.0, 2.0, 3.0], [[1.0, 2.0], [1.0, 2.0]])
    with pytest.raises(ValueError, match="alpha"):
        family_quantile(3, 10, alpha=0.0)
    with pytest.raises(ValueError, match="n_claims"):
        family_quantile(0, 10)


def test_exact_slope_is_ols_on_logs():
    rng = np.random.default_rng(1)
    x = np.array([3.0, 5.0, 11.0, 40.0, 90.0])
    y = np.exp(rng.normal(size=x.size))
    assert loglog_slope(x, y) == pytest.approx(np.polyfit(np.log(x), np.log(y), 1)[0], rel=1e-12)


def test_delta_slope_recovers_a_known_slope():
    """Independent points y_j = 2·x_j^{−0.75}·(1 + noise) with known standard errors: the slope is recovered within
    its delta-method interval, and the standard error matches the spread of refits."""
    rng = np.random.default_rng(7)
    x = np.geomspace(1, 100, 6)
    rel = 0.02
    fits = []
    for _ in range(2000):
        y = 2 * x**-0.75 * (1 + rel * rng.normal(size=x.size))
        fits.append(loglog_slope_delta(x, [Estimate(v, rel * v, 50) for v in y]))
    slopes = np.array([f.value for f in fits])
    assert slopes.mean() == pytest.approx(-0.75, abs=5 * slopes.std() / math.sqrt(slopes.size))
    assert fits[0].stderr == pytest.approx(slopes.std(ddof=1), rel=0.1)
    covered = np.mean([f.interval(0.95)[0] <= -0.75 <= f.interval(0.95)[1] for f in fits])
    assert abs(covered - 0.95) <= 4.5 * math.sqrt(0.95 * 0.05 / len(fits))
    assert fits[0].n == 50


def test_bootstrap_slope_recovers_a_known_slope():
    rng = np.random.default_rng(3)
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    per_seed = [2 * xi**-1.5 * np.exp(0.1 * rng.normal(size=400)) for xi in x]
    fit = loglog_slope_bootstrap(x, per_seed, level=0.99)
    assert isinstance(fit, SlopeFit) and fit.low < fit.slope < fit.high
    assert fit.low <= -1.5 <= fit.high and fit.high - fit.low < 0.05


def test_family_quantile_is_its_definition():
    """m two-sided claims at family-wise α: P(|T_dof| > q) = α/m for each, so the union bound is exactly α."""
    for m, dof, alpha in [(1, 9, 0.05), (3, 255, 0.05 / 3), (40, 31, 0.01)]:
        q = family_quantile(m, dof, alpha)
        assert m * 2 * sps.t(df=dof).sf(q) == pytest.approx(alpha, rel=1e-10)
    assert family_quantile(1, 10**7) == pytest.approx(sps.norm.ppf(0.975), rel=1e-6)
    assert family_quantile(10, 50) > family_quantile(5, 50) > family_quantile(1, 50)
