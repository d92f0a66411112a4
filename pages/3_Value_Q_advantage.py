"""V, Q and advantage: what the sampled answers say about each candidate token, and how many answers it takes."""

import math

import altair as alt
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, inputs, page
from ui.format import MINUS, esc, fmt, fmt_list
from ui.i18n import t

N_OPTIONS = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000]
MAX_SEED = 999_999
CHECKPOINTS = 20
SIGNS = {1: "positive", 0: "zero", -1: "negative"}  # the question's answers, named in the catalogue

scenario = page.setup("p3")
tokens = scenario.tokens
V_SERIES = t("p3.v_series")  # a line's name in the estimates chart (its legend)

page.presets({
    t("p3.views.ten"): {"n": 10, "seed": 0},
    t("p3.views.hundred"): {"n": 100},
    t("p3.views.five_thousand"): {"n": 5000},
})


def next_seed() -> None:
    """Button callback: the seed after the one shown (a step, not a view, so not a preset)."""
    st.session_state[inputs.key("seed")] = (int(inputs.value("seed")) + 1) % (MAX_SEED + 1)


def spread(m: int) -> list[float]:
    """Evenly spaced horizontal offsets in [−0.6, 0.6] so equal scores do not hide each other (layout only)."""
    return [0.0] if m == 1 else [1.2 * j / (m - 1) - 0.6 for j in range(m)]


def picture_chart(points_df: pd.DataFrame, arrows_df: pd.DataFrame, v_df: pd.DataFrame, token_names: tuple,
                  with_arrows: bool = True):
    """Dots, V line and, once the prediction is revealed, the arrows from V to each Q (the advantages)."""
    layers = [
        charts.titled(charts.points_chart(points_df, x="token", y="score", key=charts.Key("token", token_names),
                                          axes=charts.Axes(t("p3.next_token"), t("p3.judge_score")), jitter="offset"),
                      title=t("p3.picture_title"), height=340,
                      subtitle=t("p3.picture_subtitle" if with_arrows else "p3.picture_subtitle_hidden")),
        charts.rules(v_df, at="value", label="label"),
    ]
    if with_arrows:
        layers.insert(1, charts.arrows(arrows_df, x="token", start="V", end="Q", label="label", tokens=token_names,
                                       axes=charts.Axes(t("p3.next_token")), names=("V", "Q")))
    return charts.layer(*layers)


def q_sum(scores, total, count_) -> str:
    terms = (" + ".join(fmt(s) for s in scores) if len(scores) <= 8 else
             t("p3.sum_of", n=count_, total=fmt(total)))
    return f"({terms}) / {count_}"


def ask(bd: rlcore.ValueBreakdown) -> bool:
    """Predict first: is the advantage of a good token that is not the best positive, zero or negative?"""
    q = page.study(rlcore.advantage_question, scenario.pi, scenario.samples)
    pick, sign = q.pick, SIGNS[q.sign]
    options = [t(f"p3.{name}") for name in SIGNS.values()]  # the answers, shown in the reader's language
    tok_pick, tok_best = esc(tokens[pick]), esc(tokens[q.best])
    if q.below:
        question = t("p3.question", pick=tok_pick, best=tok_best, q_pick=fmt(bd.q[pick]), q_best=fmt(bd.q[q.best]))
    else:
        question = t("p3.question_flat", pick=tok_pick)
    why = t(f"p3.why_{sign}", v=fmt(bd.v), best=tok_best, q_pick=fmt(bd.q[pick]))
    return page.predict(question, options, t(f"p3.{sign}"),
                        t("p3.explanation", pick=tok_pick, q=fmt(bd.q[pick]), v=fmt(bd.v),
                          a=fmt(q.advantage, sign=True), why=why),
                        key="predict_vqa")


