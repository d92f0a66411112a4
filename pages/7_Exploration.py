"""Exploration: greedy decoding never tries the other tokens; sampling does, and that is what lets the policy learn."""

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page, prep
from ui.bundles import Exploration
from ui.colors import method_colors
from ui.format import esc, fmt, fmt_list, pct

fit = charts.fit_width  # a plot keeps its height and fits its width (ui.charts)

THRESHOLD = 0.9  # rlcore.exploration_outcome's default: a run "converges" above it

scenario = page.setup(
    "Training learns only from the answers the model writes. If it always writes its favourite token (greedy "
    "decoding), can it ever find out that a rarer token scores better?",
)
page.why(
    "An update raises or lowers the tokens that appear in the sampled answers; a token that is never written "
    "gets no feedback at all. **Greedy decoding** takes the most likely token every time, so it keeps writing the "
    "same answer. **Sampling** at a temperature now and then writes one of the rarer tokens, and those few answers "
    "are what pull the policy toward a better branch. That is why RL for LLMs samples its training answers, and "
    "why the temperature and the number of answers per prompt matter. Below, several training runs (one per random "
    "seed) decode each way on the same example."
)

page.presets({
    "The article: sample at τ = 1": {},  # every input at its default
    "Cold sampling (τ = 0.3)": {"temp": 0.3},
    "Hot sampling (τ = 2)": {"temp": 2.0},
    "No baseline": {"baseline": "none"},
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
    if s.likely == s.best:
        answer = "It already writes it"
    elif ex.greedy_outcome.converged.any():
        answer = "Yes, given enough steps"
    else:
        answer = "No, never"
    runs_word = "run" if n_seeds == 1 else "runs"
    return page.predict(
        f"Greedy decoding always writes the most likely token, **{likely}**. Trained that way, will the policy ever "
        f"settle on **{best}**, the token whose answers score best?",
        ["Yes, given enough steps", "No, never", "It already writes it"], answer,
        (f"Greedy decoding writes **{likely}** every time, so it only ever learns about {likely}: "
         f"{int(ex.greedy_outcome.converged.sum())} of {n_seeds} greedy {runs_word} converged to **{best}**, "
         f"against {int(ex.sampled_outcome.converged.sum())} of {n_seeds} when sampling at τ = {fmt(temp)}. "
         "That is why RL training samples its answers instead of decoding greedily.")
        if s.likely != s.best else
        f"**{best}** is already the most likely token, so greedy decoding writes it from the first step.",
        key="predict_explore")


@st.fragment
def exploration_panel() -> None:
    """The temperature, the training settings and everything they feed: moving a widget reruns this panel only."""
    question = st.container()  # the question sits above the inputs it depends on
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    temp = inputs.slider("Sampling temperature τ", 0.1, 3.0, 1.0, 0.1, key="temp", where=c1,
                         help=glossary.term("τ"))
    with c2.expander("More settings"):
        lr = inputs.slider("Step size η", 0.01, 1.0, 0.1, 0.01, key="lr")
        steps = inputs.slider("Update steps", 10, 300, 100, 10, key="steps")
        batch = inputs.slider("Answers per step (batch)", 1, 64, 8, 1, key="batch")
        baseline = inputs.selectbox("Baseline b", rlcore.BASELINES, "batch mean", key="baseline",
                                    help="What each score is compared with: nothing, the batch's mean score, or V")
        n_seeds = inputs.slider("Runs (seeds)", 1, 32, 8, 1, key="seeds")

    ex = page.run(explore, scenario, temp, lr, steps, batch, baseline, n_seeds)
    s = ex.summary
    tokens = scenario.tokens
    likely_raw, best_raw = tokens[s.likely], tokens[s.best]
    likely, best = esc(likely_raw), esc(best_raw)
    sampling_name = f"sampling at τ = {fmt(temp)}"
    seeds_word = "run" if n_seeds == 1 else "runs"
    with question:
        revealed = ask(ex, likely, best, temp, n_seeds)
    # fixed series names keep each chart's shape (and its converted spec) the same as τ moves; τ is in the legend
    names = ["sampling", "greedy"] if revealed else ["sampling"]
    legend = f"decoding (sampling at τ = {fmt(temp)})"
    band_note = f"median of {n_seeds} {seeds_word}; shaded: lowest to highest"

    # ---------------------------------------------------------------- the main chart: π(best), each decoding
    found = [("sampling", ex.sampled_bands)] + ([("greedy", ex.greedy_bands)] if revealed else [])
    df = by_decoding(found, steps, 0, column=s.best)
    page.chart(fit(charts.layer(charts.bands(df, x="step", mid="median", low="lowest", high="highest",
                                             series="decoding", colors=method_colors(names), legend_title=legend,
                                             x_title="update step", y_title=f"probability π({best_raw})",
                                             y_domain=[0, 1]),
                                title=f"π({best_raw}) during training", subtitle=band_note, height=charts.HEIGHT)),
               df, alt_text=f"Probability of {best_raw} per update step for {sampling_name}"
                            + (" and for greedy decoding" if revealed else "") + f", median and range over {n_seeds} "
                            "seeds", name="explore_best")
    if not revealed:
        st.caption("Greedy's curves and counts appear once you answer the question above.")
    else:
        m1, m2, m3, m4 = st.columns(4)
        m1.metric("Greedy always writes", likely)
        m2.metric(f"Greedy's score Q({likely})", fmt(s.q[s.likely]))
        m3.metric(f"π({best}), sampling", fmt(ex.sampled_bands.median[-1, s.best]),
                  help=f"Median over the runs after {steps} steps at τ = {fmt(temp)}; "
                       f"it started at {fmt(scenario.pi[s.best])}")
        m4.metric(f"π({best}), greedy", fmt(ex.greedy_bands.median[-1, s.best]),
                  help=f"Median over the runs after {steps} steps; it started at {fmt(scenario.pi[s.best])}")
    if revealed and s.likely == s.best:
        st.markdown(f"In this example the most likely token, **{likely}**, is also the one with the best mean score, "
                    "so greedy decoding already writes the best answer. Exploration matters when the best token is "
                    "not the favourite: try the article's example or *Best token is rare* in the sidebar.")
    elif revealed:
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
            f"after {steps} steps the median run gives {best} {fmt(ex.sampled_bands.median[-1, s.best])}."
        )

    # ---------------------------------------------------------------- the curves behind it
    st.subheader("Training curves")
    scores = [("sampling", ex.sampled_score)] + ([("greedy", ex.greedy_score)] if revealed else [])
    df = by_decoding(scores, steps, 1)
    page.chart(fit(charts.layer(charts.bands(df, x="step", mid="median", low="lowest", high="highest",
                                             series="decoding", colors=method_colors(names), legend_title=legend,
                                             x_title="update step", y_title="mean judge score of the batch"),
                                title="Mean judge score of each batch", subtitle=band_note, height=charts.HEIGHT)),
               df, alt_text=f"Mean batch score per update step for {' and '.join(names)}, "
                            f"median and range over {n_seeds} seeds", name="explore_scores")
    left, right = st.columns(2)
    with left:
        df = prob_frame(ex.sampled_bands, steps, tokens)
        page.chart(fit(charts.layer(charts.bands(df, x="step", mid="median", low="lowest", high="highest",
                                                 series="token", tokens=tokens, legend_title="token",
                                                 x_title="update step", y_title="probability π(token)",
                                                 y_domain=[0, 1]),
                                    title=f"Each token's probability, {sampling_name}", subtitle=band_note,
                                    height=charts.HEIGHT)),
                   df, alt_text=f"Probability of each token per update step when sampling at temperature {fmt(temp)}",
                   name="explore_probs_sampled")
    if revealed:
        with right:
            df = prob_frame(ex.greedy_bands, steps, tokens)
            page.chart(fit(charts.layer(charts.bands(df, x="step", mid="median", low="lowest", high="highest",
                                                     series="token", tokens=tokens, legend_title="token",
                                                     x_title="update step", y_title="probability π(token)",
                                                     y_domain=[0, 1]),
                                        title="Each token's probability, greedy decoding", subtitle=band_note,
                                        height=charts.HEIGHT)),
                       df, alt_text="Probability of each token per update step with greedy decoding",
                       name="explore_probs_greedy")

        # ------------------------------------------------------------ who finds the best token
        st.subheader(f"How many runs find {best}?")
        st.caption(f"A run *converges* to {best} when its final π({best}) is above {fmt(THRESHOLD)}.")
        c1, c2, c3 = st.columns(3)
        c1.metric("Converged, sampling",
                  f"{int(ex.sampled_outcome.converged.sum())} of {n_seeds} ({pct(ex.sampled_outcome.fraction)})",
                  help=f"Runs that converge, {sampling_name}")
        c2.metric("Converged, greedy",
                  f"{int(ex.greedy_outcome.converged.sum())} of {n_seeds} ({pct(ex.greedy_outcome.fraction)})")
        c3.metric(f"A batch holds {best}", pct(ex.batch_chance, 1),
                  help=f"The chance that one batch of {batch} answers holds at least one {best} answer")
        with st.expander("Each run's final probability"):
            st.dataframe(pd.DataFrame({
                "seed": np.arange(n_seeds),
                f"final π({best_raw}), sampling": ex.sampled_outcome.final,
                "converged (sampling)": ex.sampled_outcome.converged,
                f"first step above {fmt(THRESHOLD)} (sampling; −1 = never)": ex.sampled_outcome.first_step,
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
    layers = [charts.lines(df, x="answers sampled", y="chance", series="series",
                           colors=method_colors(dict.fromkeys(df["series"], None)), legend_title="p per answer",
                           x_title="answers sampled, k", y_title="chance of at least one", y_domain=[0, 1.1])]
    marks = pd.DataFrame({"k": [ex.k50, ex.k95], "label": ["50%", "95%"]})  # the k values are in the subtitle
    marks = marks[np.isfinite(marks["k"]) & (marks["k"] <= ex.ks[-1])]
    if len(marks):
        layers.append(charts.rules(marks, at="k", label="label", axis="x"))
    ch = charts.layer(*layers, title=f"Chance to see {best_raw} at least once", height=charts.HEIGHT,
                      subtitle="1 − (1 − p)^k" + "".join(f"; {q} at k = {fmt(k)}" for q, k in
                                                         (("50%", ex.k50), ("95%", ex.k95)) if np.isfinite(k)))
    page.chart(fit(ch), df,
               alt_text=f"Chance of sampling {best_raw} at least once against the number of answers sampled",
               name="explore_discovery")


exploration_panel()

page.show_code(rlcore.sampled_training_many, rlcore.temperature_probs, rlcore.discovery_chance,
               rlcore.samples_to_discover, rlcore.exploration_outcome)
page.end()
