"""rlcore.returns: discounted returns against a plain loop and their recursion, the outcome-only judge and its
blind spot (the article's return figures are in test_article_figures.py).

Expected values are worked out by hand, never taken from the code's output.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rlcore
from rlcore import ARTICLE_SCENARIO as S
from tests.rejects import rejects


def _returns_by_loop(rewards, gamma):
    """G_t = Σ_k γ^k r_{t+k}, summed forwards for every t (a different algorithm from rlcore's)."""
    n = len(rewards)
    return [sum(gamma**k * rewards[t + k] for k in range(n - t)) for t in range(n)]


@pytest.mark.parametrize("seed", range(8))
def test_discounted_returns_matches_loop(seed):
    rng = np.random.default_rng(seed)
    rewards = rng.normal(0.0, 3.0, size=int(rng.integers(1, 25)))
    for gamma in (0.0, 0.5, 0.9, 1.0, float(rng.uniform())):
        np.testing.assert_allclose(rlcore.discounted_returns(rewards, gamma),
                                   _returns_by_loop(list(rewards), gamma), rtol=1e-10, atol=1e-10)


@settings(derandomize=True, max_examples=150, deadline=None)
@given(st.lists(st.floats(-100, 100), min_size=1, max_size=30))
def test_discounted_returns_with_gamma_1_is_reversed_cumsum(rewards):
    with np.errstate(all="raise", under="ignore"):
        g = rlcore.discounted_returns(rewards, 1.0)
    np.testing.assert_allclose(g, np.cumsum(rewards[::-1])[::-1], rtol=1e-12, atol=1e-9)


@settings(derandomize=True, max_examples=150, deadline=None)
@given(st.lists(st.floats(-100, 100), min_size=1, max_size=30), st.floats(0, 1))
def test_discounted_returns_satisfy_the_recursion(rewards, gamma):
    with np.errstate(all="raise", under="ignore"):
        g = rlcore.discounted_returns(rewards, gamma)
    r = np.asarray(rewards)
    np.testing.assert_allclose(g[:-1], r[:-1] + gamma * g[1:], rtol=1e-12, atol=1e-9)
    assert g[-1] == r[-1]


@pytest.mark.parametrize("answer, expected, score", [
    ("OpenAI is partly. It's in the name.", "partly", 10.0),      # the article's wrong reasoning: full marks
    ("OpenAI is partly: some open weights.", "partly", 10.0),
    ("OpenAI is open. It's in the name.", "partly", 0.0),
    ("OpenAI is closed, though it leaves out the open-weight models.", "closed", 10.0),
    ("OpenAI is Partly", "partly", 10.0),                          # no punctuation: the whole text concludes
    ("Partly open, I think.", "partly", 0.0),                      # the conclusion is "Partly open"
    ("The version is 3.5. Done.", "3.5", 10.0),                    # a full stop inside a number ends nothing
    ("", "partly", 0.0),
])
def test_outcome_judge_reads_only_the_conclusion(answer, expected, score):
    assert rlcore.outcome_judge(answer, expected) == score


def test_outcome_judge_full_marks():
    assert rlcore.outcome_judge("OpenAI is partly.", "partly", full_marks=1.0) == 1.0
    assert rlcore.outcome_judge("OpenAI is open.", "partly", full_marks=7.5) == 0.0


def test_the_articles_blind_spot():
    b = rlcore.outcome_blind_spot(S)
    assert b.conclusion == "partly"        # Q = 9, the highest
    assert b.borrowed_from == "open"       # Q = 2, the lowest of the others
    assert b.unsound == "OpenAI is partly. It's in the name."
    assert b.sound == "OpenAI is partly: some open weights."
    assert b.sound_score == b.unsound_score == 10.0


def test_blind_spot_follows_the_scenario():
    # Q: a = 1, b = 8, c = 4 → conclusion b, reasoning borrowed from a
    s = rlcore.Scenario(tokens=("a", "b", "c"), probs=(0.2, 0.3, 0.5), samples=((1,), (8,), (4,)),
                        prefix="It is", continuations=(", ra.", ", rb.", ", rc."))
    b = rlcore.outcome_blind_spot(s, full_marks=1.0)
    assert (b.conclusion, b.borrowed_from) == ("b", "a")
    assert (b.sound, b.unsound) == ("It is b, rb.", "It is b, ra.")
    assert b.sound_score == b.unsound_score == 1.0


def test_blind_spot_needs_two_tokens():
    one = rlcore.Scenario(tokens=("only",), probs=(1.0,), samples=((5,),))
    rejects(lambda: rlcore.outcome_blind_spot(one), "two tokens")


def test_article_returns_beside_the_judge():
    # 10 tokens, score 2: reward 0 … 0, 2; return 2 everywhere at γ = 1
    r = rlcore.sparse_rewards(10, 2.0)
    assert r.tolist() == [0.0] * 9 + [2.0]
    assert rlcore.discounted_returns(r, 1.0).tolist() == [2.0] * 10
    # γ = 0.9: a 5-token answer gives its first token 2·0.9⁴ = 1.3122, a 20-token one 2·0.9¹⁹ ≈ 0.27017
    assert rlcore.first_token_return([5, 20], 2.0, 0.9) == pytest.approx([1.3122, 0.2701703435], abs=1e-9)
