r"""Noise calibrations, batch sizes, round counts and step sizes of seed 002 (Lowy & Razaviyayn, ISRL-DP FL),
and what each calibration actually spends under an exact accountant.

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
:func:`noisy_mbsgd_convex_schedule` & co.   Thm D.1/D.2 rounds, step sizes, Moreau smoothing; Thm 3.1/E.1 batches
:func:`multi_stage_schedule`                App. E.1 (printed ν_k and the corrected ν_k, errata 002 §8 #17)
:func:`spent_by_calibration`                ε at δ0 of Alg. 2's calibrated noise under one accountant and model
:func:`spend_bracket`                       Alg. 2's own model (with replacement): [realizable lower, upper bound]
:func:`spent_by_onepass`                    exact ε of the one-pass calibration (one Gaussian per record)
=========================================== ==========================================================================

**What Alg. 2's calibration spends.** Thm D.1 spends ε0/2 by design: advanced composition with slack δ0/2 gives
``√(2R ln(2/δ0))·ε̃ = ε0/2`` plus ``R ε̃(e^ε̃ − 1) ≈ ε0²/(8 ln(2/δ0))`` (0.50863 ε0 at R = 1000, δ0 = 1e-6: C3).
Alg. 2 samples its K records **with replacement** under replace-one neighbours, a model dp_accounting does not
account (its ``SampledWithReplacementDpEvent`` has no accountant), so :func:`spend_bracket` brackets the true ε
of Alg. 2 (n = 1000, ε0 = 1, δ0 = 1e-6, K = ⌈K_min⌉; ``verify/isrl_calibration.py``):

* **lower**: a realizable instance (a linear loss, every record's gradient −L·e1 but one, which is +L·e1 in the
  neighbour) and one test on its transcript: no (ε, δ0) below it can hold. 0.0290 ε0 at R = 10 (K = 15) … 0.0219
  at R = 1e4 (K = 1);
* **upper**: the Gaussian split into one N(0, Kσ²) per draw, so a round is K releases of "one record drawn
  uniformly + Gaussian", each accounted by dp_accounting's RDP for sampling one of n without replacement
  (Wang–Balle–Kasiviswanathan), replace-one: 0.31 ε0 at R = 10 (the split costs most at large K), 0.055 ε0 at
  R = 1000, 0.052 at R = 1e4.

Both are far below ε0: Thm D.1's calibration is private by an independent route, and spends at least 2–3% and at
most 5–31% of ε0 (the advanced-composition total of its own proof is 51%). The
Poisson model (``accountant="pld"``: 0.0263 ε0 at R = 10) is **not** an upper bound for Alg. 2 (it is below the
realizable 0.0290), nor is the fixed batch without replacement of the subsampling lemma the paper cites
(``"rdp_wor"``, errata 002 §8 #20): each :class:`SpendResult` states its sampling model, neighbouring relation,
whether it is an upper or a lower bound, and :attr:`SpendResult.models_algorithm_2`.

A function whose arguments include two numbers or more takes its first argument positionally and the others by
keyword only (``sigma2_noisy_mbsgd(L, R=1000, n=1000, eps0=1.0, delta0=1e-6)``), as in :mod:`dptheory.accounting`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .._validation import VARIANTS, check_in_interval, check_int, check_positive_array
from ..accounting import (
    PLD_DISCRETIZATION,
    EpsilonResult,
    Neighbouring,
    Sampling,
    accountant_epsilon,
    advanced_composition,
    dp_accounting_module,
    gaussian_sigma_classic,
    gdp_epsilon,
    pld_accountant,
    replace_one_sensitivity,
    subsampled_epsilon,
    wor_rdp_epsilon,
    zcdp_to_epsilon,
)

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
    "Schedule",
    "noisy_mbsgd_convex_schedule",
    "explicit_convex_bound",
    "noisy_mbsgd_sc_schedule",
    "stich_schedule",
    "moreau_beta_convex",
    "moreau_beta_sc",
    "onepass_batch_convex",
    "onepass_batch_sc",
    "Stage",
    "multi_stage_schedule",
    "acsa_steps",
    "SPEND_ACCOUNTANTS",
    "SpendResult",
    "spent_by_calibration",
    "SpendBracket",
    "spend_bracket",
    "spent_by_onepass",
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
    :attr:`Schedule.R`, is rounded up before it is run or calibrated for)."""
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
    theorem's real-valued R up first: :attr:`Schedule.R`); independent of the batch size ``K``, which must be at least
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
    ``ρ + 2√(ρ ln(1/δ0)) ≤ ε0`` iff ``ε0 ≤ 8 ln(1/δ0)`` (C4; :func:`spent_by_onepass`).

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
# rounds, step sizes, batch sizes prescribed by the theorems
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Schedule:
    """Rounds, constant step and averaging weights prescribed by a theorem.

    Rounds ``R`` (the theorem's real-valued expression: round up to run), constant step ``eta`` and the
    averaging weights ``gamma_r/Γ_R`` (``None``: uniform 1/R), with the theorem it comes from.

    Attributes
    ----------
    R : float
        The number of rounds, the theorem's real-valued expression (round up to run).
    eta : float
        The constant step size.
    weights : numpy.ndarray or None, default None
        The averaging weights ``gamma_r/Γ_R``, one per round run; ``None``: uniform ``1/R``.
    source : str, default ""
        The theorem (or lemma) the schedule comes from.
    """

    R: float
    eta: float
    weights: np.ndarray | None = field(default=None, repr=False)
    source: str = ""


