"""The fourth-moment threshold of SGD on Gaussian linear regression (seed 004 eq. 8; issue 18 item 3).

``LinearRegression.eta_max_fourth_moment`` is computed from a d×d Schur complement of the map on the even
fourth moments ``E θ_i²θ_j²``. Here it is checked against routes that share none of that derivation: the
scalar polynomial ``E(1 − ηλz²)⁴ = 1`` at d = 1, and, at d = 2 and 3, the full operator ``E[A⊗A⊗A⊗A]``
on all d⁴ fourth-order tensors, ``A = I − ηxxᵀ``, built by Gauss–Hermite quadrature with 5 nodes per
coordinate (exact: its entries are polynomials of degree 8 in x).
"""

import itertools

import numpy as np
import pytest
from numpy.polynomial.hermite_e import hermegauss
from scipy import optimize

import dptheory as dpt


def tensor_operator_radius(eta, eigs):
    """Spectral radius of ``E[A⊗A⊗A⊗A]``, ``A = I − ηxxᵀ``, ``x ~ N(0, diag(eigs))``, by exact quadrature."""
    lam = np.asarray(eigs, dtype=float)
    nodes, weights = hermegauss(5)
    weights = weights / weights.sum()
    T = np.zeros((lam.size**4, lam.size**4))
    for idx in itertools.product(range(nodes.size), repeat=lam.size):
        x = np.sqrt(lam) * nodes[list(idx)]
        A = np.eye(lam.size) - eta * np.outer(x, x)
        AA = np.kron(A, A)
        T += np.prod(weights[list(idx)]) * np.kron(AA, AA)
    return float(np.max(np.abs(np.linalg.eigvals(T))))


@pytest.mark.parametrize("lam", [1.0, 0.25, 3.0])
def test_one_dimension_is_the_root_of_the_scalar_fourth_moment_polynomial(lam):
    """d = 1: E(1 − az²)⁴ = 1 − 4a + 18a² − 60a³ + 105a⁴ = 1 at a = ηλ (E z^{2k} = 1, 3, 15, 105)."""
    roots = np.roots([105.0, -60.0, 18.0, -4.0])
    a_star = float(roots[np.abs(roots.imag) < 1e-12].real[0])
    problem = dpt.LinearRegression(0.1 / lam, [lam])
    assert problem.eta_max_fourth_moment * lam == pytest.approx(a_star, rel=1e-12)
    assert a_star == pytest.approx(0.383451, abs=1e-6)  # issue 18: "≈ 0.383 against 2/3"


@pytest.mark.parametrize("eigs", [(1.0, 0.5), (1.0, 0.5, 0.2), (2.0, 2.0)], ids=str)
def test_threshold_is_where_the_full_tensor_operator_reaches_spectral_radius_one(eigs):
    problem = dpt.LinearRegression(0.01, eigs)
    eta4 = problem.eta_max_fourth_moment
    oracle = optimize.brentq(lambda e: tensor_operator_radius(e, eigs) - 1.0, 0.1 * eta4, problem.eta_max_gaussian, xtol=1e-14)
    assert eta4 == pytest.approx(oracle, rel=1e-9)
    assert tensor_operator_radius(0.99 * eta4, eigs) < 1.0 < tensor_operator_radius(1.01 * eta4, eigs)


def test_the_loop_gain_is_below_one_exactly_below_the_threshold():
    """The gain (Schur complement's spectral radius) increases through 1 once, at the threshold, and is
    infinite where a diagonal fourth moment alone grows (d = 1: 1 − 4a + 12a² − 24a³ + 24a⁴ ≥ 1 at a ≥ 0.63)."""
    problem = dpt.LinearRegression(0.01, (1.0, 0.5, 0.2))
    eta4 = problem.eta_max_fourth_moment
    etas = np.linspace(0.01, 0.99, 50) * problem.eta_max_gaussian
    gains = np.array([problem.fourth_moment_gain(e) for e in etas])
    assert np.all(np.diff(gains) > 0)
    assert np.all((gains < 1.0) == (etas < eta4))
    assert dpt.LinearRegression(0.01, [1.0]).fourth_moment_gain(0.64) == np.inf


def test_fourth_moment_diverges_before_the_second():
    """Issue 18's cases: d = 1 (0.383 < 2/3) and d = 2, λ = (1, .5) (0.375 < 0.610)."""
    one = dpt.LinearRegression(0.1, [1.0])
    two = dpt.LinearRegression(0.1, [1.0, 0.5])
    assert one.eta_max_gaussian == pytest.approx(2.0 / 3.0, rel=1e-12)
    assert two.eta_max_fourth_moment == pytest.approx(0.374887, abs=1e-6)
    assert two.eta_max_fourth_moment < two.eta_max_gaussian == pytest.approx(0.609612, abs=1e-6)


def test_figure_2_step_sizes_lie_far_below_the_threshold():
    """Figure 2 (verify/figure2.py) runs η ≤ 0.08 on λ_k = 1/k with d ≤ 256 (the threshold falls with d) and
    η = 0.02 on λ_k = k^{−a}, a ≥ 0.4, d = 128."""
    assert dpt.LinearRegression(0.08, 1.0 / np.arange(1, 257)).eta_max_fourth_moment > 3.5 * 0.08  # 0.293674
    assert dpt.LinearRegression(0.02, np.arange(1, 129) ** -0.4).eta_max_fourth_moment > 3.0 * 0.02  # 0.066232
