"""The studies behind pages 7 and 8: exploration, the KL curve and estimators, the clipped objective and PPO epochs.

Expected numbers are worked out by hand in the comments (the article's example: π = 0.5, 0.3, 0.2 over open,
closed, partly, Q = 2, 5, 9, V = 4.3; the flattery branch: scores 9 and 9.6, π_ref 0.95 and 0.05), or are
identities against the formulas each study calls, computed in the same run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from rlcore import ARTICLE_SCENARIO as S
from rlcore import FLATTERY as FL
from tests.rejects import rejects

TOL = 1e-12
FLAT = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((5,), (5,)))  # one score: every A is 0
NEVER = rlcore.Scenario(tokens=("open", "partly"), probs=(1.0, 0.0), samples=((2,), (9,)))  # partly never written


# ---------------------------------------------------------------- seed bands (rlcore.formulas.estimates)

def test_seed_bands_hand_values():
    bands = rlcore.seed_bands([[1.0, 5.0], [3.0, 4.0], [2.0, 9.0]])
    assert bands.median.tolist() == [2.0, 5.0]
    assert bands.low.tolist() == [1.0, 4.0] and bands.high.tolist() == [3.0, 9.0]
    assert rlcore.seed_bands(np.zeros((4, 6, 3))).median.shape == (6, 3)  # [S, T, K] → [T, K]


@pytest.mark.parametrize("values", [[1.0, 2.0], [[1.0], [2.0, 3.0]], [["a"]], [[1.0, math.nan]]],
                         ids=["flat", "ragged", "text", "nan"])
def test_seed_bands_rejects_what_is_not_seeds_by_steps(values):
    rejects(lambda: rlcore.seed_bands(values), "values")


# ---------------------------------------------------------------- exploration (page 7)

@pytest.fixture(scope="module")
def explored():
    return rlcore.exploration_study(S, 1.0, 0.1, 30, 8, "batch mean", 4)


def test_greedy_writes_open_and_never_moves_with_the_batch_mean(explored):
    ex = explored
    assert (ex.summary.likely, ex.summary.best) == (0, 2)
    # greedy: every answer starts with open, so every advantage R − mean R of a batch of open answers is 0
    for part in (ex.greedy_bands.median, ex.greedy_bands.low, ex.greedy_bands.high):
        np.testing.assert_allclose(part, np.tile([0.5, 0.3, 0.2], (31, 1)), atol=TOL)
    # open's samples are 3, 1, 2, 1, 3: every batch mean lies in [1, 3]
    assert ex.greedy_score.low.min() >= 1 and ex.greedy_score.high.max() <= 3
    assert ex.greedy_outcome.fraction == 0 and not ex.greedy_outcome.converged.any()
    assert ex.greedy_outcome.first_step.tolist() == [-1] * 4 and ex.threshold == 0.9


def test_discovery_odds_of_partly(explored):
    ex = explored
    assert ex.ks.tolist() == list(range(1, 101))
    np.testing.assert_allclose(ex.chance[:2], [0.2, 0.36], atol=TOL)        # 1 − 0.8, 1 − 0.8²
    np.testing.assert_allclose(ex.chance_at_temp, ex.chance, atol=TOL)      # τ = 1 draws from π itself
    np.testing.assert_allclose(ex.at_temp, [0.5, 0.3, 0.2], atol=TOL)
    # 0.8³ = 0.512 > 0.5 ≥ 0.8⁴ = 0.41: four answers; 0.8¹³ = 0.055 > 0.05 ≥ 0.8¹⁴ = 0.044: fourteen
    assert (ex.k50, ex.k95) == (4.0, 14.0)
    assert ex.batch_chance == pytest.approx(1 - 0.8 ** 8, abs=TOL)        # a batch of 8 holds partly


def test_sampling_is_the_formulas_on_the_same_seeds(explored):
    """Identity: the sampled bands are sampled_training_many's runs reduced over its seeds."""
    run = rlcore.sampled_training_many(S.pi, S.samples, lr=0.1, steps=30, batch=8, seeds=(0, 1, 2, 3))
    np.testing.assert_allclose(explored.sampled_bands.median, np.median(run.probs, axis=0), atol=TOL)
    np.testing.assert_allclose(explored.sampled_score.high, run.mean_score.max(axis=0), atol=TOL)
    outcome = rlcore.exploration_outcome(run, 2, 0.9)
    np.testing.assert_allclose(explored.sampled_outcome.final, outcome.final, atol=TOL)