def noisy_mbsgd_convex_schedule(L, *, D, beta, M, n, d, eps0) -> Schedule:
    """Rounds and constant step of Noisy MB-SGD for β-smooth convex f (Thm D.1).

    Thm D.1, β-smooth convex: ``R = (βD√M/L)·min{√n, ε0n/√d} + min{nM, ε0²n²M/d}``,
    ``η = min(1/β, (D/(L√R))·min{1, ε0n√M/√(Rd), √(nM/R)})``, ``γ_r = 1/R``.

    Non-smooth f (Thm D.2): pass ``beta=moreau_beta_convex(...)``; then ``R = 2·min{nM, ε0²n²M/d}`` exactly.

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    D : float in (0, inf)
        Diameter of ``W``.
    beta : float in (0, inf)
        Smoothness β (or the Moreau smoothing parameter).
    M : float in (0, inf)
        (Harmonic) number of participating silos.
    n : float in (0, inf)
        Records per silo.
    d : float in (0, inf)
        Dimension.
    eps0 : float in (0, inf)
        The ISRL-DP ε0 of every silo.

    Returns
    -------
    Schedule
        ``R`` (real-valued), ``η`` and uniform weights.
    """
    L, D, beta, M, n, d, eps0 = (_pos(k, v) for k, v in dict(L=L, D=D, beta=beta, M=M, n=n, d=d, eps0=eps0).items())
    a = min(math.sqrt(n), eps0 * n / math.sqrt(d))
    R = beta * D * math.sqrt(M) / L * a + min(n * M, eps0**2 * n**2 * M / d)
    eta = min(1.0 / beta, D / (L * math.sqrt(R)) * min(1.0, eps0 * n * math.sqrt(M) / math.sqrt(R * d),
                                                       math.sqrt(n * M / R)))
    return Schedule(R, eta, None, "Thm D.1 (convex)")


def explicit_convex_bound(*, L, D, R, eta, n, M, d, sigma2) -> float:
    """Explicit excess-risk bound of Thm D.1's proof at the step ``eta`` used.

    Thm D.1's proof at the step ``eta`` used (convex, β-smooth, ``η ≤ 1/β``, ``γ_r = 1/R``): Lemma D.2's
    stability ``2L²Rη/(nM)`` plus Lemma D.6's empirical error ``D²/(2ηR) + (η/2)(dσ²/M + L²)``; the
    registry's ``isrl_iid_cvx_explicit`` is its optimum over η for ``R ≫ nM``.

    Parameters
    ----------
    L : float
        Lipschitz constant of ``f(·, x)``.
    D : float
        Diameter of ``W``.
    R : float
        Number of rounds.
    eta : float
        The constant step size (``η ≤ 1/β``).
    n : float
        Records per silo.
    M : float
        (Harmonic) number of participating silos.
    d : float
        Dimension.
    sigma2 : float
        Per-coordinate noise variance σ² of each silo.

    Returns
    -------
    float
        ``2L²Rη/(nM) + D²/(2ηR) + (η/2)(dσ²/M + L²)``.
    """
    return 2 * L**2 * R * eta / (n * M) + D**2 / (2 * eta * R) + eta / 2 * (d * sigma2 / M + L**2)


def noisy_mbsgd_sc_schedule(L, *, D, beta, mu, M, n, d, eps0, delta0, sigma2=None) -> Schedule:
    """Rounds, step and weights of Noisy MB-SGD for μ-strongly convex f (Thm D.1).

    Thm D.1, μ-strongly convex: ``R = max(2κ ln(βD²μMε0²n²/(dL²)), min{Mn, Mε0²n²/d})`` and Stich's
    constant step (Lemma D.5, a = μ, g = 2β, c = dσ²/M + L², r0 = D²):
    ``η = min{1/(2β), ln(max{2, μ²D²R²/c})/(μR)}``, ``γ_r ∝ (1 − μη)^{−(r+1)}``, r = 0..⌈R⌉−1.

    ``sigma2`` defaults to :func:`sigma2_noisy_mbsgd` at the prescribed R rounded up (the rounds that are run).

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    D : float in (0, inf)
        Diameter of ``W``.
    beta : float in (0, inf)
        Smoothness β (or the Moreau smoothing parameter).
    mu : float in (0, beta]
        Strong-convexity modulus μ.
    M : float in (0, inf)
        (Harmonic) number of participating silos.
    n : float in (0, inf)
        Records per silo.
    d : float in (0, inf)
        Dimension.
    eps0 : float in (0, inf)
        The ISRL-DP ε0 of every silo.
    delta0 : float in (0, 1)
        The ISRL-DP δ0 of every silo (used for the default ``sigma2``).
    sigma2 : float in [0, inf), optional
        Per-coordinate noise variance σ² in ``c``. Default: :func:`sigma2_noisy_mbsgd` at ``⌈R⌉``.

    Returns
    -------
    Schedule
        ``R`` (real-valued), ``η`` and the weights ``γ_r/Γ_R``.
    """
    L, D, beta, mu, M, n, d, eps0 = (_pos(k, v) for k, v in
                                     dict(L=L, D=D, beta=beta, mu=mu, M=M, n=n, d=d, eps0=eps0).items())
    check_in_interval("mu", mu, 0.0, beta, hi_closed=True, why="mu <= beta")
    kappa = beta / mu
    R = max(2.0 * kappa * math.log(beta * D**2 * mu * M * eps0**2 * n**2 / (d * L**2)),
            min(M * n, M * eps0**2 * n**2 / d))
    s2 = sigma2_noisy_mbsgd(L, R=math.ceil(R), n=n, eps0=eps0, delta0=delta0) if sigma2 is None else check_in_interval(
        "sigma2", sigma2, 0.0, lo_closed=True)
    sch = stich_schedule(R=R, mu=mu, beta=beta, c=d * s2 / M + L**2, r0=D**2)
    return Schedule(R, sch.eta, sch.weights, "Thm D.1 (strongly convex) + Lemma D.5")


