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

MAX_STEPS = 50
HEIGHT = 300  # room for the plot, its legend and axis titles
TICK = 0.8    # seconds between two frames while playing
PLAYING = "pg_playing"  # session keys of the animation (not link inputs: a link opens paused)
LAST_FRAME = "pg_last_frame"
LEGENDS_BELOW = alt.Config(legend=alt.LegendConfig(orient="bottom"))  # a legend at the side squashes a phone's plot

scenario = page.setup(
    "Once every token has an advantage, each step raises its logit by η·π·A. Which tokens gain probability, and "
    "why can a token that was gaining start to lose?",
)
page.why(
    "This is the whole of the policy-gradient update for one state: tokens the judge likes better than the current "
    "average V gain probability, the others lose it, and V itself climbs. Because A is measured against the "
    "*current* V, a token that was above average can fall below it after a few steps and start losing "
    "probability: good is not good enough once the model has found better. Every RL method for LLMs, from "
    "REINFORCE to PPO and GRPO, builds on this step; they differ in how they estimate A and how far they let "
    "one batch move the policy."
)
tokens = scenario.tokens

page.presets({
    "The article's two steps": {"lr": 1.0, "steps": 2, "step": 1},
    "Thirty steps": {"lr": 1.0, "steps": 30, "step": 30},
    "Small steps (η = 0.2)": {"lr": 0.2, "steps": 50, "step": 1},
    "Small noisy batches of 2": {"batch": 2, "seeds": 20},
})


@page.cached(32)
def exact(scenario, lr, steps):
    return rlcore.policy_gradient_trace(scenario.pi, scenario.q, lr, steps)


@page.cached(32)
def sampled(scenario, lr, steps, batch, baseline, n_seeds):
    return rlcore.sampled_training_many(scenario.pi, scenario.samples, lr=lr, steps=steps, batch=batch,
                                        baseline=baseline, seeds=tuple(range(n_seeds)))


def whole_steps(chart):
    """Step axes count whole steps: no tick at 0.5."""
    return chart.configure_axisX(tickMinStep=1)


