"""Baseline and variance: subtracting a baseline keeps the average update and cuts its noise."""

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page
from ui.colors import NEUTRAL, method_colors
from ui.format import MINUS, esc, fmt, fmt_list, pct
from ui.i18n import t

N_DEFAULT = 2000
B_MAX = 10.0
GRID = 101  # points of the variance-against-b curve


def two(x: float) -> str:
    """Two fixed decimals with a true minus sign (20.74, 3.70)."""
    return f"{x:.2f}".replace("-", MINUS)


def slider_value(x: float) -> float:
    """A value the b slider can show (its range is 0 to 10, its step 0.01)."""
    return round(min(max(float(x), 0.0), B_MAX), 2)


scenario = page.setup("p4")
tokens = scenario.tokens
view = page.study(rlcore.baseline_overview, scenario.pi, scenario.samples, b_max=B_MAX, points=GRID)
bd, b_star = view.breakdown, view.b_star

page.presets({
    "b = V": {"b": slider_value(bd.v)},
    "b = b*": {"b": slider_value(b_star)},
    "b = 10": {"b": B_MAX},
    t("p4.views.answers", n=f"{100:,}"): {"n": 100},
    t("p4.views.answers", n=f"{20_000:,}"): {"n": 20_000},
})

EXACT, CURVE = t("p4.exact_series"), t("p4.curve_series")
# the charts' series: fixed names (in each language) keep each chart's shape cached
SERIES = ("b = 0", "b = V", "b = b*", t("p4.yours_series"))
COLORS = method_colors(SERIES)  # one colour per baseline, the same on every chart of the page


def ask() -> bool:
    """Predict first: what does b = V do to the average update that b = 0 gives? (The scenario's question.)"""
    zero, at_v = view.zero, view.at_v
    options = [t("p4.turns_around"), t("p4.smaller"), t("p4.stays")]
    return page.predict(
        t("p4.question"), options, options[2] if view.same_mean else options[1],
        t("p4.explanation", zero=fmt_list(zero.mean, sep=", "), at_v=fmt_list(at_v.mean, sep=", "),
          var_zero=two(zero.total_variance), var_v=two(at_v.total_variance)),
        key="predict_baseline")


@page.panel
def study_panel() -> None:
    """The question, the widgets and everything they feed: moving one reruns this panel only, not the page."""
    revealed = ask()
    c1, c2 = st.columns(2)
    b = inputs.slider(t("p4.b"), 0.0, B_MAX, 8.0, 0.01, key="b", where=c1, help=glossary.term("baseline"))
    n = inputs.slider(t("p4.n"), 100, 20_000, N_DEFAULT, 100, key="n", where=c2, help=t("p4.n_help"))
    with st.expander(t("p4.more")):
        m1, m2 = st.columns([3, 1])
        tok = inputs.selectbox(t("p4.tok"), tokens, tokens[view.best], key="tok", where=m1, help=t("p4.tok_help"))
        seed = inputs.number(t("p4.seed"), 0, 999_999, 0, key="seed", where=m2)
    k = scenario.index(tok)
    names = ["b = 0", f"b = V = {fmt(bd.v)}", f"b = b* = {fmt(b_star)}", t("p4.yours_name", b=fmt(b))]
    baselines = (0.0, bd.v, b_star, float(b))
    res = page.study(rlcore.baseline_study, scenario.probs, scenario.samples, baselines, int(n), int(seed), token=k)
    draw_estimates(res, names, int(n), tok)
    if not revealed:
        st.caption(t("p4.hidden"))
    else:
        draw_variances(res, names, baselines, b, tok)
    draw_variance_curve(res, baselines)
    if revealed:
        draw_running(res, k, int(n), tok)


def draw_estimates(res: rlcore.BaselineStudy, names: list, n: int, tok: str) -> None:
    """The main chart: one estimate per answer, for each baseline, and how often it points the right way."""
    hist = pd.DataFrame([
        {"baseline": series, "row": name, "from": float(lo), "to": float(hi), "middle": float(lo + hi) / 2,
         "share": float(s)}
        for series, name, row in zip(SERIES, names, res.shares, strict=True)
        for lo, hi, s in zip(res.edges[:-1], res.edges[1:], row, strict=True)
    ])
    page.chart(
        charts.titled(charts.dot_strip(hist[hist["share"] > 0], x="middle", row="row", size="share",
                                       key=charts.Key("baseline", colors=COLORS),
                                       axes=charts.Axes(t("p4.hist_x", token=tok)), size_title=t("p4.hist_size")),
                      title=t("p4.hist_title", n=f"{n:,}", token=tok),
                      subtitle=[t("p4.hist_subtitle_1"), t("p4.hist_subtitle_2")], height=260),
        hist.drop(columns="middle"), name="gradient_histograms", alt_text=t("p4.hist_alt", token=tok))
    if np.isnan(res.right_direction[0]):  # the exact average for this token is zero: no direction to agree with
        st.markdown(t("p4.zero_average", token=esc(tok)))
    else:
        st.markdown(t("p4.directions", zero=pct(res.right_direction[0]), token=esc(tok),
                      at_v=pct(res.right_direction[1])))


