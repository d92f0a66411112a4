"""Over-optimisation: train against the reward model while the true judge watches."""

import math

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from pages.views import gao
from ui import charts, inputs, page, scrub
from ui.colors import method_colors
from ui.format import esc, fmt
from ui.i18n import t
from ui.page import NOTHING_TO_COMPARE
from ui.prep import thin_steps

BETAS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5]  # whole ones as ints: a link spells them "1"
COMPARE_BETAS = [0.03, 0.3, 3.0]
COMPARISONS = [50, 100, 200, 500, 1000, 2000, 5000, 20000]
COMPARE_N = [100, 1000, 20000]
MAX_SEED = 999_999
LOG_GRID = scrub.steps(-2.0, 0.7, 0.1)  # the run at log₁₀ β = −2 … 0.7 (β 0.01 … 5, as the slider): dragged
PATH_POINTS = 60  # steps per judge and β of the scrubbed run: a move redraws them all (bench/scrub.py)

scenario = page.setup("p17")
SERIES = (t("p17.series_rm"), t("p17.series_true"))  # the legend's names of the two judges

page.presets({
    t("p17.preset_loose"): {"beta": 0.02},
    t("p17.preset_tight"): {"beta": 1},
    t("judge.love_flattery"): {"flattery": 2.0},
    t("judge.ignore_flattery"): {"flattery": 0.0},
})


def train(beta: float, comparisons: int, raters: dict):
    """A run against the reward model fitted to ``comparisons`` pairs (``raters``: flattery, noise, steps, seed)."""
    return page.study(rlcore.over_optimisation, scenario, beta=beta, comparisons=comparisons, **raters, entries=64)


def curves(run, label: str | None = None) -> pd.DataFrame:
    """The two gains along the run against its KL (one series per judge, or only the true one, labelled)."""
    if label is not None:
        return pd.DataFrame({"KL": run.kl, "gain": run.true, "run": label})
    return pd.concat([pd.DataFrame({"KL": run.kl, "gain": g, "run": s})
                      for s, g in zip(SERIES, (run.proxy, run.true), strict=True)], ignore_index=True)


@page.panel
def over_panel() -> None:
    c1, c2, c3 = st.columns(3)
    beta = inputs.select_slider(t("p17.beta"), BETAS, 0.05, key="beta", where=c1, help=t("p17.beta_help"))
    n = inputs.select_slider(t("p17.n"), COMPARISONS, 1000, key="n", where=c2, help=t("p17.n_help"))
    flattery = inputs.slider(t("judge.flattery"), 0.0, 3.0, rlcore.FLATTERY_BONUS, 0.1, key="flattery", where=c3,
                             help=t("judge.flattery_help"))
    with st.expander(t("judge.more_settings")):
        m1, m2, m3 = st.columns(3)
        noise = inputs.slider(t("judge.noise"), 0.25, 5.0, 2.0, 0.25, key="noise", where=m1)
        steps = inputs.slider(t("p17.steps"), 10, 1000, 300, 10, key="steps", where=m2)
        seed = inputs.number(t("judge.seed"), 0, MAX_SEED, 0, key="seed", where=m3, help=t("judge.seed_help"))

    if not rlcore.judge_items(scenario).comparable:  # raters need two answers the model can write
        page.stop_with_notice(NOTHING_TO_COMPARE)
    raters = {"flattery": float(flattery), "noise": float(noise), "steps": int(steps), "seed": int(seed)}
    run = train(float(beta), int(n), raters)
    revealed = ask(run, beta)
    if revealed:
        logs, exact, betas = scrub.at_log10(LOG_GRID, float(beta))
        paths = page.study(rlcore.over_optimisation, scenario, beta=betas, comparisons=int(n), **raters, entries=16)
        draw_paths(paths, (logs, exact, betas), run, float(beta))
    else:
        draw_run(run)
    if revealed:
        explain_peak(run)
        draw_betas(int(n), raters)
        draw_comparisons(float(beta), raters)
        closed_form(run)
        gao.draw()
    else:
        inputs.later("gao_how", "gao_bias")  # the Gao section's inputs: a link's values wait for the answer


