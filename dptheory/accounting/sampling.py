r"""How a training run samples its batches, as values: which mechanisms each scheme's accounting applies to, the
sensitivity its noise multiplier is relative to, and its ε(σ) and σ(ε).

Four schemes, each a frozen value (the privacy model of an ε, stated):

* :class:`PoissonSampling` (amplified): DP-SGD, a strategy with one band (``C = I`` up to scale); the PLD of the
  Poisson-subsampled Gaussian;
* :class:`CyclicPoisson` (amplified): a lower-triangular strategy with ``b̂ ≤ c`` bands (BandMF, BSR, DP-SGD with
  ``b̂ = 1``); the PLD after the cyclic-Poisson reduction (:mod:`dptheory.accounting.cyclic_poisson`);
* :class:`MinSeparated` (unamplified): every strategy; the exact Gaussian curve of ``μ = 1/σ`` (Balle & Wang 2018;
  seed 004 Thm 1.1);
* :class:`FixedOrder` (unamplified): every strategy; :class:`MinSeparated` with ``k = ⌈n/⌊N/B⌋⌉`` epochs and
  ``b = ⌊N/B⌋``.

Every scheme's ε is for add/remove-one adjacency (:attr:`dptheory.accounting.Neighbouring.ADD_REMOVE`); under it a record
moves each step's clipped sum by at most the clip norm, which is also the zero-out relation of seed 003.

The **noise multiplier** ``σ`` of a scheme is the noise std over (clip norm × the scheme's ``sensitivity``): the
largest column norm ``max_j ‖C_{:,j}‖`` for the amplified schemes (each sampled step reaches one column;
Choquette-Choo et al. 2023, Thm 4), ``sens_Π(C)`` of seed 003 eq. 6 under the scheme's participation for the
unamplified ones. A strategy that is not banded (BLT, ν-DP-FTRL, the tree, a dense
factor) has ``b̂ = n`` bands, so cyclic Poisson applies to it only with ``c ≥ n`` (each partition used once).
The MMCC bound of Choquette-Choo et al. (ICLR 2024) for general strategies is not implemented: such strategies
are charged unamplified, and :meth:`supports` says why.

>>> import dptheory as dpt
>>> from dptheory.accounting import CyclicPoisson, FixedOrder
>>> from dptheory.mechanisms import banded_sqrt_toeplitz
>>> scheme = CyclicPoisson(dataset_size=60_000, batch_size=256, cycle_length=4)
>>> scheme.supports(banded_sqrt_toeplitz(4), steps=2344), scheme.supports(dpt.nu_ftrl(0.05), steps=2344)
('', 'cyclic Poisson needs at most cycle_length = 4 bands; the strategy has 2344 over 2344 steps')
>>> FixedOrder(dataset_size=60_000, batch_size=256).participation(2344)
Participation(max_participations=11, min_sep=234)
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validation import check_in_interval, check_int
from .cyclic_poisson import cyclic_poisson_epsilon, cyclic_poisson_rounds, cyclic_poisson_sigma
from .gdp import gdp_epsilon, gdp_mu
from .models import EpsilonResult, Neighbouring, Sampling

__all__ = ["PoissonSampling", "CyclicPoisson", "MinSeparated", "FixedOrder", "SCHEMES"]

#: The unamplified schemes' accountant, in an :class:`~.models.EpsilonResult`.
GAUSSIAN_ACCOUNTANT = "exact Gaussian (mu = 1/sigma; Balle & Wang 2018)"


class _Scheme:
    """What every scheme shares: its sensitivity is the mechanism's own under the scheme's :meth:`participation`."""

    def sensitivity(self, mechanism, *, steps: int) -> float:
        """The sensitivity the noise multiplier is relative to, over ``steps`` steps (the mechanism's own route).

        The largest column norm ``max_j ‖C_{:,j}‖₂`` (single participation) for an amplified scheme, whose sampled
        steps each reach one column; ``sens_Π(C)`` under the scheme's participation for an unamplified one.

        Parameters
        ----------
        mechanism : Mechanism
            The mechanism.
        steps : int
            The number of steps ``n``.

        Returns
        -------
        float
            The sensitivity.
        """
        steps = check_int("steps", steps, 1)
        return float(mechanism.sensitivity(steps, self.participation(steps)))


@dataclass(frozen=True)
class CyclicPoisson(_Scheme):
    r"""Cyclic Poisson sampling: ``cycle_length`` fixed partitions, step ``t`` Poisson-samples partition ``t mod c``.

    Choquette-Choo et al. 2023 (arXiv 2306.08153, Thm 4); :mod:`dptheory.accounting.cyclic_poisson`. Applies to a strategy with at
    most ``cycle_length`` bands; the noise multiplier is relative to its largest column norm.

    Attributes
    ----------
    dataset_size : int
        ``N``, the number of records (keyword-only).
    batch_size : int
        ``B``, the expected batch size (keyword-only).
    cycle_length : int, default 1
        ``c``, the number of partitions (keyword-only; ``B·c ≤ N``).
    """

    dataset_size: int
    batch_size: int
    cycle_length: int = 1
    amplified = True
    sampling = Sampling.CYCLIC_POISSON
    neighbouring = Neighbouring.ADD_REMOVE

    def __post_init__(self):
        cyclic_poisson_rounds(dataset_size=self.dataset_size, batch_size=self.batch_size, steps=1,
                              cycle_length=self.cycle_length)
        for name in ("dataset_size", "batch_size", "cycle_length"):
            object.__setattr__(self, name, int(getattr(self, name)))

    @property
    def accountant(self) -> str:
        """The accountant's name."""
        return "pld" if self.cycle_length == 1 else "pld (cyclic Poisson reduction)"

    def supports(self, mechanism, *, steps: int) -> str:
        """Why the scheme's accounting does not apply to ``mechanism`` over ``steps`` steps; ``""`` where it does.

        Parameters
        ----------
        mechanism : Mechanism
            The mechanism (its :meth:`~dptheory.Mechanism.strategy_bands`).
        steps : int
            The number of steps ``n``.

        Returns
        -------
        str
            ``""``, or the reason.
        """
        steps = check_int("steps", steps, 1)
        bands = int(mechanism.strategy_bands(steps))
        if bands <= self.cycle_length:
            return ""
        return (f"cyclic Poisson needs at most cycle_length = {self.cycle_length} bands; the strategy has {bands} "
                f"over {steps} steps")

    def participation(self, steps: int) -> None:
        """``None``: each sampled step reaches one column, so the yardsticks take single participation.

        Parameters
        ----------
        steps : int
            The number of steps (unused: the same for every horizon).

        Returns
        -------
        None
            Single participation.
        """
        check_int("steps", steps, 1)
        return None

    def epsilon(self, noise_multiplier, *, steps: int, delta) -> EpsilonResult:
        """ε at ``δ`` after ``steps`` steps (:func:`dptheory.accounting.cyclic_poisson_epsilon`).

        Parameters
        ----------
        noise_multiplier : float in (0, inf)
            Noise std / (clip norm × :meth:`sensitivity`).
        steps : int
            The number of steps ``n``.
        delta : float in (0, 1)
            The δ.

        Returns
        -------
        EpsilonResult
            ε with its model.
        """
        return cyclic_poisson_epsilon(noise_multiplier, dataset_size=self.dataset_size, batch_size=self.batch_size,
                                      steps=steps, cycle_length=self.cycle_length, delta=delta)

    def noise_multiplier(self, epsilon, *, steps: int, delta) -> float:
        """The smallest noise multiplier certifying ``(ε, δ)`` after ``steps`` steps.

        Parameters
        ----------
        epsilon : float in (0, inf)
            The target ε.
        steps : int
            The number of steps ``n``.
        delta : float in (0, 1)
            The target δ.

        Returns
        -------
        float
            Noise std / (clip norm × :meth:`sensitivity`) (:func:`dptheory.accounting.cyclic_poisson_sigma`).
        """
        return cyclic_poisson_sigma(epsilon, dataset_size=self.dataset_size, batch_size=self.batch_size,
                                    steps=steps, cycle_length=self.cycle_length, delta=delta)

    @property
    def rate(self) -> float:
        """``q = B/⌊N/c⌋``, the sampling rate within a partition (``B/N`` for one partition)."""
        return cyclic_poisson_rounds(dataset_size=self.dataset_size, batch_size=self.batch_size, steps=1,
                                     cycle_length=self.cycle_length)[0]

    def __str__(self) -> str:
        return (f"cyclic Poisson (N = {self.dataset_size}, B = {self.batch_size}, cycle {self.cycle_length}, "
                f"q = {self.rate:.4g})")


@dataclass(frozen=True)
class PoissonSampling(CyclicPoisson):
    r"""Poisson sampling at rate ``q = B/N``: each record joins each step's batch independently (Abadi et al. 2016).

    :class:`CyclicPoisson` with one partition; applies to DP-SGD (a strategy with one band).

    Attributes
    ----------
    dataset_size : int
        ``N``, the number of records (keyword-only).
    batch_size : int
        ``B``, the expected batch size (keyword-only; ``q = B/N``).
    cycle_length : int, default 1
        Always ``1`` (any other value is refused).
    """

    sampling = Sampling.POISSON

    def __post_init__(self):
        if self.cycle_length != 1:
            raise ValueError(f"cycle_length of PoissonSampling is 1; use CyclicPoisson for {self.cycle_length!r}")
        super().__post_init__()

    def __str__(self) -> str:
        return f"Poisson sampling (N = {self.dataset_size}, B = {self.batch_size}, q = {self.rate:.4g})"


class _Unamplified(_Scheme):
    """What the unamplified schemes share: one Gaussian mechanism of sensitivity ``sens_Π(C)`` under
    ``self.participation(steps)``, whose exact ε at δ is the Gaussian curve of ``μ = 1/σ``."""

    amplified = False
    sampling = Sampling.MIN_SEPARATED
    neighbouring = Neighbouring.ADD_REMOVE
    accountant = GAUSSIAN_ACCOUNTANT

    def supports(self, mechanism, *, steps: int) -> str:
        """``""``: the unamplified Gaussian accounting applies to every strategy.

        Parameters
        ----------
        mechanism : Mechanism
            The mechanism.
        steps : int
            The number of steps.

        Returns
        -------
        str
            ``""``.
        """
        check_int("steps", steps, 1)
        return ""

    def epsilon(self, noise_multiplier, *, steps: int, delta) -> EpsilonResult:
        """ε at ``δ``: the exact Gaussian curve of ``μ = 1/σ`` (the sensitivity already counts the ``steps``).

        Parameters
        ----------
        noise_multiplier : float in (0, inf)
            Noise std / (clip × :meth:`sensitivity`).
        steps : int
            The number of steps.
        delta : float in (0, 1)
            The δ.

        Returns
        -------
        EpsilonResult
            ε (exact, certified) with its model.
        """
        check_int("steps", steps, 1)
        sigma = check_in_interval("noise_multiplier", noise_multiplier, 0.0)
        eps = gdp_epsilon(1.0 / sigma, delta=delta)
        return EpsilonResult(float(eps), self.accountant, self.sampling, self.neighbouring, True)

    def noise_multiplier(self, epsilon, *, steps: int, delta) -> float:
        """The noise multiplier ``1/μ(ε, δ)`` of the Gaussian curve.

        Parameters
        ----------
        epsilon : float in (0, inf)
            The target ε.
        steps : int
            The number of steps (the sensitivity already counts them).
        delta : float in (0, 1)
            The target δ.

        Returns
        -------
        float
            Noise std / (clip × :meth:`sensitivity`).
        """
        check_int("steps", steps, 1)
        return 1.0 / gdp_mu(epsilon, delta=delta)


@dataclass(frozen=True)
class MinSeparated(_Unamplified):
    r"""No sampling: a record takes part at most ``k`` times, any two at least ``b`` steps apart (seed 003 §3.1).

    Unamplified: the released ``C x + z`` is one Gaussian mechanism of sensitivity ``sens_Π(C)`` (seed 003 eq. 6),
    ``μ``-GDP with ``μ = 1/σ`` for the noise multiplier ``σ`` = noise std / (clip × ``sens_Π(C)``), so its exact
    ε at δ is the Gaussian curve (:func:`dptheory.accounting.gdp_epsilon`). Applies to every strategy.

    Attributes
    ----------
    max_participations : int, default 1
        ``k`` (keyword-only).
    min_sep : int, default 1
        ``b`` (keyword-only).
    """

    max_participations: int = 1
    min_sep: int = 1

    def __post_init__(self):
        object.__setattr__(self, "max_participations", check_int("max_participations", self.max_participations, 1))
        object.__setattr__(self, "min_sep", check_int("min_sep", self.min_sep, 1))

    def participation(self, steps: int):
        """The :class:`~dptheory.Participation` the sensitivity and the yardsticks are taken under.

        Parameters
        ----------
        steps : int
            The number of steps (unused: the same for every horizon).

        Returns
        -------
        Participation
            ``Π_{b,k}``.
        """
        from ..mechanisms.base import Participation

        check_int("steps", steps, 1)
        return Participation(max_participations=self.max_participations, min_sep=self.min_sep)

    def __str__(self) -> str:
        return f"min-separated (k = {self.max_participations}, b = {self.min_sep}), no sampling"


@dataclass(frozen=True)
class FixedOrder(_Unamplified):
    r"""Epochs of ``⌊N/B⌋`` batches of ``B`` records in one fixed order (no sampling, no reshuffling).

    :class:`MinSeparated` with ``b = ⌊N/B⌋`` (a record's batch recurs every epoch) and ``k = ⌈n/b⌉`` over ``n``
    steps (the last, partial epoch included). A run that reshuffles every epoch can place a record in the last batch
    of one epoch and the first of the next, so ``b = ⌊N/B⌋`` is *not* its separation.

    Attributes
    ----------
    dataset_size : int
        ``N`` (keyword-only).
    batch_size : int
        ``B`` (keyword-only; ``B ≤ N``).
    """

    dataset_size: int
    batch_size: int

    def __post_init__(self):
        N = check_int("dataset_size", self.dataset_size, 1)
        object.__setattr__(self, "dataset_size", N)
        object.__setattr__(self, "batch_size", check_int("batch_size", self.batch_size, 1, N, why="at most dataset_size"))

    @property
    def min_sep(self) -> int:
        """``b = ⌊N/B⌋``, the steps of one epoch."""
        return self.dataset_size // self.batch_size

    def participation(self, steps: int):
        """``Π_{b,k}`` with ``b = ⌊N/B⌋`` and ``k = ⌈steps/b⌉``.

        Parameters
        ----------
        steps : int
            The number of steps ``n``.

        Returns
        -------
        Participation
            The participation of ``steps`` steps in fixed order.
        """
        steps = check_int("steps", steps, 1)
        return MinSeparated(max_participations=-(-steps // self.min_sep), min_sep=self.min_sep).participation(steps)

    def __str__(self) -> str:
        return f"fixed order (N = {self.dataset_size}, B = {self.batch_size}: b = {self.min_sep}), no sampling"


#: The scheme classes.
SCHEMES = (PoissonSampling, CyclicPoisson, MinSeparated, FixedOrder)
