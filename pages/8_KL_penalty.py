"""KL penalty: a price for drifting from the reference model, so RL does not learn what the judge over-rates."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page, prep
from ui.bundles import Estimators, KLCurve
from ui.colors import method_colors
from ui.format import esc, fmt, pct

fit = charts.fit_width  # a plot keeps its height and fits its width (ui.charts)

HIST_WIDTH = 260  # px per estimator panel: the three panels and their labels fit a 390 px phone

page.setup(
    "A judge that over-rates flattery teaches the policy to flatter. What does charging β·KL for every step away "
    "from the reference model do to that lesson?",
)
fl = rlcore.FLATTERY
plain, flattering = (esc(c) for c in fl.continuations)
page.why(
    f"A judge is only reliable on the kind of answer it has seen. Inside the branch that scores best it gives the "
    f"plain “{plain}” {fmt(fl.scores[0])}, but the flattering “{flattering}” {fmt(fl.scores[1])}, although the "
    f"second answer is no better. The reference model, the model before RL, writes the flattering one "
    f"{pct(fl.ref_probs[1])} of the time. Left alone, RL would push that share up, since the score says so. The "
    "KL penalty subtracts β · KL(π‖π_ref) from the judge's score, so every step away from the reference has a "
    "price, and a gain the judge hands out for a small change in style is no longer worth much."
)

page.presets({
    "The article (β = 1)": {},  # every input at its default
    "β = 0: no KL penalty": {"beta": 0.0},
    "β = 0.1: a light penalty": {"beta": 0.1},
})


@page.cached(32)
def kl_curve(fl: rlcore.FlatteryBranch, share, beta) -> KLCurve:
    """The regularised objective over every share, at the reference, at the chosen share and at the optimum."""
    ref_share = float(fl.p_ref[1])
    best = rlcore.regularized_optimum(fl.p_ref, fl.rewards, beta)
    grid = np.unique(np.r_[np.linspace(0.0, 1.0, 201), ref_share, share, best[1]])
    points = rlcore.share_curve([ref_share, share, best[1]], fl.rewards, fl.p_ref, beta)
    return KLCurve(ref_share=ref_share, best=best, curve=rlcore.share_curve(grid, fl.rewards, fl.p_ref, beta),
                   points=points)


@page.cached(32)
def estimators(fl: rlcore.FlatteryBranch, share, n, seed) -> Estimators:
    pi = np.array([1.0 - share, share])
    study = rlcore.kl_estimator_study(pi, fl.p_ref, n, seed)
    return Estimators(study=study, hist=prep.histogram_counts(np.stack(study.estimates), 30))


def ask(kc: KLCurve, share: float, beta: float) -> bool:
    """Predict first: is the chosen share of flattery better or worse than the reference's for R − β·KL?"""
    pts = kc.points
    gain = pts.objective[1] - pts.objective[0]
    answer = "Better" if gain > 0 else "Worse" if gain < 0 else "The same"
    return page.predict(
        f"The judge scores flattery higher. With β = {fmt(beta)}, is {pct(share)} flattery better or worse than the "
        f"reference's {pct(kc.ref_share)} for the objective R − β·KL?",
        ["Better", "Worse", "The same"], answer,
        f"The judge's mean goes from {fmt(pts.expected_reward[0])} to {fmt(pts.expected_reward[1])}, but the KL "
        f"goes from {fmt(pts.kl[0])} to {fmt(pts.kl[1])} nats, so R − β·KL goes from {fmt(pts.objective[0])} to "
        f"{fmt(pts.objective[1])}.",
        key="predict_kl")


