"""rlcore.judge: simulated raters, the reward model they teach, over-optimisation against it, DPO and IPO
on the same pairs. Expected values come from the formulas (worked here), not from the code under test."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from rlcore import judge_studies as js
from rlcore.formulas.example import ARTICLE_SCENARIO, Scenario
from rlcore.formulas.kl import kl_optimal_policy
from tests.rejects import rejects

EDITED = Scenario(tokens=("yes", "no", "maybe", "never", "later"), probs=(0.4, 0.3, 0.2, 0.1, 0.0),
                  samples=((1, 3), (7,), (4, 6, 5), (0,), (10,)), prompt="Ship it?", prefix="We ship")


# --- the candidates ------------------------------------------------------------------------------------------------

def test_judge_items_split_the_best_branch():
    items = js.judge_items(EDITED, flattery=1.5)
    # best Q is "later" (10) but the reference never writes it: its flattering copy gets 5% of 0, still 0
    assert items.best == 4 and items.names[-1] == "later + flattery"
    np.testing.assert_allclose(items.ref, [0.4, 0.3, 0.2, 0.1, 0.0, 0.0])
    np.testing.assert_allclose(items.true, [2, 7, 5, 0, 10, 8.5])
    np.testing.assert_allclose(items.rater, [2, 7, 5, 0, 10, 11.5])
    plain = js.judge_items(ARTICLE_SCENARIO, flattery=0.0)
    assert plain.true[-1] == plain.rater[-1] == 9.0
    assert pytest.approx(0.6) == js.FLATTERY_BONUS              # the article: 9.6 for flattery, 9 plain


# --- raters --------------------------------------------------------------------------------------------------------

def test_raters_follow_bradley_terry():
    # two answers noise·log 3 apart: the better one wins 3 times in 4
    noise = 2.0
    w, lo = js.simulate_raters([0.0, noise * math.log(3)], 20_000, noise, 0)
    share = float(np.mean(w == 1))
    assert abs(share - 0.75) < 4 * math.sqrt(0.75 * 0.25 / 20_000)
    assert np.all(w != lo)
    w, lo = js.simulate_raters([1.0, 5.0, 3.0], 500, 1e-9, 1)  # precise raters always pick the higher score
    assert np.all(np.array([1.0, 5.0, 3.0])[w] > np.array([1.0, 5.0, 3.0])[lo])


def test_raters_see_pairs_the_reference_writes():
    # P(pair {0, 1}) = p0·p1/(1 − p0) + p1·p0/(1 − p1), and never the answer with probability 0
    p = [0.5, 0.3, 0.0, 0.2]
    w, lo = js.simulate_raters([0.0] * 4, 20_000, 1.0, 3, p)
    pair01 = float(np.mean(np.minimum(w, lo) * 10 + np.maximum(w, lo) == 1))
    expected = 0.5 * 0.3 / 0.5 + 0.3 * 0.5 / 0.7
    assert abs(pair01 - expected) < 4 * math.sqrt(expected * (1 - expected) / 20_000)
    assert not np.any(w == 2) and not np.any(lo == 2)


# --- the reward model ----------------------------------------------------------------------------------------------

def shifted(scenario: Scenario, c: float) -> Scenario:
    return Scenario(scenario.tokens, scenario.probs, tuple(tuple(s + c for s in g) for g in scenario.samples))


def test_only_differences_are_learned():
    a = js.reward_model_study(ARTICLE_SCENARIO, comparisons=300, seed=5)
    b = js.reward_model_study(shifted(ARTICLE_SCENARIO, 40.0), comparisons=300, seed=5)
    assert np.array_equal(a.winners, b.winners)
    np.testing.assert_allclose(a.fitted, b.fitted, atol=1e-9)
    np.testing.assert_allclose(a.true, b.true, atol=1e-9)


def test_the_fit_tightens_with_more_comparisons():
    errs = js.fit_errors(ARTICLE_SCENARIO, [100, 10_000], seeds=6)
    assert errs.error[1] < errs.error[0] / 3          # a hundred times the data: about a tenth of the error


def test_raters_who_like_flattery_teach_a_model_that_overrates_it_and_the_counts_add_up():
    rm = js.reward_model_study(ARTICLE_SCENARIO, comparisons=20_000, noise=1.0, flattery=2.0, seed=0)
    flat, best = rm.items.flattering, rm.items.best
    assert rm.true[flat] - rm.true[best] == pytest.approx(-2.0)        # the true judge: 2 points worse
    assert rm.fitted[flat] - rm.fitted[best] == pytest.approx(2.0, abs=0.3)  # the model: 2 points better
    # the counts pages 16–18 read add up
    assert np.abs(rm.wins.sum() - 20_000) < 1e-9 and rm.compared.sum() == 2 * 20_000 and rm.won.sum() == 20_000
    np.testing.assert_array_equal(rm.compared, np.bincount(np.r_[rm.winners, rm.losers], minlength=4))
    assert rm.flattery_lead == pytest.approx(rm.fitted[3] - rm.fitted[2])
    assert rm.true_flattery_lead == pytest.approx(-2.0)


# --- over-optimisation ---------------------------------------------------------------------------------------------

def test_training_path_is_the_plain_loop_and_the_closed_form_family():
    # the update rule as a plain loop: Δz = η(A − Σ π A), A = r̂ − β(log π − log π_ref), η = lr / max(range, β)
    beta, lr = 0.2, 0.5
    run = js.over_optimisation(ARTICLE_SCENARIO, beta=beta, comparisons=500, seed=2, steps=40, lr=lr)
    r, ref = run.proxy_scores, run.items.ref
    eta = lr / max(np.ptp(r), beta)
    z = np.log(ref)
    for t in range(41):
        pi = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        np.testing.assert_allclose(run.probs[t], pi, atol=1e-12)
        adv = r - beta * (np.log(pi) - np.log(ref))
        z = z + eta * (adv - pi @ adv)
    # and each step is the optimum for a penalty 1/cₜ, cₜ = (1 − (1 − ηβ)ᵗ)/β, falling toward β
    for t in (1, 7, 40):
        c = (1 - (1 - eta * beta) ** t) / beta
        np.testing.assert_allclose(run.probs[t], kl_optimal_policy(ref, r, 1 / c), atol=1e-10)


def test_over_optimisation_true_rises_peaks_and_falls_unless_beta_is_large_or_the_raters_honest():
    kw = dict(comparisons=2000, noise=1.0, flattery=2.0, steps=400)
    runs = [js.over_optimisation(ARTICLE_SCENARIO, beta=0.05, seed=seed, **kw) for seed in range(4)]
    for run in runs:
        assert np.all(np.diff(run.proxy) >= -1e-9)                     # the proxy only rises
        assert 0 < run.peak < 400
        assert run.true[run.peak] - run.true[-1] == run.fall > 0.5    # flattery (2 points worse) takes over
        assert run.true[run.peak] > 0
        assert run.kl[-1] > run.kl[run.peak]
    weak, strong = runs[0], js.over_optimisation(ARTICLE_SCENARIO, beta=1.0, **kw)
    assert strong.kl[-1] < weak.kl[-1] and strong.true[-1] > weak.true[-1]
    assert strong.true[strong.peak] - strong.true[-1] < 0.1
    np.testing.assert_allclose(strong.probs[-1], strong.limit, atol=1e-3)  # (1 − ηβ)^400 ≈ 1e-9: arrived
    honest = js.over_optimisation(ARTICLE_SCENARIO, beta=0.05, **{**kw, "flattery": 0.0})
    assert honest.true[honest.peak] - honest.true[-1] < 1e-6


def test_over_optimisation_over_an_array_of_beta_is_over_optimisation_at_each():
    betas = [*(10.0 ** np.round(np.arange(-2.0, 0.71, 0.1), 12)), 0.05]
    kw = dict(comparisons=500, noise=1.0, flattery=2.0, seed=3, steps=120, lr=0.4)
    p = js.over_optimisation(EDITED, beta=betas, **kw)
    assert p.kl.shape == (len(betas), 121) and p.limit.shape == (len(betas), p.items.ref.size)
    for v, b in enumerate(betas):
        run = js.over_optimisation(EDITED, beta=b, **kw)
        np.testing.assert_allclose(p.kl[v], run.kl, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(p.proxy[v], run.proxy, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(p.true[v], run.true, rtol=1e-12, atol=1e-12)
        assert p.peak[v] == run.peak and p.fall[v] == pytest.approx(run.fall, abs=1e-12)
    assert p.kl[0, -1] > p.kl[-2, -1]                                 # a looser leash goes further


# --- DPO and IPO ---------------------------------------------------------------------------------------------------

def test_dpo_starts_at_log_two_and_lands_on_the_fitted_optimum():
    d = js.dpo_study(ARTICLE_SCENARIO, beta=0.5, comparisons=1000, steps=1500)
    assert d.unbounded.size == 0
    assert d.loss[0] == pytest.approx(math.log(2))                    # π = π_ref: every margin 0
    np.testing.assert_allclose(d.weights[0], 0.5)                     # σ(0)
    assert np.all(np.diff(d.loss) <= 1e-12)
    np.testing.assert_allclose(d.probs[-1], d.fitted_optimum, atol=2e-3)
    np.testing.assert_allclose(d.implicit, d.fitted, atol=1e-2)        # β log(π*/π_ref) = r̂ − const
    assert d.weights[-1].mean() < d.weights[0].mean()
    assert d.pair_count.sum() == 1000


def test_dpo_approaches_the_raters_optimum_with_more_pairs():
    few = js.dpo_study(ARTICLE_SCENARIO, comparisons=300, seed=1)
    many = js.dpo_study(ARTICLE_SCENARIO, comparisons=20_000, seed=1)
    gap = [np.abs(x.fitted_optimum - x.rater_optimum).sum() for x in (few, many)]
    assert gap[1] < gap[0] and gap[1] < 0.05


def test_dpo_on_pairs_one_answer_never_loses():
    d = js.dpo_study(ARTICLE_SCENARIO, comparisons=30, noise=0.1, seed=0, steps=300)
    assert d.unbounded.size > 0
    others = np.setdiff1d(np.arange(4), d.unbounded)
    assert np.all(np.diff(d.probs[:, others].sum(axis=1)) < 0)       # pushed down at every step


def test_ipo_stops_where_dpo_keeps_pushing():
    s = js.ipo_study(ARTICLE_SCENARIO, beta=0.5, tau=0.5, steps=400)
    assert s.dpo[-1, 0] < 1e-3 < s.dpo[0, 0]                          # the worst answer: DPO sends it toward 0
    assert s.ipo[-1].min() > 1e-3
    np.testing.assert_allclose(s.ipo[-1], s.ipo[-50], atol=1e-9)      # IPO has settled
    # IPO's fixed point: Σ over pairs of (target − margin)(e_w − e_l) = 0; every pair of ranked answers
    d = np.log(s.ipo[-1] / s.items.ref)
    r = s.items.rater
    grad = np.zeros(4)
    for i in range(4):
        for j in range(4):
            if r[i] > r[j]:
                push = s.target - (d[i] - d[j])
                grad[i] += push
                grad[j] -= push
    np.testing.assert_allclose(grad, 0.0, atol=1e-8)


def test_studies_work_on_an_edited_scenario():
    rm = js.reward_model_study(EDITED, comparisons=400, flattery=1.0)
    run = js.over_optimisation(EDITED, comparisons=400, flattery=1.0, steps=50)
    d = js.dpo_study(EDITED, comparisons=400, flattery=1.0, steps=50)
    for arr in (rm.fitted, run.probs, run.kl, d.probs, d.loss):
        assert np.all(np.isfinite(arr))
    assert np.all(run.probs[:, 4:] == 0) and np.all(d.probs[:, 4:] == 0)  # never written, never learned
    np.testing.assert_allclose(run.probs.sum(axis=1), 1.0)


def raters_optimum(beta_noise: float):
    """π* ∝ π_ref·exp(r/(β·noise)) over the article's answers (judge_items by hand: flattery 0.6, π_ref 5% of 0.2)."""
    w = np.array([0.5, 0.3, 0.19, 0.01]) * np.exp(np.array([2.0, 5.0, 9.0, 9.6]) / beta_noise)
    return w / w.sum()


