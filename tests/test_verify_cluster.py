"""Sweeps beyond one machine (issue 15): ``verify``'s simulations on a Dask cluster, and a cache that stays right.

* A small sweep run on a ``distributed.LocalCluster`` with worker processes gives the same results, bit for bit,
  as the default local run (same seeds), and writes the same cache entries, byte for byte.
* The cache key holds the version of the code (:func:`verify._runner.code_version`): a hash of ``dptheory``'s
  syntax trees without docstrings, so a change of code gives new keys and a change of documentation does not.
* A result computed by a worker that runs other code is refused, not cached.
* Many processes writing the same entry at once leave one whole entry; a reader never sees a partial one.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing as mp
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dptheory as dpt
from dptheory.claims import atomic_write
from verify import _runner
from verify._runner import SIMULATION_MEMORY, CommonTask, Task, _without_docstrings, code_version, run_all

distributed = pytest.importorskip("distributed", reason="the cluster extra (dask[distributed]) is not installed")

ROOT = Path(__file__).resolve().parent.parent


def _sweep() -> list[Task]:
    """Four points of a Figure-1-style sweep at CI size: two mechanisms × two learning rates, seeds from the point."""
    return [Task(mech, dpt.MeanEstimation(eta), dict(rho=1.0, seeds=16, steps=2000, seed=_runner.point_seed(7, name, eta)))
            for eta in (0.1, 0.5) for name, mech in (("dpsgd", dpt.dpsgd()), ("nu", dpt.nu_ftrl(0.1)))]


def _cache_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))}


def test_local_cluster_sweep_equals_the_local_run_bit_for_bit(tmp_path, monkeypatch):
    tasks = _sweep()
    monkeypatch.setenv("DPTHEORY_CACHE", str(tmp_path / "local"))
    local = run_all(tasks, desc="local")
    monkeypatch.setenv("DPTHEORY_CACHE", str(tmp_path / "cluster"))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = run_all(tasks, executor=client.get_executor(), desc="cluster")
        workers = {w["id"] for w in client.scheduler_info()["workers"].values()}
    assert len(workers) == 2
    for a, b in zip(local, remote):
        assert a.mean == b.mean and a.stderr == b.stderr
        np.testing.assert_array_equal(a.chain_means, b.chain_means)
    assert _cache_files(tmp_path / "local") == _cache_files(tmp_path / "cluster")
    assert len(_cache_files(tmp_path / "local")) == len(tasks)


def test_a_common_task_is_one_cached_run_that_reloads_as_its_results(tmp_path, monkeypatch):
    """Several mechanisms on common random numbers: one cache entry, reloaded as one result per mechanism, each
    the simulate_common result (a BLT's mechanism as itself, a truncated ν-FTRL as its finite taps)."""
    monkeypatch.setenv("DPTHEORY_CACHE", str(tmp_path))
    mechanisms, problem = (dpt.dpsgd(), dpt.nu_ftrl_blt(0.1), dpt.nu_ftrl(0.1)), dpt.MeanEstimation(0.1)
    kwargs = dict(rho=1.0, seeds=4, steps=200, seed=3, taps=None)
    task = CommonTask(mechanisms, problem, kwargs)
    (first,), (again,) = run_all([task]), run_all([task])
    direct = dpt.simulate_common(list(mechanisms), problem, memory=SIMULATION_MEMORY, **kwargs)  # verify's budget
    assert len(list(tmp_path.glob("*.json"))) == 1 and len(first) == len(again) == 3
    for a, b, c in zip(first, again, direct):
        np.testing.assert_array_equal(a.chain_means, c.chain_means)
        np.testing.assert_array_equal(b.chain_means, c.chain_means)
        assert b.mechanism.cache_key() == c.mechanism.cache_key() and b.settings == c.settings
    assert CommonTask(mechanisms[:2], problem, kwargs).key() != task.key()


def test_the_cache_key_holds_the_code_version(monkeypatch):
    task = _sweep()[0]
    key = task.key()
    monkeypatch.setattr(_runner, "code_version", lambda: "another version")
    assert task.key() != key


def test_code_version_ignores_documentation_but_not_code():
    import ast

    base = 'def f(x):\n    """Doc."""\n    return 2 * x\n'
    same = '"""Module doc."""\n\n\ndef f(x):  # a comment\n    """Other doc, longer."""\n\n    return 2 * x\n'
    other = 'def f(x):\n    """Doc."""\n    return 3 * x\n'
    only_doc = 'def f(x):\n    """Doc."""\n'
    dump = lambda src: ast.dump(_without_docstrings(ast.parse(src)))  # noqa: E731
    assert dump(base) == dump(same)
    assert dump(base) != dump(other)
    assert dump(only_doc) == dump("def f(x):\n    pass\n")  # a body that was only a docstring becomes `pass`
    assert len(code_version()) == 16


class _OtherCodeExecutor(cf.Executor):
    """Runs a task here but reports it as computed by another version of dptheory (a stale worker)."""

    def submit(self, fn, *args, **kwargs):
        fut = cf.Future()
        fut.set_result(dict(fn(*args, **kwargs), code="0123456789abcdef"))
        return fut


def test_a_result_from_other_code_is_refused_and_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("DPTHEORY_CACHE", str(tmp_path))
    with pytest.raises(RuntimeError, match="same checkout"):
        run_all(_sweep()[:1], executor=_OtherCodeExecutor())
    assert not list(tmp_path.glob("*.json"))


def _writer(path: str, index: int, rounds: int) -> None:
    payload = json.dumps({"writer": index, "data": [index] * 20000})
    for _ in range(rounds):
        atomic_write(Path(path), payload)


def test_concurrent_writers_leave_one_whole_entry(tmp_path):
    path = tmp_path / "entry.json"
    atomic_write(path, json.dumps({"writer": -1, "data": []}))
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(path), i, 30)) for i in range(4)]
    for p in procs:
        p.start()
    reads = 0
    while any(p.is_alive() for p in procs):
        entry = json.loads(path.read_text())  # a partial file would not parse
        assert entry["data"] == [entry["writer"]] * len(entry["data"])
        reads += 1
    for p in procs:
        p.join()
        assert p.exitcode == 0
    final = json.loads(path.read_text())
    assert final["writer"] in range(4) and final["data"] == [final["writer"]] * 20000
    assert reads > 0
    assert not [p for p in tmp_path.iterdir() if p.name != "entry.json"]  # no temporary file left behind


