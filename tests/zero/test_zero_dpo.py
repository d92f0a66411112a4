"""DPO on the tiny model: its loss is rlcore's dpo_loss of summed log-probabilities and its gradient matches finite
differences; pairs stay within a group; the config's checks; offline pairs come from the base whatever the policy
does, online ones from the policy; the fixed pairs' curves; what the default runs show (exhaustive)."""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from rlcore.formulas.preference import dpo_loss, dpo_margins
from rlcore.studies.zero import dpo as D
from rlcore.studies.zero import model as M
from rlcore.studies.zero import task
from rlcore.studies.zero import training as T
from tests.rejects import rejects
from tests.zero.test_zero_training import _batch, _fd_check, _tiny


def test_pairs_are_each_full_marks_answer_against_each_other_answer_of_its_group():
    score = np.array([2.0, 1.0, 0.0, 2.0, 2.0, 2.0, 2.0, 2.0, 0.0, 2.0, 1.0, 1.0])
    p = D.pairs_within_groups(score, 4)
    assert sorted(zip(p.chosen.tolist(), p.rejected.tolist(), strict=True)) == [
        (0, 1), (0, 2), (3, 1), (3, 2), (9, 8), (9, 10), (9, 11)]     # the all-right group gives none
    assert p.rows.tolist() == [0, 1, 2, 3, 8, 9, 10, 11]
    rejects(lambda: D.pairs_within_groups(score, 5), "score")
    rejects(lambda: D.pairs_within_groups([2.0, float("nan")], 2), "score")


def _pairs_batch(beta=0.7):
    """A tiny model's batch with right answers mixed in (so some groups hold pairs), and another tiny model as π_ref."""
    c = T.ZeroConfig(prompts=3, group_size=4)
    policy, ref_model = _tiny(0), _tiny(1)
    rows, seq, ans = _batch(policy, c)
    pairs = D.pairs_within_groups(task.judge_batch(ans, rows)[2], c.group_size)
    assert pairs.chosen.size >= 3
    ref = D.sequence_log_probs(T._answer_logits(ref_model, seq)[2], T.answer_mask(ans))
    return policy, seq, pairs, ref, beta


def test_the_loss_is_rlcores_dpo_loss_of_each_answers_summed_token_log_probabilities():
    policy, seq, pairs, ref, beta = _pairs_batch()
    g = D.dpo_grads(policy, seq, pairs, ref, beta)
    # the oracle: every next-token log-probability of the whole row from one forward pass, the answer's summed
    per_token = M.token_log_probs(M.forward(policy, seq).logits, seq)[:, task.PROMPT_LEN - 1:]
    lp = np.where(T.answer_mask(seq[:, task.PROMPT_LEN:]), per_token, 0.0).sum(axis=1)
    w, lo = pairs.chosen, pairs.rejected
    assert g.loss == pytest.approx(dpo_loss(lp[w], lp[lo], ref[w], ref[lo], beta), rel=1e-12)
    np.testing.assert_allclose(g.margin, dpo_margins(lp[w], lp[lo], ref[w], ref[lo]), rtol=1e-12, atol=1e-12)


def test_the_dpo_gradient_matches_finite_differences():
    policy, seq, pairs, ref, beta = _pairs_batch()
    g = D.dpo_grads(policy, seq, pairs, ref, beta)
    _fd_check(lambda m: D.dpo_grads(m, seq, pairs, ref, beta).loss, g.grads, policy, np.random.default_rng(5))


@pytest.mark.parametrize(("field", "value"), [("beta", 0.0), ("beta", float("nan")), ("steps", 0), ("prompts", 0),
                                              ("group_size", 1), ("lr", 0.0), ("lr", 1.0), ("online", 1),
                                              ("online", "yes"), ("k", 4), ("steps", True)])
def test_config_names_the_bad_field(field, value):
    rejects(lambda: D.DPOConfig(**{field: value}), field)


def test_grpo_at_the_same_budget_takes_the_same_steps_problems_and_answers():
    c = D.DPOConfig(steps=30, prompts=4, group_size=6, k=16, beta=2.0, lr=1e-4, online=True)
    assert c.grpo() == T.ZeroConfig(steps=30, prompts=4, group_size=6, k=16)


def test_dpo_steps_refuses_a_non_config_and_collect_an_empty_run():
    rejects(lambda: next(D.dpo_steps(T.ZeroConfig())), "config")
    rejects(lambda: D.dpo_collect(D.DPOConfig(), 0, []), "steps")


