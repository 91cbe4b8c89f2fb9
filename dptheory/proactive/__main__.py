"""``python -m dptheory.proactive``: seed 001's DP calculators and closed form from the command line.

Examples::

    python -m dptheory.proactive calculator --sigma 19.29962 --N 10000 --k 5 --variant paper    # Table 9
    python -m dptheory.proactive calculator --sigma 6.572 --N 50000 --k 7 --accountant pld clt --asym-batch 2
    python -m dptheory.proactive phases --K-j 50000 --N 10000 --eps-target 0.25 --delta 1e-4 --sigma-rule legacy --variant paper
    python -m dptheory.proactive sigma --eps 0.05 --delta 1e-4
    python -m dptheory.proactive eps --sigma 19.29962 --delta 1e-4
"""

from __future__ import annotations

import argparse
import sys

from ..accounting import ACCOUNTANTS
from ..hypotheses import ConditionError
from . import closed_form as cf
from .calculators import SIGMA_RULES, calculator, phase_calculator


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gamma", choices=cf.GAMMA_READINGS, default="paper",
                   help="eq. (55) reading: one-step value of the paper's calculator, or the smallest root")
    p.add_argument("--variant", choices=("corrected", "paper"), default="corrected",
                   help="eq. (55) as printed ('paper') or with the corrected first term (default)")
    p.add_argument("--delta", type=float, default=None, help="default 1/N")


def _calculator(a) -> str:
    r = calculator(a.sigma, a.N, a.k, a.theta, a.gamma, delta=a.delta, variant=a.variant)
    out = [r.table()]
    for acc in a.accountant:
        cols = r.exact_columns(acc, a.asym_batch)
        out.append(f"  ε by {acc} ({cols[0].sampling}; {cols[0].neighbouring}; "
                   f"{'upper bound' if cols[0].certified else 'estimate'}): "
                   f"{cols[0].eps:.4f} at (s_max, T_min), {cols[1].eps:.4f} at the asymptotic pair"
                   + (f" (batch × {a.asym_batch:g})" if a.asym_batch != 1 else "")
                   + f"; factor ε_target/ε = {r.eps / cols[0].eps:.4f} / {r.eps / cols[1].eps:.4f}")
    return "\n".join(out)


def _phases(a) -> str:
    prev = [tuple(float(v) for v in item.split(":")) for item in a.previous]
    ph = phase_calculator(a.K_j, a.N, a.eps_target, previous=prev, sigma_j=a.sigma_j, delta=a.delta,
                          sigma_rule=a.sigma_rule, gamma=a.gamma, variant=a.variant)
    if ph is None:
        return "E.1 calculator: even s = 1 fails (32), (33) or ε ≤ ε_target: the client cannot participate."
    lines = [f"E.1 calculator (Thm B.4): largest accepted sample size s = {ph.s}",
             f"  rounds of this phase T_j = {ph.T:.2f}, ε = {ph.eps:.6g}, σ = {ph.sigma:.6g}, γ = {ph.gamma:.6g}, "
             f"θ = {ph.theta:.4g}, s̄ = {ph.s_bar:.6g}, K = {ph.K:g}"]
    lines += [f"    {c}" for c in ph.conditions]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dptheory.proactive", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("calculator", help="App. D.4: eps, gamma, T_min, s_max from (sigma, N, k, theta)")
    p.add_argument("--sigma", type=float, required=True)
    p.add_argument("--N", type=float, required=True, help="local data-set size")
    p.add_argument("--k", type=float, required=True, help="epochs, K = kN")
    p.add_argument("--theta", type=float, default=1.0, help="s_max / s_bar (default 1)")
    p.add_argument("--accountant", nargs="*", choices=ACCOUNTANTS, default=["clt"],
                   help="accountants for the eps row (default: clt, the paper's)")
    p.add_argument("--asym-batch", type=float, default=1.0,
                   help="batch multiplier in the asymptotic column (2 reproduces the printed tables)")
    _common(p)
    p = sub.add_parser("phases", help="App. E.1: the largest sample size of the next phase (Thm B.4)")
    p.add_argument("--K-j", type=float, required=True, help="gradient computations of the new phase")
    p.add_argument("--N", type=float, required=True)
    p.add_argument("--eps-target", type=float, required=True)
    p.add_argument("--previous", nargs="*", default=[], metavar="S:T", help="finished phases as s_i:T_i")
    p.add_argument("--sigma-j", type=float, default=None, help="the lowered sigma of a later phase")
    p.add_argument("--sigma-rule", choices=SIGMA_RULES, default="eq6")
    _common(p)
    p = sub.add_parser("sigma", help="eq. (6): sigma from (eps, delta), with the legacy formula beside it")
    p.add_argument("--eps", type=float, required=True)
    p.add_argument("--delta", type=float, required=True)
    p = sub.add_parser("eps", help="inverse of eq. (6): eps from (sigma, delta)")
    p.add_argument("--sigma", type=float, required=True)
    p.add_argument("--delta", type=float, required=True)
    a = parser.parse_args(argv)
    try:
        if a.command == "calculator":
            print(_calculator(a))
        elif a.command == "phases":
            print(_phases(a))
        elif a.command == "sigma":
            print(f"σ = {cf.sigma_from_eps(a.eps, a.delta):.6f} (eq. 6); legacy √(2 ln(1/δ)/ε) = "
                  f"{cf.legacy_sigma_from_eps(a.eps, a.delta):.6f} (Tables 3–8)")
        else:
            print(f"ε = {cf.eps_from_sigma(a.sigma, a.delta):.6f} (eq. 6); legacy 2 ln(1/δ)/σ² = "
                  f"{cf.legacy_eps_from_sigma(a.sigma, a.delta):.6f} (Tables 3–5)")
    except (ValueError, ConditionError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
