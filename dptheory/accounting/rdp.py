r"""Rényi DP of the subsampled Gaussian mechanism: dp_accounting's formulas, bit for bit, at a fraction of their
cost. dp_accounting evaluates them one order at a time, each term of each sum a scalar Python call; here every
order's terms are formed on arrays by the same elementwise operations in the same order (each a ufunc applied
element by element, so an array gives what each scalar gives), and only the running log-space sums, with their
stopping rules, stay sequential, with the library's own ``log1p(exp(a − b)) + b``. ``tests/test_rdp.py`` compares
both with the library by ``==``.

**Sampling without replacement, replace one** (:func:`rdp_sample_wor_gaussian`; Wang, Balle and
Kasiviswanathan, AISTATS 2019, Thm 27; the library's ``_compute_rdp_sample_wor_gaussian``). For each order ``α``

.. math::

    \log A_\alpha = \log\Bigl(1 + \sum_{i=2}^{\alpha} q^i \binom{\alpha}{i} s_i\Bigr),

with ``s_2 = min(4(e^{1/σ²} − 1), 2e^{1/σ²})``, ``s_i = min(4 √(Δ^{2⌊i/2⌋} Δ^{2⌈i/2⌉}), 2e^{(i−1)i/(2σ²)})`` for
``2 < i ≤ 256`` (``Δ^j`` the ``j``-th forward difference of ``e^{x(x+1)/(2σ²)}`` at 0, with ``e^{cgf}`` replaced by
1 at ``x = −1``), and the second term alone above 256; a fractional order interpolates the two integer orders
around it (WBK19, Cor. 10). The library recomputes the forward differences, ``O(α²)`` scalar operations, for
every integer order it meets (twice for each fractional order): about 0.5 s per call at the orders of
:func:`~dptheory.accounting.dpsgd.rdp_accountant`. Here they are computed once per ``σ``, up to the largest
order that needs them: the ``i``-th difference depends only on the first ``i + 2`` values and is formed by the
same operations for every order, so each order's differences are a prefix of that one table; and each integer
order is evaluated once per call.

**Poisson sampling, add or remove one** (:func:`rdp_poisson_gaussian`; Mironov, Talwar and Zhang 2019, Sec. 3.3;
the library's ``_compute_rdp_poisson_subsampled_gaussian``): ``log A_α`` as the binomial sum at an integer ``α``,
and at a fractional ``α`` as the two series of the integrals over ``(−∞, z_0]`` and ``[z_0, ∞)``, summed until
both terms decrease and lie 30 below the total (at most 1000 terms).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from .._validation import check_in_interval

__all__ = ["rdp_sample_wor_gaussian", "rdp_poisson_gaussian"]

#: dp_accounting's ``max_alpha``: orders up to it use the exact Thm 27 sum, larger ones its ``O(α)`` bound
EXACT_ORDERS = 256


def _log_add(logx: float, logy: float) -> float:
    """``log(e^x + e^y)`` as dp_accounting's ``_log_add`` forms it."""
    a, b = min(logx, logy), max(logx, logy)
    if a == -math.inf:
        return b
    return math.log1p(math.exp(a - b)) + b


def _log_sub_sign(logx: float, logy: float) -> tuple[bool, float]:
    """``(sign, log|e^x − e^y|)`` as dp_accounting's ``_log_sub_sign`` forms it (its mixed ``math``/``np`` calls
    kept: they round differently)."""
    if logx > logy:
        return True, logx + math.log1p(-np.exp(logy - logx))
    if logx < logy:
        return False, logy + np.log1p(-np.exp(logx - logy))
    return True, -math.inf


@functools.lru_cache(maxsize=256)
def _log_forward_differences(sigma: float) -> np.ndarray:
    """``log|Δ^i|``, ``i = 0..EXACT_ORDERS + 1``, of ``e^{cgf}``, ``cgf(x) = x(x + 1)/(2σ²)``: dp_accounting's
    ``_get_forward_diffs(cgf, 256)``, whose first ``α + 2`` entries are its ``_get_forward_diffs(cgf, α)``."""
    n = EXACT_ORDERS
    vec = [0.0] + [(i - 1) * 1.0 * ((i - 1) + 1) / (2.0 * sigma**2) for i in range(1, n + 3)]
    signs = [True] * (n + 3)
    deltas = np.zeros(n + 2)
    for i in range(n + 2):
        for j in range(n + 2 - i):  # the library's in-place pass: entry j from the old entries j and j + 1
            if signs[j] == signs[j + 1]:
                signs[j], vec[j] = _log_sub_sign(vec[j + 1], vec[j])
                if not signs[j + 1]:
                    signs[j] = not signs[j]
            else:
                vec[j] = _log_add(vec[j], vec[j + 1])
                signs[j] = signs[j + 1]
        deltas[i] = vec[0]
    return deltas


