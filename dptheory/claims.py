r"""Claims: one prediction tied to one measurement with a tolerance (the unit of ``make verify``).

A :class:`Claim` records what a theorem predicts, what an independent route measured (with its interval
where the route is statistical), the tolerance and why, what kind of evidence it is (:data:`KINDS`) and
whether it passed. :func:`write_report` writes
``claims.json`` and a readable ``REPORT.md``; every file is written atomically (temporary file + rename),
so an interrupted run never leaves a half-written report or figure, and the report and its claims are
replaced as a pair (both old or both new). A temporary is named ``.NAME.XXXXXXXX.tmp`` beside its file
(:data:`TEMPORARIES`); an interrupt removes it, and :func:`remove_temporaries` sweeps those a killed
process left behind.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import tempfile
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["KINDS", "TEMPORARIES", "Claim", "atomic_write", "save_figure", "remove_temporaries", "headline",
           "write_report", "load_claims"]

#: resolution of every figure :func:`save_figure` writes
_DPI = 130

#: the glob of the temporary files :func:`atomic_write`, :func:`save_figure` and :func:`write_report` write
#: beside the file they replace (``.claims.json.k3j9x2ab.tmp``)
TEMPORARIES = ".*.tmp"

#: signals that :func:`write_report` holds back while it renames the report and its claims into place
_DEFERRED = (signal.SIGINT, signal.SIGTERM)

#: What evidence a claim is, strongest first. The report counts each kind separately: only a cross-check can
#: show that a formula is right; a reproduction shows it matches the paper; a regression value only catches a
#: transcription error or a change in our own numbers.
KINDS = {
    "cross-check": "two independent routes agree within a two-sided tolerance: a second formula, quadrature, a "
                   "dense-matrix oracle, mpmath, a peer library, or a simulation",
    "bound": "a one-sided or bracketing check that can fail: a theorem's bound against an independent measurement",
    "ordering": "an ordering or a sign that can fail: which of two values is smaller, each measured by a route "
                "independent of the statement (e.g. the dense oracle beside the structured table)",
    "paper": "reproduces a number printed in a paper (its table, figure or text)",
    "regression": "matches a number recorded from our own derivation or a digest, computed from the same formula: "
                  "it catches a transcription error or a changed number, nothing more",
    "informational": "reported, never fails the run: a finding (e.g. where a paper is wrong), or a comparison "
                     "whose settings the paper does not state",
}


@dataclass(frozen=True)
class Claim:
    """One prediction against one measurement.

    Exactly one criterion:

    * ``rtol``: ``|measured − predicted| ≤ rtol·|predicted|`` (two deterministic routes);
    * ``interval``: ``predicted ∈ interval`` (a statistical measurement's confidence interval);
    * ``bounds``: ``measured ∈ bounds`` (a theorem's lower and upper bound).

    ``kind`` (required) is one of :data:`KINDS`. ``"informational"`` claims (e.g. a paper's empirical slope
    from unstated settings) are reported but do not fail ``make verify``; one that does not hold is a finding.

    Attributes
    ----------
    id : str
        The claim id.
    paper : str
        The paper (seed) the claim is about.
    where : str
        Where in the paper the claimed result is.
    statement : str
        What is claimed, in words.
    predicted : float
        What the theorem predicts.
    measured : float
        What the independent route measured.
    rtol : float or None, default None
        Criterion ``|measured − predicted| ≤ rtol·|predicted|``.
    interval : tuple of float or None, default None
        Criterion ``predicted ∈ interval`` (the measurement's confidence interval).
    bounds : tuple of float or None, default None
        Criterion ``measured ∈ bounds`` (a theorem's lower and upper bound).
    tolerance_why : str, default ""
        Why the tolerance is what it is.
    kind : str
        One of :data:`KINDS` (required).
    script : str, default ""
        The verify script that wrote the claim (set by ``python -m verify``).
    passed : bool
        Whether the criterion holds (computed, not passed to the constructor).

    Raises
    ------
    ValueError
        For a ``kind`` not in :data:`KINDS`, or not exactly one of ``rtol``, ``interval`` and ``bounds``.
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
    kind: str = ""
    #: the verify script that wrote the claim (set by ``python -m verify``; lets ``--only`` replace one script's claims)
    script: str = ""
    passed: bool = field(init=False)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id!r}: kind must be one of {', '.join(map(repr, KINDS))}, got {self.kind!r}")
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
    def informational(self) -> bool:
        """Reported only: the claim cannot fail ``make verify``."""
        return self.kind == "informational"

    @property
    def finding(self) -> bool:
        """An informational comparison that does not hold: e.g. a number where the paper is wrong."""
        return self.informational and not self.passed

    @property
    def tolerance(self) -> str:
        """The criterion as the report prints it (``"rel 1e-06"``, ``"CI [lo, hi]"`` or ``"bounds [lo, hi]"``)."""
        if self.rtol is not None:
            return f"rel {self.rtol:g}"
        lo, hi = self.interval if self.interval is not None else self.bounds
        return f"{'CI' if self.interval is not None else 'bounds'} [{_fmt(lo)}, {_fmt(hi)}]"


def _temporary(path: Path, data: str | bytes | None = None) -> str:
    """A new temporary file beside ``path`` (named as :data:`TEMPORARIES`) holding ``data``; its folder is created."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w") as fh:
            if data is not None:
                fh.write(data)
    except BaseException:
        _discard(tmp)
        raise
    return tmp


def _discard(tmp: str) -> None:
    """Remove a temporary file, if it is still there (an interrupt may come after its rename)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and an atomic rename.

    Parameters
    ----------
    path : pathlib.Path or str
        The file to write; its folder is created if needed.
    data : str or bytes
        The contents (bytes are written in binary mode).
    """
    path = Path(path)
    tmp = _temporary(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        _discard(tmp)
        raise


def remove_temporaries(directory: Path) -> list[Path]:
    """Remove the temporary files (:data:`TEMPORARIES`) a killed process left in ``directory``.

    An interrupted write removes its own temporary; one killed outright (``SIGKILL``, a lost machine) cannot.
    ``python -m verify`` calls this on its output folder at start-up. Only one run may write into a folder at a
    time: this would remove the temporaries of another run still writing there.

    Parameters
    ----------
    directory : pathlib.Path or str
        The folder (its subfolders are left alone); a missing folder has none.

    Returns
    -------
    list of pathlib.Path
        The files removed.
    """
    stale = sorted(p for p in Path(directory).glob(TEMPORARIES) if p.is_file())
    for p in stale:
        _discard(str(p))
    return stale


def save_figure(fig, path: Path) -> None:
    """``fig.savefig`` at 130 dpi to a temporary file, then rename: never a half-written figure.

    The figure is saved at the size it was given, not cropped to a tight bounding box: give it a layout engine
    (``layout="constrained"`` or ``"tight"`` where it is created) so that nothing falls outside it. The engine
    runs once here, at 130 dpi, and the figure is then drawn once with the same renderer (its text metrics
    cached). ``savefig`` itself draws a figure that has a layout engine twice (once without rendering, to lay it
    out), and ``bbox_inches="tight"`` adds a pass with a new renderer that measures every text again; on these
    small figures each pass costs about as much as the drawing. The pixels are those of
    ``fig.savefig(path, dpi=130)``; the figure's layout engine and dpi are restored afterwards.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (saved at 130 dpi, at its own size).
    path : pathlib.Path or str
        The file to write; its suffix picks the format (PNG without one) and its folder is created if needed.
    """
    path = Path(path)
    tmp = _temporary(path)
    engine, dpi = fig.get_layout_engine(), fig.dpi
    try:
        fig.set_dpi(_DPI)  # lay out with the renderer the drawing then reuses (its text metrics are cached)
        if engine is not None and fig.axes:
            try:
                engine.execute(fig)
            except ValueError:  # as Figure.draw: a layout that cannot be done leaves the figure as it is
                pass
        fig.set_layout_engine(None)
        fig.savefig(tmp, dpi=_DPI, format=path.suffix[1:] or "png")
        os.replace(tmp, path)
    except BaseException:
        _discard(tmp)
        raise
    finally:
        fig.set_layout_engine(engine)
        fig.set_dpi(dpi)


def _fmt(x) -> str:
    return "—" if x is None else f"{x:.6g}"


def load_claims(path: Path) -> list[Claim]:
    """The claims of a ``claims.json`` written by :func:`write_report` (each re-judged by its own criterion).

    Parameters
    ----------
    path : pathlib.Path or str
        The ``claims.json`` file.

    Returns
    -------
    list of Claim
        The claims.

    Raises
    ------
    ValueError
        For a file that predates claim kinds (no ``kind`` field).
    """
    entries = json.loads(Path(path).read_text())
    if any("kind" not in e for e in entries):
        raise ValueError(f"{path} predates claim kinds (it has no 'kind' field): regenerate it with a full `make verify`")
    fields = {f.name for f in Claim.__dataclass_fields__.values() if f.init}
    return [Claim(**{k: tuple(v) if k in ("interval", "bounds") and v is not None else v
                     for k, v in e.items() if k in fields}) for e in entries]


_PLURAL = {"cross-check": "cross-checks", "bound": "bounds", "ordering": "orderings",
           "paper": "reproductions of a paper's numbers", "regression": "regression values"}

#: the share of counted (not informational) claims that should be two-sided cross-checks of independent routes
_SHARE_GOAL = 0.60

#: how many of the families that hold the share back the headline names
_HOLDING_BACK = 3


def _family(claim_id: str) -> str:
    """A claim's family: the first two segments of its id (``seed000.table6`` of ``seed000.table6.MNIST.b=250``)."""
    return ".".join(claim_id.split(".")[:2])


def _share(claims: list[Claim]) -> str:
    """The share of counted claims that are cross-checks, against :data:`_SHARE_GOAL`, and the largest families of
    counted claims that are not (the ones that hold the share back most); empty without counted claims."""
    counted = [c for c in claims if not c.informational]
    if not counted:
        return ""
    share = sum(c.kind == "cross-check" for c in counted) / len(counted)
    others: dict[str, int] = {}
    for c in counted:
        if c.kind != "cross-check":
            others[_family(c.id)] = others.get(_family(c.id), 0) + 1
    worst = sorted(others.items(), key=lambda item: (-item[1], item[0]))[:_HOLDING_BACK]
    held = f"; held back most by {', '.join(f'{f} ({n})' for f, n in worst)}" if worst and share < _SHARE_GOAL else ""
    return (f"{share:.0%} of the {len(counted)} counted claims are two-sided cross-checks of independent routes "
            f"(goal ≥ {_SHARE_GOAL:.0%}{held})")


def headline(claims: list[Claim]) -> str:
    """The report's first line: passes per kind of evidence, the share of counted claims that are cross-checks, then
    the informational comparisons and findings.

    The share counts every claim that is not informational; below its goal (60 %) the line names the largest
    families (the first two segments of a claim id) of counted claims that are not cross-checks.

    Parameters
    ----------
    claims : list of Claim
        The claims of the run.

    Returns
    -------
    str
        The headline.
    """
    passes = ", ".join(f"{sum(c.passed for c in group)}/{len(group)} {_PLURAL[kind]}"
                       for kind in _PLURAL if (group := [c for c in claims if c.kind == kind]))
    share = _share(claims)
    info = [c for c in claims if c.informational]
    return (f"Pass: {passes or 'no checks'}; {share + '; ' if share else ''}{len(info)} informational comparisons "
            f"({sum(c.finding for c in info)} of them findings: they disagree with a paper or with expectation)")


_TABLE = ["| pass | id | paper | where | claim | predicted | measured | tolerance |", "|---|---|---|---|---|---|---|---|"]


def _rows(group: list[Claim]) -> list[str]:
    return [f"| {'✓' if c.passed else '✗'} | {c.id} | {c.paper} | {c.where} | {c.statement} | "
            f"{_fmt(c.predicted)} | {_fmt(c.measured)} | {c.tolerance}: {c.tolerance_why} |"
            for c in sorted(group, key=lambda c: (c.passed, c.id))]


@contextlib.contextmanager
def _signals_deferred():
    """SIGINT and SIGTERM that arrive inside the block take effect as it ends (their handlers run, or the process
    ends, once the block is done).

    Python runs signal handlers in the main thread only, so elsewhere the block runs as it is: an interrupt
    (``KeyboardInterrupt``) is raised in the main thread, not in this one. A signal whose handler was not set from
    Python (``signal.getsignal`` gives ``None``) is left as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = {s: signal.signal(s, lambda signum, frame: received.append(signum))
                for s in _DEFERRED if signal.getsignal(s) is not None}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for s in dict.fromkeys(received):
            signal.raise_signal(s)


def _replace_together(files: dict[Path, str]) -> None:
    """Write each file through a temporary, then rename them all into place, in order, with SIGINT and SIGTERM
    held back: an interrupt leaves every file old (while the temporaries are written; they are removed) or every
    file new (it takes effect after the last rename)."""
    temporaries = []
    try:
        for path, data in files.items():
            temporaries.append((_temporary(path, data), path))
        with _signals_deferred():
            for tmp, path in temporaries:
                os.replace(tmp, path)
    except BaseException:
        for tmp, _ in temporaries:
            _discard(tmp)
        raise


def write_report(claims: list[Claim], directory: Path, appendices: tuple[str, ...] = (), note: str = "") -> None:
    """Write ``REPORT.md`` and ``claims.json`` (one entry per claim) as a pair: both old or both new.

    ``REPORT.md`` has the headline per kind of evidence, then the findings (informational comparisons that do not
    hold), then one table per kind (failures first), then ``appendices``.

    Both files are first written to temporaries beside them; the two renames into place then run with SIGINT and
    SIGTERM held back, so an interrupt (Ctrl-C, or ``SIGTERM``, which ``python -m verify`` turns into one) leaves
    the old pair (while the temporaries are written; they are removed) or the new pair (it takes effect after the
    second rename), never one of each. Only a process killed outright between the two renames (``SIGKILL``, a
    lost machine) can split them: ``REPORT.md`` is renamed first and ``claims.json`` last, so ``claims.json``, the
    file ``--only`` merges into and the theorem index reads, is then still the old one, as complete as before.

    Parameters
    ----------
    claims : list of Claim
        The claims of the run.
    directory : pathlib.Path or str
        The folder both files are written to (atomically).
    appendices : tuple of str, default ()
        Markdown sections appended to the report, such as a paper's rendered rate table.
    note : str, default ""
        Printed under the headline.
    """
    directory = Path(directory)
    lines = [
        "# Verification report",
        "",
        headline(claims) + ". Regenerate with `make verify` (full sizes, into figures/) or `make verify-quick` "
                           "(small sizes, into figures/quick/).",
        "",
        *(f"- **{kind}**: {meaning}." for kind, meaning in KINDS.items()),
        "",
        *([note, ""] if note else []),
    ]
    findings = [c for c in claims if c.finding]
    if findings:
        lines += ["## Findings", "", "Comparisons that do not hold and are not meant to: each is a number where a "
                  "paper's printed value, or its qualitative statement, disagrees with what the toolkit computes "
                  "(the claim's tolerance column says why). They never fail the run.", "", *_TABLE, *_rows(findings), ""]
    titles = {"cross-check": "Cross-checks", "bound": "Bounds", "ordering": "Orderings",
              "paper": "Reproductions of a paper's numbers",
              "regression": "Regression values", "informational": "Other informational comparisons"}
    for kind, title in titles.items():
        group = [c for c in claims if c.kind == kind and not c.finding]
        if group:
            lines += [f"## {title}", "", *_TABLE, *_rows(group), ""]
    lines += [section.rstrip() + "\n" for section in appendices]
    _replace_together({directory / "REPORT.md": "\n".join(lines),
                       directory / "claims.json": json.dumps([asdict(c) for c in claims], indent=2) + "\n"})
