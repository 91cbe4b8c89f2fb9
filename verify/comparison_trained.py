"""Which mechanism at my privacy budget, as trained (``dptheory.compare(…, dataset_size=, batch_size=, epochs=)``):
every family at one ``(ε, δ)``, each row charged by its tightest valid accountant (Poisson for DP-SGD, cyclic Poisson
for a banded strategy with at most ``⌊N/B⌋`` bands, fixed-order epochs otherwise; ``dptheory.training``), over
``ε ∈ [0.1, 32]`` at two ``(N, B, E)``. The findings of ``docs/choosing_a_mechanism.md`` are the claims here.

Claims (each can fail; the measured side never comes from the table's own routes):

* ``compare_trained.oracle.*`` (cross-check): the table's ``F_n`` and MaxLoss of each row a finding names against
  the dense-matrix oracle at ``n ≤ 256`` (``verify/_oracle.py``: the strategy and noising matrix as dense arrays, the
  sensitivity by pattern enumeration, the energies by the base-class routes; none of the table's structured routes);
* ``compare_trained.winner.*`` (ordering): the winner of each yardstick at ``ε = 1, 4, 16`` beats the best row of
  the next family, by the oracle's values (its margin is the statement);
* ``compare_trained.amplified_vs_correlated.*`` (ordering): on which side of 1 the ratio of the best unamplified
  (correlated-noise) row's ``F_n`` to amplified DP-SGD's lies, at every ``ε`` of the sweep, by the oracle: the
  crossover of the figure;
* ``compare_trained.charged.*`` (cross-check): the ε the PLD charges DP-SGD at its calibrated σ lies in the 99 %
  interval of the Monte-Carlo accountant (a second accountant) of the same Poisson-sampled Gaussian.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

import dptheory as dpt
from dptheory.accounting import exact_epsilon
from dptheory.claims import Claim, atomic_write, save_figure

from ._oracle import family_best, measure
from ._runner import point_seed

WHERE = "dptheory.compare as trained (docs/choosing_a_mechanism.md)"
PAPER = "Choquette-Choo et al. 2023 (amplified BandMF); seeds 000/003/004"
DELTA = 1e-6
MEAN = dpt.MeanEstimation(eta=0.05, sigma_sgd=0.5)
LINREG = dpt.LinearRegression(0.1, 1.0 / np.arange(1, 17), sigma_sgd=0.5)
PROBLEMS = {"mean": MEAN, "linreg": LINREG}
#: two training runs: two epochs of 100 batches (k = 2 participations 100 steps apart unamplified), and one epoch of
#: 250 batches (a single participation); both n ≤ 256 so that the dense oracle and BandMF apply
RUNS = {"N5000.B50.E2": dict(dataset_size=5000, batch_size=50, epochs=2),
        "N20000.B80.E1": dict(dataset_size=20000, batch_size=80, epochs=1)}
EPS_FULL = (0.1, 0.3, 1.0, 4.0, 16.0, 32.0)
EPS_QUICK = (1.0, 4.0, 16.0)
FINDING_EPS = (1.0, 4.0, 16.0)
YARDSTICKS = {"F_n.mean": ("mean", "F_n"), "F_n.linreg": ("linreg", "F_n"), "max_loss": ("mean", "max_loss")}


def _tables(quick: bool) -> dict:
    runs = dict(list(RUNS.items())[:1]) if quick else RUNS
    out = {}
    for key, run in runs.items():
        for eps in (EPS_QUICK if quick else EPS_FULL):
            for name, problem in PROBLEMS.items():
                out[key, eps, name] = dpt.compare(None, problem, eps=eps, delta=DELTA, timing=False, **run)
    return out


def _oracle(table, label: str, problem, column: str) -> tuple[float, str]:
    """``column`` of row ``label`` by the dense route of :mod:`._oracle`: ``(value, route)``."""
    row, n = table[label], table.setting["horizon"]
    p = row.privacy
    return measure(row.mechanism, problem, column, n=n, rho=p.rho, participation=p.participation(n),
                   scale=p.noise_multiplier)


def _ordering_and_oracle_claims(tables: dict) -> tuple[list[Claim], dict]:
    """Winners, amplified-vs-correlated orderings and their oracle cross-checks; also the ratios for the figure."""
    claims, ratios = [], {}
    oracle_cache: dict = {}

    def oracle(key, eps, yard, table, label):
        if (key, eps, yard, label) not in oracle_cache:
            name, column = YARDSTICKS[yard]
            value, route = _oracle(table, label, PROBLEMS[name], column)
            oracle_cache[key, eps, yard, label] = value
            claims.append(Claim(
                f"compare_trained.oracle.{key}.eps{eps:g}.{yard}.{label}", PAPER, WHERE,
                f"{yard} of {label} at (eps, delta) = ({eps:g}, {DELTA:g}), {key}, from the table equals the {route}",
                table[label].value(column), value, rtol=1e-9, kind="cross-check",
                tolerance_why="two deterministic routes in double precision"))
        return oracle_cache[key, eps, yard, label]

    for (key, eps, name), table in tables.items():
        for yard, (problem, column) in YARDSTICKS.items():
            if problem != name:
                continue
            if eps in FINDING_EPS:
                ranked = list(family_best(table, column).values())
                winner = ranked[0]
                w = oracle(key, eps, yard, table, winner)
                for other in ranked[1:2]:  # the best of the next family: the statement's margin
                    margin = table[other].value(column) / table[winner].value(column)
                    claims.append(Claim(
                        f"compare_trained.winner.{key}.eps{eps:g}.{yard}.{table[other].family}", PAPER, WHERE,
                        f"at (eps, delta) = ({eps:g}, {DELTA:g}), {key}: {winner} ({table[winner].privacy.scheme}) has a "
                        f"smaller {yard} than {other}, the best of family {table[other].family!r} "
                        f"({table[other].privacy.scheme}), by a factor {margin:.4g} in the table",
                        margin, oracle(key, eps, yard, table, other) / w, bounds=(1.0, math.inf), kind="ordering",
                        tolerance_why="measured: the dense oracle's ratio"))
            if column == "F_n":
                unamplified = [l for l in table.ranking(column) if not table[l].privacy.scheme.amplified]
                if unamplified and "DP-SGD" in table.labels:
                    ratio = table[unamplified[0]].value(column) / table["DP-SGD"].value(column)
                    ratios[key, name, eps] = (ratio, unamplified[0])
                    measured = oracle(key, eps, yard, table, unamplified[0]) / oracle(key, eps, yard, table, "DP-SGD")
                    claims.append(Claim(
                        f"compare_trained.amplified_vs_correlated.{key}.{name}.eps{eps:g}", PAPER, WHERE,
                        f"F_n of {name} at (eps, delta) = ({eps:g}, {DELTA:g}), {key}: the best unamplified row "
                        f"({unamplified[0]}) over amplified DP-SGD is {ratio:.4g} in the table: "
                        f"{'DP-SGD' if ratio > 1.0 else unamplified[0]} ahead",
                        ratio, measured, bounds=(1.0, math.inf) if ratio > 1.0 else (0.0, 1.0), kind="ordering",
                        tolerance_why="measured: the dense oracle's ratio"))
    return claims, ratios


def _charged_claims(tables: dict) -> list[Claim]:
    claims = []
    for (key, eps, name), table in tables.items():
        if name != "mean" or eps not in FINDING_EPS:
            continue
        p = table["DP-SGD"].privacy
        run = RUNS[key]
        q, T = run["batch_size"] / run["dataset_size"], table.setting["horizon"]
        mc = exact_epsilon(p.noise_multiplier, q=q, T=T, delta=DELTA, accountant="mc", n_samples=2**17,
                           seed=point_seed(92, key, eps))
        lo, hi = mc.interval
        claims.append(Claim(
            f"compare_trained.charged.{key}.eps{eps:g}", PAPER, WHERE,
            f"the eps target {eps:g} that the PLD charges DP-SGD (Poisson q = {q:g}, T = {T}) at its calibrated "
            f"sigma = {p.noise_multiplier:.6g} lies in the 99% interval of the Monte-Carlo accountant",
            eps, mc.eps, interval=(lo * (1 - 2e-3), hi * (1 + 2e-3)), kind="cross-check",
            tolerance_why="the MC interval (2^17 importance samples), widened by the PLD's 1e-3 grid tolerance "
                          "(PLD_RTOL) twice: the calibration's eps sits within it below the target"))
    return claims


def _crossover(ratios: dict, key: str, name: str) -> float | None:
    """The ε (log-linear interpolation of log ratio) where the best unamplified row overtakes DP-SGD."""
    points = sorted((eps, r) for (k, n, eps), (r, _) in ratios.items() if k == key and n == name)
    for (e0, r0), (e1, r1) in zip(points, points[1:]):
        if r0 > 1.0 >= r1:
            t = math.log(r0) / (math.log(r0) - math.log(r1))
            return math.exp(math.log(e0) + t * (math.log(e1) - math.log(e0)))
    return None


# -- figure and findings -----------------------------------------------------------------------------------------

SHOWN = ("dpsgd", "nu_ftrl", "sqrt", "blt", "tree", "optimised", "banded")


def _figure(out_dir, tables: dict, ratios: dict) -> None:
    keys = sorted({k for k, _, _ in tables})
    epss = sorted({e for _, e, _ in tables})
    fig, axes = plt.subplots(len(keys), 3, figsize=(16, 4.6 * len(keys)), constrained_layout=True, squeeze=False)
    for i, key in enumerate(keys):
        for j, (yard, (name, column)) in enumerate(YARDSTICKS.items()):
            ax = axes[i, j]
            for c, family in enumerate(SHOWN):
                xs, ys, amp = [], [], []
                for eps in epss:
                    label = family_best(tables[key, eps, name], column).get(family)
                    if label is None:
                        continue
                    xs.append(eps)
                    ys.append(tables[key, eps, name][label].value(column))
                    amp.append(tables[key, eps, name][label].privacy.scheme.amplified)
                if not xs:
                    continue
                ax.plot(xs, ys, "-", color=f"C{c}", label=family)
                ax.scatter([x for x, a in zip(xs, amp) if a], [y for y, a in zip(ys, amp) if a], color=f"C{c}", s=25)
                ax.scatter([x for x, a in zip(xs, amp) if not a], [y for y, a in zip(ys, amp) if not a],
                           facecolors="none", edgecolors=f"C{c}", s=25)
            cross = _crossover(ratios, key, name) if column == "F_n" else None
            if cross is not None:
                ax.axvline(cross, color="k", ls=":", lw=1)
                ax.annotate(f"correlated noise\novertakes DP-SGD\n(eps ~ {cross:.2g})", (cross, ax.get_ylim()[1]),
                            fontsize=7, va="top", ha="left")
            ax.set(xscale="log", yscale="log", xlabel=f"epsilon (delta = {DELTA:g})", ylabel=yard,
                   title=f"{yard}, {key} (filled: amplified)")
            ax.grid(alpha=0.3, which="both")
    axes[0, 0].legend(fontsize=7, title="best of family")
    save_figure(fig, out_dir / "comparison_eps_sweep.png")
    plt.close(fig)


def _findings_markdown(claims: list[Claim], tables: dict, ratios: dict) -> str:
    """The guide's findings section, every number from the claims and tables of this run."""
    lines = ["<!-- written by verify/comparison_trained.py from this run's claims; do not edit by hand -->", ""]
    for key in sorted({k for k, _, _ in tables}):
        run = RUNS[key]
        lines.append(f"**{key}** (N = {run['dataset_size']}, B = {run['batch_size']}, E = {run['epochs']}, "
                     f"n = {tables[next(k for k in tables if k[0] == key)].setting['horizon']}, delta = {DELTA:g}):")
        lines.append("")
        for eps in FINDING_EPS:
            if (key, eps, "mean") not in tables:
                continue
            parts = []
            for yard, (name, column) in YARDSTICKS.items():
                won = [c for c in claims if c.id.startswith(f"compare_trained.winner.{key}.eps{eps:g}.{yard}.")]
                if not won:
                    continue
                table = tables[key, eps, name]
                winner, runner = list(family_best(table, column).values())[:2]
                verdict = "holds" if all(c.passed for c in won) else "FAILS"
                parts.append(f"{yard}: **{winner}** ({_scheme(table[winner])}), ahead of {runner} "
                             f"({_scheme(table[runner])}) by {won[0].predicted:.3g}x (oracle check {verdict})")
            lines.append(f"- eps = {eps:g}: " + "; ".join(parts))
        for name in PROBLEMS:
            cross = _crossover(ratios, key, name)
            lines.append(f"- F_n of {name}: " + ("no crossover in the sweep" if cross is None else
                         f"correlated noise overtakes amplified DP-SGD near eps = {cross:.2g}"))
        lines.append("")
    failed = [c.id for c in claims if not c.passed]
    lines.append(f"{len(claims)} claims behind this section; {len(failed)} fail" + (f": {failed}" if failed else "."))
    return "\n".join(lines) + "\n"


def _scheme(row) -> str:
    s = row.privacy.scheme
    return (f"cyclic Poisson, cycle {s.cycle_length}" if s.amplified and s.cycle_length > 1 else
            "Poisson sampling" if s.amplified else "fixed order, unamplified")


def run(out_dir, quick: bool = False, executor=None) -> list[Claim]:
    tables = _tables(quick)
    claims, ratios = _ordering_and_oracle_claims(tables)
    claims += _charged_claims(tables)
    _figure(out_dir, tables, ratios)
    atomic_write(out_dir / "comparison_findings.md", _findings_markdown(claims, tables, ratios))
    example = tables[next(iter(RUNS)), 4.0, "linreg"]
    atomic_write(out_dir / "comparison_trained_table.md",
                 "## Every mechanism at matched (eps, delta), as trained (dptheory.compare)\n\n" + example.to_markdown() + "\n")
    return claims
