r"""A mechanism's privacy as it is trained: ``N`` records, batches of ``B``, ``E`` epochs, one ``(ε, δ)`` target, and
each mechanism charged by the tightest accountant that is valid for it (the matched-``(ε, δ)`` comparison of
:func:`dptheory.compare`, ``docs/choosing_a_mechanism.md``).

A run of ``E`` epochs has ``n = E·⌊N/B⌋`` steps. Two ways of drawing its batches are accounted
(:mod:`dptheory.accounting.sampling`):

* **fixed order** (:class:`~dptheory.accounting.FixedOrder`), every mechanism: the same ``⌊N/B⌋`` batches each
  epoch, so a record takes part ``k = E`` times exactly ``b = ⌊N/B⌋`` steps apart; one Gaussian mechanism of
  sensitivity ``sens_Π(C)`` (seed 003 eq. 6), exact ε from the Gaussian curve. Unamplified;
* **cyclic Poisson** (:class:`~dptheory.accounting.CyclicPoisson`) with ``c = b̂`` partitions, for a strategy with
  ``b̂ ≤ ⌊N/B⌋`` bands (DP-SGD: ``b̂ = 1``, Poisson sampling; BSR and BandMF): amplified by sampling
  (Choquette-Choo et al. 2023, Thm 4), PLD accountant. ``c = b̂`` is the smallest valid cycle, whose rate
  ``B/⌊N/c⌋`` is smallest.

Each mechanism takes the scheme whose calibrated noise std ``σ_dp = σ·sens`` (noise multiplier times the scheme's
sensitivity) is smallest: every yardstick of the table grows with ``σ_dp²``, so that scheme is the tightest for all
of them. The yardsticks are then today's, at the zCDP level ``ρ = 1/(2σ²)`` of the row's own noise multiplier and
its scheme's participation (single participation for an amplified scheme, whose sampled steps each reach one
column of ``C``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from ._validation import check_in_interval, check_int
from .accounting.models import EpsilonResult
from .accounting.sampling import CyclicPoisson, FixedOrder, PoissonSampling

__all__ = ["TrainingRun", "RowPrivacy", "schemes_for", "tightest_privacy"]


@dataclass(frozen=True)
class TrainingRun:
    r"""How a model is trained: ``dataset_size = N`` records, ``batch_size = B``, ``epochs = E``, target ``(ε, δ)``.

    Attributes
    ----------
    dataset_size : int
        ``N`` (keyword-only).
    batch_size : int
        ``B``, at most ``N`` (keyword-only).
    epochs : int
        ``E ≥ 1`` (keyword-only).
    eps : float
        The target ε (keyword-only).
    delta : float
        The target δ in ``(0, 1)`` (keyword-only).
    """

    dataset_size: int
    batch_size: int
    epochs: int
    eps: float
    delta: float

    def __post_init__(self):
        fixed = FixedOrder(dataset_size=self.dataset_size, batch_size=self.batch_size)  # validates N and B
        object.__setattr__(self, "dataset_size", fixed.dataset_size)
        object.__setattr__(self, "batch_size", fixed.batch_size)
        object.__setattr__(self, "epochs", check_int("epochs", self.epochs, 1))
        object.__setattr__(self, "eps", check_in_interval("eps", self.eps, 0.0))
        object.__setattr__(self, "delta", check_in_interval("delta", self.delta, 0.0, 1.0))

    @property
    def steps_per_epoch(self) -> int:
        """``⌊N/B⌋``."""
        return self.fixed_order.min_sep

    @property
    def steps(self) -> int:
        """The horizon ``n = E·⌊N/B⌋``."""
        return self.epochs * self.steps_per_epoch

    @property
    def fixed_order(self) -> FixedOrder:
        """The unamplified scheme every mechanism can take."""
        return FixedOrder(dataset_size=self.dataset_size, batch_size=self.batch_size)

    def __str__(self) -> str:
        return (f"N = {self.dataset_size}, B = {self.batch_size}, E = {self.epochs} (n = {self.steps}), "
                f"eps = {self.eps:g}, delta = {self.delta:g}")


@dataclass(frozen=True)
class RowPrivacy:
    """One mechanism's calibration in a :class:`TrainingRun`: its scheme, accountant, noise and the ε charged.

    Attributes
    ----------
    scheme : CyclicPoisson, PoissonSampling or FixedOrder
        The scheme it is charged under (the tightest valid one).
    noise_multiplier : float
        ``σ``: noise std / (clip × ``sensitivity``).
    sensitivity : float
        The scheme's sensitivity of the strategy (largest column norm, or ``sens_Π(C)``).
    charged : EpsilonResult or None
        The ε the scheme's accountant charges at ``σ`` (the target, within the PLD's tolerance); ``None`` where the
        sensitivity is infinite.
    why_not_amplified : str
        ``""`` for an amplified row, else why no sampling scheme applies.
    alternatives : tuple of (str, float)
        Every valid scheme with its calibrated noise std ``σ·sensitivity``, the chosen one included.
    """

    scheme: object
    noise_multiplier: float
    sensitivity: float
    charged: EpsilonResult
    why_not_amplified: str
    alternatives: tuple

    @property
    def noise_std(self) -> float:
        """``σ·sensitivity``: the noise std per unit of clip norm."""
        return self.noise_multiplier * self.sensitivity

    @property
    def rho(self) -> float:
        """The zCDP level at which :func:`~dptheory.accounting.calibrate_noise` gives this noise std, ``1/(2σ²)``."""
        return 1.0 / (2.0 * self.noise_multiplier**2)

    def participation(self, steps: int):
        """The participation the row's yardsticks are taken under (the scheme's; single where amplified).

        Parameters
        ----------
        steps : int
            The horizon.

        Returns
        -------
        Participation or None
            ``None`` for single participation.
        """
        return self.scheme.participation(steps)


def schemes_for(mechanism, run: TrainingRun) -> tuple[list, str]:
    """The schemes whose accounting is valid for ``mechanism`` in ``run``, and why none is amplified (or ``""``).

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    run : TrainingRun
        The training run.

    Returns
    -------
    schemes : list
        Fixed order, and cyclic Poisson with ``c = b̂`` where ``b̂ ≤ ⌊N/B⌋`` (Poisson sampling for ``b̂ = 1``).
    why_not : str
        ``""`` where an amplified scheme applies, else the reason.
    """
    bands = mechanism.strategy_bands(run.steps)
    schemes = [run.fixed_order]
    if bands > run.steps_per_epoch:
        return schemes, (f"not amplified: cyclic Poisson needs at most floor(N/B) = {run.steps_per_epoch} bands, the "
                         f"strategy has {bands} over n = {run.steps} (no amplification bound for it here)")
    kind = PoissonSampling if bands == 1 else CyclicPoisson
    extra = {} if bands == 1 else {"cycle_length": bands}
    schemes.append(kind(dataset_size=run.dataset_size, batch_size=run.batch_size, **extra))
    return schemes, ""


@functools.lru_cache(maxsize=1024)
def _noise_multiplier(scheme, run: TrainingRun) -> float:
    """Memoised: every mechanism of one cycle length shares its calibration (σ depends on the scheme alone)."""
    return scheme.noise_multiplier(run.eps, steps=run.steps, delta=run.delta)


def tightest_privacy(mechanism, run: TrainingRun) -> RowPrivacy:
    """Calibrate ``mechanism`` for ``run`` under each valid scheme and keep the smallest noise std (module docstring).

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    run : TrainingRun
        The training run.

    Returns
    -------
    RowPrivacy
        The chosen scheme, its noise multiplier and sensitivity, the ε charged, and every alternative.
    """
    schemes, why_not = schemes_for(mechanism, run)
    options = []
    for scheme in schemes:
        sigma = _noise_multiplier(scheme, run)
        sens = scheme.sensitivity(mechanism, steps=run.steps)
        options.append((sigma * sens, sigma, sens, scheme))
    std, sigma, sens, scheme = min(options, key=lambda o: o[0])
    charged = scheme.epsilon(sigma, steps=run.steps, delta=run.delta) if math.isfinite(std) else None
    return RowPrivacy(scheme, sigma, sens, charged, why_not, tuple((str(s), x) for x, _, _, s in options))
