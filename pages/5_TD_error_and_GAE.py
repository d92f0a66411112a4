"""TD error and GAE: which tokens of one answer get the blame for its score, and how λ spreads it."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page, scrub
from ui.colors import ACCENT, method_colors
from ui.format import axis_labels, esc, fmt, fmt_list
from ui.i18n import t

LAM_LO, LAM_HI, LAM_STEP = 0.0, 1.0, 0.05  # the λ slider's range and step
LAM_STEPS = scrub.steps(LAM_LO, LAM_HI, LAM_STEP)  # the GAE chart at each step: dragging redraws it in the browser
GAMMA_LO, GAMMA_HI, GAMMA_STEP = 0.5, 1.0, 0.01  # the γ slider's range and step
GAMMA_GRID = scrub.steps(GAMMA_LO, GAMMA_HI, 0.02)  # γ dragged every other step: the chart's data stays under 1 MB
LAM_GRID = tuple(np.round(np.linspace(0.0, 1.0, 21), 2))  # λ values of the critic-error study
STUDY_DRAWS = 4000   # seeded draws of the judge's score and the critic's noise per λ
STUDY_SEED = 0

METHODS = {m: rlcore.ALGORITHM_NAMES[m] for m in rlcore.GROUP_METHODS}  # shown, and kept in the link, by name
scenario = page.setup("p5")
tokens = scenario.tokens
likely = page.study(rlcore.summarize, scenario).likely

page.presets({
    t("p5.preset_lam0"): {"lam": 0.0},
    t("p5.preset_lam95"): {"lam": 0.95},
    t("p5.preset_lam1"): {"lam": 1.0},
})


@page.panel
def group_panel(token: str, tok: str, strip: pd.DataFrame, words: tuple) -> None:
    """GRPO's group: its three widgets rerun this panel only."""
    g1, g2, g3 = st.columns(3)
    size = int(inputs.slider(t("p5.group.size"), 1, 32, rlcore.GROUP_SIZE, 1, key="G", where=g1,
                             help=t("p5.group.size_help")))
    seed = inputs.number(t("p5.group.seed"), 0, 9999, rlcore.GROUP_SEED, key="seed", where=g2,
                         help=t("p5.group.seed_help"))
    method = inputs.named_selectbox(t("p5.group.method"), METHODS, rlcore.GROUP_METHODS[0], key="method",
                              where=g3, help=t("p5.group.method_help"))
    grp = page.study(rlcore.group_credit, scenario, token, size, method, int(seed))
    order = np.argsort(grp.actions, kind="stable")
    members = pd.DataFrame({"answer": order + 1, "first token": [tokens[i] for i in grp.actions[order]],
                            "score": grp.scores[order], "advantage": grp.advantages[order]})
    members["spread"] = members.groupby("first token").cumcount()
    members["spread"] = ((members["spread"] + 0.5) / members.groupby("first token")["spread"].transform("size")
                         * 1.6 - 0.8)
    page.chart(charts.titled(charts.points_chart(members, x="first token", y="advantage",
                                                 key=charts.Key("first token", tokens),
                                                 axes=charts.Axes(t("p5.group.x_title"), t("p5.advantage")),
                                                 jitter="spread"),
                             title=t("p5.group.title", size=size), subtitle=t("p5.group.subtitle")),
               members.drop(columns="spread"), alt_text=t("p5.group.alt"), name="group")
    if grp.dead:
        st.warning(t("p5.group.dead", size=size, score=fmt(grp.scores[0])))
    if grp.members.size:
        first = grp.members[0]
        shared = strip.assign(**{"shared advantage": grp.advantages[first]})
        page.chart(charts.titled(charts.answer_strip(shared, value="shared advantage",
                                                     axes=charts.Axes(y=t("p5.advantage")), highlight="decision"),
                                 title=t("p5.group.strip_title", number=first + 1, token=token,
                                         score=fmt(grp.scores[first])),
                                 subtitle=t("p5.group.strip_subtitle")),
                   shared[["position", "token", "shared advantage"]],
                   alt_text=t("p5.group.strip_alt"), name="grpo_strip")
        st.markdown(t("p5.group.members", count=grp.members.size, size=size, tok=tok, length=len(words),
                      advantages=fmt_list(grp.advantages[grp.members], sep=t("p5.sep"))))
    else:
        st.info(t("p5.group.none", tok=tok))


