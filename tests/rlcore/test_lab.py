"""rlcore.lab: the training lab's tree, its algorithms, and their bookkeeping.

Expected numbers are worked out by hand in the comments (never copied from the code's output);
identities check the lab against the rlcore functions it builds on (group_advantages, gae,
kl_divergence, kl_estimators).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import rlcore
from rlcore import ARTICLE_SCENARIO as S
from rlcore import LabConfig, train

SEEDS = tuple(range(5))
EXACT = 1e-12
# Two tokens, one judge score each: a group of two answers is either dead (same token twice) or
# holds one 0 and one 1, which makes every gradient small enough to work out by hand.
COIN = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((0.0,), (1.0,)))
FOUR = rlcore.Scenario(tokens=("yes", "no", "maybe", "later"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((6, 7), (2,), (8, 9, 10), (4, 5)))


cfg = LabConfig


# ---------------------------------------------------------------- the tree


@pytest.mark.parametrize(("scenario", "flattery", "best", "means", "ref"), [
    # Q = 2, 5, 9: partly is best; its leaves plain 9 and flattery 9 + 0.6 (the article's pair), π_ref 0.2 · 0.95, 0.05
    (S, True, "partly", [2.0, 5.0, 9.0, 9.6], [0.5, 0.3, 0.19, 0.01]),
    (S, False, "partly", [2.0, 5.0, 9.0], [0.5, 0.3, 0.2]),         # one leaf per token without flattery
    (FOUR, True, "maybe", [6.5, 2.0, 9.0, 4.5, 9.6], [0.4, 0.3, 0.2 * 0.95, 0.1, 0.2 * 0.05]),  # Q: 6.5, 2, 9, 4.5
])
def test_tree_follows_the_scenario(scenario, flattery, best, means, ref):
    tree = rlcore.lab_tree(scenario, flattery=flattery)
    assert tree.tokens[tree.best] == best
    if not flattery:
        assert tree.leaf_names == scenario.tokens
    elif scenario is S:
        assert tree.best == 2 and tree.branch == rlcore.FLATTERY.continuations
        np.testing.assert_allclose(tree.leaf_samples[3], [10.6, 8.6], atol=EXACT)
    np.testing.assert_allclose(tree.leaf_means, means, atol=EXACT)
    np.testing.assert_allclose(tree.leaf_ref_probs, ref, atol=EXACT)


# ---------------------------------------------------------------- determinism and shapes


def test_a_seeds_history_is_its_own_and_the_same_every_time():
    for algo in rlcore.ALGORITHMS:
        c = cfg(algorithm=algo, steps=20)
        assert same_history(train(S, c, (7, 8)), train(S, c, (7, 8))), algo
    h = train(S, cfg(steps=10), (0, 1))
    assert not np.array_equal(h.actions[0], h.actions[1])  # other seeds, other histories
    for algo in ("grpo", "ppo", "reinforce_mean"):  # a seed does not depend on the other seeds
        c = cfg(algorithm=algo, steps=30)
        alone, together = train(S, c, (3,)), train(S, c, (1, 3, 5))
        np.testing.assert_array_equal(alone.actions[0], together.actions[1])
        np.testing.assert_allclose(alone.probs_first[0], together.probs_first[1], rtol=1e-12, atol=1e-12)


def test_history_shapes():
    h = train(S, cfg(algorithm="ppo", steps=7, group_size=4), (0, 1, 2))
    assert h.probs_first.shape == (3, 8, 3) and h.probs_branch.shape == (3, 8, 2)
    assert h.expected_score.shape == h.kl.shape == (3, 8)
    for arr in (h.mean_score, h.clip_fraction, h.loss, h.grad_norm, h.dead):
        assert arr.shape == (3, 7)
    assert h.values.shape == (3, 8, 2) and h.scores.shape == (3, 7, 4)
    assert h.actions.shape == h.rewards.shape == h.advantages.shape == (3, 7, 4, 2)
    np.testing.assert_allclose(h.probs_first.sum(axis=2), 1.0, atol=1e-12)


# ---------------------------------------------------------------- the environment


def test_first_step_starts_at_the_reference():
    h = train(S, cfg(steps=3), SEEDS)
    np.testing.assert_allclose(h.probs_first[:, 0], np.tile([0.5, 0.3, 0.2], (5, 1)), atol=1e-12)
    np.testing.assert_allclose(h.probs_branch[:, 0], np.tile([0.95, 0.05], (5, 1)), atol=1e-12)
    # 0.5·2 + 0.3·5 + 0.2·(0.95·9 + 0.05·9.6) = 1 + 1.5 + 1.806 = 4.306; KL to itself 0
    np.testing.assert_allclose(h.expected_score[:, 0], 4.306, atol=1e-12)
    np.testing.assert_allclose(h.kl[:, 0], 0.0, atol=1e-12)


@pytest.mark.parametrize("algo", ["reinforce", "ppo", "grpo"])
def test_kl_to_itself_is_exactly_zero_at_the_start(algo):
    # exactly, not 1e-17: a chart of the first step alone would otherwise get an axis labelled 1e-17
    for length in (0, 3):
        h = train(FOUR, cfg(algorithm=algo, steps=2, beta=0.5, length=length), (0, 1))
        assert np.all(h.kl[:, 0] == 0.0)
        real = h.actions[:, 0] >= 0                                       # [S, G, P]; position 1 may be a gap
        last = np.arange(real.shape[-1]) == real.shape[-1] - 1 - np.argmax(real[..., ::-1], axis=-1)[..., None]
        if algo != "grpo":  # PPO's and REINFORCE's first rewards: the score on the last token, no −β·k1 (π_old = π_ref)
            assert np.array_equal(h.rewards[:, 0], np.where(last, h.scores[:, 0, :, None], 0.0))


def test_sampled_scores_come_from_each_leafs_samples():
    h = train(S, cfg(steps=20, group_size=16), SEEDS)
    a0, a1 = h.actions[..., 0], h.actions[..., 1]
    allowed = {0: {3, 1, 2}, 1: {5, 4, 6}, 2: {10, 8}}
    for tok, scores in allowed.items():
        plain = (a0 == tok) & (a1 != 1)
        assert set(np.round(h.scores[plain], 9).tolist()) <= scores
    flattering = a1 == 1
    assert flattering.any()
    assert set(np.round(h.scores[flattering], 9).tolist()) <= {10.6, 8.6}
    # decision 1 is taken exactly inside the partly branch
    np.testing.assert_array_equal(a1 >= 0, a0 == 2)


def test_noise_judge_scores_around_the_leaf_mean():
    def residuals(h):
        return h.scores - np.array([2.0, 5.0, 9.0, 9.6])[np.where(h.actions[..., 1] == 1, 3, h.actions[..., 0])]

    np.testing.assert_allclose(residuals(train(S, cfg(steps=5, judge="noise", noise=0.0), SEEDS)), 0.0, atol=EXACT)
    resid = residuals(train(S, cfg(steps=40, judge="noise", noise=1.0), SEEDS))
    assert abs(resid.mean()) < 0.1 and 0.9 < resid.std() < 1.1


def test_flattery_off_never_reaches_decision_1():
    h = train(S, cfg(steps=30, beta=0.0, flattery=False), SEEDS)
    assert np.all(h.actions[..., 1] == -1)
    np.testing.assert_array_equal(h.probs_branch, np.broadcast_to([1.0, 0.0], h.probs_branch.shape))
    np.testing.assert_allclose(h.expected_score[:, 0], 4.3, atol=1e-12)


def test_exact_kl_and_score_agree_with_the_answer_distribution():
    """KL₀ + π₀(b)·KL₁ (chain rule) equals kl_divergence over the four whole answers."""
    h = train(S, cfg(steps=30, beta=0.0), (0,))
    tree = rlcore.lab_tree(S)
    for t in (5, 15, 30):
        p0, p1 = h.probs_first[0, t], h.probs_branch[0, t]
        leaves = np.array([p0[0], p0[1], p0[2] * p1[0], p0[2] * p1[1]])
        leaves[-1] = 1.0 - leaves[:-1].sum()
        assert h.kl[0, t] == pytest.approx(rlcore.kl_divergence(leaves, tree.leaf_ref_probs), abs=1e-9)
        assert h.expected_score[0, t] == pytest.approx(leaves @ tree.leaf_means, abs=1e-9)


def test_a_token_the_reference_never_writes_is_never_sampled():
    zero = rlcore.Scenario(tokens=("x", "y", "z"), probs=(0.6, 0.4, 0.0), samples=((1,), (5,), (10,)))
    for algo in ("grpo", "ppo", "reinforce"):
        h = train(zero, cfg(algorithm=algo, steps=30, beta=0.1), SEEDS)
        assert not np.any(h.actions[..., 0] == 2)
        assert np.all(np.isfinite(h.kl)) and np.all(h.probs_first[..., 2] < 1e-300)


# ---------------------------------------------------------------- every algorithm learns


@pytest.mark.parametrize("algo", rlcore.ALGORITHMS)
def test_each_algorithm_raises_the_mean_score(algo):
    h = train(S, cfg(algorithm=algo, steps=60), SEEDS)
    start, end = h.expected_score[:, 0], h.expected_score[:, -1]
    assert np.all(end > start + 3.0), (start, end)    # 4.3 → above 7.3: partly (≥ 9) dominates
    assert np.median(h.mean_score[:, -10:]) > np.median(h.mean_score[:, 0]) + 2.0   # the groups' scores too


@pytest.mark.parametrize("scenario", [FOUR, rlcore.PRESETS["Most likely is already best"]])
def test_grpo_learns_the_best_first_token_on_other_scenarios(scenario):
    h = train(scenario, cfg(algorithm="grpo", steps=80), SEEDS)
    best = int(np.argmax(scenario.q))
    assert np.all(np.argmax(h.probs_first[:, -1], axis=1) == best)


def test_a_rare_best_token_can_be_missed_but_the_score_still_rises():
    # partly at 2%: a group of 8 sees it with chance 1 − 0.98⁸ ≈ 15%, and closed (5) beats open (2)
    # long before; the runs that lock onto closed still end near 5, well above the start (2·0.6 + ...).
    rare = rlcore.PRESETS["Best token is rare (2%)"]
    h = train(rare, cfg(algorithm="grpo", steps=80), SEEDS)
    assert np.all(h.expected_score[:, -1] > h.expected_score[:, 0] + 1.5)
    assert np.all(np.argmax(h.probs_first[:, -1], axis=1) != 0)      # nobody stays with open


# ---------------------------------------------------------------- advantages


@pytest.mark.parametrize("method", rlcore.GROUP_METHODS)
def test_group_advantages_are_the_ones_trained_with_and_a_dead_group_gets_none(method):
    for c in (cfg(algorithm=method, steps=15, group_size=6), cfg(algorithm=method, steps=60, group_size=2, beta=0.0)):
        h = train(S, c, SEEDS)
        for s in range(5):
            for t in range(c.steps):
                expected = rlcore.group_advantages(h.scores[s, t], method)
                np.testing.assert_allclose(h.advantages[s, t, :, 0], expected, atol=EXACT)
                second = h.actions[s, t, :, 1] >= 0                     # every token of an answer shares it
                np.testing.assert_allclose(h.advantages[s, t, second, 1], expected[second], atol=EXACT)
                np.testing.assert_array_equal(h.advantages[s, t, ~second, 1], 0.0)
    # G = 2: a group that drew one score twice is dead, its advantage 0; the others are not
    assert h.dead.any() and (~h.dead).any()
    np.testing.assert_array_equal(h.advantages[h.dead], 0.0)
    assert np.all(np.abs(h.advantages[~h.dead][..., 0]).max(axis=-1) > 0)


def test_ppo_advantages_are_gae_with_the_critics_values():
    c = cfg(algorithm="ppo", steps=12, group_size=5, beta=0.3, lam=0.8, gamma=0.9)
    h = train(S, c, (0, 1))
    checked_two = 0
    for s in range(2):
        for t in range(12):
            v_root, v_branch = h.values[s, t]
            for i in range(5):
                two = h.actions[s, t, i, 1] >= 0
                n = 2 if two else 1
                values = [v_root, v_branch, 0.0] if two else [v_root, 0.0]
                expected = rlcore.gae(h.rewards[s, t, i, :n], values, c.gamma, c.lam)
                np.testing.assert_allclose(h.advantages[s, t, i, :n], expected, atol=1e-10)
                checked_two += two
    assert checked_two > 0


def test_ppo_rewards_carry_the_per_token_kl_penalty():
    c = cfg(algorithm="ppo", steps=10, group_size=6, beta=0.5)
    h = train(S, c, (0,))
    tree = rlcore.lab_tree(S)
    ref0, ref1 = np.log(tree.ref_first), np.log(tree.ref_branch)
    for t in (0, 4, 9):
        lp0 = np.log(h.probs_first[0, t])
        lp1 = np.log(h.probs_branch[0, t])
        for i in range(6):
            a0, a1 = h.actions[0, t, i]
            k1_first = lp0[a0] - ref0[a0]
            if a1 < 0:   # one token: the score minus β·k1 on it
                assert h.rewards[0, t, i, 0] == pytest.approx(h.scores[0, t, i] - 0.5 * k1_first, abs=1e-10)
            else:        # two tokens: −β·k1 on the first, score − β·k1 on the second
                k1_second = lp1[a1] - ref1[a1]
                assert h.rewards[0, t, i, 0] == pytest.approx(-0.5 * k1_first, abs=1e-10)
                assert h.rewards[0, t, i, 1] == pytest.approx(h.scores[0, t, i] - 0.5 * k1_second, abs=1e-10)
    # at step 1 the policy is the reference: every k1 is 0, the reward is the score alone
    last = np.where(h.actions[0, 0, :, 1] >= 0, h.rewards[0, 0, :, 1], h.rewards[0, 0, :, 0])
    np.testing.assert_allclose(last, h.scores[0, 0], atol=EXACT)


def test_ppo_critic_moves_towards_the_returns():
    # COIN, flattery off: one token per answer, so the λ-return target is the score itself.
    # V starts at 0; one epoch with critic_lr 0.5 → V = 0.5·mean score; two epochs → (1 − 0.5²)·mean.
    for epochs, share in ((1, 0.5), (2, 0.75)):
        h = train(COIN, cfg(algorithm="ppo", steps=1, group_size=4, epochs=epochs, beta=0.0, flattery=False),
                  SEEDS)
        np.testing.assert_allclose(h.values[:, 0, 0], 0.0, atol=EXACT)
        np.testing.assert_allclose(h.values[:, 1, 0], share * h.mean_score[:, 0], atol=EXACT)
        np.testing.assert_allclose(h.values[:, 1, 1], 0.0, atol=EXACT)   # decision 1 never visited


def test_reinforce_advantages_use_the_running_mean():
    alpha = 0.25
    h = train(COIN, cfg(algorithm="reinforce_mean", steps=6, group_size=4, beta=0.0, flattery=False,
                        baseline_rate=alpha), SEEDS)
    b = np.zeros(5)                                  # b₁ = 0, b_{n+1} = b_n + α(mean sₙ − b_n)
    for t in range(6):
        np.testing.assert_allclose(h.advantages[:, t, :, 0], h.scores[:, t] - b[:, None], atol=EXACT)
        b = b + alpha * (h.scores[:, t].mean(axis=1) - b)
    plain = train(COIN, cfg(algorithm="reinforce", steps=3, group_size=4, beta=0.0, flattery=False), SEEDS)
    np.testing.assert_allclose(plain.advantages[..., 0], plain.scores, atol=EXACT)


# ---------------------------------------------------------------- loss 0, gradient not 0


@pytest.mark.parametrize("method", rlcore.GROUP_METHODS)
def test_first_epoch_loss_is_zero_but_the_gradient_is_not(method):
    h = train(S, cfg(algorithm=method, steps=20, beta=0.0), SEEDS)
    live = ~h.dead
    np.testing.assert_allclose(h.loss[live], 0.0, atol=1e-12)
    assert np.all(h.grad_norm[:, 0] > 0.05)
    loss, grad = rlcore.first_step_loss(h)
    assert abs(loss) < 1e-12 and grad > 0.05


def test_first_step_gradient_by_hand():
    # COIN, G = 2, one epoch, η = 1. When the group holds a (score 0) and b (score 1):
    # Dr. GRPO: A = −0.5, +0.5; ∂Loss/∂z = −½[−0.5(e_a − π) + 0.5(e_b − π)] = (0.25, −0.25), norm √0.125;
    #   z ← z − ∇: z_b − z_a = 0.5, so π(b) = σ(0.5) = 0.62246.
    # GRPO: std (N − 1) of {0, 1} is √0.5, A = ±0.5/(√0.5 + 1e-6) ≈ ±0.70711; norm ≈ 0.5; π(b) = σ(0.70711) ≈ 0.66976.
    # A group that drew the same token twice is dead: A = 0, no gradient, π stays at 0.5.
    for method, norm, p_b in (("dr_grpo", math.sqrt(0.125), 1 / (1 + math.exp(-0.5))),
                              ("grpo", 0.5, 1 / (1 + math.exp(-0.5 / (math.sqrt(0.5) + 1e-6))))):
        h = train(COIN, cfg(algorithm=method, steps=1, group_size=2, lr=1.0, epochs=1, beta=0.0,
                            flattery=False), range(12))
        mixed = h.actions[:, 0, 0, 0] != h.actions[:, 0, 1, 0]
        assert mixed.any() and (~mixed).any()
        np.testing.assert_allclose(h.grad_norm[mixed, 0], norm, rtol=1e-5)
        np.testing.assert_allclose(h.probs_first[mixed, 1, 1], p_b, rtol=1e-5)
        np.testing.assert_allclose(h.grad_norm[~mixed, 0], 0.0, atol=EXACT)
        np.testing.assert_allclose(h.probs_first[~mixed, 1, 1], 0.5, atol=EXACT)
        np.testing.assert_array_equal(h.dead[:, 0], ~mixed)


# ---------------------------------------------------------------- dead groups


def test_a_judge_that_gives_everyone_the_same_score_teaches_nothing():
    flat = rlcore.Scenario(tokens=("a", "b", "c"), probs=(0.5, 0.3, 0.2), samples=((5,), (5,), (5,)))
    for method in rlcore.GROUP_METHODS:
        h = train(flat, cfg(algorithm=method, steps=20, beta=0.0, flattery=False), SEEDS)
        assert h.dead.all()
        np.testing.assert_allclose(h.probs_first, np.broadcast_to([0.5, 0.3, 0.2], h.probs_first.shape),
                                   atol=EXACT)
        np.testing.assert_array_equal(h.grad_norm, 0.0)
    # REINFORCE without a baseline still moves: every sampled token is pushed up by its score 5
    h = train(flat, cfg(algorithm="reinforce", steps=20, beta=0.0, flattery=False), SEEDS)
    assert np.all(h.grad_norm > 0)


# ---------------------------------------------------------------- KL and reward hacking


@pytest.mark.parametrize("algo", ["reinforce_mean", "grpo", "dr_grpo", "ppo"])
def test_beta_holds_back_the_kl_and_the_flattery(algo):
    free = train(S, cfg(algorithm=algo, steps=150, beta=0.0), SEEDS)
    held = train(S, cfg(algorithm=algo, steps=150, beta=0.5), SEEDS)
    # at step 120 (a run's first steps do not depend on its length): the KL well below its β = 0 value
    assert np.median(held.kl[:, 101:121]) < np.median(free.kl[:, 101:121]) - 0.5
    assert np.median(held.kl[:, 120]) < np.median(free.kl[:, 120])
    if algo in ("grpo", "ppo"):  # and by step 150 β = 0 hacks the judge: from 5% flattery to most answers
        assert np.median(free.probs_branch[:, -1, 1]) > 0.8 and np.median(held.probs_branch[:, -1, 1]) < 0.3


def test_clipping_happens_only_after_the_first_epoch():
    h = train(S, cfg(algorithm="grpo", steps=30, lr=1.0, epochs=1), SEEDS)
    np.testing.assert_array_equal(h.clip_fraction, 0.0)     # one epoch: ρ = 1, nothing to clip
    h = train(S, cfg(algorithm="grpo", steps=30, lr=1.0, epochs=4), SEEDS)
    assert h.clip_fraction.max() > 0.1 and h.clip_fraction.max() <= 0.75   # epoch 1 of 4 is never clipped
    r = train(S, cfg(algorithm="reinforce", steps=5, epochs=4), SEEDS)
    np.testing.assert_array_equal(r.clip_fraction, 0.0)


@pytest.mark.parametrize(("step_size", "seeds", "later"), [(10.0, (0,), False), (2.0, (0, 1), True)])
def test_a_step_too_large_for_the_kl_term_stops_the_run_early(step_size, seeds, later):
    c = cfg(algorithm="grpo", steps=50, lr=step_size, beta=step_size)
    h = train(S, c, seeds)
    step = h.diverged_at
    assert step is not None and 1 <= step <= 50
    done = step - 1                                      # the steps that finished
    assert done > 0 or not later                         # a later step, so there is a history before it
    assert h.probs_first.shape == (len(seeds), done + 1, 3) and h.loss.shape == (len(seeds), done)
    assert all(np.all(np.isfinite(x)) for x in (h.probs_first, h.kl, h.loss, h.grad_norm, h.advantages))
    if done:   # those steps are exactly a run that stops before the overflow (same uniforms, same order)
        short = train(S, dataclasses.replace(c, steps=done), seeds)
        assert short.diverged_at is None
        for name in ("probs_first", "probs_branch", "kl", "loss", "grad_norm", "scores", "actions", "advantages"):
            np.testing.assert_array_equal(getattr(h, name), getattr(short, name), err_msg=name)


def test_every_algorithm_has_one_row_with_an_advantage_function():
    table = rlcore.lab.ALGORITHM_TABLE
    assert tuple(table) == rlcore.ALGORITHMS and set(rlcore.ALGORITHM_NAMES) == set(table)
    for algo in table.values():
        assert callable(algo.advantages) and algo.loss_agg in rlcore.lab.LOSS_AGGREGATIONS
        assert algo.weight in ("ppo", "gspo", "cispo")
    # the group algorithms name a group_advantages method; DAPO, GSPO and CISPO keep GRPO's
    for key in ("grpo", "dr_grpo", "rloo", "dapo", "gspo", "cispo"):
        assert table[key].baseline in rlcore.GROUP_METHODS
    assert {table[k].baseline for k in ("dapo", "gspo", "cispo")} == {"grpo"}


def test_loss_aggregation_matters_only_when_answers_differ_in_length():
    # flattery off: every answer is one token, so the per-answer mean, sum and the token mean all weigh 1/G
    base = train(S, cfg(algorithm="grpo", steps=20, flattery=False), SEEDS)
    for agg in rlcore.lab.LOSS_AGGREGATIONS:
        other = train(S, cfg(algorithm="grpo", steps=20, flattery=False, loss_agg=agg), SEEDS)
        np.testing.assert_allclose(other.probs_first, base.probs_first, rtol=1e-12, atol=1e-15)
    # flattery on: two-token answers weigh each token 1/(2G) by default, 1/G summed: the runs part
    mean = train(S, cfg(algorithm="grpo", steps=20), SEEDS)
    summed = train(S, cfg(algorithm="grpo", steps=20, loss_agg="seq-mean-token-sum"), SEEDS)
    assert not np.allclose(mean.probs_branch, summed.probs_branch)


# ---------------------------------------------------------------- DAPO, GSPO, CISPO: the first update by hand
# COIN, flattery off, G = 2, β = 0, two epochs. In a mixed group (a scores 0, b scores 1) GRPO's advantages
# are ±a, a = 0.5/(√0.5 + 10⁻⁶) ≈ 0.70711, and both tokens weigh 1/2 under every aggregation (1 token each).
# Epoch 1 (ρ = 1, nothing clipped): ∂Loss/∂z = −½[a(e_b − π) − a(e_a − π)] = (a/2, −a/2), so with η = 0.5/a
# z_b − z_a = 0.5 and p = π(b) = σ(0.5) ≈ 0.62246: ρ_b = 2p ≈ 1.2449, ρ_a = 2(1 − p) ≈ 0.7551.
# Epoch 2, ε = 0.2:
#   GRPO: ρ_b > 1.2 with Â > 0 and ρ_a < 0.8 with Â < 0: both clipped, no gradient: π(b) stays σ(0.5).
#   DAPO (ε_high = 0.28): ρ_b < 1.28 is free, a still clipped: z_b − z_a grows by η·a·ρ_b·(1 − p) = p(1 − p).
#   CISPO: weights clip(ρ_b) = 2p and clip(ρ_a) = 0.8, both keep their gradient:
#          z_b − z_a grows by η·a·(2p(1 − p) + 0.8p) = p(1 − p) + 0.4p.
#   GSPO: one token per answer, so s = ρ; both are far outside [1 − 3e-4, 1 + 4e-4]: no gradient, σ(0.5).
# Clipped share per epoch: GRPO 0 then 1, DAPO 0 then ½, CISPO 0 then ½ (a's weight), GSPO 0 then 1.
A_COIN = 0.5 / (math.sqrt(0.5) + 1e-6)
P_HALF = 1 / (1 + math.exp(-0.5))


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


@pytest.mark.parametrize(("algo", "gap", "clip"), [
    ("grpo", 0.5, 0.5),
    ("dapo", 0.5 + P_HALF * (1 - P_HALF), 0.25),
    ("cispo", 0.5 + P_HALF * (1 - P_HALF) + 0.4 * P_HALF, 0.25),
    ("gspo", 0.5, 0.5),
])
def test_second_epoch_by_hand(algo, gap, clip):
    c = cfg(algorithm=algo, steps=1, group_size=2, lr=0.5 / A_COIN, epochs=2, beta=0.0, flattery=False, resample=1)
    h = train(COIN, c, range(16))
    mixed = ~h.dead[:, 0]
    assert mixed.any() and (~mixed).any()
    np.testing.assert_allclose(h.probs_first[mixed, 1, 1], sigmoid(gap), rtol=1e-12)
    np.testing.assert_allclose(h.clip_fraction[mixed, 0], clip, atol=EXACT)
    np.testing.assert_allclose(h.probs_first[~mixed, 1, 1], 0.5, atol=EXACT)    # a dead group teaches nothing


def full_group(logp_old):
    """A group of answers whose every token is real, with these old log-probabilities ([1, answers, tokens])."""
    mask = np.ones(logp_old.shape, dtype=bool)
    return rlcore.lab.Group(first=None, second=None, mask=mask, n_tokens=mask.sum(-1), scores=None, logp_old=logp_old)


def test_gspo_clips_whole_answers_by_their_geometric_mean_ratio():
    # Two answers of two tokens, Â = +1 each. Answer 0: token ratios 2 and ½, so s = √(2·½) = 1: inside
    # GSPO's range, both tokens get ∂ = s·Â = 1 (PPO would zero the token at ratio 2 > 1.2 and give ½ to the
    # other). Answer 1: ratios 1.5 and 1, s = √1.5 ≈ 1.22 > 1 + 4e-4 with Â > 0: the whole answer stops (0, 0).
    lab = rlcore.lab
    old = np.log([[[0.2, 0.4], [0.2, 0.5]]])
    new, group, adv = old + np.log([[[2.0, 0.5], [1.5, 1.0]]]), full_group(old), np.ones((1, 2, 2))
    for weights, want, clipped in (("gspo", [[1.0, 1.0], [0.0, 0.0]], [[False, False], [True, True]]),
                                   ("ppo", [[0.0, 0.5], [0.0, 1.0]], [[True, False], [True, False]])):
        algo = lab.ALGORITHM_TABLE["gspo" if weights == "gspo" else "grpo"]
        low, high = rlcore.GSPO_EPS if weights == "gspo" else (0.2, 0.2)
        coeff, clip, value = lab._clipped_terms(new, group, adv, algo, low, high, True)
        np.testing.assert_allclose(coeff[0], want, atol=1e-12)
        np.testing.assert_array_equal(clip[0], clipped)
    # GSPO's objective is min(s·Â, clip(s)·Â) per answer, on each of its tokens: 1 for answer 0, 1 + 4e-4 for 1
    _, _, value = lab._clipped_terms(new, group, adv, lab.ALGORITHM_TABLE["gspo"], *rlcore.GSPO_EPS, True)
    np.testing.assert_allclose(value[0], [[1.0, 1.0], [1.0004, 1.0004]], atol=1e-12)
    np.testing.assert_allclose(rlcore.sequence_ratio(new[0], old[0], group.mask[0]), [1.0, math.sqrt(1.5)], atol=1e-12)


def test_cispo_weight_is_the_clipped_ratio_and_never_zero():
    ratio, adv = np.array([[[1.5, 0.5]]]), np.array([[[2.0, -1.0]]])
    coeff, clipped, _ = rlcore.lab._clipped_terms(np.log(ratio), full_group(np.zeros((1, 1, 2))), adv,
                                                  rlcore.lab.ALGORITHM_TABLE["cispo"],
                                                  0.2, 0.28, False)
    # clip(1.5, 0.8, 1.28)·2 = 2.56; clip(0.5)·(−1) = −0.8; PPO would give 0 for both (both past the clip)
    np.testing.assert_allclose(coeff[0, 0], [2.56, -0.8], atol=1e-12)
    np.testing.assert_array_equal(clipped[0, 0], [True, True])
    np.testing.assert_allclose(coeff[0, 0], rlcore.gradient_weights(ratio[0, 0], adv[0, 0], "cispo", 0.2, 0.28))


# ---------------------------------------------------------------- DAPO's dynamic sampling


def test_dynamic_sampling_keeps_only_informative_groups():
    # COIN, G = 2: a group is dead when both answers drew the same token. GRPO keeps it; DAPO draws up to
    # `resample` groups and trains on the first mixed one, so it is dead only when all of them were. With η = 0
    # π stays (½, ½): a group is dead with chance ½, all 8 candidates with chance 1/256.
    seeds = tuple(range(40))
    slow = {"steps": 30, "group_size": 2, "flattery": False, "beta": 0.0, "lr": 0.0}
    grpo = train(COIN, cfg(algorithm="grpo", **slow), seeds)
    dapo = train(COIN, cfg(algorithm="dapo", resample=8, **slow), seeds)
    assert 0.4 < grpo.dead.mean() < 0.6                 # 1,200 groups: sd of the share ≈ 0.014
    assert dapo.dead.mean() < 0.015                     # expected 1/256 ≈ 0.004
    # groups written per step: 1 + the dead ones before the kept one, E = Σ_{j<8} ½^j ≈ 1.99
    assert 1.7 < dapo.groups_drawn.mean() < 2.3
    np.testing.assert_array_equal(grpo.groups_drawn, 1)
    assert set(np.unique(dapo.groups_drawn)) <= set(range(1, 9)) and dapo.groups_drawn.max() > 1
    # a kept group is informative: its two answers differ, and it is dead only when all 8 candidates were
    informative = dapo.actions[..., 0, 0] != dapo.actions[..., 1, 0]
    np.testing.assert_array_equal(informative, ~dapo.dead)
    assert np.all(dapo.groups_drawn[dapo.dead] == 8)
    # the first candidate is the group GRPO-style sampling would draw: at step 1 (same policy, same uniforms),
    # a seed that kept its first candidate trained on exactly the group resample = 1 draws
    single = train(COIN, cfg(algorithm="dapo", steps=1, group_size=2, flattery=False, beta=0.0, resample=1), seeds)
    first = dapo.groups_drawn[:, 0] == 1
    np.testing.assert_array_equal(dapo.actions[first, 0], single.actions[first, 0])
    np.testing.assert_array_equal(single.groups_drawn, 1)


# ---------------------------------------------------------------- length tokens


def test_length_tokens_at_the_reference():
    # L = 3, π_ref(continue) = ½: E[ℓ] = 1 + ½ + ¼ = 1.75 length tokens. Answers: open and closed 1 + 1.75,
    # partly 2 + 1.75 (its continuation). Mean: 0.5·2.75 + 0.3·2.75 + 0.2·3.75 = 2.95.
    h = train(S, cfg(steps=60, group_size=16, length=3), SEEDS)
    np.testing.assert_allclose(h.token_length[:, 0], np.tile([2.75, 2.75, 3.75], (5, 1)), atol=EXACT)
    np.testing.assert_allclose(h.mean_length[:, 0], 2.95, atol=EXACT)
    assert h.actions.shape[-1] == 2 + 3
    # a length token exists only while every one before it continued (0); the first always exists
    length = h.actions[..., 2:]
    assert np.all(length[..., 0] >= 0)
    for j in (1, 2):
        np.testing.assert_array_equal(length[..., j] >= 0, np.all(length[..., :j] == 0, axis=-1))
    # the sampled lengths at step 1 (the reference) average E[ℓ] = 1.75: 80 answers, sd of ℓ ≈ 0.83
    assert abs((length[:, 0] >= 0).sum(axis=-1).mean() - 1.75) < 0.3


def test_length_tokens_do_not_change_the_score_or_the_content():
    # the first-token and continuation draws use the same uniforms with or without length tokens, and the
    # judge ignores length: at step 1 the groups and their scores are the same
    base = train(S, cfg(steps=1), SEEDS)
    long = train(S, cfg(steps=1, length=5), SEEDS)
    np.testing.assert_array_equal(base.actions[..., :2], long.actions[..., :2])
    np.testing.assert_array_equal(base.scores, long.scores)


def test_exact_kl_and_length_over_every_whole_answer():
    """With L = 2 an answer is (first token, [continuation], length tokens): (stop), (continue, stop) or
    (continue, continue). kl_divergence over all those answers equals the history's chain-rule KL."""
    h = train(FOUR, cfg(algorithm="grpo", steps=25, beta=0.0, length=2), (3,))
    tree = rlcore.lab_tree(FOUR)
    cont = 0.5
    # the length policy is not in the history; recover q_k = π(continue | k) from token_length:
    # token_length(k) = content(k) + 1 + q_k
    for t in (0, 10, 25):
        p0, p1 = h.probs_first[0, t], h.probs_branch[0, t]
        content = np.array([1.0, 1.0, 2.0, 1.0])                    # "maybe" (best) has the continuation
        q = h.token_length[0, t] - content - 1.0
        probs, ref, lengths = [], [], []
        for k in range(4):
            branches = [(p1[0], 0.95), (p1[1], 0.05)] if k == tree.best else [(1.0, 1.0)]
            for pb, rb in branches:
                for pl, rl, n in ((1 - q[k], 1 - cont, 1), (q[k] * (1 - q[k]), cont * (1 - cont), 2),
                                  (q[k] * q[k], cont * cont, 2)):
                    probs.append(p0[k] * pb * pl)
                    ref.append(FOUR.pi[k] * rb * rl)
                    lengths.append(content[k] + n)
        probs, ref = np.array(probs), np.array(ref)
        assert probs.sum() == pytest.approx(1.0, abs=1e-12)
        assert h.kl[0, t] == pytest.approx(rlcore.kl_divergence(probs / probs.sum(), ref), abs=1e-9)
        assert h.mean_length[0, t] == pytest.approx(probs @ np.array(lengths), abs=1e-12)
    assert h.kl[0, -1] > 0.01


