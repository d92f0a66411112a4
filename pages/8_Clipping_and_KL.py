"""Small steps: PPO's ratio and clipping on one batch, and the KL penalty that keeps the policy near the reference."""

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, inputs, page, prep
from ui.bundles import ClipCurve, Estimators, KLCurve, PPORun
from ui.colors import METHOD_PALETTE
from ui.format import esc, fmt, fmt_list, pct

scenario = page.setup(
    "Clipping and KL", "🧷",
    "Sampling answers is expensive, so PPO samples one batch, freezes a copy of the policy that wrote it "
    "(π_old), and takes several update steps on that same batch. Two brakes keep those steps small. "
    "**Clipping** stops a token's update once its probability has moved too far from π_old on this batch. "
    "The **KL penalty** charges the policy for drifting from the reference model, the model before RL, "
    "so it cannot wander off to answers the judge over-rates.",
)

page.presets({
    "The article (ε 0.2, β 1)": {"eps": 0.2, "beta": 1.0, "share": 0.9},
    "β = 0: no KL penalty": {"beta": 0.0},
    "ε = 0.1": {"eps": 0.1},
    "ε = 0.2": {"eps": 0.2},
    "ε = 0.3": {"eps": 0.3},
})


def fit(ch):
    """Keep the plot at its set height and fit only the width (a bottom legend must not squash the plot)."""
    return ch.properties(autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))


summary = page.run(rlcore.summarize, scenario)
tokens = scenario.tokens


@st.cache_data(max_entries=32, show_spinner=False)
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


@st.cache_data(max_entries=32, show_spinner=False)
def ppo_run(scenario, eps, lr, epochs) -> PPORun:
    """The scenario's sampled answers as one batch (advantage R − V), and PPO epochs on it."""
    batch = rlcore.batch_advantages(scenario.pi, scenario.samples)
    run = rlcore.ppo_epochs(scenario.pi, batch.actions, batch.advantages, lr=lr, epochs=epochs, eps=eps)
    bands = [rlcore.clip_bounds(p, eps) for p in scenario.pi]
    return PPORun(batch=batch, run=run, bands=bands)


@st.cache_data(max_entries=32, show_spinner=False)
def kl_curve(fl: rlcore.FlatteryBranch, share, beta) -> KLCurve:
    """The regularised objective over every share, at the reference, at the chosen share and at the optimum."""
    ref_share = float(fl.p_ref[1])
    best = rlcore.regularized_optimum(fl.p_ref, fl.rewards, beta)
    grid = np.unique(np.r_[np.linspace(0.0, 1.0, 201), ref_share, share, best[1]])
    points = rlcore.share_curve([ref_share, share, best[1]], fl.rewards, fl.p_ref, beta)
    return KLCurve(ref_share=ref_share, best=best, curve=rlcore.share_curve(grid, fl.rewards, fl.p_ref, beta),
                   points=points)


@st.cache_data(max_entries=32, show_spinner=False)
def estimators(fl: rlcore.FlatteryBranch, share, n, seed) -> Estimators:
    pi = np.array([1.0 - share, share])
    study = rlcore.kl_estimator_study(pi, fl.p_ref, n, seed)
    return Estimators(study=study, hist=prep.histogram_counts(np.stack(study.estimates), 30))


# ================================================================ ratio and clipping
st.header("Ratio and clipping")


