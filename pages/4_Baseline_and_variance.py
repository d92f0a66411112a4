"""Baseline and variance: subtracting a baseline keeps the average update and cuts its noise."""

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page
from ui.colors import NEUTRAL, method_colors
from ui.format import MINUS, esc, fmt, fmt_list, pct

N_DEFAULT = 2000
B_MAX = 10.0
GRID = 101  # points of the variance-against-b curve


def two(x: float) -> str:
    """Two fixed decimals with a true minus sign (20.74, 3.70)."""
    return f"{x:.2f}".replace("-", MINUS)


scenario = page.setup(
    "Each sampled answer nudges the logits by (R − b)·(e − π): up for the token it began with, down for the "
    "others. Does the number b subtracted from every score, the **baseline**, change where training goes, or "
    "only how much single nudges scatter?",
)
page.why(
    "In training we never see Q, only single answers and their scores R, so every update is a noisy estimate. "
    "Any baseline that does not depend on the sampled token leaves the *average* nudge where it was, but it "
    "can cut the noise sharply: with b = V each answer already points the right way. Less noise means fewer "
    "answers for the same progress, which is why every method on the later pages subtracts some baseline "
    "(a critic's V, a group's mean).")
tokens = scenario.tokens
bd = page.run(rlcore.value_breakdown, scenario.pi, scenario.samples)
b_star = page.run(rlcore.optimal_baseline, scenario.pi, scenario.samples)
best = max(range(len(tokens)), key=lambda i: bd.q[i])
likely = max(range(len(tokens)), key=lambda i: scenario.probs[i])


def slider_value(x: float) -> float:
    """A value the b slider can show (its range is 0 to 10, its step 0.01)."""
    return round(min(max(float(x), 0.0), B_MAX), 2)


page.presets({
    "b = V": {"b": slider_value(bd.v)},
    "b = b*": {"b": slider_value(b_star)},
    "b = 10": {"b": B_MAX},
    "100 answers": {"n": 100},
    "20,000 answers": {"n": 20_000},
})

# --- Predict ------------------------------------------------------------------------------------------------------
# b = 0 against b = V depends on the scenario only, so the question stays outside the panel's fragment.
zero, at_v = (page.run(rlcore.gradient_stats, scenario.probs, scenario.samples, x) for x in (0.0, float(bd.v)))
same = bool(np.allclose(at_v.mean, zero.mean))
options = ["Yes: it turns the update around", "Yes: it makes the update smaller", "No: the average stays the same"]
revealed = page.predict(
    "Does subtracting V from every score change the average update?", options, options[2] if same else options[1],
    f"Exactly, with b = 0 and with b = V, the average is ({fmt_list(zero.mean, sep=', ')}) and "
    f"({fmt_list(at_v.mean, sep=', ')}). The baseline is the same whichever token was sampled, and the "
    "nudges e − π average to zero under π, so b drops out of the mean. It changes the spread only: "
    f"{two(zero.total_variance)} against {two(at_v.total_variance)}.",
    key="predict_baseline")


@page.cached(32)
def study(probs, samples, bases, n_draws: int, seed_value: int, token: int):
    """The same n answers scored against every baseline (common random numbers)."""
    return rlcore.baseline_study(probs, samples, bases, n_draws, seed_value, token=token)


grid = np.linspace(0.0, max(B_MAX, *(max(s) for s in scenario.samples)), GRID)
curve = page.run(rlcore.gradient_variance_curve, scenario.pi, scenario.samples, grid)
EXACT, CURVE = "exact average π·A", "total variance (curve)"
SERIES = ("b = 0", "b = V", "b = b*", "b = yours")  # the charts' series: fixed names keep each chart's shape cached
COLORS = method_colors(SERIES)  # one colour per baseline, the same on every chart of the page


