"""The studies pages 2–6 call to draw (each page's numbers from one study): hand-computed values and identities
against the formulas they are made of."""

from __future__ import annotations

import pytest

import rlcore
from rlcore import ARTICLE_SCENARIO as ARTICLE

TWO = rlcore.Scenario(tokens=("a", "b"), probs=(0.25, 0.75), samples=((4.0,), (0.0, 2.0)),
                      continuations=(" x.", " y z."))


# --- page 2: reward_study ----------------------------------------------------------------------------------------

def test_reward_study_of_the_articles_open_answer_by_hand():
    """"OpenAI is open. It's in the name.": 10 tokens, score Q(open) = (3 + 1 + 2 + 1 + 3) / 5 = 2."""
    r = rlcore.reward_study(ARTICLE, "open", 0.5, gammas=(1.0, 0.9), max_length=20)
    assert len(r.trace.tokens) == 10 and r.trace.score == 2.0
    assert r.trace.rewards.tolist() == [0.0] * 9 + [2.0]
    assert r.returns == pytest.approx([2 * 0.5 ** (9 - t) for t in range(10)])  # Gₜ = γ^(T−1−t)·score
    assert r.lengths.tolist() == list(range(1, 21))
    assert r.gammas == (1.0, 0.9, 0.5) and r.curves.shape == (3, 20)  # the slider's γ comes last
    assert r.curves[0].tolist() == [2.0] * 20
    assert r.curves[1, 4] == pytest.approx(2 * 0.9**4)  # 1.3122 for a 5-token answer
    assert r.curves[2, 19] == pytest.approx(2 * 0.5**19)
    assert r.short_credit == pytest.approx(2 * 0.9**4) and r.long_credit == pytest.approx(2 * 0.9**19)
    assert r.blind == rlcore.outcome_blind_spot(ARTICLE, 10.0)


def test_reward_study_shows_a_compared_gamma_once():
    r = rlcore.reward_study(ARTICLE, "closed", 0.9, gammas=(1.0, 0.9), max_length=3)
    assert r.gammas == (1.0, 0.9) and r.curves.shape == (2, 3)
    assert r.curves[1].tolist() == pytest.approx([5.0, 4.5, 4.05])  # Q(closed) = (5 + 4 + 6) / 3


def test_reward_study_question_compares_the_two_lengths_at_its_own_gamma():
    r = rlcore.reward_study(TWO, "b", 1.0, short=2, long=3, predict_gamma=0.5)
    assert r.trace.score == 1.0  # Q(b) = (0 + 2) / 2
    assert (r.short_credit, r.long_credit) == pytest.approx((0.5, 0.25))
    assert r.returns.tolist() == [1.0] * len(r.trace.tokens)  # γ = 1: the score at every token


@pytest.mark.parametrize(("kwargs", "name"), [({"gamma": 1.5}, "gamma"), ({"gammas": (0.5, 2.0)}, "gammas"),
                                              ({"max_length": 0}, "max_length"), ({"short": 0}, "short"),
                                              ({"predict_gamma": -0.1}, "predict_gamma"),
                                              ({"token": "nope"}, "token")])
def test_reward_study_names_a_bad_argument(kwargs, name):
    args = {"scenario": ARTICLE, "token": "open", "gamma": 1.0} | kwargs
    with pytest.raises(ValueError, match=name):
        rlcore.reward_study(**args)
