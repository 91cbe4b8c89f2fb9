"""``make verify-quick`` works end to end: every claim passes and the report and figure are written."""

import json
import math

from pathlib import Path

import numpy as np
import pytest

from verify import figure1, figure2
from verify.__main__ import main

LOOSE = 10.0  # a bound side further than this factor from its measurement cannot fail in practice
#: the bounds of an ordering: a ratio below or above 1, or a sign (a value below 0)
ORDERING_SIDES = ([1.0, math.inf], [0.0, 1.0], [-math.inf, 0.0])
COMMITTED = Path(__file__).resolve().parent.parent / "figures" / "claims.json"

#: Families (the first two segments of a claim id) whose cross-checks may give a predicted value equal to the
#: measured one to the last bit, and why: each compares two routes that are exact in the same arithmetic (integers,
#: fractions, a closed form against a recursion that rounds alike), not one function evaluated twice.
SAME_BITS = {
    "seed000.accounting": "exact integers: the layer sweep / dynamic programme against a closed form or TF Privacy's "
                          "recorded worst case",
    "seed000.tree": "exact fractions and integers (Fraction arithmetic) against the floating-point mechanism",
    "seed003.tree": "tree variances: exact integers against the structured mechanism",
    "seed003.table3": "two closed forms of the prefix-sum loss that round alike",
    "compare.F_n_to_F_inf": "filtered_energy (pole integrals) with γ∞ against final_row_energy at n = 1e5 with γ_n: "
                            "scaling either moves only its side (tests/test_claim_routes.py)",
    "compare.oracle": "DenseMechanism (dense_sensitivity's enumeration, the dense decoder) against the structured "
                      "table; exact for DP-SGD's identity strategy; scaling either route moves only its side "
                      "(tests/test_claim_routes.py)",
    "compare_trained.oracle": "the same oracle against the table as trained (tests/test_claim_routes.py)",
    "xcheck.isrl_noniid_cvx_up": "exact algebra at the balancing K (the registry's rate against the calibration code)",
    "xcheck.sdp_noniid_cvx_up": "exact algebra at the balancing K",
    "xcheck.isrl_iid_cvx_up": "the same power laws from σ² and from the rate, exact in floating point",
    "xcheck.isrl_erm_cvx_up": "the same power laws from σ² and from the rate, exact in floating point",
    "xcheck.rounds": "two formulas for the rounds that round alike",
    "C1.chain": "two algebraic routes (closed form; the Gaussian and subsampling chain)",
    "C22.enumeration": "an exact identity over enumerated subsets",
    "dpa.replace_one": "dp_accounting's sensitivity convention, an integer",
    "fig1.ratio": "two exact routes at η = 0.9 that round alike",
    "gamma_inf.nu=0": "a time sum against a closed form, equal in double precision",
}


def _loose_bound_sides(claim: dict) -> list[float]:
    """Finite, nonzero sides of a bounds claim further than LOOSE× from the measurement (0 and ±inf are one-sided).
    A claim whose prediction is 0 bounds a difference or a sign by an absolute tolerance: not a relative check."""
    if claim.get("predicted") == 0.0:
        return []
    m = abs(claim["measured"])
    sides = [s for s in claim["bounds"] if math.isfinite(s) and s != 0]
    return [s for s in sides if not (m / LOOSE <= abs(s) <= LOOSE * m)] if sides else [math.inf]


