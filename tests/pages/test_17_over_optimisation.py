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


GAO = {False: ("p17.gao_title", (100, 1000)), True: ("p17.gao_title_bias", (100, 10_000))}


def gao(at, biased: bool) -> dict:
    """The Gao chart's curves: (run, score) → its rows."""
    df = chart_frame(at, i18n.text("en", GAO[biased][0]), "gain")
    return {(run, score): part for (run, score), part in df.groupby(["run", "score"])}


@pytest.mark.parametrize(("method", "biased"), [
    ("tilt", False), ("best_of_n", True),
    pytest.param("best_of_n", False, marks=pytest.mark.exhaustive), pytest.param("tilt", True,
                                                                                marks=pytest.mark.exhaustive)])
def test_gao_section_asks_first_and_draws_rlcore_s_means(method, biased):
    """Gao et al.'s measurement, asked before it is shown: the chart holds the few comparisons' curves until the
    section's own question is answered, then both; every curve is rlcore's goodhart_mean of ten worlds. Its
    answer follows rlcore's numbers (unbiased: the peak with more data is higher and later; biased: it still
    turns) and the sentence under it quotes the bias's cost."""
    at = run_page(PAGE, state=SHOWN, inputs={"gao_how": method, "gao_bias": biased})
    few, many = GAO[biased][1]
    labels = {k: f"{k:,} comparisons" for k in (few, many)}
    scores = {"proxy": "reward model (proxy)", "gold": "true judge (gold)"}
    assert set(gao(at, biased)) == {(labels[few], s) for s in scores.values()}  # what answers it: not yet
    radio = at.radio(key="predict_gao")
    next(b for b in at.button if b.key == "predict_gao_show").click().run()
    curves, means = gao(at, biased), {k: rlcore.goodhart_mean(k, 10, bias=1.0 if biased else 0.0, method=method)
                                      for k in (few, many)}
    assert set(curves) == {(labels[k], s) for k in (few, many) for s in scores.values()}
    for k, mean in means.items():
        rows = curves[labels[k], scores["gold"]]
        np.testing.assert_allclose(rows["√KL"], np.sqrt(mean.kl), rtol=1e-12)
        np.testing.assert_allclose(rows["gain"], mean.gold, rtol=1e-12)
        np.testing.assert_allclose(curves[labels[k], scores["proxy"]]["gain"], mean.proxy, rtol=1e-12)
    gold = {k: means[k].gold for k in (few, many)}
    i, j = (int(np.argmax(gold[k])) for k in (few, many))
    if biased:  # it still turns at 10,000, and the sentence quotes the unbiased raters' peak beside it
        assert 0 < j < gold[many].size - 1 and gold[many][-1] < gold[many][j]
        honest = rlcore.goodhart_mean(many, 10, method=method).gold.max()
        assert fmt(honest, sign=True) in " ".join(md.value for md in at.markdown)
    else:  # higher, and later
        assert gold[many][j] > gold[few][i] and means[many].kl[j] > means[few].kl[i]
    assert f"**{radio.options[0]}**" in at.info[1].value  # the first option says so, in either case


@pytest.mark.parametrize(("lang", "biased"), [("en", False), pytest.param("zh", True, marks=pytest.mark.exhaustive)])
def test_rl_is_drawn_beside_the_tilt_and_best_of_n_with_gao_s_two_fits(lang, biased):
    """After the section's answer: the three optimisers' gold curves are rlcore's means, the table's R² are
    goodhart_fit's, and the sentences say which of Gao's forms each follows, chosen from those R²."""
    at = run_page(PAGE, state={**SHOWN, "predict_gao_shown": True}, inputs={"gao_bias": biased},
                  query={"lang": lang})
    pairs = GAO[biased][1]
    df = chart_frame(at, i18n.text(lang, "p17.gao_three_title"), "gain")
    table = next(d.value for d in at.dataframe if i18n.text(lang, "p17.col_r2_rl") in d.value.columns)
    said = " ".join(md.value for md in at.markdown)
    for method in ("rl", "tilt", "best_of_n"):
        name = i18n.text(lang, f"p17.gao_short.{method}")
        for k in pairs:
            mean = rlcore.goodhart_mean(k, 10, bias=1.0 if biased else 0.0, method=method)
            line = df[(df["run"] == name) & (df["pairs"] == i18n.text(lang, "p17.n_run", n=f"{k:,}"))]
            np.testing.assert_allclose(line["gain"], mean.gold, rtol=1e-12)
            fit = rlcore.goodhart_fit(mean)
            row = table[(table.iloc[:, 0] == name) & (table.iloc[:, 1] == f"{k:,}")]
            np.testing.assert_allclose(row.iloc[0, 4:].to_numpy(float), [fit["bon"][2], fit["rl"][2]], rtol=1e-9)
        if method != "tilt":  # its own form fits better, or the sentence says it does not follow it
            fit = rlcore.goodhart_fit(rlcore.goodhart_mean(pairs[1], 10, bias=1.0 if biased else 0.0, method=method))
            own, other = ("rl", "bon") if method == "rl" else ("bon", "rl")
            way = "follows" if fit[own][2] >= fit[other][2] else "not"
            assert i18n.text(lang, f"p17.gao_fit_{method}_{way}", many=f"{pairs[1]:,}", own=fmt(fit[own][2], 3),
                             other=fmt(fit[other][2], 3)) in said
    rl, tilt = (rlcore.goodhart_mean(pairs[1], 10, bias=1.0 if biased else 0.0, method=m) for m in ("rl", "tilt"))
    assert not np.allclose(rl.gold[:20], tilt.gold[:20])  # two different paths, not one under two names
    assert i18n.text(lang, "p17.gao_word.higher" if rl.peak_gain > tilt.peak_gain else "p17.gao_word.lower") in said


@pytest.mark.parametrize(("flattery", "why"), [(2.0, "p17.n_why"), (0.0, "p17.n_why_none")])
def test_the_comparisons_section_names_its_cause_from_its_numbers(flattery, why):
    """A bias all raters share: the fall grows with the comparisons and the sentence says data sharpens it; no bias:
    no fall at any number of comparisons, and the sentence sends the reader to Gao's section for the other cause."""
    at = run_page(PAGE, state=SHOWN, inputs={"flattery": flattery})
    falls = [rlcore.over_optimisation(rlcore.ARTICLE_SCENARIO, beta=0.05, comparisons=k, flattery=flattery).fall
             for k in (100, 20_000)]
    assert falls[1] > falls[0] if flattery else max(falls) == 0
    text = i18n.text("en", why, flattery=fmt(flattery), few_fall=fmt(falls[0]), many_fall=fmt(falls[1]))
    assert text in " ".join(md.value for md in at.markdown)
