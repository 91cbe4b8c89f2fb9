"""The shared-layer names seed 003 is read with (re-exported by :mod:`dptheory.blt`)."""

from ..mechanisms import (  # noqa: F401
    BLT, Participation, PrefixLoss, blt_coeffs, max_error, max_loss, output_scales, prefix_loss, rms_error, rms_loss,
)

__all__ = ["BLT", "output_scales", "blt_coeffs", "Participation", "PrefixLoss", "prefix_loss", "max_error", "rms_error",
           "max_loss", "rms_loss"]
