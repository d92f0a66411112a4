"""KL penalty: a price for drifting from the reference model, so RL does not learn what the judge over-rates."""

import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page, scrub
from ui.colors import method_colors
from ui.format import esc, fmt, pct
from ui.i18n import t

BETA_LO, BETA_HI, BETA_STEP = 0.0, 5.0, 0.1  # the β slider's range and step
BETA_GRID = scrub.steps(BETA_LO, BETA_HI, BETA_STEP)  # the chart at each step: dragging redraws it in the browser
HIST_WIDTH = 260  # px per estimator panel: the three panels and their labels fit a 390 px phone

fl = rlcore.FLATTERY
plain, flattering = (esc(c) for c in fl.continuations)
page.setup("p8_kl", why=dict(plain=plain, plain_score=fmt(fl.scores[0]), flattering=flattering,
                             flattering_score=fmt(fl.scores[1]), ref_share=pct(fl.ref_probs[1])))

page.presets({
    t("p8_kl.preset_article"): {},  # every input at its default
    t("p8_kl.preset_none"): {"beta": 0.0},
    t("p8_kl.preset_light"): {"beta": 0.1},
})


def ask(kc: rlcore.KLCurve, share: float, beta: float) -> bool:
    """Predict first: is the chosen share of flattery better or worse than the reference's for R − β·KL?"""
    pts = kc.points
    options = [t("p8_kl.better"), t("p8_kl.worse"), t("p8_kl.same")]
    ref, yours = pts.objective[0], pts.objective[1]
    answer = options[0 if yours > ref else 1 if yours < ref else 2]
    return page.predict(
        t("p8_kl.question", beta=fmt(beta), share=pct(share), ref_share=pct(kc.ref_share)), options, answer,
        t("p8_kl.explanation", r0=fmt(pts.expected_reward[0]), r1=fmt(pts.expected_reward[1]), kl0=fmt(pts.kl[0]),
          kl1=fmt(pts.kl[1]), o0=fmt(pts.objective[0]), o1=fmt(pts.objective[1])),
        key="predict_kl")


def share_chart(kc: rlcore.KLCurve, beta: float):
    """Before the answer: the judge score and KL against the share of flattery (neither depends on β)."""
    c = kc.curve
    shown = [(t("p8_kl.judge_series"), c.expected_reward), ("KL", c.kl)]  # short: the legend fits a phone
    df = pd.concat([pd.DataFrame({"share": c.shares, "quantity": name, "value": v}) for name, v in shown],
                   ignore_index=True)
    lines = charts.lines(df, x="share", y="value", key=charts.Key("quantity", colors=method_colors(
        [name for name, _ in shown]), title=t("p8_kl.quantity")), axes=charts.Axes(t("p8_kl.share_x"),
                                                                                     t("p8_kl.value_y")))
    return charts.layer(lines, title=t("p8_kl.share_title"), height=charts.HEIGHT,
                        subtitle=t("p8_kl.share_subtitle_locked", beta=fmt(beta))), df


