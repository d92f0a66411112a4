"""rlcore.goodhart_study: over-optimisation from a finite-data proxy, as Gao, Schulman & Hilton (2022) measured it.

What must come out, with no bias planted (means over ten seeds, as Gao's curves are read): the proxy rises, the
gold rises, peaks and falls; ten times more comparisons raise the gold's peak and move it to a larger √KL. With a
planted rater bias the fall stays when data is plentiful. Inequalities with margins, not recorded values.

Seeds 0–9 (as issue #32 reads the curves) in the quick suite; seeds 10–19, 20–29 and 30–39 in the exhaustive one:
the shapes must not hang on one lucky group of worlds.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest

import rlcore
from rlcore.formulas.kl import best_of_n_probs
from rlcore.studies import goodhart
from tests.rejects import rejects

GROUPS = [pytest.param(0, id="seeds-0-9")] + [pytest.param(g, id=f"seeds-{g}-{g + 9}", marks=pytest.mark.exhaustive)
                                              for g in (10, 20, 30)]
BIAS = 1.0  # raters like a unit of flattery as much as the gold likes a unit step along its own direction


@functools.cache
def curve(n_pairs: int, method: str, bias: float = 0.0, seed: int = 0) -> rlcore.GoodhartCurve:
    return rlcore.goodhart_study(n_pairs, seed=seed, bias=bias, method=method)


@functools.cache
def mean_curve(n_pairs: int, method: str, bias: float = 0.0, group: int = 0):
    """(KL, proxy, gold) averaged point by point over the ten seeds from ``group``."""
    runs = [curve(n_pairs, method, bias, s) for s in range(group, group + 10)]
    return tuple(np.mean([getattr(r, f) for r in runs], axis=0) for f in ("kl", "proxy", "gold"))


def peak(n_pairs: int, method: str, bias: float = 0.0, group: int = 0) -> tuple[int, float, float, float]:
    """Of the mean curve: the peak's index, its √KL, the gold's rise to it and how far it falls after."""
    kl, _, gold = mean_curve(n_pairs, method, bias, group)
    i = int(np.argmax(gold))
    return i, math.sqrt(kl[i]), gold[i] - gold[0], gold[i] - gold[-1]


# --- the curve's shape -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", rlcore.GOODHART_METHODS)
def test_every_curve_starts_at_the_reference_and_its_arrays_match(method):
    c = curve(100, method)
    assert c.kl.shape == c.proxy.shape == c.gold.shape and c.kl.size >= 20
    assert c.kl[0] == 0.0 and c.proxy[0] == 0.0 and c.gold[0] == 0.0
    assert np.all(np.isfinite(c.kl)) and np.all(c.kl >= 0)
    assert c.peak == int(np.argmax(c.gold))


@pytest.mark.parametrize("method", ("tilt", "best_of_n"))
def test_the_closed_form_paths_are_ascending_in_kl_and_proxy_for_every_seed(method):
    """d KL/dβ⁻¹ = β⁻¹·Var(r̂) ≥ 0 and d E[r̂]/dβ⁻¹ = Var(r̂) ≥ 0 along the tilt; best-of-n's proxy score rises
    with n by stochastic dominance."""
    for s in range(10):
        c = curve(100, method, seed=s)
        assert np.all(np.diff(c.kl) >= 0), s
        assert np.all(np.diff(c.proxy) >= -1e-12), s


@pytest.mark.parametrize("group", GROUPS)
@pytest.mark.parametrize("method", ("rl", "best_of_n"))
@pytest.mark.parametrize("n_pairs", (100, 1000))
def test_mean_kl_ascends_from_zero_and_the_proxy_keeps_rising(method, n_pairs, group):
    kl, proxy, gold = mean_curve(n_pairs, method, group=group)  # RL's sampled steps may set the KL back a little
    assert kl[0] == 0 and np.all(np.diff(kl) > -0.02 * kl[-1] if method == "rl" else np.diff(kl) >= 0)
    assert np.all(np.diff(proxy) >= (1e-4 if method == "rl" else 0))  # RL's sampled steps: with a margin
    assert proxy[-1] > gold[-1] + 0.5  # at the end the proxy promises more than the gold delivers


@pytest.mark.parametrize("group", GROUPS)
@pytest.mark.parametrize("method", ("rl", "tilt", "best_of_n"))
def test_few_comparisons_over_optimise_and_ten_times_more_peak_higher_and_later(method, group):
    """At 100 comparisons the gold peaks inside the path and ends well below its peak (measured: at least 62 % of
    its rise in every group; the issue asks for a tenth); at 1,000 its peak is higher and comes later in √KL,
    Gao's axis (best-of-n's "later" is not asked: within the n drawn its fall may be small)."""
    kl, _, gold = mean_curve(100, method, group=group)
    i, at_100, rise_100, fall_100 = peak(100, method, group=group)
    _, at_1000, rise_1000, _ = peak(1000, method, group=group)
    assert 0 < i < gold.size - 1 and kl[-1] > kl[i]
    assert fall_100 >= 0.3 * rise_100 > 0
    assert rise_1000 > 1.2 * rise_100
    assert method == "best_of_n" or at_1000 > at_100 + 0.1


@pytest.mark.parametrize("group", GROUPS)
@pytest.mark.parametrize("method", ("rl", "tilt"))
def test_a_planted_bias_is_not_cured_by_data(method, group):
    """With 10,000 comparisons from biased raters the gold still peaks and falls (by a third of its rise at least
    along the tilt; RL's checkpoints stop sooner: a sixth, measured at least 0.2), and its peak stays clearly below
    the one the same data from unbiased raters gives."""
    gold = mean_curve(10_000, method, BIAS, group)[2]
    i, _, rise, fall = peak(10_000, method, BIAS, group)
    assert 0 < i < gold.size - 1 and fall >= (0.15 if method == "rl" else 0.3) * rise > 0
    assert rise < peak(10_000, method, group=group)[2] - 0.1


# --- the RL run and the exact paths ----------------------------------------------------------------------------

@pytest.mark.parametrize(("bias", "n_pairs"), [(0.0, 100), (0.0, 100_000), (BIAS, 100_000)])
def test_the_proxy_is_the_ridge_bradley_terry_fit_in_the_traits_and_learns_the_raters_taste(bias, n_pairs):
    """At the fit the penalised likelihood's gradient (computed here from the pairs) is 0; with 100,000 comparisons
    the proxy's weights point where the raters' taste does: the gold's slope (recovered from the world by least
    squares), plus the bias on flattery, the last trait."""
    ref, traits, gold = goodhart._world(3)
    slope = np.linalg.lstsq(traits, gold + goodhart.GOLD_BEND / 2 * (traits**2).sum(axis=1), rcond=None)[0]
    taste = slope + bias * goodhart.GOLD_SLOPE * np.eye(traits.shape[1])[-1]
    winners, losers = goodhart._pairs(ref, traits @ taste - goodhart.GOLD_BEND / 2 * (traits**2).sum(axis=1),
                                      n_pairs, 3)
    w = goodhart._fit(traits, winners, losers)
    d = traits[winners] - traits[losers]
    grad = -d.T @ (1.0 / (1.0 + np.exp(d @ w))) + 2 * goodhart.RIDGE * w
    assert np.abs(grad).max() < 1e-8 * n_pairs
    cos = w @ taste / np.linalg.norm(w) / np.linalg.norm(taste)
    assert cos > 0.98 if n_pairs > 1000 else cos < 0.9  # 100 pairs leave this world's proxy well off (cos 0.2)


def test_rl_is_sampled_policy_gradient_not_the_tilt_in_disguise():
    """Plain policy-gradient steps with Adam (no 1/π) leave the tilt's path: at the same KL the gold gains differ
    by a clear margin somewhere; the proxy rises with training in every world; the worlds run side by side in
    goodhart_mean give the same curves as each alone."""
    kl_rl, _, gold_rl = mean_curve(1000, "rl")
    kl_t, _, gold_t = mean_curve(1000, "tilt")
    inside = kl_rl <= kl_t[-1]
    assert inside.sum() > 20 and np.max(np.abs(np.interp(kl_rl[inside], kl_t, gold_t) - gold_rl[inside])) > 0.05
    for s in range(10):
        proxy = curve(1000, "rl", seed=s).proxy
        assert proxy[-1] > proxy[proxy.size // 2] > proxy[proxy.size // 4] > 0, s
    side = rlcore.goodhart_mean(1000, 10, method="rl")
    np.testing.assert_allclose(side.gold, mean_curve(1000, "rl")[2], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(("form", "alpha", "beta"), [("bon", 0.4, 0.1), ("rl", 0.3, 0.15)])
def test_goodhart_fit_recovers_a_curve_of_either_form_and_agrees_with_the_normal_equations(form, alpha, beta):
    """A gold made exactly of one form is fitted with R² 1 and its α, β; on a real curve each form's α, β and R²
    are the 2×2 normal equations' solution, written out here."""
    d = np.linspace(0, 2.5, 40)
    bend = d * d if form == "bon" else d * np.log(np.where(d > 0, d, 1.0))
    made = rlcore.GoodhartCurve(d * d, np.zeros_like(d), d * (alpha - beta * bend / np.where(d > 0, d, 1.0)))
    a, b, r2 = rlcore.goodhart_fit(made)[form]
    assert abs(a - alpha) < 1e-9 and abs(b - beta) < 1e-9 and abs(r2 - 1) < 1e-12
    real = curve(100, "best_of_n")
    root, y = np.sqrt(real.kl), real.gold
    for name, f in (("bon", root**2), ("rl", root * np.log(np.where(root > 0, root, 1.0)))):
        sdd, sdf, sff, sdy, sfy = root @ root, root @ f, f @ f, root @ y, f @ y
        det = sdd * sff - sdf**2
        alpha, minus_beta = (sff * sdy - sdf * sfy) / det, (sdd * sfy - sdf * sdy) / det
        r2 = 1 - np.sum((y - alpha * root - minus_beta * f) ** 2) / np.sum((y - y.mean()) ** 2)
        np.testing.assert_allclose(rlcore.goodhart_fit(real)[name], (alpha, -minus_beta, r2), rtol=1e-8)
    rejects(lambda: rlcore.goodhart_fit({"kl": [0, 1]}), r"\bcurve\b")


