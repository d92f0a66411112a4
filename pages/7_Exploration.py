"""Exploration: greedy decoding never tries the other tokens; sampling does, and that is what lets the policy learn."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page, scrub
from ui.colors import method_colors
from ui.format import esc, fmt, fmt_list, pct
from ui.i18n import t

TEMP_LO, TEMP_HI, TEMP_STEP = 0.1, 3.0, 0.1  # the τ slider's range and step
TEMP_GRID = scrub.steps(TEMP_LO, TEMP_HI, TEMP_STEP)  # the discovery chart at each step: dragged in the browser
scenario = page.setup("p7")

page.presets({
    t("p7.preset_article"): {},  # every input at its default
    t("p7.preset_cold"): {"temp": 0.3},
    t("p7.preset_hot"): {"temp": 2.0},
    t("p7.preset_no_baseline"): {"baseline": "none"},
})


def by_decoding(series: list, steps: int, first: int, column=None) -> pd.DataFrame:
    """One row per decoding and step: median, lowest and highest over the seeds (of ``column`` if given)."""
    def pick(a):
        return a if column is None else a[:, column]

    return pd.concat([pd.DataFrame({"step": np.arange(first, steps + 1), "decoding": name, "median": pick(b.median),
                                    "lowest": pick(b.low), "highest": pick(b.high)}) for name, b in series],
                     ignore_index=True)


def prob_frame(bands: rlcore.SeedBands, steps: int, tokens) -> pd.DataFrame:
    frames = [pd.DataFrame({"step": np.arange(steps + 1), "token": tok, "median": bands.median[:, i],
                            "lowest": bands.low[:, i], "highest": bands.high[:, i]})
              for i, tok in enumerate(tokens)]
    return pd.concat(frames, ignore_index=True)


def band_chart(df, title: str, subtitle: str, key: charts.Key, axes: charts.Axes):
    return charts.layer(charts.bands(df, x="step", mid="median", low="lowest", high="highest", key=key, axes=axes),
                        title=title, subtitle=subtitle, height=charts.HEIGHT)


def ask(ex: rlcore.Exploration, likely: str, best: str, temp: float, n_seeds: int) -> bool:
    """Predict first: does greedy decoding ever find the best token?"""
    s = ex.summary
    options = [t("p7.yes"), t("p7.no"), t("p7.already")]
    answer = options[2] if s.likely == s.best else options[0] if ex.greedy_outcome.converged.any() else options[1]
    return page.predict(
        t("p7.question", likely=likely, best=best), options, answer,
        t("p7.explanation", likely=likely, best=best, n=n_seeds, temp=fmt(temp),
          greedy=int(ex.greedy_outcome.converged.sum()), sampled=int(ex.sampled_outcome.converged.sum()))
        if s.likely != s.best else t("p7.explanation_already", best=best),
        key="predict_explore")


def draw_inputs() -> tuple:
    """The temperature, and the training settings folded under "More settings"."""
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    temp = inputs.slider(t("p7.temp"), TEMP_LO, TEMP_HI, 1.0, TEMP_STEP, key="temp", where=c1, help=glossary.term("τ"))
    with c2.expander(t("p7.more")):
        lr = inputs.slider(t("p7.lr"), 0.01, 1.0, 0.1, 0.01, key="lr")
        steps = inputs.slider(t("p7.steps"), 10, 300, 100, 10, key="steps")
        batch = inputs.slider(t("p7.batch"), 1, 64, 8, 1, key="batch")
        # the shown names, looked up now: a format_func that looked them up later (AppTest calls it outside the
        # run) would not know the page's language
        shown = {name: t(f"p6.sampled.baselines.{name}") for name in rlcore.BASELINES}
        baseline = inputs.selectbox(t("p7.baseline"), rlcore.BASELINES, "batch mean", key="baseline",
                                    help=t("p7.baseline_help"),
                                    format_func=shown.get)
        n_seeds = inputs.slider(t("p7.seeds"), 1, 32, 8, 1, key="seeds")
    return temp, lr, steps, batch, baseline, n_seeds


def draw_best(ex: rlcore.Exploration, v: dict, revealed: bool) -> None:
    """The main chart, π(best) under each decoding; once revealed, what greedy writes and why it stays."""
    s, names, tau, likely, best = ex.summary, v["names"], v["tau"], v["likely"], v["best"]
    found = [(names[0], ex.sampled_bands)] + ([(names[1], ex.greedy_bands)] if revealed else [])
    df = by_decoding(found, v["steps"], 0, column=s.best)
    page.chart(band_chart(df, t("p7.best_title", best=v["best_raw"]), v["band_note"],
                          charts.Key("decoding", colors=method_colors(names), title=v["legend"]),
                          charts.Axes(t("p7.x_title"), t("p7.best_y", best=v["best_raw"]), y_domain=[0, 1])),
               df, alt_text=t("p7.best_alt_both" if revealed else "p7.best_alt", best=v["best_raw"], temp=tau,
                              n=v["n_seeds"]),
               name="explore_best")
    if not revealed:
        st.caption(t("p7.locked"))
        return
    start, final = fmt(scenario.pi[s.best]), fmt(ex.sampled_bands.median[-1, s.best])
    m1, m2, m3, m4 = st.columns(4)
    m1.metric(t("p7.greedy_writes"), likely)
    m2.metric(t("p7.greedy_score", likely=likely), fmt(s.q[s.likely]))
    m3.metric(t("p7.best_sampling", best=best), final,
              help=t("p7.best_sampling_help", steps=v["steps"], temp=tau, start=start))
    m4.metric(t("p7.best_greedy", best=best), fmt(ex.greedy_bands.median[-1, s.best]),
              help=t("p7.best_greedy_help", steps=v["steps"], start=start))
    if s.likely == s.best:
        st.markdown(t("p7.likely_is_best", likely=likely))
        return
    low, high = fmt(ex.greedy_bands.low[-1, s.best]), fmt(ex.greedy_bands.high[-1, s.best])
    moved = "between" if low != high else "stays" if low == start else "ends"
    st.markdown(t("p7.sentences",
                  first=t(f"p7.greedy_{moved}", likely=likely, best=best, n=v["n_seeds"], q_likely=fmt(s.q[s.likely]),
                          q_best=fmt(s.q[s.best]), low=low, high=high, start=start),
                  second=t(f"p7.why_greedy.{v['baseline']}", likely=likely),
                  third=t("p7.sampling_draws", temp=tau, best=best, p=fmt(ex.at_temp[s.best], 3), batch=v["batch"],
                          share=pct(ex.batch_chance), steps=v["steps"], final=final)))


def draw_curves(ex: rlcore.Exploration, v: dict, revealed: bool) -> None:
    """The curves behind it: the batches' mean score, and every token's probability under each decoding."""
    st.subheader(t("p7.curves"))
    names, tau, steps, tokens = v["names"], v["tau"], v["steps"], scenario.tokens
    df = by_decoding([(names[0], ex.sampled_score)] + ([(names[1], ex.greedy_score)] if revealed else []), steps, 1)
    page.chart(band_chart(df, t("p7.score_title"), v["band_note"],
                          charts.Key("decoding", colors=method_colors(names), title=v["legend"]),
                          charts.Axes(t("p7.x_title"), t("p7.score_y"))),
               df, alt_text=t("p7.score_alt_both" if revealed else "p7.score_alt", n=v["n_seeds"]),
               name="explore_scores")
    left, right = st.columns(2)
    key, axes = charts.Key("token", tokens, title=t("p7.token")), charts.Axes(t("p7.x_title"), t("p7.token_y"),
                                                                           y_domain=[0, 1])
    with left:
        df = prob_frame(ex.sampled_bands, steps, tokens)
        page.chart(band_chart(df, t("p7.probs_sampled_title", temp=tau), v["band_note"], key, axes),
                   df, alt_text=t("p7.probs_sampled_alt", temp=tau), name="explore_probs_sampled")
    if revealed:
        with right:
            df = prob_frame(ex.greedy_bands, steps, tokens)
            page.chart(band_chart(df, t("p7.probs_greedy_title"), v["band_note"], key, axes),
                       df, alt_text=t("p7.probs_greedy_alt"), name="explore_probs_greedy")


def draw_found(ex: rlcore.Exploration, v: dict) -> None:
    """Who finds the best token: the seeds that converged to it under each decoding, and each seed's end."""
    best, n_seeds, tau = v["best"], v["n_seeds"], v["tau"]
    st.subheader(t("p7.find", best=best))
    st.caption(t("p7.converges", best=best, threshold=fmt(ex.threshold)))
    c1, c2, c3 = st.columns(3)
    c1.metric(t("p7.converged_sampling"),
              t("p7.count_of", k=int(ex.sampled_outcome.converged.sum()), n=n_seeds,
                share=pct(ex.sampled_outcome.fraction)),
              help=t("p7.converged_sampling_help", temp=tau))
    c2.metric(t("p7.converged_greedy"),
              t("p7.count_of", k=int(ex.greedy_outcome.converged.sum()), n=n_seeds,
                share=pct(ex.greedy_outcome.fraction)))
    c3.metric(t("p7.batch_holds", best=best), pct(ex.batch_chance, 1),
              help=t("p7.batch_holds_help", batch=v["batch"], best=best))
    with st.expander(t("p7.finals")):
        col = {name: t(f"p7.columns.{name}", best=v["best_raw"], threshold=fmt(ex.threshold)) for name in
               ("seed", "final_sampling", "converged_sampling", "first_step", "final_greedy", "converged_greedy")}
        page.table(pd.DataFrame({
            col["seed"]: np.arange(n_seeds),
            col["final_sampling"]: ex.sampled_outcome.final,
            col["converged_sampling"]: ex.sampled_outcome.converged,
            col["first_step"]: ex.sampled_outcome.first_step,
            col["final_greedy"]: ex.greedy_outcome.final,
            col["converged_greedy"]: ex.greedy_outcome.converged,
        }), formats={col[c]: "%.3f" for c in ("final_sampling", "final_greedy")})


