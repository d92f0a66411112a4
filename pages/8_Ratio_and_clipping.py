"""Ratio and clipping: how far one batch may move a token's probability before PPO stops pushing it."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page
from ui.bundles import ClipCurve, PPORun
from ui.colors import method_colors
from ui.format import esc, fmt, fmt_list, pct

fit = charts.fit_width  # a plot keeps its height and fits its width (ui.charts)

scenario = page.setup(
    "PPO takes several update steps on one batch of answers. How far can that batch push a token's "
    "probability before PPO stops listening to it?",
)
page.why(
    "Sampling answers is the expensive part of training, so PPO samples one batch, freezes a copy of the policy "
    "that wrote it (π_old) and takes several update steps on that same batch. Those steps chase whatever this "
    "particular batch happened to contain, so they need a brake. The ratio ρ = π / π_old measures how far a "
    "token has moved since the batch was sampled; **clipping** stops the gradient of a token once ρ leaves "
    "[1 − ε, 1 + ε] in the direction its advantage pushes. Going further then needs fresh answers, which keeps "
    "every update close to the policy that produced the data."
)

page.presets({
    "ε = 0.1": {"eps": 0.1},
    "ε = 0.2 (the article)": {"eps": 0.2},
    "ε = 0.3": {"eps": 0.3},
})

summary = page.run(rlcore.summarize, scenario)
tokens = scenario.tokens


@page.cached(32)
def clip_curve(scenario, token, eps) -> ClipCurve:
    """The clipped objective of one token against its probability, for +|A| and −|A|."""
    i = scenario.index(token)
    p_old = float(scenario.pi[i])
    adv = float(rlcore.advantages(scenario.pi, scenario.q)[i])
    low, high = rlcore.clip_bounds(p_old, eps)
    x = np.unique(np.r_[np.linspace(0.0, 1.0, 201), low, high, p_old])
    ratio = rlcore.importance_ratio(x, np.full(x.shape, p_old))
    size = abs(adv) if adv != 0 else 1.0  # a zero advantage has no slope: show ±1 instead
    return ClipCurve(p_old=p_old, adv=adv, size=size, low=low, high=high, x=x,
                     pos=rlcore.clipped_objective(ratio, size, eps), neg=rlcore.clipped_objective(ratio, -size, eps))


@page.cached(32)
def ppo_run(scenario, eps, lr, epochs) -> PPORun:
    """The scenario's sampled answers as one batch (advantage R − V), and PPO epochs on it."""
    batch = rlcore.batch_advantages(scenario.pi, scenario.samples)
    run = rlcore.ppo_epochs(scenario.pi, batch.actions, batch.advantages, lr=lr, epochs=epochs, eps=eps)
    bands = [rlcore.clip_bounds(p, eps) for p in scenario.pi]
    return PPORun(batch=batch, run=run, bands=bands)


def ask(cc: ClipCurve, tok: str, eps: float) -> bool:
    """Predict first: how far can the batch move π(token) in the direction its advantage pushes?"""
    up = cc.adv >= 0
    bound = cc.high if up else cc.low
    answer = f"to {fmt(bound, 3)}"
    added = cc.p_old + eps if up else cc.p_old - eps  # the guess that ε is added, not a factor
    options = [answer, "no limit on this batch"]
    if 0 < added < 1 and fmt(added, 3) != fmt(bound, 3):
        options.insert(0, f"to {fmt(added, 3)}")
    verb = "raise" if up else "lower"
    return page.predict(
        f"The batch was sampled when π({tok}) was **{fmt(cc.p_old, 3)}**, and its advantage "
        f"A = {fmt(cc.adv, sign=True)} asks the update to {verb} it. With ε = {fmt(eps)}, how far can this one "
        f"batch {verb} π({tok})?",
        options, answer,
        f"ρ = π / π_old may only go {'up to 1 + ε' if up else 'down to 1 − ε'} = {fmt(1 + eps if up else 1 - eps)}, "
        f"so π({tok}) may go to {fmt(1 + eps if up else 1 - eps)} × {fmt(cc.p_old, 3)} = {fmt(bound, 3)}: the "
        "limit is a fraction of π_old, not π_old plus ε. Past it the objective is flat, so the batch gives no more "
        "gradient; going further needs fresh answers.",
        key="predict_clip")