def stich_schedule(*, R, mu, beta, c, r0) -> Schedule:
    r"""Stich's constant step and exponential weights at a given number of rounds ``R``.

    Lemma D.5 (Stich 2019; ``a = μ, b = 2, g = 2β``) at a given number of rounds ``R``:
    ``η = min{1/(2β), ln(max{2, μ²r₀R²/c})/(μR)}``, ``γ_r ∝ (1 − μη)^{−(r+1)}`` for ``r < ⌈R⌉`` (normalised in
    log space). :func:`noisy_mbsgd_sc_schedule` applies it at Thm D.1's ``R``; the Monte-Carlo protocol keeps
    ``R`` fixed across a sweep (errata 002 §6), so it is also an entry point of its own.

    Parameters
    ----------
    R : float in [1, inf)
        Number of rounds (``⌈R⌉`` weights).
    mu : float in (0, inf)
        Strong-convexity modulus μ.
    beta : float in (0, inf)
        Smoothness β.
    c : float in (0, inf)
        The gradient second-moment bound ``c`` (``dσ²/M + L²`` for Noisy MB-SGD).
    r0 : float in (0, inf)
        A bound ``r₀`` on ``‖w₀ − w⋆‖²`` (``D²``).

    Returns
    -------
    Schedule
        ``R``, ``η`` and the normalised weights ``γ_r/Γ_R``.

    Examples
    --------
    >>> s = stich_schedule(R=1000, mu=1.0, beta=1.0, c=74.0, r0=16.0)
    >>> round(s.eta, 6), round(float(s.weights.sum()), 12)
    (0.012284, 1.0)
    """
    R = check_in_interval("R", R, 1.0, lo_closed=True)
    mu, beta, c, r0 = (_pos(k, v) for k, v in dict(mu=mu, beta=beta, c=c, r0=r0).items())
    eta = min(1.0 / (2.0 * beta), math.log(max(2.0, mu**2 * r0 * R**2 / c)) / (mu * R))
    logw = -(np.arange(math.ceil(R)) + 1.0) * math.log1p(-mu * eta)
    w = np.exp(logw - logw.max())
    return Schedule(R, eta, w / w.sum(), f"Lemma D.5 (Stich) at R = {R:g}, c = {c:.4g}, r0 = {r0:.4g}")


def moreau_beta_convex(L, *, D, M, n, d, eps0) -> float:
    """Smoothing parameter for non-smooth convex f (Thm D.2): ``β = (L√M/D)·min{√n, ε0n/√d}`` (C17: 316.23 at P1).

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    D : float in (0, inf)
        Diameter of ``W``.
    M : float in (0, inf)
        (Harmonic) number of participating silos.
    n : float in (0, inf)
        Records per silo.
    d : float in (0, inf)
        Dimension.
    eps0 : float in (0, inf)
        The ISRL-DP ε0 of every silo.

    Returns
    -------
    float
        The Moreau smoothing parameter β.
    """
    L, D, M, n, d, eps0 = (_pos(k, v) for k, v in dict(L=L, D=D, M=M, n=n, d=d, eps0=eps0).items())
    return L * math.sqrt(M) / D * min(math.sqrt(n), eps0 * n / math.sqrt(d))


def moreau_beta_sc(mu, *, M, n, d, eps0, delta0) -> float:
    """Smoothing parameter for non-smooth μ-SC f (Thm D.2): ``β = μM/(1/n + d ln(1/δ0)/(ε0²n²))``.

    Parameters
    ----------
    mu : float in (0, inf)
        Strong-convexity modulus μ.
    M : float in (0, inf)
        (Harmonic) number of participating silos.
    n : float in (0, inf)
        Records per silo.
    d : float in (0, inf)
        Dimension.
    eps0 : float in (0, inf)
        The ISRL-DP ε0 of every silo.
    delta0 : float in (0, 1)
        The ISRL-DP δ0 of every silo.

    Returns
    -------
    float
        The Moreau smoothing parameter β.
    """
    mu, M, n, d, eps0 = (_pos(k, v) for k, v in dict(mu=mu, M=M, n=n, d=d, eps0=eps0).items())
    delta0 = _delta("delta0", delta0)
    return mu * M / (1.0 / n + d * math.log(1.0 / delta0) / (eps0**2 * n**2))


def onepass_batch_convex(L, *, beta, D, n, d, eps0, delta0, M) -> float:
    """Thm 3.1/E.1 convex: ``K = (L/(βD))^{2/5} n^{3/5} (d ln(1/δ0))^{1/5}/(ε0^{2/5} M^{1/5})``, R = n/K.

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    beta : float in (0, inf)
        Smoothness β.
    D : float in (0, inf)
        Diameter of ``W``.
    n : float in (0, inf)
        Records per silo.
    d : float in (0, inf)
        Dimension.
    eps0 : float in (0, inf)
        The ISRL-DP ε0 of every silo.
    delta0 : float in (0, 1)
        The ISRL-DP δ0 of every silo.
    M : float in (0, inf)
        (Harmonic) number of participating silos.

    Returns
    -------
    float
        The batch size ``K`` (real-valued); the one pass runs ``R = n/K`` rounds.

    Examples
    --------
    >>> round(onepass_batch_convex(1, beta=1, D=1, n=1000, d=100, eps0=1.0, delta0=1e-6, M=100), 2)  # C19
    106.68
    """
    L, beta, D, n, d, eps0, M = (_pos(k, v) for k, v in
                                 dict(L=L, beta=beta, D=D, n=n, d=d, eps0=eps0, M=M).items())
    delta0 = _delta("delta0", delta0)
    return ((L / (beta * D)) ** 0.4 * n**0.6 * (d * math.log(1.0 / delta0)) ** 0.2
            / (eps0**0.4 * M**0.2))


