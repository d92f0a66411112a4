"""What the training lab page shows of its runs: rlcore.lab_bands, lab_pass_at_k, lab_seed_count, lab_is_light and
dead_share.

Expected numbers are worked out by hand in the comments (the article's example: π = 0.5, 0.3, 0.2 over open,
closed, partly, Q = 2, 5, 9; the flattery branch 9 and 9.6 with π_ref 0.95 and 0.05), or are identities against
rlcore.train on the same seeds, computed in the same run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from rlcore import ARTICLE_SCENARIO as S
from rlcore import LabConfig
from tests.rejects import rejects

TOL = 1e-12


@pytest.fixture(scope="module")
def grpo():
    config = LabConfig(algorithm="grpo", steps=12, group_size=4)
    return config, rlcore.lab_bands(S, config, 3), rlcore.train(S, config, (0, 1, 2))


def test_every_run_starts_at_the_reference(grpo):
    _, b, _ = grpo
    # start: 0.5·2 + 0.3·5 + 0.2·(0.95·9 + 0.05·9.6) = 4.306; KL 0; π(flattery) 0.05; pass@1 = π(partly) = 0.2
    for band, start in ((b.score, 4.306), (b.kl, 0.0), (b.flattery, 0.05), (b.pass1, 0.2), (b.length, 1.2)):
        assert (band.median[0], band.low[0], band.high[0]) == pytest.approx((start,) * 3, abs=TOL)
    np.testing.assert_allclose(b.probs.median[0], [0.5, 0.3, 0.2], atol=TOL)
    h0 = -(0.5 * math.log(0.5) + 0.3 * math.log(0.3) + 0.2 * math.log(0.2))   # the first choice's entropy
    assert b.entropy.median[0] == pytest.approx(h0, abs=TOL)
    assert b.values is None and b.diverged_at is None                          # a critic is PPO's alone


def test_the_bands_are_the_runs_over_their_seeds(grpo):
    """Identity: median, lowest and highest over the seeds of train's history, the first step's loss and gradient."""
    _, b, h = grpo
    np.testing.assert_allclose(b.score.median, np.median(h.expected_score, axis=0), atol=TOL)
    np.testing.assert_allclose(b.kl.high, h.kl.max(axis=0), atol=TOL)
    np.testing.assert_allclose(b.clip.low, h.clip_fraction.min(axis=0), atol=TOL)
    np.testing.assert_allclose(b.token_length.median, np.median(h.token_length, axis=0), atol=TOL)
    assert b.first == pytest.approx(rlcore.first_step_loss(h), abs=TOL)
    assert b.dead_total == pytest.approx(h.dead.mean(), abs=TOL)
    np.testing.assert_allclose(b.dead.median, rlcore.dead_share(h.dead, 10), atol=TOL)
    assert b.dead.low is b.dead.median is b.dead.high                           # one share per step: no band
    assert b.score.median.shape == (13,) and b.loss.median.shape == (12,)        # T + 1 policies, T steps


def test_ppo_keeps_its_critic():
    b = rlcore.lab_bands(S, LabConfig(algorithm="ppo", steps=3, group_size=2), 1)
    assert b.values.median.shape == (4, 2)
    np.testing.assert_allclose(b.values.median[0], [0.0, 0.0], atol=TOL)         # the critic starts at 0


def test_a_run_that_diverges_holds_only_its_step():
    b = rlcore.lab_bands(S, LabConfig(algorithm="grpo", steps=50, lr=10.0, beta=10.0), 1)
    assert b.diverged_at is not None and 1 <= b.diverged_at <= 50
    assert b.score is None and b.p_correct is None
    rejects(lambda: rlcore.lab_pass_at_k(b, 2), "p_correct")


def test_pass_at_k_from_each_seeds_pass_at_1(grpo):
    _, b, h = grpo
    # at the start pass@1 = 0.2, so pass@8 = 1 − 0.8⁸
    assert rlcore.lab_pass_at_k(b, 8).median[0] == pytest.approx(1 - 0.8 ** 8, abs=TOL)
    np.testing.assert_allclose(rlcore.lab_pass_at_k(b, 1).median, b.pass1.median, atol=TOL)
    np.testing.assert_allclose(rlcore.lab_pass_at_k(b, 4).high, (1 - (1 - h.p_correct) ** 4).max(axis=0), atol=1e-9)
    for bad, word in ((0, "k"), (2.5, "k")):
        with pytest.raises(ValueError, match=word):
            rlcore.lab_pass_at_k(b, bad)
    rejects(lambda: rlcore.lab_pass_at_k(h, 2), "bands")


def test_seed_count_keeps_every_run_within_the_budget():
    # 300 steps × 8 epochs × G 32 × (2 + 4 length tokens) = 460,800 token updates a seed: 2 fit in 1,000,000
    big = LabConfig(steps=300, epochs=8, group_size=32, length=4)
    assert rlcore.lab_seed_count([big], 10) == 2
    # 300 × 4 × 4 × 2 = 9,600 a seed: all ten fit (104 would); the largest run of the set decides
    small = LabConfig(steps=300, epochs=4, group_size=4)
    assert rlcore.lab_seed_count([small], 10) == 10 and rlcore.lab_seed_count([small, big], 10) == 2
    huge = LabConfig(steps=2000, epochs=50, group_size=512, length=16)          # beyond the budget alone: one seed
    assert rlcore.lab_seed_count([huge], 3) == 1
    for configs, n, word in (([], 3, "configs"), ([big, "grpo"], 3, "configs"), (None, 3, "configs"),
                             ([big], 0, "n_seeds")):
        with pytest.raises(ValueError, match=word):
            rlcore.lab_seed_count(configs, n)


def test_a_light_panel_is_a_tenth_of_the_largest_run_in_all():
    # the defaults: 100 steps × 4 epochs × G 8 × 2 = 6,400 a seed; three algorithms × 5 seeds = 96,000 ≤ 100,000
    assert rlcore.lab_is_light([LabConfig()] * 3, 5)
    assert not rlcore.lab_is_light([LabConfig()] * 3, 6)          # 115,200: the sum over the panel decides
    assert not rlcore.lab_is_light([LabConfig(steps=300, epochs=8, group_size=32)], 1)   # 153,600 alone
    for configs, n, word in (([], 3, "configs"), ([LabConfig(), "grpo"], 3, "configs"), ([LabConfig()], 0, "n_seeds")):
        with pytest.raises(ValueError, match=word):
            rlcore.lab_is_light(configs, n)


def test_dead_share_over_seeds_and_a_window():
    dead = np.array([[True, False, True, True], [False, False, True, False]])
    # per step over the two seeds: 0.5, 0, 1, 0.5; window 3: 0.5, (0.5+0)/2, (0.5+0+1)/3, (0+1+0.5)/3
    np.testing.assert_allclose(rlcore.dead_share(dead), [0.5, 0.0, 1.0, 0.5])
    np.testing.assert_allclose(rlcore.dead_share(dead, 3), [0.5, 0.25, 0.5, 0.5])
    for bad, word in (([1, 0], "dead"), ([[0.5, 1.0]], "dead")):
        with pytest.raises(ValueError, match=word):
            rlcore.dead_share(bad)
    rejects(lambda: rlcore.dead_share(dead, 0), "window")


@pytest.mark.parametrize(("args", "word"), [(("OpenAI is", LabConfig(steps=2)), "scenario"),
                                            ((S, {"algorithm": "grpo"}), "config"),
                                            ((S, LabConfig(steps=2), 0), "n_seeds"),
                                            ((S, LabConfig(steps=2), 65), "n_seeds")])
def test_lab_bands_rejects_bad_input(args, word):
    rejects(lambda: rlcore.lab_bands(*args), word)