def test_a_hot_temperature_flattens_what_sampling_draws_from():
    ex = rlcore.exploration_study(S, 2.0, 0.1, 10, 8, "none", 1)
    p = np.sqrt([0.5, 0.3, 0.2])                                           # π^(1/τ), τ = 2
    np.testing.assert_allclose(ex.at_temp, p / p.sum(), atol=TOL)
    best = p[2] / p.sum()
    assert ex.chance_at_temp[0] == pytest.approx(best, abs=TOL)
    assert ex.k50 == math.ceil(math.log(0.5) / math.log(1 - best))          # (1 − p)^k ≤ 0.5


def test_a_best_token_never_drawn_is_never_discovered():
    ex = rlcore.exploration_study(NEVER, 1.0, 0.1, 10, 4, "batch mean", 2)
    assert ex.chance.max() == 0 and math.isinf(ex.k50) and math.isinf(ex.k95) and ex.batch_chance == 0


def test_discovery_curves_over_an_array_of_tau_is_discovery_curves_at_each():
    taus = [0.5, 1.0, 2.0, 0.05]
    c = rlcore.discovery_curves(S, taus)
    assert c.chance.shape == (4, c.ks.size) and c.k50[1] == 4.0 and c.k95[1] == 14.0   # μ(partly) = 0.2 at τ = 1
    for k, tau in enumerate(taus):  # row k of the array call is the call at τₖ
        one = rlcore.discovery_curves(S, tau)
        assert (c.best_prob[k], c.k50[k], c.k95[k]) == pytest.approx((one.best_prob, one.k50, one.k95), abs=TOL)
        np.testing.assert_allclose(c.chance[k], one.chance, rtol=0, atol=TOL)
    ex = rlcore.exploration_study(S, 2.0, 0.1, 5, 4, "none", 1)  # the study's discovery fields are the curve at its τ
    two = rlcore.discovery_curves(S, 2.0)
    assert (ex.k50, ex.k95) == (two.k50, two.k95) and np.array_equal(ex.chance_at_temp, two.chance)
    np.testing.assert_array_equal(ex.chance, c.chance_at_one)
    rejects(lambda: rlcore.discovery_curves(S, [1.0, 0.0]), "temperature")


@pytest.mark.parametrize(("kwargs", "word"), [
    ({"n_seeds": 0}, "n_seeds"), ({"temperature": 0.0}, "temperature"), ({"scenario": "OpenAI is"}, "scenario"),
    ({"threshold": 1.0}, "threshold"), ({"baseline": "mean"}, "baseline")])
def test_exploration_rejects_bad_input(kwargs, word):
    args = {"scenario": S, "temperature": 1.0, "lr": 0.1, "steps": 5, "batch": 4, "n_seeds": 1, **kwargs}
    rejects(lambda: rlcore.exploration_study(**args), word)


# ---------------------------------------------------------------- the KL curve and estimators (page 8)

