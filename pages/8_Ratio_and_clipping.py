"""Ratio and clipping: how far one batch may move a token's probability before PPO stops pushing it."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page, scrub
from ui.colors import method_colors
from ui.format import esc, fmt, fmt_list, pct
from ui.i18n import t

EPS_LO, EPS_HI, EPS_STEP = 0.05, 0.5, 0.05  # the ε slider's range and step
EPS_GRID = scrub.steps(EPS_LO, EPS_HI, EPS_STEP)  # the chart at each step: dragging under it redraws it in the browser

scenario = page.setup("p8_ratio")

page.presets({
    t("p8_ratio.preset_eps", eps=fmt(0.1)): {"eps": 0.1},
    t("p8_ratio.preset_article", eps=fmt(0.2)): {"eps": 0.2},
    t("p8_ratio.preset_eps", eps=fmt(0.3)): {"eps": 0.3},
})

summary = page.run(rlcore.summarize, scenario)
tokens = scenario.tokens


def ask(cc: rlcore.ClipCurve, tok: str, eps: float) -> bool:
    """Predict first: how far can the batch move π(token) in the direction its advantage pushes?"""
    answer = t("p8_ratio.option_to", p=fmt(cc.bound, 3))
    options = [answer, t("p8_ratio.option_none")]
    if 0 < cc.added < 1 and fmt(cc.added, 3) != fmt(cc.bound, 3):  # the guess that ε is added, not a factor
        options.insert(0, t("p8_ratio.option_to", p=fmt(cc.added, 3)))
    way = "up" if cc.adv >= 0 else "down"
    return page.predict(
        t(f"p8_ratio.question_{way}", token=tok, p_old=fmt(cc.p_old, 3), a=fmt(cc.adv, sign=True), eps=fmt(eps)),
        options, answer,
        t(f"p8_ratio.explanation_{way}", token=tok, factor=fmt(cc.factor), p_old=fmt(cc.p_old, 3),
          bound=fmt(cc.bound, 3)),
        key="predict_clip")


def objective_chart(cc: rlcore.ClipCurve, token: str, eps: float):
    """Before the answer: the clipped objective against π(token) for ±|A|, each only on the side nothing clips."""
    pos_name, neg_name = f"A = {fmt(cc.size, sign=True)}", f"A = {fmt(-cc.size, sign=True)}"
    curve = pd.concat([pd.DataFrame({"probability": cc.x, "objective": cc.pos, "advantage": pos_name}),
                       pd.DataFrame({"probability": cc.x, "objective": cc.neg, "advantage": neg_name})],
                      ignore_index=True)
    x = curve["probability"]  # a positive A is clipped only above π_old, a negative one only below it
    curve = curve[np.where(curve["advantage"] == pos_name, x <= cc.p_old, x >= cc.p_old)]
    start = pd.DataFrame({"at": [cc.p_old], "label": ["π_old"]})
    return charts.layer(objective_lines(curve, cc, token, [pos_name, neg_name]),
                        charts.rules(start, at="at", label="label", axis="x"),
                        title=t("p8_ratio.chart.title", token=token), height=charts.HEIGHT,
                        subtitle=t("p8_ratio.chart.subtitle_locked", eps=fmt(eps))), curve


def objective_lines(curve: pd.DataFrame, cc: rlcore.ClipCurve, token: str, names: list[str]):
    return charts.lines(curve, x="probability", y="objective",
                        key=charts.Key("advantage", colors=method_colors(names), title=t("p8_ratio.chart.legend")),
                        axes=charts.Axes(t("p8_ratio.chart.x_title", token=token, p_old=fmt(cc.p_old, 3)),
                                         t("p8_ratio.chart.y_title")))


def scrubbed_chart(cs: rlcore.ClipCurve, at: tuple, cc: rlcore.ClipCurve, token: str, eps: float):
    """After the answer: the objective at every ε of the slider's grid, the one dragged to shown (flat past its
    bounds, shaded), and the bounds of the committed ε dashed and labelled with it."""
    names = [f"A = {fmt(cc.size, sign=True)}", f"A = {fmt(-cc.size, sign=True)}"]
    epss, exact = at
    curve = pd.concat([scrub.frame("eps", epss, exact, cs.keep, probability=cs.x, objective=y, advantage=name)
                       for name, y in zip(names, (cs.pos, cs.neg), strict=True)], ignore_index=True)
    colors = method_colors(names)
    flat = [t("p8_ratio.chart.flat_pos"), t("p8_ratio.chart.flat_neg")]
    sides = ((cs.high, 1.0, flat[0], names[0]), (0.0, cs.low, flat[1], names[1]))  # each span in its line's colour
    spans = pd.concat([scrub.frame("eps", epss, exact, **{"from": start, "to": end}, region=label, color=colors[n])
                       for start, end, label, n in sides], ignore_index=True)
    yours = t("chart.scrub_yours", name="ε", value=fmt(eps))
    up = cc.adv >= 0  # the bound in A's direction carries the label
    bounds = pd.DataFrame({"at": [cc.low, cc.high], "label": ["" if up else yours, yours if up else ""]})
    shown = scrub.frame("eps", epss, exact, label=[t("chart.scrub_shown", name="ε", value=fmt(e)) for e in epss])
    ch = charts.layer(charts.shaded_spans(spans, start="from", end="to", label="region", color="color"),
                      objective_lines(curve, cc, token, names),
                      charts.rules(bounds, at="at", label="label", axis="x", label_at=charts.HEIGHT * 3 // 4),
                      charts.note(shown, text="label", corner="bottom left"),
                      title=t("p8_ratio.chart.title", token=token), height=charts.HEIGHT,
                      subtitle=t("p8_ratio.chart.subtitle", eps=fmt(eps), low=fmt(cc.low, 3), high=fmt(cc.high, 3)))
    return ch.resolve_scale(color="independent"), curve


def epochs_section(eps: float) -> None:
    """A few PPO epochs on the example's batch: the probabilities inside their clip bands."""
    st.subheader(t("p8_ratio.epochs.heading"))
    with st.expander(t("p8_ratio.epochs.more")):
        c1, c2 = st.columns(2)
        ppo_lr = inputs.slider(t("p8_ratio.epochs.lr"), 0.01, 2.0, 0.1, 0.01, key="ppo_lr", where=c1)
        epochs = inputs.slider(t("p8_ratio.epochs.epochs"), 1, 50, 10, 1, key="epochs", where=c2)
    if np.any(scenario.pi <= 0):
        st.warning(t("p8_ratio.epochs.zero"), icon="ℹ️")
        return
    pr = page.study(rlcore.ppo_run, scenario, eps, ppo_lr, epochs, entries=32)
    run, batch = pr.run, pr.batch
    df = pd.concat([pd.DataFrame({"epoch": np.arange(epochs + 1), "token": tok, "probability": run.probs[:, k],
                                  "clip band low": pr.bands[k][0], "clip band high": pr.bands[k][1]})
                    for k, tok in enumerate(tokens)], ignore_index=True)
    x_title = t("p8_ratio.epochs.x_title")
    left, right = st.columns([3, 2])
    with left:
        page.chart(charts.layer(
            charts.bands(df, x="epoch", mid="probability", low="clip band low", high="clip band high",
                         key=charts.Key("token", tokens=tokens, title=t("p8_ratio.epochs.token")),
                         axes=charts.Axes(x_title, t("p8_ratio.epochs.y_probs"), y_domain=[0, 1])),
            title=t("p8_ratio.epochs.probs_title"), subtitle=t("p8_ratio.epochs.probs_subtitle", eps=fmt(eps)),
            height=charts.HEIGHT),
                   df, alt_text=t("p8_ratio.epochs.probs_alt"), name="ppo_probs")
    with right:
        clipped = t("p8_ratio.epochs.clipped_series")
        share = pd.DataFrame({"epoch": np.arange(epochs + 1), "measure": clipped,
                              "share clipped": run.clip_fraction})
        page.chart(charts.layer(
            charts.lines(share, x="epoch", y="share clipped",
                         key=charts.Key("measure", colors=method_colors([clipped]), title=t("p8_ratio.epochs.measure")),
                         axes=charts.Axes(x_title, t("p8_ratio.epochs.y_share"), y_domain=[0, 1]), points=True),
            title=t("p8_ratio.epochs.share_title"), subtitle=t("p8_ratio.epochs.share_subtitle"),
            height=charts.HEIGHT),
                   share, alt_text=t("p8_ratio.epochs.share_alt"), name="ppo_clipped")
    st.markdown(t("p8_ratio.epochs.text", n=len(batch.actions), v=fmt(batch.value), lr=fmt(ppo_lr), epochs=epochs,
                  first=fmt_list(run.probs[0]), last=fmt_list(run.probs[-1]),
                  tokens=t("p8_ratio.sep").join(esc(tok) for tok in tokens), clipped=pct(run.clip_fraction[-1])))
    adv = t("p8_ratio.batch.advantage")
    with st.expander(t("p8_ratio.batch.heading")):
        page.table(pd.DataFrame({t("p8_ratio.batch.token"): [tokens[a] for a in batch.actions],
                                 t("p8_ratio.batch.score"): batch.scores, adv: batch.advantages}),
                   formats={adv: "%+.2f"})


