"""Figure 3 of seed 004: the Thm 3.1 bound against κ = L/μ, and simulations against the bound.

Bound (paper constant, as the figure; the corrected constant is 4× smaller at σ_sgd = 0) for DP-SGD,
ν-DP-FTRL with ν = ημ, ν-DP-FTRL with the best ν of a scan, and the Optimized correlation of the
alternating minimisation; L = G = ρ = d = 1, σ_sgd = 0, η = 1 (the paper leaves η and τ_max unstated;
errata 004 §5.4 uses the same).

Claims, each able to fail: at every κ, DP-SGD ≥ ν(ημ) and ν(best) ≥ Optimized (the middle step
ν(ημ) ≥ ν(best) holds by construction, since the scan contains ημ, and is not claimed); the digest's
independent values at κ = 100 and 1000; a multiplicative gap DP-SGD/Optimized that grows at every step in κ;
and, at μ = L (a quadratic, where the corrected bound is exact), simulated F∞ equal to the bound within a
Bonferroni interval. Information only: DP-SGD ≥ ν(ημ) is not general (it fails at η = 1.8, κ = 50), the
κ 100→1000 slopes against the digest's, and two non-quadratic losses at κ = 10, whose simulations lie
2–20× below the bound (an upper bound that loose cannot fail in practice).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

import dptheory as dpt
from dptheory.claims import Claim, save_figure
from dptheory.data import golden
from dptheory.iqc import F_inf_bound, optimize_correlation
from dptheory.stats import family_quantile

from ._runner import SEED004_ALPHA, Task, point_seed, run_all

PAPER = "seed 004"
NU_ETA_MU = "nu-DP-FTRL (nu = eta mu)"
#: errata 004 §5.4: κ -> {"DP-SGD", NU_ETA_MU, "Optimized"} -> J
DIGEST = {int(kappa): row for kappa, row in golden("004", "fig3.digest").value.items()}


def _bounds(kappa: float) -> dict[str, float]:
    problem = dpt.StronglyConvex(eta=1.0, mu=1.0 / kappa, L=1.0)
    bound = lambda beta: F_inf_bound(beta, problem, rho=1.0, variant="paper").value
    nus = np.geomspace(problem.eta * problem.mu, 0.9, 8)
    scan = [bound(dpt.nu_ftrl(nu)) for nu in nus]
    opt = optimize_correlation(problem)
    return {"DP-SGD": bound(dpt.dpsgd()), NU_ETA_MU: scan[0], "nu-DP-FTRL (best nu)": min(scan),
            "Optimized": opt.history[-1], "best_nu": float(nus[int(np.argmin(scan))])}


def run(out_dir, quick: bool = False, executor=None) -> list[Claim]:
    kappas = [3, 10, 100] if quick else [3, 10, 30, 100, 300, 1000]
    table = {k: _bounds(k) for k in kappas}
    names = ["DP-SGD", NU_ETA_MU, "nu-DP-FTRL (best nu)", "Optimized"]
    claims = []
    for k in kappas:
        b = table[k]
        claims.append(Claim(f"fig3.ordering.dpsgd_ge_nu.kappa={k:g}", PAPER, "Fig. 3, Thm 3.1",
                            f"bound of DP-SGD / bound of ν-DP-FTRL (ν = ημ) ≥ 1 at η = 1 ({b['DP-SGD']:.4g} vs {b[NU_ETA_MU]:.4g})",
                            1.0, b["DP-SGD"] / b[NU_ETA_MU], bounds=(1.0, np.inf),
                            tolerance_why="two independent SOCP solves; not general in η (see fig3.ordering.counterexample)",
                            kind="paper"))
        claims.append(Claim(f"fig3.ordering.best_nu_ge_optimized.kappa={k:g}", PAPER, "Fig. 3, Thm 3.1",
                            f"bound of ν-DP-FTRL (best ν = {b['best_nu']:.3g} of an 8-point scan) / bound of Optimized ≥ 1 "
                            f"({b['nu-DP-FTRL (best nu)']:.4g} vs {b['Optimized']:.4g}); ν(ημ) ≥ ν(best) holds by "
                            "construction (the scan contains ημ) and is not claimed",
                            1.0, b["nu-DP-FTRL (best nu)"] / b["Optimized"], bounds=(1.0 - 1e-5, np.inf),
                            tolerance_why="the optimisation starts at ν = ημ, not at the best ν; solver tolerance 1e-5", kind="paper"))
        if k in DIGEST:
            for name, ref in DIGEST[k].items():
                # The digest's DP-SGD value at κ = 1000 (4962) is 3% above our optimum (4819), whose 2×2 blocks
                # are PSD at every grid point (min eigenvalue ~1e-15 relative) and which is stable in the grid
                # size (docs/socp_convergence.md): a suboptimal solve there, reported but not held against us.
                suspect = name == "DP-SGD" and k == 1000
                claims.append(Claim(f"fig3.digest.{name}.kappa={k:g}", PAPER, "errata 004 §5.4",
                                    f"bound for {name} vs the digest's independent reproduction"
                                    + (" (the digest's solve looks suboptimal: ours is lower and feasible)" if suspect else ""),
                                    ref, b[name], rtol=2e-3, tolerance_why="digest prints 4 digits; same grid and τ_max",
                                    kind="informational" if suspect else "regression"))
    # the step DP-SGD ≥ ν(ημ) is specific to the figure's η = 1: a counterexample, reported
    p_ce = dpt.StronglyConvex(eta=1.8, mu=1.0 / 50, L=1.0)
    sgd_ce = F_inf_bound(dpt.dpsgd(), p_ce, rho=1.0, variant="paper").value
    nu_ce = F_inf_bound(dpt.nu_ftrl(p_ce.eta * p_ce.mu), p_ce, rho=1.0, variant="paper").value
    claims.append(Claim("fig3.ordering.counterexample.eta=1.8.kappa=50", PAPER, "Fig. 3, Thm 3.1",
                        f"at η = 1.8, κ = 50 the bound of DP-SGD ({sgd_ce:.4g}) is below that of ν-DP-FTRL with ν = ημ "
                        f"({nu_ce:.4g}): DP-SGD ≥ ν(ημ) is not general", nu_ce, sgd_ce, bounds=(0.0, nu_ce),
                        tolerance_why="a finding about the ordering's scope, not a check", kind="informational"))
    gaps = [table[k]["DP-SGD"] / table[k]["Optimized"] for k in kappas]
    claims.append(Claim("fig3.gap_grows", PAPER, "Fig. 3", "multiplicative gap DP-SGD/Optimized grows at every step in κ "
                        f"({', '.join(f'{g:.3f}' for g in gaps)}); measured: the smallest ratio of consecutive gaps",
                        1.0, float(min(np.array(gaps[1:]) / np.array(gaps[:-1]))), bounds=(1.0, np.inf),
                        tolerance_why="strict growth between consecutive κ", kind="paper"))
    if 100 in table and 1000 in table:
        k0, k1 = 100, 1000
        digest_slopes = {"DP-SGD": 1.29, NU_ETA_MU: 1.14, "Optimized": 1.08}  # κ 100 → 1000
        for name, ref in digest_slopes.items():
            slope = np.log(table[k1][name] / table[k0][name]) / np.log(k1 / k0)
            claims.append(Claim(f"fig3.slope.{name}", PAPER, "Fig. 3", f"log-log slope in κ between {k0:g} and {k1:g}",
                                ref, slope, rtol=0.05, tolerance_why="errata 004 §5.4 over the same range, κ 100→1000",
                                kind="informational"))

    # simulations: two non-quadratic losses at κ = 10 (information: the bound is 2–20× above), and the quadratic
    # at μ = L, where the corrected bound is exact, as a check the bound can fail
    seeds = 16 if quick else 32
    sim_problems = [dpt.StronglyConvex(eta=0.5, mu=0.1, L=1.0, d=4, sigma_sgd=0.3, loss=loss)
                    for loss in ("piecewise_quadratic", "logistic")]
    exact_problem = dpt.StronglyConvex(eta=0.5, mu=1.0, L=1.0, d=4, sigma_sgd=0.3, loss="quadratic")

    def mechs(p):
        out = {"DP-SGD": dpt.dpsgd(), "nu-DP-FTRL": dpt.nu_ftrl(p.eta * p.mu)}
        if p.mu < p.L:
            out["Optimized"] = optimize_correlation(p).beta
        return out

    tasks, labels = [], []
    for p in (*sim_problems, exact_problem):
        for name, beta in mechs(p).items():
            tasks.append(Task(beta, p, dict(rho=1.0, seeds=seeds, seed=point_seed(31, name, p.loss, p.mu, p.L))))
            labels.append((p, name))
    sims = run_all(tasks, desc="figure 3", executor=executor)
    z = family_quantile(n_claims=sum(p is exact_problem for p, _ in labels), dof=seeds - 1, alpha=SEED004_ALPHA)
    sim_rows = []
    for (p, name), sim in zip(labels, sims):
        bound = F_inf_bound(sim.mechanism, p, rho=1.0).value
        sim_rows.append((p, name, sim, bound))
        if p is exact_problem:
            claims.append(Claim(f"fig3.sim.quadratic_mu=L.{name}", PAPER, "Thm 3.1 (corrected constant)",
                                f"at μ = L = 1 (quadratic, η = 0.5, d = 4, σ_sgd = 0.3) the bound is exact: simulated F∞ "
                                f"equals it (bound/simulated = {bound / sim.mean:.4f})",
                                bound, sim.mean, interval=(sim.mean - z * sim.stderr, sim.mean + z * sim.stderr),
                                tolerance_why=f"{z:.2f} SE over {sim.chain_means.size} chains (Bonferroni, {SEED004_ALPHA:.3g} family-wise)", kind="cross-check"))
        else:
            hi = sim.interval(0.997)[1]
            claims.append(Claim(f"fig3.sim.{p.loss}.{name}", PAPER, "Thm 3.1 (corrected constant)",
                                f"simulated F∞ (upper 99.7% limit {hi:.4g}) below the bound at κ = 10; "
                                f"bound/upper limit = {bound / hi:.1f}",
                                bound, hi, bounds=(0.0, bound), kind="informational",
                                tolerance_why="the bound is several times above the simulation: it cannot fail in practice"))

    fig, ax = plt.subplots(1, 3, figsize=(17, 4.8), constrained_layout=True)
    for name in names:
        ax[0].loglog(kappas, [table[k][name] for k in kappas], "o-", ms=4, label=name)
        ax[1].semilogx(kappas, [table[k]["DP-SGD"] / table[k][name] for k in kappas], "o-", ms=4, label=name)
    ax[0].set(xlabel=r"condition number $\kappa = L/\mu$", ylabel="bound on $F_\\infty$ (Thm 3.1, paper constant)",
              title=r"bound vs $\kappa$")
    ax[1].set(xlabel=r"condition number $\kappa = L/\mu$", ylabel="DP-SGD bound / mechanism bound",
              title="multiplicative gap to DP-SGD")
    for a in ax[:2]:
        a.legend(fontsize=8)
        a.grid(alpha=0.3, which="both")
    groups = [("piecewise_quadratic", "piecewise quadratic\nκ = 10"), ("logistic", "logistic-type\nκ = 10"),
              ("quadratic", "quadratic\nμ = L (bound exact)")]
    colours = {"DP-SGD": "C0", "nu-DP-FTRL": "C1", "Optimized": "C3"}
    for gi, (loss, _) in enumerate(groups):
        rows = [r for r in sim_rows if r[0].loss == loss]
        for j, (p, name, sim, bound) in enumerate(rows):
            xpos = gi + (j - (len(rows) - 1) / 2) * 0.22
            lo, hi = sim.interval(0.997)
            first = gi == 0
            ax[2].errorbar([xpos], [sim.mean], yerr=[[sim.mean - lo], [hi - sim.mean]], fmt="o", color=colours[name],
                           ms=5, capsize=3, label=f"{name}: simulated (99.7% CI)" if first else None)
            ax[2].plot([xpos - 0.08, xpos + 0.08], [bound, bound], "-", color=colours[name], lw=2.5,
                       label=f"{name}: Thm 3.1 bound (corrected)" if first else None)
    ax[2].set_yscale("log")
    ax[2].set_xticks(range(len(groups)), [g[1] for g in groups])
    ax[2].set(ylabel=r"$F_\infty$", title=rf"simulations ($\eta = 0.5$, $L = 1$, $d = 4$, $\sigma_{{\rm sgd}} = 0.3$, {seeds} chains)")
    ax[2].set_ylim(0.1, 60)
    ax[2].yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax[2].yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax[2].yaxis.set_minor_formatter(NullFormatter())
    ax[2].legend(fontsize=8, ncol=2, loc="upper center")
    ax[2].grid(alpha=0.3, axis="y", which="both")
    fig.suptitle(r"Seed 004, Fig. 3: Thm 3.1 bound vs $\kappa$ ($\eta = 1$, $L = G = \rho = d = 1$, $\sigma_{\rm sgd} = 0$)",
                 fontsize=11)
    save_figure(fig, out_dir / "figure3_strongly_convex.png")
    plt.close(fig)
    return claims