def share_chart(kc: KLCurve, share: float, beta: float, revealed: bool):
    """Judge score and KL against the share of flattery; the objective, its points and its optimum once revealed."""
    c, pts = kc.curve, kc.points
    shown = [("judge score R", c.expected_reward), ("KL", c.kl)]  # short: the legend fits a phone
    if revealed:
        shown.append(("R − β·KL", c.objective))
    df = pd.concat([pd.DataFrame({"share": c.shares, "quantity": name, "value": v}) for name, v in shown],
                   ignore_index=True)
    colors = method_colors([name for name, _ in shown])
    lines = charts.lines(df, x="share", y="value", series="quantity", colors=colors, legend_title="",
                         x_title="share of flattering answers", y_title="score or nats")
    title = {"title": "Judge score, KL and the regularised objective", "height": charts.HEIGHT,
             "subtitle": (f"β = {fmt(beta)}; dashed: the best share, {pct(kc.best[1], 1)}" if revealed
                          else f"β = {fmt(beta)}; R − β·KL appears once you answer above")}
    if not revealed:
        return charts.layer(lines, **title), df
    marks = pd.DataFrame({"share": [kc.ref_share, share], "value": pts.objective[:2], "quantity": "R − β·KL",
                          "label": [f"reference {pct(kc.ref_share)}", f"yours {pct(share)}"]})
    best_rule = pd.DataFrame({"at": [kc.best[1]], "label": [""]})  # its number is in the subtitle
    return charts.layer(lines,
                        charts.labelled_points(marks, x="share", y="value", series="quantity", label="label",
                                               colors=colors, x_title="share of flattering answers",
                                               y_title="score or nats"),
                        charts.rules(best_rule, at="at", label="label", axis="x"), **title), df


def estimator_section(share: float) -> None:
    """Going further: the per-token estimators k1, k2, k3 on tokens sampled from π."""
    st.subheader("Going further: estimating the KL from sampled tokens")
    st.markdown(
        "Training never sums over every possible answer: it sees sampled tokens and estimates the KL from them. "
        "Three per-token estimators are common. With r = π_ref/π for the sampled token: k1 = −log r, "
        "k2 = ½(log r)², k3 = (r − 1) − log r."
    )
    with st.expander("More settings"):
        c1, c2 = st.columns(2)
        n = inputs.slider("Tokens sampled from π", 10, 2000, 200, 10, key="n", where=c1)
        seed = inputs.number("Seed", 0, 10_000, 0, key="kl_seed", where=c2)
    es = page.run(estimators, fl, share, n, int(seed))
    est = es.study
    names = ["k1", "k2", "k3"]
    cols = {f"mean of the {n}": est.sample_mean, f"spread (std) of the {n}": est.sample_std, "exact mean": est.expected,
            "bias (mean − KL)": est.bias, "exact spread": est.spread, "share below 0": est.negative_share}
    st.dataframe(pd.DataFrame({"estimator": names, **cols}), hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in cols})
    left, right = st.columns([1, 1], gap="large")
    h = es.hist
    df = pd.concat([pd.DataFrame({"estimator": name, "from": h.edges[:-1], "to": h.edges[1:], "share": h.shares[j]})
                    for j, name in enumerate(names)], ignore_index=True)
    with left:
        page.chart(charts.histogram(df, start="from", end="to", count="share", series="estimator",
                                    colors=method_colors(names), title=f"Per-token values on {n} sampled tokens",
                                    subtitle=f"exact KL = {fmt(est.exact)}; two values each (plain or flattering)",
                                    x_title="per-token estimate (nats)", y_title="share", width=HIST_WIDTH),
                   df, alt_text="Histograms of the per-token values of the three KL estimators", name="kl_estimators")
    right.markdown(
        f"The exact KL here is **{fmt(est.exact)}**. k1 averages to it ({fmt(est.sample_mean[0])} from these "
        f"{n} tokens), but "
        + (f"single values can be negative ({pct(est.negative_share[0])} of them here). " if est.negative_share[0] > 0
           else "its single values can be negative (none of these happen to be). ")
        + (f"k3 also averages to it ({fmt(est.sample_mean[2])}), is never negative, and its spread "
           if est.bias[2] == 0 else
           f"k3 is never negative, but here it expects {fmt(est.expected[2])}, off by {fmt(est.bias[2], sign=True)}: "
           "π never writes a token π_ref can write, and k3 only averages to the KL when it does. Its spread ")
        + f"({fmt(est.spread[2])}) is {'smaller' if est.spread[2] < est.spread[0] else 'not smaller'} than k1's "
        f"({fmt(est.spread[0])}). k2 (spread {fmt(est.spread[1])}) is biased: it expects {fmt(est.expected[1])}, "
        f"off by {fmt(est.bias[1], sign=True)}; it is only close when π is close to π_ref."
    )
    st.subheader("Where the KL goes")
    st.markdown(
        "- **In the reward, per token (PPO-style RLHF).** Each token's reward gets −β·(log π − log π_ref), the k1 "
        "value of that token, before returns and advantages are computed; the critic and GAE then treat the penalty "
        "like any other reward.\n"
        "- **In the loss (GRPO-style).** The reward stays the judge's score and the advantages ignore the KL; instead "
        "β·k3 of every token is added to the loss. As a *value*, k3 suits that job: it is never negative and "
        "varies little. Its *gradient* is another matter: differentiated inside the loss, k3 pulls π along the "
        "gradient of the forward KL(π_ref‖π), not the reverse KL(π‖π_ref) it estimates; k1 in the reward is the "
        "placement whose expected gradient is the reverse KL's. The KL gradients page shows all six placements "
        "side by side.\n"
        "- Either way it is counted token by token, and β is far smaller than 1 in practice; β = 1 here only makes "
        "the effect easy to see."
    )