@page.panel
def draw_panel() -> None:
    """The question, the answer count and the seed, down to the section they control: moving them reruns this
    panel only. The numbers, the picture and the sums in between depend only on the example, but they sit between
    the inputs and the **Draw more answers** section, so they are part of the panel too."""
    bd = page.run(rlcore.value_breakdown, scenario.pi, scenario.samples)
    revealed = ask(bd)
    st.caption(t("p3.inputs_caption"))
    c1, c2, c3 = st.columns([3, 1, 1], vertical_alignment="bottom")
    n = inputs.select_slider(t("p3.n"), N_OPTIONS, 200, key="n", where=c1, help=t("p3.n_help"))
    seed = inputs.number(t("p3.seed"), 0, MAX_SEED, 0, key="seed", where=c2, help=t("p3.seed_help"))
    c3.button(t("p3.another_seed"), on_click=next_seed, width="stretch", help=t("p3.another_seed_help"))
    draws = page.study(rlcore.value_draws, scenario.probs, scenario.samples, int(n), int(seed),
                       checkpoints=CHECKPOINTS)
    draw_numbers(bd, revealed)
    draw_picture(bd, revealed)
    if not revealed:
        st.caption(t("p3.sums_hidden"))
    else:
        draw_sums(bd)
    draw_more(bd, draws, int(n), int(seed))


def draw_numbers(bd: rlcore.ValueBreakdown, revealed: bool) -> None:
    """V, and each token's Q with, once revealed, its advantage."""
    cols = st.columns(len(tokens) + 1)
    cols[0].metric(t("p3.v_metric"), fmt(bd.v), help=t("p3.v_metric_help"))
    for col, tok, q, a in zip(cols[1:], tokens, bd.q, bd.advantage, strict=True):
        col.metric(f"Q({esc(tok)})", fmt(q), delta=fmt(a, sign=True).replace(MINUS, "-") if revealed else None,
                   delta_description="= A" if revealed else None,
                   help=t("p3.q_metric_help") if revealed else None)


def draw_picture(bd: rlcore.ValueBreakdown, revealed: bool) -> None:
    """Every sampled score as a dot, V as a line, and once revealed the arrows V → Q."""
    st.subheader(t("p3.picture_heading"))
    points = pd.DataFrame([
        {"token": tok, "answer": j + 1, "score": float(s), "offset": off}
        for tok, scores in zip(tokens, scenario.samples, strict=True)
        for j, (s, off) in enumerate(zip(scores, spread(len(scores)), strict=True))
    ])
    adv_labels = [f"A = {fmt(a, sign=True)}" for a in bd.advantage]
    arrows = pd.DataFrame({"token": tokens, "V": bd.v, "Q": bd.q, "advantage": bd.advantage, "label": adv_labels})
    v_line = pd.DataFrame({"value": [bd.v], "label": [f"V = {fmt(bd.v)}"]})
    picture = picture_chart(points, arrows, v_line, tokens, with_arrows=revealed)
    page.chart(picture, points.merge(arrows, on="token") if revealed else points,
               alt_text=t("p3.picture_alt"),
               name="answers_q_v")