def draw_temperature(ex: rlcore.Exploration, v: dict, temp: float) -> None:
    """Temperature and discovery: what sampling at τ draws from, and the chance to see the best token in k answers."""
    s, tau, tokens, best_raw = ex.summary, v["tau"], scenario.tokens, v["best_raw"]
    st.subheader(t("p7.temperature"))
    order = t("p6.sep").join(esc(tok) for tok in tokens)
    st.markdown(t("p7.sentences", first=t("p7.temp_intro"),
                  second=t("p7.temp_at_one", pi=fmt_list(scenario.pi), order=order) if temp == 1.0 else
                  t("p7.temp_at", temp=tau, pi=fmt_list(scenario.pi), order=order, mu=fmt_list(ex.at_temp)),
                  third=t("p7.temp_outro")))
    for where, probs, title, alt, name in zip(st.columns(2), (scenario.pi, ex.at_temp),
                                              (t("p7.pi_title"), t("p7.temp_title", temp=tau)),
                                              (t("p7.pi_alt"), t("p7.temp_alt", temp=tau)),
                                              ("explore_pi", "explore_temp"), strict=True):
        with where:
            df = pd.DataFrame({"token": tokens, "probability": probs})
            page.chart(charts.titled(charts.token_bars(df, value="probability", tokens=tokens,
                                                       axes=charts.Axes(y=t("p7.probability"), y_domain=[0, 1])),
                                     title=title, height=220), df, alt_text=alt, name=name)
    st.markdown(t("p7.discovery_found", best=v["best"], temp=tau, p=fmt(ex.at_temp[s.best], 3), k50=fmt(ex.k50),
                  k95=fmt(ex.k95)) if np.isfinite(ex.k95) else t("p7.discovery_never", best=v["best"], temp=tau))
    temps, exact = scrub.at(TEMP_GRID, temp, TEMP_LO, TEMP_HI)
    dc = page.study(rlcore.discovery_curves, scenario, temps, entries=32)
    ch, df = discovery_chart(dc, exact, ex, v, temp)
    page.scrub(ch, df, field="temp", grid=TEMP_GRID, value=temp, label=t("chart.scrub_input", name="τ"),
               alt_text=t("p7.discovery_alt", best=best_raw), name="explore_discovery")


