"""Page 17, "Over-optimisation": the reward model's score and the true judge's along training, against KL."""

from __future__ import annotations

import numpy as np

import rlcore
from tests.apphelp import chart_frame, keys, metrics, moves_charts, page_file, run_page
from ui import i18n
from ui.format import fmt

PAGE = page_file("17_")
K = keys(PAGE)
SHOWN = {"predict_over_shown": True}
PROXY, TRUE = "reward model (what training sees)", "true judge"
FOUR = rlcore.Scenario(tokens=("yes", "no", "maybe", "unclear"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((1, 9), (3,), (9, 8), (4, 5, 10)))
ONE_WRITER = rlcore.Scenario(tokens=("a", "b"), probs=(1.0, 0.0), samples=((1,), (5,)))


def gains(at, run):
    df = chart_frame(at, "Score gained since the start", "gain")
    return df[df["run"] == run]


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
