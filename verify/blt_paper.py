"""Seed 003's tables and production numbers: Table 3 (n = 2052, k = 6, b = 342, corrected column labels), App. A's
BLTs at their stated settings, Table 4 and the launch numbers, Table 2 as growth in n, and Fig. 9's ρ(n).

Claims compare our computation with an independent value: a closed form (Table 3's baselines, errata 003 C12,
C13, C14: cross-checks), the errata's recomputation (golden values, docs/errata.md seed 003: regression values) or
the paper's printed digits (half a unit of the last digit: reproductions). Where the paper's own numbers disagree
with each other, the claim is that they are inconsistent (es-ES's ρ, errata 003 §7 #15; pt-PT's noise scaling,
errata 003 §7 #19; Table 3's swapped header, §7 #12), stated as such and informational (a finding about the paper,
not a reproduction). Timings (Table 2) are informational; their log–log slopes are the claims. TreeAgg-Full's row is
``dptheory.TreeAggregation("full")`` with Remark 3.2's sensitivity, as seed 003 (errata 003 C15); BandMF is optimised
at the full size (about 100 s on the O(n b̂²) objective) against the printed row, and against BandToep, whose
optimum is cross-checked with jax_privacy's (errata 003 C19).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import scipy.linalg

import dptheory as dpt
from dptheory.accounting.zcdp import zcdp_to_epsilon
from dptheory.blt import production as prod
from dptheory.blt.optimizer import optimize
from dptheory.claims import Claim, atomic_write, save_figure
from dptheory.data import golden
from dptheory.mechanisms.banded import optimize_banded
from dptheory.mechanisms.bandtoep import optimize_banded_toeplitz
from dptheory.mechanisms.losses import prefix_loss
from dptheory.mechanisms.tree import remark32_loss
from dptheory.stats import loglog_slope

PAPER = "seed 003"
P = dpt.Participation
#: jax_privacy 2.0's banded optima (tests/peer_values/jax_privacy_banded.py writes it; a peer library, not a dependency)
_PEER_BANDED = json.loads((Path(__file__).resolve().parents[1] / "tests" / "peer_values" / "jax_privacy_banded.json").read_text())
OPT_RTOL = 5e-4  # an optimiser's output against another optimiser's: the same optimum to 5e-4 relative


def _half(printed: str) -> float:
    """Half a unit of the last printed digit of a decimal string."""
    mantissa, _, exp = printed.lower().partition("e")
    return 0.5 * 10.0 ** (-len(mantissa.partition(".")[2]) + (int(exp) if exp else 0))


def _rtol(printed: str) -> float:
    return _half(printed) / abs(float(printed))


# -- Table 3 ---------------------------------------------------------------------------------------------------


def _sqrt_closed_form(n: int, part: dpt.Participation) -> tuple[float, float]:
    """MaxLoss, RmsLoss of the square-root factorisation by its own route: c_j = c_{j−1}(2j−1)/(2j), B = A C⁻¹ = C,
    sensitivity ‖C u(π*)‖ (Thm 3.1) by shifted sums."""
    c = np.ones(n)
    j = np.arange(1, n)
    c[1:] = np.cumprod((2 * j - 1) / (2 * j))
    k, b = part.participations(n), part.min_sep
    cbar = np.zeros(n)
    for i in range(k):
        cbar[b * i:] += c[:n - b * i]
    sens = np.linalg.norm(cbar)
    return sens * math.sqrt(np.sum(c**2)), sens * math.sqrt(np.sum((n - np.arange(n)) * c**2) / n)


def _table3(out_dir, quick: bool) -> list[Claim]:
    n, part = 2052, P(max_participations=6, min_sep=342)
    k, b = part.participations(n), part.min_sep
    where = "Table 3 (n = 2052, k = 6, b = 342)"
    rec = golden("003", "seed003.table3.recomputed")
    printed = golden("003", "seed003.table3.printed")
    claims, rows = [], {}
    closed = {
        "DP-SGD": (dpt.dpsgd(), (math.sqrt(k * n), math.sqrt(k * (n + 1) / 2)), "C = I: sens √k', MaxError √n, RmsError √((n+1)/2)"),
        "prefix-sums": (dpt.anti_pgd(), (math.sqrt(b * sum(i * i for i in range(1, k)) + k * k * (n - (k - 1) * b)),) * 2,
                        "C = A (noise on prefix sums): errors 1, sens² = b Σ_{i<k'} i² + k'²(n − (k'−1)b)"),
        "sqrt": (dpt.optimal_cc(), _sqrt_closed_form(n, part), "c_j = C(2j, j)/4^j by its recurrence, B = C, Thm 3.1 by shifted sums"),
    }
    for name, (mech, cf, how) in closed.items():
        loss = prefix_loss(mech, n, part)
        rows[name] = (loss.max_loss, loss.rms_loss)
        for i, col in enumerate(("max", "rms")):
            claims.append(Claim(f"seed003.table3.closed_form.{name}.{col}", PAPER, where + ", errata 003 C12",
                                f"{col.capitalize()}Loss of {mech.name}: prefix_loss against the closed form ({how})",
                                cf[i], rows[name][i], rtol=1e-11, tolerance_why="two exact routes, rounding only",
                                kind="cross-check"))
            claims.append(Claim(f"seed003.table3.recomputed.{name}.{col}", PAPER, where + ", errata 003 C12",
                                f"{col.capitalize()}Loss of {mech.name} against the errata's recomputation",
                                rec.value[name][i], rows[name][i], rtol=_rtol(rec.printed[name][i]),
                                tolerance_why="half a unit of the 4th decimal", kind="regression"))
    # BLTs optimised for MaxLoss: single participation (Dvijotham et al., C16) and k = 6 (C17, C18)
    opt = {}
    for d in (2, 5):
        opt[f"BLT.k=1.d={d}"] = optimize(n, None, buffers=d, loss="max")
    for d in (2, 3, 4, 5):
        opt[f"BLT.k=6.d={d}"] = optimize(n, part, buffers=d, loss="max")
    for name, res in opt.items():
        loss = prefix_loss(res.blt, n, part)
        rows[name] = (loss.max_loss, loss.rms_loss)
        label = "optimised for single participation, evaluated at k = 6" if "k=1" in name else "optimised at k = 6"
        if name in rec.value:
            for i, col in enumerate(("max", "rms")):
                claims.append(Claim(f"seed003.table3.recomputed.{name}.{col}", PAPER, where + ", errata 003 C16, C17",
                                    f"{col.capitalize()}Loss of the BLT (d = {res.blt.d}) {label}, against the errata's "
                                    f"independent optimum (converged: {res.converged})",
                                    rec.value[name][i], rows[name][i], rtol=OPT_RTOL,
                                    tolerance_why="two optimisers reaching the same optimum", kind="regression"))
        p = printed.printed[name]
        if name.startswith("BLT.k=6.d=") and name != "BLT.k=6.d=2":
            claims.append(Claim(f"seed003.table3.printed.{name}.max", PAPER, where + ", errata 003 §7 #13",
                                f"MaxLoss of the BLT optimised at k = 6 with d = {res.blt.d} is at most the printed {p[0]} "
                                "(better optima than the paper's exist)", float(p[0]), rows[name][0],
                                bounds=(0.98 * float(p[0]), float(p[0]) + _half(p[0])),
                                tolerance_why="≤ printed + half a unit; the lower side catches a broken evaluation",
                                kind="paper"))
            claims.append(Claim(f"seed003.table3.printed.{name}.rms", PAPER, where + ", errata 003 §7 #13",
                                f"RmsLoss of our MaxLoss optimum (another local optimum than the paper's {p[1]})",
                                float(p[1]), rows[name][1], rtol=0.05, kind="informational",
                                tolerance_why="a different optimum of the MaxLoss objective"))
            continue
        for i, col in enumerate(("max", "rms")):
            claims.append(Claim(f"seed003.table3.printed.{name}.{col}", PAPER, where + ", errata 003 §7 #12",
                                f"{col.capitalize()}Loss of the BLT (d = {res.blt.d}) {label} against the printed "
                                f"value (the printed header's 'RMS Loss | Max Loss' is swapped)",
                                float(p[i]), rows[name][i], rtol=_rtol(p[i]), tolerance_why="half a unit of the last printed digit",
                                kind="paper"))
    # the printed order of the loss columns is impossible: MaxLoss ≥ RmsLoss for every mechanism
    swapped = min(mx - rms for mx, rms in printed.value.values())
    claims.append(Claim("seed003.table3.printed.columns_swapped", PAPER, where + ", errata 003 §7 #12",
                        "the printed header 'RMS Loss | Max Loss' requires first column ≤ second (RmsLoss ≤ MaxLoss "
                        "always); measured: the smallest (first − second) over the printed rows. It is positive in "
                        "every row: the columns are swapped",
                        0.0, swapped, bounds=(-math.inf, 0.0), kind="informational",
                        tolerance_why="an inequality among the printed numbers only (no computation of ours): a finding "
                                      "about the paper"))
    # TreeAgg-Full: every complete dyadic node, pinv decoder, and — as seed 003 — Remark 3.2's lower bound as the
    # sensitivity (the exact sens_Π is out of enumeration's reach here); errata 003 C15, §2.3, §7 #14
    tree = remark32_loss(dpt.TreeAggregation("full"), n, part)
    rows["TreeAgg-Full"] = (tree.max_loss, tree.rms_loss)
    for i, col in enumerate(("max", "rms")):
        claims.append(Claim(f"seed003.table3.recomputed.TreeAgg-Full.{col}", PAPER, where + ", errata 003 C15",
                            f"{col.capitalize()}Loss of TreeAggregation('full') (complete dyadic nodes, B = A C⁺) with the "
                            "Remark 3.2 lower bound as sensitivity, as seed 003, against the errata's recomputation",
                            rec.value["TreeAgg-Full"][i], rows["TreeAgg-Full"][i], rtol=_rtol(rec.printed["TreeAgg-Full"][i]),
                            tolerance_why="half a unit of the 4th decimal", kind="regression"))
        claims.append(Claim(f"seed003.table3.printed.TreeAgg-Full.{col}", PAPER, where + ", errata 003 §7 #12, §7 #14",
                            f"{col.capitalize()}Loss of TreeAggregation('full') (Remark 3.2 sensitivity) against the printed "
                            "value (the printed header's 'RMS Loss | Max Loss' is swapped)",
                            float(printed.printed["TreeAgg-Full"][i]), rows["TreeAgg-Full"][i],
                            rtol=_rtol(printed.printed["TreeAgg-Full"][i]), tolerance_why="half a unit of the last printed digit",
                            kind="paper"))
    claims += _table3_banded(n, part, where, printed, rows, quick)
    _table3_markdown(out_dir, rows, rec, printed)
    return claims


def _table3_banded(n: int, part, where: str, printed, rows: dict, quick: bool) -> list[Claim]:
    """BandMF (342 bands) at the table's full size, by the O(n b̂²) objective, against the printed row and BandToep at
    the same bands, BandToep against jax_privacy's optimum (tests/peer_values/jax_privacy_banded.json; errata 003
    C19). The quick run stops BandMF after 60 iterations (within 1e-4 of the optimum) and omits the MaxLoss row."""
    bands = part.min_sep
    band = optimize_banded(n, bands=bands, participation=part, steps=60 if quick else 500)
    toep = optimize_banded_toeplitz(n, bands=bands, participation=part)
    rows["BandMF"] = (band.max_loss, band.rms_loss)
    p = printed.printed["BandMF"]
    how = f"BandMF by L-BFGS-B on the O(n b̂²) objective ({band.iterations} iterations, converged: {band.converged})"
    peer = {(c["n"], c["bands"]): c for c in _PEER_BANDED["bandtoep"]}[(n, bands)]
    jax_toep = math.sqrt(peer["loss_squared"] * part.participations(n))  # jax's loss: squared, single participation
    claims = [
        Claim("seed003.table3.printed.BandMF.rms", PAPER, where + ", errata 003 C19",
              f"RmsLoss of {how} against the printed value", float(p[1]), band.rms_loss, rtol=_rtol(p[1]),
              tolerance_why="half a unit of the last printed digit", kind="paper"),
        Claim("seed003.table3.BandMF.at_most_bandtoep", PAPER, where,
              "BandMF's RmsLoss is below BandToep's at the same 342 bands (a banded strategy without the Toeplitz "
              f"constraint; BandToep {toep.rms_loss:.6f}): ratio BandMF/BandToep", 1.0, band.rms_loss / toep.rms_loss,
              bounds=(0.0, 1.0), tolerance_why="an ordering of two optimisers' outputs", kind="ordering"),
        Claim("seed003.table3.BandToep.jax", PAPER, where + "; jax_privacy 2.0 toeplitz.optimize_banded_toeplitz",
              "RmsLoss of BandToep (342 bands, L-BFGS-B on the FFT objective) against jax_privacy's optimum "
              "(its squared single-participation loss × k')", jax_toep, toep.rms_loss, rtol=1e-8,
              tolerance_why="two optimisers reaching the same optimum of a smooth objective in 342 variables",
              kind="cross-check"),
    ]
    if not quick:
        claims.append(Claim("seed003.table3.printed.BandMF.max", PAPER, where + ", errata 003 C19",
                            f"MaxLoss of the RmsLoss optimum ({how}) against the printed value (not the objective: "
                            "it matches only at the converged optimum)", float(p[0]), band.max_loss, rtol=_rtol(p[0]),
                            tolerance_why="half a unit of the last printed digit", kind="paper"))
    return claims


def _table3_markdown(out_dir, rows, rec, printed) -> None:
    names = [("DP-SGD (C = I)", "DP-SGD"), ("noise on prefix sums (C = A)", "prefix-sums"),
             ("square-root factorisation", "sqrt"), ("TreeAgg-Full", "TreeAgg-Full"), ("BandMF (342 bands)", "BandMF"),
             ("BLT (d = 2, k = 1)", "BLT.k=1.d=2"), ("BLT (d = 5, k = 1)", "BLT.k=1.d=5")] + [
             (f"BLT* (d = {d}, k = 6)", f"BLT.k=6.d={d}") for d in (2, 3, 4, 5)]
    lines = ["## Seed 003, Table 3 (StackOverflow setting: n = 2052, k = 6, b = 342)", "",
             "Loss columns relabelled **MaxLoss | RmsLoss** (the printed header says 'RMS Loss | Max Loss'; errata 003 "
             "§7 #12). 'ours' is `prefix_loss` of our mechanism (BLTs optimised for MaxLoss by `dptheory.blt.optimize`); "
             "'errata' the independent recomputation. TreeAgg-Full uses Remark 3.2's lower bound as its sensitivity, as "
             "seed 003 does; BandMF is optimised at this size by `optimize_banded` (the O(n b̂²) objective) to L-BFGS-B's "
             "convergence (the errata's 8.596 is 80 steps of jax-privacy's `banded.optimize`: errata 003 C19).", "",
             "| mechanism | printed MaxLoss | printed RmsLoss | errata MaxLoss | errata RmsLoss | ours MaxLoss | ours RmsLoss |",
             "|---|---|---|---|---|---|---|"]
    for label, key in names:
        p = printed.printed.get(key, ("—", "—"))
        r = [f"{v:.4f}" for v in rec.value[key]] if key in rec.value else ["—", "—"]
        o = [f"{v:.4f}" for v in rows[key]] if key in rows else ["—", "—"]
        lines.append(f"| {label} | {p[0]} | {p[1]} | {r[0]} | {r[1]} | {o[0]} | {o[1]} |")
    atomic_write(out_dir / "seed003_table3_table.md", "\n".join(lines) + "\n")


# -- App. A --------------------------------------------------------------------------------------------------


def _app_a() -> list[Claim]:
    g = golden("003", "seed003.appA")
    claims = []
    for b in (400, 1000):
        spec = prod.PRODUCTION_BLTS[b]
        loss = prefix_loss(spec.blt(), spec.n, spec.participation)
        where = f"App. A (b = {b}: n = {spec.n}, k = {spec.max_participations}), errata 003 C{27 if b == 400 else 28}"
        for col, ours in (("sens", loss.sensitivity), ("max", loss.max_loss), ("rms", loss.rms_loss)):
            claims.append(Claim(f"seed003.appA.b={b}.{col}", PAPER, where, f"{col} of App. A's b = {b} BLT at its stated setting",
                                g.value[f"b={b}"][col], ours, rtol=_rtol(g.printed[f"b={b}"][col]),
                                tolerance_why="half a unit of the errata's 4th decimal", kind="regression"))
        re = optimize(spec.n, spec.participation, buffers=4, loss="max")
        claims.append(Claim(f"seed003.appA.b={b}.optimal", PAPER, where,
                            f"App. A's b = {b} BLT is the MaxLoss optimum (d = 4) at its stated setting: MaxLoss(App. A)/"
                            f"MaxLoss(re-optimised) = {loss.max_loss:.5f}/{re.max_loss:.5f}",
                            1.0, loss.max_loss / re.max_loss, bounds=(1.0 - OPT_RTOL, 1.0 + 1e-3),
                            tolerance_why="the same optimum to 1e-3 (ours may be slightly worse: 5e-4)", kind="paper"))
    spec = prod.PRODUCTION_BLTS[100]
    for k in (10, 20):
        part = P(max_participations=k, min_sep=100)
        loss = prefix_loss(spec.blt(), 2000, part)
        key = "max" if k == 10 else "max.k=20"
        claims.append(Claim(f"seed003.appA.b=100.k={k}.max", PAPER, "App. A (b = 100, n = 2000), errata 003 C29",
                            f"MaxLoss of App. A's b = 100 BLT at k = {k}", g.value["b=100"][key], loss.max_loss,
                            rtol=_rtol(g.printed["b=100"][key]), tolerance_why="half a unit of the errata's 4th decimal",
                            kind="regression"))
        if k == 10:
            claims.append(Claim("seed003.appA.b=100.k=10.rms", PAPER, "App. A (b = 100, n = 2000), errata 003 C29",
                                "RmsLoss of App. A's b = 100 BLT at its stated k = 10", g.value["b=100"]["rms"], loss.rms_loss,
                                rtol=_rtol(g.printed["b=100"]["rms"]), tolerance_why="half a unit of the errata's 4th decimal",
                                kind="regression"))
        best = min((optimize(2000, part, buffers=d, loss="max") for d in (3, 4)), key=lambda r: r.max_loss)
        ratio = loss.max_loss / best.max_loss
        band = (1.07, 1.10) if k == 10 else (0.999, 1.006)
        says = ("~8 % worse than a re-optimised BLT at its stated k = 10 (errata 003 §7 #18)" if k == 10 else
                "within 0.5 % of a re-optimised BLT at k = 20 = n/b: most likely optimised for k = 20")
        claims.append(Claim(f"seed003.appA.b=100.k={k}.ratio", PAPER, "App. A (b = 100, n = 2000), errata 003 C29",
                            f"App. A's b = 100 BLT is {says}: MaxLoss {loss.max_loss:.4f} / best of d = 3, 4 re-optimised "
                            f"{best.max_loss:.4f} (errata: {g.value['b=100'][f'optimum.k={k}']})",
                            loss.max_loss / g.value["b=100"][f"optimum.k={k}"], ratio, bounds=band,
                            tolerance_why=f"the band {band} around the errata's ratio (its optimum by jax-privacy)",
                            kind="regression"))
    for b in (100, 400, 1000):
        blt = prod.production_blt(b)
        c = blt.strategy_coeffs(4000)
        ok = bool(np.all(c >= 0) and np.all(np.diff(c) <= 0))
        claims.append(Claim(f"seed003.appA.b={b}.sum_omega", PAPER, "App. A, Thm 3.1, errata 003 C30",
                            f"Σω = c₁ of App. A's b = {b} BLT (< 1, θ ∈ (0, 1]: c ≥ 0 and non-increasing — Thm 3.1 "
                            f"applies; checked on c_0..c_3999: {ok})", g.value[f"b={b}"]["sum_omega"],
                            float(blt.omega.sum()) if ok else math.inf, rtol=_rtol(g.printed[f"b={b}"]["sum_omega"]),
                            tolerance_why="half a unit of the 5th decimal; inf if c is not monotone", kind="regression"))
    return claims


# -- Table 4, launch numbers ---------------------------------------------------------------------------------


def _table4() -> list[Claim]:
    g = golden("003", "seed003.table4")
    claims = []
    for row in prod.TABLE4:
        where = f"Table 4 ({row.language}, {row.mechanism}-{row.sigma:g}, n = {row.rounds}, b = {row.min_sep}, k = {row.max_participations})"
        cid = f"seed003.table4.{row.key}"
        if not row.checkable:
            eps_p = prod.rho_to_epsilon(float(row.rho))
            claims.append(Claim(f"{cid}.rho", PAPER, where, f"not checkable: {row.note}; the printed ρ = {row.rho} "
                                f"→ ε = {eps_p:.3f} at least matches its printed ε", float(row.eps), eps_p,
                                rtol=0.01, kind="informational", tolerance_why="the row's ρ cannot be recomputed"))
            continue
        acc = prod.account(row)
        ref, pr = g.value[row.key], g.printed[row.key]
        if "s" in ref:
            claims.append(Claim(f"{cid}.sens", PAPER, where + ", errata 003 C20",
                                f"sensitivity of App. A's b = {row.blt} BLT under k' = {acc.participations} "
                                f"participations (Thm 3.1)", ref["s"], acc.sensitivity, rtol=_rtol(pr["s"]),
                                tolerance_why="half a unit of the errata's 4th decimal", kind="regression"))
        for q in ("rho", "eps"):
            ours = acc.rho if q == "rho" else acc.epsilon
            claims.append(Claim(f"{cid}.{q}.recomputed", PAPER, where + ", errata 003 C20",
                                f"{'ρ = s²/(2σ²)' if q == 'rho' else 'ε at δ = 1e-10, exact Gaussian curve (μ = s/σ)'} "
                                "against the errata's recomputation", ref[q], ours, rtol=_rtol(pr[q]),
                                tolerance_why="half a unit of the errata's last digit", kind="regression"))
        h = _half(repr(row.sigma))
        lo, hi = prod.account(row, sigma=row.sigma + h), prod.account(row, sigma=row.sigma - h)
        for q in ("rho", "eps"):
            printed = float(getattr(row, q))
            ours = acc.rho if q == "rho" else acc.epsilon
            lo_q, hi_q = (lo.rho, hi.rho) if q == "rho" else (lo.epsilon, hi.epsilon)
            hp = _half(getattr(row, q))
            if not row.consistent and row.key == "es-ES.BLT-7.379" and q == "rho":
                claims.append(Claim(f"{cid}.rho.printed_inconsistent", PAPER, where + ", errata 003 §7 #15",
                                    f"PAPER INCONSISTENCY: the printed ρ = {row.rho} against the row's ρ = s²/(2σ²) = "
                                    f"{ours:.4f}; the printed ε = {row.eps} belongs to the latter (at the printed ρ it "
                                    f"would be {acc.epsilon_at_printed_rho:.3f})", printed, ours, rtol=hp / printed,
                                    kind="informational",
                                    tolerance_why="half a unit of the printed digit; a finding about the paper, not a "
                                                  "reproduction (our ρ itself is checked by the .rho.recomputed claim, "
                                                  "the printed ε by .eps.printed)"))
                continue
            if row.approximate:
                claims.append(Claim(f"{cid}.{q}.printed", PAPER, where + ", errata 003 §7 #15",
                                    f"printed {q} = {getattr(row, q)} reproduced only approximately ({row.note})",
                                    printed, ours, rtol=0.02, tolerance_why="2 %: the row's σ or accounting is rounded",
                                    kind="paper"))
                continue
            claims.append(Claim(f"{cid}.{q}.printed", PAPER, where,
                                f"printed {q} = {getattr(row, q)} within its rounding, σ = {row.sigma:g} taken over its own "
                                f"rounding interval ({lo_q:.5g} … {hi_q:.5g})", printed, printed,
                                bounds=(lo_q - hp, hi_q + hp), tolerance_why="half a unit of ρ/ε, σ ± half a unit",
                                kind="paper"))
    # linear noise scaling with the report goal (C40): consistent for pt-BR, not for pt-PT
    ns = golden("003", "seed003.noise_scaling")
    rows = {r.key: r for r in prod.TABLE4}
    goals = prod.REPORT_GOALS
    br = rows["pt-BR.BLT-8.681"].sigma * goals["pt-BR.BLT-16.1"] / goals["pt-BR"]
    pt = rows["pt-PT.BLT-3.12"].sigma * goals["pt-PT.BLT-5.5"] / goals["pt-PT"]
    claims.append(Claim("seed003.noise_scaling.pt-BR.recomputed", PAPER, "Table 4 (pt-BR), errata 003 C37",
                        f"σ scaled with the report goal: 8.681 × 12000/6500", ns.value["pt-BR"], br,
                        rtol=_rtol(ns.printed["pt-BR"]), tolerance_why="half a unit of the errata's last digit",
                        kind="regression"))
    claims.append(Claim("seed003.noise_scaling.pt-BR.printed", PAPER, "Table 4 (pt-BR), errata 003 C37",
                        f"the scaled σ = {br:.3f} is the printed BLT-16.1 up to 1 % (0.4 %: σ rounded up)",
                        rows["pt-BR.BLT-16.1"].sigma, br, rtol=0.01, tolerance_why="'linearly scaled', approximately",
                        kind="paper"))
    claims.append(Claim("seed003.noise_scaling.pt-PT.inconsistent", PAPER, "Table 4 (pt-PT), errata 003 §7 #19",
                        f"PAPER INCONSISTENCY: BLT-5.5 is said to be BLT-3.12 'linearly scaled' with the report goal "
                        f"3K → 6K, but 3.12 × 6/3 = {pt:.2f} (errata: {ns.printed['pt-PT']})",
                        rows["pt-PT.BLT-5.5"].sigma, pt, rtol=0.01, kind="informational",
                        tolerance_why="1 %, the tolerance of pt-BR's scaling; arithmetic on the paper's printed numbers "
                                      "only: a finding about the paper, not a reproduction"))
    return claims


def _launch() -> list[Claim]:
    g = golden("003", "seed003.rho_to_eps")
    claims = []
    for rho in (k for k in g.value if k[0].isdigit()):
        claims.append(Claim(f"seed003.rho_to_eps.rho={rho}", PAPER, "§5 launch numbers, Table 4, errata 003 C25",
                            f"ε at δ = 1e-10 of ρ = {rho} (exact Gaussian curve, μ = √(2ρ))", g.value[rho],
                            prod.rho_to_epsilon(float(rho)), rtol=_rtol(g.printed[rho]),
                            tolerance_why="half a unit of the errata's last digit", kind="regression"))
    bs = zcdp_to_epsilon(0.099, delta=prod.DELTA, method="bun_steinke")
    claims.append(Claim("seed003.rho_to_eps.bun_steinke.rho=0.099", PAPER, "§5 (id-ID), errata 003 C25",
                        f"the generic conversion ρ + 2√(ρ ln 1e10) gives ε = {bs:.3f} for ρ = 0.099, not the printed 2.74: "
                        "the paper used the exact Gaussian curve", g.value["bun_steinke.0.099"], bs,
                        rtol=_rtol(g.printed["bun_steinke.0.099"]), tolerance_why="half a unit of the errata's last digit",
                        kind="regression"))
    for launch in prod.LAUNCH:
        h, he = _half(launch.rho), _half(launch.eps)
        lo = prod.rho_to_epsilon(float(launch.rho) - h) - he
        hi = prod.rho_to_epsilon(float(launch.rho) + h) + he
        claims.append(Claim(f"seed003.launch.{launch.model}", PAPER, "§5 'Model launches'",
                            f"printed ε = {launch.eps} agrees with the printed ρ = {launch.rho} within both roundings "
                            f"(ε(ρ) = {prod.rho_to_epsilon(float(launch.rho)):.4f}){'; ' + launch.note if launch.note else ''}",
                            float(launch.eps), float(launch.eps), bounds=(lo, hi),
                            tolerance_why="ε over ρ ± half a unit, widened by half a unit of ε", kind="paper"))
    a = golden("003", "seed003.alpha1")
    eps1 = dpt.accounting.gdp.gdp_epsilon(1.0, delta=1e-7)
    claims.append(Claim("seed003.alpha1.recomputed", PAPER, "§3.2, errata 003 C26", "ε at δ = 1e-7 of the Gaussian "
                        "mechanism with noise multiplier α = 1 (μ = 1)", a.value["recomputed"], eps1,
                        rtol=_rtol(a.printed["recomputed"]), tolerance_why="half a unit of the errata's 3rd decimal",
                        kind="regression"))
    claims.append(Claim("seed003.alpha1.printed", PAPER, "§3.2, errata 003 §7 #25", "α = 1 'corresponds to (ε = 5.3, "
                        "δ = 1e-7)-DP' for one Gaussian release", a.value["printed"], eps1, rtol=_rtol(a.printed["printed"]),
                        tolerance_why="half a unit of the printed digit", kind="paper"))
    return claims


# -- Table 2: the O(nd) route against the O(n²) forward substitution -------------------------------------------------


def forward_substitution(c: np.ndarray, block: int = 256) -> np.ndarray:
    r"""Table 2's brute force, ``ĉ_0 = 1``, ``ĉ_t = −Σ_{s=1}^t c_s ĉ_{t−s}`` (``c_0 = 1``), evaluated in blocks: the
    influence of earlier entries by direct convolution (``np.convolve``, no FFT), each block of ``block`` entries by a
    unit lower-triangular Toeplitz solve. Exactly the ``n²/2`` multiply–adds of the row-by-row recursion, with
    ``O(n/block)`` Python steps instead of ``n`` (the row loop's per-step overhead hides the ``n²`` up to
    ``n ≈ 10⁴``)."""
    n = len(c)
    chat, acc = np.zeros(n), np.zeros(n)  # acc[t]: Σ_{j < done} c_{t−j} ĉ_j
    m0 = min(block, n)
    T = scipy.linalg.toeplitz(c[:m0], np.zeros(m0))

    def solve(lo: int, hi: int) -> None:
        if hi - lo <= block:
            rhs = -acc[lo:hi]
            if lo == 0:
                rhs[0] += 1.0
            chat[lo:hi] = scipy.linalg.solve_triangular(T[:hi - lo, :hi - lo], rhs, lower=True, unit_diagonal=True,
                                                        check_finite=False)
            return
        mid = lo + (hi - lo) // 2
        solve(lo, mid)
        acc[mid:hi] += np.convolve(chat[lo:mid], c[1:hi - lo], "valid")
        solve(mid, hi)

    solve(0, n)
    return chat


def _row_by_row(c: np.ndarray) -> np.ndarray:
    """The recursion literally, one dot product per step."""
    chat = np.zeros(len(c))
    chat[0] = 1.0
    for t in range(1, len(c)):
        chat[t] = -np.dot(c[1:t + 1], chat[t - 1::-1])
    return chat


def _cpu_time(f, repeats: int) -> float:
    best = math.inf
    for _ in range(repeats):
        t0 = time.process_time()
        f()
        best = min(best, time.process_time() - t0)
    return max(best, 1e-6)


def _table2(out_dir, quick: bool) -> tuple[list[Claim], dict]:
    spec = prod.PRODUCTION_BLTS[400]
    fast_ns = [2_000, 20_000, 200_000]
    brute_ns = [2_000, 10_000, 20_000, 50_000] if quick else [2_000, 10_000, 20_000, 50_000, 100_000]
    fast = {n: _cpu_time(lambda: dpt.BLT(spec.theta, spec.omega).noising_coeffs(n), 5) for n in fast_ns}
    brute = {}
    for n in brute_ns:
        c = spec.blt().strategy_coeffs(n)
        brute[n] = _cpu_time(lambda: forward_substitution(c), 3 if n <= 20_000 else 2)
    fit_ns = [n for n in brute_ns if n >= 10_000]
    s_fast = loglog_slope(fast_ns, [fast[n] for n in fast_ns])
    s_brute = loglog_slope(fit_ns, [brute[n] for n in fit_ns])
    claims = []
    where = "Table 2, errata 003 C37"
    claims.append(Claim("seed003.table2.slope.fast", PAPER, where,
                        f"log–log slope of the CPU time of ĉ via (θ̂, ω̂) and Eq. 2 (O(nd)) over n = {fast_ns}: times "
                        + ", ".join(f"{fast[n] * 1e3:.2f} ms" for n in fast_ns), 1.0, s_fast, bounds=(-0.5, 1.3),
                        tolerance_why="O(n) at most; below 1 where fixed costs dominate small n", kind="paper"))
    claims.append(Claim("seed003.table2.slope.brute", PAPER, where,
                        f"log–log slope of the CPU time of the O(n²) forward substitution over n = {fit_ns}: times "
                        + ", ".join(f"{brute[n]:.3g} s" for n in fit_ns), 2.0, s_brute, bounds=(1.4, math.inf),
                        tolerance_why="n²/2 multiply–adds: super-linear; measured 1.5–2.9 on a shared 2-core machine "
                                      "(vector efficiency grows with n, load varies, so no upper side is claimed); the "
                                      "paper's own GPU times give 1.1–1.3", kind="paper"))
    claims.append(Claim("seed003.table2.slope.gap", PAPER, where,
                        "the brute force's time grows faster than the O(nd) route's: slope difference",
                        1.0, s_brute - s_fast, bounds=(0.5, math.inf), tolerance_why="an O(n²) against an O(n) cost",
                        kind="paper"))
    n_eq = 20_000 if quick else 50_000
    c = spec.blt().strategy_coeffs(n_eq)
    diff = float(np.max(np.abs(forward_substitution(c) - spec.blt().noising_coeffs(n_eq))))
    claims.append(Claim(f"seed003.table2.equal.n={n_eq}", PAPER, where,
                        f"max |ĉ (O(nd) route) − ĉ (forward substitution)| over n = {n_eq} for App. A's b = 400 BLT",
                        0.0, diff, bounds=(0.0, 1e-12), tolerance_why="two exact routes in float64", kind="cross-check"))
    c = spec.blt().strategy_coeffs(2_000)
    diff = float(np.max(np.abs(_row_by_row(c) - forward_substitution(c))))
    claims.append(Claim("seed003.table2.equal.row_by_row", PAPER, where,
                        "the blocked forward substitution equals the row-by-row recursion (n = 2000)",
                        0.0, diff, bounds=(0.0, 1e-12), kind="cross-check",
                        tolerance_why="the same sums, other order (checks this script's blocked solver, not the toolkit)"))
    printed = golden("003", "seed003.table2").value
    for n in fast_ns:
        if n in brute:
            claims.append(Claim(f"seed003.table2.speedup.n={n}", PAPER, "Table 2 (V100, JAX)",
                                f"speedup at n = {n}: ours {brute[n] / fast[n]:.0f}× (numpy, CPU time, this machine) "
                                f"against the paper's {printed[str(n)][2]:.0f}×", printed[str(n)][2], brute[n] / fast[n],
                                rtol=0.5, kind="informational",
                                tolerance_why="within a factor 2 of the paper's; hardware-specific (V100/JAX against "
                                              "numpy on this CPU), so a miss says how much the paper's speedup owes to "
                                              "its GPU, not that a formula is wrong"))
    return claims, dict(fast=fast, brute=brute, s_fast=s_fast, s_brute=s_brute)


# -- Fig. 9 ---------------------------------------------------------------------------------------------------


def _fig9(out_dir, timing: dict) -> list[Claim]:
    g = golden("003", "seed003.fig9")
    blt = prod.production_blt(400)
    sigma = 7.379

    def rho(n: int) -> float:
        return prod.zcdp_rho(blt.sensitivity(n, P(max_participations=math.ceil(n / 400), min_sep=400)), sigma)

    claims = [Claim(f"seed003.fig9.n={n}", PAPER, "Fig. 9 (b), errata 003 C20",
                    f"ρ-zCDP after n = {n} rounds of App. A's b = 400 BLT, σ = 7.379, b = 400, k = ⌈n/400⌉",
                    v, rho(int(n)), rtol=_rtol(g.printed[n]), tolerance_why="half a unit of the errata's last digit",
                    kind="regression")
              for n, v in g.value.items()]
    ns = np.arange(100, 4001, 50)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9.3, 4.1), layout="constrained")
    ax.plot(ns, [rho(int(n)) for n in ns], label="BLT (App. A, b = 400), σ = 7.379")
    ax.plot([int(n) for n in g.value], list(g.value.values()), "o", mfc="none", label="errata's reference points")
    ax.set(xlabel="rounds n", ylabel="ρ-zCDP", title="Fig. 9 (b): b = 400, k = ⌈n/400⌉")
    ax.grid(alpha=0.3)
    ax.legend()
    for key, label, marker in (("fast", "ĉ via (θ̂, ω̂), O(nd)", "o-"), ("brute", "forward substitution, O(n²)", "s-")):
        t = timing[key]
        ax2.loglog(list(t), list(t.values()), marker, label=f"{label}: slope {timing['s_' + key]:.2f}")
    ax2.set(xlabel="n", ylabel="CPU seconds (min of repeats)", title="Table 2: ĉ for App. A's b = 400 BLT")
    ax2.grid(alpha=0.3, which="both")
    ax2.legend()
    fig.suptitle("Seed 003: production accounting and the cost of C⁻¹")
    save_figure(fig, out_dir / "seed003_fig9_table2.png")
    plt.close(fig)
    return claims


def run(out_dir, quick: bool = False, executor=None) -> list[Claim]:
    """All claims of this module (``executor`` unused: deterministic work, BandMF's minute the longest)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    claims = _table3(out_dir, quick) + _app_a() + _table4() + _launch()
    t2, timing = _table2(out_dir, quick)
    return claims + t2 + _fig9(out_dir, timing)
