"""The shared kernels: one token sampler, one score draw, one softmax, each against a plain loop (GAE: test_credit.py).

Expected values are plain Python loops written from the formulas in the docstrings, or worked out by hand.
"""

from __future__ import annotations

import math

import numpy as np

import rlcore
from rlcore.formulas.sampling import ScoreTable, sample_tokens


def _sample_by_loop(probs, u):
    """The first token whose cumulative probability exceeds u; if rounding leaves u above them all, the last
    token the distribution can write."""
    total = 0.0
    for a, p in enumerate(probs):
        total += p
        if u < total:
            return a
    return max(a for a, p in enumerate(probs) if p > 0)


def test_sampler_matches_a_plain_loop():
    rng = np.random.default_rng(0)
    for _ in range(200):
        k = int(rng.integers(1, 7))
        probs = rng.dirichlet(np.ones(k))
        probs[rng.random(k) < 0.3] = 0.0          # some tokens the policy never writes
        if probs.sum() == 0:
            probs[0] = 1.0
        probs /= probs.sum()
        cdf = np.cumsum(probs)
        u = np.concatenate([rng.random(20), [0.0, np.nextafter(1.0, 0)], cdf, np.nextafter(cdf, 0)])  # boundaries
        u = u[u < 1.0]
        got = sample_tokens(probs, u)
        assert got.tolist() == [_sample_by_loop(probs, x) for x in u]
        assert np.all(probs[got] > 0)             # a token with π = 0 is never drawn, not even at u = 0


def test_sampler_at_the_boundaries_by_hand():
    # π = (0, 0.5, 0.5): token 0's slice is empty; token 1 holds [0, 0.5), token 2 [0.5, 1)
    assert sample_tokens(np.array([0.0, 0.5, 0.5]), np.array([0.0, 0.5, 0.999])).tolist() == [1, 2, 2]
    # greedy on the last token: every u picks it, u = 0 included (the u ≤ C convention would pick token 0)
    assert sample_tokens(np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.3])).tolist() == [2, 2]
    # ten times 0.1 sums to 0.9999999999999999 in float64: the largest u below 1 still gets token 9, not the
    # 11th token, which has π = 0
    assert sample_tokens(np.array([0.1] * 10 + [0.0]), np.array([np.nextafter(1.0, 0.0)])).tolist() == [9]


def test_sampler_is_batched_over_rows():
    probs = np.array([[1.0, 0.0], [0.0, 1.0]])
    u = np.array([[0.1, 0.9], [0.1, 0.9]])
    np.testing.assert_array_equal(sample_tokens(probs, u), [[0, 0], [1, 1]])


def test_sampler_frequencies_follow_the_probabilities():
    probs = np.array([0.5, 0.3, 0.2])
    counts = np.bincount(sample_tokens(probs, np.random.default_rng(1).random(200_000)), minlength=3) / 200_000
    np.testing.assert_allclose(counts, probs, atol=0.005)


def test_score_table_draws_each_score_of_a_token_equally_often():
    table = ScoreTable.of([np.array([3.0, 1.0, 2.0]), np.array([5.0])])
    assert table.offsets.tolist() == [0, 3] and table.lengths.tolist() == [3, 1]
    # ⌊u·3⌋: u in [0, 1/3) → 3, [1/3, 2/3) → 1, [2/3, 1) → 2
    got = table.draw(np.array([0, 0, 0, 0, 1]), np.array([0.0, 0.34, 0.67, 0.999, 0.5]))
    assert got.tolist() == [3.0, 1.0, 2.0, 2.0, 5.0]


def test_batched_softmax_is_the_softmax_of_each_row():
    rng = np.random.default_rng(2)
    z = rng.normal(size=(4, 5)) * 10
    for tau in (1e-3, 1.0, 7.0):
        rows = rlcore.softmax(z, tau)
        for r in range(4):
            np.testing.assert_array_equal(rows[r], rlcore.softmax(z[r], tau))
            e = [math.exp((x - max(z[r])) / tau) for x in z[r]]
            np.testing.assert_allclose(rows[r], [x / sum(e) for x in e], rtol=1e-12)
    logs = rlcore.log_softmax(z)
    for r in range(4):
        np.testing.assert_array_equal(logs[r], rlcore.log_softmax(z[r]))
        np.testing.assert_allclose(np.exp(logs[r]), rlcore.softmax(z[r]), rtol=1e-12)


def test_sampled_training_never_trains_on_a_token_greedy_decoding_cannot_write():
    # greedy on "b": every answer is b, whatever the uniforms; b's score is 5, so a "none" baseline pushes b up
    run = rlcore.sampled_training([0.0, 0.7, 0.3], [[100.0], [5.0], [1.0]], lr=0.1, steps=20, batch=16,
                                  greedy=True, baseline="none", seed=0)
    np.testing.assert_array_equal(run.mean_score, 5.0)
    assert run.probs[-1, 0] < 1e-300               # the floor of log 0: never drawn, never trained on
    assert np.all(np.diff(run.probs[:, 1]) > 0)
