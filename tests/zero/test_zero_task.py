"""The task and its judge: problems worked out by hand, the answer grammar, hostile answers, held-out problems kept
out of training."""

from __future__ import annotations

import numpy as np
import pytest

from rlcore.studies.zero import task
from tests.rejects import rejects

# worked by hand, left to right, last digit kept: (problem, running results, answer)
HAND = [("5 + 5", [0], 0),
        ("3 + 4 * 2 + 7", [7, 4, 1], 1),
        ("9 * 9 * 9", [1, 9], 9),
        ("9 * 9 + 9 * 7 + 3", [1, 0, 0, 3], 3),
        ("2 * 5 + 3 * 4 + 6 * 7 + 8", [0, 3, 2, 8, 6, 4], 4)]


def test_hand_worked_problems():
    problems = np.stack([task.parse_problem(t) for t, _, _ in HAND])
    assert task.sizes_of(problems).tolist() == [2, 4, 3, 5, 7]
    assert task.final_answers(problems).tolist() == [a for _, _, a in HAND]
    for row, (_, results, _) in zip(task.running_results(problems), HAND, strict=True):
        assert row[:len(results)].tolist() == results and (row[len(results):] == -1).all()


def test_text_round_trip_and_fixed_positions():
    problems = task.sample_problems(np.random.default_rng(3), 40)
    np.testing.assert_array_equal(np.stack([task.parse_problem(task.problem_text(p)) for p in problems]), problems)
    assert task.problem_text(task.parse_problem("3+4x2 × 7")) == "3 + 4 * 2 * 7"   # times typed three ways
    prompts = task.prompts(problems)
    assert prompts.shape == (40, task.PROMPT_LEN) == (40, 14)
    for row, m in zip(prompts, task.sizes_of(problems), strict=True):
        assert ((row[0:2 * m:2] >= 1) & (row[0:2 * m:2] <= 9)).all()     # operand j at position 2j
        assert row[2 * m - 1] == task.ASK and (row[2 * m:] == task.PAD).all()


def test_the_answer_grammar():
    p = np.stack([task.parse_problem("3 + 4 * 2 + 7")] * 4)
    ans = task.answers(p, np.array([task.AT_ONCE, 0, 1, 2]))
    assert [task.answer_text(a) for a in ans] == ["= 1", ": = 1", ": 7 = 1", ": 7 4 = 1"]
    assert task.answer_lengths(ans).tolist() == [2, 3, 4, 5]
    longest = task.answers(task.parse_problem("2 * 5 + 3 * 4 + 6 * 7 + 8")[None], np.array([5]))
    assert task.MAX_ANSWER == 9 and task.answer_lengths(longest).tolist() == [8] and longest[0, -1] == task.END
    assert task.judge_batch(ans, p)[2].tolist() == [2.0] * 4


@pytest.mark.parametrize(("text", "size", "right", "well"), [
    (": 7 4 1 = 5", 5, True, True),
    (": 7 4 1 = 5", 4, True, False),        # one result more than a 4-operand problem has room for
    ("= 5", 2, True, True),
    ("=5", 5, True, True),
    (": = 5", 5, True, True),               # working announced, none written: allowed (s = 0)
    (": 0 0 0 = 5", 5, True, True),         # the judge does not read the working, as R1-Zero's did not
    ("= 4", 5, False, True),
    ("5", 5, False, False),
    ("", 5, False, False),
    ("= 5 5", 5, False, False),
    ("= = 5", 5, True, False),
    ("7 4 1 = 5", 5, True, False),          # working without the opening ':'
    ("= ٥", 5, False, False),               # an Arabic-Indic five is not an ASCII digit
    ("= ５", 5, False, False),               # nor is a full-width five
    ("= 5\n", 5, False, False),
    ("<end> = 5", 5, True, False),
    ("🙂 = 5", 5, True, False),
])
def test_judge_on_chosen_answers(text, size, right, well):
    v = task.judge(text, 5, size)
    assert (v.right, v.well_formed, v.score) == (right, well, float(right) + float(well))


def test_a_huge_answer_is_judged_without_reading_it():
    assert task.judge(": " + "1 " * 10_000 + "= 5", 5, 7) == task.Verdict(False, False, 0.0)


def test_answer_text_stops_at_the_first_end_only():
    e, p = task.END, task.PAD
    assert task.answer_text([task.EQUALS, 5, e, 3, e]) == "= 5"
    assert task.answer_text([task.EQUALS, p, 5, e]) == "= <pad> 5"            # written by the model: judged
    assert task.judge(task.answer_text([task.EQUALS, p, 5, e]), 5, 3) == task.Verdict(False, False, 0.0)
    assert task.answer_text([]) == ""


def test_held_out_problems_cover_every_size_and_training_never_draws_one():
    held = task.held_out_problems()
    assert np.bincount(task.sizes_of(held)).tolist()[2:] == [4, 8, 12, 16, 20, 24] and task.HELD_OUT_SIZE == 84
    assert len({r.tobytes() for r in held}) == len(held) and not held.flags.writeable
    drawn = task.sample_problems(np.random.default_rng(0), 4000, exclude=held)
    assert not {r.tobytes() for r in drawn} & {r.tobytes() for r in held}
    assert set(np.unique(drawn[:, 0])) == set(range(1, 10)) and set(task.sizes_of(drawn)) == set(task.SIZES)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: task.sample_problems(np.random.default_rng(0), 0), "n"),
    (lambda: task.sample_problems(np.random.default_rng(0), 1, [8]), "sizes"),
    (lambda: task.answers(task.parse_problem("3 + 4")[None], np.array([1])), "steps"),
    (lambda: task.judge("= 1", 10, 3), "answer"),
    (lambda: task.judge("= 1", 2.5, 3), "answer"),
    (lambda: task.judge("= 1", 1, 8), "size"),
    *((lambda bad=bad: task.judge(bad, 1, 3), "text") for bad in (None, 5, b"= 5", ["= 5"])),
    *((lambda bad=bad: task.parse_problem(bad, "problem"), "problem") for bad in (
        "", "3", "3 + 4 + 5 + 6 + 7 + 8 + 9 + 1", "3 +", "3 - 4", "3 + 0", "a + b", "٣ + 4", "3 " * 500, None)),
])
def test_bad_input_raises_value_error_naming_the_argument(call, name):
    rejects(call, rf"^{name} must")