def onepass_batch_sc(n, *, kappa, mu, Delta, eps0, M, L, d, delta0, phi) -> float:
    """Thm 3.1/E.1 μ-SC: ``K = n/(√κ ln(μΔ·min{ε0²n²M/(L²d ln(1/δ0)), nM/φ²}))``, R = n/K.

    Parameters
    ----------
    n : float in (0, inf)
        Records per silo.
    kappa : float in (0, inf)
        Condition number κ = β/μ.
    mu : float in (0, inf)
        Strong-convexity modulus μ.
    Delta : float in (0, inf)
        Δ ≥ F(w0) − F⋆.
    eps0 : float in (0, inf)
        The ISRL-DP ε0 of every silo.
    M : float in (0, inf)
        (Harmonic) number of participating silos.
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    d : float in (0, inf)
        Dimension.
    delta0 : float in (0, 1)
        The ISRL-DP δ0 of every silo.
    phi : float in (0, inf)
        Within-silo gradient standard deviation φ.

    Returns
    -------
    float
        The batch size ``K`` (real-valued); the one pass runs ``R = n/K`` rounds.

    Raises
    ------
    ValueError
        If the argument of the log is at most 1 (no positive batch size).

    Examples
    --------
    >>> round(onepass_batch_sc(1e4, kappa=100, mu=1, Delta=1, eps0=1.0, M=10, L=1, d=10, delta0=1e-6, phi=1), 3)  # C20
    86.859
    """
    n, kappa, mu, Delta, eps0, M, L, d, phi = (_pos(k, v) for k, v in dict(
        n=n, kappa=kappa, mu=mu, Delta=Delta, eps0=eps0, M=M, L=L, d=d, phi=phi).items())
    delta0 = _delta("delta0", delta0)
    arg = mu * Delta * min(eps0**2 * n**2 * M / (L**2 * d * math.log(1.0 / delta0)), n * M / phi**2)
    if arg <= 1.0:
        raise ValueError(f"the log argument muDelta*min(...) must exceed 1 for a positive batch size, got {arg:g}")
    return n / (math.sqrt(kappa) * math.log(arg))


@dataclass(frozen=True)
class Stage:
    """One stage of the multi-stage accelerated method: ``R`` rounds of AC-SA with step parameter ``nu``.

    Attributes
    ----------
    R : int
        Rounds of the stage.
    nu : float
        Step parameter ν of the stage (:func:`acsa_steps`).
    """

    R: int
    nu: float


def multi_stage_schedule(beta, *, mu, V, Delta, U, nu_form: str = "corrected") -> list[Stage]:
    """Stages of the multi-stage AC-SA, printed or corrected ``ν_k`` (App. E.1).

    Multi-stage AC-SA (App. E.1, after Ghadimi & Lan 2013): ``U`` stages,
    ``R_k = ⌈max{4√(2β/μ), 128V²/(3μΔ·2^{−(k+1)})}⌉``, and ``ν_k = max{2β, √(X_k)}`` with

    * ``nu_form="paper"`` (as printed): ``X_k = μV²/(3Δ2^{−(k−1)} R_k(R_k+1)(R_k+2))`` — so ν_k = 2β for every
      practical R_k (C21: 20 at β = 10);
    * ``nu_form="corrected"`` (default): ``X_k = μV² R_k(R_k+1)(R_k+2)/(3Δ2^{−(k−1)})`` — the cubic in the
      numerator, as in the convex AC-SA step and Ghadimi–Lan (errata 002 §8 #17; C21: 1302.3, 5186.7, …).

    Stage k then runs :func:`acsa_steps` ``(R_k, ν_k)`` from q_{k−1} (q_0 = w_0, errata 002 §8 #18).

    Parameters
    ----------
    beta : float in (0, inf)
        Smoothness β.
    mu : float in (0, inf)
        Strong-convexity modulus μ.
    V : float in (0, inf)
        ``V²`` is the variance of the (noisy) gradient oracle.
    Delta : float in (0, inf)
        Δ ≥ F(w0) − F⋆.
    U : int
        Number of stages, >= 1.
    nu_form : {"corrected", "paper"}, default "corrected"
        The corrected ``ν_k`` or the printed one.

    Returns
    -------
    list of Stage
        ``(R_k, ν_k)`` for ``k = 1..U``.

    Raises
    ------
    ValueError
        If ``nu_form`` is not ``"corrected"`` or ``"paper"``, or another argument lies outside its range.

    Examples
    --------
    >>> [s.R for s in multi_stage_schedule(10, mu=1, V=1, Delta=1, U=5)]  # C21
    [171, 342, 683, 1366, 2731]
    """
    beta, mu, V, Delta = _pos("beta", beta), _pos("mu", mu), _pos("V", V), _pos("Delta", Delta)
    U = check_int("U", U, 1)
    if nu_form not in VARIANTS:
        raise ValueError(f"nu_form must be one of {VARIANTS}, got {nu_form!r}")
    stages = []
    for k in range(1, U + 1):
        Rk = math.ceil(max(4.0 * math.sqrt(2.0 * beta / mu), 128.0 * V**2 / (3.0 * mu * Delta * 2.0 ** (-(k + 1)))))
        cubic = Rk * (Rk + 1.0) * (Rk + 2.0)
        base = mu * V**2 / (3.0 * Delta * 2.0 ** (-(k - 1)))
        X = base * cubic if nu_form == "corrected" else base / cubic
        stages.append(Stage(Rk, max(2.0 * beta, math.sqrt(X))))
    return stages