def draw_variances(res: rlcore.BaselineStudy, names: list, baselines: tuple, b: float, tok: str) -> None:
    """Revealed: the total variance at each baseline, the noise b = V leaves, and the table of every number."""
    m = st.columns(4)
    m[0].metric(t("p4.var_zero"), two(res.total_variance[0]), help=t("p4.var_zero_help"))
    m[1].metric(t("p4.var_v", v=fmt(bd.v)), two(res.total_variance[1]))
    m[2].metric(t("p4.noise_left"), fmt(res.variance_ratio[1], 3), help=t("p4.noise_left_help"))
    m[3].metric(t("p4.least", b=fmt(b_star)), two(res.total_variance[2]),
                delta=t("p4.least_delta", ratio=fmt(res.variance_ratio[2], 3)), delta_color="off",
                delta_arrow="off")
    mean_text = fmt_list(res.mean[0], sep=", ")
    st.markdown(
        t("p4.same_mean_less_noise", mean=mean_text, var_v=two(res.total_variance[1]),
          var_zero=two(res.total_variance[0]), ratio=fmt(res.variance_ratio[1], 3),
          times=fmt(res.times_less[1], 1))
        if res.variance_ratio[1] > 0 else t("p4.same_mean", mean=mean_text))
    table = pd.DataFrame({
        t("p4.col_baseline"): names,
        "b": list(baselines),
        **{t("p4.col_exact", token=name): res.mean[:, i] for i, name in enumerate(tokens)},
        t("p4.col_draws", token=tok): res.sample_mean,
        t("p4.col_right"): res.right_direction,
        t("p4.col_var_exact"): res.total_variance,
        t("p4.col_var_draws"): res.sample_total_variance,
    })
    page.table(table, digits=3)


def draw_variance_curve(res: rlcore.BaselineStudy, baselines: tuple) -> None:
    """The total variance against b: a parabola, lowest at b*, with the four baselines marked on it."""
    st.subheader(t("p4.curve_heading"))
    curve_df = pd.DataFrame({"b": view.grid, "total variance": view.curve, "baseline": CURVE})
    marks = pd.DataFrame({"b": list(baselines), "total variance": res.total_variance, "baseline": SERIES,
                          "mark": ["b = 0", "V", "b*", t("p4.yours_short")]})
    top = float(max(view.curve.max(), res.total_variance.max())) * 1.05
    variance_chart = charts.layer(
        charts.lines(curve_df, x="b", y="total variance",
                     key=charts.Key("baseline", colors={CURVE: NEUTRAL}, title=" "),
                     axes=charts.Axes(t("p4.curve_x"), t("p4.curve_y"), y_domain=[0, top])),
        charts.labelled_points(marks, x="b", y="total variance", label="mark",
                               key=charts.Key("baseline", colors=COLORS),
                               axes=charts.Axes(t("p4.curve_x"), t("p4.curve_y"))),
        title=t("p4.curve_title"), subtitle=t("p4.curve_subtitle", b=fmt(b_star), v=fmt(bd.v)),
        height=400).resolve_scale(color="independent")  # points: labelled, no legend
    page.chart(variance_chart, pd.concat([curve_df, marks]), alt_text=t("p4.curve_alt"), name="variance_vs_b")


def draw_running(res: rlcore.BaselineStudy, k: int, n: int, tok: str) -> None:
    """Revealed: the running average of the followed component, for each baseline, against its exact mean."""
    st.subheader(t("p4.running_heading"))
    draws = t("p4.draws_source")
    run_df = pd.DataFrame([
        {"answers": int(a), "baseline": name, "running average": float(v), "source": draws}
        for name, row in zip(SERIES, res.running, strict=True) for a, v in zip(res.at, row, strict=True)
    ] + [{"answers": x, "baseline": EXACT, "running average": float(res.mean[0, k]), "source": EXACT}
         for x in (1, n)])
    running_chart = charts.layer(charts.lines(
        run_df, x="answers", y="running average",
        key=charts.Key("baseline", colors={**COLORS, EXACT: NEUTRAL}, title=t("p4.col_baseline")),
        axes=charts.Axes(t("p4.running_x"), t("p4.running_y")),
    ).encode(x=alt.X("answers:Q", title=t("p4.running_x"),
                     scale=alt.Scale(type="log", domain=[1, n], nice=False))),
        title=t("p4.running_title", token=tok),
        subtitle=[t("p4.running_subtitle_1", mean=fmt(res.mean[0, k])), t("p4.running_subtitle_2")],
        height=460)
    page.chart(running_chart, run_df, alt_text=t("p4.running_alt", token=tok), name="running_average")


def draw_centered() -> None:
    """R − V for each sampled answer of the most likely token: their mean is that token's advantage."""
    likely = view.likely
    tl = esc(tokens[likely])
    st.subheader(t("p4.centered_heading", token=tl))
    centered = bd.centered[likely]
    bars = pd.DataFrame({"answer": [f"#{i + 1}: R = {fmt(r)}" for i, r in enumerate(scenario.samples[likely])],
                         "position": range(len(centered)), "R − V": centered, "mean": float(bd.advantage[likely])})
    chart = charts.titled(charts.answer_strip(bars, value="R − V", axes=charts.Axes(y=t("p4.centered_y")),
                                              label="answer", line="mean", line_title=t("p4.centered_line")),
                          title=t("p4.centered_title", token=tokens[likely]),
                          subtitle=t("p4.centered_subtitle", v=fmt(float(bd.v)), adv=fmt(float(bd.advantage[likely]))))
    page.chart(chart, bars, alt_text=t("p4.centered_alt", token=tokens[likely]), name="r_minus_v")
    st.markdown(t("p4.centered_text", n=len(centered), token=tl, values=fmt_list(centered, sep=t("page.list_sep")),
                  mean=fmt(bd.advantage[likely]), q=fmt(bd.q[likely]), v=fmt(bd.v)))


study_panel()
draw_centered()

page.end(code=(rlcore.baseline_study, rlcore.gradient_stats, rlcore.optimal_baseline, rlcore.gradient_variance_curve,))