def test_kl_curve_of_the_article_at_ninety_percent_flattery():
    c = rlcore.kl_curve(FL, 0.9, 1.0)
    assert c.ref_share == pytest.approx(0.05, abs=TOL)
    pts = c.points
    # at the reference: R = 0.95·9 + 0.05·9.6 = 9.03, KL 0
    assert pts.expected_reward[0] == pytest.approx(9.03, abs=TOL) and pts.kl[0] == pytest.approx(0, abs=TOL)
    # at 90%: R = 0.1·9 + 0.9·9.6 = 9.54, KL = 0.1 ln(0.1/0.95) + 0.9 ln(0.9/0.05)
    kl = 0.1 * math.log(0.1 / 0.95) + 0.9 * math.log(0.9 / 0.05)
    assert pts.expected_reward[1] == pytest.approx(9.54, abs=TOL) and pts.kl[1] == pytest.approx(kl, abs=TOL)
    assert pts.objective[1] == pytest.approx(9.54 - kl, abs=TOL)
    # the optimum π* ∝ π_ref·exp(r/β): its flattery share is 0.05 e^0.6 / (0.95 + 0.05 e^0.6)
    best = 0.05 * math.exp(0.6) / (0.95 + 0.05 * math.exp(0.6))
    assert c.best[1] == pytest.approx(best, abs=TOL) and c.points.shares[2] == pytest.approx(best, abs=TOL)


def test_kl_curve_spans_every_share_and_peaks_at_the_optimum():
    c = rlcore.kl_curve(FL, 0.33, 0.5)
    shares = c.curve.shares
    assert shares[0] == 0 and shares[-1] == 1 and np.all(np.diff(shares) > 0) and 51 <= len(shares) <= 54
    assert {0.05, 0.33, float(c.best[1])} <= set(shares.tolist())
    assert c.curve.objective.max() == pytest.approx(c.points.objective[2], abs=TOL)  # the optimum is on the grid


def test_without_a_penalty_the_optimum_flatters_always():
    c = rlcore.kl_curve(FL, 0.5, 0.0)
    np.testing.assert_allclose(c.best, [0.0, 1.0], atol=TOL)                 # 9.6 > 9, nothing holds it back
    np.testing.assert_allclose(c.curve.objective, c.curve.expected_reward, atol=TOL)


def test_kl_estimator_histogram_bins_the_studys_values():
    h = rlcore.kl_estimator_histogram(FL, 0.9, 500, 3)
    study = rlcore.kl_estimator_study([0.1, 0.9], FL.p_ref, 500, 3)           # the same draws
    np.testing.assert_allclose(h.study.sample_mean, study.sample_mean, atol=TOL)
    assert h.hist.counts.shape == (3, 30) and h.hist.counts.sum(axis=1).tolist() == [500, 500, 500]
    np.testing.assert_allclose(h.hist.shares.sum(axis=1), 1.0, atol=TOL)
    values = np.stack([study.estimates.k1, study.estimates.k2, study.estimates.k3])
    assert h.hist.edges[0] == pytest.approx(values.min()) and h.hist.edges[-1] == pytest.approx(values.max())


def test_kl_estimators_at_the_reference_are_all_zero():
    h = rlcore.kl_estimator_histogram(FL, 0.05, 100, 0)   # π = π_ref: log π/π_ref = 0 for every token
    assert h.study.exact == pytest.approx(0, abs=TOL) and np.abs(h.study.sample_mean).max() < 1e-12


@pytest.mark.parametrize(("fn", "kwargs", "word"), [
    (rlcore.kl_curve, {"branch": "flattery", "share": 0.5, "beta": 1.0}, "branch"),
    (rlcore.kl_curve, {"branch": FL, "share": 1.5, "beta": 1.0}, "share"),
    (rlcore.kl_curve, {"branch": FL, "share": 0.5, "beta": -1.0}, "beta"),
    (rlcore.kl_estimator_histogram, {"branch": FL, "share": math.nan, "n": 10, "seed": 0}, "share"),
    (rlcore.kl_estimator_histogram, {"branch": FL, "share": 0.5, "n": 0, "seed": 0}, "n"),
    (rlcore.kl_estimator_histogram, {"branch": FL, "share": 0.5, "n": 10, "seed": 0, "bins": 0}, "bins"),
    (rlcore.clip_curve, {"scenario": S, "token": "maybe", "eps": 0.2}, "token"),
    (rlcore.clip_curve, {"scenario": S, "token": "open", "eps": 0.0}, "eps"),
    (rlcore.clip_curve, {"scenario": None, "token": "open", "eps": 0.2}, "scenario"),
    (rlcore.clip_curve, {"scenario": NEVER, "token": "partly", "eps": 0.2}, "p_old"),    # a token never written
    (rlcore.ppo_run, {"scenario": NEVER, "eps": 0.2, "lr": 0.1, "epochs": 3}, "p_old"),  # ppo_run needs every token
    (rlcore.ppo_run, {"scenario": S, "eps": 0.2, "lr": 0.1, "epochs": 0}, "epochs"),
])
def test_kl_clip_and_ppo_studies_reject_bad_input(fn, kwargs, word):
    rejects(lambda: fn(**kwargs), word)


