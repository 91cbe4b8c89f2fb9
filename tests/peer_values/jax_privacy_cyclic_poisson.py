"""Reference epsilons from jax_privacy 2.0 DpsgdTrainingAccountant (cyclic Poisson,
Choquette-Choo et al. 2023, arXiv 2306.08153), PLD accountant, add/remove adjacency.

Run in a scratch venv with `pip install jax-privacy==2.0.0` (not a dependency of dptheory):
    python tests/peer_values/jax_privacy_cyclic_poisson.py   (writes the JSON beside it)
"""
import json, math, time
from pathlib import Path
from importlib.metadata import version

import dp_accounting
from jax_privacy.accounting import (DpParams, DpsgdTrainingAccountant,
                                    PldAccountantConfig)

# (nm, N, B, steps, cycle)
ROWS = [
    (1.0, 60000, 256, 2344, 1),
    (0.8, 10000, 100, 1000, 1),
    (1.2, 60000, 256, 2344, 4),
    (2.0, 50000, 500, 400, 4),
    (1.5, 60000, 256, 2344, 16),
    (3.0, 100000, 1000, 1600, 16),
    (4.0, 60000, 128, 4680, 100),
    (6.0, 1000000, 5000, 2000, 100),
    # N not divisible by cycle_length (floor of N / cycle):
    (1.5, 60001, 256, 2344, 16),   # 60001//16 = 3750 == 60000//16 -> same eps as row 5
    (1.5, 10007, 100, 500, 4),     # 10007//4 = 2501 (vs 2501.75)
    (4.0, 1999, 10, 1000, 100),    # 1999//100 = 19 (vs 19.99): floor-sensitive
]
DELTAS = [1e-5, 1e-6]
DISCS = [1e-4, 5e-5, 2.5e-5, 1.25e-5]  # go finer until halving moves eps < 1e-4 rel
TOL = 1e-4


def jax_eps(nm, n, b, steps, cycle, delta, disc):
  acc = DpsgdTrainingAccountant(
      dp_accountant_config=PldAccountantConfig(value_discretization_interval=disc))
  p = DpParams(noise_multipliers=nm, num_samples=n, delta=delta, batch_size=b,
               cycle_length=cycle)
  return float(acc.compute_epsilon(num_updates=steps, dp_params=p))


def plain_eps(q, nm, count, delta, disc):
  acc = dp_accounting.pld.PLDAccountant(
      neighboring_relation=dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
      value_discretization_interval=disc)
  acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(nm)),
              count)
  return float(acc.get_epsilon(target_delta=delta))


def main():
  out = []
  max_rel_plain = 0.0
  for (nm, n, b, steps, cycle) in ROWS:
    for delta in DELTAS:
      t0 = time.time()
      vals = {}
      fine = coarse = None
      for i, d in enumerate(DISCS):
        vals[d] = jax_eps(nm, n, b, steps, cycle, delta, d)
        if i > 0:
          prev = DISCS[i - 1]
          if abs(vals[d] - vals[prev]) / vals[d] < TOL:
            fine, coarse = d, prev
            break
      if fine is None:
        fine, coarse = DISCS[-1], DISCS[-2]
      t_jax = time.time() - t0
      q = b / (n // cycle)
      count = math.ceil(steps / cycle)
      ep = plain_eps(q, nm, count, delta, fine)
      rel_plain = abs(ep - vals[fine]) / vals[fine]
      max_rel_plain = max(max_rel_plain, rel_plain)
      rec = dict(noise_multiplier=nm, dataset_size=n, batch_size=b, steps=steps,
                 cycle_length=cycle, delta=delta, epsilon=vals[fine],
                 epsilon_coarse=vals[coarse], discretization=fine,
                 discretization_coarse=coarse,
                 sampling_probability=q, num_compositions=count,
                 epsilon_all_discretizations={repr(k): v for k, v in vals.items()},
                 epsilon_plain_dp_accounting=ep,
                 seconds=round(t_jax, 2))
      if n % cycle:
        # what you'd get WITHOUT the floor (q = B*cycle/N), same discretization
        rec['epsilon_if_no_floor'] = plain_eps(b * cycle / n, nm, count, delta, fine)
      out.append(rec)
      print(f"nm={nm} N={n} B={b} T={steps} c={cycle} d={delta:g} q={q:.6g} k={count} "
            f"eps={vals[fine]:.6f} (disc {fine:g}) coarse={vals[coarse]:.6f} (disc {coarse:g}) "
            f"rel={abs(vals[fine]-vals[coarse])/vals[fine]:.2e} plain_rel={rel_plain:.1e} "
            f"{'nofloor=%.6f ' % rec['epsilon_if_no_floor'] if n % cycle else ''}t={t_jax:.1f}s",
            flush=True)

  # batch*cycle > N check
  try:
    jax_eps(1.0, 1000, 100, 100, 16, 1e-5, 1e-4)
    refusal = 'not refused'
  except ValueError as e:
    refusal = f'ValueError: {e}'
  print('B*cycle>N (N=1000,B=100,c=16):', refusal)

  source = (
      f"jax_privacy {version('jax-privacy')}, dp_accounting {version('dp-accounting')}, "
      f"jax {version('jax')}, jaxlib {version('jaxlib')}, numpy {version('numpy')}, "
      f"scipy {version('scipy')}. Call: "
      "jax_privacy.accounting.DpsgdTrainingAccountant(dp_accountant_config="
      "jax_privacy.accounting.PldAccountantConfig(value_discretization_interval=disc))"
      ".compute_epsilon(num_updates=steps, dp_params=jax_privacy.accounting.DpParams("
      "noise_multipliers=nm, num_samples=N, delta=delta, batch_size=B, cycle_length=cycle)) "
      "[default sampling_method=POISSON, PLD ADD_OR_REMOVE_ONE; internally "
      "PoissonSampledDpEvent(B/(N//cycle), GaussianDpEvent(nm)) composed ceil(steps/cycle) times]. "
      f"Discretization halved from 1e-4 until |eps(d)-eps(2d)|/eps(d) < {TOL}; epsilon=eps(d), "
      "epsilon_coarse=eps(2d). epsilon_plain_dp_accounting: same reduction by hand with "
      f"dp_accounting.pld.PLDAccountant at discretization d; max rel diff = {max_rel_plain:.3g}. "
      f"B*cycle>N check: {refusal}.")
  with open(Path(__file__).with_suffix('.json'), 'w') as f:
    json.dump({'source': source, 'cases': out}, f, indent=1)
  print('max rel diff plain vs jax:', max_rel_plain)


if __name__ == '__main__':
  main()
