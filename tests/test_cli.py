"""The ``dptheory`` command line (issue 15), tested through the installed console script.

Every command runs the real entry point (``dptheory`` on ``PATH``, installed by ``make install``) in a
subprocess, with this checkout first on ``PYTHONPATH`` and the repository root as working directory; its numbers
are checked against the library called here in-process. ``python -m dptheory`` and ``python -m dptheory.proactive``
are checked too. Kept to small sizes: the whole file takes a few seconds of subprocess start-up per command.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import dptheory as dpt

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = shutil.which("dptheory")
needs_script = pytest.mark.skipif(SCRIPT is None, reason="the dptheory console script is not on PATH: run `make install`")


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))


def run(*args: str, cwd: Path = ROOT, prefix=None) -> subprocess.CompletedProcess:
    """The command line with ``args`` (the console script unless ``prefix`` names another entry point)."""
    cmd = [*(prefix or [SCRIPT]), *args]
    return subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=120)


def as_json(proc: subprocess.CompletedProcess) -> dict:
    """The one JSON object a ``--json`` run printed (and nothing else on stdout)."""
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("\n") == 1, f"--json must print one line of JSON, got:\n{proc.stdout}"
    return json.loads(proc.stdout)


def close(a, b, rel=1e-12) -> bool:
    return a == pytest.approx(b, rel=rel, abs=0.0)


PYTHON_M = [sys.executable, "-m", "dptheory"]
PROACTIVE_M = [sys.executable, "-m", "dptheory.proactive"]
#: every command the tests run, by name: each starts an interpreter that imports numpy, scipy and part of dptheory
#: (about a second), so they are started together (:func:`ran`) and each test waits for its own
COMMANDS = {
    "f_inf_mean": ["f-inf", "--mechanism", "nu_ftrl:0.05", "--problem", "mean:eta=0.1,sigma_sgd=0.3", "--rho", "1", "--json"],
    "f_inf_linreg": ["f-inf", "--mechanism", "nu_ftrl:0.02", "--problem", "linreg:eta=0.02,d=16,decay=1,sigma_sgd=0.5",
                     "--rho", "0.5", "--G", "2", "--horizon", "200", "--participation", "2:100", "--json"],
    "f_inf_tree": ["f-inf", "--mechanism", "tree:full", "--problem", "linreg:eta=0.05,eigs=1:0.5:0.25", "--rho", "1",
                   "--horizon", "64", "--json"],
    "f_inf_text": ["f-inf", "--mechanism", "anti_pgd", "--problem", "mean:eta=0.1", "--rho", "1"],
    "sensitivity": ["sensitivity", "--mechanism", "nu_ftrl:0.05", "--horizon", "1000", "--participation", "4:250",
                    "--rho", "2", "--json"],
    "sensitivity_bounds": ["sensitivity", "--mechanism", "toeplitz:1,0.5,-0.9", "--n", "20", "--participation", "3:2", "--json"],
    "epsilon_zcdp": ["epsilon", "--rho", "0.5", "--delta", "1e-6", "--json"],
    "epsilon_back": ["epsilon", "--epsilon", "1", "--delta", "1e-5", "--conversion", "improved", "--json"],
    "epsilon_dpsgd": ["epsilon", "--sigma", "1.1", "--q", "0.01", "--T", "100", "--delta", "1e-5", "--accountant", "rdp",
                      "clt", "--json"],
    "blt": ["blt", "optimize", "--horizon", "300", "--participation", "3:100", "--buffers", "2", "--json"],
    "tree_epsilon": ["tree", "epsilon", "--sigma", "5", "--n", "100", "--epochs", "10", "--scheme", "no_restart",
                     "--delta", "1e-6", "--conversion", "classic", "--json"],
    "tree_sigma": ["tree", "sigma", "--epsilon", "1", "--n", "1024", "--delta", "1e-5", "--json"],
    "f_inf_long": ["f-inf", "--mechanism", "nu_ftrl:0.05", "--problem", "mean:eta=0.1", "--rho", "1", "--horizon", "1e9",
                   "--json"],
    "tree_restarts": ["tree", "epsilon", "--sigma", "1", "--n", "100", "--delta", "1e-5", "--epochs", "1e9", "--scheme",
                      "restart", "--json"],
    "sensitivity_all_steps": ["sensitivity", "--mechanism", "tree", "--horizon", "64", "--participation", "64:1", "--json"],
    "compare": ["compare", "--families", "dpsgd", "sqrt", "--mechanism", "nu_ftrl:0.05", "--horizon", "256",
                "--participation", "2:128", "--rho", "0.5", "--json"],
    "proactive": ["proactive", "calculator", "--sigma", "19.29962", "--N", "10000", "--k", "5", "--variant", "paper", "--json"],
    "verify": ["verify", "--dry-run", "--quick", "--only", "figure1", "--jobs", "1", "--json"],
    "verify_help": ["verify", "--dry-run", "--", "--help"],
    "python_m": (PYTHON_M, ["f-inf", "--mechanism", "dpsgd", "--problem", "mean:eta=0.2", "--rho", "2", "--json"]),
    "python_m_bad": (PYTHON_M, ["f-inf", "--rho", "1"]),
    "proactive_m": (PROACTIVE_M, ["sigma", "--eps", "0.05", "--delta", "1e-4"]),
}
#: bad input: (arguments, what the one line on stderr says)
BAD_INPUT = [
    (["f-inf", "--mechanism", "nu_ftrl:0.05", "--problem", "mean:eta=0.1", "--rho", "-1"],
     "dptheory f-inf: error: --rho must lie in (0, inf), got -1"),
    (["f-inf", "--mechanism", "bogus:1", "--problem", "mean:eta=0.1", "--rho", "1"], "unknown mechanism 'bogus:1'"),
    (["f-inf", "--mechanism", "dpsgd", "--problem", "mean:eta", "--rho", "1"], "malformed problem 'mean:eta'"),
    (["f-inf", "--mechanism", "tree", "--problem", "mean:eta=0.1", "--rho", "1"], "pass horizon=n"),
    (["f-inf", "--mechanism", "dpsgd", "--problem", "mean:eta=0.1", "--rho", "x"], "invalid float value: 'x'"),
    (["epsilon", "--rho", "1", "--delta", "1.5"], "dptheory epsilon: error: --delta must lie in (0, 1), got 1.5"),
    (["sensitivity", "--mechanism", "dpsgd", "--n", "10", "--participation", "4"], "K:B"),
    (["compare", "--families", "nope"], "invalid choice: 'nope'"),
    (["proactive", "eps", "--sigma", "1.2", "--delta", "1e-4"], "dptheory proactive eps: error: sigma must satisfy"),
    (["f-inf", "--mechanism", "dpsgd", "--problem", "mean:eta=0.1", "--rho", "1", "--extra"], "unrecognized arguments"),
    ([], "dptheory: error: the following arguments are required: SUBCOMMAND"),
    # issue 36: sizes refused before they are allocated, naming the option as spelled; rho > 0 as the conventions say
    (["f-inf", "--mechanism", "optimal_cc", "--problem", "mean:eta=0.1", "--rho", "1", "--horizon", "1000000000"],
     "dptheory f-inf: error: --horizon = 1000000000 needs about"),
    (["f-inf", "--mechanism", "nu_ftrl:0.05", "--problem", "linreg:eta=0.1,d=100", "--rho", "1", "--horizon", "1e9"],
     "the largest --horizon that fits is"),
    (["f-inf", "--mechanism", "tree", "--problem", "mean:eta=0.1", "--rho", "1", "--horizon", "1e9"],
     "--horizon = 1000000000 needs about"),
    (["f-inf", "--mechanism", "nu_ftrl:0.05", "--problem", "mean:eta=0.1", "--rho", "1", "--horizon", "0"],
     "dptheory f-inf: error: --horizon must lie in [1, inf), got 0"),
    (["f-inf", "--mechanism", "nu_ftrl:0.05", "--problem", "linreg:eta=0.1,d=1000000000", "--rho", "1"],
     "d of --problem = 1000000000 needs about"),
    (["f-inf", "--mechanism", "nu_ftrl:2", "--problem", "mean:eta=0.1", "--rho", "1"],
     "--mechanism 'nu_ftrl:2': nu must lie in (0, 1), got 2"),
    (["blt", "optimize", "--buffers", "1000"], "dptheory blt optimize: error: --buffers = 1000 needs about"),
    (["blt", "optimize", "--horizon", "1e9"], "--horizon = 1000000000 needs about"),
    (["tree", "epsilon", "--sigma", "1", "--n", "100", "--delta", "1e-5", "--epochs", "1e9", "--scheme", "no_restart"],
     "dptheory tree epsilon: error: --epochs = 1000000000 needs about"),
    (["epsilon", "--rho", "0", "--delta", "1e-5"], "dptheory epsilon: error: --rho must lie in (0, inf)"),
    (["epsilon", "--sigma", "1", "--q", "0.01", "--T", "1e9", "--delta", "1e-5"],
     "dptheory epsilon: error: --T = 1000000000 rounds is above PLD_MAX_T"),
    (["epsilon", "--sigma", "1e8", "--q", "0.01", "--T", "100", "--delta", "1e-5", "--accountant", "clt"],
     "dptheory epsilon: error: --sigma = 1e+08 is beyond what the CLT formula resolves"),
    (["sensitivity", "--mechanism", "nu_ftrl:0.05", "--horizon", "100", "--participation", "0:1"],
     "--participation '0:1': max_participations must lie in [1, inf), got 0"),
]
HELP = [
    (["--help"], ["f-inf", "sensitivity", "epsilon", "blt", "tree", "compare", "verify", "proactive", "rho-zCDP",
                  "delta", "add/remove", "zero-out", "replace-one", "L2 sensitivity", "K:B", '"inf"', "exit status 2"]),
    (["f-inf"], ["rho-zCDP", "sigma_dp = sens/sqrt(2 rho)", "zero-out", "nu_ftrl:NU", "mean:eta=ETA", "in its units"]),
    (["sensitivity"], ["L2 sensitivity of the strategy C", "largest column L2 norm", "gamma_inf", "replace-one"]),
    (["epsilon"], ["additive failure probability", "nats", "Bun & Steinke", "Poisson(q), add/remove",
                   "replace one (sensitivity 2C)", "Gaussian mechanisms only", "rho > 0.", "zCDP level rho > 0"]),
    (["blt", "optimize"], ["unsquared", "Thm 3.1", "sum(omega) < 1", "K:B"]),
    (["tree", "epsilon"], ["S^2/(2 sigma^2)", "per-leaf", "add/remove (zero-out)", "no_restart"]),
    (["compare"], ["MaxLoss", "F_n", "rho-zCDP", "zero-out"]),
    (["verify"], ["python -m verify", "root of a checkout", "--quick", "--only"]),
    (["proactive", "calculator"], ["Poisson sampling", "add/remove-one-record", "1/N", "--accountant", "nats"]),
]


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """Name -> a future of the finished command, for :data:`COMMANDS`, :data:`BAD_INPUT` (``("bad", i)``),
    :data:`HELP` (``("help", i)``) and verify outside a checkout (``"verify_elsewhere"``)."""
    jobs = {}
    for name, spec in COMMANDS.items():
        prefix, args = spec if isinstance(spec, tuple) else (None, spec)
        jobs[name] = dict(args=args, prefix=prefix)
    jobs |= {("bad", i): dict(args=args) for i, (args, _) in enumerate(BAD_INPUT)}
    jobs |= {("help", i): dict(args=[*args, "--help"] if args != ["--help"] else args) for i, (args, _) in enumerate(HELP)}
    jobs["verify_elsewhere"] = dict(args=["verify", "--quick"], cwd=tmp_path_factory.mktemp("elsewhere"))
    pool = ThreadPoolExecutor(max_workers=max(2, min(4, os.cpu_count() or 1)))
    futures = {name: pool.submit(run, *job.pop("args"), **job) for name, job in jobs.items()}
    yield {name: f.result for name, f in futures.items()}
    pool.shutdown(wait=True, cancel_futures=True)


pytestmark = needs_script


# -- help: fast, and stating the conventions ---------------------------------------------------------------------

def test_top_level_help_is_fast():
    start = time.perf_counter()
    proc = run("--help")
    seconds = time.perf_counter() - start
    assert proc.returncode == 0 and not proc.stderr and proc.stdout.startswith("usage: dptheory")
    assert seconds < 5.0, f"dptheory --help took {seconds:.2f} s: building the parser must not import the library"


def test_importing_the_cli_loads_no_subpackage():
    code = "import sys, dptheory.cli; print(sorted(m for m in sys.modules if m.startswith(('dptheory.', 'numpy', 'scipy'))))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert eval(proc.stdout) == ["dptheory._cli_support", "dptheory._lazy", "dptheory.cli"]


@pytest.mark.parametrize("i", range(len(HELP)), ids=[" ".join(args) for args, _ in HELP])
def test_help_states_units_and_conventions(ran, i):
    command, words = HELP[i]
    proc = ran[("help", i)]()
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    for word in words:
        assert word in text, (command, word)


def test_choices_offered_are_the_librarys():
    from dptheory import accounting, cli, comparison
    from dptheory.blt import optimizer
    from dptheory.mechanisms import tree
    from dptheory.treeagg import accounting as ta

    assert cli._ACCOUNTANTS == accounting.ACCOUNTANTS and cli._CONVERSIONS == accounting.CONVERSIONS
    assert cli._FAMILIES == comparison.FAMILIES and cli._BLT_LOSSES == optimizer.LOSSES
    assert (cli._TREE_SCHEMES, cli._TREE_READOUTS, cli._TREE_VARIANTS) == (ta.SCHEMES, ta.READOUTS, ta.NTR_VARIANTS)
    assert cli._MECHANISM_READOUTS == tree.READOUTS


# -- numbers: the command line gives what the library gives -------------------------------------------------------

def test_f_inf_json_is_the_librarys_value(ran):
    out = as_json(ran["f_inf_mean"]())
    nu = dpt.nu_ftrl(0.05)
    assert out["quantity"] == "F_inf" and out["horizon"] is None
    assert close(out["value"], dpt.F_inf(nu, dpt.MeanEstimation(eta=0.1, sigma_sgd=0.3), rho=1.0))
    assert close(out["sensitivity"], nu.limiting_sensitivity())
    assert close(out["sigma_dp"], dpt.calibrate_noise(nu, rho=1.0))


def test_f_inf_at_a_horizon_under_participation(ran):
    out = as_json(ran["f_inf_linreg"]())
    problem = dpt.LinearRegression(eta=0.02, eigs=1 / np.arange(1, 17), sigma_sgd=0.5)
    p, mech = dpt.Participation(max_participations=2, min_sep=100), dpt.nu_ftrl(0.02)
    assert out["quantity"] == "F_n" and out["participation"] == {"max_participations": 2, "min_sep": 100}
    assert close(out["value"], dpt.F_inf(mech, problem, rho=0.5, G=2.0, horizon=200, participation=p))
    assert close(out["sensitivity"], mech.sensitivity(200, p))
    tree = as_json(ran["f_inf_tree"]())  # a non-Toeplitz mechanism, eigenvalues given
    problem = dpt.LinearRegression(eta=0.05, eigs=[1.0, 0.5, 0.25])
    assert close(tree["value"], dpt.F_inf(dpt.TreeAggregation("full"), problem, rho=1.0, horizon=64))


def test_f_inf_text_is_aligned_lines_with_units(ran):
    proc = ran["f_inf_text"]()
    assert proc.returncode == 0 and not proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("F_inf = inf   stationary") and lines[0].endswith("in the problem's loss units")
    assert [line.split()[0] for line in lines[1:]] == ["mechanism", "problem", "kind", "privacy", "participation",
                                                      "sensitivity", "sigma_dp"]
    assert len({line.index(line.split()[1]) for line in lines[1:]}) == 1  # the values form one column


def test_sensitivity_json_and_noise_multiplier(ran):
    out = as_json(ran["sensitivity"]())
    nu, p = dpt.nu_ftrl(0.05), dpt.Participation(max_participations=4, min_sep=250)
    assert out["exact"] and close(out["sensitivity"], nu.sensitivity(1000, p))
    assert out["participations_that_fit"] == 4 and "Thm 3.1" in out["route"]
    assert close(out["sigma_dp"], dpt.calibrate_noise(nu, rho=2.0, horizon=1000, participation=p))


def test_sensitivity_reports_bounds_where_no_exact_route_applies(ran):
    out = as_json(ran["sensitivity_bounds"]())
    report = dpt.toeplitz([1, 0.5, -0.9]).sensitivity_report(20, dpt.Participation(max_participations=3, min_sep=2))
    assert out["sensitivity"] is None and not out["exact"]
    assert close(out["lower"], report.lower) and close(out["upper"], report.upper)


def test_epsilon_from_zcdp_and_back(ran):
    from dptheory.accounting import epsilon_from_rho

    out = as_json(ran["epsilon_zcdp"]())
    assert out["mode"] == "zcdp_to_epsilon"
    for conversion in ("classic", "improved", "exact"):
        assert close(out["epsilon"][conversion], epsilon_from_rho(0.5, delta=1e-6, conversion=conversion))
    back = as_json(ran["epsilon_back"]())
    assert list(back["rho"]) == ["improved"] and close(back["rho"]["improved"], dpt.epsilon_to_zcdp(1.0, delta=1e-5))


def test_epsilon_of_dpsgd_states_each_accountants_model(ran):
    from dptheory.accounting import exact_epsilon

    out = as_json(ran["epsilon_dpsgd"]())
    assert out["T"] == 100 and [r["accountant"] for r in out["results"]] == ["rdp", "clt"]
    for r in out["results"]:
        lib = exact_epsilon(1.1, q=0.01, T=100, delta=1e-5, accountant=r["accountant"])
        assert close(r["eps"], lib.eps) and r["certified"] == lib.certified
        assert r["sampling"] == str(lib.sampling) and r["neighbouring"] == str(lib.neighbouring)


def test_blt_optimize_json_and_its_spec(ran):
    from dptheory.blt import optimize

    p = dpt.Participation(max_participations=3, min_sep=100)
    out = as_json(ran["blt"]())
    lib = optimize(300, p, buffers=2)
    assert close(out["max_loss"], lib.max_loss, rel=1e-9) and close(out["sensitivity"], lib.sensitivity, rel=1e-9)
    assert np.allclose(out["theta"], lib.theta, rtol=1e-9, atol=0) and out["theorem_3_1_applies"] is True
    theta, omega = out["mechanism_spec"].removeprefix("blt:").split("/")  # the spec f-inf and sensitivity take
    blt = dpt.BLT([float(t) for t in theta.split(",")], [float(w) for w in omega.split(",")])
    assert close(blt.sensitivity(300, p), out["sensitivity"], rel=1e-9)


def test_tree_epsilon_and_sigma(ran):
    from dptheory.treeagg import accounting as ta

    out = as_json(ran["tree_epsilon"]())
    kw = dict(n=100, epochs=10, scheme="no_restart", delta=1e-6, conversion="classic")
    assert out["sensitivity_sq"] == ta.tree_sensitivity_sq(100, epochs=10, scheme="no_restart")
    assert close(out["epsilon"], ta.tree_epsilon(5.0, **kw))
    sig = as_json(ran["tree_sigma"]())
    assert close(sig["sigma"], ta.tree_sigma(1.0, n=1024, delta=1e-5)) and sig["epsilon"] <= 1.0 + 1e-12


def test_tree_order_any_is_the_librarys():
    """--order {fixed,any} of the no_restart scheme is order= of treeagg.accounting (211 against the fixed order's
    205 at n = 30, E = 10, every node released); the choices are the library's ORDERS."""
    from dptheory import cli
    from dptheory.treeagg import accounting as ta

    assert cli._TREE_ORDERS == ta.ORDERS
    base = ["tree", "epsilon", "--sigma", "5", "--n", "30", "--epochs", "10", "--scheme", "no_restart", "--readout",
            "all", "--delta", "1e-6", "--json"]
    kw = dict(n=30, epochs=10, scheme="no_restart", readout="all", delta=1e-6)
    for order, s2 in (("any", 211), ("fixed", 205), (None, 205)):
        out = as_json(run(*base, *(["--order", order] if order else [])))
        assert out["order"] == (order or "fixed") and out["sensitivity_sq"] == s2
        assert close(out["epsilon"], ta.tree_epsilon(5.0, order=order or "fixed", **kw))
        assert close(out["rho"], ta.tree_rho(5.0, n=30, epochs=10, scheme="no_restart", readout="all",
                                             order=order or "fixed"))
    sig = as_json(run("tree", "sigma", "--epsilon", "4", "--n", "30", "--epochs", "10", "--scheme", "no_restart",
                      "--readout", "all", "--delta", "1e-6", "--order", "any", "--json"))
    assert close(sig["sigma"], ta.tree_sigma(4.0, order="any", **kw)) and sig["sensitivity_sq"] == 211
    text = run(*base[:-1], "--order", "any").stdout
    assert "S^2     211" in text and "data order any" in text


