"""rlcore.mismatch: the engine's distributions, and bias² / variance of each weighting against hand formulas."""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from rlcore.studies.mismatch import METHODS, RATIO_EDGES, lowest_error, mismatch_study, top_p_probs
from tests.rejects import rejects


@pytest.mark.parametrize("probs, top_p, expected", [
    ([0.5, 0.3, 0.2], 0.7, [0.625, 0.375, 0.0]),    # 0.5 < 0.7, so 0.3 joins; 0.8 ≥ 0.7 stops
    ([0.5, 0.3, 0.2], 0.5, [1.0, 0.0, 0.0]),        # 0.5 alone reaches 0.5
    ([0.5, 0.3, 0.2], 0.81, [0.5, 0.3, 0.2]),       # 0.8 < 0.81: every token
    ([0.2, 0.3, 0.5], 0.7, [0.0, 0.375, 0.625]),    # order by probability, not position
    ([0.4, 0.4, 0.2], 0.3, [1.0, 0.0, 0.0]),        # a tie keeps the earlier token
    ([0.6, 0.0, 0.4], 1.0, [0.6, 0.0, 0.4]),
])
def test_top_p_by_hand(probs, top_p, expected):
    np.testing.assert_allclose(top_p_probs(probs, top_p), expected, atol=1e-12)


def test_engine_equal_to_trainer_changes_nothing():
    res = mismatch_study([0.5, 0.3, 0.2], [2.0, 5.0, 9.0], kind="logit noise", level=0.0, caps=[1.0, 2.0],
                         batch=16, draws=50, seed=0)
    for part in (res.bias_squared, res.variance, res.mse):  # every weight is 1: all four methods are one
        np.testing.assert_allclose(part, np.broadcast_to(part[0, 0], part.shape), rtol=1e-12)
    assert res.above_cap.tolist() == [0.0, 0.0] and res.mean_weight == pytest.approx(1.0)
    zero_bin = np.searchsorted(RATIO_EDGES, 0.0, side="right") - 1  # log₂ 1 = 0 lies in [0, 0.25)
    assert res.ratio_shares[zero_bin] == pytest.approx(1.0)
    assert set(lowest_error(res, 1)) == set(METHODS)
    np.testing.assert_allclose(res.target, [0.5 * (2 - 4.3), 0.3 * (5 - 4.3), 0.2 * (9 - 4.3)], atol=1e-12)


def test_two_tokens_at_temperature_one_half_by_hand():
    # π = (0.8, 0.2), Q = (1, 0): V = 0.8, A = (0.2, −0.8). At τ = ½ the engine samples μ ∝ (0.64, 0.04), so
    # ρ = π/μ = (0.85, 3.4). Each token contributes x_a = w_a A_a (e_a − π); target = π ⊙ A = (0.16, −0.16).
    pi = np.array([0.8, 0.2])
    mu = np.array([0.64, 0.04]) / 0.68
    rho = pi / mu
    np.testing.assert_allclose(rho, [0.85, 3.4], atol=1e-12)
    contrib = np.array([0.2 * np.array([0.2, -0.2]), -0.8 * np.array([-0.8, 0.8])])   # A_a (e_a − π)
    target = np.array([0.16, -0.16])
    weights = {"no correction": [1.0, 1.0], "truncate": [0.85, 2.0], "mask": [0.85, 0.0], "full weights": rho}
    batch, draws = 64, 5000
    res = mismatch_study(pi, [1.0, 0.0], kind="temperature", level=0.5, caps=[2.0], batch=batch, draws=draws,
                         seed=7)
    np.testing.assert_allclose(res.engine_mean, mu, atol=1e-12)
    for m, name in enumerate(METHODS):
        x = np.array(weights[name])[:, None] * contrib                 # per-token vectors
        mean = mu @ x
        bias2 = float(np.sum((mean - target) ** 2))
        var = float((mu @ np.sum(x**2, axis=1) - np.sum(mean**2)) / batch)
        assert res.variance[m, 0] == pytest.approx(var, rel=0.06), name
        # the mean over D batches is off by about √(var/D): bias² by up to 2·|bias|·that, plus var/D on average
        tol = 6 * np.sqrt(bias2 * var / draws) + 10 * var / draws
        assert res.bias_squared[m, 0] == pytest.approx(bias2, abs=tol), name
    assert res.bias_squared[2, 0] > res.bias_squared[0, 0] > res.bias_squared[1, 0]  # mask > none > truncate
    assert res.above_cap[0] == pytest.approx(mu[1], abs=0.01)  # the tokens with ρ = 3.4 > 2


