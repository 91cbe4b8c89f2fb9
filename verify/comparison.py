"""Which mechanism for which job (``dptheory.compare``): every family of the five papers on one problem, horizon,
participation and privacy level, its numbers cross-checked, and the findings of ``docs/choosing_a_mechanism.md``.

Checks (each can fail):

* every finite ``F_n`` of the table (mean estimation and Gaussian linear regression, single and multiple
  participation) lies in the interval of ``dptheory.simulate`` run with the mechanism's own noise stream (Bonferroni
  over the family);
* every MaxLoss/RmsLoss lies in the interval of a Monte-Carlo of the same stream's prefix sums (``simulate_prefix_errors``);
* ``F_n → F∞``: at ``n = 10⁵`` the finite sums (row energies, ``n``-step sensitivity) agree with the stationary pole
  integrals and streaming-limit sensitivity to 1e-6 for every stationary mechanism with a finite ``F∞`` whose strategy
  has decayed by then (a BLT optimised for a horizon with ``1 − θ_1 ~ 1e-10`` needs ~1e10 steps and is left out).

Findings:

* at ``n ≤ 256`` (ordering claims, ``compare.winner.*``): the winner of each yardstick against the best row of the
  next family, both measured by the dense oracle (``verify/_oracle.py``: every mechanism as dense matrices, read by
  the base-class routes only), each oracle value also checked against the table (``compare.oracle.*``);

Informational findings (the table's own values, reported; they cannot fail):

* the winner of each yardstick above ``n = 256`` (prefix MaxLoss, ``F_n`` of mean estimation, of linear regression) against the horizon
  ``n`` (single participation and ``k = 4`` epochs) and against ``(k, b)`` at ``n = 1024``;
* whether the ordering by seed 003's prefix-sum loss agrees with the ordering by seed 004's learning suboptimality
  (Kendall's τ between the two rankings);
* what a BLT optimised for the wrong horizon or participation loses on the learning objective;
* how close the ``d``-buffer BLT gets to seed 004's optimised correlation at a finite horizon, optimised for seed 003's
  MaxLoss and optimised for ``F_n`` itself (``dptheory.blt.optimize_for_learning``).
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
from matplotlib.ticker import NullFormatter
import numpy as np
from scipy.stats import kendalltau

import dptheory as dpt
from dptheory.claims import Claim, atomic_write, save_figure
from dptheory.comparison import DEFAULT_FAMILIES, FAMILIES, _dense_needed, candidates
from dptheory.simulation import simulate_prefix_errors
from dptheory.stats import family_quantile

from ._oracle import family_best, measure
from ._runner import Task, point_seed, run_all

WHERE = "dptheory.compare (docs/choosing_a_mechanism.md)"
PAPER = "seeds 000/003/004"
ALPHA = 0.05  # family-wise error of each family of interval claims (Bonferroni)
RHO = 1.0
MEAN = dpt.MeanEstimation(eta=0.05, sigma_sgd=0.5)
LINREG = dpt.LinearRegression(0.1, 1.0 / np.arange(1, 17), sigma_sgd=0.5)
PROBLEMS = {"mean": MEAN, "linreg": LINREG}
#: the mechanisms followed across settings in the figures and findings
SHOWN = ("DP-SGD", "nu-FTRL tuned", "sqrt (Optimal-CC)", "BLT d=1", "BLT d=4", "BLT d=2, F_n", "tree vanilla",
         "tree honaker", "tree full", "seed-004 optimum")


def _epochs(n: int, k: int) -> dpt.Participation:
    """``k`` epochs of ``n/k`` steps each: ``Π(k, b = n/k)``."""
    return dpt.Participation(max_participations=k, min_sep=max(1, n // k))


def _table(problem, n: int, participation, quick: bool):
    """Every family; the BLTs optimised for F_n (seconds each) only at full size."""
    families = DEFAULT_FAMILIES if quick else FAMILIES
    return dpt.compare(list(families), problem, horizon=n, participation=participation, rho=RHO, timing=False)


def _label(participation) -> str:
    return "k=1" if participation.single else f"k={participation.max_participations},b={participation.min_sep}"


# -- cross-checks ------------------------------------------------------------------------------------------------

def _simulation_claims(quick: bool, executor) -> list[Claim]:
    n, seeds = (32, 2000) if quick else (64, 6000)
    claims = []
    for name, problem in PROBLEMS.items():
        for participation in (dpt.Participation(), _epochs(n, 2)):
            table = _table(problem, n, participation, quick)
            rows = [r for r in table.rows if r.value("F_n") is not None and math.isfinite(r.value("F_n"))]
            tasks = [Task(r.mechanism, problem, dict(rho=RHO, horizon=n, participation=participation, seeds=seeds,
                                                         seed=point_seed(71, name, n, _label(participation), r.label)))
                     for r in rows]
            sims = run_all(tasks, desc=f"compare: F_n of {name}, {_label(participation)}", executor=executor)
            z = family_quantile(n_claims=len(sims), dof=seeds - 1, alpha=ALPHA)
            for r, sim in zip(rows, sims):
                lo, hi = sim.mean - z * sim.stderr, sim.mean + z * sim.stderr
                claims.append(Claim(
                    f"compare.F_n.{name}.{_label(participation)}.n{n}.{r.label}", PAPER, WHERE,
                    f"F_n of {r.label} on {problem!r} (n = {n}, {participation}, rho = {RHO}) from the table lies in the "
                    f"interval of simulate with the mechanism's own noise stream",
                    r.value("F_n"), sim.mean, interval=(lo, hi),
                    tolerance_why=f"{z:.2f} SE over {seeds} chains (Bonferroni over {len(sims)} mechanisms, {ALPHA:.0%})",
                    kind="cross-check"))
            if name == "mean":  # the prefix-sum losses do not depend on the problem
                claims += _prefix_claims(table, n, participation, chains=seeds)
    return claims


def _prefix_claims(table, n: int, participation, chains: int) -> list[Claim]:
    rows = [r for r in table.rows if r.value("max_loss") is not None and r.family != "optimised"]
    z = family_quantile(n_claims=2 * len(rows), dof=chains - 1, alpha=ALPHA)
    claims = []
    for i, r in enumerate(rows):
        mech, sens = r.mechanism, r.value("sensitivity")
        sim = simulate_prefix_errors(mech, n, chains=chains, seed=point_seed(72, n, _label(participation), r.label))
        worst = int(np.argmax(mech.row_energies(1.0, n)))
        for what, estimate in (("max_loss", sim.at(worst)), ("rms_loss", sim.mean_over_steps())):
            loss_sq = (r.value(what) / sens) ** 2
            claims.append(Claim(
                f"compare.{what}.{_label(participation)}.n{n}.{r.label}", "seed 003", "Eq. 9–10; " + WHERE,
                f"{what} of {r.label} (n = {n}, {participation}) over sens², i.e. the squared "
                f"{'error at the worst step' if what == 'max_loss' else 'error averaged over steps'}, lies in the "
                f"interval of a Monte-Carlo of the mechanism's own noise stream",
                loss_sq, estimate.value, interval=(estimate.value - z * estimate.stderr, estimate.value + z * estimate.stderr),
                tolerance_why=f"{z:.2f} SE over {chains} chains (Bonferroni over {2 * len(rows)} claims)",
                kind="cross-check"))
    return claims


def _limit_claims() -> list[Claim]:
    n_big = 100_000
    claims = []
    for name, problem in PROBLEMS.items():
        for participation in (dpt.Participation(), dpt.Participation(max_participations=4, min_sep=256)):
            for c in candidates(problem, horizon=1024, participation=participation, rho=RHO,
                                families=("dpsgd", "nu_ftrl", "blt", "optimised", "banded")):
                if c.mechanism is None or not c.mechanism.stationary or _dense_needed(c.mechanism, n_big, participation):
                    continue
                coeffs = c.mechanism.strategy_coeffs(n_big)
                if abs(coeffs[-1]) > 1e-9 * abs(coeffs[0]):  # C has not decayed by n_big (a BLT with 1 - theta_1 ~ 1e-10)
                    continue
                stationary = dpt.F_inf(c.mechanism, problem, rho=RHO, participation=participation)
                if not math.isfinite(stationary):
                    continue
                finite = dpt.F_inf(c.mechanism, problem, rho=RHO, horizon=n_big, participation=participation)
                claims.append(Claim(
                    f"compare.F_n_to_F_inf.{name}.{_label(participation)}.{c.label}", "seed 004", "eq. 4; " + WHERE,
                    f"F_n of {c.label} (optimised at n = 1024) at n = {n_big} equals its stationary F_inf "
                    f"({participation}): row energies and n-step sensitivity against pole integrals and the streaming limit",
                    stationary, finite, rtol=1e-6,
                    tolerance_why="the slowest mode decays like (1 - eta*lambda_min)^(2n) and the strategy's coefficients "
                                  "are below 1e-9 of c_0 at n = 1e5 (mechanisms whose C decays slower are left out: a BLT "
                                  "with 1 - theta_1 ~ 1e-10 reaches its streaming limit only after ~1e10 steps)",
                    kind="cross-check"))
    return claims


# -- findings ----------------------------------------------------------------------------------------------------

def _sweep(quick: bool) -> dict:
    """Tables over the horizon (single participation and 4 epochs) and over (k, b) at n = 1024."""
    horizons = (64, 1024) if quick else (64, 256, 1024, 4096, 10_000)
    out = {}
    for n in horizons:
        for participation in (dpt.Participation(), _epochs(n, 4)):
            for name, problem in PROBLEMS.items():
                out[(name, n, _label(participation))] = _table(problem, n, participation, quick)
    n = 1024
    for b in ((64, 256) if quick else (16, 64, 256, 512)):
        participation = dpt.Participation(max_participations=n // b, min_sep=b)
        for name, problem in PROBLEMS.items():
            out[(name, n, _label(participation))] = _table(problem, n, participation, quick)
    return out


def _info(id_: str, statement: str, value: float, why: str = "") -> Claim:
    return Claim(f"compare.finding.{id_}", PAPER, WHERE, statement, value, value, rtol=0.0, kind="informational",
                 tolerance_why=(why + "; " if why else "") + "a finding of the comparison, the value against itself: "
                                                             "reported, it cannot fail")


#: Significant digits the ordering finding compares values to: optimisers that stop at a tolerance of ~1e-8
#: leave near-equal mechanisms (BLTs of 2-4 buffers that converge to the same decays) whose order is rounding.
TIE_DIGITS = 6


def _tie_digits(value: float) -> float:
    return float(f"{value:.{TIE_DIGITS}g}")


def _ratio(table, a: str, b: str, column: str = "F_n") -> float | None:
    """``a``'s value over ``b``'s, ``None`` where either is not in the table or has no value (its cell says why)."""
    if a not in table.labels or b not in table.labels:
        return None
    x, y = table[a].value(column), table[b].value(column)
    return None if x is None or y is None or not (math.isfinite(x) and math.isfinite(y)) else x / y


#: Largest horizon at which the winners are ordering claims measured by the dense oracle (:mod:`._oracle`); above it
#: they are informational (the table's own values).
ORACLE_LIMIT = 256


def _participation_of(part: str):
    if part == "k=1":
        return dpt.Participation()
    k, b = (int(x.split("=")[1]) for x in part.split(","))
    return dpt.Participation(max_participations=k, min_sep=b)


def _winner_orderings(tables: dict) -> list[Claim]:
    """At ``n ≤ ORACLE_LIMIT``: the winner of each yardstick has a smaller value than the best row of the next family,
    both measured by the dense oracle (:mod:`._oracle`), and each oracle value against the table."""
    claims = []
    for (name, n, part), table in tables.items():
        if n > ORACLE_LIMIT:
            continue
        participation = _participation_of(part)
        for column in ("max_loss", "F_n"):
            if column == "max_loss" and name != "mean":
                continue
            ranked = list(family_best(table, column).values())[:2]  # the winner and the next family's best
            yard = "prefix" if column == "max_loss" else name
            oracle = {}
            for label in ranked:
                oracle[label], route = measure(table[label].mechanism, PROBLEMS[name], column, n=n, rho=RHO,
                                               participation=participation, scale=1.0)
                claims.append(Claim(
                    f"compare.oracle.{yard}.n{n}.{part}.{label}", PAPER, WHERE,
                    f"{column} of {label} at n = {n}, {part}, rho = {RHO}, from the table equals the {route}",
                    table[label].value(column), oracle[label], rtol=1e-9,
                    tolerance_why="two deterministic routes in double precision", kind="cross-check"))
            for other in ranked[1:]:
                claims.append(Claim(
                    f"compare.winner.{yard}.n{n}.{part}.{table[other].family}", PAPER, WHERE,
                    f"{column} at n = {n}, {part}, rho = {RHO}: {ranked[0]} is smaller than {other}, the best of family "
                    f"{table[other].family!r}, by a factor "
                    f"{table[other].value(column) / table[ranked[0]].value(column):.4g} in the table",
                    table[other].value(column) / table[ranked[0]].value(column), oracle[other] / oracle[ranked[0]],
                    bounds=(1.0, math.inf), kind="ordering", tolerance_why="measured: the dense oracle's ratio"))
    return claims


def _finding_claims(tables: dict) -> list[Claim]:
    claims = _winner_orderings(tables)
    for (name, n, part), table in tables.items():
        for column in ("max_loss", "F_n"):
            if column == "max_loss" and name != "mean":  # the prefix-sum yardstick does not depend on the problem
                continue
            if n <= ORACLE_LIMIT:  # an ordering claim above
                continue
            ranking = table.ranking(column)
            best = ranking[0]
            runner = ranking[1]
            yard = "prefix MaxLoss" if column == "max_loss" else f"F_n of {name}"
            claims.append(_info(
                f"winner.{'prefix' if column == 'max_loss' else name}.n{n}.{part}",
                f"best {yard} at n = {n}, {part}: {best} ({table[best].value(column):.4g}); runner-up {runner} "
                f"({table[runner].value(column):.4g}); DP-SGD {table['DP-SGD'].value(column):.4g}",
                table[best].value(column) / table["DP-SGD"].value(column),
                "the winner's value relative to DP-SGD"))
        common = [l for l in table.ranking("max_loss") if l in table.ranking("F_n")]
        tau = kendalltau([_tie_digits(table[l].value("max_loss")) for l in common],
                         [_tie_digits(table[l].value("F_n")) for l in common]).statistic
        claims.append(_info(f"ordering.{name}.n{n}.{part}",
                            f"Kendall tau between the ranking by prefix MaxLoss and by F_n of {name} at n = {n}, {part} "
                            f"({len(common)} mechanisms; values equal to {TIE_DIGITS} significant digits are ties)",
                            float(tau)))
        ratio = _ratio(table, "BLT d=4, n/10", "BLT d=4")
        if ratio is not None:
            claims.append(_info(f"mismatch_n.{name}.n{n}.{part}",
                                f"F_n of the 4-buffer BLT optimised (MaxLoss) for n/10 over that of the one optimised for "
                                f"n = {n}, {name}, {part}", ratio))
        ratio = _ratio(table, "BLT d=4, k=1", "BLT d=4")
        if ratio is not None:
            claims.append(_info(f"mismatch_k.{name}.n{n}.{part}",
                                f"F_n of the 4-buffer BLT optimised for a single participation over that of the one "
                                f"optimised for {part}, {name}, n = {n}", ratio))
        for label, what in (("BLT d=1", "1-buffer BLT optimised for MaxLoss"), ("BLT d=2", "2-buffer BLT optimised for MaxLoss"),
                            ("BLT d=4", "4-buffer BLT optimised for MaxLoss"), ("BLT d=1, F_n", "1-buffer BLT optimised for F_n"),
                            ("BLT d=2, F_n", "2-buffer BLT optimised for F_n")):
            ratio = _ratio(table, label, "seed-004 optimum")
            if ratio is None:
                continue
            key = label.replace("BLT ", "").replace(", F_n", ".F_n")
            claims.append(_info(f"blt_vs_optimum.{name}.{key}.n{n}.{part}",
                                f"F_n of the {what} over that of seed 004's optimised correlation, {name}, n = {n}, {part}",
                                ratio))
    return claims


def _relative(tables: dict, keys: list, label: str, column: str) -> list[float]:
    """``column`` of ``label`` over DP-SGD's in the tables ``keys`` (NaN where absent: the F_n-optimised BLTs exist at
    full size only, and a cell may have no value)."""
    out = []
    for key in keys:
        t = tables[key]
        v = t[label].value(column) if label in t.labels else None
        out.append(np.nan if v is None or not math.isfinite(v) else v / t["DP-SGD"].value(column))
    return out


def _figures(out_dir, tables: dict) -> None:
    horizons = sorted({n for (_, n, part) in tables if part == "k=1"})
    fig, axes = plt.subplots(2, 3, figsize=(16, 8.5), constrained_layout=True)
    panels = (("mean", "max_loss", "prefix MaxLoss (seed 003)"), ("mean", "F_n", "F_n, mean estimation (seed 004)"),
              ("linreg", "F_n", "F_n, linear regression d = 16"))
    for row, epochs in enumerate((1, 4)):
        for col, (name, column, title) in enumerate(panels):
            ax = axes[row, col]
            keys = [(name, n, "k=1" if epochs == 1 else _label(_epochs(n, epochs))) for n in horizons]
            for i, label in enumerate(SHOWN):
                ax.plot(horizons, _relative(tables, keys, label, column), "o-", color=f"C{i}", label=label, ms=4)
            ax.set(xscale="log", yscale="log", xlabel="horizon n", ylabel="relative to DP-SGD",
                   title=f"{title}, {'1 participation' if epochs == 1 else '4 epochs (b = n/4)'}")
            ax.grid(alpha=0.3, which="both")
    axes[0, 0].legend(fontsize=7)
    save_figure(fig, out_dir / "comparison_horizon.png")
    plt.close(fig)

    kb = sorted([(n, part) for (name, n, part) in tables if name == "mean" and n == 1024 and part != "k=1"],
                key=lambda x: int(x[1].split("b=")[1]))
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.5), constrained_layout=True)
    bs = [int(part.split("b=")[1]) for _, part in kb]
    for col, (name, column, title) in enumerate(panels):
        ax = axes[col]
        for i, label in enumerate(SHOWN):
            ax.plot(bs, _relative(tables, [(name, n, part) for n, part in kb], label, column), "o-", color=f"C{i}",
                    label=label, ms=4)
        ax.set(xscale="log", yscale="log", xlabel="min separation b (k = n/b epochs)", ylabel="relative to DP-SGD",
               title=f"{title}, n = 1024")
        ax.set_xticks(bs, [f"{b}\n(k = {1024 // b})" for b in bs])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.grid(alpha=0.3, which="both")
    axes[0].legend(fontsize=7)
    save_figure(fig, out_dir / "comparison_participation.png")
    plt.close(fig)


def run(out_dir, quick: bool = False, executor=None) -> list[Claim]:
    tables = _sweep(quick)
    claims = _simulation_claims(quick, executor) + _limit_claims() + _finding_claims(tables)
    _figures(out_dir, tables)
    example = tables[("linreg", 1024, _label(_epochs(1024, 4)))]
    atomic_write(out_dir / "comparison_table.md", "## Every mechanism side by side (dptheory.compare)\n\n" + example.to_markdown() + "\n")
    return claims
