"""TD error and GAE: which tokens of one answer get the blame for its score, and how λ spreads it."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page
from ui.colors import ACCENT, method_colors
from ui.format import axis_labels, esc, fmt, fmt_list

LAM_GRID = tuple(np.round(np.linspace(0.0, 1.0, 21), 2))  # λ values of the critic-error study
STUDY_DRAWS = 4000   # seeded draws of the judge's score and the critic's noise per λ
STUDY_SEED = 0

scenario = page.setup(
    "The judge scores a whole answer, yet the update needs a number for each of its tokens. Which tokens take "
    "the blame for a bad score, and how far back does λ spread it?",
)
page.why(
    "Follow one sampled answer and watch the model's expected score V token by token: it moves only where the "
    "decisive token is written, and the **TD error** δ records that jump. **GAE** mixes the TD errors of later "
    "tokens in with weight λ: at λ = 0 a token answers only for its own jump, at λ = 1 for everything that "
    "happened after it. Getting this right decides which words of an answer training rewrites: blame the wrong "
    "tokens and harmless words get pushed around while the real mistake stays. GRPO, on the right, has no V at "
    "all and gives every token of an answer the same number."
)
tokens = scenario.tokens

page.presets({
    "λ = 0: trust V, blame one token": {"lam": 0.0},
    "λ = 0.95: PPO's usual setting": {"lam": 0.95},
    "λ = 1: trust the final score": {"lam": 1.0},
})

@page.cached(32)
def credit(scenario, token, gamma, lam):
    trace = rlcore.answer_trace(scenario, token, gamma)
    delta = rlcore.td_errors(trace.rewards, trace.values, gamma)
    adv = rlcore.gae(trace.rewards, trace.values, gamma, lam)
    adv0 = rlcore.gae(trace.rewards, trace.values, gamma, 0.0)
    return trace, delta, adv, rlcore.credit_positions(delta), rlcore.credit_positions(adv0)


@page.cached(32)
def group(scenario, token, size, method, seed):
    return rlcore.group_credit(scenario, token, size, method, seed)


@page.cached(32)
def critic_study(scenario, token, gamma, lams, bias, noise):
    trace = rlcore.answer_trace(scenario, token, gamma)
    return rlcore.critic_error_study(trace, scenario.samples[scenario.index(token)], gamma=gamma, lams=lams,
                                     bias=bias, noise=noise, n_draws=STUDY_DRAWS, seed=STUDY_SEED)


@st.fragment
def group_panel(token: str, tok: str, strip: pd.DataFrame, words: tuple) -> None:
    """GRPO's group: its three widgets rerun this panel only."""
    g1, g2, g3 = st.columns(3)
    size = int(inputs.slider("Group size G", 1, 32, rlcore.GROUP_SIZE, 1, key="G", where=g1,
                             help="How many answers GRPO samples for the same prompt."))
    seed = inputs.number("Seed", 0, 9999, rlcore.GROUP_SEED, key="seed", where=g2,
                         help="Change it to draw another group.")
    method = inputs.selectbox("Method", rlcore.GROUP_METHODS, rlcore.GROUP_METHODS[0], key="method", where=g3,
                              help="grpo: (score − mean) / std; dr_grpo: score − mean; "
                                   "rloo: score − mean of the other answers.")
    grp = page.run(group, scenario, token, size, method, int(seed))
    order = np.argsort(grp.actions, kind="stable")
    members = pd.DataFrame({"answer": order + 1, "first token": [tokens[i] for i in grp.actions[order]],
                            "score": grp.scores[order], "advantage": grp.advantages[order]})
    members["spread"] = members.groupby("first token").cumcount()
    members["spread"] = ((members["spread"] + 0.5) / members.groupby("first token")["spread"].transform("size")
                         * 1.6 - 0.8)
    page.chart(charts.points_chart(members, x="first token", y="advantage", color="first token",
                                   title=f"The {size} answers of one group and their advantages",
                                   subtitle="each scored against its group; all its tokens share it",
                                   x_title="first token of the answer", y_title="advantage",
                                   tokens=tokens, jitter="spread"),
               members.drop(columns="spread"), alt_text="One point per sampled answer in the group, grouped by "
                                                        "its first token, at the height of its advantage.",
               name="group")
    if grp.dead:
        st.warning(f"**A dead group.** All {size} answers got the same score ({fmt(grp.scores[0])}), so "
                   "each one is exactly as good as the group's average: every advantage is 0 and this prompt "
                   "teaches the model nothing this round. GRPO needs answers that differ; a larger group or "
                   "a prompt the model sometimes gets right and sometimes wrong gives it that spread.")
    if grp.members.size:
        first = grp.members[0]
        shared = strip.assign(**{"shared advantage": grp.advantages[first]})
        page.chart(charts.answer_strip(shared, value="shared advantage",
                                       title=f"GRPO: answer {first + 1} (starts with “{token}”, score "
                                             f"{fmt(grp.scores[first])})",
                                       subtitle="one number copied onto every token",
                                       y_title="advantage", highlight="decision"),
                   shared[["position", "token", "shared advantage"]],
                   alt_text="The GRPO advantage of one answer, the same bar for every token.", name="grpo_strip")
        st.markdown(
            f"{grp.members.size} of the {size} answers start with **{tok}**; their advantages are "
            f"{fmt_list(grp.advantages[grp.members], sep=', ')}. Each one is copied onto all "
            f"{len(words)} tokens of its answer, so a harmless token after **{tok}** is pushed exactly as hard "
            f"as **{tok}** itself. Only across many answers, whose harmless parts are the same, does that "
            "extra noise average out.")
    else:
        st.info(f"No answer in this group starts with **{tok}**. Draw another group (seed) or make it larger.")


