"""``python -m verify [--quick] [--out DIR] [--only SCRIPT ...] [--jobs N] [--scheduler ADDRESS | --workers N]``:
regenerate every figure and ``claims.json``/``REPORT.md``.

A full run writes into ``figures/`` (:data:`OUT`, the committed results); a quick run (``--quick``, ``make
verify-quick``) into ``figures/quick/`` (:data:`QUICK_OUT`, git-ignored), so that it never replaces the committed
full-size files; ``--out`` names another folder. Every script writes its figures and tables into that one folder.

An interrupt stops the whole run cleanly, whether Ctrl-C (SIGINT, which the terminal sends to every process of the
run) or ``SIGTERM`` to this process alone (which it passes on to its worker processes, and each to its own, as
``KeyboardInterrupt``): scripts not started are dropped, the running ones stop, every worker has exited before this
process does, no temporary file is left, and ``REPORT.md`` and ``claims.json`` are both the old pair or both the
new one (:func:`dptheory.claims.write_report`). Temporaries that a run killed outright left in the output folder
are removed at start-up (:func:`dptheory.claims.remove_temporaries`).

Each script module exposes ``run(out_dir, quick, executor) -> list[Claim]``. Exit status 1 if any claim
fails. By default the scripts run side by side in ``--jobs`` local processes (one script per process, the
longest submitted first; each farms its simulations out to a local pool of its own). A line is printed as each
script finishes, and the claims are reported in the order of :data:`SCRIPTS`.

On a Dask cluster (``pip install -e ".[cluster]"``): ``--scheduler tcp://HOST:8786`` sends every script's
simulations and sweeps to that scheduler's workers (each script process connects its own
``distributed.Client`` and hands its ``get_executor()`` to the script); ``--workers N`` starts a
``LocalCluster`` of N worker processes here and does the same. The scripts themselves, their figures and the
simulation cache stay on this machine; the workers need the same checkout of the code (a result computed by
another version of ``dptheory`` is refused, see :mod:`verify._runner`). ``docs/cluster.md`` says how to run the
full verification on a cluster. ``main(argv, executor=...)`` takes any ``concurrent.futures.Executor``
instead: the scripts then run one after the other here and send their work to it.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import contextlib
import dataclasses
import importlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from dptheory.claims import headline, load_claims, remove_temporaries, write_report  # noqa: E402

from . import (  # noqa: E402
    analytic_core, blt_figures, blt_learning, blt_paper, comparison, comparison_trained, figure1, figure2, figure3, isrl_calibration, isrl_rates, isrl_simulation,
    proactive_tables, proactive_tightness, proactive_utility, tree_accounting, tree_experiment, tree_ftrl, tree_mechanism,
)

SCRIPTS = (figure1, figure2, figure3, analytic_core, proactive_tables, proactive_tightness, proactive_utility,
           isrl_rates, isrl_calibration, isrl_simulation, blt_paper, blt_figures, blt_learning,
           tree_accounting, tree_mechanism, tree_ftrl, tree_experiment, comparison, comparison_trained)


#: Submission order of the parallel run: the longest scripts first, so that no long script starts last (seconds
#: of a quick run, cold cache, 2 cores, 2026-11-25: isrl_simulation 23, comparison 21, figure2 21,
#: proactive_tightness 11, figure3 10, tree_experiment 7, blt_figures 6, isrl_calibration 3; the closing summary of
#: every run prints them).
LONGEST_FIRST = ("comparison_trained", "isrl_simulation", "comparison", "figure2", "proactive_tightness", "figure3", "tree_experiment",
                 "blt_figures", "isrl_calibration")


#: where a full run writes its figures, tables, ``claims.json`` and ``REPORT.md`` (the committed results), relative
#: to the working directory (the root of the checkout: ``make verify``)
OUT = Path("figures")

#: where a quick run writes them (git-ignored): a quick run never replaces the committed full-size files of :data:`OUT`
QUICK_OUT = OUT / "quick"


#: how long ``--scheduler`` waits for the scheduler to answer before giving up with a one-line error
CONNECT_TIMEOUT = "10s"


def _name(script) -> str:
    return script.__name__.rsplit(".", 1)[-1]


def _run_script(name: str, out: Path, quick: bool, executor=None, scheduler: str | None = None) -> tuple[list, float]:
    """One script's claims (each recording its script) and its wall time.

    ``scheduler``: the address of a Dask scheduler; the script's work goes to it through a client of its own.
    """
    start = time.perf_counter()
    script = importlib.import_module(f"{__package__ or 'verify'}.{name}")
    if scheduler is not None:
        from distributed import Client

        with Client(scheduler, timeout="30s") as client:
            claims = script.run(out, quick=quick, executor=client.get_executor())
    else:
        claims = script.run(out, quick=quick, executor=executor)
    return [dataclasses.replace(c, script=name) for c in claims], time.perf_counter() - start


def _results(names: list[str], out: Path, quick: bool, jobs: int, executor, scheduler: str | None):
    """``(name, claims, seconds)`` per script, as each finishes (in the order of ``names`` when run one by one)."""
    if executor is not None or jobs == 1 or len(names) == 1:
        for name in names:
            yield (name, *_run_script(name, out, quick, executor, scheduler))
        return
    order = sorted(names, key=lambda n: LONGEST_FIRST.index(n) if n in LONGEST_FIRST else len(LONGEST_FIRST))
    pool = cf.ProcessPoolExecutor(max_workers=min(jobs, len(names)), initializer=_stop_on_signals)
    try:
        futures = {pool.submit(_run_script, name, out, quick, None, scheduler): name for name in order}
        for future in cf.as_completed(futures):
            yield (futures[future], *future.result())
    finally:
        # after an interrupt or a failed script: the scripts not started are dropped, and this waits for the running
        # ones to stop (an interrupt reaches their processes too: see _Stop)
        pool.shutdown(cancel_futures=True)


class _Stop:
    """The SIGINT and SIGTERM handler of the verify process and of each script's process: stop as Ctrl-C does.

    The first signal raises ``KeyboardInterrupt`` (its argument the signal), after which the process stops: every
    ``finally`` runs, temporary files are removed and each pool waits for its workers. SIGTERM, which may be sent to
    this process alone, is passed on to its worker processes first (a script's process has this handler too, and
    passes it on to its simulation processes in turn), so that the whole tree stops together, as on Ctrl-C, which
    the terminal sends to all of them. A SIGTERM after the first signal is ignored: it is a pool stopping its
    workers (``ProcessPoolExecutor`` does when one of them has exited), and it must not cut this process's own stop
    short. A second Ctrl-C interrupts again, as it always does; SIGKILL ends a stop that hangs.
    """

    def __init__(self):
        self.stopping = False

    def __call__(self, signum, frame):
        if signum == signal.SIGTERM:
            if self.stopping:
                return
            for child in multiprocessing.active_children():
                child.terminate()
        self.stopping = True
        raise KeyboardInterrupt(signal.Signals(signum))


def _stop_on_signals() -> dict:
    """Install a new :class:`_Stop` for SIGINT and SIGTERM (each script's process runs this as it starts); the
    handlers it replaces, by signal."""
    stop = _Stop()
    return {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}


@contextlib.contextmanager
def _stopping_on_signals():
    """Within the block, SIGINT and SIGTERM stop the run (:class:`_Stop`); the previous handlers are restored after
    it. Outside the main thread (where no signal handler can be set) the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = _stop_on_signals()
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


@contextlib.contextmanager
def _scheduler(parser, address: str | None, workers: int | None):
    """The address of the Dask scheduler to use (``None``: no cluster), starting a ``LocalCluster`` for ``workers``."""
    if address is None and workers is None:
        yield None
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        parser.error("--scheduler and --workers need Dask's distributed scheduler: pip install -e '.[cluster]'")
    if workers is not None:
        # one thread per worker: the simulations are NumPy-bound and verify sets one BLAS thread per process
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            yield cluster.scheduler_address
        return
    try:  # fail here, with one line, rather than inside the first script
        with Client(address, timeout=CONNECT_TIMEOUT) as client:
            n = len(client.scheduler_info()["workers"])
    except (OSError, TimeoutError, ValueError) as exc:
        parser.error(f"--scheduler: cannot reach a Dask scheduler at {address!r} ({exc})")
    if n == 0:
        print(f"verify: the scheduler at {address} has no workers yet; tasks wait until one joins", file=sys.stderr)
    yield address


def _summary(timings: dict[str, float], out: Path, wall: float, where: str) -> str:
    """The closing lines: where the results are and how long each script took."""
    slowest = sorted(timings.items(), key=lambda kv: -kv[1])
    lines = [f"verify: {len(timings)} scripts in {wall:.0f} s ({where})",
             "  seconds per script: " + ", ".join(f"{n} {t:.1f}" for n, t in slowest),
             f"  report:  {out / 'REPORT.md'}",
             f"  claims:  {out / 'claims.json'}",
             f"  figures: {len(list(out.glob('*.png')))} PNG files in {out}/"]
    return "\n".join(lines)


def main(argv=None, executor=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verify", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes (the CI-sized variant)")
    parser.add_argument("--out", type=Path, help=f"output folder (default: {OUT}/, and {QUICK_OUT}/ with --quick)")
    parser.add_argument("--only", nargs="+", metavar="SCRIPT", choices=[_name(s) for s in SCRIPTS],
                        help="run only these scripts and replace their claims in the existing claims.json; the "
                             "other scripts' claims are kept as that file has them (the report says so)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="scripts run side by side (default: the number of CPUs; 1 runs them one after another)")
    cluster = parser.add_mutually_exclusive_group()
    cluster.add_argument("--scheduler", metavar="ADDRESS",
                         help="a Dask scheduler (e.g. tcp://host:8786) whose workers run the simulations and sweeps; "
                              "the workers must run the same checkout (see docs/cluster.md)")
    cluster.add_argument("--workers", type=int, metavar="N",
                         help="start a Dask LocalCluster of N worker processes on this machine and use it")
    args = parser.parse_args(argv)
    with _stopping_on_signals():
        return _verify(parser, args, executor)


def _verify(parser, args, executor) -> int:
    """The run of :func:`main`: its exit status."""
    if args.jobs < 1:
        parser.error(f"--jobs must be an integer >= 1, got {args.jobs}")
    if args.workers is not None and args.workers < 1:
        parser.error(f"--workers must be an integer >= 1, got {args.workers}")
    if executor is not None and (args.scheduler or args.workers):
        parser.error("--scheduler/--workers cannot be combined with an executor passed to main()")
    names = [_name(s) for s in SCRIPTS if args.only is None or _name(s) in args.only]
    sizes = "quick" if args.quick else "full"
    out = args.out if args.out is not None else QUICK_OUT if args.quick else OUT
    out.mkdir(parents=True, exist_ok=True)
    stale = remove_temporaries(out)
    if stale:
        print(f"verify: removed {len(stale)} temporary files an interrupted run left in {out}/", flush=True)
    by_script, timings, start = {}, {}, time.perf_counter()
    with _scheduler(parser, args.scheduler, args.workers) as scheduler:
        jobs = 1 if executor is not None else min(args.jobs, len(names))
        where = (f"{jobs} jobs; simulations on "
                 + (f"the Dask scheduler {scheduler}" if scheduler else "a given executor" if executor else "local processes"))
        print(f"verify: {len(names)} scripts, {sizes} sizes, into {out}/, {where}", flush=True)
        with contextlib.closing(_results(names, out, args.quick, args.jobs, executor, scheduler)) as results:
            for name, new, seconds in results:
                by_script[name] = new
                timings[name] = seconds
                failed = [c.id for c in new if not (c.passed or c.informational)]
                info = sum(c.informational for c in new)
                print(f"verify.{name}: {len(new) - info} claims, {len(failed)} failed {failed or ''}"
                      f"{f' (+{info} informational)' if info else ''} ({seconds:.1f} s)", flush=True)
    claims = [c for name in names for c in by_script[name]]  # reported in the order of SCRIPTS
    notes = []
    if args.quick:
        notes.append(f"**Quick run** (`python -m verify --quick`, small sizes): this report, its claims.json and its "
                     f"figures are in `{out}/`; the committed full-size results are those of `make verify` in `{OUT}/`.")
    if args.only is not None and not (out / "claims.json").exists():
        notes.append(f"This report covers only {', '.join(args.only)} ({sizes} sizes): "
                     f"{out} had no claims.json to merge into.")
    elif args.only is not None:
        fresh = {c.id for c in claims}
        kept = [c for c in load_claims(out / "claims.json") if c.script not in args.only and c.id not in fresh]
        claims = kept + claims
        notes.append(f"This report merges a run of {', '.join(args.only)} ({sizes} sizes) into "
                     f"the previous claims.json: the other {len(kept)} claims are as that run left them.")
    # tables a script rendered (e.g. seed 002's Figure 3) are appended to REPORT.md
    write_report(claims, out, tuple(p.read_text() for p in sorted(out.glob("*_table.md"))), note="\n\n".join(notes))
    print(headline(claims))
    print(_summary(timings, out, time.perf_counter() - start, where))
    return 0 if all(c.passed or c.informational for c in claims) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM (_Stop): exit as a shell reports a signal, 128 + its number
        signum = exc.args[0] if exc.args and isinstance(exc.args[0], signal.Signals) else signal.SIGINT
        print(f"verify: stopped by {signum.name}", file=sys.stderr)
        sys.exit(128 + signum)