@pytest.mark.parametrize("args, message", [
    (["--scheme", "restart", "--order", "any"],
     "dptheory tree epsilon: error: --order any applies to --scheme no_restart with --variant exact only, got "
     "--scheme restart"),
    (["--order", "any"], "--order any applies to --scheme no_restart with --variant exact only, got --scheme single"),
    (["--scheme", "no_restart", "--variant", "upper", "--order", "any"], "got --scheme no_restart --variant upper"),
    (["--scheme", "no_restart", "--order", "random"], "argument --order: invalid choice: 'random'"),
])
def test_tree_order_bad_input_exits_2_with_one_line(args, message):
    proc = run("tree", "epsilon", "--sigma", "5", "--n", "30", "--epochs", "1", "--delta", "1e-6", *args)
    assert proc.returncode == 2 and not proc.stdout and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


def test_sizes_with_a_closed_form_are_served(ran):
    """Issue 36: F_n of nu-DP-FTRL at n = 10⁹ is its certified limit (it grew to 17.8 GB); 10⁹ tree restarts are E
    times one tree's depth (no list of E entries); 64 participations in 64 steps leave one pattern, every step,
    served at once (it allocated 572 MiB and failed after 40 s)."""
    out = as_json(ran["f_inf_long"]())
    assert out["horizon"] == 10**9 and close(out["value"], dpt.F_inf(dpt.nu_ftrl(0.05), dpt.MeanEstimation(0.1), rho=1.0,
                                                                   horizon=10**9))
    out = as_json(ran["tree_restarts"]())
    assert out["epochs"] == 10**9 and out["sensitivity_sq"] == 7 * 10**9
    out = as_json(ran["sensitivity_all_steps"]())
    tree = dpt.TreeAggregation()
    assert close(out["sensitivity"], float(np.linalg.norm(tree.strategy_matrix(64).sum(axis=1))))


