"""When the sampler is not the trainer: the engine's probabilities differ, and importance weights correct it."""

import numpy as np
import pandas as pd
import streamlit as st

from rlcore import truncated_is_weights
from rlcore.mismatch import METHODS, lowest_error, mismatch_study, top_p_probs
from ui import charts, inputs, page
from ui.charts import binned_bars, fit_width
from ui.colors import ACCENT, method_colors
from ui.format import esc, fmt, fmt_list, pct, wrap

CAPS = tuple(float(c) for c in np.round(2.0 ** np.arange(0.0, 3.51, 0.25), 2))  # C from 1 to ~11
DRAWS = 300
PARTS = {"total error": "mse", "bias²": "bias_squared", "variance": "variance"}
KINDS = {"logit noise": ("noise", "Noise on the engine's logits, σ", 0.0, 2.0, 0.5, 0.05),
         "temperature": ("temp", "Sampling temperature τ (trainer: 1)", 0.3, 3.0, 1.5, 0.05),
         "top-p": ("top_p", "Top-p nucleus kept by the engine", 0.3, 1.0, 0.8, 0.05)}

scenario = page.setup(
    "Fast RL systems sample answers with an inference engine (vLLM, SGLang) and train with another program. "
    "Their probabilities for the same token differ, so the update is computed on data from a slightly different "
    "policy. How wrong does that make it, and what do **truncated** or **masked** importance weights buy?",
)
tokens = scenario.tokens

page.why(
    "The engine and the trainer run different kernels, in different precisions, and the engine may apply a "
    "temperature or a top-p cut that the trainer does not. The trainer's probability π_train(a) of a sampled "
    "token is then not the probability π_rollout(a) it was drawn with. Weighting each token by "
    "ρ = π_train/π_rollout corrects that on average, but a few huge weights make the update noisy. "
    "**Truncated** importance sampling (TIS, Yao et al. 2025) uses min(ρ, C); **masked** importance sampling "
    "(MIS) drops the tokens with ρ > C. A small cap C cuts the noise and leaves a bias; a large one the reverse.")

page.presets({
    "Engine = trainer": {"kind": "logit noise", "noise": 0.0},
    "Noisy engine": {"kind": "logit noise", "noise": 1.0},
    "Hot sampler": {"kind": "temperature", "temp": 2.0},
    "Top-p 0.7": {"kind": "top-p", "top_p": 0.7},
})


@page.cached(32)
def study(scenario, kind, level, batch, seed):
    return mismatch_study(scenario.pi, scenario.q, kind=kind, level=level, caps=CAPS, batch=batch, draws=DRAWS,
                          seed=seed)


