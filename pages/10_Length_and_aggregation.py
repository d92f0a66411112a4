"""Length and loss aggregation: how a group's token losses become one number, and why that can make answers longer."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, inputs, page, scrub
from ui.charts import Axes, Key, grouped_bars, titled
from ui.colors import method_colors
from ui.format import esc, fmt, pct, wrap
from ui.i18n import t

MODE_NAMES = {"token-mean": "token-mean · DAPO", "seq-mean-token-mean": "seq-mean-token-mean · GRPO",
              "seq-mean-token-sum": "seq-mean-token-sum", "seq-mean-token-sum-norm": "token-sum-norm · Dr. GRPO"}
MODE_COLORS = method_colors({MODE_NAMES["token-mean"]: "dapo", MODE_NAMES["seq-mean-token-mean"]: "grpo",
                             MODE_NAMES["seq-mean-token-sum"]: None, MODE_NAMES["seq-mean-token-sum-norm"]: "dr_grpo"})

METHODS = {m: rlcore.ALGORITHM_NAMES[m] for m in rlcore.GROUP_METHODS}  # shown, and kept in the link, by name
scenario = page.setup("p10")
ADV_NAMES = {"grpo": t("p10.adv_grpo"), "dr_grpo": t("p10.adv_dr_grpo")}
ADV_COLORS = method_colors({name: m for m, name in ADV_NAMES.items()})
MAX_LENGTH = 80
LEN_GRID = scrub.steps(1, MAX_LENGTH, 1)  # the weights chart at every length of the slider: dragged in the browser
tokens = scenario.tokens


choices = page.study(rlcore.padding_choices, scenario)
page.presets({
    t("p10.preset_worst"): {"tok": choices.worst, "len": 40},
    t("p10.preset_best"): {"tok": choices.best, "len": 40},
    t("p10.preset_long"): {"len": MAX_LENGTH},
    t("p10.preset_short"): {"len": 2},
})


@page.panel
def group_panel() -> None:
    """The padded answer and its length drive the one-step charts and the training below them."""
    c1, c2 = st.columns(2)
    token = inputs.selectbox(t("p10.tok"), tokens, choices.worst, key="tok", where=c1, help=t("p10.tok_help"))
    long_length = int(inputs.slider(t("p10.len"), 1, MAX_LENGTH, 40, 1, key="len", where=c2))
    with st.expander(t("p10.more")):
        matched = inputs.toggle(t("p10.matched"), True, key="matched", help=t("p10.matched_help"))
        m1, m2 = st.columns(2)
        method = inputs.named_selectbox(t("p10.adv"), METHODS, rlcore.GROUP_METHODS[0], key="adv", where=m1,
                                  help=t("p10.adv_help"))
        budget = int(inputs.slider(t("p10.budget"), 1, 256, 128, 1, key="budget", where=m2,
                                   help=t("p10.budget_help")))
    group = page.study(rlcore.padded_group, scenario, token, long_length, method, budget, matched)
    at = scrub.at(LEN_GRID, long_length)
    groups = page.study(rlcore.padded_group, scenario, token, at[0], method, budget, matched)
    if group.max_len > budget:  # a generation limit below an answer that exists cannot be: the longest is used
        st.caption(t("p10.budget_caption", budget=budget, longest=group.max_len))
    revealed = ask_which_is_harder(group, token, long_length)
    draw_one_step(group, groups, at[1], token)
    if revealed:
        explain_one_step(group, token, long_length)
    training_section(group, token, long_length, method)


def ask_which_is_harder(group, token: str, long_length: int) -> bool:
    """The question: which aggregation pushes each token of the padded answer harder?"""
    i = group.index
    options = [t("p10.harder_token_mean"), t("p10.harder_seq_mean"), t("p10.same")]
    answer = {None: options[2], "token-mean": options[0], "seq-mean-token-mean": options[1]}[group.harder]
    others = t("p10.sep").join(str(n) for k, n in enumerate(group.lengths) if k != i)
    return page.predict(
        t("p10.question", token=esc(token), length=long_length, others=others), options, answer,
        t("p10.explanation", w_token=fmt(group.push.weights[0, i], 4), w_seq=fmt(group.push.weights[1, i], 4)),
        key="predict_agg")


def push_rows(lengths, advantages, push) -> pd.DataFrame:
    """One row per (group, mode, answer): its weight and pushes; ``lengths`` [K] for one group or [V, K] for
    several (``push``'s fields then [4, K] or [V, 4, K]), each answer named with its length in that group."""
    lens = np.atleast_2d(lengths)
    v, k = lens.shape
    shape = (v, len(MODE_NAMES), k)
    names = np.array([f"{tok} ({n})" for row in lens for tok, n in zip(tokens, row, strict=True)]).reshape(v, 1, k)
    return pd.DataFrame({
        "answer": np.broadcast_to(names, shape).ravel(),
        "tokens": np.broadcast_to(lens[:, None, :], shape).ravel(),
        "advantage": np.broadcast_to(advantages, shape).ravel(),
        "mode": np.broadcast_to(np.array(list(MODE_NAMES.values()))[:, None], shape).ravel(),
        "token weight": push.weights.ravel(),
        "push per token": push.per_token.ravel(),
        "push on the answer": push.per_answer.ravel(),
    })


def draw_weights(groups, exact, token: str, long_length: int) -> None:
    """Each mode's weight of one token of every answer, at every length of the slider (the one dragged to shown)."""
    rows = push_rows(groups.lengths, groups.advantages, groups.push)
    padded = groups.lengths[:, groups.index]  # each row's padded length
    per_group = len(rows) // padded.size
    rows.insert(0, "padded length", np.repeat(padded, per_group))
    rows[scrub.EXACT] = np.repeat(exact, per_group)
    name = t("p10.len_name")
    shown = pd.DataFrame({"padded length": padded, scrub.EXACT: exact,
                          "label": [t("chart.scrub_shown", name=name, value=n) for n in padded]})
    placed = rows.assign(position=np.tile(np.arange(len(tokens)), len(rows) // len(tokens)))  # answers keep places
    bars = grouped_bars(placed, x="answer", y="token weight", key=Key("mode", colors=MODE_COLORS),
                        axes=Axes(t("p10.x_answer"), t("p10.weights_y")), tooltips=("tokens", "advantage"),
                        scrubbed="position")
    page.scrub(charts.layer(bars, charts.note(shown, text="label", corner="top right"), title=t("p10.weights_title"),
                            subtitle=wrap(t("p10.weights_subtitle", token=token, length=long_length))),
               rows, field="padded length", grid=LEN_GRID, value=long_length,
               label=t("chart.scrub_input", name=name), alt_text=t("p10.weights_alt"), name="agg_weights")


def draw_one_step(group, groups, exact, token: str) -> None:
    """Each mode's weight of one token, push per token and push on the whole answer, for every answer."""
    draw_weights(groups, exact, token, int(group.lengths[group.index]))
    rows = push_rows(group.lengths, group.advantages, group.push)
    left, right = st.columns(2, gap="large")
    with left:
        page.chart(titled(grouped_bars(rows, x="answer", y="push per token", key=Key("mode", colors=MODE_COLORS),
                                       axes=Axes(t("p10.x_answer"), t("p10.token_y")),
                                       tooltips=("tokens", "advantage")),
                          title=t("p10.token_title"), subtitle=wrap(t("p10.token_subtitle")), height=240),
                   rows, alt_text=t("p10.token_alt"), name="agg_token")
    with right:
        page.chart(titled(grouped_bars(rows, x="answer", y="push on the answer", key=Key("mode", colors=MODE_COLORS),
                                       axes=Axes(t("p10.x_answer"), t("p10.answer_y")),
                                       tooltips=("tokens", "advantage")),
                          title=t("p10.answer_title"), subtitle=wrap(t("p10.answer_subtitle")), height=240),
                   rows, alt_text=t("p10.answer_alt"),
                   name="agg_answer")


def explain_one_step(group, token: str, long_length: int) -> None:
    """The padded answer's push per token and in total, under token-mean and seq-mean-token-mean."""
    i, push, adv = group.index, group.push, group.advantages[group.index]
    direction = t("p10.down" if adv < 0 else "p10.up" if adv > 0 else "p10.nowhere")
    st.markdown(t(
        "p10.revealed", token=esc(token), adv=fmt(adv, sign=True), direction=direction,
        tok_token=fmt(push.per_token[0, i], 4, sign=True), tok_seq=fmt(push.per_token[1, i], 4, sign=True),
        length=long_length, ans_token=fmt(push.per_answer[0, i], 3, sign=True),
        ans_seq=fmt(push.per_answer[1, i], 3, sign=True)))


def training_section(group, token: str, long_length: int, method: str) -> None:
    """Training with the short and the padded version side by side: which one does each mode come to prefer?"""
    st.subheader(t("p10.training_heading"))
    st.markdown(t("p10.training_intro", token=esc(token), own=group.own_length, length=long_length))
    with st.expander(t("p10.training_settings")):
        t1, t2, t3, t4 = st.columns(4)
        steps = int(inputs.slider(t("p10.steps"), 10, 200, 60, 10, key="steps", where=t1))
        lr = inputs.slider(t("p10.lr"), 0.1, 5.0, 2.0, 0.1, key="lr", where=t2)
        group_size = int(inputs.slider(t("p10.group"), 2, 32, 8, 1, key="group", where=t3))
        seed = inputs.number(t("p10.seed"), 0, 9999, 0, key="seed", where=t4)
    drift = page.study(rlcore.padded_drift, scenario, token, long_length, method=method, max_len=group.max_len,
                       steps=steps, lr=lr, group_size=group_size, seed=int(seed))
    draw_drift(drift, steps)
    share = dict(zip(drift.modes, drift.long_share[:, -1], strict=True))
    adv = group.advantages[group.index]
    verb = t("p10.wrong" if adv < 0 else "p10.right" if adv > 0 else "p10.neither")
    st.markdown(t(
        "p10.share_text", steps=steps, grpo=pct(share["seq-mean-token-mean"]), token_mean=pct(share["token-mean"]),
        seq_sum=pct(share["seq-mean-token-sum"]), norm=pct(share["seq-mean-token-sum-norm"]), verb=verb,
        adv=fmt(adv, sign=True), before=fmt(drift.mean_score[1, 0]), after=fmt(drift.mean_score[1, -1])))


def draw_drift(drift, steps: int) -> None:
    """The padded version's share and the mean length over training, one line per mode."""
    step = np.arange(steps + 1)
    curves = pd.concat([pd.DataFrame({"step": step, "mode": MODE_NAMES[m], "padded share": drift.long_share[j],
                                      "mean length": drift.mean_length[j], "mean score": drift.mean_score[j]})
                        for j, m in enumerate(drift.modes)], ignore_index=True)
    left, right = st.columns(2, gap="large")
    with left:
        page.chart(charts.layer(
            charts.lines(curves, x="step", y="padded share",
                         key=charts.Key("mode", colors=MODE_COLORS, title=t("p10.mode")),
                         axes=charts.Axes(t("p10.x_step"), t("p10.share_y"), y_domain=[0, 1])),
            title=t("p10.share_title"), subtitle=wrap(t("p10.share_subtitle")),
            height=charts.HEIGHT),
                   curves, alt_text=t("p10.share_alt"),
                   name="agg_share")
    with right:
        page.chart(charts.layer(
            charts.lines(curves, x="step", y="mean length",
                         key=charts.Key("mode", colors=MODE_COLORS, title=t("p10.mode")),
                         axes=charts.Axes(t("p10.x_step"), t("p10.length_y"))),
            title=t("p10.length_title"), subtitle=wrap(t("p10.length_subtitle")), height=charts.HEIGHT),
                   curves, alt_text=t("p10.length_alt"), name="agg_length")


@page.panel
def difficulty_panel() -> None:
    """GRPO's division by the group's std against Dr. GRPO's plain centring, for binary-scored groups."""
    st.subheader(t("p10.difficulty_heading"))
    g = int(inputs.slider(t("p10.diff_g"), 2, 32, 8, 1, key="diff_g"))
    curves = {m: page.run(rlcore.difficulty_curve, g, m) for m in ADV_NAMES}
    df = pd.concat([pd.DataFrame({"answers right": c.n_right, "method": ADV_NAMES[m],
                                  "advantage of a right answer": c.right, "multiplier": c.scale})
                    for m, c in curves.items()], ignore_index=True)
    left, right = st.columns(2, gap="large")
    with left:
        page.chart(charts.layer(
            charts.lines(df, x="answers right", y="advantage of a right answer",
                         key=charts.Key("method", colors=ADV_COLORS, title=t("p10.method")),
                         axes=charts.Axes(t("p10.x_right"), t("p10.diff_y")), points=True),
            title=t("p10.diff_title"), subtitle=wrap(t("p10.diff_subtitle", g=g)),
            height=charts.HEIGHT),
                   df, alt_text=t("p10.diff_alt"), name="agg_difficulty")
    with right:
        page.chart(charts.layer(
            charts.lines(df, x="answers right", y="multiplier",
                         key=charts.Key("method", colors=ADV_COLORS, title=t("p10.method")),
                         axes=charts.Axes(t("p10.x_right"), t("p10.scale_y")), points=True),
            title=t("p10.scale_title"), subtitle=wrap(t("p10.scale_subtitle")), height=charts.HEIGHT),
                   df, alt_text=t("p10.scale_alt"), name="agg_scale")
    gr, dr = curves["grpo"], curves["dr_grpo"]
    mid = (g - 1) // 2
    st.markdown(t(
        "p10.difficulty_text", g=g, dr_hard=fmt(dr.right[0]), gr_hard=fmt(gr.right[0]), scale_hard=fmt(gr.scale[0]),
        right_mid=int(gr.n_right[mid]), scale_mid=fmt(gr.scale[mid]), dr_mid=fmt(dr.right[mid]),
        gr_mid=fmt(gr.right[mid])))


group_panel()
difficulty_panel()

page.end(code=(rlcore.padded_group, rlcore.length_push, rlcore.token_weights, rlcore.group_advantages,
               rlcore.padded_drift, rlcore.length_step, rlcore.length_training, rlcore.length_drifts,
               rlcore.difficulty_curve,))