def test_rl_with_a_kl_penalty_reaches_the_raters_optimum_when_it_samples_every_answer():
    """β·noise = 4: π* keeps every answer in play, and PPO with the KL penalty lands on it."""
    s = js.lab_on_raters(ARTICLE_SCENARIO, beta=1.0, noise=4.0, flattery=0.6)
    by_hand = raters_optimum(4.0)
    assert s.lab_beta == 4.0 and s.diverged_at is None
    np.testing.assert_allclose(s.optimum, by_hand, atol=1e-12)
    assert np.abs(s.median - by_hand).max() < 0.01
    # and it is the optimum DPO approaches on many pairs: the same π* on the raters' logit scale
    np.testing.assert_allclose(js.dpo_study(ARTICLE_SCENARIO, beta=1.0, noise=4.0, steps=0).rater_optimum, by_hand)


def test_rl_with_a_kl_penalty_is_slow_to_find_an_answer_the_reference_seldom_writes():
    """β·noise = 0.5: π* moves the flattering answer from 1% to about 15%, but PPO, learning from its own samples,
    has pushed it down with the other losers after LAB_STEPS steps; the plain answer takes its share."""
    s = js.lab_on_raters(ARTICLE_SCENARIO, beta=0.25, noise=2.0, flattery=0.6)
    flat, by_hand = s.items.flattering, raters_optimum(0.5)
    assert by_hand[flat] > 0.1
    assert s.median[flat] < 0.01 < by_hand[flat] - 0.1
    assert s.median[s.items.best] > by_hand[s.items.best]


