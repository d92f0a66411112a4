"""Page 4, "Baseline and variance": AppTest checks of what the learner sees.

With the default example the page shows the article's 20.74 (b = 0), 3.70 (b = V), their ratio 0.179,
the unchanged average update (−1.15, 0.21, 0.94), and R − V = −1.3, −3.3, −2.3, −3.3, −1.3 with mean −2.3.
"""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from tests.apphelp import (
    chart_fingerprint,
    charts,
    choose_preset,
    just_shown,
    metrics,
    moves_charts,
    numbers,
    page_kit,
    page_text,
    preset_cases,
    run_page,
    shared_out,
    spec_items,
)
from ui.format import pct

PAGE, K, en = page_kit("4_", "p4")
FOUR = rlcore.Scenario(tokens=("yes", "no", "maybe", "depends"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((6, 7), (1, 2, 3), (5,), (9, 9, 8)))
TWO = rlcore.Scenario(tokens=("open", "closed"), probs=(0.7, 0.3), samples=((2, 2), (6,)))
ARTICLE = rlcore.ARTICLE_SCENARIO
SIX = rlcore.Scenario(tokens=tuple(f"t{i}" for i in range(6)), probs=(0.3, 0.2, 0.2, 0.1, 0.1, 0.1),
                      samples=tuple((float(i), float(i) + 1) for i in range(6)))
SHOWN = just_shown("predict_baseline")  # as after "Just show me"


def said(at) -> list[list[float]]:
    """The numbers of each markdown paragraph."""
    return [numbers(m.value) for m in at.markdown]


def exact_columns(table, tokens=ARTICLE.tokens) -> list[str]:
    """The summary table's columns of the exact mean update, one per token (of ``tokens``) it has."""
    return [c for c in (en("col_exact", token=tok) for tok in tokens) if c in table.columns]


def frames_with(at, column: str):
    return [df for c in charts(at) for df in c["data"].values() if column in df]


def summary_table(at):
    return next(d.value for d in at.dataframe if en("col_var_exact") in d.value)


@pytest.fixture(scope="module")
def shown():
    """The page after "Just show me" (read only)."""
    return run_page(PAGE, state=SHOWN)


def test_defaults_show_the_articles_numbers(shown):
    at = shown
    m = metrics(at)
    assert m[en("var_zero")] == "20.74"
    assert m[en("var_v", v="4.3")] == "3.70"
    assert m[en("noise_left")] == "0.179"
    ratio = next(x for x in at.metric if x.label == en("noise_left"))
    assert ratio.proto.help == en("noise_left_help")  # 3.70 / 20.74: the share of the noise left
    assert all(len(x.label) <= 25 for x in at.metric), [x.label for x in at.metric]
    text = page_text(at)
    for s in ["E[g] = π ⊙ A = (−1.15, 0.21, 0.94)", "R − V = −1.3, −3.3, −2.3, −3.3, −1.3",
              "−2.3 = Q(open) − V = 2 − 4.3"]:
        assert s in text, s
    # the same mean, the two variances, their ratio and its inverse (1/5.6, 5.6 times fewer answers)
    assert [-1.15, 0.21, 0.94, 3.7, 20.74, 0.179, 1, 5.6, 5.6] in said(at)
    assert [5, -1.3, -3.3, -2.3, -3.3, -1.3, -2.3, 2, 4.3] in said(at)  # the 5 answers' R − V and their mean
    # the selectbox starts on the token with the best Q
    assert at.selectbox(key=K("tok")).value == "partly"
    assert at.slider(key=K("n")).value == 2000


def test_means_agree_and_spreads_do_not(shown):
    table = summary_table(shown)
    exact = table[exact_columns(table)].to_numpy()
    np.testing.assert_allclose(exact, np.tile([-1.15, 0.21, 0.94], (4, 1)), atol=1e-9)
    var = table[en("col_var_exact")].to_numpy()
    assert var[0] == pytest.approx(20.7398) and var[1] == pytest.approx(3.7032)
    assert var.min() == var[2]  # b* has the least variance
    hist = frames_with(shown, "share")[0]
    spread = hist[hist["share"] > 0].groupby("baseline")["from"].agg(lambda s: s.max() - s.min())
    assert spread["b = 0"] > spread["b = V"]  # the histogram with b = 0 is wider
    assert list(dict.fromkeys(hist["row"])) == ["b = 0", "b = V = 4.3", "b = b* = 5.35", en("yours_name", b="8")]


@pytest.mark.parametrize("name", preset_cases(4))  # CI: every preset
def test_every_preset_sets_the_exact_update(name):
    """Whatever the baseline, E[g] = π ⊙ (Q − V) with Q each token's mean score and V = Σ π·Q; the token
    picker starts on the best Q. (Most likely is already best: Q = 9, 5, 2, V = 6.95, E[g] = 1.23, −0.4875, −0.7425.)"""
    scenario = rlcore.PRESETS[name]
    at = run_page(PAGE, scenario=scenario, state=SHOWN)
    pi, q = np.array(scenario.probs), np.array([np.mean(s) for s in scenario.samples])
    table = summary_table(at)
    exact = table[exact_columns(table, scenario.tokens)].to_numpy()
    np.testing.assert_allclose(exact, np.tile(pi * (q - pi @ q), (len(table), 1)), atol=1e-9)
    assert at.selectbox(key=K("tok")).value == scenario.tokens[int(np.argmax(q))]
    assert len(charts(at)) == 4


@pytest.mark.parametrize("scenario", shared_out([FOUR, TWO, SIX], every=3, offset=1, ids=lambda s: f"{s.n}-tokens"))
def test_other_token_counts(scenario):
    at = run_page(PAGE, scenario=scenario, state=SHOWN)
    table = summary_table(at)
    assert len(exact_columns(table, scenario.tokens)) == scenario.n
    best = scenario.tokens[int(np.argmax(scenario.q))]
    assert at.selectbox(key=K("tok")).value == best
    running = frames_with(at, "running average")[0]
    assert running.groupby("baseline").size().max() <= 200


def test_moving_b_changes_the_charts_and_a_preset_sets_it():
    at = run_page(PAGE, state=SHOWN)
    moves_charts(at, lambda at: at.slider(key=K("b")).set_value(2.0).run())
    assert en("yours_name", b="2") in set(summary_table(at)[en("col_baseline")])
    choose_preset(at, "b = V")
    assert at.slider(key=K("b")).value == pytest.approx(4.3)
    assert en("yours_name", b="4.3") in set(summary_table(at)[en("col_baseline")])


def test_moving_n_and_token_change_the_charts():
    at = run_page(PAGE, state=SHOWN)
    before = chart_fingerprint(at)
    at.slider(key=K("n")).set_value(500).run()
    after_n = chart_fingerprint(at)
    assert after_n != before
    assert frames_with(at, "running average")[0]["answers"].max() == 500
    at.selectbox(key=K("tok")).set_value("open").run()
    assert chart_fingerprint(at) != after_n
    assert en("hist_title", n="500", token="open") in str(charts(at)[0]["spec"])  # the main chart's title
    # how often a single answer pushes "open" the way its average goes: the same draw, from rlcore
    bd = rlcore.value_breakdown(ARTICLE.probs, ARTICLE.samples)
    res = rlcore.baseline_study(ARTICLE.probs, ARTICLE.samples, (0.0, bd.v, rlcore.optimal_baseline(
        ARTICLE.probs, ARTICLE.samples), 8.0), 500, 0, token=0)
    assert en("directions", zero=pct(res.right_direction[0]), token="open", at_v=pct(res.right_direction[1])) in [
        m.value for m in at.markdown]


def test_a_token_that_disappears_from_the_scenario_falls_back_to_the_best():
    at = run_page(PAGE)
    at.selectbox(key=K("tok")).set_value("open").run()
    at.session_state["scenario"] = FOUR
    at.run()
    assert at.selectbox(key=K("tok")).value == "depends"  # Q = 26/3, the best of FOUR


def test_the_averages_wait_for_the_prediction_and_the_answer_is_computed():
    at = run_page(PAGE)
    assert "(−1.15, 0.21, 0.94)" not in page_text(at)  # π ⊙ A = 0.5·(−2.3), 0.3·0.7, 0.2·4.7
    assert not frames_with(at, "running average") and not at.metric
    at.radio(key="predict_baseline").set_value(en("turns_around")).run()
    assert at.warning and "(−1.15, 0.21, 0.94)" in page_text(at)
    assert frames_with(at, "running average")
    at.radio(key="predict_baseline").set_value(en("stays")).run()
    assert at.success
    # the average update π·(Q − b) with b = 0 and b = V: 0.5·(−2.3), 0.3·0.7, 0.2·4.7 both times
    said = numbers(at.success[0].value)
    assert [-1.15, 0.21, 0.94] * 2 in [said[i:i + 6] for i in range(len(said))]
    at.radio(key="predict_baseline").set_value(en("smaller")).run()
    assert at.warning and not at.success


def test_one_colour_per_baseline_on_every_chart(shown):
    def scales(spec):
        colors = [v["encoding"]["color"] for _, v in spec_items({"": spec}, skip=())
                  if isinstance(v, dict) and isinstance(v.get("encoding", {}).get("color"), dict)]
        return [dict(zip(c["scale"]["domain"], c["scale"]["range"], strict=True)) for c in colors
                if c.get("field") == "baseline" and "domain" in c.get("scale", {})]

    found = [scales(c["spec"]) for c in charts(shown)[:3]]  # histograms, variance against b, running averages
    assert all(found), "every baseline chart has an explicit colour scale"
    mappings = [m for f in found for m in f if "b = 0" in m]
    assert len(mappings) >= 3  # the dots, the marks on the parabola, the running averages
    zero = {m["b = 0"] for m in mappings}
    at_v = {m["b = V"] for m in mappings}
    assert len(zero) == 1 and len(at_v) == 1 and zero != at_v
