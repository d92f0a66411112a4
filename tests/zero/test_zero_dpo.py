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
    assert c.grpo() == T.ZeroConfig(steps=30, prompts=4, group_size=6, k=16, passk_max=1)  # no pass@k curve read


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


def test_the_chosen_answers_split_by_kind_and_the_run_carries_its_final_kl(short_runs):
    """The fixed pairs' chosen answers are the worked ones and the at-once ones, in the share the run reports: the
    mean over all is the two kinds' means weighted by it (nan stands for a kind the set lacks, on any task)."""
    for run in short_runs.values():
        share = run.guessed_share
        assert 0.0 <= share <= 1.0 and run.final_kl == run.kl[-1] > 0
        assert run.chosen_worked.shape == run.chosen_guessed.shape == run.chosen.shape
        parts = [(1 - share, run.chosen_worked), (share, run.chosen_guessed)]
        mixed = sum(w * c for w, c in parts if w > 0)
        np.testing.assert_allclose(mixed, run.chosen, rtol=1e-9, atol=1e-9)
        assert run.split in {"away", "both_fell", "both_rose", "worked_fell", "none"}


@pytest.mark.parametrize(("worked", "guessed", "said"), [
    ([-3.0, -1.0], [-2.0, -3.5], "away"), ([-3.0, -3.5], [-2.0, -3.5], "both_fell"),
    ([-3.0, -2.98], [-2.0, -1.0], "both_rose"), ([-3.0, -3.5], [-2.0, -2.0], "worked_fell"),
    ([-3.0, -2.0], [float("nan")] * 2, "none"),
])
def test_what_dpo_did_to_each_kind_of_chosen_answer_is_read_from_the_ends(worked, guessed, said):
    assert D.split_change(worked, guessed) == said


def test_a_kl_matched_comparison_reads_each_run_where_its_kl_first_reaches_the_smallest_end():
    """Linear between the two steps around the target; the run that moved least is read at its end; a KL never
    reached is nan; the leader is the highest pass@1 unless the best two are within LEVEL."""
    target, at = D.kl_matched({"far": ([0.0, 0.1, 0.5, 0.4], [0.2, 0.3, 0.7, 0.8]), "near": ([0.0, 0.3], [0.2, 0.5])})
    assert target == 0.3 and at["near"] == 0.5 and at["far"] == pytest.approx(0.3 + 0.4 * 0.2 / 0.4)
    assert np.isnan(D.pass_at_kl([0.0, 0.1], [0.2, 0.3], 0.2)) and D.pass_at_kl([0.0, 0.1], [0.2, 0.3], 0.0) == 0.2
    assert D.leader_at_kl({"a": 0.6, "b": 0.5}) == "a" and D.leader_at_kl({"a": 0.5, "b": 0.5 + D.LEVEL / 2}) == "level"
    rejects(lambda: D.kl_matched({}), "curves")
    rejects(lambda: D.pass_at_kl([0.0, 0.1], [0.2], 0.1), "kl")


@pytest.mark.exhaustive
def test_offline_pairs_do_not_depend_on_the_policy_and_runs_are_deterministic(short_runs):
    slow = D.dpo_train(D.DPOConfig(steps=2, prompts=6, group_size=8, lr=1e-4), 1)  # the fixture's, a small step
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
    # the guess-proof task (#42): 0.11 → 0.21 offline, 0.29 online, 0.34 GRPO on seed 0
    assert offline.pass1[0] + 0.05 < offline.pass1[-1] < online.pass1[-1] - 0.05 < grpo.pass1[-1] - 0.03
    for run in (offline, online):
        assert run.change == "fell" and run.margin[-1] > 0.2
        assert run.rejected[-1] - run.rejected[0] < run.chosen[-1] - run.chosen[0] < -0.1
