"""Clips after PPO: once one step has moved the policy, which answers does each clip still let the batch push?"""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, inputs, page, scrub
from ui.charts import Axes, Key, answer_labels, grouped_bars
from ui.colors import ACCENT, method_colors
from ui.format import esc, fmt, fmt_list, wrap
from ui.i18n import t

METHOD_OF = {"ppo": "ppo", "clip-higher": "dapo", "cispo": "cispo", "gspo": "gspo"}  # whose colour each clip takes
GSPO_RANGES = (0.0004, 0.004, 0.04, 0.2)  # GSPO's ε_high choices; the paper uses 4e-4 (ε_low = ¾ of it)
RARE_OLDS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99)  # π_old choices, dense near 0
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
HIGH_LO, HIGH_HI, HIGH_STEP = 0.05, 0.6, 0.01  # the ε_high slider's range and step
HIGH_GRID = scrub.steps(HIGH_LO, HIGH_HI, HIGH_STEP)  # the weights chart at each step: dragged in the browser

METHODS = {m: rlcore.ALGORITHM_NAMES[m] for m in rlcore.GROUP_METHODS}  # shown, and kept in the link, by name
scenario = page.setup("p11")
NAMES = {m: t(f"p11.names.{m}") for m in rlcore.CLIP_METHODS}  # the four clips as the page names them
COL = {c: t(f"p11.col.{c}") for c in ("answer", "first", "score", "advantage", "ratio", "seq_ratio", "method",
                                      "weight", "clipped", "old", "rise", "clip")}  # the charts' data columns
COLORS = method_colors({NAMES[m]: METHOD_OF[m] for m in rlcore.CLIP_METHODS})
tokens = scenario.tokens


page.presets({
    t("p11.preset_small"): {"lr": 0.1},
    t("p11.preset_higher"): {"lr": 0.2, "high": 0.28},
    t("p11.preset_big"): {"lr": 0.6},
    t("p11.preset_rare"): {"rare": 0.01},
})


@page.panel
def batch_panel() -> None:
    """The step size and the clip range drive everything in this panel."""
    c1, c2 = st.columns(2)
    lr = inputs.slider(t("p11.lr"), 0.0, 1.5, 0.2, 0.01, key="lr", where=c1, help=t("p11.lr_help"))
    eps_high = inputs.slider(t("p11.high"), HIGH_LO, HIGH_HI, 0.28, HIGH_STEP, key="high", where=c2,
                             help=t("p11.high_help"))
    with st.expander(t("p11.more")):
        m1, m2, m3 = st.columns(3)
        eps_low = inputs.slider(t("p11.low"), 0.05, 0.5, 0.2, 0.01, key="low", where=m1)
        gspo_high = inputs.select_slider(t("p11.gspo"), GSPO_RANGES, GSPO_RANGES[0], key="gspo", where=m2,
                                         help=t("p11.gspo_help"))
        method = inputs.named_selectbox(t("p11.adv"), METHODS, rlcore.GROUP_METHODS[0], key="adv", where=m3,
                                  help=t("p11.adv_help"))

    settings = dict(lr=lr, eps_low=eps_low, eps_high=eps_high, gspo_high=gspo_high, method=method)
    c = page.study(rlcore.clip_study, scenario, **settings)
    at = scrub.at(HIGH_GRID, eps_high)
    cw = page.study(rlcore.clip_study, scenario, **{**settings, "eps_high": at[0]})
    if c.dead:
        st.info(t("p11.dead"), icon="ℹ️")
        revealed = False  # no question to answer, and nothing for the explanation to say
    else:
        revealed = ask_about_the_best(c, lr, eps_low, eps_high)
    draw_batch(c, cw, at, eps_high)
    if revealed:
        explain(c, lr, eps_low, eps_high, gspo_high)
    else:
        inputs.later("cispo_rho")  # the explanation's input: a link's value waits for the answer
    rare_section(eps_low, eps_high)


def ask_about_the_best(c, lr: float, eps_low: float, eps_high: float) -> bool:
    """The question: do the two token clips still push the batch's best answer?"""
    b, best = c.batch, c.best
    tok = esc(tokens[b.actions[best]])
    sym, higher = b.clipped[0, best], b.clipped[1, best]
    answer = t("p11.neither" if sym and higher else "p11.only_higher" if sym
               else "p11.only_sym" if higher else "p11.both")
    options = [t("p11.both"), t("p11.only_higher"), t("p11.neither")]
    if answer not in options:
        options.append(answer)
    return page.predict(
        t("p11.question", token=tok, score=fmt(b.scores[best]), old=fmt(b.p_old[b.actions[best]], 3),
          lr=fmt(lr), low=fmt(eps_low), high=fmt(eps_high)),
        options, answer,
        t("p11.explanation", token=tok, old=fmt(b.p_old[b.actions[best]], 3),
          new=fmt(b.p_new[b.actions[best]], 3), ratio=fmt(b.ratio[best], 3), sym=fmt(c.edges[1]),
          higher=fmt(c.edges[2])),
        key="predict_clip")


