"""Loop, state and action: the policy writes one answer, token by token, until the judge scores it (its text is
the catalogue's ``[p1]``, ``locales/*.toml``)."""

import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, i18n, inputs, page
from ui.format import esc, fmt, fmt_list, pct
from ui.i18n import t

STEPS, RUN_FOR = "loop_steps", "loop_steps_for"  # the steps taken so far, and the (scenario, seed) they belong to
JUDGE_TEXT = "judge_text"
MAX_JUDGE_CHARS = 2000

scenario = page.setup("p1")
tokens = scenario.tokens

page.presets({"τ = 0.1": {"temp": 0.1}, "τ = 1": {"temp": 1.0}, "τ = 2.5": {"temp": 2.5}})


def ask() -> None:
    """Predict first: at τ = 2, is the rarest token more or less likely to be written? (The scenario's question:
    it depends on no input of the page.)"""
    rare, rare_before, rare_after = page.run(rlcore.rarest_token_shift, scenario.pi, 2.0)
    choices = [t("p1.more"), t("p1.less"), t("p1.same")]  # the answer is one of the same labels
    better = choices[0] if rare_after > rare_before else choices[1] if rare_after < rare_before else choices[2]
    page.predict(t("p1.question", token=esc(tokens[rare])), choices, better,
                 t("p1.explanation", before=pct(rare_before, 1), after=pct(rare_after, 1)), key="predict_temperature")


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


@page.panel
def loop_panel() -> None:
    """The question, the temperature, the steps and the charts: moving them reruns this panel only, not the page."""
    ask()
    c1, c2, c3 = st.columns([3, 1.3, 1], vertical_alignment="bottom")
    tau = inputs.slider(t("p1.temp"), 0.1, 3.0, 1.0, 0.1, key="temp", where=c1, help=glossary.term("τ"))
    with st.expander(t("p1.more_settings")):
        seed = int(inputs.number(t("p1.seed"), 0, 999_999, 0, key="seed", help=t("p1.seed_help")))

    # The steps taken so far live in the session; a new scenario or seed starts a fresh answer.
    if st.session_state.get(RUN_FOR) != (scenario, seed):
        st.session_state[RUN_FOR] = (scenario, seed)
        st.session_state[STEPS] = []
    steps: list = st.session_state[STEPS]
    written = [s.action for s in steps]
    finished = bool(steps) and steps[-1].done

    c2.button(t("p1.sample"), key="sample", type="primary", on_click=sample_next, args=(scenario,),
              disabled=finished, width="stretch")
    c3.button(t("p1.restart"), key="restart", on_click=restart, width="stretch")

    # One call into rlcore: the policy at the next step (or, once finished, the view of the decision).
    decision = page.run(rlcore.next_step, scenario, [], seed, tau)
    upcoming = None if finished else page.run(rlcore.next_step, scenario, written, seed, tau)

    left, right = st.columns([4, 7], gap="large")
    with right:
        draw_policies(decision, tau, steps)
    with left:
        draw_state(decision, steps, upcoming, finished)
    draw_trajectory(steps, finished)


def draw_policies(decision: rlcore.GenerationStep, tau: float, steps: list) -> None:
    """The policy at τ = 1 beside the one sampling draws from at τ."""
    base = pd.DataFrame({"token": tokens, "probability": decision.base_probs})
    hot = pd.DataFrame({"token": tokens, "probability": decision.probs})
    subtitle = (t("p1.sampling_drawn", tau=fmt(tau), token=steps[0].action) if steps else
                t("p1.sampling_none", tau=fmt(tau)))
    both = pd.DataFrame({t("p1.col_token"): tokens, t("p1.col_trained"): decision.base_probs,
                         t("p1.col_sampling", tau=fmt(tau)): decision.probs}).round(6)
    # two charts that each take their column's width; Streamlit stacks the columns on a phone
    p1, p2 = st.columns(2)
    with p1:
        page.chart(charts.titled(charts.token_bars(base, value="probability", tokens=tokens,
                                                   axes=charts.Axes(y=t("p1.probability"), y_domain=[0, 1])),
                                 title=t("p1.trained_title"), subtitle="τ = 1", height=280),
                   base.round(6), name="policy_trained",
                   alt_text=t("p1.trained_alt"))
    with p2:
        page.chart(charts.titled(charts.token_bars(hot, value="probability", tokens=tokens,
                                                   axes=charts.Axes(y=t("p1.probability"), y_domain=[0, 1])),
                                 title=t("p1.sampling_title"), subtitle=subtitle, height=280),
                   both, name="policy_at_temperature",
                   alt_text=t("p1.sampling_alt", tau=fmt(tau)))
    st.caption(t("p1.charts_caption"))