@st.fragment
def clipping_panel() -> None:
    """The token, ε and the PPO epochs: ε feeds both the clipped objective and the epochs, so moving any of
    them reruns this panel only, not the page."""
    c1, c2 = st.columns(2)
    token = inputs.selectbox("Token to follow", tokens, tokens[summary.best], key="token", where=c1,
                             help="Its probability when the batch was sampled is π_old; its advantage is A = Q − V")
    eps = inputs.slider("Clip range ε", 0.05, 0.5, 0.2, 0.05, key="eps", where=c2,
                        help="The update stops for a token once ρ = π/π_old leaves [1 − ε, 1 + ε]")

    i_tok = scenario.index(token)
    tok = esc(token)
    if scenario.pi[i_tok] <= 0:
        st.warning(f"π({tok}) is 0: the batch can never contain it, so its ratio π/π_old is undefined. "
                   "Pick another token.", icon="ℹ️")
    else:
        cc = page.run(clip_curve, scenario, token, eps)
        m1, m2, m3, m4 = st.columns(4)
        m1.metric(f"π_old({tok})", fmt(cc.p_old, 3))
        m2.metric(f"Advantage A({tok})", fmt(cc.adv, sign=True))
        m3.metric("Highest it can be pushed (A > 0)", fmt(cc.high, 3), help="(1 + ε)·π_old, capped at 1")
        m4.metric("Lowest it can be pushed (A < 0)", fmt(cc.low, 3), help="(1 − ε)·π_old")
        pos_name, neg_name = f"A = {fmt(cc.size, sign=True)}", f"A = {fmt(-cc.size, sign=True)}"
        direction = "raise" if cc.adv > 0 else "lower" if cc.adv < 0 else "move"
        st.markdown(
            f"The batch was sampled when π({tok}) was {fmt(cc.p_old, 3)}. During the update the ratio "
            f"ρ = π({tok}) / {fmt(cc.p_old, 3)} tracks how far it has moved. With ε = {fmt(eps)} a positive advantage "
            f"earns gradient only while ρ ≤ 1 + ε, that is until π({tok}) reaches **{fmt(cc.high, 3)}**; "
            f"a negative one only until it falls to **{fmt(cc.low, 3)}**. Past those points the objective is flat, "
            f"so this batch stops pushing, and going further needs fresh samples. Here A({tok}) = "
            f"{fmt(cc.adv, sign=True)}, so the batch tries to {direction} π({tok})."
        )
        curve = pd.concat([pd.DataFrame({"probability": cc.x, "objective": cc.pos, "advantage": pos_name}),
                           pd.DataFrame({"probability": cc.x, "objective": cc.neg, "advantage": neg_name})],
                          ignore_index=True)
        spans = pd.DataFrame({"from": [cc.high, 0.0], "to": [1.0, cc.low],
                              "region": ["flat for A > 0", "flat for A < 0"], "color": list(METHOD_PALETTE[:2])})
        bounds = pd.DataFrame({"at": [cc.low, cc.high], "label": ["", ""]})  # numbers in the subtitle: no overlap
        ch = charts.layer(charts.shaded_spans(spans, start="from", end="to", label="region", color="color"),
                          charts.line_chart(curve, x="probability", y="objective", series="advantage",
                                  title=f"PPO's clipped objective for {token}",
                                  subtitle=f"shaded: the gradient is zero there; dashed: the clip bounds "
                                           f"{fmt(cc.low, 3)} and {fmt(cc.high, 3)}",
                                  x_title=f"π({token}) during the update (π_old = {fmt(cc.p_old, 3)})",
                                  y_title="objective min(ρA, clip(ρ)·A)", legend_title="advantage", points=False),
                          charts.rules(bounds, at="at", label="label", axis="x")).resolve_scale(color="independent")
        page.chart(fit(ch), curve, alt_text=f"Clipped objective against the probability of {token} for a positive and "
                                            f"a negative advantage, flat beyond the clip bounds",
                   name="clip_objective")

    # ---------------------------------------------------------------- a few epochs on one batch
    st.subheader("A few PPO epochs on one batch")
    c1, c2 = st.columns(2)
    ppo_lr = inputs.slider("Step size η", 0.01, 2.0, 0.1, 0.01, key="ppo_lr", where=c1)
    epochs = inputs.slider("Epochs on the same batch", 1, 50, 10, 1, key="epochs", where=c2)

    if np.any(scenario.pi <= 0):
        st.warning("A token with probability 0 can never be in the batch, and π_old must be above 0 for every "
                   "token here. Give every token some probability to run the epochs.", icon="ℹ️")
    else:
        pr = page.run(ppo_run, scenario, eps, ppo_lr, epochs)
        run, batch = pr.run, pr.batch
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
        left, right = st.columns([3, 2])
        with left:
            df = pd.concat([pd.DataFrame({"epoch": np.arange(epochs + 1), "token": t, "probability": run.probs[:, k],
                                          "clip band low": pr.bands[k][0], "clip band high": pr.bands[k][1]})
                            for k, t in enumerate(tokens)], ignore_index=True)
            page.chart(fit(charts.band_chart(df, x="epoch", mid="probability", low="clip band low",
                                             high="clip band high", series="token", tokens=tokens,
                                             title="Each token's probability over the epochs",
                                             subtitle=f"shaded: its clip band, (1 ± {fmt(eps)})·π_old",
                                             x_title="epoch on the same batch", y_title="probability π(token)",
                                             legend_title="token", y_domain=[0, 1])),
                       df, alt_text="Probability of each token after each PPO epoch, with the band its clip range "
                                    "allows",
                       name="ppo_probs")
        with right:
            df = pd.DataFrame({"epoch": np.arange(epochs + 1), "measure": "answers clipped",
                               "share clipped": run.clip_fraction})
            page.chart(fit(charts.line_chart(df, x="epoch", y="share clipped", series="measure",
                                             title="Share of the batch that is clipped",
                                             subtitle="no gradient from these answers",
                                             x_title="epoch on the same batch",
                                             y_title="share of answers clipped", legend_title="", y_domain=[0, 1])),
                       df, alt_text="Share of the batch's answers whose ratio is clipped, after each epoch",
                       name="ppo_clipped")


