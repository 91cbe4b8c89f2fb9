"""The RDP of sampling without replacement (WBK19 Thm 27) with its forward differences computed once per σ:
dp_accounting's numbers bit for bit, compared by ``==`` with the library's own accountant."""

import numpy as np
import pytest

from dptheory.accounting import dp_accounting_module, rdp_accountant, accountant_epsilon, wor_rdp_epsilon
from dptheory.accounting.dpsgd import _rdp_orders
from dptheory.accounting.wor_rdp import rdp_sample_wor_gaussian

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


def test_the_whole_data_set_is_the_gaussian_mechanism():
    orders = np.array([1.5, 2.0, 32.0, 1000.0])
    assert np.array_equal(rdp_sample_wor_gaussian(1.0, 2.0, orders), orders / 8.0)
    assert np.array_equal(rdp_sample_wor_gaussian(0.0, 2.0, orders), np.zeros(4))


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(q=1.5, noise_multiplier=1.0, orders=[2.0]), "q must lie in"),
    (dict(q=0.5, noise_multiplier=0.0, orders=[2.0]), "noise_multiplier must be positive"),
    (dict(q=0.5, noise_multiplier=1.0, orders=[1.0, 2.0]), "each greater than 1"),
])
def test_bad_input_is_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rdp_sample_wor_gaussian(**kwargs)


def test_a_batch_larger_than_the_data_set_is_refused():
    with pytest.raises(ValueError, match="sample_size"):
        wor_rdp_epsilon(10, 11, 1.0, 1, 1e-5)