def discovery_chart(dc: rlcore.DiscoveryCurves, exact, ex: rlcore.Exploration, v: dict, temp: float):
    """The chance to see the best token in k answers at τ = 1 and at the committed τ (fixed), and at every τ of the
    slider's grid (the one dragged to shown), with its 50% and 95% marks."""
    best, tau = ex.summary.best, v["tau"]
    fixed = [f"τ = 1: p = {fmt(scenario.pi[best], 3)}"] + (
        [f"{t('chart.scrub_yours', name='τ', value=tau)}: p = {fmt(ex.at_temp[best], 3)}"] if temp != 1.0 else [])
    lines = pd.concat([pd.DataFrame({"answers sampled": dc.ks, "series": name, "chance": chance})
                       for name, chance in zip(fixed, (dc.chance_at_one, ex.chance_at_temp), strict=False)],
                      ignore_index=True)
    n, m = dc.chance.shape
    moving = pd.DataFrame({"temp": np.repeat(dc.temperature, m), "answers sampled": np.tile(dc.ks, n),
                           "series": t("p7.shown_series"), "chance": dc.chance.ravel(),
                           scrub.EXACT: np.repeat(exact, m)})
    key = charts.Key("series", colors=method_colors(dict.fromkeys([*fixed, t("p7.shown_series")], None)),
                     title=t("p7.p_legend"))
    axes = charts.Axes(t("p7.k_title"), t("p7.chance_y"), y_domain=[0, 1.1])
    marks = pd.concat([pd.DataFrame({"temp": dc.temperature, "k": k, "label": label, scrub.EXACT: exact})
                       for k, label in ((dc.k50, "50%"), (dc.k95, "95%"))], ignore_index=True)
    marks = marks[np.isfinite(marks["k"]) & (marks["k"] <= dc.ks[-1])]  # the k values are in the subtitle
    shown = pd.DataFrame({"temp": dc.temperature, scrub.EXACT: exact,
                          "label": [t("chart.scrub_shown", name="τ", value=fmt(x)) for x in dc.temperature]})
    ch = charts.layer(charts.lines(lines, x="answers sampled", y="chance", key=key, axes=axes),
                      charts.lines(moving, x="answers sampled", y="chance", key=key, axes=axes),
                      charts.rules(marks, at="k", label="label", axis="x"),
                      charts.note(shown, text="label", corner="bottom right"),
                      title=t("p7.discovery_title", best=v["best_raw"]), height=charts.HEIGHT,
                      subtitle="1 − (1 − p)^k" + "".join(t("p7.discovery_mark", share=q, k=fmt(k)) for q, k in
                                                         (("50%", ex.k50), ("95%", ex.k95)) if np.isfinite(k)))
    return ch, pd.concat([lines, moving], ignore_index=True)