clipping_panel()


# ================================================================ KL penalty
st.header("The KL penalty")
fl = rlcore.FLATTERY
plain, flattering = (esc(c) for c in fl.continuations)
st.markdown(
    f"The judge is only reliable on the kind of answer it has seen. Inside the branch that scores best it gives "
    f"the plain “{plain}” {fmt(fl.scores[0])}, but the flattering “{flattering}” {fmt(fl.scores[1])}. The reference "
    f"model writes the flattering one {pct(fl.ref_probs[1])} of the time. Left alone, RL would learn to flatter: a "
    f"higher score for an answer that is no better. The KL penalty subtracts β · KL(π‖π_ref) from the judge's "
    "score, so drifting away from the reference has a price."
)


@st.fragment
def kl_panel() -> None:
    """The share of flattery, β and the KL estimators: the share feeds every chart down to the prediction,
    so moving any of them reruns this panel only."""
    c1, c2 = st.columns(2)
    share = inputs.slider("Share of flattering answers", 0.0, 1.0, 0.9, 0.01, key="share", where=c1,
                          help="How often the policy writes the flattering answer in this branch")
    beta = inputs.slider("KL weight β", 0.0, 5.0, 1.0, 0.1, key="beta", where=c2,
                         help="The article uses β = 1 to make the effect visible; real systems use much less")

    kc = page.run(kl_curve, fl, share, beta)
    pts = kc.points
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Mean judge score", f"{fmt(pts.expected_reward[0])} → {fmt(pts.expected_reward[1])}",
              help=f"at {pct(kc.ref_share)} flattery (the reference) → at {pct(share)}")
    m2.metric("KL(π‖π_ref), nats", f"{fmt(pts.kl[0])} → {fmt(pts.kl[1])}")
    m3.metric(f"Objective R − β·KL (β = {fmt(beta)})", f"{fmt(pts.objective[0])} → {fmt(pts.objective[1])}")
    m4.metric("Best share of flattery for this β", pct(kc.best[1], 1),
              help="π* ∝ π_ref · exp(score / β): the share that maximises the objective")
    verdict = ("lowers" if pts.objective[1] < pts.objective[0] else
               "raises" if pts.objective[1] > pts.objective[0] else "leaves unchanged")
    st.markdown(
        f"Going from {pct(kc.ref_share)} to {pct(share)} flattery lifts the judge's mean score from "
        f"{fmt(pts.expected_reward[0])} to {fmt(pts.expected_reward[1])}, but it moves the policy "
        f"KL = {fmt(pts.kl[1])} nats away from the reference. With β = {fmt(beta)} that **{verdict}** the objective, "
        f"from {fmt(pts.objective[0])} to {fmt(pts.objective[1])}. The best the objective can do at this β is to "
        f"flatter {pct(kc.best[1], 1)} of the time (objective {fmt(pts.objective[2])})."
    )
    c = kc.curve
    df = pd.concat([pd.DataFrame({"share": c.shares, "quantity": name, "value": v})
                    for name, v in (("mean judge score", c.expected_reward), ("KL(π‖π_ref)", c.kl),
                                    ("objective R − β·KL", c.objective))], ignore_index=True)
    marks = pd.DataFrame({"share": [kc.ref_share, share], "value": pts.objective[:2], "quantity": "objective R − β·KL",
                          "label": [f"reference {pct(kc.ref_share)}", f"yours {pct(share)}"]})
    best_rule = pd.DataFrame({"at": [kc.best[1]], "label": [""]})  # its number is in the subtitle
    ch = charts.layer(charts.line_chart(df, x="share", y="value", series="quantity",
                            title="Judge score, KL and the regularised objective",
                            subtitle=f"β = {fmt(beta)}; points: the reference and your share; dashed: the best share "
                                     f"π* = {pct(kc.best[1], 1)}",
                            x_title="share of flattering answers", y_title="score or nats", legend_title="",
                            points=False),
                      charts.labelled_points(marks, x="share", y="value", series="quantity", label="label",
                                             x_title="share of flattering answers", y_title="score or nats"),
                      charts.rules(best_rule, at="at", label="label", axis="x"))
    page.chart(fit(ch), df, alt_text="Mean judge score, KL to the reference and the KL-regularised objective "
                                     "against the share of flattering answers", name="kl_share")

    # ---------------------------------------------------------------- estimating the KL from samples
    st.subheader("Estimating the KL from sampled tokens")
    st.markdown(
        "Training never sums over every possible answer: it sees sampled tokens and estimates the KL from them. "
        "Three per-token estimators are common. With r = π_ref/π for the sampled token: k1 = −log r, "
        "k2 = ½(log r)², k3 = (r − 1) − log r."
    )
    c1, c2 = st.columns(2)
    n = inputs.slider("Tokens sampled from π", 10, 2000, 200, 10, key="n", where=c1)
    seed = inputs.number("Seed", 0, 10_000, 0, key="kl_seed", where=c2)

    es = page.run(estimators, fl, share, n, int(seed))
    est = es.study
    names = ["k1", "k2", "k3"]
    cols = {f"mean of the {n}": est.sample_mean, f"spread (std) of the {n}": est.sample_std, "exact mean": est.expected,
            "bias (mean − KL)": est.bias, "exact spread": est.spread, "share below 0": est.negative_share}
    st.dataframe(pd.DataFrame({"estimator": names, **cols}), hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in cols})
    st.markdown(
        f"The exact KL here is **{fmt(est.exact)}**. k1 averages to it ({fmt(est.sample_mean[0])} from these "
        f"{n} tokens), but "
        + (f"single values can be negative ({pct(est.negative_share[0])} of them here). " if est.negative_share[0] > 0
           else "its single values can be negative (none of these happen to be). ")
        + (f"k3 also averages to it ({fmt(est.sample_mean[2])}), is never negative, and its spread "
           if est.bias[2] == 0 else
           f"k3 is never negative, but here it expects {fmt(est.expected[2])}, off by {fmt(est.bias[2], sign=True)}: "
           "π never writes a token π_ref can write, and k3 only averages to the KL when it does. Its spread ")
        + f"({fmt(est.spread[2])}) is {'smaller' if est.spread[2] < est.spread[0] else 'not smaller'} than k1's "
        f"({fmt(est.spread[0])}). k2 (spread {fmt(est.spread[1])}) is biased: it expects {fmt(est.expected[1])}, "
        f"off by {fmt(est.bias[1], sign=True)}; it is only close when π is close to π_ref."
    )
    h = es.hist
    df = pd.concat([pd.DataFrame({"estimator": name, "from": h.edges[:-1], "to": h.edges[1:], "share": h.shares[j]})
                    for j, name in enumerate(names)], ignore_index=True)
    page.chart(charts.histogram(df, start="from", end="to", count="share", series="estimator",
                                title=f"Per-token values of k1, k2, k3 on {n} sampled tokens",
                                subtitle=f"exact KL = {fmt(est.exact)}; each token is plain or flattering, so each "
                                         "estimator takes two values", x_title="per-token estimate (nats)",
                                y_title="share of tokens"),
               df, alt_text="Histograms of the per-token values of the three KL estimators", name="kl_estimators")

    st.subheader("Where the KL goes")
    st.markdown(
        "- **In the reward, per token (PPO-style RLHF).** Each token's reward gets −β·(log π − log π_ref), the k1 "
        "value of that token, before returns and advantages are computed; the critic and GAE then treat the penalty "
        "like any other reward.\n"
        "- **In the loss (GRPO-style).** The reward stays the judge's score and the advantages ignore the KL; instead "
        "β·k3 of every token is added to the loss. k3 suits that job: it is never negative and varies little.\n"
        "- Either way it is counted token by token, and β is far smaller than 1 in practice; β = 1 here only makes "
        "the effect easy to see."
    )

    # ---------------------------------------------------------------- predict
    if pts.objective[1] > pts.objective[0]:
        answer = "Better"
    elif pts.objective[1] < pts.objective[0]:
        answer = "Worse"
    else:
        answer = "The same"
    page.predict(
        f"With β = {fmt(beta)}, is {pct(share)} flattery better or worse than {pct(kc.ref_share)} for the objective?",
        ["Better", "Worse", "The same"], answer,
        f"The judge's mean goes from {fmt(pts.expected_reward[0])} to {fmt(pts.expected_reward[1])}, but the KL "
        f"goes from {fmt(pts.kl[0])} to {fmt(pts.kl[1])}, so R − β·KL goes from {fmt(pts.objective[0])} to "
        f"{fmt(pts.objective[1])}.",
        key="predict_kl",
    )


kl_panel()

page.show_code(rlcore.clip_bounds, rlcore.clipped_objective, rlcore.batch_advantages, rlcore.ppo_epochs,
               rlcore.share_curve, rlcore.regularized_optimum, rlcore.kl_optimal_policy, rlcore.kl_estimators,
               rlcore.kl_estimator_study)
page.end()
