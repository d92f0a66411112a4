"""A reward model from comparisons: raters pick one of two answers, Bradley–Terry turns their picks into scores."""

import numpy as np
import pandas as pd
import streamlit as st

from rlcore import judge_studies as js
from rlcore import preference
from ui import charts, inputs, page
from ui.colors import method_colors
from ui.format import esc, fmt
from ui.page import NOTHING_TO_COMPARE

COMPARISONS = [20, 50, 100, 200, 500, 1000, 2000, 5000, 20000]
ERROR_AT = [50, 100, 200, 500, 1000, 2000, 5000]
MAX_SEED = 999_999
SOURCES = ("true judge", "raters", "reward model")

scenario = page.setup(
    "Until now the judge was simply there. In practice nobody can write down a score for every answer, but "
    "people can say which of two answers they prefer. A **reward model** is fitted to many such comparisons "
    "with the **Bradley–Terry** model, P(a ≻ b) = σ(r_a − r_b), and from then on it *is* the judge: frozen, "
    "part of the environment. Here the raters are simulated from the example's scores, with some noise, and "
    "one more answer is added: the best answer opened with flattery, which the raters like and the true "
    "judge does not.",
)
page.why(
    "A policy trained with RL only ever sees the reward model's numbers, never the raters, so whatever the "
    "model gets wrong, training exploits. Two things decide how wrong it is: how many comparisons it saw of "
    "each answer (the reference rarely writes some of them, so they are rarely compared), and what the raters "
    "themselves reward. Bradley–Terry also learns only differences: adding the same number to every score "
    "explains the comparisons just as well, so a reward model's zero means nothing.")

page.presets({
    "Few comparisons": {"n": 50},
    "Many comparisons": {"n": 5000},
    "Raters love flattery": {"flattery": 2.0},
    "Raters ignore flattery": {"flattery": 0.0},
})

c1, c2, c3 = st.columns(3)
n = inputs.select_slider("Comparisons", COMPARISONS, 1000, key="n", where=c1,
                         help="Pairs of answers the raters see, both written by the reference.")
flattery = inputs.slider("Raters' liking for flattery (judge points)", 0.0, 3.0, js.FLATTERY_BONUS, 0.1,
                         key="flattery", where=c2,
                         help="Raters add this to the flattering answer; the true judge takes it off.")
noise = inputs.slider("Raters' noise (judge points)", 0.25, 5.0, 2.0, 0.25, key="noise", where=c3,
                      help="How far apart two answers must be before raters agree on them about three times "
                           "in four.")
with st.expander("More settings"):
    seed = inputs.number("Random seed", 0, MAX_SEED, 0, key="seed", help="The same seed, the same comparisons.")


if np.count_nonzero(js.judge_items(scenario).ref) < 2:  # raters need two answers the model can write
    page.stop_with_notice(NOTHING_TO_COMPARE)


@page.cached(32)
def study(sc, comparisons: int, fl: float, nz: float, sd: int):
    return js.reward_model_study(sc, comparisons=comparisons, flattery=fl, noise=nz, seed=sd)


@page.cached(16)
def errors(sc, fl: float, nz: float):
    return js.fit_errors(sc, ERROR_AT, flattery=fl, noise=nz)


rm = page.run(study, scenario, int(n), float(flattery), float(noise), int(seed))
items = rm.items
flat, best = items.flattering, items.best
names = items.names
gap = rm.fitted[flat] - rm.fitted[best]
true_gap = rm.true[flat] - rm.true[best]

revealed = page.predict(
    f"The true judge scores the flattering answer **{fmt(true_gap, sign=True)}** against the plain "
    f"**{esc(names[best])}**. Will the reward model fitted to {int(n):,} comparisons rate it above or below?",
    ["above", "below"], "above" if gap > 0 else "below",
    f"The reward model puts it at {fmt(gap, sign=True)} against {esc(names[best])}. It learns what the raters "
    "reward, not what the true judge would say, and with few comparisons of a rare answer it can miss by a lot "
    "either way.",
    key="predict_rm")