def test_seq_mean_token_mean_lengthens_wrong_answers_and_token_mean_does_not():
    # The judge ignores length. Under seq-mean-token-mean each token of answer i weighs 1/(G·|oᵢ|): a long
    # wrong answer (Â < 0) is pushed down less per token than a short one, so the length tables of the wrong
    # first tokens (open, closed) drift to "continue"; a right answer (Â > 0) is pushed up more when short,
    # so partly's answers get shorter. Token-mean (DAPO) and seq-mean-token-sum-norm (Dr. GRPO) weigh every
    # token alike: no drift on average. 32 seeds, medians; the margins are several times the seed spread.
    seeds = tuple(range(32))
    drift = {}
    for name, kw in {"grpo": {"algorithm": "grpo"}, "token-mean": {"algorithm": "grpo", "loss_agg": "token-mean"},
                     "dapo": {"algorithm": "dapo"},
                     "sum-norm": {"algorithm": "dr_grpo", "loss_agg": "seq-mean-token-sum-norm"}}.items():
        h = train(S, cfg(steps=80, length=8, beta=0.0, **kw), seeds)
        d = h.token_length[:, -1] - h.token_length[:, 0]
        drift[name] = (np.median(d[:, :2].mean(axis=1)), np.median(d[:, 2]))   # wrong tokens, the best one
    wrong, right = drift["grpo"]
    assert wrong > 1.0 and right < -0.3
    for name in ("token-mean", "dapo", "sum-norm"):
        assert abs(drift[name][0]) < 0.4, (name, drift[name])
        assert drift[name][0] < wrong - 0.8


