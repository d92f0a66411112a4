"""DPO: the KL-regularised optimum reached straight from the preference pairs, without a reward model."""

import numpy as np
import pandas as pd
import streamlit as st

from rlcore import judge_studies as js
from rlcore import preference
from rlcore.kl import kl_optimal_policy
from ui import charts, inputs, page
from ui.colors import method_colors
from ui.format import esc, fmt
from ui.page import NOTHING_TO_COMPARE
from ui.prep import thin_steps

BETAS = [0.1, 0.2, 0.5, 1, 2, 5]  # whole ones as ints: a link spells them "1"
COMPARISONS = [20, 50, 100, 200, 500, 1000, 2000, 5000, 20000]
TAUS = [0.1, 0.25, 0.5, 1, 2]
MAX_SEED = 999_999
MAX_POINTS = 80
CURVES = ("DPO steps", "closed form π_ref·exp(r̂/β)")
LANDINGS = ["on the optimum of a reward model fitted to the same pairs", "back on the reference",
            "on the answers that never lost"]

scenario = page.setup(
    "The KL-penalised objective E_π[r] − β·KL(π‖π_ref) has a best policy in closed form, "
    "π*(a) ∝ π_ref(a)·exp(r(a)/β). Turned around, r(a) = β·log(π*(a)/π_ref(a)) plus a constant, and put into "
    "Bradley–Terry the constant cancels: the policy itself can be fitted to the raters' pairs. That is "
    "**DPO** (Rafailov et al., 2023): no reward model, no sampling, one loss on the preference pairs. Here it "
    "runs on the same simulated pairs as the reward-model page.",
)
page.why(
    "DPO replaced RLHF's two stages (fit a reward model, then run PPO against it) in many open models, because "
    "it is one supervised-looking loss. It is not magic: it lands where the reward model fitted to the same "
    "pairs would send a KL-penalised policy, with that model's mistakes, and on pairs that always go one way "
    "it keeps pushing without end.")

page.presets({
    "Few pairs": {"n": 50},
    "Many pairs": {"n": 20000},
    "Small β": {"beta": 0.1},
    "Large β": {"beta": 5},
})

c1, c2, c3 = st.columns(3)
beta = inputs.select_slider("β", BETAS, 0.5, key="beta", where=c1,
                            help="DPO's KL penalty, on the raters' scale: smaller moves further from π_ref.")
n = inputs.select_slider("Preference pairs", COMPARISONS, 1000, key="n", where=c2,
                         help="The raters' comparisons, both answers written by the reference.")
steps = inputs.slider("DPO steps", 0, 2000, 400, 50, key="steps", where=c3)
with st.expander("More settings"):
    m1, m2, m3 = st.columns(3)
    flattery = inputs.slider("Raters' liking for flattery (judge points)", 0.0, 3.0, js.FLATTERY_BONUS, 0.1,
                             key="flattery", where=m1)
    noise = inputs.slider("Raters' noise (judge points)", 0.25, 5.0, 2.0, 0.25, key="noise", where=m2)
    seed = inputs.number("Random seed", 0, MAX_SEED, 0, key="seed", where=m3)


if np.count_nonzero(js.judge_items(scenario).ref) < 2:  # raters need two answers the model can write
    page.stop_with_notice(NOTHING_TO_COMPARE)


@page.cached(32)
def dpo(sc, b: float, comparisons: int, n_steps: int, fl: float, nz: float, sd: int):
    return js.dpo_study(sc, beta=b, comparisons=comparisons, steps=n_steps, flattery=fl, noise=nz, seed=sd)


@page.cached(16)
def ipo(sc, b: float, tau: float, fl: float):
    return js.ipo_study(sc, beta=b, tau=tau, flattery=fl)


d = page.run(dpo, scenario, float(beta), int(n), int(steps), float(flattery), float(noise), int(seed))
items, names = d.items, d.items.names
landing = LANDINGS[0] if d.unbounded.size == 0 else LANDINGS[2]
revealed = page.predict(
    f"DPO never fits a reward model. Run long enough on these {int(n):,} pairs, where does its policy go?",
    LANDINGS, landing,
    "Its loss is Bradley–Terry's with β·log(π/π_ref) in place of the reward, so its minimum is the policy whose "
    "implicit reward equals the Bradley–Terry fit of the same pairs: π_ref·exp(r̂/β)." if d.unbounded.size == 0
    else "Some answers never lost in these pairs, so no finite fit exists: DPO keeps raising them and pushes "
         "every other answer toward 0, at any β.",
    key="predict_dpo")

at = thin_steps(d.probs.shape[0], MAX_POINTS)
rows = [{"step": int(t), "probability": float(d.probs[t, i]), "answer": a, "curve": CURVES[0]}
        for t in at for i, a in enumerate(names)]
if revealed:
    rows += [{"step": int(t), "probability": float(d.fitted_optimum[i]), "answer": a, "curve": CURVES[1]}
             for t in (at[0], at[-1]) for i, a in enumerate(names)]