@st.fragment
def study_panel(revealed: bool) -> None:
    """The widgets and everything they feed: moving one reruns this panel only, not the page."""
    c1, c2 = st.columns(2)
    b = inputs.slider("Your baseline b", 0.0, B_MAX, 8.0, 0.01, key="b", where=c1,
                      help=glossary.term("baseline"))
    n = inputs.slider("Sampled answers", 100, 20_000, N_DEFAULT, 100, key="n", where=c2,
                      help="Each answer: a first token drawn from π, then one of that token's judge scores at "
                           "random.")
    with st.expander("More settings"):
        m1, m2 = st.columns([3, 1])
        tok = inputs.selectbox("Gradient of the logit of", tokens, tokens[best], key="tok", where=m1,
                               help="Which token's logit the histograms and the running average follow")
        seed = inputs.number("Seed", 0, 999_999, 0, key="seed", where=m2)
    k = scenario.index(tok)

    names = ["b = 0", f"b = V = {fmt(bd.v)}", f"b = b* = {fmt(b_star)}", f"b = yours = {fmt(b)}"]
    short = ["b = 0", "V", "b*", "yours"]
    baselines = (0.0, bd.v, b_star, float(b))
    res = page.run(study, scenario.probs, scenario.samples, baselines, int(n), int(seed), k)

    # --- The main chart: one estimate per answer, for each baseline ------------------------------------------------
    hist = pd.DataFrame([
        {"baseline": series, "row": name, "from": float(lo), "to": float(hi), "middle": float(lo + hi) / 2,
         "share": float(s)}
        for series, name, row in zip(SERIES, names, res.shares, strict=True)
        for lo, hi, s in zip(res.edges[:-1], res.edges[1:], row, strict=True)
    ])
    page.chart(
        charts.dot_strip(hist[hist["share"] > 0], x="middle", row="row", color="baseline", size="share",
                         colors=COLORS,
                         title=f"{int(n):,} single-answer estimates for the logit of {tok}",
                         subtitle=["The same answers in every row; only b differs.",
                                   "A dot's area: the share of answers with that estimate."],
                         x_title=f"(R − b)·(e − π) for {tok}'s logit", size_title="share of answers", height=260),
        hist.drop(columns="middle"), name="gradient_histograms",
        alt_text=f"One row of dots per baseline: the single-answer gradient estimates for the logit of {tok}, "
                 "each dot sized by its share of answers; the rows share their average but differ in spread.")
    if np.isnan(res.right_direction[0]):  # the exact average for this token is zero: no direction to agree with
        st.markdown(f"The average update for {esc(tok)} is exactly zero here (π·A = 0), so single "
                    "answers only add noise around it, and the baseline decides how much.")
    else:
        st.markdown(
            f"With b = 0 every score is counted from zero, so each answer raises the logit of the token it began "
            f"with, even a poor one; only {pct(res.right_direction[0])} of single answers push {esc(tok)} the way "
            f"the average goes. With b = V, {pct(res.right_direction[1])} already do: answers below V push their "
            "token down, answers above push it up.")

    if not revealed:
        st.caption("The averages, the variances and the running averages appear once you answer the question above.")
    else:
        m = st.columns(4)
        m[0].metric("Variance, b = 0", two(res.total_variance[0]),
                    help="Total variance (trace of the covariance) of one answer's gradient estimate, exact")
        m[1].metric(f"Variance, b = V = {fmt(bd.v)}", two(res.total_variance[1]))
        m[2].metric("Noise left with b = V", fmt(res.variance_ratio[1], 3),
                    help="Variance with b = V divided by variance with b = 0: the share of the noise that remains "
                         "(1 minus it is the share removed)")
        m[3].metric(f"Least, at b* = {fmt(b_star)}", two(res.total_variance[2]),
                    delta=f"{fmt(res.variance_ratio[2], 3)} of b = 0", delta_color="off", delta_arrow="off")
        mean_text = fmt_list(res.mean[0], sep=", ")
        st.markdown(
            f"The average update E[g] = π ⊙ A = ({mean_text}) is the same for all four baselines. The noise is "
            f"not: with b = V one answer's estimate has total variance {two(res.total_variance[1])} instead of "
            f"{two(res.total_variance[0])}, a ratio of {fmt(res.variance_ratio[1], 3)} (about "
            f"1/{fmt(1 / res.variance_ratio[1], 1)}). An average over answers is then just as steady with about "
            f"{fmt(1 / res.variance_ratio[1], 1)} times fewer of them."
            if res.variance_ratio[1] > 0 else
            f"The average update E[g] = π ⊙ A = ({mean_text}) is the same for all four baselines.")
        table = pd.DataFrame({
            "baseline": names,
            "b": list(baselines),
            **{f"exact E[g] for {t}": res.mean[:, i] for i, t in enumerate(tokens)},
            f"average of the draws for {tok}": res.sample_mean,
            "share pushing the right way": res.right_direction,
            "total variance (exact)": res.total_variance,
            "total variance (from the draws)": res.sample_total_variance,
        })
        st.dataframe(table, hide_index=True, width="stretch",
                     column_config={c: st.column_config.NumberColumn(format="%.3f") for c in table.columns[1:]})

    # --- Variance against b ---------------------------------------------------------------------------------------
    st.subheader("How the noise depends on b")
    curve_df = pd.DataFrame({"b": grid, "total variance": curve, "baseline": CURVE})
    marks = pd.DataFrame({"b": list(baselines), "total variance": res.total_variance, "baseline": SERIES,
                          "mark": short})
    variance_chart = charts.layer(charts.lines(
        curve_df, x="b", y="total variance", series="baseline", colors={CURVE: NEUTRAL}, legend_title=" ",
        x_title="baseline b (judge-score points)", y_title="total variance",
        y_domain=[0, float(max(curve.max(), res.total_variance.max())) * 1.05],
    ), charts.labelled_points(
        marks, x="b", y="total variance", series="baseline", label="mark", x_title="baseline b (judge-score points)",
        y_title="total variance", colors=COLORS),
        title="Total variance of one answer's estimate against b",
        subtitle=f"A parabola in b, lowest at b* = {fmt(b_star)}; for comparison V = {fmt(bd.v)}",
        height=400).resolve_scale(color="independent")  # points: labelled, no legend
    page.chart(variance_chart, pd.concat([curve_df, marks]),
               alt_text="Curve of the total variance of the gradient estimate against the baseline b, with the four "
                        "compared baselines marked on it.", name="variance_vs_b")

    # --- Running averages -----------------------------------------------------------------------------------------
    if revealed:
        st.subheader("Averaging more answers: every baseline ends in the same place")
        run_df = pd.DataFrame([
            {"answers": int(a), "baseline": name, "running average": float(v), "source": "average of the draws"}
            for name, row in zip(SERIES, res.running, strict=True) for a, v in zip(res.at, row, strict=True)
        ] + [{"answers": x, "baseline": EXACT, "running average": float(res.mean[0, k]), "source": EXACT}
             for x in (1, int(n))])
        running_chart = charts.layer(charts.lines(
            run_df, x="answers", y="running average", series="baseline", colors={**COLORS, EXACT: NEUTRAL},
            x_title="answers averaged (log scale)", y_title="running average", legend_title="baseline",
        ).encode(x=alt.X("answers:Q", title="answers averaged (log scale)",
                         scale=alt.Scale(type="log", domain=[1, int(n)], nice=False))),
            title=f"Average of the first n estimates, {tok}",
            subtitle=[f"All four approach the same exact average, π·A = {fmt(res.mean[0, k])} (grey);",
                      "with b = 0 it wanders longer."], height=460)
        page.chart(running_chart, run_df, alt_text=f"Running average of the gradient estimate for {tok} against the "
                   "number of answers, one line per baseline, with a grey line at the exact average.",
                   name="running_average")


