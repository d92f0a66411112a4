"""Entropy and pass@k: training makes the policy surer of itself; what that does to pass@1 and to pass@k."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from rlcore.collapse import correct_shares, entropy_trace, pass_at_k_questions, pass_at_k_sampled, trend
from ui import charts, inputs, page
from ui import scenario as scenario_panel
from ui.charts import stacked_shares
from ui.colors import ACCENT, method_colors
from ui.format import esc, fmt, fmt_list, pct, wrap

PASS_CURVES = ("pass@1, exact", "pass@k, exact", "pass@1, sampled", "pass@k, sampled")  # colours: ui.colors

MAX_STEPS = 60
MAX_K = 64
QUESTIONS = 300   # sampled questions for the estimate from answers
RARE = "Rare branch, sometimes right"
LOAD_RARE = "Load the rare-branch example"  # the button (short enough for a phone), named again where it is pointed to

scenario = page.setup(
    "Policy-gradient training makes the model surer of its favourite answer: its **entropy** falls. "
    "That raises **pass@1**, the chance that one answer is right. Does it also raise **pass@k**, the chance "
    "that at least one of k answers is right?",
)
tokens = scenario.tokens

page.why(
    "Reasoning models are often judged by pass@k: sample k answers, count the question solved if any is "
    "right. RL training lifts pass@1 a lot (DeepSeek-R1-Zero: 15.6% → 71.0% on AIME 2024), but Yue et al. "
    "(2025) found that at large k the base model often solves as many questions as the trained one, or more: "
    "training sharpens what the model already samples and drops the rare paths that sometimes worked. "
    "Falling entropy is the same story seen from the policy's side (Cui et al., 2025).\n\n"
    "**How this page counts a right answer.** Each sampled answer in the scenario has a judge score; an "
    "answer is *right* when its score reaches the threshold (under More settings). Each first token is a "
    "branch that is right on the share of its answers that reach it. Read that share as the share of a set "
    "of questions the branch solves, each branch independently of the others: on one question, pass@k only "
    "goes up when pass@1 does, so the surprise needs several questions.")


BEFORE_RARE = "ent_before_rare"  # the running example (and its preset name) the button replaced, for the way back


def load_rare() -> None:
    """The example where pass@64 falls as pass@1 rises, with the view that shows it; the example it replaces is
    kept for ``restore``."""
    st.session_state[BEFORE_RARE] = (scenario_panel.current(), st.session_state.get(scenario_panel.PRESET))
    scenario_panel.replace(rlcore.PRESETS[RARE])
    st.session_state[scenario_panel.PRESET] = RARE
    inputs.set_view({"steps": 30, "k": MAX_K, "threshold": 8.0})


def restore() -> None:
    """Back to the running example the button replaced."""
    previous, preset = st.session_state.pop(BEFORE_RARE)
    scenario_panel.replace(previous)
    st.session_state[scenario_panel.PRESET] = preset


page.presets({
    "Before training": {"steps": 0},
    "After 20 steps": {"steps": 20},
    "pass@1 against pass@64": {"k": MAX_K},
})
load_col, back_col = st.columns([3, 2], vertical_alignment="center")
if scenario == rlcore.PRESETS[RARE] and BEFORE_RARE in st.session_state:
    before = st.session_state[BEFORE_RARE][0]
    load_col.caption(f"The running example is now “{RARE}” on every page, not only here (see the sidebar); the "
                     f"button brings back yours ({esc(', '.join(before.tokens))}).")
    back_col.button("Back to your example", on_click=restore, icon=":material/undo:", key="ent_restore")
else:
    load_col.button(LOAD_RARE, on_click=load_rare, key="ent_load_rare")
    back_col.caption(f"“{RARE}”: pass@1 rises while pass@64 falls. It replaces the running example on every "
                     "page, not only here; a button here then brings yours back.")


@page.cached(32)
def study(scenario, lr, threshold, answers, seed):
    trace = entropy_trace(scenario.pi, scenario.q, lr, MAX_STEPS)
    shares = correct_shares(scenario.samples, threshold)
    ks = np.arange(1, MAX_K + 1)
    exact = pass_at_k_questions(trace.probs, shares, ks)
    sampled = pass_at_k_sampled(trace.probs, shares, ks, answers=answers, questions=QUESTIONS, seed=seed)
    return trace, shares, exact, sampled


@st.fragment
def collapse_panel() -> None:
    c1, c2 = st.columns(2, gap="large")
    steps = int(inputs.slider("Training steps", 0, MAX_STEPS, 20, 1, key="steps", where=c1,
                              help="Exact policy-gradient steps on the scenario's mean scores."))
    k = int(inputs.slider("k (answers per question)", 1, MAX_K, 16, 1, key="k", where=c2,
                          help="pass@k: the chance that at least one of k answers is right."))
    with st.expander("More settings"):
        m1, m2, m3, m4 = st.columns(4)
        threshold = inputs.number("A right answer scores at least", 0.0, 1000.0, 8.0, step=0.5, key="threshold",
                                  where=m1)
        lr = inputs.slider("Step size η", 0.1, 2.0, 0.3, 0.1, key="lr", where=m2)
        answers = int(inputs.select_slider("Answers sampled per question", [64, 128, 256], 64, key="n", where=m3))
        seed = int(inputs.number("Seed", 0, 9999, 0, key="seed", where=m4))

    trace, shares, exact, sampled = page.run(study, scenario, lr, threshold, answers, seed)
    before, after = exact.pass_at[0, k - 1], exact.pass_at[steps, k - 1]
    p1_before, p1_after = exact.pass_at_1[0], exact.pass_at_1[steps]
    answer = trend(before, after)
    revealed = page.predict(
        f"Training for {steps} steps takes pass@1 from {pct(p1_before)} to {pct(p1_after)}. "
        f"What does pass@{k} do?", ["rises", "falls", "barely moves"], answer,
        f"pass@{k} goes from {pct(before, 1)} before training to {pct(after, 1)} after {steps} steps; the entropy "
        f"goes from {fmt(trace.entropy[0], 3)} to {fmt(trace.entropy[steps], 3)} nats.",
        key="ent_predict")

    left, right = st.columns(2, gap="large")
    with left:
        curve = pd.DataFrame({
            "k": np.tile(exact.ks, 2),
            "policy": np.repeat(["before training", f"after {steps} steps"], exact.ks.size),
            "pass@k": np.concatenate([exact.pass_at[0], exact.pass_at[steps]]),
        })
        marker = pd.DataFrame({"at": [k], "label": [f"k = {k}"]})
        page.chart(charts.layer(
            charts.lines(curve, x="k", y="pass@k", series="policy", legend_title="policy", y_domain=[0, 1],
                         colors=method_colors(["before training", f"after {steps} steps"]),
                         x_title="k, answers sampled per question", y_title="pass@k"),
            charts.rules(marker, at="at", label="label", axis="x", color=ACCENT,
                         align="right" if k > MAX_K * 0.8 else "left"),
            title="pass@k against k", subtitle=wrap("averaged over the questions; the dashed line is your k"),
            height=330),
            curve, alt_text="pass@k for k from 1 to 64, before training and after the chosen number of steps.",
            name="pass_at_k")
    with right:
        ent = pd.DataFrame({
            "training step": np.concatenate([np.arange(steps + 1), np.arange(1, steps + 1)]),
            "entropy": np.concatenate([trace.entropy[:steps + 1], trace.one_step[:steps]]),
            "curve": ["measured"] * (steps + 1) + ["predicted"] * steps,
        })
        page.chart(charts.layer(
            charts.lines(ent, x="training step", y="entropy", series="curve", legend_title="curve",
                         colors=method_colors(["measured", "predicted"]), points=steps <= 30,
                         x_title="training step", y_title="entropy H(π), nats"),
            title="Entropy of π along training",
            subtitle=wrap("predicted: H before each step + its first-order ΔH = −Cov(log π, Δz)"), height=330),
                   ent, alt_text="Entropy of the policy at each training step, measured and predicted to first "
                                 "order from the step before.", name="entropy")

    if not revealed:
        return
    reach = ", ".join(f"**{esc(t)}** {pct(s)}" for t, s in zip(tokens, shares, strict=True))
    st.markdown(
        f"Right answers per branch (score ≥ {fmt(threshold)}): {reach}. Before training π = "
        f"{fmt_list(trace.probs[0])}; after {steps} steps π = {fmt_list(trace.probs[steps])}. pass@1 = Σ π × share "
        f"goes from {pct(p1_before, 1)} to {pct(p1_after, 1)}, and pass@{k} from {pct(before, 1)} to {pct(after, 1)}.")
    if trend(p1_before, p1_after) == "rises" and answer == "falls":
        st.markdown(
            f"**The trade.** Training follows the mean score, so it piles probability onto the branch with the "
            f"best average. A branch with a lower average can still be the only one that solves some questions; "
            f"the base model found those with k = {k} tries often enough, the trained one almost never samples "
            "that branch any more. pass@1 goes up, pass@k at large k goes down: the model got surer, not broader.")
    elif scenario.tokens != rlcore.PRESETS[RARE].tokens:
        st.info(f"Here pass@{k} does not fall. Press **{LOAD_RARE}** above to load a scenario where "
                "the branch training favours is not the only one that is sometimes right.")

    st.subheader("Which tokens drive the entropy change")
    if steps == 0:
        st.caption("Move the training steps above 0 to see each step's change.")
    else:
        drive = pd.DataFrame({
            "training step": np.repeat(np.arange(1, steps + 1), len(tokens)),
            "token": np.tile(tokens, steps),
            "share of ΔH": trace.shares[:steps].ravel(),
        })
        page.chart(stacked_shares(drive, x="training step", token="token", value="share of ΔH", tokens=tokens,
                                  title="Each token's part of the predicted entropy change, step by step",
                                  subtitle=wrap("−π_a (log π_a − E log π)(Δz_a − E Δz); below zero lowers the entropy"),
                                  x_title="training step", y_title="part of ΔH (nats)", height=360),
                   drive, alt_text="Stacked bars: each token's term of the first-order entropy change at each step.",
                   name="entropy_drivers")
        first = trace.shares[0]
        st.markdown(
            f"In the first step the prediction is {fmt(trace.predicted[0], 3, sign=True)} nats against a measured "
            f"{fmt(trace.measured[0], 3, sign=True)}; the parts per token are {fmt_list(first, 3)} "
            f"({', '.join(esc(t) for t in tokens)}). A token lowers the entropy when it is likelier than average "
            "and pushed up, or rarer than average and pushed down: both make π more peaked. Policy gradient does "
            "exactly that to a likely token with a positive advantage, which is why entropy collapses. "
            f"(Over all {steps} steps the entropy {trend(trace.entropy[0], trace.entropy[steps])}: "
            f"{fmt(trace.entropy[0], 3)} → {fmt(trace.entropy[steps], 3)} nats. When training first lifts a rare "
            "token, it can rise for a while before it falls. With a large step size the first-order prediction "
            "drifts from the measured change: it describes small steps.)")

    st.subheader("Going further: pass@1 and pass@k over training, exact and from sampled answers")
    over = pd.DataFrame({
        "training step": np.tile(np.arange(MAX_STEPS + 1), 4),
        "curve": np.repeat(list(PASS_CURVES), MAX_STEPS + 1),
        "value": np.concatenate([exact.pass_at[:, 0], exact.pass_at[:, k - 1], sampled[:, 0], sampled[:, k - 1]]),
    })
    page.chart(charts.layer(
        charts.lines(over, x="training step", y="value", series="curve", colors=method_colors(PASS_CURVES),
                     legend_title="curve", x_title="training step", y_title="chance", y_domain=[0, 1]),
        title=f"pass@1 and pass@k (k = {k}) over {MAX_STEPS} training steps",
        subtitle=wrap(f"sampled: {QUESTIONS} questions, {answers} answers each, Codex's unbiased estimator (seeded)"),
        height=360),
               over, alt_text=f"pass@1 and pass@{k} at every training step, exact and estimated from sampled answers.",
               name="pass_over_training")
    st.markdown(
        f"From {answers} sampled answers on each of {QUESTIONS} questions the estimate at step {steps} is "
        f"pass@1 ≈ {pct(sampled[steps, 0], 1)} and pass@{k} ≈ {pct(sampled[steps, k - 1], 1)} (exact: "
        f"{pct(p1_after, 1)} and {pct(after, 1)}). The estimator 1 − C(n − c, k)/C(n, k) uses all n answers of a "
        "question for every k, which is why papers sample n ≥ k answers and report every k from the same set.")


collapse_panel()

page.show_code(entropy_trace, correct_shares, pass_at_k_questions, pass_at_k_sampled, rlcore.entropy_change,
               rlcore.pass_at_k_estimate)
page.end()
