"""Entropy and pass@k: training makes the policy surer of itself; what that does to pass@1 and to pass@k."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, inputs, page
from ui import scenario as scenario_panel
from ui.charts import Axes, Key, stacked_shares, titled
from ui.colors import ACCENT, method_colors
from ui.format import esc, fmt, fmt_list, pct, wrap
from ui.i18n import t

PASS_CURVES = ("pass@1, exact", "pass@k, exact", "pass@1, sampled", "pass@k, sampled")  # colours: ui.colors

MAX_STEPS = 60
MAX_K = 64
QUESTIONS = 300   # sampled questions for the estimate from answers
RARE = "Rare branch, sometimes right"  # rlcore's name of the example; shown as the sidebar names it

scenario = page.setup("p15")
CURVE_NAMES = {c: t(f"p15.curves.{c}") for c in PASS_CURVES}  # shown name → the name that has its colour
COL = {c: t(f"p15.col.{c}") for c in ("policy", "step", "entropy", "curve", "token", "share", "value")}
RARE_NAME = t(f"scenario.presets.{RARE}")
LOAD_RARE = t("p15.load")  # the button (short enough for a phone), named again where it is pointed to
tokens = scenario.tokens


def load_rare() -> None:
    """The example where pass@64 falls as pass@1 rises, with the view that shows it (the sidebar keeps the
    example it replaces, for its way back)."""
    scenario_panel.load(RARE)
    inputs.set_view({"steps": 30, "k": MAX_K, "threshold": 8.0})


def rare_branch_row() -> None:
    """The button that loads the rare branch's example for every page or, once it did, the way back. Outside the
    panel: the example changes the whole page and its sidebar."""
    load_col, back_col = st.columns([3, 2], vertical_alignment="center")
    before = scenario_panel.replaced()
    if scenario == rlcore.PRESETS[RARE] and before is not None:
        load_col.caption(t("p15.loaded", name=RARE_NAME, tokens=esc(t("p15.sep").join(before.tokens))))
        back_col.button(t("p15.back"), on_click=scenario_panel.restore, icon=":material/undo:", key="ent_restore")
    else:
        load_col.button(LOAD_RARE, on_click=load_rare, key="ent_load_rare")
        back_col.caption(t("p15.offer", name=RARE_NAME, k=MAX_K))


page.presets({
    t("p15.preset_before"): {"steps": 0},
    t("p15.preset_after"): {"steps": 20},
    t("p15.preset_k", k=MAX_K): {"k": MAX_K},
})
rare_branch_row()


@page.panel
def collapse_panel() -> None:
    c1, c2 = st.columns(2, gap="large")
    steps = int(inputs.slider(t("p15.steps"), 0, MAX_STEPS, 20, 1, key="steps", where=c1,
                              help=t("p15.steps_help")))
    k = int(inputs.slider(t("p15.k"), 1, MAX_K, 16, 1, key="k", where=c2, help=t("p15.k_help")))
    with st.expander(t("p15.more")):
        m1, m2, m3, m4 = st.columns(4)
        threshold = inputs.number(t("p15.threshold"), 0.0, 1000.0, 8.0, step=0.5, key="threshold",
                                  where=m1)
        lr = inputs.slider(t("p15.lr"), 0.1, 2.0, 0.3, 0.1, key="lr", where=m2)
        answers = int(inputs.select_slider(t("p15.answers"), [64, 128, 256], 64, key="n", where=m3))
        seed = int(inputs.number(t("p15.seed"), 0, 9999, 0, key="seed", where=m4))

    s = page.study(rlcore.collapse_study, scenario, lr, threshold, answers, seed, steps=MAX_STEPS, max_k=MAX_K,
                   questions=QUESTIONS, entries=32)
    revealed = ask(s, steps, k)
    left, right = st.columns(2, gap="large")
    with left:
        draw_pass_at_k(s.exact, steps, k)
    with right:
        draw_entropy(s.trace, steps)
    if not revealed:
        return
    explain_shares(s, steps, k, threshold)
    draw_drivers(s.trace, steps)
    draw_over_training(s, steps, k, answers)


def ask(s, steps: int, k: int) -> bool:
    """Does pass@k rise or fall over ``steps`` steps, as pass@1 rises?"""
    before, after = s.exact.pass_at[0, k - 1], s.exact.pass_at[steps, k - 1]
    p1_before, p1_after = s.exact.pass_at_1[0], s.exact.pass_at_1[steps]
    answer = rlcore.trend(before, after)  # rlcore's word; the question shows it in the page's language
    return page.predict(
        t("p15.question", steps=steps, p1_before=pct(p1_before), p1_after=pct(p1_after), k=k),
        [t(f"p15.trend.{w}") for w in ("rises", "falls", "barely moves")], t(f"p15.trend.{answer}"),
        t("p15.explanation", k=k, before=pct(before, 1), after=pct(after, 1), steps=steps,
          h_before=fmt(s.trace.entropy[0], 3), h_after=fmt(s.trace.entropy[steps], 3)),
        key="ent_predict")


def draw_pass_at_k(exact, steps: int, k: int) -> None:
    """pass@k against k, before training and after ``steps`` steps, with k marked."""
    policies = [t("p15.before_training"), t("p15.after_steps", steps=steps)]
    curve = pd.DataFrame({
        "k": np.tile(exact.ks, 2),
        COL["policy"]: np.repeat(policies, exact.ks.size),
        "pass@k": np.concatenate([exact.pass_at[0], exact.pass_at[steps]]),
    })
    marker = pd.DataFrame({"at": [k], "label": [f"k = {k}"]})
    page.chart(charts.layer(
        charts.lines(curve, x="k", y="pass@k",
                     key=charts.Key(COL["policy"], colors=method_colors(policies), title=COL["policy"]),
                     axes=charts.Axes(t("p15.pass_x"), "pass@k", y_domain=[0, 1])),
        charts.rules(marker, at="at", label="label", axis="x", color=ACCENT,
                     align="right" if k > MAX_K * 0.8 else "left"),
        title=t("p15.pass_title"), subtitle=wrap(t("p15.pass_subtitle")), height=330),
        curve, alt_text=t("p15.pass_alt"),
        name="pass_at_k")


def draw_entropy(trace, steps: int) -> None:
    """The entropy measured along the steps, beside each step's first-order prediction."""
    measured, predicted = t("p15.measured"), t("p15.predicted")
    ent = pd.DataFrame({
        COL["step"]: np.concatenate([np.arange(steps + 1), np.arange(1, steps + 1)]),
        COL["entropy"]: np.concatenate([trace.entropy[:steps + 1], trace.one_step[:steps]]),
        COL["curve"]: [measured] * (steps + 1) + [predicted] * steps,
    })
    page.chart(charts.layer(
        charts.lines(ent, x=COL["step"], y=COL["entropy"],
                     key=charts.Key(COL["curve"], colors=method_colors([measured, predicted]), title=COL["curve"]),
                     axes=charts.Axes(COL["step"], t("p15.entropy_y")), points=steps <= 30),
        title=t("p15.entropy_title"), subtitle=wrap(t("p15.entropy_subtitle")), height=330),
               ent, alt_text=t("p15.entropy_alt"), name="entropy")