def draw_batch(c, cw, at: tuple, eps_high: float) -> None:
    """Each method's gradient weight on every answer at every ε_high of the slider (the one dragged to shown), and
    the answers' ratios against the clips' edges."""
    b, n_methods = c.batch, len(rlcore.CLIP_METHODS)
    answer_label = answer_labels(tokens, b.actions)
    per_answer = pd.DataFrame({
        COL["answer"]: np.repeat(answer_label, n_methods),
        COL["first"]: np.repeat([tokens[a] for a in b.actions], n_methods),
        COL["score"]: np.repeat(b.scores, n_methods),
        COL["advantage"]: np.repeat(b.advantages, n_methods),
        COL["ratio"]: np.repeat(b.ratio, n_methods),
        COL["seq_ratio"]: np.repeat(b.seq_ratio, n_methods),
        COL["method"]: np.tile([NAMES[m] for m in rlcore.CLIP_METHODS], b.actions.size),
    })
    highs, exact = np.asarray(at[0]), at[1]
    rows = per_answer.loc[np.tile(per_answer.index, highs.size)].reset_index(drop=True).assign(**{
        "eps_high": np.repeat(highs, len(per_answer)), COL["weight"]: cw.batch.weights.transpose(0, 2, 1).ravel(),
        COL["clipped"]: cw.batch.clipped.transpose(0, 2, 1).ravel(), scrub.EXACT: np.repeat(exact, len(per_answer))})
    shown = pd.DataFrame({"eps_high": highs, scrub.EXACT: exact,
                          "label": [t("chart.scrub_shown", name="ε_high", value=fmt(v)) for v in highs]})
    left, right = st.columns(2, gap="large")
    with left:
        bars = grouped_bars(rows, x=COL["answer"], y=COL["weight"], key=Key(COL["method"], colors=COLORS),
                            axes=Axes(t("p11.weights_x"), COL["weight"]),
                            tooltips=(COL["advantage"], COL["ratio"], COL["seq_ratio"]))
        page.scrub(charts.layer(bars, charts.note(shown, text="label", corner="top left"),
                                title=t("p11.weights_title"), subtitle=wrap(t("p11.weights_subtitle"))),
                   rows, field="eps_high", grid=HIGH_GRID, value=eps_high,
                   label=t("chart.scrub_input", name="ε_high"), alt_text=t("p11.weights_alt"), name="clip_weights")
    points = per_answer[per_answer[COL["method"]] == NAMES["ppo"]].drop(columns=COL["method"])
    bounds = pd.DataFrame({"at": list(c.edges), "label": ["", "", ""]})  # named in the subtitle
    with right:
        page.chart(charts.layer(
            charts.titled(charts.points_chart(points, x=COL["ratio"], y=COL["advantage"], key=Key(COL["first"], tokens),
                                              axes=Axes(t("p11.ratios_x"), COL["advantage"]), x_type="Q"),
                          title=t("p11.ratios_title"), height=280,
                          subtitle=wrap(t("p11.ratios_subtitle", a=fmt(c.edges[0]), b=fmt(c.edges[1]),
                                          c=fmt(c.edges[2])))),
            charts.rules(bounds, at="at", label="label", axis="x", color=ACCENT)),
            points, alt_text=t("p11.ratios_alt"), name="clip_ratios")


def explain(c, lr: float, eps_low: float, eps_high: float, gspo_high: float) -> None:
    """What each method did to the batch, in numbers (shown once the prediction is made)."""
    b, n, kept = c.batch, c.batch.actions.size, c.kept
    m = st.columns(4)
    for col, name, k in zip(m, rlcore.CLIP_METHODS, kept, strict=True):
        col.metric(NAMES[name], t("p11.explain.kept", k=int(k), n=n))
    sep = t("p11.explain.sep")
    lengths = sep.join(t("p11.explain.length", token=esc(tok), n=int(c.answer_lengths[i]))
                       for i, tok in enumerate(tokens) if c.sampled[i])
    summary = t("p11.explain.summary", lr=fmt(lr), old=fmt_list(b.p_old, 3), new=fmt_list(b.p_new, 3),
                tokens=sep.join(esc(tok) for tok in tokens), n=n, ppo=int(kept[0]), higher=int(kept[1]),
                cispo=int(kept[2]), gspo=int(kept[3]))
    points = [t("p11.explain.ppo", low=fmt(eps_low)), t("p11.explain.higher", high=fmt(eps_high)),
              t("p11.explain.cispo", a=fmt(c.edges[0]), b=fmt(c.edges[2])),
              t("p11.explain.gspo", lengths=lengths, lo=fmt(b.seq_ratio.min(), 4), hi=fmt(b.seq_ratio.max(), 4),
                eps=fmt(gspo_high, 4))]
    st.markdown(summary + "\n\n" + "\n".join(f"- {p}" for p in points))
    worked_numbers(c, eps_low, eps_high)