def test_lab_on_raters_over_an_array_of_beta_is_lab_on_raters_at_each():
    """An array of β trains LAB_SEEDS runs per β in one vectorised run of the lab (``train``'s per-run betas): row k
    is what ``lab_on_raters`` gives at the k-th β alone."""
    betas = [0.1, 0.5, 2.0]
    grid = js.lab_on_raters(ARTICLE_SCENARIO, beta=betas, noise=2.0, flattery=0.6, steps=40)
    assert grid.lab_beta.tolist() == [0.2, 1.0, 4.0] and grid.median.shape == (3, grid.items.ref.size)
    for k, b in enumerate(betas):
        one, row = js.lab_on_raters(ARTICLE_SCENARIO, beta=b, noise=2.0, flattery=0.6, steps=40), grid.row(k)
        assert row.lab_beta == one.lab_beta == 2.0 * b and row.diverged_at is one.diverged_at is None
        for field in ("median", "low", "high", "optimum"):
            np.testing.assert_allclose(getattr(grid, field)[k], getattr(one, field), rtol=0, atol=1e-12)
            np.testing.assert_array_equal(getattr(row, field), getattr(grid, field)[k])


@pytest.mark.parametrize(("call", "name"), [
    (lambda: js.judge_items(ARTICLE_SCENARIO, flattery=-1.0), "flattery"),
    (lambda: js.simulate_raters([0.0, 1.0], 10, 1.0, 0, [1.0, 0.0]), "at least two"),
    (lambda: js.simulate_raters([0.0, 1.0], 10, 0.0, 0), "noise"),
    (lambda: js.reward_model_study(ARTICLE_SCENARIO, comparisons=0), "comparisons"),
    (lambda: js.reward_model_study(ARTICLE_SCENARIO, noise=-1.0), "noise"),
    (lambda: js.reward_model_study("article"), "scenario"),
    (lambda: js.over_optimisation(ARTICLE_SCENARIO, beta=3.0, lr=1.5), "lr"),  # a step that overshoots
    (lambda: js.over_optimisation(ARTICLE_SCENARIO, beta=0.0), "beta"),
    (lambda: js.train_against("a reward model"), "rm"),
    (lambda: js.over_optimisation(ARTICLE_SCENARIO, beta=[0.1, -1.0]), "beta"),
    (lambda: js.over_optimisation(ARTICLE_SCENARIO, beta=[[0.1]]), "beta"),
    (lambda: js.dpo_study(ARTICLE_SCENARIO, beta=[0.0, 0.5]), "beta"),
    (lambda: js.dpo_study(ARTICLE_SCENARIO, beta=[[0.5]]), "beta"),
    (lambda: js.lab_on_raters(ARTICLE_SCENARIO, beta=50.0, noise=5.0), "beta × noise"),
    (lambda: js.lab_on_raters(ARTICLE_SCENARIO, beta=[0.5, 50.0], noise=5.0), "beta × noise"),
    (lambda: js.lab_on_raters(ARTICLE_SCENARIO, beta=[0.5] * 13), "beta"),
    (lambda: js.lab_on_raters(ARTICLE_SCENARIO, beta=[0.5, -1.0]), "beta"),
    (lambda: js.lab_on_raters(ARTICLE_SCENARIO, beta=[[0.5]]), "beta"),
    (lambda: rlcore.train(ARTICLE_SCENARIO, rlcore.LabConfig(steps=2), (0, 1), betas=[0.1]), "seeds and betas"),
    (lambda: rlcore.train(ARTICLE_SCENARIO, rlcore.LabConfig(steps=2), (0,), betas=[101.0]), "betas"),
])
def test_the_judge_studies_and_the_labs_per_run_betas_name_what_they_reject(call, name):
    rejects(call, name)