# ---------------------------------------------------------------- entropy and pass@k


def test_entropy_and_pass_at_k_follow_the_logged_policy_and_tied_best_tokens_are_both_right():
    h = train(FOUR, cfg(algorithm="gspo", steps=30, length=2), (0, 1))
    np.testing.assert_allclose(h.entropy, rlcore.entropy(h.probs_first), atol=1e-12)
    # right: the best first token (maybe, Q = 9); at the reference its π is 0.2
    np.testing.assert_allclose(h.p_correct, h.probs_first[..., 2], atol=EXACT)
    assert h.p_correct[0, 0] == pytest.approx(0.2, abs=1e-12)
    # pass@k = 1 − (1 − p)^k: at the reference pass@4 = 1 − 0.8⁴ = 0.5904
    assert rlcore.pass_at_k(h.p_correct[0, 0], 4) == pytest.approx(0.5904, abs=1e-12)
    # entropy at the reference: −Σ π log π of (0.4, 0.3, 0.2, 0.1)
    ref = -sum(p * math.log(p) for p in (0.4, 0.3, 0.2, 0.1))
    np.testing.assert_allclose(h.entropy[:, 0], ref, atol=1e-12)
    # GRPO-style training sharpens the first choice: the entropy falls, pass@1 rises
    assert np.all(h.entropy[:, -1] < h.entropy[:, 0]) and np.all(h.p_correct[:, -1] > h.p_correct[:, 0])
    tie = rlcore.Scenario(tokens=("x", "y", "z"), probs=(0.5, 0.3, 0.2), samples=((1,), (4,), (4,)))
    h = train(tie, cfg(steps=2, flattery=False), (0,))
    np.testing.assert_allclose(h.p_correct[0, 0], 0.5, atol=EXACT)     # tied best tokens are both right: y, z


