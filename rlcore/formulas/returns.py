"""Reward and return: how one judge score becomes a number at every token."""

from __future__ import annotations

import re

import numpy as np

from .checks import as_real, as_vector, count, in_range
from .generation import answer_matches

__all__ = ["discounted_returns", "first_token_return", "outcome_judge", "sparse_rewards"]


def sparse_rewards(n_tokens: int, score: float) -> np.ndarray:
    """Per-token rewards of a judged answer: 0 everywhere, the score on the last token.

    rₜ = 0 for t < T−1,  r_{T−1} = score.

    Args:
        n_tokens: T, the number of tokens in the answer (≥ 1).
        score: the judge's score of the whole answer.

    Returns:
        shape [T], r₀…r_{T−1}.

    >>> sparse_rewards(4, 2.0).tolist()
    [0.0, 0.0, 0.0, 2.0]
    """
    n = count("n_tokens", n_tokens)
    rewards = np.zeros(n, dtype=np.float64)
    rewards[-1] = as_real("score", score)
    return rewards


def discounted_returns(rewards, gamma: float) -> np.ndarray:
    """Return from every token to the end of the answer.

    Gₜ = rₜ + γ Gₜ₊₁,  G_T = 0.

    Source: Sutton & Barto, *Reinforcement Learning* (2nd ed.), eq. 3.9.

    Args:
        rewards: shape [T], r₀…r_{T−1}.
        gamma: discount γ in [0, 1].

    Returns:
        shape [T], G₀…G_{T−1}.

    >>> discounted_returns([0.0, 0.0, 2.0], 0.5).tolist()
    [0.5, 1.0, 2.0]
    """
    r = as_vector("rewards", rewards)
    g = in_range("gamma", gamma, 0.0, 1.0)
    out = np.empty_like(r)
    running = 0.0
    for t in range(r.size - 1, -1, -1):
        running = r[t] + g * running
        out[t] = running
    return out


def first_token_return(lengths, score: float, gamma: float) -> np.ndarray:
    """Return credited to the first token of answers of several lengths with one final score.

    G₀ = γ^(T−1) · score for an answer of T tokens: with γ < 1, a shorter answer keeps more.

    Args:
        lengths: shape [K], answer lengths T (each ≥ 1).
        score: the judge's score, the same for every length.
        gamma: discount γ in [0, 1].

    Returns:
        shape [K], G₀ for each length.

    >>> first_token_return([1, 2, 3], 2.0, 0.5).tolist()
    [2.0, 1.0, 0.5]
    """
    t = as_vector("lengths", lengths)
    if np.any(t < 1) or np.any(t != np.round(t)):
        raise ValueError(f"lengths must be whole numbers >= 1, got {t.tolist()}")
    s = as_real("score", score)
    g = in_range("gamma", gamma, 0.0, 1.0)
    return s * np.power(g, t - 1)


def outcome_judge(answer: str, expected: str, full_marks: float = 10.0) -> float:
    """An outcome-only judge: full marks when the conclusion is right, whatever the reasoning.

    score = full_marks · 1[conclusion ends with expected], where the conclusion is the text before the
    first , . : ; ! or ? that ends a clause (followed by a space or the end of the text), compared
    ignoring case and punctuation. The reasoning after it is never read.

    Args:
        answer: the answer's text.
        expected: the correct conclusion, not empty.
        full_marks: the score of a right conclusion (a wrong one gets 0).

    Returns:
        the score, 0 or full_marks.

    >>> outcome_judge("OpenAI is partly. It's in the name.", "partly")
    10.0
    >>> outcome_judge("OpenAI is open. It's in the name.", "partly")
    0.0
    """
    if not isinstance(answer, str):
        raise ValueError(f"answer must be a string, got {answer!r}")
    if not isinstance(expected, str) or not expected.strip():
        raise ValueError(f"expected must not be empty, got {expected!r}")
    marks = as_real("full_marks", full_marks)
    conclusion = re.split(r"[,.:;!?](?=\s|$)", answer, maxsplit=1)[0]
    return marks if answer_matches(conclusion, expected) else 0.0


