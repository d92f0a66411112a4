"""rlcore.aggregation: token weights per loss mode, GSPO's ratio, PPO/CISPO gradient weights, dynamic sampling.

Expected values are worked out by hand in the comments, from the formulas in the docstrings.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rlcore
from tests.rejects import names

# three answers of 2, 4 and 1 tokens (7 in all), padded to T = 4
MASK = [[1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]]
# padding holds 99: any weight it got would show
LOSSES = [[1.0, 3.0, 99.0, 99.0], [2.0, 2.0, 2.0, 2.0], [5.0, 0.0, 0.0, 0.0]]
M = np.array(MASK, dtype=float)


# ---------------------------------------------------------------- token_weights and aggregate_loss


SHORT_LONG = [[1, 0, 0, 0], [1, 1, 1, 1]]
LEADING = np.array([[[1, 0], [1, 1]], [[1, 1], [1, 1]]])   # the lab's [seeds, G, P]: 1 and 2 tokens, then 2 and 2


@pytest.mark.parametrize(("mask", "mode", "max_len", "expected"), [
    (MASK, "token-mean", None, M / 7),                                   # 1/Σ|o| = 1/(2+4+1)
    (MASK, "seq-mean-token-mean", None, M * [[1 / 6], [1 / 12], [1 / 3]]),  # 1/(n·|o_i|) = 1/(3·2), 1/(3·4), 1/(3·1)
    (MASK, "seq-mean-token-sum", None, M / 3),                           # 1/n
    (MASK, "seq-mean-token-sum-norm", None, M / 12),                     # 1/(n·L_max), L_max = T = 4
    (MASK, "seq-mean-token-sum-norm", 8, M / 24),                        # 1/(3·8) with a larger max_len
    (M.astype(bool), "token-mean", None, M / 7),                         # a boolean mask
    # one group per leading index
    (LEADING, "token-mean", None, [[[1 / 3, 0], [1 / 3, 1 / 3]], [[1 / 4] * 2] * 2]),
    (LEADING, "seq-mean-token-sum-norm", 4, [[[1 / 8, 0], [1 / 8, 1 / 8]], [[1 / 8] * 2] * 2]),
    # the length bias: two wrong answers of 1 and 4 tokens; per-answer means give each short token 1/2 and each
    # long token 1/8 of the push, token-mean gives every token 1/5
    (SHORT_LONG, "seq-mean-token-mean", None, [[0.5, 0, 0, 0], [0.125] * 4]),
    (SHORT_LONG, "token-mean", None, [[0.2, 0, 0, 0], [0.2] * 4]),
])
def test_token_weights_by_hand(mask, mode, max_len, expected):
    kw = {} if max_len is None else {"max_len": max_len}
    np.testing.assert_allclose(rlcore.token_weights(mask, mode, **kw), expected, rtol=1e-14, atol=1e-17)


@pytest.mark.parametrize(("mode", "expected"), [
    ("token-mean", 17 / 7),              # (1+3 + 2·4 + 5)/7 = 17/7
    ("seq-mean-token-mean", 3.0),        # (4/2 + 8/4 + 5/1)/3 = (2+2+5)/3
    ("seq-mean-token-sum", 17 / 3),      # (4 + 8 + 5)/3
    ("seq-mean-token-sum-norm", 17 / 12),  # (4 + 8 + 5)/(3·4)
])
def test_aggregate_loss_by_hand(mode, expected):
    assert rlcore.aggregate_loss(LOSSES, MASK, mode) == pytest.approx(expected, rel=1e-14)


@st.composite
def masks(draw, same_length: bool = False):
    n, t = draw(st.integers(1, 6)), draw(st.integers(1, 8))
    length = draw(st.integers(1, t))
    rows = []
    for _ in range(n):
        k = length if same_length else draw(st.integers(1, t))
        cols = draw(st.permutations(range(t)))[:k]
        rows.append([1 if c in cols else 0 for c in range(t)])
    return np.array(rows)


@given(masks(same_length=True))
def test_token_mean_equals_seq_mean_token_mean_for_equal_lengths(mask):
    np.testing.assert_allclose(rlcore.token_weights(mask, "token-mean"),
                               rlcore.token_weights(mask, "seq-mean-token-mean"), rtol=1e-14)


@given(masks(), st.sampled_from(["token-mean", "seq-mean-token-mean"]))
def test_mean_modes_give_weights_that_sum_to_1(mask, mode):
    w = rlcore.token_weights(mask, mode)
    assert np.all(w >= 0) and np.all(w[mask == 0] == 0)
    assert w.sum() == pytest.approx(1.0, abs=1e-12)


@given(masks(), st.integers(0, 5))
def test_sum_modes_total_the_mean_length(mask, extra):
    n, t = mask.shape
    mean_len = mask.sum() / n
    assert rlcore.token_weights(mask, "seq-mean-token-sum").sum() == pytest.approx(mean_len)
    w = rlcore.token_weights(mask, "seq-mean-token-sum-norm", max_len=t + extra)
    assert w.sum() == pytest.approx(mean_len / (t + extra))


# ---------------------------------------------------------------- sequence_ratio


def test_sequence_ratio_by_hand():
    # answer 0: token ratios 0.2/0.1 = 2 and 0.1/0.2 = 1/2, geometric mean 1; its padding (−5 vs −1) is ignored
    # answer 1: token ratios 2, 2, 4: exp((log 2 + log 2 + 2 log 2)/3) = 2^(4/3)
    new = [[math.log(0.2), math.log(0.1), -5.0], [math.log(0.4), math.log(0.6), math.log(0.8)]]
    old = [[math.log(0.1), math.log(0.2), -1.0], [math.log(0.2), math.log(0.3), math.log(0.2)]]
    s = rlcore.sequence_ratio(new, old, [[1, 1, 0], [1, 1, 1]])
    np.testing.assert_allclose(s, [1.0, 2 ** (4 / 3)], rtol=1e-13)


@given(st.lists(st.tuples(st.floats(-20, 0), st.floats(-20, 0)), min_size=1, max_size=6))
def test_one_token_answers_get_their_token_ratio(pairs):
    new = np.array([[a] for a, _ in pairs])
    old = np.array([[b] for _, b in pairs])
    s = rlcore.sequence_ratio(new, old, np.ones_like(new))
    np.testing.assert_allclose(s, np.exp(new - old)[:, 0], rtol=1e-12)


@given(st.lists(st.tuples(st.floats(-5, 0), st.floats(-5, 0)), min_size=1, max_size=8))
def test_sequence_ratio_is_at_most_the_mean_token_ratio(pairs):
    # geometric mean ≤ arithmetic mean (AM-GM)
    new = np.array([[a for a, _ in pairs]])
    old = np.array([[b for _, b in pairs]])
    s = rlcore.sequence_ratio(new, old, np.ones_like(new))[0]
    assert s <= np.exp(new - old).mean() * (1 + 1e-12)


# ---------------------------------------------------------------- gradient_weights

RHO = [0.7, 0.9, 1.1, 1.3, 0.7, 1.3]
ADV = [1.0, 1.0, 1.0, 1.0, -1.0, -1.0]


@pytest.mark.parametrize(("rho", "adv", "mode", "eps", "expected"), [
    # ε = 0.2: Â > 0 is clipped above 1.2 (ρ = 1.3 → 0); Â < 0 below 0.8 (ρ = 0.7 → 0);
    # elsewhere ρ·Â: 0.7, 0.9, 1.1 and −1.3 (Â < 0 with ρ = 1.3: min(−1.3, −1.2) keeps the unclipped term)
    (RHO, ADV, "ppo", {}, [0.7, 0.9, 1.1, 0.0, 0.0, -1.3]),
    (RHO, ADV, "cispo", {}, [0.8, 0.9, 1.1, 1.2, -0.8, -1.2]),            # clip(ρ, 0.8, 1.2)·Â
    # clip higher: ρ = 1.25, Â = 1 is above 1 + 0.2 (no gradient), below 1 + 0.28 (gradient 1.25)
    ([1.25], [1.0], "ppo", {}, [0.0]),
    ([1.25], [1.0], "ppo", {"eps_high": 0.28}, [1.25]),
    # ε_low still governs Â < 0: ρ = 0.75 < 0.8 → 0; with ε_low = 0.3, 0.75 > 0.7 → −0.75
    ([0.75], [-1.0], "ppo", {"eps_high": 0.28}, [0.0]),
    ([0.75], [-1.0], "ppo", {"eps_low": 0.3}, [-0.75]),
    # per-answer advantages broadcast over tokens: answer 0 (Â = 2): ρ 1.3 clipped → 0, ρ 0.9 → 1.8;
    # answer 1 (Â = −1): ρ 0.7 clipped → 0, ρ 1 → −1; CISPO 1.2·2, 0.9·2, 0.8·(−1), 1·(−1)
    ([[1.3, 0.9], [0.7, 1.0]], [[2.0], [-1.0]], "ppo", {}, [[0.0, 1.8], [0.0, -1.0]]),
    ([[1.3, 0.9], [0.7, 1.0]], [[2.0], [-1.0]], "cispo", {}, [[2.4, 1.8], [-0.8, -1.0]]),
])
def test_gradient_weights_by_hand(rho, adv, mode, eps, expected):
    np.testing.assert_allclose(rlcore.gradient_weights(rho, adv, mode, **eps), expected, rtol=1e-15)


EPS = st.floats(0.05, 0.5)


@settings(max_examples=200, deadline=None)
@given(st.floats(-3, 0), st.floats(-0.7, 0.7), st.floats(-5, 5), EPS, EPS)
def test_ppo_weight_is_the_derivative_of_the_clipped_surrogate(logp_old, log_ratio, adv, eps_low, eps_high):
    # d/d(log π_new) of min(ρÂ, clip(ρ, 1−ε_low, 1+ε_high)Â), ρ = exp(log π_new − log π_old),
    # by central differences, away from the two clip edges (where it has no derivative)
    rho = math.exp(log_ratio)
    if min(abs(rho - (1 - eps_low)), abs(rho - (1 + eps_high))) < 1e-3:
        return
    logp_new, h = logp_old + log_ratio, 1e-6

    def surrogate(lp):
        return rlcore.clipped_objective([math.exp(lp - logp_old)], adv, eps=eps_low, eps_high=eps_high)[0]

    numeric = (surrogate(logp_new + h) - surrogate(logp_new - h)) / (2 * h)
    g = rlcore.gradient_weights([rho], adv, "ppo", eps_low=eps_low, eps_high=eps_high)[0]
    assert g == pytest.approx(numeric, abs=1e-6 * max(1.0, abs(adv)))


@given(st.floats(0.001, 0.999), st.floats(-5, 5), EPS, EPS)  # inside: the edges round either way
def test_cispo_and_ppo_agree_inside_the_trust_region(share, adv, eps_low, eps_high):
    rho = (1 - eps_low) + share * (eps_low + eps_high)  # strictly inside [1−ε_low, 1+ε_high]
    ppo = rlcore.gradient_weights([rho], adv, "ppo", eps_low=eps_low, eps_high=eps_high)
    cispo = rlcore.gradient_weights([rho], adv, "cispo", eps_low=eps_low, eps_high=eps_high)
    np.testing.assert_allclose(ppo, cispo, rtol=1e-12, atol=1e-15)


@given(st.floats(0, 5), st.floats(-5, 5).filter(lambda a: a != 0))
def test_cispo_keeps_a_gradient_where_ppo_drops_it(rho, adv):
    cispo = rlcore.gradient_weights([rho], [adv], "cispo")[0]
    assert np.sign(cispo) == np.sign(adv) and 0.8 * abs(adv) <= abs(cispo) <= 1.2 * abs(adv) * (1 + 1e-15)


# ---------------------------------------------------------------- informative_groups


@pytest.mark.parametrize(("scores", "expected"), [
    ([[1, 0, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0], [0.5, 0.5, 0.5, 0.25]], [True, False, False, True]),
    ([[1.0], [0.0]], [False, False]),                  # a group of one answer never informs
])
def test_informative_groups_by_hand(scores, expected):
    assert rlcore.informative_groups(scores).tolist() == expected


@given(st.lists(st.lists(st.sampled_from([0.0, 1.0]), min_size=2, max_size=6), min_size=1, max_size=5)
       .filter(lambda g: len({len(r) for r in g}) == 1))
def test_informative_means_some_advantage_is_not_zero(scores):
    keep = rlcore.informative_groups(scores)
    for row, k in zip(scores, keep, strict=True):
        adv = rlcore.group_advantages(row, "grpo")
        assert k == bool(np.any(adv != 0))


# ---------------------------------------------------------------- bad input


def test_unknown_mode_lists_the_known_ones():
    msg = names(lambda: rlcore.token_weights(MASK, "mean"), "mode")
    assert all(m in msg for m in rlcore.AGGREGATION_MODES)
