r"""Claims: one prediction tied to one measurement with a tolerance (the unit of ``make verify``).

A :class:`Claim` records what a theorem predicts, what an independent route measured (with its interval
where the route is statistical), the tolerance and why, and whether it passed. :func:`write_report` writes
``claims.json`` and a readable ``REPORT.md``; every file is written atomically (temporary file + rename),
so an interrupted run never leaves a half-written report or figure.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["Claim", "atomic_write", "save_figure", "write_report", "load_claims"]


@dataclass(frozen=True)
class Claim:
    """One prediction against one measurement. Exactly one criterion:

    * ``rtol``: ``|measured − predicted| ≤ rtol·|predicted|`` (two deterministic routes);
    * ``interval``: ``predicted ∈ interval`` (a statistical measurement's confidence interval);
    * ``bounds``: ``measured ∈ bounds`` (a theorem's lower and upper bound).

    ``informational`` claims (e.g. a paper's empirical slope from unstated settings) are reported but do
    not fail ``make verify``.
    """

    id: str
    paper: str
    where: str
    statement: str
    predicted: float
    measured: float
    rtol: float | None = None
    interval: tuple[float, float] | None = None
    bounds: tuple[float, float] | None = None
    tolerance_why: str = ""
    informational: bool = False
    #: the verify script that wrote the claim (set by ``python -m verify``; lets ``--only`` replace one script's claims)
    script: str = ""
    passed: bool = field(init=False)

    def __post_init__(self):
        if sum(x is not None for x in (self.rtol, self.interval, self.bounds)) != 1:
            raise ValueError("a claim needs exactly one of rtol, interval or bounds")
        if self.interval is not None:
            ok = self.interval[0] <= self.predicted <= self.interval[1]
        elif self.bounds is not None:
            ok = self.bounds[0] <= self.measured <= self.bounds[1]
        elif math.isinf(self.predicted) or math.isinf(self.measured):
            ok = self.predicted == self.measured
        else:
            ok = abs(self.measured - self.predicted) <= self.rtol * abs(self.predicted)
        object.__setattr__(self, "passed", bool(ok))

    @property
    def tolerance(self) -> str:
        if self.rtol is not None:
            return f"rel {self.rtol:g}"
        lo, hi = self.interval if self.interval is not None else self.bounds
        return f"{'CI' if self.interval is not None else 'bounds'} [{_fmt(lo)}, {_fmt(hi)}]"


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and an atomic rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode) as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def save_figure(fig, path: Path) -> None:
    """``fig.savefig`` to a temporary file, then rename: never a half-written figure."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=path.suffix)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=130, bbox_inches="tight")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _fmt(x) -> str:
    return "—" if x is None else f"{x:.6g}"


def load_claims(path: Path) -> list[Claim]:
    """The claims of a ``claims.json`` written by :func:`write_report` (each re-judged by its own criterion)."""
    entries = json.loads(Path(path).read_text())
    fields = {f.name for f in Claim.__dataclass_fields__.values() if f.init}
    return [Claim(**{k: tuple(v) if k in ("interval", "bounds") and v is not None else v
                     for k, v in e.items() if k in fields}) for e in entries]


def write_report(claims: list[Claim], directory: Path, appendices: tuple[str, ...] = (), note: str = "") -> None:
    """``claims.json`` (one entry per claim) and ``REPORT.md`` (a table, failures first, then ``appendices``:
    markdown sections such as a paper's rendered rate table); ``note`` is printed under the summary line."""
    directory = Path(directory)
    atomic_write(directory / "claims.json", json.dumps([asdict(c) for c in claims], indent=2) + "\n")
    checks = [c for c in claims if not c.informational]
    info = [c for c in claims if c.informational]
    lines = [
        "# Verification report",
        "",
        f"{sum(c.passed for c in checks)} of {len(checks)} claims pass"
        + (f"; {len(info)} informational comparisons below them." if info else ".")
        + " Regenerate with `make verify` (or `make verify-quick`).",
        "",
        *([note, ""] if note else []),
    ]
    for title, group in (("Claims", checks), ("Informational comparisons", info)):
        if not group:
            continue
        lines += [f"## {title}", "", "| pass | id | paper | where | claim | predicted | measured | tolerance |", "|---|---|---|---|---|---|---|---|"]
        for c in sorted(group, key=lambda c: (c.passed, c.id)):
            lines.append(
                f"| {'✓' if c.passed else '✗'} | {c.id} | {c.paper} | {c.where} | {c.statement} | "
                f"{_fmt(c.predicted)} | {_fmt(c.measured)} | {c.tolerance}: {c.tolerance_why} |"
            )
        lines.append("")
    lines += [section.rstrip() + "\n" for section in appendices]
    atomic_write(directory / "REPORT.md", "\n".join(lines))