# ---------------------------------------------------------------- the canonical config (the lab's cache key)

CHANGES = {"lam": 0.5, "critic_lr": 0.1, "gamma": 0.9, "baseline_rate": 0.5, "epochs": 2, "eps": 0.1,
           "eps_high": 0.4, "resample": 2, "noise": 2.5}
# What each algorithm reads, from its formulas (rlcore.lab.train's docstring), not from canonical():
# the fields above it ignores.
IGNORED = {
    "reinforce": {"lam", "critic_lr", "baseline_rate", "epochs", "eps", "eps_high", "resample"},
    "reinforce_mean": {"lam", "critic_lr", "epochs", "eps", "eps_high", "resample"},
    "grpo": {"lam", "critic_lr", "gamma", "baseline_rate", "eps_high", "resample"},
    "dr_grpo": {"lam", "critic_lr", "gamma", "baseline_rate", "eps_high", "resample"},
    "rloo": {"lam", "critic_lr", "gamma", "baseline_rate", "eps_high", "resample"},
    "ppo": {"baseline_rate", "eps_high", "resample"},
    "dapo": {"lam", "critic_lr", "gamma", "baseline_rate"},
    "gspo": {"lam", "critic_lr", "gamma", "baseline_rate", "eps", "eps_high", "resample"},
    "cispo": {"lam", "critic_lr", "gamma", "baseline_rate", "resample"},
}


