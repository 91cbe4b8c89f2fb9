"""The array backend of the simulators: NumPy by default, CuPy on a GPU. The only CuPy-aware module.

Kernels never import NumPy or CuPy: they receive arrays and take their namespace with
:func:`array_api_compat.array_namespace` (scipy's array-API dispatch pattern). This module picks the
backend (an argument, else ``DPTHEORY_BACKEND``, else ``"numpy"``), makes the one seeded generator of a
run, and moves results back to NumPy. A requested CuPy that is not installed (or finds no GPU) falls back to
NumPy with a :class:`RuntimeWarning`, never an error.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from types import ModuleType

import array_api_compat
import numpy as np

__all__ = ["Backend", "get_backend", "BACKENDS"]

BACKENDS = ("numpy", "cupy")


@dataclass(frozen=True)
class Backend:
    """An array namespace ``xp`` plus how to seed a generator and return arrays to NumPy."""

    name: str
    xp: ModuleType
    _native: ModuleType

    def rng(self, seed: int):
        """One generator per run (NumPy ``default_rng`` / CuPy ``random.default_rng``); same seed, same numbers."""
        return self._native.random.default_rng(seed)

    def asarray(self, x, dtype=None):
        return self.xp.asarray(x, dtype=dtype if dtype is not None else self.xp.float64)

    def to_numpy(self, x) -> np.ndarray:
        return np.asarray(x.get() if self.name == "cupy" else x)


def _numpy() -> Backend:
    return Backend("numpy", array_api_compat.array_namespace(np.zeros(1)), np)


def get_backend(name: str | None = None) -> Backend:
    """The backend called ``name`` (``"numpy"``/``"cupy"``), else ``$DPTHEORY_BACKEND``, else NumPy."""
    name = (name or os.environ.get("DPTHEORY_BACKEND") or "numpy").lower()
    if name not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {name!r}")
    if name == "numpy":
        return _numpy()
    try:
        import cupy  # noqa: PLC0415  (optional dependency)

        cupy.zeros(1)  # fails without a usable GPU
    except Exception as exc:  # ImportError, or a CUDA runtime error
        warnings.warn(f"CuPy backend unavailable ({exc.__class__.__name__}: {exc}); falling back to NumPy", RuntimeWarning, stacklevel=2)
        return _numpy()
    return Backend("cupy", array_api_compat.array_namespace(cupy.zeros(1)), cupy)