@st.fragment
def kl_panel() -> None:
    """The share of flattery and β feed the question, the chart and the estimators: moving one reruns this panel
    only, not the page."""
    question = st.container()  # the question sits above the inputs it depends on
    c1, c2 = st.columns(2)
    share = inputs.slider("Share of flattering answers", 0.0, 1.0, 0.9, 0.01, key="share", where=c1,
                          help="How often the policy writes the flattering answer in this branch")
    beta = inputs.slider("KL weight β", 0.0, 5.0, 1.0, 0.1, key="beta", where=c2,
                         help=glossary.term("β") + " The article uses 1 to make the effect visible.")
    kc = page.run(kl_curve, fl, share, beta)
    with question:
        revealed = ask(kc, share, beta)
    ch, df = share_chart(kc, share, beta, revealed)
    page.chart(fit(ch), df, alt_text="Mean judge score, KL to the reference and the KL-regularised objective "
                                     "against the share of flattering answers", name="kl_share")
    pts = kc.points
    if revealed:
        m1, m2, m3, m4 = st.columns(4)
        m1.metric("Mean judge score", f"{fmt(pts.expected_reward[0])} → {fmt(pts.expected_reward[1])}",
                  help=f"at {pct(kc.ref_share)} flattery (the reference) → at {pct(share)}")
        m2.metric("KL(π‖π_ref), nats", f"{fmt(pts.kl[0])} → {fmt(pts.kl[1])}", help=glossary.term("KL"))
        m3.metric("Objective R − β·KL", f"{fmt(pts.objective[0])} → {fmt(pts.objective[1])}",
                  help=f"at β = {fmt(beta)}")
        m4.metric("Best share of flattery", pct(kc.best[1], 1),
                  help="π* ∝ π_ref · exp(score / β): the share that maximises the objective at this β")
        verdict = ("lowers" if pts.objective[1] < pts.objective[0] else
                   "raises" if pts.objective[1] > pts.objective[0] else "leaves unchanged")
        st.markdown(
            f"Going from {pct(kc.ref_share)} to {pct(share)} flattery lifts the judge's mean score from "
            f"{fmt(pts.expected_reward[0])} to {fmt(pts.expected_reward[1])}, but it moves the policy "
            f"KL = {fmt(pts.kl[1])} nats away from the reference. With β = {fmt(beta)} that **{verdict}** the "
            f"objective, from {fmt(pts.objective[0])} to {fmt(pts.objective[1])}. The best the objective can do at "
            f"this β is to flatter {pct(kc.best[1], 1)} of the time (objective {fmt(pts.objective[2])})."
        )
    else:
        st.caption("The objective, and the share of flattery that maximises it, appear once you answer the question.")
    estimator_section(share)


kl_panel()

page.show_code(rlcore.share_curve, rlcore.regularized_optimum, rlcore.kl_optimal_policy, rlcore.kl_estimators,
               rlcore.kl_estimator_study)
page.end()
