"""Page 8, Ratio and clipping: PPO's clipped objective on one token, and a few PPO epochs on one batch.

Article figures checked with defaults: π_old(partly) 0.2 with ε 0.2 can be pushed to at most 0.24 (and down
to 0.16): the bound is (1 + ε)·π_old, not π_old + ε = 0.4.
"""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from tests.apphelp import (
    FOUR_SPREAD,
    chart_by_title,
    chart_fingerprint,
    charts,
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
    preset_cases,
    question_key,
    run_page,
    scrubbers,
)
from ui import i18n

PAGE, K, en = page_kit("8_Ratio", "p8_ratio")
SHOWN = just_shown("predict_clip")  # as after "Just show me"
HIGH, LOW, OBJECTIVE_CHART, PROBS_CHART = en("m_high"), en("m_low"), en("chart.title", token="partly"), \
    en("epochs.probs_title")


@pytest.fixture(scope="module")
def default():
    return run_page(PAGE, state=SHOWN)


def test_defaults_show_the_articles_clip_limit(default):
    m = {label: numbers(value) for label, value in metrics(default).items()}
    assert m["π_old(partly)"] == [0.2] and m[en("m_adv", token="partly")] == [4.7]
    assert m[HIGH] == [0.24] and m[LOW] == [0.16]                             # (1 ± 0.2) · 0.2
    assert f"**{en('option_to', p='0.24')}**" in default.info[0].value       # the answer the question reveals


def test_the_bound_stays_hidden_until_the_learner_commits():
    at = run_page(PAGE)
    assert question_key(at) == "predict_clip" and HIGH not in metrics(at)
    assert "0.24" not in page_text(at) and "0.16" not in page_text(at)
    c = chart_by_title(at, OBJECTIVE_CHART)
    curve = data_with(c, "objective")
    # each line only up to π_old: A > 0 from below, A < 0 from above, where nothing is clipped
    assert curve[curve["advantage"] == "A = +4.7"]["probability"].max() == pytest.approx(0.2)
    assert curve[curve["advantage"] == "A = −4.7"]["probability"].min() == pytest.approx(0.2)
    assert not any("region" in df.columns for df in c["data"].values())
    assert not any(e.label == en("epochs.more") for e in at.expander), "no epochs before the answer"
    # the guess that ε is added (0.2 + 0.2 = 0.4) is wrong: the bound is 1.2 × 0.2
    at.radio(key="predict_clip").set_value(en("option_to", p="0.4")).run()
    assert at.warning and f"**{en('option_to', p='0.24')}**" in at.warning[0].value
    said = numbers(at.warning[0].value)
    assert any(said[i:i + 3] == [1.2, 0.2, 0.24] for i in range(len(said)))   # 1.2 × 0.2 = 0.24
    assert numbers(metrics(at)[HIGH]) == [0.24]


def test_a_negative_advantage_asks_how_low():
    at = run_page(PAGE, query={"token": "open"})  # A(open) = 2 − 4.3 < 0, π_old 0.5: (1 − 0.2)·0.5 = 0.4
    # the options: 0.5 − 0.2 = 0.3 (ε added, not a factor), the bound 0.4, no limit
    assert at.radio(key="predict_clip").options == [en("option_to", p="0.3"), en("option_to", p="0.4"),
                                                    en("option_none")]
    assert numbers(at.radio(key="predict_clip").label)[:2] == [0.5, -2.3]
    at.radio(key="predict_clip").set_value(en("option_to", p="0.4")).run()
    assert at.success and not at.warning


