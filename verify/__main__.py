"""``python -m verify [--quick] [--out figures] [--only SCRIPT ...]``: regenerate every figure and ``claims.json``/``REPORT.md``.

Each script module exposes ``run(out_dir, quick, executor) -> list[Claim]``. Exit status 1 if any claim
fails. ``main(argv, executor=...)`` takes any ``concurrent.futures.Executor`` (default: local processes).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from dptheory.claims import load_claims, write_report  # noqa: E402

from . import (  # noqa: E402
    analytic_core, blt_figures, blt_learning, blt_paper, comparison, figure1, figure2, figure3, isrl_calibration, isrl_rates, isrl_simulation,
    proactive_tables, proactive_tightness, proactive_utility, tree_accounting, tree_experiment, tree_ftrl, tree_mechanism,
)

SCRIPTS = (figure1, figure2, figure3, analytic_core, proactive_tables, proactive_tightness, proactive_utility,
           isrl_rates, isrl_calibration, isrl_simulation, blt_paper, blt_figures, blt_learning,
           tree_accounting, tree_mechanism, tree_ftrl, tree_experiment, comparison)


def _name(script) -> str:
    return script.__name__.rsplit(".", 1)[-1]


def main(argv=None, executor=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verify", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes (the CI-sized variant)")
    parser.add_argument("--out", type=Path, default=Path("figures"), help="output folder (default: figures/)")
    parser.add_argument("--only", nargs="+", metavar="SCRIPT", choices=[_name(s) for s in SCRIPTS],
                        help="run only these scripts and replace their claims in the existing claims.json; the "
                             "other scripts' claims are kept as that file has them (the report says so)")
    args = parser.parse_args(argv)
    scripts = [s for s in SCRIPTS if args.only is None or _name(s) in args.only]
    claims = []
    for script in scripts:
        start = time.perf_counter()
        new = [dataclasses.replace(c, script=_name(script)) for c in script.run(args.out, quick=args.quick, executor=executor)]
        claims += new
        failed = [c.id for c in new if not (c.passed or c.informational)]
        info = sum(c.informational for c in new)
        print(f"{script.__name__}: {len(new) - info} claims, {len(failed)} failed {failed or ''}"
              f"{f' (+{info} informational)' if info else ''} ({time.perf_counter() - start:.1f} s)")
    note = ""
    if args.only is not None:
        fresh = {c.id for c in claims}
        kept = [c for c in load_claims(args.out / "claims.json") if c.script not in args.only and c.id not in fresh]
        claims = kept + claims
        note = (f"This report merges a run of {', '.join(args.only)} ({'quick' if args.quick else 'full'} sizes) into "
                f"the previous claims.json: the other {len(kept)} claims are as that run left them.")
    # tables a script rendered (e.g. seed 002's Figure 3) are appended to REPORT.md
    write_report(claims, args.out, tuple(p.read_text() for p in sorted(args.out.glob("*_table.md"))), note=note)
    checks = [c for c in claims if not c.informational]
    print(f"{sum(c.passed for c in checks)}/{len(checks)} claims pass; report in {args.out / 'REPORT.md'}")
    return 0 if all(c.passed for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
