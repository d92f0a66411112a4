"""Home page: the running example, the RL loop, the quick reference and the map of every page."""

import pandas as pd
import streamlit as st

import rlcore
from ui import charts, nav, page
from ui.format import breakable, esc, fmt, fmt_list, pct

scenario = page.setup(
    "A judge gives a finished answer **one number**; training has to decide, for **every token**, whether to "
    "make it more or less likely. Follow one small example through each reinforcement-learning term that "
    "bridges that gap.",
)
page.why(
    "Post-training methods such as PPO and GRPO are built from a handful of ideas (reward, return, value, "
    "advantage, baseline, clipping, KL) that are easy to name and hard to picture. Here each one is computed "
    "live on the same tiny example, so you can see what it does to the numbers. Edit the example in the "
    "sidebar (tokens, probabilities, judge scores) and every page recomputes.")
s = page.run(rlcore.summarize, scenario)
tokens = scenario.tokens
likely, best = breakable(tokens[s.likely]), breakable(tokens[s.best])  # escaped, and a long name wraps on a phone
prompt, prefix = esc(scenario.prompt), esc(scenario.prefix)

left, right = st.columns([3, 2], gap="large")
with left:
    st.subheader(f"“{prompt}”")
    table = pd.DataFrame({"token": tokens, "probability": scenario.probs, "mean judge score (Q)": s.q,
                          "answer": [rlcore.answer_text(scenario, t) for t in tokens]})
    page.chart(charts.token_bars(table, value="probability", title="The policy: π(next token)",
                                 subtitle=f"after “{scenario.prefix}”", value_title="probability", tokens=tokens,
                                 domain=[0, 1]), table,
               alt_text="Bar chart of the probability of each candidate next token", name="policy")
    st.markdown(f"The model has written **{prefix}** and now picks the next token. Its policy gives each "
                "candidate a probability; the judge's average score for answers that start with it is that "
                "token's Q.")
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={"probability": st.column_config.NumberColumn(format="%.3f"),
                                "mean judge score (Q)": st.column_config.NumberColumn(format="%.2f")})
with right:
    st.subheader("One round of the loop")
    # edges and their label in mid grey: 3.4:1 on white and 5.6:1 on the dark theme (black vanished there)
    st.graphviz_chart("""
digraph loop {
  rankdir=TB; bgcolor="transparent";
  node [shape=box, style="rounded,filled", fillcolor="#F2F2F2", fontcolor="#1A1A1A", color="#8C8C8C",
        fontname="Helvetica", fontsize=12];
  edge [fontname="Helvetica", fontsize=11, color="#8C8C8C", fontcolor="#8C8C8C", penwidth=1.5];
  prompt [label="Environment gives a prompt"];
  write  [label="Policy writes an answer\\n(one token = one action)"];
  judge  [label="Judge scores the whole answer"];
  credit [label="Credit: advantage per token\\n(baseline, TD error, GAE, group)"];
  update [label="Update the policy\\n(gradient, clipping, KL)"];
  prompt -> write -> judge -> credit -> update;
  update -> prompt [label="next round", style=dashed];
}
""")

st.subheader("The judge gives one score: which tokens get the credit?")
adv_text = ", ".join(f"{esc(t)} {fmt(a, sign=True)}" for t, a in zip(tokens, s.advantage, strict=True))
st.markdown(
    f"Every answer that starts with **{likely}** also starts with “{prefix}”, so the return "
    f"alone (it is {fmt(s.answer_score)} at every token of such an answer) cannot tell tokens apart. "
    f"What separates them is where the *expected* score changes. Before the choice the model expects "
    f"V = {fmt(s.v)}; right after writing **{likely}** it expects Q = {fmt(s.q[s.likely])}. That jump, "
    f"the TD error δ = {fmt(s.td_at_action, sign=True)}, lands on **{likely}** and on no other token. "
    f"Each candidate's advantage A = Q − V ({adv_text}) "
    f"then tells the update which way to push it: after one policy-gradient step the probabilities "
    f"go from {fmt_list(scenario.probs)} to {fmt_list(s.probs_after_step)}, and V rises to {fmt(s.v_after_step)}."
)

