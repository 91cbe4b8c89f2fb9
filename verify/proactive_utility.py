r"""The utility graph of seed 001 (Proactive DP, §3.3, App. D.2, Figs. 1(a) and 4): accuracy fraction vs σ per C.

Setting: the strongly convex row of Table 1 and Table 3 — ℓ2-regularised logistic regression (λ = 1/N),
η(t) = 0.1/(1 + 0.001 t), N = 10,000, K = 50,000 gradient computations, s = 26 (Table 3's largest sample size),
C ∈ {0.025, 0.05, 0.075, 0.1} (Fig. 4's range). Data: the paper's LIBSVM set is unnamed and not bundled, so a
seeded synthetic stand-in, two Gaussian classes in d = 20 with Bayes accuracy 90%
(:func:`dptheory.proactive.utility.synthetic_classification`; 5,000 test points).

Final step. App. D.2 perturbs w* by n ~ N(0, C²σ²I); the algorithm it screens for adds, in its last round,
``η̄_{T−1}·U`` with ``U`` the sum of ``s`` clipped gradients plus ``N(0, C²σ²I)`` (Alg. 1, line 15; §3.3: that noise
"is directly added as a perturbation to the final global model"), so the final model's perturbation is
``η̄_{T−1}·C·σ·z``. The x axis is σ with that step, ``η̄_{T−1} = η(t_{T−1}) = 0.1/(1 + 0.001·1922·26) ≈ 0.00196``
(Table 1 ‡ and recursion (10): one step η_t per gradient, the round's ``U`` is a sum; the module docstring of
:mod:`dptheory.proactive.utility` explains why not the ``η̄ = η/s`` reading, whose 26× smaller steps leave
w*(C) ∝ C unconverged and every C on one curve). The top
axis is the same curve read with App. D.2's literal ``N(0, C²σ²I)`` (σ_lit = η̄_{T−1}·σ): only ``step·C·σ`` matters,
so one computation gives both.

Claims: the trained models are near-optimal (App. D.2's premise); the simulated mean ratio (99.9% CI, 200
draws) contains the exact per-test-point expectation mean Φ(y wᵀx/(τ‖x‖)) at three σ per C; the 95% bands cover
the exact curve at about their nominal rate over the whole grid; and, informational (the paper's data set and
settings are not ours), the paper's qualitative claim "a smaller C allows a larger σ for the same drop" (D.2,
App. E) as σ at the 10% crossing per C, and the paper's read-offs for C = 0.1 (σ ∈ [18, 22]) and C = 0.075
(σ ∈ [18, 30]) against our literal-reading crossing.

Why the draws are fresh for every (C, σ). With common random numbers (one set of 200 noise directions for every
C and σ, the default of :func:`~dptheory.proactive.utility.utility_graph`) the simulated curves share a single
Monte-Carlo deviation: with seed 11 they sat 2.2–2.8 standard errors above the exact curves at every σ ≥ 10⁴,
so the 95% bands visibly missed the exact lines everywhere at once. That was chance, not a bias and not a wrong
reference: over seeds 12–30 the deviation at σ = 2·10⁴ has mean +0.14 to +0.19 and standard deviation 0.63–0.75
standard errors (per C; 19 seeds, so a mean of +0.19 is 1.1 of its own standard errors from 0),
and the exact reference is the per-point expectation checked against a direct simulation
(tests/test_proactive_utility.py). With fresh draws per point each band is an independent interval, and the
coverage claim counts how many of them contain the exact value.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from dptheory.claims import Claim, save_figure
from dptheory.proactive.utility import expected_accuracy, final_round_step, synthetic_classification, utility_graph

PAPER = "seed 001"
C_VALUES = (0.025, 0.05, 0.075, 0.1)
K, S, N, D_FEATURES = 50_000, 26, 10_000, 20
MAX_DROP = 0.1
PAPER_READOFF = {0.1: (18.0, 22.0), 0.075: (18.0, 30.0)}  # App. D.2 (Figs. 4, 5), App. D.2's literal n ~ N(0, C²σ²I)


def run(out_dir, quick: bool = False, executor=None) -> list[Claim]:  # noqa: ARG001 (no simulations to farm out)
    out_dir = Path(out_dir)
    data = synthetic_classification(N, 2_000 if quick else 5_000, D_FEATURES, seed=2024)
    step = final_round_step(K, S)
    sigmas = np.linspace(0.0, 20_000.0, 21 if quick else 41)
    draws = 100 if quick else 200
    g = utility_graph(data, C_VALUES, sigmas, K=K, s=S, step=step, draws=draws, seed=11, common_draws=False)
    lo999, hi999 = g.interval(0.999)
    exact = np.array([expected_accuracy(w, data.X_test, data.y_test, step * C * sigmas) / g.base_accuracy[c]
                      for c, (C, w) in enumerate(zip(g.C_values, g.weights))])
    claims = []

    claims.append(Claim("proactive.utility.near_optimal", PAPER, "App. D.2",
                        f"w*(C) is a near-optimal model: worst test accuracy over C vs the Bayes accuracy "
                        f"{data.bayes_accuracy:.3f} (base accuracies {', '.join(f'{a:.4f}' for a in g.base_accuracy)})",
                        data.bayes_accuracy, float(g.base_accuracy.min()),
                        bounds=(data.bayes_accuracy - 0.02, data.bayes_accuracy + 0.02),
                        tolerance_why=f"±0.02 ≈ 3–4 binomial sd on {data.X_test.shape[0]} test points plus estimation error",
                        kind="cross-check"))

    picks = (len(sigmas) // 8, len(sigmas) // 4, len(sigmas) // 2)
    for c, C in enumerate(g.C_values):
        for j in picks:
            claims.append(Claim(f"proactive.utility.exact.C={C:g}.sigma={sigmas[j]:g}", PAPER, "App. D.2",
                                f"simulated mean ratio ({draws} draws) vs exact mean Φ(y wᵀx/(τ‖x‖)), τ = η̄·C·σ",
                                float(exact[c, j]), float(g.ratio[c, j]), interval=(float(lo999[c, j]), float(hi999[c, j])),
                                tolerance_why="99.9% Student-t CI over draws (12 such claims)", kind="cross-check"))
    # coverage of the figure's 95% bands: fresh draws per (C, σ) make the σ > 0 points independent trials
    inside = (g.lo[:, 1:] <= exact[:, 1:]) & (exact[:, 1:] <= g.hi[:, 1:])
    n_pts = inside.size
    floor = float(stats.binom.ppf(0.001, n_pts, g.level)) / n_pts
    claims.append(Claim("proactive.utility.band_coverage", PAPER, "App. D.2 (the figure's bands)",
                        f"fraction of the {n_pts} (C, σ > 0) points whose 95% band contains the exact expectation "
                        f"({int(inside.sum())} of {n_pts})", g.level, float(inside.mean()), bounds=(floor, 1.0),
                        tolerance_why=f"Binomial({n_pts}, 0.95): below {floor:.3f} with probability 0.1%",
                        kind="cross-check"))

    cross = g.crossing(MAX_DROP)
    feas = g.feasible(MAX_DROP)
    order = np.argsort(g.C_values)
    for small, large in zip(order[:-1], order[1:]):
        Cs, Cl = g.C_values[small], g.C_values[large]
        claims.append(Claim(f"proactive.utility.smaller_C_larger_sigma.C={Cs:g}<{Cl:g}", PAPER, "App. D.2, App. E",
                            f"σ at a 10% drop: C = {Cs:g} tolerates more noise than C = {Cl:g} "
                            f"({cross[small]:.0f} vs {cross[large]:.0f}; ‖w*‖ = {np.linalg.norm(g.weights[small]):.2f} vs "
                            f"{np.linalg.norm(g.weights[large]):.2f}) on the synthetic stand-in",
                            float(cross[large]), float(cross[small]), bounds=(float(cross[large]), np.inf),
                            tolerance_why="the paper's qualitative claim on its LIBSVM set; ours is a different data set",
                            kind="informational"))
    for C, (a, b) in PAPER_READOFF.items():
        c = int(np.flatnonzero(g.C_values == C)[0])
        lit = float(cross[c] * step)
        claims.append(Claim(f"proactive.utility.paper_readoff.C={C:g}", PAPER, "App. D.2 (Figs. 4, 5)",
                            f"max σ for ≤10% drop under App. D.2's literal n ~ N(0, C²σ²I): paper [{a:g}, {b:g}] on its "
                            f"LIBSVM set; ours on the synthetic stand-in (d = {D_FEATURES})",
                            0.5 * (a + b), lit, bounds=(a, b), kind="informational",
                            tolerance_why="the paper's read-off from its figure; the data set differs"))

    with plt.rc_context({"font.size": 9}):
        _figure(out_dir, g, sigmas, exact, step, draws, feas, cross, inside)
    return claims


def _figure(out_dir, g, sigmas, exact, step, draws, feas, cross, inside) -> None:
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11.4, 5.7), gridspec_kw=dict(width_ratios=[2.1, 1]), layout="constrained")
    for c, C in enumerate(g.C_values):
        rc = feas[float(C)]
        line, = ax.plot(sigmas, g.ratio[c], "-", lw=1.4,
                        label=f"C = {C:g}: simulated mean, R_C = [{rc[0]:.0f}, {rc[1]:.0f}]" if rc else f"C = {C:g}: simulated mean, R_C = ∅")
        ax.fill_between(sigmas, g.lo[c], g.hi[c], color=line.get_color(), alpha=0.25, lw=0,
                        label=f"C = {C:g}: 95% CI over {draws} draws")
        ax.plot(sigmas, exact[c], ":", color="k", lw=1.0, label="exact E[ratio] = mean Φ(y wᵀx/(τ‖x‖)), each C" if c == 0 else None)
    ax.axhline(1 - MAX_DROP, color="grey", ls="--", lw=1, label=f"{MAX_DROP:.0%} drop")
    ax.set(xlabel=rf"$\sigma$  (final-round noise $\bar\eta_{{T-1}} C\sigma z$, $\bar\eta_{{T-1}}$ = {step:.3g})",
           ylabel=r"accuracy fraction $F(w^*+n)/F(w^*)$",
           title=f"Utility graph (seed 001, Fig. 4 style): synthetic d = {D_FEATURES}, N = {N}, K = {K}, s = {S}\n"
                 f"fresh noise draws at every (C, σ); the bands contain the exact curve\nat "
                 f"{int(inside.sum())} of {inside.size} points (nominal 95%)",
           ylim=(min(0.5, float(g.lo.min())) - 0.02, 1.02))
    top = ax.secondary_xaxis("top", functions=(lambda x: x * step, lambda x: x / step))
    top.set_xlabel(r"$\sigma$ read as App. D.2's literal $n \sim N(0, C^2\sigma^2 I)$")
    ax.legend(fontsize=8, loc="lower left", ncol=2)
    ax2.plot(g.C_values, cross * step, "o-", label="ours, synthetic data (literal reading)")
    for C, (a, b) in PAPER_READOFF.items():
        ax2.plot([C, C], [a, b], "r-", lw=3, alpha=0.6, label="paper's read-off (its LIBSVM set)" if C == 0.1 else None)
    ax2.set(xlabel="clipping constant C", ylabel=r"max $\sigma$ for a 10% drop (literal $N(0, C^2\sigma^2 I)$)",
            title="smaller C tolerates larger σ")
    ax2.legend(fontsize=8)
    save_figure(fig, out_dir / "proactive_utility_graph.png")
    plt.close(fig)
