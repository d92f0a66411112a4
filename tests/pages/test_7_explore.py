"""Page 7, Exploration: greedy decoding against sampling at a temperature.

Article figures checked with defaults (the article's example): greedy always writes `open`, whose mean
score is 2, and π(partly) never moves from 0.2 with the batch-mean baseline; sampling at temperature 1
finds `partly`; the chance to see `partly` (p = 0.2) passes 50% at k = 4 and 95% at k = 14.
"""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from tests.apphelp import (
    chart_by_title,
    chart_fingerprint,
    charts,
    choose_preset,
    just_shown,
    labels,
    languages,
    metrics,
    moves_charts,
    numbers,
    page_kit,
    preset_cases,
    question_key,
    run_page,
    scrubbers,
    titles,
)
from ui import i18n
from ui.colors import METHOD_FIXED, PALETTE

PAGE, K, en = page_kit("7_", "p7")
FOUR = rlcore.Scenario(tokens=("yes", "no", "partly", "unclear"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((1, 2), (3,), (9, 8), (4, 5, 6)))
SHOWN = just_shown("predict_explore")  # as after "Just show me"


def main_data(at, msgid: str, **values):
    """The largest dataset (the curves, not a layer of marks) of the chart titled by ``msgid``."""
    return max(chart_by_title(at, en(msgid, **values))["data"].values(), key=len)


def marks(at, best: str = "partly") -> list[float]:
    """The k values the discovery chart marks at the committed τ (50% and 95%, those within its 100 answers; the
    chart holds them for every step of the τ slider)."""
    found = [df for df in chart_by_title(at, en("discovery_title", best=best))["data"].values() if "k" in df.columns]
    if not found:
        return []
    return sorted(found[0][np.isclose(found[0]["temp"], at.slider(key=K("temp")).value)]["k"])


def fixed_curves(at, best: str = "partly"):
    return fixed_curves_in(chart_by_title(at, en("discovery_title", best=best)))


def fixed_curves_in(c: dict):
    """The discovery chart's curves that do not move as τ is dragged: τ = 1's and the committed τ's."""
    return next(df for df in c["data"].values() if "series" in df.columns and "temp" not in df.columns)


@pytest.fixture(scope="module")
def default():
    return run_page(PAGE, state=SHOWN)


def test_defaults_show_the_articles_greedy_story(default):
    m = metrics(default)
    assert m[en("greedy_writes")] == "open" and numbers(m[en("converged_greedy")])[:2] == [0, 8]
    assert numbers(m[en("best_greedy", best="partly")])[0] == 0.2                  # greedy never moves it
    # the article's "mean score 2" is Q(open) = (3 + 1 + 2 + 1 + 3) / 5
    assert numbers(m[en("greedy_score", likely="open")]) == [2]
    # 1 − 0.8^k: 0.59 at k = 4 (0.49 at 3), 0.956 at k = 14 (0.945 at 13)
    assert marks(default) == [4, 14]
    assert any(numbers(md.value)[-4:] == [50, 4, 95, 14] for md in default.markdown)  # 50% at 4, 95% at 14
    assert m[en("batch_holds", best="partly")] == "83.2%"                          # 1 − 0.8⁸


def test_greedy_stays_hidden_until_the_learner_commits():
    at = run_page(PAGE)
    assert question_key(at) == "predict_explore" and en("converged_greedy") not in metrics(at)
    assert en("best_greedy", best="partly") not in metrics(at)
    assert set(main_data(at, "best_title", best="partly")["decoding"]) == {"sampling"}
    assert not any("greedy" in t for c in charts(at) for t in titles(c["spec"]))
    at.radio(key="predict_explore").set_value(en("yes")).run()
    assert at.warning and f"**{en('no')}**" in at.warning[0].value              # the answer: never
    assert set(main_data(at, "best_title", best="partly")["decoding"]) == {"sampling", "greedy"}
    assert answer_of(at, "predict_explore", OPTIONS) == en("no")


def test_decoding_modes_take_method_colours_not_token_colours(default):
    spec = chart_by_title(default, en("best_title", best="partly"))["spec"]
    views = [spec]
    while any("layer" in v for v in views):  # the chart's layers, and theirs
        views = [sub for v in views for sub in v.get("layer", [v])]
    scales = [view["encoding"]["color"]["scale"] for view in views]
    for scale in scales:
        got = dict(zip(scale["domain"], scale["range"], strict=True))
        assert got["greedy"] == METHOD_FIXED["greedy"]
        assert not set(got.values()) & set(PALETTE), "no token colour for a decoding mode"


def test_greedy_never_moves_with_the_batch_mean_baseline(default):
    df = main_data(default, "probs_greedy_title")
    assert len(df) == 3 * 101  # steps 0..100 for three tokens
    for tok, p in zip(("open", "closed", "partly"), (0.5, 0.3, 0.2), strict=True):
        rows = df[df["token"] == tok]
        np.testing.assert_allclose(rows[["median", "lowest", "highest"]].to_numpy(), p, atol=1e-12)


def test_sampling_finds_partly_in_every_default_run(default):
    df = main_data(default, "probs_sampled_title", temp="1")
    last = df[(df["step"] == 100) & (df["token"] == "partly")]
    assert float(last["lowest"].iloc[0]) > 0.9  # every seed ends above the convergence threshold
    assert numbers(metrics(default)[en("converged_sampling")])[:2] == [8, 8]


def test_greedy_mean_score_hovers_around_q_of_open(default):
    df = main_data(default, "score_title")
    greedy = df[df["decoding"] == "greedy"]
    assert len(greedy) == 100
    # every greedy answer is an `open` answer: scores 1..3, batch means within that range, centred on 2
    assert greedy["lowest"].min() >= 1 and greedy["highest"].max() <= 3
    assert abs(greedy["median"].mean() - 2.0) < 0.15


def test_each_runs_final_probability_table(default):
    table = next(d.value for d in default.dataframe if en("columns.seed") in d.value.columns)
    assert table[en("columns.seed")].tolist() == list(range(8))
    np.testing.assert_allclose(table[en("columns.final_greedy", best="partly")], 0.2, atol=1e-12)
    assert table[en("columns.converged_sampling")].all() and not table[en("columns.converged_greedy")].any()


def test_discovery_chart_marks_four_and_fourteen(default):
    curve = fixed_curves(default)
    assert len(curve) == 100
    np.testing.assert_allclose(curve["chance"].iloc[[0, 1]], [0.2, 0.36])  # 1 − 0.8, 1 − 0.8²


def test_temperature_slider_changes_the_charts():
    at = run_page(PAGE)
    moves_charts(at, lambda at: at.slider(key=K("temp")).set_value(2.0).run())
    bars = main_data(at, "temp_title", temp="2")
    p = np.sqrt([0.5, 0.3, 0.2])  # π^(1/τ), τ = 2
    np.testing.assert_allclose(bars["probability"], p / p.sum(), atol=1e-12)
    # the sampled distribution gets its own curve in the discovery chart
    assert fixed_curves(at)["series"].nunique() == 2


def test_no_baseline_makes_greedy_reinforce_open():
    at = run_page(PAGE, query={"baseline": "none"}, state=SHOWN)
    assert at.selectbox(key=K("baseline")).value == "none"
    df = main_data(at, "probs_greedy_title")
    last = df[(df["step"] == 100) & (df["token"] == "open")]
    assert float(last["lowest"].iloc[0]) > 0.5  # only ever rewarded, open can only grow


@pytest.mark.parametrize("name", preset_cases(7))  # CI: every preset
def test_every_preset_runs(name):
    at = run_page(PAGE, scenario=rlcore.PRESETS[name], state=SHOWN)
    s = rlcore.summarize(rlcore.PRESETS[name])
    assert metrics(at)[en("greedy_writes")] == rlcore.PRESETS[name].tokens[s.likely]


def test_rare_best_token_needs_many_samples():
    at = run_page(PAGE, scenario=rlcore.PRESETS["Best token is rare (2%)"])
    # p = 0.02: 1 − 0.98^34 = 0.4967 < 0.5 ≤ 1 − 0.98^35 = 0.5068; 95% needs 149 > 100 samples
    assert any(numbers(md.value)[-4:] == [50, 35, 95, 149] for md in at.markdown)
    assert marks(at) == [35.0]  # 149 lies beyond the chart's 100 samples


def test_four_token_scenario():
    base = chart_fingerprint(run_page(PAGE))
    at = run_page(PAGE, scenario=FOUR, state=SHOWN)
    assert chart_fingerprint(at) != base
    df = main_data(at, "probs_greedy_title")
    assert list(df["token"].unique()) == ["yes", "no", "partly", "unclear"]
    assert metrics(at)[en("greedy_writes")] == "yes"


def test_a_token_that_is_never_sampled():
    never = rlcore.Scenario(tokens=("open", "partly"), probs=(1.0, 0.0), samples=((2,), (9,)))
    at = run_page(PAGE, scenario=never)
    assert main_data(at, "discovery_title", best="partly")["chance"].max() == 0  # p = 0: never seen, at any τ
    assert fixed_curves(at)["chance"].max() == 0
    assert marks(at) == []


def test_query_parameters_and_a_preset_set_the_widgets():
    at = run_page(PAGE, query={"temp": "0.3", "steps": "50", "seeds": "4", "batch": "16", "lr": "0.2"},
                  state=SHOWN)
    assert at.slider(key=K("temp")).value == pytest.approx(0.3)
    assert at.slider(key=K("steps")).value == 50
    assert at.slider(key=K("seeds")).value == 4
    assert numbers(metrics(at)[en("converged_sampling")])[1] == 4                    # k of 4 runs
    assert main_data(at, "score_title")["step"].max() == 50
    choose_preset(at, en("preset_hot"))  # the instructor's preset sets the temperature
    assert at.slider(key=K("temp")).value == pytest.approx(2.0)


def answer_of(at, key: str, options: list[str]) -> str:
    for option in options:
        at.radio(key=key).set_value(option).run()
        if at.success:
            return option
    raise AssertionError("no option was right")


OPTIONS = [en("yes"), en("no"), en("already")]


def test_predict_answer_follows_the_scenario():  # (the article's answer: the test of what greedy hides)
    at = run_page(PAGE, scenario=rlcore.PRESETS["Most likely is already best"])
    assert answer_of(at, "predict_explore", OPTIONS) == en("already")


@pytest.mark.parametrize("lang", languages(7))  # the quick suite: one, by page in turn; CI: both
def test_dragging_tau_shows_rlcore_s_discovery_chance_at_every_step_of_the_slider(lang):
    at = run_page(PAGE, query={"lang": lang, "temp": "1.5"})
    c = chart_by_title(at, i18n.text(lang, "p7.discovery_title", best="partly"))
    assert scrubbers(c) == [(pytest.approx(1.5), pytest.approx(0.1), pytest.approx(3.0), pytest.approx(0.1))]
    moving = next(d for d in c["data"].values() if {"temp", "chance"} <= set(d.columns))
    grid = np.unique(moving["temp"])
    np.testing.assert_allclose(grid, np.linspace(0.1, 3.0, 30), atol=1e-12)  # the slider's 30 steps
    for tau in grid:  # each τ's curve: 1 − (1 − μ_best)^k with rlcore's μ at that τ
        rows = moving[moving["temp"] == tau].sort_values("answers sampled")
        mu = rlcore.temperature_probs(rlcore.ARTICLE_SCENARIO.pi, float(tau))[2]
        np.testing.assert_allclose(rows["chance"], rlcore.discovery_chance(mu, rows["answers sampled"]), atol=1e-12)
        k50 = next(d for d in c["data"].values() if "k" in d.columns)
        at_tau = k50[(k50["temp"] == tau) & (k50["label"] == "50%")]["k"]
        k = rlcore.samples_to_discover(mu, 0.5)
        assert at_tau.tolist() == ([k] if k <= 100 else [])  # marked where it falls within the 100 answers
    fixed = fixed_curves_in(c)
    yours = i18n.text(lang, "chart.scrub_yours", name="τ", value="1.5")
    assert any(str(name).startswith(yours) for name in fixed["series"])   # the committed τ's curve, named with it
    assert i18n.text(lang, "chart.scrub_shown", name="τ", value="2.5") in labels(c)
