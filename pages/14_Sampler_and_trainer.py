"""When the sampler is not the trainer: the engine's probabilities differ, and importance weights correct it."""

import numpy as np
import pandas as pd
import streamlit as st

from rlcore import truncated_is_weights
from rlcore.studies.mismatch import METHODS, lowest_error, mismatch_study, top_p_probs
from ui import charts, inputs, page
from ui.charts import binned_bars
from ui.colors import ACCENT, method_colors
from ui.format import esc, fmt, fmt_list, pct, wrap
from ui.i18n import t

CAPS = tuple(float(c) for c in np.round(2.0 ** np.arange(0.0, 3.51, 0.25), 2))  # C from 1 to ~11
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


@page.cached(32)
def study(scenario, kind, level, batch, seed):
    return mismatch_study(scenario.pi, scenario.q, kind=kind, level=level, caps=CAPS, batch=batch, draws=DRAWS,
                          seed=seed)


@st.fragment
def mismatch_panel() -> None:
    c1, c2, c3 = st.columns([4, 3, 3], gap="medium")  # room for the three choices
    kind = inputs.segmented(t("p14.kind"), list(KINDS), "logit noise", key="kind", where=c1,
                            format_func=lambda k: t(f"p14.kinds.{k}"))
    key, label, low, high, default, step = KINDS[kind]
    level = inputs.slider(label, low, high, default, step, key=key, where=c2)
    cap = inputs.select_slider(t("p14.cap"), CAPS, 2.0, key="cap", where=c3, format_func=fmt)
    with st.expander(t("p14.more")):
        m1, m2, m3 = st.columns(3)
        part = inputs.segmented(t("p14.show"), list(PARTS), "total error", key="part", where=m1,
                                format_func=lambda p: t(f"p14.parts.{p}"))
        batch = int(inputs.select_slider(t("p14.batch"), [16, 64, 256, 1024], 256, key="batch", where=m2))
        seed = int(inputs.number(t("p14.seed"), 0, 9999, 0, key="seed", where=m3))

    res = page.run(study, scenario, kind, level, batch, seed)
    i = CAPS.index(cap)
    best = lowest_error(res, i)
    label_of = {m: t(f"p14.choice.{m}", cap=fmt(cap)) for m in METHODS}
    options = [label_of[m] for m in METHODS]
    answer = label_of[best[0]] if len(best) == 1 else t("p14.tie", methods=" = ".join(label_of[m] for m in best))
    if answer not in options:
        options.append(answer)
    revealed = page.predict(
        t("p14.question", draws=DRAWS, batch=batch), options, answer,
        t("p14.explanation", errors=t("p14.sep").join(t("p14.error_of", method=label_of[m], error=fmt(res.mse[j, i], 4))
                                                      for j, m in enumerate(METHODS))),
        key="mm_predict")

    left, right = st.columns([3, 2], gap="large")
    field = PARTS[part]
    values = getattr(res, field)
    shown = t(f"p14.parts.{part}")
    series = [t(f"p14.methods.{m}") for m in METHODS]  # the legend's names; each keeps its method's colour
    colors = dict(zip(series, method_colors(METHODS).values(), strict=True))
    with left:
        curves = pd.DataFrame({
            "cap C": np.tile(res.caps, len(METHODS)),
            "method": np.repeat(series, res.caps.size),
            part: values.ravel(),
        })
        marker = pd.DataFrame({"at": [cap], "label": [f"C = {fmt(cap)}"]})
        page.chart(charts.layer(  # the plot keeps its height; the legend goes below it
            charts.lines(curves, x="cap C", y=part, series="method", colors=colors, points=True,
                         legend_title=t("p14.method"), x_title=t("p14.x_cap"), y_title=t("p14.error_y", part=shown),
                         log="xy" if np.all(values > 0) else "x"),
            charts.rules(marker, at="at", label="label", axis="x", color=ACCENT,
                         align="right" if i > len(CAPS) * 0.7 else "left"),
            title=t("p14.error_title", part=shown), subtitle=wrap(t("p14.error_subtitle", draws=DRAWS)),
            height=330),
            curves, alt_text=t("p14.error_alt", part=shown),
            name="mismatch_error")
        untouched = np.flatnonzero(res.above_cap == 0)  # caps no sampled weight exceeds
        if untouched.size:
            st.caption(t("p14.untouched", cap=fmt(res.caps[untouched[0]])))
    with right:
        hist = pd.DataFrame({"from": res.ratio_edges[:-1], "to": res.ratio_edges[1:], "share": res.ratio_shares})
        cap_rule = pd.DataFrame({"at": [res.log2_caps[i]], "label": [f"C = {fmt(cap)}"]})
        page.chart(charts.layer(
            binned_bars(hist, start="from", end="to", value="share",
                        title=t("p14.ratio_title"), subtitle=wrap(t("p14.ratio_subtitle")),
                        x_title=t("p14.ratio_x"), y_title=t("p14.ratio_y"),
                        height=330),
            charts.rules(cap_rule, at="at", label="label", axis="x", color=ACCENT)),
            hist, alt_text=t("p14.ratio_alt"),
            name="ratios")

    if not revealed:
        return
    st.metric(t("p14.above", cap=fmt(cap)), pct(res.above_cap[i], 1))
    table = pd.DataFrame({t("p14.method"): [label_of[m] for m in METHODS],
                          t("p14.parts.bias²"): res.bias_squared[:, i], t("p14.parts.variance"): res.variance[:, i],
                          t("p14.parts.total error"): res.mse[:, i]})
    page.table(table, digits=5)
    st.markdown(t(
        "p14.result", pi=fmt_list(scenario.pi), engine=fmt_list(res.engine_mean),
        tokens=t("p14.sep_tokens").join(esc(tok) for tok in tokens), bias_none=fmt(res.bias_squared[0, i], 4),
        bias_full=fmt(res.bias_squared[3, i], 4), var_full=fmt(res.variance[3, i], 4), cap=fmt(cap),
        above=pct(res.above_cap[i], 1), mse_truncate=fmt(res.mse[1, i], 4), mse_mask=fmt(res.mse[2, i], 4),
        answer=answer))
    if kind == "top-p" and np.any(res.engine_mean == 0):
        cut = t("p14.sep_tokens").join(f"**{esc(tok)}**" for tok, m in zip(tokens, res.engine_mean, strict=True)
                                       if m == 0)
        st.info(t("p14.never", tokens=cut))


mismatch_panel()

page.end(code=(mismatch_study, top_p_probs, truncated_is_weights, lowest_error,))
