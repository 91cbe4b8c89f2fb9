"""Regenerates docs/socp_convergence.md: the bound of Thm 3.1 against the grid size and τ_max.

Run ``python docs/socp_convergence.py``; the defaults ``DEFAULT_GRID`` and ``DEFAULT_TAU_MAX`` of
``dptheory.iqc`` are chosen from this table (scipy's ``_precompute`` pattern: the provenance is re-runnable).
"""

import time
from pathlib import Path

import dptheory as dpt
from dptheory.claims import atomic_write
from dptheory.iqc import DEFAULT_GRID, DEFAULT_TAU_MAX, F_inf_bound

GRIDS = (100, 200, 400, 600, 1000, 2000)
TAUS = (0, 1, 5, 10, 20, 40, 80)
KAPPAS = (10, 1e3, 1e4)
NEAR_ONE = (1e-1, 1e-2, 1e-3, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12)  # κ − 1
LARGE = (1e5, 1e6, 1e7, 1e8, 1e9)
LARGE_ETAS = (1.0, 0.1)
LARGE_GRIDS = (600, 1200, 2400)
NEAR_ONE_READING = (
    "Reading (issue 18 #8, measured here). As μ → L the 2×2 blocks become singular at every ω and the optimal λ_0/c",
    "grows like 1/(1 − μ/L): before the fix Clarabel stopped at `optimal_inaccurate` for 1 < κ ≲ 1.001 (refused,",
    "no bound), and even its \"optimal\" answers were loose (κ = 1.001: +1.45e-3 over the closed form against",
    "+1.12e-3 now). Now the program uses the normaliser 2μ(L − μ), every multiplier is certified on the grid with",
    "D₁D₂ − |u|² = D₁ψ − 2rc − (L − μ)²|Λ|² (no cancellation), and the static multiplier λ = (1, 0, …) competes:",
    "it wins for κ − 1 ≤ 1e-4 and gives a bound within 1.2(κ − 1) + grid error of the μ = L closed form (the",
    "grid error of 600 points is 5e-6 at η = .3, ≤ 1.8e-5 for η ∈ [0.1, 1.9]; swept over DP-SGD, ν-FTRL(.3),",
    "(1, −.5, .2) and κ − 1 = 1e-1…1e-12). Where Clarabel raises near κ = 1 (η = .1, κ − 1 = 1e-6) the static",
    "certificate is returned, since it lies within 1e-3 of the worst quadratic, a lower bound on the program.",
    "At large κ the width ημ of ψ's peak falls below the first step of ω = πu² (8.8e-6): the DP-SGD bound at",
    "κ = 1e5, η = .1 moved 15% from 600 to 1200 points; with p widened it moves < 3%. ν-FTRL(1/κ) is certified",
    "at κ = 1e5 and 1e6 (η = 1 and .1; grid-stable to ≤ 6e-5 where both grids solve); Clarabel fails outright",
    "(`SolverError`, raised) at κ = 1e6 with 1200 points and at κ ≥ 1e7; these no longer raise: the iterate is certified or a certified fallback is returned (see below).",
)
LARGE_READING = (
    "Large κ (issue 18 #8, measured here). Clarabel's failures at κ ≥ 1e7 were `InsufficientProgress` with an",
    "iterate a few 1e-4 from optimal in the solver's gap; cvxpy turned them into `SolverError`. Since every",
    "multiplier is certified a posteriori, the iterate is now accepted (`accept_unknown=True`, reported as",
    "`optimal_inaccurate`), and whenever the status is not `optimal` the multipliers of the same program on",
    "n/2 and n/4 points are certified on the full grid as further candidates; a solve that fails outright falls",
    "back to the best certified candidate, the static multiplier (1, 0, …) at worst, and `certificate` says",
    "`(solver failed: …)`. No table entry below raised. The bounds are valid but, where the status is",
    "`optimal_inaccurate`, not the program's optimum: the solver's multiplier changes with small perturbations",
    "of the program (grid size, canonicalisation), so the spread over grids at κ ≥ 1e7 is the solver's",
    "inaccuracy more than the quadrature error (ν-FTRL(1/κ), where the solves are steadier, is the grid error).",
    "A rescaled program (first block row normalised by μL + 4(1 − cos ω)/η², ψ = cψ₀φ) was tried and was",
    "worse (κ = 1e4 DP-SGD: `optimal_inaccurate`, +12 %), so it is not used.",
    "Measured (table below, one run; 3.3 min for the whole page on 2 shared cores): ν-FTRL(1/κ) is grid-stable",
    "to ≤ 3.1e-3 up to κ = 1e9 (η = 1 and .1), DP-SGD at η = 1 to ≤ 3 %; DP-SGD at η = .1 spreads 21–72 % at",
    "κ = 1e7–1e9, non-monotonically in the grid size, i.e. solver inaccuracy, not quadrature error: more grid",
    "points do not help, so the grid is not widened further. Every entry is a valid certified upper bound; the",
    "gap to the worst quadratic (up to 1e8 for ν-FTRL) is the IQC bound’s conservatism at τ_max = 20, not an error.",
)


def run(beta, problem, **kw):
    """(result or None, seconds); None where F_inf_bound raises (the solver failed far from κ = 1; printed)."""
    start = time.perf_counter()
    try:
        res = F_inf_bound(beta, problem, rho=1.0, variant="paper", **kw)
    except RuntimeError as exc:
        print(exc)
        res = None
    return res, time.perf_counter() - start


def row(beta, problem, **kw):
    """(bound, seconds); the bound is NaN where F_inf_bound raises."""
    res, seconds = run(beta, problem, **kw)
    return (res.value if res else float("nan")), seconds


