"""Page 17's section on over-optimisation as Gao, Schulman & Hilton (2022) measured it: a proxy reward model fitted on
finite comparisons, optimised by RL (sampled policy-gradient steps), by the tilt (RL's KL-regularised optimum for
each β) or by best-of-n, against the gold judge over √KL, averaged over ten worlds, with its own question; the three
side by side with Gao's two fitted forms; and, as a separate lesson, raters with a bias that more data does not
cure. Every curve is ``rlcore.goodhart_mean``'s, every fit ``rlcore.goodhart_fit``'s."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page
from ui.colors import method_colors
from ui.format import fmt
from ui.i18n import t

GAO_PAIRS = {False: (100, 1000), True: (100, 10_000)}  # without, and with, the raters' bias
GAO_BIAS = 1.0
GAO_METHODS = ("rl", "tilt", "best_of_n")  # RL as it is run, where it would settle for each β, and best-of-n
GAO_WORLDS = 10  # seeds the curves average


def gao_counts(biased: bool) -> dict:
    """The two numbers of comparisons, as a sentence writes them: {"few": "100", "many": "1,000"}."""
    return {name: f"{k:,}" for name, k in zip(("few", "many"), GAO_PAIRS[biased], strict=True)}


def mean(k: int, method: str, biased: bool):
    """goodhart_mean of ten worlds, cached across reruns and visitors."""
    return page.study(rlcore.goodhart_mean, k, GAO_WORLDS, bias=GAO_BIAS if biased else 0.0, method=method)


def gao_runs(method: str, biased: bool) -> list:
    """Gao et al.'s measurement, averaged over ten worlds: (curve, label) for few and many comparisons; with the
    raters' bias, the same many comparisons from unbiased raters last (what the bias costs)."""
    pairs = GAO_PAIRS[biased]
    runs = [(mean(k, method, biased), t("p17.n_run", n=f"{k:,}")) for k in pairs]
    return [*runs, (mean(pairs[1], method, False), None)] if biased else runs


def end_said(r, label: str) -> str:
    """Where one curve peaks and where it ends: below the reference's score, or above it."""
    return t("p17.gao_end_below" if r.gold[-1] < 0 else "p17.gao_end", run=label, peak=fmt(r.peak_gain, sign=True),
             at=fmt(r.peak_root_kl), end=fmt(r.gold[-1], sign=True), last=fmt(r.root_kl[-1]))


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
    said = t("p17.join").join(end_said(r, lab) for r, lab in runs[:2])
    return page.predict(t("p17.gao_question_bias" if biased else "p17.gao_question", **gao_counts(biased)),
                        options, answer, said, key="predict_gao")