def objective_chart(cc: ClipCurve, token: str, eps: float, revealed: bool):
    """The clipped objective against π(token) for ±|A|; before the answer, only the side nothing clips."""
    pos_name, neg_name = f"A = {fmt(cc.size, sign=True)}", f"A = {fmt(-cc.size, sign=True)}"
    curve = pd.concat([pd.DataFrame({"probability": cc.x, "objective": cc.pos, "advantage": pos_name}),
                       pd.DataFrame({"probability": cc.x, "objective": cc.neg, "advantage": neg_name})],
                      ignore_index=True)
    if not revealed:  # a positive A is clipped only above π_old, a negative one only below it
        x = curve["probability"]
        curve = curve[np.where(curve["advantage"] == pos_name, x <= cc.p_old, x >= cc.p_old)]
    colors = method_colors([pos_name, neg_name])
    lines = charts.lines(curve, x="probability", y="objective", series="advantage", colors=colors,
                         legend_title="advantage", x_title=f"π({token}) during the update (π_old = {fmt(cc.p_old, 3)})",
                         y_title="objective min(ρA, clip(ρ)·A)")
    title = {"title": f"PPO's clipped objective for {token}", "height": charts.HEIGHT,
             "subtitle": (f"shaded: no gradient; dashed: the bounds {fmt(cc.low, 3)} and {fmt(cc.high, 3)}"
                          if revealed else f"ε = {fmt(eps)}; each line up to π_old: answer above to see the rest")}
    if not revealed:
        start = pd.DataFrame({"at": [cc.p_old], "label": ["π_old"]})
        return charts.layer(lines, charts.rules(start, at="at", label="label", axis="x"), **title), curve
    spans = pd.DataFrame({"from": [cc.high, 0.0], "to": [1.0, cc.low], "region": ["flat for A > 0", "flat for A < 0"],
                          "color": [colors[pos_name], colors[neg_name]]})  # each span in its line's colour
    bounds = pd.DataFrame({"at": [cc.low, cc.high], "label": ["", ""]})  # numbers in the subtitle: no overlap
    ch = charts.layer(charts.shaded_spans(spans, start="from", end="to", label="region", color="color"), lines,
                      charts.rules(bounds, at="at", label="label", axis="x"),
                      **title).resolve_scale(color="independent")
    return ch, curve


def epochs_section(eps: float) -> None:
    """A few PPO epochs on the example's batch: the probabilities inside their clip bands."""
    st.subheader("A few PPO epochs on one batch")
    with st.expander("More settings"):
        c1, c2 = st.columns(2)
        ppo_lr = inputs.slider("Step size η", 0.01, 2.0, 0.1, 0.01, key="ppo_lr", where=c1)
        epochs = inputs.slider("Epochs on the same batch", 1, 50, 10, 1, key="epochs", where=c2)
    if np.any(scenario.pi <= 0):
        st.warning("A token with probability 0 can never be in the batch, and π_old must be above 0 for every "
                   "token here. Give every token some probability to run the epochs.", icon="ℹ️")
        return
    pr = page.run(ppo_run, scenario, eps, ppo_lr, epochs)
    run, batch = pr.run, pr.batch
    df = pd.concat([pd.DataFrame({"epoch": np.arange(epochs + 1), "token": t, "probability": run.probs[:, k],
                                  "clip band low": pr.bands[k][0], "clip band high": pr.bands[k][1]})
                    for k, t in enumerate(tokens)], ignore_index=True)
    left, right = st.columns([3, 2])
    with left:
        page.chart(fit(charts.layer(
            charts.bands(df, x="epoch", mid="probability", low="clip band low", high="clip band high",
                         series="token", tokens=tokens, legend_title="token", x_title="epoch on the same batch",
                         y_title="probability π(token)", y_domain=[0, 1]),
            title="Each token's probability over the epochs", subtitle=f"shaded: its clip band, (1 ± {fmt(eps)})·π_old",
            height=charts.HEIGHT)),
                   df, alt_text="Probability of each token after each PPO epoch, with the band its clip range allows",
                   name="ppo_probs")
    with right:
        share = pd.DataFrame({"epoch": np.arange(epochs + 1), "measure": "answers clipped",
                              "share clipped": run.clip_fraction})
        page.chart(fit(charts.layer(
            charts.lines(share, x="epoch", y="share clipped", series="measure",
                         colors=method_colors(["answers clipped"]), legend_title="", points=True,
                         x_title="epoch on the same batch", y_title="share of answers clipped", y_domain=[0, 1]),
            title="Share of the batch that is clipped", subtitle="no gradient from these answers",
            height=charts.HEIGHT)),
                   share, alt_text="Share of the batch's answers whose ratio is clipped, after each epoch",
                   name="ppo_clipped")
    st.markdown(
        f"The batch is the example's {len(batch.actions)} sampled answers, each with advantage R − V "
        f"(V = {fmt(batch.value)}). Every epoch takes one step of size η = {fmt(ppo_lr)} on the clipped objective "
        f"of the whole batch. After {epochs} epochs the probabilities go from {fmt_list(run.probs[0])} to "
        f"{fmt_list(run.probs[-1])} ({', '.join(esc(t) for t in tokens)}), and "
        f"{pct(run.clip_fraction[-1])} of the answers are clipped: their token has already moved past its bound in "
        "the direction its advantage pushes, so they add nothing more. A token can still end a little outside its "
        "band, since one step can overshoot the bound and the other answers' updates shift every probability."
    )
    with st.expander("The batch: each answer's first token, score and advantage"):
        st.dataframe(pd.DataFrame({"first token": [tokens[a] for a in batch.actions], "judge score R": batch.scores,
                                   "advantage R − V": batch.advantages}), hide_index=True, width="stretch",
                     column_config={"advantage R − V": st.column_config.NumberColumn(format="%+.2f")})


