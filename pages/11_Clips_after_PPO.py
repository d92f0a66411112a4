"""Clips after PPO: once one step has moved the policy, which answers does each clip still let the batch push?"""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from rlcore import clips
from ui import charts, inputs, page
from ui.charts import answer_labels, fit_width, grouped_bars
from ui.colors import ACCENT, method_colors
from ui.format import esc, fmt, fmt_list, wrap

NAMES = {"ppo": "PPO, symmetric ε", "clip-higher": "clip-higher (DAPO)", "cispo": "CISPO", "gspo": "GSPO"}
METHOD_OF = {"ppo": "ppo", "clip-higher": "dapo", "cispo": "cispo", "gspo": "gspo"}  # whose colour each clip takes
COLORS = method_colors({NAMES[m]: METHOD_OF[m] for m in clips.CLIP_METHODS})
GSPO_RANGES = (0.0004, 0.004, 0.04, 0.2)  # GSPO's ε_high choices; the paper uses 4e-4 (ε_low = ¾ of it)
RARE_OLDS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99)  # π_old choices, dense near 0
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
REACH_GRID = tuple(np.round(np.linspace(0.0, 1.0, 201), 4))  # π_old values of the reach curve

scenario = page.setup(
    "PPO reuses one batch of answers for several update steps, and its clip stops pushing a token once the "
    "policy has moved it far enough. After one step, which answers does the batch still push, and which "
    "does it drop? PPO, DAPO's clip-higher, CISPO and GSPO each answer differently.",
)
tokens = scenario.tokens

page.why(
    "PPO's clip is symmetric in the *ratio* ρ = π/π_old, not in the probability: a token at 1% may rise "
    "to 1.2%, a token at 90% may rise to 100%. So once a batch has moved the policy a little, the rare "
    "tokens stop learning first. DAPO widens the upper side (ε_high = 0.28) to give them more room; "
    "CISPO never drops a token's gradient, it only caps its weight; GSPO forms one ratio per answer "
    "instead of one per token, and clips whole answers.")

page.presets({
    "Small step": {"lr": 0.1},
    "Clip-higher helps": {"lr": 0.2, "high": 0.28},
    "Big step": {"lr": 0.6},
    "Rare token at 0.01": {"rare": 0.01},
})


@page.cached(32)
def batch(scenario, lr, eps_low, eps_high, gspo_high, method):
    lengths = [len(rlcore.answer_tokens(scenario, t)) for t in scenario.tokens]
    return clips.clip_batch(scenario.pi, scenario.samples, lengths, lr=lr, eps_low=eps_low, eps_high=eps_high,
                            gspo_eps=(0.75 * gspo_high, gspo_high), method=method)