def test_verify_refuses_an_unreachable_scheduler_in_one_line():
    proc = subprocess.run(
        [sys.executable, "-c", "import sys, verify.__main__ as m; m.CONNECT_TIMEOUT = '1s'; "
                               "sys.exit(m.main(['--quick', '--only', 'figure1', '--scheduler', 'tcp://127.0.0.1:9']))"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "--scheduler: cannot reach a Dask scheduler at 'tcp://127.0.0.1:9'" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("argv, message", [
    (["--workers", "0"], "--workers must be an integer >= 1, got 0"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "not allowed with argument"),
])
def test_verify_cluster_options_are_checked(argv, message, capsys):
    from verify.__main__ import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_verify_runs_a_script_on_a_local_cluster_and_says_where_its_results_are(tmp_path, monkeypatch, capsys):
    from dptheory.claims import load_claims
    from verify.__main__ import main

    monkeypatch.setenv("DPTHEORY_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "figures"
    out.mkdir()
    (out / "claims.json").write_text((ROOT / "figures" / "claims.json").read_text())
    assert main(["--quick", "--only", "figure1", "--workers", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "simulations on the Dask scheduler tcp://127.0.0.1:" in printed
    assert f"report:  {out / 'REPORT.md'}" in printed and "seconds per script: figure1 " in printed
    entries = [json.loads(p.read_text()) for p in (tmp_path / "cache").glob("*.json")]
    assert len(entries) == 8 and {e["code"] for e in entries} == {code_version()}
    assert any(c.script == "figure1" for c in load_claims(out / "claims.json"))
