r"""Privacy accounting shared by every paper of the toolkit.

* :mod:`.models`: the sampling model and neighbouring relation of a result as values (:class:`Sampling`,
  :class:`Neighbouring`) and :class:`EpsilonResult`, an accountant's ε with its model;
* :mod:`.zcdp`: seed 004, Thm 1.1 noise multiplier and ρ-zCDP ↔ (ε, δ) (App. A.2, Bun–Steinke Prop. 1.3);
* :mod:`.classic`: the classic Gaussian mechanism, advanced composition and amplification by subsampling
  (Dwork–Roth Thms A.1, 3.20);
* :mod:`.gdp`: Gaussian DP (Dong–Roth–Su Cor. 2.13, seed 001 eq. (64)) and the CLT μ of DP-SGD (eq. (65));
* :mod:`.dpsgd`: PLD, RDP, CLT, Monte-Carlo and fixed-batch replace-one accountants of DP-SGD, the
  ``dp_accounting`` adapters, the fewest rounds and the smallest σ that certify a target;
* :mod:`.montecarlo`: δ(ε) and ε(δ) of DP-SGD from importance-sampled privacy losses, with a CI; its proposals
  (exponential tilts of each direction's loss, :func:`default_proposal`) are in :mod:`.montecarlo_tilts`, the
  kernel that draws the paths in :mod:`.montecarlo_paths`;
* :mod:`.conversions`: ρ-zCDP → (ε, δ) three ways (classic, improved on all orders or on seed 000's grid,
  exact Gaussian) and their inverses, σ for an exact target (seed 000, errata 000 §2.11);
* :mod:`.cyclic_poisson`: DP-SGD and banded strategies amplified by cyclic Poisson sampling (Choquette-Choo et al.
  2023): ε(σ) and σ(ε) through the PLD;
* :mod:`.sampling`: the sampling schemes of a training run as values (Poisson, cyclic Poisson, min-separated,
  fixed order): which mechanisms each applies to, its sensitivity and its accountant;
* :mod:`.calibration`: the one calibration of any mechanism to ρ-zCDP at a horizon and participation
  (:func:`calibrate_noise`), used by ``F_inf``, ``simulate`` and ``F_inf_bound``.

A public function whose arguments include two numbers or more takes its first argument positionally and the
others by keyword only, so that two numbers of the same kind (ε and δ, σ and q, ...) cannot be swapped.

>>> from dptheory import accounting
>>> round(accounting.zcdp_to_epsilon(0.5, delta=1e-5), 4)
4.7284
>>> accounting.exact_epsilon(2.0, q=1.0, T=1, delta=1e-5, accountant="clt_poisson").sampling
<Sampling.POISSON: 'Poisson sampling with rate q'>
"""

from .._lazy import lazy_exports

# name -> the module that defines it; modules load on first use (PEP 562), so a consumer of the zCDP
# calibration does not pay for scipy.stats and dp_accounting (tests/test_architecture.py checks the table)
_EXPORTS = {
    "models": ('Sampling', 'Neighbouring', 'EpsilonResult'),
    "zcdp": ('CONVERSION_METHODS', 'noise_multiplier', 'zcdp_to_epsilon', 'epsilon_to_zcdp', 'noise_multiplier_for'),
    "classic": ('advanced_composition', 'gaussian_sigma_classic', 'subsampled_epsilon'),
    "gdp": ('gdp_delta', 'gdp_epsilon', 'gdp_mu', 'mu_clt'),
    "dpsgd": ('ACCOUNTANTS', 'PLD_DISCRETIZATION', 'PLD_MAX_POINTS', 'PLD_MAX_T', 'PLD_MIN_RTOL', 'PLD_RTOL', 'accountant_epsilon', 'dp_accounting_module', 'wor_rdp_epsilon', 'exact_epsilon', 'pld_accountant', 'rdp_accountant', 'replace_one_sensitivity', 'exact_minimal_T', 'calibrate_sigma'),
    "montecarlo": ('MIN_ESS', 'MonteCarloWarning', 'DirectionDelta', 'MonteCarloDelta', 'MonteCarloEpsilon', 'mc_delta', 'mc_epsilon'),
    "montecarlo_tilts": ('default_proposal',),
    "calibration": ('calibrate_noise',),
    "cyclic_poisson": ('cyclic_poisson_rounds', 'cyclic_poisson_epsilon', 'cyclic_poisson_sigma'),
    "sampling": ('PoissonSampling', 'CyclicPoisson', 'MinSeparated', 'FixedOrder', 'SCHEMES'),
    "rdp": ('rdp_sample_wor_gaussian', 'rdp_poisson_gaussian'),
    "conversions": ('CONVERSIONS', 'PAPER_ORDERS', 'epsilon_from_rho', 'rho_from_epsilon', 'sigma_for_epsilon'),
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