def ask(tr, lr: float) -> bool:
    """Predict first: after one step, does the probe token go up or down?"""
    q = scenario.q
    # The article asks about `closed`; in another scenario, ask about the runner-up by Q (good, but not the best).
    probe = tokens.index("closed") if "closed" in tokens else int(np.argsort(q, kind="stable")[-min(2, len(q))])
    move = {1: "Up", -1: "Down", 0: "Stays the same"}[int(tr.direction[0, probe])]
    name = esc(tokens[probe])
    return page.predict(
        f"With step size η = {fmt(lr)}, after one step, does **{name}** go up or down?",
        ["Up", "Down", "Stays the same"], move,
        f"Q({name}) = {fmt(q[probe])} against V = {fmt(tr.values[0])}, "
        f"so A = {fmt(tr.advantages[0, probe], sign=True)} "
        f"and its logit moves by {fmt(tr.logit_changes[0, probe], 3, sign=True)}; its probability goes from "
        f"{fmt(tr.probs[0, probe], 3)} to {fmt(tr.probs[1, probe], 3)}. Press Play to watch the steps.",
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
    lr = inputs.slider("Step size η", 0.0, 5.0, 1.0, 0.1, key="lr", where=c1,
                       help="How far each update moves the logits; the article uses 1 for illustration.")
    steps = int(inputs.slider("Number of steps", 1, MAX_STEPS, 2, 1, key="steps", where=c2))
    tr = page.run(exact, scenario, lr, steps)
    with question:
        revealed = ask(tr, lr)
    if timed:
        advance(steps)
        if not st.session_state[PLAYING]:
            st.rerun()  # the last frame: stop the timer
    # the range does not follow the number of steps (a slider whose maximum moves under its value is fragile):
    # a step beyond the last shows the last
    step = min(int(inputs.slider("Show up to step", 0, MAX_STEPS, 0, 1, key="step", where=c3,
                                 help="0 is the start; past the number of steps, the last step. Play shows the "
                                      "steps one by one; Step takes one step.")), steps)
    if timed:
        c4.button("Pause", icon=":material/pause:", on_click=pause, width="stretch", key="pg_pause")
    else:
        c4.button("Play", icon=":material/play_arrow:", on_click=play, args=(steps,), width="stretch", key="pg_play",
                  disabled=not revealed,
                  help="Watch the steps one by one" if revealed else "Answer the question above first")
    c5.button("Step", icon=":material/skip_next:", on_click=step_forward, args=(steps,), width="stretch",
              key="pg_step", disabled=not revealed or step >= steps, help="One step further, then pause")
    shown = step if revealed else 0  # before the answer, only the start
    q = scenario.q
    upto = shown + 1
    path = pd.DataFrame({"step": np.repeat(np.arange(upto), scenario.n), "token": np.tile(tokens, upto),
                         "probability": tr.probs[:upto].ravel(), "advantage Q − V": tr.advantages[:upto].ravel()})
    turning = [(i, int(t)) for i, t in enumerate(tr.turning_step) if 0 < t <= shown]
    marks = pd.DataFrame({"at": [t - 1 for _, t in turning] + [steps],
                          "label": [f"{tokens[i]} peaks" for i, _ in turning] + ["last step"]})
    left, right = st.columns(2, gap="large")
    with left:
        prob_chart = charts.lines(path, x="step", y="probability", series="token", tokens=tokens, legend_title="token",
                                  x_title="after this many steps", y_title="probability", y_domain=[0, 1],
                                  points=steps <= 20)
        page.chart(whole_steps(charts.layer(
            prob_chart, charts.rules(marks, at="at", label="label", axis="x"),
            title="Token probabilities, step by step",
            subtitle="exact expected gradient; a dashed line marks where a token stops rising", height=HEIGHT)),
                   path, alt_text="Probability of each candidate token after each exact policy-gradient step.",
                   name="pg_probs")
    with right:
        values = pd.DataFrame({"step": np.arange(upto), "series": "V (expected score)", "score": tr.values[:upto]})
        qs = pd.DataFrame({"at": q, "label": [f"Q({t}) = {fmt(x)}" for t, x in zip(tokens, q, strict=True)]})
        now = pd.DataFrame({"at": [shown], "label": [""]})  # the step shown (its number is on the slider)
        end = pd.DataFrame({"at": [steps], "label": ["last step"]})
        page.chart(whole_steps(charts.layer(charts.lines(values, x="step", y="score", series="series",
                                                         colors=method_colors(["V (expected score)"]),
                                                         x_title="after this many steps", y_title="expected score",
                                                         legend_title="line", points=steps <= 20),
                                            charts.rules(qs, at="at", label="label"),
                                            charts.rules(end, at="at", label="label", axis="x"),
                                            charts.rules(now, at="at", label="label", axis="x", color=ACCENT),
                                            title="V climbs past each Q",
                                            subtitle="dashed: each token's Q; once V passes it, A < 0", height=HEIGHT)),
                   values, alt_text="Expected score V after each step, with each token's Q as a horizontal line.",
                   name="pg_value")
    if not revealed:
        st.caption("Answer the question above, then press Play to watch the steps one by one.")
    else:
        inside(tr, lr, steps, max(shown, 1))
    sampled_panel(tr, lr, steps)


def inside(tr, lr: float, steps: int, step: int) -> None:
    """One step in detail: the logit change η·π·A of each token, and what it does to π."""
    q = scenario.q
    before, after = tr.probs[step - 1], tr.probs[step]
    st.subheader(f"Inside step {step}: each logit moves by η·π·A")
    m1, m2, m3 = st.columns(3)
    m1.metric(f"V before step {step}", fmt(tr.values[step - 1]))
    m2.metric(f"V after step {step}", fmt(tr.values[step]))
    m3.metric(f"V after all {steps} steps", fmt(tr.values[-1]))
    bars = pd.DataFrame({"token": tokens, "π before": before, "Q": q, "A = Q − V": tr.advantages[step - 1],
                         "logit change": tr.logit_changes[step - 1], "π after": after,
                         "probability": [("up" if d > 0 else "down" if d < 0 else "same")
                                         for d in tr.direction[step - 1]]})
    b1, b2 = st.columns([3, 2], gap="large")
    with b1:
        page.chart(charts.token_bars(bars, value="logit change", value_title="change of the logit",
                                     title=f"Step {step}: logit change η·π·A per token",
                                     subtitle=f"η = {fmt(lr)}, V before the step = {fmt(tr.values[step - 1])}",
                                     tokens=tokens, digits=3),
                   bars, alt_text=f"Change of each token's logit in step {step}: positive bars up, negative down.",
                   name="pg_logits")
    with b2:
        for i, t in enumerate(tokens):
            st.markdown(f"**{esc(t)}**: π {fmt(before[i], 3)} × A {fmt(tr.advantages[step - 1, i], sign=True)} "
                        f"× η {fmt(lr)} = {fmt(tr.logit_changes[step - 1, i], 3, sign=True)}; "
                        f"probability {fmt(before[i], 3)} → {fmt(after[i], 3)} ({bars['probability'][i]})")
        st.caption("A token's probability rises only if its logit moves up by more than the probability-weighted "
                   "average move; that is why a token with a small positive push can still lose share.")
    st.markdown(f"Probabilities of {', '.join(f'**{esc(t)}**' for t in tokens)}: "
                + " → ".join(fmt_list(p, 3) for p in tr.probs[:min(steps, 4) + 1])
                + (" → …" if steps > 4 else "")
                + f"; V: {' → '.join(fmt(v, 1) for v in tr.values[:min(steps, 4) + 1])}{' → …' if steps > 4 else ''}. "
                "(Three decimals here; rounded to two, as in the article, they need not add up to exactly 1.)")
    turning = [(i, int(t)) for i, t in enumerate(tr.turning_step) if t > 0]
    for i, t in turning:
        a_then = tr.advantages[t - 1, i]
        why = (f"that step started from V = {fmt(tr.values[t - 1])}, already above its Q of {fmt(q[i])}, so its "
               f"advantage had turned negative ({fmt(a_then, sign=True)})" if a_then < 0 else
               f"its advantage is still positive ({fmt(a_then, sign=True)}, V = {fmt(tr.values[t - 1])} is below "
               f"its Q of {fmt(q[i])}), but other tokens are pushed up harder and take its share")
        st.markdown(f"**{esc(tokens[i])}** rises up to step {t - 1} and falls in step {t}: {why}.")
    if not turning:
        st.markdown(f"No token turns from rising to falling within these {steps} steps.")


@st.fragment
def sampled_panel(tr, lr: float, steps: int) -> None:
    """The sampled runs: moving batch, runs or baseline reruns only this section."""
    st.subheader("Going further: the same training from sampled answers")
    st.markdown(
        "In training nobody knows Q: each step samples a batch of answers, scores them, and moves the logits by "
        "(score − baseline) on the tokens that were written. On average that is the exact step above; any single "
        "run wanders around it. Each seed is one run with the same step size and number of steps.")
    s1, s2, s3 = st.columns(3)
    batch = int(inputs.slider("Answers per step (batch)", 1, 64, 8, 1, key="batch", where=s1))
    n_seeds = int(inputs.slider("Runs (seeds)", 2, 40, 12, 1, key="seeds", where=s2))
    baseline = inputs.selectbox("Baseline", rlcore.BASELINES, "V", key="base", where=s3,
                                help="V: the exact expected score, so the average step equals the exact one. "
                                     "batch mean: the batch's own average, as GRPO-style methods do.")
    run = page.run(sampled, scenario, lr, steps, batch, baseline, n_seeds)
    runs = pd.DataFrame({"seed": np.repeat(np.arange(n_seeds), (steps + 1) * scenario.n),
                         "step": np.tile(np.repeat(np.arange(steps + 1), scenario.n), n_seeds),
                         "token": np.tile(tokens, (steps + 1) * n_seeds),
                         "probability": run.probs.ravel()})
    spread = (runs.groupby(["step", "token"], sort=False)["probability"]
              .agg(median="median", lowest="min", highest="max").reset_index())
    exact_path = pd.DataFrame({"step": np.repeat(np.arange(steps + 1), scenario.n),
                               "token": np.tile(tokens, steps + 1), "exact": tr.probs.ravel()})
    spread = spread.merge(exact_path, on=["step", "token"])
    lines = pd.concat([spread[["step", "token", "exact"]].rename(columns={"exact": "probability"})
                       .assign(path="exact"),
                       spread[["step", "token", "median"]].rename(columns={"median": "probability"})
                       .assign(path="median run")])
    band = charts.layer(charts.bands(spread, x="step", mid="exact", low="lowest", high="highest", series="token",
                                     tokens=tokens, x_title="after this many steps", y_title="probability",
                                     legend_title="token", y_domain=[0, 1]),
                        charts.lines(lines, x="step", y="probability", series="token", tokens=tokens,
                                     x_title="after this many steps", y_title="probability", legend_title="token",
                                     dash="path", y_domain=[0, 1]),
                        title=f"{n_seeds} sampled runs against the exact path",
                        subtitle=f"batch of {batch}; shaded: lowest to highest run",
                        height=HEIGHT).properties(config=LEGENDS_BELOW)
    page.chart(whole_steps(band), spread,
               alt_text="For each token, the range of its probability over several sampled "
                        "training runs, their median, and the exact path.", name="pg_sampled")
    last = spread[spread["step"] == steps].set_index("token").loc[list(tokens)]
    st.markdown(
        f"After {steps} steps the exact path gives {fmt_list(last['exact'], 3)}; "
        f"the {n_seeds} sampled runs end between "
        + ", ".join(f"{fmt(lo, 3)}–{fmt(hi, 3)} for **{esc(t)}**" for t, lo, hi in
                    zip(tokens, last["lowest"], last["highest"], strict=True))
        + ". Fewer answers per step spread the runs wider; more answers pull them onto the exact path.")


playing = bool(st.session_state.get(PLAYING, False))
st.fragment(panel, run_every=TICK if playing else None)(playing)

page.show_code(rlcore.policy_gradient_trace, rlcore.policy_gradient_step, rlcore.turning_steps,
               rlcore.sampled_training_many)
page.end()
