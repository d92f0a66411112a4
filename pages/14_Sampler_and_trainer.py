"""When the sampler is not the trainer: the engine's probabilities differ, and importance weights correct it."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, inputs, page
from ui.charts import Axes, binned_bars, titled
from ui.colors import ACCENT, method_colors
from ui.format import esc, fmt, fmt_list, pct, wrap
from ui.i18n import t

DRAWS = 300
PARTS = {"total error": "mse", "bias²": "bias_squared", "variance": "variance"}  # the link's values: English

scenario = page.setup("p14")
KINDS = {"logit noise": ("noise", t("p14.noise"), 0.0, 2.0, 0.5, 0.05),
         "temperature": ("temp", t("p14.temp"), 0.3, 3.0, 1.5, 0.05),
         "top-p": ("top_p", t("p14.top_p"), 0.3, 1.0, 0.8, 0.05)}
tokens = scenario.tokens


page.presets({
    t("p14.preset_same"): {"kind": "logit noise", "noise": 0.0},
    t("p14.preset_noisy"): {"kind": "logit noise", "noise": 1.0},
    t("p14.preset_hot"): {"kind": "temperature", "temp": 2.0},
    t("p14.preset_top_p"): {"kind": "top-p", "top_p": 0.7},
})


@page.panel
def mismatch_panel() -> None:
    """The engine's mismatch, the cap and the batch drive the charts, the question and the table."""
    c1, c2, c3 = st.columns([4, 3, 3], gap="medium")  # room for the three choices
    kind = inputs.segmented(t("p14.kind"), list(KINDS), "logit noise", key="kind", where=c1,
                            format_func=lambda k: t(f"p14.kinds.{k}"))
    key, label, low, high, default, step = KINDS[kind]
    level = inputs.slider(label, low, high, default, step, key=key, where=c2)
    cap = inputs.select_slider(t("p14.cap"), rlcore.CAP_CHOICES, 2.0, key="cap", where=c3, format_func=fmt)
    with st.expander(t("p14.more")):
        m1, m2, m3 = st.columns(3)
        part = inputs.segmented(t("p14.show"), list(PARTS), "total error", key="part", where=m1,
                                format_func=lambda p: t(f"p14.parts.{p}"))
        batch = int(inputs.select_slider(t("p14.batch"), [16, 64, 256, 1024], 256, key="batch", where=m2))
        seed = int(inputs.number(t("p14.seed"), 0, 9999, 0, key="seed", where=m3))

    res = page.study(rlcore.mismatch_study, scenario.pi, scenario.q, kind=kind, level=level, caps=rlcore.CAP_CHOICES,
                     batch=batch, draws=DRAWS, seed=seed)
    i = rlcore.CAP_CHOICES.index(cap)
    best = page.run(rlcore.lowest_error, res, i)
    label_of = {m: t(f"p14.choice.{m}", cap=fmt(cap)) for m in rlcore.mismatch.METHODS}
    options = [label_of[m] for m in rlcore.mismatch.METHODS]
    answer = label_of[best[0]] if len(best) == 1 else t("p14.tie", methods=" = ".join(label_of[m] for m in best))
    if answer not in options:
        options.append(answer)
    revealed = page.predict(
        t("p14.question", draws=DRAWS, batch=batch), options, answer,
        t("p14.explanation", errors=t("p14.sep").join(t("p14.error_of", method=label_of[m], error=fmt(res.mse[j, i], 4))
                                                      for j, m in enumerate(rlcore.mismatch.METHODS))),
        key="mm_predict")

    left, right = st.columns([3, 2], gap="large")
    with left:
        draw_errors(res, i, cap, part)
    with right:
        draw_ratios(res, i, cap)
    if revealed:
        explain(res, i, cap, kind, label_of, answer)