# --- what pages 16–18 read off the results -------------------------------------------------------------------------

def test_judge_items_say_whether_there_is_a_pair_and_a_better_side():
    one_writer = Scenario(tokens=("a", "b"), probs=(1.0, 0.0), samples=((1,), (5,)))  # b (best) never written
    assert not js.judge_items(one_writer).comparable and not js.judge_items(one_writer).ranked
    assert js.judge_items(ARTICLE_SCENARIO).comparable and js.judge_items(ARTICLE_SCENARIO).ranked
    same = Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((5,), (5,)))
    assert js.judge_items(same, 0.0).comparable and not js.judge_items(same, 0.0).ranked
    rejects(lambda: js.ipo_study(same, flattery=0.0), "scenario")  # ranked is what ipo_study needs
    # with flattery the raters score a's flattering copy (written 5% of a's 0.5) 0.6 above the rest
    assert js.judge_items(same, 0.6).ranked
    assert js.ipo_study(same, flattery=0.6, steps=2).dpo.shape == (3, 3)


def test_reward_model_counts_and_leads_by_hand():
    items = js.judge_items(ARTICLE_SCENARIO)                           # open, closed, partly, partly + flattery
    winners, losers = np.array([0, 1, 1, 3]), np.array([1, 0, 2, 1])
    wins = np.zeros((4, 4))
    for w, lo in zip(winners, losers, strict=True):
        wins[w, lo] += 1
    fitted = np.array([-1.0, 0.5, 0.25, 0.25])
    rm = js.RewardModelStudy(items, winners, losers, wins, fitted, items.rater - items.rater.mean(),
                             items.true - items.true.mean(), 0.0)
    assert rm.compared.tolist() == [2, 4, 1, 1] and rm.won.tolist() == [1, 2, 0, 1]
    assert rm.rarest == 2                                              # 2 and 3 were compared once: the first
    assert rm.flattery_lead == pytest.approx(0.0)                      # fitted: 0.25 for both
    assert rm.true_flattery_lead == pytest.approx(-js.FLATTERY_BONUS)  # 8.4 − 9
    assert rm.never_lost.tolist() == [3]                               # 3 beat 1 and was never beaten