@page.panel
def clipping_panel() -> None:
    """The token, ε and everything they feed: the question, the objective and the epochs; moving a widget
    reruns this panel only, not the page."""
    question = st.container()  # the question sits above the inputs it depends on
    c1, c2 = st.columns(2)
    token = inputs.selectbox(t("p8_ratio.token"), tokens, tokens[summary.best], key="token", where=c1,
                             help=t("p8_ratio.token_help"))
    eps = inputs.slider(t("p8_ratio.eps"), EPS_LO, EPS_HI, 0.2, EPS_STEP, key="eps", where=c2, help=glossary.term("ε"))
    tok = esc(token)
    if scenario.pi[scenario.index(token)] <= 0:
        question.warning(t("p8_ratio.zero", token=tok), icon="ℹ️")
        epochs_section(eps)
        return
    cc = page.study(rlcore.clip_curve, scenario, token, eps, entries=32)
    with question:
        revealed = ask(cc, tok, eps)
    if not revealed:
        ch, curve = objective_chart(cc, token, eps)
        page.chart(ch, curve, alt_text=t("p8_ratio.chart.alt", token=token), name="clip_objective")
        st.caption(t("p8_ratio.locked"))
        inputs.later("ppo_lr", "epochs")  # the epochs section's inputs: a link's values wait for the answer
        return
    at = scrub.at(EPS_GRID, eps, EPS_LO, EPS_HI)
    cs = page.study(rlcore.clip_curve, scenario, token, at[0], entries=32)
    ch, curve = scrubbed_chart(cs, at, cc, token, eps)
    page.scrub(ch, curve, field="eps", grid=EPS_GRID, value=eps, label=t("chart.scrub_input", name="ε"),
               alt_text=t("p8_ratio.chart.alt", token=token), name="clip_objective")
    m1, m2, m3, m4 = st.columns(4)
    m1.metric(f"π_old({tok})", fmt(cc.p_old, 3))
    m2.metric(t("p8_ratio.m_adv", token=tok), fmt(cc.adv, sign=True))
    m3.metric(t("p8_ratio.m_high"), fmt(cc.high, 3), help=t("p8_ratio.m_high_help"))
    m4.metric(t("p8_ratio.m_low"), fmt(cc.low, 3), help=t("p8_ratio.m_low_help"))
    direction = "raise" if cc.adv > 0 else "lower" if cc.adv < 0 else "move"
    tries = t(f"p8_ratio.tries_{direction}", token=tok, a=fmt(cc.adv, sign=True))
    st.markdown(t("p8_ratio.bounds_text", token=tok, p_old=fmt(cc.p_old, 3), eps=fmt(eps), high=fmt(cc.high, 3),
                  low=fmt(cc.low, 3), tries=tries))
    epochs_section(eps)


clipping_panel()

page.end(code=(rlcore.clip_curve, rlcore.importance_ratio, rlcore.clip_bounds, rlcore.clipped_objective,
               rlcore.ppo_run, rlcore.batch_advantages, rlcore.ppo_epochs,))
