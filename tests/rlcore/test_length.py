"""rlcore.length: per-answer push under each aggregation mode, the first-token update, length drift, std bias.

Expected values are worked out by hand in the comments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from rlcore import length as L
from tests.rejects import rejects

MODES = rlcore.AGGREGATION_MODES  # token-mean, seq-mean-token-mean, seq-mean-token-sum, seq-mean-token-sum-norm


def test_length_push_by_hand():
    # answers of 2, 6 and 4 tokens (Σ = 12, n = 3), advantages −1, −1, +2, L_max = 8
    push = L.length_push([2, 6, 4], [-1.0, -1.0, 2.0], max_len=8)
    np.testing.assert_allclose(push.weights, [[1 / 12] * 3,                # 1/Σ|o|
                                              [1 / 6, 1 / 18, 1 / 12],     # 1/(3·|o_i|)
                                              [1 / 3] * 3,                 # 1/3
                                              [1 / 24] * 3])               # 1/(3·8)
    np.testing.assert_allclose(push.per_token[1], [-1 / 6, -1 / 18, 2 / 12])
    # seq-mean-token-mean: every answer's total push is Â/n, whatever its length
    np.testing.assert_allclose(push.per_answer[1], [-1 / 3, -1 / 3, 2 / 3])
    # token-mean: the long wrong answer's total is three times the short one's (6 vs 2 tokens)
    np.testing.assert_allclose(push.per_answer[0], [-2 / 12, -6 / 12, 8 / 12])


def test_matched_steps_make_the_length_blind_modes_equal():
    # L̄ = 4: seq-mean-token-sum 1/3 · 1/4 = 1/12 and the -norm mode 1/24 · 8/4 = 1/12, token-mean's 1/Σ|o|
    push = L.length_push([2, 6, 4], [-1.0, -1.0, 2.0], max_len=8, match_step=True)
    np.testing.assert_allclose(push.weights[[0, 2, 3]], np.full((3, 3), 1 / 12))
    np.testing.assert_allclose(push.weights[1], [1 / 6, 1 / 18, 1 / 12])   # GRPO's weights are unchanged


def test_length_push_agrees_with_token_weights():
    lengths, adv = [3, 1, 5], [0.5, -1.0, 0.25]
    mask = (np.arange(5) < np.array(lengths)[:, None]).astype(float)
    push = L.length_push(lengths, adv, max_len=7)
    for k, mode in enumerate(MODES):
        w = rlcore.token_weights(mask, mode, max_len=7)
        np.testing.assert_allclose(push.weights[k], w.max(axis=1))
        np.testing.assert_allclose(push.per_answer[k], (w * np.array(adv)[:, None]).sum(axis=1))


def test_length_push_over_groups_is_length_push_of_each_group():
    # three groups of the same answers, the first at 1, 5 and 9 tokens; L_max 9 for all, or one per group
    lengths, adv = np.array([[1, 4, 2], [5, 4, 2], [9, 4, 2]]), [1.0, -0.5, -0.5]
    for max_len, each in ((None, (4, 5, 9)), (9, (9, 9, 9)), ([6, 7, 12], (6, 7, 12))):
        groups = L.length_push(lengths, adv, max_len=max_len, match_step=True)
        assert groups.weights.shape == (3, 4, 3)
        for g, top in enumerate(each):
            one = L.length_push(lengths[g], adv, max_len=top, match_step=True)
            for field in ("weights", "per_token", "per_answer"):
                np.testing.assert_allclose(getattr(groups, field)[g], getattr(one, field), rtol=1e-15)
    # by hand, the -norm mode unmatched: 1/(n·L_max) with each group's own L_max
    raw = L.length_push(lengths, adv, max_len=[6, 7, 12])
    np.testing.assert_allclose(raw.weights[:, 3, 0], [1 / 18, 1 / 21, 1 / 36])


@pytest.mark.parametrize(("budget", "match"), [(None, False), (None, True), (30, True), (128, False)])
def test_padded_group_over_an_array_of_lengths_is_padded_group_at_each(budget, match):
    lengths = [*range(2, 61, 2), 41]
    g = L.padded_group(rlcore.ARTICLE_SCENARIO, "open", lengths, "grpo", budget, match)
    assert g.lengths[:, g.index].tolist() == lengths and len(g.harder) == len(lengths)
    for v, n in enumerate(lengths):
        one = L.padded_group(rlcore.ARTICLE_SCENARIO, "open", n, "grpo", budget, match)
        assert g.lengths[v].tolist() == one.lengths.tolist() and g.max_len[v] == one.max_len
        assert g.harder[v] == one.harder
        np.testing.assert_allclose(g.advantages, one.advantages, rtol=1e-15)
        for field in ("weights", "per_token", "per_answer"):
            np.testing.assert_allclose(getattr(g.push, field)[v], getattr(one.push, field), rtol=1e-12)
    assert g.max_len[lengths.index(40)] == (40 if budget in (None, 30) else budget)  # L_max: the budget, or the longest


def test_length_step_by_hand():
    # π = (½, ½); a short wrong answer (1 token, Â = −1) and a long right one (3 tokens, Â = +1), G = 2.
    # token-mean: c = 1/4 each → z moves by −¼(½, −½) + ¼(−½, ½) = (−¼, ¼)
    z = L.length_step([[0.0, 0.0]], [[0, 1]], [[-1.0, 1.0]], [1, 3], "token-mean", 1.0)
    np.testing.assert_allclose(z, [[-0.25, 0.25]])
    # seq-mean-token-sum: c = 1/2 each → (−½, ½); with η = 2 → (−1, 1)
    z = L.length_step([[0.0, 0.0]], [[0, 1]], [[-1.0, 1.0]], [1, 3], "seq-mean-token-sum", 2.0)
    np.testing.assert_allclose(z, [[-1.0, 1.0]])
    # two runs at once, the second with the answers swapped: seq-mean-token-mean c = 1/2 (short), 1/6 (long)
    z = L.length_step([[0.0, 0.0], [0.0, 0.0]], [[0, 1], [1, 0]], [[-1.0, 1.0], [-1.0, 1.0]], [1, 3],
                      "seq-mean-token-mean", 1.0)
    np.testing.assert_allclose(z[0], [-1 / 3, 1 / 3])
    # run 2: long wrong (−1/6·(−½, ½)) + short right (½·(½, −½)) = (1/12 + 1/4, −1/12 − 1/4) = (1/3, −1/3)
    np.testing.assert_allclose(z[1], [1 / 3, -1 / 3])


def test_equal_lengths_make_every_matched_mode_the_same_run():
    # all answers 5 tokens: every mode's token weight is 1/(G·5) once the step is matched
    runs = L.length_training((0.5, 0.3, 0.2), ((1, 2), (5,), (9, 7)), (5, 5, 5), modes=MODES, group_size=4, lr=1.0,
                             steps=20, n_runs=3, seed=7, max_len=11)
    for r in runs[1:]:
        np.testing.assert_allclose(r.probs, runs[0].probs, atol=1e-12)
        np.testing.assert_allclose(r.mean_length, 5.0)


def test_a_one_token_policy_never_moves():
    (r,) = L.length_training((1.0, 0.0), ((2, 4), (9,)), (3, 8), modes=("seq-mean-token-mean",), lr=5.0, steps=10,
                             seed=1)
    np.testing.assert_allclose(r.mean_length, 3.0)   # only the first candidate is ever drawn
    np.testing.assert_allclose(r.mean_score, 3.0)    # Q = (2 + 4)/2


def test_with_long_version_by_hand():
    p, s, lens = L.with_long_version((0.5, 0.3, 0.2), ((3, 1), (5,), (9,)), (10, 14, 8), 0, 40)
    assert p == (0.25, 0.3, 0.2, 0.25) and s[-1] == (3.0, 1.0) and lens == (10, 14, 8, 40)


def test_padded_wrong_answer_wins_only_under_seq_mean_token_mean():
    # the article's example: `open` (Q = 2 < V = 4.3) is wrong; its padded version has 40 tokens, 4× the 10 of
    # the short one, so under seq-mean-token-mean each of its tokens is pushed down 4× less.
    s = rlcore.ARTICLE_SCENARIO
    kw = dict(lr=2.0, steps=40, n_runs=64, seed=0, max_len=64)
    biased, blind = L.length_drifts(s.probs, s.samples, (10, 14, 8), 0, 40,
                                    modes=("seq-mean-token-mean", "seq-mean-token-sum"), **kw)
    assert biased.long_share[0] == blind.long_share[0] == 0.5
    assert biased.long_share[-1] > 0.6 > blind.long_share[-1] > 0.4
    # `partly` (Q = 9) is right: its padded version loses under seq-mean-token-mean
    (right,) = L.length_drifts(s.probs, s.samples, (10, 14, 8), 2, 40, modes=("seq-mean-token-mean",), **kw)
    assert right.long_share[-1] < 0.3


@pytest.mark.parametrize("method, match", [("grpo", True), ("dr_grpo", False)])
def test_all_modes_in_one_pass_are_the_runs_of_one_call_each(method, match):
    # the page's four curves come from one pass; each must be, number for number, the run of a call for it alone
    s = rlcore.ARTICLE_SCENARIO
    kw = dict(method=method, group_size=5, lr=1.5, steps=25, n_runs=12, seed=3, max_len=90, match_step=match)
    modes = ("seq-mean-token-sum-norm", "token-mean", "seq-mean-token-mean")  # not the usual order
    together = L.length_drifts(s.probs, s.samples, (10, 14, 8), 1, 30, modes=modes, **kw)
    assert len(together) == len(modes)
    for mode, run in zip(modes, together, strict=True):
        (alone,) = L.length_drifts(s.probs, s.samples, (10, 14, 8), 1, 30, modes=(mode,), **kw)
        for got, expected in zip(vars(run).values(), vars(alone).values(), strict=True):
            np.testing.assert_array_equal(got, expected)
    assert not np.array_equal(together[0].long_share, together[2].long_share)  # the modes do differ

def test_difficulty_curve_by_hand():
    # G = 4 binary scores, k right. Dr. GRPO: right 1 − k/4, wrong −k/4.
    dr = L.difficulty_curve(4, "dr_grpo")
    assert dr.n_right.tolist() == [1, 2, 3]
    np.testing.assert_allclose(dr.right, [0.75, 0.5, 0.25])
    np.testing.assert_allclose(dr.wrong, [-0.25, -0.5, -0.75])
    np.testing.assert_allclose(dr.total, [1.5, 2.0, 1.5])   # k(1 − k/4) + (4 − k)k/4
    # GRPO divides by the std (N − 1): k = 1: var = (0.75² + 3·0.25²)/3 = 0.25 → std ½ → right 1.5;
    # k = 2: var = 4·0.25/3 = 1/3 → std 0.5774 → right 0.866
    gr = L.difficulty_curve(4, "grpo")
    np.testing.assert_allclose(gr.right, [1.5, 0.5 / math.sqrt(1 / 3), 0.5], rtol=1e-5)
    np.testing.assert_allclose(gr.scale, [2.0, 1 / math.sqrt(1 / 3), 2.0], rtol=1e-5)  # 1/std: lopsided ×2
    np.testing.assert_allclose(dr.scale, [1.0, 1.0, 1.0])
    np.testing.assert_allclose(L.difficulty_curve(4, "rloo").scale, [4 / 3] * 3)  # RLOO: G/(G−1)·(s − mean)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: L.length_push([0, 2], [1, -1]), "lengths"),
    (lambda: L.length_push([1, 2], [1]), "lengths"),
    (lambda: L.length_push([1, 9], [1, -1], max_len=5), "max_len"),
    (lambda: L.length_push([[1, 9], [1, 2]], [1, -1], max_len=[9, 1]), "max_len"),
    (lambda: L.length_push([[1, 9], [1, 2]], [1, -1], max_len=[9, 9, 9]), "max_len"),
    (lambda: L.length_push(3, [1]), "lengths"),
    (lambda: L.padded_group(rlcore.ARTICLE_SCENARIO, "open", [1.5, 2.5, 3.5]), "long_length"),
    (lambda: L.padded_group(rlcore.ARTICLE_SCENARIO, "open", [1, 10**6]), "long_length"),
    (lambda: L.padded_group(rlcore.ARTICLE_SCENARIO, "open", [0, 2]), "long_length"),
    (lambda: L.padded_group(rlcore.ARTICLE_SCENARIO, "open", [1, 2, 3], budget=0), "budget"),
    (lambda: L.padded_group(rlcore.ARTICLE_SCENARIO, "maybe", [1, 2, 3]), "token"),
    (lambda: L.length_step([[0.0, 0.0]], [[0, 2]], [[1.0, -1.0]], [1, 2], "token-mean", 1.0), "actions"),
    (lambda: L.length_step([[0.0, 0.0]], [[0, 1]], [[1.0, -1.0]], [1, 2], "mean", 1.0), "mode"),
    (lambda: L.length_training((0.5, 0.5), ((1,), (2,)), (1, 2), group_size=1), "group_size"),
    (lambda: L.length_training((0.5, 0.5), ((1,), (2,)), (1, 2), method="x"), "method"),
    (lambda: L.length_training((0.5, 0.5), ((1,), (2,)), (1, 2), modes=("x",)), "modes"),
    (lambda: L.with_long_version((0.5, 0.5), ((1,), (2,)), (1, 2), 2, 5), "index"),
    (lambda: L.with_long_version((0.5, 0.5), ((1,), (2,)), (1, 2), 0, 0), "long_length"),
    (lambda: L.difficulty_curve(1, "grpo"), "group_size"),
    (lambda: L.length_drifts((0.5, 0.5), ((1,), (2,)), (1, 2), 0, 3, modes="token-mean"), "modes"),
    (lambda: L.length_drifts((0.5, 0.5), ((1,), (2,)), (1, 2), 0, 3, modes=()), "modes"),
    (lambda: L.length_drifts((0.5, 0.5), ((1,), (2,)), (1, 2), 0, 3, modes=("token-mean", "x")), "modes"),
])
def test_errors_name_the_argument(call, name):
    rejects(lambda: call(), rf"^{name}")


# ---- the running example padded (page 10's studies)

ARTICLE = rlcore.ARTICLE_SCENARIO  # open, closed, partly: answers of 10, 14 and 8 tokens; Q = 2, 5, 9


def test_answer_lengths_and_padding_choices_of_the_article():
    # "OpenAI is open. It's in the name." is OpenAI · is · open · . · It · 's · in · the · name · . = 10 tokens
    assert L.answer_lengths(ARTICLE) == (10, 14, 8)
    assert L.padding_choices(ARTICLE) == L.PaddingChoices(worst="open", best="partly")
    tie = rlcore.Scenario(tokens=("a", "b", "c"), probs=(0.2, 0.3, 0.5), samples=((1,), (1,), (4,)))
    assert L.padding_choices(tie).worst == "a"                       # a tie: the first of them


def test_padded_group_by_hand():
    g = L.padded_group(ARTICLE, "open", 40)        # open padded to 40 tokens, beside 14 and 8: Σ = 62, G = 3
    assert g.lengths.tolist() == [40, 14, 8] and g.index == 0 and g.own_length == 10 and g.max_len == 40
    np.testing.assert_allclose(g.push.weights[0], [1 / 62] * 3)                   # token-mean: 1/Σ|o|
    np.testing.assert_allclose(g.push.weights[1], [1 / 120, 1 / 42, 1 / 24])      # 1/(G·|o_i|)
    # GRPO over Q = 2, 5, 9: mean 16/3, std (N − 1) = √((10/3)² + (1/3)² + (11/3)²)/√2 = √(222/9/2) = √(37/3)
    std = math.sqrt(37 / 3)
    np.testing.assert_allclose(g.advantages, (np.array([2, 5, 9]) - 16 / 3) / (std + 1e-6), rtol=1e-9)
    assert g.harder == "token-mean"                                              # 1/62 > 1/120


@pytest.mark.parametrize(("n", "harder"), [(2, "seq-mean-token-mean"), (11, None), (70, "token-mean")])
def test_padded_group_says_which_mode_pushes_harder(n, harder):
    # per token 1/(n + 22) under token-mean against 1/(3n) under seq-mean-token-mean: equal at n = 11
    assert L.padded_group(ARTICLE, "open", n).harder == harder


def test_padded_group_raises_a_budget_below_the_longest_answer():
    assert L.padded_group(ARTICLE, "open", 40, budget=10).max_len == 40         # 10 < 40 tokens: 40 is used
    g = L.padded_group(ARTICLE, "open", 40, budget=100)
    assert g.max_len == 100
    np.testing.assert_allclose(g.push.weights[3], [1 / 300] * 3)                 # 1/(G·L_max), unmatched
    rejects(lambda: L.padded_group(ARTICLE, "open", 40, budget=0), "budget")
    rejects(lambda: L.padded_group(ARTICLE, "nope", 40), "token")


def test_padded_drift_is_length_drifts_on_the_article():
    kw = dict(method="grpo", steps=5, lr=2.0, group_size=4, n_runs=3, seed=1, max_len=40)
    d = L.padded_drift(ARTICLE, "closed", 40, **kw)
    runs = L.length_drifts(ARTICLE.pi, ARTICLE.samples, [10, 14, 8], 1, 40, **kw)
    assert d.modes == MODES and d.long_share.shape == (4, 6)
    for j, run in enumerate(runs):
        np.testing.assert_allclose(d.long_share[j], run.long_share, rtol=1e-12)
        np.testing.assert_allclose(d.mean_length[j], run.mean_length, rtol=1e-12)
    np.testing.assert_allclose(d.long_share[:, 0], 0.5)                # both versions start at half of π(closed)
    # before any step the mean length is 0.5·10 + 0.15·14 + 0.15·40 + 0.2·8 = 14.7
    np.testing.assert_allclose(d.mean_length[:, 0], 14.7)