@st.fragment
def batch_panel() -> None:
    """The step size and the clip range drive everything in this panel."""
    c1, c2 = st.columns(2)
    lr = inputs.slider("Size of the step already taken (η)", 0.0, 1.5, 0.2, 0.01, key="lr", where=c1,
                       help="One exact policy-gradient step z ← z + η·π·(Q − V) from π_old: the policy the "
                            "next update step sees.")
    eps_high = inputs.slider("Upper clip ε_high (DAPO: 0.28)", 0.05, 0.6, 0.28, 0.01, key="high", where=c2,
                             help="Used by clip-higher and CISPO; PPO's symmetric clip uses ε_low.")
    with st.expander("More settings"):
        m1, m2, m3 = st.columns(3)
        eps_low = inputs.slider("Lower clip ε_low (PPO's ε)", 0.05, 0.5, 0.2, 0.01, key="low", where=m1)
        gspo_high = inputs.select_slider("GSPO's ε_high (paper 0.0004)", GSPO_RANGES, GSPO_RANGES[0], key="gspo",
                                         where=m2, help="GSPO's ε_low is ¾ of it, as in the paper.")
        method = inputs.selectbox("Advantage", rlcore.GROUP_METHODS, rlcore.GROUP_METHODS[0], key="adv", where=m3,
                                  help="How the batch's scores become advantages (the batch is one group).")

    b = page.run(batch, scenario, lr, eps_low, eps_high, gspo_high, method)
    n = b.actions.size
    best = int(np.argmax(b.advantages))
    tok = esc(tokens[b.actions[best]])
    dead = bool(np.all(b.advantages == 0))
    if dead:
        st.info("Every sampled answer has the same score, so every advantage is 0: there is nothing for a clip "
                "to stop. Give the answers different scores in the sidebar.", icon="ℹ️")
        revealed = False  # no question to answer, and nothing for the explanation to say
    else:
        sym, higher = b.clipped[0, best], b.clipped[1, best]
        answer = ("neither: both have stopped it" if sym and higher else "only clip-higher" if sym
                  else "only the symmetric clip" if higher else "both still push it")
        options = ["both still push it", "only clip-higher", "neither: both have stopped it"]
        if answer not in options:
            options.append(answer)
        revealed = page.predict(
            f"The batch's best answer starts with **{tok}** (score {fmt(b.scores[best])}, π_old = "
            f"{fmt(b.p_old[b.actions[best]], 3)}). After a step of η = {fmt(lr)}, does PPO's symmetric clip "
            f"(ε = {fmt(eps_low)}) still push it up, and does clip-higher (ε_high = {fmt(eps_high)})?",
            options, answer,
            f"The step moved π({tok}) from {fmt(b.p_old[b.actions[best]], 3)} to {fmt(b.p_new[b.actions[best]], 3)}: "
            f"ρ = {fmt(b.ratio[best], 3)}. A positive advantage keeps its gradient while ρ ≤ 1 + ε, that is up "
            f"to {fmt(1 + eps_low)} for the symmetric clip and {fmt(1 + eps_high)} for clip-higher.",
            key="predict_clip")

    answer_label = answer_labels(tokens, b.actions)
    rows = pd.DataFrame({
        "answer": np.repeat(answer_label, len(clips.CLIP_METHODS)),
        "first token": np.repeat([tokens[a] for a in b.actions], len(clips.CLIP_METHODS)),
        "score": np.repeat(b.scores, len(clips.CLIP_METHODS)),
        "advantage": np.repeat(b.advantages, len(clips.CLIP_METHODS)),
        "token ratio ρ": np.repeat(b.ratio, len(clips.CLIP_METHODS)),
        "answer ratio s": np.repeat(b.seq_ratio, len(clips.CLIP_METHODS)),
        "method": np.tile([NAMES[m] for m in clips.CLIP_METHODS], n),
        "gradient weight": b.weights.T.ravel(),
        "clipped": b.clipped.T.ravel(),
    })
    left, right = st.columns(2, gap="large")
    with left:
        page.chart(fit_width(grouped_bars(rows, x="answer", y="gradient weight", group="method", colors=COLORS,
                                title="What each method still pushes, answer by answer",
                                subtitle=wrap("weight on ∇log π of the first token; 0 where the clip stopped it"),
                                x_title="sampled answer (first token #)", y_title="gradient weight",
                                tooltips=("advantage", "token ratio ρ", "answer ratio s"))),
                   rows, alt_text="For each sampled answer, the gradient weight its first token keeps under PPO, "
                                  "clip-higher, CISPO and GSPO after one update step.", name="clip_weights")
    points = rows[rows["method"] == NAMES["ppo"]].drop(columns=["method", "gradient weight", "clipped"])
    bounds = pd.DataFrame({"at": [1 - eps_low, 1 + eps_low, 1 + eps_high], "label": ["", "", ""]})  # in the subtitle
    with right:
        page.chart(charts.layer(
            charts.points_chart(points, x="token ratio ρ", y="advantage", color="first token", tokens=tokens,
                                x_type="Q", title="Each answer's ratio and advantage",
                                subtitle=wrap(f"dashed: {fmt(1 - eps_low)}, {fmt(1 + eps_low)} and "
                                              f"{fmt(1 + eps_high)}; PPO drops a point right of 1 + ε above 0, "
                                              "or left of 1 − ε below 0"),
                                x_title="ratio ρ = π / π_old of its first token", y_title="advantage", height=280),
            charts.rules(bounds, at="at", label="label", axis="x", color=ACCENT)),
            points, alt_text="One point per sampled answer: the ratio of its first token against its advantage, "
                             "with the clip bounds as vertical lines.", name="clip_ratios")

    if revealed:
        explain(b, lr, eps_low, eps_high, gspo_high)
    else:
        inputs.later("cispo_rho")  # the explanation's input: a link's value waits for the answer
    rare_section(eps_low, eps_high)


