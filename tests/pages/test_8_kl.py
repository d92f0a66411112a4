"""Page 8, KL penalty: the regularised objective on the flattery branch, and the estimators k1, k2, k3.

Article figures checked with defaults: flattery 5% → 90% with β = 1 gives mean judge score 9.03 → 9.54,
KL 0 → 2.38, objective 9.03 → 7.16. Also π* ∝ π_ref·exp(r/β) flatters 8.8% of the time at β = 1.
"""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from tests.apphelp import (
    chart_by_title,
    choose_preset,
    data_with,
    just_shown,
    labels,
    languages,
    metrics,
    moves_charts,
    numbers,
    page_kit,
    page_text,
    question_key,
    run_page,
    scrubbers,
)
from ui import i18n

PAGE, K, en = page_kit("8_KL", "p8_kl")
SHOWN = just_shown("predict_kl")  # as after "Just show me"
SCORE, KL, OBJECTIVE, BEST = en("mean_score"), en("kl_metric"), en("objective"), en("best_share")


@pytest.fixture(scope="module")
def default():
    return run_page(PAGE, state=SHOWN)


def test_defaults_show_the_articles_kl_numbers(default):
    m = metrics(default)
    assert numbers(m[SCORE]) == [9.03, 9.54]
    assert numbers(m[KL]) == [0, 2.38]
    assert numbers(m[OBJECTIVE]) == [9.03, 7.16]   # flattery lowers the objective
    # π*(flattery) = 0.05 e^9.6 / (0.95 e^9 + 0.05 e^9.6) = 0.0875
    assert numbers(m[BEST]) == [8.8]
    explained = next(md.value for md in default.markdown if "9.03" in md.value)
    assert [x for x in numbers(explained) if x in (9.03, 9.54, 2.38, 7.16)][:5] == [9.03, 9.54, 2.38, 9.03, 7.16]


def test_the_objective_stays_hidden_until_the_learner_commits_and_the_answer_follows_beta():
    at = run_page(PAGE)
    assert question_key(at) == "predict_kl" and not at.metric and "7.16" not in page_text(at)
    c = chart_by_title(at, en("share_title"))
    assert set(data_with(c, "quantity")["quantity"]) == {en("judge_series"), "KL"}
    at.radio(key="predict_kl").set_value(en("better")).run()
    assert at.warning and f"**{en('worse')}**" in at.warning[0].value          # the answer: worse
    assert numbers(metrics(at)[OBJECTIVE]) == [9.03, 7.16]
    at.radio(key="predict_kl").set_value(en("worse")).run()
    assert at.success and not at.warning
    at.slider(key=K("beta")).set_value(0.0).run()
    assert numbers(at.radio(key="predict_kl").label)[:2] == [0, 90]   # the question follows β
    at.radio(key="predict_kl").set_value(en("worse")).run()
    assert at.warning and f"**{en('better')}**" in at.warning[0].value  # without KL: better


def test_kl_curve_data(default):
    c = chart_by_title(default, en("share_title"))
    df = data_with(c, "quantity")
    kl = df[df["quantity"] == "KL"].set_index("share")["value"]
    assert kl.loc[0.05] == pytest.approx(0.0, abs=1e-12)
    assert kl.loc[1.0] == pytest.approx(np.log(1 / 0.05))  # all flattery: KL = log(1/0.05)
    marks = next(d for d in c["data"].values() if {"label", "share"} <= set(d.columns))
    marks = marks[np.isclose(marks["beta"], 1.0)]                   # the chart holds every β: the committed one
    assert sorted(marks["share"]) == [pytest.approx(0.05), pytest.approx(0.9)]
    best = 0.05 * np.exp(0.6) / (0.95 + 0.05 * np.exp(0.6))
    rule = next(d for d in c["data"].values() if "at" in d.columns and "beta" in d.columns)
    assert rule[np.isclose(rule["beta"], 1.0)]["at"].iloc[0] == pytest.approx(best)
    yours = next(d for d in c["data"].values() if "at" in d.columns and "beta" not in d.columns)
    assert list(yours["label"]) == [i18n.text("en", "chart.scrub_yours", name="β", value="1")]  # the committed β
    assert yours["at"].iloc[0] == pytest.approx(best)


