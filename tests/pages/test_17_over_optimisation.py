"""Page 17, "Over-optimisation": the reward model's score and the true judge's along training, against KL."""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from tests.apphelp import chart_by_title, chart_frame, keys, metrics, moves_charts, page_file, run_page
from ui import i18n
from ui.format import fmt
from ui.prep import thin_steps

PAGE = page_file("17_")
K = keys(PAGE)
SHOWN = {"predict_over_shown": True}
PROXY, TRUE = "reward model (what training sees)", "true judge"
FOUR = rlcore.Scenario(tokens=("yes", "no", "maybe", "unclear"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((1, 9), (3,), (9, 8), (4, 5, 10)))
ONE_WRITER = rlcore.Scenario(tokens=("a", "b"), probs=(1.0, 0.0), samples=((1,), (5,)))


def gains(at, run, beta=0.05):
    """The main chart's rows of ``run`` (a judge) at the committed ``beta`` (after the answer the chart holds them for
    every β of its grid)."""
    df = chart_frame(at, "Score gained since the start", "gain")
    at_beta = np.isclose(df["log₁₀ β"], np.log10(beta), atol=1e-9) if "log₁₀ β" in df else True
    return df[(df["run"] == run) & at_beta]


def test_proxy_keeps_rising_while_the_true_score_peaks_and_falls():
    at = run_page(PAGE, state=SHOWN, inputs={"flattery": 2.0, "noise": 1.0})
    proxy, true = gains(at, PROXY), gains(at, TRUE)
    assert proxy["gain"].iloc[0] == 0 == true["gain"].iloc[0]     # gains are measured from the reference
    assert np.all(np.diff(proxy["gain"]) >= -1e-9)
    peak = int(np.argmax(true["gain"].to_numpy()))
    assert 0 < peak < len(true) - 1 and true["gain"].iloc[-1] < true["gain"].iloc[peak] - 0.5
    assert np.all(np.diff(true["KL"]) >= -1e-9)                    # KL grows along training
    radio = at.radio(key="predict_over")
    assert f"**{radio.options[1]}**" in at.info[0].value                # the answer: it rises, then falls
    run = rlcore.over_optimisation(rlcore.ARTICLE_SCENARIO, beta=0.05, comparisons=1000, flattery=2.0, noise=1.0)
    assert metrics(at)[i18n.text("en", "p17.fall")] == fmt(run.fall) and run.fall > 0.5


def test_before_the_answer_only_the_reward_model_is_drawn():
    at = run_page(PAGE)
    df = chart_frame(at, "Score gained since the start", "gain")
    assert set(df["run"]) == {PROXY}


def test_beta_moves_the_run_and_honest_raters_give_no_fall():
    at = run_page(PAGE, state=SHOWN)
    moves_charts(at, lambda at: at.select_slider(key=K("beta")).set_value(1).run())
    honest = run_page(PAGE, state=SHOWN, inputs={"flattery": 0.0, "n": 20000})
    true = gains(honest, TRUE)["gain"].to_numpy()
    assert true[-1] >= true.max() - 1e-9
    assert metrics(honest)[i18n.text("en", "p17.fall")] == fmt(0.0)
    assert i18n.text("en", "p17.no_turn") in [md.value for md in honest.markdown]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_dragging_beta_shows_rlcore_s_run_at_every_beta_of_the_grid(lang):
    at = run_page(PAGE, state=SHOWN, query={"lang": lang})
    c = chart_by_title(at, i18n.text(lang, "p17.title"))
    (param,) = [p for p in c["spec"]["params"] if p.get("bind")]
    assert param["bind"]["input"] == "range" and param["value"] == -1.301  # log₁₀ 0.05, as the input shows it
    assert (param["bind"]["min"], param["bind"]["max"]) == (-2, pytest.approx(0.7))
    assert param["bind"]["step"] == pytest.approx(0.1)
    rows = max((d for d in c["data"].values() if "gain" in d), key=len)
    grid = np.unique(rows.loc[~rows["exact"], "log₁₀ β"])
    np.testing.assert_allclose(grid, np.linspace(-2.0, 0.7, 28), atol=1e-12)   # β 0.01 … 5, even in log₁₀ β
    judges = (i18n.text(lang, "p17.series_rm"), i18n.text(lang, "p17.series_true"))
    at_steps = thin_steps(301, 60)  # the chart's steps of the default 300
    for x, exact in [*((g, False) for g in grid), (np.log10(0.05), True)]:  # 0.05 is off the grid: its own rows
        own = rlcore.over_optimisation(rlcore.ARTICLE_SCENARIO, beta=0.05 if exact else float(10 ** x),
                                       comparisons=1000)
        here = rows[np.isclose(rows["log₁₀ β"], x, atol=1e-12) & (rows["exact"] == exact)]
        for judge, gain in zip(judges, (own.proxy, own.true), strict=True):
            line = here[here["run"] == judge]
            np.testing.assert_allclose(line["KL"], own.kl[at_steps], rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(line["gain"], gain[at_steps], rtol=1e-12, atol=1e-12)
    labels = {str(v) for d in c["data"].values() if "label" in d for v in d["label"]}
    assert {i18n.text(lang, "chart.scrub_yours", name="β", value="0.05"),
            i18n.text(lang, "chart.scrub_shown", name="β", value="0.1")} <= labels


def test_a_beta_on_the_grid_has_no_rows_of_its_own():
    at = run_page(PAGE, state=SHOWN, inputs={"beta": 0.1})   # log₁₀ 0.1 = −1, a grid point
    rows = chart_frame(at, "Score gained since the start", "gain")
    assert not rows["exact"].any() and len(np.unique(rows["log₁₀ β"])) == 28


def test_edited_scenario_and_one_with_nothing_to_compare():
    at = run_page(PAGE, scenario=FOUR, state=SHOWN)
    assert len(gains(at, TRUE)) > 1
    bad = run_page(PAGE, scenario=ONE_WRITER)  # a notice, not an error, and no chart
    assert not bad.error and [i.value for i in bad.info] == [i18n.text("en", "judge.nothing_to_compare")]
    assert not bad.get("vega_lite_chart")


def gao(at, title_id: str):
    df = chart_frame(at, i18n.text("en", title_id), "gain")
    return {(run, score): part for (run, score), part in df.groupby(["run", "score"])}


def test_gao_measured_over_optimisation_without_a_bias_and_then_with_one():
    """Honest raters: the proxy rises, the gold peaks inside and falls at 100 comparisons, and peaks higher and
    later at 1,000. The bias switch names its own lesson: at 10,000 comparisons the gold still falls."""
    at = run_page(PAGE, state=SHOWN)
    curves = gao(at, "p17.gao_title")
    few, many = "100 comparisons", "1,000 comparisons"
    assert set(curves) == {(r, s) for r in (few, many) for s in ("reward model", "true judge")}
    for run in (few, many):
        proxy = curves[run, "reward model"]["gain"].to_numpy()
        assert proxy[0] == 0 and np.all(np.diff(proxy) >= -1e-12)
        assert np.all(np.diff(curves[run, "reward model"]["√KL"].to_numpy()) >= 0)
    gold_few, gold_many = (curves[r, "true judge"] for r in (few, many))
    i, j = int(gold_few["gain"].argmax()), int(gold_many["gain"].argmax())
    assert 0 < i < len(gold_few) - 1 and gold_few["gain"].iloc[-1] < 0.9 * gold_few["gain"].iloc[i]
    assert gold_many["gain"].iloc[j] > gold_few["gain"].iloc[i]
    assert gold_many["√KL"].iloc[j] > gold_few["√KL"].iloc[i]
    at.toggle(key=K("gao_bias")).set_value(True).run()
    biased = gao(at, "p17.gao_title_bias")
    gold = biased["10,000 comparisons", "true judge"]["gain"].to_numpy()
    assert gold[-1] < gold.max() - 0.1 * (gold.max() - gold[0])
    assert i18n.text("en", "p17.gao_why_bias") in " ".join(md.value for md in at.markdown)
