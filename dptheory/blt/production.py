r"""Seed 003's production numbers: App. A's three BLTs, Table 4's rows and the §5 launch numbers, with the
accounting that turns a row into ``(ρ, ε)``.

**App. A** prints three ``d = 4`` BLTs, ``C = BLT(θ, ω)``, each with the setting it was optimised for
(:data:`PRODUCTION_BLTS`, :func:`production_blt`): ``b = 100`` (``n = 2000``, ``k = 10``), ``b = 400`` (``n = 4000``,
``k = 5``) and ``b = 1000`` (``n = 4000``, ``k = 2``). The digits are the paper's, unchanged. The ``b = 100`` BLT is
about 8 % worse than a re-optimised BLT at its stated ``k = 10`` and within 0.5 % of one at ``k = 20 = n/b``, and
two of its decays agree to 10 digits (``0.16776199983…`` and ``0.16776199980…``), which makes Alg. 5 ill-conditioned
and one inverse buffer vanish (errata 003 §7 #18, errata 003 C29).

**Table 4** (:data:`TABLE4`, one :class:`Table4Row` per printed line) lists, per language model, the rounds ``n``,
the mechanism and its noise multiplier ``σ`` ("Mech-σ"), the observed minimum separation ``b`` ("MinS"), the
maximum participations ``k`` ("MaxP") and the printed ``ρ``-zCDP and ``ε`` at ``δ = 10⁻¹⁰``. A BLT row is checked
by :func:`account`: the sensitivity ``s`` of the App. A BLT the row used under ``Participation(k, b)`` over ``n``
rounds (seed 003 Thm 3.1, ``k' = min(k, ⌈n/b⌉)``), ``ρ = s²/(2σ²)`` and ``ε`` from the exact Gaussian privacy-loss
curve with ``μ = s/σ = √(2ρ)`` (:func:`~dptheory.accounting.gdp.gdp_epsilon`; for one Gaussian release this is
what PLD accounting gives, errata 003 C20). The generic zCDP bound ``ρ + 2√(ρ ln(1/δ))`` gives larger ``ε``
and does not reproduce the paper (errata 003 C25).

Paper inconsistencies, kept as printed and flagged on the rows:

* es-ES BLT-7.379: the printed ``ρ = 0.16`` does not give its own printed ``ε = 3.46`` (``ρ = 0.16`` gives
  ``ε = 3.535``); the row's settings give ``ρ = 0.1535`` and ``ε = 3.458`` (errata 003 §7 #15);
* pt-PT: BLT-5.5 is said to be BLT-3.12 "linearly scaled" with the report goal 3K → 6K, but
  ``3.12 × 6/3 = 6.24 ≠ 5.5`` (errata 003 §7 #19); both pt-PT BLT rows agree with the recomputation only to
  about 1.4 % (``σ`` probably rounded in the table; errata 003 §7 #15);
* pt-BR BandMF-4.523 (``s = 1``) gives ``ρ = 0.02444``, ``ε = 1.312`` against the printed 2.45e-2 and 1.32: close,
  but not within the printed digits (``ρ = 0.0245`` itself gives ``ε = 1.314``); flagged ``approximate`` with the
  pt-PT rows;
* es-ES BandMF-1.411 (``ρ = 0.29``) and the two TreeAgg rows cannot be reproduced from what the paper states
  (BandMF's normalisation, TreeAgg's variant and accountant; errata 003 §7 #16, errata 003 §7 #17): they are listed
  with ``checkable=False``. The pt-BR BandMF row (``k = 1``, column-normalised, ``s = 1``) is checkable.

The **launch numbers** of §5 ("Model launches") are printed ``(ρ, ε)`` pairs (:data:`LAUNCH`); only the conversion
``ρ → ε`` can be checked (:func:`rho_to_epsilon`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..accounting.gdp import gdp_epsilon
from ..mechanisms import BLT, Participation

__all__ = [
    "ProductionBLT", "PRODUCTION_BLTS", "production_blt", "Table4Row", "TABLE4", "LaunchNumber", "LAUNCH",
    "Table4Accounting", "account", "rho_to_epsilon", "zcdp_rho", "DELTA", "REPORT_GOALS",
]

DELTA = 1e-10
"""The ``δ`` of every ``ε`` in seed 003 §5 and Table 4."""


@dataclass(frozen=True)
class ProductionBLT:
    r"""One BLT of seed 003 App. A with the setting it is stated to be optimised for (MaxLoss, ``d = 4``).

    Attributes
    ----------
    min_sep : int
        The minimum separation ``b`` it was optimised for.
    n : int
        The total rounds it was optimised for.
    max_participations : int
        The maximum participations ``k`` it was optimised for.
    theta : tuple of float
        The printed decays ``θ``.
    omega : tuple of float
        The printed output scales ``ω``.
    note : str, default ""
        What the errata say about it.
    """

    min_sep: int  # b
    n: int  # total rounds
    max_participations: int  # k
    theta: tuple[float, ...]
    omega: tuple[float, ...]
    note: str = ""

    @property
    def participation(self) -> Participation:
        """``Participation(max_participations=k, min_sep=b)`` of the stated setting."""
        return Participation(max_participations=self.max_participations, min_sep=self.min_sep)

    def blt(self) -> BLT:
        r"""``C = BLT(θ, ω)`` with the printed digits (seed 003 App. A).

        Returns
        -------
        BLT
            The mechanism, named after its ``b``.
        """
        return BLT(self.theta, self.omega, name=f"App. A BLT (b={self.min_sep})")


#: seed 003 App. A, verbatim; keyed by the min-separation ``b`` each BLT was optimised for.
PRODUCTION_BLTS: dict[int, ProductionBLT] = {
    100: ProductionBLT(
        100, 2000, 10,
        (0.989739971007307, 0.7352001759538236, 0.16776199983448145, 0.1677619998016191),
        (0.20502892852480875, 0.23357939425278557, 0.03479503245420878, 0.03479509876050538),
        note="about 8 % sub-optimal at the stated k = 10, within 0.5 % of optimal at k = 20 = n/b; decays 3 and 4 "
             "agree to 10 digits, so one inverse buffer vanishes (errata 003 §7 #18, errata 003 C29)",
    ),
    400: ProductionBLT(
        400, 4000, 5,
        (0.9999999999921251, 0.9944453083640997, 0.8985923474607591, 0.4912001418098778),
        (0.0070314825502323835, 0.10613806907600574, 0.1898159060327625, 0.1966594748073734),
        note="the MaxLoss optimum at its stated setting to ~5 digits (errata 003 C27); the 'default BLT' of §5",
    ),
    1000: ProductionBLT(
        1000, 4000, 2,
        (0.9999999999983397, 0.9973412136664378, 0.9584629472313878, 0.6581796870749317),
        (0.008657392263671862, 0.05890891298180163, 0.14548176930698697, 0.2770117005326523),
        note="the MaxLoss optimum at its stated setting to ~5 digits (errata 003 C28)",
    ),
}


def production_blt(min_sep: int) -> BLT:
    r"""The App. A BLT optimised for min-separation ``min_sep`` (seed 003 App. A), as a :class:`dptheory.BLT`.

    Parameters
    ----------
    min_sep : {100, 400, 1000}
        The minimum separation ``b`` the BLT was optimised for.

    Returns
    -------
    BLT
        ``C = BLT(θ, ω)`` with the printed digits.

    Raises
    ------
    ValueError
        For a ``min_sep`` App. A has no BLT for.
    """
    try:
        return PRODUCTION_BLTS[int(min_sep)].blt()
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"seed 003 App. A has BLTs for min_sep in {sorted(PRODUCTION_BLTS)}, got {min_sep!r}") from None


@dataclass(frozen=True)
class Table4Row:
    r"""One printed line of seed 003 Table 4.

    ``rho``/``eps`` are the printed strings (their digits are the rounding); ``blt`` is the App. A BLT (by its ``b``)
    a BLT row used; ``checkable`` is False where the paper does not state enough to recompute ``ρ`` (``note`` says
    why).

    Attributes
    ----------
    language : str
        The language model (e.g. ``"es-ES"``).
    rounds : int
        The rounds ``n``.
    mechanism : {"BLT", "BandMF", "TreeAgg"}
        The mechanism.
    sigma : float
        The noise multiplier ("Mech-σ"), as printed.
    min_sep : int
        The observed minimum separation ``b`` ("MinS").
    max_participations : int
        The maximum participations ``k`` ("MaxP").
    rho : str
        The printed ``ρ``-zCDP.
    eps : str
        The printed ``ε`` at ``δ = 1e-10``.
    blt : int or None, default None
        The ``b`` of the App. A BLT a BLT row used.
    checkable : bool, default True
        False where the paper does not state enough to recompute ``ρ``.
    consistent : bool, default True
        False where the printed numbers contradict each other or the stated settings.
    approximate : bool, default False
        True where the row is reproduced to ~1–2 %, not to the printed digits (see ``note``).
    note : str, default ""
        Why a row is not checkable, consistent or exact.
    """

    language: str
    rounds: int  # n
    mechanism: str  # "BLT", "BandMF" or "TreeAgg"
    sigma: float  # Mech-σ, as printed
    min_sep: int  # observed MinS
    max_participations: int  # MaxP
    rho: str  # printed ρ-zCDP
    eps: str  # printed ε at δ = 1e-10
    blt: int | None = None
    checkable: bool = True
    consistent: bool = True  # False: the printed numbers contradict each other or the stated settings
    approximate: bool = False  # True: reproduced to ~1–2 %, not to the printed digits (see note)
    note: str = ""

    @property
    def key(self) -> str:
        """``"<language>.<mechanism>-<σ>"`` (e.g. ``"es-ES.BLT-7.379"``), unique within the table."""
        return f"{self.language}.{self.mechanism}-{self.sigma:g}"

    @property
    def participation(self) -> Participation:
        """``Participation(max_participations=k, min_sep=b)`` of the row's MaxP and MinS."""
        return Participation(max_participations=self.max_participations, min_sep=self.min_sep)