@st.fragment
def clipping_panel() -> None:
    """The token, ε and everything they feed: the question, the objective and the epochs; moving a widget
    reruns this panel only, not the page."""
    question = st.container()  # the question sits above the inputs it depends on
    c1, c2 = st.columns(2)
    token = inputs.selectbox("Token to follow", tokens, tokens[summary.best], key="token", where=c1,
                             help="Its probability when the batch was sampled is π_old; its advantage is A = Q − V")
    eps = inputs.slider("Clip range ε", 0.05, 0.5, 0.2, 0.05, key="eps", where=c2, help=glossary.term("ε"))
    tok = esc(token)
    if scenario.pi[scenario.index(token)] <= 0:
        question.warning(f"π({tok}) is 0: the batch can never contain it, so its ratio π/π_old is undefined. "
                         "Pick another token.", icon="ℹ️")
        epochs_section(eps)
        return
    cc = page.run(clip_curve, scenario, token, eps)
    with question:
        revealed = ask(cc, tok, eps)
    ch, curve = objective_chart(cc, token, eps, revealed)
    page.chart(fit(ch), curve, alt_text=f"Clipped objective against the probability of {token} for a positive and "
                                        "a negative advantage, flat beyond the clip bounds", name="clip_objective")
    if not revealed:
        st.caption("The clip bounds, and a few PPO epochs that run into them, appear once you answer the question.")
        inputs.later("ppo_lr", "epochs")  # the epochs section's inputs: a link's values wait for the answer
        return
    m1, m2, m3, m4 = st.columns(4)
    m1.metric(f"π_old({tok})", fmt(cc.p_old, 3))
    m2.metric(f"Advantage A({tok})", fmt(cc.adv, sign=True))
    m3.metric("Highest (A > 0)", fmt(cc.high, 3), help="(1 + ε)·π_old, capped at 1")
    m4.metric("Lowest (A < 0)", fmt(cc.low, 3), help="(1 − ε)·π_old")
    direction = "raise" if cc.adv > 0 else "lower" if cc.adv < 0 else "move"
    st.markdown(
        f"The batch was sampled when π({tok}) was {fmt(cc.p_old, 3)}. During the update the ratio "
        f"ρ = π({tok}) / {fmt(cc.p_old, 3)} tracks how far it has moved. With ε = {fmt(eps)} a positive advantage "
        f"earns gradient only while ρ ≤ 1 + ε, that is until π({tok}) reaches **{fmt(cc.high, 3)}**; "
        f"a negative one only until it falls to **{fmt(cc.low, 3)}**. Here A({tok}) = "
        f"{fmt(cc.adv, sign=True)}, so the batch tries to {direction} π({tok})."
    )
    epochs_section(eps)


clipping_panel()

page.show_code(rlcore.importance_ratio, rlcore.clip_bounds, rlcore.clipped_objective, rlcore.batch_advantages,
               rlcore.ppo_epochs)
page.end()
