"""Seed 003's loss sweeps (Figs. 2/12, 3, 4, 5) for BLTs, the coefficients of App. A's BLTs (Fig. 10), and BandMF
against a BLT (Fig. 2's lower crossover, C34).

BLTs are optimised by :func:`dptheory.blt.optimize` at the paper's n = 2000 (each under a second); the quick run
optimises fewer of them and re-optimises at fewer separations. Claims:

* C31: each optimised objective is at most the errata's independent optimum × (1 + 5e-4);
* Figs. 3 and 4 (C33, C35): the BLT optimised at b = 400 evaluated at the actual b against the errata's values,
  and BLTs re-optimised at each b: at most the errata's value × (1 + 5e-4), and never above the b = 400 BLT (that
  one, like "each BLT is best for its own objective" (Figs. 2/12), holds by construction and is informational);
* Fig. 5 (C32): RmsLoss(d = 1)/RmsLoss(d = 2) > 1.07 (paper) and = 1.082 (errata); d = 2 within 1 % of d = 5;
* Fig. 10: c_0..c_5 and ĉ_0..ĉ_5 of App. A's BLTs, and c_{n−1};
* BandMF (``dptheory.mechanisms.banded``, O(n b̂²) per step) at the paper's n = 2000 with 400 bands (quick: n = 500,
  100 bands, the same b̂/n) against a BLT optimised for k = 2 at b = b̂: the lower-crossover pattern of C34 (the BLT
  wins for b well below b̂, BandMF at b = b̂); at the paper's size BandMF's own RmsLoss at b = b̂ is at most the
  errata's optimum, 4.842, × (1 + 5e-4) (``seed003.C34.bandmf.rms``).
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import dptheory as dpt
from dptheory.blt import production as prod
from dptheory.blt.optimizer import optimize
from dptheory.claims import Claim, save_figure
from dptheory.data import golden
from dptheory.mechanisms.banded import optimize_banded
from dptheory.mechanisms.losses import prefix_loss

PAPER = "seed 003"
P = dpt.Participation
N = 2000
B0 = 400
OPT = 1 + 5e-4  # an optimum found here may be lower than the errata's, not higher by more than this
FIXED_RTOL = 1e-3  # a fixed optimised BLT evaluated elsewhere: the optimiser's agreement carried to another b


def _half(printed: str) -> float:
    mantissa, _, exp = printed.lower().partition("e")
    return 0.5 * 10.0 ** (-len(mantissa.partition(".")[2]) + (int(exp) if exp else 0))


def _loss(blt, n, k, b, objective):
    loss = prefix_loss(blt, n, P(max_participations=k, min_sep=b))
    return loss.rms_loss if objective == "rms" else loss.max_loss


# -- C31: BLTs optimised at b = 400 ------------------------------------------------------------------------------


def _c31(quick: bool):
    g = golden("003", "seed003.C31")
    keys = [k for k in g.value if not quick or k.endswith(".d=2") or k == "k=5.rms.d=1"]
    opt, claims = {}, []
    for key in keys:
        k, objective, d = key.split(".")
        kk, dd = int(k[2:]), int(d[2:])
        res = optimize(N, P(max_participations=kk, min_sep=B0), buffers=dd, loss=objective)
        opt[key] = res
        i = 1 if objective == "rms" else 0
        ours = res.rms_loss if objective == "rms" else res.max_loss
        claims.append(Claim(f"seed003.C31.{key}", PAPER, "Figs. 2–5 (n = 2000, b = 400), errata 003 C31",
                            f"{'RmsLoss' if objective == 'rms' else 'MaxLoss'} of the BLT optimised for it with d = {dd}, "
                            f"k = {kk} (converged: {res.converged}) is at most the errata's optimum",
                            g.value[key][i], ours, bounds=(0.99 * g.value[key][i], g.value[key][i] * OPT),
                            tolerance_why="≤ the errata's optimum × (1 + 5e-4); the lower side catches a broken loss",
                            kind="regression"))
    return opt, claims


# -- Figs. 2/12: loss against the actual b, k = 2 and 5 ---------------------------------------------------------------


def _fig2(out_dir, opt) -> list[Claim]:
    bs = np.unique(np.concatenate([np.geomspace(10, 999, 14).round().astype(int), [390, 400, 700, 800, 999]]))
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5), sharex=True)
    claims = []
    for row, objective in enumerate(("rms", "max")):
        for col, k in enumerate((2, 5)):
            ax = axes[row, col]
            for key, res in opt.items():
                kk, obj, d = key.split(".")
                if d != "d=2" or kk not in ("k=2", "k=5"):
                    continue
                ax.plot(bs, [_loss(res.blt, N, k, int(b), objective) for b in bs],
                        label=f"BLT d=2 optimised for {'RmsLoss' if obj == 'rms' else 'MaxLoss'}, {kk}, b=400")
            ax.plot(bs, [_loss(dpt.dpsgd(), N, k, int(b), objective) for b in bs], "k:", label="DP-SGD")
            ax.set(xscale="log", yscale="log", title=f"{'RmsLoss (Fig. 2)' if objective == 'rms' else 'MaxLoss (Fig. 12)'}, k = {k}, n = {N}",
                   xlabel="actual min-separation b" if row else None)
            ax.axvline(B0, color="0.7", lw=0.8)
            ax.grid(alpha=0.3, which="both")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle("Seed 003, Figs. 2 and 12: BLTs optimised at b = 400, evaluated at the actual b (TreeAgg: seed 000)")
    fig.set_layout_engine("tight", rect=(0, 0.07, 1, 0.96))  # run by save_figure, at the saving dpi
    save_figure(fig, out_dir / "seed003_fig2_fig12.png")
    plt.close(fig)
    # each BLT is best (among these) for the objective and k it was optimised for, at b = 400
    for objective in ("rms", "max"):
        for k in (2, 5):
            own = opt.get(f"k={k}.{objective}.d=2")
            other = opt.get(f"k={k}.{'max' if objective == 'rms' else 'rms'}.d=2")
            if own is None or other is None:
                continue
            claims.append(Claim(f"seed003.fig2.own_objective.k={k}.{objective}", PAPER, "Figs. 2/12 (n = 2000, b = 400)",
                                f"at b = 400, k = {k}: the BLT optimised for {objective} has the lower {objective} loss "
                                "than the one optimised for the other loss (ratio other/own)",
                                1.0, _loss(other.blt, N, k, B0, objective) / _loss(own.blt, N, k, B0, objective),
                                bounds=(1.0, 1.5), kind="informational",
                                tolerance_why="an optimum against another point: ≥ 1 by the definition of an optimum "
                                              "(the optimisers themselves are checked by seed003.C31.*); reported for "
                                              "the size of the gap"))
    return claims


# -- Figs. 3 and 4: fixed BLT against BLTs re-optimised at each b ----------------------------------------------------


def _sweep(out_dir, name: str, g, quick: bool) -> list[Claim]:
    if name == "fig3":
        kfun, base = (lambda b: 3), optimize(N, P(max_participations=3, min_sep=B0), buffers=2, loss="rms")
        where = "Fig. 3 (n = 2000, k = 3), errata 003 C31"
    else:
        kfun, base = (lambda b: N // b), optimize(N, P(max_participations=5, min_sep=B0), buffers=2, loss="rms")
        where = "Fig. 4 (n = 2000, k = n/b), errata 003 C31"
    bs = sorted(int(b) for b in g.value["blt400"])
    reopt_bs = bs if not quick else [bs[0], B0, bs[-1]]
    fixed, reopt, claims = {}, {}, []
    for b in bs:
        fixed[b] = _loss(base.blt, N, kfun(b), b, "rms")
        claims.append(Claim(f"seed003.{name}.blt400.b={b}", PAPER, where,
                            f"RmsLoss at b = {b}, k = {kfun(b)} of the BLT (d = 2) optimised for RmsLoss at b = 400",
                            g.value["blt400"][str(b)], fixed[b], rtol=max(FIXED_RTOL, _half(g.printed["blt400"][str(b)]) / g.value["blt400"][str(b)]),
                            tolerance_why="the errata's digits, or 1e-3 (two optimisers' optima evaluated elsewhere)",
                            kind="regression"))
    for b in reopt_bs:
        res = optimize(N, P(max_participations=kfun(b), min_sep=b), buffers=3, loss="rms")
        reopt[b] = res.rms_loss
        ref = g.value["reopt"][str(b)]
        claims.append(Claim(f"seed003.{name}.reopt.b={b}", PAPER, where,
                            f"RmsLoss of a BLT (d = 3) re-optimised at b = {b}, k = {kfun(b)} is at most the errata's",
                            ref, reopt[b], bounds=(0.99 * ref, ref * OPT + _half(g.printed["reopt"][str(b)])),
                            tolerance_why="≤ the errata's value (its digits) × (1 + 5e-4)", kind="regression"))
        claims.append(Claim(f"seed003.{name}.reopt_le_fixed.b={b}", PAPER, where,
                            f"the BLT re-optimised at b = {b} is no worse than the b = 400 one there (ratio reopt/fixed)",
                            1.0, reopt[b] / fixed[b], bounds=(0.5, 1.0 + 5e-4),
                            kind="informational",
                            tolerance_why="re-optimising can only help, up to the optimiser's tolerance: ≤ 1 by "
                                          f"construction of an optimum; the re-optimised value is checked against the "
                                          f"errata's by seed003.{name}.reopt.b={b}"))
    if name == "fig3":
        dpsgd = _loss(dpt.dpsgd(), N, 3, B0, "rms")
        claims.append(Claim("seed003.fig3.dpsgd", PAPER, where, "RmsLoss of DP-SGD at k = 3 (any b ≥ 667/…: k' = 3)",
                            g.value["dpsgd"], dpsgd, rtol=_half(g.printed["dpsgd"]) / g.value["dpsgd"],
                            tolerance_why="half a unit of the errata's last digit", kind="regression"))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    ax1.plot(bs, [fixed[b] / fixed[b] for b in bs], "o-", label="BLT d=2, optimised at b=400")
    ax1.plot(reopt_bs, [reopt[b] / fixed[b] for b in reopt_bs], "s-", label="BLT d=3, re-optimised at each b")
    ax2.plot(bs, [fixed[b] for b in bs], "o-")
    ax2.plot(reopt_bs, [reopt[b] for b in reopt_bs], "s-")
    ax2.plot(bs, [g.value["blt400"][str(b)] for b in bs], "x", color="k", label="errata (b=400 BLT)")
    ax1.set(xscale="log", xlabel="actual min-separation b", ylabel="RmsLoss relative to the b=400 BLT")
    ax2.set(xscale="log", yscale="log", xlabel="actual min-separation b", ylabel="RmsLoss")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3, which="both")
    h1, l1 = ax1.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    fig.legend(h1 + h2, l1 + l2, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle(f"Seed 003, {'Fig. 3: n = 2000, k = 3' if name == 'fig3' else 'Fig. 4: n = 2000, k = n/b'} "
                 "(BandMF: see the reduced-size figure; TreeAgg: seed 000)")
    fig.set_layout_engine("tight", rect=(0, 0.08, 1, 0.95))
    save_figure(fig, out_dir / f"seed003_{name}.png")
    plt.close(fig)
    return claims


# -- Fig. 5: robustness to n -------------------------------------------------------------------------------------


def _fig5(out_dir, opt, quick: bool) -> list[Claim]:
    g = golden("003", "seed003.fig5")
    part = P(max_participations=5, min_sep=B0)
    blts = {"d=1, n=2000": opt.get("k=5.rms.d=1") or optimize(N, part, buffers=1, loss="rms"),
            "d=2, n=2000": opt.get("k=5.rms.d=2") or optimize(N, part, buffers=2, loss="rms"),
            "d=5, n=2000": optimize(N, part, buffers=5, loss="rms"),
            "d=2, n=800": optimize(800, P(max_participations=2, min_sep=B0), buffers=2, loss="rms")}
    ratio = blts["d=1, n=2000"].rms_loss / blts["d=2, n=2000"].rms_loss
    claims = [
        Claim("seed003.fig5.d1_over_d2.printed", PAPER, "Fig. 5 (n = 2000, b = 400, k = 5), errata 003 C32",
              "d = 1 is 'not sufficient with relative RmsLoss > 1.07': RmsLoss(d = 1)/RmsLoss(d = 2)",
              g.value["printed_lower"], ratio, bounds=(g.value["printed_lower"], 1.2), tolerance_why="the paper's inequality",
              kind="paper"),
        Claim("seed003.fig5.d1_over_d2.recomputed", PAPER, "Fig. 5, errata 003 C32",
              "RmsLoss(d = 1)/RmsLoss(d = 2) against the errata's 8.8335/8.1608", g.value["recomputed"], ratio,
              rtol=_half(g.printed["recomputed"]) / g.value["recomputed"], tolerance_why="half a unit of the 3rd decimal",
              kind="regression"),
        Claim("seed003.fig5.d2_vs_d5", PAPER, "Fig. 5, errata 003 C32",
              "'only d = 2 buffers is sufficient': RmsLoss(d = 2)/RmsLoss(d = 5) at the target n = 2000", 1.0,
              blts["d=2, n=2000"].rms_loss / blts["d=5, n=2000"].rms_loss, bounds=(1.0 - 5e-4, 1.01),
              tolerance_why="within 1 % (errata: d = 2 vs d = 4 differ by 0.2 %)", kind="paper"),
    ]
    ns = np.arange(50, N + 1, 50 if quick else 10)
    curves = {name: np.array([_loss(r.blt, int(n), math.ceil(n / B0), B0, "rms") for n in ns]) for name, r in blts.items()}
    best = {}
    for n in (400, 800, 1200, 1600, 2000):  # a BLT (d = 2) optimised at each n, for the relative panel
        k = math.ceil(n / B0)
        best[n] = optimize(n, P(max_participations=k, min_sep=B0) if k > 1 else None, buffers=2, loss="rms").rms_loss
    r800 = curves["d=2, n=2000"][list(ns).index(800)] / best[800]
    claims.append(Claim("seed003.fig5.n2000_at_n800", PAPER, "Fig. 5 (robustness to n)",
                        "the BLT optimised for n = 2000 used for only n = 800 rounds (k = 2): RmsLoss relative to a BLT "
                        "optimised for n = 800", 1.0, r800, bounds=(1.0 - 5e-4, 1.10),
                        tolerance_why="robust: within 10 % (the paper's figure; no number printed)", kind="paper"))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for name, y in curves.items():
        ax2.plot(ns, y, label=f"BLT {name}")
    ax1.plot(list(best), [curves["d=2, n=2000"][list(ns).index(n)] / best[n] for n in best], "o-", label="d=2, n=2000 / optimum at n")
    ax1.plot(list(best), [curves["d=1, n=2000"][list(ns).index(n)] / best[n] for n in best], "s-", label="d=1, n=2000 / optimum at n")
    ax1.set(xlabel="rounds n", ylabel="RmsLoss relative to the d=2 optimum at n", title="relative")
    ax2.set(xlabel="rounds n", ylabel="RmsLoss", title="k = ⌈n/400⌉ (stair steps)")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Seed 003, Fig. 5: BLTs optimised for n = 800 and 2000 (b = 400, RmsLoss), evaluated over n")
    fig.set_layout_engine("tight", rect=(0, 0, 1, 0.94))
    save_figure(fig, out_dir / "seed003_fig5.png")
    plt.close(fig)
    return claims


# -- Fig. 10 ------------------------------------------------------------------------------------------------------


def _fig10(out_dir) -> list[Claim]:
    g = golden("003", "seed003.fig10")
    claims = []
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for b in (100, 400, 1000):
        ref, printed = g.value[f"b={b}"], g.printed[f"b={b}"]
        blt = prod.production_blt(b)
        c, chat = blt.strategy_coeffs(ref["n"]), blt.noising_coeffs(ref["n"])
        for name, ours in (("c", c), ("chat", chat)):
            for i in range(1, 6):
                claims.append(Claim(f"seed003.fig10.b={b}.{name}{i}", PAPER, "Fig. 10, App. A",
                                    f"{'c' if name == 'c' else 'ĉ'}_{i} of App. A's b = {b} BLT", ref[name][i], ours[i],
                                    rtol=_half(printed[name][i]) / abs(ref[name][i]), tolerance_why="half a unit of the 6th decimal",
                                    kind="regression"))
        claims.append(Claim(f"seed003.fig10.b={b}.c_last", PAPER, "Fig. 10, App. A",
                            f"c_(n−1) of App. A's b = {b} BLT at n = {ref['n']}", ref["c_last"], c[-1],
                            rtol=_half(printed["c_last"]) / ref["c_last"], tolerance_why="half a unit of the last digit",
                            kind="regression"))
        t = np.arange(ref["n"])
        ax1.loglog(t[1:], c[1:], label=f"b = {b} (n = {ref['n']})")
        ax2.loglog(t[1:], -chat[1:], label=f"b = {b}")
    ax1.set(xlabel="i", ylabel="c_i", title="(a) Toeplitz coefficients of C")
    ax2.set(xlabel="i", ylabel="−ĉ_i", title="(b) of C⁻¹ (all ĉ_i < 0 for i ≥ 1)")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3, which="both")
    ax1.legend(fontsize=8)
    fig.suptitle("Seed 003, Fig. 10: App. A's production BLTs (d = 4)")
    fig.set_layout_engine("tight", rect=(0, 0, 1, 0.94))
    save_figure(fig, out_dir / "seed003_fig10.png")
    plt.close(fig)
    negative = all(np.all(prod.production_blt(b).noising_coeffs(4000)[1:] < 0) for b in (400, 1000))
    claims.append(Claim("seed003.fig10.chat_negative", PAPER, "Fig. 10 (b), §3.1",
                        "ĉ_i < 0 for every i ≥ 1 (noise cancellation) for App. A's b = 400 and 1000 BLTs over n = 4000",
                        1.0, float(negative), rtol=0.0, tolerance_why="a sign pattern", kind="paper"))
    return claims


# -- BandMF against a BLT (C34's lower crossover) -------------------------------------------------------------------


def _bandmf(out_dir, quick: bool) -> list[Claim]:
    n, bands = (500, 100) if quick else (2000, 400)
    where = f"Fig. 2 left, C34 — n = {n}, b̂ = {bands}" + ("" if n == 2000 else " (quick: the paper's 2000/400 scaled)")
    band = optimize_banded(n, bands=bands, participation=P(max_participations=2, min_sep=bands))
    blt = optimize(n, P(max_participations=2, min_sep=bands), buffers=2, loss="rms").blt
    bs = sorted({*np.geomspace(2, n // 2 - 1, 12).round().astype(int).tolist(), bands - 1, bands, 2 * bands})
    y_band = {b: _loss(band.mechanism, n, 2, b, "rms") for b in bs}
    y_blt = {b: _loss(blt, n, 2, b, "rms") for b in bs}
    below = [b for b in bs if b <= 0.9 * bands]
    worst = max(y_blt[b] / y_band[b] for b in below)
    claims = [
        Claim(f"seed003.bandmf.n={n}.blt_wins_below", PAPER, where,
              f"for every b ≤ 0.9 b̂ in {below}, the BLT (d = 2, optimised for k = 2 at b = b̂) has the lower RmsLoss "
              "than BandMF(b̂): the largest ratio BLT/BandMF", 1.0, worst, bounds=(0.0, 1.0),
              tolerance_why="the paper's 'BLT wins for min-sep < 390' (qualitative)", kind="paper"),
        Claim(f"seed003.bandmf.n={n}.bandmf_wins_at_bands", PAPER, where,
              "at b = b̂ BandMF (its design point) has the lower RmsLoss: ratio BLT/BandMF", 1.0,
              y_blt[bands] / y_band[bands], bounds=(1.0, 1.3),
              tolerance_why="at the full size 5.027/4.842 = 1.038 (errata 003 C31)", kind="paper"),
    ]
    if n == 2000:  # the paper's size: BandMF's own loss at its design point against the errata's optimum
        g = golden("003", "seed003.C34")
        claims.append(Claim("seed003.C34.bandmf.rms", PAPER, where + ", errata 003 C31 (C34)",
                            f"RmsLoss of BandMF ({bands} bands, converged: {band.converged}) at k = 2, b = b̂ is at "
                            "most the errata's optimum", g.value["k=2.b=400"], y_band[bands],
                            bounds=(0.99 * g.value["k=2.b=400"], g.value["k=2.b=400"] * OPT),
                            tolerance_why="≤ the errata's optimum × (1 + 5e-4); the lower side catches a broken loss",
                            kind="regression"))
    above = [b for b in bs if b > bands and y_blt[b] < y_band[b]]
    claims.append(Claim(f"seed003.bandmf.n={n}.upper_crossover", PAPER, where + ", errata 003 §7 #21",
                        f"the smallest b > b̂ where the BLT wins again ({above[0] if above else 'none'}), as a fraction of "
                        "n (paper: > 700/2000 = 0.35; errata: 780–1010 at the full size)", 0.35,
                        (above[0] / n) if above else math.inf, rtol=0.5, kind="informational",
                        tolerance_why="a near tie on a coarse grid of b (the quick run's smaller size shifts it)"))
    fig, ax = plt.subplots(figsize=(5.8, 4), layout="constrained")
    ax.plot(bs, [y_blt[b] for b in bs], "o-", label=f"BLT d=2, optimised for k=2 at b={bands}")
    ax.plot(bs, [y_band[b] for b in bs], "s-", label=f"BandMF, {bands} bands")
    ax.axvline(bands, color="0.7", lw=0.8)
    ax.set(xscale="log", xlabel="actual min-separation b", ylabel="RmsLoss (k = 2)",
           title=f"Seed 003, Fig. 2 left: n = {n}, b̂ = {bands}")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    save_figure(fig, out_dir / "seed003_fig2_bandmf.png")
    plt.close(fig)
    return claims


def run(out_dir, quick: bool = False, executor=None) -> list[Claim]:
    """All claims of this module (``executor`` unused: deterministic optimisations of a second or less each)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    opt, claims = _c31(quick)
    claims += _fig2(out_dir, opt)
    claims += _sweep(out_dir, "fig3", golden("003", "seed003.fig3"), quick)
    claims += _sweep(out_dir, "fig4", golden("003", "seed003.fig4"), quick)
    claims += _fig5(out_dir, opt, quick) + _fig10(out_dir) + _bandmf(out_dir, quick)
    return claims