def explain_shares(s, steps: int, k: int, threshold: float) -> None:
    """Which branches reach the threshold, and the trade between pass@1 and pass@k when there is one."""
    exact, trace = s.exact, s.trace
    before, after = exact.pass_at[0, k - 1], exact.pass_at[steps, k - 1]
    p1_before, p1_after = exact.pass_at_1[0], exact.pass_at_1[steps]
    reach = t("p15.sep").join(t("p15.reach", token=esc(tok), share=pct(c))
                              for tok, c in zip(tokens, s.shares, strict=True))
    st.markdown(t("p15.shares", threshold=fmt(threshold), reach=reach, before=fmt_list(trace.probs[0]), steps=steps,
                  after=fmt_list(trace.probs[steps]), p1_before=pct(p1_before, 1), p1_after=pct(p1_after, 1), k=k,
                  k_before=pct(before, 1), k_after=pct(after, 1)))
    if rlcore.trend(p1_before, p1_after) == "rises" and rlcore.trend(before, after) == "falls":
        st.markdown(t("p15.trade", k=k))
    elif scenario.tokens != rlcore.PRESETS[RARE].tokens:
        st.info(t("p15.no_fall", k=k, load=LOAD_RARE))


def draw_drivers(trace, steps: int) -> None:
    """Each token's part in each step's change of entropy."""
    st.subheader(t("p15.drivers_heading"))
    if steps == 0:
        st.caption(t("p15.no_steps"))
        return
    drive = pd.DataFrame({
        COL["step"]: np.repeat(np.arange(1, steps + 1), len(tokens)),
        COL["token"]: np.tile(tokens, steps),
        COL["share"]: trace.shares[:steps].ravel(),
    })
    page.chart(titled(stacked_shares(drive, x=COL["step"], value=COL["share"],
                                     key=Key(COL["token"], tokens, title=COL["token"]),
                                     axes=Axes(COL["step"], t("p15.drivers_y"))),
                      title=t("p15.drivers_title"), subtitle=wrap(t("p15.drivers_subtitle")), height=360),
               drive, alt_text=t("p15.drivers_alt"), name="entropy_drivers")
    first = trace.shares[0]
    st.markdown(t("p15.first_step", predicted=fmt(trace.predicted[0], 3, sign=True),
                  measured=fmt(trace.measured[0], 3, sign=True), parts=fmt_list(first, 3),
                  tokens=t("p15.sep").join(esc(tok) for tok in tokens), steps=steps,
                  trend=t(f"p15.entropy_trend.{rlcore.trend(trace.entropy[0], trace.entropy[steps])}"),
                  h_before=fmt(trace.entropy[0], 3), h_after=fmt(trace.entropy[steps], 3)))