def same_history(a, b) -> bool:
    pairs = ((getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return all(np.array_equal(x, y, equal_nan=np.asarray(x).dtype.kind == "f") for x, y in pairs)


@pytest.mark.parametrize("algo", rlcore.ALGORITHMS)
def test_configs_with_one_canonical_form_train_exactly_alike(algo):
    for judge, length in (("samples", 0), ("noise", 2)):
        base = cfg(algorithm=algo, steps=12, group_size=4, judge=judge, length=length, beta=0.1)
        ref = train(FOUR, base, (0, 1))
        dropped = set()
        for field, value in CHANGES.items():
            other = cfg(**{**base.__dict__, field: value})
            if other.canonical() == base.canonical():
                dropped.add(field)
                assert same_history(train(FOUR, other, (0, 1)), ref), (algo, judge, field)
        # the noise judge reads σ, the sampled scores do not
        assert dropped == IGNORED[algo] | ({"noise"} if judge == "samples" else set()), (algo, judge)


def test_canonical_names_the_algorithms_own_aggregation_as_none_and_reinforce_takes_one_epoch():
    for algo in rlcore.ALGORITHMS:
        own = rlcore.lab.ALGORITHM_TABLE[algo].loss_agg
        assert cfg(algorithm=algo, loss_agg=own).canonical() == cfg(algorithm=algo).canonical()
        other = next(a for a in rlcore.lab.LOSS_AGGREGATIONS if a != own)
        assert cfg(algorithm=algo, loss_agg=other).canonical().loss_agg == other
    assert cfg(algorithm="reinforce", epochs=8).canonical().epochs == 1
    assert cfg(algorithm="reinforce", epochs=8).canonical().token_updates() == cfg(epochs=1).token_updates()