def test_compare_json_is_the_librarys_table(ran):
    out = as_json(ran["compare"]())
    table = dpt.compare(["dpsgd", "sqrt", dpt.nu_ftrl(0.05)], dpt.MeanEstimation(eta=0.1), horizon=256,
                        participation=dpt.Participation(max_participations=2, min_sep=128), rho=0.5, timing=False)
    assert [r["label"] for r in out["rows"]] == table.labels
    for row, lib in zip(out["rows"], table.rows):
        for column in ("sensitivity", "max_loss", "F_n"):
            assert close(row["cells"][column]["value"], lib.cells[column].value), (row["label"], column)
    assert out["rows"][1]["cells"]["F_inf"]["value"] == "inf"  # gamma_inf diverges: documented as the string "inf"


def test_proactive_calculator_is_folded_in(ran):
    from dptheory import proactive

    out = as_json(ran["proactive"]())
    r = proactive.calculator(19.29962, 10000, 5, variant="paper")
    assert close(out["T_min"], r.T_min) and close(out["eps"], r.eps) and out["thm_3_1_holds"] is True
    assert out["accountants"][0]["accountant"] == "clt"


# -- python -m ---------------------------------------------------------------------------------------------------

def test_python_m_dptheory_is_the_same_command(ran):
    out = as_json(ran["python_m"]())
    assert close(out["value"], dpt.F_inf(dpt.dpsgd(), dpt.MeanEstimation(eta=0.2), rho=2.0))
    proc = ran["python_m_bad"]()
    assert proc.returncode == 2 and proc.stderr.startswith("dptheory f-inf: error:")


