"""Loop, state and action: the policy writes one answer, token by token, until the judge scores it."""

import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page
from ui.format import esc, fmt, fmt_list, pct

STEPS, RUN_FOR = "loop_steps", "loop_steps_for"  # the steps taken so far, and the (scenario, seed) they belong to
JUDGE_TEXT = "judge_text"
MAX_JUDGE_CHARS = 2000

scenario = page.setup(
    "Inside one answer the model turns a small loop once per token: it reads the **state** (the prompt and "
    "what it has written so far), draws an **action** (the next token) from its **policy** π, and the state "
    "grows by that token. How much does the sampling temperature change what it draws?",
)
page.why(
    "The chain of states and actions is the **trajectory**, and the judge scores it only once it is finished. "
    "Every later page works on this loop: the reward arrives at its end, and training has to decide which of "
    "its steps deserve the credit. The temperature τ is how an RL run makes the policy explore: it changes how "
    "the model samples, not the model itself.")
tokens = scenario.tokens

page.presets({"τ = 0.1": {"temp": 0.1}, "τ = 1": {"temp": 1.0}, "τ = 2.5": {"temp": 2.5}})

rare, rare_before, rare_after = page.run(rlcore.rarest_token_shift, scenario.pi, 2.0)
better = "More likely" if rare_after > rare_before else "Less likely" if rare_after < rare_before else "No change"
page.predict(
    f"Raise the temperature from 1 to 2. Does the rarest token, “{esc(tokens[rare])}”, become more or less likely?",
    ["More likely", "Less likely", "No change"], better,
    f"It goes from {pct(rare_before, 1)} to {pct(rare_after, 1)}. Dividing the log-probabilities by τ = 2 "
    "halves the gaps between them, so probability drains from the favourite towards the rare tokens "
    "(when every token is equally likely there is nothing to even out). That is why sampling hotter "
    "explores more. Set τ = 2 below to see it.",
    key="predict_temperature",
)


def sample_next(current: rlcore.Scenario) -> None:
    """Button callback: draw the next token (the k-th draw of this seed) and keep the step."""
    taken = st.session_state.get(STEPS, [])
    seed = int(inputs.value("seed"))
    if st.session_state.get(RUN_FOR) != (current, seed):
        return
    if taken and taken[-1].done:
        return
    taken.append(rlcore.next_step(current, [s.action for s in taken], seed, float(inputs.value("temp"))))


def restart() -> None:
    st.session_state[STEPS] = []


