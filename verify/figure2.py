"""Figure 2 of seed 004: Noisy-SGD vs ν-Noisy-FTRL on Gaussian linear regression, simulated against theory.

Three sweeps around d = 128, λ_k = 1/k, η = 0.02 (the caption's setting; ρ = G = 1, σ_sgd = 0, ν = ημ as
in the theory — the paper leaves ρ, σ_sgd, ν and the horizon unstated): varying d, the eigenvalue decay
λ_k = k^{-a} (against d_eff), and η. The base point is shared by the three sweeps: it is simulated and
claimed once (under the d sweep) and enters each sweep's slope fit.

Like with like: ν-FTRL has infinitely many taps and is simulated through its BLT approximation
(:func:`dptheory.nu_ftrl_blt`, a trapezoid sum of ~50 exponentials for its coefficients), a stream of buffers with
no history, whose exact F∞ differs from ν-FTRL's by ≤ 2.3e-7 relative (a claim per point checks ≤ 1e-6, and
that this is < 0.5 SE). Every point claim compares the simulation with the exact F∞ of the mechanism actually
simulated (``sim.mechanism``), and the drawn lines are those of the simulated mechanisms. Every problem has its
own seed, derived from its parameters, so the points of a slope fit are independent and the fit's standard error is
valid. The two mechanisms of one problem share their random numbers (:func:`dptheory.simulate_common`: the same data
and white noise, each through its own stream), which halves the draws, most of a step's cost; each point's interval
is valid on its own, and Bonferroni, the family's correction, holds under any dependence.

Claims: each simulated point equals the exact F∞ within a Bonferroni-corrected interval (5% family-wise over the three seed-004 figures: each gets 5%/3);
the approximation moves F∞ by ≤ 1e-6 relative and less than 0.5 SE; Thm C.18's lower bound lies below the
simulation's upper limit (Thm C.15's upper side is 20–200× above the measurement, so it is reported in the statement, not claimed);
at the smallest η, where the run resolves the 1.4–2.3% gap, the simulation excludes the LTI surrogate; the fitted log-log slopes equal the exact-theory
slopes within 3 SE. The caption's empirical slopes (SGD 1.00 in d, 0.18 in d_eff, 1.27 in η; FTRL 0.94 in
d_eff, 2.03 in η) are compared as information only: they come from unstated settings (errata 004 §10.18).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

import dptheory as dpt
from dptheory.claims import Claim, save_figure
from dptheory.stats import Estimate, family_quantile, loglog_slope, loglog_slope_delta

from ._runner import SEED004_ALPHA, CommonTask, point_seed, run_all

PAPER = "seed 004"
CAPTION_SLOPES = {("d", "Noisy-SGD"): 1.00, ("d_eff", "Noisy-SGD"): 0.18, ("d_eff", "nu-Noisy-FTRL"): 0.94,
                  ("eta", "Noisy-SGD"): 1.27, ("eta", "nu-Noisy-FTRL"): 2.03}
APPROXIMATION_RTOL = 1e-6  # the BLT approximation of ν-FTRL may move F∞ by at most this (relative; 2.3e-7 measured)
SEED = 2024


def _sweeps(quick: bool):
    if quick:
        base_d, ds, As, etas = 32, [8, 16, 32, 64], [0.4, 0.7, 1.0], [0.01, 0.02, 0.04]
    else:
        base_d, ds, As, etas = 128, [16, 32, 64, 128, 256], [0.4, 0.55, 0.7, 0.85, 1.0], [0.005, 0.01, 0.02, 0.04, 0.08]
    harmonic = lambda d: 1.0 / np.arange(1, d + 1)
    return base_d, {
        "d": [(d, dpt.LinearRegression(0.02, harmonic(d))) for d in ds],
        "d_eff": [(None, dpt.LinearRegression(0.02, np.arange(1, base_d + 1) ** -a)) for a in As],
        "eta": [(eta, dpt.LinearRegression(eta, harmonic(base_d))) for eta in etas],
    }


def _mechanisms(problem):
    return {"Noisy-SGD": dpt.dpsgd(), "nu-Noisy-FTRL": dpt.nu_ftrl(problem.eta * problem.mu)}


def simulated_form(beta):
    """What is simulated for ``beta``: ν-FTRL's BLT approximation (:func:`dptheory.nu_ftrl_blt`), else ``beta``."""
    return dpt.nu_ftrl_blt(beta.nu) if isinstance(beta, dpt.SqrtToeplitz) else beta


def _key(problem) -> tuple:
    return problem.eta, problem.eigs.tobytes()


