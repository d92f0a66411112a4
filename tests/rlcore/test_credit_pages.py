"""The TD error / GAE page's studies: a sampled group's credit and the critic's error (hand-computed values)."""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from rlcore import CriticErrorStudy, Scenario, group_credit
from tests.rejects import rejects

SURE = Scenario(tokens=("a", "b"), probs=(1.0, 0.0), samples=((4.0,), (7.0,)))
HALF = Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((2.0,), (6.0,)))


def test_group_credit_one_sure_token_is_a_dead_group():
    grp = group_credit(SURE, "a", 3)
    assert grp.actions.tolist() == [0, 0, 0]
    assert grp.scores.tolist() == [4.0, 4.0, 4.0]
    assert grp.advantages.tolist() == [0.0, 0.0, 0.0]
    assert grp.members.tolist() == [0, 1, 2]
    assert grp.dead


def test_group_credit_picks_out_no_answer_for_a_token_never_sampled():
    grp = group_credit(SURE, "b", 4)
    assert grp.members.tolist() == []
    assert grp.dead


def test_group_of_one_carries_no_signal():
    grp = group_credit(HALF, "a", 1, seed=3)
    assert grp.dead and grp.advantages.tolist() == [0.0]


def test_group_credit_dr_grpo_is_score_minus_group_mean():
    grp = group_credit(HALF, "a", 10, "dr_grpo", seed=1)
    n_a = int((grp.actions == 0).sum())
    assert 0 < n_a < 10  # both tokens drawn with this seed
    mean = (2.0 * n_a + 6.0 * (10 - n_a)) / 10
    assert grp.scores.tolist() == [2.0 if x == 0 else 6.0 for x in grp.actions]
    np.testing.assert_allclose(grp.advantages, np.where(grp.actions == 0, 2.0 - mean, 6.0 - mean))
    assert grp.members.tolist() == [i for i, x in enumerate(grp.actions) if x == 0]
    assert not grp.dead


def test_group_credit_rloo_compares_with_the_other_answers():
    grp = group_credit(HALF, "b", 4, "rloo", seed=5)
    for i, s in enumerate(grp.scores):
        others = np.delete(grp.scores, i)
        assert grp.advantages[i] == pytest.approx(s - others.mean())


def test_group_credit_is_reproducible_per_seed():
    a = group_credit(rlcore.ARTICLE_SCENARIO, "open", 16, seed=7)
    b = group_credit(rlcore.ARTICLE_SCENARIO, "open", 16, seed=7)
    c = group_credit(rlcore.ARTICLE_SCENARIO, "open", 16, seed=8)
    assert a.scores.tolist() == b.scores.tolist()
    assert a.scores.tolist() != c.scores.tolist()


@pytest.mark.parametrize(("args", "name"), [
    (("nope", 4), "token"),
    (("a", 0), "group_size"),
    (("a", 2.5), "group_size"),
    (("a", 4, "ppo"), "method"),
    (("a", 4, "grpo", -1), "seed"),
])
def test_group_credit_rejects_bad_input(args, name):
    rejects(lambda: group_credit(HALF, *args), name)


def test_critic_error_study_parts():
    study = CriticErrorStudy(lams=np.array([0.0, 0.5, 1.0]), bias=np.array([1.0, -0.5, 0.2]),
                             variance=np.array([0.0, 0.5, 1.0]), mse=np.array([1.0, 0.75, 1.04]),
                             true_advantage=-2.3)
    np.testing.assert_allclose(study.bias_squared, [1.0, 0.25, 0.04])
    assert study.best_lam == 0.5


def test_critic_error_study_best_lam_takes_the_first_tie():
    study = CriticErrorStudy(lams=np.array([0.2, 0.4]), bias=np.zeros(2), variance=np.ones(2), mse=np.ones(2),
                             true_advantage=0.0)
    assert study.best_lam == 0.2
