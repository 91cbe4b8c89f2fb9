"""Verification scripts: one module per figure or group of claims; ``python -m verify`` runs them all.

One BLAS thread per process: ``python -m verify`` parallelises over processes (its scripts, their simulations),
and multi-threaded OpenBLAS on busy cores costs milliseconds per tiny call (scipy's L-BFGS-B on an 8-variable
problem, 2 busy cores: 6 ms per evaluation with OpenBLAS's threads, 0.15–0.2 ms with one). Set here, before NumPy
is loaded by ``python -m verify``; a value already in the environment is kept.
"""

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
