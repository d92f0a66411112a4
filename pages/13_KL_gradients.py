"""KL gradients: where the KL penalty goes (loss or reward, k1/k2/k3) and which way its gradient pulls."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, inputs, page, scrub
from ui.charts import Axes, Key, grouped_hbars
from ui.colors import method_colors
from ui.format import esc, fmt, fmt_list, wrap
from ui.i18n import t

MAX_STEPS = 30
STEPS = scrub.steps(0, MAX_STEPS, 1)  # the steps slider's values: the bars at each, dragged in the browser

scenario = page.setup("p13")
tokens = scenario.tokens


page.presets({
    t("p13.preset_ref"): {"steps": 0},
    t("p13.preset_few"): {"steps": 3},
    t("p13.preset_far"): {"steps": 15},
})


FOLLOW_IDS = {"the reverse KL": "reverse", "the forward KL": "forward", "nothing (zero)": "zero",
              "neither KL": "neither", "both KLs": "both", "all vanish": "vanish"}  # rlcore's names → catalogue ids
PLACEMENT_IDS = ("k1_loss", "k2_loss", "k3_loss", "k1_reward", "k2_reward", "k3_reward")  # in PLACEMENTS' order


def cosine(c: float) -> str:
    """A cosine as the page writes it; none exists where a gradient is 0 (k1 in the loss)."""
    return t("p13.table.undefined") if np.isnan(c) else fmt(c, 3)


def follow_label(follows: str) -> str:
    """What a placement's expected gradient follows (an rlcore name), as the page shows it."""
    return t(f"p13.follow.{FOLLOW_IDS[follows]}")


@page.panel
def kl_panel() -> None:
    """The steps away from π_ref drive the bars, the question and everything revealed after it."""
    c1, c2 = st.columns(2, gap="large")
    steps = int(inputs.slider(t("p13.steps"), 0, MAX_STEPS, 3, 1, key="steps", where=c1,
                              help=t("p13.steps_help")))
    with c2.expander(t("p13.more")):
        lr = inputs.slider(t("p13.lr"), 0.05, 2.0, 0.3, 0.05, key="lr", help=t("p13.lr_help"))
    path = page.study(rlcore.kl_placement_path, scenario.pi, scenario.q, lr, MAX_STEPS)
    pi, res = path.probs[steps], path.placements[steps]
    places = [t(f"p13.placement.{p}") for p in PLACEMENT_IDS]  # PLACEMENTS as the page shows them

    k3 = follow_label(res.follows[2])
    options = list(dict.fromkeys([follow_label(k) for k in ("the reverse KL", "the forward KL",
                                                            "nothing (zero)", "neither KL")] + [k3]))
    revealed = page.predict(
        t("p13.question"), options, k3,
        t("p13.explanation", pi=fmt_list(pi), k3=fmt_list(res.gradients[2], 3), forward=fmt_list(res.forward, 3),
          reverse=fmt_list(res.reverse, 3)),
        key="klg_predict")
    draw_bars(res, lr, pi, steps, places)
    if not revealed:
        return
    if not explain_follows(res, path, places):
        return
    estimator_values(res)
    drift_section(path, steps, places)


def draw_bars(res, lr: float, pi, steps: int, places: list[str]) -> None:
    """Each placement's expected gradient per token, against the true gradient, and KL(π‖π_ref) beside it."""
    left, right = st.columns([2, 1], gap="large")
    with right:
        st.metric("KL(π‖π_ref)", fmt(res.kl, 3))
        st.markdown(t("p13.now", ref=fmt_list(scenario.pi), pi=fmt_list(pi),
                      tokens=t("p13.sep").join(esc(tok) for tok in tokens)))
    with left:
        path = page.study(rlcore.kl_placement_path, scenario.pi, scenario.q, lr, MAX_STEPS)  # every step, scrubbed
        at_step, place, tok = (i.ravel() for i in np.indices(path.gradients.shape))
        df = pd.DataFrame({"steps": at_step, "placement": [places[i] for i in place],
                           "token": [tokens[k] for k in tok], "expected gradient": path.gradients.ravel(),
                           "true gradient": path.true[at_step, tok]})
        shown = pd.DataFrame({"steps": STEPS, "label": [t("p13.bars.shown", steps=n) for n in STEPS]})
        bars = grouped_hbars(df, row="placement", row_order=places, value="expected gradient", ref="true gradient",
                             key=Key("token", tokens, title=t("p13.bars.token")), axes=Axes(t("p13.bars.x_title")),
                             ref_title=t("p13.bars.ref_title"))
        page.scrub(charts.layer(bars, charts.note(shown, text="label", corner="bottom right"),
                                title=t("p13.bars.title"), subtitle=wrap(t("p13.bars.subtitle", steps=steps))),
                   df, field="steps", grid=STEPS, value=steps, label=t("chart.scrub_input", name=t("p13.bars.name")),
                   alt_text=t("p13.bars.alt"), name="kl_placements")
    with right:
        st.caption(t("p13.bars.caption"))


