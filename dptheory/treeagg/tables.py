r"""Seed 000's Tables 3–7 as printed, recomputed with the paper's own formulas, and corrected (errata 000 §4, §5).

How the paper computed each ε (errata 000 §2.11, §4, §5 #14–#19), all reproduced here:

* federated DP-FTRL(M) (Tables 3–5): ``ρ = (trees)·⌈lg(steps per tree)⌉/(2σ²)``, classic conversion, δ = 1e-6;
  Table 5 restarts the tree every epoch of ``s = ⌊P/rg⌋`` rounds: ``E = ⌈1600/s⌉`` trees, each charged
  ``⌈lg min(s, 1600)⌉`` (the partial last tree in full) — :func:`table5_restart`;
* federated DP-SGD(M): Poisson-subsampled Gaussian RDP (dp_accounting's, the same formula as TF Privacy's) on
  TF Privacy's orders :data:`TFP_ORDERS`, classic conversion; ``q = 1`` is one Gaussian, ``ρ = T/(2σ²)``;
* image DP-FTRL(M) (Tables 6–7): D.2 as printed, ``ρ = E⌈lg(⌊N/b⌋E)⌉/(2σ²)``, improved conversion on the
  grid 1.1 … 199.9 (``orders="paper"``);
* image DP-SGD amplified: the same RDP with the improved conversion on :data:`TFP_ORDERS`; unamplified:
  ``ρ = E/(2σ²)``, improved on the paper's grid.

Corrections (errata 000 §3, §4 Table 6 notes): D.2's sensitivity is wrong; beside each printed FTRL ε the
exact no-restart ε (layer sweep, vanilla and all-complete-node read-outs) and the ε with a restart every epoch,
all through the paper's own conversion so that only the accounting changes.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from .._validation import check_choice, check_in_interval, check_positive_int
from ..accounting.conversions import epsilon_from_rho
from ..accounting.rdp import rdp_poisson_gaussian
from .accounting import ntr_sensitivity_sq, tr_sensitivity_sq, tree_depth

__all__ = [
    "TFP_ORDERS", "STACKOVERFLOW_CLIENTS", "ROUNDS", "FED_DELTA", "IMAGE_DATA",
    "FedRow", "TABLE3", "TABLE4", "TABLE5", "ImageBlock", "TABLE6", "Table7Row", "TABLE7",
    "rdp_dpsgd_epsilon", "ftrl_fed_epsilon", "table5_restart", "ftrl_image_epsilon", "unamplified_epsilon",
    "corrected_ftrl_epsilon", "infer_epochs", "table6_rows", "table7_rows",
]

#: TF Privacy's default RDP orders of the time: 1.1 … 10.9 step 0.1, then 12 … 63.
TFP_ORDERS = tuple([round(1 + x / 10, 1) for x in range(1, 100)] + list(range(12, 64)))
#: StackOverflow training clients (the tables' "3.42e5").
STACKOVERFLOW_CLIENTS = 342477
ROUNDS = 1600
FED_DELTA = 1e-6
#: image data sets: (N, δ)
IMAGE_DATA = {"MNIST": (60000, 1e-5), "CIFAR-10": (50000, 1e-5), "EMNIST": (697932, 1e-6)}


@dataclass(frozen=True)
class FedRow:
    """A federated row: optimizer, printed ε and noise multiplier, report goal, population.

    Attributes
    ----------
    table : str
        The table number as printed, e.g. ``"3"``.
    optimizer : str
        The optimizer, e.g. ``"DP-FTRLM"``.
    eps : str
        ε as printed.
    noise : str
        Noise multiplier as printed.
    report_goal : float, default 100
        Clients per round.
    population : int, default STACKOVERFLOW_CLIENTS
        Number of clients.
    """

    table: str
    optimizer: str
    eps: str
    noise: str
    report_goal: float = 100
    population: int = STACKOVERFLOW_CLIENTS


_P = STACKOVERFLOW_CLIENTS
#: Table 3 (ε column repaired, errata 000 §7 #5); σ from the text: 0.4 (SGD), 2.33 (FTRL).
TABLE3 = (
    FedRow("3", "DP-SGD", "8.53", "0.4"), FedRow("3", "DP-SGDM", "8.53", "0.4"),
    FedRow("3", "DP-FTRL", "8.50", "2.33"), FedRow("3", "DP-FTRLM", "8.50", "2.33"),
)
TABLE4 = tuple(FedRow("4", o, e, s) for o, e, s in (
    ("DP-SGDM", "19.74", "0.3"), ("DP-FTRLM", "19.74", "1.13"), ("DP-SGDM", "8.53", "0.4"), ("DP-FTRLM", "8.50", "2.33"),
    ("DP-SGDM", "4.66", "0.5"), ("DP-FTRLM", "4.66", "4.03"), ("DP-SGDM", "2.95", "0.6"), ("DP-FTRLM", "2.95", "6.21"),
    ("DP-SGDM", "2.05", "0.7"), ("DP-FTRLM", "2.04", "8.83"),
))
TABLE5 = (
    FedRow("5", "DP-SGDM", "1.78e7", "0.007", 100), FedRow("5", "DP-FTRLM", "364.74", "0.149", 100),
    FedRow("5", "DP-SGDM", "7.71e4", "0.07", 1000), FedRow("5", "DP-FTRLM", "33.80", "1.49", 1000),
    FedRow("5", "DP-SGDM", "10.16", "23.97", _P), FedRow("5", "DP-FTRLM", "10.53", "7.53", 5060),
    FedRow("5", "DP-FTRLM", "4.57", "24.29", 16300),
    FedRow("5", "DP-SGDM", "8.98", "0.67", 9560, 10**6), FedRow("5", "DP-FTRLM", "8.24", "5.73", 3850, 10**6),
    FedRow("5", "DP-SGDM", "4.17", "1.20", 17100, 10**6), FedRow("5", "DP-FTRLM", "4.00", "15.29", 10300, 10**6),
)


@dataclass(frozen=True)
class ImageBlock:
    """One (data set, batch, epochs) block of Table 6: noise and printed ε of FTRL(M), amplified and unamplified SGD.

    Attributes
    ----------
    data : str
        The data set, a key of :data:`IMAGE_DATA`.
    batch : int
        Batch size.
    epochs : int
        Number of epochs.
    ftrl : tuple of (str, str)
        DP-FTRL(M)'s ``(σ, ε)`` pairs as printed.
    sgd : tuple of (str, str)
        Amplified DP-SGD's ``(σ, ε)`` pairs as printed.
    unamplified : tuple of (str, str)
        Unamplified DP-SGD's ``(σ, ε)`` pairs as printed.
    """

    data: str
    batch: int
    epochs: int
    ftrl: tuple[tuple[str, str], ...]
    sgd: tuple[tuple[str, str], ...]
    unamplified: tuple[tuple[str, str], ...]


def _z(sig: str, eps: str) -> tuple[tuple[str, str], ...]:
    return tuple(zip(sig.split(), eps.split()))


#: Table 6 (CIFAR-10 block rebuilt from the OCR, errata 000 §7 #6), pairs (σ, ε) as printed.
TABLE6 = (
    ImageBlock("MNIST", 250, 20, _z("4.0 7.0 20.0 50.0", "26.21 12.76 3.70 1.34"),
               _z("0.42 0.52 0.74 1.14", "26.90 12.26 3.75 1.35"), _z("1.08 1.89 5.48 13.7", "27.15 13.19 3.75 1.35")),
    ImageBlock("MNIST", 1000, 80, _z("8 14 40 100", "26.21 12.76 3.70 1.34"),
               _z("0.62 0.8 1.61 3.67", "26.48 13.12 3.71 1.34"), _z("2.2 3.67 11.06 27.68", "26.50 13.68 3.71 1.34")),
    ImageBlock("CIFAR-10", 500, 100, _z("10 12.1 18.1 27 50", "23.73 18.51 11.17 6.91 3.40"),
               _z("0.61 0.66 0.79 0.98 1.51", "23.81 18.60 11.29 6.98 3.43"),
               _z("2.66 3.22 4.79 7.15 13.26", "23.88 18.61 11.30 6.99 3.43")),
    ImageBlock("CIFAR-10", 2000, 400, _z("20 24.2 36.2 54 100", "23.73 18.51 11.17 6.91 3.40"),
               _z("1.26 1.46 2.06 2.98 5.4", "23.89 18.67 11.22 6.92 3.41"),
               _z("5.4 6.42 9.63 14.4 26.68", "23.42 18.68 11.23 6.93 3.41")),
    ImageBlock("EMNIST", 500, 50, _z("8 16 30 100", "24.64 10.46 5.06 1.35"),
               _z("0.41 0.5 0.6 0.97", "25.34 10.50 5.08 1.36"), _z("1.89 3.86 7.24 24.06", "25.50 10.53 5.08 1.36")),
    ImageBlock("EMNIST", 2000, 200, _z("16 32 60 200", "24.64 10.46 5.06 1.35"),
               _z("0.56 0.73 1.02 2.69", "25.58 10.63 5.07 1.35"), _z("3.77 7.65 14.5 48.42", "25.59 10.64 5.08 1.35")),
)


@dataclass(frozen=True)
class Table7Row:
    """One printed row of :data:`TABLE7`: data set, batch, and the noise and ε of DP-FTRL and DP-SGD as printed.

    Attributes
    ----------
    data : str
        The data set, a key of :data:`IMAGE_DATA`.
    batch : int
        Batch size.
    ftrl_noise : str
        DP-FTRL's noise multiplier as printed.
    ftrl_eps : str
        DP-FTRL's ε as printed.
    sgd_noise : str
        DP-SGD's noise multiplier as printed.
    sgd_eps : str
        DP-SGD's ε as printed.
    """

    data: str
    batch: int
    ftrl_noise: str
    ftrl_eps: str
    sgd_noise: str
    sgd_eps: str


#: Table 7 (epochs not printed; :func:`infer_epochs`).
TABLE7 = (
    Table7Row("MNIST", 500, "14.0", "8.37", "1.04", "3.40"), Table7Row("MNIST", 1000, "28.0", "5.57", "2.08", "2.64"),
    Table7Row("CIFAR-10", 100, "2.42", "55.44", "0.132", "2389.37"), Table7Row("CIFAR-10", 1000, "24.2", "11.96", "1.32", "9.35"),
    Table7Row("EMNIST", 100, "3.2", "28.51", "0.1", "10051.63"), Table7Row("EMNIST", 1000, "32.0", "6.97", "1.0", "2.44"),
)


# -- the paper's formulas ----------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _rdp_poisson(q: float, sigma: float) -> np.ndarray:
    """dp_accounting's Poisson-subsampled Gaussian RDP at :data:`TFP_ORDERS` (bit for bit, on arrays)."""
    return rdp_poisson_gaussian(q, sigma, np.asarray(TFP_ORDERS))


