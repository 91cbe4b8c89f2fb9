"""Run simulations through an executor, with an on-disk cache keyed by every parameter and the code's version.

``run_all(tasks)`` returns one :class:`~dptheory.simulation.SimulationResult` per :class:`Task`, and a tuple of
them per :class:`CommonTask` (several mechanisms on common random numbers). Finished results are
cached under ``.verify-cache/`` (one JSON file per task, written atomically through a unique temporary file and
a rename, so several processes writing the same entry at once leave one whole entry, and an interrupted run
leaves none), so a second ``make verify`` only redoes what changed. The key holds everything that determines a
result: the mechanism, the problem, the simulation settings (seed included), the cache format
(:data:`CACHE_VERSION`) and :func:`code_version`, a hash of the ``dptheory`` code that runs the simulation.

Any ``concurrent.futures``-style executor can be passed: local processes by default, or a Dask cluster's
(``distributed.Client.get_executor()``; ``python -m verify --scheduler`` / ``--workers``). Each result carries
the code version of the process that computed it, and a result from a worker whose ``dptheory`` differs from
this process's is refused rather than cached.
"""

from __future__ import annotations

import ast
import concurrent.futures as cf
import functools
import hashlib
import json
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

import dptheory as dpt
from dptheory.claims import atomic_write
from dptheory.simulation import SimulationResult, _default_stand_in



def cache_dir() -> Path:
    """``$DPTHEORY_CACHE`` or ``.verify-cache/`` (git-ignored)."""
    return Path(os.environ.get("DPTHEORY_CACHE", ".verify-cache"))

CACHE_VERSION = 4  # bump when the format of a cache entry changes (a change of code changes code_version())

#: The memory budget of each simulation unless its task sets one (``simulate(memory=...)``, default 1 GiB there):
#: ``make verify`` runs two scripts side by side, each with a pool of two, so up to four simulations at once. A run
#: above it goes in chain groups (seed 003's learning problems: ν-DP-FTRL and the square root at n = 2052 over
#: 16 384 columns, 673 MB each in two groups at 1 GiB).
SIMULATION_MEMORY = 2**28


def _settings(kwargs: dict) -> dict:
    """A task's ``simulate`` keywords, with :data:`SIMULATION_MEMORY` unless it gives ``memory``."""
    return {"memory": SIMULATION_MEMORY, **kwargs}


def _without_docstrings(tree: ast.AST) -> ast.AST:
    """``tree`` with the docstring of every module, class and function removed (they change no result)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


@functools.lru_cache(maxsize=None)
def code_version() -> str:
    """A hash of the code of the installed ``dptheory`` package: every module's syntax tree, without docstrings.

    Comments, docstrings, formatting and line numbers do not enter (``ast.dump`` leaves positions out), so
    rewriting documentation keeps the cache; any change of code, in any module, gives a new version and so
    new cache keys. Hashing the whole package, not only what :func:`dptheory.simulate` imports today, keeps
    the key right when the simulator starts to use another module.
    """
    root = Path(dpt.__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        tree = _without_docstrings(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        h.update(path.relative_to(root).as_posix().encode())
        h.update(ast.dump(tree).encode())
    return h.hexdigest()[:16]


def _key(mechanisms: dict, problem, kwargs: dict) -> str:
    """The cache key of one run: the mechanism(s), the problem and the simulation settings."""
    p = problem
    payload = json.dumps(
        dict(
            v=CACHE_VERSION, code=code_version(), **mechanisms,
            problem=type(p).__name__, eta=p.eta, sigma_sgd=p.sigma_sgd,
            eigs=hashlib.sha256(np.ascontiguousarray(p.eigs).tobytes()).hexdigest(),
            kwargs={k: repr(v) if k == "participation" else v for k, v in kwargs.items()},
            # strongly convex problems: the loss, curvatures and dimension
            **{k: getattr(p, k) for k in ("loss", "mu", "L", "d") if hasattr(p, "loss")},
        ),
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def _entry(res: SimulationResult) -> dict:
    # a stationary run simulates a finite β (stored whole) unless the mechanism streams exactly (a BLT); a
    # finite-horizon run the task's own mechanism; ν-DP-FTRL at the default taps may run its BLT stand-in
    taps = res.mechanism.beta.tolist() if res.settings.get("taps") is not None else None
    stand_in = res.truncation is not None and res.truncation.stand_in is not None
    return dict(mean=res.mean, stderr=res.stderr, chain_means=res.chain_means.tolist(), taps=taps, stand_in=stand_in,
                settings=res.settings)


def _result(entry: dict, mechanism) -> SimulationResult:
    if entry.get("stand_in"):
        mechanism = _default_stand_in(dpt.as_mechanism(mechanism))
    else:
        mechanism = dpt.as_mechanism(mechanism) if entry["taps"] is None else dpt.toeplitz(entry["taps"])
    return SimulationResult(mean=entry["mean"], stderr=entry["stderr"], chain_means=np.asarray(entry["chain_means"]),
                            mechanism=mechanism, settings=entry["settings"])


@dataclass(frozen=True)
class Task:
    """One call of :func:`dptheory.simulate`: a mechanism (or a sequence β), a problem and the simulation settings."""

    mechanism: object
    problem: object
    kwargs: dict = field(default_factory=dict)

    def key(self) -> str:
        return _key(dict(mechanism=dpt.as_mechanism(self.mechanism).cache_key()), self.problem, _settings(self.kwargs))

    def simulate(self) -> dict:
        """Run it; the cache entry of its result."""
        return _entry(dpt.simulate(self.mechanism, self.problem, **_settings(self.kwargs)))

    def load(self, entry: dict) -> SimulationResult:
        """The result a cache entry of :meth:`simulate` holds."""
        return _result(entry, self.mechanism)


@dataclass(frozen=True)
class CommonTask:
    """One call of :func:`dptheory.simulate_common`: several mechanisms on one problem with common random numbers
    (the same data and white noise); its result is a tuple of one :class:`SimulationResult` per mechanism."""

    mechanisms: tuple
    problem: object
    kwargs: dict = field(default_factory=dict)

    def key(self) -> str:
        return _key(dict(mechanisms=[dpt.as_mechanism(m).cache_key() for m in self.mechanisms]), self.problem,
                    _settings(self.kwargs))

    def simulate(self) -> dict:
        """Run it; the cache entry of its results."""
        return dict(results=[_entry(r) for r in dpt.simulate_common(list(self.mechanisms), self.problem,
                                                                    **_settings(self.kwargs))])

    def load(self, entry: dict) -> tuple[SimulationResult, ...]:
        """The results a cache entry of :meth:`simulate` holds, one per mechanism."""
        return tuple(_result(e, m) for e, m in zip(entry["results"], self.mechanisms))


def _run(task: Task | CommonTask) -> dict:
    return task.simulate() | dict(code=code_version())


def _checked(entry: dict, task) -> dict:
    """``entry`` if the process that computed it ran this process's ``dptheory`` code; else an error."""
    if entry.get("code") != code_version():
        raise RuntimeError(
            f"a simulation of {task!r:.120} was computed with dptheory code version {entry.get('code')}, but this "
            f"process runs {code_version()}: start the cluster's workers from the same checkout (same commit, "
            f"installed with `make install`) as the process that runs verify")
    return entry