@page.panel
def exploration_panel() -> None:
    """The temperature, the training settings and everything they feed: moving a widget reruns this panel only."""
    question = st.container()  # the question sits above the inputs it depends on
    temp, lr, steps, batch, baseline, n_seeds = draw_inputs()
    ex = page.study(rlcore.exploration_study, scenario, temp, lr, steps, batch, baseline, n_seeds, entries=32)
    s, tokens = ex.summary, scenario.tokens
    likely, best = esc(tokens[s.likely]), esc(tokens[s.best])
    with question:
        revealed = ask(ex, likely, best, temp, n_seeds)
    # fixed series names keep each chart's shape (and its converted spec) the same as τ moves; τ is in the legend
    names = [t("p7.sampling"), t("p7.greedy")]
    v = {"names": names if revealed else names[:1], "tau": fmt(temp), "likely": likely, "best": best,
         "best_raw": tokens[s.best], "legend": t("p7.legend", temp=fmt(temp)),
         "band_note": t("p7.band_note", n=n_seeds), "steps": steps, "batch": batch, "baseline": baseline,
         "n_seeds": n_seeds}
    draw_best(ex, v, revealed)
    draw_curves(ex, v, revealed)
    if revealed:
        draw_found(ex, v)
    draw_temperature(ex, v, temp)


exploration_panel()

page.end(code=(rlcore.exploration_study, rlcore.sampled_training_many, rlcore.temperature_probs,
               rlcore.discovery_chance, rlcore.samples_to_discover, rlcore.exploration_outcome,))