def test_quick_verification_writes_a_passing_report_and_caches_its_simulations(tmp_path, monkeypatch):
    monkeypatch.setenv("DPTHEORY_CACHE", str(tmp_path / "cache"))
    assert main(["--quick", "--out", str(tmp_path)]) == 0
    cached = sorted((tmp_path / "cache").glob("*.json"))
    # figure 1: 4 η × 2; figure 2: 8 distinct problems (base case shared), each one run of its two mechanisms on
    # common random numbers; figure 3: 2 losses × 3 + μ = L × 2;
    # seed 003 on learning problems: 5 mechanisms × 2 problems; seed 000's tree: 3 read-outs × 2 participations on
    # mean estimation + 2 read-outs on linear regression; the comparison: F_n of every mechanism with a finite one
    # (15 + 16 per problem, one participation and two epochs) on mean estimation and linear regression
    assert len(cached) == 24 + 10 + 6 + 2 + 62
    stamps = [p.stat().st_mtime_ns for p in cached]
    rerun = tmp_path / "rerun"  # the simulation scripts again: they only read the cache
    for script in (figure1, figure2):
        assert all(c.passed or c.informational for c in script.run(rerun, quick=True))
    assert sorted((tmp_path / "cache").glob("*.json")) == cached
    assert [p.stat().st_mtime_ns for p in cached] == stamps
    claims = json.loads((tmp_path / "claims.json").read_text())
    assert claims and all(c["passed"] for c in claims if c["kind"] != "informational")
    assert {"id", "paper", "where", "predicted", "measured", "kind", "passed"} <= set(claims[0])
    assert (tmp_path / "figure1_mean_estimation.png").stat().st_size > 10_000
    assert (tmp_path / "figure2_linear_regression.png").stat().st_size > 10_000
    assert (tmp_path / "figure3_strongly_convex.png").stat().st_size > 10_000
    assert (tmp_path / "proactive_eps_vs_T.png").stat().st_size > 10_000
    assert (tmp_path / "proactive_utility_graph.png").stat().st_size > 10_000
    assert (tmp_path / "isrl_excess_risk.png").stat().st_size > 10_000
    assert (tmp_path / "seed003_learning.png").stat().st_size > 10_000
    assert (tmp_path / "seed000_tree_mechanism.png").stat().st_size > 10_000
    assert (tmp_path / "comparison_horizon.png").stat().st_size > 10_000
    assert "Every mechanism side by side" in (tmp_path / "REPORT.md").read_text()
    assert "Seed 002, Figure 3" in (tmp_path / "REPORT.md").read_text()  # the rendered rate table is in the report
    ids = {c["id"] for c in claims}
    assert len(ids) == len(claims)  # one claim per configuration: no id counted twice
    checks = [c for c in claims if c["kind"] not in ("informational", "ordering")]
    # a check must be able to fail: no bound side 10× away from its measurement, no [x, inf] on both sides
    assert {c["id"]: _loose_bound_sides(c) for c in checks if c["bounds"] and _loose_bound_sides(c)} == {}
    # an ordering compares a measured ratio with 1 (or a measured value's sign with 0): one side at 1 or 0, the
    # other open
    orderings = [c for c in claims if c["kind"] == "ordering"]
    assert orderings and all(c["bounds"] is not None and sorted(c["bounds"]) in ORDERING_SIDES for c in orderings)
    # claims that held by construction are informational: β* = DP-SGD at η = 1, the LTI-accepting tolerance
    info = {c["id"] for c in claims if c["kind"] == "informational"}
    assert {"fig1.ratio.eta=1", "linreg.exact_over_lti.eta=0.005", "fig3.sim.logistic.DP-SGD"} <= info
    # the base point of Figure 2 is claimed once, under the d sweep
    assert not [i for i in ids if i.startswith(("fig2.d_eff.", "fig2.eta.")) and i.endswith(".eta=0.02.exact")]
    assert "fig1.sim.beta_star.eta=1" not in ids and "fig2.eta.nu-Noisy-FTRL.eta=0.01.approximation" in ids
    assert {"Table 9.s_max.T_min", "Table 8.eps=3.sigma", "eps_vs_T.mc_contains_pld.T=1918"} <= ids
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temporary file


def test_a_failing_claim_is_reported_as_failed():
    from dptheory.claims import Claim

    check = dict(kind="cross-check")
    assert not Claim("x", "p", "w", "s", predicted=1.0, measured=1.1, rtol=0.05, **check).passed
    assert Claim("x", "p", "w", "s", predicted=1.0, measured=1.04, rtol=0.05, **check).passed
    assert not Claim("x", "p", "w", "s", predicted=2.0, measured=1.0, interval=(0.9, 1.1), **check).passed
    assert not Claim("x", "p", "w", "s", predicted=0.5, measured=3.0, bounds=(0.5, 2.0), **check).passed


def test_every_claim_says_what_evidence_it_is():
    from dptheory.claims import Claim

    with pytest.raises(ValueError, match="kind must be one of 'cross-check', 'bound', 'ordering', 'paper', 'regression', 'informational'"):
        Claim("x", "p", "w", "s", predicted=1.0, measured=1.0, rtol=0.0)
    with pytest.raises(ValueError, match="got 'independent'"):
        Claim("x", "p", "w", "s", predicted=1.0, measured=1.0, rtol=0.0, kind="independent")