def _axis_ticks(ax, xs) -> None:
    """Log axes without colliding minor labels: x ticks at the sweep's points, y ticks at 1-2-5."""
    ax.set_xticks(xs, [f"{x:.3g}" for x in xs])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_minor_locator(LogLocator(subs=()))
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _distinct(sweeps) -> dict[tuple, tuple]:
    """``key -> (first panel, x, problem)`` for each distinct problem: the base point shared by the three sweeps once."""
    distinct: dict[tuple, tuple] = {}
    for panel, points in sweeps.items():
        for x, p in points:
            distinct.setdefault(_key(p), (panel, x, p))
    return distinct


def _tasks(distinct, seeds: int) -> list[CommonTask]:
    """One run per distinct problem, its two mechanisms on common random numbers, its seed from the problem."""
    return [CommonTask(tuple(simulated_form(beta) for beta in _mechanisms(p).values()), p,
                       dict(rho=1.0, G=1.0, seeds=seeds, seed=point_seed(SEED, "common", p.eta, p.eigs)))
            for _, _, p in distinct.values()]


def run(out_dir, quick: bool = False, executor=None) -> list[Claim]:
    base_d, sweeps = _sweeps(quick)
    seeds = 16 if quick else 32
    distinct = _distinct(sweeps)
    tasks = _tasks(distinct, seeds)
    results = {(key, name): sim
               for (key, (_, _, p)), sims in zip(distinct.items(), run_all(tasks, desc="figure 2", executor=executor))
               for name, sim in zip(_mechanisms(p), sims)}

    claims: list[Claim] = []
    # one tolerance for the whole family of point claims: Bonferroni at 5%/3 family-wise (5% over the three figures)
    z = family_quantile(n_claims=len(results), dof=seeds - 1, alpha=SEED004_ALPHA)
    smallest_eta = min(p.eta for _, p in sweeps["eta"])
    for key, (panel, x, p) in distinct.items():
        xv = p.d_eff if panel == "d_eff" else x
        shared = [q for q, pts in sweeps.items() if q != panel and any(_key(pp) == key for _, pp in pts)]
        for name, beta in _mechanisms(p).items():
            sim = results[(key, name)]
            tag = f"fig2.{panel}.{name}.{panel}={xv:.4g}"
            also = f" (also the {' and '.join(shared)} sweeps' point)" if shared else ""
            pred = dpt.F_inf(sim.mechanism, p, rho=1.0)
            lo_z, hi_z = sim.mean - z * sim.stderr, sim.mean + z * sim.stderr
            why = f"{z:.2f} SE over {sim.chain_means.size} chains (Bonferroni, {SEED004_ALPHA:.3g} family-wise over {len(results)} points)"
            claims.append(Claim(f"{tag}.exact", PAPER, "Thm 2.2, Fig. 2",
                                "simulated F∞ equals the exact Gaussian F∞ of the simulated mechanism" + also,
                                pred, sim.mean, interval=(lo_z, hi_z), tolerance_why=why, kind="cross-check"))
            if isinstance(beta, dpt.SqrtToeplitz):
                full = dpt.F_inf(beta, p, rho=1.0)
                claims.append(Claim(f"{tag}.approximation", PAPER, "Thm 2.2, Fig. 2",
                                    f"{name} simulated through its BLT approximation ({sim.mechanism.d} buffers): its exact "
                                    f"F∞ equals ν-FTRL's within {APPROXIMATION_RTOL:g} relative and 0.5 SE (shift "
                                    f"{pred / full - 1:+.2g} relative, {(pred - full) / sim.stderr:+.2g} SE)" + also,
                                    full, pred, rtol=min(APPROXIMATION_RTOL, 0.5 * sim.stderr / full),
                                    tolerance_why="the approximation's documented accuracy (nu_ftrl_blt), and half the "
                                                  "run's standard error: the simulation checks the requested mechanism",
                                    kind="cross-check"))
            if p.eta * p.R2 < 1:
                lower = dpt.F_inf(sim.mechanism, p, rho=1.0, kind="lower")
                upper = dpt.F_inf(sim.mechanism, p, rho=1.0, kind="upper")
                claims.append(Claim(f"{tag}.lower_bound", PAPER, "Thm C.18",
                                    "Thm C.18's lower bound lies below the simulation's upper limit (Thm C.15's upper "
                                    f"bound {upper:.4g} is {upper / sim.mean:.0f}× the simulation: not a check)" + also,
                                    lower, hi_z, bounds=(lower, np.inf),
                                    tolerance_why=f"simulated mean + {z:.2f} SE must not fall below the theorem's lower bound",
                                    kind="bound"))
            lti = dpt.F_inf(sim.mechanism, p, rho=1.0, kind="lti")
            # where the run resolves the exact/LTI gap (gap > 2·z·SE, decided from the SE, not the mean), the
            # simulation must reject the LTI surrogate: at the smallest η the two differ by only ~1.4%
            if panel == "eta" and p.eta == smallest_eta and pred - lti > 2 * z * sim.stderr:
                claims.append(Claim(f"{tag}.not_lti", PAPER, "Thm 2.2, App. C",
                                    f"the simulation rejects the LTI surrogate (exact/LTI = {pred / lti:.4f}): its lower "
                                    "limit lies above the LTI part", lti, lo_z, bounds=(lti, np.inf),
                                    tolerance_why=f"simulated mean − {z:.2f} SE must exceed the LTI value", kind="bound"))

    fig, axes = plt.subplots(1, 3, figsize=(16, 5.2), constrained_layout=True)
    titles = {"d": rf"vs $d$ ($\lambda_k = 1/k$, $\eta = 0.02$)",
              "d_eff": rf"vs $d_{{\rm eff}}$ ($d = {base_d}$, $\lambda_k = k^{{-a}}$, $\eta = 0.02$)",
              "eta": rf"vs $\eta$ ($d = {base_d}$, $\lambda_k = 1/k$)"}
    for ax, (panel, points) in zip(axes, sweeps.items()):
        xs = [p.d_eff if panel == "d_eff" else x for x, p in points]
        for name, colour in (("Noisy-SGD", "C0"), ("nu-Noisy-FTRL", "C1")):
            sims = [results[(_key(p), name)] for _, p in points]
            exact = [dpt.F_inf(s.mechanism, p, rho=1.0) for s, (_, p) in zip(sims, points)]
            lti = [dpt.F_inf(s.mechanism, p, rho=1.0, kind="lti") for s, (_, p) in zip(sims, points)]
            label = "Noisy-SGD" if name == "Noisy-SGD" else r"$\nu$-Noisy-FTRL ($\nu = \eta\mu$)"
            ax.loglog(xs, exact, "-", color=colour, label=f"{label}: exact Gaussian F∞ (simulated mechanism)")
            ax.loglog(xs, lti, ":", color=colour, label=f"{label}: LTI part")
            ci = np.array([s.interval() for s in sims])
            means = np.array([s.mean for s in sims])
            ax.errorbar(xs, means, yerr=[means - ci[:, 0], ci[:, 1] - means], fmt="o", color=colour, ms=4,
                        label=f"{label}: simulated (95% CI)")
            fit = loglog_slope_delta(xs, [Estimate(s.mean, s.stderr, s.chain_means.size) for s in sims])
            slope, se = fit.value, fit.stderr
            t_slope = loglog_slope(xs, exact)
            t_full = loglog_slope(xs, [dpt.F_inf(_mechanisms(p)[name], p, rho=1.0) for _, p in points])
            claims.append(Claim(f"fig2.slope.{panel}.{name}", PAPER, "Fig. 2",
                                f"log-log slope of F∞ vs {panel}: simulation vs exact theory (simulated {slope:.4f} ± {se:.4f}, "
                                f"independent seeds; untruncated theory {t_full:.4f})",
                                t_slope, slope, interval=(slope - 3 * se, slope + 3 * se),
                                tolerance_why="3 SE of the least-squares slope (independent points, delta method)", kind="cross-check"))
            if (panel, name) in CAPTION_SLOPES:
                claims.append(Claim(f"fig2.caption_slope.{panel}.{name}", PAPER, "Fig. 2 caption",
                                    f"the caption's empirical slope vs our simulated slope in {panel}",
                                    CAPTION_SLOPES[(panel, name)], slope, interval=(slope - 3 * se, slope + 3 * se),
                                    tolerance_why="paper's settings (ν, ρ, T, ranges) unstated", kind="informational"))
        _axis_ticks(ax, xs)
        ax.grid(alpha=0.3, which="major")
        ax.set(xlabel={"d": "dimension d", "d_eff": r"$d_{\rm eff}$", "eta": r"learning rate $\eta$"}[panel],
               ylabel=r"$F_\infty$", title=titles[panel])
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=9, frameon=False)
    fig.suptitle(r"Seed 004, Fig. 2: Gaussian linear regression, $\rho = 1$, $G = 1$, $\sigma_{\rm sgd} = 0$, "
                 rf"$\nu = \eta\mu$ ($\mu = \lambda_{{\min}}$); {seeds} chains per point; $\nu$-FTRL simulated through "
                 rf"its BLT approximation (moves F∞ by ≤ {APPROXIMATION_RTOL:g})", fontsize=11)
    save_figure(fig, out_dir / "figure2_linear_regression.png")
    plt.close(fig)
    return claims