def scrubbed_chart(kc: rlcore.KLCurve, ks: rlcore.KLCurve, at: tuple, share: float, beta: float):
    """After the answer: the judge score and KL, and R − β·KL with its marks and optimum at every β of the slider's
    grid (the one dragged to shown); the committed β's optimum dashed and labelled with it."""
    c, objective = kc.curve, "R − β·KL"
    names = [t("p8_kl.judge_series"), "KL", objective]
    colors, axes = method_colors(names), charts.Axes(t("p8_kl.share_x"), t("p8_kl.value_y"))
    key = charts.Key("quantity", colors=colors, title=t("p8_kl.quantity"))
    fixed = pd.concat([pd.DataFrame({"share": c.shares, "quantity": name, "value": v})
                       for name, v in zip(names[:2], (c.expected_reward, c.kl), strict=True)], ignore_index=True)
    betas, exact = at
    moving = scrub.frame("beta", betas, exact, ks.keep, share=ks.curve.shares, quantity=objective,
                         value=ks.curve.objective)
    marks = pd.concat([scrub.frame("beta", betas, exact, share=x, value=ks.points.objective[:, i],
                                   quantity=objective, label=label)
                       for i, x, label in ((0, kc.ref_share, t("p8_kl.reference_mark", share=pct(kc.ref_share))),
                                            (1, share, t("p8_kl.yours_mark", share=pct(share))))],
                      ignore_index=True)
    best = scrub.frame("beta", betas, exact, at=ks.best[:, 1], label="")
    yours = pd.DataFrame({"at": [kc.best[1]], "label": [t("chart.scrub_yours", name="β", value=fmt(beta))]})
    shown = scrub.frame("beta", betas, exact, label=[t("chart.scrub_shown", name="β", value=fmt(b)) for b in betas])
    return charts.layer(
        charts.lines(fixed, x="share", y="value", key=key, axes=axes),
        charts.lines(moving, x="share", y="value", key=key, axes=axes),
        charts.labelled_points(marks, x="share", y="value", label="label", key=charts.Key("quantity", colors=colors),
                               axes=axes),
        charts.rules(best, at="at", label="label", axis="x", dash=(2, 2)),
        charts.rules(yours, at="at", label="label", axis="x", label_at=charts.HEIGHT // 2),  # clear of the curves
        charts.note(shown, text="label", corner="bottom right"),
        title=t("p8_kl.share_title"), height=charts.HEIGHT,
        subtitle=t("p8_kl.share_subtitle", beta=fmt(beta), best=pct(kc.best[1], 1))), pd.concat([fixed, moving])


def estimator_section(share: float) -> None:
    """Going further: the per-token estimators k1, k2, k3 on tokens sampled from π."""
    st.subheader(t("p8_kl.estimators.heading"))
    st.markdown(t("p8_kl.estimators.intro"))
    with st.expander(t("p8_kl.estimators.more")):
        c1, c2 = st.columns(2)
        n = inputs.slider(t("p8_kl.estimators.n"), 10, 2000, 200, 10, key="n", where=c1)
        seed = inputs.number(t("p8_kl.estimators.seed"), 0, 10_000, 0, key="kl_seed", where=c2)
    es = page.study(rlcore.kl_estimator_histogram, fl, share, n, int(seed), entries=32)
    est = es.study
    names = ["k1", "k2", "k3"]
    cols = {t("p8_kl.estimators.mean", n=n): est.sample_mean, t("p8_kl.estimators.std", n=n): est.sample_std,
            t("p8_kl.estimators.exact_mean"): est.expected, t("p8_kl.estimators.bias"): est.bias,
            t("p8_kl.estimators.exact_spread"): est.spread, t("p8_kl.estimators.negative"): est.negative_share}
    page.table(pd.DataFrame({t("p8_kl.estimators.estimator"): names, **cols}), digits=3)
    left, right = st.columns([1, 1], gap="large")
    h = es.hist
    df = pd.concat([pd.DataFrame({"estimator": name, "from": h.edges[:-1], "to": h.edges[1:], "share": h.shares[j]})
                    for j, name in enumerate(names)], ignore_index=True)
    with left:
        page.chart(charts.titled(charts.histogram(df, start="from", end="to", count="share",
                                                  key=charts.Key("estimator", colors=method_colors(names)),
                                                  axes=charts.Axes(t("p8_kl.estimators.hist_x"),
                                                                   t("p8_kl.estimators.hist_y")),
                                                  size=(HIST_WIDTH, 90)),
                                 title=t("p8_kl.estimators.hist_title", n=n),
                                 subtitle=t("p8_kl.estimators.hist_subtitle", exact=fmt(est.exact))),
                   df, alt_text=t("p8_kl.estimators.hist_alt"), name="kl_estimators")
    k3 = ("unbiased" if est.bias[2] == 0 else "biased") + ("_smaller" if est.spread[2] < est.spread[0] else "_wider")
    right.markdown(t(
        "p8_kl.sentences",
        first=t("p8_kl.estimators.k1_negative" if est.negative_share[0] > 0 else "p8_kl.estimators.k1_none_negative",
                exact=fmt(est.exact), mean=fmt(est.sample_mean[0]), n=n, share=pct(est.negative_share[0])),
        second=t(f"p8_kl.estimators.k3_{k3}", mean=fmt(est.sample_mean[2]), expected=fmt(est.expected[2]),
                 bias=fmt(est.bias[2], sign=True), spread=fmt(est.spread[2]), spread_k1=fmt(est.spread[0])),
        third=t("p8_kl.estimators.k2", spread=fmt(est.spread[1]), expected=fmt(est.expected[1]),
                bias=fmt(est.bias[1], sign=True))))
    st.subheader(t("p8_kl.estimators.where"))
    st.markdown(t("p8_kl.estimators.placements"))


@page.panel
def kl_panel() -> None:
    """The share of flattery and β feed the question, the chart and the estimators: moving one reruns this panel
    only, not the page."""
    question = st.container()  # the question sits above the inputs it depends on
    c1, c2 = st.columns(2)
    share = inputs.slider(t("p8_kl.share"), 0.0, 1.0, 0.9, 0.01, key="share", where=c1, help=t("p8_kl.share_help"))
    beta = inputs.slider(t("p8_kl.beta"), BETA_LO, BETA_HI, 1.0, BETA_STEP, key="beta", where=c2,
                         help=glossary.term("β") + t("p8_kl.beta_help_more"))
    kc = page.study(rlcore.kl_curve, fl, share, beta, entries=32)
    with question:
        revealed = ask(kc, share, beta)
    pts = kc.points
    if revealed:
        at = scrub.at(BETA_GRID, beta, BETA_LO, BETA_HI)
        ks = page.study(rlcore.kl_curve, fl, share, at[0], entries=32)
        ch, df = scrubbed_chart(kc, ks, at, share, beta)
        page.scrub(ch, df, field="beta", grid=BETA_GRID, value=beta, label=t("chart.scrub_input", name="β"),
                   alt_text=t("p8_kl.share_alt"), name="kl_share")
        m1, m2, m3, m4 = st.columns(4)
        m1.metric(t("p8_kl.mean_score"), f"{fmt(pts.expected_reward[0])} → {fmt(pts.expected_reward[1])}",
                  help=t("p8_kl.mean_score_help", ref_share=pct(kc.ref_share), share=pct(share)))
        m2.metric(t("p8_kl.kl_metric"), f"{fmt(pts.kl[0])} → {fmt(pts.kl[1])}", help=glossary.term("KL"))
        m3.metric(t("p8_kl.objective"), f"{fmt(pts.objective[0])} → {fmt(pts.objective[1])}",
                  help=t("p8_kl.objective_help", beta=fmt(beta)))
        m4.metric(t("p8_kl.best_share"), pct(kc.best[1], 1), help=t("p8_kl.best_share_help"))
        verdict = ("lowers" if pts.objective[1] < pts.objective[0] else
                   "raises" if pts.objective[1] > pts.objective[0] else "unchanged")
        st.markdown(t("p8_kl.sentences",
                      first=t("p8_kl.moves", ref_share=pct(kc.ref_share), share=pct(share),
                              r0=fmt(pts.expected_reward[0]), r1=fmt(pts.expected_reward[1]), kl=fmt(pts.kl[1])),
                      second=t(f"p8_kl.{verdict}", beta=fmt(beta), o0=fmt(pts.objective[0]),
                               o1=fmt(pts.objective[1])),
                      third=t("p8_kl.best_at_beta", best=pct(kc.best[1], 1), o2=fmt(pts.objective[2]))))
    else:
        ch, df = share_chart(kc, beta)
        page.chart(ch, df, alt_text=t("p8_kl.share_alt"), name="kl_share")
        st.caption(t("p8_kl.locked"))
    estimator_section(share)


kl_panel()

page.end(code=(rlcore.kl_curve, rlcore.share_curve, rlcore.regularized_optimum, rlcore.kl_optimal_policy,
               rlcore.kl_estimator_histogram, rlcore.kl_estimators, rlcore.kl_estimator_study,))