@page.panel
def critic_panel(token: str, tok: str, gamma: float, lam: float) -> None:
    """The critic-error study: its two sliders rerun this panel only."""
    st.subheader(t("p5.critic.heading"))
    st.markdown(t("p5.critic.intro", tok=tok))
    e1, e2 = st.columns(2)
    bias = inputs.slider(t("p5.critic.bias"), -3.0, 3.0, 1.0, 0.25, key="bias", where=e1)
    noise = inputs.slider(t("p5.critic.noise"), 0.0, 2.0, 0.5, 0.1, key="noise", where=e2)
    study, here = (page.study(rlcore.answer_critic_error, scenario, token, gamma=gamma, lams=lams, bias=bias,
                              noise=noise, n_draws=STUDY_DRAWS, seed=STUDY_SEED) for lams in (LAM_GRID, (lam,)))
    names = [t("p5.critic.part_bias"), t("p5.critic.part_variance"), t("p5.critic.part_mse")]
    parts = pd.DataFrame({"λ": np.tile(study.lams, 3), "part": np.repeat(names, study.lams.size),
                          "value": np.concatenate([study.bias_squared, study.variance, study.mse])})
    marker = pd.DataFrame({"at": [lam], "label": [f"λ = {fmt(lam)}"]})
    s1, s2 = st.columns([2, 1], gap="large")
    with s1:
        page.chart(charts.layer(charts.lines(parts, x="λ", y="value",
                                             key=charts.Key("part", colors=method_colors(names),
                                                            title=t("p5.critic.legend")),
                                             axes=charts.Axes("λ", t("p5.critic.y_title"))),
                                charts.rules(marker, at="at", label="label", axis="x", color=ACCENT,
                                             align="right" if lam > 0.8 else "left"),
                                title=t("p5.critic.title", token=token),
                                subtitle=t("p5.critic.subtitle", draws=STUDY_DRAWS), height=340),
                   parts, alt_text=t("p5.critic.alt"), name="critic_error")
    with s2:
        st.metric(t("p5.critic.mse_at", lam=fmt(lam)), fmt(here.mse[0], 3))
        st.metric(t("p5.critic.split"), f"{fmt(here.bias_squared[0], 3)} / {fmt(here.variance[0], 3)}")
        st.metric(t("p5.critic.best"), fmt(study.best_lam))
    st.markdown(t("p5.critic.text", tok=tok, bias0=fmt(study.bias[0], sign=True), var0=fmt(study.variance[0], 3),
                  bias1=fmt(study.bias[-1], sign=True), var1=fmt(study.variance[-1], 3), best=fmt(study.best_lam)))


def ask(words, a: int, tok: str, delta, blamed0) -> bool:
    """Predict first: at λ = 0, which tokens of the answer get a non-zero advantage?"""
    sep, only, every, none = t("p5.sep"), t("p5.only", tok=tok), t("p5.every"), t("p5.none")
    options = list(dict.fromkeys([only, sep.join(esc(w) for w in words[:a + 1]), every, none]))
    answer = (none if blamed0.size == 0 else every if blamed0.size == len(words)
              else only if blamed0.tolist() == [a] else sep.join(esc(words[i]) for i in blamed0))
    if answer not in options:
        options.append(answer)
    return page.predict(t("p5.question"), options, answer,
                        t("p5.explanation", answer=answer, delta=fmt(delta[a], sign=True), tok=tok),
                        key="predict_gae")


@page.panel
def answer_panel() -> None:
    """The first token, λ and γ feed every section below them: moving one reruns this panel only."""
    question = st.container()  # the question sits above the inputs it depends on
    c1, c2, c3 = st.columns([2, 2, 1], vertical_alignment="bottom")
    token = inputs.selectbox(t("p5.tok"), tokens, tokens[likely], key="tok", where=c1, help=t("p5.tok_help"))
    lam = inputs.slider(t("p5.lam"), LAM_LO, LAM_HI, 0.95, LAM_STEP, key="lam", where=c2, help=glossary.term("λ"))
    with c3.expander(t("p5.more")):
        gamma = inputs.slider(t("p5.gamma"), GAMMA_LO, GAMMA_HI, 1.0, GAMMA_STEP, key="gamma", help=t("p5.gamma_help"))

    credit = page.study(rlcore.answer_credit, scenario, token, gamma, lam)
    trace, a, tok = credit.trace, credit.trace.action_index, esc(token)
    words = trace.tokens
    with question:
        revealed = ask(words, a, tok, credit.td_errors, credit.blamed_at_zero)
    strip = pd.DataFrame({
        "position": np.arange(1, len(words) + 1), "label": axis_labels(words), "token": list(words),
        "V before": trace.values[:-1], "reward": trace.rewards, "V after": trace.values[1:],
        "TD error": credit.td_errors, "GAE advantage": credit.advantages, "decision": np.arange(len(words)) == a,
    })

    left, right = st.columns(2, gap="large")
    with left:
        st.markdown(t("p5.with_critic", score=fmt(trace.score),
                      answer=" · ".join(f"**{esc(w)}**" if i == a else esc(w) for i, w in enumerate(words))))
        draw_td(strip, revealed)
        if revealed:
            grid = scrub.at(GAMMA_GRID, gamma, GAMMA_LO, GAMMA_HI), scrub.at(LAM_STEPS, lam, LAM_LO, LAM_HI)
            (gammas, _), (lams, _) = grid
            credits = page.study(rlcore.answer_credit, scenario, token, np.array(gammas)[:, None], lams)
            explain_credit(credit, credits, grid, tok, gamma, lam)
    with right:
        st.markdown(t("p5.without_critic"))
        group_panel(token, tok, strip, words)

    critic_panel(token, tok, gamma, lam)


