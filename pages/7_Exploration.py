"""Exploration: greedy decoding never tries the other tokens; sampling does, and that is what lets the policy learn."""

from types import SimpleNamespace

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, page
from ui.format import esc, fmt, fmt_list, pct

scenario = page.setup(
    "Exploration", "🔍",
    "An update can only learn from answers the model actually writes. **Greedy decoding** always "
    "takes the most likely token, so it keeps writing the same answer and never finds out that a rarer "
    "token would have scored higher. **Sampling** at a temperature now and then writes one of the "
    "rarer tokens, and those few answers are what pull the policy toward the better branch. Below, "
    "several training runs (one per random seed) decode each way on the same example.",
)

page.presets({
    "The article: sample at τ = 1": {"temp": 1.0, "lr": 0.1, "steps": 100, "batch": 8,
                                     "baseline": "batch mean", "seeds": 8},
    "Cold sampling (τ = 0.3)": {"temp": 0.3},
    "Hot sampling (τ = 2)": {"temp": 2.0},
    "No baseline": {"baseline": "none"},
})

@st.cache_data(max_entries=64, show_spinner=False)
def runs(scenario, temp, greedy, lr, steps, batch, baseline, n_seeds):
    """Every seed of one decoding in one vectorised call: bands of π and of the score, and the outcome."""
    run = rlcore.sampled_training_many(scenario.pi, scenario.samples, temperature=temp, greedy=greedy, lr=lr,
                                       steps=steps, batch=batch, baseline=baseline, seeds=tuple(range(n_seeds)))
    return (rlcore.seed_bands(run.probs), rlcore.seed_bands(run.mean_score),
            rlcore.exploration_outcome(run, rlcore.summarize(scenario).best))


@st.cache_data(max_entries=32, show_spinner=False)
def explore(scenario, temp, lr, steps, batch, baseline, n_seeds) -> SimpleNamespace:
    """Both decodings, plus the discovery odds (picklable for the cache)."""
    s = rlcore.summarize(scenario)
    common = dict(lr=lr, steps=steps, batch=batch, baseline=baseline, n_seeds=n_seeds)
    sampled_bands, sampled_score, sampled_outcome = runs(scenario, temp, False, **common)
    # greedy decoding ignores τ: run it at τ = 1 so moving the temperature does not rerun it
    greedy_bands, greedy_score, greedy_outcome = runs(scenario, 1.0, True, **common)
    mu = rlcore.temperature_probs(scenario.pi, temp)
    ks = np.arange(1, 101)
    best = s.best
    return SimpleNamespace(
        summary=s, sampled_bands=sampled_bands, greedy_bands=greedy_bands,
        sampled_score=sampled_score, greedy_score=greedy_score,
        sampled_outcome=sampled_outcome, greedy_outcome=greedy_outcome,
        at_temp=mu, ks=ks,  # at_temp: the distribution sampling at τ draws from
        chance=rlcore.discovery_chance(scenario.pi[best], ks), chance_at_temp=rlcore.discovery_chance(mu[best], ks),
        k50=rlcore.samples_to_discover(mu[best], 0.5), k95=rlcore.samples_to_discover(mu[best], 0.95),
        batch_chance=float(rlcore.discovery_chance(mu[best], [batch])[0]),  # one batch holds the best token
    )


def fit(ch):
    """Keep the plot at its set height and fit only the width (a bottom legend must not squash the plot)."""
    return ch.properties(autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))


def score_frame(ex: SimpleNamespace, steps: int, sampling_name: str) -> pd.DataFrame:
    frames = []
    for name, bands in ((sampling_name, ex.sampled_score), ("greedy", ex.greedy_score)):
        frames.append(pd.DataFrame({"step": np.arange(1, steps + 1), "decoding": name, "median": bands.median,
                                    "lowest": bands.low, "highest": bands.high}))
    return pd.concat(frames, ignore_index=True)


