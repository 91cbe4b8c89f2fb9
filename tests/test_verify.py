"""``make verify-quick`` works end to end: every claim passes and the report and figure are written."""

import json

from verify.__main__ import main


def test_quick_verification_writes_a_passing_report(tmp_path):
    assert main(["--quick", "--out", str(tmp_path)]) == 0
    claims = json.loads((tmp_path / "claims.json").read_text())
    assert claims and all(c["passed"] for c in claims)
    assert {"id", "paper", "where", "predicted", "measured", "passed"} <= set(claims[0])
    assert (tmp_path / "figure1_mean_estimation.png").stat().st_size > 10_000
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temporary file


def test_a_failing_claim_is_reported_as_failed():
    from dptheory.claims import Claim

    assert not Claim("x", "p", "w", "s", predicted=1.0, measured=1.1, rtol=0.05).passed
    assert Claim("x", "p", "w", "s", predicted=1.0, measured=1.04, rtol=0.05).passed
    assert not Claim("x", "p", "w", "s", predicted=2.0, measured=1.0, interval=(0.9, 1.1)).passed
