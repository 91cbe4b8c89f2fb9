r"""The cyclic-Poisson accountant: DP-SGD and banded matrix mechanisms with privacy amplification by sampling.

Choquette-Choo et al. 2023, *(Amplified) Banded Matrix Factorization* (arXiv 2306.08153, §4, Thm 4): split the
``N`` records into ``c = cycle_length`` fixed partitions of ``⌊N/c⌋`` records (``N mod c`` records are left out);
step ``t`` draws its batch from partition ``t mod c`` by Poisson sampling with rate ``q = B/⌊N/c⌋`` (``B`` the
expected batch size). For a lower-triangular strategy ``C`` with ``b̂ ≤ c`` bands, the columns a record can reach
(``i, i + c, i + 2c, …``) have disjoint row supports, so the released ``C x + z`` is the composition of
``⌈n/c⌉`` Poisson-subsampled Gaussian mechanisms, each with sensitivity at most the largest column norm of ``C``:
the privacy of DP-SGD with rate ``q`` run ``⌈n/c⌉`` times, with noise multiplier

    ``σ = noise std / (clip norm · max_j ‖C_{:,j}‖₂)``

(exact for a column-normalised ``C``, an upper bound on ε otherwise). ``cycle_length = 1`` is DP-SGD with Poisson
sampling at ``q = B/N`` over ``n`` steps. jax_privacy's ``DpsgdTrainingAccountant(cycle_length=…)`` implements the
same reduction (tested against it in ``tests/test_cyclic_poisson.py``).

ε is dp_accounting's pessimistic PLD with the grid refined until it converges (:func:`~.dpsgd.exact_epsilon`,
relative tolerance ``rtol``); σ(ε) is its inverse (:func:`~.dpsgd.calibrate_sigma`). Both hold for add/remove-one
adjacency (dp_accounting's ``ADD_OR_REMOVE_ONE``, which jax_privacy also uses for Poisson sampling).

>>> from dptheory import accounting
>>> res = accounting.cyclic_poisson_epsilon(1.0, dataset_size=60_000, batch_size=256, steps=2344, cycle_length=1,
...                                         delta=1e-5)
>>> round(res.eps, 2), res.sampling
(1.1, <Sampling.POISSON: 'Poisson sampling with rate q'>)
"""

from __future__ import annotations

from dataclasses import replace

from .._validation import check_in_interval, check_int
from .dpsgd import PLD_RTOL, calibrate_sigma, exact_epsilon
from .models import EpsilonResult, Sampling

__all__ = ["cyclic_poisson_rounds", "cyclic_poisson_epsilon", "cyclic_poisson_sigma"]

#: The accountant's name in an :class:`~.models.EpsilonResult`.
ACCOUNTANT = "pld (cyclic Poisson reduction, Choquette-Choo et al. 2023 Thm 4)"