def test_the_same_seed_gives_the_same_curve_and_another_seed_another():
    a = rlcore.goodhart_study(200, seed=3, method="rl")
    b = rlcore.goodhart_study(200, seed=3, method="rl")
    c = rlcore.goodhart_study(200, seed=4, method="rl")
    assert np.array_equal(a.gold, b.gold) and np.array_equal(a.kl, b.kl)
    assert not np.array_equal(a.gold, c.gold)


def test_a_zero_bias_is_no_bias_and_a_bias_changes_the_curve():
    base = curve(1000, "tilt")
    assert np.array_equal(rlcore.goodhart_study(1000, bias=0, method="tilt").gold, base.gold)
    assert not np.array_equal(curve(1000, "tilt", 1.0).gold, base.gold)


# --- best-of-n, exactly ----------------------------------------------------------------------------------------

def best_of_n_by_enumeration(ref, rewards, n) -> np.ndarray:
    """Every ordered draw of n answers, with its probability; the kept answer is a random one of the best draws."""
    out = np.zeros(len(ref))
    for draw in itertools.product(range(len(ref)), repeat=n):
        p = math.prod(ref[i] for i in draw)
        best = max(rewards[i] for i in draw)
        kept = [i for i in draw if rewards[i] == best]
        for i in kept:
            out[i] += p / len(kept)
    return out


