"""KL gradients: where the KL penalty goes (loss or reward, k1/k2/k3) and which way its gradient pulls."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from rlcore.kl_placement import PLACEMENTS, kl_placements
from ui import charts, inputs, page
from ui.charts import grouped_hbars
from ui.colors import method_colors
from ui.format import esc, fmt, fmt_list, wrap

MAX_STEPS = 30

scenario = page.setup(
    "A KL penalty should pull the trained policy π back towards the reference π_ref. The optimiser never "
    "sees the KL itself, only the gradient of the estimate it is given, and that gradient depends on "
    "**which estimator** (k1, k2, k3) you use and **where** you put it (in the loss, or in the reward). "
    "Train π away from π_ref and see which of the six choices still points where the true KL's gradient points.",
)
tokens = scenario.tokens

page.why(
    "Schulman's three estimators k1, k2, k3 are judged by their **value**: k1 and k3 average to the true "
    "KL(π‖π_ref), k3 is never negative and varies little. GRPO adds β·k3 to its loss for those reasons. "
    "But a loss term acts through its **gradient**, and the gradient of an average is not the average of "
    "what you hoped for: on tokens sampled from π, k3 in the loss pulls along the gradient of the *forward* "
    "KL(π_ref‖π), k1 in the loss pulls on nothing at all, and the true reverse-KL gradient comes from k2 in "
    "the loss or k1 in the reward (Tang & Munos, 2025). Several libraries (verl, OpenRLHF) and the "
    "DeepSeek-V3.2 report changed their KL term after this was pointed out.")

page.presets({
    "π = π_ref": {"steps": 0},
    "A few steps": {"steps": 3},
    "Far from π_ref": {"steps": 15},
})


@page.cached(32)
def placements_along(scenario, lr, steps):
    """π after each of 0…steps policy-gradient steps from π_ref = the scenario's π, and the placements at each."""
    path = rlcore.policy_gradient_path(scenario.pi, scenario.q, lr, steps)
    return path.probs, [kl_placements(p, scenario.pi) for p in path.probs]


FOLLOW_OPTIONS = {"the reverse KL": "the reverse KL, KL(π‖π_ref)", "the forward KL": "the forward KL, KL(π_ref‖π)",
                  "nothing (zero)": "nothing: it averages to zero", "neither KL": "neither of the two",
                  "both KLs": "both (they coincide here)", "all vanish": "nothing: π has not moved, every pull is 0"}