def test_clipped_objective_is_flat_past_the_bounds(default):
    c = chart_by_title(default, OBJECTIVE_CHART)
    curve = data_with(c, "objective")
    curve = curve[np.isclose(curve["eps"], 0.2)]  # the chart holds every ε of the slider: the committed one here
    pos = curve[curve["advantage"] == "A = +4.7"].set_index("probability")["objective"]
    neg = curve[curve["advantage"] == "A = −4.7"].set_index("probability")["objective"]
    # A = +4.7: ρA rises to 1.2 · 4.7 = 5.64 at π = 0.24, then stays there
    assert pos.loc[0.24] == pytest.approx(5.64)
    assert pos.loc[1.0] == pytest.approx(5.64)
    assert pos.loc[0.1] == pytest.approx(0.5 * 4.7)
    # A = −4.7: flat at 0.8 · (−4.7) = −3.76 below π = 0.16, then ρA down to 5 · (−4.7) at π = 1
    assert neg.loc[0.0] == pytest.approx(-3.76)
    assert neg.loc[0.16] == pytest.approx(-3.76)
    assert neg.loc[1.0] == pytest.approx(-23.5)
    spans = data_with(c, "region")
    spans = spans[np.isclose(spans["eps"], 0.2)]
    assert sorted(zip(spans["from"], spans["to"], strict=True)) == [(0.0, pytest.approx(0.16)),
                                                                    (pytest.approx(0.24), 1.0)]


def test_ppo_epochs_first_step_and_clipping(default):
    df = data_with(chart_by_title(default, PROBS_CHART), "clip band low")
    first = df[df["epoch"] == 1].set_index("token")["probability"]
    # epoch 1, no ratio clipped yet: Δz = 0.1 · Σ Aₙ(e_aₙ − π)/10 = 0.01 · (−11.5, 2.1, 9.4)
    z = np.log([0.5, 0.3, 0.2]) + 0.01 * np.array([-11.5, 2.1, 9.4])
    expected = np.exp(z) / np.exp(z).sum()
    np.testing.assert_allclose(first.loc[["open", "closed", "partly"]], expected, atol=1e-12)
    band = df[df["token"] == "partly"].iloc[0]
    assert (band["clip band low"], band["clip band high"]) == (pytest.approx(0.16), pytest.approx(0.24))
    clipped = data_with(chart_by_title(default, en("epochs.share_title")), "share clipped")["share clipped"]
    assert clipped.iloc[0] == 0.0 and clipped.iloc[-1] > 0.5
    batch = next(d.value for d in default.dataframe if en("batch.advantage") in d.value.columns)
    assert len(batch) == 10                                    # the example's 10 sampled answers, V = 4.3:
    np.testing.assert_allclose(batch[en("batch.advantage")][:5], [-1.3, -3.3, -2.3, -3.3, -1.3], atol=1e-12)
    assert any(numbers(md.value)[:2] == [10, 4.3] for md in default.markdown)


def test_eps_slider_changes_the_charts_and_a_preset_sets_it():
    at = run_page(PAGE, state=SHOWN)
    moves_charts(at, lambda at: at.slider(key=K("eps")).set_value(0.3).run())
    assert numbers(metrics(at)[HIGH]) == [0.26]
    choose_preset(at, en("preset_eps", eps="0.1"))
    assert at.slider(key=K("eps")).value == pytest.approx(0.1)
    assert numbers(metrics(at)[HIGH]) == [0.22]


@pytest.mark.parametrize("name", preset_cases(8))  # CI: every preset
def test_every_preset_runs(name):
    scenario = rlcore.PRESETS[name]
    at = run_page(PAGE, scenario=scenario, state=SHOWN)
    best = scenario.tokens[int(np.argmax(scenario.q))]
    assert at.selectbox(key=K("token")).value == best


def test_four_token_scenario_and_token_choice():
    base = chart_fingerprint(run_page(PAGE, state=SHOWN))
    at = run_page(PAGE, scenario=FOUR_SPREAD, state=SHOWN)
    assert chart_fingerprint(at) != base
    assert at.selectbox(key=K("token")).value == "maybe"
    df = data_with(chart_by_title(at, PROBS_CHART), "clip band low")
    assert list(df["token"].unique()) == ["yes", "no", "maybe", "unclear"]
    at.selectbox(key=K("token")).set_value("yes").run()
    assert numbers(metrics(at)["π_old(yes)"]) == [0.4]


