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

__all__ = ["Claim", "atomic_write", "save_figure", "write_report"]


@dataclass(frozen=True)
class Claim:
    """``|measured − predicted| ≤ rtol·|predicted|`` (deterministic routes) or ``predicted ∈ interval``."""

    id: str
    paper: str
    where: str
    statement: str
    predicted: float
    measured: float
    rtol: float | None = None
    interval: tuple[float, float] | None = None
    tolerance_why: str = ""
    passed: bool = field(init=False)

    def __post_init__(self):
        if (self.rtol is None) == (self.interval is None):
            raise ValueError("a claim needs exactly one of rtol (deterministic) or interval (statistical)")
        if self.interval is not None:
            ok = self.interval[0] <= self.predicted <= self.interval[1]
        elif math.isinf(self.predicted) or math.isinf(self.measured):
            ok = self.predicted == self.measured
        else:
            ok = abs(self.measured - self.predicted) <= self.rtol * abs(self.predicted)
        object.__setattr__(self, "passed", bool(ok))


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


def write_report(claims: list[Claim], directory: Path) -> None:
    """``claims.json`` (one entry per claim) and ``REPORT.md`` (a table, failures first)."""
    directory = Path(directory)
    atomic_write(directory / "claims.json", json.dumps([asdict(c) for c in claims], indent=2) + "\n")
    passed = sum(c.passed for c in claims)
    lines = [
        "# Verification report",
        "",
        f"{passed} of {len(claims)} claims pass. Regenerate with `make verify` (or `make verify-quick`).",
        "",
        "| pass | id | paper | where | claim | predicted | measured | tolerance |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in sorted(claims, key=lambda c: (c.passed, c.id)):
        tol = f"rel {c.rtol:g}" if c.rtol is not None else f"[{_fmt(c.interval[0])}, {_fmt(c.interval[1])}]"
        lines.append(
            f"| {'✓' if c.passed else '✗'} | {c.id} | {c.paper} | {c.where} | {c.statement} | "
            f"{_fmt(c.predicted)} | {_fmt(c.measured)} | {tol}: {c.tolerance_why} |"
        )
    atomic_write(directory / "REPORT.md", "\n".join(lines) + "\n")
