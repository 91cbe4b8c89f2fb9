"""An interrupted ``python -m verify`` leaves its output folder consistent (issue 36).

* :func:`dptheory.claims.write_report` in a forked process, sent SIGTERM at a set point (``os.fdopen`` or
  ``os.replace`` patched there, in the child only): while the temporaries are written, or between the renames of
  ``REPORT.md`` and ``claims.json``. With verify's handler (:class:`verify.__main__._Stop`) and with SIGTERM's
  default action: the two files are both the old pair or both the new one, and no temporary is left, except by a
  process killed outright, whose temporaries :func:`dptheory.claims.remove_temporaries` then removes.
* ``python -m verify --quick`` in a process group of its own, sent SIGTERM during its start-up and while a
  script's simulations run: no process of the group outlives it, no temporary is left in its output folder or in
  its simulation cache, and the report and claims are still the old pair.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dptheory.claims import Claim, remove_temporaries, write_report
from verify.__main__ import _stop_on_signals

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(sys.platform != "linux" or "fork" not in mp.get_all_start_methods(),
                                reason="forks, and reads process groups from /proc")

OLD = [Claim("old", "seed 9", "Thm 1", "s", predicted=1.0, measured=1.0, rtol=0.01, kind="cross-check")]
NEW = [Claim(i, "seed 9", "Thm 2", "s", predicted=1.0, measured=1.0, rtol=0.01, kind="paper") for i in ("a", "b")]


def _pairs(tmp_path: Path) -> dict[str, dict[str, bytes]]:
    """The bytes of ``REPORT.md`` and ``claims.json`` as ``write_report`` writes them for :data:`OLD` and :data:`NEW`."""
    pairs = {}
    for label, claims in (("old", OLD), ("new", NEW)):
        write_report(claims, tmp_path / label)
        pairs[label] = {n: (tmp_path / label / n).read_bytes() for n in ("REPORT.md", "claims.json")}
    return pairs


def _pair(out: Path, pairs) -> str:
    """``"old"`` or ``"new"`` when both files are that pair; ``"mixed"`` otherwise."""
    files = {n: (out / n).read_bytes() for n in ("REPORT.md", "claims.json")}
    return next((label for label, pair in pairs.items() if pair == files), "mixed")


def _killed_writing_report(out: Path, at: str, handler: str) -> None:
    """Run in a forked child: ``write_report(NEW, out)``, with SIGTERM sent to itself at ``at`` (``"writing"``: as
    the second temporary, claims.json's, is opened; ``"renaming"``: right after REPORT.md is renamed into place)."""
    if handler == "verify":
        _stop_on_signals()
    else:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    real_fdopen, real_replace, opened = os.fdopen, os.replace, []

    def fdopen(fd, *args, **kwargs):
        opened.append(fd)
        if at == "writing" and len(opened) == 2:
            os.kill(os.getpid(), signal.SIGTERM)
        return real_fdopen(fd, *args, **kwargs)

    def replace(src, dst):
        real_replace(src, dst)
        if at == "renaming" and Path(dst).name == "REPORT.md":
            os.kill(os.getpid(), signal.SIGTERM)

    os.fdopen, os.replace = fdopen, replace
    try:
        write_report(NEW, out)
    except KeyboardInterrupt:
        os._exit(3)  # the signal took effect as an interrupt
    os._exit(0)  # it never took effect


@pytest.mark.parametrize("handler", ["verify", "default"])
@pytest.mark.parametrize("at, expected", [("writing", "old"), ("renaming", "new")])
def test_sigterm_during_write_report_leaves_both_files_old_or_both_new(tmp_path, at, expected, handler):
    pairs = _pairs(tmp_path)
    out = tmp_path / "out"
    write_report(OLD, out)
    child = mp.get_context("fork").Process(target=_killed_writing_report, args=(out, at, handler))
    child.start()
    child.join(30)
    assert child.exitcode == (3 if handler == "verify" else -signal.SIGTERM)
    assert _pair(out, pairs) == expected
    left = sorted(p.name for p in out.iterdir() if p.name not in ("REPORT.md", "claims.json"))
    if handler == "default" and at == "writing":  # killed outright with both temporaries open: the sweep's work
        assert [n.split(".")[1] for n in left] == ["REPORT", "claims"]
        assert sorted(p.name for p in remove_temporaries(out)) == left
        left = sorted(p.name for p in out.iterdir() if p.name not in ("REPORT.md", "claims.json"))
    assert left == []


def _group(pgid: int) -> list[str]:
    """``"PID COMMAND"`` of every process of the process group ``pgid`` (zombies included)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # it exited meanwhile
            continue
        comm, _, rest = text.partition(" (")[2].rpartition(") ")
        if int(rest.split()[2]) == pgid:
            members.append(f"{stat.parent.name} {comm}")
    return members


@pytest.mark.parametrize("when", ["starting", "simulating"])
def test_sigterm_stops_the_whole_run_and_leaves_the_output_consistent(tmp_path, when):
    pairs = _pairs(tmp_path)
    out, cache = tmp_path / "out", tmp_path / "cache"
    write_report(OLD, out)
    env = dict(os.environ, DPTHEORY_CACHE=str(cache), PYTHONUNBUFFERED="1")
    log, err = tmp_path / "stdout", tmp_path / "stderr"
    # figure 2 (submitted first, the longer script) is still simulating when figure 1 has finished
    command = [sys.executable, "-m", "verify", "--quick", "--only", "figure1", "figure2", "--jobs", "2", "--out", str(out)]
    with log.open("w") as stdout, err.open("w") as stderr:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=stdout, stderr=stderr, start_new_session=True)
    try:
        if when == "starting":
            time.sleep(0.5)
        else:
            deadline = time.monotonic() + 90
            # the verify process, both script processes and figure 2's simulation processes
            while not ("verify.figure1:" in log.read_text() and len(_group(proc.pid)) >= 4):
                assert proc.poll() is None and time.monotonic() < deadline, (log.read_text(), err.read_text())
                time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        status = proc.wait(60)
        stop = time.monotonic() - sent
        deadline = time.monotonic() + 5  # a process that is not a worker (multiprocessing's resource tracker)
        while _group(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _group(proc.pid) == [], "processes of the run outlived it"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    if when == "simulating":
        assert status == 128 + signal.SIGTERM, err.read_text()
        assert "verify: stopped by SIGTERM" in err.read_text()
        # the simulations stopped, not run to their end: figure 1's 8 and figure 2's 8 would all be cached
        assert len(list(cache.glob("*.json"))) < 16 and stop < 15, stop
    else:  # SIGTERM's default action before verify installs its handler, or verify's own exit status after
        assert status in (-signal.SIGTERM, 128 + signal.SIGTERM), err.read_text()
    assert _pair(out, pairs) == "old"
    assert not list(out.rglob(".*.tmp")) and not list(cache.rglob(".*.tmp"))
