"""Run simulations through an executor, with an on-disk cache keyed by every parameter.

``run_all(tasks)`` returns one :class:`~dptheory.simulation.SimulationResult` per task. Finished results are
cached under ``.verify-cache/`` (one JSON file per task, written atomically), so a second ``make verify``
only redoes what changed, and an interrupted run leaves no partial entry. Any ``concurrent.futures``-style
executor can be passed (local processes by default; a cluster executor later, without code changes).
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

import dptheory as dpt
from dptheory.claims import atomic_write
from dptheory.simulation import SimulationResult



def cache_dir() -> Path:
    """``$DPTHEORY_CACHE`` or ``.verify-cache/`` (git-ignored)."""
    return Path(os.environ.get("DPTHEORY_CACHE", ".verify-cache"))

CACHE_VERSION = 2  # bump when the simulator's output for given parameters changes


@dataclass(frozen=True)
class Task:
    """One call of :func:`dptheory.simulate`: a mechanism (or a sequence β), a problem and the simulation settings."""

    mechanism: object
    problem: object
    kwargs: dict = field(default_factory=dict)

    def key(self) -> str:
        p = self.problem
        payload = json.dumps(
            dict(
                v=CACHE_VERSION, mechanism=dpt.as_mechanism(self.mechanism).cache_key(),
                problem=type(p).__name__, eta=p.eta, sigma_sgd=p.sigma_sgd,
                eigs=hashlib.sha256(np.ascontiguousarray(p.eigs).tobytes()).hexdigest(),
                kwargs={k: repr(v) if k == "participation" else v for k, v in self.kwargs.items()},
                # strongly convex problems: the loss, curvatures and dimension
                **{k: getattr(p, k) for k in ("loss", "mu", "L", "d") if hasattr(p, "loss")},
            ),
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:24]


def _run(task: Task) -> dict:
    res = dpt.simulate(task.mechanism, task.problem, **task.kwargs)
    # a stationary run simulates a finite β (stored whole) unless the mechanism streams exactly (a BLT); a
    # finite-horizon run the task's own mechanism
    taps = res.mechanism.beta.tolist() if res.settings.get("taps") is not None else None
    return dict(mean=res.mean, stderr=res.stderr, chain_means=res.chain_means.tolist(), taps=taps, settings=res.settings)


def _load(entry: dict, task: Task) -> SimulationResult:
    mechanism = dpt.as_mechanism(task.mechanism) if entry["taps"] is None else dpt.toeplitz(entry["taps"])
    return SimulationResult(mean=entry["mean"], stderr=entry["stderr"], chain_means=np.asarray(entry["chain_means"]),
                            mechanism=mechanism, settings=entry["settings"])


def run_all(tasks: list[Task], *, executor: cf.Executor | None = None, desc: str = "simulations") -> list[SimulationResult]:
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    keys = [t.key() for t in tasks]
    entries: dict[str, dict] = {}
    todo: dict[str, Task] = {}  # unique missing tasks: a setting shared by two sweeps runs once
    for k, t in zip(keys, tasks):
        path = cache / f"{k}.json"
        if path.exists():
            entries[k] = json.loads(path.read_text())
        else:
            todo[k] = t
    if todo:
        own = executor is None
        ex = executor or cf.ProcessPoolExecutor(max_workers=min(len(todo), os.cpu_count() or 1))
        try:
            futures = {ex.submit(_run, t): k for k, t in todo.items()}
            for fut in tqdm(cf.as_completed(futures), total=len(futures), desc=desc, leave=False):
                k = futures[fut]
                entries[k] = fut.result()
                atomic_write(cache / f"{k}.json", json.dumps(entries[k]))
        finally:
            if own:
                ex.shutdown(cancel_futures=True)
    return [_load(entries[k], t) for k, t in zip(keys, tasks)]


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
