"""Fuzz rlcore with hypothesis, table-driven: finite, well-shaped results or a ValueError naming the input.

* SPECS, one row per formula (``rlcore/formulas``, plus ``top_p_probs`` and the lab's ``train`` and ``LabConfig``;
  ``test_every_formula_has_a_row`` names any missing; a new test of ``rlcore/formulas/M.py`` or
  ``rlcore/studies/M.py`` goes in ``tests/rlcore/test_M.py``): a builder
  (``draw`` → {argument: ``P``(a valid value over the WIDE domain, a strategy of invalid replacements, the names an
  error may use)}) and a check of the result. ``test_fuzz`` draws the valid arguments or (half the time) the same
  with one replaced by an invalid value (wrong length, NaN, ±inf, a negative probability, γ/λ/ε/β out of range,
  text, None, a bool for a number ...). Valid input must return finite values of the documented shape, every numpy
  floating-point event but underflow (a correct 0) and every warning being an error; invalid input must raise a
  ValueError naming the argument as a whole word; anything else fails. The quick suite runs an eighth of each row's
  examples (at least 15); ``-m exhaustive`` runs them all.
* Every public function and validating class of every rlcore module, found by walking the package (the end of
  the file): arguments from its doctest, its arguments' names (VOCABULARY) or defaults, then one replaced by JUNK.
  It must return or raise a ValueError naming that argument. A new module needs nothing here.

Non-finite results the docstrings promise: ``mc_estimates``/``running_mc_estimates`` ``.q`` NaN exactly where a
token has no sample; ``kl_divergence`` +inf exactly where some pₐ > 0 = qₐ, and so ``kl_regularized_objective``'s
``.kl`` (with β > 0 its objective, −inf); ``samples_to_discover`` +inf when p = 0 < target or k* is beyond float64;
``LabHistory.values`` NaN without a critic; ``KLPlacements.cosine`` NaN where a gradient is 0; ``train`` stops
where its logits overflow (``diverged_at``). "Valid" reaches where float64 gives out: probabilities in [0, 1] with
exact 0 and 1, 1e-12, 1e-300 (subnormal where a function copes); γ, λ all of [0, 1]; scores, rewards, values,
logits within ±1e6; τ, β, ε from 1e-300 to 1e300; step sizes and critic noise to 1e3; log-probabilities to −700.
Bugs this file found stay as named regression cases (KNOWN_BUGS); an open one would be ``xfail(strict=True)``.
"""

from __future__ import annotations

import ast
import collections
import contextlib
import dataclasses
import doctest
import importlib
import inspect
import math
import pkgutil
import re
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import rlcore

NAN, INF = float("nan"), float("inf")
TINY = 1e-300  # the smallest probability (and γ, λ, τ, β, ...) we call valid
BIG = 1e6      # the largest score magnitude we call valid

# --- the harness -----------------------------------------------------------------------------------------------

class Case(NamedTuple):
    kwargs: dict
    bad: tuple[str, ...] = ()  # empty: valid input; else the names any of which the error must mention

class P(NamedTuple):
    """One argument: its valid value, invalid replacements (None: never corrupted), the names an error may use."""
    value: Any
    bad: st.SearchStrategy | None = None
    names: tuple[str, ...] = ()  # default: the argument's own

class Spec(NamedTuple):
    build: Callable  # draw -> {argument: P}
    check: Callable  # check(result, kwargs), for valid input
    examples: int = 150

COUNTS: collections.Counter = collections.Counter()