def ask(run, beta) -> bool:
    """Does the true score keep rising along the run at this β?"""
    items = run.items
    options = [t("p17.keeps_rising"), t("p17.turns")]
    return page.predict(
        t("p17.question", beta=fmt(beta)), options, options[1] if run.peak > 0 and run.fall > 0 else options[0],
        t("p17.explanation", best=fmt(run.true[run.peak], sign=True), kl=fmt(run.kl[run.peak]), step=run.peak,
          last=fmt(run.true[-1], sign=True), proxy=fmt(run.proxy[-1], sign=True), before=fmt(items.ref[-1], 3),
          after=fmt(run.probs[-1, -1], 3)),
        key="predict_over")


def judges() -> charts.Key:
    """The legend of the two judges, in their fixed colours."""
    colors = method_colors(dict(zip(SERIES, ("reward model", "true judge"), strict=True)))
    return charts.Key("run", colors=colors, title=t("p17.legend"))


def draw_run(run) -> None:
    """Before the answer: the reward model's gain against KL (the true judge's would give the answer away)."""
    df = curves(run).query("run == @SERIES[0]")
    ch = charts.layer(charts.lines(df, x="KL", y="gain", key=judges(), axes=charts.Axes(t("p17.x_title"),
                                                                                        t("p17.y_title"))),
                      title=t("p17.title"), subtitle=t("p17.locked"))
    page.chart(ch, df, alt_text=t("p17.alt"), name="over_optimisation")


def draw_paths(paths, at: tuple, run, beta: float) -> None:
    """After the answer: both judges' gains against KL at every β of the grid (the one dragged to shown), and a
    rule where the run at the committed β ends, labelled with it."""
    logs, exact, betas = np.asarray(at[0]), at[1], at[2]
    at = thin_steps(paths.kl.shape[1], PATH_POINTS)
    per_beta = {"log₁₀ β": np.repeat(logs, at.size), scrub.EXACT: np.repeat(exact, at.size)}
    df = pd.concat([pd.DataFrame({**per_beta, "KL": paths.kl[:, at].ravel(), "gain": g[:, at].ravel(), "run": s})
                    for s, g in zip(SERIES, (paths.proxy, paths.true), strict=True)], ignore_index=True)
    shown = pd.DataFrame({"log₁₀ β": logs, scrub.EXACT: exact,
                          "label": [t("chart.scrub_shown", name="β", value=fmt(b, 3)) for b in betas]})
    yours = pd.DataFrame({"at": [run.kl[-1]], "label": [t("chart.scrub_yours", name="β", value=fmt(beta))]})
    ch = charts.layer(charts.lines(df, x="KL", y="gain", key=judges(), axes=charts.Axes(t("p17.x_title"),
                                                                                        t("p17.y_title"))),
                      charts.rules(yours, at="at", label="label", axis="x", align="right",  # where the run ends,
                                   label_at=charts.HEIGHT - 24),  # clear of both curves' ends and the plot's edge
                      charts.note(shown, text="label", corner="top left"),
                      title=t("p17.title"), subtitle=t("p17.subtitle"))
    page.scrub(ch, df, field="log₁₀ β", grid=LOG_GRID, value=math.log10(beta),
               label=t("chart.scrub_input", name=t("p17.log_beta")), alt_text=t("p17.alt"), name="over_optimisation")


def explain_peak(run) -> None:
    """Where the true score peaked, and which answer the reward model overrates."""
    items = run.items
    c = st.columns(3)
    c[0].metric(t("p17.peak"), fmt(run.true[run.peak], sign=True), help=t("p17.peak_help"))
    c[1].metric(t("p17.peak_kl"), fmt(run.kl[run.peak]), help=t("p17.peak_kl_help"))
    c[2].metric(t("p17.fall"), fmt(run.fall), help=t("p17.fall_help"))
    names = page.answer_names(items)
    if run.fall > 0:
        flat, best = items.flattering, items.best
        st.markdown(t("p17.turned", flat=esc(names[flat]), flat_rm=fmt(run.proxy_scores[flat]),
                      best=esc(names[best]), best_rm=fmt(run.proxy_scores[best]),
                      flat_true=fmt(items.true[flat]), best_true=fmt(items.true[best])))
    else:
        st.markdown(t("p17.no_turn"))


