"""Reference values from jax_privacy 2.0 `matrix_factorization.buffered_toeplitz` (seed 003's BLTs):
the automatic choice of the number of buffers (`optimize`), the RA-BLT of arXiv 2404.16706v2 Prop. 4.5
(`BufferedToeplitz.from_rational_approx_to_sqrt_x`) and the Pillutla score (arXiv 2504.21413 Thm 1).

Run in a scratch venv with `pip install jax-privacy==2.0.0` (not a dependency of dptheory):
    python tests/peer_values/jax_privacy_blt_features.py   (writes the JSON beside it)

Every loss here is jax_privacy's, i.e. SQUARED (dptheory's MaxLoss / RmsLoss are the square roots);
error='mean' is the mean squared error, dptheory's loss='rms' squared.
"""
import json, time
from pathlib import Path
from importlib.metadata import version

import jax
jax.config.update('jax_enable_x64', True)
from jax_privacy.matrix_factorization import buffered_toeplitz as bt

# (n, min_sep, max_participations, error); min_sep=1, max_participations=1 is single participation
CASES = [
    (1000, 100, 10, 'max'),
    (1500, 100, 15, 'max'),
    (512, 128, 4, 'mean'),
    (2000, 1, 1, 'max'),
    (2000, 400, 5, 'mean'),
]
MIN_BUFFERS, MAX_BUFFERS, RTOL = 1, 10, 1.01

# BLTs of our own for the Pillutla score: (theta, omega), omega > 0
SCORE_BLTS = [
    ([0.9], [0.5]),
    ([0.9], [0.95]),            # score > 1: an inverse decay < 0
    ([0.99, 0.5], [0.1, 0.3]),
    ([0.99, 0.5], [0.2, 0.45]),  # score > 1
    ([0.999, 0.9, 0.3], [0.01, 0.1, 0.2]),
    ([0.95, 0.7, 0.2], [0.1, 0.2, 0.15]),  # score > 1
]
# RA-BLT settings: (num_buffers, max_buf_decay, max_pillutla_score, buf_decay_scale, buf_decay_shift)
RA = ([(d, 1.0, None, 1.6, -1) for d in range(1, 9)]
      + [(d, 1 - 1e-6, 1 - 1e-6, 1.6, -1) for d in range(1, 9)]  # get_init_blt's
      + [(3, 1.0, None, 1.2, 0), (5, 0.999, 0.9, 2.0, -2), (6, 1.0, None, 1.6, 1)])


def as_lists(blt):
  return [float(x) for x in blt.buf_decay], [float(x) for x in blt.output_scale]


def run_case(n, min_sep, k, error):
  # record every optimize_loss call that optimize() makes (its per-d optimum and squared loss)
  calls = []
  original = bt.optimize_loss

  def recording(loss_fn, num_buffers=1, **kwargs):
    t0 = time.time()
    try:
      blt, loss = original(loss_fn, num_buffers=num_buffers, **kwargs)
    except RuntimeError as err:
      calls.append(dict(d=num_buffers, error=str(err)[:300], seconds=round(time.time() - t0, 2)))
      raise
    theta, omega = as_lists(blt)
    calls.append(dict(d=num_buffers, theta=theta, omega=omega, loss=float(loss),
                      seconds=round(time.time() - t0, 2)))
    return blt, loss

  bt.optimize_loss = recording
  t0 = time.time()
  try:
    blt = bt.optimize(n=n, min_sep=min_sep, max_participations=k, error=error,
                      min_buffers=MIN_BUFFERS, max_buffers=MAX_BUFFERS, rtol=RTOL)
  finally:
    bt.optimize_loss = original
  seconds = time.time() - t0
  kk = bt.sensitivity.minsep_true_max_participations(n=n, min_sep=min_sep, max_participations=k)
  if kk == 1 and error == 'max':
    loss_fn = bt.LossFn.build_closed_form_single_participation(n=n)
    route = 'LossFn.build_closed_form_single_participation(n)'
  else:
    loss_fn = bt.LossFn.build_min_sep(n=n, error=error, min_sep=min_sep, max_participations=k)
    route = 'LossFn.build_min_sep(n, error, min_sep, max_participations)'
  loss = float(loss_fn.loss(blt))
  # the same loss by the materialised route (toeplitz.py), whatever optimize used
  mat = bt.LossFn.build_min_sep(n=n, error=error, min_sep=min_sep, max_participations=k)
  theta, omega = as_lists(blt)
  return dict(n=n, min_sep=min_sep, max_participations=k, error=error, min_buffers=MIN_BUFFERS,
              max_buffers=MAX_BUFFERS, rtol=RTOL, theta=theta, omega=omega, buffers=len(theta),
              loss=loss, loss_route=route, loss_materialised=float(mat.loss(blt)),
              per_buffers=calls, seconds=round(seconds, 2))


