"""Verification scripts: one module per figure or group of claims; ``python -m verify`` runs them all."""
