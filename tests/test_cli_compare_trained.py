"""``dptheory compare`` as trained (``--dataset-size --batch-size --epochs --epsilon --delta``): the library's table,
and bad combinations refused with exit status 2 and one line naming the options."""

from __future__ import annotations

import json

import pytest

import dptheory as dpt

from test_cli import run

TRAINED = ["--dataset-size", "640", "--batch-size", "20", "--epochs", "2", "--epsilon", "2", "--delta", "1e-6"]


def test_the_json_is_the_librarys_table_as_trained():
    proc = run("compare", "--families", "dpsgd", "banded", "--problem", "mean:eta=0.1", *TRAINED, "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    table = dpt.compare(["dpsgd", "banded"], dpt.MeanEstimation(eta=0.1), eps=2.0, delta=1e-6, dataset_size=640,
                        batch_size=20, epochs=2, timing=False)
    assert out["setting"]["horizon"] == 64 and out["setting"]["epochs"] == 2
    assert [r["label"] for r in out["rows"]] == table.labels
    for got, want in zip(out["rows"], table.rows):
        assert got["cells"]["F_n"]["value"] == want.value("F_n")
        assert got["privacy"]["scheme"] == str(want.privacy.scheme)
        assert got["privacy"]["eps_charged"] == want.privacy.charged.eps


@pytest.mark.parametrize("args, says", [
    (["--dataset-size", "640", "--batch-size", "20", "--epsilon", "2", "--delta", "1e-6"], "missing --epochs"),
    (["--dataset-size", "640", "--batch-size", "20", "--epochs", "2", "--rho", "1"], "without --rho"),
    (["--dataset-size", "10", "--batch-size", "20", "--epochs", "2", "--epsilon", "2", "--delta", "1e-6"], "--batch-size"),
    (["--dataset-size", "640", "--batch-size", "20", "--epochs", "0", "--epsilon", "2", "--delta", "1e-6"], "--epochs"),
    ([*TRAINED, "--participation", "2:8"], "without --rho or --participation"),
])
def test_bad_combinations_exit_2_with_one_line(args, says):
    proc = run("compare", "--families", "dpsgd", *args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and says in proc.stderr, proc.stderr


def test_a_reader_that_stops_early_gets_no_traceback():
    """``dptheory … --json | head -c 100``: the closed pipe is the reader's choice, not an error of the command."""
    import subprocess
    import sys

    from test_cli import ROOT, _env

    proc = subprocess.Popen([sys.executable, "-m", "dptheory", "compare", "--families", "dpsgd", "sqrt", "--horizon",
                             "64", "--json"], cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # before the command has written anything: its write meets a pipe with no reader
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and b"Traceback" not in err, err.decode()