def test_a_token_with_probability_zero_gets_a_notice():
    zero = rlcore.Scenario(tokens=("open", "closed", "partly"), probs=(0.7, 0.3, 0.0),
                           samples=((2,), (5,), (9,)))
    at = run_page(PAGE, scenario=zero, state=SHOWN)
    # the best token, partly, is the one asked about: no question, no curve, no epochs; a notice for each
    assert at.selectbox(key=K("token")).value == "partly" and question_key(at) is None
    assert len(at.warning) == 2 and not charts(at) and not at.metric
    at.selectbox(key=K("token")).set_value("open").run()   # a token with π > 0: its curve, still no epochs
    assert len(charts(at)) == 1 and numbers(metrics(at)["π_old(open)"]) == [0.7] and len(at.warning) == 1


def test_query_parameters_set_the_widgets():
    at = run_page(PAGE, query={"eps": "0.1", "token": "open", "epochs": "5", "ppo_lr": "0.5"}, state=SHOWN)
    assert at.slider(key=K("eps")).value == pytest.approx(0.1)
    assert at.selectbox(key=K("token")).value == "open"
    assert at.slider(key=K("epochs")).value == 5 and at.slider(key=K("ppo_lr")).value == pytest.approx(0.5)
    assert numbers(metrics(at)["π_old(open)"]) == [0.5]
    assert numbers(metrics(at)[HIGH]) == [0.55]


@pytest.mark.parametrize("lang", languages(9))  # the quick suite: one, by page in turn; CI: both
def test_dragging_eps_shows_rlcore_s_curve_at_every_step_of_the_slider(lang):
    at = run_page(PAGE, state=SHOWN, query={"lang": lang})
    c = chart_by_title(at, i18n.text(lang, "p8_ratio.chart.title", token="partly"))
    curve = data_with(c, "objective")  # its rows for every ε of the slider (ui.scrub)
    assert scrubbers(c) == [(pytest.approx(0.2), pytest.approx(0.05), pytest.approx(0.5), pytest.approx(0.05))]
    grid = np.unique(curve["eps"])
    np.testing.assert_allclose(grid, np.linspace(0.05, 0.5, 10), atol=1e-12)
    for e in grid:  # each ε's rows: the clipped objective rlcore computes for that ε alone
        own = rlcore.clip_curve(rlcore.ARTICLE_SCENARIO, "partly", float(e))
        rows = curve[curve["eps"] == e]
        for name, values in (("A = +4.7", own.pos), ("A = −4.7", own.neg)):
            line = rows[rows["advantage"] == name]
            np.testing.assert_allclose(line["probability"], own.x, atol=1e-12)
            np.testing.assert_allclose(line["objective"], values, atol=1e-12)
    # the committed ε's bounds are marked with it, and the chart says which ε it shows
    assert {i18n.text(lang, "chart.scrub_yours", name="ε", value="0.2"),
            i18n.text(lang, "chart.scrub_shown", name="ε", value="0.35")} <= labels(c)


def test_a_committed_eps_between_the_steps_is_drawn_exactly_where_it_rests():
    at = run_page(PAGE, state=SHOWN, query={"eps": "0.12"})  # a link may hold a value off the slider's steps
    curve = data_with(chart_by_title(at, OBJECTIVE_CHART), "objective")
    exact = curve[curve["exact"]]
    own = rlcore.clip_curve(rlcore.ARTICLE_SCENARIO, "partly", 0.12)
    assert np.allclose(exact["eps"], 0.12)
    np.testing.assert_allclose(exact[exact["advantage"] == "A = +4.7"]["objective"], own.pos, atol=1e-12)
    assert numbers(metrics(at)[HIGH]) == [0.224]                # (1 + 0.12) · 0.2: the text reads the same value
