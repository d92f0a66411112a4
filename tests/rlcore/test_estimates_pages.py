"""Unit tests for the rlcore.estimates helpers behind the "V, Q, advantage" and "baseline" pages.

Expected values are worked out by hand in the comments, not copied from the code's output.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from tests.rejects import rejects

ARTICLE_P = [0.5, 0.3, 0.2]
ARTICLE_S = [[3, 1, 2, 1, 3], [5, 4, 6], [10, 8]]
# A two-token case small enough to do on paper: Q = (0, 2); with one score per token R is fixed.
TINY_P = [0.5, 0.5]
TINY_S = [[0], [2]]


# --- value_breakdown -------------------------------------------------------------------------------------------

def test_value_breakdown_article():
    bd = rlcore.value_breakdown(ARTICLE_P, ARTICLE_S)
    # sums 10, 15, 18 over 5, 3, 2 answers → Q = 2, 5, 9
    assert bd.counts.tolist() == [5, 3, 2]
    assert bd.sums.tolist() == [10, 15, 18]
    np.testing.assert_allclose(bd.q, [2, 5, 9])
    # π·Q = 1, 1.5, 1.8 → V = 4.3
    np.testing.assert_allclose(bd.weighted_q, [1.0, 1.5, 1.8])
    assert bd.v == pytest.approx(4.3)
    np.testing.assert_allclose(bd.advantage, [-2.3, 0.7, 4.7])
    # π·A = −1.15 + 0.21 + 0.94 = 0
    np.testing.assert_allclose(bd.weighted_advantage, [-1.15, 0.21, 0.94])
    assert bd.advantage_check == pytest.approx(0.0, abs=1e-12)
    # (3+1+2+1+3+5+4+6+10+8)/10 = 43/10, and the split 5/3/2 follows π
    assert bd.sample_mean == pytest.approx(4.3)
    np.testing.assert_allclose(bd.sample_share, [0.5, 0.3, 0.2])
    assert bd.mean_matches is True
    # R − V for the open answers: 3−4.3, 1−4.3, 2−4.3, 1−4.3, 3−4.3
    np.testing.assert_allclose(bd.centered[0], [-1.3, -3.3, -2.3, -3.3, -1.3])
    assert np.mean(bd.centered[0]) == pytest.approx(bd.advantage[0])


def test_value_breakdown_plain_mean_differs_when_counts_do_not_follow_pi():
    # Q = (0, 6), V = 0.5·0 + 0.5·6 = 3, but three of the four answers began with token 0: plain mean 6/4 = 1.5.
    bd = rlcore.value_breakdown([0.5, 0.5], [[0, 0, 0], [6]])
    assert bd.v == pytest.approx(3.0)
    assert bd.sample_mean == pytest.approx(1.5)
    assert bd.mean_matches is False
    np.testing.assert_allclose(bd.advantage, [-3.0, 3.0])
    np.testing.assert_allclose(bd.sample_share, [0.75, 0.25])


@pytest.mark.parametrize("probs, samples, word", [
    ([0.5, 0.5], [[1]], "samples"),
    ([0.6, 0.6], [[1], [2]], "probs"),
    ([0.5, 0.5], [[1], []], "samples"),
])
def test_value_breakdown_rejects_bad_input(probs, samples, word):
    rejects(lambda: rlcore.value_breakdown(probs, samples), word)


# --- sample_checkpoints -------------------------------------------------------------------------------------------

def test_sample_checkpoints_hand_values():
    assert rlcore.sample_checkpoints(1000, 4).tolist() == [1, 10, 100, 1000]       # 10⁰, 10¹, 10², 10³
    assert rlcore.sample_checkpoints(10, 5, log=False).tolist() == [1, 3, 6, 8, 10]  # 1, 3.25, 5.5, 7.75, 10
    assert rlcore.sample_checkpoints(3, 20).tolist() == [1, 2, 3]                    # fewer counts than points
    assert rlcore.sample_checkpoints(5, 1).tolist() == [5]


@pytest.mark.parametrize("n, points", [(2000, 200), (7, 3), (5000, 20), (1, 5)])
def test_sample_checkpoints_shape(n, points):
    at = rlcore.sample_checkpoints(n, points)
    assert at[-1] == n and at[0] >= 1
    assert len(at) <= points
    assert np.all(np.diff(at) > 0)


# --- running_mc_estimates and running_mean --------------------------------------------------------------------------

def test_running_mc_estimates_hand_values():
    # after 1: token 0 has [2]; after 2: [2] and [6]; after 4: [2, 4] and [6, 8]
    est = rlcore.running_mc_estimates([0, 1, 0, 1], [2.0, 6.0, 4.0, 8.0], 2, [1, 2, 4])
    assert est.at.tolist() == [1, 2, 4]
    assert est.q[0, 0] == 2.0 and math.isnan(est.q[0, 1])
    np.testing.assert_allclose(est.q[1:], [[2.0, 6.0], [3.0, 7.0]])
    np.testing.assert_allclose(est.v, [2.0, 4.0, 5.0])
    assert est.counts.tolist() == [[1, 0], [1, 1], [2, 2]]


def test_running_mc_estimates_last_checkpoint_is_mc_estimates():
    actions, scores = rlcore.sample_answers(ARTICLE_P, ARTICLE_S, 500, 7)
    run = rlcore.running_mc_estimates(actions, scores, 3, rlcore.sample_checkpoints(500, 20))
    full = rlcore.mc_estimates(actions, scores, 3)
    np.testing.assert_allclose(run.q[-1], full.q)
    assert run.v[-1] == pytest.approx(full.v)
    assert run.counts[-1].tolist() == full.counts.tolist()


def test_running_mean_hand_values():
    # 4/1, (4+0)/2, (4+0+2+2)/4
    np.testing.assert_allclose(rlcore.running_mean([4.0, 0.0, 2.0, 2.0], [1, 2, 4]), [4.0, 2.0, 2.0])
    # column by column: [1, (1+3)/2] and [10, (10+20)/2]
    np.testing.assert_allclose(rlcore.running_mean([[1.0, 10.0], [3.0, 20.0]], [1, 2]), [[1.0, 10.0], [2.0, 15.0]])


# --- histogram_counts -------------------------------------------------------------------------------------------

def test_histogram_counts_one_series():
    # bins [0,1) [1,2) [2,3) [3,4]: 0 | 1, 1.5 | – | 4 (the top edge belongs to the last bin)
    h = rlcore.histogram_counts([0.0, 1.0, 1.5, 4.0], 4)
    np.testing.assert_allclose(h.edges, [0, 1, 2, 3, 4])
    assert h.counts.tolist() == [1, 2, 0, 1]
    np.testing.assert_allclose(h.shares, [0.25, 0.5, 0.0, 0.25])


def test_histogram_counts_shares_edges_across_series():
    # all values span 0…4, two bins [0,2) [2,4]: row 0 all in the first, row 1 all in the second
    h = rlcore.histogram_counts([[0.0, 0.0, 1.0], [3.0, 4.0, 4.0]], 2)
    np.testing.assert_allclose(h.edges, [0, 2, 4])
    assert h.counts.tolist() == [[3, 0], [0, 3]]
    np.testing.assert_allclose(h.shares, [[1, 0], [0, 1]])


def test_histogram_counts_range_and_constant_values():
    # range [0, 1] in two bins: −1 and 5 fall outside, 0.5 opens the second bin; shares count all 3 values
    h = rlcore.histogram_counts([-1.0, 0.5, 5.0], 2, low=0.0, high=1.0)
    assert h.counts.tolist() == [0, 1]
    np.testing.assert_allclose(h.shares, [0, 1 / 3])
    # all equal: the range widens to [1.5, 2.5], and 2 sits on the middle edge → second bin
    h = rlcore.histogram_counts([2.0, 2.0], 2)
    np.testing.assert_allclose(h.edges, [1.5, 2.0, 2.5])
    assert h.counts.tolist() == [0, 2]


# --- gradient_variance_curve ---------------------------------------------------------------------------------------

def test_gradient_variance_curve_tiny_case_by_hand():
    # Q = (0, 2), R fixed, ‖eₐ − π‖² = 0.5 for both tokens.
    # E‖g‖² = ½·b²·½ + ½·(2 − b)²·½,  ‖E g‖² = ‖(−½, ½)‖² = ½  →  tr Cov = ½(b − 1)².
    curve = rlcore.gradient_variance_curve(TINY_P, TINY_S, [0.0, 1.0, 3.0])
    np.testing.assert_allclose(curve, [0.5, 0.0, 2.0], atol=1e-12)
    assert rlcore.optimal_baseline(TINY_P, TINY_S) == pytest.approx(1.0)


def test_gradient_variance_curve_article_and_identity():
    curve = rlcore.gradient_variance_curve(ARTICLE_P, ARTICLE_S, [0.0, 4.3])
    np.testing.assert_allclose(curve, [20.74, 3.70], atol=0.005)  # the article's figures
    grid = np.linspace(0, 10, 11)
    loop = [rlcore.gradient_stats(ARTICLE_P, ARTICLE_S, b).total_variance for b in grid]
    np.testing.assert_allclose(rlcore.gradient_variance_curve(ARTICLE_P, ARTICLE_S, grid), loop, rtol=1e-12)


def test_gradient_variance_curve_is_lowest_at_the_optimal_baseline():
    b_star = rlcore.optimal_baseline(ARTICLE_P, ARTICLE_S)
    low, mid, high = rlcore.gradient_variance_curve(ARTICLE_P, ARTICLE_S, [b_star - 0.1, b_star, b_star + 0.1])
    assert mid < low and mid < high


# --- baseline_study ----------------------------------------------------------------------------------------------

def test_baseline_study_tiny_case_by_hand():
    # token 1's component: b = 1 gives (0−1)(0−½) = ½ and (2−1)(1−½) = ½: always ½, every draw the right way.
    # b = 0 gives 0 after token 0 and (2)(½) = 1 after token 1: right way only when token 1 was drawn.
    res = rlcore.baseline_study(TINY_P, TINY_S, [0.0, 1.0], 1000, 3, token=1)
    np.testing.assert_allclose(res.mean, [[-0.5, 0.5], [-0.5, 0.5]])
    np.testing.assert_allclose(res.total_variance, [0.5, 0.0], atol=1e-12)
    assert res.variance_ratio.tolist() == pytest.approx([1.0, 0.0])
    assert res.times_less.tolist() == [1.0, np.inf]  # no variance left: infinitely less
    assert res.sample_mean[1] == pytest.approx(0.5)
    assert res.right_direction[1] == 1.0
    assert 0.4 < res.right_direction[0] < 0.6
    assert res.sample_total_variance[1] == pytest.approx(0.0, abs=1e-12)
    # the b = 0 values are 0 or 1 and the b = 1 values all ½: the shares of each row sum to 1
    np.testing.assert_allclose(res.shares.sum(axis=1), [1.0, 1.0])


def test_baseline_study_article():
    v = 4.3
    res = rlcore.baseline_study(ARTICLE_P, ARTICLE_S, [0.0, v], 20_000, 0, token=2)
    np.testing.assert_allclose(res.mean, [[-1.15, 0.21, 0.94]] * 2, atol=1e-12)
    np.testing.assert_allclose(res.total_variance, [20.74, 3.70], atol=0.005)
    assert res.variance_ratio[1] == pytest.approx(0.179, abs=0.0005)
    assert res.times_less[1] == pytest.approx(20.74 / 3.70, rel=0.002)  # the page's "about 5.6 times less"
    # the draws agree with the exact moments (20,000 draws: a few per cent)
    np.testing.assert_allclose(res.sample_total_variance, res.total_variance, rtol=0.05)
    np.testing.assert_allclose(res.sample_mean, [0.94, 0.94], atol=0.05)
    # the running mean ends at the mean of all draws, and has at most 200 points
    np.testing.assert_allclose(res.running[:, -1], res.sample_mean)
    assert res.at[-1] == 20_000 and len(res.at) <= 200
    assert res.right_direction[1] > res.right_direction[0]


def test_baseline_study_shares_draws_across_baselines():
    # common random numbers: g(b) − g(0) = −b(e − π), so the mean of token k's component moves by −b·(share_k − π_k)
    res = rlcore.baseline_study(ARTICLE_P, ARTICLE_S, [0.0, 2.0], 400, 5, token=0)
    actions, _ = rlcore.sample_answers(ARTICLE_P, ARTICLE_S, 400, 5)
    share0 = np.mean(actions == 0)
    assert res.sample_mean[1] - res.sample_mean[0] == pytest.approx(-2.0 * (share0 - 0.5))


@pytest.mark.parametrize("kwargs, word", [
    ({"n": 1, "token": 0}, "n"),
    ({"n": 10, "token": 3}, "token"),
    ({"n": 10, "token": -1}, "token"),
])
def test_baseline_study_rejects_bad_input(kwargs, word):
    rejects(lambda: rlcore.baseline_study(ARTICLE_P, ARTICLE_S, [0.0], rng=0, **kwargs), word)
