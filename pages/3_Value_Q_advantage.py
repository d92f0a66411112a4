"""V, Q and advantage: what the sampled answers say about each candidate token, and how many answers it takes."""

import math

import altair as alt
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, inputs, page
from ui.format import MINUS, esc, fmt, fmt_list

N_OPTIONS = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000]
MAX_SEED = 999_999
CHECKPOINTS = 20
V_SERIES = "V (all answers)"

scenario = page.setup(
    "Let the model finish its answer many times from the same point, and let the judge score every "
    "finished answer. Sorting those scores by the token each answer went on with, and averaging within "
    "each group, gives that token's **Q**. Weighting the Q values by how often the policy picks each token "
    "gives the state's **V**, the score the model earns here on average. The **advantage** A = Q − V says "
    "whether a token does better or worse than that average, and its sign is what tells training which "
    "way to move.",
)
tokens = scenario.tokens

page.presets({
    "Ten fresh answers": {"n": 10, "seed": 0},
    "A hundred": {"n": 100},
    "Five thousand": {"n": 5000},
})


def next_seed() -> None:
    """Button callback: the seed after the one shown (a step, not a view, so not a preset)."""
    st.session_state[inputs.key("seed")] = (int(inputs.value("seed")) + 1) % (MAX_SEED + 1)


@page.cached(32)
def draw(probs, samples, n_draws: int, seed_value: int):
    """Draw answers once and estimate Q and V from them, after every checkpoint."""
    actions, scores = rlcore.sample_answers(probs, samples, n_draws, seed_value)
    final = rlcore.mc_estimates(actions, scores, len(probs))
    at = rlcore.sample_checkpoints(n_draws, CHECKPOINTS)
    return final, rlcore.running_mc_estimates(actions, scores, len(probs), at)


def spread(m: int) -> list[float]:
    """Evenly spaced horizontal offsets in [−0.6, 0.6] so equal scores do not hide each other (layout only)."""
    return [0.0] if m == 1 else [1.2 * j / (m - 1) - 0.6 for j in range(m)]


def picture_chart(points_df: pd.DataFrame, arrows_df: pd.DataFrame, v_df: pd.DataFrame, token_names: tuple,
                  with_arrows: bool = True):
    """Dots, V line and, once the prediction is revealed, the arrows from V to each Q (the advantages)."""
    layers = [
        charts.points_chart(points_df, x="token", y="score", color="token", title="Sampled answers by next token",
                            subtitle="Dots: judge scores. Ticks: each group's mean Q. Arrows: from V to Q, "
                                     "the advantage." if with_arrows else "Dots: judge scores; dashed: V. Answer the "
                                     "question above to see each token's advantage.",
                            x_title="next token", y_title="judge score (0–10)", tokens=token_names,
                            jitter="offset", height=340),
        charts.rules(v_df, at="value", label="label"),
    ]
    if with_arrows:
        layers.insert(1, charts.arrows(arrows_df, x="token", start="V", end="Q", label="label", tokens=token_names,
                                       x_title="next token", start_title="V", end_title="Q"))
    return charts.layer(*layers)


def q_sum(scores, total, count_) -> str:
    terms = " + ".join(fmt(s) for s in scores) if len(scores) <= 8 else f"sum of {count_} scores = {fmt(total)}"
    return f"({terms}) / {count_}"


bd = page.run(rlcore.value_breakdown, scenario.pi, scenario.samples)
# --- Predict ------------------------------------------------------------------------------------------------------
order = sorted(range(len(tokens)), key=lambda i: bd.q[i], reverse=True)
best = order[0]
below = [i for i in order if bd.q[i] < bd.q[best]]
pick = below[0] if below else order[-1]
a_pick = bd.advantage[pick]
sign = "zero" if abs(a_pick) < 1e-9 else ("positive" if a_pick > 0 else "negative")
tok_pick, tok_best = esc(tokens[pick]), esc(tokens[best])
if below:
    question = (f"**{tok_pick}** scores below the best token **{tok_best}** (Q = {fmt(bd.q[pick])} against "
                f"{fmt(bd.q[best])}). Is the advantage of {tok_pick} positive, zero or negative?")
else:
    question = f"Every token has the same Q here. Is the advantage of **{tok_pick}** positive, zero or negative?"
if sign == "positive":
    why = (f"It beats the model's current average V = {fmt(bd.v)}, so training raises it even though "
           f"{tok_best} is better. Once the model improves and V climbs above {fmt(bd.q[pick])}, the same "
           f"token's advantage turns negative: the advantage is always measured against the current model.")