def draw_sums(bd: rlcore.ValueBreakdown) -> None:
    """The sums behind Q, V and A, with the live numbers, and whether the plain mean of the scores is V."""
    st.subheader(t("p3.sums_heading"))
    probs = scenario.probs
    table = pd.DataFrame({
        t("p3.col_token"): tokens,
        "π": [fmt(p, 3) for p in probs],
        t("p3.col_q"): [f"{q_sum(s, total, c)} = {fmt(q)}" for s, total, c, q in
                        zip(scenario.samples, bd.sums, bd.counts, bd.q, strict=True)],
        "π · Q": [f"{fmt(p, 3)} · {fmt(q)} = {fmt(w, 3)}" for p, q, w in zip(probs, bd.q, bd.weighted_q, strict=True)],
        "A = Q − V": [f"{fmt(q)} − {fmt(bd.v)} = {fmt(a, sign=True)}" for q, a in zip(bd.q, bd.advantage, strict=True)],
        "π · A": [f"{fmt(p, 3)} · ({fmt(a, sign=True)}) = {fmt(w, 3, sign=True)}"
                  for p, a, w in zip(probs, bd.advantage, bd.weighted_advantage, strict=True)],
    })
    page.table(table)
    v_terms = " + ".join(f"{fmt(p, 3)} · {fmt(q)}" for p, q in zip(probs, bd.q, strict=True))
    a_terms = " + ".join(f"{fmt(p, 3)} · ({fmt(a, sign=True)})" for p, a in zip(probs, bd.advantage, strict=True))
    a_values = " + ".join(f"({fmt(w, 3, sign=True)})" for w in bd.weighted_advantage)
    st.markdown(f"**V** = Σ π·Q = {v_terms} = **{fmt(bd.v)}**")
    st.markdown(t("p3.check", terms=a_terms, values=a_values, total=fmt(bd.advantage_check, 3)))
    total_answers = int(bd.counts.sum())
    split = " / ".join(str(int(c)) for c in bd.counts)
    if bd.mean_matches:
        st.info(t("p3.mean_matches", n=total_answers, mean=fmt(bd.sample_mean), split=split,
                  pi=fmt_list(probs, 3)), icon="ℹ️")
    else:
        st.warning(t("p3.mean_differs", n=total_answers, mean=fmt(bd.sample_mean), v=fmt(bd.v), split=split,
                     shares=fmt_list(bd.sample_share, 3), pi=fmt_list(probs, 3)), icon="⚖️")


def draw_more(bd: rlcore.ValueBreakdown, draws: rlcore.ValueDraws, n: int, seed: int) -> None:
    """Draw more answers: the estimates from n sampled answers settle on the example's Q and V."""
    est, running = draws.estimates, draws.running
    st.subheader(t("p3.draw_heading", n=f"{n:,}", seed=seed))
    st.markdown(t("p3.draw_text"))
    rows = [{"answers": int(k), "series": tok, "estimate": float(q)}
            for i, k in enumerate(running.at) for tok, q in zip(tokens, running.q[i], strict=True) if not math.isnan(q)]
    rows += [{"answers": int(k), "series": V_SERIES, "estimate": float(v)}
             for k, v in zip(running.at, running.v, strict=True)]
    kinds = (t("p3.from_draws"), t("p3.from_example"))
    conv = pd.DataFrame(rows).assign(source=kinds[0])
    truth = pd.DataFrame([{"answers": x, "series": name, "estimate": float(value), "source": kinds[1]}
                          for name, value in zip([*tokens, V_SERIES], [*bd.q, bd.v], strict=True) for x in (1, n)])
    conv = pd.concat([conv, truth], ignore_index=True)
    lines = charts.lines(conv, x="answers", y="estimate",
                         key=charts.Key("series", tokens=[*tokens, V_SERIES], title=t("p3.estimate_of")),
                         axes=charts.Axes(t("p3.answers_axis"), t("p3.estimate_axis")), dash="source")
    lines = lines.encode(x=alt.X("answers:Q", title=t("p3.answers_axis"),
                                 scale=alt.Scale(type="log", domain=[1, n], nice=False)))
    page.chart(charts.layer(lines, title=t("p3.estimates_title"), height=440,
                            subtitle=t("p3.estimates_subtitle")), conv,
               alt_text=t("p3.estimates_alt"),
               name="estimates_vs_answers")
    estimate, truth_col = t("p3.col_estimate"), t("p3.from_example")
    est_table = pd.DataFrame({
        t("p3.estimate_of"): [*(f"Q({tok})" for tok in tokens), "V"],
        t("p3.col_used"): [*(int(c) for c in est.counts), int(est.counts.sum())],
        estimate: [*est.q, est.v],
        truth_col: [*bd.q, bd.v],
    })
    page.table(est_table, formats={estimate: "%.3f", truth_col: "%.3f"})
    unseen = [esc(tok) for tok, c in zip(tokens, est.counts, strict=True) if c == 0]
    if unseen:
        st.caption(t("p3.unseen", tokens=t("link.separator").join(unseen)))


draw_panel()

page.end(code=(rlcore.value_breakdown, rlcore.sample_answers, rlcore.mc_estimates, rlcore.running_mc_estimates,))