def acsa_steps(R, *, nu) -> tuple[np.ndarray, np.ndarray]:
    """AC-SA weights of one stage: ``α_r = 2/(r+1)``, ``η_r = 4ν/(r(r+1))``, r = 1..R (App. E.1).

    Parameters
    ----------
    R : int
        Rounds of the stage, >= 1.
    nu : float in (0, inf)
        Step parameter ν.

    Returns
    -------
    alphas : numpy.ndarray
        ``α_r``, r = 1..R.
    etas : numpy.ndarray
        ``η_r``, r = 1..R.
    """
    R = check_int("R", R, 1)
    nu = _pos("nu", nu)
    r = np.arange(1, R + 1, dtype=float)
    return 2.0 / (r + 1.0), 4.0 * nu / (r * (r + 1.0))


# --------------------------------------------------------------------------------------------------
# what the calibrations spend: exact accountants
# --------------------------------------------------------------------------------------------------

#: Accountants of :func:`spent_by_calibration` (model of each in its docstring and on the result); the first two
#: account Alg. 2's own sampling (with replacement, replace-one).
SPEND_ACCOUNTANTS = ("wr_rdp", "wr_lower", "pld", "rdp_wor", "pld_wr", "advanced")
#: ``(sampling, neighbouring, certified, bound)`` of each accountant, with ``q = K/n``, ``s = K`` and ``C = L/K`` (one
#: record's largest contribution to the batch mean): :mod:`dptheory.accounting.models`. ``certified``: an upper
#: bound on the true ε *of that model*; ``bound``: ``"upper"`` or ``"lower"`` (a realizable instance).
_SPEND_MODELS = {
    "wr_rdp": (Sampling.FIXED_BATCH_WR, Neighbouring.REPLACE_ONE, True, "upper"),
    "wr_lower": (Sampling.FIXED_BATCH_WR, Neighbouring.REPLACE_ONE, False, "lower"),
    "pld": (Sampling.POISSON, Neighbouring.REPLACE_ONE, True, "upper"),
    "rdp_wor": (Sampling.FIXED_BATCH_WOR, Neighbouring.REPLACE_ONE, True, "upper"),
    "pld_wr": (Sampling.FIXED_BATCH_WR, Neighbouring.REPLACE_WITH_NULL, True, "upper"),
    "advanced": (Sampling.FIXED_BATCH_WOR, Neighbouring.REPLACE_ONE, True, "upper"),
}


@dataclass(frozen=True)
class SpendResult(EpsilonResult):
    """ε at δ0 for a calibration under one accountant, beside the budget ``eps0`` it was calibrated for.

    An :class:`~dptheory.accounting.models.EpsilonResult` (accountant, sampling model, neighbouring relation,
    ``certified`` = an upper bound for *that* model) with the budget, ``δ0``, the calibration's settings and
    ``bound``: ``"upper"``, or ``"lower"`` for the ε of a realizable instance (no smaller ε can hold).

    Attributes
    ----------
    eps : float
        The ε at ``delta`` (``float()`` of the result).
    accountant : str
        The accountant (one of :data:`SPEND_ACCOUNTANTS`, or ``"onepass_<method>"``).
    sampling : Sampling
        The sampling model ε holds for.
    neighbouring : Neighbouring
        The neighbouring relation ε holds for.
    certified : bool
        Whether ``eps`` is an upper bound on the true ε of that model.
    interval : tuple of float or None, default None
        Monte Carlo only (unused here).
    discretization : float or None, default None
        PLD only: the privacy-loss grid spacing.
    tolerance : float or None, default None
        PLD only: the relative change of ε over the last halving of the grid.
    eps0 : float, default nan
        The budget ε0 the noise was calibrated for.
    delta : float, default nan
        The δ (δ0) at which ε is computed.
    settings : dict
        The calibration's settings (``L``, ``R``, ``n``, ``K``, ``sigma2``, the noise multiplier, …).
    bound : {"upper", "lower"}, default "upper"
        ``"lower"`` for the ε of a realizable instance (no smaller ε can hold).
    """

    eps0: float = math.nan
    delta: float = math.nan
    settings: dict = field(default_factory=dict)
    bound: str = "upper"

    @property
    def ratio(self) -> float:
        """ε spent / ε0 (C3: advanced composition 0.5086; exact accountants far less)."""
        return self.eps / self.eps0

    @property
    def models_algorithm_2(self) -> bool:
        """Whether the model accounted is Alg. 2's: K draws with replacement, replace-one neighbours."""
        return self.sampling is Sampling.FIXED_BATCH_WR and self.neighbouring is Neighbouring.REPLACE_ONE

    def __repr__(self) -> str:
        kind = ("lower bound (realizable instance)" if self.bound == "lower" else
                "upper bound" if self.certified else "estimate")
        whose = ("Alg. 2's model" if self.models_algorithm_2 else
                 "the one-pass Alg. 1's model" if self.accountant.startswith("onepass") else "not Alg. 2's model")
        return (f"SpendResult(eps={self.eps:.6g} = {self.ratio:.4g}·eps0 at delta={self.delta:.3g}; {self.accountant}: "
                f"{self.sampling}; {self.neighbouring}; {kind}; {whose})")


_SUM_TEST_ELEMENTS = 1 << 20