def test_the_report_counts_each_kind_and_lists_findings_first(tmp_path):
    from dptheory.claims import Claim, load_claims, write_report

    mk = lambda i, kind, measured: Claim(i, "seed 9", "Thm 1", "s", predicted=1.0, measured=measured, rtol=0.01, kind=kind)
    claims = [mk("a", "cross-check", 1.0), mk("b", "cross-check", 2.0), mk("c", "paper", 1.0),
              mk("d", "regression", 1.0), mk("e", "informational", 1.0), mk("f", "informational", 3.0),
              mk("g", "bound", 1.0), mk("h", "ordering", 1.0)]
    write_report(claims, tmp_path)
    report = (tmp_path / "REPORT.md").read_text()
    assert report.splitlines()[2].startswith(
        "Pass: 1/2 cross-checks, 1/1 bounds, 1/1 orderings, 1/1 reproductions of a paper's numbers, 1/1 regression "
        "values; 33% of the 6 counted claims are two-sided cross-checks of independent routes (goal ≥ 60%; held back "
        "most by c (1), d (1), g (1)); 2 informational comparisons (1 of them findings")
    # the finding (an informational comparison that does not hold) comes before every table of checks
    assert report.index("## Findings") < report.index("| ✗ | f |") < report.index("## Cross-checks")
    assert report.count("| f |") == 1 and "## Other informational comparisons" in report
    assert report.index("## Cross-checks") < report.index("## Bounds") < report.index("## Orderings")
    assert [(c.id, c.kind, c.passed) for c in load_claims(tmp_path / "claims.json")] == [
        (c.id, c.kind, c.passed) for c in claims]


def test_a_claims_file_without_kinds_is_refused(tmp_path):
    from dptheory.claims import load_claims

    (tmp_path / "claims.json").write_text(json.dumps([{"id": "x", "informational": False}]))
    with pytest.raises(ValueError, match="predates claim kinds"):
        load_claims(tmp_path / "claims.json")


def test_loose_bounds_are_detected():
    claim = dict(measured=1e-3, bounds=[9e-4, 0.1])  # Thm C.15's upper side 100× above the measurement
    assert _loose_bound_sides(claim) == [0.1]
    assert _loose_bound_sides(dict(measured=1.2, bounds=[1.0, math.inf])) == []
    assert _loose_bound_sides(dict(measured=1.2, bounds=[0.0, math.inf])) == [math.inf]  # holds by construction
    # an absolute tolerance on a difference whose prediction is 0 (two routes agreeing to 1e-12) is not relative
    assert _loose_bound_sides(dict(predicted=0.0, measured=3e-15, bounds=[0.0, 1e-12])) == []


@pytest.mark.parametrize("quick", [True, False])
def test_every_slope_fit_of_seed_004_has_independent_points(quick):
    """Figure 2's slope SE assumes independent points: each problem of a sweep runs from its own seed, a point
    shared by two sweeps is one run; the two mechanisms of a problem share that run (common random numbers), which
    leaves each mechanism's points independent."""
    from verify import figure2
    from verify._runner import CommonTask, point_seed

    _, sweeps = figure2._sweeps(quick)
    distinct = figure2._distinct(sweeps)
    tasks = figure2._tasks(distinct, seeds=16)
    assert len(tasks) == len({figure2._key(p) for points in sweeps.values() for _, p in points})
    assert all(isinstance(t, CommonTask) and len(t.mechanisms) == 2 for t in tasks)
    seed_of = {figure2._key(t.problem): t.kwargs["seed"] for t in tasks}
    assert len(set(seed_of.values())) == len(tasks)
    for points in sweeps.values():
        assert len({seed_of[figure2._key(p)] for _, p in points}) == len(points)
    etas = [0.01, 0.1, 1.5]
    assert len({point_seed(11, label, e) for e in etas for label in ("beta_star", "dpsgd")}) == 2 * len(etas)
    assert point_seed(11, "dpsgd", 0.1) == point_seed(11, "dpsgd", 0.1)  # same settings, same numbers
    assert point_seed(1, np.array([1.0, 0.5])) != point_seed(1, np.array([1.0, 0.25]))


def test_figure_2_simulates_nu_ftrl_through_its_blt_approximation_within_tolerance():
    """Figure 2's ν-FTRL points run :func:`dptheory.nu_ftrl_blt`: its exact F∞ (BLT closed forms) is within the
    claimed 1e-6 of ν-FTRL's (elliptic closed form) at the full run's smallest and largest ν; DP-SGD runs as it is."""
    import dptheory as dpt
    from verify import figure2

    for eta in (0.005, 0.08):
        p = dpt.LinearRegression(eta, 1.0 / np.arange(1, 129))
        beta = dpt.nu_ftrl(p.eta * p.mu)
        approx = figure2.simulated_form(beta)
        assert isinstance(approx, dpt.BLT) and approx.exact_stream
        shift = dpt.F_inf(approx, p, rho=1.0) / dpt.F_inf(beta, p, rho=1.0) - 1
        assert abs(shift) <= figure2.APPROXIMATION_RTOL
    sgd = dpt.dpsgd()
    assert figure2.simulated_form(sgd) is sgd