def explain(b, lr: float, eps_low: float, eps_high: float, gspo_high: float) -> None:
    """What each method did to the batch, in numbers (shown once the prediction is made)."""
    n = b.actions.size
    kept = n - b.clipped.sum(axis=1)
    m = st.columns(4)
    for col, name, k in zip(m, clips.CLIP_METHODS, kept, strict=True):
        col.metric(NAMES[name], f"{int(k)} of {n} kept")
    lengths = ", ".join(f"{esc(t)} {int(b.lengths[np.flatnonzero(b.actions == i)[0]])}"
                        for i, t in enumerate(tokens) if np.any(b.actions == i))
    st.markdown(
        f"One step of η = {fmt(lr)} moved the first-token probabilities from {fmt_list(b.p_old, 3)} to "
        f"{fmt_list(b.p_new, 3)} ({', '.join(esc(t) for t in tokens)}). Of the batch's {n} answers, PPO's "
        f"symmetric clip keeps **{int(kept[0])}**, clip-higher **{int(kept[1])}**, CISPO **{int(kept[2])}** "
        f"and GSPO **{int(kept[3])}**.\n\n"
        f"- **PPO** drops an answer once its ratio has moved past 1 ± {fmt(eps_low)} in the direction its advantage "
        "pushes: the batch has already done its share for that token.\n"
        f"- **Clip-higher** only moves the upper bound to 1 + {fmt(eps_high)}: good answers get more room, "
        "bad ones are stopped exactly as before.\n"
        f"- **CISPO** never drops one: it caps the *weight* at clip(ρ, {fmt(1 - eps_low)}, {fmt(1 + eps_high)}) "
        "and keeps the gradient, so even an answer far outside the range still teaches.\n"
        f"- **GSPO** uses one ratio per answer, the geometric mean of its token ratios. Here only the first token "
        f"moved, so s = ρ^(1/|o|) with |o| = {lengths} tokens: s ranges over "
        f"{fmt(b.seq_ratio.min(), 4)} to {fmt(b.seq_ratio.max(), 4)}, much closer to 1 than ρ. That is why its "
        f"range is so narrow (ε_high = {fmt(gspo_high, 4)}); every token of an answer shares its fate.")
    worked_numbers(b, eps_low, eps_high)


def worked_numbers(b, eps_low: float, eps_high: float) -> None:
    """GSPO's mean over an answer whose every token moved, and CISPO's weight at a ratio the learner picks."""
    st.markdown("**Worked numbers**")
    live = np.flatnonzero((b.p_old > 0) & (b.p_new > 0))  # the tokens an answer can still write
    rho = page.run(rlcore.importance_ratio, b.p_new[live], b.p_old[live])
    s = page.run(rlcore.sequence_ratio, [np.log(b.p_new[live])], [np.log(b.p_old[live])], [np.ones(live.size)])[0]
    moved = ", ".join(f"{esc(tokens[i])} {fmt(r, 3)}" for i, r in zip(live, rho, strict=True))
    left, right = st.columns(2, gap="large")
    left.markdown(
        f"**GSPO, several tokens moved.** Take an answer that writes each of the {live.size} tokens once, so every "
        f"one of its tokens moved in this step: their ratios are {moved}. GSPO's ratio for the whole answer is "
        f"their geometric mean, s = (ρ₁·…·ρ{str(live.size).translate(SUBSCRIPTS)})^(1/{live.size}) = "
        f"**{fmt(s, 4)}**: one number between the "
        "smallest and the largest ρ, shared by every token, and it is s that GSPO clips.")
    r = inputs.number("CISPO: a token's ratio ρ", 0.0, 3.0, 1.3, step=0.05, key="cispo_rho", where=right)
    w = page.run(rlcore.gradient_weights, [r], 1.0, "cispo", eps_low, eps_high)[0]
    cap = (f"the upper cap 1 + ε_high = {fmt(1 + eps_high)} applies" if w < r
           else f"the lower cap 1 − ε_low = {fmt(1 - eps_low)} applies" if w > r
           else f"no cap applies: ρ lies inside [{fmt(1 - eps_low)}, {fmt(1 + eps_high)}]")
    right.markdown(
        f"**CISPO at ρ = {fmt(r)}** with ε_low = {fmt(eps_low)} and ε_high = {fmt(eps_high)}: {cap}, so the token's "
        f"gradient is weighted **{fmt(w, 3)}** × its advantage, whatever the advantage's sign (PPO's weight, for a "
        f"positive advantage: {fmt(page.run(rlcore.gradient_weights, [r], 1.0, 'ppo', eps_low, eps_high)[0], 3)}).")


