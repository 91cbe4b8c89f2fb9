"""``python -m dptheory.proactive`` (also ``dptheory proactive``): seed 001's DP calculators and closed form.

Examples::

    python -m dptheory.proactive calculator --sigma 19.29962 --N 10000 --k 5 --variant paper    # Table 9
    python -m dptheory.proactive calculator --sigma 6.572 --N 50000 --k 7 --accountant pld clt --asym-batch 2
    python -m dptheory.proactive phases --K-j 50000 --N 10000 --eps-target 0.25 --delta 1e-4 --sigma-rule legacy --variant paper
    python -m dptheory.proactive sigma --eps 0.05 --delta 1e-4
    python -m dptheory.proactive eps --sigma 19.29962 --delta 1e-4

Conventions (seed 001, van Dijk et al., Proactive DP; docs/notation.md): sigma is the noise multiplier (round
noise N(0, C^2 sigma^2 I) on a sum of gradients clipped to C); the closed form eq. (6) and the calculators'
theorems assume Poisson sampling with rate s/N and add/remove-one-record adjacency (footnotes 5 and 14);
delta is the delta of (eps, delta)-DP over the whole run (default 1/N, Thm 3.1 needs delta <= 1/N); eps is in
nats. An accountant's row names its own sampling model and neighbouring relation ("clt", the paper's, is an
estimate that counts a replaced record as sensitivity C, not 2C). --json prints one JSON object.
"""

from __future__ import annotations

import argparse
import sys

from .._cli_support import Parser, dumps, one_line
from ..accounting import ACCOUNTANTS
from . import closed_form as cf
from .calculators import SIGMA_RULES, calculator, phase_calculator

#: the subcommands :func:`add_commands` attaches, in order
COMMANDS = ("calculator", "phases", "sigma", "eps")
#: the conventions paragraph of the module docstring, the epilog of every subcommand's --help
_CONVENTIONS = ("Conventions" + __doc__.partition("Conventions")[2]).rstrip() if __doc__ else None  # None under -OO


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gamma", choices=cf.GAMMA_READINGS, default="paper",
                   help="eq. (55) reading: one-step value of the paper's calculator, or the smallest root")
    p.add_argument("--variant", choices=("corrected", "paper"), default="corrected",
                   help="eq. (55) as printed ('paper') or with the corrected first term (default)")
    p.add_argument("--delta", type=float, default=None, help="delta of (eps, delta)-DP over the run (default 1/N)")


def _condition(c) -> dict:
    return {"label": c.label, "statement": c.statement, "lhs": c.lhs, "op": c.op, "rhs": c.rhs, "holds": c.holds,
            "slack": c.slack}


def _calculator(a) -> tuple[dict, str]:
    r = calculator(a.sigma, a.N, a.k, a.theta, a.gamma, delta=a.delta, variant=a.variant)
    out = [r.table()]
    data = {"command": "calculator", "sigma": r.sigma, "N": r.N, "k": r.k, "theta": r.theta, "delta": r.delta,
            "eps": r.eps, "gamma": r.gamma, "gamma_reading": r.reading, "variant": r.variant, "T_min": r.T_min,
            "s_max": r.s_max, "T_min_asym": r.T_min_asym, "s_max_asym": r.s_max_asym, "thm_3_1_holds": r.holds,
            "conditions": [_condition(c) for c in r.check.conditions], "accountants": []}
    for acc in a.accountant:
        cols = r.exact_columns(acc, a.asym_batch)
        out.append(f"  ε by {acc} ({cols[0].sampling}; {cols[0].neighbouring}; "
                   f"{'upper bound' if cols[0].certified else 'estimate'}): "
                   f"{cols[0].eps:.4f} at (s_max, T_min), {cols[1].eps:.4f} at the asymptotic pair"
                   + (f" (batch × {a.asym_batch:g})" if a.asym_batch != 1 else "")
                   + f"; factor ε_target/ε = {r.eps / cols[0].eps:.4f} / {r.eps / cols[1].eps:.4f}")
        data["accountants"].append({"accountant": acc, "sampling": cols[0].sampling, "neighbouring": cols[0].neighbouring,
                                    "certified": cols[0].certified, "eps_at_s_max_T_min": cols[0].eps,
                                    "eps_at_asymptotic_pair": cols[1].eps, "asym_batch": a.asym_batch})
    return data, "\n".join(out)