def draw_td(strip: pd.DataFrame, revealed: bool) -> None:
    """The TD error at each token once revealed; before, only the critic's values, which do not give it away."""
    if revealed:
        page.chart(charts.titled(charts.answer_strip(strip, value="TD error", axes=charts.Axes(y=t("p5.td_y")),
                                                     highlight="decision", line="V before", line_title=t("p5.td_line")),
                                 title=t("p5.td_title"), subtitle=t("p5.td_subtitle")),
                   strip, alt_text=t("p5.td_alt"), name="td_error")
    else:
        shown = strip[["position", "label", "token", "V before", "decision"]]
        page.chart(charts.titled(charts.answer_strip(shown, value="V before", axes=charts.Axes(y=t("p5.v_y")),
                                                     highlight="decision"),
                                 title=t("p5.v_title"), subtitle=t("p5.v_subtitle")),
                   shown, alt_text=t("p5.v_alt"), name="td_error")
        st.caption(t("p5.v_caption"))


def gae_chart(credits: rlcore.AnswerCredit, credit: rlcore.AnswerCredit, grid, words: tuple, a: int, lam: float):
    """GAE's advantage at each token for every (γ, λ) of the grids (the pair dragged to shown), and the committed
    pair's as a line over the bars, named with λ."""
    (gammas, gamma_exact), (lams, exact) = grid
    n_g, n_l, m = credits.advantages.shape
    labels, at = axis_labels(words), np.tile(np.arange(m), n_g * n_l)
    rows = pd.DataFrame({"gamma": np.repeat(gammas, n_l * m), "lam": np.tile(np.repeat(lams, m), n_g),
                         "position": at + 1, "label": [labels[i] for i in at], "token": [words[i] for i in at],
                         "GAE advantage": credits.advantages.ravel(),
                         "committed advantage": np.tile(credit.advantages, n_g * n_l), "decision": at == a,
                         scrub.EXACT: np.tile(np.repeat(exact, m), n_g), scrub.EXACT2: np.repeat(gamma_exact, n_l * m)})
    shown_lam = pd.DataFrame({"lam": lams, scrub.EXACT: exact,
                              "label": [t("chart.scrub_shown", name="λ", value=fmt(v)) for v in lams]})
    shown_gamma = pd.DataFrame({"gamma": gammas, scrub.EXACT2: gamma_exact,
                                "label": [t("chart.scrub_shown", name="γ", value=fmt(v)) for v in gammas]})
    strip = charts.answer_strip(rows, value="GAE advantage", axes=charts.Axes(y=t("p5.advantage")),
                                highlight="decision", line="committed advantage",
                                line_title=t("chart.scrub_yours", name="λ", value=fmt(lam)))
    return charts.layer(strip, charts.note(shown_lam, text="label", corner="bottom right"),
                        charts.note(shown_gamma, text="label", corner="top right"),
                        title=t("p5.gae_title"), subtitle=t("p5.gae_subtitle", lam=fmt(lam))), rows


def explain_credit(credit: rlcore.AnswerCredit, credits: rlcore.AnswerCredit, grid, tok: str, gamma: float,
                   lam: float) -> None:
    """GAE's advantage at each token, the values around the decision, and where λ spreads the one TD error."""
    trace, delta, adv, jump_at = credit.trace, credit.td_errors, credit.advantages, credit.jump_at
    a, words = trace.action_index, trace.tokens
    ch, rows = gae_chart(credits, credit, grid, words, a, lam)
    page.scrub(ch, rows, field="lam", grid=LAM_STEPS, value=lam, label=t("chart.scrub_input", name="λ"),
               alt_text=t("p5.gae_alt", lam=fmt(lam)), name="gae",
               also=scrub.Input("gamma", GAMMA_GRID, gamma, t("chart.scrub_input", name="γ")))
    m1, m2 = st.columns(2)
    m1.metric(t("p5.v_before", tok=tok), fmt(trace.values[a]))
    m2.metric(t("p5.v_after", tok=tok), fmt(trace.values[a + 1]))
    m3, m4 = st.columns(2)
    m3.metric(t("p5.td_at", tok=tok), fmt(delta[a], sign=True))
    m4.metric(t("p5.adv_of", tok=esc(words[0])), fmt(adv[0], sign=True), help=t("p5.adv_help", lam=fmt(lam)))
    moved = t("p5.sep").join(f"**{esc(words[i])}**" for i in jump_at) or t("p5.none")
    before = fmt_list(adv[:a]) if a else t("p5.nothing")
    after = fmt_list(adv[a + 1:]) if a + 1 < len(words) else t("p5.nothing")
    jump = (t("p5.jump_some", moved=moved, delta=fmt(delta[a], sign=True), tok=tok) if jump_at.size else
            t("p5.jump_none", tok=tok))
    slide = t("p5.slide_blame" if delta[a] < 0 else "p5.slide_credit", tok=tok) if jump_at.size else ""
    st.markdown(jump + t("p5.spread", lam=fmt(lam), before=before, after=after) + slide)


answer_panel()

page.end(code=(rlcore.answer_trace, rlcore.td_errors, rlcore.gae, rlcore.group_credit, rlcore.group_advantages,
               rlcore.critic_error_study,))
