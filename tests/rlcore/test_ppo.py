"""rlcore.ppo additions: the sampled answers as one PPO batch (hand-checked against the article)."""

from __future__ import annotations

import numpy as np
import pytest

import rlcore


def test_batch_advantages_are_the_articles_r_minus_v():
    s = rlcore.ARTICLE_SCENARIO
    batch = rlcore.batch_advantages(s.pi, s.samples)
    assert batch.value == pytest.approx(4.3)  # 0.5·2 + 0.3·5 + 0.2·9
    assert batch.actions.tolist() == [0] * 5 + [1] * 3 + [2] * 2
    assert batch.scores.tolist() == [3, 1, 2, 1, 3, 5, 4, 6, 10, 8]
    # the article: the five `open` answers get −1.3, −3.3, −2.3, −3.3, −1.3
    np.testing.assert_allclose(batch.advantages[:5], [-1.3, -3.3, -2.3, -3.3, -1.3])
    np.testing.assert_allclose(batch.advantages[5:], [0.7, -0.3, 1.7, 5.7, 3.7])


def test_batch_advantages_use_the_policy_not_the_sample_counts():
    # Q = (2, 6); with π = (0.75, 0.25) V = 1.5 + 1.5 = 3, not the plain mean of the three scores
    batch = rlcore.batch_advantages([0.75, 0.25], [[1, 3], [6]])
    assert batch.value == pytest.approx(3.0)
    np.testing.assert_allclose(batch.advantages, [-2.0, 0.0, 3.0])


def test_batch_advantages_feed_ppo_epochs():
    s = rlcore.ARTICLE_SCENARIO
    batch = rlcore.batch_advantages(s.pi, s.samples)
    run = rlcore.ppo_epochs(s.pi, batch.actions, batch.advantages, lr=0.1, epochs=1)
    # one step: Δz = 0.1 · Σ Aₙ(e_aₙ − π)/10, Σ A per token = (−11.5, 2.1, 9.4), Σ A = 0
    z = np.log([0.5, 0.3, 0.2]) + 0.01 * np.array([-11.5, 2.1, 9.4])
    np.testing.assert_allclose(run.probs[1], np.exp(z) / np.exp(z).sum(), atol=1e-12)