def test_python_m_dptheory_proactive_still_works(ran):
    proc = ran["proactive_m"]()
    assert proc.returncode == 0 and "19.246132" in proc.stdout  # its bad input: tests/test_proactive.py


# -- verify: the pass-through ------------------------------------------------------------------------------------

def test_verify_passes_its_arguments_through(ran):
    out = as_json(ran["verify"]())
    assert out["argv"][1:] == ["-m", "verify", "--quick", "--only", "figure1", "--jobs", "1"]
    assert Path(out["cwd"]) == ROOT and out["dry_run"] is True
    proc = ran["verify_help"]()
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("-m verify --help")


def test_verify_outside_a_checkout_fails_with_one_line(ran):
    proc = ran["verify_elsewhere"]()
    assert proc.returncode == 2 and not proc.stdout
    assert len(proc.stderr.splitlines()) == 1 and "root of a dptheory checkout" in proc.stderr


# -- bad input: exit status 2, one line on stderr, no traceback -----------------------------------------------------

@pytest.mark.parametrize("i", range(len(BAD_INPUT)), ids=[" ".join(args) or "(none)" for args, _ in BAD_INPUT])
def test_bad_input_exits_2_with_one_line(ran, i):
    message = BAD_INPUT[i][1]
    proc = ran[("bad", i)]()
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert not proc.stdout and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert lines[0].startswith("dptheory")
