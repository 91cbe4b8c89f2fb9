r"""Classic (ε, δ) results that calibrations are built from: the Gaussian mechanism, advanced composition and
amplification by subsampling (Dwork & Roth 2014, *The Algorithmic Foundations of Differential Privacy*).

Seed 002's Thm D.1 (Lowy & Razaviyayn) chains all three (:func:`~dptheory.isrl.calibration.calibration_chain`).
Each function takes its first argument positionally and the others by keyword only.
"""

from __future__ import annotations

import math

from .._validation import check_in_interval

__all__ = ["advanced_composition", "gaussian_sigma_classic", "subsampled_epsilon"]


def advanced_composition(eps, *, delta, k, delta_prime) -> tuple[float, float]:
    """Advanced composition of ``k`` adaptive (ε, δ)-DP steps.

    Dwork–Roth Thm 3.20: ``k`` adaptive (ε, δ)-DP steps are ``(√(2k ln(1/δ'))ε + kε(e^ε − 1), kδ + δ')``-DP.

    Parameters
    ----------
    eps : float in (0, inf)
        The ε of each step.
    delta : float in [0, 1)
        The δ of each step.
    k : float in (0, inf)
        The number of steps.
    delta_prime : float in (0, 1)
        The slack ``δ'`` of the composition.

    Returns
    -------
    tuple of float
        ``(ε_total, δ_total)`` of the composition.

    Examples
    --------
    >>> e, d = advanced_composition(0.01, delta=1e-9, k=1000, delta_prime=1e-6)
    >>> round(e, 6), round(d * 1e6, 12)
    (1.76276, 2.0)
    """
    eps = check_in_interval("eps", eps, 0.0)
    delta = check_in_interval("delta", delta, 0.0, 1.0, lo_closed=True)
    k = check_in_interval("k", k, 0.0)
    delta_prime = check_in_interval("delta_prime", delta_prime, 0.0, 1.0)
    return math.sqrt(2.0 * k * math.log(1.0 / delta_prime)) * eps + k * eps * math.expm1(eps), k * delta + delta_prime


def gaussian_sigma_classic(sensitivity, *, eps, delta) -> float:
    """Noise of the classic Gaussian mechanism for an (ε, δ) target.

    Classic Gaussian mechanism (Dwork–Roth Thm A.1): ``σ = Δ√(2 ln(1.25/δ))/ε`` gives (ε, δ)-DP for ε ≤ 1.

    Parameters
    ----------
    sensitivity : float in (0, inf)
        The L2 sensitivity ``Δ``.
    eps : float in (0, 1]
        The target ε (the theorem needs ε ≤ 1).
    delta : float in (0, 1)
        The target δ.

    Returns
    -------
    float
        The noise standard deviation ``σ``.
    """
    sensitivity = check_in_interval("sensitivity", sensitivity, 0.0)
    eps = check_in_interval("eps", eps, 0.0, 1.0, hi_closed=True, why="Dwork-Roth Thm A.1 needs eps <= 1")
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / eps


def subsampled_epsilon(eps, *, K, n) -> float:
    """Amplification by subsampling ``K`` of ``n`` records.

    Amplification by subsampling ``K`` of ``n`` as the proof of seed 002's Thm D.1 uses it: ε' → ``2ε'K/n``
    (needs ε' ≤ 1).

    Parameters
    ----------
    eps : float in (0, 1]
        The ε' of the mechanism run on the subsample.
    K : float in (0, n]
        The subsample size.
    n : float in (0, inf)
        The number of records.

    Returns
    -------
    float
        The amplified ε, ``2ε'K/n``.

    Notes
    -----
    The cited lemma (Ullman) is for sampling without replacement; seed 002's Alg. 2 samples with replacement
    (errata 002 §8 #20).
    """
    eps = check_in_interval("eps", eps, 0.0, 1.0, hi_closed=True, why="the subsampling lemma needs eps <= 1")
    n = check_in_interval("n", n, 0.0)
    K = check_in_interval("K", K, 0.0, n, hi_closed=True, why="K of n records")
    return 2.0 * eps * K / n