def _with_replacement_sum_test(L: float, *, R: int, n: int, K: int, sigma: float, delta: float) -> float:
    r"""A lower bound on the ε (at δ) of Alg. 2 with replacement: the largest ``ln((P(S) − δ)/Q(S))`` over
    threshold events ``S`` of one realizable instance.

    Instance: ``f(w, x) = ⟨w, x⟩`` (convex, L-Lipschitz), every record ``x = −L e1`` in ``X'``, record j
    ``+L e1`` in ``X``. The gradients do not depend on w, so the R rounds are independent; the first
    coordinates' sum over the rounds is ``N(0, Rσ²)`` under ``X'`` (after removing the constant ``−RL``) and
    ``N(2LM/K, Rσ²)`` given ``M ~ Bin(RK, 1/n)`` copies of record j under ``X``. Every (ε, δ)-DP guarantee
    must satisfy ``P(S) ≤ e^ε Q(S) + δ`` for the events ``{sum > t}`` (X against X') and ``{sum < t}`` (X'
    against X). ``P`` and ``Q`` are exact normal and binomial sums; the binomial tail beyond ``M_max`` is dropped
    from a numerator and added to a denominator, so the result stays a lower bound.
    """
    from scipy import optimize, special, stats  # noqa: PLC0415

    RK, p = R * K, 1.0 / n
    mean, sd = RK * p, math.sqrt(RK * p * (1.0 - p))
    m_max = int(min(RK, math.ceil(mean + 12.0 * sd + 30.0)))
    M = np.arange(m_max + 1)
    pm = stats.binom.pmf(M, RK, p)
    tail = float(stats.binom.sf(m_max, RK, p))
    s, step = math.sqrt(R) * sigma, 2.0 * L / K
    log_ratio = lambda P, Q: [math.log((a - delta) / b) if a > delta else -math.inf for a, b in zip(P, Q)]

    # the standard normal's cdf and sf are ndtr(x) and ndtr(−x) (what scipy.stats.norm evaluates); each row of
    # thresholds t is reduced over M as one 1-D sum, so an array of t gives what each t alone gives
    def eps_above(t):  # X against X': S = {sum > t}
        P = np.sum(pm * special.ndtr(-((t[:, None] - step * M) / s)), axis=1)
        return log_ratio(P, special.ndtr(-(t / s)))

    def eps_below(t):  # X' against X: S = {sum < t}
        Q = np.sum(pm * special.ndtr((t[:, None] - step * M) / s), axis=1) + tail
        return log_ratio(special.ndtr(t / s), Q)

    rows = max(1, _SUM_TEST_ELEMENTS // M.size)  # thresholds per array: at most 2^20 normal tails at once
    best = 0.0
    for f in (eps_above, eps_below):
        grid = s * np.linspace(-12.0, 12.0, 2401)
        vals = np.array([v for c in range(0, grid.size, rows) for v in f(grid[c:c + rows])])
        i = int(np.argmax(vals))
        best = max(best, float(vals[i]))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        res = optimize.minimize_scalar(lambda t: -f(np.array([t]))[0], bounds=(lo, hi), method="bounded",
                                       options=dict(xatol=1e-10 * s))
        if np.isfinite(res.fun):
            best = max(best, -float(res.fun))
    return best


def spent_by_calibration(L, *, R, n, eps0, delta0, K=None, accountant: str = "wr_rdp",
                         discretization: float = PLD_DISCRETIZATION) -> SpendResult:
    """The ε (at δ0) of Alg. 2 run with Thm D.1's σ² (:func:`sigma2_noisy_mbsgd`), under one accountant and model.

    Per round a silo releases ``(1/K)Σ_{k≤K} ∇f(w, x_{i_k}) + N(0, σ² I)``, the ``i_k`` drawn uniformly **with
    replacement** (Alg. 2); over R rounds the silo's transcript is the composition (later rounds depend on earlier
    ones only through public messages). The ratio ``z = σ/(2L/K)`` of noise std to the replace-one sensitivity of
    the batch mean is the noise multiplier. ``K`` defaults to ``⌈K_min⌉`` and must satisfy K_min ≤ K ≤ n.
    dp_accounting accounts no sampling with replacement, so each accountant states its sampling and relation
    (also on the result, with :attr:`SpendResult.models_algorithm_2` and :attr:`SpendResult.bound`):

    * ``"wr_rdp"`` (default; **Alg. 2's model, an upper bound**): write the noise as ``(1/K)Σ_k ν_k``,
      ``ν_k ~ N(0, Kσ² I)``: the round is a post-processing of the K releases ``∇f(w, x_{i_k}) + ν_k``, each "one
      record drawn uniformly from n, Gaussian of std √K σ, replace-one sensitivity 2L". dp_accounting's RDP for
      ``SampledWithoutReplacementDpEvent(n, 1, ·)`` (a sample of one: with and without replacement coincide;
      Wang–Balle–Kasiviswanathan 2019), composed K·R times. The split costs little at K ≈ 1 and much at large K.
    * ``"wr_lower"`` (**Alg. 2's model, a lower bound**): a realizable instance and a threshold test on it
      (:func:`_with_replacement_sum_test`): Alg. 2 cannot be (ε, δ0)-DP for a smaller ε.
    * ``"pld"``: Poisson sampling at rate K/n, replace-one (each record contributes ≤ L/K to the mean).
      dp_accounting's PLD, pessimistic: an upper bound **for Poisson sampling only**, below Alg. 2's realizable
      lower bound at small R. Its REPLACE_ONE Gaussian reads σ_lib with contributions ±1, i.e. sensitivity 2
      (probed by :func:`~dptheory.accounting.dpsgd.replace_one_sensitivity`), so σ_lib = z·2.
    * ``"rdp_wor"``: a fixed batch of K drawn without replacement, replace-one, sensitivity 2L/K (the model of
      the subsampling lemma the paper cites, errata 002 §8 #20); RDP (Wang–Balle–Kasiviswanathan), an upper
      bound for that model only. The library's RDP REPLACE_ONE Gaussian assumes sensitivity 1, so σ_lib = z.
    * ``"pld_wr"``: sampling with replacement (multiplicity ~ Bin(K, 1/n)) as a mixture of Gaussians, under the
      weaker relation "replace one record by a null record" (dp_accounting's REPLACE_SPECIAL): not Alg. 2's
      replace-one relation.
    * ``"advanced"``: the paper's own total: Dwork–Roth Thm 3.20 on the per-round (ε̃, δ̃) with slack δ0/2.

    :func:`spend_bracket` returns the two Alg. 2 bounds together.

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    R : int
        Number of rounds, a whole number >= 1.
    n : int
        Records per silo.
    eps0 : float in (0, 2 ln(2/delta0)]
        The budget ε0 σ² is calibrated for.
    delta0 : float in (0, 1)
        The δ0 of the calibration, and the δ at which ε is computed.
    K : int, optional
        Batch size, a whole number in ``[K_min, n]``. Default: ``⌈K_min⌉`` (:func:`min_batch_size`).
    accountant : {"wr_rdp", "wr_lower", "pld", "rdp_wor", "pld_wr", "advanced"}, default "wr_rdp"
        The accountant and model (:data:`SPEND_ACCOUNTANTS`, listed above).
    discretization : float, default PLD_DISCRETIZATION
        Privacy-loss grid spacing of the PLD accountants (``"pld"``, ``"pld_wr"``).

    Returns
    -------
    SpendResult
        ε at δ0 with its accountant, model, bound kind and the calibration's settings.

    Raises
    ------
    ValueError
        If ``accountant`` is unknown, ``K_min > n`` (no admissible batch size), ``K`` is not a whole number in
        ``[K_min, n]``, or another argument lies outside its range.

    Examples
    --------
    >>> spent_by_calibration(1, R=1000, n=1000, eps0=1.0, delta0=1e-6, accountant="advanced").ratio  # doctest: +ELLIPSIS
    0.5086...
    """
    if accountant not in SPEND_ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {SPEND_ACCOUNTANTS}, got {accountant!r}")
    L = _pos("L", L)
    R = _rounds(R)
    n = check_int("n", n, 1)
    delta0 = _delta("delta0", delta0)
    sigma2 = sigma2_noisy_mbsgd(L, R=R, n=n, eps0=eps0, delta0=delta0)  # validates eps0
    eps0 = float(eps0)
    kmin = min_batch_size(eps0, n=n, R=R, delta0=delta0)
    if kmin > n:
        raise ValueError(f"K_min = eps0 n/(4 sqrt(2R ln(2/delta0))) = {kmin:.6g} exceeds n = {n}: "
                         f"no admissible batch size (increase R)")
    K = max(1, math.ceil(kmin - 1e-12)) if K is None else K
    K = check_in_interval("K", K, kmin, n, lo_closed=True, hi_closed=True,
                          why=f"Thm D.1 needs K >= K_min = {kmin:.6g} (and K <= n)")
    if K != int(K):
        raise ValueError(f"K must be a whole number of records, got {K:g}")
    K = int(K)
    sigma = math.sqrt(sigma2)
    z = sigma * K / (2.0 * L)  # noise std / replace-one sensitivity of the batch mean
    q = K / n
    sampling, neighbouring, certified, bound = _SPEND_MODELS[accountant]
    settings = dict(L=L, R=R, n=n, K=K, sigma2=sigma2, noise_multiplier=z, q=q)
    if accountant == "advanced":
        eps = calibration_chain(L, R=R, n=n, K=K, eps0=eps0, delta0=delta0).eps_total
    elif accountant == "wr_lower":
        eps = _with_replacement_sum_test(L, R=R, n=n, K=K, sigma=sigma, delta=delta0)
    elif accountant == "wr_rdp":
        z_draw = math.sqrt(K) * sigma / (2.0 * L)  # one draw: std √K σ, replace-one sensitivity 2L
        settings["noise_multiplier_per_draw"] = z_draw
        # K·R rounds of SampledWithoutReplacementDpEvent(n, 1, ·): the RDP accountant's ε, bit for bit
        eps = wor_rdp_epsilon(n, 1, z_draw * replace_one_sensitivity()["rdp"], K * R, delta0)
    elif accountant == "rdp_wor":  # R rounds of SampledWithoutReplacementDpEvent(n, K, ·), likewise
        eps = wor_rdp_epsilon(n, K, z * replace_one_sensitivity()["rdp"], R, delta0)
    else:
        dpa = dp_accounting_module()
        rel = dpa.NeighboringRelation
        if accountant == "pld":
            sub = dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z * replace_one_sensitivity()["pld"]))
            acc = pld_accountant(rel.REPLACE_ONE, discretization)
        else:
            from dp_accounting.dp_event import MixtureOfGaussiansDpEvent  # noqa: PLC0415
            from scipy.stats import binom  # noqa: PLC0415

            m = np.arange(K + 1)
            p = binom.pmf(m, K, 1.0 / n)
            keep = p > 1e-300
            sub = MixtureOfGaussiansDpEvent(sigma, list(m[keep] * L / K), list(p[keep] / p[keep].sum()))
            acc = pld_accountant(rel.REPLACE_SPECIAL, discretization)
        eps = accountant_epsilon(acc, dpa.SelfComposedDpEvent(sub, R), delta0)
    return SpendResult(float(eps), accountant, sampling, neighbouring, certified, eps0=eps0, delta=delta0,
                       settings=settings, bound=bound)


