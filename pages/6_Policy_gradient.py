"""Policy gradient: move each logit by π·A, step after step, exactly and from samples; press play to watch it."""

import time

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, inputs, page
from ui.colors import ACCENT, method_colors
from ui.format import esc, fmt, fmt_list
from ui.i18n import t

MAX_STEPS = 50
HEIGHT = 300  # room for the plot, its legend and axis titles
TICK = 0.8    # seconds between two frames while playing
PLAYING = "pg_playing"  # session keys of the animation (not link inputs: a link opens paused)
LAST_FRAME = "pg_last_frame"
LEGENDS_BELOW = alt.Config(legend=alt.LegendConfig(orient="bottom"))  # a legend at the side squashes a phone's plot

scenario = page.setup("p6")
tokens = scenario.tokens

page.presets({
    t("p6.preset_two"): {"lr": 1.0, "steps": 2, "step": 1},
    t("p6.preset_thirty"): {"lr": 1.0, "steps": 30, "step": 30},
    t("p6.preset_small"): {"lr": 0.2, "steps": 50, "step": 1},
    t("p6.preset_noisy"): {"batch": 2, "seeds": 20},
})


def whole_steps(chart):
    """Step axes count whole steps: no tick at 0.5."""
    return chart.configure_axisX(tickMinStep=1)


def ask(lr: float) -> bool:
    """Predict first: after one step, does the probe token go up or down?"""
    question = page.study(rlcore.policy_question, scenario, lr)
    options = [t("p6.up"), t("p6.down"), t("p6.same")]
    move = options[{1: 0, -1: 1, 0: 2}[question.direction]]
    name = esc(tokens[question.probe])
    return page.predict(
        t("p6.question", lr=fmt(lr), token=name), options, move,
        t("p6.explanation", token=name, q=fmt(question.q), v=fmt(question.v),
          a=fmt(question.advantage, sign=True), change=fmt(question.change, 3, sign=True),
          before=fmt(question.before, 3), after=fmt(question.after, 3)),
        key="predict_pg")


# ---------------------------------------------------------------- the animation: play, pause, one step
def play(total: int) -> None:
    """Play: from the last step, start again at the first; the frames then advance on a timer."""
    k = inputs.key("step")
    if int(st.session_state.get(k, 0)) >= total:
        st.session_state[k] = 0
    st.session_state[PLAYING] = True
    st.session_state[LAST_FRAME] = time.monotonic()


def pause() -> None:
    st.session_state[PLAYING] = False


def step_forward(total: int) -> None:
    """One step on, and pause: the same move the timer makes, by hand."""
    k = inputs.key("step")
    st.session_state[k] = min(int(st.session_state.get(k, 0)) + 1, total)
    st.session_state[PLAYING] = False


def advance(total: int) -> None:
    """While playing, one step per tick; at the last step, stop."""
    now = time.monotonic()
    if now - st.session_state.get(LAST_FRAME, 0.0) >= 0.9 * TICK:  # a widget moved mid-tick: no double step
        k = inputs.key("step")
        st.session_state[k] = min(int(st.session_state.get(k, 0)) + 1, total)
        st.session_state[LAST_FRAME] = now
    if int(st.session_state.get(inputs.key("step"), 0)) >= total:
        st.session_state[PLAYING] = False


def panel(timed: bool) -> None:
    """The question, the inputs, the step control and everything they feed, down to the sampled runs.

    Drawn as a fragment that reruns every TICK seconds while playing (``timed``); only a full run can start
    or stop that timer, so a change of the playing state reruns the app.
    """
    if st.session_state.get(PLAYING, False) != timed:
        st.rerun()
    question = st.container()  # the question sits above the inputs it depends on
    c1, c2, c3, c4, c5 = st.columns([3, 3, 4, 1.5, 1.5], vertical_alignment="bottom")
    lr = inputs.slider(t("p6.lr"), 0.0, 5.0, 1.0, 0.1, key="lr", where=c1, help=t("p6.lr_help"))
    steps = int(inputs.slider(t("p6.steps"), 1, MAX_STEPS, 2, 1, key="steps", where=c2))
    tr = page.study(rlcore.policy_gradient_trace, scenario.pi, scenario.q, lr, steps)
    with question:
        revealed = ask(lr)
    if timed:
        advance(steps)
        if not st.session_state[PLAYING]:
            st.rerun()  # the last frame: stop the timer
    # the range does not follow the number of steps (a slider whose maximum moves under its value is fragile):
    # a step beyond the last shows the last
    step = min(int(inputs.slider(t("p6.step"), 0, MAX_STEPS, 0, 1, key="step", where=c3,
                                 help=t("p6.step_help"))), steps)
    if timed:
        c4.button(t("p6.pause"), icon=":material/pause:", on_click=pause, width="stretch", key="pg_pause")
    else:
        c4.button(t("p6.play"), icon=":material/play_arrow:", on_click=play, args=(steps,), width="stretch",
                  key="pg_play", disabled=not revealed, help=t("p6.play_help" if revealed else "p6.play_locked"))
    c5.button(t("p6.step_button"), icon=":material/skip_next:", on_click=step_forward, args=(steps,),
              width="stretch", key="pg_step", disabled=not revealed or step >= steps, help=t("p6.step_button_help"))
    shown = step if revealed else 0  # before the answer, only the start
    draw_paths(tr, steps, shown)
    if not revealed:
        st.caption(t("p6.locked"))
    else:
        inside(tr, lr, steps, max(shown, 1))
    sampled_panel(tr, lr, steps)


