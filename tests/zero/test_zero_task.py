"""The task and its judge: problems worked out by hand, hostile answers, held-out problems kept out."""

from __future__ import annotations

import numpy as np
import pytest

from rlcore.studies.zero import task
from tests.rejects import rejects


def test_running_digits_by_hand():
    # 9 * 9 = 81 → 1; 1 + 9 = 10 → 0; 0 * 7 = 0; 0 + 3 = 3
    assert task.running_digits(task.parse_problem("9 * 9 + 9 * 7 + 3")[None]).tolist() == [[1, 0, 0, 3]]
    # 2 + 8 = 10 → 0; 0 + 5 = 5; 5 * 3 = 15 → 5; 5 * 5 = 25 → 5
    assert task.running_digits(task.parse_problem("2+8+5*3*5")[None]).tolist() == [[0, 5, 5, 5]]


def test_the_two_answer_forms_as_tokens_and_text():
    p = task.parse_problem("3 + 4 * 2 + 7 * 5")[None]
    worked = task.answers(p, [True])[0]
    now = task.answers(p, [False])[0]
    assert task.answer_text(worked) == ": 7 4 1 = 5"
    assert task.answer_text(now) == "= 5"
    assert worked.tolist().count(task.END) == 1 and now.tolist().count(task.END) == 1
    assert task.judge(task.answer_text(worked), 5).score == 2.0


@pytest.mark.parametrize(("text", "right", "well"), [
    (": 7 4 1 = 5", True, True),
    ("= 5", True, True),
    ("=5", True, True),
    (": 0 0 0 = 5", True, True),          # the judge does not read the working, as R1-Zero's did not
    ("= 4", False, True),
    ("5", False, False),
    ("", False, False),
    ("   ", False, False),
    ("= 5 5", False, False),
    (": = 5", True, False),                 # working announced but none written
    ("= = 5", True, False),
    ("7 4 1 = 5", True, False),             # working without the opening ':'
    ("= ٥", False, False),                  # an Arabic-Indic five is not an ASCII digit
    ("= ５", False, False),                  # nor is a full-width five
    ("= 5\n", False, False),
    ("<end> = 5", True, False),
    ("🙂 = 5", True, False),
    (": " + "1 " * 97 + "= 5", True, True),  # long but within the limit
])
def test_judge_on_chosen_answers(text, right, well):
    v = task.judge(text, 5)
    assert (v.right, v.well_formed, v.score) == (right, well, float(right) + float(well))


def test_a_huge_answer_is_judged_without_reading_it():
    v = task.judge(": " + "1 " * 10_000 + "= 5", 5)
    assert v == task.Verdict(False, False, 0.0)


@pytest.mark.parametrize("bad", [None, 5, b"= 5", ["= 5"]])
def test_a_non_text_answer_is_a_value_error_naming_text(bad):
    rejects(lambda: task.judge(bad, 5), "text")


@pytest.mark.parametrize("bad", [-1, 10, 2.5, "5"])
def test_a_bad_expected_answer_names_answer(bad):
    rejects(lambda: task.judge("= 5", bad), "answer")


@pytest.mark.parametrize("bad", ["", "3 + 4", "3 + 4 * 2 + 7 * 55", "3 - 4 * 2 + 7 * 5", "a + b * c + d * e",
                                 "3 + 4 * 2 + 7 * 5 + 1", "٣ + 4 * 2 + 7 * 5", "3 " * 500,
                                 "3 + 0 * 2 + 7 * 5"])
def test_a_bad_typed_problem_names_problem(bad):
    rejects(lambda: task.parse_problem(bad, "problem"), "problem")


def test_times_may_be_typed_three_ways():
    assert (task.parse_problem("3×4x2*7+5") == task.parse_problem("3 * 4 * 2 * 7 + 5")).all()


def test_sampled_problems_avoid_the_held_out_ones_and_are_well_made():
    held = task.held_out_problems()
    assert len(set(task.problem_codes(held).tolist())) == task.HELD_OUT_SIZE
    drawn = task.sample_problems(np.random.default_rng(0), 5000, exclude=held)
    assert not set(task.problem_codes(drawn).tolist()) & set(task.problem_codes(held).tolist())
    assert set(np.unique(drawn[:, 0::2]).tolist()) == set(range(1, 10))
    assert set(np.unique(drawn[:, 1::2]).tolist()) == {task.PLUS, task.TIMES}


def test_excluding_a_problem_really_removes_it():
    # only 1 of the 10⁵·2⁴ problems is banned, so force it: draw from a generator that keeps giving it
    class Fixed:
        def __init__(self):
            self.calls = 0

        def integers(self, low, high, size):
            self.calls += 1
            return np.full(size, low if self.calls <= 2 else high - 1, dtype=np.int64)

    banned = task.parse_problem("1 + 1 + 1 + 1 + 1")[None]
    out = task.sample_problems(Fixed(), 3, exclude=banned)
    assert [task.problem_text(row) for row in out] == ["9 * 9 * 9 * 9 * 9"] * 3


def test_judge_batch_reads_token_rows():
    p = np.stack([task.parse_problem("3 + 4 * 2 + 7 * 5")] * 3)
    rows = task.answers(p, [True, False, False])
    rows[2, 1] = 4                                            # "= 4": wrong, still well formed
    right, well, score = task.judge_batch(rows, p)
    assert right.tolist() == [True, True, False] and well.all() and score.tolist() == [2.0, 2.0, 1.0]


def test_answer_text_stops_at_the_first_end_only():
    e, p = task.END, task.PAD
    assert task.answer_text([task.EQUALS, 5, e, 3, e]) == "= 5"
    assert task.answer_text([task.EQUALS, p, 5, e]) == "= <pad> 5"            # written by the model: judged
    assert task.judge(task.answer_text([task.EQUALS, p, 5, e]), 5) == task.Verdict(False, False, 0.0)
    assert task.judge(task.answer_text([p, task.EQUALS, 5, e]), 5) == task.Verdict(True, False, 1.0)
    assert task.answer_text([]) == ""