@pytest.mark.parametrize("n", (1, 2, 3, 4))
def test_best_of_n_matches_enumerating_every_draw(n):
    ref = np.array([0.1, 0.4, 0.2, 0.25, 0.05])
    rewards = np.array([1.0, 0.0, 1.0, -2.0, 3.0])  # a tie at 1.0
    np.testing.assert_allclose(best_of_n_probs(ref, rewards, n), best_of_n_by_enumeration(ref, rewards, n),
                               rtol=0, atol=1e-12)


def kl_from(p: np.ndarray, ref: np.ndarray) -> float:
    """KL(p‖ref) with 0·log 0 = 0 (best-of-1000 leaves most answers at exactly 0)."""
    on = p > 0
    return float(np.sum(p[on] * np.log(p[on] / ref[on])))


def test_best_of_n_kl_stays_below_log_n_minus_and_reaches_it_for_many_rare_answers():
    """KL(best-of-n ‖ π_ref) ≤ log n − (n − 1)/n, near equality for many equally likely answers with different
    scores; with the scores tied in four equally likely levels it can never pass log 4, however large n
    (Beirami et al. 2024: the formula is an upper bound)."""
    m = 20_000
    ref = np.full(m, 1.0 / m)
    distinct = np.arange(m, dtype=float)
    for n in (2, 8, 64, 1000):
        bound = math.log(n) - (n - 1) / n
        kl = kl_from(best_of_n_probs(ref, distinct, n), ref)
        assert bound - 0.01 < kl <= bound + 1e-12
        kl_tied = kl_from(best_of_n_probs(ref, distinct // (m // 4), n), ref)
        assert kl_tied <= min(bound, math.log(4)) + 1e-12
    assert kl_tied < bound - 3  # n = 1000: the formula says 5.9, four levels allow 1.39


# --- bad input -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("kwargs", "name"), [
    ({"n_pairs": 2.5}, "n_pairs"), ({"n_pairs": "100"}, "n_pairs"), ({"n_pairs": True}, "n_pairs"),
    ({"n_pairs": 0}, "n_pairs"), ({"n_pairs": -5}, "n_pairs"), ({"n_pairs": 10**9}, "n_pairs"),
    ({"n_pairs": float("nan")}, "n_pairs"), ({"n_pairs": None}, "n_pairs"),
    ({"seed": -1}, "seed"), ({"seed": 1.5}, "seed"), ({"seed": "0"}, "seed"),
    ({"bias": float("nan")}, "bias"), ({"bias": float("inf")}, "bias"), ({"bias": -0.5}, "bias"),
    ({"bias": 1e6}, "bias"), ({"bias": "1"}, "bias"), ({"bias": None}, "bias"),
    ({"method": "ppo"}, "method"), ({"method": None}, "method"), ({"method": "RL"}, "method"),
])
def test_bad_input_raises_value_error_naming_the_argument(kwargs, name):
    args = {"n_pairs": 100, **kwargs}
    rejects(lambda: rlcore.goodhart_study(**args), rf"\b{name}\b")


@pytest.mark.parametrize(("args", "name"), [
    (([0.5, 0.5], [0.0, 1.0], 0), "n"), (([0.5, 0.5], [0.0, 1.0], 1.5), "n"), (([0.5, 0.5], [0.0], 2), "rewards"),
    (([0.5, 0.6], [0.0, 1.0], 2), "p_ref"), (([0.5, 0.5], [0.0, float("nan")], 2), "rewards"),
])
def test_best_of_n_checks_its_input(args, name):
    rejects(lambda: best_of_n_probs(*args), rf"\b{name}\b")