@st.fragment
def critic_panel(token: str, tok: str, gamma: float, lam: float) -> None:
    """The critic-error study: its two sliders rerun this panel only."""
    st.subheader("Going further: what λ buys when the critic is wrong")
    st.markdown(
        "Above, V is exact. A real critic is a network that guesses V, and λ decides how much the advantage "
        "leans on that guess. Give the critic an error below: a **bias** on every value after the decisive token "
        "(it misjudges where that token leads) and **noise** on every value. Over many seeded draws of the judge's "
        f"score and the critic's noise, the chart splits the error of the advantage at **{tok}** into bias² "
        "(wrong on average) and variance (different each time).")
    e1, e2 = st.columns(2)
    bias = inputs.slider("Critic bias after the decision (score points)", -3.0, 3.0, 1.0, 0.25, key="bias",
                         where=e1)
    noise = inputs.slider("Critic noise, standard deviation (score points)", 0.0, 2.0, 0.5, 0.1, key="noise",
                          where=e2)
    study = page.run(critic_study, scenario, token, gamma, LAM_GRID, bias, noise)
    here = page.run(critic_study, scenario, token, gamma, (lam,), bias, noise)
    parts = pd.DataFrame({"λ": np.tile(study.lams, 3),
                          "part": np.repeat(["bias²", "variance", "mean squared error"], study.lams.size),
                          "value": np.concatenate([study.bias_squared, study.variance, study.mse])})
    marker = pd.DataFrame({"at": [lam], "label": [f"λ = {fmt(lam)}"]})
    s1, s2 = st.columns([2, 1], gap="large")
    with s1:
        page.chart(charts.layer(charts.lines(parts, x="λ", y="value", series="part", legend_title="error part",
                                             colors=method_colors(["bias²", "variance", "mean squared error"]),
                                             x_title="λ", y_title="squared error"),
                                charts.rules(marker, at="at", label="label", axis="x", color=ACCENT,
                                             align="right" if lam > 0.8 else "left"),
                                title=f"Error of the advantage at “{token}” against λ",
                                subtitle=f"{STUDY_DRAWS} seeded draws per λ; the dashed line is your λ", height=340),
                   parts, alt_text="Bias squared, variance and mean squared error of the GAE advantage as lambda "
                                   "goes from 0 to 1.", name="critic_error")
    with s2:
        st.metric(f"Mean squared error at λ = {fmt(lam)}", fmt(here.mse[0], 3))
        st.metric("bias² / variance", f"{fmt(here.bias_squared[0], 3)} / {fmt(here.variance[0], 3)}")
        st.metric("λ with the smallest error for this critic", fmt(study.best_lam))
    st.markdown(
        f"At λ = 0 the advantage is one TD error, built from the critic's own guesses: it is off by "
        f"{fmt(study.bias[0], sign=True)} on average and its variance ({fmt(study.variance[0], 3)}) is only the "
        f"critic's noise. At λ = 1 the critic's guesses after **{tok}** cancel out and the bias is "
        f"{fmt(study.bias[-1], sign=True)}, but the estimate now carries the whole spread of the judge's scores, "
        f"plus the critic's noise at **{tok}** itself (variance {fmt(study.variance[-1], 3)}). "
        f"For this critic the best compromise is λ = {fmt(study.best_lam)}. "
        "Set the bias to 0 and the noise to 0 and λ = 0 wins outright; that is the article's idealised case.")


def ask(words, a: int, tok: str, delta, blamed0) -> bool:
    """Predict first: at λ = 0, which tokens of the answer get a non-zero advantage?"""
    options = list(dict.fromkeys([f"only {tok}", ", ".join(esc(w) for w in words[:a + 1]),
                                  "every token of the answer", "no token"]))
    answer = ("no token" if blamed0.size == 0 else "every token of the answer" if blamed0.size == len(words)
              else f"only {tok}" if blamed0.tolist() == [a] else ", ".join(esc(words[i]) for i in blamed0))
    if answer not in options:
        options.append(answer)
    return page.predict(
        "At λ = 0, which tokens get blamed (or credited)?", options, answer,
        f"With λ = 0 each token keeps its own TD error and nothing else, so only the tokens where V jumps get a "
        f"non-zero advantage: here {answer}, with {fmt(delta[a], sign=True)} at **{tok}**.",
        key="predict_gae")