def main():
  out = dict(cases=[], rational=[], pillutla=[])
  for case in CASES:
    rec = run_case(*case)
    out['cases'].append(rec)
    print(f"{case}: d={rec['buffers']} loss={rec['loss']!r} materialised={rec['loss_materialised']!r} "
          f"per-d={[(c['d'], c.get('loss')) for c in rec['per_buffers']]} t={rec['seconds']}s", flush=True)
  with jax.enable_x64():
    for (d, max_decay, max_score, scale, shift) in RA:
      rec = dict(buffers=d, max_decay=max_decay, max_pillutla_score=max_score, decay_scale=scale,
                 decay_shift=shift)
      try:
        blt = bt.BufferedToeplitz.from_rational_approx_to_sqrt_x(
            d, max_buf_decay=max_decay, max_pillutla_score=max_score, buf_decay_scale=scale,
            buf_decay_shift=shift)
      except (RuntimeError, ValueError, AssertionError) as err:  # jax's own inverse check can refuse
        out['rational'].append(dict(rec, error=f'{type(err).__name__}: {str(err).splitlines()[0][:200]}'))
        print('RA-BLT', rec, 'refused:', type(err).__name__, flush=True)
        continue
      theta, omega = as_lists(blt)
      out['rational'].append(dict(rec, theta=theta, omega=omega,
                                  pillutla_score=float(blt.pillutla_score()),
                                  coeffs=[float(c) for c in blt.toeplitz_coefs(64)]))
    for theta, omega in SCORE_BLTS:
      blt = bt.BufferedToeplitz.build(buf_decay=theta, output_scale=omega)
      inv = blt.inverse()
      out['pillutla'].append(dict(theta=theta, omega=omega, pillutla_score=float(blt.pillutla_score()),
                                  inverse_theta=as_lists(inv)[0], inverse_omega=as_lists(inv)[1]))
  out['source'] = (
      f"jax_privacy {version('jax-privacy')}, jax {version('jax')}, jaxlib {version('jaxlib')}, "
      f"optax {version('optax')}, numpy {version('numpy')}, CPU, x64. Cases: "
      "jax_privacy.matrix_factorization.buffered_toeplitz.optimize(n=, min_sep=, max_participations=, "
      f"error=, min_buffers={MIN_BUFFERS}, max_buffers={MAX_BUFFERS}, rtol={RTOL}); 'loss' is the SQUARED loss "
      "of the returned BLT by the LossFn optimize itself builds (closed form for single participation max, "
      "else materialised), 'loss_materialised' by LossFn.build_min_sep; 'per_buffers' records every "
      "optimize_loss call optimize made (its per-d optimum and squared loss). rational: "
      "BufferedToeplitz.from_rational_approx_to_sqrt_x(num_buffers, max_buf_decay=, max_pillutla_score=, "
      "buf_decay_scale=, buf_decay_shift=), coeffs = toeplitz_coefs(64). pillutla: BufferedToeplitz.build("
      "theta, omega).pillutla_score() and .inverse().")
  with open(Path(__file__).with_suffix('.json'), 'w') as f:
    json.dump(out, f, indent=1)


if __name__ == '__main__':
  main()
