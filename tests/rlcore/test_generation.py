"""rlcore.generation: stepping through one answer, and the rule-based judge.

Expected values are worked out by hand in the comments, never taken from the code's output.
"""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from rlcore import ARTICLE_SCENARIO as S
from rlcore.formulas.generation import answer_matches
from tests.rejects import rejects

OPEN_ANSWER = ["OpenAI", "is", "open", ".", "It", "'s", "in", "the", "name", "."]


# ---------------------------------------------------------------- text


@pytest.mark.parametrize("tokens, text", [
    (OPEN_ANSWER, "OpenAI is open. It's in the name."),
    (["OpenAI", "is", "partly", ":", "some", "open", "weights", "."], "OpenAI is partly: some open weights."),
    (["open", "-", "weight", "models", ",", "(", "some", ")"], "open-weight models, (some)"),
    ([], ""),
    (["one"], "one"),
])
def test_join_tokens_puts_the_spaces_back(tokens, text):
    assert rlcore.join_tokens(tokens) == text


def test_join_tokens_undoes_split_tokens_on_the_articles_answers():
    for cont in S.continuations:
        text = f"OpenAI is x{cont}"
        assert rlcore.join_tokens(rlcore.split_tokens(text)) == text


def test_answer_text_with_own_and_borrowed_reasoning():
    assert rlcore.answer_text(S, "open") == "OpenAI is open. It's in the name."
    assert rlcore.answer_text(S, "partly") == "OpenAI is partly: some open weights."
    assert rlcore.answer_text(S, "partly", reasoning_of="open") == "OpenAI is partly. It's in the name."
    rejects(lambda: rlcore.answer_text(S, "maybe"), "token")


# ---------------------------------------------------------------- temperature


def test_rarest_token_shift_by_hand():
    # π = 0.5, 0.3, 0.2; at τ = 2 each becomes √π / Σ√π: √0.2 = 0.44721, Σ = 0.70711 + 0.54772 + 0.44721 = 1.70204
    a, before, after = rlcore.rarest_token_shift([0.5, 0.3, 0.2], 2.0)
    assert a == 2
    assert before == 0.2
    assert after == pytest.approx(0.44721 / 1.70204, abs=1e-5)  # 0.26275: more likely
    # uniform: nothing to even out
    a, before, after = rlcore.rarest_token_shift([0.25, 0.25, 0.5], 2.0)
    assert a == 0  # the first of the tied rarest
    assert rlcore.rarest_token_shift([0.5, 0.5], 3.0)[1:] == pytest.approx((0.5, 0.5))
    # colder makes the rare token rarer: 0.2² / (0.25 + 0.09 + 0.04) = 0.04 / 0.38
    assert rlcore.rarest_token_shift([0.5, 0.3, 0.2], 0.5)[2] == pytest.approx(0.04 / 0.38)


# ---------------------------------------------------------------- stepping


def test_the_decision_step_offers_the_scenarios_tokens():
    step = rlcore.next_step(S, [], seed=0)
    assert step.k == 0
    assert step.state == ("OpenAI", "is")
    assert step.candidates == ("open", "closed", "partly")
    assert step.probs == pytest.approx((0.5, 0.3, 0.2))
    assert step.base_probs == pytest.approx((0.5, 0.3, 0.2))
    assert step.action in S.tokens
    assert step.action_prob == pytest.approx(S.probs[S.index(step.action)])
    assert not step.done and step.score is None and step.reward == 0.0


def test_temperature_reshapes_the_decision():
    # τ = 0.5 squares π: 0.25, 0.09, 0.04 over 0.38
    step = rlcore.next_step(S, [], seed=3, temperature=0.5)
    assert step.probs == pytest.approx((0.25 / 0.38, 0.09 / 0.38, 0.04 / 0.38))
    assert step.base_probs == pytest.approx((0.5, 0.3, 0.2))
    assert step.temperature == 0.5


def test_after_the_decision_the_continuation_follows_with_probability_one():
    step = rlcore.next_step(S, ["open"], seed=0)
    assert step.k == 1
    assert step.state == ("OpenAI", "is", "open")
    assert step.candidates == (".",) and step.probs == (1.0,) and step.action == "."
    step = rlcore.next_step(S, ["open", ".", "It"], seed=0, temperature=3.0)
    assert step.action == "'s" and step.action_prob == 1.0  # temperature cannot reshape a single candidate


def test_the_last_step_draws_a_score_from_the_chosen_tokens_samples():
    # "open" is followed by 7 tokens: . It 's in the name . → the 8th step (k = 7) ends the answer
    written = ["open", ".", "It", "'s", "in", "the", "name"]
    last = rlcore.next_step(S, written, seed=5)
    assert last.k == 7 and last.action == "." and last.done
    assert last.score in (3, 1, 2, 1, 3)
    assert last.reward == last.score


