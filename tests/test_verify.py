"""``make verify-quick`` works end to end: every claim passes and the report and figure are written."""

import json

from verify.__main__ import main


def test_quick_verification_writes_a_passing_report_and_caches_its_simulations(tmp_path, monkeypatch):
    monkeypatch.setenv("DPTHEORY_CACHE", str(tmp_path / "cache"))
    assert main(["--quick", "--out", str(tmp_path)]) == 0
    cached = sorted((tmp_path / "cache").glob("*.json"))
    assert len(cached) == 30  # figure 1: 4 η × 2; figure 2: 8 distinct problems (base case shared) × 2; figure 3: 2 losses × 3
    stamps = [p.stat().st_mtime_ns for p in cached]
    assert main(["--quick", "--out", str(tmp_path)]) == 0  # the second run only reads the cache
    assert [p.stat().st_mtime_ns for p in cached] == stamps
    claims = json.loads((tmp_path / "claims.json").read_text())
    assert claims and all(c["passed"] for c in claims if not c["informational"])
    assert {"id", "paper", "where", "predicted", "measured", "passed"} <= set(claims[0])
    assert (tmp_path / "figure1_mean_estimation.png").stat().st_size > 10_000
    assert (tmp_path / "figure2_linear_regression.png").stat().st_size > 10_000
    assert (tmp_path / "figure3_strongly_convex.png").stat().st_size > 10_000
    assert (tmp_path / "proactive_eps_vs_T.png").stat().st_size > 10_000
    assert (tmp_path / "proactive_utility_graph.png").stat().st_size > 10_000
    assert (tmp_path / "isrl_excess_risk.png").stat().st_size > 10_000
    assert "Seed 002, Figure 3" in (tmp_path / "REPORT.md").read_text()  # the rendered rate table is in the report
    ids = {c["id"] for c in claims}
    assert {"Table 9.s_max.T_min", "Table 8.eps=3.sigma", "eps_vs_T.mc_contains_pld.T=1918"} <= ids
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temporary file


def test_a_failing_claim_is_reported_as_failed():
    from dptheory.claims import Claim

    assert not Claim("x", "p", "w", "s", predicted=1.0, measured=1.1, rtol=0.05).passed
    assert Claim("x", "p", "w", "s", predicted=1.0, measured=1.04, rtol=0.05).passed
    assert not Claim("x", "p", "w", "s", predicted=2.0, measured=1.0, interval=(0.9, 1.1)).passed
    assert not Claim("x", "p", "w", "s", predicted=0.5, measured=3.0, bounds=(0.5, 2.0)).passed