def draw_paths(tr: rlcore.PolicyTrace, steps: int, shown: int) -> None:
    """π of each token and V, from the start to the step shown."""
    q = scenario.q
    upto = shown + 1
    path = pd.DataFrame({"step": np.repeat(np.arange(upto), scenario.n), "token": np.tile(tokens, upto),
                         "probability": tr.probs[:upto].ravel(), "advantage Q − V": tr.advantages[:upto].ravel()})
    turning = [(i, int(t)) for i, t in enumerate(tr.turning_step) if 0 < t <= shown]
    marks = pd.DataFrame({"at": [t - 1 for _, t in turning] + [steps],
                          "label": [t("p6.peaks", token=tokens[i]) for i, _ in turning] + [t("p6.last_step")]})
    left, right = st.columns(2, gap="large")
    with left:
        prob_chart = charts.lines(path, x="step", y="probability",
                                  key=charts.Key("token", tokens=tokens, title=t("p6.token")),
                                  axes=charts.Axes(t("p6.x_title"), t("p6.probability"), y_domain=[0, 1]),
                                  points=steps <= 20)
        page.chart(whole_steps(charts.layer(
            prob_chart, charts.rules(marks, at="at", label="label", axis="x"),
            title=t("p6.probs_title"), subtitle=t("p6.probs_subtitle"), height=HEIGHT)),
                   path, alt_text=t("p6.probs_alt"), name="pg_probs")
    with right:
        v_series = t("p6.v_series")
        values = pd.DataFrame({"step": np.arange(upto), "series": v_series, "score": tr.values[:upto]})
        qs = pd.DataFrame({"at": q, "label": [f"Q({t}) = {fmt(x)}" for t, x in zip(tokens, q, strict=True)]})
        now = pd.DataFrame({"at": [shown], "label": [""]})  # the step shown (its number is on the slider)
        end = pd.DataFrame({"at": [steps], "label": [t("p6.last_step")]})
        page.chart(whole_steps(charts.layer(charts.lines(values, x="step", y="score",
                                                         key=charts.Key("series", colors=method_colors([v_series]),
                                                                        title=t("p6.v_legend")),
                                                         axes=charts.Axes(t("p6.x_title"), t("p6.v_y")),
                                                         points=steps <= 20),
                                            charts.rules(qs, at="at", label="label"),
                                            charts.rules(end, at="at", label="label", axis="x"),
                                            charts.rules(now, at="at", label="label", axis="x", color=ACCENT),
                                            title=t("p6.v_title"), subtitle=t("p6.v_subtitle"), height=HEIGHT)),
                   values, alt_text=t("p6.v_alt"), name="pg_value")