def test_only_into_a_folder_without_claims_writes_a_report_of_those_scripts(tmp_path, capsys):
    """``--only`` merges into OUT/claims.json; a fresh OUT has none, and the report says it covers only those scripts."""
    assert main(["--quick", "--only", "analytic_core", "--out", str(tmp_path)]) == 0
    claims = json.loads((tmp_path / "claims.json").read_text())
    assert claims and {c["script"] for c in claims} == {"analytic_core"}
    assert f"This report covers only analytic_core (quick sizes): {tmp_path} had no claims.json" in (tmp_path / "REPORT.md").read_text()


def test_a_quick_run_writes_into_figures_quick_and_leaves_the_committed_figures_alone(tmp_path, monkeypatch):
    """``make verify-quick`` (``python -m verify --quick``, no ``--out``) writes into figures/quick/, which git
    ignores, and leaves every file of the committed figures/ as it was (issue 39)."""
    from pathlib import Path

    from dptheory.claims import load_claims
    from verify.__main__ import OUT, QUICK_OUT

    assert (OUT, QUICK_OUT) == (Path("figures"), Path("figures") / "quick")
    assert "figures/quick/" in (Path(__file__).resolve().parent.parent / ".gitignore").read_text().splitlines()
    monkeypatch.chdir(tmp_path)  # the default folders are relative to the working directory (the checkout's root)
    monkeypatch.setenv("DPTHEORY_CACHE", str(tmp_path / "cache"))
    committed = tmp_path / "figures"
    committed.mkdir()
    for name in ("claims.json", "REPORT.md", "figure1_mean_estimation.png", "comparison_table.md"):
        (committed / name).write_text(f"the committed {name}")
    files = lambda: {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in committed.iterdir() if p.is_file()}
    before = files()
    assert main(["--quick", "--only", "analytic_core", "--jobs", "1"]) == 0
    assert files() == before
    assert sorted(p.name for p in committed.iterdir() if p.is_dir()) == ["quick"]
    report = (committed / "quick" / "REPORT.md").read_text()
    assert "**Quick run** (`python -m verify --quick`, small sizes): this report, its claims.json and its figures are " \
           "in `figures/quick/`" in report
    assert {c.script for c in load_claims(committed / "quick" / "claims.json")} == {"analytic_core"}


def test_the_headline_shows_the_share_of_cross_checks_and_the_families_that_hold_it_back():
    """The share counts every claim that is not informational; the families are the first two id segments, largest
    first (ties by name), and only named while the share is below its goal (issue 39)."""
    from dptheory.claims import Claim, headline

    mk = lambda i, kind: Claim(i, "seed 9", "Thm 1", "s", predicted=1.0, measured=1.0, rtol=0.01, kind=kind)
    claims = ([mk(f"seed9.fig1.{i}", "cross-check") for i in range(4)] + [mk(f"seed9.table2.{i}", "paper") for i in range(3)]
              + [mk(f"seed9.bounds.{i}", "bound") for i in range(2)] + [mk("seed9.sign", "ordering")]
              + [mk(f"seed9.table2.note{i}", "informational") for i in range(5)])
    line = headline(claims)
    assert ("40% of the 10 counted claims are two-sided cross-checks of independent routes (goal ≥ 60%; held back most "
            "by seed9.table2 (3), seed9.bounds (2), seed9.sign (1)); 5 informational comparisons") in line
    assert "held back" not in headline(claims[:4] + claims[-5:])  # 100%: nothing holds it back
    assert "counted claims" not in headline(claims[-5:])  # only informational comparisons: no share


def _committed_claims() -> list[dict]:
    return json.loads(COMMITTED.read_text())


def test_no_cross_check_has_an_open_side():
    """A cross-check is two-sided: no infinite bound or interval side, no infinite value (a one-sided check is a
    ``bound`` or an ``ordering``). Reads the committed full-size claims (regenerate with ``make verify``)."""
    open_sided = {c["id"]: (c["bounds"], c["interval"]) for c in _committed_claims() if c["kind"] == "cross-check"
                  and not all(math.isfinite(x) for x in [c["predicted"], c["measured"], *(c["bounds"] or ()),
                                                           *(c["interval"] or ())])}
    assert open_sided == {}


def test_no_cross_check_compares_a_quantity_with_itself():
    """A cross-check whose predicted and measured values are equal to the last bit may be one function evaluated
    twice under two names: every such family is listed in SAME_BITS with the reason it is two routes. Symbolic
    identities between two formulas typed from the papers are regression values, not cross-checks."""
    same = {}
    for c in _committed_claims():
        if c["kind"] == "cross-check" and c["rtol"] is not None and c["predicted"] == c["measured"]:
            same.setdefault(".".join(c["id"].split(".")[:2]), []).append(c["id"])
    assert {family: ids for family, ids in same.items() if family not in SAME_BITS} == {}
    assert all(reason for reason in SAME_BITS.values())
