"""Seed 000's learning comparison at CI size (errata 000 §4 "Figures", §2.4–§2.8, §2.11): DP-FTRL(M) with vanilla and
Honaker trees (restart every epoch) against DP-SGD(M) amplified (Poisson, PLD) and unamplified, each calibrated to
the same (ε, δ) by its own accountant, on the synthetic logistic-teacher task of
:mod:`dptheory.treeagg.experiment` (binary logistic regression, p = 50).

Cross-checks (they can fail): the amplified σ spends its target ε by the PLD accountant at a finer discretisation;
without noise DP-FTRL with λ = 1/η is SGD on the same batches (Thm B.1, errata 000 §2.5).

Informational: the tree and unamplified σ against the forward ρ → ε map they were inverted from (a round trip of one
formula checks the root finder only); that no method is significantly more accurate at the smallest finite ε than at
the largest (the upper end of the difference's t-interval is ≥ 0; whether it is resolved above 0 is stated — for
amplified DP-SGD at these sizes it is not: privacy barely binds), a sanity check with no second route; and the
paper's qualitative figure claims (Figs. 3, 4, 6, 8): a finding on synthetic data, not on the paper's data sets; each
is listed as REPRODUCED or NOT with its numbers in ``seed000_experiment_table.md`` (the claim holds iff REPRODUCED).
"""

from __future__ import annotations

import math
import time

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from dptheory.claims import Claim, atomic_write, save_figure
from dptheory.treeagg import experiment as ex

PAPER = "seed 000 (Kairouz et al. 2021)"
LEVEL = 0.95


def _diff(res, m1, m2, e):
    """``acc(m1) − acc(m2)`` at ε (independent seeds): mean, and its t-interval (dof = min(n) − 1, conservative)."""
    a, b = res.estimate(m1, e), res.estimate(m2, e)
    d, se = a.value - b.value, math.hypot(a.stderr, b.stderr)
    q = stats.t.ppf(0.5 + LEVEL / 2, df=min(a.n, b.n) - 1)
    return d, (d - q * se, d + q * se)


def _fmt_d(d, iv):
    return f"{d:+.4f} [{iv[0]:+.4f}, {iv[1]:+.4f}]"


def _label(e):
    return "∞" if math.isinf(e) else f"{e:g}"