def test_lab_on_raters_names_the_answer_furthest_from_the_optimum():
    items = js.judge_items(ARTICLE_SCENARIO)                           # π_ref = 0.5, 0.3, 0.19, 0.01
    nan = np.full(4, np.nan)

    def lab(median, optimum):
        return js.LabOnRaters(items, 1.0, 300, np.array(median), nan, nan, np.array(optimum), None)

    behind = lab([0.5, 0.3, 0.195, 0.005], [0.48, 0.3, 0.17, 0.05])   # gaps 0.02, 0, 0.025, 0.045
    assert behind.furthest == 3 and behind.unexplored                 # 0.005 < π_ref 0.01 < π* 0.05
    overshot = lab([0.45, 0.3, 0.24, 0.01], [0.4, 0.3, 0.25, 0.05])   # gaps 0.05, 0, 0.01, 0.04
    assert overshot.furthest == 0 and not overshot.unexplored         # π* lowers it: not an unexplored answer
    assert not behind.on_optimum and lab([0.5, 0.3, 0.19, 0.01], [0.5, 0.3, 0.2, 0.0]).on_optimum


def test_dpo_study_over_an_array_of_beta_is_dpo_study_at_each():
    betas = [0.25, 0.5, 0.75, 1.0, 0.6]
    p = js.dpo_study(ARTICLE_SCENARIO, beta=betas, comparisons=200, steps=300, seed=3)
    for i, b in enumerate(betas):  # one descent per β, as the one-β study steps it
        own = js.dpo_study(ARTICLE_SCENARIO, beta=b, comparisons=200, steps=300, seed=3)
        assert p.beta[i] == b
        for field in ("probs", "loss", "weights", "mean_weight", "fitted_optimum", "rater_optimum", "implicit"):
            np.testing.assert_allclose(getattr(p, field)[i], getattr(own, field), rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(p.fitted, own.fitted)


def test_dpo_implicit_reward_stays_finite_where_the_policy_underflows():
    # found by the fuzz: π_ref = 1e-300 and a tiny β push two answers' π to 0; β·log(π/π_ref) is still finite
    sc = Scenario(tokens=("a", "b", "c"), probs=(1.0, 1e-300, 1e-300), samples=((0.0, 4e5, 0.0), (0.0,), (0.0,)))
    d = js.dpo_study(sc, beta=0.01, noise=0.01, flattery=0.6, seed=2, steps=2, lr=0.83)
    assert np.isfinite(d.implicit).all() and abs(d.implicit.sum()) < 1e-9 * np.abs(d.implicit).max()
