"""dp_accounting's RDP of the subsampled Gaussian on arrays (``dptheory.accounting.rdp``): sampling without
replacement (WBK19 Thm 27, its forward differences computed once per σ) and Poisson sampling (MTZ19), the
library's numbers bit for bit, compared by ``==`` with its own accountant and formulas."""

import numpy as np
import pytest

from dptheory.accounting import accountant_epsilon, dp_accounting_module, exact_epsilon, rdp_accountant, wor_rdp_epsilon
from dptheory.accounting.dpsgd import _rdp_orders
from dptheory.accounting.rdp import rdp_poisson_gaussian, rdp_sample_wor_gaussian
from dptheory.treeagg.tables import TFP_ORDERS

# σ from below 1 (the forward differences change sign) to Table 9's 42.9; batches from one record to all of them
CASES = [  # (σ, N, s, T, δ)
    (0.3, 100, 37, 10, 1e-9),
    (0.9, 1000, 1, 6423, 1e-4),
    (1.7, 10**6, 1000, 1, 1e-5),
    (4.2, 50, 50, 3, 1e-5),
    (42.943, 6423, 5, 6423, 1e-4),
]


def _library_epsilon(N, s, sigma, T, delta):
    dpa = dp_accounting_module()
    event = dpa.SelfComposedDpEvent(dpa.SampledWithoutReplacementDpEvent(N, s, dpa.GaussianDpEvent(sigma)), T)
    return accountant_epsilon(rdp_accountant(dpa.NeighboringRelation.REPLACE_ONE), event, delta)


@pytest.mark.parametrize(("sigma", "N", "s", "T", "delta"), CASES)
def test_epsilon_is_the_rdp_accountants_bit_for_bit(sigma, N, s, T, delta):
    assert wor_rdp_epsilon(N, s, sigma, T, delta) == _library_epsilon(N, s, sigma, T, delta)


@pytest.mark.parametrize(("sigma", "q"), [(0.9, 0.37), (42.943, 5 / 6423)])
def test_rdp_at_every_order_is_the_librarys_bit_for_bit(sigma, q):
    rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    if not hasattr(rdp, "_compute_rdp_sample_wor_gaussian"):
        pytest.skip("this dp_accounting has no _compute_rdp_sample_wor_gaussian to compare with")
    orders = np.concatenate([_rdp_orders(), [2.5, 255.0, 256.0, 257.0, 300.5]])  # both sides of the exact sum's end
    assert np.array_equal(rdp_sample_wor_gaussian(q, sigma, orders), rdp._compute_rdp_sample_wor_gaussian(q, sigma, orders))


@pytest.mark.parametrize(("sigma", "q", "T", "delta"), [
    (0.5, 0.3, 10, 1e-5),  # some fractional orders' series do not converge: left out (inf) by both
    (1.1, 0.01, 1000, 1e-5),
    (42.943, 5 / 6423, 6423, 1e-4),
    (2.0, 1.0, 5, 1e-6),
])
def test_poisson_epsilon_is_the_rdp_accountants_bit_for_bit(sigma, q, T, delta):
    dpa = dp_accounting_module()
    event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), T)
    assert exact_epsilon(sigma, q=q, T=T, delta=delta, accountant="rdp").eps == accountant_epsilon(rdp_accountant(), event, delta)


@pytest.mark.parametrize(("sigma", "q"), [(0.7, 0.256), (1.1, 1e-4), (30.0, 0.9), (1.0, 0.0), (0.0, 0.5)])
def test_poisson_rdp_at_every_order_is_the_librarys_bit_for_bit(sigma, q):
    rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    if not hasattr(rdp, "_compute_rdp_poisson_subsampled_gaussian"):
        pytest.skip("this dp_accounting has no _compute_rdp_poisson_subsampled_gaussian to compare with")
    for orders in (np.asarray(TFP_ORDERS), _rdp_orders()):
        assert np.array_equal(rdp_poisson_gaussian(q, sigma, orders),
                              rdp._compute_rdp_poisson_subsampled_gaussian(q, sigma, orders))


def test_the_whole_data_set_is_the_gaussian_mechanism():
    orders = np.array([1.5, 2.0, 32.0, 1000.0])
    assert np.array_equal(rdp_sample_wor_gaussian(1.0, 2.0, orders), orders / 8.0)
    assert np.array_equal(rdp_sample_wor_gaussian(0.0, 2.0, orders), np.zeros(4))
    assert np.array_equal(rdp_poisson_gaussian(1.0, 2.0, orders), orders / 8.0)


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(q=1.5, noise_multiplier=1.0, orders=[2.0]), "q must lie in"),
    (dict(q=0.5, noise_multiplier=0.0, orders=[2.0]), "noise_multiplier must be positive"),
    (dict(q=0.5, noise_multiplier=1.0, orders=[1.0, 2.0]), "each greater than 1"),
])
def test_bad_input_is_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rdp_sample_wor_gaussian(**kwargs)
    if "noise_multiplier must" not in match:  # σ = 0 is valid for the Poisson RDP (no noise: infinite)
        with pytest.raises(ValueError, match=match):
            rdp_poisson_gaussian(**kwargs)


def test_a_batch_larger_than_the_data_set_is_refused():
    with pytest.raises(ValueError, match="sample_size"):
        wor_rdp_epsilon(10, 11, 1.0, 1, 1e-5)


def test_a_negative_noise_multiplier_is_refused_by_the_poisson_rdp():
    with pytest.raises(ValueError, match="noise_multiplier must be non-negative"):
        rdp_poisson_gaussian(0.5, -1.0, [2.0])