@pytest.fixture(scope="module")
def short_runs():
    """Two-step runs on the shipped base at a large step size (the policy moves at once), offline and online."""
    return {online: D.dpo_train(D.DPOConfig(steps=2, prompts=6, group_size=8, online=online, lr=3e-2), 1)
            for online in (False, True)}


def test_online_pairs_are_the_policys_and_offline_ones_the_bases(short_runs):
    # the same problems and draws: at step 1 the policy is still the base, so both runs make the same update
    offline, online = short_runs[False], short_runs[True]
    assert online.pairs[0] == offline.pairs[0] and online.writer_right[0] == offline.writer_right[0]
    assert online.pass1[1] == offline.pass1[1] and online.chosen[1] == offline.chosen[1]
    assert online.writer_right[1] != offline.writer_right[1]   # then the moved policy writes online's answers


def test_a_run_starts_at_the_base_and_its_fixed_pairs_margin_is_beta_times_the_two_moves(short_runs):
    run = short_runs[True]
    base = T.base_measure(1, run.config.k)
    assert run.pass1[0] == base.pass1 and run.kl[0] == 0.0 and run.kl[-1] > 0
    assert run.margin[0] == 0.0 and run.won[0] == 0.0 and run.chosen[0] < 0 and run.rejected[0] < 0
    b = run.config.beta
    np.testing.assert_allclose(run.margin, b * ((run.chosen - run.chosen[0]) - (run.rejected - run.rejected[0])),
                               atol=1e-12)
    for name in ("pass1", "passk", "length", "entropy", "kl", "reward", "chosen", "rejected", "margin", "won"):
        assert getattr(run, name).shape == (3,), name
    assert run.pairs.shape == run.loss.shape == (2,) and run.pairs[0] > 0
    np.testing.assert_array_equal(np.isnan(run.loss), run.pairs == 0)   # a step without pairs learns nothing
    assert run.loss[0] == pytest.approx(np.log(2))                # the first step: π = π_ref, every margin 0


@pytest.mark.exhaustive
def test_offline_pairs_do_not_depend_on_the_policy_and_runs_are_deterministic(short_runs):
    slow = D.dpo_train(D.DPOConfig(steps=2, prompts=3, group_size=4, lr=1e-4), 1)
    np.testing.assert_array_equal(slow.pairs, short_runs[False].pairs)
    np.testing.assert_array_equal(slow.writer_right, short_runs[False].writer_right)
    again = D.dpo_train(short_runs[True].config, 1)
    for name in ("pass1", "chosen", "rejected", "loss", "pairs"):
        np.testing.assert_array_equal(getattr(again, name), getattr(short_runs[True], name))


def test_what_the_fixed_pairs_did_is_read_from_the_ends():
    assert D.displacement([-2.0, -2.5], [-2.2, -3.5], [0.0, 0.4]) == "fell"
    assert D.displacement([-2.0, -1.9], [-2.2, -2.6], [0.0, 0.25]) == "rose"
    assert D.displacement([-2.0, -2.02], [-2.2, -2.6], [0.0, 0.19]) == "held"
    assert D.displacement([-2.0, -2.5], [-2.2, -2.4], [0.0, -0.15]) == "none"
    rejects(lambda: D.displacement([-2.0], [-2.0, -1.0], [0.0]), "chosen")
    assert [D.who_leads(0.5, 0.8), D.who_leads(0.8, 0.5), D.who_leads(0.5, 0.51)] == ["online", "offline", "level"]
    rejects(lambda: D.who_leads(1.5, 0.5), "offline")


@pytest.fixture(scope="module")
def default_runs():
    c = D.DPOConfig()
    return D.dpo_train(c, 0), D.dpo_train(D.DPOConfig(online=True), 0), rlcore.zero.train(c.grpo(), 0)


@pytest.mark.exhaustive
def test_the_default_runs_show_displacement_and_online_dpo_closing_part_of_the_gap(default_runs):
    """Seed 0 at the defaults: both DPO runs climb from the base; online DPO ends above offline DPO and GRPO above
    both (Guo et al. 2024: online closes part of the gap to RL); on the fixed pairs the margin grows while the chosen
    answers' log-probability falls, in both (likelihood displacement)."""
    offline, online, grpo = default_runs
    assert offline.pass1[0] == online.pass1[0] == grpo.pass1[0]
    assert offline.pass1[0] + 0.15 < offline.pass1[-1] < online.pass1[-1] - 0.1 < grpo.pass1[-1] - 0.1
    for run in (offline, online):
        assert run.change == "fell" and run.margin[-1] > 0.2
        assert run.rejected[-1] - run.rejected[0] < run.chosen[-1] - run.chosen[0] < -0.1