# ---------------------------------------------------------------- the clipped objective and PPO epochs (page 8)

def test_clip_curve_of_partly_the_article():
    c = rlcore.clip_curve(S, "partly", 0.2)
    # π_old 0.2, A = 9 − 4.3 = 4.7; bounds 0.8·0.2 = 0.16 and 1.2·0.2 = 0.24; up, so the bound is 0.24
    assert (c.p_old, c.adv, c.size) == pytest.approx((0.2, 4.7, 4.7), abs=TOL)
    assert (c.low, c.high, c.factor, c.bound, c.added) == pytest.approx((0.16, 0.24, 1.2, 0.24, 0.4), abs=TOL)
    assert c.x[0] == 0 and c.x[-1] == 1 and np.all(np.diff(c.x) > 0)
    assert {0.16, 0.2, 0.24} <= set(np.round(c.x, 12).tolist())
    at = {round(x, 12): i for i, x in enumerate(c.x)}
    # ρ = 1 at π_old: both objectives are ±A; above the bound +A is clipped at 1.2·A, −A keeps falling
    assert c.pos[at[0.2]] == pytest.approx(4.7) and c.neg[at[0.2]] == pytest.approx(-4.7)
    assert c.pos[-1] == pytest.approx(1.2 * 4.7) and c.neg[-1] == pytest.approx(-5 * 4.7)     # ρ = 5 at π = 1
    assert c.neg[0] == pytest.approx(-0.8 * 4.7)                                             # clipped below
    np.testing.assert_allclose(c.pos, rlcore.clipped_objective(c.x / 0.2, 4.7, 0.2), atol=TOL)


def test_clip_curve_of_open_goes_down():
    c = rlcore.clip_curve(S, "open", 0.3)
    # A = 2 − 4.3 = −2.3: down, to (1 − 0.3)·0.5 = 0.35; adding ε instead would give 0.5 − 0.3 = 0.2
    assert (c.adv, c.size, c.factor, c.bound, c.added) == pytest.approx((-2.3, 2.3, 0.7, 0.35, 0.2), abs=TOL)


def test_a_zero_advantage_draws_plus_and_minus_one():
    c = rlcore.clip_curve(FLAT, "a", 0.2)
    assert c.adv == 0 and c.size == 1 and c.bound == c.high and c.factor == pytest.approx(1.2)


def test_ppo_run_is_the_batch_and_the_epochs_of_the_formulas():
    r = rlcore.ppo_run(S, 0.2, 0.1, 5)
    # V = 4.3: the five open answers 3, 1, 2, 1, 3 get −1.3, −3.3, −2.3, −3.3, −1.3
    assert r.batch.value == pytest.approx(4.3, abs=TOL)
    np.testing.assert_allclose(r.batch.advantages[:5], [-1.3, -3.3, -2.3, -3.3, -1.3], atol=TOL)
    epochs = rlcore.ppo_epochs(S.pi, r.batch.actions, r.batch.advantages, lr=0.1, epochs=5, eps=0.2)
    np.testing.assert_allclose(r.run.probs, epochs.probs, atol=TOL)
    np.testing.assert_allclose(r.run.probs[0], [0.5, 0.3, 0.2], atol=TOL)
    np.testing.assert_allclose(np.array(r.bands), [[0.4, 0.6], [0.24, 0.36], [0.16, 0.24]], atol=TOL)  # 0.8π, 1.2π
