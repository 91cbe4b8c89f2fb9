"""The array backend of the simulators: NumPy by default, CuPy on a GPU, array-api-strict as the GPU stand-in.
The only module that knows CuPy or array-api-strict.

Kernels never import NumPy or CuPy: they receive arrays and take their namespace with
:func:`array_api_compat.array_namespace` (scipy's array-API dispatch pattern). This module picks the
backend (an argument, else ``DPTHEORY_BACKEND``, else ``"numpy"``), makes the one seeded generator of a
run, and moves results back to NumPy. A requested CuPy that is not installed (or finds no GPU) falls back to
NumPy with a :class:`RuntimeWarning`, never an error.

``"array_api_strict"`` runs the kernels on the standard's strict reference namespace (``array-api-strict``, a test
dependency): anything a kernel takes from NumPy that the standard lacks, an implicit host conversion, indexing the
standard leaves unspecified or a dtype it does not have fails there as it would on a GPU. Its random numbers are
NumPy's ``default_rng`` moved in through the namespace, so a seed gives the numbers of the NumPy backend.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from types import ModuleType

import array_api_compat
import numpy as np

__all__ = ["Backend", "MovedGenerator", "get_backend", "BACKENDS"]

BACKENDS = ("numpy", "cupy", "array_api_strict")


class MovedGenerator:
    """NumPy's ``Generator`` whose draws come back as arrays of ``xp`` (array-api-strict).

    The numbers are those of the NumPy backend for the same seed, delivered as a GPU generator delivers them (on
    the device, in its namespace).

    Parameters
    ----------
    generator : numpy.random.Generator
        The generator that draws the numbers.
    xp : module
        The array namespace the draws are moved into.
    """

    _DRAWS = ("random", "standard_normal", "normal", "uniform", "integers", "choice", "permutation")

    def __init__(self, generator: np.random.Generator, xp: ModuleType):
        self._generator, self._xp = generator, xp

    def __getattr__(self, name):
        method = getattr(self._generator, name)
        if name not in self._DRAWS:
            return method
        return lambda *args, **kwargs: self._xp.asarray(method(*args, **kwargs))


@dataclass(frozen=True)
class Backend:
    """An array namespace ``xp`` plus how to seed a generator and return arrays to NumPy.

    Attributes
    ----------
    name : {"numpy", "cupy", "array_api_strict"}
        The backend's name (:data:`BACKENDS`).
    xp : module
        The array namespace the kernels compute in.
    _native : module
        The library whose ``random.default_rng`` seeds the generator (NumPy or CuPy).
    """

    name: str
    xp: ModuleType
    _native: ModuleType

    def rng(self, seed: int):
        """One generator per run; same seed, same numbers; its draws are arrays of ``xp``.

        NumPy ``default_rng`` / CuPy ``random.default_rng`` / NumPy's moved into array-api-strict
        (:class:`MovedGenerator`).

        Parameters
        ----------
        seed : int
            The seed.

        Returns
        -------
        numpy.random.Generator, cupy.random.Generator or MovedGenerator
            The run's generator.
        """
        generator = self._native.random.default_rng(seed)
        return MovedGenerator(generator, self.xp) if self.name == "array_api_strict" else generator

    def asarray(self, x, dtype=None):
        """``x`` as an array of ``xp`` (``float64`` unless ``dtype`` is given).

        Parameters
        ----------
        x : array_like
            The data.
        dtype : dtype, optional
            The dtype; ``None`` (default) is ``xp.float64``.

        Returns
        -------
        array
            An array of ``xp``.
        """
        return self.xp.asarray(x, dtype=dtype if dtype is not None else self.xp.float64)

    def to_numpy(self, x) -> np.ndarray:
        """An array of ``xp`` moved back to NumPy (from the GPU for CuPy).

        Parameters
        ----------
        x : array
            An array of ``xp``.

        Returns
        -------
        numpy.ndarray
            The same values as a NumPy array.
        """
        if self.name == "cupy":
            return np.asarray(x.get())
        if self.name == "array_api_strict":
            return np.from_dlpack(x) if hasattr(x, "__dlpack__") else np.asarray(x)
        return np.asarray(x)


def _numpy() -> Backend:
    return Backend("numpy", array_api_compat.array_namespace(np.zeros(1)), np)


def get_backend(name: str | None = None) -> Backend:
    """The backend called ``name`` (:data:`BACKENDS`), else ``$DPTHEORY_BACKEND``, else NumPy.

    A requested CuPy that is not installed (or finds no GPU) falls back to NumPy with a :class:`RuntimeWarning`.

    Parameters
    ----------
    name : {"numpy", "cupy", "array_api_strict"}, optional
        The backend (case-insensitive); ``None`` (default) reads ``$DPTHEORY_BACKEND``, else ``"numpy"``.

    Returns
    -------
    Backend
        The backend.

    Raises
    ------
    ValueError
        For a name not in :data:`BACKENDS`.
    """
    name = (name or os.environ.get("DPTHEORY_BACKEND") or "numpy").lower()
    if name not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {name!r}")
    if name == "numpy":
        return _numpy()
    if name == "array_api_strict":
        import array_api_strict  # noqa: PLC0415  (test dependency)

        return Backend("array_api_strict", array_api_strict, np)
    try:
        import cupy  # noqa: PLC0415  (optional dependency)

        cupy.zeros(1)  # fails without a usable GPU
    except Exception as exc:  # ImportError, or a CUDA runtime error
        warnings.warn(f"CuPy backend unavailable ({exc.__class__.__name__}: {exc}); falling back to NumPy (install the "
                      f"CuPy wheel of the driver's CUDA major version: pip install -e '.[gpu]' for CUDA 13, "
                      f"'.[gpu-cuda12]' for CUDA 12; nvidia-smi prints it)", RuntimeWarning, stacklevel=2)
        return _numpy()
    return Backend("cupy", array_api_compat.array_namespace(cupy.zeros(1)), cupy)