def test_estimator_table(default):
    col = {name: en(f"estimators.{name}") for name in ("estimator", "exact_mean", "bias", "negative")}
    table = next(d.value for d in default.dataframe if col["estimator"] in d.value.columns)
    assert list(table[col["estimator"]]) == ["k1", "k2", "k3"]
    kl = 0.1 * np.log(0.1 / 0.95) + 0.9 * np.log(0.9 / 0.05)
    np.testing.assert_allclose(table[col["exact_mean"]].iloc[[0, 2]], [kl, kl])
    k2 = 0.5 * (0.1 * np.log(0.1 / 0.95) ** 2 + 0.9 * np.log(0.9 / 0.05) ** 2)
    assert table[col["exact_mean"]].iloc[1] == pytest.approx(k2)
    assert list(table[col["bias"]].iloc[[0, 2]]) == [0.0, 0.0]
    assert table[col["negative"]].iloc[2] == 0.0  # k3 is never negative
    assert table[col["negative"]].iloc[0] > 0     # k1 is, for the plain answers
    hist = data_with(chart_by_title(default, en("estimators.hist_title", n=200)), "estimator")
    assert len(hist) == 90 and hist.groupby("estimator")["share"].sum().tolist() == pytest.approx([1, 1, 1])


def test_share_slider_changes_the_kl_numbers_and_a_preset_sets_beta():
    at = run_page(PAGE, state=SHOWN)
    moves_charts(at, lambda at: at.slider(key=K("share")).set_value(0.05).run())
    assert numbers(metrics(at)[KL]) == [0, 0]
    choose_preset(at, en("preset_none"))
    assert at.slider(key=K("beta")).value == 0.0
    assert numbers(metrics(at)[BEST]) == [100]


def test_query_parameters_set_the_widgets():
    at = run_page(PAGE, query={"share": "0.5", "beta": "2", "n": "500", "kl_seed": "3"}, state=SHOWN)
    assert at.slider(key=K("share")).value == pytest.approx(0.5)
    assert at.slider(key=K("beta")).value == pytest.approx(2.0)
    assert at.slider(key=K("n")).value == 500 and at.number_input(key=K("kl_seed")).value == 3
    hist = data_with(chart_by_title(at, en("estimators.hist_title", n=500)), "estimator")
    assert hist.groupby("estimator")["share"].sum().tolist() == pytest.approx([1, 1, 1])


@pytest.mark.parametrize("lang", languages(8))  # the quick suite: one, by page in turn; CI: both
def test_dragging_beta_shows_rlcore_s_objective_at_every_step_of_the_slider(lang):
    at = run_page(PAGE, state=SHOWN, query={"lang": lang})
    c = chart_by_title(at, i18n.text(lang, "p8_kl.share_title"))
    assert scrubbers(c) == [(pytest.approx(1.0), 0.0, 5.0, pytest.approx(0.1))]
    moving = next(d for d in c["data"].values() if {"beta", "value"} <= set(d.columns) and "label" not in d)
    grid = np.unique(moving["beta"])
    np.testing.assert_allclose(grid, np.linspace(0.0, 5.0, 51), atol=1e-12)  # the slider's 51 steps
    for b in grid:  # each β's rows: the objective rlcore computes for that β alone
        own = rlcore.kl_curve(rlcore.FLATTERY, 0.9, float(b)).curve
        rows = moving[moving["beta"] == b]
        np.testing.assert_allclose(rows["share"], own.shares, atol=1e-12)
        np.testing.assert_allclose(rows["value"], own.objective, atol=1e-12)
    assert {i18n.text(lang, "chart.scrub_yours", name="β", value="1"),
            i18n.text(lang, "chart.scrub_shown", name="β", value="2.5")} <= labels(c)


def test_a_committed_beta_between_the_steps_is_drawn_exactly_where_it_rests():
    at = run_page(PAGE, state=SHOWN, query={"beta": "1.25"})
    c = chart_by_title(at, en("share_title"))
    moving = next(d for d in c["data"].values() if {"beta", "value"} <= set(d.columns) and "label" not in d)
    exact = moving[moving["exact"]]
    assert np.allclose(exact["beta"], 1.25)
    np.testing.assert_allclose(exact["value"], rlcore.kl_curve(rlcore.FLATTERY, 0.9, 1.25).curve.objective, atol=1e-12)
