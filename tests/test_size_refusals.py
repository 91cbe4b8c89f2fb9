"""One size policy (issue 36, part 1): a route whose memory grows with n, d, buffers, epochs or patterns estimates
its cost first and refuses with a ValueError naming the caller's parameter, the size it would need and the largest
that fits (``dptheory._validation.check_size``, budget ``SIZE_BUDGET``), or takes a closed form.

Every case runs in one child process under ``RLIMIT_AS = 2 GiB`` with a clock, so that an allocation past the
budget fails this test (a MemoryError is recorded) instead of the machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 2 << 30

#: (id, expression, what the refusal begins with; None: a finite value is served)
CASES = [
    ("toeplitz-coeffs", "dpt.nu_ftrl(0.05).strategy_coeffs(10**9)", "n = 1000000000 needs about"),
    ("toeplitz-coeffs-1e20", "dpt.nu_ftrl(0.05).noising_coeffs(10**20)", "n = 1e+20 needs"),
    ("two-taps-coeffs", "dpt.toeplitz([1.0, -0.5]).strategy_coeffs(10**9)", "n = 1000000000 needs"),
    ("toeplitz-row-energies", "dpt.nu_ftrl(0.05).row_energies(0.9, 10**9)", "n = 1000000000 needs"),
    ("toeplitz-dense", "dpt.nu_ftrl(0.05).noising_matrix(10**6)", "n = 1000000 needs"),
    ("F_n-optimal-cc", "dpt.F_inf(dpt.optimal_cc(), ME, rho=1.0, horizon=10**9)", "horizon = 1000000000 needs"),
    ("F_n-tree", "dpt.F_inf(M.TreeAggregation(), ME, rho=1.0, horizon=10**9)", "horizon = 1000000000 needs"),
    ("F_n-linreg", "dpt.F_inf(dpt.nu_ftrl(0.05), dpt.LinearRegression(0.1, np.full(2000, 0.5)), rho=1.0, "
                   "horizon=10**5)", "horizon = 100000 needs"),
    ("blt-coeffs", "dpt.BLT([0.9, 0.5], [0.1, 0.2]).noising_coeffs(10**9)", "n = 1000000000 needs"),
    ("blt-row-energies", "dpt.BLT([0.9, 0.5], [0.1, 0.2]).row_energies(1.0, 10**9)", "n = 1000000000 needs"),
    ("tree-row-energies", "M.TreeAggregation().row_energies(1.0, 10**9)", "n = 1000000000 needs"),
    ("tree-nodes", "M.tree_nodes(10**9)", "n = 1000000000 needs"),
    ("banded-dense", "M.banded_sqrt(10**6, 4)", "n = 1000000 needs"),
    ("blt-optimize-buffers", "optimize(100, buffers=1000)", "buffers = 1000 needs"),
    ("blt-optimize-n", "optimize(10**9)", "n = 1000000000 needs"),
    ("ntr-epochs", "ta.tree_sensitivity_sq(100, epochs=10**9, scheme='no_restart')", "epochs = 1000000000 needs"),
    ("patterns", "M.Participation(max_participations=4, min_sep=10).patterns(10**6)", "n = 1e+06 with"),
    ("nu_ftrl_blt-step", "M.nu_ftrl_blt(0.05, step=1e-8)", "nu = 0.05 at step = 1e-08 gives"),
    ("pld-T", "accounting.exact_epsilon(1.0, q=0.01, T=10**9, delta=1e-5)", "T = 1000000000 rounds is above"),
    # closed forms and structured routes: served, in bounded memory
    ("blt-F_n-1e20", "dpt.F_inf(dpt.BLT([0.9], [0.1]), ME, rho=1.0, horizon=10**20)", None),
    ("nu-F_n-1e9", "dpt.F_inf(dpt.nu_ftrl(0.05), ME, rho=1.0, horizon=10**9)", None),
    ("finite-F_n-1e9", "dpt.F_inf(dpt.toeplitz([1.0, -0.5, 0.1]), ME, rho=1.0, horizon=10**9)", None),
    ("blt-sensitivity-1e9", "dpt.BLT([0.9, 0.5], [0.1, 0.2]).sensitivity(10**9)", None),
    ("toeplitz-sensitivity-1e9", "dpt.nu_ftrl(0.05).sensitivity(10**9)", None),
    ("tr-epochs-1e9", "ta.tree_sensitivity_sq(100, epochs=10**9, scheme='restart')", None),
    ("tree-all-steps", "M.TreeAggregation().sensitivity(1024, M.Participation(max_participations=1024, min_sep=1))",
     None),
    ("dense-all-steps", "M.dense_sensitivity(np.tril(np.ones((512, 512))), M.Participation(max_participations=512, "
                        "min_sep=1))", None),
    ("toeplitz-many-participations", "dpt.nu_ftrl(0.05).sensitivity(10**6, M.Participation(max_participations=10**6, "
                                     "min_sep=1))", None),
]

CHILD = f"""
import json, math, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))
import numpy as np
import dptheory as dpt
from dptheory import accounting, mechanisms as M
from dptheory.blt.optimizer import optimize
from dptheory.treeagg import accounting as ta
ME = dpt.MeanEstimation(0.1)
out = {{}}
for ident, code in json.loads(sys.argv[1]):
    try:
        value = eval(code)
        out[ident] = {{"value": float(value)}}
    except BaseException as exc:
        out[ident] = {{"error": type(exc).__name__, "message": str(exc)[:300]}}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def outcomes():
    cases = json.dumps([(ident, code) for ident, code, _ in CASES])
    proc = subprocess.run([sys.executable, "-c", CHILD, cases], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize("ident, code, begins", CASES, ids=[c[0] for c in CASES])
def test_refused_before_allocating_or_served(outcomes, ident, code, begins):
    got = outcomes[ident]
    if begins is None:
        assert "value" in got and got["value"] == got["value"] and abs(got["value"]) < float("inf"), got
        return
    assert got.get("error") == "ValueError", got
    assert got["message"].startswith(begins), got["message"]
    assert "the largest" in got["message"] or "smallest" in got["message"] or "PLD_MAX_T" in got["message"] \
        or "patterns" in got["message"], got["message"]
