"""Why answers grow longer: how each loss aggregation pushes long and short answers, in one step and over training."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.aggregation import AGGREGATION_MODES, answer_weights
from ..formulas.checks import (
    as_array,
    as_probs,
    as_samples,
    as_vector,
    choice,
    count,
    flag,
    non_negative,
    rng_from,
    show,
    whole_numbers,
)
from ..formulas.credit import GROUP_METHODS, group_advantages
from ..formulas.example import Scenario, answer_tokens, check_scenario
from ..formulas.policy import logits_from_probs

__all__ = [
    "DifficultyCurve", "LengthDrift", "LengthPush", "LengthRun", "PaddedDrift", "PaddedGroup",
    "PaddingChoices", "answer_lengths", "difficulty_curve", "length_drifts", "length_push", "length_step",
    "length_training", "padded_drift", "padded_group", "padding_choices", "with_long_version",
]


MAX_PADDED = 100_000  # the longest a padded answer may be made


def _lengths(name: str, value) -> np.ndarray:
    lens = as_vector(name, value)
    if np.any(lens < 1) or np.any(lens != np.round(lens)):
        raise ValueError(f"{name} must hold whole numbers >= 1, got {lens.tolist()[:8]}")
    return lens


def _array(name: str, value) -> np.ndarray:
    """``np.asarray`` of a rectangular list; a ragged one raises ValueError naming ``name``."""
    try:
        return np.asarray(value)
    except ValueError:
        raise ValueError(f"{name} must be a rectangular array, got {show(value)}") from None


def _budget(max_len, lens: np.ndarray) -> int:
    top = int(lens.max()) if max_len is None else count("max_len", max_len, low=1)
    if top < lens.max():
        raise ValueError(f"max_len must be >= the longest answer ({int(lens.max())} tokens), got {top}")
    return top


@dataclass(frozen=True)
class LengthPush:
    """What one update does to each answer of a group (or of each of several groups), under each aggregation mode."""

    weights: np.ndarray     # [4, n] (groups: [..., 4, n]): weight of each token of answer i (AGGREGATION_MODES order)
    per_token: np.ndarray   # [4, n]: weight × Â_i, the push on each of its tokens' log-probability
    per_answer: np.ndarray  # [4, n]: |o_i| × weight × Â_i, the push on all its tokens together


def length_push(lengths, advantages, max_len: int | None = None, match_step: bool = False) -> LengthPush:
    """Token weight, per-token push and whole-answer push of each answer, for every aggregation mode.

    c_i as in ``token_weights``; per token c_i·Â_i; per answer |o_i|·c_i·Â_i. Under seq-mean-token-mean the
    whole-answer push is Â_i/n whatever the length: a long wrong answer is pushed down as much in total as a
    short one, so each of its tokens much less.

    Source: Liu et al. (2025), Understanding R1-Zero-Like Training (Dr. GRPO), arXiv 2503.20783, §3.

    Args:
        lengths: shape [n], |o_i| ≥ 1, tokens of each answer in the group; or [..., n], one group per leading index
            (the same answers at other lengths, say).
        advantages: shape [n], Â_i (the same in every group).
        max_len: L_max ≥ the longest answer, for seq-mean-token-sum-norm (default: the longest); for groups one
            number, or one per group (shape [...]; default: each group's longest).
        match_step: rescale seq-mean-token-sum by 1/L̄ and the -norm mode by L_max/L̄ (L̄ = mean length), so
            that every mode gives the group's tokens the same total weight as token-mean (a step-size change).

    Returns:
        LengthPush(weights, per_token, per_answer), each [4, n] (for groups [..., 4, n]).

    >>> length_push([1, 3], [-1.0, 1.0]).per_token[1].round(4).tolist()  # seq-mean-token-mean: −1/2, 1/6
    [-0.5, 0.1667]
    >>> length_push([[1, 3], [2, 3]], [-1.0, 1.0]).per_token[:, 1].round(4).tolist()  # the first answer 1, then 2 long
    [[-0.5, 0.1667], [-0.25, 0.1667]]
    """
    lens = whole_numbers("lengths", lengths, 1)
    adv = as_vector("advantages", advantages)
    if lens.ndim == 0:
        raise ValueError(f"lengths must have at least one dimension (the answers), got {show(lens)}")
    if adv.size != lens.shape[-1]:
        raise ValueError(f"lengths and advantages must have the same length, got {lens.shape[-1]} and {adv.size}")
    top = lens.max(axis=-1) if max_len is None else max_len
    w = np.stack([answer_weights(lens, mode, top) for mode in AGGREGATION_MODES], axis=-2)  # max_len checked there
    if flag("match_step", match_step):
        mean = lens.mean(axis=-1)
        w[..., 2:, :] *= np.stack([1.0 / mean, np.asarray(top, dtype=np.float64) / mean], axis=-1)[..., None]
    return LengthPush(w, w * adv, w * adv * lens[..., None, :])


def length_step(logits, actions, advantages, lengths, mode: str, lr: float, max_len: int | None = None) -> np.ndarray:
    """One policy-gradient step on the first-token logits, each answer weighted as its aggregation mode says.

    z ← z + η · Σ_i c_i Â_i (e_{a_i} − π), π = softmax(z). Only the first token is the policy's choice (the
    rest of each answer is fixed text), so its weight c_i is the only way the answer's length enters.

    Args:
        logits: shape [S, K], one row per independent run.
        actions: shape [S, G], the candidate (0..K−1) each of the G answers of the run's group starts with.
        advantages: shape [S, G], Â of each answer.
        lengths: shape [K], tokens of the answer that starts with each candidate.
        mode: one of ``AGGREGATION_MODES``.
        lr: step size η ≥ 0.
        max_len: L_max for seq-mean-token-sum-norm (default: the longest of ``lengths``).

    Returns:
        shape [S, K], the new logits.

    A short wrong answer (1 token) and a long right one (3 tokens), Â = −1, +1, G = 2: seq-mean-token-mean
    weighs them 1/2 and 1/6, so z moves by −1/2·(½, −½) + 1/6·(−½, ½) = (−1/3, 1/3):

    >>> length_step([[0.0, 0.0]], [[0, 1]], [[-1.0, 1.0]], [1, 3], "seq-mean-token-mean", 1.0).round(4).tolist()
    [[-0.3333, 0.3333]]
    """
    z = as_array("logits", logits)
    if z.ndim != 2 or z.size == 0 or not np.all(np.isfinite(z)):
        raise ValueError(f"logits must be a finite 2-D array [runs, candidates], got shape {z.shape}")
    lens = _lengths("lengths", lengths)
    if lens.size != z.shape[1]:
        raise ValueError(f"lengths must have one entry per candidate ({z.shape[1]}), got {lens.size}")
    a = _array("actions", actions)
    if a.ndim != 2 or a.shape[0] != z.shape[0] or a.dtype.kind not in "iu" or np.any(a < 0) or np.any(a >= lens.size):
        raise ValueError(f"actions must be whole numbers in [0, {lens.size - 1}], shape [runs, G], got {a.shape}")
    adv = as_array("advantages", advantages)
    if adv.shape != a.shape or not np.all(np.isfinite(adv)):
        raise ValueError(f"advantages must be finite with the shape of actions {a.shape}, got {adv.shape}")
    mode = choice("mode", mode, AGGREGATION_MODES)
    eta = non_negative("lr", lr)
    return _step(z[None], a[None], adv[None], lens, (mode,), (eta,), _budget(max_len, lens))[0]


def _step(z, a, adv, lens, modes, etas, top):
    """``length_step`` without its checks, for several modes at once: z [M, S, K], a and adv [M, S, G], one
    mode and step size per leading index."""
    pi = np.exp(z - z.max(axis=-1, keepdims=True))
    pi /= pi.sum(axis=-1, keepdims=True)
    push = np.stack([answer_weights(lens[a[j]], mode, top) for j, mode in enumerate(modes)]) * adv   # c_i · Â_i
    onto = np.zeros_like(z)
    m, s = z.shape[:2]
    np.add.at(onto, (np.arange(m)[:, None, None], np.arange(s)[None, :, None], a), push)  # Σ_i c_i Â_i e_{a_i}
    return z + np.asarray(etas, float)[:, None, None] * (onto - push.sum(axis=-1, keepdims=True) * pi)


@dataclass(frozen=True)
class LengthRun:
    """Training runs under one aggregation mode, averaged over seeds."""

    mean_length: np.ndarray  # [T+1]: Σ_k π_k |o_k| before each step and after the last
    mean_score: np.ndarray   # [T+1]: Σ_k π_k Q_k
    probs: np.ndarray        # [T+1, K]: π, averaged over the runs


def _modes(value) -> tuple[str, ...]:
    if (isinstance(value, str) or not isinstance(value, (tuple, list)) or not value
            or not all(isinstance(m, str) and m in AGGREGATION_MODES for m in value)):
        raise ValueError(f"modes must be a non-empty list of {list(AGGREGATION_MODES)}, got {show(value)}")
    return tuple(value)


def length_training(probs, samples, lengths, *, modes=AGGREGATION_MODES, method: str = "grpo", group_size: int = 8,
                    lr: float = 1.0, steps: int = 100, n_runs: int = 16, seed=0,
                    max_len: int | None = None, match_step: bool = True) -> tuple[LengthRun, ...]:
    """Train the first-token policy with group advantages, aggregated with each of ``modes``; follow the mean length.

    Each step, every run samples G answers a_i ~ π with scores drawn from the candidate's judge scores,
    gets Â from ``group_advantages`` and takes ``length_step``. Runs are independent and vectorised. Every
    mode takes the same random numbers at each step, so a mode's run does not depend on the other modes asked
    for (one call per mode gives the same numbers).

    The modes' weights differ in scale: a token weighs about 1/(G·L̄) under token-mean and seq-mean-token-mean
    (L̄ = E_π[|o|] at the start), 1/G under seq-mean-token-sum and 1/(G·L_max) under the -norm mode. With
    ``match_step`` η is multiplied by 1, 1, 1/L̄ and L_max/L̄ respectively, so every mode starts with the same
    step per token and only the way it spreads the step over long and short answers differs.

    Args:
        probs: shape [K], π at the start.
        samples: K lists of judge scores.
        lengths: shape [K], tokens of each candidate's answer.
        modes: a non-empty sequence of ``AGGREGATION_MODES`` entries.
        method: one of ``GROUP_METHODS``.
        group_size: G ≥ 2.
        lr: step size η ≥ 0.
        steps: number of steps (1–5000).
        n_runs: independent runs averaged (1–1000).
        seed: integer seed or numpy Generator.
        max_len: L_max for seq-mean-token-sum-norm (default: the longest answer).
        match_step: scale η so that every mode starts with token-mean's step per token.

    Returns:
        one LengthRun(mean_length, mean_score, probs) per mode, in the order given.

    A policy that cannot move (one candidate) keeps its length:

    >>> length_training([1.0], [[1.0]], [3], modes=("token-mean",), steps=2)[0].mean_length.tolist()
    [3.0, 3.0, 3.0]
    """
    p = as_probs("probs", probs)
    groups = as_samples("samples", samples, p.size)
    lens = _lengths("lengths", lengths)
    if lens.size != p.size:
        raise ValueError(f"lengths must have one entry per candidate ({p.size}), got {lens.size}")
    modes = _modes(modes)
    method = choice("method", method, GROUP_METHODS)
    g = count("group_size", group_size, low=2, high=1000)
    eta = non_negative("lr", lr)
    n_steps = count("steps", steps, low=1, high=5000)
    runs = count("n_runs", n_runs, low=1, high=1000)
    rng = rng_from("seed", seed)
    top = _budget(max_len, lens)
    match = flag("match_step", match_step)
    scale = {"seq-mean-token-sum": 1.0 / (p @ lens), "seq-mean-token-sum-norm": top / (p @ lens)}
    etas = [eta * scale.get(mode, 1.0) if match else eta for mode in modes]

    q = np.array([s.mean() for s in groups])
    width = max(s.size for s in groups)
    table = np.array([np.resize(s, width) for s in groups])  # scores padded by repeating (never drawn)
    sizes = np.array([s.size for s in groups])
    m = len(modes)
    z = np.tile(logits_from_probs(p), (m, runs, 1))                       # [M, S, K]
    out_p = np.empty((m, n_steps + 1, p.size))
    for t in range(n_steps + 1):
        pi = np.exp(z - z.max(axis=-1, keepdims=True))
        pi /= pi.sum(axis=-1, keepdims=True)
        out_p[:, t] = pi.mean(axis=1)
        if t == n_steps:
            break
        cdf = np.cumsum(pi, axis=-1)
        a = np.minimum((rng.random((runs, g, 1)) > cdf[:, :, None, :]).sum(axis=-1), p.size - 1)   # [M, S, G]
        r = table[a, (rng.random((runs, g)) * sizes[a]).astype(int)]
        adv = group_advantages(r, method)  # one group per run and mode
        z = _step(z, a, adv, lens, modes, etas, top)
    out_len, out_score = (out_p * lens).sum(axis=-1), (out_p * q).sum(axis=-1)  # the same sums whatever M is
    return tuple(LengthRun(out_len[j], out_score[j], out_p[j]) for j in range(m))


@dataclass(frozen=True)
class DifficultyCurve:
    """Binary-scored groups of G answers with k right: the advantages GRPO and Dr. GRPO give them."""

    n_right: np.ndarray  # [G−1]: k = 1 … G−1
    right: np.ndarray    # [G−1]: Â of a right answer (score 1)
    wrong: np.ndarray    # [G−1]: Â of a wrong answer (score 0)
    total: np.ndarray    # [G−1]: Σ_i |Â_i|, how hard the whole group pushes
    scale: np.ndarray    # [G−1]: total ÷ Dr. GRPO's total, what the method multiplies the centred scores by


def difficulty_curve(group_size: int, method: str) -> DifficultyCurve:
    """Advantages of right and wrong answers as a prompt goes from hard (k = 1 right) to easy (k = G−1).

    Every group has the same score gap (1 between right and wrong) but not the same spread: dividing by the
    std (grpo) gives the rare answer of a nearly-solved or nearly-hopeless prompt a large advantage.

    Source: Liu et al. (2025), Dr. GRPO, arXiv 2503.20783 (question-level difficulty bias).

    Args:
        group_size: G ≥ 2.
        method: one of ``GROUP_METHODS``.

    Returns:
        DifficultyCurve(n_right, right, wrong, total, scale); for grpo, scale = 1/(std + ε).

    G = 2, one right: dr_grpo gives ±1/2; grpo divides by the std √(1/2) and gives ±√2/2.

    >>> difficulty_curve(2, "grpo").right.round(4).tolist(), difficulty_curve(2, "dr_grpo").right.tolist()
    ([0.7071], [0.5])
    """
    g = count("group_size", group_size, low=2, high=1000)
    if method not in GROUP_METHODS:
        raise ValueError(f"method must be one of {list(GROUP_METHODS)}, got {method!r}")
    ks = np.arange(1, g)
    scores = (np.arange(g) < ks[:, None]).astype(float)  # row k−1: k ones, then zeros
    adv = np.array([group_advantages(row, method) for row in scores])
    total = np.abs(adv).sum(axis=1)
    centred = np.abs(scores - scores.mean(axis=1, keepdims=True)).sum(axis=1)
    return DifficultyCurve(ks, adv[:, 0], adv[:, -1], total, total / centred)


def with_long_version(probs, samples, lengths, index: int, long_length: int):
    """The candidates plus a padded copy of one answer: same judge scores, ``long_length`` tokens.

    The candidate's probability is split in half between its two versions, so a length-blind update has
    no reason to prefer either.

    Args:
        probs: shape [K], π.
        samples: K lists of judge scores.
        lengths: shape [K], tokens of each answer.
        index: 0 ≤ index < K, the answer to pad.
        long_length: ≥ 1, tokens of its padded version.

    Returns:
        (probs [K+1], samples (K+1 lists), lengths [K+1]); the padded version comes last.

    >>> with_long_version([0.5, 0.5], [[1], [3]], [2, 4], 0, 9)[::2]
    ((0.25, 0.5, 0.25), (2, 4, 9))
    """
    p = as_probs("probs", probs)
    groups = as_samples("samples", samples, p.size)
    lens = _lengths("lengths", lengths)
    if lens.size != p.size:
        raise ValueError(f"lengths must have one entry per candidate ({p.size}), got {lens.size}")
    i = count("index", index, low=0, high=p.size - 1)
    long_len = count("long_length", long_length, low=1, high=MAX_PADDED)
    new_p = p.copy()
    new_p[i] /= 2
    scores = tuple(tuple(g.tolist()) for g in groups)
    return ((*new_p.tolist(), float(new_p[i])), (*scores, scores[i]), (*(int(x) for x in lens), long_len))


@dataclass(frozen=True)
class LengthDrift:
    """Training with a short and a padded version of one answer, under one aggregation mode."""

    mean_length: np.ndarray  # [T+1]: Σ_k π_k |o_k|, averaged over the runs
    mean_score: np.ndarray   # [T+1]: Σ_k π_k Q_k
    long_share: np.ndarray   # [T+1]: π(padded) / (π(short) + π(padded)), from the averaged π


def length_drifts(probs, samples, lengths, index: int, long_length: int, *, modes=AGGREGATION_MODES,
                  **training) -> tuple[LengthDrift, ...]:
    """``length_training`` on ``with_long_version``, for each of ``modes``: does the update come to prefer the
    padded version?

    Under a length-blind mode the two versions get the same push per token and share the same fate; under
    seq-mean-token-mean each token of the padded version weighs |short|/|long| as much, so a wrong answer's
    padded version is pushed down less (its share grows) and a right answer's is pushed up less (it shrinks).
    One pass gives a page's four curves for the price of about one, the same runs, number for number, as one
    call per mode.

    Args:
        probs, samples, lengths, index, long_length: as in ``with_long_version``.
        modes: a non-empty sequence of ``AGGREGATION_MODES`` entries.
        **training: the other arguments of ``length_training`` (method, group_size, lr, steps, n_runs, seed,
            max_len, match_step).

    Returns:
        one LengthDrift(mean_length, mean_score, long_share) per mode, in the order given.
    """
    modes = _modes(modes)
    p, s, lens = with_long_version(probs, samples, lengths, index, long_length)
    i = count("index", index, low=0)
    out = []
    for run in length_training(p, s, lens, modes=modes, **training):
        pair = run.probs[:, i] + run.probs[:, -1]
        out.append(LengthDrift(run.mean_length, run.mean_score,
                               run.probs[:, -1] / np.maximum(pair, np.finfo(float).tiny)))
    return tuple(out)


def answer_lengths(scenario: Scenario) -> tuple[int, ...]:
    """The number of tokens of each candidate's whole answer (``answer_tokens``: prefix, token, continuation).

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> answer_lengths(ARTICLE_SCENARIO)  # "OpenAI is open. It's in the name." is 10 tokens
    (10, 14, 8)
    """
    s = check_scenario(scenario)
    return tuple(len(answer_tokens(s, tok)) for tok in s.tokens)


@dataclass(frozen=True)
class PaddingChoices:
    """The answers a page offers to pad first."""

    worst: str  # the candidate with the lowest Q (the first of them on a tie)
    best: str   # the candidate with the highest Q


def padding_choices(scenario: Scenario) -> PaddingChoices:
    """The scenario's worst- and best-scored candidates (by Q, the mean judge score; ties: the first).

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> padding_choices(ARTICLE_SCENARIO)  # Q = 2, 5, 9
    PaddingChoices(worst='open', best='partly')
    """
    s = check_scenario(scenario)
    q = s.q
    return PaddingChoices(s.tokens[int(np.argmin(q))], s.tokens[int(np.argmax(q))])


@dataclass(frozen=True)
class PaddedGroup:
    """The scenario's candidates as one group, one answer padded, and what one update does to each; at one padded
    length, or at each of an array [V] of them (a chart dragged over the length), then with a leading [V]."""

    lengths: np.ndarray     # [K] (or [V, K]) int: tokens of each candidate's answer, the padded one at its length
    index: int              # the padded candidate
    own_length: int         # the padded candidate's answer before padding
    advantages: np.ndarray  # [K]: group advantages of the candidates' Q (the same at every length)
    push: LengthPush        # each aggregation mode's token weight and push (each [4, K], or [V, 4, K])
    max_len: int            # L_max used: the budget asked for, or the longest answer when that is longer ([V])
    harder: str | None      # "token-mean" or "seq-mean-token-mean": which pushes each token of the padded
                            # answer harder; None when they push it alike (within a relative 1e-9); a tuple per
                            # length at many


def padded_group(scenario: Scenario, token: str, long_length, method: str = "grpo", budget: int | None = None,
                 match_step: bool = False) -> PaddedGroup:
    """One answer of the running example padded to ``long_length`` tokens: each mode's push on every answer.

    The group is the K candidates, one answer each, scored by their Q; Â from ``group_advantages``, the
    weights and pushes from ``length_push``. A generation limit below an answer that exists cannot be: a
    ``budget`` under the longest answer is raised to it (``max_len`` says which was used).

    Args:
        scenario: the running example.
        token: the candidate whose answer is padded.
        long_length: ≥ 1, its answer's tokens once padded; or shape [V], whole numbers 1 to ``MAX_PADDED``.
        method: one of ``GROUP_METHODS``.
        budget: L_max ≥ 1 asked for seq-mean-token-sum-norm (default: the longest answer).
        match_step: as in ``length_push``.

    Returns:
        PaddedGroup(lengths, index, own_length, advantages, push, max_len, harder).

    open padded to 40 tokens beside 14 and 8: token-mean weighs each token 1/62, seq-mean-token-mean 1/(3·40):

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> g = padded_group(ARTICLE_SCENARIO, "open", 40)
    >>> g.lengths.tolist(), g.max_len, g.harder, round(1 / g.push.weights[1, 0])
    ([40, 14, 8], 40, 'token-mean', 120)
    >>> padded_group(ARTICLE_SCENARIO, "open", [5, 40]).max_len.tolist()   # beside 14 and 8
    [14, 40]
    """
    s = check_scenario(scenario)
    i = s.index(token)
    method = choice("method", method, GROUP_METHODS)
    match = flag("match_step", match_step)
    own = answer_lengths(s)
    adv = group_advantages(s.q, method)
    if np.ndim(long_length):
        return _padded_groups(s, i, own, adv, long_length, budget, match)
    long_len = count("long_length", long_length, low=1, high=MAX_PADDED)
    lens = np.array(own, dtype=np.int64)
    lens[i] = long_len
    top = int(lens.max()) if budget is None else max(count("budget", budget, low=1), int(lens.max()))
    push = length_push(lens.tolist(), adv, top, match_step=match)
    return PaddedGroup(lens, i, own[i], adv, push, top, _harder(push.per_token[0, i], push.per_token[1, i]))


def _harder(tok: float, seq: float) -> str | None:
    tok, seq = abs(tok), abs(seq)
    return (None if np.isclose(tok, seq, rtol=1e-9, atol=1e-15)
            else AGGREGATION_MODES[0] if tok > seq else AGGREGATION_MODES[1])


def _padded_groups(s: Scenario, i: int, own, adv: np.ndarray, long_length, budget, match: bool) -> PaddedGroup:
    """``padded_group`` at every length of ``long_length`` [V] in one pass (``length_push`` over a group each)."""
    values = whole_numbers("long_length", long_length, 1)
    if values.ndim != 1 or values.max() > MAX_PADDED:
        raise ValueError(f"long_length must be one-dimensional, each >= 1 and <= {MAX_PADDED}, got {show(values)}")
    lens = np.tile(np.array(own, dtype=np.int64), (values.size, 1))
    lens[:, i] = values
    top = lens.max(axis=1) if budget is None else np.maximum(count("budget", budget, low=1), lens.max(axis=1))
    push = length_push(lens, adv, top, match_step=match)
    harder = tuple(_harder(a, b) for a, b in zip(push.per_token[:, 0, i], push.per_token[:, 1, i], strict=True))
    return PaddedGroup(lens, i, own[i], adv, push, top, harder)


@dataclass(frozen=True)
class PaddedDrift:
    """Training with a short and a padded version of one answer, under each aggregation mode (``length_drifts``)."""

    modes: tuple[str, ...]    # the modes, in the order of the rows below
    mean_length: np.ndarray   # [M, T+1]: Σ_k π_k |o_k|, averaged over the runs
    mean_score: np.ndarray    # [M, T+1]: Σ_k π_k Q_k
    long_share: np.ndarray    # [M, T+1]: π(padded) / (π(short) + π(padded))


def padded_drift(scenario: Scenario, token: str, long_length: int, *, modes=AGGREGATION_MODES, method: str = "grpo",
                 max_len: int | None = None, steps: int = 60, lr: float = 2.0, group_size: int = 8, n_runs: int = 32,
                 seed=0) -> PaddedDrift:
    """``length_drifts`` on the running example: does training come to prefer the padded version of ``token``?

    Args:
        scenario: the running example; its answers' lengths are ``answer_lengths``.
        token: the candidate whose answer gets a padded copy.
        long_length: ≥ 1, the padded copy's tokens.
        modes, method, max_len, steps, lr, group_size, n_runs, seed: as in ``length_training``.

    Returns:
        PaddedDrift(modes, mean_length, mean_score, long_share), one row per mode.

    Both versions start with half the candidate's probability:

    >>> from rlcore.example import ARTICLE_SCENARIO
    >>> padded_drift(ARTICLE_SCENARIO, "open", 40, steps=2, n_runs=2).long_share[:, 0].tolist()
    [0.5, 0.5, 0.5, 0.5]
    """
    s = check_scenario(scenario)
    modes = _modes(modes)
    runs = length_drifts(s.pi, s.samples, list(answer_lengths(s)), s.index(token), long_length, modes=modes,
                         method=method, group_size=group_size, lr=lr, steps=steps, n_runs=n_runs, seed=seed,
                         max_len=max_len)
    return PaddedDrift(modes, np.stack([r.mean_length for r in runs]), np.stack([r.mean_score for r in runs]),
                       np.stack([r.long_share for r in runs]))
