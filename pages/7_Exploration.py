"""Exploration: greedy decoding never tries the other tokens; sampling does, and that is what lets the policy learn."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page, prep
from ui.bundles import Exploration
from ui.colors import method_colors
from ui.format import esc, fmt, fmt_list, pct
from ui.i18n import t

THRESHOLD = 0.9  # rlcore.exploration_outcome's default: a run "converges" above it

scenario = page.setup("p7")

page.presets({
    t("p7.preset_article"): {},  # every input at its default
    t("p7.preset_cold"): {"temp": 0.3},
    t("p7.preset_hot"): {"temp": 2.0},
    t("p7.preset_no_baseline"): {"baseline": "none"},
})


@page.cached(64)
def runs(scenario, temp, greedy, lr, steps, batch, baseline, n_seeds):
    """Every seed of one decoding in one vectorised call: bands of π and of the score, and the outcome."""
    run = rlcore.sampled_training_many(scenario.pi, scenario.samples, temperature=temp, greedy=greedy, lr=lr,
                                       steps=steps, batch=batch, baseline=baseline, seeds=tuple(range(n_seeds)))
    return (prep.seed_bands(run.probs), prep.seed_bands(run.mean_score),
            rlcore.exploration_outcome(run, rlcore.summarize(scenario).best, THRESHOLD))


@page.cached(32)
def explore(scenario, temp, lr, steps, batch, baseline, n_seeds) -> Exploration:
    """Both decodings, plus the discovery odds."""
    s = rlcore.summarize(scenario)
    common = dict(lr=lr, steps=steps, batch=batch, baseline=baseline, n_seeds=n_seeds)
    sampled_bands, sampled_score, sampled_outcome = runs(scenario, temp, False, **common)
    # greedy decoding ignores τ: run it at τ = 1 so moving the temperature does not rerun it
    greedy_bands, greedy_score, greedy_outcome = runs(scenario, 1.0, True, **common)
    mu = rlcore.temperature_probs(scenario.pi, temp)
    ks = np.arange(1, 101)
    best = s.best
    return Exploration(
        summary=s, sampled_bands=sampled_bands, greedy_bands=greedy_bands,
        sampled_score=sampled_score, greedy_score=greedy_score,
        sampled_outcome=sampled_outcome, greedy_outcome=greedy_outcome,
        at_temp=mu, ks=ks,
        chance=rlcore.discovery_chance(scenario.pi[best], ks), chance_at_temp=rlcore.discovery_chance(mu[best], ks),
        k50=rlcore.samples_to_discover(mu[best], 0.5), k95=rlcore.samples_to_discover(mu[best], 0.95),
        batch_chance=float(rlcore.discovery_chance(mu[best], [batch])[0]),  # one batch holds the best token
    )


def by_decoding(series: list[tuple[str, prep.SeedBands]], steps: int, first: int, column=None) -> pd.DataFrame:
    """One row per decoding and step: median, lowest and highest over the seeds (of ``column`` if given)."""
    def pick(a):
        return a if column is None else a[:, column]

    return pd.concat([pd.DataFrame({"step": np.arange(first, steps + 1), "decoding": name, "median": pick(b.median),
                                    "lowest": pick(b.low), "highest": pick(b.high)}) for name, b in series],
                     ignore_index=True)


def prob_frame(bands: prep.SeedBands, steps: int, tokens) -> pd.DataFrame:
    frames = [pd.DataFrame({"step": np.arange(steps + 1), "token": tok, "median": bands.median[:, i],
                            "lowest": bands.low[:, i], "highest": bands.high[:, i]})
              for i, tok in enumerate(tokens)]
    return pd.concat(frames, ignore_index=True)


def ask(ex: Exploration, likely: str, best: str, temp: float, n_seeds: int) -> bool:
    """Predict first: does greedy decoding ever find the best token?"""
    s = ex.summary
    options = [t("p7.yes"), t("p7.no"), t("p7.already")]
    if s.likely == s.best:
        answer = options[2]
    elif ex.greedy_outcome.converged.any():
        answer = options[0]
    else:
        answer = options[1]
    return page.predict(
        t("p7.question", likely=likely, best=best), options, answer,
        t("p7.explanation", likely=likely, best=best, n=n_seeds, temp=fmt(temp),
          greedy=int(ex.greedy_outcome.converged.sum()), sampled=int(ex.sampled_outcome.converged.sum()))
        if s.likely != s.best else t("p7.explanation_already", best=best),
        key="predict_explore")


@st.fragment
def exploration_panel() -> None:
    """The temperature, the training settings and everything they feed: moving a widget reruns this panel only."""
    question = st.container()  # the question sits above the inputs it depends on
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    temp = inputs.slider(t("p7.temp"), 0.1, 3.0, 1.0, 0.1, key="temp", where=c1, help=glossary.term("τ"))
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

    ex = page.run(explore, scenario, temp, lr, steps, batch, baseline, n_seeds)
    s = ex.summary
    tokens = scenario.tokens
    likely_raw, best_raw = tokens[s.likely], tokens[s.best]
    likely, best = esc(likely_raw), esc(best_raw)
    tau = fmt(temp)
    with question:
        revealed = ask(ex, likely, best, temp, n_seeds)
    # fixed series names keep each chart's shape (and its converted spec) the same as τ moves; τ is in the legend
    sampling, greedy = t("p7.sampling"), t("p7.greedy")
    names = [sampling, greedy] if revealed else [sampling]
    legend = t("p7.legend", temp=tau)
    band_note = t("p7.band_note", n=n_seeds)

    # ---------------------------------------------------------------- the main chart: π(best), each decoding
    found = [(sampling, ex.sampled_bands)] + ([(greedy, ex.greedy_bands)] if revealed else [])
    df = by_decoding(found, steps, 0, column=s.best)
    page.chart(charts.layer(charts.bands(df, x="step", mid="median", low="lowest", high="highest",
                                             series="decoding", colors=method_colors(names), legend_title=legend,
                                             x_title=t("p7.x_title"), y_title=t("p7.best_y", best=best_raw),
                                             y_domain=[0, 1]),
                                title=t("p7.best_title", best=best_raw), subtitle=band_note, height=charts.HEIGHT),
               df, alt_text=t("p7.best_alt_both" if revealed else "p7.best_alt", best=best_raw, temp=tau, n=n_seeds),
               name="explore_best")
    if not revealed:
        st.caption(t("p7.locked"))
    else:
        start = fmt(scenario.pi[s.best])
        m1, m2, m3, m4 = st.columns(4)
        m1.metric(t("p7.greedy_writes"), likely)
        m2.metric(t("p7.greedy_score", likely=likely), fmt(s.q[s.likely]))
        m3.metric(t("p7.best_sampling", best=best), fmt(ex.sampled_bands.median[-1, s.best]),
                  help=t("p7.best_sampling_help", steps=steps, temp=tau, start=start))
        m4.metric(t("p7.best_greedy", best=best), fmt(ex.greedy_bands.median[-1, s.best]),
                  help=t("p7.best_greedy_help", steps=steps, start=start))
    if revealed and s.likely == s.best:
        st.markdown(t("p7.likely_is_best", likely=likely))
    elif revealed:
        low, high = fmt(ex.greedy_bands.low[-1, s.best]), fmt(ex.greedy_bands.high[-1, s.best])
        moved = "between" if low != high else "stays" if low == fmt(scenario.pi[s.best]) else "ends"
        st.markdown(t("p7.sentences",
                      first=t(f"p7.greedy_{moved}", likely=likely, best=best, n=n_seeds, q_likely=fmt(s.q[s.likely]),
                              q_best=fmt(s.q[s.best]), low=low, high=high, start=fmt(scenario.pi[s.best])),
                      second=t(f"p7.why_greedy.{baseline}", likely=likely),
                      third=t("p7.sampling_draws", temp=tau, best=best, p=fmt(ex.at_temp[s.best], 3), batch=batch,
                              share=pct(ex.batch_chance), steps=steps,
                              final=fmt(ex.sampled_bands.median[-1, s.best]))))

    # ---------------------------------------------------------------- the curves behind it
    st.subheader(t("p7.curves"))
    scores = [(sampling, ex.sampled_score)] + ([(greedy, ex.greedy_score)] if revealed else [])
    df = by_decoding(scores, steps, 1)
    page.chart(charts.layer(charts.bands(df, x="step", mid="median", low="lowest", high="highest",
                                             series="decoding", colors=method_colors(names), legend_title=legend,
                                             x_title=t("p7.x_title"), y_title=t("p7.score_y")),
                                title=t("p7.score_title"), subtitle=band_note, height=charts.HEIGHT),
               df, alt_text=t("p7.score_alt_both" if revealed else "p7.score_alt", n=n_seeds), name="explore_scores")
    left, right = st.columns(2)
    prob_titles = {"legend_title": t("p7.token"), "x_title": t("p7.x_title"), "y_title": t("p7.token_y")}
    with left:
        df = prob_frame(ex.sampled_bands, steps, tokens)
        page.chart(charts.layer(charts.bands(df, x="step", mid="median", low="lowest", high="highest",
                                                 series="token", tokens=tokens, y_domain=[0, 1], **prob_titles),
                                    title=t("p7.probs_sampled_title", temp=tau), subtitle=band_note,
                                    height=charts.HEIGHT),
                   df, alt_text=t("p7.probs_sampled_alt", temp=tau), name="explore_probs_sampled")
    if revealed:
        with right:
            df = prob_frame(ex.greedy_bands, steps, tokens)
            page.chart(charts.layer(charts.bands(df, x="step", mid="median", low="lowest", high="highest",
                                                     series="token", tokens=tokens, y_domain=[0, 1], **prob_titles),
                                        title=t("p7.probs_greedy_title"), subtitle=band_note,
                                        height=charts.HEIGHT),
                       df, alt_text=t("p7.probs_greedy_alt"), name="explore_probs_greedy")

        # ------------------------------------------------------------ who finds the best token
        st.subheader(t("p7.find", best=best))
        st.caption(t("p7.converges", best=best, threshold=fmt(THRESHOLD)))
        c1, c2, c3 = st.columns(3)
        c1.metric(t("p7.converged_sampling"),
                  t("p7.count_of", k=int(ex.sampled_outcome.converged.sum()), n=n_seeds,
                    share=pct(ex.sampled_outcome.fraction)),
                  help=t("p7.converged_sampling_help", temp=tau))
        c2.metric(t("p7.converged_greedy"),
                  t("p7.count_of", k=int(ex.greedy_outcome.converged.sum()), n=n_seeds,
                    share=pct(ex.greedy_outcome.fraction)))
        c3.metric(t("p7.batch_holds", best=best), pct(ex.batch_chance, 1),
                  help=t("p7.batch_holds_help", batch=batch, best=best))
        with st.expander(t("p7.finals")):
            col = {name: t(f"p7.columns.{name}", best=best_raw, threshold=fmt(THRESHOLD)) for name in
                   ("seed", "final_sampling", "converged_sampling", "first_step", "final_greedy", "converged_greedy")}
            page.table(pd.DataFrame({
                col["seed"]: np.arange(n_seeds),
                col["final_sampling"]: ex.sampled_outcome.final,
                col["converged_sampling"]: ex.sampled_outcome.converged,
                col["first_step"]: ex.sampled_outcome.first_step,
                col["final_greedy"]: ex.greedy_outcome.final,
                col["converged_greedy"]: ex.greedy_outcome.converged,
            }), formats={col[c]: "%.3f" for c in ("final_sampling", "final_greedy")})

    # ---------------------------------------------------------------- temperature and discovery
    st.subheader(t("p7.temperature"))
    order = t("p6.sep").join(esc(tok) for tok in tokens)
    st.markdown(t("p7.sentences", first=t("p7.temp_intro"),
                  second=t("p7.temp_at_one", pi=fmt_list(scenario.pi), order=order) if temp == 1.0 else
                  t("p7.temp_at", temp=tau, pi=fmt_list(scenario.pi), order=order, mu=fmt_list(ex.at_temp)),
                  third=t("p7.temp_outro")))
    left, right = st.columns(2)
    with left:
        df = pd.DataFrame({"token": tokens, "probability": scenario.pi})
        page.chart(charts.token_bars(df, value="probability", title=t("p7.pi_title"),
                                     value_title=t("p7.probability"), tokens=tokens, domain=[0, 1], height=220),
                   df, alt_text=t("p7.pi_alt"), name="explore_pi")
    with right:
        df = pd.DataFrame({"token": tokens, "probability": ex.at_temp})
        page.chart(charts.token_bars(df, value="probability", title=t("p7.temp_title", temp=tau),
                                     value_title=t("p7.probability"), tokens=tokens, domain=[0, 1], height=220),
                   df, alt_text=t("p7.temp_alt", temp=tau), name="explore_temp")

    st.markdown(t("p7.discovery_found", best=best, temp=tau, p=fmt(ex.at_temp[s.best], 3), k50=fmt(ex.k50),
                  k95=fmt(ex.k95)) if np.isfinite(ex.k95) else t("p7.discovery_never", best=best, temp=tau))
    series_pi = f"τ = 1: p = {fmt(scenario.pi[s.best], 3)}"
    frames = [pd.DataFrame({"answers sampled": ex.ks, "series": series_pi, "chance": ex.chance})]
    if temp != 1.0:
        frames.append(pd.DataFrame({"answers sampled": ex.ks, "chance": ex.chance_at_temp,
                                    "series": f"τ = {tau}: p = {fmt(ex.at_temp[s.best], 3)}"}))
    df = pd.concat(frames, ignore_index=True)
    layers = [charts.lines(df, x="answers sampled", y="chance", series="series",
                           colors=method_colors(dict.fromkeys(df["series"], None)), legend_title=t("p7.p_legend"),
                           x_title=t("p7.k_title"), y_title=t("p7.chance_y"), y_domain=[0, 1.1])]
    marks = pd.DataFrame({"k": [ex.k50, ex.k95], "label": ["50%", "95%"]})  # the k values are in the subtitle
    marks = marks[np.isfinite(marks["k"]) & (marks["k"] <= ex.ks[-1])]
    if len(marks):
        layers.append(charts.rules(marks, at="k", label="label", axis="x"))
    ch = charts.layer(*layers, title=t("p7.discovery_title", best=best_raw), height=charts.HEIGHT,
                      subtitle="1 − (1 − p)^k" + "".join(t("p7.discovery_mark", share=q, k=fmt(k)) for q, k in
                                                         (("50%", ex.k50), ("95%", ex.k95)) if np.isfinite(k)))
    page.chart(ch, df, alt_text=t("p7.discovery_alt", best=best_raw), name="explore_discovery")


exploration_panel()

page.end(code=(rlcore.sampled_training_many, rlcore.temperature_probs, rlcore.discovery_chance,
               rlcore.samples_to_discover, rlcore.exploration_outcome,))
