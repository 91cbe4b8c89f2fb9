r"""Noise calibrations of seed 002 (Lowy & Razaviyayn, ISRL-DP FL): the σ² each theorem prescribes, with the
privacy lemmas they rest on (silo sampling, ISRL-DP ↔ user level, amplification by shuffling).

The rounds, step sizes and batch sizes the theorems prescribe are in :mod:`.schedules`; what each calibration
actually spends under an exact accountant is in :mod:`.spend`.

Notation (errata 002 §2.1): ``N`` silos, ``n`` records per silo, ``M`` (harmonic) participation, ``K`` local batch,
``R`` rounds, ``L`` Lipschitz constant, ``β`` smoothness, ``μ`` strong convexity, ``D`` diameter, ``d`` dimension,
``(ε0, δ0)`` the ISRL-DP budget of every silo. ``σ²`` is the per-coordinate variance of the Gaussian each silo adds
to its minibatch-mean gradient.

=========================================== ==========================================================================
function                                    source (seed 002)
=========================================== ==========================================================================
:func:`sigma2_noisy_mbsgd`                  Thm D.1: ``256 L² R ln(2.5R/δ0) ln(2/δ0)/(n² ε0²)``, ε0 ≤ 2 ln(2/δ0)
:func:`min_batch_size`                      Thm D.1: ``K ≥ ε0 n/(4√(2R ln(2/δ0)))``
:func:`per_round_budget`                    Thm D.1 proof: ``ε̃ = ε0/(2√(2R ln(2/δ0)))``, ``δ̃ = δ0/(2R)``
:func:`calibration_chain`                   the proof's chain: budget → subsampling (Ullman) → classic Gaussian
                                            (Dwork–Roth Thm A.1) → advanced composition (Thm 3.20), the last three
                                            from :mod:`dptheory.accounting.classic`
:func:`sigma2_onepass`                      Thm 3.1/E.1: ``32 L² ln(1.25/δ0)/(ε0² K²)``, ε0 ≤ 8 ln(1/δ0)
:func:`sigma2_shuffled`                     Thm 5.1/G.1 (absolute constant ``C`` unspecified: a parameter)
:func:`sigma2_experiment` & co.             App. I (moments-accountant calibration of the experiments, Local SGD)
:func:`sigma2_unbalanced`, :func:`xi`, ...  App. H (Alg. 7, Thm H.1)
:func:`silo_sampling_factor`                Lemma E.3 / F.1: ``(N − M)/((N − 1)M)``
:func:`shuffle_amplification_round`         Thm D.5, eq. (21), with its validity condition; Lemma D.10
=========================================== ==========================================================================

A function whose arguments include two numbers or more takes its first argument positionally and the others by
keyword only (``sigma2_noisy_mbsgd(L, R=1000, n=1000, eps0=1.0, delta0=1e-6)``), as in :mod:`dptheory.accounting`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._validation import check_in_interval, check_int, check_positive_array
from ..accounting import advanced_composition, gaussian_sigma_classic, subsampled_epsilon

__all__ = [
    "sigma2_noisy_mbsgd",
    "silo_sampling_factor",
    "min_batch_size",
    "per_round_budget",
    "calibration_chain",
    "CalibrationChain",
    "sigma2_onepass",
    "sigma2_shuffled",
    "shuffled_participation_floor",
    "sigma2_experiment",
    "batch_size_experiment",
    "sigma2_local_sgd",
    "sigma2_unbalanced",
    "xi",
    "Xi",
    "harmonic_M",
    "M_prime",
    "unbalanced_privacy_factor",
    "silo_sampling_variance_exact",
    "silo_sampling_variance_mc",
    "isrl_to_user_level",
    "user_to_isrl",
    "shuffle_amplification_validity",
    "shuffle_amplification_round",
    "clone_lemma_epsilon",
    "compositionality_constant",
]


# --------------------------------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------------------------------


def _pos(name: str, value) -> float:
    return check_in_interval(name, value, 0.0)


def _delta(name: str, delta) -> float:
    return check_in_interval(name, delta, 0.0, 1.0)


def _rounds(R) -> int:
    """``R``: a number of communication rounds, a whole number >= 1 (a real-valued round count of a theorem,
    :attr:`~dptheory.isrl.schedules.Schedule.R`, is rounded up before it is run or calibrated for)."""
    return check_int("R", R, 1, why="a whole number of rounds")


def _eps_thm_d1(name: str, eps, delta: float, delta_name: str = "delta0") -> float:
    """ε ∈ (0, 2 ln(2/δ)]: the range of Thm D.1 (and of Thm F.1, H.1)."""
    return check_in_interval(name, eps, 0.0, 2.0 * math.log(2.0 / delta), hi_closed=True,
                             why=f"Thm D.1 needs {name} <= 2 ln(2/{delta_name})")


# --------------------------------------------------------------------------------------------------
# Algorithm 2 (Noisy ISRL-DP MB-SGD): Thm D.1's calibration and its proof chain
# --------------------------------------------------------------------------------------------------


def sigma2_noisy_mbsgd(L, *, R, n, eps0, delta0) -> float:
    """Per-silo noise variance of Algorithm 2 (seed 002, Thm D.1): ``256 L² R ln(2.5R/δ0) ln(2/δ0)/(n² ε0²)``.

    Valid for ``ε0 ≤ 2 ln(2/δ0)``, ``δ0 ∈ (0, 1)``; ``R`` is the number of rounds run, a whole number (round a
    theorem's real-valued R up first: :attr:`~dptheory.isrl.schedules.Schedule.R`); independent of the batch size ``K``, which must be at least
    :func:`min_batch_size` for the proof's classic-Gaussian step to apply. The same σ² serves the ERM variant
    (Thm F.1) and, with per-silo budgets, Alg. 7 (:func:`sigma2_unbalanced`).

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    R : int
        Number of rounds run, a whole number >= 1.
    n : float in (0, inf)
        Records per silo.
    eps0 : float in (0, 2 ln(2/delta0)]
        The ISRL-DP ε0 of every silo.
    delta0 : float in (0, 1)
        The ISRL-DP δ0 of every silo.

    Returns
    -------
    float
        σ², the per-coordinate variance of the Gaussian each silo adds to its minibatch-mean gradient.

    Raises
    ------
    ValueError
        If an argument lies outside its range (``eps0 > 2 ln(2/delta0)`` included).

    Examples
    --------
    >>> round(sigma2_noisy_mbsgd(1.0, R=1000, n=1000, eps0=1.0, delta0=1e-6), 3)  # C1
    80.374
    """
    L, R, n = _pos("L", L), _rounds(R), _pos("n", n)
    delta0 = _delta("delta0", delta0)
    eps0 = _eps_thm_d1("eps0", eps0, delta0)
    return 256.0 * L**2 * R * math.log(2.5 * R / delta0) * math.log(2.0 / delta0) / (n**2 * eps0**2)


def min_batch_size(eps0, *, n, R, delta0) -> float:
    """``K_min = ε0 n/(4√(2R ln(2/δ0)))`` (Thm D.1): the batch size at which the per-sample ε' = nε̃/(2K) is 1.

    Below it the classic Gaussian mechanism (Dwork–Roth Thm A.1, needs ε' ≤ 1) does not apply. Round up.

    Parameters
    ----------
    eps0 : float in (0, 2 ln(2/delta0)]
        The ISRL-DP ε0 of every silo.
    n : float in (0, inf)
        Records per silo.
    R : int
        Number of rounds, a whole number >= 1.
    delta0 : float in (0, 1)
        The ISRL-DP δ0 of every silo.

    Returns
    -------
    float
        ``K_min`` (real-valued: round it up).

    Examples
    --------
    >>> round(min_batch_size(1.0, n=1000, R=1000, delta0=1e-6), 4)  # C2
    1.4676
    """
    n, R = _pos("n", n), _rounds(R)
    delta0 = _delta("delta0", delta0)
    eps0 = _eps_thm_d1("eps0", eps0, delta0)
    return eps0 * n / (4.0 * math.sqrt(2.0 * R * math.log(2.0 / delta0)))


def per_round_budget(eps0, *, delta0, R) -> tuple[float, float]:
    """Per-round target of Thm D.1's proof: ``(ε̃, δ̃) = (ε0/(2√(2R ln(2/δ0))), δ0/(2R))``.

    Advanced composition with slack δ' = δ0/2 (:func:`~dptheory.accounting.classic.advanced_composition`) then
    spends ``√(2R ln(2/δ0))ε̃ = ε0/2`` plus ``Rε̃(e^ε̃ − 1)`` (C3) and ``Rδ̃ + δ' = δ0``.

    Parameters
    ----------
    eps0 : float in (0, inf)
        The ISRL-DP ε0 of every silo.
    delta0 : float in (0, 1)
        The ISRL-DP δ0 of every silo.
    R : int
        Number of rounds, a whole number >= 1.

    Returns
    -------
    eps_round : float
        ε̃, the per-round ε.
    delta_round : float
        δ̃ = δ0/(2R), the per-round δ.

    Examples
    --------
    >>> eps_t, delta_t = per_round_budget(1.0, delta0=1e-6, R=1000)
    >>> e, d = advanced_composition(eps_t, delta=delta_t, k=1000, delta_prime=0.5e-6)
    >>> round(e, 5), round(d * 1e6, 12)  # C3
    (0.50863, 1.0)
    """
    delta0 = _delta("delta0", delta0)
    eps0 = _pos("eps0", eps0)
    R = _rounds(R)
    return eps0 / (2.0 * math.sqrt(2.0 * R * math.log(2.0 / delta0))), delta0 / (2.0 * R)


@dataclass(frozen=True)
class CalibrationChain:
    """The steps of Thm D.1's privacy proof for one ``(L, R, n, K, ε0, δ0)``.

    Attributes
    ----------
    eps_round : float
        ε̃, the per-round target after subsampling.
    delta_round : float
        δ̃ = δ0/(2R).
    eps_sample : float
        ε' = nε̃/(2K) ≤ 1: the target of the Gaussian on the batch.
    sensitivity : float
        2L/K: the ℓ2 sensitivity of the batch mean under replace-one.
    sigma2 : float
        ``(Δ √(2 ln(1.25/δ̃))/ε')²``, the classic Gaussian's variance.
    eps_total : float
        Advanced composition's total ε (slack δ0/2).
    delta_total : float
        R δ̃ + δ0/2 = δ0.
    """

    eps_round: float  # ε̃, per-round target after subsampling
    delta_round: float  # δ̃ = δ0/(2R)
    eps_sample: float  # ε' = nε̃/(2K) ≤ 1: target of the Gaussian on the batch
    sensitivity: float  # 2L/K: ℓ2 sensitivity of the batch mean under replace-one
    sigma2: float  # (Δ √(2 ln(1.25/δ̃))/ε')²
    eps_total: float  # advanced composition's total ε (slack δ0/2)
    delta_total: float  # R δ̃ + δ0/2 = δ0


def calibration_chain(L, *, R, n, K, eps0, delta0) -> CalibrationChain:
    """Rebuild Thm D.1's σ² step by step (an independent route to :func:`sigma2_noisy_mbsgd`).

    ``(ε̃, δ̃)`` per round → the Gaussian on a K-batch must be ``(ε' = nε̃/(2K), δ̃)``-DP so that subsampling gives
    ``(ε̃, δ̃)`` → classic Gaussian with sensitivity ``2L/K`` → ``σ²``; composition of R rounds → ``(ε_total, δ0)``.
    Raises if ``K < K_min`` (then ε' > 1).

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    R : int
        Number of rounds, a whole number >= 1.
    n : float in (0, inf)
        Records per silo.
    K : float in [K_min, n]
        Batch size, at least :func:`min_batch_size`.
    eps0 : float in (0, 2 ln(2/delta0)]
        The ISRL-DP ε0 of every silo.
    delta0 : float in (0, 1)
        The ISRL-DP δ0 of every silo.

    Returns
    -------
    CalibrationChain
        Every step's ε, δ, the sensitivity and σ².

    Raises
    ------
    ValueError
        If ``K < K_min`` or ``K > n``, or another argument lies outside its range.
    """
    L, n = _pos("L", L), _pos("n", n)
    delta0 = _delta("delta0", delta0)
    eps0 = _eps_thm_d1("eps0", eps0, delta0)
    kmin = min_batch_size(eps0, n=n, R=R, delta0=delta0)
    K = check_in_interval("K", K, kmin, n, lo_closed=True, hi_closed=True,
                          why=f"Thm D.1 needs K >= K_min = eps0 n/(4 sqrt(2R ln(2/delta0))) = {kmin:.6g}")
    eps_t, delta_t = per_round_budget(eps0, delta0=delta0, R=R)
    eps_s = min(n * eps_t / (2.0 * K), 1.0)  # = 1 exactly at K = K_min; min() absorbs rounding
    sens = 2.0 * L / K
    sigma = gaussian_sigma_classic(sens, eps=eps_s, delta=delta_t)
    eps_tot, delta_tot = advanced_composition(subsampled_epsilon(eps_s, K=K, n=n), delta=delta_t, k=R,
                                              delta_prime=delta0 / 2.0)
    return CalibrationChain(eps_t, delta_t, eps_s, sens, sigma**2, eps_tot, delta_tot)


# --------------------------------------------------------------------------------------------------
# other calibrations: one-pass (Thm 3.1/E.1), shuffled (Thm 5.1/G.1), experiments (App. I), unbalanced (App. H)
# --------------------------------------------------------------------------------------------------


def sigma2_onepass(L, *, K, eps0, delta0) -> float:
    """One-Pass Accelerated Noisy MB-SGD (Thm 3.1/E.1): ``σ² = 32 L² ln(1.25/δ0)/(ε0² K²)``, ε0 ≤ 8 ln(1/δ0).

    Each record is used once (disjoint batches, parallel composition), so every round must itself be
    (ε0, δ0)-DP. The proof goes through zCDP: ρ = Δ²/(2σ²) = ε0²/(16 ln(1.25/δ0)) with Δ = 2L/K, and
    ``ρ + 2√(ρ ln(1/δ0)) ≤ ε0`` iff ``ε0 ≤ 8 ln(1/δ0)`` (C4; :func:`~dptheory.isrl.spend.spent_by_onepass`).

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    K : float in (0, inf)
        Batch size.
    eps0 : float in (0, 8 ln(1/delta0)]
        The ISRL-DP ε0 of every silo.
    delta0 : float in (0, 1)
        The ISRL-DP δ0 of every silo.

    Returns
    -------
    float
        σ², the per-coordinate noise variance of each silo's batch-mean gradient.

    Raises
    ------
    ValueError
        If ``eps0 > 8 ln(1/delta0)`` or another argument lies outside its range.

    Examples
    --------
    >>> round(sigma2_onepass(1.0, K=100, eps0=1.0, delta0=1e-6), 6)  # C4
    0.044924
    """
    L, K = _pos("L", L), _pos("K", K)
    delta0 = _delta("delta0", delta0)
    eps0 = check_in_interval("eps0", eps0, 0.0, 8.0 * math.log(1.0 / delta0), hi_closed=True,
                             why="Thm 3.1/E.1 needs eps0 <= 8 ln(1/delta0)")
    return 32.0 * L**2 * math.log(1.25 / delta0) / (eps0**2 * K**2)


def sigma2_shuffled(L, *, R, M, n, N, eps, delta, C: float = 1.0) -> float:
    """Shuffled Noisy MB-SGD (Thm 5.1/G.1, K = 1): ``σ² = C L² R M ln(RM²/(Nδ)) ln(R/δ) ln(1/δ)/(n² N² ε²)``.

    ``C`` is an absolute constant the paper leaves unspecified (default 1). Conditions: ε ≤ ln(2/δ), M ≤ N,
    and M ≥ :func:`shuffled_participation_floor` (not enforced here: it fails at C32's setting).

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    R : int
        Number of rounds, a whole number >= 1.
    M : float in (0, N]
        Number of participating silos per round.
    n : float in (0, inf)
        Records per silo.
    N : float in [1, inf)
        Number of silos.
    eps : float in (0, ln(2/delta)]
        The central (shuffle-model) ε.
    delta : float in (0, 1)
        The central (shuffle-model) δ.
    C : float in (0, inf), default 1.0
        The unspecified absolute constant.

    Returns
    -------
    float
        σ², the per-coordinate noise variance.

    Raises
    ------
    ValueError
        If ``eps > ln(2/delta)``, ``M > N`` or another argument lies outside its range.

    Examples
    --------
    >>> round(sigma2_shuffled(1, R=1e6, M=100, n=1000, N=100, eps=0.1, delta=1e-6), -1)  # C32
    12310.0
    """
    L, R, n, C = _pos("L", L), _rounds(R), _pos("n", n), _pos("C", C)
    N = check_in_interval("N", N, 1.0, lo_closed=True)
    M = check_in_interval("M", M, 0.0, N, hi_closed=True, why="M <= N silos")
    delta = _delta("delta", delta)
    eps = check_in_interval("eps", eps, 0.0, math.log(2.0 / delta), hi_closed=True,
                            why="Thm 5.1 needs eps <= ln(2/delta)")
    return (C * L**2 * R * M * math.log(R * M**2 / (N * delta)) * math.log(R / delta) * math.log(1.0 / delta)
            / (n**2 * N**2 * eps**2))


def shuffled_participation_floor(R, *, M, N, delta) -> float:
    """Thm 5.1's participation condition: the right side of ``M ≥ 16 ln(18 R M²/(N δ))``.

    Parameters
    ----------
    R : int
        Number of rounds, a whole number >= 1.
    M : float in (0, inf)
        Number of participating silos per round.
    N : float in (0, inf)
        Number of silos.
    delta : float in (0, 1)
        The central δ.

    Returns
    -------
    float
        ``16 ln(18 R M²/(N δ))``; the condition holds when ``M`` is at least this value.
    """
    R, M, N, delta = _rounds(R), _pos("M", M), _pos("N", N), _delta("delta", delta)
    return 16.0 * math.log(18.0 * R * M**2 / (N * delta))


def sigma2_experiment(L, *, R, n, eps, delta) -> float:
    """App. I calibration of the experiments (moments accountant): ``σ² = 8 L² ln(1/δ) R/(n² ε²)``.

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant (clipping norm) of the gradients.
    R : int
        Number of rounds, a whole number >= 1.
    n : float in (0, inf)
        Records per silo.
    eps : float in (0, inf)
        The ISRL-DP ε of every silo.
    delta : float in (0, 1)
        The ISRL-DP δ of every silo.

    Returns
    -------
    float
        σ², the per-coordinate noise variance.

    Examples
    --------
    >>> round(sigma2_experiment(1, R=35, n=1238, eps=1.0, delta=1238**-2), 7)  # C35
    0.002602
    """
    L, R, n, eps = _pos("L", L), _rounds(R), _pos("n", n), _pos("eps", eps)
    delta = _delta("delta", delta)
    return 8.0 * L**2 * math.log(1.0 / delta) * R / (n**2 * eps**2)


def batch_size_experiment(n, *, eps, R) -> float:
    """App. I batch size ``K = n√ε/(2√R)`` (C35: 104.63 at n = 1238, ε = 1, R = 35).

    Parameters
    ----------
    n : float in (0, inf)
        Records per silo.
    eps : float in (0, inf)
        The ISRL-DP ε of every silo.
    R : int
        Number of rounds, a whole number >= 1.

    Returns
    -------
    float
        The batch size ``K`` (real-valued).
    """
    n, eps, R = _pos("n", n), _pos("eps", eps), _rounds(R)
    return n * math.sqrt(eps) / (2.0 * math.sqrt(R))


def sigma2_local_sgd(L, *, R, K, n, eps, delta) -> float:
    """ISRL-DP Local SGD baseline (App. I): ``σ² = 8 L² R K ln(1/δ)/(ε² n²)`` per local step.

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    R : int
        Number of rounds, a whole number >= 1.
    K : float in (0, inf)
        Local steps per round.
    n : float in (0, inf)
        Records per silo.
    eps : float in (0, inf)
        The ISRL-DP ε of every silo.
    delta : float in (0, 1)
        The ISRL-DP δ of every silo.

    Returns
    -------
    float
        σ², the per-coordinate variance of the noise added at every local step.
    """
    L, R, K, n, eps = _pos("L", L), _rounds(R), _pos("K", K), _pos("n", n), _pos("eps", eps)
    delta = _delta("delta", delta)
    return 8.0 * L**2 * R * K * math.log(1.0 / delta) / (eps**2 * n**2)


def _budgets(n_i, eps_i, delta_i):
    n_i = check_positive_array("n_i", n_i)
    eps_i = np.broadcast_to(check_positive_array("eps_i", eps_i), n_i.shape).astype(float)
    delta_i = np.broadcast_to(check_positive_array("delta_i", delta_i), n_i.shape).astype(float)
    if np.any(delta_i >= 1):
        raise ValueError(f"delta_i must lie in (0, 1), got an entry {delta_i[delta_i >= 1][0]:g}")
    bad = eps_i > 2.0 * np.log(2.0 / delta_i)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(f"eps_i must lie in (0, 2 ln(2/delta_i)] (Thm H.1), got eps_i[{i}] = {eps_i[i]:g} "
                         f"> {2.0 * math.log(2.0 / delta_i[i]):g}")
    return n_i, eps_i, delta_i


def sigma2_unbalanced(L, *, R, n_i, eps_i, delta_i) -> np.ndarray:
    """Alg. 7 (App. H.2): ``σ_i² = 256 L² R ln(2.5R/δ_i) ln(2/δ_i)/(n_i² ε_i²)`` per silo (= 256 L² R ξ_i).

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    R : int
        Number of rounds, a whole number >= 1.
    n_i : array_like of float
        Records of each silo (positive).
    eps_i : float or array_like of float
        The ε_i of each silo, each in ``(0, 2 ln(2/δ_i)]``; broadcast to the shape of ``n_i``.
    delta_i : float or array_like of float
        The δ_i of each silo, each in ``(0, 1)``; broadcast to the shape of ``n_i``.

    Returns
    -------
    numpy.ndarray
        σ_i² of each silo.
    """
    L, R = _pos("L", L), _rounds(R)
    return 256.0 * L**2 * R * xi(n_i, eps_i=eps_i, delta_i=delta_i, R=R)


def xi(n_i, *, eps_i, delta_i, R) -> np.ndarray:
    """``ξ_i = (1/(n_i ε_i))² ln(2.5R/δ_i) ln(2/δ_i)`` (App. H.1).

    Parameters
    ----------
    n_i : array_like of float
        Records of each silo (positive).
    eps_i : float or array_like of float
        The ε_i of each silo, each in ``(0, 2 ln(2/δ_i)]``; broadcast to the shape of ``n_i``.
    delta_i : float or array_like of float
        The δ_i of each silo, each in ``(0, 1)``; broadcast to the shape of ``n_i``.
    R : int
        Number of rounds, a whole number >= 1.

    Returns
    -------
    numpy.ndarray
        ξ_i of each silo.

    Raises
    ------
    ValueError
        If some ``delta_i`` is not in ``(0, 1)`` or some ``eps_i > 2 ln(2/delta_i)``.

    Examples
    --------
    >>> [f"{x:.4e}" for x in xi([100, 200, 400, 800], eps_i=1.0, delta_i=1e-6, R=100)]  # C27
    ['2.8055e-02', '7.0138e-03', '1.7535e-03', '4.3836e-04']
    """
    R = _rounds(R)
    n_i, eps_i, delta_i = _budgets(n_i, eps_i, delta_i)
    return np.log(2.5 * R / delta_i) * np.log(2.0 / delta_i) / (n_i * eps_i) ** 2


def _pmf(values, probs) -> tuple[np.ndarray, np.ndarray]:
    """Participation law of ``M_r``: ``values`` (a mapping m → P(M_r = m), or the support) and ``probs``."""
    if isinstance(values, Mapping):
        if probs is not None:
            raise ValueError("give probs only with a sequence of values, not with a mapping")
        values, probs = list(values.keys()), list(values.values())
    v = check_positive_array("values", values)
    if np.any(v != np.round(v)):
        raise ValueError("values (numbers of participating silos) must be whole numbers >= 1")
    p = np.full(v.shape, 1.0 / v.size) if probs is None else np.asarray(probs, dtype=float)
    if p.shape != v.shape or np.any(p < 0) or not np.all(np.isfinite(p)):
        raise ValueError(f"probs must be non-negative, one per value (shape {v.shape}), got {p!r}")
    if abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(f"probs must sum to 1, got {p.sum():.12g}")
    return v, p


def harmonic_M(values, probs=None) -> float:
    """Assumption 1.4: ``1/M = E[1/M_r]`` (harmonic-mean participation). ``probs`` default: uniform on ``values``.

    Parameters
    ----------
    values : mapping or sequence of int
        The law of ``M_r``: a mapping ``m → P(M_r = m)``, or the support (whole numbers >= 1).
    probs : array_like of float, optional
        ``P(M_r = m)`` for each entry of a sequence ``values`` (non-negative, summing to 1); not with a mapping.
        Default: uniform on ``values``.

    Returns
    -------
    float
        The harmonic-mean participation ``M``.

    Raises
    ------
    ValueError
        If ``values`` are not whole numbers >= 1, or ``probs`` is not a probability vector over them.

    Examples
    --------
    >>> round(harmonic_M(range(1, 11)), 4)  # C23, M_r ~ Unif{1..10}
    3.4142
    """
    v, p = _pmf(values, probs)
    return float(1.0 / np.sum(p / v))


def M_prime(values, probs=None) -> float:
    """Assumption 2 (App. H): ``1/M' = √(E[1/M_r²])``; ``M' ≤ M``.

    Parameters
    ----------
    values : mapping or sequence of int
        The law of ``M_r``: a mapping ``m → P(M_r = m)``, or the support (whole numbers >= 1).
    probs : array_like of float, optional
        ``P(M_r = m)`` for each entry of a sequence ``values``; not with a mapping. Default: uniform on ``values``.

    Returns
    -------
    float
        ``M'``.

    Examples
    --------
    >>> round(M_prime(range(1, 11)), 4)  # C23
    2.5402
    """
    v, p = _pmf(values, probs)
    return float(1.0 / math.sqrt(np.sum(p / v**2)))


def Xi(xi_i, values, probs=None) -> float:
    """``Ξ = √(E_{M_1}[((1/M_1) Σ_{i ≤ M_1} ξ_(i))²])``, ``ξ_(1) ≥ ξ_(2) ≥ …`` (App. H.1); ``ξ_min ≤ Ξ ≤ ξ_max``.

    Parameters
    ----------
    xi_i : array_like of float
        ξ_i of each of the ``N`` silos (:func:`xi`), positive.
    values : mapping or sequence of int
        The law of ``M_r``: a mapping ``m → P(M_r = m)``, or the support (whole numbers in ``[1, N]``).
    probs : array_like of float, optional
        ``P(M_r = m)`` for each entry of a sequence ``values``; not with a mapping. Default: uniform on ``values``.

    Returns
    -------
    float
        Ξ.

    Raises
    ------
    ValueError
        If some value of ``M_r`` exceeds the number of silos ``N``.
    """
    x = np.sort(check_positive_array("xi_i", xi_i))[::-1]
    v, p = _pmf(values, probs)
    if v.max() > x.size:
        raise ValueError(f"values (M_r) must not exceed the number of silos N = {x.size}, got {v.max():g}")
    top_means = np.cumsum(x) / np.arange(1, x.size + 1)
    return float(math.sqrt(np.sum(p * top_means[v.astype(int) - 1] ** 2)))


def unbalanced_privacy_factor(xi_i, values, probs=None) -> float:
    """``min{Ξ/M', ξ_max/M}``: what multiplies ``d`` in Thm H.1's privacy terms.

    Parameters
    ----------
    xi_i : array_like of float
        ξ_i of each of the ``N`` silos (:func:`xi`), positive.
    values : mapping or sequence of int
        The law of ``M_r``: a mapping ``m → P(M_r = m)``, or the support (whole numbers in ``[1, N]``).
    probs : array_like of float, optional
        ``P(M_r = m)`` for each entry of a sequence ``values``; not with a mapping. Default: uniform on ``values``.

    Returns
    -------
    float
        ``min{Ξ/M', ξ_max/M}``.
    """
    xi_arr = check_positive_array("xi_i", xi_i)
    return min(Xi(xi_arr, values, probs) / M_prime(values, probs), xi_arr.max() / harmonic_M(values, probs))


# --------------------------------------------------------------------------------------------------
# silo sampling (Lemma E.3 / Lemma F.1): an exact identity
# --------------------------------------------------------------------------------------------------


def silo_sampling_factor(N, *, M) -> float:
    """Silo-sampling variance factor ``(N − M)/((N − 1)M)`` (seed 002, Lemma E.3 / Lemma F.1).

    For a uniform subset S of size M of N vectors y_i: ``E‖(1/M)Σ_{i∈S} y_i − ȳ‖² = factor·(1/N)Σ‖y_i − ȳ‖²``
    exactly (sampling without replacement; checked by :func:`silo_sampling_variance_exact`). 0 when M = N.

    Parameters
    ----------
    N : float in [1, inf)
        Number of silos.
    M : float in (0, N]
        Size of the subset (harmonic participation for random ``M_r``).

    Returns
    -------
    float
        ``(N − M)/((N − 1)M)``, or 0 when ``N = 1``.

    Examples
    --------
    >>> [round(silo_sampling_factor(N, M=M), 6) for N, M in [(10, 3), (100, 10), (10, 10), (2, 1)]]  # C22
    [0.259259, 0.090909, 0.0, 1.0]
    """
    N = check_in_interval("N", N, 1.0, lo_closed=True)
    M = check_in_interval("M", M, 0.0, N, hi_closed=True, why="M <= N silos")
    if N == 1.0:
        return 0.0
    return (N - M) / ((N - 1.0) * M)


def _spread(y) -> tuple[np.ndarray, float]:
    y = np.asarray(y, dtype=float)
    if y.ndim == 1:
        y = y[:, None]
    if y.ndim != 2 or y.shape[0] < 1:
        raise ValueError(f"y must be an (N, d) array of silo vectors, got shape {y.shape}")
    yc = y - y.mean(axis=0)
    return yc, float(np.mean(np.sum(yc**2, axis=1)))


def silo_sampling_variance_exact(y, M) -> tuple[float, float]:
    """``(E_S‖(1/M)Σ_{i∈S} y_i − ȳ‖², factor·(1/N)Σ‖y_i − ȳ‖²)`` by enumerating all C(N, M) subsets (N ≤ 20).

    Parameters
    ----------
    y : array_like
        The silo vectors ``y_i``, shape ``(N, d)`` (or ``(N,)``), ``N ≤ 20``.
    M : int
        Size of the subset, in ``[1, N]``.

    Returns
    -------
    exact : float
        ``E_S‖(1/M)Σ_{i∈S} y_i − ȳ‖²`` over all subsets.
    predicted : float
        :func:`silo_sampling_factor` times ``(1/N)Σ‖y_i − ȳ‖²``.

    Raises
    ------
    ValueError
        If ``N > 20`` or ``M`` is not in ``[1, N]``.
    """
    yc, spread = _spread(y)
    N = yc.shape[0]
    if N > 20:
        raise ValueError(f"exhaustive enumeration needs N <= 20 silos, got N = {N}")
    M = check_int("M", M, 1)
    check_in_interval("M", M, 0, N, hi_closed=True, why="M <= N silos")
    idx = np.array(list(itertools.combinations(range(N), M)))
    means = yc[idx].mean(axis=1)
    return float(np.mean(np.sum(means**2, axis=1))), silo_sampling_factor(N, M=M) * spread


def silo_sampling_variance_mc(y, *, M, trials: int = 100_000, seed: int = 0) -> tuple[float, float, float]:
    """Monte-Carlo ``(mean, standard error, predicted)`` of ``‖(1/M)Σ_{i∈S} y_i − ȳ‖²`` over random subsets S.

    Parameters
    ----------
    y : array_like
        The silo vectors ``y_i``, shape ``(N, d)`` (or ``(N,)``).
    M : int
        Size of the subset, in ``[1, N]``.
    trials : int, default 100_000
        Number of subsets drawn (at least 2).
    seed : int, default 0
        Seed of the NumPy generator.

    Returns
    -------
    mean : float
        The Monte-Carlo mean.
    stderr : float
        Its standard error.
    predicted : float
        :func:`silo_sampling_factor` times ``(1/N)Σ‖y_i − ȳ‖²``.
    """
    yc, spread = _spread(y)
    N = yc.shape[0]
    M = check_int("M", M, 1)
    check_in_interval("M", M, 0, N, hi_closed=True, why="M <= N silos")
    trials = check_int("trials", trials, 2)
    rng = np.random.default_rng(seed)
    idx = np.argsort(rng.random((trials, N)), axis=1)[:, :M]  # uniform M-subsets
    vals = np.sum(yc[idx].mean(axis=1) ** 2, axis=1)
    return float(vals.mean()), float(vals.std(ddof=1) / math.sqrt(trials)), silo_sampling_factor(N, M=M) * spread


# --------------------------------------------------------------------------------------------------
# conversions, shuffling, compositionality (App. C.2, D.3)
# --------------------------------------------------------------------------------------------------


def isrl_to_user_level(eps0, *, delta0, n) -> tuple[float, float]:
    """App. C.2 (group privacy): (ε0, δ0)-ISRL-DP ⇒ ``(nε0, n e^{(n−1)ε0} δ0)``-user-level DP.

    Parameters
    ----------
    eps0 : float in (0, inf)
        The ISRL-DP ε0.
    delta0 : float in (0, 1)
        The ISRL-DP δ0.
    n : int
        Records per silo (the group size), >= 1.

    Returns
    -------
    eps : float
        The user-level ε, ``nε0``.
    delta : float
        The user-level δ, ``n e^{(n−1)ε0} δ0``.
    """
    eps0, delta0 = _pos("eps0", eps0), _delta("delta0", delta0)
    n = check_int("n", n, 1)
    return n * eps0, n * math.exp((n - 1) * eps0) * delta0


def user_to_isrl(eps, *, delta, n) -> tuple[float, float]:
    """App. D.3.5: for user-level (ε, δ) with ε ≤ 1 run Alg. 2 at ``(ε0, δ0) = (ε/n, δ/(4n))``.

    Then :func:`isrl_to_user_level` gives ``(ε, e^{ε(n−1)/n} δ/4) ≤ (ε, δ)``. C26: (0.01, 2.5e-9) at ε = 1,
    δ = 1e-6, n = 100.

    Parameters
    ----------
    eps : float in (0, 1]
        The user-level ε.
    delta : float in (0, 1)
        The user-level δ.
    n : int
        Records per silo, >= 1.

    Returns
    -------
    eps0 : float
        The ISRL-DP ε0 = ε/n.
    delta0 : float
        The ISRL-DP δ0 = δ/(4n).

    Raises
    ------
    ValueError
        If ``eps > 1`` or another argument lies outside its range.
    """
    eps = check_in_interval("eps", eps, 0.0, 1.0, hi_closed=True, why="App. D.3.5 needs eps <= 1")
    delta = _delta("delta", delta)
    n = check_int("n", n, 1)
    return eps / n, delta / (4.0 * n)


def shuffle_amplification_validity(n, *, N, delta_r) -> float:
    """Thm D.5's largest admissible per-round ε0^r: ``ln(N/(16 ln(2/δ^r)))/n`` (0.37630 at n = 10, N = 1e4, δ = 1e-6).

    Parameters
    ----------
    n : float in (0, inf)
        Records per silo.
    N : float in (0, inf)
        Number of silos.
    delta_r : float in (0, 1)
        The per-round central δ^r.

    Returns
    -------
    float
        ``ln(N/(16 ln(2/δ^r)))/n`` (not positive when ``N ≤ 16 ln(2/δ^r)``: no ε0^r is admissible).
    """
    n, N, delta_r = _pos("n", n), _pos("N", N), _delta("delta_r", delta_r)
    return math.log(N / (16.0 * math.log(2.0 / delta_r))) / n


def shuffle_amplification_round(eps0_r, *, n, N, delta_r, delta0_r: float = 0.0) -> tuple[float, float]:
    """The central (ε^r, δ̃^r) of one shuffled round (Thm D.5, eq. (21)).

    Thm D.5, eq. (21): one shuffled round of (ε0^r, δ0^r)-DP randomizers is (ε^r, δ̃^r)-CDP with
    ``ε^r = ln[1 + ((e^{ε0^r} − 1)/(e^{ε0^r} + 1))(8√(e^{nε0^r} ln(4/δ^r))/√N + 8e^{nε0^r}/N)]`` and
    ``δ̃^r = δ^r + 2Nn e^{(n−1)ε0^r} δ0^r``; requires ``ε0^r ≤ ln(N/(16 ln(2/δ^r)))/n``.

    Parameters
    ----------
    eps0_r : float
        The per-round ε0^r of each silo's randomizer, in ``(0, ln(N/(16 ln(2/δ^r)))/n]``.
    n : float in (0, inf)
        Records per silo.
    N : float in (0, inf)
        Number of silos, above ``16 ln(2/δ^r)``.
    delta_r : float in (0, 1)
        The per-round δ^r of the amplification.
    delta0_r : float in [0, 1), default 0.0
        The per-round δ0^r of each silo's randomizer.

    Returns
    -------
    eps_r : float
        ε^r.
    delta_r : float
        δ̃^r.

    Raises
    ------
    ValueError
        If ``N ≤ 16 ln(2/delta_r)`` or ``eps0_r`` exceeds its admissible bound.

    Examples
    --------
    >>> round(shuffle_amplification_round(0.1, n=10, N=1e4, delta_r=1e-6)[0], 6)  # C25
    0.025473
    """
    n, N = _pos("n", n), _pos("N", N)
    delta_r = _delta("delta_r", delta_r)
    delta0_r = check_in_interval("delta0_r", delta0_r, 0.0, 1.0, lo_closed=True)
    hi = shuffle_amplification_validity(n, N=N, delta_r=delta_r)
    if hi <= 0:
        raise ValueError(f"N must exceed 16 ln(2/delta_r) = {16 * math.log(2 / delta_r):g} for Thm D.5, got N = {N:g}")
    eps0_r = check_in_interval("eps0_r", eps0_r, 0.0, hi, hi_closed=True,
                               why="Thm D.5 needs eps0_r <= ln(N/(16 ln(2/delta_r)))/n")
    q = math.tanh(eps0_r / 2.0)  # (e^x − 1)/(e^x + 1)
    a = math.exp(n * eps0_r)
    eps = math.log1p(q * (8.0 * math.sqrt(a * math.log(4.0 / delta_r) / N) + 8.0 * a / N))
    return eps, delta_r + 2.0 * N * n * math.exp((n - 1) * eps0_r) * delta0_r


def clone_lemma_epsilon(p, *, N, delta) -> float:
    """Lemma D.10: ``ε ≤ ln(1 + 8√(ln(4/δ))/√(pN) + 8/(pN))`` for ``p ∈ [16 ln(2/δ)/N, 1]``.

    Parameters
    ----------
    p : float in [16 ln(2/delta)/N, 1]
        The clone probability ``p``.
    N : float in (0, inf)
        Number of silos.
    delta : float in (0, 1)
        The δ of the bound.

    Returns
    -------
    float
        The bound on ε.

    Raises
    ------
    ValueError
        If ``p`` lies outside ``[16 ln(2/δ)/N, 1]``.

    Examples
    --------
    >>> round(clone_lemma_epsilon(1.0, N=1e4, delta=1e-6), 5), round(clone_lemma_epsilon(0.5, N=1e4, delta=1e-6), 5)  # C25
    (0.2721, 0.36653)
    """
    N, delta = _pos("N", N), _delta("delta", delta)
    lo = 16.0 * math.log(2.0 / delta) / N
    p = check_in_interval("p", p, lo, 1.0, lo_closed=True, hi_closed=True, why="Lemma D.10 needs 16 ln(2/delta)/N <= p <= 1")
    return math.log1p(8.0 * math.sqrt(math.log(4.0 / delta) / (p * N)) + 8.0 / (p * N))


def compositionality_constant(per_round_eps, eps0) -> float:
    """Def. 7: the smallest C with ``√(Σ_r (ε0^r)²) ≤ C ε0``.

    Alg. 2: R rounds of ε̃ give ``1/(2√(2 ln(2/δ0)))`` (0.0928 at δ0 = 1e-6: 1-compositional); Alg. 3 with
    d = 2C² rounds of ε0 gives √d (C30); one-pass: √R.

    Parameters
    ----------
    per_round_eps : array_like of float
        The per-round ε0^r, a non-empty sequence of finite non-negative numbers (or one number).
    eps0 : float in (0, inf)
        The total budget ε0.

    Returns
    -------
    float
        ``√(Σ_r (ε0^r)²)/ε0``.

    Raises
    ------
    ValueError
        If ``per_round_eps`` is empty or has a negative or non-finite entry.
    """
    e = np.atleast_1d(np.asarray(per_round_eps, dtype=float))
    if e.size == 0 or np.any(e < 0) or not np.all(np.isfinite(e)):
        raise ValueError("per_round_eps must be a non-empty sequence of finite non-negative numbers")
    return float(math.sqrt(np.sum(e**2)) / _pos("eps0", eps0))


# --------------------------------------------------------------------------------------------------
# names that moved out of this module (issue 39): still importable from here
# --------------------------------------------------------------------------------------------------

#: name -> the module of this package that now defines it: the rounds, step sizes and batch sizes the theorems
#: prescribe went to :mod:`.schedules`, what the calibrations spend to :mod:`.spend`
_MOVED = {
    **dict.fromkeys(("Schedule", "noisy_mbsgd_convex_schedule", "explicit_convex_bound", "noisy_mbsgd_sc_schedule",
                     "stich_schedule", "moreau_beta_convex", "moreau_beta_sc", "onepass_batch_convex",
                     "onepass_batch_sc", "Stage", "multi_stage_schedule", "acsa_steps"), "schedules"),
    **dict.fromkeys(("SPEND_ACCOUNTANTS", "SpendResult", "spent_by_calibration", "SpendBracket", "spend_bracket",
                     "spent_by_onepass"), "spend"),
}


def __getattr__(name: str):
    """A name that moved to :mod:`.schedules` or :mod:`.spend`, from its new module (PEP 562)."""
    if name in _MOVED:
        import importlib

        return getattr(importlib.import_module(f"{__package__}.{_MOVED[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