def names_argument(message: str, names: tuple[str, ...]) -> bool:
    """The message names one of ``names`` as a whole word ("probs[2]" and "run.probs" count; "sequence" is no q)."""
    return any(re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", message) for n in names)

def run_case(fn, check: Callable, case: Case) -> None:
    with np.errstate(all="raise", under="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            out = fn(**case.kwargs)
        except ValueError as err:
            if not case.bad:
                raise AssertionError(f"valid input rejected: {err}\n{case.kwargs!r}") from err
            assert names_argument(str(err), case.bad), f"error does not name {case.bad}: {err}"
            COUNTS["invalid"] += 1
            return
    assert not case.bad, f"invalid {case.bad} accepted: {case.kwargs!r} -> {out!r}"[:2000]
    check(out, case.kwargs)
    COUNTS["valid"] += 1

@st.composite
def cases(draw, build: Callable) -> Case:
    """``build(draw)`` gives {argument: P}; half the cases then corrupt one argument that has invalid values."""
    params: dict[str, P] = build(draw)
    kwargs = {k: p.value for k, p in params.items()}
    corruptible = [k for k, p in params.items() if p.bad is not None]
    if corruptible and draw(st.booleans()):
        k = draw(st.sampled_from(corruptible))
        return Case({**kwargs, k: draw(params[k].bad)}, params[k].names or (k,))
    return Case(kwargs)

# --- result checks ---------------------------------------------------------------------------------------------

def arr(x, shape=None, *, dtype=None, nan_where=None) -> np.ndarray:
    """x as an array of the given shape, finite (NaN allowed only where ``nan_where`` is True)."""
    a = np.asarray(x)
    assert a.dtype != object and (shape is None or a.shape == tuple(shape)), (a, shape)
    assert dtype is not bool or a.dtype == bool, a.dtype
    assert dtype is not int or np.issubdtype(a.dtype, np.integer), a.dtype
    if nan_where is None:
        assert np.all(np.isfinite(a)), a
    else:
        nan_where = np.broadcast_to(np.asarray(nan_where, dtype=bool), a.shape)
        assert np.array_equal(np.isnan(a), nan_where) and np.all(np.isfinite(a[~nan_where])), (a, nan_where)
    return a

def num(x, *, lo=-math.inf, hi=math.inf) -> float:
    assert isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool), type(x)
    assert math.isfinite(x) and lo <= x <= hi, (x, lo, hi)
    return float(x)

def is_probs(p, k=None, tol=1e-9) -> np.ndarray:
    a = arr(p, None if k is None else (k,))
    assert np.all(a >= 0) and np.all(a <= 1 + tol) and abs(a.sum() - 1) <= tol, a
    return a

def is_prob_rows(p) -> np.ndarray:
    a = arr(p)
    assert np.all(a >= 0) and np.all(a <= 1 + 1e-9) and np.allclose(a.sum(axis=-1), 1, atol=1e-9), a
    return a

def ok(condition, *why) -> None:
    """An assertion a table's lambda can make."""
    assert condition, why

def nonzero(weights: list) -> list:
    """Weights with at least one above 0."""
    return weights if any(weights) else [1.0, *weights[1:]]

def kk(kw, name="probs") -> int:
    return len(kw[name])

def length_of(name: str, **how) -> Callable:
    """The check "a finite array as long as argument ``name``" (of ``how``'s dtype)."""
    return lambda out, kw: arr(out, (len(kw[name]),), **how)

def fields_ok(out, cls, **shapes) -> None:
    """``out`` is a ``cls`` whose fields (name=shape) are finite arrays of those shapes."""
    assert isinstance(out, cls), type(out)
    for name, shape in shapes.items():
        arr(getattr(out, name), shape)

def bounded(scale: Callable = lambda kw: 1) -> Callable:
    """A finite number within ±1e6 (a mean of scores), times ``scale(kwargs)``."""
    return lambda out, kw: num(out, lo=-BIG * 1.000001 * scale(kw), hi=BIG * 1.000001 * scale(kw))

# --- value strategies: valid, then invalid replacements; D names the shared (valid, invalid) domains ------------

K = st.integers(1, 6)
SCORE = st.one_of(st.sampled_from([0.0, 10.0, -BIG, BIG, TINY, -2.5]), st.floats(-BIG, BIG))
UNIT = st.one_of(st.sampled_from([0.0, 1.0, TINY, 1 - 2**-53, 0.5]), st.floats(0, 1))
UNIT_OPEN = st.one_of(st.sampled_from([TINY, 1 - 2**-53, 0.2]), st.floats(TINY, 1 - 2**-53))
POS = st.one_of(st.sampled_from([TINY, 1e-3, 1.0, 1e3, 1e300]), st.floats(1e-3, 1e3))
POS_TINY = st.one_of(POS, st.sampled_from([1e-310, 5e-324]))  # subnormal τ or β too
POS_MODEST = st.one_of(st.sampled_from([1e-3, 1.0, 1e3]), st.floats(1e-3, 1e3))  # multiplies scores
NONNEG, NONNEG_MODEST = st.one_of(st.just(0.0), POS), st.one_of(st.just(0.0), POS_MODEST)
REAL = st.one_of(st.sampled_from([0.0, -BIG, BIG, TINY]), st.floats(-BIG, BIG))
SEED = st.one_of(st.integers(0, 2**40), st.integers(0, 5).map(np.random.default_rng))
PROB_WEIGHT = st.one_of(st.sampled_from([0.0, TINY, 1e-12, 1.0]), st.floats(1e-6, 1.0))
POS_WEIGHT = st.one_of(st.sampled_from([TINY, 1e-12, 1.0]), st.floats(1e-6, 1.0))
TEXT = st.text(alphabet="abcXYZ .,:;!?'()-<>/think", max_size=30)
LOGP = st.one_of(st.sampled_from([0.0, -700.0, -1e-300]), st.floats(-700, 0))  # log π ≥ log 1e-304
RATIO = st.one_of(st.sampled_from([0.0, 1.0, 0.8, 1.2, 1e300]), st.floats(0, 10))
TOKEN_TEXT = st.text(alphabet="abcdxyz<>[]()*_$\\ü☃-'", min_size=1, max_size=8).filter(str.strip)
CONT = st.sampled_from(["", ". It's in the name.", ", though (some) open-weight models.", ": x", " y z", "?!"])
SEEDS = st.one_of(st.lists(st.integers(0, 2**40), min_size=1, max_size=3), st.integers(0, 99))
LISTS_1_8 = st.lists(REAL, min_size=1, max_size=8)

_NOT_NUMBERS = [NAN, INF, -INF, "abc", True, [1.0], 1j]
NOT_A_NUMBER = st.sampled_from([*_NOT_NUMBERS, None])
BAD_OPTIONAL = st.sampled_from(_NOT_NUMBERS)  # for arguments where None is valid (the default)
BAD_UNIT = st.one_of(NOT_A_NUMBER, st.sampled_from([-1e-12, -1.0, 1 + 1e-9, 2.0]))
BAD_POS = st.one_of(NOT_A_NUMBER, st.sampled_from([0.0, -TINY, -1.0]))
BAD_OPTIONAL_POS = st.one_of(BAD_OPTIONAL, st.sampled_from([0.0, -TINY, -1.0]))
BAD_NONNEG = st.one_of(NOT_A_NUMBER, st.sampled_from([-TINY, -1.0]))
BAD_SEED = st.sampled_from([-1, 1.5, "0", None, True, NAN])
BAD_VECTOR = st.sampled_from([[], [NAN], [1.0, INF], [-INF], "abc", ["a", "b"], [[1.0, 2.0]], None])
# for a function that also takes a batch along leading axes, where [[1.0, 2.0]] is one row: ragged instead
BAD_BATCH = st.sampled_from([[], [NAN], [1.0, INF], [-INF], "abc", ["a", "b"], [[1.0], [2.0, 3.0]], None])
BAD_STR = st.sampled_from([None, 3, 1.5, b"bytes", ["a"]])
BAD_LENGTHS = st.one_of(BAD_VECTOR, st.sampled_from([[0], [1.5], [-1], [1, 2.5]]))
NOT_A_SCENARIO = st.sampled_from(["abc", None, 3, ("open", "closed")])
NOT_A_TOKEN = st.sampled_from(["not-a-token", "", 3, None])
BAD_MASK = st.sampled_from([[[1, 2]], [[0, 0]], [[1], [0]], [[NAN]], [[1, INF]], [1, 1], [[]], [], "abc", None,
                            [["a"]], [[-1]], [[0.5]]])
BAD_MODE = st.sampled_from(["mean", "TOKEN-MEAN", "", None, 3, ["token-mean"]])
BAD_PROB_ROWS = st.sampled_from([[NAN, 1.0], [INF], [-0.1, 1.1], [2.0], [0.25, 0.25], [[0.5, 0.5], [0.5, 0.4]], [],
                                 0.5, "abc", None, ["a"]])

def bad_count(low: int, high: int | None = None) -> st.SearchStrategy:
    return st.sampled_from([low - 1, 1.5, "3", None, True, NAN, INF, [2]] + ([high + 1] if high is not None else []))

def vector(elements: st.SearchStrategy, n: int) -> st.SearchStrategy:
    return st.lists(elements, min_size=n, max_size=n)

def bad_vector(n: int, fill: float = 0.0, *more) -> st.SearchStrategy:
    """Invalid entries, a wrong length (for an argument whose length must be n), or one of ``more``."""
    return st.one_of(BAD_VECTOR, st.sampled_from([[fill] * m for m in (n - 1, n + 1) if m >= 1] + list(more)))

def bad_index(k: int, n: int, *, longer: bool = True) -> st.SearchStrategy:
    """Not n token indices below k: out of range, fractional, or (``longer``) one too many."""
    return st.one_of(BAD_VECTOR, st.sampled_from([[k] * n, [-1] * n, [0.5] * n] + [[0] * (n + 1)] * longer))

def bad_at(n: int) -> st.SearchStrategy:
    return st.one_of(BAD_VECTOR, st.sampled_from([[0], [n + 1], [1.5]]))

@st.composite
def probs(draw, k: int, *, positive: bool = False) -> list[float]:
    """A probability vector of length k, often with entries near 0 (1e-300, 1e-12, exact 0) and near 1."""
    w = np.array(draw(st.lists(POS_WEIGHT if positive else PROB_WEIGHT, min_size=k, max_size=k)))
    if w.sum() == 0:
        w[draw(st.integers(0, k - 1))] = 1.0
    return (w / w.sum()).tolist()

def bad_probs(k: int, *, peer: bool = True) -> st.SearchStrategy:
    """Not a probability vector of length k: NaN, inf, negative, above 1, not summing to 1, text, and (when the
    length must match another argument, ``peer``) a valid vector of another length."""
    base = [1.0 / k] * k
    options = [[NAN, *base[1:]], [INF, *base[1:]], [-0.1, 1.1] + [0.0] * (k - 2) if k >= 2 else [-1.0],
               [2.0, *base[1:]], [0.5 / k] * k, [], "abc", ["a"] * k, [base], None]
    options += [base[:-1]] * (k > 1) + [[*base, 0.0]] * peer  # one entry short: sums to less than 1
    return st.sampled_from(options)

@st.composite
def samples(draw, k: int) -> list[list[float]]:
    """k lists of 1–5 judge scores; sometimes every score equal (a dead group)."""
    if draw(st.integers(0, 3)) == 0:
        same = draw(SCORE)
        return [[same] * draw(st.integers(1, 3)) for _ in range(k)]
    return [draw(st.lists(SCORE, min_size=1, max_size=5)) for _ in range(k)]

def bad_samples(k: int) -> st.SearchStrategy:
    return st.sampled_from([[[1.0]] * (k + 1), [[]] + [[1.0]] * (k - 1), [[NAN]] + [[1.0]] * (k - 1), [[INF]] * k,
                            [], "abc", [["a"]] * k, 5.0, [[[1.0, 2.0]]] * k] + [[[1.0]] * (k - 1)] * (k > 1))

@st.composite
def scenarios(draw, min_k: int = 1, max_k: int = 6) -> rlcore.Scenario:
    k = draw(st.integers(min_k, max_k))
    names = draw(st.lists(TOKEN_TEXT, min_size=k, max_size=k, unique_by=str.strip))
    return rlcore.Scenario(tokens=tuple(names), probs=tuple(draw(probs(k))), samples=draw(samples(k)),
                           prompt=draw(TEXT), prefix=draw(st.sampled_from(["OpenAI is", "", "A (b) c's"])),
                           continuations=tuple(draw(CONT) for _ in range(k)))

@st.composite
def token_masks(draw):
    """[n, T] 0/1 (or bool) with at least one token per answer."""
    n, t = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    rows = [draw(vector(st.integers(0, 1), t)) for _ in range(n)]
    for row in rows:
        row[draw(st.integers(0, t - 1))] = 1
    return draw(st.sampled_from([rows, np.array(rows, dtype=bool).tolist()]))

D = {  # shared argument domains: name -> (valid, invalid)
    "unit": (UNIT, BAD_UNIT), "pos": (POS, BAD_POS), "pos_tiny": (POS_TINY, BAD_POS), "nonneg": (NONNEG, BAD_NONNEG),
    "step": (NONNEG_MODEST, BAD_NONNEG), "real": (REAL, NOT_A_NUMBER), "rng": (SEED, BAD_SEED),
    "seed": (st.integers(0, 2**40), BAD_SEED), "eps_high": (st.one_of(st.none(), POS), BAD_OPTIONAL_POS),
    "scenario": (scenarios(), NOT_A_SCENARIO), "eps_open": (UNIT_OPEN, BAD_POS), "text": (TEXT, BAD_STR),
    "tau": (st.one_of(POS, st.just(5e-324)), BAD_POS),
}

def scalar_bad(strategy: st.SearchStrategy) -> st.SearchStrategy:
    """``strategy``'s invalid values but lists: where a parameter a page scrubs goes, an array broadcasts."""
    return strategy.filter(lambda x: not isinstance(x, list))

def pick(draw, **domains: str) -> dict[str, P]:
    """{argument: P} for arguments of a shared domain: ``pick(draw, gamma="unit", lr="step")``."""
    return {arg: P(draw(D[name][0]), D[name][1]) for arg, name in domains.items()}

# --- builders the table's rows share ----------------------------------------------------------------------------

def with_k(build: Callable) -> Callable:
    """A builder that first draws the number of tokens k: ``build(draw, k)``."""
    return lambda draw: build(draw, draw(K))

def with_n(build: Callable, high: int = 6) -> Callable:
    """A builder that first draws a length n in 1..high: ``build(draw, n)``."""
    return lambda draw: build(draw, draw(st.integers(1, high)))

def pair(a: str, b: str, valid: Callable, bad: Callable, k: int, draw) -> dict[str, P]:
    """Two arguments of one length k, an error about either naming either: ``valid(k)``, ``bad(k)`` strategies."""
    return {a: P(draw(valid(k)), bad(k), (a, b)), b: P(draw(valid(k)), bad(k), (a, b))}

def probs_and(second: str, elements=SCORE) -> Callable:
    """probs [K] and a vector ``second`` [K]; an error about either may name either."""
    both = ("probs", second)
    return with_k(lambda d, k: {"probs": P(d(probs(k)), bad_probs(k), both),
                                second: P(d(vector(elements, k)), bad_vector(k), both)})

def probs_samples(draw, **more: str) -> dict[str, P]:
    k, both = draw(K), ("probs", "samples")
    return {"probs": P(draw(probs(k)), bad_probs(k), both), "samples": P(draw(samples(k)), bad_samples(k), both),
            **pick(draw, **more)}

def scenario_token(draw, **more: str) -> dict[str, P]:
    s = draw(scenarios())
    return {"scenario": P(s, NOT_A_SCENARIO), "token": P(draw(st.sampled_from(s.tokens)), NOT_A_TOKEN),
            **pick(draw, **more)}

def alone_probs(draw, **more: str) -> dict[str, P]:
    """probs [K] with no peer argument (a wrong length is only invalid entries), and shared-domain others."""
    k = draw(K)
    return {"probs": P(draw(probs(k)), bad_probs(k, peer=False)), **pick(draw, **more)}

def rewards_values(draw, **more: str) -> dict[str, P]:
    t, both = draw(st.integers(1, 8)), ("rewards", "values")
    return {"rewards": P(draw(vector(REAL, t)), bad_vector(t), both),
            "values": P(draw(vector(REAL, t + 1)), bad_vector(t + 1), both), **pick(draw, **more)}

def ratio_adv(draw, n: int, negative: bool = True) -> dict[str, P]:
    """ρ [N] and A ([N] or a number, which broadcasts); wrong lengths only where they cannot broadcast; ρ < 0 is
    refused by the objective (``negative``), not by is_clipped."""
    both, adv = ("ratio", "advantage"), draw(st.one_of(vector(REAL, n), REAL))
    wrong = [st.just([1.0] * (n + 1))] if isinstance(adv, list) and n > 1 else []
    return {"ratio": P(draw(vector(RATIO, n)), st.one_of(BAD_BATCH, *[st.just([-0.5] * n)] * negative, *wrong), both),
            "advantage": P(adv, st.one_of(BAD_BATCH, *[st.just([0.0] * (n + 1))] * (n > 1)), both)}

def training(draw, **more) -> dict[str, P]:
    return probs_samples(draw, lr="step", temperature="pos_tiny") | {
        "steps": P(draw(st.integers(1, 5)), bad_count(1, 100_000)), "greedy": P(draw(st.booleans())),
        "batch": P(draw(st.integers(1, 8)), bad_count(1, 100_000)),
        "baseline": P(draw(st.sampled_from(rlcore.BASELINES)), st.sampled_from(["mean", None, "v"])), **more}

def mask_params(draw, mask) -> dict[str, P]:
    params = {"mask": P(mask, BAD_MASK), "mode": P(draw(st.sampled_from(rlcore.AGGREGATION_MODES)), BAD_MODE)}
    if draw(st.booleans()):
        longest = int(np.max(np.sum(mask, axis=1)))
        bad = st.sampled_from([0, 1.5, "3", True, NAN, INF, [2]] + [longest - 1] * (longest > 1))
        params["max_len"] = P(draw(st.one_of(st.none(), st.integers(longest, 50), st.just(10**6))), bad)
    return params

def logp_rows(draw, n, t, name) -> P:
    bad = st.sampled_from([[[0.5] * t] * n, [[NAN] * t] * n, [[-INF] * t] * n, [[0.0] * (t + 1)] * n, "abc", None,
                           [[]]])
    return P(draw(vector(vector(LOGP, t), n)), bad, (name, "mask"))

def one_or_rows(draw, elements, k: int, rows: int | None):
    return draw(vector(elements, k) if rows is None else vector(vector(elements, k), rows))

def prob_rows(draw, k: int | None = None, rows: int | None = None) -> list:
    """A probability vector [K], or ``rows`` of them."""
    k = k or draw(K)
    return draw(probs(k)) if rows is None else draw(vector(probs(k), rows))

def ref_rewards(draw, zero_ok: bool) -> dict[str, P]:
    """β down to 5e-324 when π_ref > 0 everywhere; with zeros in π_ref, β ≥ 1e-300."""
    k, names = draw(K), ("p_ref", "rewards")
    ref = draw(probs(k))
    valid = st.one_of(POS_TINY if min(ref) > 0 else POS, *[st.just(0.0)] * zero_ok)
    return {"p_ref": P(ref, bad_probs(k), names), "rewards": P(draw(vector(REAL, k)), bad_vector(k), names),
            "beta": P(draw(valid), BAD_NONNEG if zero_ok else BAD_POS)}

def written(draw, s: rlcore.Scenario) -> list[str]:
    """An unfinished answer after the prefix: nothing, or a token and part (not all) of its continuation."""
    tok = draw(st.sampled_from(s.tokens))
    rest = rlcore.split_tokens(s.continuations[s.index(tok)])
    return [] if not rest or draw(st.booleans()) else [tok, *rest[: draw(st.integers(0, len(rest) - 1))]]

LAB_FIELDS = {  # the lab's configs reach far beyond what its page sets: name -> (valid, invalid)
    "algorithm": (st.sampled_from(rlcore.ALGORITHMS), st.sampled_from(["GRPO", "", None])),
    "steps": (st.integers(1, 3), bad_count(1, 2_000)), "group_size": (st.integers(2, 4), bad_count(2, 512)),
    "lr": (st.one_of(st.sampled_from([0.0, TINY, 10.0, 100.0]), st.floats(0, 2)), BAD_NONNEG | st.just(100.5)),
    "epochs": (st.integers(1, 4), bad_count(1, 50)), "eps": (UNIT_OPEN, BAD_UNIT | st.sampled_from([0.0, 1.0])),
    "beta": (st.one_of(st.sampled_from([0.0, TINY, 100.0]), st.floats(0, 1)), BAD_NONNEG | st.just(100.5)),
    "lam": (UNIT, BAD_UNIT), "gamma": (UNIT, BAD_UNIT), "critic_lr": (UNIT, BAD_UNIT),
    "baseline_rate": (UNIT_OPEN | st.just(1.0), BAD_UNIT | st.just(0.0)),
    "judge": (st.sampled_from(rlcore.JUDGES), st.sampled_from(["Samples", None])),
    "noise": (NONNEG_MODEST, BAD_NONNEG), "flattery": (st.booleans(), st.sampled_from([1, "yes", None])),
    "loss_agg": (st.none() | st.sampled_from(sorted(rlcore.lab.LOSS_AGGREGATIONS)), st.sampled_from(["sum", "", 3])),
    "length": (st.integers(0, 3), bad_count(0, 16)), "resample": (st.integers(1, 3), bad_count(1, 16)),
    "eps_high": (UNIT_OPEN, BAD_UNIT | st.sampled_from([0.0, 1.0])),
}
lab_configs = st.fixed_dictionaries({name: valid for name, (valid, _) in LAB_FIELDS.items()}).map(
    lambda fields: rlcore.LabConfig(**fields))

# --- rows whose arguments depend on one another -----------------------------------------------------------------

def _mc(d, running: bool):
    k, n = d(K), d(st.integers(1, 20))
    names = ("actions", "scores", "at") if running else ("actions", "scores")
    at = {"at": P(sorted(d(st.lists(st.integers(1, n), min_size=1, max_size=5))), bad_at(n))} if running else {}
    return {"actions": P(d(vector(st.integers(0, k - 1), n)), bad_index(k, n, longer=not running), names), **at,
            "scores": P(d(vector(SCORE, n)), bad_vector(n), names),
            "n_actions": P(k, bad_count(1), ("n_actions", "actions"))}

def _running_mean(d):
    n, cols = d(st.integers(1, 20)), d(st.sampled_from([None, 1, 3]))
    bad = st.sampled_from([[], [NAN], [[1.0, INF]], [[[1.0]]], 2.0, "abc", ["a"]])
    return {"values": P(d(vector(SCORE, n)) if cols is None else one_or_rows(d, SCORE, cols, n), bad, ("values", "at")),
            "at": P(d(st.lists(st.integers(1, n), min_size=1, max_size=5)), bad_at(n))}

def _histogram(d):
    n, rows = d(st.integers(1, 20)), d(st.sampled_from([None, 1, 4]))
    bad = st.sampled_from([[], [NAN], [[1.0, INF]], [[[1.0]]], "abc", ["a"]])
    out = {"values": P(one_or_rows(d, SCORE, n, rows), bad),
           "bins": P(d(st.integers(1, 40)), bad_count(1))}
    if d(st.booleans()):  # a single point, a range as narrow as 1e-300 (values far outside it), or a wide one
        lo = d(REAL)
        hi = lo + d(st.one_of(st.sampled_from([0.0, TINY, 1e-14]), st.floats(1e-3, 2 * BIG)))
        out |= {"low": P(lo, BAD_OPTIONAL, ("low", "high")),
                "high": P(hi, BAD_OPTIONAL | st.just(lo - 1.0), ("low", "high"))}
    return out

def _gae(d):
    out = rewards_values(d, gamma="unit", lam="unit")
    out = out | {k: P(out[k].value, scalar_bad(BAD_UNIT)) for k in ("gamma", "lam")}
    if d(st.booleans()):  # λ scrubbed: an array of them, the result one row per λ
        out["lam"] = P(d(st.lists(UNIT, min_size=1, max_size=3)), BAD_UNIT | st.sampled_from([[0.5, NAN], [1.5], []]))
    t = len(out["rewards"].value)
    n = d(st.integers(1, t))  # real tokens: a prefix of the row
    return out | {"mask": P(d(st.sampled_from([None, [True] * n + [False] * (t - n)])),
                            st.sampled_from([[2] * t, [True] * (t + 1), "abc", [NAN] * t]))}

def _group(d):
    scores = d(st.one_of(st.lists(SCORE, min_size=1, max_size=8),
                         st.tuples(SCORE, st.integers(1, 8)).map(lambda t: [t[0]] * t[1])))
    scores = [scores, [x / 2 for x in scores]] if d(st.booleans()) else scores  # a batch: one group per row
    return {"scores": P(scores, BAD_BATCH), "eps": P(d(POS), BAD_POS),
            "method": P(d(st.sampled_from(rlcore.GROUP_METHODS)), st.sampled_from(["GRPO", "", None, "ppo"]))}

def _next_step(d):
    s = d(scenarios())
    bad = st.sampled_from(["abc", 5, None, ["not-a-token"], [s.tokens[0], "zzz-not-next"],
                           [s.tokens[0], *rlcore.split_tokens(s.continuations[0]), "x"]])
    return {"scenario": P(s, NOT_A_SCENARIO), "written": P(written(d, s), bad),
            **pick(d, seed="seed", temperature="pos")}

def _share_curve(d, both=("rewards", "p_ref")):
    betas = {"beta": P([[b] for b in d(st.lists(NONNEG, min_size=1, max_size=3))],  # β scrubbed: shape [G, 1]
                       st.sampled_from([[[0.5], [NAN]], [[-1.0]], "abc", [[0.5], [1.0, 2.0]]]))} if d(
        st.booleans()) else {}
    return {"shares": P(d(st.lists(UNIT, min_size=1, max_size=8)), BAD_BATCH | st.sampled_from([[-0.1], [1.1]])),
            "rewards": P(d(vector(REAL, 2)), BAD_VECTOR | st.sampled_from([[1.0], [1.0, 2.0, 3.0]]), both),
            "p_ref": P(d(probs(2, positive=True)), bad_probs(2) | st.sampled_from([[1.0, 0.0], [1.0]]), both),
            "beta": P(d(NONNEG), scalar_bad(BAD_NONNEG)), **betas}

def _importance(d, n):
    old, new = d(vector(st.one_of(st.sampled_from([TINY, 1.0]), st.floats(1e-6, 1.0)), n)), d(vector(UNIT, n))
    old, new = (old[0], new[0]) if n == 1 and d(st.booleans()) else (old, new)
    return {"p_new": P(new, bad_vector(n, 0.0, [-0.1] * n, [1.1] * n), ("p_new", "p_old")),
            "p_old": P(old, bad_vector(n, 0.5, [0.0] * n, [1.1] * n), ("p_new", "p_old"))}

def _ppo_epochs(d, k):
    n, both = d(st.integers(1, 10)), ("actions", "advantages")
    bad_old = bad_probs(k) | st.just([1.0] + [0.0] * (k - 1)) if k > 1 else bad_probs(k)
    return {"p_old": P(d(probs(k, positive=True)), bad_old, ("p_old", "actions")), **pick(d, lr="step"),
            "actions": P(d(vector(st.integers(0, k - 1), n)), bad_index(k, n), both),
            "advantages": P(d(vector(REAL, n)), bad_vector(n), both),
            "epochs": P(d(st.integers(1, 10)), bad_count(1, 10_000)),
            # documented "ε > 0", but clipped_objective inside needs ε < 1 (a ValueError naming eps: acceptable)
            "eps": P(d(UNIT_OPEN), BAD_POS | st.sampled_from([1.0, 2.0]))}

def _aggregate_loss(d):
    mask = d(token_masks())
    n, t = np.shape(mask)
    bad = st.sampled_from([[[0.0] * (t + 1)] * n, [[NAN] * t] * n, [[INF] * t] * n, [0.0] * t, "abc", None, []])
    return mask_params(d, mask) | {"token_losses": P(d(vector(vector(REAL, t), n)), bad)}

def _sequence_ratio(d):
    mask = d(token_masks())
    n, t = np.shape(mask)
    return {"logp_new": logp_rows(d, n, t, "logp_new"), "logp_old": logp_rows(d, n, t, "logp_old"),
            "mask": P(mask, BAD_MASK, ("mask", "logp_new", "logp_old"))}

def _gradient_weights(d):
    n, t = d(st.integers(1, 4)), d(st.integers(1, 5))
    ratio = d(st.one_of(vector(RATIO, n), vector(vector(RATIO, t), n)))
    if np.ndim(ratio) == 1:  # against one ratio any length broadcasts; against one row any number of rows
        adv, wrong = d(st.one_of(REAL, vector(REAL, n))), [[0.0] * (n + 1)] * (n > 1)
    else:
        adv = d(st.one_of(REAL, vector(vector(REAL, 1), n), vector(vector(REAL, t), n)))
        wrong = [[[0.0]] * (n + 1)] * (n > 1)
    both, last = ("ratio", "advantages"), np.broadcast_shapes(np.shape(ratio), np.shape(adv))[-1]
    return {"ratio": P(ratio, st.sampled_from([[], [NAN], [1.0, INF], [-0.5], "abc", ["a"], None]), both),
            "advantages": P(adv, st.sampled_from([[], [NAN], [-INF], "abc", None, *wrong]), both),
            "method": P(d(st.sampled_from(rlcore.GRADIENT_METHODS)), st.sampled_from(["PPO", "grpo", None, 1])),
            **pick(d, eps_low="pos"), "eps_high": P(d(D["eps_high"][0]), scalar_bad(BAD_OPTIONAL_POS))} | ({
                "eps_high": P(  # ε_high scrubbed: one row per ε_high
                np.reshape(d(st.lists(POS, min_size=1, max_size=3)), (-1, *[1] * np.ndim(ratio))).tolist(),
                st.sampled_from([[[0.2], [0.0]], [[NAN]], [[-1.0]], "abc", [0.2] * (last + 1) if last > 1 else [0.0]]))}
                if d(st.booleans()) else {})

def _kl_pair(d):
    """π, π_ref > 0, sometimes with a token neither writes; π = 0 where π_ref > 0 is valid, not the reverse."""
    k = d(K)
    pi, ref = d(probs(k, positive=True)), d(probs(k, positive=True))
    pi, ref = ([*pi, 0.0], [*ref, 0.0]) if d(st.booleans()) else (pi, ref)
    size, off = len(pi), st.sampled_from([[1.0] + [0.0] * (len(pi) - 1)]) if k > 1 else st.nothing()
    return {"pi": P(pi, bad_probs(size), ("pi", "pi_ref")), "pi_ref": P(ref, bad_probs(size) | off, ("pi", "pi_ref"))}

def _is_weights(d):
    n, rows = d(st.integers(1, 6)), d(st.sampled_from([None, 1, 3]))
    shape, both = (n,) if rows is None else (rows, n), ("logp_train", "logp_rollout")
    bad = st.sampled_from([np.full(shape, 0.5).tolist(), np.full(shape, NAN).tolist(), [0.0] * (n + 1), [], "abc",
                           None])
    return {"logp_train": P(one_or_rows(d, LOGP, n, rows), bad, both), "cap": P(d(POS), BAD_POS | st.just(INF)),
            "logp_rollout": P(one_or_rows(d, LOGP, n, rows), bad, both),
            "mode": P(d(st.sampled_from(rlcore.TRUNCATION_MODES)), st.sampled_from(["clip", None, 1, "MASK"]))}

def _entropy_change(d):
    k, rows = d(K), d(st.sampled_from([None, 1, 3]))
    both, bad = ("pi", "logit_change"), st.sampled_from([[0.0] * (k + 1), [NAN] * k, [INF] * k, "abc", None, []])
    return {"pi": P(prob_rows(d, k, rows), BAD_PROB_ROWS, both),
            "logit_change": P(one_or_rows(d, REAL, k, rows), bad, both)}

def _pass_at_k(d):
    n, ks = d(st.integers(1, 5)), st.one_of(st.integers(1, 100), st.sampled_from([10**6, 10**12]))
    p, k = d(st.one_of(UNIT, vector(UNIT, n))), d(st.one_of(ks, vector(ks, n), vector(vector(ks, 1), 2)))
    bad_k = st.sampled_from([0, 1.5, "3", None, NAN, INF, -2, [1, 2.5], []]
                            + [[1] * (n + 1)] * bool(np.ndim(p) and n > 1))  # a scalar p broadcasts to any k
    return {"p": P(p, st.sampled_from([NAN, INF, -0.1, 1.1, "abc", None, 1j, [0.5, NAN], []]), ("p", "k")),
            "k": P(k, bad_k, ("p", "k"))}

def _pass_estimate(d):
    n = d(st.one_of(st.integers(1, 50), st.integers(1, 10_000), st.just(10**6)))
    c, k = d(st.integers(0, n)), d(st.integers(1, n))
    return {"n": P(n, bad_count(1, 10**6), ("n", "c", "k")), "c": P(c, bad_count(0, n)), "k": P(k, bad_count(1, n))}

# --- checks of results that say more than "finite, of this shape" ----------------------------------------------

def check_normalize(out, kw):
    assert isinstance(out, tuple) and len(out) == len(kw["probs"]) and abs(math.fsum(out) - 1.0) <= 1e-9, out
    assert all(isinstance(p, float) and 0.0 <= p <= 1.0 for p in out), out
    rlcore.Scenario(tokens=tuple(f"t{i}" for i in range(len(out))), probs=out, samples=((1.0,),) * len(out))

def check_scenario(out, kw):
    assert isinstance(out, rlcore.Scenario) and out.tokens == tuple(t.strip() for t in kw["tokens"])
    assert len(out.continuations) == out.n and len(out.samples) == out.n and arr(out.q, (out.n,)) is not None
    is_probs(out.pi, out.n)

def check_mc(out, kw, running: bool = False):
    k, c = kw["n_actions"], (len(kw["at"]),) if running else ()
    assert isinstance(out, rlcore.RunningEstimates if running else rlcore.MCEstimates)
    counts = arr(out.counts, (*c, k), dtype=int)
    assert running or counts.sum() == len(kw["actions"])
    arr(out.q, (*c, k), nan_where=counts == 0)  # Q of a token with no sample yet is NaN (documented)
    arr(out.v, c) if running else num(out.v)
    assert not running or arr(out.at, c, dtype=int) is not None

def check_sample_answers(out, kw):
    a, s = arr(out[0], (kw["n"],), dtype=int), arr(out[1], (kw["n"],))
    assert np.all(np.asarray(kw["probs"])[a] > 0), "a token with π = 0 was drawn"
    assert all(x in kw["samples"][i] for i, x in zip(a, s, strict=True))

def check_histogram(out, kw):
    b, shape = kw["bins"], (kw["bins"],) if np.ndim(kw["values"]) == 1 else (len(kw["values"]), kw["bins"])
    assert isinstance(out, rlcore.Histogram) and np.all(np.diff(arr(out.edges, (b + 1,))) >= 0)
    counts, shares = arr(out.counts, shape, dtype=int), arr(out.shares, shape)
    assert np.all(counts >= 0) and np.all(shares <= 1 + 1e-12)
    assert kw.get("low") is not None or kw.get("high") is not None or counts.sum() == np.size(kw["values"])

def check_group_advantages(out, kw):
    a = arr(out, np.shape(kw["scores"]))
    if kw["method"] != "grpo":  # centred: each group's advantages sum to 0
        assert np.all(np.abs(a.sum(axis=-1)) <= 1e-9 * max(1.0, np.abs(kw["scores"]).max()) * a.shape[-1])

def check_trace(out, kw):
    assert isinstance(out, rlcore.AnswerTrace) and out.tokens == rlcore.answer_tokens(kw["scenario"], kw["token"])
    t = len(out.tokens)
    fields_ok(out, rlcore.AnswerTrace, rewards=(t,), values=(t + 1,))
    assert out.values[-1] == 0 and 0 <= out.action_index < t and out.tokens[out.action_index] == kw["token"]
    num(out.score)

def check_step(out, kw):
    assert isinstance(out, rlcore.GenerationStep) and out.k == len(kw["written"])
    is_probs(out.probs, len(out.candidates))
    is_probs(out.base_probs, len(out.candidates))
    assert out.candidates[out.action_index] == out.action and out.action_prob > 0 and math.isfinite(num(out.reward))
    assert isinstance(out.done, bool) and (out.score is None) == (not out.done)

def check_reg_objective(out, kw):
    assert isinstance(out, rlcore.RegularizedObjective) and math.isfinite(num(out.expected_reward))
    p, ref = np.asarray(kw["p"]), np.asarray(kw["p_ref"])
    if np.any((p > 0) & (ref == 0)):  # documented: KL is +inf, so is the penalty when β > 0
        assert out.kl == INF and (out.objective == -INF if kw["beta"] > 0 else math.isfinite(out.objective))
    else:
        assert num(out.kl) >= 0 and math.isfinite(num(out.objective))

def check_training(out, kw, runs=()):
    assert isinstance(out, rlcore.TrainingRun)
    is_prob_rows(arr(out.probs, (*runs, kw["steps"] + 1, kk(kw))))
    arr(out.mean_score, (*runs, kw["steps"]))

def check_discovery(out, kw):
    a, ps = arr(out, (*np.shape(kw["p"]), len(kw["k"]))), np.ravel(kw["p"])  # a row per p when p is an array
    exact = [[0.0 if k == 0 else 1.0 if p == 1 else -math.expm1(k * math.log1p(-p)) for k in kw["k"]] for p in ps]
    assert np.all((a >= 0) & (a <= 1)) and np.allclose(a.reshape(len(ps), -1), exact, rtol=1e-12, atol=0), (a, exact)

def check_discover(out, kw):
    p, t = kw["p"], kw["target"]
    if t > 0 and (p == 0 or (p < 1 and math.log1p(-t) / math.log1p(-p) == INF)):  # never, or k* beyond float64
        assert out == INF
        return
    k = num(out, lo=0)

    def chance(m):  # 1 − (1 − p)^m, accurate for tiny p
        return -math.expm1(m * math.log1p(-p)) if p < 1 else float(m > 0)

    assert k == int(k) and (k == 0 or chance(k) >= t * (1 - 1e-12)), "k samples do not reach the target"
    assert not 1 < k < 2**52 or chance(k - 1) < t * (1 + 1e-12), "one sample fewer already reaches it"

def check_ppo_epochs(out, kw):
    e = kw["epochs"] + 1
    fields_ok(out, rlcore.PPOEpochs, clip_fraction=(e,), objective=(e,))
    is_prob_rows(arr(out.probs, (e, len(kw["p_old"]))))
    assert np.all((out.clip_fraction >= 0) & (out.clip_fraction <= 1))

def check_history(out, kw):
    c, s = kw["config"], len(np.atleast_1d(kw["seeds"]))
    k = len(rlcore.lab_tree(kw["scenario"], c.flattery).tokens)
    assert isinstance(out, rlcore.LabHistory) and (out.diverged_at is None or 1 <= out.diverged_at <= c.steps)
    t, g, p = c.steps if out.diverged_at is None else out.diverged_at - 1, c.group_size, 2 + c.length  # finished
    is_prob_rows(arr(out.probs_first, (s, t + 1, k)))
    is_prob_rows(arr(out.probs_branch, (s, t + 1, 2)))
    fields_ok(out, rlcore.LabHistory, expected_score=(s, t + 1), kl=(s, t + 1), mean_score=(s, t),
              clip_fraction=(s, t), loss=(s, t), grad_norm=(s, t), scores=(s, t, g), rewards=(s, t, g, p),
              advantages=(s, t, g, p), mean_length=(s, t + 1))
    arr(out.values, (s, t + 1, 2), nan_where=c.algorithm != "ppo")  # documented: NaN without a critic
    arr(out.dead, (s, t), dtype=bool)
    arr(out.actions, (s, t, g, p), dtype=int)
    assert np.all(out.kl >= 0) and np.all(arr(out.entropy, (s, t + 1)) >= 0)
    assert np.all((arr(out.p_correct, (s, t + 1)) >= 0) & (out.p_correct <= 1 + 1e-12))
    assert np.all(arr(out.token_length, (s, t + 1, k)) >= 1) and np.all(out.token_length <= 2 + c.length)
    assert np.all((arr(out.groups_drawn, (s, t), dtype=int) >= 1) & (out.groups_drawn <= c.resample))
    if t > 0:
        loss, norm = rlcore.first_step_loss(out)
        assert math.isfinite(num(loss)) and num(norm, lo=0) >= 0

def check_kl_gradients(out, kw):
    assert isinstance(out, rlcore.KLGradients)
    for name, v in vars(out).items():  # a shift of every logit changes nothing: each gradient sums to 0
        assert abs(arr(v, (len(kw["pi"]),)).sum()) <= 1e-6 * max(1.0, np.abs(v).max()), name
    np.testing.assert_allclose(out.k3_loss, out.forward, atol=1e-8)
    np.testing.assert_allclose(out.k1_loss, 0.0, atol=1e-8)

def check_top_p(out, kw):
    p = np.asarray(kw["probs"])
    mu = is_probs(out, len(p))
    kept = p[mu > 0]
    assert np.all(mu[p == 0] == 0) and kept.size >= 1
    assert kept.sum() >= kw["top_p"] - 1e-9 or kept.size == np.count_nonzero(p)

def length_of_n(out, n: int) -> np.ndarray:
    return arr(out, (n,))

def in_unit(out, shape) -> None:
    """A number (shape ()) or an array of that shape, in [0, 1]."""
    a = np.asarray(num(out) if shape == () else arr(out, shape))
    assert np.all((a >= 0) & (a <= 1)), a

def zero_where(out, probs) -> np.ndarray:
    """A probability vector as long as ``probs``, 0 wherever ``probs`` is."""
    mu = is_probs(out, len(probs))
    assert np.all(mu[np.asarray(probs) == 0] == 0), mu
    return mu

def _entropy(out, kw):
    shape = np.shape(kw["pi"])[:-1]
    h = np.asarray(num(out) if shape == () else arr(out, shape))
    assert np.all(h >= 0) and np.all(h <= math.log(np.shape(kw["pi"])[-1]) + 1e-9)

def _pairs(d, n_items: int, n: int, loops: bool = False) -> tuple[list[int], list[int]]:
    """n comparisons among n_items ≥ 2 items, never an item against itself (``loops``: every item beats the next,
    so that none never loses and the maximum without a ridge is bounded)."""
    w = [i % n_items for i in range(n_items)] if loops else []
    lo = [(i + 1) % n_items for i in range(n_items)] if loops else []
    for _ in range(n):
        a = d(st.integers(0, n_items - 1))
        w, lo = [*w, a], [*lo, (a + d(st.integers(1, n_items - 1))) % n_items]
    return w, lo

def _comparisons(d, **more) -> dict[str, P]:
    m, names = d(st.integers(2, 5)), ("winners", "losers", "n_items")
    w, lo = _pairs(d, m, d(st.integers(1, 8)))
    bad = st.sampled_from([[m], [-1], [0.5], [[0]], "abc", None, [NAN]])
    return {"winners": P(w, bad, names), "losers": P(lo, bad | st.just([0] * (len(lo) + 1)), names),
            "n_items": P(m, bad_count(1), names), **more}

def _dpo(d, last: str) -> dict[str, P]:
    n, names = d(st.integers(1, 6)), ("logp_chosen", "logp_rejected", "ref_chosen", "ref_rejected")
    bad = st.sampled_from([[NAN] * n, [INF] * n, [0.0] * (n + 1), "abc", None, []])
    return {k: P(d(vector(st.floats(-50, 0), n)), bad, names) for k in names} | pick(d, **{last: "pos_modest"})

D["pos_modest"] = (POS_MODEST, BAD_POS)
DPO_NAMES = ("logp_chosen", "logp_rejected", "ref_chosen", "ref_rejected")

# --- THE TABLE: rlcore function -> Spec(arguments over their wide valid domains with their invalid values, check)

SPECS: dict[str, Spec] = {
    # returns.py
    "sparse_rewards": Spec(lambda d: {"n_tokens": P(d(st.integers(1, 50)), bad_count(1)), **pick(d, score="real")},
                           lambda o, kw: ok(np.all((a := arr(o, (kw["n_tokens"],)))[:-1] == 0)
                                            and a[-1] == kw["score"])),
    "discounted_returns": Spec(lambda d: {"rewards": P(d(LISTS_1_8), BAD_VECTOR), **pick(d, gamma="unit")},
                               length_of("rewards")),
    "first_token_return": Spec(lambda d: {"lengths": P(d(st.lists(st.integers(1, 50) | st.just(10**6), min_size=1,
                                                                  max_size=6)), BAD_LENGTHS),
                                         **pick(d, score="real", gamma="unit")},
                               lambda o, kw: ok(np.all(np.abs(length_of("lengths")(o, kw))
                                                       <= abs(kw["score"]) * (1 + 1e-12)))),
    "outcome_judge": Spec(lambda d: {"answer": P(d(TEXT), BAD_STR), "full_marks": P(d(REAL), NOT_A_NUMBER),
                                     "expected": P(d(TOKEN_TEXT), BAD_STR | st.just(" "))},
                          lambda o, kw: ok(num(o) in (0.0, float(kw["full_marks"])))),
    # example.py
    "split_tokens": Spec(lambda d: {"text": P(d(TEXT | st.text()), BAD_STR)},
                         lambda o, kw: ok(isinstance(o, tuple) and all(isinstance(t, str) and t for t in o), o)),
    "normalize_probs": Spec(lambda d: {"probs": P(
        nonzero(d(st.lists(PROB_WEIGHT | st.floats(0, BIG), min_size=1, max_size=6))),
        st.sampled_from([[], [0.0, 0.0], [-1.0, 2.0], [NAN], [1.0, INF], [[1.0]], None, "abc", ["a"]]))},
        check_normalize),
    "Scenario": Spec(with_k(lambda d, k: {
        "tokens": P(d(st.lists(TOKEN_TEXT, min_size=k, max_size=k, unique_by=str.strip)),
                    st.sampled_from([[], ["a", "a"], ["a", " a "], [""], ["  "], [3], "abc", None, ["t"] * 13,
                                     [f"t{i}" for i in range(13)]]), ("tokens", "probs", "samples", "continuations")),
        "probs": P(d(probs(k)), bad_probs(k)), "samples": P(d(samples(k)), bad_samples(k)),
        **pick(d, prompt="text", prefix="text"),
        "continuations": P(tuple(d(CONT) for _ in range(k)), st.sampled_from([("x",) * (k + 1), "abc", (3,) * k]))}),
        check_scenario),
    "answer_tokens": Spec(scenario_token, lambda o, kw: ok(
        isinstance(o, tuple) and all(isinstance(t, str) for t in o)
        and o[len(rlcore.split_tokens(kw["scenario"].prefix))] == kw["token"])),
    # estimates.py
    "mc_estimates": Spec(lambda d: _mc(d, running=False), check_mc),
    "running_mc_estimates": Spec(lambda d: _mc(d, running=True), lambda o, kw: check_mc(o, kw, running=True)),
    "expected_value": Spec(probs_and("q"), bounded()),
    "advantages": Spec(probs_and("q"), length_of("q")),
    "gradient_stats": Spec(lambda d: probs_samples(d, baseline="real"), lambda o, kw: ok(
        fields_ok(o, rlcore.GradientStats, mean=(kk(kw),)) or num(o.total_variance) >= 0)),
    "optimal_baseline": Spec(probs_samples, bounded()),
    "sample_answers": Spec(lambda d: probs_samples(d, rng="rng") | {"n": P(d(st.integers(1, 50)), bad_count(1))},
                           check_sample_answers),
    "gradient_samples": Spec(lambda d: probs_samples(d, rng="rng", baseline="real") | {
        "n": P(d(st.integers(1, 50)), bad_count(1))}, lambda o, kw: arr(o, (kw["n"], kk(kw)))),
    "sample_checkpoints": Spec(lambda d: {"n": P(d(st.integers(1, 100) | st.just(10**9)), bad_count(1)),
                                          "points": P(d(st.integers(1, 300)), bad_count(1)),
                                          "log": P(d(st.booleans()))},
                               lambda o, kw: ok(1 <= (a := arr(o, dtype=int)).size <= kw["points"] and a[0] >= 1
                                                and a[-1] == kw["n"] and np.all(np.diff(a) > 0), o)),
    "running_mean": Spec(_running_mean, lambda o, kw: arr(o, (len(kw["at"]), *np.shape(kw["values"])[1:]))),
    "histogram_counts": Spec(_histogram, check_histogram),
    "gradient_variance_curve": Spec(lambda d: probs_samples(d) | {"baselines": P(d(LISTS_1_8), BAD_VECTOR)},
                                    lambda o, kw: ok(np.all(length_of("baselines")(o, kw) >= 0))),
    # credit.py
    "td_errors": Spec(lambda d: rewards_values(d, gamma="unit"), length_of("rewards")),
    "gae": Spec(_gae, lambda o, kw: ok(kw["mask"] is None or np.all(arr(o, (*np.shape(kw["lam"]), len(kw["rewards"])))[
        ..., ~np.asarray(kw["mask"], bool)] == 0)) or arr(o, (*np.shape(kw["lam"]), len(kw["rewards"])))),
    "group_advantages": Spec(_group, check_group_advantages),
    "credit_positions": Spec(lambda d: {"advantages": P(d(st.lists(REAL | st.just(1e-12), min_size=1, max_size=8)),
                                                        BAD_VECTOR), **pick(d, tol="nonneg")},
                             lambda o, kw: ok(np.all(np.diff(a := arr(o, dtype=int)) > 0)
                                              and np.all((a >= 0) & (a < len(kw["advantages"]))))),
    "answer_trace": Spec(lambda d: scenario_token(d, gamma="unit"), check_trace),
    # generation.py
    "rarest_token_shift": Spec(lambda d: alone_probs(d, temperature="pos"), lambda o, kw: ok(
        isinstance(o[0], int) and min(kw["probs"]) == kw["probs"][o[0]] == o[1] and 0 <= num(o[2]) <= 1, o)),
    "join_tokens": Spec(lambda d: {"tokens": P(d(st.lists(TOKEN_TEXT, max_size=8) | TEXT.map(rlcore.split_tokens)),
                                               st.sampled_from(["abc", 5, None, [1, 2], ["a", None]]))},
                        lambda o, kw: ok(isinstance(o, str))),
    "answer_text": Spec(lambda d: (p := scenario_token(d)) | {"reasoning_of": P(
        d(st.none() | st.sampled_from(p["scenario"].value.tokens)), st.sampled_from(["not-a-token", "", 3]))},
        lambda o, kw: ok(isinstance(o, str) and kw["token"].strip() in o)),
    "next_step": Spec(_next_step, check_step),
    "rollout": Spec(lambda d: pick(d, scenario="scenario", seed="seed", temperature="pos"), lambda o, kw: ok(
        isinstance(o, tuple) and o and o[-1].done and not any(x.done for x in o[:-1])
        and [x.k for x in o] == list(range(len(o))) and math.isfinite(num(o[-1].score)))),
    "rule_based_judge": Spec(lambda d: {
        "text": P(d(TEXT | st.builds(lambda r, a: f"<think>{r}</think> {a}", TEXT, TEXT)), BAD_STR),
        "expected": P(d(TOKEN_TEXT | st.just("?!")), BAD_STR | st.sampled_from(["", "  "]))}, lambda o, kw: ok(
        o[0] in (0.0, 1.0, 2.0) and isinstance(o[1], rlcore.JudgeChecks)
        and o[0] == float(o[1].format_ok) + float(o[1].answer_ok))),
    "answer_matches": Spec(lambda d: {"final": P(d(TEXT), BAD_STR),
                                      "expected": P(d(TOKEN_TEXT | st.sampled_from(["?!", ""])), BAD_STR)},
                           lambda o, kw: ok(isinstance(o, bool))),
    "step_rng": Spec(lambda d: {"seed": P(d(st.integers(0, 2**63)), bad_count(0)),
                                "k": P(d(st.integers(0, 100)), bad_count(0))},
                     lambda o, kw: ok(isinstance(o, np.random.Generator)
                                      and o.random() == rlcore.step_rng(kw["seed"], kw["k"]).random())),
    # kl.py
    "kl_divergence": Spec(with_k(lambda d, k: pair("p", "q", probs, bad_probs, k, d)), lambda o, kw: ok(  # +inf:
        o == INF if np.any((np.asarray(kw["p"]) > 0) & (np.asarray(kw["q"]) == 0)) else num(o) >= 0)),  # documented
    "kl_estimators": Spec(with_n(lambda d, n: pair("logp", "logp_ref", lambda n: vector(LOGP, n),
                                                   lambda n: bad_vector(n, 0.0, [0.5] * n), n, d), 8),
                          lambda o, kw: ok(fields_ok(o, rlcore.KLEstimates, **dict.fromkeys(("k1", "k2", "k3"), (kk(
                              kw, "logp"),))) or (np.all(o.k2 >= 0) and np.all(o.k3 >= 0)))),
    "kl_regularized_objective": Spec(with_k(lambda d, k: {
        "p": P(d(probs(k)), bad_probs(k), names := ("p", "rewards", "p_ref")),
        "p_ref": P(d(probs(k)), bad_probs(k), names),
        "rewards": P(d(vector(REAL, k)), bad_vector(k), names), **pick(d, beta="nonneg")}), check_reg_objective),
    "kl_optimal_policy": Spec(lambda d: ref_rewards(d, zero_ok=False), lambda o, kw: zero_where(o, kw["p_ref"])),
    "regularized_optimum": Spec(lambda d: ref_rewards(d, zero_ok=True), lambda o, kw: zero_where(o, kw["p_ref"])),
    "share_curve": Spec(_share_curve, lambda o, kw: ok(
        fields_ok(o, rlcore.ShareCurve, **dict.fromkeys(vars(o), np.broadcast_shapes(np.shape(kw["shares"]), np.shape(
            kw["beta"])))) or np.all(o.kl >= 0))),
    # policy.py
    "softmax": Spec(lambda d: {"logits": P(d(st.lists(REAL, min_size=1, max_size=6)), BAD_BATCH | st.just(3.0)),
                               **pick(d, temperature="tau")}, lambda o, kw: is_probs(o, kk(kw, "logits"))),
    "log_softmax": Spec(lambda d: {"logits": P(d(st.lists(REAL, min_size=1, max_size=6)), BAD_BATCH | st.just(3.0))},
                        lambda o, kw: ok(np.all((a := length_of("logits")(o, kw)) <= 0)
                                         and abs(np.logaddexp.reduce(a)) <= 1e-9)),
    "logits_from_probs": Spec(alone_probs, lambda o, kw: is_probs(rlcore.softmax(arr(o, (kk(kw),))), kk(kw))),
    "policy_gradient_step": Spec(with_k(lambda d, k: pair("logits", "q", lambda k: vector(REAL, k), bad_vector, k, d)
                                        | pick(d, lr="step")), length_of("logits")),
    "policy_gradient_path": Spec(lambda d: probs_and("q", REAL)(d) | pick(d, lr="step") | {
        "steps": P(d(st.integers(0, 8)), bad_count(0))}, lambda o, kw: fields_ok(
        o, rlcore.PolicyPath, values=(kw["steps"] + 1,)) or is_prob_rows(arr(o.probs, (kw["steps"] + 1, kk(kw))))),
    "sampled_training_many": Spec(lambda d: training(d, seeds=P(d(SEEDS), st.sampled_from([[], [-1], [0, "a"], [1.5],
                                                                                            None]))),
                                  lambda o, kw: check_training(o, kw, (np.size(kw.get("seeds", 0)),)), 60),
    "sampled_training": Spec(lambda d: training(d, seed=P(d(D["seed"][0]), BAD_SEED, ("seed", "seeds"))),
                             check_training, 60),
    "discovery_chance": Spec(lambda d: {
        "p": P(d(UNIT | st.sampled_from([5e-324, 1e-20]) | st.lists(UNIT, min_size=1, max_size=3)),
               scalar_bad(BAD_UNIT) | st.sampled_from([[0.5, NAN], [1.5], []])),
        "k": P(d(st.lists(st.integers(0, 1000) | st.floats(0, 1e6) | st.just(1e300), min_size=1, max_size=6)),
               BAD_VECTOR | st.just([-1]))}, check_discovery),
    "turning_steps": Spec(lambda d: {"probs": P(d(vector(vector(UNIT | REAL, d(K)), d(st.integers(1, 8)))),
                                                st.sampled_from([[], [1.0, 2.0], [[NAN]], [[INF, 0.0]], "abc",
                                                                 [[[1.0]]], [[]], [["a"]]])), **pick(d, tol="nonneg")},
        lambda o, kw: ok(np.all(((a := arr(o, (np.shape(kw["probs"])[1],), dtype=int)) >= 0)
                                & (a <= len(kw["probs"]) - 1)))),
    "temperature_probs": Spec(lambda d: alone_probs(d) | {"temperature": P(d(D["tau"][0]), scalar_bad(BAD_POS))} | ({
        "temperature": P(  # τ scrubbed
        d(st.lists(POS, min_size=1, max_size=3)), st.sampled_from([[1.0, 0.0], [NAN], [-1.0], [[1.0], [2.0, 3.0]]]))}
        if d(st.booleans()) else {}), lambda o, kw: [zero_where(mu, kw["probs"]) for mu in np.reshape(
            arr(o, (*np.shape(kw["temperature"]), len(kw["probs"]))), (-1, len(kw["probs"])))]),
    "samples_to_discover": Spec(lambda d: {  # no subnormal p: k* would be ~1e323, beyond float64
        "p": P(d(st.sampled_from([0.0, 1.0, TINY, 1 - 2**-53]) | st.floats(0, 1, allow_subnormal=False)), BAD_UNIT),
        "target": P(d(st.sampled_from([0.0, TINY, 0.5, 0.95, 1 - 2**-53]) | st.floats(0, 0.999)),
                    BAD_UNIT | st.just(1.0))}, check_discover),
    # ppo.py
    "importance_ratio": Spec(with_n(_importance), lambda o, kw: ok(np.all(arr(o, (np.size(kw["p_new"]),)) >= 0))),
    "clipped_objective": Spec(with_n(lambda d, n: ratio_adv(d, n) | {
        "eps_high": P(d(D["eps_high"][0]), scalar_bad(BAD_OPTIONAL_POS)),
        "eps": P(d(UNIT_OPEN | st.lists(UNIT_OPEN, min_size=1, max_size=3).map(lambda e: [[x] for x in e])),
                 scalar_bad(BAD_POS) | st.sampled_from([1.0, [[0.2], [1.0]], [[NAN]], [[0.0]]])),
        "dual_clip": P(d(st.none() | st.sampled_from([1 + 1e-9, 3.0, 1e3])),
                       BAD_OPTIONAL | st.sampled_from([1.0, 0.5, -3.0]))}),
        lambda o, kw: arr(o, np.broadcast_shapes(np.shape(kw["ratio"]), np.shape(kw["advantage"]),
                                                 np.shape(kw["eps"]), np.shape(kw["eps_high"] or 0)))),
    "is_clipped": Spec(with_n(lambda d, n: ratio_adv(d, n, False) | pick(d, eps="eps_open", eps_high="eps_high")),
                       length_of("ratio", dtype=bool)),
    "clip_bounds": Spec(lambda d: pick(d, p_old="unit", eps="pos"),
                        lambda o, kw: ok(0 <= num(o[0]) <= kw["p_old"] <= num(o[1]) <= 1)),
    "ppo_epochs": Spec(with_k(_ppo_epochs), check_ppo_epochs, 80),
    "batch_advantages": Spec(probs_samples, lambda o, kw: ok(fields_ok(o, rlcore.PPOBatch, **dict.fromkeys(
        ("scores", "advantages"), (n := sum(map(len, kw["samples"])),))) or (arr(o.actions, (n,), dtype=int) is not None
        and math.isfinite(num(o.value))))),
    # lab.py: the one study here, for the lab's configs reach far beyond what its page sets
    "LabConfig": Spec(lambda d: {name: P(d(LAB_FIELDS[name][0]), LAB_FIELDS[name][1])
                                 for name in sorted(d(st.sets(st.sampled_from(sorted(LAB_FIELDS)))))},
                      lambda o, kw: ok(isinstance(o, rlcore.LabConfig) and isinstance(o.clipped, bool)
                                       and all(getattr(o, name) == value for name, value in kw.items()))),
    "train": Spec(lambda d: pick(d, scenario="scenario") | {
        "config": P(d(lab_configs), st.sampled_from([None, "grpo", {"algorithm": "grpo"}])),
        "seeds": P(d(SEEDS), st.sampled_from([[], [-1], list(range(65)), [0, "a"], None, 1.5]))}, check_history, 100),
    # aggregation.py
    "token_weights": Spec(lambda d: mask_params(d, d(token_masks())), lambda o, kw: ok(
        np.all((w := arr(o, np.shape(kw["mask"]))) >= 0) and np.all(w[~np.asarray(kw["mask"], dtype=bool)] == 0)
        and (kw["mode"] not in ("token-mean", "seq-mean-token-mean") or abs(w.sum() - 1) <= 1e-12), o)),
    "aggregate_loss": Spec(_aggregate_loss, bounded(lambda kw: np.size(kw["mask"]))),
    "sequence_ratio": Spec(_sequence_ratio, lambda o, kw: ok(np.all(length_of("mask")(o, kw) > 0))),
    "gradient_weights": Spec(_gradient_weights, lambda o, kw: arr(o, np.broadcast_shapes(
        np.shape(kw["ratio"]), np.shape(kw["advantages"]), np.shape(kw["eps_high"] or 0)))),
    "informative_groups": Spec(lambda d: {"scores": P(d(vector(
        vector(SCORE, g := d(st.integers(1, 6))) | st.tuples(SCORE).map(lambda s: [s[0]] * g), d(st.integers(1, 5)))),
        st.sampled_from([[1.0, 0.0], [[NAN]], [[1.0, INF]], [[]], [], "abc", None]))},
                               length_of("scores", dtype=bool)),
    # diagnostics.py
    "kl_gradients": Spec(_kl_pair, check_kl_gradients),
    "truncated_is_weights": Spec(_is_weights, lambda o, kw: ok(
        np.all(((w := arr(o, np.shape(kw["logp_train"]))) >= 0) & (w <= kw["cap"])))),
    "entropy": Spec(lambda d: {"pi": P(prob_rows(d, None, d(st.sampled_from([None, 1, 3]))), BAD_PROB_ROWS)}, _entropy),
    "entropy_change": Spec(_entropy_change, lambda o, kw: num(o) if np.ndim(kw["pi"]) == 1 else length_of("pi")(o, kw)),
    "pass_at_k": Spec(_pass_at_k, lambda o, kw: in_unit(o, np.broadcast_shapes(np.shape(kw["p"]), np.shape(kw["k"])))),
    "pass_at_k_estimate": Spec(_pass_estimate, lambda o, kw: num(o, lo=0, hi=1)),
    # the rest of every formula module, one row each
    "answer_weights": Spec(lambda d: (p := {"lengths": P(d(st.lists(st.integers(1, 9), min_size=1, max_size=6)),
                                                         st.sampled_from([[], [NAN], [0], [1.5], "abc", None]))}) | {
        "mode": P(d(st.sampled_from(rlcore.AGGREGATION_MODES)), BAD_MODE),
        "max_len": P(d(st.none() | st.integers(max(p["lengths"].value), 60)), st.sampled_from([0, 1.5, "3", NAN]))},
        lambda o, kw: ok(np.all(length_of("lengths")(o, kw) > 0))),
    "best_of_n_probs": Spec(lambda d: (k := d(K)) and {
        "p_ref": P(d(probs(k)), bad_probs(k), ("p_ref", "rewards")),
        "rewards": P(d(vector(REAL, k)), bad_vector(k), ("p_ref", "rewards")),
        "n": P(d(st.integers(1, 50) | st.just(10**9)), bad_count(1, 10**9))},
        lambda o, kw: zero_where(o, kw["p_ref"])),
    "browser_length": Spec(lambda d: {"text": P(d(TEXT | st.text()), BAD_STR)},
                           lambda o, kw: ok(isinstance(o, int) and len(kw["text"]) <= o <= 2 * len(kw["text"]))),
    "bt_prob": Spec(with_n(lambda d, n: pair("r_a", "r_b", lambda n: vector(REAL, n),
                                             lambda n: bad_vector(n, 0.0), n, d)), lambda o, kw: in_unit(o, (
                                                 len(kw["r_a"]),))),
    "check_scenario": Spec(lambda d: {"scenario": P(d(scenarios()), NOT_A_SCENARIO)},
                           lambda o, kw: ok(o is kw["scenario"])),
    "dpo_margins": Spec(lambda d: {k: p for k, p in _dpo(d, "beta").items() if k != "beta"},
                        lambda o, kw: arr(o, (len(kw["logp_chosen"]),))),
    "dpo_loss": Spec(lambda d: _dpo(d, "beta"), lambda o, kw: num(o, lo=0)),
    "ipo_loss": Spec(lambda d: _dpo(d, "tau"), lambda o, kw: num(o, lo=0)),
    "dpo_weights": Spec(lambda d: {"margins": P(d(st.lists(REAL, min_size=1, max_size=6)),
                                                st.sampled_from([[NAN], [1.0, INF], "abc", None, ["a"]])),
                                   **pick(d, beta="pos_modest")},
                        lambda o, kw: ok(np.all((a := length_of("margins")(o, kw)) >= 0) and np.all(a <= 1))),
    "implicit_reward": Spec(with_n(lambda d, n: pair("logp", "ref_logp", lambda n: vector(LOGP, n),
                                                     lambda n: bad_vector(n, 0.0), n, d) | pick(d, beta="pos_modest")),
                            length_of("logp")),
    "never_loses": Spec(_comparisons, lambda o, kw: ok(np.all(np.diff(a := arr(o, dtype=int)) > 0)
                                                       and a.size < kw["n_items"])),
    "fit_reward_model": Spec(lambda d: _comparisons(d, **pick(d, l2="pos_modest")),
                             lambda o, kw: ok(abs(length_of_n(o, kw["n_items"]).mean()) <= 1e-6)),
    "fit_win_tables": Spec(lambda d: (m := d(st.integers(2, 4))) and {
        "wins": P(np.bincount(np.ravel_multi_index(_pairs(d, m, d(st.integers(0, 6)), loops=True), (m, m)),
                              minlength=m * m).reshape(m, m).tolist(),
                  st.sampled_from([[[0, -1], [1, 0]], [[0, 1]], [[NAN, 0], [0, 0]], "abc", None, [1.0]])),
        **pick(d, l2="nonneg")}, lambda o, kw: ok(abs(length_of_n(o, len(kw["wins"])).mean()) <= 1e-6)),
    "win_counts": Spec(lambda d: (m := d(st.integers(2, 5))) and dict(zip(  # indices its callers checked: no junk
        ("winners", "losers"), (P(np.array(x)) for x in _pairs(d, m, d(st.integers(1, 8)))), strict=True)) | {
            "n": P(m)}, lambda o, kw: ok(arr(o, (kw["n"], kw["n"])).sum() == len(kw["winners"]))),
    "sample_tokens": Spec(lambda d: (k := d(K)) and {
        "probs": P(prob_rows(d, k, d(st.sampled_from([None, 2]))), BAD_PROB_ROWS, ("probs", "u")),
        "u": P(d(st.lists(st.sampled_from([0.0, 1 - 2**-53, 0.5]) | st.floats(0, 1, exclude_max=True), min_size=1,
                          max_size=5)), st.sampled_from([[1.0], [-0.1], [NAN], "abc", None, []]), ("probs", "u"))},
        lambda o, kw: ok(np.all((a := arr(o, dtype=int)) >= 0) and np.all(a < np.shape(kw["probs"])[-1]))),
    "seed_bands": Spec(lambda d: {"values": P(d(vector(st.lists(REAL, min_size=2, max_size=2), d(st.integers(1, 4)))),
                                              st.sampled_from([[1.0], [[NAN, 1.0]], [[INF]], "abc", None, [[]]]))},
                       lambda o, kw: ok(np.all(arr(o.low, (2,)) <= arr(o.median, (2,)))
                                        and np.all(o.median <= arr(o.high, (2,))))),
    # mismatch.py: top-p, a probability function
    "top_p_probs": Spec(lambda d: alone_probs(d) | {"top_p": P(d(UNIT_OPEN | st.just(1.0)), BAD_UNIT | st.just(0.0))},
                        check_top_p),
}

# --- the generic tests over the table --------------------------------------------------------------------------

NAMED_BESIDES = {"top_p_probs", "train", "LabConfig"}  # rows for functions outside rlcore/formulas (the docstring)

def test_every_formula_has_a_row():
    """SPECS' keys are the public functions and validating classes of rlcore/formulas, and NAMED_BESIDES."""
    objs = {n: getattr(rlcore.formulas, n) for n in rlcore.formulas.__all__}
    expected = NAMED_BESIDES | {n for n, f in objs.items() if inspect.isfunction(f)
                                or (inspect.isclass(f) and "__post_init__" in vars(f))}
    assert not expected - set(SPECS), f"formulas with no SPECS row: {sorted(expected - set(SPECS))}"
    assert not set(SPECS) - expected, f"SPECS rows of no public formula: {sorted(set(SPECS) - expected)}"

def fuzz(name: str, examples: int) -> None:
    """``examples`` cases of ``name``'s row through ``run_case``; at least 90% of them must run."""
    fn, row, before = getattr(rlcore, name), SPECS[name], COUNTS.copy()

    @settings(max_examples=examples, derandomize=True, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(cases(row.build))
    def run(case):
        run_case(fn, row.check, case)

    run()
    ran = COUNTS - before
    assert ran["valid"] > 0, f"{name}: no valid example ran"
    # filter_too_much is suppressed, so a strategy that filters most draws away would run few examples quietly
    assert ran.total() >= 0.9 * examples, f"{name}: {ran.total()} examples ran of {examples} ({dict(ran)})"

QUICK_SHARE = 8  # the default suite runs an eighth of each row's examples (at least 15); the exhaustive, all

@pytest.mark.parametrize("name", sorted(SPECS))
def test_fuzz(name):
    fuzz(name, min(SPECS[name].examples, max(15, SPECS[name].examples // QUICK_SHARE)))

@pytest.mark.exhaustive
@pytest.mark.parametrize("name", sorted(SPECS))
def test_fuzz_every_example(name):
    fuzz(name, SPECS[name].examples)

def test_train_divergence_stops_the_history_and_names_the_step():
    """The one documented early stop for valid input, which the fuzz accepts: it still happens, as documented."""
    config = rlcore.LabConfig(algorithm="grpo", lr=100.0, beta=1.0, steps=3, epochs=3, group_size=2)
    kwargs = {"scenario": rlcore.ARTICLE_SCENARIO, "config": config, "seeds": 0}
    out = rlcore.train(**kwargs)
    assert out.diverged_at is not None
    check_history(out, kwargs)

# Bugs this file found, fixed in rlcore since: each minimal reproduction stays as its own named regression case
# (the table covers these inputs again). A bug found later and still open would be an xfail(strict=True) case.

S, GRPO = rlcore.ARTICLE_SCENARIO, rlcore.recipe_switches("GRPO")
WRONG_NAME = "the ValueError does not name the offending argument"
UNCHECKED = "a wrong type gets through to an AttributeError (or str.index's 'substring not found')"
NOT_CHECKED = "invalid input accepted"
OVERFLOW = "valid input overflows float64 although the true result is finite"
STRINGS = WRONG_NAME + ": numpy's 'could not convert string to float'"
RAGGED = WRONG_NAME + ": numpy's 'setting an array element with a sequence'"
RECIPE = {"ratio": [1.0], "seq_ratio": [1.0], "advantages": [1.0]}
LENGTH = {"advantages": [[1.0]], "lengths": [1], "mode": "token-mean", "lr": 1.0}
# (id, function, arguments, the arguments an error must name (none: valid input), what the harness raised while the
# bug was open (AssertionError: one of its checks failed), the bug)
KNOWN_BUGS = [pytest.param(*row[1:], id=row[0]) for row in [
    ("group_credit-seed-called-rng", "group_credit", {"scenario": S, "token": "open", "group_size": 4, "seed": -1},
     ("seed",), AssertionError, WRONG_NAME + ": 'rng must be >= 0' (sample_answers' name)"),
    ("policy_gradient_path-lr-unchecked", "policy_gradient_path", {"probs": [0.5, 0.5], "q": [1.0, 2.0], "lr": NAN,
                                                                   "steps": 0}, ("lr",), AssertionError,
     NOT_CHECKED + ": lr is only checked inside a step"),
    ("answer_text-reasoning_of-called-token", "answer_text", {"scenario": S, "token": "open", "reasoning_of": "nope"},
     ("reasoning_of",), AssertionError, WRONG_NAME + ": 'token must be one of ...'"),
    ("is_clipped-lengths", "is_clipped", {"ratio": [1.0, 2.0], "advantage": [1.0, 2.0, 3.0]}, ("ratio", "advantage"),
     AssertionError, WRONG_NAME + ": numpy's 'operands could not be broadcast'"),
    ("normalize_probs-strings", "normalize_probs", {"probs": ["a"]}, ("probs",), AssertionError, STRINGS),
    ("running_mean-strings", "running_mean", {"values": ["a"], "at": [1]}, ("values",), AssertionError, STRINGS),
    ("histogram_counts-strings", "histogram_counts", {"values": ["a"], "bins": 3}, ("values",), AssertionError,
     STRINGS),
    *[(f"{name}-{arg}-not-checked", name, {**kwargs, arg: "abc"}, (arg,), (AssertionError, AttributeError), UNCHECKED)
      for name, kwargs, arg in [
          ("answer_trace", {"token": "open"}, "scenario"), ("answer_tokens", {"token": "open"}, "scenario"),
          ("answer_text", {"token": "open"}, "scenario"), ("summarize", {}, "scenario"),
          ("group_credit", {"token": "open", "group_size": 3}, "scenario"), ("rollout", {"seed": 0}, "scenario"),
          ("next_step", {"written": [], "seed": 0}, "scenario"), ("exploration_outcome", {"token": 0}, "run"),
          ("critic_error_study", {"scores": [1.0], "gamma": 1.0, "lams": [0.5], "bias": 0.0, "noise": 0.0,
                                  "n_draws": 2, "seed": 0}, "trace")]],
    ("answer_matches-non-string", "answer_matches", {"final": "x", "expected": []}, ("expected",), AttributeError,
     UNCHECKED),
    ("kl_estimator_study-tiny-probability", "kl_estimator_study", {"p": [1e-200, 1 - 1e-200], "p_ref": [0.5, 0.5],
                                                                   "n": 10, "seed": 0}, (), FloatingPointError,
     OVERFLOW + " (the exact spread of k3 is about 3.5e99; (per_token**2) overflows)"),
    ("regularized_optimum-tiny-beta", "regularized_optimum", {"p_ref": [0.5, 0.5], "rewards": [1.0, 0.0],
                                                              "beta": 1e-310}, (), FloatingPointError,
     OVERFLOW + " (r/β overflows, then inf − inf = NaN; the answer is [1, 0])"),
    ("kl_optimal_policy-tiny-beta", "kl_optimal_policy", {"p_ref": [0.5, 0.5], "rewards": [1.0, 0.0], "beta": 1e-310},
     (), FloatingPointError, OVERFLOW + " (as regularized_optimum)"),
    ("kl_optimal_policy-tiny-beta-best-off-support", "kl_optimal_policy", {"p_ref": [0.5, 0.5, 0.0], "rewards": [
        0.0, 1.0, 10.0], "beta": 1e-310}, (), (AssertionError, FloatingPointError), "β = 1e-310, the best reward where "
     "π_ref = 0: every supported logit −inf, −inf − (−inf) = NaN; the answer is [0, 1, 0] (shift by the supported "
     "max)"),
    ("sampled_training_many-tiny-temperature", "sampled_training_many", {
        "probs": [0.5, 0.5], "samples": [[1.0], [0.0]], "lr": 1.0, "steps": 1, "batch": 1, "temperature": 1e-310}, (),
     FloatingPointError, OVERFLOW + " (z/τ overflows and gives NaN; softmax() handles the same τ)"),
    ("histogram_counts-narrow-range", "histogram_counts", {"values": [0.0, 1e6], "bins": 3, "low": 0.0,
                                                           "high": 1e-14}, (), FloatingPointError,
     "a value far outside a narrow [low, high] makes an invalid float→int64 cast (a RuntimeWarning)"),
    # found once pages 10-15's modules were exported (clips, length, recipes, kl_placement, collapse, mismatch)
    ("clip_batch-gspo_eps-not-a-pair", "clip_batch", {"probs": [1.0], "samples": [[0.0]], "lengths": [1], "lr": 0.0,
                                                      "gspo_eps": 3}, ("gspo_eps",), TypeError,
     UNCHECKED + ": 'int' object is not iterable"),
    ("recipe_gradient-gspo_eps-called-eps_low", "recipe_gradient", {**RECIPE, "switches": {**GRPO, "ratio": "sequence"},
                                                                    "gspo_eps": (0.0, 1e-3)}, ("gspo_eps",),
     AssertionError, WRONG_NAME + ": 'eps_low must be > 0' (gradient_weights' name)"),
    ("recipe_gradient-eps-unchecked", "recipe_gradient", {**RECIPE, "switches": {**GRPO, "clip": "none"},
                                                          "eps_low": -1.0}, ("eps_low",), AssertionError,
     NOT_CHECKED + ": the clip range was checked only when the switches use it"),
    ("differences-reference-called-name", "differences", {"switches": GRPO, "reference": "grpo"}, ("reference",),
     AssertionError, WRONG_NAME + ": 'name must be one of ...'"),
    ("recipe_switches-base-called-switches", "recipe_switches", {"name": "DAPO", "base": "GRPO"}, ("base",),
     AssertionError, WRONG_NAME + ": 'switches must be a dict ...'"),
    ("length_push-match_step-unchecked", "length_push", {"lengths": [1, 2], "advantages": [1.0, -1.0],
                                                         "match_step": "no"}, ("match_step",), AssertionError,
     NOT_CHECKED + ": any truthy value counted as True"),
    ("length_step-logits-text", "length_step", {**LENGTH, "logits": "abc", "actions": [[0]]}, ("logits",),
     AssertionError, STRINGS),
    ("length_step-actions-ragged", "length_step", {**LENGTH, "logits": [[0.0]], "actions": [[0], []]}, ("actions",),
     AssertionError, WRONG_NAME + ": numpy's 'inhomogeneous shape'"),
    ("lowest_error-study-not-checked", "lowest_error", {"study": "abc", "cap_index": 0}, ("study",), AttributeError,
     UNCHECKED),
    ("top_p_probs-tiny-p", "top_p_probs", {"probs": [1.0], "top_p": 1e-300}, (), FloatingPointError,
     "top_p ≤ 1e-12 kept no token and returned 0/0 = NaN; the likeliest token is always kept now"),
    ("mismatch_study-level-called-top_p", "mismatch_study", {"probs": [0.5, 0.5], "q": [1.0, 0.0], "kind": "top-p",
                                                             "level": 0.0, "caps": [2.0], "batch": 2, "draws": 2,
                                                             "seed": 0}, ("level",), AssertionError,
     WRONG_NAME + ": 'top_p must be > 0' (top_p_probs' name)"),
    ("kl_placements-tiny-probability", "kl_placements", {"pi": [1e-300, 1 - 1e-300], "pi_ref": [0.5, 0.5]}, (),
     FloatingPointError, OVERFLOW + " (π_ref/π = 5e299, and its square overflows in the spread of k3)"),
    ("samples_to_discover-beyond-float64", "samples_to_discover", {"p": 2.2250738585072014e-308,
                                                                   "target": 1 - 2**-53}, (), FloatingPointError,
     "k* ≈ 1.7e309 is beyond float64: the ratio of logs overflowed (a FloatingPointError); inf, as documented"),
    ("ragged-softmax", "softmax", {"logits": [1.0, [2.0]]}, ("logits",), AssertionError, RAGGED),
    ("ragged-td_errors", "td_errors", {"rewards": [[1.0], [2.0, 3.0]], "values": [0.0, 0.0, 0.0], "gamma": 1.0},
     ("rewards",), AssertionError, RAGGED),
    ("ragged-expected_value", "expected_value", {"probs": [[1.0], [0.5, 0.5]], "q": [1.0, 2.0]}, ("probs",),
     AssertionError, RAGGED),
    ("ragged-running_mean", "running_mean", {"values": [[1.0], [2.0, 3.0]], "at": [1]}, ("values",), AssertionError,
     RAGGED),
]]

def all_finite(out, kw=None) -> None:
    """Every number in a result (arrays, numbers, the fields of a dataclass or tuple, recursively) is finite: the
    check of a study that has no row of its own in the table."""
    if dataclasses.is_dataclass(out):  # KLPlacements.cosine is NaN where a gradient is 0, as documented
        out = [getattr(out, f.name) for f in dataclasses.fields(out) if f.name != "cosine"]
    if isinstance(out, (tuple, list)) and not all(isinstance(x, (int, float)) for x in out):
        for x in out:
            all_finite(x)
    elif not isinstance(out, (str, bool, type(None), dict)):
        a = np.asarray(out)
        assert a.dtype == object or a.dtype.kind not in "fc" or np.all(np.isfinite(a)), a

@pytest.mark.parametrize(("name", "kwargs", "bad", "raises", "reason"), KNOWN_BUGS)
def test_known_bug(name, kwargs, bad, raises, reason):
    check = SPECS[name].check if name in SPECS else all_finite  # a study: finite results, through the same harness
    try:
        run_case(getattr(rlcore, name), check, Case(kwargs, bad))
    except raises as err:
        pytest.fail(f"a fixed bug is back: {name}: {reason}\n{type(err).__name__}: {err}"[:2000])

def test_fixed_recipe_gradient_counts_only_what_the_clip_stops():
    """ρ = 0 (π underflowed) with no clip: nothing is left for a clip to stop, so not "stopped" (it was counted
    as stopped, with kept = 1: the page would have said the clip stopped it)."""
    out = rlcore.recipe_gradient([0.0, 1.5], [1.0, 1.0], [-1.0, 1.0], {**GRPO, "clip": "none"})
    assert out.stopped.tolist() == [False, False] and out.kept.tolist() == [1.0, 1.0]
    clipped = rlcore.recipe_gradient([0.0, 1.5], [1.0, 1.0], [-1.0, 1.0], GRPO)  # 1.5 > 1 + 0.2: stopped
    assert clipped.stopped.tolist() == [False, True] and clipped.kept.tolist() == [1.0, 0.0]

def test_known_bug_discovery_chance_precision():  # fixed: −expm1(k·log1p(−p))
    """discovery_chance(1e-20, [1e20]) is 1 − e^−1 ≈ 0.632; it returned 0. (samples_to_discover uses log1p.)"""
    assert rlcore.discovery_chance(1e-20, [1e20])[0] == pytest.approx(-math.expm1(-1.0), rel=1e-9)

def test_kl_estimator_study_k3_bias_outside_the_support_is_documented():
    """E_π[k3] = KL − (π_ref's mass where π = 0); with π = (0, 1), π_ref = (0.95, 0.05) the bias is −0.95.
    Found by this file: the docstring claimed k3 unbiased always; it now states the condition."""
    study = rlcore.kl_estimator_study([0.0, 1.0], [0.95, 0.05], 200, 0)
    assert study.bias[0] == 0 and study.bias[2] == pytest.approx(-0.95)
    assert rlcore.kl_estimator_study([0.1, 0.9], [0.95, 0.05], 200, 0).bias[2] == 0

# Every public function of every rlcore module, from its signature: nothing to add here for a new module.
# Arguments come from the function's first doctest that calls it (valid by construction), else from the argument's
# name (VOCABULARY: one size m shared by every vector, so probs, q, samples, rewards, lengths ... fit each other) or
# its default. Then one argument may be replaced by JUNK. The function must return, or raise ValueError (naming a
# replaced argument); a TypeError, IndexError, AttributeError, a floating-point error or a warning fails.

NOT_FUZZED = {  # modules whose functions take other checks' names as arguments, not values
    "rlcore.checks": "the checks themselves: their first argument is the name an error uses",
    "rlcore.zero.model": "the model's own array plumbing; tests/zero checks its gradients and sampler, its callers "
                         "(zero.training's entry points, fuzzed below) check the learner's input",
}
INTERNAL = {  # functions that take only arrays or records of their own package's making: one-line reason each
    "rlcore.preference.win_counts": "counts indices fit_reward_model / the judge studies have already checked",
    "rlcore.zero.training.collect": "builds a ZeroRun from the steps train_steps yielded (train, fuzzed, calls it)",
    **dict.fromkeys(("rlcore.zero.critic." + f for f in ("features", "fit", "returns_to_go", "values")),
                    "PPO's critic on the loop's own arrays; its entry point train is fuzzed"),
    "rlcore.zero.training.train_steps": "a generator: its checks run at its first step, which train (fuzzed) takes",
    **dict.fromkeys(("rlcore.zero.task." + f for f in ("sample_problems", "sizes_of", "running_results",
                                                       "final_answers", "prompts", "answers", "answer_lengths",
                                                       "problem_text", "answer_text", "judge_batch")),
                    "token arrays the zero package makes itself (parse_problem checks typed text)"),
    **dict.fromkeys(("rlcore.zero.training." + f for f in ("answer_mask", "measure", "policy_grads",
                                                           "answer_log_probs", "warm_critic", "explained_variance",
                                                           "token_advantages")),
                    "the learner's loop on its own arrays; its entry points train, answer, group_view are fuzzed"),
    **dict.fromkeys(("rlcore.zero.dpo." + f for f in ("dpo_grads", "sequence_log_probs", "probe", "measure_probe",
                                                      "dpo_collect")),
                    "DPO's loop on its own arrays and steps; its entry point dpo_train is fuzzed"),
    "rlcore.zero.dpo.dpo_steps": "a generator: its checks run at its first step, which dpo_train (fuzzed) takes",
    **dict.fromkeys(("rlcore.zero.warmup." + f for f in ("supervised_grads", "warm_up", "save_model", "load_model",
                                                         "example_steps", "decision_weights", "forced_accuracy",
                                                         "sample", "main")),
                    "the offline build of the shipped base model (its __main__) and its report, no learner input"),
}

def public_functions() -> list[tuple[str, Callable]]:
    """(module.name, callable) for every public function and validating class defined in an rlcore module, named
    by the module's short address (``rlcore.lab.train`` for ``rlcore.studies.lab.train``)."""
    out = []
    for info in pkgutil.walk_packages(rlcore.__path__, "rlcore."):
        short = info.name.replace("rlcore.formulas.", "rlcore.").replace("rlcore.studies.", "rlcore.")
        if short in NOT_FUZZED or not short.count("."):  # the folders' own __init__ defines nothing
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__ \
                    or f"{short}.{name}" in INTERNAL:
                continue
            if inspect.isfunction(obj) or (inspect.isclass(obj) and "__post_init__" in vars(obj)):
                out.append((f"{short}.{name}", obj))
    return sorted(out, key=lambda item: item[0])

def doctest_kwargs(fn) -> dict | None:
    """The arguments of the first call to ``fn`` in its own docstring's examples, bound to its parameter names."""
    namespace = {**vars(inspect.getmodule(fn)), "np": np}
    for example in doctest.DocTestParser().get_examples(inspect.getdoc(fn) or ""):
        try:
            tree = ast.parse(example.source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == fn.__name__:
                try:
                    args = [eval(compile(ast.Expression(a), "<doctest>", "eval"), namespace) for a in node.args]
                    kw = {k.arg: eval(compile(ast.Expression(k.value), "<doctest>", "eval"), namespace)
                          for k in node.keywords}
                    return dict(inspect.signature(fn).bind(*args, **kw).arguments)
                except Exception:  # an example that needs names of its own: fall back on the vocabulary
                    return None
        with contextlib.suppress(Exception):
            exec(compile(example.source, "<doctest>", "exec"), namespace)  # names later examples use
    return None

def _vec(elements):
    return lambda draw, m, kw: draw(vector(elements, m))

def _fixed(value):
    return lambda draw, m, kw: value

def _drawn(strategy):
    return lambda draw, m, kw: draw(strategy)

def _token(draw, m, kw):
    """A token of the scenario drawn before it; without one, a token's index."""
    if isinstance(kw.get("scenario"), rlcore.Scenario):
        return draw(st.sampled_from(kw["scenario"].tokens))
    return draw(st.integers(0, m - 1))

SMALL_SCORE = st.one_of(st.sampled_from([0.0, 1.0, 10.0]), st.floats(-10, 10))
RECIPE_NAMES = st.sampled_from([r.name for r in rlcore.RECIPES])
SMALL_CONFIG = _drawn(st.just(None).map(lambda _: rlcore.LabConfig(steps=2, group_size=2)))
VOCABULARY: dict[str, Callable] = {  # argument name -> (draw, m, arguments so far) -> a value that often fits
    **dict.fromkeys(("probs", "pi", "pi_ref", "p_ref", "p_old", "p_new", "p"), lambda draw, m, kw: draw(probs(m))),
    **dict.fromkeys(("q", "rewards", "scores", "advantages", "advantage", "baselines", "logits", "logit_change"),
                    _vec(SMALL_SCORE)),
    "values": lambda draw, m, kw: draw(vector(SMALL_SCORE, m + 1)),
    "samples": lambda draw, m, kw: draw(vector(st.lists(SMALL_SCORE, min_size=1, max_size=3), m)),
    "lengths": _vec(st.integers(1, 6)), **dict.fromkeys(("ratio", "seq_ratio"), _vec(st.floats(0, 3))),
    **dict.fromkeys(("logp", "logp_ref", "logp_train", "logp_rollout"), _vec(st.floats(-20, 0))),
    **dict.fromkeys(("logp_new", "logp_old"), lambda draw, m, kw: [draw(vector(st.floats(-20, 0), m))]),
    "mask": lambda draw, m, kw: [[1] * m], "token_losses": lambda draw, m, kw: [draw(vector(SMALL_SCORE, m))],
    "actions": _vec(st.just(0)), "shares": _vec(st.floats(0, 1)), "ks": _fixed([1, 2]), "caps": _fixed([1.5, 3.0]),
    "lams": _fixed([0.0, 0.5, 1.0]), "at": lambda draw, m, kw: [1, m], "seeds": _fixed([0, 1]), "written": _fixed([]),
    # the running example, and results other functions take
    "scenario": lambda draw, m, kw: draw(scenarios(min_k=m, max_k=m)), "token": _token,
    "trace": lambda draw, m, kw: rlcore.answer_trace(rlcore.ARTICLE_SCENARIO, "open"),
    "run": lambda draw, m, kw: rlcore.sampled_training([0.5, 0.5], [[1.0], [0.0]], lr=1.0, steps=2, batch=2),
    "study": lambda draw, m, kw: rlcore.mismatch_study([0.5, 0.5], [1.0, 0.0], kind="temperature", level=1.5,
                                                      caps=[2.0], batch=4, draws=2, seed=0),
    **dict.fromkeys(("config", "c"), SMALL_CONFIG),
    "tree": lambda draw, m, kw: rlcore.lab_tree(rlcore.ARTICLE_SCENARIO),
    "history": lambda draw, m, kw: rlcore.train(rlcore.ARTICLE_SCENARIO, rlcore.LabConfig(steps=2, group_size=2)),
    "switches": lambda draw, m, kw: rlcore.recipe_switches(draw(RECIPE_NAMES)), "name": _drawn(RECIPE_NAMES),
    # numbers and text
    **dict.fromkeys(("gamma", "lam", "threshold", "top_p"), _drawn(st.floats(0.05, 1.0))),
    **dict.fromkeys(("eps", "eps_low", "eps_high", "beta", "lr", "temperature", "cap", "level", "noise", "bias",
                     "target", "score"), _drawn(st.floats(0.01, 2.0))),
    "baseline": _drawn(SMALL_SCORE), "n_actions": lambda draw, m, kw: m,
    **dict.fromkeys(("steps", "epochs", "batch", "n", "draws", "n_runs", "group_size", "n_draws", "bins", "points",
                     "answers", "questions", "n_tokens", "long_length", "max_len"), _drawn(st.integers(2, 4))),
    **dict.fromkeys(("seed", "rng"), _drawn(st.integers(0, 3))),
    **dict.fromkeys(("k", "index", "cap_index"), _drawn(st.integers(0, 1))),
    **dict.fromkeys(("text", "answer", "final", "expected"), _drawn(TEXT)),
}
CHOICE_ARGUMENTS = ("mode", "method", "kind", "baseline")  # a string without a default: one of its module's options
MESSAGE_ARGUMENTS = ("name", "arg")  # with a default, the name an error uses, not a value: never corrupted
DERIVED_EXAMPLES = 20  # per function; no shrinking: a failure reports the first case as drawn
JUNK = [NAN, INF, -INF, -1, 0, 2.5, "abc", None, True, [], [NAN], [[1.0], [2.0, 3.0]], {"a": 1}, b"x"]

def options_of(fn) -> list[str]:
    """The strings a string argument of ``fn`` may take: its module's tuples of names (e.g. AGGREGATION_MODES)."""
    return sorted({x for v in vars(inspect.getmodule(fn)).values()
                   if isinstance(v, tuple) and v and all(isinstance(s, str) for s in v) for x in v})

def unbuildable(fn) -> list[str]:
    """The arguments of ``fn`` that have neither a doctest value, a name in VOCABULARY nor a default."""
    base = doctest_kwargs(fn) or {}
    return [name for name, p in inspect.signature(fn).parameters.items()
            if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            and name not in VOCABULARY and name not in CHOICE_ARGUMENTS and name not in base]

def build_kwargs(draw, fn) -> dict:
    """Valid-looking arguments for ``fn`` (which has no ``unbuildable`` argument): its doctest's, half the time;
    else each argument from its string default, its name, its module's options, its default or its doctest."""
    base = doctest_kwargs(fn)
    if base is not None and draw(st.booleans()):
        return dict(base)
    m, kwargs = draw(st.integers(1, 4)), {}
    for name, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if isinstance(param.default, str) or (name in MESSAGE_ARGUMENTS and param.default is not param.empty):
            kwargs[name] = param.default
        elif name in VOCABULARY:
            kwargs[name] = VOCABULARY[name](draw, m, kwargs)
        elif name in CHOICE_ARGUMENTS:
            kwargs[name] = draw(st.sampled_from(options_of(fn)))
        else:
            kwargs[name] = param.default if param.default is not param.empty else base[name]
    return kwargs

def is_number(x) -> bool:
    """A real number (a bool or text is none)."""
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))

def call_checked(fn, kwargs: dict, bad: str | None) -> str:
    """Call ``fn``; 'returned' or 'rejected'. An exception other than ValueError, a floating-point error or a
    warning fails, and so does a ValueError that does not name the ``bad`` argument."""
    with np.errstate(all="raise", under="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            fn(**kwargs)
        except ValueError as err:
            assert bad is None or names_argument(str(err), (bad,)), f"the error does not name {bad}: {err}"
            return "rejected"
    return "returned"

FUNCTIONS = public_functions()
SLOW = {"rlcore.zero.training.group_view", "rlcore.zero.dpo.dpo_train"}  # train a model (7 s each of the quick
# suite): CI's exhaustive stage only

@pytest.mark.parametrize(("qualname", "fn"), [  # every other function in the quick suite, every one in CI's
    pytest.param(q, f, id=q.removeprefix("rlcore."),
                 marks=() if i % 2 == 0 and q not in SLOW else pytest.mark.exhaustive)
    for i, (q, f) in enumerate(FUNCTIONS)])
def test_every_function_returns_or_raises_value_error(qualname, fn):
    missing = unbuildable(fn)
    assert not missing, (f"{qualname}: the fuzz cannot build {missing} (no doctest value, no name in VOCABULARY, "
                         "no default); give the function a doctest example that calls it")
    outcomes: collections.Counter = collections.Counter()

    @settings(max_examples=DERIVED_EXAMPLES, derandomize=True, deadline=None, database=None,
              phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        kwargs = build_kwargs(data.draw, fn)
        outcome = call_checked(fn, kwargs, None)
        outcomes[outcome] += 1
        corruptible = sorted(set(kwargs) - set(MESSAGE_ARGUMENTS))
        if outcome == "returned" and corruptible:  # valid arguments: now one of them goes wrong
            bad, junk = data.draw(st.sampled_from(corruptible)), data.draw(st.sampled_from(JUNK))
            outcome = call_checked(fn, {**kwargs, bad: junk}, bad)
            outcomes[outcome + " junk"] += 1
            # where a number goes, NaN, ±inf and text must be refused (a bool may pass: masks take booleans)
            assert outcome == "rejected" or not is_number(kwargs[bad]) or not (
                isinstance(junk, str) or (is_number(junk) and not math.isfinite(junk))), \
                f"{qualname} accepted {bad}={junk!r} in place of {kwargs[bad]!r}"

    run()
    assert outcomes["returned"], f"{qualname} never returned: {dict(outcomes)}"

def test_the_fuzz_catches_an_error_that_is_not_a_value_error():
    """The harness itself: a function that lets a bad argument through to a TypeError fails it."""
    def loose(probs, lr: float = 0.1):
        return np.asarray(probs, dtype=float) * lr

    with pytest.raises(TypeError):
        call_checked(loose, {"probs": [0.5, 0.5], "lr": "abc"}, "lr")
    with pytest.raises(AssertionError, match="does not name lr"):
        call_checked(lambda lr: rlcore.softmax([0.0], lr), {"lr": -1.0}, "lr")
    assert call_checked(rlcore.softmax, {"logits": [0.0, 1.0], "temperature": -1.0}, "temperature") == "rejected"
