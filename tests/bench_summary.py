"""``make bench``'s summary: every hot path beside the limit it was measured against, in the same run.

``python tests/bench_summary.py BENCH.json`` reads pytest-benchmark's ``--benchmark-json`` output and prints one
row per timed path. Its ratio is one of:

- ``raw RNG``: the benchmark's ``extra_info["ratio_to_raw_rng"]``, drawing the path's random numbers alone divided by
  the path's time (1.0 = as fast as its random numbers can be drawn);
- ``baseline``: within a pytest-benchmark group, the naive baseline's minimum (a test named ``*baseline*``) divided by
  the path's minimum (how many times faster than the naive route);
- none: an absolute time, read against the goal.

After the table, one line per group with more than one raw-RNG ratio names its worst path (the lowest ratio), and a
last line names the worst raw-RNG path of the report.

``extra_info["goal"]`` (a ratio ``≥ x`` or a time ``< t s``) and ``extra_info["limit"]`` (what bounds the path now:
RNG, FFT, memory bandwidth, solver…) are printed when a benchmark records them. Nothing is asserted: timings
are machine- and load-dependent, so the summary reports and the tests assert only accuracy.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    group: str
    path: str
    seconds: float
    against: str  # "raw RNG", the baseline's name, or "" for an absolute time
    ratio: float | None
    goal: str
    limit: str

    @property
    def met(self) -> str:
        """``yes``/``no`` against a goal written ``≥ x`` (ratio) or ``< t s`` (time); empty without a goal."""
        goal = self.goal.replace(" ", "")
        if goal.startswith("≥") and self.ratio is not None:
            return "yes" if self.ratio >= float(goal[1:]) else "no"
        if goal.startswith("<") and goal.endswith("s"):
            scale = 1e-3 if goal.endswith("ms") else 1.0
            return "yes" if self.seconds < float(goal[1:].rstrip("ms")) * scale else "no"
        return ""


def rows(report: dict) -> list[Row]:
    """One :class:`Row` per benchmark of a pytest-benchmark JSON report."""
    benches = report["benchmarks"]
    baselines = {b["group"]: b for b in benches if "baseline" in b["name"]}
    out = []
    for b in benches:
        if "baseline" in b["name"]:
            continue
        info, group, best = b.get("extra_info", {}), b["group"] or "", b["stats"]["min"]
        if "ratio_to_raw_rng" in info:
            against, ratio = "raw RNG", float(info["ratio_to_raw_rng"])
        elif group in baselines:
            base = baselines[group]
            against, ratio = base["name"].removeprefix("test_bench_"), base["stats"]["min"] / best
        else:
            against, ratio = "", None
        out.append(Row(group, b["name"].removeprefix("test_bench_"), best, against, ratio,
                       str(info.get("goal", "")), str(info.get("limit", ""))))
    return out


def _time(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def render(table: list[Row]) -> str:
    """A plain-text table, grouped as pytest-benchmark groups them."""
    header = ("path", "min time", "ratio", "against", "goal", "met", "limit now")
    rows = sorted(table, key=lambda r: (r.group, r.path))
    lines = [header]
    for r in rows:
        ratio = "" if r.ratio is None else f"{r.ratio:.3g}" + ("×" if r.against not in ("", "raw RNG") else "")
        lines.append((r.path, _time(r.seconds), ratio, r.against, r.goal, r.met, r.limit))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    fmt = lambda line: "  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip()
    text, group = [fmt(header), "  ".join("-" * w for w in widths)], None
    for r, line in zip(rows, lines[1:]):
        if r.group != group:
            text.append(f"[{r.group}]")
            group = r.group
        text.append(fmt(line))
    return "\n".join(text)


def worst(table: list[Row]) -> list[str]:
    """The lowest raw-RNG ratios: ``worst in [group]: path ratio`` for each group with more than one, then
    ``worst raw RNG overall: path ratio in [group]``; no lines without a raw-RNG row."""
    raw = sorted((r for r in table if r.against == "raw RNG"), key=lambda r: (r.group, r.path))
    groups = {}
    for r in raw:
        groups.setdefault(r.group, []).append(r)
    lines = []
    for group, members in groups.items():
        if len(members) > 1:
            low = min(members, key=lambda r: r.ratio)
            lines.append(f"worst in [{group}]: {low.path} {low.ratio:.3g}")
    if raw:
        low = min(raw, key=lambda r: r.ratio)
        lines.append(f"worst raw RNG overall: {low.path} {low.ratio:.3g} in [{low.group}]")
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        table = rows(json.load(f))
    print("\n".join([render(table), *worst(table)]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