study_panel(revealed)

# --- R − V for the most likely token ----------------------------------------------------------------------------
tl = esc(tokens[likely])
st.subheader(f"The answers that began with “{esc(tokens[likely])}”, counted from V")
centered = bd.centered[likely]
bars = pd.DataFrame({"answer": [f"#{i + 1}: R = {fmt(r)}" for i, r in enumerate(scenario.samples[likely])],
                     "position": range(len(centered)), "R − V": centered, "mean": float(bd.advantage[likely])})


def centered_chart(bars_df: pd.DataFrame, token: str, v: float, adv: float):
    """R − V bars, with their mean as a line."""
    return charts.answer_strip(bars_df, value="R − V", label="answer", title=f"R − V for each sampled {token} answer",
                               subtitle=f"V = {fmt(v)}; the blue line is their mean, Q − V = {fmt(adv)}",
                               y_title="R − V (score points)", line="mean", line_title="mean of R − V = Q − V")


page.chart(
    centered_chart(bars, tokens[likely], float(bd.v), float(bd.advantage[likely])),
    bars, alt_text=f"Bars of score minus V for each sampled answer that began with {tokens[likely]}, with a "
                   "line at their mean, which equals Q minus V.", name="r_minus_v")
answers = "answer" if len(centered) == 1 else f"{len(centered)} answers"
st.markdown(f"For the {answers} that began with **{tl}**, R − V = {fmt_list(centered, sep=', ')}. "
            f"Their mean is {fmt(bd.advantage[likely])} = Q({tl}) − V = {fmt(bd.q[likely])} − {fmt(bd.v)}: "
            "single answers, counted from the baseline, are noisy estimates of the advantage.")

page.show_code(rlcore.baseline_study, rlcore.gradient_stats, rlcore.optimal_baseline, rlcore.gradient_variance_curve)
page.end()