def draw_errors(res, i: int, cap: float, part: str) -> None:
    """The chosen part of the error against the cap C, one line per method, the chosen C marked."""
    values = getattr(res, PARTS[part])
    shown = t(f"p14.parts.{part}")
    series = [t(f"p14.methods.{m}") for m in rlcore.mismatch.METHODS]  # the legend's names; each its method's colour
    colors = dict(zip(series, method_colors(rlcore.mismatch.METHODS).values(), strict=True))
    curves = pd.DataFrame({
        "cap C": np.tile(res.caps, len(rlcore.mismatch.METHODS)),
        "method": np.repeat(series, res.caps.size),
        part: values.ravel(),
    })
    marker = pd.DataFrame({"at": [cap], "label": [f"C = {fmt(cap)}"]})
    page.chart(charts.layer(  # the plot keeps its height; the legend goes below it
        charts.lines(curves, x="cap C", y=part, key=charts.Key("method", colors=colors, title=t("p14.method")),
                     axes=charts.Axes(t("p14.x_cap"), t("p14.error_y", part=shown),
                                      log="xy" if np.all(values > 0) else "x"),  # a log axis cannot show a 0
                     points=True),
        charts.rules(marker, at="at", label="label", axis="x", color=ACCENT,
                     align="right" if i > len(rlcore.CAP_CHOICES) * 0.7 else "left"),
        title=t("p14.error_title", part=shown), subtitle=wrap(t("p14.error_subtitle", draws=DRAWS)),
        height=330),
        curves, alt_text=t("p14.error_alt", part=shown),
        name="mismatch_error")
    if res.untouched_cap is not None:  # from this cap on, no sampled weight exceeds C
        st.caption(t("p14.untouched", cap=fmt(res.untouched_cap)))


def draw_ratios(res, i: int, cap: float) -> None:
    """The histogram of the sampled weights' log₂ ρ, with the cap marked."""
    hist = pd.DataFrame({"from": res.ratio_edges[:-1], "to": res.ratio_edges[1:], "share": res.ratio_shares})
    cap_rule = pd.DataFrame({"at": [res.log2_caps[i]], "label": [f"C = {fmt(cap)}"]})
    page.chart(charts.layer(
        titled(binned_bars(hist, start="from", end="to", value="share", axes=Axes(t("p14.ratio_x"), t("p14.ratio_y"))),
               title=t("p14.ratio_title"), subtitle=wrap(t("p14.ratio_subtitle")), height=330),
        charts.rules(cap_rule, at="at", label="label", axis="x", color=ACCENT)),
        hist, alt_text=t("p14.ratio_alt"),
        name="ratios")


def explain(res, i: int, cap: float, kind: str, label_of: dict, answer: str) -> None:
    """The share of weights above C, each method's bias² and variance, and what they say (once answered)."""
    st.metric(t("p14.above", cap=fmt(cap)), pct(res.above_cap[i], 1))
    table = pd.DataFrame({t("p14.method"): [label_of[m] for m in rlcore.mismatch.METHODS],
                          t("p14.parts.bias²"): res.bias_squared[:, i], t("p14.parts.variance"): res.variance[:, i],
                          t("p14.parts.total error"): res.mse[:, i]})
    page.table(table, digits=5)
    st.markdown(t(
        "p14.result", pi=fmt_list(scenario.pi), engine=fmt_list(res.engine_mean),
        tokens=t("p14.sep_tokens").join(esc(tok) for tok in tokens), bias_none=fmt(res.bias_squared[0, i], 4),
        bias_full=fmt(res.bias_squared[3, i], 4), var_full=fmt(res.variance[3, i], 4), cap=fmt(cap),
        above=pct(res.above_cap[i], 1), mse_truncate=fmt(res.mse[1, i], 4), mse_mask=fmt(res.mse[2, i], 4),
        answer=answer))
    if kind == "top-p" and res.never_written.size:
        st.info(t("p14.never", tokens=t("p14.sep_tokens").join(f"**{esc(tokens[k])}**" for k in res.never_written)))


mismatch_panel()

page.end(code=(rlcore.mismatch_study, rlcore.top_p_probs, rlcore.truncated_is_weights, rlcore.lowest_error,))