def draw_over_training(s, steps: int, k: int, answers: int) -> None:
    """pass@1 and pass@k over the whole training, exact and estimated from sampled answers."""
    exact, sampled = s.exact, s.sampled
    st.subheader(t("p15.over_heading"))
    over = pd.DataFrame({
        COL["step"]: np.tile(np.arange(MAX_STEPS + 1), 4),
        COL["curve"]: np.repeat(list(CURVE_NAMES.values()), MAX_STEPS + 1),
        COL["value"]: np.concatenate([exact.pass_at[:, 0], exact.pass_at[:, k - 1], sampled[:, 0], sampled[:, k - 1]]),
    })
    page.chart(charts.layer(
        charts.lines(over, x=COL["step"], y=COL["value"],
                     key=charts.Key(COL["curve"], colors=method_colors({shown: c for c, shown in CURVE_NAMES.items()}),
                                    title=COL["curve"]),
                     axes=charts.Axes(COL["step"], t("p15.over_y"), y_domain=[0, 1])),
        title=t("p15.over_title", k=k, steps=MAX_STEPS),
        subtitle=wrap(t("p15.over_subtitle", questions=QUESTIONS, answers=answers)), height=360),
               over, alt_text=t("p15.over_alt", k=k), name="pass_over_training")
    st.markdown(t("p15.over_text", answers=answers, questions=QUESTIONS, step=steps, p1=pct(sampled[steps, 0], 1),
                  k=k, pk=pct(sampled[steps, k - 1], 1), p1_exact=pct(exact.pass_at_1[steps], 1),
                  pk_exact=pct(exact.pass_at[steps, k - 1], 1)))


collapse_panel()

page.end(code=(rlcore.collapse_study, rlcore.entropy_trace, rlcore.correct_shares, rlcore.pass_at_k_questions,
               rlcore.pass_at_k_sampled, rlcore.entropy_change, rlcore.pass_at_k_estimate,))
