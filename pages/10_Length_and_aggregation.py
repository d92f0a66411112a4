"""Length and loss aggregation: how a group's token losses become one number, and why that can make answers longer."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from rlcore import length
from ui import charts, inputs, page
from ui.charts import fit_width, grouped_bars
from ui.colors import method_colors
from ui.format import esc, fmt, pct, wrap

MODE_NAMES = {"token-mean": "token-mean · DAPO", "seq-mean-token-mean": "seq-mean-token-mean · GRPO",
              "seq-mean-token-sum": "seq-mean-token-sum", "seq-mean-token-sum-norm": "token-sum-norm · Dr. GRPO"}
MODE_COLORS = method_colors({MODE_NAMES["token-mean"]: "dapo", MODE_NAMES["seq-mean-token-mean"]: "grpo",
                             MODE_NAMES["seq-mean-token-sum"]: None, MODE_NAMES["seq-mean-token-sum-norm"]: "dr_grpo"})
ADV_NAMES = {"grpo": "GRPO, (R − mean)/std", "dr_grpo": "Dr. GRPO, R − mean"}
ADV_COLORS = method_colors({name: m for m, name in ADV_NAMES.items()})
MAX_LENGTH = 80

scenario = page.setup(
    "A group of answers of different lengths has to become one loss. Whether you average over tokens, over "
    "answers, or divide by a fixed budget decides how hard each token of a long answer is pushed, and over "
    "many updates whether answers drift longer.",
)
tokens = scenario.tokens

page.why(
    "In DeepSeek-R1-Zero's training the answers grew longer while their accuracy rose, and this was read as "
    "the model learning to think longer. Liu et al. (Dr. GRPO, arXiv 2503.20783) point to part of it being "
    "an artefact of GRPO's loss: it averages each answer's token losses first (dividing by the answer's "
    "length), then averages over answers. A token of a long answer therefore counts less, so a long wrong "
    "answer is pushed down less per token than a short one. DAPO averages over all the group's tokens "
    "instead; Dr. GRPO divides by a constant budget. They also drop the division by the group's standard "
    "deviation, which gives prompts whose answers barely differ an outsized push (last section).")

worst, best = tokens[int(np.argmin(scenario.q))], tokens[int(np.argmax(scenario.q))]
page.presets({
    "Pad the worst answer": {"tok": worst, "len": 40},
    "Pad the best answer": {"tok": best, "len": 40},
    "Very long (80)": {"len": MAX_LENGTH},
    "Short (2 tokens)": {"len": 2},
})


@page.cached(32)
def one_group(scenario, token, long_length, method, budget, matched):
    lengths = [len(rlcore.answer_tokens(scenario, t)) for t in scenario.tokens]
    lengths[scenario.index(token)] = long_length
    adv = rlcore.group_advantages(scenario.q, method)
    return lengths, adv, length.length_push(lengths, adv, budget, match_step=matched)


@page.cached(32)
def drift(scenario, token, long_length, method, budget, steps, lr, group_size, seed):
    lengths = [len(rlcore.answer_tokens(scenario, t)) for t in scenario.tokens]
    return length.length_drifts(scenario.pi, scenario.samples, lengths, scenario.index(token), long_length,
                                modes=rlcore.AGGREGATION_MODES, method=method, group_size=group_size, lr=lr,
                                steps=steps, n_runs=32, seed=seed, max_len=budget)


@st.fragment
def group_panel() -> None:
    """The padded answer and its length drive the one-step charts and the training below them."""
    c1, c2 = st.columns(2)
    token = inputs.selectbox("Answer to make long", tokens, worst, key="tok", where=c1,
                             help="The answer that starts with this token, padded or cut to the length on the "
                                  "right (its score stays the same).")
    long_length = int(inputs.slider("Its length in tokens", 1, MAX_LENGTH, 40, 1, key="len", where=c2))
    with st.expander("More settings"):
        matched = inputs.toggle("Match the step sizes", True, key="matched",
                                help="Scale seq-mean-token-sum and the -norm mode so that the group's tokens weigh "
                                     "as much in total as under token-mean: a constant factor, like a step size. "
                                     "Off: their raw weights, 1/G and 1/(G·L_max).")
        m1, m2 = st.columns(2)
        method = inputs.selectbox("Advantage", rlcore.GROUP_METHODS, rlcore.GROUP_METHODS[0], key="adv", where=m1,
                                  help="How the group's scores become advantages.")
        budget = int(inputs.slider("Budget L_max (Dr. GRPO's constant)", 1, 256, 128, 1, key="budget", where=m2,
                                   help="The generation limit; it must be at least the longest answer."))

    longest = max([long_length, *(len(rlcore.answer_tokens(scenario, t)) for t in tokens if t != token)])
    if budget < longest:  # a generation limit below an answer that exists cannot be: use the longest answer
        st.caption(f"L_max = {budget} is shorter than the longest answer ({longest} tokens), so L_max = {longest} "
                   "is used: a generation limit is never below an answer it produced.")
        budget = longest
    lengths, adv, push = page.run(one_group, scenario, token, long_length, method, budget, matched)
    i = scenario.index(token)
    tok = esc(token)
    mean_tok, mean_seq = push.per_token[0, i], push.per_token[1, i]
    answer = ("the same" if np.isclose(abs(mean_tok), abs(mean_seq), rtol=1e-9, atol=1e-15)
              else "harder under token-mean (DAPO)" if abs(mean_tok) > abs(mean_seq)
              else "harder under seq-mean-token-mean (GRPO)")
    revealed = page.predict(
        f"The answer starting with **{tok}** now has {long_length} tokens (the others have "
        f"{', '.join(str(n) for k, n in enumerate(lengths) if k != i)}). Per token, is it pushed harder under "
        "DAPO's token-mean or under GRPO's seq-mean-token-mean?",
        ["harder under token-mean (DAPO)", "harder under seq-mean-token-mean (GRPO)", "the same"], answer,
        f"token-mean gives every token of the group the same weight 1/Σ|o| = {fmt(push.weights[0, i], 4)}; "
        f"seq-mean-token-mean gives a token of this answer 1/(G·|o|) = {fmt(push.weights[1, i], 4)}. "
        f"An answer longer than the group's average loses out under GRPO; a shorter one gains.",
        key="predict_agg")

    names = [f"{t} ({n})" for t, n in zip(tokens, lengths, strict=True)]
    rows = pd.DataFrame({
        "answer": np.tile(names, len(rlcore.AGGREGATION_MODES)),
        "tokens": np.tile(lengths, len(rlcore.AGGREGATION_MODES)),
        "advantage": np.tile(adv, len(rlcore.AGGREGATION_MODES)),
        "mode": np.repeat(list(MODE_NAMES.values()), len(tokens)),
        "token weight": push.weights.ravel(),
        "push per token": push.per_token.ravel(),
        "push on the answer": push.per_answer.ravel(),
    })
    page.chart(fit_width(grouped_bars(rows, x="answer", y="token weight", group="mode", colors=MODE_COLORS,
                            title="The weight of one token of each answer, per mode",
                            subtitle=wrap("answer (its length in tokens); the weights of a mode add up over all "
                                          "tokens"),
                            x_title="answer (tokens)", y_title="weight of each of its tokens",
                            tooltips=("tokens", "advantage"))),
               rows, alt_text="For each answer of the group, the weight one of its tokens gets under each of the four "
                              "aggregation modes.", name="agg_weights")
    left, right = st.columns(2, gap="large")
    with left:
        page.chart(fit_width(grouped_bars(rows, x="answer", y="push per token", group="mode", colors=MODE_COLORS,
                                title="Push on each token", subtitle=wrap("weight × advantage"),
                                x_title="answer (tokens)", y_title="push on each token's log π",
                                tooltips=("tokens", "advantage"), height=240)),
                   rows, alt_text="Weight times advantage for one token of each answer, per mode.", name="agg_token")
    with right:
        page.chart(fit_width(grouped_bars(rows, x="answer", y="push on the answer", group="mode", colors=MODE_COLORS,
                                title="Push on the whole answer", subtitle=wrap("its length × weight × "
                                                                                         "advantage"),
                                x_title="answer (tokens)", y_title="push summed over its tokens",
                                tooltips=("tokens", "advantage"), height=240)),
                   rows, alt_text="Weight times advantage summed over each answer's tokens, per mode.",
                   name="agg_answer")
    if revealed:
        direction = "down" if adv[i] < 0 else "up" if adv[i] > 0 else "nowhere"
        st.markdown(
            f"The answer starting with **{tok}** has advantage {fmt(adv[i], sign=True)}, so the update pushes it "
            f"{direction}. Per token that is {fmt(push.per_token[0, i], 4, sign=True)} under token-mean and "
            f"{fmt(push.per_token[1, i], 4, sign=True)} under seq-mean-token-mean. Summed over its {long_length} "
            f"tokens: {fmt(push.per_answer[0, i], 3, sign=True)} against {fmt(push.per_answer[1, i], 3, sign=True)}. "
            "Under seq-mean-token-mean every answer's total push is its advantage divided by the group size, "
            "whatever its length, so a long answer spreads the same push over more tokens. For a wrong answer "
            "that is a discount: padding it costs less. seq-mean-token-sum and the -norm mode weigh every token "
            "alike; they differ from token-mean only by a constant factor, which acts like a step size "
            "(turn off “Match the step sizes” under More settings to see their raw weights).")

    st.subheader("Over training: a short and a padded version of the same answer")
    st.markdown(
        f"Give the policy two ways to write the answer that starts with **{tok}**: its own "
        f"{len(rlcore.answer_tokens(scenario, token))} tokens, or padded to {long_length}, with the same scores and "
        "half its probability each. Train on groups sampled from the policy, with each mode's step matched per "
        "token, and follow the padded version's share.")
    with st.expander("Training settings"):
        t1, t2, t3, t4 = st.columns(4)
        steps = int(inputs.slider("Steps", 10, 200, 60, 10, key="steps", where=t1))
        lr = inputs.slider("Step size η", 0.1, 5.0, 2.0, 0.1, key="lr", where=t2)
        group_size = int(inputs.slider("Group size G", 2, 32, 8, 1, key="group", where=t3))
        seed = inputs.number("Seed", 0, 9999, 0, key="seed", where=t4)
    runs = page.run(drift, scenario, token, long_length, method, budget, steps, lr, group_size, int(seed))
    step = np.arange(steps + 1)
    curves = pd.concat([pd.DataFrame({"step": step, "mode": MODE_NAMES[m], "padded share": r.long_share,
                                      "mean length": r.mean_length, "mean score": r.mean_score})
                        for m, r in zip(rlcore.AGGREGATION_MODES, runs, strict=True)], ignore_index=True)
    left, right = st.columns(2, gap="large")
    with left:
        page.chart(fit_width(charts.layer(
            charts.lines(curves, x="step", y="padded share", series="mode", colors=MODE_COLORS, y_domain=[0, 1],
                         x_title="training step", y_title="padded / (short + padded)"),
            title="Share of the padded version",
            subtitle=wrap("of the two ways to write the same answer; 32 seeded runs"),
            height=charts.HEIGHT)),
                   curves, alt_text="Share of the padded version of the answer over training, one line per mode.",
                   name="agg_share")
    with right:
        page.chart(fit_width(charts.layer(
            charts.lines(curves, x="step", y="mean length", series="mode", colors=MODE_COLORS,
                         x_title="training step", y_title="tokens"),
            title="Mean answer length", subtitle=wrap("Σ π·|o| over all the answers"), height=charts.HEIGHT)),
                   curves, alt_text="Mean answer length over training, one line per mode.", name="agg_length")
    share = {m: r.long_share[-1] for m, r in zip(rlcore.AGGREGATION_MODES, runs, strict=True)}
    verb = "wrong" if adv[i] < 0 else "right" if adv[i] > 0 else "neither right nor wrong"
    st.markdown(
        f"After {steps} steps the padded version holds **{pct(share['seq-mean-token-mean'])}** of the answer "
        f"under GRPO's seq-mean-token-mean, against {pct(share['token-mean'])} under token-mean, "
        f"{pct(share['seq-mean-token-sum'])} under seq-mean-token-sum and {pct(share['seq-mean-token-sum-norm'])} "
        f"under the -norm mode (both versions started at 50%). The answer is {verb} here (advantage "
        f"{fmt(adv[i], sign=True)}; mean score {fmt(runs[1].mean_score[0])} → {fmt(runs[1].mean_score[-1])} under "
        "GRPO). Among wrong answers GRPO keeps the padded ones, among right answers the short ones: that is the "
        "length bias, and it makes the wrong answers that remain grow longer while the score rises. "
        "seq-mean-token-sum and the -norm mode treat both versions alike, so their split only wanders with "
        "sampling noise; token-mean leans the same way as GRPO but less, since a group that holds a long answer "
        "has more tokens to share its weight.")


@st.fragment
def difficulty_panel() -> None:
    """GRPO's division by the group's std against Dr. GRPO's plain centring, for binary-scored groups."""
    st.subheader("Going further: dividing by the std favours very easy and very hard prompts")
    g = int(inputs.slider("Answers per prompt G", 2, 32, 8, 1, key="diff_g"))
    curves = {m: page.run(length.difficulty_curve, g, m) for m in ADV_NAMES}
    df = pd.concat([pd.DataFrame({"answers right": c.n_right, "method": ADV_NAMES[m],
                                  "advantage of a right answer": c.right, "multiplier": c.scale})
                    for m, c in curves.items()], ignore_index=True)
    left, right = st.columns(2, gap="large")
    with left:
        page.chart(fit_width(charts.layer(
            charts.lines(df, x="answers right", y="advantage of a right answer", series="method", colors=ADV_COLORS,
                         points=True, x_title="answers right out of G", y_title="advantage"),
            title="Advantage of a right answer", subtitle=wrap(f"a prompt with G = {g} answers scored 1 (right) or 0"),
            height=charts.HEIGHT)),
                   df, alt_text="Advantage of a right answer against how many of the group are right, for GRPO "
                                "and Dr. GRPO.", name="agg_difficulty")
    with right:
        page.chart(fit_width(charts.layer(
            charts.lines(df, x="answers right", y="multiplier", series="method", colors=ADV_COLORS, points=True,
                         x_title="answers right out of G", y_title="multiplier"),
            title="What each prompt's push is multiplied by",
            subtitle=wrap("against plain centring R − mean (GRPO: 1/std)"), height=charts.HEIGHT)),
                   df, alt_text="The factor GRPO multiplies a prompt's centred scores by, against how many answers "
                                "are right; 1 for Dr. GRPO.", name="agg_scale")
    gr, dr = curves["grpo"], curves["dr_grpo"]
    mid = (g - 1) // 2
    st.markdown(
        f"Every group here has the same gap between a right and a wrong answer (1 point); only how many are right "
        f"changes. The only right answer of a hard prompt (1 of {g}) gets {fmt(dr.right[0])} from Dr. GRPO and "
        f"{fmt(gr.right[0])} from GRPO: dividing by the group's small std multiplies it by {fmt(gr.scale[0])}. "
        f"A balanced prompt ({int(gr.n_right[mid])} of {g} right) is multiplied by only {fmt(gr.scale[mid])} "
        f"({fmt(dr.right[mid])} → {fmt(gr.right[mid])}). So, compared with plain centring, GRPO leans on the "
        "prompts the model almost always solves or almost never does, whose answers barely vary; Dr. GRPO weighs "
        "a point of score the same on every prompt.")


group_panel()
difficulty_panel()

page.show_code(length.length_push, rlcore.token_weights, rlcore.group_advantages, length.length_step,
               length.length_training, length.length_drifts, length.difficulty_curve)
page.end()
