"""Page 16, "A reward model from comparisons": the fitted scores beside the true judge's and the raters'."""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from tests.apphelp import chart_frame, choose_preset, keys, moves_charts, page_file, run_page
from ui import i18n

PAGE = page_file("16_")
K = keys(PAGE)
SHOWN = {"predict_rm_shown": True}
FOUR = rlcore.Scenario(tokens=("yes", "no", "maybe", "unclear"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((1, 9), (3,), (9, 8), (4, 5, 10)))
# the best token is never written and only one other is: no two answers to compare
ONE_WRITER = rlcore.Scenario(tokens=("a", "b"), probs=(1.0, 0.0), samples=((1,), (5,)))


def scores(at):
    df = chart_frame(at, "Each answer's score", "score")
    return {judge: dict(zip(g["answer"], g["score"], strict=True)) for judge, g in df.groupby("judge")}


def test_true_and_rater_scores_are_the_examples_centred():
    at = run_page(PAGE)
    got = scores(at)
    assert set(got) == {"true judge", "raters"}  # the reward model waits for the answer
    # true: 2, 5, 9 and the flattering copy 9 − 0.6 = 8.4, mean 6.1; raters: 9 + 0.6 = 9.6 for it, mean 6.4
    assert got["true judge"] == pytest.approx({"open": -4.1, "closed": -1.1, "partly": 2.9, "partly + flattery": 2.3})
    assert got["raters"] == pytest.approx({"open": -4.4, "closed": -1.4, "partly": 2.6, "partly + flattery": 3.2})


def test_revealed_reward_model_is_centred_its_fit_error_falls_and_it_moves_with_the_comparisons():
    at = run_page(PAGE, state=SHOWN)
    fitted = scores(at)["reward model"]
    assert sum(fitted.values()) == pytest.approx(0.0, abs=1e-9)
    err = chart_frame(at, "How far the reward model is from the raters", "error")
    expected = rlcore.fit_errors(rlcore.ARTICLE_SCENARIO, [50, 100, 200, 500, 1000, 2000, 5000], noise=2.0,
                                 flattery=rlcore.FLATTERY_BONUS)
    assert err["comparisons"].tolist() == expected.comparisons.tolist()
    np.testing.assert_allclose(err["error"], expected.error, rtol=1e-9)
    assert err["error"].iloc[-1] < err["error"].iloc[0] / 3  # 100 times the pairs (1/√n alone: a tenth of the error)
    moves_charts(at, lambda at: at.select_slider(key=K("n")).set_value(5000).run())


def test_raters_who_love_flattery_teach_the_model_to_overrate_it():
    at = run_page(PAGE, state=SHOWN, inputs={"flattery": 2.0, "n": 20000, "noise": 1.0})
    got = scores(at)
    assert got["true judge"]["partly + flattery"] < got["true judge"]["partly"]
    assert got["reward model"]["partly + flattery"] > got["reward model"]["partly"] + 1.0


def test_the_love_flattery_view_moves_the_reward_model_s_flattery_lead():
    """The view's reward model rates the flattering answer clearly further above the plain one than the default's
    does (at the default 1,000 comparisons liking 0.6 and 2 once gave the same lead, +0.89)."""
    at = run_page(PAGE, state=SHOWN)

    def lead() -> float:
        rm = scores(at)["reward model"]
        return rm["partly + flattery"] - rm["partly"]

    before = lead()
    choose_preset(at, i18n.text("en", "judge.love_flattery"))
    assert lead() > before + 0.5


def test_an_edited_scenario_gets_its_own_answers():
    at = run_page(PAGE, scenario=FOUR, state=SHOWN)
    got = scores(at)
    assert set(got["reward model"]) == {"yes", "no", "maybe", "unclear", "maybe + flattery"}
    assert np.isfinite(list(got["reward model"].values())).all()


def test_a_scenario_with_nothing_to_compare_says_so():
    # one answer the model can write (its flattering copy included): a notice, not an error, and no chart
    at = run_page(PAGE, scenario=ONE_WRITER)
    assert not at.error and [i.value for i in at.info] == [i18n.text("en", "judge.nothing_to_compare")]
    assert not at.get("vega_lite_chart")
