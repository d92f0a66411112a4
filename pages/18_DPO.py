"""DPO: the KL-regularised optimum reached straight from the preference pairs, without a reward model."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from pages.views import dpo
from ui import charts, inputs, page, scrub
from ui.colors import method_colors
from ui.format import esc, fmt, pct, wrap
from ui.i18n import t
from ui.page import NOTHING_TO_COMPARE
from ui.prep import thin_steps

BETAS = [0.1, 0.2, 0.5, 1, 2, 5]  # whole ones as ints: a link spells them "1"
BETA_GRID = scrub.steps(0.1, 5.0, 0.1)  # the path chart at each β from 0.1 to 5 (every one of BETAS): dragged
COMPARISONS = [20, 50, 100, 200, 500, 1000, 2000, 5000, 20000]
TAUS = [0.1, 0.25, 0.5, 1, 2]
GRPO_BETAS = [0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5]  # GRPO's KL penalty in the last section: 0 as R1-Zero trained
MAX_SEED = 999_999
MAX_POINTS = 80
PATH_POINTS = 25  # steps per answer and β of the scrubbed path: a move redraws them all (bench/scrub.py)

scenario = page.setup("p18")
CURVES = (t("p18.curve_dpo"), t("p18.curve_closed"))
LANDINGS = [t("p18.landing_fit"), t("p18.landing_ref"), t("p18.landing_unbeaten")]

page.presets({
    t("p18.preset_few"): {"n": 50},
    t("p18.preset_many"): {"n": 20000},
    t("p18.preset_small_beta"): {"beta": 0.1},
    t("p18.preset_large_beta"): {"beta": 5},
})


@page.panel
def dpo_panel() -> None:
    c1, c2, c3 = st.columns(3)
    beta = inputs.select_slider("β", BETAS, 0.5, key="beta", where=c1,
                                help=t("p18.beta_help"))
    n = inputs.select_slider(t("p18.pairs"), COMPARISONS, 1000, key="n", where=c2, help=t("p18.pairs_help"))
    steps = inputs.slider(t("p18.steps"), 0, 2000, 400, 50, key="steps", where=c3)
    with st.expander(t("judge.more_settings")):
        m1, m2, m3 = st.columns(3)
        flattery = inputs.slider(t("judge.flattery"), 0.0, 3.0, rlcore.FLATTERY_BONUS, 0.1,
                                 key="flattery", where=m1)
        noise = inputs.slider(t("judge.noise"), 0.25, 5.0, 2.0, 0.25, key="noise", where=m2)
        seed = inputs.number(t("judge.seed"), 0, MAX_SEED, 0, key="seed", where=m3)

    if not rlcore.judge_items(scenario).comparable:  # raters need two answers the model can write
        page.stop_with_notice(NOTHING_TO_COMPARE)
    pairs = dict(comparisons=int(n), steps=int(steps), flattery=float(flattery), noise=float(noise), seed=int(seed))
    d = page.study(rlcore.dpo_study, scenario, beta=float(beta), **pairs, entries=32)
    # every β of the slider is a grid point: the grid alone, one result for every β (3 MB at most each)
    betas, exact = scrub.at(BETA_GRID, None)
    paths = page.study(rlcore.dpo_study, scenario, beta=betas, **pairs, entries=8)
    names = page.answer_names(d.items)  # the flattering copy, last, named in the page's language
    landing = LANDINGS[0] if d.unbounded.size == 0 else LANDINGS[2]
    revealed = page.predict(
        t("p18.question", pairs=f"{int(n):,}"), LANDINGS, landing,
        t("p18.explain_fit" if d.unbounded.size == 0 else "p18.explain_unbeaten"), key="predict_dpo")
    at = thin_steps(d.probs.shape[0], MAX_POINTS)
    draw_path(paths, exact, names, thin_steps(d.probs.shape[0], PATH_POINTS, early=True), float(beta), revealed)
    if revealed:
        draw_table(d, names, int(steps))
        rl_section(d, names, int(steps), float(beta), float(noise), float(flattery))
        draw_pushes(d, names, at, int(steps))
    # Drawn whether or not the question is answered (it does not give the answer away), so τ in a link always has
    # its input.
    ipo_section(d.items, names, float(beta), float(flattery))
    if revealed:  # its own question comes after this one's, as each section's on page 17
        tiny_section()
    else:
        inputs.later("zbeta", "zgrpo_beta", "zsteps", "zseed")  # a link's values for it wait for the answer


def draw_path(paths, exact, names, at, beta: float, revealed: bool) -> None:
    """Each answer's probability along DPO's steps at every β of the grid (the one dragged to shown); the closed-form
    optimum dashed once the question is answered."""
    v, m = paths.beta.size, len(names)
    per_beta = {"beta": np.repeat(paths.beta, at.size * m), scrub.EXACT: np.repeat(exact, at.size * m)}
    path = pd.DataFrame({**per_beta, "step": np.tile(np.repeat(at, m), v), "probability": paths.probs[:, at].ravel(),
                         "answer": np.tile(names, v * at.size), "curve": CURVES[0]})
    if revealed:
        ends = np.array([at[0], at[-1]])
        optimum = pd.DataFrame({"beta": np.repeat(paths.beta, 2 * m), scrub.EXACT: np.repeat(exact, 2 * m),
                                "step": np.tile(np.repeat(ends, m), v),
                                "probability": np.repeat(paths.fitted_optimum, 2, axis=0).ravel(),
                                "answer": np.tile(names, 2 * v), "curve": CURVES[1]})
        path = pd.concat([path, optimum], ignore_index=True)
    path = path.astype({"answer": "category", "curve": "category"})  # names once each: half the chart's bytes
    shown = pd.DataFrame({"beta": paths.beta, scrub.EXACT: exact,
                          "label": [t("chart.scrub_shown", name="β", value=fmt(b)) for b in paths.beta]})
    ch = charts.layer(charts.lines(path, x="step", y="probability",
                                   key=charts.Key("answer", tokens=names, title=t("p18.answer")),
                                   axes=charts.Axes(t("p18.path_x"), t("p18.path_y")), dash="curve",
                                   dash_order=CURVES),
                      charts.note(shown, text="label", corner="top right"),
                      title=t("p18.path_title"),
                      subtitle=t("p18.path_subtitle" if revealed else "p18.path_subtitle_hidden"))
    page.scrub(ch, path, field="beta", grid=BETA_GRID, value=beta, label=t("chart.scrub_input", name="β"),
               alt_text=t("p18.path_alt"), name="dpo_path")


def draw_table(d, names, steps: int) -> None:
    """Where DPO ended, beside the optima and the rewards it implies."""
    table = pd.DataFrame({t("p18.answer"): names, "π_ref": d.items.ref, t("p18.col_dpo", steps=steps): d.probs[-1],
                          t("p18.col_fitted_optimum"): d.fitted_optimum, t("p18.col_rater_optimum"): d.rater_optimum,
                          t("p18.col_implicit"): d.implicit, t("p18.col_fitted"): d.fitted})
    page.table(table, digits=4)
    st.markdown(t("p18.recovers"))


def rl_section(d, names, steps: int, beta: float, noise: float, flattery: float) -> None:
    """RL with a KL penalty on the raters' own scores (the toy lab's PPO), beside DPO and the optimum both aim at."""
    st.subheader(t("p18.rl_heading"))
    # every β of the slider in one run of the lab, cached per noise and flattery: moving β trains nothing
    rl = page.study(rlcore.lab_on_raters, scenario, beta=BETAS, noise=noise, flattery=flattery, entries=16,
                    heavy=True).row(BETAS.index(beta))
    if rl.diverged_at is not None:
        st.warning(t("p18.rl_diverged", step=rl.diverged_at), icon="⚠️")
        return
    ways = {t("p18.way_ref"): "reference", t("p18.way_optimum"): "kl optimum",
            t("p18.way_dpo", steps=steps): "dpo", t("p18.way_ppo", steps=rl.steps): "ppo"}
    values = (d.items.ref, rl.optimum, d.probs[-1], rl.median)
    bars = pd.DataFrame([{"answer": a, "way": way, "probability": float(v[i])}
                         for way, v in zip(ways, values, strict=True) for i, a in enumerate(names)])
    ch = charts.titled(charts.grouped_bars(bars, x="answer", y="probability",
                                           key=charts.Key("way", colors=method_colors(ways)),
                                           axes=charts.Axes(t("p18.answer"), t("p18.path_y"))),
                       title=t("p18.rl_title"),
                       subtitle=wrap(t("p18.rl_subtitle", lab_beta=fmt(rl.lab_beta), seeds=rlcore.judge.LAB_SEEDS)))
    page.chart(ch, bars, alt_text=t("p18.rl_alt"), name="dpo_rl")
    worst = rl.furthest
    gap = rl.gap[worst]
    values = dict(lab_beta=fmt(rl.lab_beta), steps=rl.steps, answer=esc(names[worst]),
                  ref=pct(d.items.ref[worst], 1), optimum=pct(rl.optimum[worst], 1), ppo=pct(rl.median[worst], 1))
    if rl.on_optimum:
        shown = pct(gap, 2) if gap >= 5e-5 else f"< {pct(1e-4, 2)}"  # pct rounds 0.004% to 0%
        st.markdown(t("p18.rl_close", gap=shown, **values))
    elif rl.unexplored:  # π* raises it, PPO lowered it
        st.markdown(t("p18.rl_behind", **values))
    else:
        st.markdown(t("p18.rl_not_yet", **values))


def draw_pushes(d, names, at, steps: int) -> None:
    """Each pair's weight at the start and the end, and the loss with the mean weight along the steps."""
    st.subheader(t("p18.push_heading"))
    pairs = pd.DataFrame({
        t("p18.col_pair"): [f"{names[w]} ≻ {names[lo]}" for w, lo in zip(d.pair_winner, d.pair_loser,
                                                                           strict=True)],
        t("p18.col_times"): d.pair_count.astype(int),
        t("p18.col_weight_start"): d.weights[0],
        t("p18.col_weight_end", steps=steps): d.weights[-1],
    })
    page.table(pairs, formats={c: "%.3f" for c in pairs.columns[2:]})
    series = (t("p18.series_loss"), t("p18.series_weight"))
    curve = pd.concat([pd.DataFrame({"step": at, "value": v[at], "series": name})
                       for name, v in zip(series, (d.loss, d.mean_weight), strict=True)], ignore_index=True)
    colors = method_colors(dict(zip(series, ("dpo loss", "pair weight"), strict=True)))
    page.chart(charts.layer(charts.lines(curve, x="step", y="value",
                                         key=charts.Key("series", colors=colors, title=t("p18.loss_legend")),
                                         axes=charts.Axes(t("p18.path_x"), t("p18.loss_y"))),
                            title=t("p18.loss_title")),
               curve, alt_text=t("p18.loss_alt"),
               name="dpo_loss")
    st.markdown(t("p18.weights"))
    st.markdown(t("p18.offline"))  # what whole answers and fixed pairs cannot show (the Glossary's terms)