def draw_state(decision: rlcore.GenerationStep, steps: list, upcoming, finished: bool) -> None:
    """The state so far, the action taken, the next token and, once finished, the judge's score."""
    written = [s.action for s in steps]
    st.subheader(t("p1.state_heading", n=len(steps)))
    st.code(f"{scenario.prompt}\n{rlcore.join_tokens([*decision.state, *written])}", language=None,
            wrap_lines=True)
    st.caption(t("p1.state_caption"))
    if not steps:
        st.markdown(t("p1.choose", prefix=esc(scenario.prefix), n=len(tokens)))
    if steps:
        first = steps[0]
        st.metric(t("p1.action"), esc(first.action),
                  t("p1.action_delta", prob=pct(first.action_prob, 1), tau=fmt(first.temperature)),
                  delta_color="off", delta_arrow="off")
    if upcoming is not None and upcoming.k > 0:
        st.markdown(t("p1.next_token", token=esc(upcoming.candidates[0])))
    if finished:
        last = steps[-1]
        chosen = scenario.index(steps[0].action)
        whole = rlcore.answer_tokens(scenario, steps[0].action)  # the answer the Reward page follows
        st.metric(t("p1.judge_score"), fmt(last.score))
        st.markdown(t("p1.finished", total=len(whole), before=len(whole) - len(steps),
                      prefix=esc(scenario.prefix), written=len(steps), token=esc(steps[0].action),
                      scores=fmt_list(scenario.samples[chosen], sep=t("link.separator"))))


def draw_trajectory(steps: list, finished: bool) -> None:
    """The trajectory: one row per step, its state, action, probability and reward."""
    st.subheader(t("p1.trajectory") if finished else t("p1.trajectory_so_far"))
    if not steps:
        st.caption(t("p1.trajectory_empty"))
        return
    trajectory = pd.DataFrame({
        t("p1.col_step"): [s.k for s in steps],
        t("p1.col_state"): [rlcore.join_tokens(s.state) for s in steps],
        t("p1.col_action"): [s.action for s in steps],
        t("p1.col_prob"): [s.action_prob for s in steps],
        t("p1.col_candidates"): [len(s.candidates) for s in steps],
        t("p1.col_reward"): [s.reward for s in steps],
    }).round(6)
    page.table(trajectory, formats={t("p1.col_prob"): "%.3f", t("p1.col_reward"): "%g"})
    st.caption(t("p1.trajectory_caption"))


loop_panel()


# ---------------------------------------------------------------- the judge panel
@page.panel
def judge_panel() -> None:
    """The rule-based judge: typing reruns this panel only."""
    st.subheader(t("p1.rules_heading"))
    blind = page.run(rlcore.outcome_blind_spot, scenario)
    right_tok, other_tok = blind.conclusion, blind.borrowed_from
    examples = {
        "Tags, right answer": f"<think>{rlcore.answer_text(scenario, right_tok)}</think> {right_tok}",
        "No tags": right_tok,
        "Wrong answer": f"<think>{rlcore.answer_text(scenario, other_tok)}</think> {other_tok}",
        "Wrong reasoning": (f"<think>{rlcore.answer_text(scenario, right_tok, reasoning_of=other_tok)}"
                            f"</think> {right_tok}"),
    }
    st.markdown(t("p1.rules"))
    st.session_state.setdefault(JUDGE_TEXT, examples["Tags, right answer"])

    def use_example(text: str) -> None:
        st.session_state[JUDGE_TEXT] = text
        st.session_state[inputs.key("expected")] = right_tok

    cols = st.columns(len(examples))
    for col, (name, text) in zip(cols, examples.items(), strict=True):
        col.button(t(f"p1.examples.{name}"), key=f"judge_{name}", on_click=use_example, args=(text,), width="stretch")
    j1, j2 = st.columns([3, 1])
    text = j1.text_area(t("p1.judge_text"), key=JUDGE_TEXT, max_chars=MAX_JUDGE_CHARS, height=110,
                        help=t("p1.judge_text_help"))
    expected = inputs.text_input(t("p1.expected"), right_tok, key="expected", max_chars=60, where=j2,
                                 help=t("p1.expected_help"))
    try:
        judge_score, checks = rlcore.rule_based_judge(text or "", expected or "")
    except ValueError as err:
        st.error(t("p1.judge_error", error=esc(i18n.error(err))), icon="⚠️")  # it may quote what was typed
    else:
        st.caption(t("p1.judge_read"))
        st.code(text or " ", language=None, wrap_lines=True)
        m1, m2, m3 = st.columns(3)
        m1.metric(t("p1.format_point"), fmt(float(checks.format_ok)),
                  t("p1.format_ok") if checks.format_ok else t("p1.format_bad"),
                  delta_color="normal" if checks.format_ok else "inverse", delta_arrow="off")
        m2.metric(t("p1.answer_point"), fmt(float(checks.answer_ok)),
                  t("p1.answer_ok") if checks.answer_ok else t("p1.answer_bad"),
                  delta_color="normal" if checks.answer_ok else "inverse", delta_arrow="off")
        m3.metric(t("p1.judge_score"), t("p1.judge_total", score=fmt(judge_score)))
        st.caption(t("p1.final_answer"))
        st.code(checks.final_answer or " ", language=None, wrap_lines=True)


judge_panel()

page.end(code=(rlcore.next_step, rlcore.temperature_probs, rlcore.rule_based_judge,))