@st.fragment
def mismatch_panel() -> None:
    c1, c2, c3 = st.columns([4, 3, 3], gap="medium")  # room for the three choices
    kind = inputs.segmented("What differs at sampling", list(KINDS), "logit noise", key="kind", where=c1)
    key, label, low, high, default, step = KINDS[kind]
    level = inputs.slider(label, low, high, default, step, key=key, where=c2)
    cap = inputs.select_slider("Cap C on the weights", CAPS, 2.0, key="cap", where=c3, format_func=fmt)
    with st.expander("More settings"):
        m1, m2, m3 = st.columns(3)
        part = inputs.segmented("Show", list(PARTS), "total error", key="part", where=m1)
        batch = int(inputs.select_slider("Tokens per batch", [16, 64, 256, 1024], 256, key="batch", where=m2))
        seed = int(inputs.number("Seed", 0, 9999, 0, key="seed", where=m3))

    res = page.run(study, scenario, kind, level, batch, seed)
    i = CAPS.index(cap)
    best = lowest_error(res, i)
    label_of = {"no correction": "no correction", "truncate": f"truncate at C = {fmt(cap)}",
                "mask": f"mask above C = {fmt(cap)}", "full weights": "full weights (no cap)"}
    options = [label_of[m] for m in METHODS]
    answer = label_of[best[0]] if len(best) == 1 else "a tie: " + " = ".join(label_of[m] for m in best)
    if answer not in options:
        options.append(answer)
    revealed = page.predict(
        f"Over {DRAWS} seeded batches of {batch} tokens, which weighting lands closest to the on-policy update "
        "(smallest bias² + variance)?", options, answer,
        "Total error (bias² + variance) of each choice: "
        + "; ".join(f"{label_of[m]}: {fmt(res.mse[j, i], 4)}" for j, m in enumerate(METHODS)) + ".",
        key="mm_predict")

    left, right = st.columns([3, 2], gap="large")
    field = PARTS[part]
    values = getattr(res, field)
    with left:
        curves = pd.DataFrame({
            "cap C": np.tile(res.caps, len(METHODS)),
            "method": np.repeat(METHODS, res.caps.size),
            part: values.ravel(),
        })
        marker = pd.DataFrame({"at": [cap], "label": [f"C = {fmt(cap)}"]})
        page.chart(fit_width(charts.layer(  # the plot keeps its height; the legend goes below it
            charts.lines(curves, x="cap C", y=part, series="method", colors=method_colors(METHODS), points=True,
                         x_title="cap C (log scale)", y_title=f"{part} (log scale)",
                         log="xy" if np.all(values > 0) else "x"),
            charts.rules(marker, at="at", label="label", axis="x", color=ACCENT,
                         align="right" if i > len(CAPS) * 0.7 else "left"),
            title=f"The update's {part} against the cap C",
            subtitle=wrap(f"{DRAWS} seeded batches; no correction and full weights ignore C"), height=330)),
            curves, alt_text=f"The {part} of the gradient estimate for each weighting method as the cap grows.",
            name="mismatch_error")
        untouched = np.flatnonzero(res.above_cap == 0)  # caps no sampled weight exceeds
        if untouched.size:
            st.caption(f"From C = {fmt(res.caps[untouched[0]])} up, no sampled weight is above the cap: truncating "
                       "and masking change nothing there, so their lines meet the full weights' line.")
    with right:
        hist = pd.DataFrame({"from": res.ratio_edges[:-1], "to": res.ratio_edges[1:], "share": res.ratio_shares})
        cap_rule = pd.DataFrame({"at": [res.log2_caps[i]], "label": [f"C = {fmt(cap)}"]})
        page.chart(charts.layer(
            binned_bars(hist, start="from", end="to", value="share",
                        title="Weights ρ = π_train/π_rollout",
                        subtitle=wrap("of the sampled tokens; 0: both engines agree"),
                        x_title="log₂ ρ (1: twice as likely in training)", y_title="share of sampled tokens",
                        height=330),
            charts.rules(cap_rule, at="at", label="label", axis="x", color=ACCENT)),
            hist, alt_text="Histogram of the log importance weights of the sampled tokens, with the cap marked.",
            name="ratios")

    if not revealed:
        return
    st.metric(f"Tokens with ρ above C = {fmt(cap)}", pct(res.above_cap[i], 1))
    table = pd.DataFrame({"method": [label_of[m] for m in METHODS], "bias²": res.bias_squared[:, i],
                          "variance": res.variance[:, i], "total error": res.mse[:, i]})
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.5f") for c in table.columns[1:]})
    st.markdown(
        f"The trainer's π is {fmt_list(scenario.pi)}; the engine samples, on average, from "
        f"{fmt_list(res.engine_mean)} ({', '.join(esc(t) for t in tokens)}). Left alone (**no correction**) the "
        f"update aims at the engine's policy: bias² {fmt(res.bias_squared[0, i], 4)}. **Full weights** fix the aim "
        f"(bias² {fmt(res.bias_squared[3, i], 4)}) and pay in spread (variance {fmt(res.variance[3, i], 4)}). "
        f"**Truncating** at C = {fmt(cap)} keeps every token and shrinks only the {pct(res.above_cap[i], 1)} of "
        f"weights above C (total error {fmt(res.mse[1, i], 4)}); **masking** drops those tokens altogether "
        f"(total error {fmt(res.mse[2, i], 4)}), which biases more when many tokens sit above C. "
        f"The smallest error here: **{answer}**. A bias stays whatever the batch size; the variance shrinks as "
        "batches grow (More settings), so the larger the batch, the more a correction pays.")
    if kind == "top-p" and np.any(res.engine_mean == 0):
        cut = ", ".join(f"**{esc(t)}**" for t, m in zip(tokens, res.engine_mean, strict=True) if m == 0)
        st.info(f"Top-p never samples {cut}. No weight can correct for a token that is never drawn: its share of "
                "the update is missing, whatever C is, and even full weights keep a bias.")


mismatch_panel()

page.show_code(mismatch_study, top_p_probs, truncated_is_weights, lowest_error)
page.end()
