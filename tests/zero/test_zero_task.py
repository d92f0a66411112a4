"""The task and its judge: problems worked out by hand, the answer grammar, hostile answers, held-out problems kept
out of training."""

from __future__ import annotations

import numpy as np
import pytest

from rlcore.studies.zero import task
from tests.rejects import rejects

# worked by hand, left to right, last two digits kept: (problem, running results, answer)
HAND = [("5 + 5", [10], 10),
        ("3 + 4 * 2 * 7", [7, 14, 98], 98),
        ("9 * 9 * 9", [81, 29], 29),                        # 729
        ("9 * 9 + 9 * 7 + 3", [81, 90, 30, 33], 33),        # 630
        ("2 * 5 + 3 * 4 + 6 * 7 + 8", [10, 13, 52, 58, 6, 14], 14)]   # 406


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
    assert [task.answer_text(a) for a in ans] == ["= 21", ": = 21", ": 7 = 21", ": 7 14 = 21"]
    assert task.answer_lengths(ans).tolist() == [2, 3, 4, 5]
    longest = task.answers(task.parse_problem("2 * 5 + 3 * 4 + 6 * 7 + 8")[None], np.array([5]))
    assert task.MAX_ANSWER == 9 and task.answer_lengths(longest).tolist() == [8] and longest[0, -1] == task.END
    assert task.judge_batch(ans, p)[2].tolist() == [2.0] * 4
    assert task.working_right(ans, p).all()
    wrong = ans.copy()
    wrong[3, 2] = 15                                                  # ": 7 15 = 21": right, the working not
    assert task.judge_batch(wrong, p)[2][3] == 2.0 and task.working_right(wrong, p).tolist() == [True] * 3 + [False]


def test_a_uniform_guess_is_right_once_in_a_hundred_and_64_guesses_less_than_half_the_time():
    assert len(task.VOCAB) == task.MODULUS + 7 and task.VOCAB[99] == "99"
    for m in task.SIZES:
        assert task.guess_rate(m) == pytest.approx(1 / 100)
        assert 1 - (1 - task.guess_rate(m)) ** 64 <= 0.5
    # every answer is reachable: over many training problems each of 0 … 99 is the answer to some
    drawn = task.sample_problems(np.random.default_rng(1), 20_000)
    assert set(task.final_answers(drawn).tolist()) == set(range(100))

@pytest.mark.parametrize(("text", "size", "right", "well"), [
    (": 7 14 98 = 45", 5, True, True),
    (": 7 14 98 = 45", 4, True, False),     # one result more than a 4-operand problem has room for
    (":7 14=45", 5, True, True),
    ("= 45", 2, True, True),
    (": 3 = 45", 2, True, False),           # a 2-operand problem has no running result to write
    ("=45", 5, True, True),
    (": = 45", 5, True, True),              # working announced, none written: allowed (s = 0)
    (": 0 0 0 = 45", 5, True, True),        # the judge does not read the working, as R1-Zero's did not
    (": 7 140 = 45", 5, True, False),       # a result of three digits is none the task writes
    (": 714 = 45", 5, True, False),
    ("= 44", 5, False, True),
    ("= 5", 5, False, True),
    ("45", 5, False, False),
    ("", 5, False, False),
    ("= 4 5", 5, False, False),             # two numbers, not 45
    ("= 045", 5, False, False),             # no leading zeros
    ("= 145", 5, False, False),
    ("= = 45", 5, True, False),
    ("7 14 98 = 45", 5, True, False),       # working without the opening ':'
    ("= ٤٥", 5, False, False),              # Arabic-Indic digits are not ASCII digits
    ("= ４５", 5, False, False),             # nor are full-width ones
    ("= 45\n", 5, False, False),
    ("<end> = 45", 5, True, False),
    ("🙂 = 45", 5, True, False),
])
def test_judge_on_chosen_answers(text, size, right, well):
    v = task.judge(text, 45, size)
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
    (lambda: task.judge("= 1", 100, 3), "answer"),
    (lambda: task.guess_rate(8), "size"),
    (lambda: task.judge("= 1", 2.5, 3), "answer"),
    (lambda: task.judge("= 1", 1, 8), "size"),
    *((lambda bad=bad: task.judge(bad, 1, 3), "text") for bad in (None, 5, b"= 5", ["= 5"])),
    *((lambda bad=bad: task.parse_problem(bad, "problem"), "problem") for bad in (
        "", "3", "3 + 4 + 5 + 6 + 7 + 8 + 9 + 1", "3 +", "3 - 4", "3 + 0", "a + b", "٣ + 4", "3 " * 500, None)),
])
def test_bad_input_raises_value_error_naming_the_argument(call, name):
    rejects(call, rf"^{name} must")