def test_top_p_leaves_a_bias_no_weight_can_fix():
    # top-p 0.7 never samples "partly" (π 0.2): even full weights miss its share of the target
    res = mismatch_study([0.5, 0.3, 0.2], [2.0, 5.0, 9.0], kind="top-p", level=0.7, caps=[4.0], batch=64,
                         draws=500, seed=0)
    assert res.engine_mean[2] == 0.0
    # full weights recover Σ over the sampled tokens of π_a A_a (e_a − π); what is missing is partly's term
    # π A (e − π) = 0.2 · 4.7 · (−0.5, −0.3, 0.8), so bias² = 0.94² · (0.25 + 0.09 + 0.64)
    assert res.bias_squared[3, 0] == pytest.approx(0.94**2 * 0.98, abs=0.01)
    assert res.bias_squared[3, 0] > 100 * res.variance[3, 0]


def test_same_seed_same_result_and_caps_share_the_draws():
    kw = dict(kind="logit noise", level=1.0, batch=32, draws=100, seed=3)
    a = mismatch_study([0.5, 0.3, 0.2], [2.0, 5.0, 9.0], caps=[1.5, 3.0], **kw)
    b = mismatch_study([0.5, 0.3, 0.2], [2.0, 5.0, 9.0], caps=[3.0], **kw)
    assert a.mse[1, 1] == b.mse[1, 0] and a.variance[3, 0] == a.variance[3, 1]
    # truncation at a higher cap keeps more of each weight: its bias shrinks towards full weights
    assert a.bias_squared[1, 1] < a.bias_squared[1, 0]


@pytest.mark.parametrize("kwargs, match", [
    (dict(kind="fp8"), "kind"), (dict(caps=[0.0]), "caps"), (dict(draws=1), "draws"),
    (dict(batch=0), "batch"), (dict(level=-1.0), "level"), (dict(q=[1.0, 2.0]), "same length"),
    (dict(kind="top-p", level=0.0), "top_p"),
])
def test_bad_input_names_the_argument(kwargs, match):
    args = dict(probs=[0.5, 0.3, 0.2], q=[2.0, 5.0, 9.0], kind="logit noise", level=0.5, caps=[2.0], batch=8,
                draws=10, seed=0)
    args.update(kwargs)
    rejects(lambda: mismatch_study(args.pop("probs"), args.pop("q"), **args), match)


# ---- what page 14 reads from a study: the caps it offers, the first cap no weight exceeds, the unwritten tokens

def test_cap_choices_are_quarter_doublings_from_one():
    caps = rlcore.CAP_CHOICES
    assert len(caps) == 15 and caps[0] == 1.0 and caps[4] == 2.0 and caps[8] == 4.0 and caps[12] == 8.0
    assert caps[1] == 1.19 and caps[2] == 1.41 and caps[-1] == 11.31          # 2^¼, 2^½ and 2^3.5, to 2 decimals
    assert all(isinstance(c, float) for c in caps)


def test_untouched_cap_and_never_written_under_top_p():
    # top-p 0.8 keeps open and closed: μ = (0.625, 0.375, 0), so every sampled ρ = π/μ = 0.8 (below C = 2, above 0.5)
    res = rlcore.mismatch_study([0.5, 0.3, 0.2], [2.0, 5.0, 9.0], kind="top-p", level=0.8, caps=[0.5, 2.0],
                                batch=16, draws=4, seed=0)
    np.testing.assert_allclose(res.above_cap, [1.0, 0.0])
    assert res.untouched_cap == 2.0
    assert res.never_written.tolist() == [2]                                 # partly is cut
    hot = rlcore.mismatch_study([0.5, 0.3, 0.2], [2.0, 5.0, 9.0], kind="temperature", level=2.0, caps=[1e-3],
                                batch=16, draws=4, seed=0)
    assert hot.untouched_cap is None and hot.never_written.size == 0         # every ρ > 0.001; τ keeps every token