def rdp_dpsgd_epsilon(sigma, *, q, steps, delta, conversion: str = "classic") -> float:
    """DP-SGD(M) as the paper accounted it: dp_accounting's Poisson-subsampled Gaussian RDP on :data:`TFP_ORDERS`.

    The RDP is composed ``steps`` times, converted ``"classic"`` (``min_α RDP + ln(1/δ)/(α − 1)``, the federated
    tables) or ``"improved"`` (Balle et al. 2020 Thm 21 on the same orders, the image tables); ``q = 1`` with ``"classic"``
    is one Gaussian, ``ρ = steps/(2σ²)``, over all orders (Table 5's full-participation row).

    Parameters
    ----------
    sigma : float
        Noise multiplier σ.
    q : float
        Sampling rate.
    steps : int
        Number of steps.
    delta : float
        The target δ.
    conversion : {"classic", "improved"}, default "classic"
        The RDP → ε conversion.

    Returns
    -------
    float
        ε at ``delta``.

    Raises
    ------
    ValueError
        If ``sigma`` is not positive, ``q`` outside ``(0, 1]``, ``steps`` not a positive integer, ``delta`` outside
        ``(0, 1)`` or ``conversion`` unknown.
    """
    sigma = check_in_interval("sigma", sigma, 0.0)
    q = check_in_interval("q", q, 0.0, 1.0, hi_closed=True)
    steps = check_positive_int("steps", steps)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    conversion = check_choice("conversion", conversion, ("classic", "improved"))
    if q >= 1.0 and conversion == "classic":
        return epsilon_from_rho(steps / (2 * sigma * sigma), delta=delta, conversion="classic")
    a = np.asarray(TFP_ORDERS)
    rdp = _rdp_poisson(q, sigma) * steps
    if conversion == "classic":
        return float(np.min(rdp + math.log(1 / delta) / (a - 1)))
    return float(np.min(rdp + (math.log(1 / delta) - np.log(a)) / (a - 1) + np.log1p(-1 / a)))