#: seed 003 Table 4 (production LMs), every line as printed.
TABLE4: tuple[Table4Row, ...] = (
    Table4Row("es-ES", 1280, "BandMF", 1.411, 296, 4, "0.29", "4.82", checkable=False,
              note="not reproducible: column-normalised BandMF with k = 4 gives ρ ≥ 4/(2·1.411²) ≈ 1.0 (errata 003 §7 #16)"),
    Table4Row("es-ES", 1280, "BLT", 7.379, 300, 4, "0.16", "3.46", blt=400, consistent=False,
              note="printed ρ = 0.16 contradicts its ε = 3.46, which needs ρ = 0.1535 (errata 003 §7 #15)"),
    Table4Row("id-ID", 2350, "TreeAgg", 7.0, 437, 5, "0.94", "9.29", checkable=False,
              note="TreeAgg variant and accountant not stated (errata 003 §7 #17)"),
    Table4Row("id-ID", 2350, "BLT", 7.379, 447, 5, "0.20", "3.93", blt=400),
    Table4Row("pt-BR", 2000, "BandMF", 4.523, 2001, 1, "2.45e-2", "1.32", approximate=True,
              note="k' = 1 and column-normalised BandMF: s = 1 (errata 003 C20) gives ρ = 0.02444 and ε = 1.312: "
                   "0.2 % and 0.6 % from the printed values, just beyond their rounding even with σ's; ρ = 0.0245 "
                   "itself gives ε = 1.314, not 1.32"),
    Table4Row("pt-BR", 2000, "BLT", 8.681, 2001, 1, "2.23e-2", "1.25", blt=1000,
              note="MinS = 2001 > n = 2000: k' = 1, s = ‖c‖₂ (errata 003 C37)"),
    Table4Row("pt-BR", 2000, "BLT", 16.1, 1181, 2, "1.40e-2", "0.98", blt=1000,
              note="report goal 12K, noise scaled from BLT-8.681: 8.681 × 12/6.5 = 16.03 ≈ 16.1"),
    Table4Row("pt-PT", 430, "TreeAgg", 7.0, 91, 4, "1.33", "11.27", checkable=False,
              note="ρ = 1.33 unexplained by any stated TreeAgg variant (errata 003 §7 #17)"),
    Table4Row("pt-PT", 430, "BLT", 3.12, 92, 4, "1.11", "10.19", blt=100, approximate=True,
              note="agrees with the recomputation only to ~0.3 % in ε (σ probably rounded; errata 003 §7 #15)"),
    Table4Row("pt-PT", 320, "BLT", 5.5, 49, 6, "0.75", "8.19", blt=100, consistent=False, approximate=True,
              note="agrees only to ~1.4 % in ρ; said to be BLT-3.12 'linearly scaled' with the report goal 3K → 6K, "
                   "but 3.12 × 6/3 = 6.24 ≠ 5.5 (errata 003 §7 #19)"),
)

