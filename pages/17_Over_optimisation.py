"""Over-optimisation: train against the reward model while the true judge watches."""

import numpy as np
import pandas as pd
import streamlit as st

from rlcore import judge_studies as js
from ui import charts, inputs, page
from ui.colors import method_colors
from ui.format import esc, fmt
from ui.page import NOTHING_TO_COMPARE

BETAS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5]  # whole ones as ints: a link spells them "1"
COMPARE_BETAS = [0.03, 0.3, 3.0]
COMPARISONS = [50, 100, 200, 500, 1000, 2000, 5000, 20000]
COMPARE_N = [100, 1000, 20000]
MAX_SEED = 999_999
SERIES = ("reward model (what training sees)", "true judge")

scenario = page.setup(
    "Train the policy against the reward model from the page before, with the usual KL penalty, and let the "
    "true judge score every policy along the way. The reward model's score keeps rising; the true score rises, "
    "peaks, and then falls as the policy finds what the reward model overrates. It is the shape reported for "
    "reward-model over-optimisation by Gao, Schulman and Hilton (2022), who plot it against √KL.",
)
page.why(
    "A reward model is right where it saw many comparisons, near the answers the reference writes. The further "
    "training moves the policy from the reference, the more it relies on scores the model learned from little "
    "data, or from raters with a taste of their own. The KL penalty β is the leash: it decides how far the "
    "policy may go, and so whether it stops before or after the true score turns.")

page.presets({
    "Loose leash (β = 0.02)": {"beta": 0.02},
    "Tight leash (β = 1)": {"beta": 1},
    "Raters love flattery": {"flattery": 2.0},
    "Raters ignore flattery": {"flattery": 0.0},
})

c1, c2, c3 = st.columns(3)
beta = inputs.select_slider("KL penalty β", BETAS, 0.05, key="beta", where=c1,
                            help="How much each nat of KL from the reference costs, in judge points.")
n = inputs.select_slider("Comparisons behind the reward model", COMPARISONS, 1000, key="n", where=c2,
                         help="Pairs the raters saw, both written by the reference.")
flattery = inputs.slider("Raters' liking for flattery (judge points)", 0.0, 3.0, js.FLATTERY_BONUS, 0.1,
                         key="flattery", where=c3,
                         help="Raters add this to the flattering answer; the true judge takes it off.")
with st.expander("More settings"):
    m1, m2, m3 = st.columns(3)
    noise = inputs.slider("Raters' noise (judge points)", 0.25, 5.0, 2.0, 0.25, key="noise", where=m1)
    steps = inputs.slider("Training steps", 10, 1000, 300, 10, key="steps", where=m2)
    seed = inputs.number("Random seed", 0, MAX_SEED, 0, key="seed", where=m3,
                         help="The same seed, the same comparisons.")


if np.count_nonzero(js.judge_items(scenario).ref) < 2:  # raters need two answers the model can write
    page.stop_with_notice(NOTHING_TO_COMPARE)


@page.cached(16)
def model(sc, comparisons: int, fl: float, nz: float, sd: int):
    return js.reward_model_study(sc, comparisons=comparisons, flattery=fl, noise=nz, seed=sd)


@page.cached(64)
def train(sc, b: float, comparisons: int, fl: float, nz: float, n_steps: int, sd: int):
    """One reward model per number of comparisons, shared by the runs at every β."""
    return js.train_against(model(sc, comparisons, fl, nz, sd), beta=b, steps=n_steps)


def curves(run, label: str | None = None) -> pd.DataFrame:
    """The two gains along the run against its KL (one series per judge, or only the true one, labelled)."""
    if label is not None:
        return pd.DataFrame({"KL": run.kl, "gain": run.true, "run": label})
    return pd.concat([pd.DataFrame({"KL": run.kl, "gain": g, "run": s})
                      for s, g in zip(SERIES, (run.proxy, run.true), strict=True)], ignore_index=True)


args = (float(flattery), float(noise), int(steps), int(seed))
run = page.run(train, scenario, float(beta), int(n), *args)
items = run.items
answer = "rises, then falls" if run.peak > 0 and run.fall > 0 else "keeps rising"
revealed = page.predict(
    f"Training pushes the policy away from the reference (β = {fmt(beta)}). As the KL grows, what does the "
    "true judge's score do?",
    ["keeps rising", "rises, then falls"], answer,
    f"Its best is {fmt(run.true[run.peak], sign=True)} at KL {fmt(run.kl[run.peak])} (step {run.peak}); by the "
    f"last step it is {fmt(run.true[-1], sign=True)}, while the reward model's score is "
    f"{fmt(run.proxy[-1], sign=True)}. The flattering answer's share went from {fmt(items.ref[-1], 3)} to "
    f"{fmt(run.probs[-1, -1], 3)}.",
    key="predict_over")

