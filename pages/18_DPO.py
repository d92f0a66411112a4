"""DPO: the KL-regularised optimum reached straight from the preference pairs, without a reward model."""

import numpy as np
import pandas as pd
import streamlit as st

from rlcore import judge_studies as js
from rlcore import preference
from rlcore.formulas.kl import kl_optimal_policy
from ui import charts, inputs, page
from ui.colors import method_colors
from ui.format import esc, fmt, pct, wrap
from ui.i18n import t
from ui.page import NOTHING_TO_COMPARE
from ui.prep import thin_steps

BETAS = [0.1, 0.2, 0.5, 1, 2, 5]  # whole ones as ints: a link spells them "1"
COMPARISONS = [20, 50, 100, 200, 500, 1000, 2000, 5000, 20000]
TAUS = [0.1, 0.25, 0.5, 1, 2]
MAX_SEED = 999_999
MAX_POINTS = 80

scenario = page.setup("p18")
CURVES = (t("p18.curve_dpo"), t("p18.curve_closed"))
LANDINGS = [t("p18.landing_fit"), t("p18.landing_ref"), t("p18.landing_unbeaten")]

page.presets({
    t("p18.preset_few"): {"n": 50},
    t("p18.preset_many"): {"n": 20000},
    t("p18.preset_small_beta"): {"beta": 0.1},
    t("p18.preset_large_beta"): {"beta": 5},
})

c1, c2, c3 = st.columns(3)
beta = inputs.select_slider("β", BETAS, 0.5, key="beta", where=c1,
                            help=t("p18.beta_help"))
n = inputs.select_slider(t("p18.pairs"), COMPARISONS, 1000, key="n", where=c2, help=t("p18.pairs_help"))
steps = inputs.slider(t("p18.steps"), 0, 2000, 400, 50, key="steps", where=c3)
with st.expander(t("judge.more_settings")):
    m1, m2, m3 = st.columns(3)
    flattery = inputs.slider(t("judge.flattery"), 0.0, 3.0, js.FLATTERY_BONUS, 0.1,
                             key="flattery", where=m1)
    noise = inputs.slider(t("judge.noise"), 0.25, 5.0, 2.0, 0.25, key="noise", where=m2)
    seed = inputs.number(t("judge.seed"), 0, MAX_SEED, 0, key="seed", where=m3)


if np.count_nonzero(js.judge_items(scenario).ref) < 2:  # raters need two answers the model can write
    page.stop_with_notice(NOTHING_TO_COMPARE)


@page.cached(32)
def dpo(sc, b: float, comparisons: int, n_steps: int, fl: float, nz: float, sd: int):
    return js.dpo_study(sc, beta=b, comparisons=comparisons, steps=n_steps, flattery=fl, noise=nz, seed=sd)


@page.cached(16)
def lab_rl(sc, b: float, nz: float, fl: float):
    return js.lab_on_raters(sc, beta=b, noise=nz, flattery=fl)


@page.cached(16)
def ipo(sc, b: float, tau: float, fl: float):
    return js.ipo_study(sc, beta=b, tau=tau, flattery=fl)


def rl_section(d, names, steps: int) -> None:
    """RL with a KL penalty on the raters' own scores (the toy lab's PPO), beside DPO and the optimum both aim at."""
    st.subheader(t("p18.rl_heading"))
    rl = page.run(lab_rl, scenario, float(beta), float(noise), float(flattery))
    if rl is None:
        return
    if rl.diverged_at is not None:
        st.warning(t("p18.rl_diverged", step=rl.diverged_at), icon="⚠️")
        return
    ways = {t("p18.way_ref"): "reference", t("p18.way_optimum"): "kl optimum",
            t("p18.way_dpo", steps=steps): "dpo", t("p18.way_ppo", steps=rl.steps): "ppo"}
    values = (d.items.ref, rl.optimum, d.probs[-1], rl.median)
    bars = pd.DataFrame([{"answer": a, "way": way, "probability": float(v[i])}
                         for way, v in zip(ways, values, strict=True) for i, a in enumerate(names)])
    ch = charts.grouped_bars(bars, x="answer", y="probability", group="way", title=t("p18.rl_title"),
                             subtitle=wrap(t("p18.rl_subtitle", lab_beta=fmt(rl.lab_beta), seeds=js.LAB_SEEDS)),
                             x_title=t("p18.answer"), y_title=t("p18.path_y"), colors=method_colors(ways))
    page.chart(ch, bars, alt_text=t("p18.rl_alt"), name="dpo_rl")
    gap = rl.gap
    worst = int(np.argmax(gap))
    values = dict(lab_beta=fmt(rl.lab_beta), steps=rl.steps, answer=esc(names[worst]),
                  ref=pct(d.items.ref[worst], 1), optimum=pct(rl.optimum[worst], 1), ppo=pct(rl.median[worst], 1))
    if rl.on_optimum:
        shown = pct(gap[worst], 2) if gap[worst] >= 5e-5 else f"< {pct(1e-4, 2)}"  # pct rounds 0.004% to 0%
        st.markdown(t("p18.rl_close", gap=shown, **values))
    elif rl.median[worst] < d.items.ref[worst] < rl.optimum[worst]:  # π* raises it, PPO lowered it: unexplored
        st.markdown(t("p18.rl_behind", **values))
    else:
        st.markdown(t("p18.rl_not_yet", **values))


