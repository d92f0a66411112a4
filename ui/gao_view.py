"""Page 17's section on over-optimisation as Gao, Schulman & Hilton (2022) measured it: a proxy reward model fitted on
finite comparisons, optimised by RL's KL-regularised optimum or by best-of-n, against the gold judge over √KL,
averaged over ten worlds, with its own question; and, as a separate lesson, raters with a bias that more data does
not cure. Every curve is ``rlcore.goodhart_mean``'s."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page
from ui.colors import method_colors
from ui.format import fmt, pct
from ui.i18n import t

GAO_PAIRS = {False: (100, 1000), True: (100, 10_000)}  # without, and with, the raters' bias
GAO_BIAS = 1.0
GAO_METHODS = ("tilt", "best_of_n")  # where RL goes (its KL-regularised optimum), and best-of-n
GAO_WORLDS = 10  # seeds the curves average


def gao_counts(biased: bool) -> dict:
    """The two numbers of comparisons, as a sentence writes them: {"few": "100", "many": "1,000"}."""
    return {name: f"{k:,}" for name, k in zip(("few", "many"), GAO_PAIRS[biased], strict=True)}


def gao_runs(method: str, biased: bool) -> list:
    """Gao et al.'s measurement, averaged over ten worlds: (curve, label) for few and many comparisons; with the
    raters' bias, the same many comparisons from unbiased raters last (what the bias costs)."""
    pairs = GAO_PAIRS[biased]
    runs = [(page.study(rlcore.goodhart_mean, k, GAO_WORLDS, bias=GAO_BIAS if biased else 0.0, method=method),
             t("p17.n_run", n=f"{k:,}")) for k in pairs]
    return [*runs, (page.study(rlcore.goodhart_mean, pairs[1], GAO_WORLDS, method=method), None)] if biased else runs


def ask_gao(runs, biased: bool) -> bool:
    """Unbiased: with ten times more comparisons, is the true peak higher, and later? Biased: does the true
    score still turn with a hundred times more?"""
    (few, _), (many, _) = runs[:2]
    if biased:
        options = [t("p17.gao_still_falls"), t("p17.gao_keeps_rising")]
        answer = options[0 if many.turns else 1]
    else:
        options = [t(f"p17.gao_{way}") for way in ("higher_later", "higher_sooner", "lower_later", "lower_sooner")]
        higher, later = many.peak_gain > few.peak_gain, many.peak_root_kl > few.peak_root_kl
        answer = options[2 * (not higher) + (not later)]
    said = t("p17.join").join(t("p17.gao_end", run=lab, peak=fmt(r.peak_gain, sign=True), at=fmt(r.peak_root_kl),
                                fall=pct(r.fall)) for r, lab in runs[:2])
    return page.predict(t("p17.gao_question_bias" if biased else "p17.gao_question", **gao_counts(biased)),
                        options, answer, said, key="predict_gao")


def draw() -> None:
    """Over-optimisation from a proxy fitted on finite data, with no bias planted; the bias as its own lesson."""
    st.subheader(t("p17.gao"))
    world = rlcore.goodhart
    st.markdown(t("p17.gao_text", answers=world.N_ANSWERS, traits=world.N_TRAITS - 1, worlds=GAO_WORLDS,
                  inverse=fmt(world.INVERSE_BETAS[-1]), most=f"{world.BEST_OF[-1]:,}"))
    c1, c2 = st.columns(2)
    method = inputs.segmented(t("p17.gao_how"), GAO_METHODS, GAO_METHODS[0], key="gao_how", where=c1,
                              help=glossary.term("best-of-n"), format_func=lambda m: t(f"p17.gao_methods.{m}"))
    biased = bool(inputs.toggle(t("p17.gao_bias"), False, key="gao_bias", where=c2,
                                help=t("p17.gao_bias_help", **gao_counts(True))))
    runs = gao_runs(method, biased)
    revealed = ask_gao(runs, biased)
    scored = (t("p17.gao_proxy"), t("p17.gao_gold"))
    shown = runs[:2] if revealed else runs[:1]  # the many comparisons' curves answer the question
    data = pd.concat([pd.DataFrame({"√KL": r.root_kl, "gain": g, "run": lab, "score": s})
                      for r, lab in shown for s, g in zip(scored, (r.proxy, r.gold), strict=True)], ignore_index=True)
    labels = [lab for _, lab in runs[:2]]
    ch = charts.layer(charts.lines(data, x="√KL", y="gain", dash="score",
                                   key=charts.Key("run", colors=method_colors(labels), title=t("p17.n_legend")),
                                   axes=charts.Axes(t("p17.gao_x"), t("p17.gao_y"))),
                      title=t("p17.gao_title_bias" if biased else "p17.gao_title"),
                      subtitle=t(f"p17.gao_methods.{method}"))
    page.chart(ch, data, alt_text=t("p17.gao_alt"), name="gao")
    if revealed:
        few, many = runs[0][0], runs[1][0]
        if biased:
            st.markdown(t("p17.gao_why_bias", many=gao_counts(True)["many"], peak=fmt(many.peak_gain, sign=True),
                          honest=fmt(runs[2][0].peak_gain, sign=True), fall=pct(many.fall)))
        else:
            st.markdown(t("p17.gao_why", ratio=fmt(many.peak_gain / few.peak_gain, 1),
                          later=fmt(many.peak_root_kl - few.peak_root_kl)))