def ipo_section(items, names, beta: float, flattery: float) -> None:
    """DPO and IPO on pairs that always go the same way: the answer the raters like least."""
    st.subheader(t("p18.ipo_heading"))
    with st.container():
        tau = inputs.select_slider(t("p18.tau"), TAUS, 0.5, key="tau", help=t("p18.tau_help"))
        if not items.ranked:  # every answer the reference writes has one rater score: no pair has a better side
            st.info(t("p18.no_better_side"))
            return
        s = page.study(rlcore.ipo_study, scenario, beta=beta, tau=float(tau), flattery=flattery, entries=16)
        ip_at = thin_steps(s.dpo.shape[0], MAX_POINTS)
        worst = names[s.worst]
        ipdf = pd.DataFrame({"step": [*ip_at, *ip_at],
                             "probability": [*s.dpo[ip_at, s.worst], *s.ipo[ip_at, s.worst]],
                             "method": ["DPO"] * len(ip_at) + ["IPO"] * len(ip_at)})
        page.chart(charts.layer(charts.lines(ipdf, x="step", y="probability",
                                             key=charts.Key("method",
                                                            colors=method_colors({"DPO": "dpo", "IPO": "ipo"}),
                                                            title=t("p18.ipo_legend")),
                                             axes=charts.Axes(t("p18.ipo_x"), t("p18.ipo_y"))),
                                title=t("p18.ipo_title", token=worst), subtitle=t("p18.ipo_subtitle")),
                   ipdf, alt_text=t("p18.ipo_alt"),
                   name="ipo")
        st.markdown(t("p18.ipo_text", token=esc(worst), start=fmt(s.dpo[0, s.worst], 3),
                      end=fmt(s.dpo[-1, s.worst], 4, above_zero=True), target=fmt(s.target),
                      ipo=fmt(s.ipo[-1, s.worst], 4, above_zero=True)))


