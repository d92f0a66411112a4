"""Identities between rlcore's functions, and rlcore against slow, obviously-correct references."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from rlcore import ARTICLE_SCENARIO as S

SEEDS = range(8)


def _random_probs(rng, k):
    w = rng.uniform(0.05, 1.0, size=k)
    return w / w.sum()


def _random_samples(rng, k):
    return [list(rng.integers(0, 11, size=int(rng.integers(1, 6))).astype(float)) for _ in range(k)]


# ---------------------------------------------------------------- policy gradient


@pytest.mark.parametrize("seed", SEEDS)
def test_policy_gradient_step_is_the_finite_difference_gradient(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    z = rng.normal(0.0, 2.0, size=k)
    q = rng.normal(0.0, 5.0, size=k)

    def value(logits):
        e = np.exp(logits - logits.max())
        return float(e @ q / e.sum())

    h = 1e-6
    fd = np.array([(value(z + h * np.eye(k)[i]) - value(z - h * np.eye(k)[i])) / (2 * h) for i in range(k)])
    lr = 0.3
    step = (rlcore.policy_gradient_step(z, q, lr) - z) / lr
    np.testing.assert_allclose(step, fd, atol=1e-6)
    assert np.abs(fd).max() > 1e-3  # the comparison is not between two zeros


def test_policy_gradient_path_values_are_expected_q_and_no_step_size_does_not_move():
    z = np.array([0.1, -0.4, 2.0])
    np.testing.assert_array_equal(rlcore.policy_gradient_step(z, [1.0, 5.0, 2.0], 0.0), z)
    path = rlcore.policy_gradient_path(S.pi, S.q, 0.5, 6)
    np.testing.assert_allclose(path.values, path.probs @ S.q, rtol=1e-12)
    np.testing.assert_allclose(path.probs.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(np.diff(path.values) > 0)  # exact gradient ascent on V, small step: V rises


# ---------------------------------------------------------------- REINFORCE moments


def _brute_force_moments(probs, samples, baseline):
    """Enumerate every (action, sample) pair with its probability π_a / n_a."""
    k = len(probs)
    weights, grads = [], []
    for a in range(k):
        for r in samples[a]:
            weights.append(probs[a] / len(samples[a]))
            grads.append((r - baseline) * (np.eye(k)[a] - np.asarray(probs)))
    w, g = np.array(weights), np.array(grads)
    mean = w @ g
    total_variance = float(w @ ((g - mean) ** 2).sum(axis=1))
    return mean, total_variance


@pytest.mark.parametrize("seed", [*SEEDS, "article"])
def test_gradient_stats_matches_enumeration(seed):
    if seed == "article":
        probs, samples, baselines = list(S.probs), S.samples, (0.0, 4.3)
    else:
        rng = np.random.default_rng(seed)
        k = int(rng.integers(2, 6))
        probs, samples = _random_probs(rng, k), _random_samples(rng, k)
        baselines = (0.0, float(rng.uniform(0, 10)), -3.0)
    for baseline in baselines:
        stats = rlcore.gradient_stats(probs, samples, baseline)
        mean, var = _brute_force_moments(probs, samples, baseline)
        np.testing.assert_allclose(stats.mean, mean, atol=1e-12)
        assert stats.total_variance == pytest.approx(var, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("baseline", [0.0, 4.3])
def test_gradient_samples_approach_gradient_stats(baseline):
    n = 200_000
    g = rlcore.gradient_samples(S.pi, S.samples, baseline, n, 12345)
    assert g.shape == (n, 3)
    stats = rlcore.gradient_stats(S.pi, S.samples, baseline)
    se = math.sqrt(stats.total_variance / n)  # bound on each component's standard error
    np.testing.assert_allclose(g.mean(axis=0), stats.mean, atol=5 * se)
    empirical = float(np.var(g, axis=0, ddof=1).sum())
    assert empirical == pytest.approx(stats.total_variance, rel=0.03)


def test_gradient_samples_are_reproducible_per_seed():
    a = rlcore.gradient_samples(S.pi, S.samples, 0.0, 50, 7)
    b = rlcore.gradient_samples(S.pi, S.samples, 0.0, 50, np.random.default_rng(7))
    c = rlcore.gradient_samples(S.pi, S.samples, 0.0, 50, 8)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("seed", SEEDS)
def test_optimal_baseline_has_the_smallest_variance(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 6))
    probs, samples = _random_probs(rng, k), _random_samples(rng, k)
    b_star = rlcore.optimal_baseline(probs, samples)
    best = rlcore.gradient_stats(probs, samples, b_star).total_variance
    v = rlcore.expected_value(probs, [np.mean(s) for s in samples])
    for b in (0.0, v, b_star - 1.0, b_star + 1.0, b_star - 1e-3, b_star + 1e-3, *rng.uniform(-5, 15, 5)):
        assert best <= rlcore.gradient_stats(probs, samples, float(b)).total_variance + 1e-12


def test_optimal_baseline_beats_v_on_the_article():
    b_star = rlcore.optimal_baseline(S.pi, S.samples)
    # b* = Σ π w Q / Σ π w with w = ‖e_a − π‖² = (0.38, 0.78, 0.98)
    w = np.array([0.5 * 0.38, 0.3 * 0.78, 0.2 * 0.98])
    assert b_star == pytest.approx(float(w @ [2, 5, 9] / w.sum()), rel=1e-12)
    assert rlcore.gradient_stats(S.pi, S.samples, b_star).total_variance < \
        rlcore.gradient_stats(S.pi, S.samples, 4.3).total_variance


def test_mc_estimates_gives_nan_for_an_unsampled_action():
    est = rlcore.mc_estimates([0, 0, 2, 2, 2], [1.0, 3.0, 9.0, 8.0, 10.0], 4)
    assert est.q[0] == pytest.approx(2.0)
    assert est.q[2] == pytest.approx(9.0)
    assert math.isnan(est.q[1]) and math.isnan(est.q[3])
    assert est.counts.tolist() == [2, 0, 3, 0]
    assert est.v == pytest.approx(31.0 / 5)


def test_sample_answers_only_draws_scores_of_the_drawn_token():
    actions, scores = rlcore.sample_answers(S.pi, S.samples, 2000, 3)
    for a, s in zip(actions, scores, strict=True):
        assert s in S.samples[a]
    shares = np.bincount(actions, minlength=3) / 2000
    np.testing.assert_allclose(shares, S.pi, atol=0.05)


# ---------------------------------------------------------------- group advantages


@pytest.mark.parametrize("seed", SEEDS)
def test_rloo_is_leave_one_out_and_grpo_uses_the_n_minus_1_std(seed):
    rng = np.random.default_rng(seed)
    s = list(rng.normal(5.0, 3.0, size=int(rng.integers(2, 12))))
    expected = [s[i] - sum(s[:i] + s[i + 1:]) / (len(s) - 1) for i in range(len(s))]
    np.testing.assert_allclose(rlcore.group_advantages(s, "rloo"), expected, rtol=1e-10, atol=1e-10)
    n, mean = len(s), sum(s) / len(s)
    std_n1 = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1))
    std_n = math.sqrt(sum((x - mean) ** 2 for x in s) / n)
    eps = 1e-6
    got = rlcore.group_advantages(s, "grpo", eps=eps)
    np.testing.assert_allclose(got, [(x - mean) / (std_n1 + eps) for x in s], rtol=1e-10, atol=1e-10)
    assert not np.allclose(got, [(x - mean) / (std_n + eps) for x in s], rtol=1e-6)
    np.testing.assert_allclose(rlcore.group_advantages(s, "dr_grpo"), [x - mean for x in s], atol=1e-10)


@pytest.mark.parametrize("method", rlcore.GROUP_METHODS)
def test_all_equal_group_and_group_of_one_give_zeros(method):
    assert rlcore.group_advantages([7.0, 7.0, 7.0, 7.0], method).tolist() == [0.0] * 4
    assert rlcore.group_advantages([3.0], method).tolist() == [0.0]


# ---------------------------------------------------------------- sampled training


@pytest.mark.parametrize(("greedy", "baseline", "temperature"),
                         [(False, "batch mean", 1.0), (False, "none", 0.7), (False, "V", 1.5),
                          (True, "V", 1.0)])
def test_sampled_training_many_rows_equal_single_runs(greedy, baseline, temperature):
    seeds = (0, 7, 42)
    kwargs = dict(lr=0.5, steps=15, batch=6, temperature=temperature, greedy=greedy, baseline=baseline)
    many = rlcore.sampled_training_many(S.pi, S.samples, seeds=seeds, **kwargs)
    assert many.probs.shape == (3, 16, 3) and many.mean_score.shape == (3, 15)
    for row, seed in enumerate(seeds):
        one = rlcore.sampled_training(S.pi, S.samples, seed=seed, **kwargs)
        np.testing.assert_allclose(many.probs[row], one.probs, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(many.mean_score[row], one.mean_score, rtol=1e-12)
    again = rlcore.sampled_training_many(S.pi, S.samples, seeds=seeds, **kwargs)
    np.testing.assert_array_equal(again.probs, many.probs)
    if not greedy:
        assert not np.allclose(many.probs[0], many.probs[1])  # different seeds, different runs


@pytest.mark.parametrize("temperature", [1.0, 2.0])
@pytest.mark.parametrize("baseline", ["none", "batch mean", "V"])
def test_sampled_training_one_answer_step_by_hand(baseline, temperature):
    # R fixed at Q, one answer per step: the score tells which token was drawn
    q = np.array([2.0, 5.0, 9.0])
    pi = np.array(S.probs)
    for seed in range(6):
        run = rlcore.sampled_training(pi, [[2], [5], [9]], lr=0.5, steps=1, batch=1,
                                      temperature=temperature, baseline=baseline, seed=seed)
        r = run.mean_score[0]
        a = int(np.flatnonzero(q == r)[0])
        mu = pi ** (1 / temperature) / (pi ** (1 / temperature)).sum()  # sampling distribution
        b = {"none": 0.0, "batch mean": r, "V": float(mu @ q)}[baseline]
        z = np.log(pi) + 0.5 * (r - b) * (np.eye(3)[a] - pi)
        expected = np.exp(z) / np.exp(z).sum()
        np.testing.assert_allclose(run.probs[1], expected, rtol=1e-12)


def test_greedy_training_moves_only_without_a_baseline_and_sampling_only_with_a_step():
    fixed = [[2], [5], [9]]
    kw = dict(lr=0.5, steps=5, batch=4, greedy=True)
    for baseline in ("batch mean", "V"):  # b = 2 = the only score greedy ever sees
        run = rlcore.sampled_training(S.pi, fixed, baseline=baseline, **kw)
        np.testing.assert_allclose(run.probs[-1], S.pi, atol=1e-12)
    run = rlcore.sampled_training(S.pi, fixed, baseline="none", **kw)
    assert run.probs[-1, 0] > 0.6  # R = 2 > 0 with no baseline: greedy reinforces `open`
    run = rlcore.sampled_training(S.pi, S.samples, lr=0.0, steps=10, batch=8, seed=0)  # and no step never moves
    np.testing.assert_array_equal(run.probs, np.tile(run.probs[0], (11, 1)))
    np.testing.assert_allclose(run.probs[0], S.pi, rtol=1e-12)


# ---------------------------------------------------------------- critic error study


def _study(gamma=1.0, **kw):
    trace = rlcore.answer_trace(S, "open", gamma=gamma)
    args = dict(lams=[0.0, 0.5, 1.0], bias=0.7, noise=0.0, n_draws=20_000, seed=0)
    args.update(kw)
    return rlcore.critic_error_study(trace, S.samples[0], gamma=gamma, **args)


def test_critic_error_study_lambda_0_inherits_the_critic_bias_and_lambda_1_its_noise():
    study = _study()
    assert study.true_advantage == pytest.approx(-2.3, abs=1e-12)
    assert study.bias[0] == pytest.approx(0.7, abs=1e-9) and study.variance[0] == pytest.approx(0.0, abs=1e-12)
    # λ = 1: Â = R − V(s); R uniform on (3, 1, 2, 1, 3): mean 2 (= Q), variance 0.8
    assert study.bias[2] == pytest.approx(0.0, abs=0.03) and study.variance[2] == pytest.approx(0.8, rel=0.05)
    np.testing.assert_allclose(study.mse, study.bias**2 + study.variance, rtol=1e-12)
    assert _study(noise=0.5).variance[0] > study.variance[0] + 0.1  # a noisy critic adds variance at λ = 0


def test_critic_error_study_discounted_truth():
    study = _study(gamma=0.9)
    # a = 2, T = 10: true advantage γ^(T−1−a)·(Q − V) = 0.9⁷ · (−2.3); with λ = 0 the bias is γ·0.7
    assert study.true_advantage == pytest.approx(0.9**7 * -2.3, abs=1e-12)
    assert study.bias[0] == pytest.approx(0.9 * 0.7, abs=1e-9)


# ---------------------------------------------------------------- PPO epochs


def test_ppo_token_stops_moving_once_clipped():
    eps = 0.2
    run = rlcore.ppo_epochs(S.pi, [2, 2, 0, 1], [4.7, 4.7, 0.0, 0.0], lr=1e-3, epochs=300, eps=eps)
    rho = run.probs[:, 2] / 0.2
    first = int(np.argmax(rho > 1 + eps))
    assert first > 0 and rho[first] > 1 + eps
    assert np.all(np.diff(run.probs[: first + 1, 2]) > 0)    # it moves while inside the range
    np.testing.assert_array_equal(run.probs[first:], np.tile(run.probs[first], (301 - first, 1)))
    assert np.all(run.clip_fraction[:first] == 0.0)
    assert np.all(run.clip_fraction[first:] == 0.5)           # both `partly` answers, 2 of 4
    assert rho[first] < 1 + eps + 0.01                        # a small lr overshoots only a little


def test_a_batch_of_one_token_ends_wholly_clipped_past_its_side_of_the_range():
    up = rlcore.ppo_epochs(S.pi, [2, 2, 2], [4.7, 4.7, 4.7], lr=1e-3, epochs=300, eps=0.2)
    assert (up.clip_fraction[0], up.clip_fraction[-1]) == (0.0, 1.0) and up.probs[-1, 2] / 0.2 > 1.2
    down = rlcore.ppo_epochs(S.pi, [0, 0], [-2.3, -2.3], lr=1e-3, epochs=300, eps=0.2)  # A < 0: below 1 − ε
    assert 0.79 < down.probs[-1, 0] / 0.5 < 0.8 and down.clip_fraction[-1] == 1.0
    np.testing.assert_array_equal(down.probs[-1], down.probs[-2])


def test_ppo_objective_is_mean_clipped_objective():
    run = rlcore.ppo_epochs(S.pi, [2, 0, 1], [4.7, -2.3, 0.7], lr=0.05, epochs=5, eps=0.2)
    old, adv = np.array(S.probs), np.array([4.7, -2.3, 0.7])
    for t in range(6):
        rho = run.probs[t, [2, 0, 1]] / old[[2, 0, 1]]
        by_hand = np.minimum(rho * adv, np.clip(rho, 0.8, 1.2) * adv).mean()
        assert run.objective[t] == pytest.approx(by_hand, rel=1e-12)


# ---------------------------------------------------------------- KL


@pytest.mark.parametrize("beta", [0.0, 0.05, 1.0, 3.0])
def test_share_curve_equals_kl_regularized_objective_pointwise(beta):
    f = rlcore.FLATTERY
    shares = np.linspace(0.0, 1.0, 41)
    curve = rlcore.share_curve(shares, f.rewards, f.p_ref, beta)
    for i, s in enumerate(shares):
        one = rlcore.kl_regularized_objective([1 - s, s], f.rewards, f.p_ref, beta)
        assert curve.expected_reward[i] == pytest.approx(one.expected_reward, rel=1e-12)
        assert curve.kl[i] == pytest.approx(one.kl, rel=1e-12, abs=1e-15)
        assert curve.objective[i] == pytest.approx(one.objective, rel=1e-12)


def test_kl_by_hand():
    # KL((0.1, 0.9) ‖ (0.95, 0.05)) = 0.1 ln(0.1/0.95) + 0.9 ln(0.9/0.05)
    expected = 0.1 * math.log(0.1 / 0.95) + 0.9 * math.log(0.9 / 0.05)
    assert rlcore.kl_divergence([0.1, 0.9], [0.95, 0.05]) == pytest.approx(expected, rel=1e-12)
    assert rlcore.kl_divergence([0.5, 0.5], [1.0, 0.0]) == math.inf
    assert rlcore.kl_divergence([1.0, 0.0], [0.5, 0.5]) == pytest.approx(math.log(2), rel=1e-12)


def test_kl_optimal_policy_closed_form():
    ref, r, beta = np.array([0.95, 0.05]), np.array([9.0, 9.6]), 1.0
    w = ref * np.exp(r / beta)
    np.testing.assert_allclose(rlcore.kl_optimal_policy(ref, r, beta), w / w.sum(), rtol=1e-12)
    # its objective is the maximum, β·log Σ π_ref·e^(r/β) = 9 + ln(0.95 + 0.05·e^0.6) ≈ 9.040
    best = rlcore.kl_regularized_objective(w / w.sum(), r, ref, beta).objective
    assert best == pytest.approx(9 + math.log(0.95 + 0.05 * math.exp(0.6)), rel=1e-12)
    # a small β lets the reward win; a large β keeps the reference
    assert rlcore.kl_optimal_policy(ref, r, 0.01)[1] > 0.999
    np.testing.assert_allclose(rlcore.kl_optimal_policy(ref, r, 1e6), ref, rtol=1e-5)
