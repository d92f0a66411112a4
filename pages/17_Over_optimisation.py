"""Over-optimisation: train against the reward model while the true judge watches."""

import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, inputs, page
from ui.colors import method_colors
from ui.format import esc, fmt, pct
from ui.i18n import t
from ui.page import NOTHING_TO_COMPARE

BETAS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5]  # whole ones as ints: a link spells them "1"
COMPARE_BETAS = [0.03, 0.3, 3.0]
COMPARISONS = [50, 100, 200, 500, 1000, 2000, 5000, 20000]
COMPARE_N = [100, 1000, 20000]
GAO_PAIRS = {False: (100, 1000), True: (100, 10_000)}  # without, and with, the raters' bias
GAO_BIAS = 1.0
GAO_METHODS = ("tilt", "best_of_n")  # where RL goes (its KL-regularised optimum), and best-of-n
GAO_WORLDS = 10  # seeds the curves average
MAX_SEED = 999_999

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
    draw_run(run, revealed)
    if revealed:
        explain_peak(run)
        draw_betas(int(n), raters)
        draw_comparisons(float(beta), raters)
        closed_form(run)
        draw_gao()
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


def draw_run(run, revealed: bool) -> None:
    """The reward model's gain against KL; the true judge's beside it once the question is answered."""
    df = curves(run) if revealed else curves(run).query("run == @SERIES[0]")
    ch = charts.layer(charts.lines(df, x="KL", y="gain",
                                   key=charts.Key("run",
                                                  colors=method_colors(dict(zip(SERIES, ("reward model", "true judge"),
                                                                                strict=True))), title=t("p17.legend")),
                                   axes=charts.Axes(t("p17.x_title"), t("p17.y_title"))),
                      title=t("p17.title"), subtitle=t("p17.subtitle" if revealed else "p17.locked"))
    page.chart(ch, df, alt_text=t("p17.alt"), name="over_optimisation")


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
         for r, lab in zip(nruns, nlabels, strict=True)] + [t("p17.n_why")]))


def closed_form(run) -> None:
    """Where training goes: π_ref·exp(r̂/β), beside where the run ended."""
    with st.expander(t("p17.closed_form")):
        st.markdown(t("p17.closed_form_text"))
        numeric = (t("p17.col_ref"), t("p17.col_after"), t("p17.col_optimum"))
        page.table(pd.DataFrame({t("p17.col_answer"): page.answer_names(run.items),
                                 **dict(zip(numeric, (run.items.ref, run.probs[-1], run.limit), strict=True))}),
                   formats={k: "%.4f" for k in numeric})


def gao_counts(biased: bool) -> dict:
    """The two numbers of comparisons, as a sentence writes them: {"few": "100", "many": "1,000"}."""
    return {name: f"{k:,}" for name, k in zip(("few", "many"), GAO_PAIRS[biased], strict=True)}


def gao_runs(method: str, biased: bool) -> list:
    """Gao et al.'s measurement, averaged over ten worlds: (curve, label) for few and many comparisons; with the
    raters' bias, the same many comparisons from unbiased raters last (what the bias costs)."""
    pairs = GAO_PAIRS[biased]
    runs = [(page.study(rlcore.goodhart_mean, k, GAO_WORLDS, bias=GAO_BIAS if biased else 0.0, method=method),
             t("p17.n_run", n=f"{k:,}")) for k in pairs]
    return [*runs, (page.study(rlcore.goodhart_mean, pairs[1], GAO_WORLDS, method=method), None)] if biased else runs


def ask_gao(runs, biased: bool) -> bool:
    """Unbiased: with ten times more comparisons, is the true peak higher, and later? Biased: does the true
    score still turn with a hundred times more?"""
    (few, _), (many, _) = runs[:2]
    if biased:
        options = [t("p17.gao_still_falls"), t("p17.gao_keeps_rising")]
        answer = options[0 if many.turns else 1]
    else:
        options = [t(f"p17.gao_{way}") for way in ("higher_later", "higher_sooner", "lower_later", "lower_sooner")]
        higher, later = many.peak_gain > few.peak_gain, many.peak_root_kl > few.peak_root_kl
        answer = options[2 * (not higher) + (not later)]
    said = t("p17.join").join(t("p17.gao_end", run=lab, peak=fmt(r.peak_gain, sign=True), at=fmt(r.peak_root_kl),
                                fall=pct(r.fall)) for r, lab in runs[:2])
    return page.predict(t("p17.gao_question_bias" if biased else "p17.gao_question", **gao_counts(biased)),
                        options, answer, said, key="predict_gao")


def draw_gao() -> None:
    """Over-optimisation from a proxy fitted on finite data, with no bias planted; the bias as its own lesson."""
    st.subheader(t("p17.gao"))
    world = rlcore.goodhart
    st.markdown(t("p17.gao_text", answers=world.N_ANSWERS, traits=world.N_TRAITS - 1, worlds=GAO_WORLDS,
                  inverse=fmt(world.INVERSE_BETAS[-1]), most=f"{world.BEST_OF[-1]:,}"))
    c1, c2 = st.columns(2)
    method = inputs.segmented(t("p17.gao_how"), GAO_METHODS, GAO_METHODS[0], key="gao_how", where=c1,
                              help=glossary.term("best-of-n"), format_func=lambda m: t(f"p17.gao_methods.{m}"))
    biased = bool(inputs.toggle(t("p17.gao_bias"), False, key="gao_bias", where=c2,
                                help=t("p17.gao_bias_help", **gao_counts(True))))
    runs = gao_runs(method, biased)
    revealed = ask_gao(runs, biased)
    scored = (t("p17.gao_proxy"), t("p17.gao_gold"))
    shown = runs[:2] if revealed else runs[:1]  # the many comparisons' curves answer the question
    data = pd.concat([pd.DataFrame({"√KL": r.root_kl, "gain": g, "run": lab, "score": s})
                      for r, lab in shown for s, g in zip(scored, (r.proxy, r.gold), strict=True)], ignore_index=True)
    labels = [lab for _, lab in runs[:2]]
    ch = charts.layer(charts.lines(data, x="√KL", y="gain", dash="score",
                                   key=charts.Key("run", colors=method_colors(labels), title=t("p17.n_legend")),
                                   axes=charts.Axes(t("p17.gao_x"), t("p17.gao_y"))),
                      title=t("p17.gao_title_bias" if biased else "p17.gao_title"),
                      subtitle=t(f"p17.gao_methods.{method}"))
    page.chart(ch, data, alt_text=t("p17.gao_alt"), name="gao")
    if revealed:
        few, many = runs[0][0], runs[1][0]
        if biased:
            st.markdown(t("p17.gao_why_bias", many=gao_counts(True)["many"], peak=fmt(many.peak_gain, sign=True),
                          honest=fmt(runs[2][0].peak_gain, sign=True), fall=pct(many.fall)))
        else:
            st.markdown(t("p17.gao_why", ratio=fmt(many.peak_gain / few.peak_gain, 1),
                          later=fmt(many.peak_root_kl - few.peak_root_kl)))


over_panel()

page.end(code=(rlcore.train_against, rlcore.reward_model_study, rlcore.goodhart_study))