@dataclass(frozen=True)
class SpendBracket:
    """What Alg. 2 with Thm D.1's σ² spends, in its own model: a lower and an upper bound.

    The model is K draws with replacement, replace-one: the true ε at δ0 lies in ``[lower.eps, upper.eps]``
    (:func:`spend_bracket`).

    Attributes
    ----------
    lower : SpendResult
        The realizable lower bound (``accountant="wr_lower"``).
    upper : SpendResult
        The RDP upper bound of per-draw Gaussians (``accountant="wr_rdp"``).
    """

    lower: SpendResult
    upper: SpendResult

    @property
    def interval(self) -> tuple[float, float]:
        """``(lower.eps, upper.eps)``: the interval the true ε at δ0 lies in."""
        return self.lower.eps, self.upper.eps

    def __repr__(self) -> str:
        s = self.lower.settings
        return (f"SpendBracket(Alg. 2 at R={s['R']}, K={s['K']}, n={s['n']}: eps in [{self.lower.eps:.4g}, "
                f"{self.upper.eps:.4g}] = [{self.lower.ratio:.4g}, {self.upper.ratio:.4g}]·eps0 at delta0="
                f"{self.lower.delta:.3g}; lower: realizable instance, upper: RDP of per-draw Gaussians)")


def spend_bracket(L, *, R, n, eps0, delta0, K=None) -> SpendBracket:
    """``[lower, upper]`` on the ε (at δ0) of Alg. 2 with Thm D.1's σ², sampling with replacement, replace-one.

    :func:`spent_by_calibration` with ``accountant="wr_lower"`` and ``"wr_rdp"``.

    Parameters
    ----------
    L : float in (0, inf)
        Lipschitz constant of ``f(·, x)``.
    R : int
        Number of rounds, a whole number >= 1.
    n : int
        Records per silo.
    eps0 : float in (0, 2 ln(2/delta0)]
        The budget ε0 σ² is calibrated for.
    delta0 : float in (0, 1)
        The δ0 of the calibration, and the δ at which ε is computed.
    K : int, optional
        Batch size in ``[K_min, n]``. Default: ``⌈K_min⌉``.

    Returns
    -------
    SpendBracket
        The lower and the upper bound.

    Examples
    --------
    >>> b = spend_bracket(1, R=10, n=1000, eps0=1.0, delta0=1e-6)   # K = ⌈K_min⌉ = 15
    >>> [round(x, 3) for x in b.interval]
    [0.029, 0.307]
    """
    kw = dict(R=R, n=n, eps0=eps0, delta0=delta0, K=K)
    return SpendBracket(spent_by_calibration(L, accountant="wr_lower", **kw), spent_by_calibration(L, accountant="wr_rdp", **kw))


