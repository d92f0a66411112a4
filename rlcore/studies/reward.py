"""The loop and reward pages' studies: what an outcome-only judge cannot see, and how one score becomes a return
at every token."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import as_real, as_vector, count, in_range
from ..formulas.credit import AnswerTrace, answer_trace
from ..formulas.example import check_scenario
from ..formulas.generation import answer_text
from ..formulas.returns import discounted_returns, first_token_return, outcome_judge

__all__ = ["BlindSpot", "RewardStudy", "outcome_blind_spot", "reward_study"]


@dataclass(frozen=True)
class BlindSpot:
    """Two answers with the same conclusion, one with its own reasoning and one with borrowed reasoning."""

    conclusion: str       # the token with the highest Q: the right conclusion
    borrowed_from: str    # the token with the lowest Q among the others: whose reasoning is borrowed
    sound: str            # the answer with the conclusion's own reasoning
    unsound: str          # the same conclusion followed by the borrowed reasoning
    sound_score: float    # outcome_judge of each
    unsound_score: float


def outcome_blind_spot(scenario, full_marks: float = 10.0) -> BlindSpot:
    """What an outcome-only judge cannot see: right conclusion, wrong reasoning, same score.

    The conclusion is argmax Q; the reasoning is borrowed from argmin Q among the other tokens
    (the first one on a tie); both answers go to ``outcome_judge`` with the conclusion as expected.

    Args:
        scenario: the running example, with at least two tokens.
        full_marks: the judge's score for a right conclusion.

    Returns:
        BlindSpot(conclusion, borrowed_from, sound, unsound, sound_score, unsound_score).

    >>> from ..formulas.example import ARTICLE_SCENARIO
    >>> b = outcome_blind_spot(ARTICLE_SCENARIO)
    >>> b.unsound, b.sound, b.unsound_score == b.sound_score == 10.0
    ("OpenAI is partly. It's in the name.", 'OpenAI is partly: some open weights.', True)
    """
    if len(getattr(scenario, "tokens", ())) < 2:
        raise ValueError("scenario must have at least two tokens to borrow reasoning from another")
    q = scenario.q
    best = int(np.argmax(q))
    others = [i for i in range(q.size) if i != best]
    worst = others[int(np.argmin(q[others]))]
    token, other = scenario.tokens[best], scenario.tokens[worst]
    sound = answer_text(scenario, token)
    unsound = answer_text(scenario, token, reasoning_of=other)
    return BlindSpot(token, other, sound, unsound, outcome_judge(sound, token, full_marks),
                     outcome_judge(unsound, token, full_marks))


@dataclass(frozen=True)
class RewardStudy:
    """One answer's sparse rewards and returns, the first token's return by answer length, and the outcome judge."""

    trace: AnswerTrace           # the answer that starts with the token (γ = 1: its rewards, score, decision)
    returns: np.ndarray          # shape [T]: Gₜ at γ, from every token of that answer
    lengths: np.ndarray          # shape [L]: the answer lengths 1…max_length of the length curves
    gammas: tuple[float, ...]    # the curves' discounts: the compared ones, then γ when it is not among them
    curves: np.ndarray           # shape [len(gammas), L]: G₀ = γ^(T−1)·score of an answer of each length
    short_credit: float          # G₀ of a ``short``-token answer with this score, at ``predict_gamma``
    long_credit: float           # the same for a ``long``-token answer
    blind: BlindSpot             # what an outcome-only judge cannot see (``outcome_blind_spot``)


def reward_study(scenario, token: str, gamma: float, *, gammas=(1.0, 0.99, 0.95, 0.9), max_length: int = 60,
                 short: int = 5, long: int = 20, predict_gamma: float = 0.9,
                 full_marks: float = 10.0) -> RewardStudy:
    """The reward page's numbers: the answer starting with ``token``, its returns at γ, and how γ treats length.

    rₜ = 0 before the last token, r_{T−1} = score; Gₜ = rₜ + γ Gₜ₊₁; an answer of T tokens with the same score
    credits its first token G₀ = γ^(T−1) · score, for T = 1…max_length and each discount of ``gammas`` (and γ).

    Args:
        scenario: the running example.
        token: one of scenario.tokens, the answer's first (decision) token.
        gamma: discount γ in [0, 1] of the returns (and one more length curve).
        gammas: the discounts the length curves compare, each in [0, 1].
        max_length: the longest answer of the length curves (≥ 1).
        short: the length of the shorter answer the question compares (≥ 1).
        long: the length of the longer one (≥ 1).
        predict_gamma: the discount of that question, in [0, 1].
        full_marks: the outcome judge's score for a right conclusion.

    Returns:
        RewardStudy(trace, returns [T], lengths [L], gammas, curves [G, L], short_credit, long_credit, blind).

    >>> from ..formulas.example import ARTICLE_SCENARIO
    >>> r = reward_study(ARTICLE_SCENARIO, "closed", 0.5, gammas=(1.0,), max_length=3)
    >>> r.trace.score, r.trace.rewards[-2:].tolist(), r.returns[-3:].tolist()
    (5.0, [0.0, 5.0], [1.25, 2.5, 5.0])
    >>> r.gammas, r.curves.tolist(), round(r.short_credit, 4)
    ((1.0, 0.5), [[5.0, 5.0, 5.0], [5.0, 2.5, 1.25]], 3.2805)
    """
    check_scenario(scenario)
    g = in_range("gamma", gamma, 0.0, 1.0)
    compared = as_vector("gammas", gammas)
    if np.any(compared < 0) or np.any(compared > 1):
        raise ValueError(f"gammas must lie in [0, 1], got {compared.tolist()}")
    lengths = np.arange(1, count("max_length", max_length, low=1, high=100_000) + 1)
    pair = [count("short", short, low=1), count("long", long, low=1)]
    at = in_range("predict_gamma", predict_gamma, 0.0, 1.0)
    marks = as_real("full_marks", full_marks)
    trace = answer_trace(scenario, token, 1.0)
    shown = tuple(dict.fromkeys((*(float(x) for x in compared), g)))
    curves = np.array([first_token_return(lengths, trace.score, x) for x in shown])
    short_credit, long_credit = first_token_return(pair, trace.score, at)
    return RewardStudy(trace, discounted_returns(trace.rewards, g), lengths, shown, curves, float(short_credit),
                       float(long_credit), outcome_blind_spot(scenario, marks))