def _log_comb(n, k):
    return special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)


def _log_sum(terms, start: float = 0.0) -> float:
    """``log(e^start + Σ e^{terms})`` added one term after another, as the library's loops add them."""
    log_a = start
    for s in terms:
        log_a = _log_add(log_a, s)
    return log_a


def _log_a(q: float, sigma: float, alpha: int) -> float:
    """``log A_α`` for an integer order ``α ≥ 2`` (dp_accounting's ``_compute_rdp_sample_wor_gaussian_int``)."""
    i = np.arange(3, alpha + 1, dtype=float)
    log_q = np.log(q)
    cgf = (i - 1) * 1.0 * ((i - 1) + 1) / (2.0 * sigma**2)
    two = 1.0 * 2.0 / (2.0 * sigma**2)
    log_f2m1 = two + math.log1p(-np.exp(-two))
    first = 2 * log_q + _log_comb(alpha, 2) + np.minimum(np.log(4) + log_f2m1, two + np.log(2))
    if alpha <= EXACT_ORDERS:
        deltas = _log_forward_differences(sigma)
        lo = deltas[(2 * np.floor(i / 2.0)).astype(int) - 1]
        hi = deltas[(2 * np.ceil(i / 2.0)).astype(int) - 1]
        rest = np.minimum(np.log(4) + 0.5 * (lo + hi), np.log(2) + cgf) + (i * log_q + _log_comb(alpha, i))
    else:
        rest = np.log(2) + cgf + i * log_q + _log_comb(alpha, i)
    return _log_sum([float(first), *rest.tolist()])


def _check_orders(orders) -> np.ndarray:
    orders = np.asarray(orders, dtype=float)
    if orders.ndim != 1 or np.any(~(orders > 1.0)):
        raise ValueError("orders must be a 1-D array of Rényi orders, each greater than 1")
    return orders


def rdp_sample_wor_gaussian(q: float, noise_multiplier: float, orders) -> np.ndarray:
    """RDP at each order of the Gaussian mechanism on a batch of ``qN`` sampled without replacement from ``N``
    (replace one; WBK19 Thm 27): dp_accounting's ``_compute_rdp_sample_wor_gaussian``, bit for bit.

    Parameters
    ----------
    q : float in [0, 1]
        The sampling proportion ``m/N`` of a batch of ``m``.
    noise_multiplier : float in (0, inf)
        The noise std over the sensitivity dp_accounting assumes for this event (see
        :func:`~dptheory.accounting.dpsgd.replace_one_sensitivity`).
    orders : array_like of float, each > 1
        The Rényi orders.

    Returns
    -------
    numpy.ndarray
        The RDP at each order (``inf`` at an infinite order).
    """
    q = check_in_interval("q", q, 0.0, 1.0, lo_closed=True, hi_closed=True)
    if not noise_multiplier > 0.0:
        raise ValueError(f"noise_multiplier must be positive, got {noise_multiplier!r}")
    orders = _check_orders(orders)
    if q == 0:
        return np.zeros(orders.size)
    if q == 1.0:
        return np.array([alpha / (2 * noise_multiplier**2) for alpha in orders])
    log_a = functools.cache(lambda alpha: _log_a(q, noise_multiplier, alpha))
    out = []
    for alpha in orders:
        if np.isinf(alpha):
            out.append(np.inf)
        elif float(alpha).is_integer():
            out.append(log_a(int(alpha)) / (alpha - 1))
        else:  # WBK19 Cor. 10: interpolate the cumulant between the integer orders around alpha
            lo, hi = math.floor(alpha), math.ceil(alpha)
            t = alpha - lo
            x = 0.0 if lo == 1 else log_a(lo)
            out.append(((1 - t) * x + t * log_a(hi)) / (alpha - 1))
    return np.array(out)


#: dp_accounting's ``_MAX_STEPS_LOG_A_FRAC``: the most terms of a fractional order's series
MAX_SERIES_TERMS = 1000
#: terms of a fractional order's series formed at once (the series usually stops within a few dozen)
_SERIES_CHUNK = 64