def _simulation_process() -> None:
    """Start a process of :func:`run_all`'s own pool: SIGTERM ends it at once.

    It writes no file (its results are cached by the process that runs the pool), so nothing is left half done,
    and an interrupted ``python -m verify`` (which passes SIGTERM on to the pools) need not wait for the NumPy call
    under way to return, as it would for a handler forked with the process (:class:`verify.__main__._Stop`).
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def run_all(tasks: list[Task | CommonTask], *, executor: cf.Executor | None = None,
            desc: str = "simulations") -> list[SimulationResult | tuple[SimulationResult, ...]]:
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    keys = [t.key() for t in tasks]
    entries: dict[str, dict] = {}
    todo: dict[str, Task | CommonTask] = {}  # unique missing tasks: a setting shared by two sweeps runs once
    for k, t in zip(keys, tasks):
        path = cache / f"{k}.json"
        if path.exists():
            entries[k] = json.loads(path.read_text())
        else:
            todo[k] = t
    if todo:
        own = executor is None
        ex = executor or cf.ProcessPoolExecutor(max_workers=min(len(todo), os.cpu_count() or 1),
                                                initializer=_simulation_process)
        try:
            futures = {ex.submit(_run, t): k for k, t in todo.items()}
            for fut in tqdm(cf.as_completed(futures), total=len(futures), desc=desc, leave=False):
                k = futures[fut]
                entries[k] = _checked(fut.result(), todo[k])
                atomic_write(cache / f"{k}.json", json.dumps(entries[k]))
        finally:
            if own:
                ex.shutdown(cancel_futures=True)
    return [t.load(entries[k]) for k, t in zip(keys, tasks)]


def point_seed(base: int, *params) -> int:
    """An independent seed for one point of a sweep, derived from ``base`` and the point's parameters.

    Points of one slope fit must not share a seed: with common random numbers their errors are correlated
    (0.26–0.51 between adjacent η in Figure 2, issue 18) and the fit's standard error, which assumes
    independent points, is wrong. A seed that is a hash of the parameters keeps "same settings, same
    numbers" (a point shared by two sweeps gets the same seed, hence one cached run) and makes distinct
    points independent. Arrays are hashed by their bytes.
    """
    h = hashlib.sha256(repr(int(base)).encode())
    for p in params:
        if isinstance(p, np.ndarray):
            h.update(np.ascontiguousarray(p, dtype=float).tobytes())
        else:
            h.update(repr(p).encode())
        h.update(b"|")
    return int(h.hexdigest()[:8], 16) % (2**31 - 1)


SEED004_ALPHA = 0.05 / 3
"""Family-wise error of each seed-004 figure's simulation claims: ``make verify`` is one pass/fail gate, so the
5% is shared by Figures 1, 2 and 3 (union bound), not spent once per figure (which would fail a correct
simulator in ~15% of runs)."""
