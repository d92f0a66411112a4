"""rlcore.collapse: entropy along training, right-answer shares, pass@k over questions, by hand and by formula."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from rlcore.studies.collapse import correct_shares, entropy_trace, pass_at_k_questions, pass_at_k_sampled, trend
from tests.rejects import rejects


def test_entropy_trace_first_step_by_hand():
    # π = (0.8, 0.2), Q = (1, 0), η = 1: V = 0.8, Δz = π ⊙ (Q − V) = (0.16, −0.16)
    t = entropy_trace([0.8, 0.2], [1.0, 0.0], 1.0, 1)
    e_log = 0.8 * math.log(0.8) + 0.2 * math.log(0.2)
    lp_c = [math.log(0.8) - e_log, math.log(0.2) - e_log]
    dz_c = [0.16 - 0.096, -0.16 - 0.096]  # E[Δz] = 0.8·0.16 − 0.2·0.16 = 0.096
    shares = [-0.8 * lp_c[0] * dz_c[0], -0.2 * lp_c[1] * dz_c[1]]
    np.testing.assert_allclose(t.shares[0], shares, atol=1e-12)
    assert t.predicted[0] == pytest.approx(sum(shares), abs=1e-12)
    assert t.entropy[0] == pytest.approx(-e_log, abs=1e-12)
    # after the step: π ∝ (0.8 e^0.16, 0.2 e^−0.16)
    a, b = 0.8 * math.exp(0.16), 0.2 * math.exp(-0.16)
    p = np.array([a, b]) / (a + b)
    h1 = -float(p @ np.log(p))
    assert t.measured[0] == pytest.approx(h1 + e_log, abs=1e-12)
    assert t.one_step[0] == pytest.approx(-e_log + sum(shares), abs=1e-12)
    assert t.predicted[0] < 0 and t.measured[0] < 0  # raising the likelier token lowers the entropy


def test_entropy_prediction_matches_for_small_steps():
    t = entropy_trace([0.5, 0.3, 0.2], [2.0, 5.0, 9.0], 1e-4, 3)
    np.testing.assert_allclose(t.predicted, t.measured, rtol=1e-3)
    np.testing.assert_allclose(t.shares.sum(axis=1), t.predicted, atol=1e-15)
    assert t.probs.shape == (4, 3) and t.entropy.shape == (4,)


def test_zero_steps():
    t = entropy_trace([0.5, 0.5], [1.0, 0.0], 1.0, 0)
    assert t.predicted.size == 0 and t.entropy.tolist() == pytest.approx([math.log(2)])


def test_correct_shares():
    assert correct_shares([(3, 9), (10,), (1, 2, 8)], 8).tolist() == pytest.approx([0.5, 1.0, 1 / 3])
    assert correct_shares([(3, 9)], 100).tolist() == [0.0]
    rejects(lambda: correct_shares([(1,)], float("nan")), "threshold")


def test_one_question_pass_at_k_is_the_binomial_formula():
    # shares 0 or 1: every question is the same one, solved with p = Σ π over the solving branches
    res = pass_at_k_questions([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]], [0.0, 1.0, 1.0], [1, 3, 10])
    for row, pi in zip(res.pass_at, ([0.5, 0.3, 0.2], [0.1, 0.1, 0.8]), strict=True):
        p = pi[1] + pi[2]
        np.testing.assert_allclose(row, [1 - (1 - p) ** k for k in (1, 3, 10)], atol=1e-12)
    np.testing.assert_allclose(res.pass_at_1, [0.5, 0.9], atol=1e-12)


def test_two_branches_by_hand():
    # branch A (π 0.9) solves 3/4 of the questions, B (π 0.1) half, independently:
    # P(A and B) = 3/8 (p = 1), P(A only) = 3/8 (p = 0.9), P(B only) = 1/8 (p = 0.1), P(none) = 1/8 (p = 0)
    res = pass_at_k_questions([0.9, 0.1], [0.75, 0.5], [1, 2])
    k1 = 3 / 8 + 3 / 8 * 0.9 + 1 / 8 * 0.1
    k2 = 3 / 8 + 3 / 8 * (1 - 0.1**2) + 1 / 8 * (1 - 0.9**2)
    np.testing.assert_allclose(res.pass_at[0], [k1, k2], atol=1e-12)
    assert res.pass_at_1[0] == pytest.approx(0.9 * 0.75 + 0.1 * 0.5) == pytest.approx(k1)


def test_rare_branch_preset_raises_pass1_and_lowers_pass64():
    s = rlcore.PRESETS["Rare branch, sometimes right"]
    shares = correct_shares(s.samples, 8)
    assert shares.tolist() == [0.75, 0.0, 0.5]
    assert np.argmax(s.q) == 0 and s.q[2] > s.q[1]  # training favours "simplify"
    t = entropy_trace(s.pi, s.q, 0.3, 30)
    res = pass_at_k_questions(t.probs[[0, -1]], shares, [64])
    # base: 0.75 + P(only backtrack solves) · (1 − 0.95^64) = 0.75 + 0.125 · (1 − 0.95^64)
    assert res.pass_at[0, 0] == pytest.approx(0.75 + 0.125 * (1 - 0.95**64), abs=1e-12)
    assert res.pass_at_1[0] == pytest.approx(0.6 * 0.75 + 0.05 * 0.5)
    assert res.pass_at_1[1] > res.pass_at_1[0] + 0.2
    assert res.pass_at[1, 0] < res.pass_at[0, 0] - 0.05


def unbiased(n, c, k):
    return 1.0 if n - c < k else 1 - math.comb(n - c, k) / math.comb(n, k)


def test_sampled_estimate_against_math_comb_on_one_question():
    # one question (shares 0/1), so each policy's estimate is the mean over QUESTIONS identical questions of
    # the unbiased estimator; with p = 1 every answer is right, with p = 0 none is
    est = pass_at_k_sampled([[0.0, 1.0], [1.0, 0.0]], [0.0, 1.0], [1, 5], answers=10, questions=7, seed=3)
    np.testing.assert_allclose(est, [[1, 1], [0, 0]], atol=1e-12)


def test_sampled_estimate_is_the_mean_of_codex_estimates():
    pi = np.array([0.3, 0.7])
    est = pass_at_k_sampled(pi, [0.0, 1.0], [1, 2, 4], answers=8, questions=1, seed=0)
    # replay the draws: the first K uniforms decide the solving branches, then one uniform per answer
    rng = np.random.default_rng(0)
    solves = rng.random((1, 2)) < [0.0, 1.0]
    u = rng.random((1, 8))
    c = int((u[0] < pi @ solves[0]).sum())
    np.testing.assert_allclose(est[0], [unbiased(8, c, k) for k in (1, 2, 4)], atol=1e-12)


def test_sampled_estimate_is_close_to_exact():
    shares = [0.75, 0.0, 0.5]
    pi = [0.6, 0.35, 0.05]
    exact = pass_at_k_questions(pi, shares, [1, 16]).pass_at[0]
    est = pass_at_k_sampled(pi, shares, [1, 16], answers=64, questions=4000, seed=1)[0]
    np.testing.assert_allclose(est, exact, atol=0.03)


def test_trend():
    assert trend(0.87, 0.76) == "falls" and trend(0.47, 0.75) == "rises" and trend(0.5, 0.505) == "barely moves"


@pytest.mark.parametrize("call, match", [
    (lambda: pass_at_k_questions([0.5, 0.5], [0.5], [1]), "shares"),
    (lambda: pass_at_k_questions([0.5, 0.5], [0.5, 1.5], [1]), "shares"),
    (lambda: pass_at_k_questions([0.5, 0.5], [0.5, 0.5], [0]), "ks"),
    (lambda: pass_at_k_sampled([0.5, 0.5], [0.5, 0.5], [9], answers=8, questions=1, seed=0), "ks"),
    (lambda: pass_at_k_sampled([0.5, 0.5], [0.5, 0.5], [1], answers=0, questions=1, seed=0), "answers"),
    (lambda: entropy_trace([0.5, 0.5], [1.0], 1.0, 1), "same length"),
    (lambda: trend(0.1, 0.2, -1), "tol"),
])
def test_bad_input_names_the_argument(call, match):
    rejects(call, match)


# --- collapse_study: page 15's numbers in one call -----------------------------------------------------------

def test_collapse_study_before_training_by_hand():
    """The article with a right answer at 8 or more: only `partly` (π 0.2; scores 10 and 8) is right, on every
    question, so before training pass@1 = 0.2 and pass@k = 1 − 0.8^k."""
    s = rlcore.collapse_study(rlcore.ARTICLE_SCENARIO, 0.3, 8.0, 64, 0, steps=5, max_k=6, questions=20)
    np.testing.assert_allclose(s.shares, [0.0, 0.0, 1.0])
    np.testing.assert_allclose(s.exact.pass_at[0], [1 - 0.8**k for k in range(1, 7)], atol=1e-12)
    assert s.exact.pass_at_1[0] == pytest.approx(0.2, abs=1e-12)
    assert s.exact.ks.tolist() == [1, 2, 3, 4, 5, 6]
    assert s.trace.probs.shape == (6, 3) and s.exact.pass_at.shape == (6, 6) and s.sampled.shape == (6, 6)
    assert np.all(np.diff(s.exact.pass_at_1) > 0)  # training raises `partly`, the best Q: pass@1 = π(partly)


def test_collapse_study_is_its_formulas_on_the_scenario():
    sc = rlcore.PRESETS["Rare branch, sometimes right"]
    s = rlcore.collapse_study(sc, 0.5, 7.0, 128, 3, steps=4, max_k=10, questions=50)
    trace = entropy_trace(sc.pi, sc.q, 0.5, 4)
    np.testing.assert_allclose(s.trace.probs, trace.probs, rtol=1e-12)
    np.testing.assert_allclose(s.trace.shares, trace.shares, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(s.shares, correct_shares(sc.samples, 7.0))
    ks = np.arange(1, 11)
    np.testing.assert_allclose(s.exact.pass_at, pass_at_k_questions(trace.probs, s.shares, ks).pass_at, rtol=1e-12)
    np.testing.assert_allclose(s.sampled, pass_at_k_sampled(trace.probs, s.shares, ks, answers=128, questions=50,
                                                            seed=3), rtol=1e-12)


@pytest.mark.parametrize("threshold, value", [(0.0, 1.0), (1e3, 0.0)], ids=["every answer right", "none right"])
def test_collapse_study_when_every_answer_or_none_is_right(threshold, value):
    """Every answer right: each question is solved with p = 1, so c = n right answers and each estimate is
    1 − C(0, k)/C(n, k) = 1; none right: 0, exact and sampled, at every step and every k."""
    s = rlcore.collapse_study(rlcore.ARTICLE_SCENARIO, 0.3, threshold, 64, 0, steps=3, max_k=64, questions=5)
    np.testing.assert_allclose(s.exact.pass_at, value, atol=1e-12)
    np.testing.assert_allclose(s.sampled, value, atol=1e-12)


@pytest.mark.parametrize("kwargs, name", [
    ({"scenario": "abc"}, "scenario"),
    ({"max_k": 65}, "max_k"),               # above the 64 answers a question has
    ({"max_k": 0}, "max_k"),
    ({"answers": 0}, "answers"),
    ({"questions": 0}, "questions"),
    ({"lr": -0.1}, "lr"),
    ({"steps": -1}, "steps"),
    ({"seed": -1}, "seed"),
])
def test_collapse_study_names_a_bad_argument(kwargs, name):
    args = {"scenario": rlcore.ARTICLE_SCENARIO, "steps": 2, "max_k": 4, "questions": 5, **kwargs}
    rejects(lambda: rlcore.collapse_study(**args), rf"\b{name}\b")