st.subheader("Quick reference")
group_text = (f"{fmt_list(s.group_likely, sep=', ')} for the {s.group_likely.size} {likely} answers in a group "
              f"of {rlcore.GROUP_SIZE}" if s.group_likely.size else
              f"no {likely} answer in a group of {rlcore.GROUP_SIZE}")
rows = [
    ("Policy π", "The model's probability for each next token", f"π({likely}) = {fmt(scenario.probs[s.likely])}",
     "pages/1_Loop_state_action.py"),
    ("State", "The prompt plus every token written so far", f"“{prompt}” + “{prefix}”",
     "pages/1_Loop_state_action.py"),
    ("Action", "The next token the policy samples", " / ".join(breakable(t) for t in tokens),
     "pages/1_Loop_state_action.py"),
    ("Reward", "Score per token: zero until the last token, which gets the judge's score",
     f"{fmt(s.answer_score)} on the last of {len(s.answer_tokens)} tokens", "pages/2_Reward_and_return.py"),
    ("Return G", "Sum of the rewards from a token to the end (γ = 1)", f"{fmt(s.answer_score)} at every token",
     "pages/2_Reward_and_return.py"),
    ("Value V", "Expected score from a state, before choosing", fmt(s.v), "pages/3_Value_Q_advantage.py"),
    ("Q", "Expected score after writing a given token", fmt_list(s.q), "pages/3_Value_Q_advantage.py"),
    ("Advantage A", "Q − V: better or worse than usual", " / ".join(fmt(a, sign=True) for a in s.advantage),
     "pages/3_Value_Q_advantage.py"),
    ("Baseline", "Subtracted from each score to cut the noise, not the direction",
     f"variance × {fmt(s.variance_ratio, 3)} with b = V", "pages/4_Baseline_and_variance.py"),
    ("TD error δ", "r + V(next) − V(now): where the expected score moves",
     f"{fmt(s.td_at_action, sign=True)} at {likely}",
     "pages/5_TD_error_and_GAE.py"),
    ("GAE", "Blend of TD errors, λ between 0 (trust V) and 1 (trust the score)",
     f"{fmt(s.gae_first_token, sign=True)} on the first token at λ = 0.95", "pages/5_TD_error_and_GAE.py"),
    ("Group baseline (GRPO)", "Each answer's score minus the mean of its group's scores, divided by their spread",
     group_text, "pages/5_TD_error_and_GAE.py"),
    ("Policy gradient", "Move each logit by π·A", f"after one step: {fmt_list(s.probs_after_step)}",
     "pages/6_Policy_gradient.py"),
    ("Exploration", "Sampling sometimes tries less likely tokens",
     f"{pct(s.discover_best_10)} chance to see {best} in 10 samples", "pages/7_Exploration.py"),
    ("Ratio & clipping", "ρ = π/π_old; no gradient once ρ leaves [1 − ε, 1 + ε]",
     f"π({best}) stays within {fmt(s.clip_range_best[0])}–{fmt(s.clip_range_best[1])} on one batch",
     "pages/8_Ratio_and_clipping.py"),
    ("KL penalty", "β·KL(π‖π_ref) keeps the policy near the reference",
     f"KL = {fmt(s.kl_flattery_90)} at 90% flattery", "pages/8_KL_penalty.py"),
]


# three columns, so the table fits a phone; the page of each term is in the map below
st.markdown("| Term | What it means | In this example |\n|---|---|---|\n" + "\n".join(
    f"| **{term}** | {meaning} | {value} |" for term, meaning, value, _ in rows))

st.subheader("Every page")
targets = [p for p in nav.PAGES if p is not nav.HOME]  # every page of the map, the lab and the glossary too
for start in range(0, len(targets), 4):
    for col, target in zip(st.columns(4), targets[start:start + 4], strict=False):
        col.page_link(target.path, label=target.title, icon=target.icon)

page.end()