def rare_section(eps_low: float, eps_high: float) -> None:
    """How far one batch can push a token up, against its π_old: the rare-token case."""
    st.subheader("Going further: the rare token")
    c1, c2 = st.columns(2)
    p = inputs.select_slider("π_old of a token", RARE_OLDS, 0.01, key="rare", where=c1)
    c2.caption(f"Clip ranges from the settings above: ε = {fmt(eps_low)}, ε_high = {fmt(eps_high)}.")
    sym = page.run(clips.reach, [p], eps_low)
    hi = page.run(clips.reach, [p], eps_low, eps_high)
    likely = page.run(clips.reach, [0.9], eps_low)
    m1, m2, m3 = st.columns(3)
    m1.metric(f"Highest, ε = {fmt(eps_low)}", fmt(sym.high[0], 4), delta=f"+{fmt(sym.rise[0], 4)}")
    m2.metric(f"Highest, ε_high = {fmt(eps_high)}", fmt(hi.high[0], 4), delta=f"+{fmt(hi.rise[0], 4)}")
    m3.metric("A likely token (0.9) reaches", fmt(likely.high[0], 4), delta=f"+{fmt(likely.rise[0], 4)}")
    grid_sym = page.run(clips.reach, REACH_GRID, eps_low)
    grid_hi = page.run(clips.reach, REACH_GRID, eps_low, eps_high)
    curve = pd.concat([pd.DataFrame({"π_old": REACH_GRID, "largest rise": grid_sym.rise,
                                     "clip": f"symmetric ε = {fmt(eps_low)}"}),
                       pd.DataFrame({"π_old": REACH_GRID, "largest rise": grid_hi.rise,
                                     "clip": f"ε_high = {fmt(eps_high)}"})], ignore_index=True)
    live = np.flatnonzero(scenario.pi > 0)
    olds = np.r_[scenario.pi[live], p]
    marks = pd.DataFrame({"π_old": olds, "largest rise": page.run(clips.reach, olds, eps_low).rise,
                          "clip": f"symmetric ε = {fmt(eps_low)}", "label": [*(tokens[i] for i in live), "yours"]})
    clip_colors = method_colors({f"symmetric ε = {fmt(eps_low)}": "ppo", f"ε_high = {fmt(eps_high)}": "dapo"})
    page.chart(fit_width(charts.layer(
        charts.lines(curve, x="π_old", y="largest rise", series="clip", colors=clip_colors, legend_title="clip",
                     x_title="π_old of the token", y_title="largest rise in probability"),
        charts.labelled_points(marks, x="π_old", y="largest rise", series="clip", label="label", colors=clip_colors,
                               beside=True,  # under the curves: the clip-higher line runs just above the points
                               x_title="π_old of the token", y_title="largest rise in probability"),
        title="How much probability one batch can add to a token",
        subtitle=wrap("points: the scenario's tokens and yours, under the symmetric clip"), height=charts.HEIGHT)),
        curve, alt_text="The largest rise in probability one batch allows, against the token's old probability, "
                        "for the symmetric clip and for clip-higher.", name="clip_reach")
    st.markdown(
        f"A token at π_old = {fmt(p, 3)} can rise to **{fmt(sym.high[0], 4)}** in one batch under ε = "
        f"{fmt(eps_low)}, and to **{fmt(hi.high[0], 4)}** with ε_high = {fmt(eps_high)}; a token at 0.9 may rise "
        f"to {fmt(likely.high[0], 4)}. The clip is fair in ratio but not in probability: the rare token, "
        "often the one that starts a new line of reasoning, gains almost nothing per batch, while the likely "
        "one can take all that is left. Over many batches this concentrates the policy on what it already "
        "prefers (its entropy collapses); DAPO's larger ε_high is the cheap fix.")


batch_panel()

page.show_code(clips.clip_batch, clips.reach, rlcore.gradient_weights, rlcore.sequence_ratio,
               rlcore.policy_gradient_step)
page.end()