@st.fragment
def kl_panel() -> None:
    c1, c2 = st.columns(2, gap="large")
    steps = int(inputs.slider("Training steps away from π_ref", 0, MAX_STEPS, 3, 1, key="steps", where=c1,
                              help="Exact policy-gradient steps on the scenario's mean scores, starting from "
                               "π_ref = the scenario's probabilities."))
    with c2.expander("More settings"):
        lr = inputs.slider("Step size η", 0.05, 2.0, 0.3, 0.05, key="lr",
                           help="How far each training step moves the logits.")
    probs, rows = page.run(placements_along, scenario, lr, MAX_STEPS)
    pi, res = probs[steps], rows[steps]
    ref = scenario.pi

    k3 = FOLLOW_OPTIONS[res.follows[2]]
    options = list(dict.fromkeys([FOLLOW_OPTIONS[k] for k in ("the reverse KL", "the forward KL",
                                                             "nothing (zero)", "neither KL")] + [k3]))
    revealed = page.predict(
        "GRPO adds β·k3 to its loss, k3 computed on tokens sampled from π. On average, the gradient of "
        "that term is the gradient of…", options, k3,
        f"With π at {fmt_list(pi)} the expected gradient of k3 in the loss is "
        f"{fmt_list(res.gradients[2], 3)}, the forward KL's gradient is {fmt_list(res.forward, 3)}, and the "
        f"true reverse-KL gradient is {fmt_list(res.reverse, 3)}.",
        key="klg_predict")

    left, right = st.columns([2, 1], gap="large")
    with right:
        st.metric("KL(π‖π_ref)", fmt(res.kl, 3))
        st.markdown(f"π_ref: {fmt_list(ref)}  \nπ now: {fmt_list(pi)}  \n"
                    f"({', '.join(esc(t) for t in tokens)})")
    with left:
        df = pd.DataFrame({
            "placement": np.repeat(PLACEMENTS, len(tokens)),
            "token": np.tile(tokens, len(PLACEMENTS)),
            "expected gradient": res.gradients.ravel(),
            "true gradient": np.tile(res.reverse, len(PLACEMENTS)),
        })
        page.chart(grouped_hbars(df, row="placement", token="token", value="expected gradient",
                                 ref="true gradient", tokens=tokens, row_order=PLACEMENTS,
                                 title=f"Expected gradient per KL placement, step {steps}",
                                 subtitle=wrap("bars: each placement; grey ticks: the true KL(π‖π_ref) gradient"),
                                 x_title="gradient with respect to the token's logit",
                                 ref_title="gradient of KL(π‖π_ref)"),
                   df, alt_text="For each of six KL placements, one bar per token showing its expected gradient, "
                                "with a tick at the true reverse-KL gradient.", name="kl_placements")
    with right:
        st.caption("Gradient descent moves each logit against its bar: a bar to the right means the penalty "
                   "lowers that token.")

    if not revealed:
        return
    table = pd.DataFrame({
        "placement": PLACEMENTS,
        "its expected gradient is the gradient of": [FOLLOW_OPTIONS[f] for f in res.follows],
        "cosine with the true gradient": [fmt(c, 3) for c in res.cosine],
    })
    st.dataframe(table, hide_index=True, width="stretch")
    if res.follows[2] == "all vanish":
        st.info("π still equals π_ref: every KL and every gradient is 0, so there is nothing to pull back yet. "
                "Move the slider to train π away."
                + (" (Every token has the same mean score here, so training does not move π at all: "
                   "edit the scenario's scores.)" if rows[-1].follows[2] == "all vanish" else ""))
        return
    st.markdown(
        f"**k1 in the loss** pulls on nothing: its expected gradient is {fmt_list(res.gradients[0], 3)} whatever "
        "π does, because the average of ∇log π over tokens drawn from π is always zero. "
        f"**k3 in the loss** (GRPO) asks for π − π_ref = {fmt_list(res.forward, 3)}: the gradient of the "
        f"forward KL, not of the KL its value estimates; its cosine with the true direction is "
        f"{fmt(res.cosine[2], 3)}, close here but with other sizes per token. "
        f"**k2 in the loss** and **k1 in the reward** give the true gradient {fmt_list(res.reverse, 3)}. "
        f"k2 and k3 in the reward point elsewhere (cosines {fmt(res.cosine[4], 3)} and {fmt(res.cosine[5], 3)}).")

    st.subheader("The value of an estimator is another story")
    values = pd.DataFrame({
        "estimator": ["k1", "k2", "k3"],
        "average value": res.estimator_mean,
        "true KL(π‖π_ref)": [res.kl] * 3,
        "spread (SD per token)": res.estimator_sd,
        "smallest value": res.estimator_min,
    })
    st.dataframe(values, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.4f") for c in values.columns[1:]})
    st.markdown(
        f"As a **measurement** of the KL, k3 is the good one: it averages to the true {fmt(res.kl, 3)}, its "
        f"spread per token is {fmt(res.estimator_sd[2], 3)} against k1's {fmt(res.estimator_sd[0], 3)}, and it is "
        f"never negative (smallest {fmt(res.estimator_min[2], 3)}; k1's is {fmt(res.estimator_min[0], 3)}). "
        f"k2 is biased ({fmt(res.estimator_mean[1], 3)}). Those are facts about the number you log. What training "
        "follows is the gradient above, and there the ranking changes: log k3 if you like, but penalise "
        "with k2 in the loss, or with k1 in the reward.")

    st.subheader("Going further: the further π drifts, the more the directions part")
    curve = pd.DataFrame({
        "training step": np.repeat(np.arange(MAX_STEPS + 1), 3),
        "placement": np.tile([PLACEMENTS[2], PLACEMENTS[4], PLACEMENTS[5]], MAX_STEPS + 1),
        "cosine with the true gradient": np.concatenate([r.cosine[[2, 4, 5]] for r in rows]),
    }).dropna()  # at π = π_ref every gradient is 0 and no direction exists
    page.chart(charts.layer(
        charts.lines(curve, x="training step", y="cosine with the true gradient", series="placement",
                     colors=method_colors([PLACEMENTS[2], PLACEMENTS[4], PLACEMENTS[5]]), legend_title="placement",
                     x_title="training steps away from π_ref", y_title="cosine", y_domain=[-1, 1]),
        title="How well three placements point along the true KL gradient",
        subtitle=wrap("1: same direction; 0: at right angles; −1: pushes π further away"), height=380),
               curve, alt_text="Cosine between the true reverse-KL gradient and the expected gradient of k3 in "
                               "the loss, k2 in the reward and k3 in the reward, over training steps.",
               name="kl_cosines")
    if np.all(np.isnan(res.cosine)):  # every expected gradient is 0: no direction to compare
        return
    worst = int(np.nanargmin(res.cosine))
    st.markdown(
        f"At step {steps} the placement furthest from the true direction is **{PLACEMENTS[worst]}** "
        f"(cosine {fmt(res.cosine[worst], 3)}). A negative cosine means that penalty, on average, pushes π "
        "further from π_ref instead of pulling it back.")


kl_panel()

page.show_code(kl_placements, rlcore.kl_gradients, rlcore.policy_gradient_path)
page.end()
