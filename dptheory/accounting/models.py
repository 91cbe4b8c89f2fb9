r"""The model an ε holds for: how each round's batch is sampled and which data sets are neighbours, as values.

An accountant's ε is a statement about one sampling model and one neighbouring relation; seed 001 (van Dijk
et al., *Proactive DP*, footnotes 5 and 14) and seed 002 (Lowy & Razaviyayn, Thm D.1's proof and errata 002
§8 #20) each hinge on which one is meant. Every :class:`EpsilonResult` therefore carries a :class:`Sampling`
and a :class:`Neighbouring` member; ``str()`` of a member is its description.

``C`` is the largest contribution of one record to the released sum or mean: the clip norm in DP-SGD
(seed 001), ``L/K`` for a batch mean of ``L``-Lipschitz gradients (seed 002).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["Sampling", "Neighbouring", "EpsilonResult"]


class _Described(enum.Enum):
    """An enum whose ``str()`` (and f-string form) is its description."""

    def __str__(self) -> str:
        return self.value


class Sampling(_Described):
    """How the batch of each round is drawn from the ``N`` records (rate ``q``, batch size ``s = qN``).

    Parameters
    ----------
    value : str
        A member's description: ``Sampling(value)`` returns the member it describes.
    names, module, qualname, type, start, boundary : optional
        The arguments of :class:`enum.Enum`'s functional API (which creates a new enum); not used with an enum
        that has members.
    """

    #: each record independently with probability ``q`` (seed 001, footnote 14; Abadi et al. 2016)
    POISSON = "Poisson sampling with rate q"
    #: a uniformly random subset of ``s`` records (seed 001's Alg. 1; seed 002's subsampling lemma)
    FIXED_BATCH_WOR = "fixed batch s = qN, uniformly without replacement"
    #: ``s`` independent uniform draws, a record's multiplicity ``~ Bin(s, 1/N)`` (seed 002's Alg. 2 as printed)
    FIXED_BATCH_WR = "fixed batch of s = qN draws with replacement"
    #: disjoint batches, each record used in exactly one round (parallel composition; seed 002, Thm 3.1/E.1)
    DISJOINT_BATCHES = "disjoint batches, each record used once (parallel composition)"
    #: the records split into ``c`` fixed partitions, step ``t`` Poisson-samples partition ``t mod c`` at rate
    #: ``B/⌊N/c⌋`` (Choquette-Choo et al. 2023, amplified BandMF; :mod:`.cyclic_poisson`)
    CYCLIC_POISSON = "cyclic Poisson: c fixed partitions, step t Poisson-samples partition t mod c"
    #: no sampling: every record in a fixed-order batch schedule, at most k times at least b steps apart (seed 003
    #: §3.1's (k, b)-participation; unamplified)
    MIN_SEPARATED = "no sampling: (k, b)-participation, at most k times at least b steps apart (unamplified)"


class Neighbouring(_Described):
    """Which data sets are neighbours, with the sensitivity of the released sum it implies.

    Parameters
    ----------
    value : str
        A member's description: ``Neighbouring(value)`` returns the member it describes.
    names, module, qualname, type, start, boundary : optional
        The arguments of :class:`enum.Enum`'s functional API (which creates a new enum); not used with an enum
        that has members.
    """

    #: one data set has one record more (seed 001, footnote 5; ``dp_accounting``'s ADD_OR_REMOVE_ONE)
    ADD_REMOVE = "add/remove one record"
    #: one record replaced by another: the sum moves by up to ``2C``
    REPLACE_ONE = "replace one record (sensitivity 2C)"
    #: one record replaced by a null record of zero contribution (``dp_accounting``'s REPLACE_SPECIAL)
    REPLACE_WITH_NULL = "replace one record by a null record (zero contribution)"
    #: replace one record, but with the released sum's sensitivity taken as ``C``: the Dong–Roth–Su CLT on a fixed
    #: batch as seed 001 applies it (footnote 18). f-DP's neighbours differ by one replaced record, whose sum moves by
    #: up to ``2C`` (errata 001 §9 #12), so the number is certified for neither relation: an estimate of a model
    #: that treats a replaced record like an added or removed one
    SENSITIVITY_C = "replace one record, counted as sensitivity C (not 2C), as seed 001 applies it (footnote 18)"


@dataclass(frozen=True)
class EpsilonResult:
    """ε at ``δ`` from one accountant, with the sampling model and neighbouring relation it assumes.

    A discretised accountant (PLD) also says where it stopped: ``discretization`` is the value grid of its privacy
    loss and ``tolerance`` the relative change of ε over the last halving of that grid (``None``: a grid fixed by
    the caller, convergence not checked).

    Attributes
    ----------
    eps : float
        The ε at ``δ`` (``float()`` of the result).
    accountant : str
        The accountant that computed it.
    sampling : Sampling
        The sampling model ε holds for.
    neighbouring : Neighbouring
        The neighbouring relation ε holds for.
    certified : bool
        Whether ``eps`` is an upper bound on the true ε of that model (``False``: an estimate).
    interval : tuple of float or None, default None
        Monte Carlo only: the confidence interval of ``eps``.
    discretization : float or None, default None
        PLD only: the privacy-loss grid spacing of ``eps``.
    tolerance : float or None, default None
        PLD only: ``|ε(2d) − ε(d)|/ε(d)`` at the final grid spacing ``d``; ``None`` where ``d`` was fixed,
        ``inf`` where no halving fitted the grid limit.
    """

    eps: float
    accountant: str
    sampling: Sampling
    neighbouring: Neighbouring
    certified: bool  # an upper bound on the true ε of that model (False: an estimate)
    interval: tuple[float, float] | None = None  # Monte Carlo only
    discretization: float | None = None  # PLD only: the privacy-loss grid spacing of ``eps``
    tolerance: float | None = None  # PLD only: |ε(2d) − ε(d)|/ε(d) at the final d; None where d was fixed, inf where
    # no halving fitted the grid limit

    def __float__(self) -> float:
        return self.eps

    def __repr__(self) -> str:
        ci = f", CI [{self.interval[0]:.6g}, {self.interval[1]:.6g}]" if self.interval else ""
        kind = "upper bound" if self.certified else "estimate"
        grid = ""
        if self.discretization is not None:
            conv = ("convergence not checked" if self.tolerance is None
                    else "no halving fitted PLD_MAX_POINTS" if self.tolerance == float("inf")
                    else f"ε moved {self.tolerance:.1g} (relative) over its last halving")
            grid = f"; grid {self.discretization:.3g}, {conv}"
        return (f"EpsilonResult(eps={self.eps:.6g}{ci}; {self.accountant}: {self.sampling}, {self.neighbouring}; "
                f"{kind}{grid})")
