"""A reward model from comparisons: raters pick one of two answers, Bradley–Terry turns their picks into scores."""

import pandas as pd
import streamlit as st

import rlcore
from ui import charts, inputs, page
from ui.colors import method_colors
from ui.format import esc, fmt
from ui.i18n import t
from ui.page import NOTHING_TO_COMPARE

COMPARISONS = [20, 50, 100, 200, 500, 1000, 2000, 5000, 20000]
ERROR_AT = [50, 100, 200, 500, 1000, 2000, 5000]
MAX_SEED = 999_999
SOURCES = ("true_judge", "raters", "reward_model")  # catalogue ids; ui.colors knows each judge's colour
COLORS = ("true judge", "raters", "reward model")

scenario = page.setup("p16")

page.presets({
    t("p16.preset_few"): {"n": 50},
    t("p16.preset_many"): {"n": 5000},
    # with the default 1,000 the rare flattering answer meets its close rival a handful of times, so the fit steps
    # (0.6 and 2 gave the same +0.89): enough comparisons that the raters' taste shows in the reward model
    t("judge.love_flattery"): {"flattery": 2.0, "n": 20000},
    t("judge.ignore_flattery"): {"flattery": 0.0},
})


@page.panel
def reward_panel() -> None:
    c1, c2, c3 = st.columns(3)
    n = inputs.select_slider(t("p16.n"), COMPARISONS, 1000, key="n", where=c1, help=t("p16.n_help"))
    flattery = inputs.slider(t("judge.flattery"), 0.0, 3.0, rlcore.FLATTERY_BONUS, 0.1, key="flattery", where=c2,
                             help=t("judge.flattery_help"))
    noise = inputs.slider(t("judge.noise"), 0.25, 5.0, 2.0, 0.25, key="noise", where=c3, help=t("p16.noise_help"))
    with st.expander(t("judge.more_settings")):
        seed = inputs.number(t("judge.seed"), 0, MAX_SEED, 0, key="seed", help=t("judge.seed_help"))

    if not rlcore.judge_items(scenario).comparable:  # raters need two answers the model can write
        page.stop_with_notice(NOTHING_TO_COMPARE)
    rm = page.study(rlcore.reward_model_study, scenario, comparisons=int(n), flattery=float(flattery),
                    noise=float(noise), seed=int(seed), entries=32)
    names = page.answer_names(rm.items)
    best = rm.items.best
    options = [t("p16.above"), t("p16.below")]
    revealed = page.predict(
        t("p16.question", gap=fmt(rm.true_flattery_lead, sign=True), best=esc(names[best]), n=f"{int(n):,}"),
        options, options[0] if rm.flattery_lead > 0 else options[1],
        t("p16.explanation", gap=fmt(rm.flattery_lead, sign=True), best=esc(names[best])),
        key="predict_rm")
    sources = [t(f"p16.{s}") for s in SOURCES]  # the judges as the chart's legend and the table's columns name them
    draw_scores(rm, names, sources, revealed)
    if revealed:
        explain_fit(rm, names, sources)
        draw_fit_errors(float(flattery), float(noise))
        going_further(rm, names)


def draw_scores(rm, names, sources, revealed: bool) -> None:
    """Each answer's score by each judge; the reward model's once the question is answered."""
    rows = [{"answer": a, "label": f"{i + 1}. {a}", "score": float(v), "judge": src}  # numbered: never a bare name
            for src, values in zip(sources, (rm.true, rm.rater, rm.fitted), strict=True)
            for i, (a, v) in enumerate(zip(names, values, strict=True))
            if revealed or src != sources[-1]]
    scores = pd.DataFrame(rows)
    colors = method_colors(dict(zip(sources, COLORS, strict=True)))
    ch = charts.titled(charts.grouped_bars(scores, x="label", y="score", key=charts.Key("judge", colors=colors),
                                           axes=charts.Axes(t("p16.x_title"), t("p16.y_title"))),
        title=t("p16.title"), subtitle=t("p16.subtitle" if revealed else "p16.locked"))
    page.chart(ch, scores, alt_text=t("p16.alt"), name="reward_model")


def explain_fit(rm, names, sources) -> None:
    """The comparisons behind each score, and how close the fit came."""
    ref_col = t("p16.col_ref")
    shown = pd.DataFrame({
        t("p16.col_answer"): names,
        ref_col: rm.items.ref,
        t("p16.col_compared"): rm.compared,
        t("p16.col_won"): rm.won,
        **dict(zip(sources, (rm.true, rm.rater, rm.fitted), strict=True)),
    })
    page.table(shown, formats={c: "%.3f" for c in (ref_col, *sources)})
    rare = rm.rarest
    st.markdown(t("p16.fit", error=fmt(rm.error), rare=esc(names[rare]), n=int(rm.compared[rare]),
                  p=fmt(rm.items.ref[rare], 3)))


def draw_fit_errors(flattery: float, noise: float) -> None:
    """The fit's error as the comparisons grow."""
    st.subheader(t("p16.more"))
    err = page.study(rlcore.fit_errors, scenario, ERROR_AT, flattery=flattery, noise=noise, entries=16)
    err_series = t("p16.err_series")
    err_df = pd.DataFrame({"comparisons": err.comparisons, "error": err.error, "series": err_series})
    ech = charts.layer(charts.lines(err_df, x="comparisons", y="error",
                                    key=charts.Key("series", colors=method_colors({err_series: "fit error"}),
                                                   title=t("p16.err_legend")),
                                    axes=charts.Axes(t("p16.err_x"), t("p16.err_y")), points=True),
                       title=t("p16.err_title"), subtitle=t("p16.err_subtitle"))
    page.chart(ech, err_df, alt_text=t("p16.err_alt"), name="fit_error")
    st.markdown(t("p16.err_text", first=f"{err.comparisons[0]:,}", last=f"{err.comparisons[-1]:,}",
                  high=fmt(err.error[0]), low=fmt(err.error[-1])))


def going_further(rm, names) -> None:
    """The ridge, and the answers that never lost."""
    with st.expander(t("p16.further")):
        st.markdown(t("p16.further_text", ridge=fmt(rlcore.judge.RIDGE)))
        never = rm.never_lost
        if never.size:
            st.markdown(t("p16.never_lost", answers=esc(t("p16.sep").join(names[i] for i in never))))
        else:
            st.markdown(t("p16.all_lost"))


reward_panel()

page.end(code=(rlcore.bt_prob, rlcore.fit_reward_model, rlcore.simulate_raters, rlcore.reward_model_study,))