def spent_by_onepass(eps0, *, delta0, method: str = "gdp") -> SpendResult:
    """The ε (at δ0) of the one-pass calibration :func:`sigma2_onepass` (Thm 3.1/E.1).

    Each record enters exactly one round's batch (disjoint batches), so a silo's transcript under replace-one is
    one Gaussian of sensitivity 2L/K and std σ (parallel composition): μ = 2L/(Kσ) = ε0/√(8 ln(1.25/δ0)),
    independent of L and K. ``method``: ``"gdp"`` exact (Dong–Roth–Su eq. (64), via
    :func:`~dptheory.accounting.gdp.gdp_epsilon`); ``"zcdp"`` the paper's route (Bun–Steinke Prop. 1.3,
    ρ = μ²/2: C4's 0.50046 ε0); ``"zcdp_optimal"`` the Balle et al. conversion.

    Parameters
    ----------
    eps0 : float in (0, 8 ln(1/delta0)]
        The budget ε0 σ² is calibrated for.
    delta0 : float in (0, 1)
        The δ0 of the calibration, and the δ at which ε is computed.
    method : {"gdp", "zcdp", "zcdp_optimal"}, default "gdp"
        The conversion (see above).

    Returns
    -------
    SpendResult
        ε at δ0 (accountant ``"onepass_<method>"``, disjoint batches, replace-one).

    Raises
    ------
    ValueError
        If ``method`` is unknown or ``eps0 > 8 ln(1/delta0)``.
    """
    delta0 = _delta("delta0", delta0)
    sigma2_onepass(1.0, K=1.0, eps0=eps0, delta0=delta0)  # validates eps0 <= 8 ln(1/delta0)
    eps0 = float(eps0)
    mu = eps0 / math.sqrt(8.0 * math.log(1.25 / delta0))
    rel, sampling = Neighbouring.REPLACE_ONE, Sampling.DISJOINT_BATCHES
    if method == "gdp":
        eps, certified = gdp_epsilon(mu, delta=delta0), True
    elif method == "zcdp":
        eps, certified = zcdp_to_epsilon(mu**2 / 2.0, delta=delta0, method="bun_steinke"), True
    elif method == "zcdp_optimal":
        eps, certified = zcdp_to_epsilon(mu**2 / 2.0, delta=delta0, method="optimal"), True
    else:
        raise ValueError(f"method must be one of ('gdp', 'zcdp', 'zcdp_optimal'), got {method!r}")
    return SpendResult(float(eps), f"onepass_{method}", sampling, rel, certified, eps0=eps0, delta=delta0, settings=dict(mu=mu))