def prob_frame(bands: rlcore.SeedBands, steps: int, tokens) -> pd.DataFrame:
    frames = [pd.DataFrame({"step": np.arange(steps + 1), "token": tok, "median": bands.median[:, i],
                            "lowest": bands.low[:, i], "highest": bands.high[:, i]})
              for i, tok in enumerate(tokens)]
    return pd.concat(frames, ignore_index=True)


@st.fragment
def exploration_panel() -> None:
    """The training settings and everything they feed (curves, counts, temperature, the question): moving a
    widget reruns this panel only, not the page."""
    c1, c2, c3 = st.columns(3)
    temp = c1.slider("Sampling temperature τ", 0.1, 3.0, 1.0, 0.1, key="temp", bind="query-params",
                     help="Below 1 sharpens the policy toward its favourite token, above 1 flattens it")
    lr = c1.slider("Step size η", 0.01, 1.0, 0.1, 0.01, key="lr", bind="query-params")
    steps = c2.slider("Update steps", 10, 300, 100, 10, key="steps", bind="query-params")
    batch = c2.slider("Answers per step (batch)", 1, 64, 8, 1, key="batch", bind="query-params")
    baseline = c3.selectbox("Baseline b", rlcore.BASELINES, index=rlcore.BASELINES.index("batch mean"),
                            key="baseline", bind="query-params",
                            help="What each score is compared with: nothing, the batch's mean score, or V")
    n_seeds = c3.slider("Runs (seeds)", 1, 32, 8, 1, key="seeds", bind="query-params")

    ex = page.run(explore, scenario, temp, lr, steps, batch, baseline, n_seeds)
    s = ex.summary
    tokens = scenario.tokens
    likely_raw, best_raw = tokens[s.likely], tokens[s.best]
    likely, best = esc(likely_raw), esc(best_raw)
    sampling_name = f"sampling at τ = {fmt(temp)}"
    seeds_word = "run" if n_seeds == 1 else "runs"

    # ---------------------------------------------------------------- the headline numbers
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Greedy always writes", likely)
    m2.metric(f"Greedy's expected score (Q of {likely})", fmt(s.q[s.likely]))
    m3.metric(f"π({best}) at the end, sampling",
              fmt(ex.sampled_bands.median[-1, s.best]),
              help=f"Median over the runs after {steps} steps at τ = {fmt(temp)}; "
                   f"it started at {fmt(scenario.pi[s.best])}")
    m4.metric(f"π({best}) at the end, greedy",
              fmt(ex.greedy_bands.median[-1, s.best]),
              help=f"Median over the runs after {steps} steps; it started at {fmt(scenario.pi[s.best])}")

    if s.likely == s.best:
        st.markdown(f"In this example the most likely token, **{likely}**, is also the one with the best mean score, "
                    "so greedy decoding already writes the best answer. Exploration matters when the best token is "
                    "not the favourite: try the article's example or *Best token is rare* in the sidebar.")
    else:
        low, high = ex.greedy_bands.low[-1, s.best], ex.greedy_bands.high[-1, s.best]
        if fmt(low) != fmt(high):
            moved = f"ends between {fmt(low)} and {fmt(high)}"
        else:
            moved = f"{'stays' if fmt(low) == fmt(scenario.pi[s.best]) else 'ends'} at {fmt(low)} in every run"
        why = {
            "batch mean": "With the *batch mean* baseline every greedy answer starts with the same token, their scores "
                          "minus the batch mean add up to zero, and the first-token update is exactly zero.",
            "none": f"With no baseline each greedy update can only make **{likely}** more likely still.",
            "V": f"With b = V, greedy's V is Q({likely}) itself, so its updates are noise around zero: "
                 f"**{likely}** wobbles, but nothing is learned about the other tokens.",
        }[baseline]
        st.markdown(
            f"**Greedy** writes **{likely}** every time, so each batch's mean score hovers around Q({likely}) = "
            f"{fmt(s.q[s.likely])}. It never sees **{best}**, whose answers average {fmt(s.q[s.best])}, so across the "
            f"{n_seeds} {seeds_word} π({best}) {moved} (it began at {fmt(scenario.pi[s.best])}). "
            f"{why} "
            f"**Sampling** at τ = {fmt(temp)} draws {best} with probability {fmt(ex.at_temp[s.best], 3)} per "
            f"answer, so a batch of {batch} holds at least one {best} answer {pct(ex.batch_chance)} of the time; "
            f"after {steps} steps "
            f"the median run gives {best} {fmt(ex.sampled_bands.median[-1, s.best])}."
        )

    st.subheader("Training curves")
    band_note = f"median of {n_seeds} {seeds_word}; the band spans the lowest to the highest"
    df = score_frame(ex, steps, sampling_name)
    page.chart(fit(charts.band_chart(df, x="step", mid="median", low="lowest", high="highest", series="decoding",
                                 title="Mean judge score of each batch", subtitle=band_note, x_title="update step",
                                 y_title="mean judge score of the batch", legend_title="decoding")),
               df, alt_text=f"Mean batch score per update step for greedy decoding and {sampling_name}, "
                            f"median and range over {n_seeds} seeds", name="explore_scores")
    left, right = st.columns(2)
    with left:
        df = prob_frame(ex.sampled_bands, steps, tokens)
        page.chart(fit(charts.band_chart(df, x="step", mid="median", low="lowest", high="highest", series="token",
                                     title=f"Each token's probability, {sampling_name}", subtitle=band_note,
                                     x_title="update step", y_title="probability π(token)", tokens=tokens,
                                     legend_title="token", y_domain=[0, 1])),
                   df, alt_text=f"Probability of each token per update step when sampling at temperature {fmt(temp)}",
                   name="explore_probs_sampled")
    with right:
        df = prob_frame(ex.greedy_bands, steps, tokens)
        page.chart(fit(charts.band_chart(df, x="step", mid="median", low="lowest", high="highest", series="token",
                                     title="Each token's probability, greedy decoding", subtitle=band_note,
                                     x_title="update step", y_title="probability π(token)", tokens=tokens,
                                     legend_title="token", y_domain=[0, 1])),
                   df, alt_text="Probability of each token per update step with greedy decoding",
                   name="explore_probs_greedy")

    # ---------------------------------------------------------------- who finds the best token
    st.subheader(f"How many runs find {best}?")
    threshold = 0.9
    st.caption(f"A run *converges* to {best} when its final π({best}) is above {fmt(threshold)}.")
    c1, c2, c3 = st.columns(3)
    c1.metric(f"Runs that converge, {sampling_name}",
              f"{int(ex.sampled_outcome.converged.sum())} of {n_seeds} ({pct(ex.sampled_outcome.fraction)})")
    c2.metric("Runs that converge, greedy",
              f"{int(ex.greedy_outcome.converged.sum())} of {n_seeds} ({pct(ex.greedy_outcome.fraction)})")
    c3.metric(f"Chance one batch of {batch} holds {best}", pct(ex.batch_chance, 1))
    with st.expander("Each run's final probability"):
        st.dataframe(pd.DataFrame({
            "seed": np.arange(n_seeds),
            f"final π({best_raw}), sampling": ex.sampled_outcome.final,
            "converged (sampling)": ex.sampled_outcome.converged,
            f"first step above {fmt(threshold)} (sampling; −1 = never)": ex.sampled_outcome.first_step,
            f"final π({best_raw}), greedy": ex.greedy_outcome.final,
            "converged (greedy)": ex.greedy_outcome.converged,
        }), hide_index=True, width="stretch",
            column_config={c: st.column_config.NumberColumn(format="%.3f")
                           for c in (f"final π({best_raw}), sampling", f"final π({best_raw}), greedy")})

    # ---------------------------------------------------------------- temperature and discovery
    st.subheader("What the temperature does")
    order = ", ".join(esc(t) for t in tokens)
    st.markdown(
        "Sampling at temperature τ draws each answer's first token from softmax(log π / τ) instead of π itself: "
        "below 1 the favourite gets even more of the draws, above 1 the rare tokens get more. "
        + (f"At τ = 1 that is π itself ({fmt_list(scenario.pi)} for {order}). " if temp == 1.0 else
           f"At τ = {fmt(temp)} the policy's {fmt_list(scenario.pi)} ({order}) becomes {fmt_list(ex.at_temp)}. ")
        + "The update still changes π; the temperature only decides which answers get written."
    )
    left, right = st.columns(2)
    with left:
        df = pd.DataFrame({"token": tokens, "probability": scenario.pi})
        page.chart(charts.token_bars(df, value="probability", title="The policy π (temperature 1)",
                                     value_title="probability", tokens=tokens, domain=[0, 1], height=220),
                   df, alt_text="Bar chart of the policy's probability for each token", name="explore_pi")
    with right:
        df = pd.DataFrame({"token": tokens, "probability": ex.at_temp})
        page.chart(charts.token_bars(df, value="probability", title=f"What sampling at τ = {fmt(temp)} draws from",
                                     value_title="probability", tokens=tokens, domain=[0, 1], height=220),
                   df, alt_text=f"Bar chart of each token's sampling probability at temperature {fmt(temp)}",
                   name="explore_temp")

    st.markdown(
        f"The chance that **{best}** shows up at least once in k answers is 1 − (1 − p)^k. At τ = {fmt(temp)} "
        + (f"(p = {fmt(ex.at_temp[s.best], 3)}) it passes 50% at k = {fmt(ex.k50)} and 95% at k = {fmt(ex.k95)}."
           if np.isfinite(ex.k95) else "it is never drawn (p = 0), so no number of samples will ever show it.")
    )
    series_pi = f"τ = 1: p = {fmt(scenario.pi[s.best], 3)}"
    frames = [pd.DataFrame({"answers sampled": ex.ks, "series": series_pi, "chance": ex.chance})]
    if temp != 1.0:
        frames.append(pd.DataFrame({"answers sampled": ex.ks, "chance": ex.chance_at_temp,
                                    "series": f"τ = {fmt(temp)}: p = {fmt(ex.at_temp[s.best], 3)}"}))
    df = pd.concat(frames, ignore_index=True)
    ch = charts.line_chart(df, x="answers sampled", y="chance", series="series",
                           title=f"Chance to see {best_raw} at least once", subtitle="1 − (1 − p)^k",
                           x_title="answers sampled, k", y_title="chance of at least one",
                           legend_title="p per answer",
                           points=False, y_domain=[0, 1.1])
    marks = pd.DataFrame({"k": [ex.k50, ex.k95], "label": [f"50% at k = {fmt(ex.k50)}", f"95% at k = {fmt(ex.k95)}"]})
    marks = marks[np.isfinite(marks["k"]) & (marks["k"] <= ex.ks[-1])]
    if len(marks):
        ch = charts.layer(ch, charts.rules(marks, at="k", label="label", axis="x"))
    page.chart(fit(ch), df,
               alt_text=f"Chance of sampling {best_raw} at least once against the number of answers sampled",
               name="explore_discovery")

    # ---------------------------------------------------------------- predict
    if s.likely == s.best:
        answer = "It already writes it"
    elif ex.greedy_outcome.converged.any():
        answer = "Yes, given enough steps"
    else:
        answer = "No, never"
    page.predict(
        f"With greedy decoding, will the policy ever find {best}?",
        ["Yes, given enough steps", "No, never", "It already writes it"], answer,
        (f"Greedy decoding writes **{likely}** every time, so it only ever learns about {likely}: "
         f"{int(ex.greedy_outcome.converged.sum())} of {n_seeds} greedy {seeds_word} converged to **{best}**, "
         f"against {int(ex.sampled_outcome.converged.sum())} of {n_seeds} when sampling at τ = {fmt(temp)}. "
         "That is why RL training samples its answers instead of decoding greedily.")
        if s.likely != s.best else
        f"**{best}** is already the most likely token, so greedy decoding writes it from the first step.",
        key="predict_explore",
    )


exploration_panel()

page.show_code(rlcore.sampled_training_many, rlcore.temperature_probs, rlcore.discovery_chance,
               rlcore.samples_to_discover, rlcore.exploration_outcome)
page.nav.footer(__file__)