def tiny_section() -> None:
    """DPO on the tiny transformer of page 19, offline and online pairs of its own answers, beside GRPO; drawn by
    ``pages/views/dpo.py``. Trained on request: its question and the log-probabilities once the runs are there."""
    st.subheader(t("p18.tiny.heading"))
    d = rlcore.zero.DPOConfig()
    per_step = dict(batch=d.prompts, g=d.group_size)
    st.markdown(t("p18.tiny.intro", **per_step))
    c1, c2, c3, c4 = st.columns(4)
    beta = inputs.select_slider("β", BETAS, d.beta, key="zbeta", where=c1, help=t("p18.tiny.beta_help"))
    grpo_beta = inputs.select_slider(t("p18.tiny.grpo_beta"), GRPO_BETAS, 0, key="zgrpo_beta", where=c2,
                                     help=t("p18.tiny.grpo_beta_help"))
    steps = inputs.slider(t("p18.tiny.steps"), 5, 200, d.steps, 5, key="zsteps", where=c3,
                          help=t("p18.tiny.steps_help", **per_step))
    seed = inputs.number(t("p18.tiny.seed"), 0, 99, 0, key="zseed", where=c4, help=t("p18.tiny.seed_help"))
    shown = dpo.find(dpo.configs(float(beta), int(steps), float(grpo_beta)), int(seed))
    if shown is None:
        return
    dpo.pass_chart(shown)
    dpo.at_kl(shown)
    if dpo.ask(shown["offline"]):
        dpo.log_prob_chart(shown)


dpo_panel()

page.end(code=(rlcore.dpo_loss, rlcore.dpo_margins, rlcore.dpo_weights, rlcore.implicit_reward,
               rlcore.kl_optimal_policy, rlcore.dpo_study, *dpo.CODE))
