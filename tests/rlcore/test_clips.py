"""rlcore.clips: how far one batch can move a token, and what each clip leaves of a moved batch.

Expected values are worked out by hand in the comments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlcore import clips

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
    with pytest.raises(ValueError, match=r"^p_old"):
        clips.reach([1.2], 0.2)
    with pytest.raises(ValueError, match=r"^eps_high"):
        clips.reach([0.5], 0.2, 0.0)


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
    with pytest.raises(ValueError, match=f"^{name}"):
        clips.clip_batch(**args)
