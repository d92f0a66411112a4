"""Page 7, Exploration: greedy decoding against sampling at a temperature.

Article figures checked with defaults (the article's example): greedy always writes `open`, whose mean
score is 2, and π(partly) never moves from 0.2 with the batch-mean baseline; sampling at temperature 1
finds `partly`; the chance to see `partly` (p = 0.2) passes 50% at k = 4 and 95% at k = 14.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from apphelp import (
    chart_by_title,
    chart_fingerprint,
    charts,
    choose_preset,
    just_shown,
    keys,
    metrics,
    no_exception,
    numbers,
    page_file,
    page_text,
    question_key,
    run_page,
    titles,
)

import rlcore
from ui.colors import METHOD_FIXED, PALETTE

PAGE = page_file("7_")
K = keys(PAGE)
FOUR = rlcore.Scenario(tokens=("yes", "no", "partly", "unclear"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((1, 2), (3,), (9, 8), (4, 5, 6)))
SHOWN = just_shown("predict_explore")  # as after "Just show me"


def sample_counts(at) -> list[float]:
    """The answer counts k at which seeing the best token passes 50% and 95% ("... at k = 4 and 95% at k = 14")."""
    text = next(md.value for md in at.markdown if "95% at k = " in md.value)
    return [float(k) for k in re.findall(r"k = ([0-9.,]+)", text)][-2:]


def main_data(chart: dict):
    """The largest dataset of a chart (the curves, not a layer of marks)."""
    return max(chart["data"].values(), key=len)


@pytest.fixture(scope="module")
def default():
    at = run_page(PAGE, state=SHOWN)
    no_exception(at)
    return at


def test_defaults_show_the_articles_greedy_story(default):
    m = metrics(default)
    assert m["Greedy always writes"] == "open" and numbers(m["Converged, greedy"])[:2] == [0, 8]
    assert numbers(m["π(partly), greedy"])[0] == 0.2                  # greedy never moves it
    # the article's "mean score 2" is Q(open) = (3 + 1 + 2 + 1 + 3) / 5
    assert numbers(m["Greedy's score Q(open)"]) == [2]
    # 1 − 0.8^k: 0.59 at k = 4 (0.49 at 3), 0.956 at k = 14 (0.945 at 13)
    assert sample_counts(default) == [4, 14]


def test_greedy_stays_hidden_until_the_learner_commits():
    at = run_page(PAGE)
    no_exception(at)
    assert question_key(at) == "predict_explore" and "Converged, greedy" not in metrics(at)
    assert "π(partly), greedy" not in metrics(at)
    assert set(main_data(chart_by_title(at, "π(partly) during training"))["decoding"]) == {"sampling"}
    assert not any("greedy" in t for c in charts(at) for t in titles(c["spec"]))
    at.radio(key="predict_explore").set_value("Yes, given enough steps").run()
    no_exception(at)
    assert at.warning and "0 of 8 greedy runs converged" in at.warning[0].value
    assert set(main_data(chart_by_title(at, "π(partly) during training"))["decoding"]) == {"sampling", "greedy"}


def test_decoding_modes_take_method_colours_not_token_colours(default):
    spec = chart_by_title(default, "π(partly) during training")["spec"]
    views = [spec]
    while any("layer" in v for v in views):  # the chart's layers, and theirs
        views = [sub for v in views for sub in v.get("layer", [v])]
    scales = [view["encoding"]["color"]["scale"] for view in views]
    for scale in scales:
        got = dict(zip(scale["domain"], scale["range"], strict=True))
        assert got["greedy"] == METHOD_FIXED["greedy"]
        assert not set(got.values()) & set(PALETTE), "no token colour for a decoding mode"


def test_greedy_never_moves_with_the_batch_mean_baseline(default):
    df = main_data(chart_by_title(default, "Each token's probability, greedy"))
    assert len(df) == 3 * 101  # steps 0..100 for three tokens
    for tok, p in zip(("open", "closed", "partly"), (0.5, 0.3, 0.2), strict=True):
        rows = df[df["token"] == tok]
        np.testing.assert_allclose(rows[["median", "lowest", "highest"]].to_numpy(), p, atol=1e-12)


def test_sampling_finds_partly_in_every_default_run(default):
    df = main_data(chart_by_title(default, "Each token's probability, sampling"))
    last = df[(df["step"] == 100) & (df["token"] == "partly")]
    assert float(last["lowest"].iloc[0]) > 0.9  # every seed ends above the convergence threshold
    assert numbers(metrics(default)["Converged, sampling"])[:2] == [8, 8]


def test_greedy_mean_score_hovers_around_q_of_open(default):
    df = main_data(chart_by_title(default, "Mean judge score"))
    greedy = df[df["decoding"] == "greedy"]
    assert len(greedy) == 100
    # every greedy answer is an `open` answer: scores 1..3, batch means within that range, centred on 2
    assert greedy["lowest"].min() >= 1 and greedy["highest"].max() <= 3
    assert abs(greedy["median"].mean() - 2.0) < 0.15


def test_discovery_chart_marks_four_and_fourteen(default):
    c = chart_by_title(default, "Chance to see partly")
    curve = main_data(c)
    assert len(curve) == 100
    np.testing.assert_allclose(curve["chance"].iloc[[0, 1]], [0.2, 0.36])  # 1 − 0.8, 1 − 0.8²
    marks = [df for df in c["data"].values() if "k" in df.columns]
    assert marks and sorted(marks[0]["k"]) == [4.0, 14.0]


def test_temperature_slider_changes_the_charts(default):
    at = run_page(PAGE)
    before = chart_fingerprint(at)
    at.slider(key=K("temp")).set_value(2.0).run()
    no_exception(at)
    assert chart_fingerprint(at) != before
    bars = main_data(chart_by_title(at, "What sampling at τ = 2 draws from"))
    p = np.sqrt([0.5, 0.3, 0.2])  # π^(1/τ), τ = 2
    np.testing.assert_allclose(bars["probability"], p / p.sum(), atol=1e-12)
    # the sampled distribution gets its own curve in the discovery chart
    assert main_data(chart_by_title(at, "Chance to see partly"))["series"].nunique() == 2


def test_no_baseline_makes_greedy_reinforce_open():
    at = run_page(PAGE, query={"baseline": "none"}, state=SHOWN)
    no_exception(at)
    assert at.selectbox(key=K("baseline")).value == "none"
    df = main_data(chart_by_title(at, "Each token's probability, greedy"))
    last = df[(df["step"] == 100) & (df["token"] == "open")]
    assert float(last["lowest"].iloc[0]) > 0.5  # only ever rewarded, open can only grow


@pytest.mark.parametrize("name", list(rlcore.PRESETS))
def test_every_preset_runs(name):
    at = run_page(PAGE, scenario=rlcore.PRESETS[name], state=SHOWN)
    no_exception(at)
    s = rlcore.summarize(rlcore.PRESETS[name])
    assert metrics(at)["Greedy always writes"] == rlcore.PRESETS[name].tokens[s.likely]


def test_rare_best_token_needs_many_samples():
    at = run_page(PAGE, scenario=rlcore.PRESETS["Best token is rare (2%)"])
    # p = 0.02: 1 − 0.98^34 = 0.4967 < 0.5 ≤ 1 − 0.98^35 = 0.5068; 95% needs 149 > 100 samples
    assert sample_counts(at) == [35, 149]
    marks = [df for df in chart_by_title(at, "Chance to see partly")["data"].values() if "k" in df.columns]
    assert marks and list(marks[0]["k"]) == [35.0]  # 149 lies beyond the chart's 100 samples


def test_four_token_scenario():
    base = chart_fingerprint(run_page(PAGE))
    at = run_page(PAGE, scenario=FOUR, state=SHOWN)
    no_exception(at)
    assert chart_fingerprint(at) != base
    df = main_data(chart_by_title(at, "Each token's probability, greedy"))
    assert list(df["token"].unique()) == ["yes", "no", "partly", "unclear"]
    assert metrics(at)["Greedy always writes"] == "yes"


def test_a_token_that_is_never_sampled():
    never = rlcore.Scenario(tokens=("open", "partly"), probs=(1.0, 0.0), samples=((2,), (9,)))
    at = run_page(PAGE, scenario=never)
    no_exception(at)
    assert "it is never drawn (p = 0)" in page_text(at)


def test_query_parameters_set_the_widgets():
    at = run_page(PAGE, query={"temp": "0.3", "steps": "50", "seeds": "4", "batch": "16", "lr": "0.2"},
                  state=SHOWN)
    no_exception(at)
    assert at.slider(key=K("temp")).value == pytest.approx(0.3)
    assert at.slider(key=K("steps")).value == 50
    assert at.slider(key=K("seeds")).value == 4
    assert "of 4" in page_text(at)


def test_instructor_preset_button_sets_the_temperature():
    at = run_page(PAGE)
    choose_preset(at, "Hot sampling (τ = 2)")
    no_exception(at)
    assert at.slider(key=K("temp")).value == pytest.approx(2.0)


def answer_of(at, key: str, options: list[str]) -> str:
    for option in options:
        at.radio(key=key).set_value(option).run()
        if at.success:
            return option
    raise AssertionError("no option was right")


OPTIONS = ["Yes, given enough steps", "No, never", "It already writes it"]


def test_predict_answer_follows_the_scenario():
    assert answer_of(run_page(PAGE), "predict_explore", OPTIONS) == "No, never"
    at = run_page(PAGE, scenario=rlcore.PRESETS["Most likely is already best"])
    assert answer_of(at, "predict_explore", OPTIONS) == "It already writes it"