path = pd.DataFrame(rows)
ch = charts.layer(charts.lines(path, x="step", y="probability", series="answer", tokens=names, dash="curve",
                              x_title="DPO step", y_title="probability π(answer)", legend_title="answer"),
                 title="The policy along DPO's steps",
                 subtitle="Dashed: where the reward model fitted to the same pairs would send it" if revealed
                 else "Answer the question above to see the closed-form optimum")
page.chart(ch, path, alt_text="Line chart of each answer's probability along DPO's steps, with dashed lines at "
                              "the closed-form optimum.", name="dpo_path")

if revealed:
    table = pd.DataFrame({"answer": names, "π_ref": items.ref, f"DPO after {int(steps)} steps": d.probs[-1],
                          "π* of the fitted reward model": d.fitted_optimum,
                          "π* of the raters' own scores": d.rater_optimum,
                          "implicit reward β·log(π/π_ref)": d.implicit, "fitted reward r̂": d.fitted})
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.4f") for c in table.columns[1:]})
    st.markdown(
        "The implicit reward of the policy DPO reaches is the fitted Bradley–Terry reward, both shifted to mean "
        "0, where DPO has converged: it recovers the reward up to a constant. With more pairs both approach the "
        "raters' own optimum, flattery included.")

    st.subheader("Which pairs still push")
    pairs = pd.DataFrame({
        "preferred ≻ other": [f"{names[w]} ≻ {names[lo]}" for w, lo in zip(d.pair_winner, d.pair_loser,
                                                                           strict=True)],
        "times": d.pair_count.astype(int),
        "weight at the start": d.weights[0],
        f"weight after {int(steps)} steps": d.weights[-1],
    })
    st.dataframe(pairs, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in pairs.columns[2:]})
    series = ("DPO loss", "mean pair weight σ(−β·margin)")
    curve = pd.concat([pd.DataFrame({"step": at, "value": v[at], "series": name})
                       for name, v in zip(series, (d.loss, d.mean_weight), strict=True)], ignore_index=True)
    page.chart(charts.layer(charts.lines(curve, x="step", y="value", series="series", x_title="DPO step",
                                         y_title="value",
                                         colors=method_colors(dict(zip(series, ("dpo loss", "pair weight"),
                                                                       strict=True))),
                                         legend_title="curve"),
                            title="The loss, and how hard the pairs still push"),
               curve, alt_text="Line chart of the DPO loss and the mean pair weight along the steps.",
               name="dpo_loss")
    st.markdown(
        "Each pair's gradient is weighed by σ(−β·margin): ½ at the start, when π = π_ref and every margin is "
        "0; near 1 for a pair the policy still ranks the wrong way; near 0 once it ranks the pair right by a "
        "wide margin. A pair that goes both ways in the data keeps some weight on each side, and they balance "
        "at the optimum.")

# Drawn whether or not the question is answered (it does not give the answer away), so τ in a link always has
# its input.
st.subheader("Going further: pairs that always go one way, and IPO")
with st.container():
    tau = inputs.select_slider("IPO's τ", TAUS, 0.5, key="tau",
                               help="IPO aims each margin at 1/(2τ): smaller τ, larger margins.")
    s = None
    try:
        s = ipo(scenario, float(beta), float(tau), float(flattery))
    except ValueError:  # every answer the reference writes has one rater score: no pair has a better side
        st.info("Every answer this example can write gets the same rater score, so no pair has a better side "
                "and there is nothing for DPO or IPO to push on. Give the answers different scores.")
    if s is not None:
        ip_at = thin_steps(s.dpo.shape[0], MAX_POINTS)
        worst = names[s.worst]
        ipdf = pd.DataFrame({"step": [*ip_at, *ip_at],
                             "probability": [*s.dpo[ip_at, s.worst], *s.ipo[ip_at, s.worst]],
                             "method": ["DPO"] * len(ip_at) + ["IPO"] * len(ip_at)})
        page.chart(charts.layer(charts.lines(ipdf, x="step", y="probability", series="method", x_title="step",
                                             y_title="probability",
                                             colors=method_colors({"DPO": "dpo", "IPO": "ipo"}),
                                             legend_title="method"),
                                title=f"π({worst}), the answer the raters like least",
                                subtitle="Every pair of answers compared once, the better one always chosen"),
                   ipdf, alt_text="Line chart of the least liked answer's probability under DPO and IPO.",
                   name="ipo")
        st.markdown(
            f"When raters never disagree, DPO's loss on every pair keeps falling as the margin grows, so "
            f"**{esc(worst)}** goes from {fmt(s.dpo[0, s.worst], 3)} to {fmt(s.dpo[-1, s.worst], 4)} and would "
            f"keep falling: the optimum is at 0, whatever β. IPO (Azar et al., 2023) aims each margin at "
            f"1/(2τ) = {fmt(s.target)} instead and settles at {fmt(s.ipo[-1, s.worst], 4)}.")

page.show_code(preference.dpo_loss, preference.dpo_margins, preference.dpo_weights, preference.implicit_reward,
               kl_optimal_policy, js.dpo_study)
page.end()