@st.fragment
def loop_panel() -> None:
    """The temperature, the steps and the charts: moving them reruns this panel only, not the page."""
    c1, c2, c3 = st.columns([3, 1.3, 1], vertical_alignment="bottom")
    tau = inputs.slider("Sampling temperature τ", 0.1, 3.0, 1.0, 0.1, key="temp", where=c1,
                        help=glossary.term("τ"))
    with st.expander("More settings"):
        seed = int(inputs.number("Random seed", 0, 999_999, 0, key="seed",
                                 help="The k-th draw of a seed is always the same; a new seed starts a new answer."))

    # The steps taken so far live in the session; a new scenario or seed starts a fresh answer.
    if st.session_state.get(RUN_FOR) != (scenario, seed):
        st.session_state[RUN_FOR] = (scenario, seed)
        st.session_state[STEPS] = []
    steps: list = st.session_state[STEPS]
    written = [s.action for s in steps]
    finished = bool(steps) and steps[-1].done

    c2.button("Sample next token", key="sample", type="primary", on_click=sample_next, args=(scenario,),
              disabled=finished, width="stretch")
    c3.button("Restart", key="restart", on_click=restart, width="stretch")

    # One call into rlcore: the policy at the next step (or, once finished, the view of the decision).
    decision = page.run(rlcore.next_step, scenario, [], seed, tau)
    upcoming = None if finished else page.run(rlcore.next_step, scenario, written, seed, tau)

    left, right = st.columns([4, 7], gap="large")
    with right:
        base = pd.DataFrame({"token": tokens, "probability": decision.base_probs})
        hot = pd.DataFrame({"token": tokens, "probability": decision.probs})
        chosen_note = f"drawn: {steps[0].action}" if steps else "nothing drawn yet"
        both = pd.DataFrame({"token": tokens, "probability as trained (τ = 1)": decision.base_probs,
                             f"probability when sampling (τ = {fmt(tau)})": decision.probs}).round(6)
        # two charts that each take their column's width; Streamlit stacks the columns on a phone
        p1, p2 = st.columns(2)
        with p1:
            page.chart(charts.token_bars(base, value="probability", title="The policy π as trained",
                                         subtitle="τ = 1", value_title="probability",
                                         tokens=tokens, domain=[0, 1], height=280),
                       base.round(6), name="policy_trained",
                       alt_text="Bar chart of the probability of each candidate next token after the prefix, at "
                                "temperature 1.")
        with p2:
            page.chart(charts.token_bars(hot, value="probability", title="What sampling draws from",
                                         subtitle=f"τ = {fmt(tau)}; {chosen_note}",
                                         value_title="probability", tokens=tokens, domain=[0, 1],
                                         height=280),
                       both, name="policy_at_temperature",
                       alt_text=f"Bar chart of the probability of each candidate next token after the prefix at "
                                f"temperature {fmt(tau)}, the distribution sampling draws from.")
        st.caption("The decision after the prefix is the only real choice in this example, so both charts "
                   "show it. Temperature divides the log-probabilities by τ before they are turned back into "
                   "probabilities.")

    with left:
        st.subheader(f"State after {len(steps)} step{'s' if len(steps) != 1 else ''}")
        st.code(f"{scenario.prompt}\n{rlcore.join_tokens([*decision.state, *written])}", language=None,
                wrap_lines=True)
        st.caption("What the model sees before it writes the next token: the prompt, then the answer so far.")
        if not steps:
            st.markdown(f"The model has written “{esc(scenario.prefix)}” and must now **choose** among "
                        f"{len(tokens)} tokens. Press **Sample next token**.")
        if steps:
            first = steps[0]
            st.metric("Action at step 0", esc(first.action),
                      f"probability {pct(first.action_prob, 1)} at τ = {fmt(first.temperature)}",
                      delta_color="off", delta_arrow="off")
        if upcoming is not None and upcoming.k > 0:
            st.markdown(f"**Next token:** “{esc(upcoming.candidates[0])}”, with probability 1. To keep the "
                        "example small, once the first token is chosen the answer goes on with that token's "
                        "continuation and nothing else; a real model would again spread its probability over "
                        "thousands of candidates at every step.")
        if finished:
            last = steps[-1]
            chosen = scenario.index(steps[0].action)
            whole = rlcore.answer_tokens(scenario, steps[0].action)  # the answer the Reward page follows
            st.metric("Judge's score", fmt(last.score))
            st.markdown(
                f"The finished answer has **{len(whole)} tokens**: the {len(whole) - len(steps)} of the prefix "
                f"“{esc(scenario.prefix)}” and the {len(steps)} written here. "
                f"The judge's score is drawn at random from the scores of the sampled answers that began "
                f"with “{esc(steps[0].action)}” ({fmt_list(scenario.samples[chosen], sep=', ')}). It is the "
                f"only reward of the whole trajectory: every earlier step got 0. "
                "The next page, **Reward and return**, follows this single number back to every token.")

    st.subheader("The trajectory" if finished else "The trajectory so far")
    if not steps:
        st.caption("Empty: no token has been sampled yet.")
    else:
        trajectory = pd.DataFrame({
            "step": [s.k for s in steps],
            "state (answer so far)": [rlcore.join_tokens(s.state) for s in steps],
            "action (token written)": [s.action for s in steps],
            "probability of the action": [s.action_prob for s in steps],
            "candidates": [len(s.candidates) for s in steps],
            "reward": [s.reward for s in steps],
        }).round(6)
        st.dataframe(trajectory, hide_index=True, width="stretch",
                     column_config={"probability of the action": st.column_config.NumberColumn(format="%.3f"),
                                    "reward": st.column_config.NumberColumn(format="%g")})
        st.caption("One row per turn of the loop: state in, action out. The reward column stays 0 until the "
                   "judge scores the finished answer.")