#: report goals (clients per round) of Table 4's text, for the noise-scaling checks
REPORT_GOALS = {"es-ES": 6500, "id-ID": 6500, "pt-BR": 6500, "pt-BR.BLT-16.1": 12000, "pt-PT": 3000,
                "pt-PT.BLT-5.5": 6000}


@dataclass(frozen=True)
class LaunchNumber:
    r"""A ``(ρ, ε)`` pair of seed 003 §5 "Model launches" (``δ = 10⁻¹⁰``), printed strings.

    Attributes
    ----------
    model : str
        The launched model (e.g. ``"pt-BR"``).
    rho : str
        The printed ``ρ``-zCDP.
    eps : str
        The printed ``ε``.
    note : str, default ""
        Which model or BLT the pair is of, where the paper says.
    """

    model: str
    rho: str
    eps: str
    note: str = ""


#: seed 003 §5, "Model launches", in the order printed.
LAUNCH: tuple[LaunchNumber, ...] = (
    LaunchNumber("pt-BR", "0.022", "1.234"),
    LaunchNumber("pt-PT", "0.749", "8.19"),
    LaunchNumber("pt-PT.previous", "0.99", "9.56", note="the previous model of Xu et al. [38]"),
    LaunchNumber("es-ES", "0.202", "4"),
    LaunchNumber("es-ES.previous", "0.89", "9.01", note="the previous model of Xu et al. [38]"),
    LaunchNumber("id-ID", "0.099", "2.74"),
    LaunchNumber("en", "0.29", "4.84", note="default BLT (b = 400, σ = 7.379)"),
    LaunchNumber("es-AR", "0.392", "5.73", note="default BLT (b = 400, σ = 7.379)"),
    LaunchNumber("es-MX", "1.39", "11.58", note="default BLT (b = 400, σ = 7.379)"),
    LaunchNumber("es-419-other", "0.54", "6.84", note="default BLT (b = 400, σ = 7.379)"),
)


