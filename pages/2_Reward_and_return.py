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
STUDY = {"gammas": GAMMAS, "max_length": MAX_LENGTH, "short": SHORT, "long": LONG, "predict_gamma": PREDICT_GAMMA,
         "full_marks": FULL_MARKS}

scenario = page.setup("p2")
tokens = scenario.tokens
likely = page.study(rlcore.summarize, scenario).likely

page.presets({"γ = 1": {"gamma": 1.0}, "γ = 0.99": {"gamma": 0.99}, "γ = 0.9": {"gamma": 0.9},
              "γ = 0.5": {"gamma": 0.5}})


def ask() -> bool:
    """Predict first: at γ < 1, does a short answer's first token keep more of the same score than a long one's?
    The question is about the most likely token's answer, whichever answer is shown below."""
    asked = page.study(rlcore.reward_study, scenario, tokens[likely], 1.0, **STUDY)
    score, short_credit, long_credit = asked.trace.score, asked.short_credit, asked.long_credit
    choices = [t("p2.more"), t("p2.less"), t("p2.same")]  # the answer is one of the same labels
    more = choices[0] if short_credit > long_credit else choices[1] if short_credit < long_credit else choices[2]
    return page.predict(
        t("p2.question", gamma=fmt(PREDICT_GAMMA), score=fmt(score), short=SHORT, long=LONG), choices, more,
        t("p2.explanation_zero" if score == 0 else "p2.explanation", short_credit=fmt(short_credit, 3),
          short=SHORT, long_credit=fmt(long_credit, 3), long=LONG, gamma=fmt(PREDICT_GAMMA)),
        key="predict_short",
    )


@page.panel
def reward_panel() -> None:
    """The prediction, the first token and γ and all they feed: moving them reruns this panel only."""
    revealed = ask()
    c1, c2 = st.columns([1, 2])
    token = inputs.selectbox(t("p2.token"), tokens, tokens[likely], key="tok", where=c1, help=t("p2.token_help"))
    gamma = inputs.slider(t("p2.gamma"), 0.5, 1.0, 1.0, 0.01, key="gamma", where=c2, help=glossary.term("γ"))
    result = page.study(rlcore.reward_study, scenario, token, gamma, **STUDY)
    left, right = st.columns(2, gap="large")
    with left:
        draw_strip(result, token, gamma)
    with right:
        if not revealed:
            st.caption(t("p2.answer_first"))
        else:
            draw_lengths(result)
    draw_answer(result, token, gamma)
    draw_blind_spot(result.blind)


def draw_strip(result: rlcore.RewardStudy, token: str, gamma: float) -> None:
    """The answer token by token: its reward, and its return at γ."""
    words, score, returns, n = result.trace.tokens, result.trace.score, result.returns, len(result.trace.tokens)
    strip = pd.DataFrame({
        "position": np.arange(1, n + 1), "label": axis_labels(words), "token": list(words),
        "reward": result.trace.rewards, "return": returns, "last token": np.arange(n) == n - 1,
    })
    page.chart(charts.titled(charts.answer_strip(strip, value="reward", axes=charts.Axes(y=t("p2.strip_y")),
                                                 highlight="last token", line="return",
                                                 line_title=t("p2.strip_line", gamma=fmt(gamma))),
                             title=t("p2.strip_title"), subtitle=t("p2.strip_subtitle", gamma=fmt(gamma)), height=280),
               strip.drop(columns="label"), name="reward_and_return",
               alt_text=t("p2.strip_alt", n=n, score=fmt(score), first=fmt(returns[0]), last=fmt(returns[-1])))
    if gamma == 1.0:
        st.markdown(t("p2.flat", value=fmt(returns[0]), first=esc(words[0]), last=esc(words[-1])))
    else:
        st.markdown(t("p2.discounted", gamma=fmt(gamma), last_value=fmt(returns[-1]), first=esc(words[0]),
                      first_value=fmt(returns[0], 3), token=esc(token)))


def draw_lengths(result: rlcore.RewardStudy) -> None:
    """The first token's return against the answer's length, for each γ compared and the slider's."""
    score, n = result.trace.score, len(result.trace.tokens)
    curve_df = pd.DataFrame([
        {"answer length": int(length), "return at the first token": float(v),
         "γ": t("p2.curve" if g in GAMMAS else "p2.curve_slider", gamma=fmt(g))}
        for g, values in zip(result.gammas, result.curves, strict=True)
        for length, v in zip(result.lengths, values, strict=True)
    ]).round(6)
    here = pd.DataFrame({"at": [n], "label": [t("p2.here", n=n)]})
    page.chart(
        charts.layer(charts.lines(curve_df, x="answer length", y="return at the first token",
                                  key=charts.Key("γ", colors=method_colors(dict.fromkeys(curve_df["γ"], None)),
                                                 title=t("p2.legend")),
                                  axes=charts.Axes(t("p2.length_x"), t("p2.length_y"),
                                                   y_domain=[0, 1.15 * score] if score > 0 else None)),
                     charts.rules(here, at="at", label="label", axis="x"),
                     title=t("p2.length_title"), subtitle=t("p2.length_subtitle", score=fmt(score)),
                     height=360),
        curve_df, name="first_token_return",
        alt_text=t("p2.length_alt", score=fmt(score), longest=MAX_LENGTH))
    st.markdown(t("p2.length_text"))


def draw_answer(result: rlcore.RewardStudy, token: str, gamma: float) -> None:
    """The whole answer, its score, and the rewards and return it gets."""
    trace, returns = result.trace, result.returns
    words, score, n = trace.tokens, trace.score, len(trace.tokens)
    st.subheader(t("p2.answer"))
    st.code(f"{scenario.prompt}\n{rlcore.join_tokens(words)}", language=None, wrap_lines=True)
    st.caption(t("p2.answer_caption", n=n, before=trace.action_index, token=esc(token)))
    m1, m2, m3, m4 = st.columns(4)
    m1.metric(t("p2.judge_score"), fmt(score))
    m2.metric(t("p2.reward_before", last=n - 1) if n > 1 else t("p2.reward_before_none"), fmt(0.0))
    m3.metric(t("p2.reward_last", n=n), fmt(trace.rewards[-1]), help=t("p2.reward_last_help"))
    m4.metric(t("p2.return_first"), fmt(returns[0]), help=t("p2.return_first_help", gamma=fmt(gamma)))


def draw_blind_spot(blind: rlcore.BlindSpot) -> None:
    """Right conclusion, borrowed reasoning: the outcome-only judge gives both answers the same score."""
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