def draw() -> None:
    """Over-optimisation from a proxy fitted on finite data, with no bias planted; the bias as its own lesson."""
    st.subheader(t("p17.gao"))
    world = rlcore.goodhart
    st.markdown(t("p17.gao_text", answers=world.N_ANSWERS, traits=world.N_TRAITS - 1, worlds=GAO_WORLDS,
                  steps=world.RL_STEPS, batch=f"{world.RL_BATCH:,}", beta=fmt(world.RL_BETA),
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
    ch = charts.layer(charts.lines(data, x="√KL", y="gain", dash="score", dash_order=scored,
                                   key=charts.Key("run", colors=method_colors(labels), title=t("p17.n_legend")),
                                   axes=charts.Axes(t("p17.gao_x"), t("p17.gao_y"))),
                      title=t("p17.gao_title_bias" if biased else "p17.gao_title"),
                      subtitle=t(f"p17.gao_methods.{method}"))
    page.chart(ch, data, alt_text=t("p17.gao_alt"), name="gao")
    if revealed:
        explain(runs, biased)
        three_ways(biased)


def explain(runs, biased: bool) -> None:
    """What the two curves say: a proxy fitted on too few comparisons (honest raters), or a bias every rater shares
    that more comparisons teach the proxy more surely."""
    few, many = runs[0][0], runs[1][0]
    if biased:
        honest = runs[2][0]
        st.markdown(t("p17.gao_why_bias", many=gao_counts(True)["many"], peak=fmt(many.peak_gain, sign=True),
                      honest=fmt(honest.peak_gain, sign=True), end=fmt(many.gold[-1], sign=True),
                      honest_end=fmt(honest.gold[-1], sign=True)))
    elif many.peak_gain > few.peak_gain and many.peak_root_kl > few.peak_root_kl:
        st.markdown(t("p17.gao_why", ratio=fmt(many.peak_gain / few.peak_gain, 1),
                      later=fmt(many.peak_root_kl - few.peak_root_kl)))
    else:
        st.markdown(t("p17.gao_why_mixed", **gao_counts(False)))


def three_ways(biased: bool) -> None:
    """RL, the tilt and best-of-n on the same proxies: their gold curves, Gao's two forms fitted to each, and what
    differs."""
    st.markdown(f"**{t('p17.gao_three')}**")
    names = {m: t(f"p17.gao_short.{m}") for m in GAO_METHODS}
    runs = {(m, k): mean(k, m, biased) for m in GAO_METHODS for k in GAO_PAIRS[biased]}
    data = pd.concat([pd.DataFrame({"√KL": r.root_kl, "gain": r.gold, "run": names[m],
                                    "pairs": t("p17.n_run", n=f"{k:,}")}) for (m, k), r in runs.items()],
                     ignore_index=True)
    ch = charts.layer(charts.lines(data, x="√KL", y="gain", dash="pairs",
                                   dash_order=[t("p17.n_run", n=f"{k:,}") for k in GAO_PAIRS[biased]],
                                   key=charts.Key("run", colors=method_colors(list(names.values())),
                                                  title=t("p17.col_how")),
                                   axes=charts.Axes(t("p17.gao_x"), t("p17.gao_y"))),
                      title=t("p17.gao_three_title"), subtitle=t("p17.gao_three_subtitle"))
    page.chart(ch, data, alt_text=t("p17.gao_three_alt"), name="gao_three")
    fits = {key: page.study(rlcore.goodhart_fit, r) for key, r in runs.items()}
    cols = [t("p17.col_how"), t("p17.col_pairs"), t("p17.col_peak"), t("p17.col_peak_at"), t("p17.col_r2_bon"),
            t("p17.col_r2_rl")]
    rows = [[names[m], f"{k:,}", r.peak_gain, r.peak_root_kl, fits[m, k]["bon"][2], fits[m, k]["rl"][2]]
            for (m, k), r in runs.items()]
    page.table(pd.DataFrame(rows, columns=cols), formats={c: "%.3f" for c in cols[2:]})
    many = GAO_PAIRS[biased][1]
    rl, tilt, bon = (runs[m, many] for m in GAO_METHODS)
    st.markdown(t("p17.gao_differ", many=f"{many:,}", rl=fmt(rl.peak_gain, sign=True), rl_at=fmt(rl.peak_root_kl),
                  tilt=fmt(tilt.peak_gain, sign=True), tilt_at=fmt(tilt.peak_root_kl),
                  bon=fmt(bon.peak_gain, sign=True), bon_at=fmt(bon.peak_root_kl),
                  height=t("p17.gao_word.higher" if rl.peak_gain > tilt.peak_gain else "p17.gao_word.lower"),
                  when=t("p17.gao_word.later" if rl.peak_root_kl > tilt.peak_root_kl else "p17.gao_word.sooner")))
    st.markdown(t("p17.join").join(form_said(fits[m, many], m, many) for m in ("rl", "best_of_n")))


def form_said(fit: dict, method: str, many: int) -> str:
    """Whether Gao's own form for this optimiser (d(α − β log d) for RL, d(α − βd) for best-of-n) fits its gold
    curve better than the other form: chosen from the two R²."""
    own, other = ("rl", "bon") if method == "rl" else ("bon", "rl")
    follows = fit[own][2] >= fit[other][2]
    return t(f"p17.gao_fit_{method}_{'follows' if follows else 'not'}", many=f"{many:,}", own=fmt(fit[own][2], 3),
             other=fmt(fit[other][2], 3))