def zcdp_rho(sensitivity: float, sigma: float) -> float:
    r"""The ``ρ``-zCDP of a Gaussian mechanism, ``ρ = s²/(2σ²)``.

    The Gaussian mechanism with sensitivity ``s`` and noise multiplier ``σ`` is ``ρ``-zCDP
    (seed 003 §5; the inverse of :func:`dptheory.accounting.zcdp.noise_multiplier`).

    Parameters
    ----------
    sensitivity : float in (0, inf)
        The sensitivity ``s``.
    sigma : float in (0, inf)
        The noise multiplier ``σ``.

    Returns
    -------
    float
        ``ρ = s²/(2σ²)``.

    Raises
    ------
    ValueError
        Unless both are positive.
    """
    if not (sensitivity > 0 and sigma > 0):
        raise ValueError(f"sensitivity and sigma must be positive, got {sensitivity!r} and {sigma!r}")
    return 0.5 * (sensitivity / sigma) ** 2


def rho_to_epsilon(rho: float, *, delta: float = DELTA) -> float:
    r"""``ε`` at ``δ`` of one Gaussian release that is exactly ``ρ``-zCDP.

    ``μ = √(2ρ)`` on the exact Gaussian privacy-loss curve (:func:`~dptheory.accounting.gdp.gdp_epsilon`), the
    conversion behind seed 003 Table 4 and §5's launch numbers (errata 003 C25).

    Parameters
    ----------
    rho : float in (0, inf)
        The zCDP parameter ``ρ``.
    delta : float, default DELTA
        The ``δ`` (default :data:`DELTA` = 1e-10).

    Returns
    -------
    float
        ``ε`` at ``δ``.

    Raises
    ------
    ValueError
        Unless ``rho`` is positive.
    """
    if not rho > 0:
        raise ValueError(f"rho must be positive, got {rho!r}")
    return gdp_epsilon(math.sqrt(2.0 * rho), delta=delta)