d = page.run(dpo, scenario, float(beta), int(n), int(steps), float(flattery), float(noise), int(seed))
items = d.items
names = page.answer_names(items)  # the flattering copy, last, named in the page's language
landing = LANDINGS[0] if d.unbounded.size == 0 else LANDINGS[2]
revealed = page.predict(
    t("p18.question", pairs=f"{int(n):,}"), LANDINGS, landing,
    t("p18.explain_fit" if d.unbounded.size == 0 else "p18.explain_unbeaten"), key="predict_dpo")

at = thin_steps(d.probs.shape[0], MAX_POINTS)
rows = [{"step": int(t), "probability": float(d.probs[t, i]), "answer": a, "curve": CURVES[0]}
        for t in at for i, a in enumerate(names)]
if revealed:
    rows += [{"step": int(t), "probability": float(d.fitted_optimum[i]), "answer": a, "curve": CURVES[1]}
             for t in (at[0], at[-1]) for i, a in enumerate(names)]
path = pd.DataFrame(rows)
ch = charts.layer(charts.lines(path, x="step", y="probability", series="answer", tokens=names, dash="curve",
                              x_title=t("p18.path_x"), y_title=t("p18.path_y"), legend_title=t("p18.answer")),
                 title=t("p18.path_title"),
                 subtitle=t("p18.path_subtitle" if revealed else "p18.path_subtitle_hidden"))
page.chart(ch, path, alt_text=t("p18.path_alt"), name="dpo_path")

if revealed:
    table = pd.DataFrame({t("p18.answer"): names, "π_ref": items.ref, t("p18.col_dpo", steps=int(steps)): d.probs[-1],
                          t("p18.col_fitted_optimum"): d.fitted_optimum, t("p18.col_rater_optimum"): d.rater_optimum,
                          t("p18.col_implicit"): d.implicit, t("p18.col_fitted"): d.fitted})
    page.table(table, digits=4)
    st.markdown(t("p18.recovers"))
    rl_section(d, names, int(steps))

    st.subheader(t("p18.push_heading"))
    pairs = pd.DataFrame({
        t("p18.col_pair"): [f"{names[w]} ≻ {names[lo]}" for w, lo in zip(d.pair_winner, d.pair_loser,
                                                                           strict=True)],
        t("p18.col_times"): d.pair_count.astype(int),
        t("p18.col_weight_start"): d.weights[0],
        t("p18.col_weight_end", steps=int(steps)): d.weights[-1],
    })
    page.table(pairs, formats={c: "%.3f" for c in pairs.columns[2:]})
    series = (t("p18.series_loss"), t("p18.series_weight"))
    curve = pd.concat([pd.DataFrame({"step": at, "value": v[at], "series": name})
                       for name, v in zip(series, (d.loss, d.mean_weight), strict=True)], ignore_index=True)
    page.chart(charts.layer(charts.lines(curve, x="step", y="value", series="series", x_title=t("p18.path_x"),
                                         y_title=t("p18.loss_y"),
                                         colors=method_colors(dict(zip(series, ("dpo loss", "pair weight"),
                                                                       strict=True))),
                                         legend_title=t("p18.loss_legend")),
                            title=t("p18.loss_title")),
               curve, alt_text=t("p18.loss_alt"),
               name="dpo_loss")
    st.markdown(t("p18.weights"))

# Drawn whether or not the question is answered (it does not give the answer away), so τ in a link always has
# its input.
st.subheader(t("p18.ipo_heading"))
with st.container():
    tau = inputs.select_slider(t("p18.tau"), TAUS, 0.5, key="tau", help=t("p18.tau_help"))
    s = None
    try:
        s = ipo(scenario, float(beta), float(tau), float(flattery))
    except ValueError:  # every answer the reference writes has one rater score: no pair has a better side
        st.info(t("p18.no_better_side"))
    if s is not None:
        ip_at = thin_steps(s.dpo.shape[0], MAX_POINTS)
        worst = names[s.worst]
        ipdf = pd.DataFrame({"step": [*ip_at, *ip_at],
                             "probability": [*s.dpo[ip_at, s.worst], *s.ipo[ip_at, s.worst]],
                             "method": ["DPO"] * len(ip_at) + ["IPO"] * len(ip_at)})
        page.chart(charts.layer(charts.lines(ipdf, x="step", y="probability", series="method", x_title=t("p18.ipo_x"),
                                             y_title=t("p18.ipo_y"),
                                             colors=method_colors({"DPO": "dpo", "IPO": "ipo"}),
                                             legend_title=t("p18.ipo_legend")),
                                title=t("p18.ipo_title", token=worst), subtitle=t("p18.ipo_subtitle")),
                   ipdf, alt_text=t("p18.ipo_alt"),
                   name="ipo")
        st.markdown(t("p18.ipo_text", token=esc(worst), start=fmt(s.dpo[0, s.worst], 3),
                      end=fmt(s.dpo[-1, s.worst], 4), target=fmt(s.target), ipo=fmt(s.ipo[-1, s.worst], 4)))

page.end(code=(preference.dpo_loss, preference.dpo_margins, preference.dpo_weights, preference.implicit_reward,
               kl_optimal_policy, js.dpo_study,))