def _poisson_log_a_int(q: float, sigma: float, alpha: int) -> float:
    """``log A_α`` at an integer order (the library's ``_compute_log_a_int``)."""
    i = np.arange(alpha + 1, dtype=float)
    log_coef = _log_comb(alpha, i) + i * math.log(q) + (alpha - i) * math.log1p(-q)
    return _log_sum((log_coef + (i * i - i) / (2 * (sigma**2))).tolist(), -math.inf)


def _poisson_series_terms(q: float, sigma: float, alpha: float, i: np.ndarray) -> tuple[list, list]:
    """Terms ``log s_0``, ``log s_1`` of the fractional series at the indices ``i`` (the library's loop body)."""
    z0 = sigma**2 * math.log(1 / q - 1) + 0.5
    log1mq = math.log1p(-q)
    log_coef = _log_comb(alpha, i)
    j = alpha - i
    log_t0 = log_coef + i * math.log(q) + j * log1mq
    log_t1 = log_coef + j * math.log(q) + i * log1mq
    log_erfc = lambda x: math.log(2) + special.log_ndtr(-x * 2**0.5)  # the library's _log_erfc
    log_e0 = math.log(0.5) + log_erfc((i - z0) / (math.sqrt(2) * sigma))
    log_e1 = math.log(0.5) + log_erfc((z0 - j) / (math.sqrt(2) * sigma))
    return ((log_t0 + (i * i - i) / (2 * (sigma**2)) + log_e0).tolist(),
            (log_t1 + (j * j - j) / (2 * (sigma**2)) + log_e1).tolist())


def _poisson_log_a_frac(q: float, sigma: float, alpha: float) -> float:
    """``log A_α`` at a fractional order (the library's ``_compute_log_a_frac``): its series, its stopping rule,
    ``inf`` (the order left out) if it has not stopped after :data:`MAX_SERIES_TERMS` terms."""
    log_a0 = log_a1 = last_s0 = last_s1 = -math.inf
    for start in range(0, MAX_SERIES_TERMS, _SERIES_CHUNK):
        i = np.arange(start, min(start + _SERIES_CHUNK, MAX_SERIES_TERMS), dtype=float)
        for log_s0, log_s1 in zip(*_poisson_series_terms(q, sigma, alpha, i)):
            log_a0, log_a1 = _log_add(log_a0, log_s0), _log_add(log_a1, log_s1)
            total = _log_add(log_a0, log_a1)
            if log_s0 < last_s0 and log_s1 < last_s1 and max(log_s0, log_s1) < total - 30:
                return total
            last_s0, last_s1 = log_s0, log_s1
    return math.inf


def rdp_poisson_gaussian(q: float, noise_multiplier: float, orders) -> np.ndarray:
    """RDP at each order of the Poisson-subsampled Gaussian mechanism (add or remove one; Mironov, Talwar and Zhang
    2019): dp_accounting's ``_compute_rdp_poisson_subsampled_gaussian``, bit for bit.

    Parameters
    ----------
    q : float in [0, 1]
        The sampling rate.
    noise_multiplier : float in [0, inf)
        The noise std over the sensitivity (0: no noise, infinite RDP).
    orders : array_like of float, each > 1
        The Rényi orders.

    Returns
    -------
    numpy.ndarray
        The RDP at each order (``inf`` at an infinite order, without noise, or where a fractional order's series
        does not converge within :data:`MAX_SERIES_TERMS` terms).
    """
    q = check_in_interval("q", q, 0.0, 1.0, lo_closed=True, hi_closed=True)
    if not noise_multiplier >= 0.0:
        raise ValueError(f"noise_multiplier must be non-negative, got {noise_multiplier!r}")
    orders = _check_orders(orders)
    out = []
    for alpha in orders:
        if q == 0:
            out.append(0)
        elif np.isinf(alpha) or noise_multiplier == 0:
            out.append(np.inf)
        elif q == 1.0:
            out.append(alpha / (2 * noise_multiplier**2))
        elif float(alpha).is_integer():
            out.append(_poisson_log_a_int(q, noise_multiplier, int(alpha)) / (alpha - 1))
        else:
            out.append(_poisson_log_a_frac(q, noise_multiplier, alpha) / (alpha - 1))
    return np.array(out)
