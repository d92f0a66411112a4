"""rlcore.recipes: the recipe table as data, matching, differences from GRPO, advantages per baseline and scale."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from rlcore import recipes as R
from tests.rejects import rejects

GRPO = {"baseline": "group mean", "scale": "group std", "aggregation": "seq-mean-token-mean", "ratio": "token",
        "clip": "symmetric", "kl": "in loss", "dynamic_sampling": False}


def test_grpo_as_published_matches_grpo_only():
    assert R.match_recipe(GRPO) == ("GRPO",)
    assert R.differences(GRPO) == ()


@pytest.mark.parametrize(("changes", "name"), [
    ({"scale": "none", "aggregation": "seq-mean-token-sum-norm"}, "Dr. GRPO"),
    ({"aggregation": "token-mean", "clip": "clip-higher", "kl": "none", "dynamic_sampling": True}, "DAPO"),
    ({"ratio": "sequence"}, "GSPO"),
    ({"aggregation": "token-mean", "clip": "cispo"}, "CISPO"),
    ({"baseline": "batch mean", "scale": "batch std", "kl": "in reward"}, "REINFORCE++"),
    ({"baseline": "leave-one-out", "scale": "none", "ratio": "none", "clip": "none", "kl": "in reward"}, "RLOO"),
    ({"baseline": "batch mean", "scale": "none", "ratio": "none", "clip": "none"}, "REINFORCE with a baseline"),
])
def test_flipping_grpo_switches_lights_up_each_recipe(changes, name):
    switches = GRPO | changes
    assert R.match_recipe(switches) == (name,)
    assert {d[0] for d in R.differences(switches)} == set(changes)   # exactly the flipped switches differ
    assert R.recipe_switches(name) == switches


def test_a_free_switch_matches_any_value():
    # Dr. GRPO does not fix the KL: with it in the reward it is still Dr. GRPO
    assert R.match_recipe(R.recipe_switches("Dr. GRPO") | {"kl": "in reward"}) == ("Dr. GRPO",)
    # GRPO does fix it
    assert R.match_recipe(GRPO | {"kl": "none"}) == ()


def test_nearest_recipe_when_nothing_matches():
    switches = GRPO | {"kl": "none"}
    name, gap = R.recipe_distances(switches)[0]
    assert (name, gap) == ("GRPO", ("kl",))


def test_the_table_names_only_real_switch_values_and_unique_recipes():
    seen = set()
    for r in R.RECIPES:
        for k, v in r.switches.items():
            assert v in R.SWITCHES[k], (r.name, k, v)
        full = tuple(sorted(R.recipe_switches(r.name).items(), key=str))
        assert full not in seen
        seen.add(full)


def test_recipe_clip():
    assert R.recipe_clip(GRPO) == "ppo"
    assert R.recipe_clip(GRPO | {"clip": "clip-higher"}) == "clip-higher"
    assert R.recipe_clip(GRPO | {"ratio": "sequence", "clip": "cispo"}) == "gspo"
    assert R.recipe_clip(GRPO | {"ratio": "none"}) is None and R.recipe_clip(GRPO | {"clip": "none"}) is None


def test_recipe_advantages_by_hand():
    s = [1.0, 2.0, 6.0]                    # mean 3, centred −2, −1, 3; std (N − 1) = √7
    np.testing.assert_allclose(R.recipe_advantages(s, "none", "none"), s)
    np.testing.assert_allclose(R.recipe_advantages(s, "group mean", "none"), [-2, -1, 3])
    np.testing.assert_allclose(R.recipe_advantages(s, "group mean", "group std"),
                               np.array([-2, -1, 3]) / (math.sqrt(7) + 1e-6))
    # leave-one-out: 1 − 4, 2 − 3.5, 6 − 1.5 = −3, −1.5, 4.5 (= 3/2 × centred)
    np.testing.assert_allclose(R.recipe_advantages(s, "leave-one-out", "none"), [-3, -1.5, 4.5])
    # batch std of the centred leave-one-out scores: std(−3, −1.5, 4.5) = 1.5·√7
    np.testing.assert_allclose(R.recipe_advantages(s, "leave-one-out", "batch std"),
                               np.array([-3, -1.5, 4.5]) / (1.5 * math.sqrt(7) + 1e-6))
    # no spread: nothing is rescaled (no division by ε)
    np.testing.assert_allclose(R.recipe_advantages([2.0, 2.0], "none", "group std"), [2.0, 2.0])


def test_recipe_advantages_agree_with_group_advantages():
    s = [3.0, 1.0, 2.0, 1.0, 3.0, 5.0, 4.0, 6.0, 10.0, 8.0]
    for (b, sc), method in ((("group mean", "group std"), "grpo"), (("group mean", "none"), "dr_grpo"),
                            (("leave-one-out", "none"), "rloo")):
        np.testing.assert_allclose(R.recipe_advantages(s, b, sc), rlcore.group_advantages(s, method))


def test_a_group_of_one_answer_has_nothing_to_compare_with():
    # a token with probability 1 and one score: the batch is that one answer; without a baseline its advantage
    # is its score, with any baseline it is 0 (the baseline of a group of one is the answer itself)
    assert R.recipe_advantages([7.0], "none", "none").tolist() == [7.0]
    for b in ("batch mean", "group mean", "leave-one-out"):
        for sc in ("none", "group std", "batch std"):
            assert R.recipe_advantages([7.0], b, sc).tolist() == [0.0], (b, sc)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: R.match_recipe(GRPO | {"clip": "hard"}), "clip"),
    (lambda: R.match_recipe(GRPO | {"dynamic_sampling": "yes"}), "dynamic_sampling"),
    (lambda: R.match_recipe({k: v for k, v in GRPO.items() if k != "kl"}), "switches"),
    (lambda: R.match_recipe(GRPO | {"temperature": 1}), "switches"),
    (lambda: R.match_recipe("GRPO"), "switches"),
    (lambda: R.recipe("PPO"), "name"),
    (lambda: R.recipe_advantages([], "none", "none"), "scores"),
    (lambda: R.recipe_advantages([1.0, 2.0], "median", "none"), "baseline"),
    (lambda: R.recipe_advantages([1.0, 2.0], "none", "iqr"), "scale"),
])
def test_errors_name_the_argument(call, name):
    rejects(lambda: call(), rf"^{name}")


@pytest.mark.parametrize(("name", "weights", "kept"), [
    ("GRPO", [0.0, 0.0], [0.0, 0.0]),            # 1.5 > 1.2 with Â > 0; 0.5 < 0.8 with Â < 0
    ("DAPO", [0.0, 0.0], [0.0, 0.0]),            # 1.5 is past 1.28 too
    ("CISPO", [1.28, -0.8], [1.28 / 1.5, 1.6]),  # clip(ρ, 0.8, 1.28)·Â, never 0
    ("GSPO", [0.0, 0.0], [0.0, 0.0]),            # s = 1.1 and 0.9, far outside GSPO's 3e-4 / 4e-4
    ("RLOO", [1.0, -1.0], [1.0, 1.0]),           # on-policy: g = Â
])
def test_recipe_gradient_by_hand(name, weights, kept):
    g = R.recipe_gradient([1.5, 0.5], [1.1, 0.9], [1.0, -1.0], R.recipe_switches(name))
    np.testing.assert_allclose(g.weights, weights)
    np.testing.assert_allclose(g.kept, kept)
    assert g.stopped.tolist() == [w == 0 for w in weights]


def test_recipe_gradient_with_a_ratio_and_no_clip():
    g = R.recipe_gradient([1.5, 0.5], [1.1, 0.9], [1.0, -1.0], GRPO | {"clip": "none"})
    np.testing.assert_allclose(g.weights, [1.5, -0.5])      # ρ·Â
    g = R.recipe_gradient([1.5, 0.5], [1.1, 0.9], [1.0, 0.0], GRPO | {"clip": "none", "ratio": "sequence"})
    np.testing.assert_allclose(g.weights, [1.1, 0.0])       # s·Â
    np.testing.assert_allclose(g.kept, [1.0, 1.0])          # Â = 0 counts as untouched
    rejects(lambda: R.recipe_gradient([1.5], [1.1, 0.9], [1.0, -1.0], GRPO), r"^ratio, seq_ratio and advantages")


# ---- page 12's study: a recipe against GRPO on the running example's ten answers

ARTICLE_SCORES = np.array([3, 1, 2, 1, 3, 5, 4, 6, 10, 8], float)  # open ×5, closed ×3, partly ×2: mean 4.3
ARTICLE_LENGTHS = np.array([10] * 5 + [14] * 3 + [8] * 2)


def test_recipe_comparison_of_grpo_with_itself():
    c = R.recipe_comparison(rlcore.ARTICLE_SCENARIO, GRPO, 0.2)
    np.testing.assert_allclose(c.batch.scores, ARTICLE_SCORES)
    std = ARTICLE_SCORES.std(ddof=1)
    np.testing.assert_allclose(c.mine.advantages, (ARTICLE_SCORES - 4.3) / (std + 1e-6), rtol=1e-9)
    np.testing.assert_allclose(c.mine.weights, 1 / (10 * ARTICLE_LENGTHS))   # seq-mean-token-mean: 1/(G·|o|)
    np.testing.assert_allclose(c.reference.advantages, c.mine.advantages)
    assert c.than_reference == "same" and c.informative and c.worst == 1 and c.longest == 5
    # η = 0.2 lifts partly from 0.2 to 0.254 (ρ 1.27 > 1.2): the symmetric clip stops its two answers
    assert c.mine.clip == "ppo" and c.mine.stopped == 2 and c.reference.stopped == 2
    assert (c.mine.kept == 1).sum() == 8


def test_recipe_comparison_of_dr_grpo_and_rloo_by_hand():
    dr = R.recipe_comparison(rlcore.ARTICLE_SCENARIO, R.recipe_switches("Dr. GRPO"), 0.2)
    np.testing.assert_allclose(dr.mine.advantages, ARTICLE_SCORES - 4.3, atol=1e-12)   # no std
    np.testing.assert_allclose(dr.mine.weights, 1 / (10 * 14))          # 1/(G·L_max), L_max the longest answer
    assert dr.than_reference == "larger"                                # |−3.3| > 3.3/2.98
    rloo = R.recipe_comparison(rlcore.ARTICLE_SCENARIO, R.recipe_switches("RLOO"), 0.2)
    # leave-one-out of the worst (score 1): b = (43 − 1)/9 = 4.667, Â = −3.667; no ratio, no clip: nothing stopped
    assert rloo.mine.advantages[1] == pytest.approx(1 - 42 / 9)
    assert rloo.mine.clip is None and rloo.mine.stopped == 0 and (rloo.mine.kept == 1).all()
    none = R.recipe_comparison(rlcore.ARTICLE_SCENARIO, {**GRPO, "baseline": "none", "scale": "none"}, 0.2)
    # no baseline: Â = the score itself, 1, against GRPO's |1 − 4.3|/2.98 = 1.11
    assert none.mine.advantages[1] == 1.0 and none.than_reference == "smaller"


def test_recipe_comparison_of_a_dead_group_and_bad_input():
    flat = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((5,), (5,)))
    c = R.recipe_comparison(flat, GRPO, 0.2)
    assert not c.informative and c.than_reference == "same"             # one score: every Â is 0
    rejects(lambda: R.recipe_comparison(rlcore.ARTICLE_SCENARIO, GRPO, -0.1), "step")
    rejects(lambda: R.recipe_comparison(rlcore.ARTICLE_SCENARIO, {**GRPO, "clip": "hard"}, 0.1), "clip")