def explain_follows(res, path, places: list[str]) -> bool:
    """What each placement's gradient follows, and its cosine with the true one. False when every pull is 0."""
    table = pd.DataFrame({
        t("p13.table.placement"): places,
        t("p13.table.follows"): [follow_label(f) for f in res.follows],
        t("p13.table.cosine"): [cosine(c) for c in res.cosine],
    })
    page.table(table)
    if res.follows[2] == "all vanish":
        st.info(t("p13.vanish") + (t("p13.vanish_flat") if path.placements[-1].follows[2] == "all vanish" else ""))
        return False
    st.markdown(t("p13.pulls", k1=fmt_list(res.gradients[0], 3), forward=fmt_list(res.forward, 3),
                  cos3=cosine(res.cosine[2]), reverse=fmt_list(res.reverse, 3), cos5=cosine(res.cosine[4]),
                  cos6=cosine(res.cosine[5])))
    return True


def estimator_values(res) -> None:
    """The three estimators' values over one sampled token: mean, spread, smallest."""
    st.subheader(t("p13.values.heading"))
    values = pd.DataFrame({
        t("p13.values.estimator"): ["k1", "k2", "k3"],
        t("p13.values.mean"): res.estimator_mean,
        t("p13.values.true"): [res.kl] * 3,
        t("p13.values.sd"): res.estimator_sd,
        t("p13.values.min"): res.estimator_min,
    })
    page.table(values, digits=4)
    st.markdown(t("p13.values.text", kl=fmt(res.kl, 3), sd3=fmt(res.estimator_sd[2], 3),
                  sd1=fmt(res.estimator_sd[0], 3), min3=fmt(res.estimator_min[2], 3),
                  min1=fmt(res.estimator_min[0], 3), mean2=fmt(res.estimator_mean[1], 3)))


def drift_section(path, steps: int, places: list[str]) -> None:
    """How the three placements that can follow a KL drift from the true gradient as π moves away."""
    st.subheader(t("p13.drift.heading"))
    three = [places[2], places[4], places[5]]
    curve = pd.DataFrame({
        "training step": np.repeat(np.arange(MAX_STEPS + 1), 3),
        "placement": np.tile(three, MAX_STEPS + 1),
        "cosine with the true gradient": path.cosine[:, [2, 4, 5]].ravel(),
    }).dropna()  # at π = π_ref every gradient is 0 and no direction exists
    page.chart(charts.layer(
        charts.lines(curve, x="training step", y="cosine with the true gradient",
                     key=charts.Key("placement", colors=method_colors(three), title=t("p13.drift.legend")),
                     axes=charts.Axes(t("p13.drift.x_title"), t("p13.drift.y_title"), y_domain=[-1, 1])),
        title=t("p13.drift.title"), subtitle=wrap(t("p13.drift.subtitle")), height=380),
               curve, alt_text=t("p13.drift.alt"), name="kl_cosines")
    worst = int(path.worst[steps])
    if worst < 0:  # every expected gradient is 0: no direction to compare
        return
    st.markdown(t("p13.drift.worst", steps=steps, placement=places[worst], cos=fmt(path.cosine[steps, worst], 3)))


kl_panel()

page.end(code=(rlcore.kl_placement_path, rlcore.kl_placements, rlcore.kl_gradients, rlcore.policy_gradient_path,))
