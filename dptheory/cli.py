r"""The ``dptheory`` command line: one subcommand per capability of the package (``docs/cli.md``).

``dptheory SUBCOMMAND --help`` states the units and conventions of each subcommand; ``--json`` prints one JSON
object on stdout instead of the human-readable lines (numbers as numbers, an infinite value as the string
``"inf"``, an absent one as ``null``). Bad input exits with status 2 and one line on stderr,
``dptheory SUBCOMMAND: error: MESSAGE``. ``python -m dptheory`` is the same command.

Building the parser imports no sub-package (so ``dptheory --help`` is fast): each handler imports what it uses,
and seed 001's calculators (``dptheory proactive``, the parsers of ``dptheory.proactive.__main__``) are attached
only when that subcommand is asked for.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

from ._cli_support import Parser, dumps, one_line

__all__ = ["main"]

# The choices offered on the command line, kept here so that building the parser imports nothing heavy;
# tests/test_cli.py checks each against the library's own tuple.
_ACCOUNTANTS = ("pld", "rdp", "clt", "clt_poisson", "mc", "rdp_wor")  # accounting.ACCOUNTANTS
_CONVERSIONS = ("classic", "improved", "exact")  # accounting.CONVERSIONS
_FAMILIES = ("dpsgd", "nu_ftrl", "sqrt", "blt", "blt_learned", "tree", "optimised", "banded")  # comparison.FAMILIES
_TREE_SCHEMES = ("single", "restart", "no_restart")  # treeagg.accounting.SCHEMES
_TREE_READOUTS = ("vanilla", "all")  # treeagg.accounting.READOUTS
_TREE_VARIANTS = ("exact", "paper", "upper")  # treeagg.accounting.NTR_VARIANTS
_TREE_ORDERS = ("fixed", "any")  # treeagg.accounting.ORDERS
_BLT_LOSSES = ("max", "rms")  # blt.optimizer.LOSSES
_F_KINDS = ("exact", "lti", "lower", "upper")  # suboptimality.F_inf's kind=
_MECHANISM_READOUTS = ("vanilla", "honaker", "full")  # mechanisms.tree.READOUTS

# -- conventions, as the --help texts state them ------------------------------------------------------------------

def _convention(label: str, text: str) -> str:
    """One entry of the conventions: ``label`` in a column of its own, ``text`` (lines) beside it."""
    lines = text.split("\n")
    return "\n".join([f"{label:<14}{lines[0]}", *(" " * 14 + line for line in lines[1:])])


_ZCDP = _convention("privacy", """\
rho-zCDP (Bun & Steinke 2016), rho > 0. The noise multiplier meeting it is
sigma_dp = sens/sqrt(2 rho) (seed 004 Thm 1.1): Gaussian noise of standard deviation
sigma_dp*G per coordinate on the released C x (G: the clip norm).""")
_DELTA = _convention("delta", """\
the delta of (eps, delta)-DP: the additive failure probability of the guarantee for
the whole run (not per step), in (0, 1). eps is in nats (natural logarithms).""")
_CONVERT = _convention("rho -> eps", """\
classic: Bun & Steinke Prop. 1.3, eps = rho + 2 sqrt(rho ln(1/delta)), any rho-zCDP
mechanism; improved: Balle et al. 2020 Thm 21 (seed 004 App. A.2), any rho-zCDP
mechanism; exact: the Gaussian privacy curve with mu = sqrt(2 rho), valid for Gaussian
mechanisms only (every matrix mechanism of this package is one).
classic >= improved >= exact.""")
_SENS = _convention("sensitivity", """\
the L2 sensitivity of the strategy C (the matrix mechanism releases C x + noise):
sens_Pi(C; n) = max over participation patterns pi of
max_{|u_i| <= 1} |sum_{i in pi} C[:, i] u_i|_2 (seed 003 eq. 6), in units of the clip
norm G. One participation: the largest column L2 norm of C, gamma_n (seed 004 Thm 1.1,
eq. 24). No --horizon: the streaming limit n -> inf, gamma_inf (seed 004 eq. 5;
stationary (Toeplitz) mechanisms only; inf where it diverges).""")
_ADJ = _convention("adjacency", """\
the sensitivity bounds each of one example's per-step contributions by G (|u_i| <= 1):
add/remove one example, i.e. its clipped gradients zeroed out ("zero-out") at the
steps it takes part in. Under replace-one adjacency a contribution moves by up to 2G:
double the sensitivity.""")
_PART = _convention("participation", """\
K:B = at most K participations of one example, any two at least B steps apart
(seed 003's Pi_{b,k}); 'single' (the default) = one participation (seed 004).""")
_OUTPUT = _convention("output", """\
aligned lines with units; --json: one JSON object on stdout (numbers as numbers, an
infinite value as the string "inf", an absent one as null). Bad input: exit status 2
and one line on stderr, 'dptheory SUBCOMMAND: error: MESSAGE'.""")


def _epilog(*parts: str) -> str:
    return "conventions (docs/notation.md):\n" + "\n".join("  " + p.replace("\n", "\n  ") for p in (*parts, _OUTPUT))


_MECHANISM_SPECS = """\
mechanism specs (dptheory.mechanisms):
  dpsgd                 DP-SGD, B = I (gamma = 1)
  nu_ftrl:NU            nu-DP-FTRL, 0 < NU < 1 (seed 004 eq. 7)
  optimal_cc            the square root / Optimal-CC, nu = 0 (gamma_inf = inf)
  anti_pgd              beta = (1, -1) (gamma_inf = inf)
  damped_anti_pgd:NU    beta = (1, -(1 - NU)), 0 < NU < 1
  beta_star:ETA         seed 004 Thm 2.1's beta* for mean estimation at learning rate ETA
  toeplitz:B0,B1,...    any finite noising sequence beta (seed 004's B = C^-1), B0 != 0
  blt:T1,T2/W1,W2       BLT(theta, omega) strategy (seed 003 Eq. 2): decays T, output scales W
  tree[:READOUT]        binary-tree aggregation (seed 000), READOUT vanilla, honaker (default) or full;
                        finite horizons only"""

_PROBLEM_SPECS = """\
problem specs (dptheory.problems):
  mean:eta=ETA[,sigma_sgd=S]                   mean estimation (seed 004 eq. 6), 0 < ETA < 2
  linreg:eta=ETA,d=D[,decay=A][,sigma_sgd=S]   Gaussian linear regression (seed 004 eq. 8) with
                                               H = diag(k^-A), k = 1..D (default A = 1)
  linreg:eta=ETA,eigs=L1:L2:...[,sigma_sgd=S]  the same with the eigenvalues of H given
  sc:eta=ETA,mu=MU,L=L[,sigma_sgd=S][,d=D]     strongly convex (seed 004 Thm 3.1; compare only)
F is the problem's own loss (F - F* = delta^2/2 for mean estimation, theta'^T H theta'/2 for
linear regression), so suboptimalities are in its units; G scales the privacy noise only."""


# -- parsing the specs --------------------------------------------------------------------------------------------

def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{what} must be a number, got {text!r}") from None


def _numbers(text: str, what: str, sep: str = ",") -> list[float]:
    items = [t for t in text.split(sep)]
    if not text or any(not t.strip() for t in items):
        raise ValueError(f"{what} must be a {sep!r}-separated list of numbers, got {text!r}")
    return [_number(t, what) for t in items]


def _integer(text: str, what: str) -> int:
    """``text`` as an int: digits, or a whole number written as a float (``1e9``)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if not math.isfinite(x) or x != int(x):
        raise ValueError(f"{what} must be an integer, got {text!r}")
    return int(x)


def _whole(text: str) -> int:
    """The argparse type of an integer option: :func:`_integer`, so that ``--horizon 1e9`` is 1000000000."""
    try:
        return _integer(text, "the value")
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer value: {text!r}") from None


#: The library's names of each subcommand's parameters -> the option as the user spells it (error messages)
_OPTION_NAMES = {
    "f-inf": {"horizon": "--horizon", "n": "--horizon", "rho": "--rho", "G": "--G"},
    "sensitivity": {"horizon": "--horizon", "n": "--horizon", "rho": "--rho"},
    "epsilon": {"sigma": "--sigma", "q": "--q", "T": "--T", "delta": "--delta", "rho": "--rho", "eps": "--epsilon",
                "epsilon": "--epsilon", "N": "--N"},
    "blt": {"n": "--horizon", "buffers": "--buffers", "starts": "--starts", "loss": "--loss"},
    "tree": {"n": "--n", "epochs": "--epochs", "sigma": "--sigma", "epsilon": "--epsilon", "delta": "--delta"},
    "compare": {"horizon": "--horizon", "n": "--horizon", "rho": "--rho", "eps": "--epsilon", "delta": "--delta",
                "G": "--G", "dataset_size": "--dataset-size", "batch_size": "--batch-size", "epochs": "--epochs"},
}
_PARTICIPATION_NAMES = {"max_participations": "K of --participation K:B", "min_sep": "B of --participation K:B",
                        "participation": "--participation"}
#: The options whose size a MemoryError most likely comes from, per subcommand
_SIZE_OPTIONS = {"f-inf": "--horizon or the d of --problem", "sensitivity": "--horizon or --participation",
                 "epsilon": "--T", "blt": "--horizon or --buffers", "tree": "--n or --epochs",
                 "compare": "--horizon or --participation"}


def _option_message(command: str | None, message: str) -> str:
    """``message`` naming the option as the user spelled it where it names a library parameter."""
    from ._validation import rename_parameter

    for inner, outer in {**_OPTION_NAMES.get(command, {}), **_PARTICIPATION_NAMES}.items():
        renamed = rename_parameter(message, inner, outer)
        if renamed is not None:
            return renamed
    return message


def _for_option(option: str):
    """Decorate a spec parser so that its refusals name ``option`` (``--mechanism 'nu_ftrl:2': nu must lie …``)."""
    def wrap(parse):
        @functools.wraps(parse)
        def parsed(spec):
            try:
                return parse(spec)
            except ValueError as exc:
                message = str(exc)
                named = option in message or repr(spec) in message  # the option, or the spec as the user typed it
                raise ValueError(message if named else f"{option} {spec!r}: {message}") from None
        return parsed
    return wrap


@_for_option("--mechanism")
def _mechanism(spec: str):
    """A mechanism from a spec of :data:`_MECHANISM_SPECS`."""
    name, colon, arg = spec.strip().partition(":")
    no_arg = {"dpsgd": "dpsgd", "optimal_cc": "optimal_cc", "anti_pgd": "anti_pgd"}
    one_arg = {"nu_ftrl": "nu_ftrl", "damped_anti_pgd": "damped_anti_pgd", "beta_star": "mean_estimation_optimal"}
    if name not in (*no_arg, *one_arg, "toeplitz", "blt", "tree"):
        raise ValueError(f"unknown mechanism {spec!r}; one of dpsgd, nu_ftrl:NU, optimal_cc, anti_pgd, damped_anti_pgd:NU, "
                         f"beta_star:ETA, toeplitz:B0,B1,..., blt:THETAS/OMEGAS, tree[:READOUT]")
    import dptheory as dpt

    if name in no_arg:
        if colon:
            raise ValueError(f"mechanism {name} takes no parameter, got {spec!r}")
        return getattr(dpt, no_arg[name])()
    if name in one_arg:
        if not arg:
            raise ValueError(f"mechanism {name} needs its parameter, e.g. {name}:0.05, got {spec!r}")
        return getattr(dpt, one_arg[name])(_number(arg, f"the parameter of {name}"))
    if name == "toeplitz":
        return dpt.toeplitz(_numbers(arg, "the coefficients of toeplitz"))
    if name == "blt":
        theta, slash, omega = arg.partition("/")
        if not slash:
            raise ValueError(f"a BLT spec is blt:THETA1,THETA2,.../OMEGA1,OMEGA2,..., got {spec!r}")
        return dpt.BLT(_numbers(theta, "the BLT decays theta"), _numbers(omega, "the BLT output scales omega"))
    readout = arg if colon else "honaker"  # the tree
    if readout not in _MECHANISM_READOUTS:
        raise ValueError(f"tree read-out must be one of {_MECHANISM_READOUTS}, got {readout!r}")
    return dpt.TreeAggregation(readout)


#: Bytes per dimension of a linear-regression problem built from d=: its eigenvalues and the per-direction work
#: of F_inf (pole integrals over a frequency grid at horizon=None)
_BYTES_PER_DIMENSION = 8.0 * 1024

_PROBLEM_KEYS = {
    "mean": ("eta", "sigma_sgd"),
    "linreg": ("eta", "d", "decay", "eigs", "sigma_sgd"),
    "sc": ("eta", "mu", "L", "sigma_sgd", "d", "loss"),
}


@_for_option("--problem")
def _problem(spec: str):
    """A problem from a spec of :data:`_PROBLEM_SPECS`."""
    name, _, rest = spec.strip().partition(":")
    if name not in _PROBLEM_KEYS:
        raise ValueError(f"unknown problem {name!r} in {spec!r}; one of mean:eta=..., linreg:eta=...,d=..., "
                         f"sc:eta=...,mu=...,L=...")
    keys = _PROBLEM_KEYS[name]
    params: dict[str, str] = {}
    for item in rest.split(",") if rest else []:
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not value.strip():
            raise ValueError(f"malformed problem {spec!r}: expected KEY=VALUE items separated by commas, got {item!r}")
        if key not in keys:
            raise ValueError(f"problem {name} takes {', '.join(keys)}; got {key!r} in {spec!r}")
        if key in params:
            raise ValueError(f"problem {name}: {key} given twice in {spec!r}")
        params[key] = value.strip()
    if "eta" not in params:
        raise ValueError(f"problem {name} needs eta, e.g. {name}:eta=0.1, got {spec!r}")
    kw = {"eta": _number(params["eta"], "eta")}
    if "sigma_sgd" in params:
        kw["sigma_sgd"] = _number(params["sigma_sgd"], "sigma_sgd")
    import dptheory as dpt

    if name == "mean":
        return dpt.MeanEstimation(**kw)
    if name == "linreg":
        if "eigs" in params:
            if "d" in params or "decay" in params:
                raise ValueError(f"problem linreg takes eigs or (d, decay), not both: {spec!r}")
            eigs = _numbers(params["eigs"], "eigs", sep=":")
        else:
            if "d" not in params:
                raise ValueError(f"problem linreg needs d (with decay, default 1) or eigs=L1:L2:..., got {spec!r}")
            d = _integer(params["d"], "d of --problem")
            if d < 1:
                raise ValueError(f"d of --problem must be a positive integer, got {d}")
            from ._validation import check_size

            check_size("d of --problem", d, lambda m: _BYTES_PER_DIMENSION * m,
                       what="the eigenvalues and their pole integrals")
            decay = _number(params.get("decay", "1"), "decay")
        import numpy as np

        if "eigs" not in params:
            eigs = np.arange(1, d + 1, dtype=float) ** -decay
        return dpt.LinearRegression(eigs=np.asarray(eigs, dtype=float), **kw)
    for key in ("mu", "L"):
        if key not in params:
            raise ValueError(f"problem sc needs mu and L, got {spec!r}")
        kw[key] = _number(params[key], key)
    if "d" in params:
        kw["d"] = _integer(params["d"], "d")
    if "loss" in params:
        kw["loss"] = params["loss"]
    return dpt.StronglyConvex(**kw)


@_for_option("--participation")
def _participation(spec: str | None):
    """``None`` for single participation, else a ``Participation`` from ``K:B``."""
    if spec is None or spec.strip() in ("single", "1"):
        return None
    k, colon, b = spec.partition(":")
    if not colon:
        raise ValueError(f"participation must be 'single' or K:B (at most K participations, >= B steps apart), got {spec!r}")
    k, b = _integer(k, "K of --participation K:B"), _integer(b, "B of --participation K:B")
    from dptheory.mechanisms import Participation

    return Participation(max_participations=k, min_sep=b)


def _participation_data(participation) -> dict:
    if participation is None:
        return {"max_participations": 1, "min_sep": 1}
    return {"max_participations": participation.max_participations, "min_sep": participation.min_sep}


def _participation_text(participation) -> str:
    if participation is None or participation.max_participations == 1:
        return "single (one participation per example)"
    return (f"at most {participation.max_participations} participations per example, "
            f">= {participation.min_sep} steps apart")


# -- text output -----------------------------------------------------------------------------------------------

def _g(x, digits: int = 6) -> str:
    """A number for the text output: ``inf``, an integer as it is, else ``digits`` significant digits."""
    if x is None:
        return "n/a"
    if isinstance(x, bool) or isinstance(x, int):
        return str(x)
    x = float(x)
    if x != x or x in (float("inf"), float("-inf")):
        return str(x)
    return f"{x:.{digits}g}"


def _block(title: str, rows) -> str:
    """``title``, then ``rows`` of (key, value) as two aligned columns."""
    rows = [(k, v) for k, v in rows if v is not None]
    width = max((len(k) for k, _ in rows), default=0)
    return "\n".join([title, *(f"  {k.ljust(width)}  {v}" for k, v in rows)])


def _grid(header, body) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *body)]
    fmt = lambda row: "  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip()
    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, body)])


# -- the handlers: each returns (data, text) or (data, text, exit status) ------------------------------------------

def _f_inf(a, extra):
    import dptheory as dpt
    from dptheory.accounting import noise_multiplier

    participation, problem, mechanism = _participation(a.participation), _problem(a.problem), _mechanism(a.mechanism)
    value = dpt.F_inf(mechanism, problem, rho=a.rho, G=a.G, horizon=a.horizon, participation=participation,
                      kind=a.kind, variant=a.variant)
    sens = mechanism.sensitivity(a.horizon, participation)
    sigma = noise_multiplier(sens, rho=a.rho)
    quantity = "F_inf" if a.horizon is None else "F_n"
    data = {"command": "f-inf", "quantity": quantity, "value": value, "mechanism": repr(mechanism),
            "problem": repr(problem), "rho": a.rho, "G": a.G, "horizon": a.horizon,
            "participation": _participation_data(participation), "kind": a.kind, "variant": a.variant,
            "sensitivity": sens, "sigma_dp": sigma}
    what = ("stationary E[F(theta_t) - F*] as t -> inf (seed 004 eq. 4)" if a.horizon is None else
            f"E[F(theta_n) - F*] after n = {a.horizon} noisy steps from theta_0 = theta*")
    sens_what = "gamma_inf, the streaming limit" if a.horizon is None else f"sens_Pi(C; n = {a.horizon})"
    text = _block(f"{quantity} = {_g(value, 10)}   {what}, in the problem's loss units", [
        ("mechanism", repr(mechanism)),
        ("problem", repr(problem)),
        ("kind", f"{a.kind} ({a.variant})"),
        ("privacy", f"rho = {_g(a.rho)} zCDP, clip norm G = {_g(a.G)}"),
        ("participation", _participation_text(participation)),
        ("sensitivity", f"{_g(sens)} ({sens_what}, units of G)"),
        ("sigma_dp", f"{_g(sigma)} = sensitivity/sqrt(2 rho); noise std sigma_dp*G"),
    ])
    return data, text


def _sensitivity(a, extra):
    participation, mechanism = _participation(a.participation), _mechanism(a.mechanism)
    if a.horizon is None:
        value = lower = upper = float(mechanism.sensitivity(None, participation))
        route = "streaming limit n -> inf (seed 004 eq. 5: gamma_inf = lim gamma_n)"
        fits = None
    else:
        report = mechanism.sensitivity_report(a.horizon, participation)
        lower, upper, route, fits = report.lower, report.upper, report.route, report.participations
        value = lower if report.exact else None
    data = {"command": "sensitivity", "mechanism": repr(mechanism), "horizon": a.horizon,
            "participation": _participation_data(participation), "participations_that_fit": fits,
            "sensitivity": value, "exact": value is not None, "lower": lower, "upper": upper, "route": route}
    rows = [("mechanism", repr(mechanism)),
            ("horizon", "n -> inf (streaming limit)" if a.horizon is None else f"n = {a.horizon} steps"),
            ("participation", _participation_text(participation)
             + ("" if fits is None else f"; k' = {fits} fit in n steps")),
            ("route", route)]
    if value is None:
        rows.append(("bounds", f"[{_g(lower)}, {_g(upper)}] (no exact route)"))
    if a.rho is not None:
        from dptheory.accounting import noise_multiplier

        sigma = noise_multiplier(upper, rho=a.rho)
        data.update(rho=a.rho, sigma_dp=sigma)
        rows.append(("sigma_dp", f"{_g(sigma)} = sensitivity/sqrt(2 rho) at rho = {_g(a.rho)} zCDP"
                     + ("" if value is not None else " (from the upper bound)")))
    head = (f"sensitivity = {_g(value, 10)}" if value is not None else f"sensitivity in [{_g(lower)}, {_g(upper)}]")
    return data, _block(head + "   L2 sensitivity of the strategy C, units of the clip norm G", rows)


_CONVERSION_WHAT = {
    "classic": "Bun & Steinke Prop. 1.3: rho + 2 sqrt(rho ln(1/delta)); any rho-zCDP mechanism",
    "improved": "Balle et al. 2020 Thm 21 (seed 004 App. A.2); any rho-zCDP mechanism",
    "exact": "Gaussian curve, mu = sqrt(2 rho); Gaussian mechanisms only",
}


def _epsilon(a, extra):
    given = [name for name, v in (("--sigma", a.sigma), ("--rho", a.rho), ("--epsilon", a.epsilon)) if v is not None]
    if len(given) != 1:
        raise ValueError("give exactly one of --sigma (DP-SGD accounting), --rho (zCDP rho -> eps) or "
                         f"--epsilon (eps -> zCDP rho), got {', '.join(given) or 'none'}")
    if a.sigma is None and (a.q is not None or a.T is not None or a.N is not None or a.accountant is not None):
        raise ValueError("--q, --T, --N and --accountant belong to DP-SGD accounting (--sigma)")
    if a.sigma is not None and a.conversion is not None:
        raise ValueError("--conversion belongs to --rho and --epsilon, not to DP-SGD accounting (--sigma)")
    from dptheory import accounting

    if a.sigma is not None:
        if a.q is None or a.T is None:
            raise ValueError("DP-SGD accounting (--sigma) needs --q (sampling rate) and --T (rounds)")
        T = int(a.T) if math.isfinite(a.T) and a.T == int(a.T) else a.T  # whole rounds as an integer
        results = []
        for acc in a.accountant or ["pld"]:
            r = accounting.exact_epsilon(a.sigma, q=a.q, T=T, delta=a.delta, accountant=acc, N=a.N)
            results.append({"accountant": acc, "eps": r.eps, "sampling": r.sampling, "neighbouring": r.neighbouring,
                            "certified": r.certified, "interval": r.interval, "discretization": r.discretization,
                            "tolerance": r.tolerance})
        data = {"command": "epsilon", "mode": "dpsgd", "sigma": a.sigma, "q": a.q, "T": T, "delta": a.delta,
                "N": a.N, "results": results}
        body = [[r["accountant"], _g(r["eps"]), "upper bound" if r["certified"] else "estimate",
                 f"{r['sampling']}; {r['neighbouring']}"
                 + (f"; CI [{_g(r['interval'][0])}, {_g(r['interval'][1])}]" if r["interval"] else "")]
                for r in results]
        text = (f"DP-SGD: noise multiplier sigma = {_g(a.sigma)} (noise std sigma*C), sampling rate q = {_g(a.q)}, "
                f"T = {_g(T)} rounds, delta = {_g(a.delta)}\n"
                + _grid(["accountant", "eps", "kind", "sampling; neighbouring"], body))
        return data, text
    conversions = _CONVERSIONS if a.conversion in (None, "all") else (a.conversion,)
    if a.rho is not None:
        if not a.rho > 0.0:
            raise ValueError(f"--rho must lie in (0, inf) (rho-zCDP with rho > 0), got {a.rho:g}")
        values = {c: accounting.epsilon_from_rho(a.rho, delta=a.delta, conversion=c) for c in conversions}
        data = {"command": "epsilon", "mode": "zcdp_to_epsilon", "rho": a.rho, "delta": a.delta, "epsilon": values}
        head = f"rho = {_g(a.rho)} zCDP -> (eps, delta = {_g(a.delta)})-DP"
        column = "eps"
    else:
        values = {c: accounting.rho_from_epsilon(a.epsilon, delta=a.delta, conversion=c) for c in conversions}
        data = {"command": "epsilon", "mode": "epsilon_to_zcdp", "epsilon": a.epsilon, "delta": a.delta, "rho": values}
        head = f"(eps = {_g(a.epsilon)}, delta = {_g(a.delta)})-DP <- rho-zCDP: the largest rho"
        column = "rho"
    body = [[c, _g(v), _CONVERSION_WHAT[c]] for c, v in values.items()]
    return data, head + "\n" + _grid(["conversion", column, "valid for"], body)


def _blt_buffers(text: str) -> int | None:
    """The argparse type of ``blt optimize --buffers``: a whole number d, or ``auto`` (``buffers=None``)."""
    if text.strip().lower() == "auto":
        return None
    try:
        return _integer(text, "the value")
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid value: {text!r} (a whole number of buffers, or auto)") from None


def _blt_optimize(a, extra):
    from dptheory.blt import optimize
    from dptheory.blt.optimizer import DegenerateOptimum

    participation = _participation(a.participation)
    try:
        r = optimize(a.horizon, participation, buffers=a.buffers, loss=a.loss, starts=a.starts)
    except DegenerateOptimum as exc:  # no BLT with positive scales attains the optimum: nothing to report
        raise ValueError(str(exc)) from None
    theta, omega = [float(t) for t in r.blt.theta], [float(w) for w in r.blt.omega]
    spec = "blt:" + ",".join(repr(t) for t in theta) + "/" + ",".join(repr(w) for w in omega)
    data = {"command": "blt optimize", "n": r.n, "participation": _participation_data(participation),
            "participations": r.participations, "buffers": r.blt.d, "loss": r.loss, "value": r.value,
            "theta": theta, "omega": omega, "theta_hat": [float(t) for t in r.theta_hat],
            "inverse_scales": r.blt.inverse_scales(), "mechanism_spec": spec, "max_loss": r.max_loss,
            "rms_loss": r.rms_loss, "sensitivity": r.sensitivity, "max_error": r.max_error, "rms_error": r.rms_error,
            "theta_in_unit_interval": r.theta_in_unit_interval, "omega_positive": r.omega_positive,
            "omega_sum": r.omega_sum, "coeffs_monotone": r.coeffs_monotone,
            "theorem_3_1_applies": r.theorem_3_1_applies, "converged": r.converged, "iterations": r.iterations,
            "evaluations": r.evaluations, "message": r.message, "seconds": r.seconds,
            "buffers_requested": r.buffers_requested, "buffers_used": r.buffers_used, "collapsed": r.collapsed,
            "buffer_losses": [[d, v, u] for d, v, u in r.buffer_losses]}
    name = "MaxLoss" if r.loss == "max" else "RmsLoss"
    text = _block(f"BLT minimising {name} = {_g(r.value, 8)} over n = {r.n} steps, d = {r.blt.d} buffers "
                  f"(seed 003 Alg. 4; losses unsquared, Eq. 10)", [
        ("participation", _participation_text(participation) + f"; k' = {r.participations} fit in n steps"),
        ("theta", "  ".join(_g(t, 10) for t in theta) + "   (buffer decays)"),
        ("omega", "  ".join(_g(w, 8) for w in omega) + "   (output scales)"),
        ("theta_hat", "  ".join(_g(t, 8) for t in r.theta_hat) + "   (decays of C^-1)"),
        ("MaxLoss", f"{_g(r.max_loss)} = MaxError {_g(r.max_error)} x sensitivity"),
        ("RmsLoss", f"{_g(r.rms_loss)} = RmsError {_g(r.rms_error)} x sensitivity"),
        ("sensitivity", f"{_g(r.sensitivity)} (Thm 3.1 applies: {r.theorem_3_1_applies}; units of G)"),
        ("constraints", f"0 < theta < 1: {r.theta_in_unit_interval}, omega > 0: {r.omega_positive}, "
                        f"sum(omega) = {_g(r.omega_sum)}"),
        ("converged", f"{r.converged} ({r.iterations} iterations, {r.evaluations} evaluations, {r.seconds:.2g} s)"),
        ("buffers", f"{r.buffers_used} used of {r.buffers_requested} requested"
                    + (" (that optimum collapsed: merged to fewer)" if r.collapsed else "")
                    + ("; tried " + ", ".join(f"d = {d}: {_g(v)}" + (f" (collapsed to {u})" if u < d else "")
                                              for d, v, u in r.buffer_losses) if a.buffers is None else "")),
        ("spec", spec),
    ])
    return data, text


def _tree(a, extra):
    from dptheory.treeagg import accounting as ta

    if a.order != "fixed" and (a.scheme != "no_restart" or a.variant != "exact"):
        raise ValueError(f"--order {a.order} applies to --scheme no_restart with --variant exact only, got --scheme "
                         f"{a.scheme} --variant {a.variant}")
    sens = dict(epochs=a.epochs, scheme=a.scheme, readout=a.readout, variant=a.variant, order=a.order)
    common = dict(n=a.n, delta=a.delta, conversion=a.conversion, orders="paper" if a.paper_orders else None, **sens)
    s2 = ta.tree_sensitivity_sq(a.n, **sens)
    if a.tree_command == "epsilon":
        sigma = a.sigma
        eps = ta.tree_epsilon(sigma, **common)
    else:
        sigma = ta.tree_sigma(a.epsilon, **common)
        eps = ta.tree_epsilon(sigma, **common)  # what that sigma spends: at most the target
    rho = ta.tree_rho(sigma, n=a.n, **sens)
    data = {"command": f"tree {a.tree_command}", "n": a.n, "epochs": a.epochs, "scheme": a.scheme,
            "readout": a.readout, "variant": a.variant, "order": a.order, "conversion": a.conversion,
            "paper_orders": a.paper_orders, "delta": a.delta, "sensitivity_sq": s2, "sigma": sigma, "rho": rho,
            "epsilon": eps}
    if a.tree_command == "sigma":
        data["epsilon_target"] = a.epsilon
    head = (f"eps = {_g(eps, 8)} at delta = {_g(a.delta)}" if a.tree_command == "epsilon"
            else f"sigma = {_g(sigma, 8)} meets (eps = {_g(a.epsilon)}, delta = {_g(a.delta)})")
    text = _block(head + "   tree aggregation (seed 000)", [
        ("scheme", {"single": "one pass, one tree (B.2)", "restart": "a fresh tree every epoch (D.1)",
                    "no_restart": "one tree over all epochs (D.2)"}[a.scheme]
         + f"; n = {a.n} steps per epoch, {a.epochs} epoch(s), read-out {a.readout}, count {a.variant}"
         + ({"fixed": "", "any": ", data order any (participations >= n steps apart)"}[a.order]
            if a.scheme == "no_restart" else "")),
        ("S^2", f"{s2} (squared sensitivity, units of the per-leaf sensitivity L)"),
        ("sigma", f"{_g(sigma)} (noise multiplier: node noise std sigma*L)"),
        ("rho", f"{_g(rho)} = S^2/(2 sigma^2) zCDP"),
        ("eps", f"{_g(eps)} by the {a.conversion} conversion" + (" on seed 000's order grid" if a.paper_orders else "")),
    ])
    return data, text


def _compare(a, extra):
    import dptheory as dpt

    problem, participation = _problem(a.problem), _participation(a.participation)
    if a.epsilon is not None or a.delta is not None:
        if a.rho is not None:
            raise ValueError("give the privacy target either as --rho or as --epsilon with --delta, not both")
        privacy = {"eps": a.epsilon, "delta": a.delta}
    else:
        privacy = {"rho": 1.0 if a.rho is None else a.rho}
    items = list(a.families or ([] if a.mechanism else dpt.comparison.DEFAULT_FAMILIES))
    items += [_mechanism(spec) for spec in a.mechanism or []]
    trained = {k: v for k, v in (("dataset_size", a.dataset_size), ("batch_size", a.batch_size), ("epochs", a.epochs))
               if v is not None}
    if trained:
        missing = [o for o, v in (("--dataset-size", a.dataset_size), ("--batch-size", a.batch_size),
                                  ("--epochs", a.epochs), ("--epsilon", a.epsilon), ("--delta", a.delta)) if v is None]
        if missing or a.rho is not None or a.participation is not None:
            raise ValueError("the table as trained takes --dataset-size, --batch-size, --epochs, --epsilon and --delta "
                             "together, without --rho or --participation" + (f"; missing {' '.join(missing)}" if missing else ""))
    horizon = a.horizon if a.horizon is not None or trained else 1000
    table = dpt.compare(items, problem, horizon=horizon, participation=participation, G=a.G, timing=a.timing,
                        **privacy, **trained)
    data = {"command": "compare", **table.to_dict()}
    text = {"text": table.to_text, "markdown": table.to_markdown, "csv": table.to_csv}[a.format]()
    if a.format == "text" and trained:
        text += ("\nunits: sensitivity in units of G, the one the row's noise multiplier is relative to (largest column "
                 "norm where amplified); sigma = noise multiplier x sensitivity (noise std per unit G); max_loss, "
                 "rms_loss = the prefix errors at that std, unsquared; F_n, F_inf in the problem's loss units")
    elif a.format == "text":
        text += ("\nunits: sensitivity in units of G; sigma = sensitivity/sqrt(2 rho); max_loss, rms_loss unsquared "
                 "(seed 003 Eq. 10); F_n, F_inf in the problem's loss units")
    return data, text.rstrip("\n")


def _verify_root() -> Path:
    """The folder ``python -m verify`` runs in: the working directory, which must hold ``verify/``."""
    cwd = Path.cwd()
    if (cwd / "verify" / "__main__.py").is_file():
        return cwd
    import dptheory

    checkout = Path(dptheory.__file__).resolve().parent.parent
    hint = (f"; this dptheory is installed from the checkout {checkout}: run it there" if
            (checkout / "verify" / "__main__.py").is_file() else
            "; the verify package ships with the repository, not with an installed dptheory")
    raise ValueError(f"no verify/ package in {cwd}: run `dptheory verify` from the root of a dptheory checkout{hint}")


def _verify(a, extra):
    passthrough = list(extra)
    if "--" in passthrough:
        passthrough.remove("--")
    root = _verify_root()
    command = [sys.executable, "-m", "verify", *passthrough]
    data = {"command": "verify", "argv": command, "cwd": str(root), "dry_run": a.dry_run}
    if a.dry_run:
        return data, f"would run in {root}: {shlex.join(command)}"
    # --json: verify's own output goes to stderr, so that stdout holds the one JSON object
    status = subprocess.run(command, cwd=root, stdout=sys.stderr if a.json else None).returncode
    data.update(exit_status=status, claims=str(_claims_path(passthrough, root)))
    return data, "", status


def _claims_path(passthrough: list[str], root: Path) -> Path:
    out = "figures"
    for i, arg in enumerate(passthrough):
        if arg == "--out" and i + 1 < len(passthrough):
            out = passthrough[i + 1]
        elif arg.startswith("--out="):
            out = arg.split("=", 1)[1]
    return root / out / "claims.json"


def _proactive(a, extra):
    from dptheory.proactive.__main__ import run

    return run(a)


# -- the parser --------------------------------------------------------------------------------------------------

_DESCRIPTION = """\
dptheory: the theory of five differentially-private-learning papers as numbers
(seed 004 nu-DP-FTRL and F_inf, seed 001 Proactive DP, seed 002 ISRL-DP, seed 003 BLTs, seed 000 tree
aggregation). Each subcommand's --help states its units and conventions; docs/cli.md has examples."""


def _command_of(argv: list[str]) -> str | None:
    """The subcommand named in ``argv`` (its first word that is not an option; the top level takes no values)."""
    return next((x for x in argv if not x.startswith("-")), None)


def _build(argv: list[str]) -> argparse.ArgumentParser:
    from . import __version__

    fmt = argparse.RawDescriptionHelpFormatter
    parser = Parser(prog="dptheory", description=_DESCRIPTION, formatter_class=fmt,
                    epilog=_epilog(_ZCDP, _DELTA, _SENS, _ADJ, _PART))
    parser.add_argument("--version", action="version", version=f"dptheory {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of text")

    def command(group, name: str, handler, summary: str, description: str, epilog: str, **kw):
        description = "\n\n".join(par if "\n" in par else textwrap.fill(par, 100) for par in description.split("\n\n"))
        p = group.add_parser(name, help=summary, description=description, epilog=epilog, parents=[common],
                             formatter_class=fmt, **kw)
        p.set_defaults(handler=handler, parser=p, passthrough=False)
        return p

    p = command(sub, "f-inf", _f_inf, "suboptimality F_inf (stationary) or F_n (horizon n) of a mechanism on a problem",
                "Seed 004's suboptimality of Noisy-FTRL / DP-FTRL with the mechanism's noise calibrated to rho-zCDP "
                "(dptheory.F_inf): without --horizon the stationary F_inf = lim E[F(theta_t) - F*] (Toeplitz "
                "mechanisms; noise from gamma_inf), with --horizon n the exact E[F(theta_n) - F*] of the last "
                "iterate after n steps from theta_0 = theta* (any mechanism; noise from sens_Pi(C; n)).",
                _MECHANISM_SPECS + "\n\n" + _PROBLEM_SPECS + "\n\n" + _epilog(_ZCDP, _SENS, _ADJ, _PART))
    p.add_argument("--mechanism", required=True, metavar="SPEC", help="the mechanism (specs below)")
    p.add_argument("--problem", required=True, metavar="SPEC", help="the learning problem (specs below)")
    p.add_argument("--rho", type=float, required=True, help="zCDP level rho > 0")
    p.add_argument("--G", type=float, default=1.0, help="clip norm G > 0: scales the privacy noise (default 1)")
    p.add_argument("--horizon", type=_whole, default=None, metavar="N",
                   help="steps n (default: none, the stationary F_inf)")
    p.add_argument("--participation", default=None, metavar="K:B", help="participation schema (default single)")
    p.add_argument("--kind", choices=_F_KINDS, default="exact",
                   help="exact (default), lti (the LTI part), lower/upper (Thm C.18/C.15 bounds; linear regression)")
    p.add_argument("--variant", choices=("corrected", "paper"), default="corrected",
                   help="corrected (eq. 4, default) or paper (App. B's lim E[delta^2], no 1/2; mean estimation)")

    p = command(sub, "sensitivity", _sensitivity, "L2 sensitivity of a mechanism's strategy C under a participation schema",
                "The sensitivity sens_Pi(C; n) of a mechanism over n steps under a participation schema "
                "(Mechanism.sensitivity_report), with the theorem or route that gives it, or labelled bounds "
                "where no exact route applies; with --rho also the noise multiplier sigma_dp "
                "(dptheory.calibrate_noise).", _MECHANISM_SPECS + "\n\n" + _epilog(_SENS, _ADJ, _PART, _ZCDP))
    p.add_argument("--mechanism", required=True, metavar="SPEC", help="the mechanism (specs below)")
    p.add_argument("--horizon", "--n", dest="horizon", type=_whole, default=None, metavar="N",
                   help="steps n (default: none, the streaming limit gamma_inf)")
    p.add_argument("--participation", default=None, metavar="K:B", help="participation schema (default single)")
    p.add_argument("--rho", type=float, default=None, help="also the noise multiplier at this zCDP level")

    p = command(sub, "epsilon", _epsilon, "eps of zCDP rho at delta (and back), or of DP-SGD by an accountant",
                "Privacy accounting (dptheory.accounting). Exactly one of:\n"
                "  --rho R --delta D      eps of rho-zCDP at delta by each conversion (epsilon_from_rho)\n"
                "  --epsilon E --delta D  the largest rho-zCDP meeting (eps, delta) (rho_from_epsilon)\n"
                "  --sigma S --q Q --T T --delta D [--accountant ...]\n"
                "                         eps of T rounds of DP-SGD (subsampled Gaussian, noise multiplier S:\n"
                "                         noise std S*C for clip norm C, sampling rate Q) by each accountant\n"
                "                         (exact_epsilon), each stating its sampling model and neighbouring relation:\n"
                "                         pld, rdp: Poisson(q), add/remove one record, upper bounds;\n"
                "                         clt: fixed batch, replace-one counted as sensitivity C (seed 001), estimate;\n"
                "                         clt_poisson, mc: Poisson(q), add/remove, estimates (mc with a CI);\n"
                "                         rdp_wor: fixed batch s = qN (needs --N), replace one (sensitivity 2C), upper bound.",
                _epilog(_ZCDP, _DELTA, _CONVERT))
    p.add_argument("--delta", type=float, required=True, help="delta of (eps, delta)-DP, in (0, 1)")
    p.add_argument("--rho", type=float, default=None, help="zCDP level rho > 0 to convert to eps")
    p.add_argument("--epsilon", type=float, default=None, help="eps > 0 to convert to rho")
    p.add_argument("--conversion", choices=(*_CONVERSIONS, "all"), default=None,
                   help="rho <-> eps conversion (default all three)")
    p.add_argument("--sigma", type=float, default=None, help="DP-SGD noise multiplier (noise std sigma*C)")
    p.add_argument("--q", type=float, default=None, help="DP-SGD sampling rate in (0, 1]")
    p.add_argument("--T", type=float, default=None, help="DP-SGD rounds (whole, except for clt)")
    p.add_argument("--N", type=_whole, default=None, help="data-set size (rdp_wor only: batch s = qN must be whole)")
    p.add_argument("--accountant", nargs="+", choices=_ACCOUNTANTS, default=None, help="accountants (default pld)")

    blt = sub.add_parser("blt", help="seed 003's Buffered Linear Toeplitz mechanisms: blt optimize",
                         description="Seed 003 (McMahan, Xu, Zhang): Buffered Linear Toeplitz (BLT) mechanisms.",
                         formatter_class=fmt)
    blt_sub = blt.add_subparsers(dest="blt_command", required=True, metavar="BLT_COMMAND")
    p = command(blt_sub, "optimize", _blt_optimize, "the d-buffer BLT minimising MaxLoss or RmsLoss (Alg. 4)",
                "Seed 003 Alg. 4 / Sec. 3.3 (dptheory.blt.optimize): the BLT(theta, omega) with d buffers minimising "
                "MaxLoss or RmsLoss over n steps under a participation schema, with 0 < theta < 1, omega > 0 and "
                "sum(omega) < 1 by construction (so Thm 3.1 gives its sensitivity). Losses are unsquared (Eq. 10: "
                "MaxError or RmsError of the prefix sums times the sensitivity; jax_privacy's loss is the square). "
                "The printed spec can be passed to f-inf and sensitivity as --mechanism.",
                _epilog(_SENS, _ADJ, _PART))
    p.add_argument("--horizon", "--n", dest="horizon", type=_whole, default=1000, metavar="N", help="steps n (default 1000)")
    p.add_argument("--participation", default=None, metavar="K:B", help="participation schema (default single)")
    p.add_argument("--buffers", type=_blt_buffers, default=2, metavar="D",
                   help="buffers d (default 2), or auto: d = 1, 2, ... up to 10 while the squared loss improves by "
                        "more than 1 %% (jax_privacy's rule)")
    p.add_argument("--loss", choices=_BLT_LOSSES, default="max", help="MaxLoss (default) or RmsLoss")
    p.add_argument("--starts", type=_whole, default=2, help="deterministic starts of L-BFGS-B, 1-4 (default 2)")

    tree = sub.add_parser("tree", help="seed 000's tree-aggregation accounting: tree epsilon, tree sigma",
                          description="Seed 000 (Kairouz et al.): the privacy accounting of DP-FTRL with binary-tree "
                                      "aggregation (dptheory.treeagg.accounting).", formatter_class=fmt)
    tree_sub = tree.add_subparsers(dest="tree_command", required=True, metavar="TREE_COMMAND")
    tree_conv = "\n".join([_convention("tree", """\
sigma is the noise multiplier: every tree node gets Gaussian noise of std sigma*L,
L the per-leaf (per-example) sensitivity; S^2 is the squared sensitivity in units of
L^2 (over the released nodes holding one example's leaves, the square of how many of
them each holds); rho = S^2/(2 sigma^2) zCDP; eps at delta by --conversion (default
exact: the Gaussian curve with mu = S/sigma). Adjacency: add/remove (zero-out) one
example."""), _convention("schemes", """\
single: one pass, S^2 = floor(lg n) + 1 (--variant paper: the printed ceil(lg n));
restart: a fresh tree every epoch (D.1), S^2 = the sum over the epochs;
no_restart: one tree over n*E leaves, the example at leaves i, i + n, ... (D.2),
exact by a layer sweep (--variant paper: D.2's printed E ceil(lg nE), an under-count;
upper: E^2 (floor(lg nE) + 1)); that is --order fixed, the same data order every
epoch; --order any: the worst case over every order keeping an example's E
participations at least n steps apart (TF-Privacy's compute_rdp_single_tree;
reshuffled epochs can break that: use --variant upper)""")])
    for name, handler, summary in (("epsilon", _tree, "eps at delta of tree aggregation with noise multiplier sigma"),
                                   ("sigma", _tree, "the smallest noise multiplier meeting (eps, delta)")):
        p = command(tree_sub, name, handler, summary,
                    f"Seed 000: {summary} (dptheory.treeagg.accounting.tree_{name}).",
                    _epilog(tree_conv, _DELTA, _CONVERT))
        if name == "epsilon":
            p.add_argument("--sigma", type=float, required=True, help="noise multiplier sigma > 0")
        else:
            p.add_argument("--epsilon", type=float, required=True, help="target eps > 0")
        p.add_argument("--n", type=_whole, required=True, help="steps (tree leaves) per epoch")
        p.add_argument("--delta", type=float, required=True, help="delta of (eps, delta)-DP, in (0, 1)")
        p.add_argument("--epochs", type=_whole, default=1, help="epochs E (default 1; >1 needs restart or no_restart)")
        p.add_argument("--scheme", choices=_TREE_SCHEMES, default="single", help="default single")
        p.add_argument("--readout", choices=_TREE_READOUTS, default="vanilla",
                       help="released nodes: vanilla (GetSum) or all (Honaker); matters for no_restart only")
        p.add_argument("--variant", choices=_TREE_VARIANTS, default="exact",
                       help="exact count (default), paper (as printed), upper (no_restart only)")
        p.add_argument("--order", choices=_TREE_ORDERS, default="fixed",
                       help="no_restart with --variant exact only: the same data order every epoch (fixed, "
                            "default) or any order with participations >= n steps apart")
        p.add_argument("--conversion", choices=_CONVERSIONS, default="exact", help="rho -> eps conversion (default exact)")
        p.add_argument("--paper-orders", action="store_true",
                       help="improved conversion on seed 000's Renyi orders 1.1, 1.2, ..., 199.9")

    p = command(sub, "compare", _compare, "every mechanism family side by side on one setting (dptheory.compare)",
                "Every mechanism family of the five papers on one problem, horizon n, participation schema and "
                "privacy target (dptheory.compare): per mechanism the sensitivity, sigma_dp, seed 003's MaxLoss and "
                "RmsLoss (unsquared), seed 004's F_n (horizon n) and F_inf (stationary), Thm 3.1's bound (strongly "
                "convex problems), buffers; '*' marks the best exact value, 'n/a [i]' says why a cell is absent. "
                "The default (mean estimation, n = 1000, single participation, rho = 1) takes a few seconds; "
                "BandMF needs n <= 256, dense routes n <= 2048.",
                _MECHANISM_SPECS + "\n\n" + _PROBLEM_SPECS + "\n\n" + _epilog(_ZCDP, _DELTA, _SENS, _ADJ, _PART))
    p.add_argument("--problem", default="mean:eta=0.1", metavar="SPEC", help="the problem (default mean:eta=0.1)")
    p.add_argument("--horizon", type=_whole, default=None, metavar="N",
                   help="steps n (default 1000; as trained, E*floor(N/B))")
    p.add_argument("--participation", default=None, metavar="K:B", help="participation schema (default single)")
    p.add_argument("--rho", type=float, default=None, help="zCDP level (default 1 unless --epsilon/--delta)")
    p.add_argument("--epsilon", type=float, default=None, help="eps target, with --delta (exact Gaussian conversion)")
    p.add_argument("--delta", type=float, default=None, help="delta of the (eps, delta) target")
    p.add_argument("--G", type=float, default=1.0, help="clip norm (default 1)")
    p.add_argument("--dataset-size", type=_whole, default=None, metavar="N",
                   help="records N: with --batch-size, --epochs, --epsilon and --delta, the table at matched (eps, delta) "
                        "as trained, each row by its tightest valid accountant (Poisson, cyclic Poisson, fixed order)")
    p.add_argument("--batch-size", type=_whole, default=None, metavar="B", help="batch size B (as trained)")
    p.add_argument("--epochs", type=_whole, default=None, metavar="E", help="epochs E (as trained)")
    p.add_argument("--families", nargs="+", choices=_FAMILIES, default=None,
                   help="families to build for the setting (default: all but blt_learned)")
    p.add_argument("--mechanism", action="append", metavar="SPEC", help="add a mechanism by its spec (repeatable)")
    p.add_argument("--timing", action="store_true", help="also measure microseconds per noise step (informational)")
    p.add_argument("--format", choices=("text", "markdown", "csv"), default="text", help="text output format")

    p = command(sub, "verify", _verify, "run python -m verify (figures and claims) with pass-through arguments",
                "Runs `python -m verify ARGS` (regenerates figures/ and figures/claims.json, exit status 1 if a claim "
                "fails). Every argument but --json and --dry-run is passed through, e.g. --quick, --only SCRIPT ..., "
                "--out DIR, --jobs N; `dptheory verify -- --help` shows verify's own options.\n\n"
                "The verify package lives in the repository (verify/ beside dptheory/), not in the installed "
                "dptheory: run this from the root of a checkout; elsewhere it stops with exit status 2.",
                "output:\n  verify's own output as it runs (on stderr with --json, which then prints one object:\n"
                "  argv, cwd, exit_status and the claims file); --dry-run prints the command instead.\n"
                "  Exit status: verify's (1 if a claim fails); 2 outside a checkout.",
                usage="dptheory verify [-h] [--json] [--dry-run] [--] [VERIFY_ARGS ...]", allow_abbrev=False)
    p.add_argument("--dry-run", action="store_true", help="print the command instead of running it")
    p.set_defaults(passthrough=True)

    pro = sub.add_parser("proactive", help="seed 001's DP calculators: calculator, phases, sigma, eps",
                         description=_proactive_description(), formatter_class=fmt)
    pro_sub = pro.add_subparsers(dest="proactive_command", required=True, metavar="PROACTIVE_COMMAND")
    if _command_of(argv) == "proactive":  # seed 001's parsers import its package: only when asked for
        from dptheory.proactive.__main__ import add_commands

        for p in add_commands(pro_sub, parents=[common]).values():
            p.set_defaults(handler=_proactive, parser=p, passthrough=False)
    return parser


def _proactive_description() -> str:
    return textwrap.fill("Seed 001 (van Dijk et al., Proactive DP): the DP calculators of App. D.4 (calculator) and E.1 "
            "(phases) and the closed form eq. (6) (sigma, eps); the same as `python -m dptheory.proactive`. "
            "sigma is the noise multiplier (round noise N(0, C^2 sigma^2 I) on a sum of gradients clipped to C); "
            "the closed form assumes Poisson sampling and add/remove-one-record adjacency (footnotes 5 and 14); "
            "delta is the delta of (eps, delta)-DP over the run (default 1/N); an accountant's row states its own "
            "sampling model and neighbouring relation.", 100)


def _status(code) -> int:
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def main(argv=None) -> int:
    """Run the ``dptheory`` command line.

    Parses ``argv``, runs the subcommand and prints its result: aligned lines by default, one JSON object with
    ``--json``. Bad input (an unknown mechanism, a malformed problem, a parameter out of range, any
    ``ValueError`` of the library) prints one line, ``dptheory SUBCOMMAND: error: MESSAGE``, on stderr.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name; ``None`` (default) reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 on success, 2 on bad input, and for ``verify`` that of ``python -m verify``.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = _build(argv)
        args, extra = parser.parse_known_args(argv)
        if extra and not args.passthrough:
            args.parser.error(f"unrecognized arguments: {' '.join(extra)}")
        try:
            result = args.handler(args, extra)
        except ValueError as exc:  # the library's checks (ConditionError is a ValueError too)
            args.parser.error(_option_message(args.command, one_line(exc)))
        except (ArithmeticError, MemoryError, RecursionError) as exc:  # an argument too extreme for this machine
            what = _SIZE_OPTIONS.get(args.command, "the arguments")
            args.parser.error(f"{type(exc).__name__} ({one_line(exc) or 'no message'}): {what} too large for this "
                              f"machine or for double precision; try smaller values")
    except SystemExit as exc:
        return _status(exc.code)
    except KeyboardInterrupt:
        return 130
    data, text, *status = result
    try:
        if args.json:
            print(dumps(data))
        elif text:
            print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped early (`dptheory … | head`): not an error of the command
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so that the exit flush does not raise again
    return status[0] if status else 0