loop_panel()


# ---------------------------------------------------------------- the judge panel
@st.fragment
def judge_panel() -> None:
    """The rule-based judge: typing reruns this panel only."""
    st.subheader("A judge made of rules")
    blind = page.run(rlcore.outcome_blind_spot, scenario)
    right_tok, other_tok = blind.conclusion, blind.borrowed_from
    examples = {
        "Tags, right answer": f"<think>{rlcore.answer_text(scenario, right_tok)}</think> {right_tok}",
        "No tags": right_tok,
        "Wrong answer": f"<think>{rlcore.answer_text(scenario, other_tok)}</think> {other_tok}",
        "Wrong reasoning": (f"<think>{rlcore.answer_text(scenario, right_tok, reasoning_of=other_tok)}"
                                          f"</think> {right_tok}"),
    }
    st.markdown(
        "The judge does not have to be a model. DeepSeek-R1-Zero was trained with a judge made of two rules, "
        "and this one works the same way:\n"
        "- **Format, 1 point:** the answer opens with `<think>`, has exactly one `<think>` … `</think>` pair, "
        "and something is written between the tags (the reasoning).\n"
        "- **Answer, 1 point:** the text after `</think>` (or the whole text, if there is no `</think>`) "
        "ends with the expected answer, ignoring capitals, punctuation and spacing.\n\n"
        "Neither rule reads the reasoning itself: the last example below still earns both points.")
    st.session_state.setdefault(JUDGE_TEXT, examples["Tags, right answer"])

    def use_example(text: str) -> None:
        st.session_state[JUDGE_TEXT] = text
        st.session_state[inputs.key("expected")] = right_tok


    cols = st.columns(len(examples))
    for col, (name, text) in zip(cols, examples.items(), strict=True):
        col.button(name, key=f"judge_{name}", on_click=use_example, args=(text,), width="stretch")
    j1, j2 = st.columns([3, 1])
    text = j1.text_area("An answer for the judge", key=JUDGE_TEXT, max_chars=MAX_JUDGE_CHARS, height=110,
                        help="Type any answer; put the reasoning between <think> and </think>.")
    expected = inputs.text_input("Expected final answer", right_tok, key="expected", max_chars=60, where=j2,
                                 help="What the final answer must end with.")
    try:
        judge_score, checks = rlcore.rule_based_judge(text or "", expected or "")
    except ValueError as err:
        st.error(f"The judge can't check that: {err}", icon="⚠️")
    else:
        st.caption("What the judge read, exactly as typed:")
        st.code(text or " ", language=None, wrap_lines=True)
        m1, m2, m3 = st.columns(3)
        m1.metric("Format point", fmt(float(checks.format_ok)),
                  "reasoning inside the think tags" if checks.format_ok else "tags missing, repeated or empty",
                  delta_color="normal" if checks.format_ok else "inverse", delta_arrow="off")
        m2.metric("Answer point", fmt(float(checks.answer_ok)),
                  "final answer matches" if checks.answer_ok else "final answer does not match",
                  delta_color="normal" if checks.answer_ok else "inverse", delta_arrow="off")
        m3.metric("Judge's score", f"{fmt(judge_score)} of 2")
        st.caption("The final answer the judge compared with the expected one:")
        st.code(checks.final_answer or " ", language=None, wrap_lines=True)


judge_panel()

page.show_code(rlcore.next_step, rlcore.temperature_probs, rlcore.rule_based_judge)
page.end()