@st.fragment
def answer_panel() -> None:
    """The first token, λ and γ feed every section below them: moving one reruns this panel only."""
    question = st.container()  # the question sits above the inputs it depends on
    c1, c2, c3 = st.columns([2, 2, 1], vertical_alignment="bottom")
    token = inputs.selectbox("First token the model sampled", tokens, tokens[int(np.argmax(scenario.pi))],
                             key="tok", where=c1, help="The answer below starts with the prefix, this token, and "
                                                       "the continuation written for it in the sidebar.")
    lam = inputs.slider("λ (GAE mixing weight)", 0.0, 1.0, 0.95, 0.05, key="lam", where=c2,
                        help=glossary.term("λ"))
    with c3.expander("More settings"):
        gamma = inputs.slider("γ (discount per token)", 0.5, 1.0, 1.0, 0.01, key="gamma",
                              help="1 counts the final score in full at every token; below 1 earlier tokens see "
                                   "less of it.")

    trace, delta, adv, jump_at, blamed0 = page.run(credit, scenario, token, gamma, lam)
    a = trace.action_index
    words = trace.tokens
    tok = esc(token)
    with question:
        revealed = ask(words, a, tok, delta, blamed0)
    strip = pd.DataFrame({
        "position": np.arange(1, len(words) + 1), "label": axis_labels(words), "token": list(words),
        "V before": trace.values[:-1], "reward": trace.rewards, "V after": trace.values[1:],
        "TD error": delta, "GAE advantage": adv, "decision": np.arange(len(words)) == a,
    })

    left, right = st.columns(2, gap="large")
    with left:
        st.markdown("**With a critic (PPO): one advantage per token.** The answer: "
                    + " · ".join(f"**{esc(w)}**" if i == a else esc(w) for i, w in enumerate(words))
                    + f" — judge score {fmt(trace.score)}")
        if revealed:
            page.chart(charts.answer_strip(strip, value="TD error", line="V before", line_title="V before the token",
                                           title="V before each token (line) and its TD error δ (bars)",
                                           subtitle="δ = reward + γ·V(next) − V(now); the decision token is "
                                                    "highlighted",
                                           y_title="score points", highlight="decision"),
                       strip, alt_text="Expected score V before each token of the answer, with the TD error of each "
                                       "token as bars; only the decision token has a non-zero TD error.",
                       name="td_error")
        else:
            shown = strip[["position", "label", "token", "V before", "decision"]]
            page.chart(charts.answer_strip(shown, value="V before", title="V before each token",
                                           subtitle="the expected score as the answer is written",
                                           y_title="expected score V", highlight="decision"),
                       shown, alt_text="Expected score V before each token of the answer.", name="td_error")
            st.caption("The TD errors, the advantages and the sums behind them appear once you answer the question.")
        if revealed:
            page.chart(charts.answer_strip(strip, value="GAE advantage",
                                           title=f"GAE advantage per token, λ = {fmt(lam)}",
                                           subtitle="Â = δ + γλ·Â(next): each step back keeps a share γλ of what "
                                                    "follows",
                                           y_title="advantage", highlight="decision"),
                       strip, alt_text=f"GAE advantage of every token of the answer at lambda {fmt(lam)}.", name="gae")
            m1, m2 = st.columns(2)
            m1.metric(f"V before “{tok}”", fmt(trace.values[a]))
            m2.metric(f"V after “{tok}”", fmt(trace.values[a + 1]))
            m3, m4 = st.columns(2)
            m3.metric(f"TD error at “{tok}”", fmt(delta[a], sign=True))
            m4.metric(f"Advantage of “{esc(words[0])}”", fmt(adv[0], sign=True), help=f"GAE at λ = {fmt(lam)}")
            moved = ", ".join(f"**{esc(words[i])}**" for i in jump_at) or "no token"
            after = fmt_list(adv[a + 1:]) if a + 1 < len(words) else "nothing"
            jump = (f"V drops or rises only where the outcome is decided: the TD error is non-zero at {moved} "
                    f"({fmt(delta[a], sign=True)} at **{tok}**) and zero at every other token, because once **{tok}** "
                    f"is written the rest of the answer changes nothing the model did not already expect. "
                    if jump_at.size else
                    f"Here V never moves: **{tok}** leads to exactly the score the model expected anyway, so every TD "
                    "error is 0 and no token is blamed or credited. ")
            st.markdown(
                jump +
                f"At λ = {fmt(lam)} the tokens before it get {fmt_list(adv[:a]) if a else 'nothing'} and the tokens "
                f"after it get {after}."
                + (f" Slide λ from 0 to 1 and watch the {'blame' if delta[a] < 0 else 'credit'} spread back from "
                   f"**{tok}** to every token that came before it." if jump_at.size else ""))

    with right:
        st.markdown("**Without a critic (GRPO): one advantage per answer.**")
        group_panel(token, tok, strip, words)

    critic_panel(token, tok, gamma, lam)


answer_panel()

page.show_code(rlcore.answer_trace, rlcore.td_errors, rlcore.gae, rlcore.group_credit, rlcore.group_advantages,
               rlcore.critic_error_study)
page.end()
