"""The loop and reward pages' study: what an outcome-only judge cannot see."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.generation import answer_text
from ..formulas.returns import outcome_judge

__all__ = ["BlindSpot", "outcome_blind_spot"]


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
