"""Reward and return: how the judge's one number becomes a number at every token of the answer (its text is the
catalogue's ``[p2]``, ``locales/*.toml``)."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page
from ui.colors import method_colors
from ui.format import axis_labels, esc, fmt
from ui.i18n import t

GAMMAS = (1.0, 0.99, 0.95, 0.9)     # the discounts compared in the length chart
MAX_LENGTH = 60                     # answer lengths 1…60 tokens in that chart
SHORT, LONG, PREDICT_GAMMA = 5, 20, 0.9
FULL_MARKS = 10.0                   # the outcome-only judge's score for a right conclusion

scenario = page.setup("p2")
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
    choices = [t("p2.more"), t("p2.less"), t("p2.same")]  # the answer is one of the same labels
    more = choices[0] if short_credit > long_credit else choices[1] if short_credit < long_credit else choices[2]
    revealed = page.predict(
        t("p2.question", gamma=fmt(PREDICT_GAMMA), score=fmt(score), short=SHORT, long=LONG), choices, more,
        t("p2.explanation_zero" if score == 0 else "p2.explanation", short_credit=fmt(short_credit, 3),
          short=SHORT, long_credit=fmt(long_credit, 3), long=LONG, gamma=fmt(PREDICT_GAMMA)),
        key="predict_gamma",
    )

    c1, c2 = st.columns([1, 2])
    token = inputs.selectbox(t("p2.token"), tokens, tokens[likely], key="tok", where=c1, help=t("p2.token_help"))
    gamma = inputs.slider(t("p2.gamma"), 0.5, 1.0, 1.0, 0.01, key="gamma", where=c2, help=glossary.term("γ"))

    trace, returns, lengths, curves, _, blind = page.run(reward_and_return, scenario, token, gamma)
    words, score, n = trace.tokens, trace.score, len(trace.tokens)

    strip = pd.DataFrame({
        "position": np.arange(1, n + 1), "label": axis_labels(words), "token": list(words),
        "reward": trace.rewards, "return": returns, "last token": np.arange(n) == n - 1,
    })
    left, right = st.columns(2, gap="large")
    with left:
        page.chart(charts.answer_strip(strip, value="reward", line="return",
                                       line_title=t("p2.strip_line", gamma=fmt(gamma)), highlight="last token",
                                       title=t("p2.strip_title"), subtitle=t("p2.strip_subtitle", gamma=fmt(gamma)),
                                       y_title=t("p2.strip_y"), height=280),
                   strip.drop(columns="label"), name="reward_and_return",
                   alt_text=t("p2.strip_alt", n=n, score=fmt(score), first=fmt(returns[0]), last=fmt(returns[-1])))
        if gamma == 1.0:
            st.markdown(t("p2.flat", value=fmt(returns[0]), first=esc(words[0]), last=esc(words[-1])))
        else:
            st.markdown(t("p2.discounted", gamma=fmt(gamma), last_value=fmt(returns[-1]), first=esc(words[0]),
                          first_value=fmt(returns[0], 3), token=esc(token)))

    with right:
        if not revealed:
            st.caption(t("p2.answer_first"))
        else:
            curve_df = pd.DataFrame([
                {"answer length": int(length), "return at the first token": float(v),
                 "γ": t("p2.curve" if g in GAMMAS else "p2.curve_slider", gamma=fmt(g))}
                for g, values in curves.items() for length, v in zip(lengths, values, strict=True)
            ]).round(6)
            here = pd.DataFrame({"at": [n], "label": [t("p2.here", n=n)]})
            page.chart(
                charts.layer(charts.lines(curve_df, x="answer length", y="return at the first token", series="γ",
                                          colors=method_colors(dict.fromkeys(curve_df["γ"], None)),
                                          legend_title=t("p2.legend"), x_title=t("p2.length_x"),
                                          y_title=t("p2.length_y"),
                                          y_domain=[0, 1.15 * score] if score > 0 else None),
                             charts.rules(here, at="at", label="label", axis="x"),
                             title=t("p2.length_title"), subtitle=t("p2.length_subtitle", score=fmt(score)),
                             height=360),
                curve_df, name="first_token_return",
                alt_text=t("p2.length_alt", score=fmt(score), longest=MAX_LENGTH))
            st.markdown(t("p2.length_text"))

    st.subheader(t("p2.answer"))
    st.code(f"{scenario.prompt}\n{rlcore.join_tokens(words)}", language=None, wrap_lines=True)
    st.caption(t("p2.answer_caption", n=n, before=trace.action_index, token=esc(token)))
    m1, m2, m3, m4 = st.columns(4)
    m1.metric(t("p2.judge_score"), fmt(score))
    m2.metric(t("p2.reward_before", last=n - 1) if n > 1 else t("p2.reward_before_none"), fmt(0.0))
    m3.metric(t("p2.reward_last", n=n), fmt(trace.rewards[-1]), help=t("p2.reward_last_help"))
    m4.metric(t("p2.return_first"), fmt(returns[0]), help=t("p2.return_first_help", gamma=fmt(gamma)))

    st.subheader(t("p2.blind"))
    st.markdown(t("p2.blind_text", conclusion=esc(blind.conclusion), borrowed=esc(blind.borrowed_from)))
    b1, b2 = st.columns(2)
    with b1:
        st.caption(t("p2.unsound"))
        st.code(blind.unsound, language=None, wrap_lines=True)
        st.metric(t("p2.outcome_judge"), t("p2.out_of", score=fmt(blind.unsound_score), full=fmt(FULL_MARKS)))
    with b2:
        st.caption(t("p2.sound"))
        st.code(blind.sound, language=None, wrap_lines=True)
        st.metric(t("p2.outcome_judge"), t("p2.out_of", score=fmt(blind.sound_score), full=fmt(FULL_MARKS)))
    st.markdown(t("p2.both_same") if blind.sound_score == blind.unsound_score else t("p2.both_different"))
    if blind.sound == blind.unsound:
        st.caption(t("p2.coincide"))

reward_panel()

page.end(code=(rlcore.sparse_rewards, rlcore.discounted_returns, rlcore.first_token_return, rlcore.outcome_judge,))