def inside(tr, lr: float, steps: int, step: int) -> None:
    """One step in detail: the logit change η·π·A of each token, and what it does to π."""
    q = scenario.q
    before, after = tr.probs[step - 1], tr.probs[step]
    st.subheader(t("p6.inside.heading", step=step))
    m1, m2, m3 = st.columns(3)
    m1.metric(t("p6.inside.v_before", step=step), fmt(tr.values[step - 1]))
    m2.metric(t("p6.inside.v_after", step=step), fmt(tr.values[step]))
    m3.metric(t("p6.inside.v_end", steps=steps), fmt(tr.values[-1]))
    moves = {1: t("p6.inside.rises"), -1: t("p6.inside.falls"), 0: t("p6.inside.same")}
    bars = pd.DataFrame({"token": tokens, "π before": before, "Q": q, "A = Q − V": tr.advantages[step - 1],
                         "logit change": tr.logit_changes[step - 1], "π after": after,
                         "probability": [moves[int(d)] for d in tr.direction[step - 1]]})
    b1, b2 = st.columns([3, 2], gap="large")
    with b1:
        page.chart(charts.titled(charts.token_bars(bars, value="logit change", tokens=tokens,
                                                   axes=charts.Axes(y=t("p6.inside.logit_title")), digits=3),
                                 title=t("p6.inside.title", step=step),
                                 subtitle=t("p6.inside.subtitle", lr=fmt(lr), v=fmt(tr.values[step - 1]))),
                   bars, alt_text=t("p6.inside.alt", step=step), name="pg_logits")
    with b2:
        for i, tok in enumerate(tokens):
            st.markdown(t("p6.inside.line", token=esc(tok), before=fmt(before[i], 3),
                          a=fmt(tr.advantages[step - 1, i], sign=True), lr=fmt(lr),
                          change=fmt(tr.logit_changes[step - 1, i], 3, sign=True), after=fmt(after[i], 3),
                          direction=bars["probability"][i]))
        st.caption(t("p6.inside.caption"))
    more = " → …" if steps > 4 else ""
    st.markdown(t("p6.inside.path", tokens=t("p6.sep").join(f"**{esc(tok)}**" for tok in tokens),
                  probs=" → ".join(fmt_list(p, 3) for p in tr.probs[:min(steps, 4) + 1]) + more,
                  values=" → ".join(fmt(v, 1) for v in tr.values[:min(steps, 4) + 1]) + more))
    turning = [(i, int(t)) for i, t in enumerate(tr.turning_step) if t > 0]
    for i, at in turning:
        a_then = tr.advantages[at - 1, i]
        st.markdown(t("p6.inside.turn_negative" if a_then < 0 else "p6.inside.turn_positive", token=esc(tokens[i]),
                      peak=at - 1, step=at, v=fmt(tr.values[at - 1]), q=fmt(q[i]), a=fmt(a_then, sign=True)))
    if not turning:
        st.markdown(t("p6.inside.no_turn", steps=steps))


@page.panel
def sampled_panel(tr, lr: float, steps: int) -> None:
    """The sampled runs: moving batch, runs or baseline reruns only this section."""
    st.subheader(t("p6.sampled.heading"))
    st.markdown(t("p6.sampled.intro"))
    s1, s2, s3 = st.columns(3)
    batch = int(inputs.slider(t("p6.sampled.batch"), 1, 64, 8, 1, key="batch", where=s1))
    n_seeds = int(inputs.slider(t("p6.sampled.seeds"), 2, 40, 12, 1, key="seeds", where=s2))
    baseline = inputs.selectbox(t("p6.sampled.baseline"), rlcore.BASELINES, "V", key="base", where=s3,
                                help=t("p6.sampled.baseline_help"),
                                format_func=lambda name: t(f"p6.sampled.baselines.{name}"))
    runs = page.study(rlcore.sampled_spread, scenario.pi, scenario.samples, lr=lr, steps=steps, batch=batch,
                      baseline=baseline, runs=n_seeds)
    spread = pd.DataFrame({"step": np.repeat(np.arange(steps + 1), scenario.n), "token": np.tile(tokens, steps + 1),
                           "median": runs.median.ravel(), "lowest": runs.lowest.ravel(),
                           "highest": runs.highest.ravel(), "exact": tr.probs.ravel()})
    lines = pd.concat([spread[["step", "token", "exact"]].rename(columns={"exact": "probability"})
                       .assign(path=t("p6.sampled.exact")),
                       spread[["step", "token", "median"]].rename(columns={"median": "probability"})
                       .assign(path=t("p6.sampled.median"))])
    key = charts.Key("token", tokens, title=t("p6.token"))
    axes = charts.Axes(t("p6.x_title"), t("p6.probability"), y_domain=[0, 1])
    band = charts.layer(charts.bands(spread, x="step", mid="exact", low="lowest", high="highest", key=key, axes=axes),
                        charts.lines(lines, x="step", y="probability", key=key, axes=axes, dash="path"),
                        title=t("p6.sampled.title", runs=n_seeds), subtitle=t("p6.sampled.subtitle", batch=batch),
                        height=HEIGHT).properties(config=LEGENDS_BELOW)
    page.chart(whole_steps(band), spread, alt_text=t("p6.sampled.alt"), name="pg_sampled")
    ranges = t("p6.sep").join(t("p6.sampled.range", low=fmt(lo, 3), high=fmt(hi, 3), token=esc(tok))
                              for tok, lo, hi in zip(tokens, runs.lowest[-1], runs.highest[-1], strict=True))
    st.markdown(t("p6.sampled.ends", steps=steps, exact=fmt_list(tr.probs[-1], 3), runs=n_seeds, ranges=ranges))


playing = bool(st.session_state.get(PLAYING, False))
st.fragment(panel, run_every=TICK if playing else None)(playing)

page.end(code=(rlcore.policy_gradient_trace, rlcore.policy_gradient_step, rlcore.turning_steps,
               rlcore.sampled_training_many,))
