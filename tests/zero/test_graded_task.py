"""The graded task: problems of 2 to 7 operands, answers with any amount of working, and its judge."""

from __future__ import annotations

import numpy as np
import pytest

from rlcore.studies.zero import graded as g
from rlcore.studies.zero.task import ASK, PAD
from tests.rejects import rejects

# worked by hand, left to right, last digit kept: (problem, running results, answer)
HAND = [("5 + 5", [0], 0),
        ("3 + 4 * 2 + 7", [7, 4, 1], 1),
        ("9 * 9 * 9", [1, 9], 9),
        ("2 * 5 + 3 * 4 + 6 * 7 + 8", [0, 3, 2, 8, 6, 4], 4)]


def test_hand_worked_problems():
    problems = np.stack([g.parse_problem(t) for t, _, _ in HAND])
    assert g.sizes_of(problems).tolist() == [2, 4, 3, 7]
    assert g.final_answers(problems).tolist() == [a for _, _, a in HAND]
    run = g.running_results(problems)
    for row, (_, results, _) in zip(run, HAND, strict=True):
        assert row[:len(results)].tolist() == results and (row[len(results):] == -1).all()


def test_text_round_trip_and_fixed_positions():
    problems = g.sample_problems(np.random.default_rng(3), 40)
    back = np.stack([g.parse_problem(g.problem_text(p)) for p in problems])
    np.testing.assert_array_equal(back, problems)
    assert g.problem_text(g.parse_problem("3+4x2 * 7")) == "3 + 4 * 2 * 7"
    prompts = g.prompts(problems)
    assert prompts.shape == (40, g.PROMPT_LEN) == (40, 14)
    for row, m in zip(prompts, g.sizes_of(problems), strict=True):
        assert ((row[0:2 * m:2] >= 1) & (row[0:2 * m:2] <= 9)).all()     # operand j at position 2j
        assert row[2 * m - 1] == ASK and (row[2 * m:] == PAD).all()


def test_the_answer_grammar():
    p = np.stack([g.parse_problem("3 + 4 * 2 + 7")] * 4)
    ans = g.answers(p, np.array([g.AT_ONCE, 0, 1, 2]))
    assert [g.answer_text(a) for a in ans] == ["= 1", ": = 1", ": 7 = 1", ": 7 4 = 1"]
    assert g.answer_lengths(ans).tolist() == [2, 3, 4, 5]
    longest = g.answers(g.parse_problem("2 * 5 + 3 * 4 + 6 * 7 + 8")[None], np.array([5]))
    assert g.MAX_ANSWER == 9 and g.answer_lengths(longest).tolist() == [8] and longest[0, -1] != PAD
    assert g.judge_batch(ans, p)[2].tolist() == [2.0] * 4
    # judged by hand: one result too many is ill formed, a wrong digit is only well formed
    verdicts = [g.judge(t, 1, 4) for t in (": 7 4 1 = 1", ": 7 4 = 3", "1", ": 9 9 = 1")]
    assert [v.score for v in verdicts] == [1.0, 1.0, 0.0, 2.0]


def test_held_out_problems_cover_every_size_and_training_never_draws_one():
    held = g.held_out_problems()
    assert np.bincount(g.sizes_of(held)).tolist()[2:] == [4, 8, 12, 16, 20, 24]
    assert len({r.tobytes() for r in held}) == len(held)
    two = g.sample_problems(np.random.default_rng(0), 2000, np.full(2000, 2), exclude=held)
    assert not {r.tobytes() for r in two} & {r.tobytes() for r in held}


@pytest.mark.parametrize(("call", "name"), [
    (lambda: g.sample_problems(np.random.default_rng(0), 0), "n"),
    (lambda: g.sample_problems(np.random.default_rng(0), 1, [8]), "sizes"),
    (lambda: g.answers(g.parse_problem("3 + 4")[None], np.array([1])), "steps"),
    (lambda: g.judge("= 1", 10, 3), "answer"),
    (lambda: g.judge("= 1", 1, 8), "size"),
    (lambda: g.judge(None, 1, 3), "text"),
    (lambda: g.parse_problem("3 + 4 + 5 + 6 + 7 + 8 + 9 + 1"), "text"),
    (lambda: g.parse_problem("3 +"), "text"),
])
def test_bad_input_raises_value_error_naming_the_argument(call, name):
    rejects(lambda: call(), rf"^{name} must")