def run(out_dir, quick: bool = False, executor=None) -> list[Claim]:
    t0 = time.perf_counter()
    if quick:
        data = ex.make_dataset(0, n_train=5000, n_test=5000)
        sizes = dict(batch=100, epochs=2, seeds=6)
        check_disc = 1e-4
    else:
        data = ex.make_dataset(0)
        sizes = dict(batch=100, epochs=5, seeds=10)
        check_disc = 2e-5  # 50× finer than the calibration's; 1e-5 needs a grid above PLD_MAX_POINTS at ε = 1
    delta = 1e-5
    eps = (1.0, 2.0, 4.0, 8.0, math.inf)
    finite = eps[:-1]
    res = ex.run_experiment(data, epsilons=eps, delta=delta, **sizes)
    N, b, E = data.X_train.shape[0], sizes["batch"], sizes["epochs"]
    setting = f"(N = {N}, p = {data.X_train.shape[1]}, b = {b}, E = {E}, δ = {delta:g}, {sizes['seeds']} seeds)"
    claims = []

    # -- calibration: each accountant's σ spends its target ε (an independent route) ---------------------------
    for m, route in (("DP-FTRL-vanilla", "tree_epsilon (restart, ⌊lg n⌋ + 1 per epoch, exact Gaussian curve)"),
                     ("DP-SGD-unamplified", "epsilon_from_rho(E/(2σ²), exact)")):
        for e in finite:
            got = ex.method_epsilon(m, res.sigma[m][e], n_train=N, batch=b, epochs=E, delta=delta)
            claims.append(Claim(f"seed000.experiment.calibration.{m}.eps={e:g}", PAPER, "errata 000 §2.11, §4",
                                f"σ = {res.sigma[m][e]:.6g} calibrated for {m} spends ε = {e:g} by {route} {setting}",
                                e, got, rtol=1e-6, kind="informational",
                                tolerance_why="a round trip: σ was calibrated by inverting this same forward map, so the "
                                              "claim checks the root finder, not the accounting"))
    m = "DP-SGD-amplified"
    for e in finite:
        got = ex.method_epsilon(m, res.sigma[m][e], n_train=N, batch=b, epochs=E, delta=delta, discretization=check_disc)
        claims.append(Claim(f"seed000.experiment.calibration.{m}.eps={e:g}", PAPER, "errata 000 §4 (amplified rows)",
                            f"σ = {res.sigma[m][e]:.6g} calibrated on the PLD at discretisation "
                            f"{ex.CALIBRATION_DISCRETIZATION:g} spends ε ∈ [(1 − 1e-3)ε, ε] by the PLD at {check_disc:g} "
                            f"(Poisson q = {b / N:g}, T = {E * (N // b)}) {setting}",
                            e, got, bounds=(e * (1 - 1e-3), e * (1 + 1e-9)), kind="informational",
                            tolerance_why="pessimistic PLD: a finer grid gives a smaller ε, by ≲ 1e-4 relative here; "
                                          "a round trip on the same PLD (σ was calibrated on it), as the two rows above: "
                                          "it checks the root finder and the grid, not the accounting"))

    # -- Thm B.1 without noise -------------------------------------------------------------------------------------
    th_f = ex.train("DP-FTRL-vanilla", data, sigma=0.0, batch=b, epochs=E, chains=1)
    th_s = ex.train("DP-SGD-unamplified", data, sigma=0.0, batch=b, epochs=E, chains=1)
    gap = float(np.max(np.abs(th_f - th_s)))
    claims.append(Claim("seed000.experiment.noiseless.ftrl_equals_sgd", PAPER, "errata 000 §2.5 (Thm B.1), §2.7",
                        f"without noise DP-FTRL (λ = 1/η = 2, restart every epoch) and SGD (η = 0.5) on the same "
                        f"batches reach the same θ: max|Δθ| {setting}",
                        0.0, gap, bounds=(0.0, 1e-9 * max(1.0, float(np.max(np.abs(th_s))))),
                        tolerance_why="rounding over E·n steps (an absolute tolerance on a difference)", kind="cross-check"))

    # -- monotone in privacy ---------------------------------------------------------------------------------------
    lo_e, hi_e = finite[0], finite[-1]
    for m in res.accuracy:
        d, iv = _diff_eps(res, m, hi_e, lo_e)
        resolved = "resolved above 0" if iv[0] > 0 else "not resolved (privacy barely binds for this method here)"
        claims.append(Claim(f"seed000.experiment.monotone.{m}", PAPER, "privacy–utility trade-off (Figs. 3–8 axes)",
                            f"{m}: test accuracy at ε = {hi_e:g} is not significantly below that at ε = {lo_e:g}: "
                            f"difference {_fmt_d(d, iv)}, {resolved}; measured = upper end of the {LEVEL:.0%} "
                            f"t-interval {setting}",
                            0.0, iv[1], bounds=(0.0, math.inf),
                            kind="informational",
                            tolerance_why="a sanity check with no second route and no paper number (it would flag a σ "
                                          "calibrated the wrong way; 7 claims at 95 % each, no family-wise correction): "
                                          "reported, not counted"))

    # -- the paper's qualitative claims (informational) ------------------------------------------------------------
    rows = []

    def qualitative(key, fig, text, m1, m2, per_eps, rule):
        diffs = {e: _diff(res, m1, m2, e) for e in per_eps}
        ok, why = rule(diffs)
        resolved = [e for e, (d, iv) in diffs.items() if iv[0] > 0 or iv[1] < 0]
        numbers = "; ".join(f"ε = {_label(e)}: {_fmt_d(*diffs[e])}" for e in per_eps)
        verdict = "REPRODUCED" if ok else "NOT reproduced"
        rows.append((fig, text, f"{m1} − {m2}", numbers, verdict, why,
                     ", ".join(_label(e) for e in resolved) or "none"))
        # 1 = REPRODUCED by the claim's own rule (a crossover needs a negative difference, so "min difference ≥ 0"
        # would misreport it): a claim that does not hold is listed among the findings
        claims.append(Claim(f"seed000.experiment.{key}", PAPER, f"errata 000 §4 ({fig})",
                            f"{fig}: {text} — {verdict} on synthetic data ({why}); {m1} − {m2}: {numbers} {setting}",
                            1.0, float(ok), rtol=0.0, kind="informational",
                            tolerance_why="1 = reproduced, 0 = not, by the rule in the statement: a finding on synthetic "
                                          "data, not the paper's data sets; reported, cannot fail the run"))

    all_pos = lambda diffs: (all(d > 0 for d, _ in diffs.values()), "positive at every ε" if all(
        d > 0 for d, _ in diffs.values()) else "not positive at every ε")
    qualitative("fig4.momentum_helps_ftrl.vanilla", "Fig. 4", "momentum helps DP-FTRL (vanilla tree)",
                "DP-FTRLM-vanilla", "DP-FTRL-vanilla", finite, all_pos)
    qualitative("fig4.momentum_helps_ftrl.honaker", "Fig. 4", "momentum helps DP-FTRL (Honaker tree)",
                "DP-FTRLM-honaker", "DP-FTRL-honaker", finite, all_pos)
    qualitative("fig6.honaker_beats_vanilla.ftrlm", "Fig. 6", "the efficient (Honaker) tree beats vanilla (DP-FTRLM)",
                "DP-FTRLM-honaker", "DP-FTRLM-vanilla", finite, all_pos)
    qualitative("fig6.honaker_beats_vanilla.ftrl", "Fig. 6", "the efficient (Honaker) tree beats vanilla (DP-FTRL)",
                "DP-FTRL-honaker", "DP-FTRL-vanilla", finite, all_pos)

    def crossover(diffs):
        (d_lo, _), (d_hi, _) = diffs[lo_e], diffs[hi_e]
        return d_lo > 0 and d_hi < 0, (f"amplified DP-SGD {'ahead' if d_lo > 0 else 'behind'} at ε = {lo_e:g}, "
                                       f"{'behind' if d_hi < 0 else 'ahead'} at ε = {hi_e:g}")

    qualitative("fig8.crossover", "Fig. 8", "amplified DP-SGD wins at small ε, DP-FTRLM at larger ε (a crossover)",
                "DP-SGD-amplified", "DP-FTRLM-honaker", finite, crossover)

    def not_below(diffs):
        bad = [e for e, (d, iv) in diffs.items() if iv[1] < 0]
        return not bad, ("DP-SGDM never resolved above DP-SGD" if not bad
                         else "DP-SGDM resolved above DP-SGD at ε = " + ", ".join(_label(e) for e in bad))

    qualitative("fig3.sgd_at_least_sgdm", "Fig. 3", "DP-SGD ≥ DP-SGDM", "DP-SGD-amplified", "DP-SGDM-amplified",
                finite, not_below)
    qualitative("extra.ftrl_vs_unamplified_sgd", "Figs. 1/8 (baseline)", "DP-FTRL beats unamplified DP-SGD",
                "DP-FTRL-vanilla", "DP-SGD-unamplified", finite, all_pos)

    # -- figure ------------------------------------------------------------------------------------------------------
    fig, ax = plt.subplots(figsize=(8, 5), constrained_layout=True)
    xs = [e if not math.isinf(e) else 2 * finite[-1] for e in eps]
    for k, m in enumerate(res.accuracy):
        ests = [res.estimate(m, e) for e in eps]
        ivs = np.array([est.interval(LEVEL) for est in ests])
        mean = np.array([est.value for est in ests])
        x = np.array(xs) * (1 + 0.025 * (k - 3))
        ax.errorbar(x, mean, yerr=[mean - ivs[:, 0], ivs[:, 1] - mean], marker="o", ms=4, capsize=3, label=m,
                    ls="--" if "SGD" in m else "-")
    ax.axhline(res.bayes_accuracy, color="gray", lw=0.8, ls=":", label="Bayes (teacher)")
    ax.set_xscale("log")
    ax.set_xticks(xs, [_label(e) for e in eps])
    ax.set(xlabel=f"ε (δ = {delta:g}); ∞ = no noise", ylabel="test accuracy (final iterate)",
           title=f"Seed 000 at CI size: logistic regression, matched (ε, δ) {setting}")
    ax.title.set_fontsize(9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    save_figure(fig, out_dir / "seed000_experiment.png")
    plt.close(fig)

    # -- markdown table -------------------------------------------------------------------------------------------
    hp = "; ".join(f"{m}: η = {h[0]:g}" + (f", γ = {h[1]:g}" if h[1] else "") for m, h in ex.HYPERPARAMETERS.items())
    md = [f"## Seed 000 — DP-FTRL vs DP-SGD at matched privacy (synthetic logistic regression{', quick sizes' if quick else ''})",
          "",
          f"Data: `dptheory.treeagg.experiment.make_dataset(0, n_train={N}, n_test={data.X_test.shape[0]})` — logistic "
          f"teacher, p = {data.X_train.shape[1]}, margin 4, Bayes accuracy {res.bayes_accuracy:.4f}. Batch {b}, {E} epochs "
          f"({N // b} steps each), clip 1, δ = {delta:g}; trees restart every epoch (TR); {sizes['seeds']} noise seeds, "
          f"mean test accuracy with its {LEVEL:.0%} t-interval. Hyper-parameters fixed once (FTRL λ = 1/η): {hp}.",
          "",
          res.table(LEVEL),
          "| figure | paper's claim | difference | per ε: mean [95% t-interval] | verdict | why | resolved at ε |",
          "|---|---|---|---|---|---|---|"]
    md += [f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | **{r[4]}** | {r[5]} | {r[6]} |" for r in rows]
    md += ["", "These are findings on a synthetic convex task, not the paper's image/text data sets.", ""]
    atomic_write(out_dir / "seed000_experiment_table.md", "\n".join(md))
    print(f"tree_experiment: {time.perf_counter() - t0:.1f} s; per method " +
          ", ".join(f"{m} {s:.1f} s" for m, s in res.seconds.items()))
    return claims


def _diff_eps(res, m, e1, e2):
    """``acc(m, e1) − acc(m, e2)`` (independent seeds)."""
    a, b = res.estimate(m, e1), res.estimate(m, e2)
    d, se = a.value - b.value, math.hypot(a.stderr, b.stderr)
    q = stats.t.ppf(0.5 + LEVEL / 2, df=min(a.n, b.n) - 1)
    return d, (d - q * se, d + q * se)
