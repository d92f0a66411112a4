"""rlcore.clips: how far one batch can move a token, and what each clip leaves of a moved batch.

Expected values are worked out by hand in the comments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from rlcore import clips
from tests.rejects import rejects

# Two tokens at 1/2 each with Q = 0 and 2 (V = 1). One step of η = ln 3 adds η·π·(Q − V) = ∓(ln 3)/2 to the
# logits, so π becomes (e^(−η/2), e^(η/2)) / (sum) = (1/(1+3), 3/(1+3)) = (0.25, 0.75): ratios 0.5 and 1.5.
# Dr. GRPO advantages of the scores (0, 2): −1, +1. The second answer has 4 tokens: s = 1.5^(1/4).
PROBS, SAMPLES, LENGTHS, LR = (0.5, 0.5), ((0.0,), (2.0,)), (1, 4), math.log(3)


def toy(**kw):
    args = dict(lr=LR, eps_low=0.2, eps_high=0.6, gspo_eps=(0.2, 0.2), method="dr_grpo") | kw
    return clips.clip_batch(PROBS, SAMPLES, LENGTHS, **args)


def test_reach_by_hand():
    r = clips.reach([0.01, 0.9, 0.0], 0.2)
    np.testing.assert_allclose(r.low, [0.008, 0.72, 0.0])          # (1 − 0.2)·π_old
    np.testing.assert_allclose(r.high, [0.012, 1.0, 0.0])          # 1.2·0.9 = 1.08, capped at 1
    np.testing.assert_allclose(r.rise, [0.002, 0.1, 0.0], atol=1e-15)
    np.testing.assert_allclose(clips.reach([0.01], 0.2, 0.28).high, [0.0128])  # DAPO's clip-higher


def test_reach_errors():
    rejects(lambda: clips.reach([1.2], 0.2), r"^p_old")
    rejects(lambda: clips.reach([0.5], 0.2, 0.0), r"^eps_high")


def test_the_step_and_the_ratios():
    b = toy()
    np.testing.assert_allclose(b.p_new, [0.25, 0.75])
    np.testing.assert_allclose(b.ratio, [0.5, 1.5])
    np.testing.assert_allclose(b.advantages, [-1.0, 1.0])
    np.testing.assert_allclose(b.seq_ratio, [0.5, 1.5 ** 0.25])   # geometric mean with three ratios of 1
    assert b.lengths.tolist() == [1, 4] and b.actions.tolist() == [0, 1]


def test_weights_of_each_method_by_hand():
    b = toy()
    ppo, higher, cispo, gspo = b.weights
    np.testing.assert_allclose(ppo, [0.0, 0.0])          # 0.5 < 0.8 with Â < 0; 1.5 > 1.2 with Â > 0
    np.testing.assert_allclose(higher, [0.0, 1.5])       # 1.5 ≤ 1 + 0.6: ρ·Â = 1.5
    np.testing.assert_allclose(cispo, [-0.8, 1.5])       # clip(0.5, 0.8, 1.6)·(−1); clip(1.5, 0.8, 1.6)·1
    np.testing.assert_allclose(gspo, [0.0, 1.5 ** 0.25])  # s = 0.5 < 0.8 dropped; 1.107 ≤ 1.2 kept
    assert b.clipped.tolist() == [[True, True], [True, False], [False, False], [True, False]]
    np.testing.assert_allclose(toy(eps_high=0.28).weights[2], [-0.8, 1.28])  # CISPO caps, never drops


def test_no_step_leaves_every_ratio_at_one():
    b = toy(lr=0.0)
    np.testing.assert_allclose(b.ratio, [1.0, 1.0])
    for w in b.weights:  # nothing moved, so every method gives each answer its advantage
        np.testing.assert_allclose(w, [-1.0, 1.0])
    assert not b.clipped.any()


def test_answers_of_an_impossible_token_are_left_out():
    b = clips.clip_batch((1.0, 0.0), ((1.0, 3.0), (9.0,)), (2, 2), lr=0.5, method="dr_grpo")
    assert b.actions.tolist() == [0, 0]
    np.testing.assert_allclose(b.advantages, [-1.0, 1.0])  # scores 1 and 3 against their mean 2; the 9 is gone


@pytest.mark.parametrize(("kw", "name"), [
    (dict(lengths=(1, 0)), "lengths"), (dict(lengths=(1,)), "lengths"), (dict(lengths=(1.5, 2)), "lengths"),
    (dict(eps_low=1.0), "eps_low"), (dict(eps_high=-1), "eps_high"), (dict(gspo_eps=(0.0, 1.0)), "gspo_eps"),
    (dict(method="ppo"), "method"), (dict(lr=-1), "lr"), (dict(probs=(0.5, 0.6)), "probs"),
])
def test_clip_batch_errors(kw, name):
    args = dict(probs=PROBS, samples=SAMPLES, lengths=LENGTHS, lr=0.1) | kw
    rejects(lambda: clips.clip_batch(**args), f"^{name}")


# ---- page 11's studies: the batch read for the page, CISPO at one ratio, the rare token's reach

# the toy above as a scenario: answers "a" (1 token) and "b c d e" (4 tokens)
TOY = rlcore.Scenario(tokens=("a", "b"), probs=PROBS, samples=SAMPLES, prefix="", continuations=("", " c d e"))


def test_clip_study_of_the_toy_by_hand():
    c = clips.clip_study(TOY, lr=LR, eps_low=0.2, eps_high=0.6, gspo_high=0.2, method="dr_grpo")
    assert c.answer_lengths.tolist() == [1, 4] and c.sampled.tolist() == [True, True]
    assert c.best == 1 and not c.dead                                    # Â = −1, +1
    assert c.edges == pytest.approx((0.8, 1.2, 1.6))
    # ρ = 0.5, 1.5. PPO (0.8, 1.2): both past their side. clip-higher (0.8, 1.6): the first only. CISPO: none.
    # GSPO (0.15, 0.2): s = 0.5 (stopped, Â < 0) and 1.5^(1/4) = 1.107 < 1.2 (kept)
    assert c.kept.tolist() == [0, 1, 2, 1]
    assert c.moved.tolist() == [0, 1]
    np.testing.assert_allclose(c.moved_ratio, [0.5, 1.5])
    assert c.moved_seq_ratio == pytest.approx(math.sqrt(0.75))           # √(0.5 · 1.5)
    batch = toy(gspo_eps=(0.15, 0.2))                                    # the same batch as clip_batch's
    np.testing.assert_allclose(c.batch.weights, batch.weights)


def test_clip_study_of_a_flat_scenario_is_dead():
    flat = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((5,), (5,)))
    c = clips.clip_study(flat, lr=0.5)
    assert c.dead and c.kept.tolist() == [2, 2, 2, 2]                    # Â = 0: nothing to stop
    np.testing.assert_allclose(c.moved_ratio, 1.0)                       # equal Q: π does not move


def test_clip_study_names_its_own_arguments():
    rejects(lambda: clips.clip_study(TOY, lr=0.1, gspo_high=0.0), "gspo_high")
    rejects(lambda: clips.clip_study("abc", lr=0.1), "scenario")


@pytest.mark.parametrize(("rho", "weight", "ppo", "cap"), [
    (1.3, 1.28, 0.0, "upper"),    # above 1 + 0.28: CISPO capped, PPO (Â > 0) keeps nothing
    (0.5, 0.8, 0.5, "lower"),     # below 1 − 0.2: CISPO lifted to 0.8; PPO keeps ρ·Â (Â > 0 is not clipped below)
    (1.1, 1.1, 1.1, None),        # inside the range
])
def test_cispo_at_by_hand(rho, weight, ppo, cap):
    w = clips.cispo_at(rho, 0.2, 0.28)
    assert w.weight == pytest.approx(weight) and w.ppo_weight == pytest.approx(ppo) and w.cap == cap
    rejects(lambda: clips.cispo_at(-1.0), "rho")


def test_rare_reach_by_hand():
    r = clips.rare_reach([0.5, 0.0, 0.5], 0.01, 0.2, 0.28)
    # 0.01 · 1.2 = 0.012 (+0.002); · 1.28 = 0.0128 (+0.0028); 0.9 · 1.2 = 1.08, capped at 1 (+0.1)
    np.testing.assert_allclose([r.sym.high[0], r.sym.rise[0]], [0.012, 0.002])
    np.testing.assert_allclose([r.higher.high[0], r.higher.rise[0]], [0.0128, 0.0028])
    np.testing.assert_allclose([r.likely.high[0], r.likely.rise[0]], [1.0, 0.1])
    assert r.grid.size == 201 and r.grid[0] == 0 and r.grid[-1] == 1 and r.grid[1] == pytest.approx(0.005)
    np.testing.assert_allclose(r.grid_sym.rise, np.minimum(1.2 * r.grid, 1) - r.grid, atol=1e-15)
    np.testing.assert_allclose(r.grid_higher.rise, np.minimum(1.28 * r.grid, 1) - r.grid, atol=1e-15)
    assert r.marked.tolist() == [0, 2]                                   # the token at 0 is not marked
    np.testing.assert_allclose(r.marks_old, [0.5, 0.5, 0.01])
    np.testing.assert_allclose(r.marks.rise, [0.1, 0.1, 0.002])          # 0.5 · 0.2; the rare token last
    rejects(lambda: clips.rare_reach([1.0], 1.5, 0.2, 0.28), "rare")


def test_gradient_weights_over_an_array_of_eps_high_by_hand():
    # ρ = 1.25 with Â = 1: PPO stops it at ε_high = 0.2 (past 1.2), keeps it at 0.3; CISPO caps it at 1.2, not at 0.3
    rho, adv = np.array([1.25, 0.7, 1.0]), np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(rlcore.gradient_weights(rho, adv, "ppo", 0.2, [[0.2], [0.3]]),
                               [[0.0, 0.0, 0.5], [1.25, 0.0, 0.5]], atol=1e-15)  # 0.7 < 0.8, Â < 0: stopped
    np.testing.assert_allclose(rlcore.gradient_weights(rho, adv, "cispo", 0.2, [[0.2], [0.3]]),
                               [[1.2, -1.6, 0.5], [1.25, -1.6, 0.5]], atol=1e-15)
    rejects(lambda: rlcore.gradient_weights(rho, adv, "ppo", 0.2, [[0.2], [0.0]]), "eps_high")
    rejects(lambda: rlcore.gradient_weights(rho, adv, "ppo", 0.2, [0.2, 0.3]), "eps_high")  # 2 against 3 tokens


def test_clip_study_over_an_array_of_eps_high_is_clip_study_at_each():
    highs = [round(0.05 + 0.05 * i, 12) for i in range(12)] + [0.33]
    for lr in (0.1, 0.6):
        w = clips.clip_study(rlcore.ARTICLE_SCENARIO, lr=lr, eps_low=0.15, eps_high=highs)
        for i, e in enumerate(highs):  # a plain loop over the scalar study
            own = clips.clip_study(rlcore.ARTICLE_SCENARIO, lr=lr, eps_low=0.15, eps_high=e)
            np.testing.assert_allclose(w.batch.weights[i], own.batch.weights, rtol=0, atol=1e-15)
            assert w.batch.clipped[i].tolist() == own.batch.clipped.tolist()
            assert w.kept[i].tolist() == own.kept.tolist() and w.edges[2][i] == own.edges[2]
    rejects(lambda: clips.clip_study(rlcore.ARTICLE_SCENARIO, lr=0.2, eps_high=[0.0, 0.1]), "eps_high")
    rejects(lambda: clips.clip_study(rlcore.ARTICLE_SCENARIO, lr=0.2, eps_high=[[0.1]]), "eps_high")
