"""Bad arguments raise ValueError, and the message names the argument (a page shows it as it is)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from rlcore import ARTICLE_SCENARIO as S

PI = [0.5, 0.3, 0.2]
Q = [2.0, 5.0, 9.0]
SAMPLES = [[3, 1, 2, 1, 3], [5, 4, 6], [10, 8]]
TRACE = rlcore.answer_trace(S, "open")


def _train(**kw):
    args = dict(lr=1.0, steps=3, batch=4)
    args.update(kw)
    return rlcore.sampled_training(PI, SAMPLES, **args)


def _study(**kw):
    args = dict(gamma=1.0, lams=[0.0, 1.0], bias=0.0, noise=0.0, n_draws=10, seed=0)
    args.update(kw)
    return rlcore.critic_error_study(TRACE, SAMPLES[0], **args)


def _scenario(**kw):
    args = dict(tokens=("open", "closed", "partly"), probs=(0.5, 0.3, 0.2), samples=((2,), (5,), (9,)))
    args.update(kw)
    return rlcore.Scenario(**args)


def check(call, name):
    """``call`` raises ValueError whose message opens with the argument ``name`` ("name must ...",
    or "other and name must ..." for a pair), so a short name like ``p`` cannot match by accident."""
    with pytest.raises(ValueError, match=rf"^(?:\w+ and )?(?:{name})(?!\w)") as info:
        call()
    return str(info.value)


# ---------------------------------------------------------------- probability vectors


@pytest.mark.parametrize(("call", "name"), [
    (lambda: rlcore.expected_value([0.5, 0.3, 0.1], Q), "probs"),
    (lambda: rlcore.advantages([0.6, 0.3, 0.2], Q), "probs"),
    (lambda: rlcore.gradient_stats([0.5, 0.5, 0.5], SAMPLES, 0.0), "probs"),
    (lambda: rlcore.kl_divergence([0.5, 0.4], [0.5, 0.5]), "p"),
    (lambda: rlcore.kl_divergence([0.5, 0.5], [0.6, 0.5]), "q"),
    (lambda: rlcore.kl_regularized_objective([0.95, 0.05], [9, 9.6], [0.9, 0.2], 1.0), "p_ref"),
    (lambda: rlcore.kl_optimal_policy([0.9, 0.2], [9, 9.6], 1.0), "p_ref"),
    (lambda: rlcore.ppo_epochs([0.5, 0.3, 0.3], [0], [1.0], lr=0.1, epochs=1), "p_old"),
    (lambda: _scenario(probs=(0.5, 0.3, 0.3)), "probs"),
])
def test_probs_not_summing_to_1(call, name):
    assert "sum to 1" in check(call, name)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: rlcore.expected_value([1e-6 + 0.5, 0.3, 0.2], Q), "probs"),
    (lambda: rlcore.policy_gradient_path([0.5, 0.3, 0.2 - 1e-6], Q, 1.0, 1), "probs"),
    (lambda: rlcore.kl_divergence([0.95 + 1e-6, 0.05], [0.95, 0.05]), "p"),
    (lambda: _scenario(probs=(0.5, 0.3, 0.2 + 1e-6)), "probs"),
])
def test_probs_off_by_1e_6(call, name):
    check(call, name)


def test_probs_off_by_rounding_are_accepted():
    # the tolerance is 1e-9: a sum like 0.1 + 0.2 + 0.7 (= 0.9999999999999999) is fine
    assert rlcore.expected_value([0.1, 0.2, 0.7], [1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert _scenario(probs=(0.1, 0.2, 0.7)).probs == (0.1, 0.2, 0.7)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: rlcore.expected_value([-0.1, 0.6, 0.5], Q), "probs"),
    (lambda: rlcore.kl_divergence([1.2, -0.2], [0.5, 0.5]), "p"),
    (lambda: rlcore.importance_ratio([-0.1], [0.2]), "p_new"),
    (lambda: rlcore.importance_ratio([0.1], [0.0]), "p_old"),
    (lambda: rlcore.clip_bounds(-0.2, 0.2), "p_old"),
    (lambda: rlcore.discovery_chance(-0.1, [1, 2]), "p"),
    (lambda: rlcore.normalize_probs([1.0, -1.0, 2.0]), "probs"),
    (lambda: _scenario(probs=(1.2, -0.4, 0.2)), r"probs\[0\]|probs"),
])
def test_probs_negative_or_above_1(call, name):
    check(call, name)


# ---------------------------------------------------------------- non-finite entries


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize(("make", "name"), [
    (lambda x: rlcore.discounted_returns([0.0, x, 2.0], 1.0), "rewards"),
    (lambda x: rlcore.td_errors([0.0, 2.0], [4.3, x, 0.0], 1.0), "values"),
    (lambda x: rlcore.expected_value(PI, [2.0, x, 9.0]), "q"),
    (lambda x: rlcore.expected_value([0.5, x, 0.2], Q), "probs"),
    (lambda x: rlcore.softmax([0.0, x]), "logits"),
    (lambda x: rlcore.group_advantages([1.0, x], "grpo"), "scores"),
    (lambda x: rlcore.gradient_stats(PI, [[1.0, x], [5.0], [9.0]], 0.0), "samples"),
    (lambda x: rlcore.gradient_stats(PI, SAMPLES, x), "baseline"),
    (lambda x: rlcore.clipped_objective([1.0], [x]), "advantage"),
    (lambda x: rlcore.kl_estimators([x], [-1.0]), "logp"),
    (lambda x: rlcore.sparse_rewards(3, x), "score"),
    (lambda x: rlcore.discounted_returns([1.0], x), "gamma"),
    (lambda x: _scenario(samples=((2,), (5, x), (9,))), "samples"),
    (lambda x: _scenario(probs=(0.5, x, 0.2)), "probs"),
])
def test_nan_and_inf_entries(make, name, bad):
    check(lambda: make(bad), name)


# ---------------------------------------------------------------- lengths


@pytest.mark.parametrize(("call", "name"), [
    (lambda: rlcore.td_errors([0.0, 0.0, 2.0], [4.3, 2.0, 0.0], 1.0), "values"),
    (lambda: rlcore.gae([0.0, 0.0, 2.0], [4.3, 2.0, 2.0, 2.0, 0.0], 1.0, 0.9), "values"),
    (lambda: rlcore.expected_value(PI, [2.0, 5.0]), "probs and q"),
    (lambda: rlcore.policy_gradient_step([0.0, 0.0, 0.0], [2.0, 5.0], 1.0), "logits and q"),
    (lambda: rlcore.gradient_stats(PI, SAMPLES[:2], 0.0), "samples"),
    (lambda: rlcore.mc_estimates([0, 1], [1.0], 3), "actions and scores"),
    (lambda: rlcore.ppo_epochs(PI, [0, 1], [1.0], lr=0.1, epochs=1), "actions and advantages"),
    (lambda: rlcore.importance_ratio([0.1, 0.2], [0.2]), "p_new and p_old"),
    (lambda: rlcore.kl_divergence([0.5, 0.5], [0.2, 0.3, 0.5]), "p and q"),
    (lambda: rlcore.kl_regularized_objective([0.5, 0.5], [1.0, 2.0, 3.0], [0.5, 0.5], 1.0), "p and rewards"),
    (lambda: rlcore.kl_regularized_objective([0.5, 0.5], [1.0, 2.0], [0.2, 0.3, 0.5], 1.0), "p_ref"),
    (lambda: rlcore.kl_optimal_policy([0.5, 0.5], [1.0], 1.0), "p_ref and rewards"),
    (lambda: rlcore.share_curve([0.1], [1.0, 2.0, 3.0], [0.5, 0.5], 1.0), "rewards"),
    (lambda: rlcore.kl_estimators([-1.0, -2.0], [-1.0]), "logp and logp_ref"),
    (lambda: rlcore.discounted_returns([], 1.0), "rewards"),
    (lambda: rlcore.softmax(1.0), "logits"),  # a number, not a row of logits
])
def test_wrong_lengths(call, name):
    check(call, name)


def test_values_must_be_one_longer_than_rewards():
    msg = check(lambda: rlcore.td_errors([0.0, 2.0], [4.3, 2.0], 1.0), "values")
    assert "len(rewards) + 1 = 3" in msg


# ---------------------------------------------------------------- gamma and lambda


@pytest.mark.parametrize("bad", [-0.1, 1.1, 2.0])
@pytest.mark.parametrize(("make", "name"), [
    (lambda g: rlcore.discounted_returns([0.0, 2.0], g), "gamma"),
    (lambda g: rlcore.td_errors([2.0], [1.0, 0.0], g), "gamma"),
    (lambda g: rlcore.gae([2.0], [1.0, 0.0], g, 0.5), "gamma"),
    (lambda g: rlcore.first_token_return([1, 2], 2.0, g), "gamma"),
    (lambda g: rlcore.answer_trace(S, "open", gamma=g), "gamma"),
    (lambda g: _study(gamma=g), "gamma"),
    (lambda lam: rlcore.gae([2.0], [1.0, 0.0], 1.0, lam), "lam"),
    (lambda lam: _study(lams=[0.0, lam]), "lams"),
])
def test_gamma_and_lambda_outside_0_1(make, name, bad):
    assert "[0, 1]" in check(lambda: make(bad), name)


# ---------------------------------------------------------------- eps, temperature, beta


@pytest.mark.parametrize("bad", [0.0, -0.2])
@pytest.mark.parametrize(("make", "name"), [
    (lambda e: rlcore.clipped_objective([1.0], [1.0], eps=e), "eps"),
    (lambda e: rlcore.clipped_objective([1.0], [1.0], eps=0.2, eps_high=e), "eps_high"),
    (lambda e: rlcore.is_clipped([1.0], [1.0], eps=e), "eps"),
    (lambda e: rlcore.clip_bounds(0.2, e), "eps"),
    (lambda e: rlcore.ppo_epochs(PI, [0], [1.0], lr=0.1, epochs=1, eps=e), "eps"),
    (lambda e: rlcore.group_advantages([1.0, 2.0], "grpo", eps=e), "eps"),
])
def test_eps_not_positive(make, name, bad):
    assert "> 0" in check(lambda: make(bad), name)


def test_eps_of_1_or_more_would_allow_a_negative_ratio():
    check(lambda: rlcore.clipped_objective([1.0], [1.0], eps=1.0), "eps")


@pytest.mark.parametrize("bad", [0.0, -1.0])
@pytest.mark.parametrize(("make", "name"), [
    (lambda t: rlcore.softmax([0.0, 1.0], t), "temperature"),
    (lambda t: _train(temperature=t), "temperature"),
])
def test_temperature_not_positive(make, name, bad):
    assert "> 0" in check(lambda: make(bad), name)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: rlcore.kl_regularized_objective([0.5, 0.5], [9, 9.6], [0.95, 0.05], -1.0), "beta"),
    (lambda: rlcore.share_curve([0.5], [9, 9.6], [0.95, 0.05], -0.1), "beta"),
    (lambda: rlcore.kl_optimal_policy([0.95, 0.05], [9, 9.6], -1.0), "beta"),
    (lambda: rlcore.kl_optimal_policy([0.95, 0.05], [9, 9.6], 0.0), "beta"),  # it divides by β
])
def test_beta_negative(call, name):
    check(call, name)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: rlcore.policy_gradient_step([0.0, 0.0], [1.0, 2.0], -0.1), "lr"),
    (lambda: _train(lr=-1.0), "lr"),
    (lambda: rlcore.ppo_epochs(PI, [0], [1.0], lr=-0.1, epochs=1), "lr"),
    (lambda: _study(noise=-0.5), "noise"),
])
def test_negative_step_sizes_and_noise(call, name):
    assert ">= 0" in check(call, name)


# ---------------------------------------------------------------- counts


@pytest.mark.parametrize(("call", "name"), [
    (lambda: rlcore.sparse_rewards(0, 2.0), "n_tokens"),
    (lambda: rlcore.mc_estimates([0], [1.0], 0), "n_actions"),
    (lambda: rlcore.sample_answers(PI, SAMPLES, 0, 0), "n"),
    (lambda: rlcore.gradient_samples(PI, SAMPLES, 0.0, 0, 0), "n"),
    (lambda: rlcore.policy_gradient_path(PI, Q, 1.0, -1), "steps"),
    (lambda: _train(steps=0), "steps"),
    (lambda: _train(batch=0), "batch"),
    (lambda: rlcore.ppo_epochs(PI, [0], [1.0], lr=0.1, epochs=0), "epochs"),
    (lambda: _study(n_draws=1), "n_draws"),
    (lambda: _train(seed=-1), "seeds?"),
    (lambda: rlcore.sampled_training_many(PI, SAMPLES, lr=1.0, steps=1, batch=1, seeds=[]), "seeds"),
    (lambda: rlcore.first_token_return([0, 2], 2.0, 0.9), "lengths"),
    (lambda: rlcore.discovery_chance(0.2, [-1]), "k"),
])
def test_counts_below_their_minimum(call, name):
    check(call, name)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: _train(steps=2.5), "steps"),
    (lambda: _train(batch=True), "batch"),
    (lambda: rlcore.sparse_rewards("3", 2.0), "n_tokens"),
    (lambda: rlcore.first_token_return([1.5], 2.0, 0.9), "lengths"),
    (lambda: rlcore.mc_estimates([0.5], [1.0], 2), "actions"),
    (lambda: rlcore.ppo_epochs(PI, [3], [1.0], lr=0.1, epochs=1), "actions"),
])
def test_counts_that_are_not_whole_numbers_or_out_of_range(call, name):
    check(call, name)


# ---------------------------------------------------------------- names


@pytest.mark.parametrize(("call", "name"), [
    (lambda: rlcore.group_advantages([1.0, 2.0], "ppo"), "method"),
    (lambda: rlcore.group_advantages([1.0, 2.0], "GRPO"), "method"),
    (lambda: _train(baseline="mean"), "baseline"),
    (lambda: _train(baseline="v"), "baseline"),
    (lambda: rlcore.answer_trace(S, "maybe"), "token"),
])
def test_unknown_names(call, name):
    msg = check(call, name)
    assert "one of" in msg


# ---------------------------------------------------------------- non-numeric strings


@pytest.mark.parametrize(("call", "name"), [
    (lambda: rlcore.discounted_returns("abc", 1.0), "rewards"),
    (lambda: rlcore.discounted_returns(["0", "two"], 1.0), "rewards"),
    (lambda: rlcore.discounted_returns([0.0, 2.0], "high"), "gamma"),
    (lambda: rlcore.gae([2.0], [1.0, 0.0], 1.0, "lots"), "lam"),
    (lambda: rlcore.expected_value(["a", "b"], [1.0, 2.0]), "probs"),
    (lambda: rlcore.softmax([0.0, 1.0], "hot"), "temperature"),
    (lambda: rlcore.kl_regularized_objective([0.5, 0.5], [9, 9.6], [0.95, 0.05], "one"), "beta"),
    (lambda: rlcore.gradient_stats(PI, SAMPLES, "V"), "baseline"),
    (lambda: rlcore.gradient_stats(PI, [["x"], [5.0], [9.0]], 0.0), "samples"),
    (lambda: rlcore.group_advantages([1.0, 2.0], "grpo", eps="tiny"), "eps"),
    (lambda: _scenario(probs=("half", 0.3, 0.2)), "probs"),
    (lambda: _scenario(samples=(("good",), (5,), (9,))), "samples"),
    (lambda: _scenario(samples=("2", (5,), (9,))), "samples"),
    (lambda: rlcore.discounted_returns([0.0, 2.0], True), "gamma"),
])
def test_non_numeric_strings(call, name):
    check(call, name)


def test_gradient_stats_with_baseline_none_names_baseline():
    check(lambda: rlcore.gradient_stats(PI, SAMPLES, None), "baseline")


# ---------------------------------------------------------------- Scenario


def test_scenario_duplicate_tokens():
    msg = check(lambda: _scenario(tokens=("open", "closed", "open")), "tokens")
    assert "unique" in msg and "open" in msg


def test_scenario_duplicate_tokens_after_stripping_spaces():
    check(lambda: _scenario(tokens=("open", "closed", " open ")), "tokens")


def test_scenario_empty_tokens():
    check(lambda: _scenario(tokens=(), probs=(), samples=()), "tokens")


@pytest.mark.parametrize("blank", ["", "   "])
def test_scenario_empty_token_name(blank):
    check(lambda: _scenario(tokens=("open", blank, "partly")), r"tokens\[1\]")


def test_scenario_token_with_no_score():
    msg = check(lambda: _scenario(samples=((2,), (), (9,))), r"samples\[1\]")
    assert "closed" in msg


@pytest.mark.parametrize(("kw", "name"), [
    (dict(probs=(0.5, 0.5)), "probs"),
    (dict(samples=((2,), (5,))), "samples"),
    (dict(continuations=("a", "b")), "continuations"),
])
def test_scenario_mismatched_lengths(kw, name):
    assert "one" in check(lambda: _scenario(**kw), name)


def test_scenario_too_many_tokens():
    n = rlcore.MAX_TOKENS + 1
    tokens = tuple(f"t{i}" for i in range(n))
    probs = (1.0,) + (0.0,) * (n - 1)
    check(lambda: _scenario(tokens=tokens, probs=probs, samples=((1,),) * n), "tokens")


def test_scenario_fields_that_are_not_lists():
    check(lambda: _scenario(tokens="open"), "tokens")
    check(lambda: _scenario(prefix=3), "prefix")


# ---------------------------------------------------------------- other domains


@pytest.mark.parametrize(("call", "name"), [
    (lambda: rlcore.clipped_objective([-0.5], [1.0]), "ratio"),
    (lambda: rlcore.clipped_objective([1.0], [1.0], dual_clip=1.0), "dual_clip"),
    (lambda: rlcore.kl_estimators([0.5], [-1.0]), "logp"),
    (lambda: rlcore.share_curve([1.5], [9, 9.6], [0.95, 0.05], 1.0), "shares"),
    (lambda: rlcore.share_curve([0.5], [9, 9.6], [1.0, 0.0], 1.0), "p_ref"),
    (lambda: rlcore.ppo_epochs([1.0, 0.0], [0], [1.0], lr=0.1, epochs=1), "p_old"),
    (lambda: rlcore.normalize_probs([0.0, 0.0]), "probs"),
    (lambda: rlcore.split_tokens(None), "text"),
    (lambda: rlcore.sample_answers(PI, SAMPLES, 3, np.random.default_rng(0).random()), "rng"),
])
def test_values_outside_their_domain(call, name):
    check(call, name)