rows = [{"answer": a, "label": f"{i + 1}. {a}", "score": float(v), "judge": src}  # numbered: never a bare name
        for src, values in zip(SOURCES, (rm.true, rm.rater, rm.fitted), strict=True)
        for i, (a, v) in enumerate(zip(names, values, strict=True))
        if revealed or src != "reward model"]
scores = pd.DataFrame(rows)
ch = charts.fit_width(charts.grouped_bars(
    scores, x="label", y="score", group="judge", colors=method_colors(SOURCES),
    title="Each answer's score, shifted to mean 0",
    subtitle="Only differences can be learned, so each set of scores is centred" if revealed
    else "Answer the question above to see the reward model",
    x_title="answer", y_title="score − mean (judge points)"))
page.chart(ch, scores, alt_text="Scores of each answer from the true judge, the raters and the fitted reward "
                                "model, each shifted to mean 0.", name="reward_model")

if revealed:
    shown = pd.DataFrame({
        "answer": names,
        "reference π_ref": items.ref,
        "compared": (rm.wins.sum(axis=0) + rm.wins.sum(axis=1)).astype(int),
        "won": rm.wins.sum(axis=1).astype(int),
        "true judge": rm.true, "raters": rm.rater, "reward model": rm.fitted,
    })
    st.dataframe(shown, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.3f")
                                for c in ("reference π_ref", "true judge", "raters", "reward model")})
    rare = int(shown["compared"].idxmin())
    st.markdown(
        f"The fit misses the raters' scores by {fmt(rm.error)} judge points on average (root mean square). "
        f"**{esc(names[rare])}** was compared only {int(shown['compared'][rare])} times: the reference "
        f"writes it with probability {fmt(items.ref[rare], 3)}, so the raters rarely see it, and its score is "
        "the least certain. The fitted scores are the Bradley–Terry rewards times the raters' noise: a real "
        "lab does not know that noise, and its reward model's units are simply \"how sure raters are\".")

    st.subheader("More comparisons tighten the fit")
    err = page.run(errors, scenario, float(flattery), float(noise))
    err_df = pd.DataFrame({"comparisons": err.comparisons, "error": err.error, "series": "RMS error"})
    ech = charts.layer(charts.lines(err_df, x="comparisons", y="error", series="series", points=True,
                                    x_title="comparisons", y_title="error (judge points)",
                                    colors=method_colors({"RMS error": "fit error"})),
                       title="How far the reward model is from the raters",
                       subtitle="Root-mean-square error over the answers, averaged over rater panels")
    page.chart(ech, err_df, alt_text="Line chart of the reward model's error against the number of comparisons.",
               name="fit_error")
    st.markdown(
        f"From {err.comparisons[0]:,} to {err.comparisons[-1]:,} comparisons the error falls from "
        f"{fmt(err.error[0])} to {fmt(err.error[-1])}. More comparisons shrink the noise; they do not remove "
        "a bias the raters share: with a liking for flattery, the model overrates it more and more confidently.")

    with st.expander("Going further: when the maximum does not exist"):
        st.markdown(
            "If some answers never lose a comparison to the rest, Bradley–Terry can explain the data better and "
            "better by raising their scores without end: there is no best fit. A small ridge penalty "
            f"(l2 = {fmt(js.RIDGE)} here) keeps the scores finite; without it the fit refuses.")
        never = preference.never_loses(rm.winners, rm.losers, len(names))
        if never.size:
            st.markdown(f"In these comparisons **{esc(', '.join(names[i] for i in never))}** never lost.")
        else:
            st.markdown("In these comparisons every answer lost at least once to a chain of the others, so the "
                        "fit without a ridge exists too.")

page.show_code(preference.bt_prob, preference.fit_reward_model, js.simulate_raters, js.reward_model_study)
page.end()