df = curves(run) if revealed else curves(run).query("run == @SERIES[0]")
ch = charts.layer(charts.lines(df, x="KL", y="gain", series="run",
                              x_title="KL(π ‖ π_ref) in nats", y_title="gain over the reference (judge points)",
                              colors=method_colors(dict(zip(SERIES, ("reward model", "true judge"), strict=True))),
                              legend_title="scored by"),
                 title="Score gained since the start, against the KL from the reference",
                 subtitle="Each point is the policy after one more step" if revealed
                 else "Answer the question above to see the true judge")
page.chart(ch, df, alt_text="Line chart of the reward model's and the true judge's score gain against the KL "
                            "from the reference, along training.", name="over_optimisation")

if revealed:
    c = st.columns(3)
    c[0].metric("True score at its peak", fmt(run.true[run.peak], sign=True), help="Gain over the reference")
    c[1].metric("KL at the peak", fmt(run.kl[run.peak]), help="nats")
    c[2].metric("Fall after the peak", fmt(run.fall), help="True score at the peak minus at the last step")
    if run.fall > 0:
        flat, best = items.flattering, items.best
        st.markdown(
            f"The reward model scores **{esc(items.names[flat])}** {fmt(run.proxy_scores[flat])} and the plain "
            f"**{esc(items.names[best])}** {fmt(run.proxy_scores[best])}; the true judge gives them "
            f"{fmt(items.true[flat])} and {fmt(items.true[best])}. Once the policy has moved its probability "
            "onto the best answers, the only way left to raise the reward model's score is the answer it "
            "overrates, and the true score pays for it.")
    else:
        st.markdown("Here the true score never turns: either the reward model does not overrate any answer the "
                    "policy can reach, or β holds the policy back before it gets there.")

    st.subheader("The leash: three values of β")
    runs = [page.run(train, scenario, b, int(n), *args) for b in COMPARE_BETAS]
    bdf = pd.concat([curves(r, f"β = {fmt(b)}") for r, b in zip(runs, COMPARE_BETAS, strict=True)],
                    ignore_index=True)
    labels = [f"β = {fmt(b)}" for b in COMPARE_BETAS]
    page.chart(charts.layer(charts.lines(bdf, x="KL", y="gain", series="run",
                                         x_title="KL(π ‖ π_ref) in nats", y_title="true gain (judge points)",
                                         colors=method_colors(labels), legend_title="penalty"),
                            title="True score against KL, for three penalties"),
               bdf, alt_text="True score gain against KL for three values of beta.", name="betas")
    st.markdown(" ".join(
        f"With β = {fmt(b)} training stops at KL {fmt(r.kl[-1])}, true gain {fmt(r.true[-1], sign=True)}"
        f"{' after a fall of ' + fmt(r.fall) if r.fall > 0 else ''}."
        for r, b in zip(runs, COMPARE_BETAS, strict=True)))

    st.subheader("More comparisons behind the reward model")
    nruns = [page.run(train, scenario, float(beta), k, *args) for k in COMPARE_N]
    nlabels = [f"{k:,} comparisons" for k in COMPARE_N]
    ndf = pd.concat([curves(r, lab) for r, lab in zip(nruns, nlabels, strict=True)], ignore_index=True)
    page.chart(charts.layer(charts.lines(ndf, x="KL", y="gain", series="run",
                                         x_title="KL(π ‖ π_ref) in nats", y_title="true gain (judge points)",
                                         colors=method_colors(nlabels), legend_title="reward model from"),
                            title="True score against KL, for three reward models"),
               ndf, alt_text="True score gain against KL for reward models fitted to different numbers of "
                             "comparisons.", name="comparisons")
    st.markdown(" ".join(
        f"From {lab}: peak {fmt(r.true[r.peak], sign=True)} at KL {fmt(r.kl[r.peak])}, fall {fmt(r.fall)}."
        for r, lab in zip(nruns, nlabels, strict=True))
        + " Few comparisons leave the rare flattering answer barely measured, so its score is luck; many pin "
          "down what the raters like, and if they like flattery the reward model learns exactly that.")

    with st.expander("Going further: where training goes, in closed form"):
        st.markdown(
            "Each step here adds η times the reward model's score to the logits and pulls them back toward the "
            "reference by η·β (the natural policy gradient of a softmax policy). After t steps the policy is "
            "π_ref·exp(cₜ·r̂), normalised, with cₜ growing to 1/β: the closed-form optimum of the KL-penalised "
            "objective for a penalty falling toward β. So the curve above is the family of optima, and β only "
            "decides where along it training stops.")
        st.dataframe(pd.DataFrame({"answer": items.names, "reference": items.ref, "after training": run.probs[-1],
                                   "optimum π_ref·exp(r̂/β)": run.limit}), hide_index=True, width="stretch",
                     column_config={k: st.column_config.NumberColumn(format="%.4f")
                                    for k in ("reference", "after training", "optimum π_ref·exp(r̂/β)")})

page.show_code(js.train_against, js.reward_model_study)
page.end()