def ftrl_fed_epsilon(sigma, *, trees: int = 1, steps: int = ROUNDS, delta: float = FED_DELTA, variant: str = "paper") -> float:
    """Federated DP-FTRL(M) (Tables 3–4): ``ρ = trees·k/(2σ²)``, ``k = ⌈lg steps⌉`` (``"paper"``) or ⌊lg⌋ + 1, classic.

    Parameters
    ----------
    sigma : float
        Noise multiplier σ.
    trees : int, default 1
        Number of trees.
    steps : int, default ROUNDS
        Steps per tree.
    delta : float, default FED_DELTA
        The target δ.
    variant : {"paper", "exact"}, default "paper"
        ``k = ⌈lg steps⌉`` as printed, or ``⌊lg steps⌋ + 1``.

    Returns
    -------
    float
        ε at ``delta``.
    """
    k = tree_depth(steps, variant="paper" if variant == "paper" else "exact")
    return epsilon_from_rho(trees * k / (2 * float(sigma) ** 2), delta=delta, conversion="classic")


def table5_restart(population: int, report_goal: float, rounds: int = ROUNDS) -> dict:
    """Table 5's restart rule (errata 000 §4), with the paper's and the exact sensitivity.

    ``s = ⌊P/rg⌋`` rounds per epoch, ``E = ⌈rounds/s⌉`` trees; the paper
    charges each ``⌈lg min(s, rounds)⌉``; exactly, the trees have ``s, …, s, rounds − (E − 1)s`` steps,
    each ``⌊lg n_e⌋ + 1``.

    Parameters
    ----------
    population : int
        Number of clients ``P``.
    report_goal : float
        Clients per round ``rg``.
    rounds : int, default ROUNDS
        Number of rounds.

    Returns
    -------
    dict
        ``steps_per_epoch`` (``s``), ``trees`` (``E``), ``k_paper`` (``⌈lg min(s, rounds)⌉``), ``sens_paper``
        (``E·k_paper``) and ``sens_exact`` (``Σ_e (⌊lg n_e⌋ + 1)``).
    """
    s = int(population // report_goal)
    per = min(s, rounds)
    E = -(-rounds // per)
    steps = [per] * (E - 1) + [rounds - (E - 1) * per]
    return {"steps_per_epoch": s, "trees": E, "k_paper": tree_depth(per, variant="paper"),
            "sens_paper": E * tree_depth(per, variant="paper"), "sens_exact": tr_sensitivity_sq(steps)}


def ftrl_image_epsilon(sigma, *, data: str, batch: int, epochs: int, variant: str = "paper", readout: str = "vanilla") -> float:
    """Image DP-FTRL(M) (Tables 6–7) with the paper's conversion (improved on the grid 1.1 … 199.9).

    ``"paper"``: D.2 as printed, ``S² = E⌈lg(nE)⌉``, n = ⌊N/b⌋; ``"exact"``: the exact no-restart S² (layer sweep,
    ``readout``); ``"restart"``: a tree per epoch, ``S² = E(⌊lg n⌋ + 1)`` (errata 000 §3, §4).

    Parameters
    ----------
    sigma : float
        Noise multiplier σ.
    data : str
        The data set, a key of :data:`IMAGE_DATA` (gives ``N`` and δ).
    batch : int
        Batch size ``b``.
    epochs : int
        Number of epochs ``E``.
    variant : {"paper", "exact", "restart"}, default "paper"
        The sensitivity, as above.
    readout : {"vanilla", "all"}, default "vanilla"
        The read-out of the ``"exact"`` sensitivity.

    Returns
    -------
    float
        ε at the data set's δ.
    """
    N, delta = IMAGE_DATA[data]
    n = N // batch
    if variant == "restart":
        s2 = tr_sensitivity_sq(n, epochs=epochs)
    else:
        s2 = ntr_sensitivity_sq(n, epochs=epochs, readout=readout, variant="paper" if variant == "paper" else "exact")
    return epsilon_from_rho(s2 / (2 * float(sigma) ** 2), delta=delta, conversion="improved", orders="paper")


def unamplified_epsilon(sigma, *, data: str, epochs: int) -> float:
    """Unamplified DP-SGD (Table 6): each example in one step per epoch, ``ρ = E/(2σ²)``, improved on the paper's grid.

    Parameters
    ----------
    sigma : float
        Noise multiplier σ.
    data : str
        The data set, a key of :data:`IMAGE_DATA` (gives δ).
    epochs : int
        Number of epochs ``E``.

    Returns
    -------
    float
        ε at the data set's δ.
    """
    _, delta = IMAGE_DATA[data]
    return epsilon_from_rho(epochs / (2 * float(sigma) ** 2), delta=delta, conversion="improved", orders="paper")


def corrected_ftrl_epsilon(sigma, *, data: str, batch: int, epochs: int) -> dict:
    """Beside a printed FTRL ε: the paper's formula, exact no-restart (vanilla / all complete nodes), restart.

    Parameters
    ----------
    sigma : float
        Noise multiplier σ.
    data : str
        The data set, a key of :data:`IMAGE_DATA`.
    batch : int
        Batch size.
    epochs : int
        Number of epochs.

    Returns
    -------
    dict
        ε under ``"paper"``, ``"ntr_vanilla"``, ``"ntr_all"`` and ``"restart"`` (see :func:`ftrl_image_epsilon`).
    """
    kw = dict(data=data, batch=batch, epochs=epochs)
    return {"paper": ftrl_image_epsilon(sigma, **kw), "ntr_vanilla": ftrl_image_epsilon(sigma, variant="exact", **kw),
            "ntr_all": ftrl_image_epsilon(sigma, variant="exact", readout="all", **kw),
            "restart": ftrl_image_epsilon(sigma, variant="restart", **kw)}


def infer_epochs(sigma, printed_eps: str, *, data: str, batch: int, max_epochs: int = 1000) -> list[int]:
    """Every epoch count E ≤ ``max_epochs`` at which the paper's FTRL formula rounds to ``printed_eps`` (Table 7).

    Parameters
    ----------
    sigma : float
        DP-FTRL's noise multiplier σ.
    printed_eps : str
        The printed ε; its number of decimals sets the rounding.
    data : str
        The data set, a key of :data:`IMAGE_DATA`.
    batch : int
        Batch size.
    max_epochs : int, default 1000
        Largest epoch count tried.

    Returns
    -------
    list of int
        The matching epoch counts, increasing (empty if none).
    """
    digits = len(printed_eps.partition(".")[2])
    target = float(printed_eps)
    return [E for E in range(1, max_epochs + 1)
            if round(ftrl_image_epsilon(sigma, data=data, batch=batch, epochs=E), digits) == target]


def table6_rows() -> list[dict]:
    """Every Table 6 row recomputed, with the corrected ε's.

    ``kind`` ∈ {ftrl, sgd, unamplified}, printed σ and ε, the recomputed ε (and
    for FTRL the corrected ones; for amplified SGD the ε range over σ ± half a unit of its last printed digit).

    Returns
    -------
    list of dict
        One dict per printed (σ, ε) pair, with the block's ``data``, ``batch``, ``epochs`` and ``kind``, ``noise``,
        ``printed``, the recomputed ``paper`` ε and, for FTRL, the corrected ε's of :func:`corrected_ftrl_epsilon`; for
        amplified SGD, ``range``.
    """
    rows = []
    for blk in TABLE6:
        N, delta = IMAGE_DATA[blk.data]
        n = N // blk.batch
        base = dict(data=blk.data, batch=blk.batch, epochs=blk.epochs)
        for s, e in blk.ftrl:
            rows.append(dict(base, kind="ftrl", noise=s, printed=e,
                             **corrected_ftrl_epsilon(float(s), data=blk.data, batch=blk.batch, epochs=blk.epochs)))
        for s, e in blk.sgd:
            half = 0.5 * 10.0 ** -len(s.partition(".")[2])
            f = lambda sig: rdp_dpsgd_epsilon(sig, q=blk.batch / N, steps=blk.epochs * n, delta=delta, conversion="improved")
            rows.append(dict(base, kind="sgd", noise=s, printed=e, paper=f(float(s)),
                             range=(f(float(s) + half), f(float(s) - half))))
        for s, e in blk.unamplified:
            rows.append(dict(base, kind="unamplified", noise=s, printed=e,
                             paper=unamplified_epsilon(float(s), data=blk.data, epochs=blk.epochs)))
    return rows


def table7_rows() -> list[dict]:
    """Table 7 with the epochs pinned by the FTRL ε (errata 000 §5 #16).

    Its DP-SGD ε is recomputed at them, beside the corrected FTRL ε.

    Returns
    -------
    list of dict
        One dict per row: the printed values, ``epochs_found`` and ``epochs`` (``None`` unless exactly one fits) and,
        when the epochs are pinned, the corrected FTRL ε's and the recomputed DP-SGD ε (``sgd``).
    """
    rows = []
    for r in TABLE7:
        N, delta = IMAGE_DATA[r.data]
        found = infer_epochs(float(r.ftrl_noise), r.ftrl_eps, data=r.data, batch=r.batch)
        E = found[0] if len(found) == 1 else None
        row = dict(data=r.data, batch=r.batch, ftrl_noise=r.ftrl_noise, ftrl_printed=r.ftrl_eps, sgd_noise=r.sgd_noise,
                   sgd_printed=r.sgd_eps, epochs_found=found, epochs=E)
        if E is not None:
            row.update(corrected_ftrl_epsilon(float(r.ftrl_noise), data=r.data, batch=r.batch, epochs=E))
            row["sgd"] = rdp_dpsgd_epsilon(float(r.sgd_noise), q=r.batch / N, steps=E * (N // r.batch), delta=delta,
                                           conversion="improved")
        rows.append(row)
    return rows
