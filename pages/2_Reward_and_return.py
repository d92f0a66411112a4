"""Reward and return: how the judge's one number becomes a number at every token of the answer."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page
from ui.colors import method_colors
from ui.format import axis_labels, esc, fmt

GAMMAS = (1.0, 0.99, 0.95, 0.9)     # the discounts compared in the length chart
MAX_LENGTH = 60                     # answer lengths 1…60 tokens in that chart
SHORT, LONG, PREDICT_GAMMA = 5, 20, 0.9
FULL_MARKS = 10.0                   # the outcome-only judge's score for a right conclusion

scenario = page.setup(
    "The judge scores the finished answer once; the **reward** puts that score on the last token and zero on "
    "every other, and the **return** of a token adds up the rewards still to come, each shrunk by γ per step. "
    "Why does LLM training keep γ = 1?",
)
page.why(
    "Training works token by token, so the judge's one number has to become a number at every token. A reward "
    "that arrives only at the end is called *sparse* (or delayed). The discount γ decides how much a reward "
    "far in the future still counts: with γ below 1, the early tokens of a long answer, often the ones that "
    "decided it, are credited almost nothing.")
tokens = scenario.tokens
likely = rlcore.summarize(scenario).likely

page.presets({"γ = 1": {"gamma": 1.0}, "γ = 0.99": {"gamma": 0.99}, "γ = 0.9": {"gamma": 0.9},
              "γ = 0.5": {"gamma": 0.5}})


def reward_and_return(current: rlcore.Scenario, first: str, g: float):
    """The answer's sparse rewards and returns, first-token returns by length, and the outcome judge's blind spot."""
    trace = rlcore.answer_trace(current, first, 1.0)
    returns = rlcore.discounted_returns(trace.rewards, g)
    lengths = np.arange(1, MAX_LENGTH + 1)
    curves = {x: rlcore.first_token_return(lengths, trace.score, x) for x in dict.fromkeys((*GAMMAS, g))}
    short, long = rlcore.first_token_return([SHORT, LONG], trace.score, PREDICT_GAMMA)
    return trace, returns, lengths, curves, (float(short), float(long)), rlcore.outcome_blind_spot(current, FULL_MARKS)


@st.fragment
def reward_panel() -> None:
    """The prediction, the first token and γ and all they feed: moving them reruns this panel only."""
    # the question is about the most likely token's answer, whichever answer is shown below
    trace, *_, (short_credit, long_credit), _ = page.run(reward_and_return, scenario, tokens[likely], 1.0)
    score = trace.score
    more = "More" if short_credit > long_credit else "Less" if short_credit < long_credit else "The same"
    revealed = page.predict(
        f"With γ = {fmt(PREDICT_GAMMA)} and the same final score ({fmt(score)}), does the first token get more or "
        f"less credit in a {SHORT}-token answer than in a {LONG}-token one?",
        ["More", "Less", "The same"], more,
        f"It gets {fmt(short_credit, 3)} in the {SHORT}-token answer and {fmt(long_credit, 3)} in the {LONG}-token "
        f"one: every extra token multiplies the first token's share by {fmt(PREDICT_GAMMA)}"
        + (" (and a score of 0 stays 0 however it is discounted)." if score == 0 else "."),
        key="predict_gamma",
    )

    c1, c2 = st.columns([1, 2])
    token = inputs.selectbox("The sampled answer starts with", tokens, tokens[likely], key="tok", where=c1,
                             help="The token written after the prefix; the answer then goes on with its "
                                  "continuation.")
    gamma = inputs.slider("Discount γ", 0.5, 1.0, 1.0, 0.01, key="gamma", where=c2,
                          help=glossary.term("γ"))

    trace, returns, lengths, curves, _, blind = page.run(reward_and_return, scenario, token, gamma)
    words, score, n = trace.tokens, trace.score, len(trace.tokens)

    strip = pd.DataFrame({
        "position": np.arange(1, n + 1), "label": axis_labels(words), "token": list(words),
        "reward": trace.rewards, "return": returns, "last token": np.arange(n) == n - 1,
    })
    left, right = st.columns(2, gap="large")
    with left:
        page.chart(charts.answer_strip(strip, value="reward", line="return", line_title=f"return (γ = {fmt(gamma)})",
                                       highlight="last token", title="Reward (bars) and return (line) at each token",
                                       subtitle=f"γ = {fmt(gamma)}: return = reward + γ × the next token's return",
                                       y_title="points (judge's scale)", height=280),
                   strip.drop(columns="label"), name="reward_and_return",
                   alt_text=f"Bars: the reward of each of the {n} tokens, 0 except {fmt(score)} on the last. Line: the "
                            f"return at each token, from {fmt(returns[0])} at the first to {fmt(returns[-1])} at the "
                            "last.")
        if gamma == 1.0:
            st.markdown(
                f"With γ = 1 the return is **{fmt(returns[0])} at every token**, from “{esc(words[0])}” to the "
                f"final “{esc(words[-1])}”. That is exactly the problem: the return alone cannot say which token "
                "helped and which hurt, because every token of the answer gets the same number. The following "
                "pages (value, advantage, TD error) exist to split it up.")
        else:
            st.markdown(
                f"With γ = {fmt(gamma)} the last token keeps the whole {fmt(returns[-1])}, but the first token, "
                f"“{esc(words[0])}”, is credited only {fmt(returns[0], 3)}, although the choice that decided the "
                f"answer, “{esc(token)}”, sits near the start. The discount shrinks credit for the early tokens "
                "that matter most here.")

    with right:
        if not revealed:
            st.caption("Answer the question above to see how the first token's credit changes with the "
                       "answer's length.")
        else:
            curve_df = pd.DataFrame([
                {"answer length": int(t), "return at the first token": float(v),
                 "γ": f"γ = {fmt(g)}" + (" (slider)" if g not in GAMMAS else "")}
                for g, values in curves.items() for t, v in zip(lengths, values, strict=True)
            ]).round(6)
            here = pd.DataFrame({"at": [n], "label": [f"this answer: {n} tokens"]})
            page.chart(
                charts.layer(charts.lines(curve_df, x="answer length", y="return at the first token", series="γ",
                                          colors=method_colors(dict.fromkeys(curve_df["γ"], None)),
                                          legend_title="discount", x_title="answer length (tokens)",
                                          y_title="first token's return",
                                          y_domain=[0, 1.15 * score] if score > 0 else None),
                             charts.rules(here, at="at", label="label", axis="x"),
                             title="Credit for the first token, by answer length",
                             subtitle=f"the same final score ({fmt(score)}) for every length", height=360),
                curve_df, name="first_token_return",
                alt_text=f"Lines: the return credited to the first token of an answer scored {fmt(score)}, for "
                         f"answer lengths 1 to {MAX_LENGTH}, one line per discount γ; flat for γ = 1, falling for γ "
                         "below 1.")
            st.markdown(
                "With γ = 1 every length gives the first token the full score. With γ below 1 the credit fades "
                "with every extra token, so for the same final score a **shorter answer pays its early tokens "
                "more**. Training on such returns would push the model towards short answers, whatever the task "
                "needs; DeepSeek-R1-Zero's answers instead grew longer as it learned to reason.")

    st.subheader("The sampled answer")
    st.code(f"{scenario.prompt}\n{rlcore.join_tokens(words)}", language=None, wrap_lines=True)
    st.caption(f"{n} tokens: the {trace.action_index} of the prefix, then “{esc(token)}” and its continuation "
               f"(the Loop page writes the same answer). Its judge score is the average score of the sampled "
               f"answers that begin with “{esc(token)}”.")
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Judge's score", fmt(score))
    m2.metric(f"Reward, tokens 1–{n - 1}" if n > 1 else "Reward before the last", fmt(0.0))
    m3.metric(f"Reward, token {n}", fmt(trace.rewards[-1]), help="The last token gets the whole score.")
    m4.metric("Return at token 1", fmt(returns[0]), help=f"With γ = {fmt(gamma)}")

    st.subheader("What a judge that reads only the outcome cannot see")
    st.markdown(
        f"A judge that checks only the conclusion gives full marks to any answer that lands on the right one, "
        f"however it got there. Here both answers conclude “{esc(blind.conclusion)}”, but the first borrows the "
        f"reasoning of “{esc(blind.borrowed_from)}”.")
    b1, b2 = st.columns(2)
    with b1:
        st.caption("Right conclusion, wrong reasoning")
        st.code(blind.unsound, language=None, wrap_lines=True)
        st.metric("Outcome-only judge", f"{fmt(blind.unsound_score)} of {fmt(FULL_MARKS)}")
    with b2:
        st.caption("Right conclusion, right reasoning")
        st.code(blind.sound, language=None, wrap_lines=True)
        st.metric("Outcome-only judge", f"{fmt(blind.sound_score)} of {fmt(FULL_MARKS)}")
    same = "the same score" if blind.sound_score == blind.unsound_score else "different scores"
    st.markdown(
        f"Both get {same}. A sparse reward hides how the outcome was reached: a lucky guess, faulty reasoning "
        "that happens to end on the right answer, or ever less readable text can all collect the full score. "
        "Scoring each step instead needs a process reward model trained on step-by-step labels.")
    if blind.sound == blind.unsound:
        st.caption("In this example the two continuations are the same text, so the two answers coincide; give the "
                   "tokens different continuations in the sidebar to see the blind spot.")

reward_panel()

page.show_code(rlcore.sparse_rewards, rlcore.discounted_returns, rlcore.first_token_return, rlcore.outcome_judge)
page.end()