elif sign == "negative":
    why = (f"It falls short of the model's current average V = {fmt(bd.v)}, so training lowers it. Being "
           "second best is not enough; what counts is beating what the model already earns here.")
else:
    why = f"It scores exactly the model's average V = {fmt(bd.v)}, so training leaves it where it is."
revealed = page.predict(question, ["positive", "zero", "negative"], sign,
                        f"A({tok_pick}) = Q − V = {fmt(bd.q[pick])} − {fmt(bd.v)} = {fmt(a_pick, sign=True)}. {why}",
                        key="predict_vqa")

st.caption("The two inputs below control the **Draw more answers** section; the sidebar controls the example.")


@st.fragment
def draw_panel() -> None:
    """The answer count and the seed, down to the section they control: moving them reruns this panel only.

    The numbers, the picture and the sums in between depend only on the example, but they sit between the
    inputs and the **Draw more answers** section, so they are part of the panel too.
    """
    c1, c2, c3 = st.columns([3, 1, 1], vertical_alignment="bottom")
    n = inputs.select_slider("Answers to draw from the policy", N_OPTIONS, 200, key="n", where=c1,
                             help="Each answer: pick the next token with the policy's probabilities, then one "
                                  "of that token's judge scores at random.")
    seed = inputs.number("Random seed", 0, MAX_SEED, 0, key="seed", where=c2,
                         help="The same seed always draws the same answers.")
    c3.button("Another seed", on_click=next_seed, width="stretch", help="Draw new answers: the seed plus one")

    est, running = page.run(draw, scenario.probs, scenario.samples, int(n), int(seed))
    adv_labels = [f"A = {fmt(a, sign=True)}" for a in bd.advantage]

    # --- The numbers ---------------------------------------------------------------------------------------------
    cols = st.columns(len(tokens) + 1)
    cols[0].metric("V (the state)", fmt(bd.v), help="Σ π·Q: the expected judge score before choosing")
    for col, tok, q, a in zip(cols[1:], tokens, bd.q, bd.advantage, strict=True):
        col.metric(f"Q({esc(tok)})", fmt(q), delta=fmt(a, sign=True).replace(MINUS, "-") if revealed else None,
                   delta_description="= A" if revealed else None,
                   help="The number below is the advantage A = Q − V" if revealed else None)

    # --- The picture ---------------------------------------------------------------------------------------------
    st.subheader("Each sampled answer, each token's Q, and the state's V")

    points = pd.DataFrame([
        {"token": tok, "answer": j + 1, "score": float(s), "offset": off}
        for tok, scores in zip(tokens, scenario.samples, strict=True)
        for j, (s, off) in enumerate(zip(scores, spread(len(scores)), strict=True))
    ])
    arrows = pd.DataFrame({"token": tokens, "V": bd.v, "Q": bd.q, "advantage": bd.advantage, "label": adv_labels})
    v_line = pd.DataFrame({"value": [bd.v], "label": [f"V = {fmt(bd.v)}"]})

    picture = picture_chart(points, arrows, v_line, tokens, with_arrows=revealed)
    page.chart(picture, points.merge(arrows, on="token") if revealed else points,
               alt_text="Dot plot of each sampled judge score grouped by the answer's next token, with a tick at "
                        "each group's mean Q, a dashed line at V and arrows from V to each Q labelled with the "
                        "advantage.",
               name="answers_q_v")

    # --- The sums, with the live numbers -----------------------------------------------------------------------------
    if not revealed:
        st.caption("The advantages, and the sums behind them, appear once you answer the question above.")
    else:
        st.subheader("The same numbers, worked out")

        table = pd.DataFrame({
            "token": tokens,
            "π": [fmt(p, 3) for p in scenario.probs],
            "Q = mean of its scores": [f"{q_sum(s, t, c)} = {fmt(q)}" for s, t, c, q in
                                       zip(scenario.samples, bd.sums, bd.counts, bd.q, strict=True)],
            "π · Q": [f"{fmt(p, 3)} · {fmt(q)} = {fmt(w, 3)}" for p, q, w in zip(scenario.probs, bd.q, bd.weighted_q,
                                                                                  strict=True)],
            "A = Q − V": [f"{fmt(q)} − {fmt(bd.v)} = {fmt(a, sign=True)}"
                          for q, a in zip(bd.q, bd.advantage, strict=True)],
            "π · A": [f"{fmt(p, 3)} · ({fmt(a, sign=True)}) = {fmt(w, 3, sign=True)}"
                      for p, a, w in zip(scenario.probs, bd.advantage, bd.weighted_advantage, strict=True)],
        })
        st.dataframe(table, hide_index=True, width="stretch")
        v_terms = " + ".join(f"{fmt(p, 3)} · {fmt(q)}" for p, q in zip(scenario.probs, bd.q, strict=True))
        a_terms = " + ".join(f"{fmt(p, 3)} · ({fmt(a, sign=True)})" for p, a in zip(scenario.probs, bd.advantage,
                                                                                    strict=True))
        a_values = " + ".join(f"({fmt(w, 3, sign=True)})" for w in bd.weighted_advantage)
        st.markdown(f"**V** = Σ π·Q = {v_terms} = **{fmt(bd.v)}**")
        st.markdown(f"**Check:** Σ π·A = {a_terms} = {a_values} = **{fmt(bd.advantage_check, 3)}**. "
                    "Weighted by the policy, the advantages always cancel: one update can only move probability "
                    "from the tokens below V to the tokens above it, never raise them all.")

        total_answers = int(bd.counts.sum())
        split = " / ".join(str(int(c)) for c in bd.counts)
        if bd.mean_matches:
            st.info(f"The plain average of all {total_answers} scores is also {fmt(bd.sample_mean)}. That is no "
                    f"accident: the answers split {split}, the same proportions as π ({fmt_list(scenario.probs, 3)}), "
                    "so averaging them weights each Q the way the policy does.", icon="ℹ️")
        else:
            st.warning(f"The plain average of all {total_answers} scores is {fmt(bd.sample_mean)}, not V = "
                       f"{fmt(bd.v)}. The answers split {split} (shares {fmt_list(bd.sample_share, 3)}), while π is "
                       f"{fmt_list(scenario.probs, 3)}, so the plain average weights the tokens differently from the "
                       "policy. V uses π. Answers drawn from the policy itself (below) follow π, and their plain "
                       "average does approach V.", icon="⚖️")

    # --- Draw more answers --------------------------------------------------------------------------------------------
    st.subheader(f"Draw more answers: {int(n):,} from the policy (seed {int(seed)})")
    st.markdown("During training nobody hands us Q or V: they are estimated from answers the model writes. "
                "The lines show the estimates after the first few answers, then more and more of them; the "
                "dashed lines are the values computed above from the example.")
    rows = [{"answers": int(k), "series": tok, "estimate": float(q)}
            for i, k in enumerate(running.at) for tok, q in zip(tokens, running.q[i], strict=True) if not math.isnan(q)]
    rows += [{"answers": int(k), "series": V_SERIES, "estimate": float(v)} for k, v in zip(running.at, running.v,
                                                                                           strict=True)]
    kinds = ("estimate from the draws", "value from the example")
    conv = pd.DataFrame(rows).assign(source=kinds[0])
    truth = pd.DataFrame([{"answers": x, "series": name, "estimate": float(value), "source": kinds[1]}
                          for name, value in zip([*tokens, V_SERIES], [*bd.q, bd.v], strict=True) for x in (1, int(n))])
    conv = pd.concat([conv, truth], ignore_index=True)
    lines = charts.lines(conv, x="answers", y="estimate", series="series", tokens=[*tokens, V_SERIES],
                         legend_title="estimate of", dash="source", x_title="answers drawn so far (log scale)",
                         y_title="estimated judge score")
    lines = lines.encode(x=alt.X("answers:Q", title="answers drawn so far (log scale)",
                                 scale=alt.Scale(type="log", domain=[1, int(n)], nice=False)))
    page.chart(charts.layer(lines, title="Estimates as answers accumulate", height=440,
                            subtitle="Q per token and V from the first n answers; dashed, in the same colours: "
                                     "the values worked out above"), conv,
               alt_text="Line chart of the estimated Q of each token and of V against the number of "
                        "answers drawn, with dashed lines at the values computed from the example.",
               name="estimates_vs_answers")

    est_table = pd.DataFrame({
        "estimate of": [*(f"Q({t})" for t in tokens), "V"],
        "answers used": [*(int(c) for c in est.counts), int(est.counts.sum())],
        "estimate": [*est.q, est.v],
        "value from the example": [*bd.q, bd.v],
    })
    st.dataframe(est_table, hide_index=True, width="stretch",
                 column_config={"estimate": st.column_config.NumberColumn(format="%.3f"),
                                "value from the example": st.column_config.NumberColumn(format="%.3f")})
    unseen = [esc(t) for t, c in zip(tokens, est.counts, strict=True) if c == 0]
    if unseen:
        st.caption(f"No answer began with {', '.join(unseen)} in this draw, so its Q cannot be estimated yet: "
                   "a token the model never writes never gets feedback.")


draw_panel()

page.show_code(rlcore.value_breakdown, rlcore.sample_answers, rlcore.mc_estimates, rlcore.running_mc_estimates)
page.end()