def _how(res) -> str:
    return "raised" if res is None else f"{res.solver_stats['status'][:26]} / {res.solver_stats['certificate'][:60]}"


def near_one_and_large_kappa() -> list[str]:
    """κ → 1 against the μ = L closed form (η = .3), and ν-FTRL(1/κ) / DP-SGD at κ ≥ 1e5 under grid doubling."""
    closed = F_inf_bound(dpt.dpsgd(), dpt.StronglyConvex(eta=0.3, mu=1.0, L=1.0), rho=1.0, variant="paper").value
    lines = ["## Near κ = 1 and at large κ", "", *NEAR_ONE_READING, "",
             f"DP-SGD, η = 0.3, L = 1, μ = 1/κ; \"rel.\" is against the μ = L closed form {_fmt(closed)}.",
             "", "| κ − 1 | bound | rel. | status / certificate | s |", "|---|---|---|---|---|"]
    for e in NEAR_ONE:
        res, t = run(dpt.dpsgd(), dpt.StronglyConvex(eta=0.3, mu=1 / (1 + e), L=1.0))
        lines.append(f"| {e:g} | {_fmt(res.value if res else float('nan'))} | {(res.value / closed - 1) if res else float('nan'):+.2e} | {_how(res)} | {t:.2f} |")
    lines += ["", *LARGE_READING, "",
              "μ = 1/κ, L = 1 (paper constant); \"spread\" is (max − min)/min over the grids 600, 1200, 2400; \"gap\" is",
              "the 600-point value over the worst quadratic (a lower bound on the program) minus 1; s is the 600-point time.", "",
              "| κ | η | β | bound (600) | bound (1200) | bound (2400) | spread | gap (600) | status / certificate (600) | s |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for kappa in LARGE:
        for eta in LARGE_ETAS:
            problem = dpt.StronglyConvex(eta=eta, mu=1 / kappa, L=1.0)
            for beta in (dpt.nu_ftrl(1 / kappa), dpt.dpsgd()):
                runs = [run(beta, problem, n_grid=n) for n in LARGE_GRIDS]
                vals = [r.value if r else float("nan") for r, _ in runs]
                res, t = runs[0]
                gap = f"{res.solver_stats['gap']:.3g}" if res else "nan"
                cert = _how(res).replace("|", "/")[:90]
                lines.append(f"| {kappa:g} | {eta:g} | {beta.name} | " + " | ".join(_fmt(v) for v in vals)
                             + f" | {max(vals) / min(vals) - 1:.2e} | {gap} | {cert} | {t:.2f} |")
    return lines + [""]


def _fmt(v: float) -> str:
    return "raised" if v != v else f"{v:.6g}"


def main():
    lines = [
        "# Convergence of the SOCP bound (Thm 3.1) in the grid size and τ_max",
        "",
        "Generated by `python docs/socp_convergence.py`. Values are the paper-constant bound (`variant=\"paper\"`)",
        "with L = G = ρ = d = 1, σ_sgd = 0, η = 1; the relative change is against the finest setting of the column.",
        f"Chosen defaults: `n_grid = {DEFAULT_GRID}` points on [0, π] (clustered ω = πu²) and `tau_max = {DEFAULT_TAU_MAX}`.",
        "\"raised\": Clarabel failed (`SolverError`) and `F_inf_bound` raised. Since issue 18 every value is the",
        "certificate of a multiplier checked on the grid (module docstring of `dptheory.iqc`), and `optimal_inaccurate`",
        "solves are kept through that certificate; the grid is ω = πu^p with p = 2 unless ημ < 1.4e-4 (600 points).",
        "",
        "Reading (measured on this study): at `n_grid = 600` the grid error is ≤ 1.3e-3 relative (κ = 10⁴, DP-SGD,",
        "against 2000 points) and ~1e-5 for ν-DP-FTRL. Every `tau_max` gives a valid bound — more multiplier taps",
        "can only tighten it — so `tau_max` trades time for tightness: 20 is within 1.3% (κ = 10³) to 3% (κ = 10⁴)",
        "of `tau_max = 80` at a fifth of the time (~0.3 s against ~1.7 s per solve).",
        "",
    ]
    for kappa in KAPPAS:
        problem = dpt.StronglyConvex(eta=1.0, mu=1.0 / kappa, L=1.0)
        mechs = {"DP-SGD": dpt.dpsgd(), "nu-DP-FTRL (nu = eta mu)": dpt.nu_ftrl(problem.eta * problem.mu)}
        for name, beta in mechs.items():
            grid = {n: row(beta, problem, n_grid=n, tau_max=DEFAULT_TAU_MAX) for n in GRIDS}
            taus = {k: row(beta, problem, n_grid=DEFAULT_GRID, tau_max=k) for k in TAUS}
            ref_n, ref_k = grid[GRIDS[-1]][0], taus[TAUS[-1]][0]
            lines += [f"## κ = {kappa:g}, {name}", "", "| n_grid | bound | rel. to n=2000 | solve s |", "|---|---|---|---|"]
            lines += [f"| {n} | {_fmt(v)} | {v / ref_n - 1:+.2e} | {t:.2f} |" for n, (v, t) in grid.items()]
            lines += ["", "| tau_max | bound | rel. to τ=80 | solve s |", "|---|---|---|---|"]
            lines += [f"| {k} | {_fmt(v)} | {v / ref_k - 1:+.2e} | {t:.2f} |" for k, (v, t) in taus.items()]
            lines.append("")
    lines += near_one_and_large_kappa()
    atomic_write(Path(__file__).with_name("socp_convergence.md"), "\n".join(lines))


if __name__ == "__main__":
    main()
