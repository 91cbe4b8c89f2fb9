"""Shared test configuration.

Hypothesis runs derandomised in CI (reproducible; jax_privacy's pattern); ``DPTHEORY_HYPOTHESIS=thorough``
selects a heavier random profile for local exploration.
"""

import os

from hypothesis import settings

settings.register_profile("ci", max_examples=40, derandomize=True, deadline=None)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("DPTHEORY_HYPOTHESIS", "ci"))