def _phases(a) -> tuple[dict, str]:
    try:
        prev = [tuple(float(v) for v in item.split(":")) for item in a.previous]
    except ValueError:
        raise ValueError(f"--previous takes finished phases as S:T pairs of numbers, got {' '.join(a.previous)}") from None
    if any(len(p) != 2 for p in prev):
        raise ValueError(f"--previous takes finished phases as S:T pairs, got {' '.join(a.previous)}")
    ph = phase_calculator(a.K_j, a.N, a.eps_target, previous=prev, sigma_j=a.sigma_j, delta=a.delta,
                          sigma_rule=a.sigma_rule, gamma=a.gamma, variant=a.variant)
    if ph is None:
        msg = "E.1 calculator: even s = 1 fails (32), (33) or ε ≤ ε_target: the client cannot participate."
        return {"command": "phases", "s": None, "message": msg}, msg
    lines = [f"E.1 calculator (Thm B.4): largest accepted sample size s = {ph.s}",
             f"  rounds of this phase T_j = {ph.T:.2f}, ε = {ph.eps:.6g}, σ = {ph.sigma:.6g}, γ = {ph.gamma:.6g}, "
             f"θ = {ph.theta:.4g}, s̄ = {ph.s_bar:.6g}, K = {ph.K:g}"]
    lines += [f"    {c}" for c in ph.conditions]
    data = {"command": "phases", "s": ph.s, "T": ph.T, "eps": ph.eps, "sigma": ph.sigma, "gamma": ph.gamma,
            "theta": ph.theta, "s_bar": ph.s_bar, "K": ph.K, "accepted": ph.accepted,
            "conditions": [_condition(c) for c in ph.conditions]}
    return data, "\n".join(lines)


def _sigma(a) -> tuple[dict, str]:
    sigma, legacy = cf.sigma_from_eps(a.eps, a.delta), cf.legacy_sigma_from_eps(a.eps, a.delta)
    text = f"σ = {sigma:.6f} (eq. 6); legacy √(2 ln(1/δ)/ε) = {legacy:.6f} (Tables 3–8)"
    return {"command": "sigma", "eps": a.eps, "delta": a.delta, "sigma": sigma, "legacy_sigma": legacy}, text


def _eps(a) -> tuple[dict, str]:
    eps, legacy = cf.eps_from_sigma(a.sigma, a.delta), cf.legacy_eps_from_sigma(a.sigma, a.delta)
    text = f"ε = {eps:.6f} (eq. 6); legacy 2 ln(1/δ)/σ² = {legacy:.6f} (Tables 3–5)"
    return {"command": "eps", "sigma": a.sigma, "delta": a.delta, "eps": eps, "legacy_eps": legacy}, text