def test_rollout_of_an_open_answer_is_the_articles_ten_tokens():
    for seed in range(40):
        steps = rlcore.rollout(S, seed)
        if steps[0].action == "open":
            break
    else:
        pytest.fail("no seed out of 40 drew 'open' (probability 0.5 each)")
    assert len(steps) == 8
    assert [*steps[-1].state, steps[-1].action] == OPEN_ANSWER
    assert [s.reward for s in steps[:-1]] == [0.0] * 7
    assert all(s.done == (i == 7) for i, s in enumerate(steps))


def test_the_kth_draw_depends_only_on_seed_and_k():
    a = rlcore.rollout(S, seed=11, temperature=1.3)
    b = rlcore.rollout(S, seed=11, temperature=1.3)
    assert a == b
    # the same draw whether it is made inside a rollout or on its own
    assert rlcore.next_step(S, [], seed=11, temperature=1.3) == a[0]
    assert rlcore.next_step(S, [s.action for s in a[:-1]], seed=11, temperature=1.3) == a[-1]


def test_draw_frequencies_follow_the_policy():
    n = 3000
    first = [rlcore.next_step(S, [], seed=s).action for s in range(n)]
    share = [first.count(t) / n for t in S.tokens]
    assert share == pytest.approx([0.5, 0.3, 0.2], abs=0.03)
    # τ = 0.1: π^10 normalised, 0.5^10 / (0.5^10 + 0.3^10 + 0.2^10) = 0.99386
    cold = [rlcore.next_step(S, [], seed=s, temperature=0.1).action for s in range(1000)]
    assert cold.count("open") / 1000 > 0.98


def test_the_judges_score_is_uniform_over_the_samples():
    # partly's answers scored 10 and 8: each should come up about half the time
    written = ["partly", ":", "some", "open", "weights"]
    scores = [rlcore.next_step(S, written, seed=s).score for s in range(2000)]
    assert set(scores) == {10.0, 8.0}
    assert scores.count(10.0) / 2000 == pytest.approx(0.5, abs=0.04)


def test_a_token_without_continuation_finishes_at_once():
    two = rlcore.Scenario(tokens=("yes", "no"), probs=(0.6, 0.4), samples=((7,), (1,)))
    step = rlcore.next_step(two, [], seed=0)
    assert step.done
    assert step.score == {"yes": 7.0, "no": 1.0}[step.action]
    assert len(rlcore.rollout(two, seed=0)) == 1


def test_a_token_with_probability_zero_is_never_drawn():
    sure = rlcore.Scenario(tokens=("a", "b"), probs=(1.0, 0.0), samples=((1,), (2,)))
    assert {rlcore.next_step(sure, [], seed=s, temperature=3.0).action for s in range(200)} == {"a"}


# ---------------------------------------------------------------- the rule-based judge


@pytest.mark.parametrize("text, fmt_ok, ans_ok", [
    ("<think>Some weights are open.</think> partly", True, True),
    ("  <think>r</think>Partly.", True, True),                 # leading spaces, case, final full stop
    ("<think>r</think> OpenAI is partly!", True, True),        # the final answer ends with it
    ("partly", False, True),                                   # no tags: the whole text is the final answer
    ("<think>It's in the name.</think> open", True, False),    # wrong answer
    ("<think>   </think> partly", False, True),                # empty reasoning
    ("<think>a</think><think>b</think> partly", False, True),  # two blocks
    ("</think>x<think> partly", False, True),                  # tags in the wrong order
    ("So: <think>r</think> partly", False, True),              # reasoning not at the start
    ("<think>r</think> partly open", True, False),             # ends with another word
    ("<think>partly</think>", True, False),                    # nothing after the tags
    ("", False, False),
    # the judge cannot see wrong reasoning: the article's own and the borrowed reasoning both score 2
    ("<think>OpenAI is partly: some open weights.</think> partly", True, True),
    ("<think>OpenAI is partly. It's in the name.</think> partly", True, True),
])
def test_rule_based_judge_cases(text, fmt_ok, ans_ok):
    score, checks = rlcore.rule_based_judge(text, "partly")
    assert (checks.format_ok, checks.answer_ok) == (fmt_ok, ans_ok)
    assert score == int(fmt_ok) + int(ans_ok)


def test_rule_based_judge_reports_what_it_read():
    score, checks = rlcore.rule_based_judge("<think> It's in the name. </think>  partly ", "partly")
    assert score == 2.0
    assert checks.reasoning == "It's in the name."
    assert checks.final_answer == "partly"


def test_multi_word_and_symbol_answers():
    assert rlcore.rule_based_judge("<think>r</think> It has some open weights.", "some open weights")[0] == 2.0
    assert answer_matches("the answer is <>", "<>")
    assert not answer_matches("the answer is <", "<>")


def test_hostile_text_is_only_read():
    score, checks = rlcore.rule_based_judge("<script>alert(1)</script>", "partly")
    assert score == 0.0
    assert checks.final_answer == "<script>alert(1)</script>"


def test_step_rng_is_reproducible_and_distinct():
    a = rlcore.step_rng(3, 0).random(4)
    assert np.array_equal(a, rlcore.step_rng(3, 0).random(4))
    assert not np.array_equal(a, rlcore.step_rng(3, 1).random(4))
    assert not np.array_equal(a, rlcore.step_rng(4, 0).random(4))
