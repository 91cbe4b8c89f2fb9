"""``python -m verify [--quick] [--out figures] [--only SCRIPT ...] [--jobs N]``: regenerate every figure and
``claims.json``/``REPORT.md``.

Each script module exposes ``run(out_dir, quick, executor) -> list[Claim]``. Exit status 1 if any claim
fails. By default the scripts run side by side in ``--jobs`` local processes (one script per process, the
longest submitted first; each farms its simulations out to a local pool of its own), and their claims are
reported in the order of :data:`SCRIPTS`. ``main(argv, executor=...)`` takes any ``concurrent.futures.Executor``
instead (a cluster's): the scripts then run one after the other here and send their simulations to it.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import dataclasses
import importlib
import os
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from dptheory.claims import headline, load_claims, write_report  # noqa: E402

from . import (  # noqa: E402
    analytic_core, blt_figures, blt_learning, blt_paper, comparison, figure1, figure2, figure3, isrl_calibration, isrl_rates, isrl_simulation,
    proactive_tables, proactive_tightness, proactive_utility, tree_accounting, tree_experiment, tree_ftrl, tree_mechanism,
)

SCRIPTS = (figure1, figure2, figure3, analytic_core, proactive_tables, proactive_tightness, proactive_utility,
           isrl_rates, isrl_calibration, isrl_simulation, blt_paper, blt_figures, blt_learning,
           tree_accounting, tree_mechanism, tree_ftrl, tree_experiment, comparison)


#: Submission order of the parallel run: the longest scripts first (seconds of a quick run, cold cache, 2 cores),
#: so that no long script starts last.
LONGEST_FIRST = ("comparison", "blt_figures", "blt_paper", "figure2", "isrl_simulation", "proactive_tightness",
                 "figure3", "tree_experiment")


def _name(script) -> str:
    return script.__name__.rsplit(".", 1)[-1]


def _run_script(name: str, out: Path, quick: bool, executor=None) -> tuple[list, float]:
    """One script's claims (each recording its script) and its wall time."""
    start = time.perf_counter()
    script = importlib.import_module(f"{__package__ or 'verify'}.{name}")
    claims = [dataclasses.replace(c, script=name) for c in script.run(out, quick=quick, executor=executor)]
    return claims, time.perf_counter() - start


def _results(names: list[str], out: Path, quick: bool, jobs: int, executor):
    """``(name, claims, seconds)`` per script, in the order of ``names``."""
    if executor is not None or jobs == 1 or len(names) == 1:
        for name in names:
            yield (name, *_run_script(name, out, quick, executor))
        return
    order = sorted(names, key=lambda n: LONGEST_FIRST.index(n) if n in LONGEST_FIRST else len(LONGEST_FIRST))
    with cf.ProcessPoolExecutor(max_workers=min(jobs, len(names))) as pool:
        futures = {name: pool.submit(_run_script, name, out, quick) for name in order}
        for name in names:
            yield (name, *futures[name].result())


def main(argv=None, executor=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verify", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes (the CI-sized variant)")
    parser.add_argument("--out", type=Path, default=Path("figures"), help="output folder (default: figures/)")
    parser.add_argument("--only", nargs="+", metavar="SCRIPT", choices=[_name(s) for s in SCRIPTS],
                        help="run only these scripts and replace their claims in the existing claims.json; the "
                             "other scripts' claims are kept as that file has them (the report says so)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="scripts run side by side (default: the number of CPUs; 1 runs them one after another)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be an integer >= 1, got {args.jobs}")
    names = [_name(s) for s in SCRIPTS if args.only is None or _name(s) in args.only]
    args.out.mkdir(parents=True, exist_ok=True)
    claims, start = [], time.perf_counter()
    for name, new, seconds in _results(names, args.out, args.quick, args.jobs, executor):
        claims += new
        failed = [c.id for c in new if not (c.passed or c.informational)]
        info = sum(c.informational for c in new)
        print(f"verify.{name}: {len(new) - info} claims, {len(failed)} failed {failed or ''}"
              f"{f' (+{info} informational)' if info else ''} ({seconds:.1f} s)")
    note = ""
    if args.only is not None:
        fresh = {c.id for c in claims}
        kept = [c for c in load_claims(args.out / "claims.json") if c.script not in args.only and c.id not in fresh]
        claims = kept + claims
        note = (f"This report merges a run of {', '.join(args.only)} ({'quick' if args.quick else 'full'} sizes) into "
                f"the previous claims.json: the other {len(kept)} claims are as that run left them.")
    # tables a script rendered (e.g. seed 002's Figure 3) are appended to REPORT.md
    write_report(claims, args.out, tuple(p.read_text() for p in sorted(args.out.glob("*_table.md"))), note=note)
    print(f"{headline(claims)}; report in {args.out / 'REPORT.md'} "
          f"({time.perf_counter() - start:.0f} s, {min(args.jobs, len(names)) if executor is None else 1} jobs)")
    return 0 if all(c.passed or c.informational for c in claims) else 1


if __name__ == "__main__":
    sys.exit(main())