def add_commands(subparsers, *, parents=()) -> dict:
    """Attach the subcommands of :data:`COMMANDS` to an ``argparse`` subparsers action.

    ``python -m dptheory.proactive`` and ``dptheory proactive`` both build their parsers here; each subcommand's
    handler is stored as the default ``proactive_handler`` (see :func:`run`).

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        What ``ArgumentParser.add_subparsers`` returned.
    parents : sequence of argparse.ArgumentParser, optional
        Parsers whose arguments every subcommand also takes (e.g. ``--json``).

    Returns
    -------
    dict
        Subcommand name -> its parser.
    """
    kw = {"parents": list(parents), "formatter_class": argparse.RawDescriptionHelpFormatter, "epilog": _CONVENTIONS}
    out = {}
    p = out["calculator"] = subparsers.add_parser(
        "calculator", help="App. D.4: eps, gamma, T_min, s_max from (sigma, N, k, theta)",
        description="App. D.4's DP calculator (Thm 3.1): eps_target = 2 ln(1/delta)/(sigma^2 - 2) (eq. 6), gamma of "
                    "eq. (55), T_min = gamma theta^2 k^2/eps and s_max = kN/T_min, with the asymptotic pair; "
                    "optionally an exact accountant's eps at both pairs (each stating its sampling model and "
                    "neighbouring relation).", **kw)
    p.add_argument("--sigma", type=float, required=True, help="noise multiplier (noise std sigma*C per round)")
    p.add_argument("--N", type=float, required=True, help="local data-set size")
    p.add_argument("--k", type=float, required=True, help="epochs, K = kN")
    p.add_argument("--theta", type=float, default=1.0, help="s_max / s_bar (default 1)")
    p.add_argument("--accountant", nargs="*", choices=ACCOUNTANTS, default=["clt"],
                   help="accountants for the eps row (default: clt, the paper's)")
    p.add_argument("--asym-batch", type=float, default=1.0,
                   help="batch multiplier in the asymptotic column (2 reproduces the printed tables)")
    _common(p)
    p.set_defaults(proactive_handler=_calculator)
    p = out["phases"] = subparsers.add_parser(
        "phases", help="App. E.1: the largest sample size of the next phase (Thm B.4)",
        description="App. E.1's calculator: the largest sample size s of a new phase of K_j gradient computations "
                    "that keeps the run within eps_target (Thm B.4's conditions (32)-(35)).", **kw)
    p.add_argument("--K-j", type=float, required=True, help="gradient computations of the new phase")
    p.add_argument("--N", type=float, required=True, help="local data-set size")
    p.add_argument("--eps-target", type=float, required=True, help="the eps the whole run may spend")
    p.add_argument("--previous", nargs="*", default=[], metavar="S:T", help="finished phases as s_i:T_i")
    p.add_argument("--sigma-j", type=float, default=None, help="the lowered sigma of a later phase")
    p.add_argument("--sigma-rule", choices=SIGMA_RULES, default="eq6", help="sigma from eps by eq. (6) or the legacy formula")
    _common(p)
    p.set_defaults(proactive_handler=_phases)
    p = out["sigma"] = subparsers.add_parser(
        "sigma", help="eq. (6): sigma from (eps, delta), with the legacy formula beside it",
        description="eq. (6): sigma = sqrt(2 (eps + ln(1/delta))/eps), and the legacy sqrt(2 ln(1/delta)/eps) of "
                    "Tables 3-8.", **kw)
    p.add_argument("--eps", type=float, required=True, help="eps of (eps, delta)-DP (nats)")
    p.add_argument("--delta", type=float, required=True, help="delta of (eps, delta)-DP, in (0, 1)")
    p.set_defaults(proactive_handler=_sigma)
    p = out["eps"] = subparsers.add_parser(
        "eps", help="inverse of eq. (6): eps from (sigma, delta)",
        description="The inverse of eq. (6): eps = 2 ln(1/delta)/(sigma^2 - 2) (needs sigma^2 > 2), and the legacy "
                    "2 ln(1/delta)/sigma^2 of Tables 3-5.", **kw)
    p.add_argument("--sigma", type=float, required=True, help="noise multiplier")
    p.add_argument("--delta", type=float, required=True, help="delta of (eps, delta)-DP, in (0, 1)")
    p.set_defaults(proactive_handler=_eps)
    return out


def run(args) -> tuple[dict, str]:
    """Run the subcommand that :func:`add_commands` parsed into ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed arguments of one subcommand of :data:`COMMANDS`.

    Returns
    -------
    tuple of (dict, str)
        The result as JSON-ready data and as text.
    """
    return args.proactive_handler(args)


def main(argv=None) -> int:
    """``python -m dptheory.proactive``: parse ``argv``, print the result; exit status 2 on bad input.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 on bad input (one line on stderr).
    """
    parser = Parser(prog="python -m dptheory.proactive", description=__doc__,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parsers = add_commands(sub, parents=[common])
    a = parser.parse_args(argv)
    try:
        data, text = run(a)
    except ValueError as exc:  # ConditionError is a ValueError
        print(f"{parsers[a.command].prog}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    print(dumps(data) if a.json else text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