def worked_numbers(c, eps_low: float, eps_high: float) -> None:
    """GSPO's mean over an answer whose every token moved, and CISPO's weight at a ratio the learner picks."""
    st.markdown(t("p11.explain.worked"))
    moved = t("p11.explain.sep").join(t("p11.explain.moved", token=esc(tokens[i]), ratio=fmt(r, 3))
                                      for i, r in zip(c.moved, c.moved_ratio, strict=True))
    left, right = st.columns(2, gap="large")
    left.markdown(t("p11.explain.gspo_worked", n=c.moved.size, moved=moved,
                    last=str(c.moved.size).translate(SUBSCRIPTS), s=fmt(c.moved_seq_ratio, 4)))
    r = inputs.number(t("p11.explain.cispo_rho"), 0.0, 3.0, 1.3, step=0.05, key="cispo_rho", where=right)
    w = page.study(rlcore.cispo_at, r, eps_low, eps_high)
    cap = {"upper": t("p11.explain.cap_upper", cap=fmt(c.edges[2])),
           "lower": t("p11.explain.cap_lower", cap=fmt(c.edges[0])),
           None: t("p11.explain.cap_none", a=fmt(c.edges[0]), b=fmt(c.edges[2]))}[w.cap]
    right.markdown(t("p11.explain.cispo_worked", rho=fmt(r), low=fmt(eps_low), high=fmt(eps_high), cap=cap,
                     w=fmt(w.weight, 3), ppo=fmt(w.ppo_weight, 3)))


def rare_section(eps_low: float, eps_high: float) -> None:
    """How far one batch can push a token up, against its π_old: the rare-token case."""
    st.subheader(t("p11.rare.heading"))
    c1, c2 = st.columns(2)
    p = inputs.select_slider(t("p11.rare.old"), RARE_OLDS, 0.01, key="rare", where=c1)
    c2.caption(t("p11.rare.ranges", low=fmt(eps_low), high=fmt(eps_high)))
    r = page.study(rlcore.rare_reach, scenario.pi, p, eps_low, eps_high)
    m1, m2, m3 = st.columns(3)
    m1.metric(t("p11.rare.highest_sym", low=fmt(eps_low)), fmt(r.sym.high[0], 4), delta=f"+{fmt(r.sym.rise[0], 4)}")
    m2.metric(t("p11.rare.highest_high", high=fmt(eps_high)), fmt(r.higher.high[0], 4),
              delta=f"+{fmt(r.higher.rise[0], 4)}")
    m3.metric(t("p11.rare.likely"), fmt(r.likely.high[0], 4), delta=f"+{fmt(r.likely.rise[0], 4)}")
    draw_reach(r, eps_low, eps_high)
    st.markdown(t("p11.rare.text", p=fmt(p, 3), sym=fmt(r.sym.high[0], 4), low=fmt(eps_low),
                  hi=fmt(r.higher.high[0], 4), high=fmt(eps_high), likely=fmt(r.likely.high[0], 4)))


def draw_reach(r, eps_low: float, eps_high: float) -> None:
    """The largest gain one batch allows against π_old, under each clip, with the policy's tokens marked."""
    sym_name, hi_name = t("p11.rare.sym", low=fmt(eps_low)), t("p11.rare.higher", high=fmt(eps_high))
    old, rise, clip = COL["old"], COL["rise"], COL["clip"]
    curve = pd.concat([pd.DataFrame({old: r.grid, rise: r.grid_sym.rise, clip: sym_name}),
                       pd.DataFrame({old: r.grid, rise: r.grid_higher.rise, clip: hi_name})], ignore_index=True)
    marks = pd.DataFrame({old: r.marks_old, rise: r.marks.rise, clip: sym_name,
                          "label": [*(tokens[i] for i in r.marked), t("p11.rare.yours")]})
    clip_colors = method_colors({sym_name: "ppo", hi_name: "dapo"})
    page.chart(charts.layer(
        charts.lines(curve, x=old, y=rise, key=charts.Key(clip, colors=clip_colors, title=clip),
                     axes=charts.Axes(t("p11.rare.x"), t("p11.rare.y"))),
        charts.labelled_points(marks, x=old, y=rise, label="label", key=charts.Key(clip, colors=clip_colors),
                               axes=charts.Axes(t("p11.rare.x"), t("p11.rare.y")), beside=True),
        title=t("p11.rare.title"), subtitle=wrap(t("p11.rare.subtitle")), height=charts.HEIGHT),
        curve, alt_text=t("p11.rare.alt"), name="clip_reach")


batch_panel()

page.end(code=(rlcore.clip_study, rlcore.clip_batch, rlcore.cispo_at, rlcore.rare_reach, rlcore.reach,
               rlcore.gradient_weights, rlcore.sequence_ratio, rlcore.policy_gradient_step,))