def true_runs(runs, labels, *, legend: str, title: str, alt_text: str, name: str, subtitle=None) -> None:
    """The true gain of several runs against their KL, one line per run; with a ``subtitle``, a labelled dot where
    each one ends (runs that follow one path, as three β do, are told apart by where they stop)."""
    data = pd.concat([curves(r, lab) for r, lab in zip(runs, labels, strict=True)], ignore_index=True)
    key, axes = charts.Key("run", colors=method_colors(labels), title=legend), charts.Axes(t("p17.x_title"),
                                                                                            t("p17.true_gain"))
    ends = [charts.labelled_points(data.groupby("run", sort=False).tail(1), x="KL", y="gain", label="run", key=key,
                                   axes=axes, size=70, beside=True)] if subtitle else []
    page.chart(charts.layer(charts.lines(data, x="KL", y="gain", key=key, axes=axes), *ends, title=title,
                            subtitle=subtitle), data, alt_text=alt_text, name=name)


def draw_betas(n: int, raters: dict) -> None:
    """The same reward model at three leashes β."""
    st.subheader(t("p17.leash"))
    runs = [train(b, n, raters) for b in COMPARE_BETAS]
    true_runs(runs, [t("p17.beta_run", beta=fmt(b)) for b in COMPARE_BETAS], legend=t("p17.beta_legend"),
              title=t("p17.beta_title"), alt_text=t("p17.beta_alt"), name="betas", subtitle=t("p17.beta_subtitle"))
    st.markdown(t("p17.join").join(
        t("p17.beta_end_fall", beta=fmt(b), kl=fmt(r.kl[-1]), gain=fmt(r.true[-1], sign=True), fall=fmt(r.fall))
        if r.fall > 0 else t("p17.beta_end", beta=fmt(b), kl=fmt(r.kl[-1]), gain=fmt(r.true[-1], sign=True))
        for r, b in zip(runs, COMPARE_BETAS, strict=True)))


def draw_comparisons(beta: float, raters: dict) -> None:
    """The same β against reward models fitted to more and more pairs."""
    st.subheader(t("p17.more"))
    nruns = [train(beta, k, raters) for k in COMPARE_N]
    nlabels = [t("p17.n_run", n=f"{k:,}") for k in COMPARE_N]
    true_runs(nruns, nlabels, legend=t("p17.n_legend"), title=t("p17.n_title"), alt_text=t("p17.n_alt"),
              name="comparisons")
    st.markdown(t("p17.join").join(
        [t("p17.n_end", run=lab, peak=fmt(r.true[r.peak], sign=True), kl=fmt(r.kl[r.peak]), fall=fmt(r.fall))
         for r, lab in zip(nruns, nlabels, strict=True)] + [why_comparisons(nruns, raters["flattery"])]))


def why_comparisons(nruns, flattery: float) -> str:
    """Why the fall changes with the comparisons: a bias all raters share, sharper with more data (or not), or no
    bias at all (then Gao et al.'s cause is the last section's)."""
    few, many = nruns[0].fall, nruns[-1].fall
    if flattery > 0:
        return t("p17.n_why" if many > few else "p17.n_why_flat", flattery=fmt(flattery), few_fall=fmt(few),
                 many_fall=fmt(many))
    return t("p17.n_why_none_falls" if any(r.fall > 0 for r in nruns) else "p17.n_why_none")


def closed_form(run) -> None:
    """Where training goes: π_ref·exp(r̂/β), beside where the run ended."""
    with st.expander(t("p17.closed_form")):
        st.markdown(t("p17.closed_form_text"))
        numeric = (t("p17.col_ref"), t("p17.col_after"), t("p17.col_optimum"))
        page.table(pd.DataFrame({t("p17.col_answer"): page.answer_names(run.items),
                                 **dict(zip(numeric, (run.items.ref, run.probs[-1], run.limit), strict=True))}),
                   formats={k: "%.4f" for k in numeric})


over_panel()

page.end(code=(rlcore.train_against, rlcore.reward_model_study, rlcore.goodhart_study))