@dataclass(frozen=True)
class Table4Accounting:
    r"""A Table 4 row recomputed, beside the row's printed values.

    ``sensitivity`` ``s``, ``participations`` ``k'``, ``rho = s²/(2σ²)`` and ``epsilon`` at ``δ = 10⁻¹⁰`` (exact
    Gaussian curve, ``μ = s/σ``).

    Attributes
    ----------
    row : Table4Row
        The row recomputed.
    participations : int
        The participations ``k' = min(k, ⌈n/b⌉)``.
    sensitivity : float
        The sensitivity ``s`` of the row's mechanism.
    rho : float
        ``ρ = s²/(2σ²)``.
    epsilon : float
        ``ε`` at ``δ`` (exact Gaussian curve, ``μ = s/σ``).
    """

    row: Table4Row
    participations: int
    sensitivity: float
    rho: float
    epsilon: float

    @property
    def printed_rho(self) -> float:
        """The row's printed ``ρ`` as a number."""
        return float(self.row.rho)

    @property
    def printed_eps(self) -> float:
        """The row's printed ``ε`` as a number."""
        return float(self.row.eps)

    @property
    def epsilon_at_printed_rho(self) -> float:
        """``ε`` of the printed ``ρ`` (whether the row's two printed numbers agree with each other)."""
        return rho_to_epsilon(self.printed_rho)

    def __repr__(self) -> str:
        return (f"Table4Accounting({self.row.key}: k'={self.participations}, s={self.sensitivity:.5g}, "
                f"rho={self.rho:.4g} (printed {self.row.rho}), eps={self.epsilon:.4g} (printed {self.row.eps}))")


def account(row: Table4Row, *, delta: float = DELTA, sigma: float | None = None) -> Table4Accounting:
    r"""Recompute one checkable Table 4 row (seed 003 Table 4, §5).

    The sensitivity ``s`` of the row's mechanism under ``Participation(k, b)`` over ``n`` rounds,
    ``ρ = s²/(2σ²)`` and ``ε`` at ``δ`` with ``μ = s/σ``.

    A BLT row uses its App. A BLT (Thm 3.1's sensitivity, ``k' = min(k, ⌈n/b⌉)``); the pt-BR BandMF row has
    ``k' = 1`` and column-normalised columns, so ``s = 1``.

    Parameters
    ----------
    row : Table4Row
        A row of :data:`TABLE4`.
    delta : float, default DELTA
        The ``δ`` of ``ε`` (default :data:`DELTA` = 1e-10).
    sigma : float, optional
        Replaces the printed ``σ`` (e.g. to propagate its rounding: id-ID's ``ρ = 0.19499`` is printed
        0.20, within the rounding of ``σ = 7.379`` but not of ``ρ`` alone).

    Returns
    -------
    Table4Accounting
        The recomputed ``k'``, ``s``, ``ρ`` and ``ε``.

    Raises
    ------
    ValueError
        For a row with ``checkable=False``, or one with no sensitivity route.
    """
    if not isinstance(row, Table4Row):
        raise ValueError(f"row must be a Table4Row of TABLE4, got {type(row).__name__}")
    if not row.checkable:
        raise ValueError(f"Table 4 row {row.key} cannot be recomputed from the paper: {row.note}")
    kp = row.participation.participations(row.rounds)
    if row.mechanism == "BLT":
        s = production_blt(row.blt).sensitivity(row.rounds, row.participation)
    elif row.mechanism == "BandMF" and kp == 1:
        s = 1.0  # column-normalised BandMF, one participation: the largest column norm
    else:
        raise ValueError(f"no sensitivity route for {row.key} (k' = {kp})")
    sigma = row.sigma if sigma is None else float(sigma)
    rho = zcdp_rho(s, sigma)
    return Table4Accounting(row, kp, float(s), rho, gdp_epsilon(s / sigma, delta=delta))