def cyclic_poisson_rounds(*, dataset_size, batch_size, steps, cycle_length=1, bands=None) -> tuple[float, int]:
    r"""The DP-SGD that ``steps`` steps of cyclic Poisson sampling reduce to: ``(q, rounds)``.

    ``q = batch_size/⌊dataset_size/cycle_length⌋`` and ``rounds = ⌈steps/cycle_length⌉`` (module docstring).

    Parameters
    ----------
    dataset_size : int
        ``N``, the number of records (at least ``batch_size · cycle_length``).
    batch_size : int
        ``B``, the expected batch size of a step (at least 1).
    steps : int
        ``n``, the number of steps (at least 1).
    cycle_length : int, default 1
        ``c``, the number of partitions; ``1`` is DP-SGD with Poisson sampling.
    bands : int, optional
        The strategy's number of bands ``b̂``; when given, ``cycle_length < bands`` is refused (the reduction needs
        ``b̂ ≤ c``).

    Returns
    -------
    q : float
        The sampling rate within a partition.
    rounds : int
        The number of times one partition is sampled.

    Raises
    ------
    ValueError
        For a non-integer or non-positive size, ``batch_size · cycle_length > dataset_size``, or
        ``cycle_length < bands``; the message names the parameter.
    """
    N = check_int("dataset_size", dataset_size, 1)
    B = check_int("batch_size", batch_size, 1)
    n = check_int("steps", steps, 1)
    c = check_int("cycle_length", cycle_length, 1)
    if bands is not None:
        b = check_int("bands", bands, 1)
        if c < b:
            raise ValueError(f"cycle_length must be at least the strategy's bands = {b} (the reduction needs the "
                             f"columns a record reaches to be disjoint), got cycle_length = {c}")
    if B * c > N:
        raise ValueError(f"batch_size * cycle_length must be at most dataset_size = {N} (each of the {c} partitions "
                         f"holds floor(N/c) records and must fit a batch), got batch_size = {B}, cycle_length = {c}; "
                         f"use cycle_length <= {N // B}")
    return B / (N // c), -(-n // c)


def cyclic_poisson_epsilon(noise_multiplier, *, dataset_size, batch_size, steps, cycle_length=1, delta, bands=None,
                           rtol=PLD_RTOL) -> EpsilonResult:
    r"""ε at ``δ`` of ``steps`` steps under cyclic Poisson sampling (Choquette-Choo et al. 2023, Thm 4).

    The PLD of ``⌈steps/c⌉`` Poisson-subsampled Gaussians with rate ``B/⌊N/c⌋`` (:func:`cyclic_poisson_rounds`),
    by :func:`~dptheory.accounting.exact_epsilon` (``accountant="pld"``, grid refined to ``rtol``); with
    ``cycle_length = 1`` the two are the same call.

    Parameters
    ----------
    noise_multiplier : float in (0, inf)
        ``σ`` = noise std / (clip norm × the strategy's largest column norm); DP-SGD's noise multiplier.
    dataset_size : int
        ``N``, the number of records.
    batch_size : int
        ``B``, the expected batch size.
    steps : int
        ``n``, the number of steps.
    cycle_length : int, default 1
        ``c``, the number of partitions (``1``: DP-SGD with Poisson sampling).
    delta : float in (0, 1)
        The δ at which ε is given.
    bands : int, optional
        The strategy's bands ``b̂``; when given, ``cycle_length < bands`` is refused.
    rtol : float in (0, 1), default PLD_RTOL
        The PLD grid's relative tolerance.

    Returns
    -------
    EpsilonResult
        ε (an upper bound, add/remove adjacency) with ``sampling`` :attr:`Sampling.CYCLIC_POISSON` (or
        :attr:`Sampling.POISSON` for ``cycle_length = 1``), the PLD grid and its last relative move.

    Raises
    ------
    ValueError
        For the bad inputs of :func:`cyclic_poisson_rounds` and of :func:`~dptheory.accounting.exact_epsilon`.
    """
    q, rounds = cyclic_poisson_rounds(dataset_size=dataset_size, batch_size=batch_size, steps=steps,
                                      cycle_length=cycle_length, bands=bands)
    sigma = check_in_interval("noise_multiplier", noise_multiplier, 0.0)
    res = exact_epsilon(sigma, q=q, T=rounds, delta=delta, accountant="pld", rtol=rtol)
    if int(cycle_length) == 1:
        return res
    return replace(res, accountant=ACCOUNTANT, sampling=Sampling.CYCLIC_POISSON)


def cyclic_poisson_sigma(epsilon, *, dataset_size, batch_size, steps, cycle_length=1, delta, bands=None,
                         rtol=PLD_RTOL) -> float:
    r"""The smallest noise multiplier at which :func:`cyclic_poisson_epsilon` certifies ``(ε, δ)``.

    :func:`~dptheory.accounting.calibrate_sigma` on the reduced DP-SGD (:func:`cyclic_poisson_rounds`): the result
    ``σ`` satisfies ``cyclic_poisson_epsilon(σ, …).eps ≤ ε``, and is the smallest such to Brent's ``1e-9`` relative
    on the PLD grid the accountant converges to.

    Parameters
    ----------
    epsilon : float in (0, inf)
        The target ε.
    dataset_size : int
        ``N``, the number of records.
    batch_size : int
        ``B``, the expected batch size.
    steps : int
        ``n``, the number of steps.
    cycle_length : int, default 1
        ``c``, the number of partitions.
    delta : float in (0, 1)
        The target δ.
    bands : int, optional
        The strategy's bands ``b̂``; when given, ``cycle_length < bands`` is refused.
    rtol : float in (0, 1), default PLD_RTOL
        The PLD grid's relative tolerance.

    Returns
    -------
    float
        ``σ`` = noise std / (clip norm × the strategy's largest column norm).

    Raises
    ------
    ValueError
        For the bad inputs of :func:`cyclic_poisson_rounds` and :func:`~dptheory.accounting.calibrate_sigma`
        (e.g. a δ at least the chance ``1 − (1 − q)^rounds`` that a record is ever sampled).
    """
    q, rounds = cyclic_poisson_rounds(dataset_size=dataset_size, batch_size=batch_size, steps=steps,
                                      cycle_length=cycle_length, bands=bands)
    return calibrate_sigma(epsilon, delta=delta, q=q, T=rounds, rtol=rtol)

