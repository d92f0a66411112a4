"""Page 19's sections (R1-Zero in miniature), each drawing one part of the base model or of a run from the numbers
``rlcore.zero`` returns: the page reads its inputs, trains or finds a run, and calls these in order.

- ``base_chart``: the base model made to write j right running results before its answer, per problem size;
- ``curve_panels``: one run's curves, a panel per quantity, as a trainer's dashboard shows them;
- ``curves``: the run's held-out curves over the steps, overall and per problem size (drawn live while it trains);
- ``baselines``: pass@1 over the steps beside offline RFT's at the same settings and oracle best-of-G on the base;
- ``where_it_changed``: entropy, KL to the base and the update's push at each answer position;
- ``samples``: the answers to one problem of each size at steps 0, 10, 30 and the end;
- ``pass_k``: pass@k from 1 to the run's passk_max, base against trained, a uniform guesser's as the floor;
- ``inside``: one problem's group of answers in one update, token by token, and how GRPO and Dr. GRPO weigh it;
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, inputs, page
from ui.colors import METHODS, NEUTRAL, OVERLAY, SIZE_RAMP, method_colors
from ui.format import fmt, pct, wrap
from ui.i18n import listed, t

CELL = {"<end>": "p19.end", "<pad>": "p19.pad"}  # a grid cell's label for the two tokens too wide for it
SHOWN_STEPS = (0, 10, 30)                        # the steps whose answers are shown as text, then the last


def size_name(m: int) -> str:
    return t("p19.size", m=int(m))


def size_colors(sizes) -> dict[str, str]:
    return {size_name(m): c for m, c in zip(sizes, SIZE_RAMP, strict=False)}


def cell(token: str) -> str:
    return t(CELL[token]) if token in CELL else token


def base_chart(stats: rlcore.zero.BaseStats) -> None:
    """π(the right answer) after j right running results written for it, one line per problem size (the base's
    value of working), titled and said from the largest problems' line: whether only the last results pay."""
    rows = [(size_name(m), j, p) for m, row in zip(stats.sizes, stats.forced, strict=True)
            for j, p in enumerate(row) if np.isfinite(p)]
    df = pd.DataFrame(rows, columns=["problem size", "results written", "probability"])
    lines = charts.lines(df, x="results written", y="probability", key=charts.Key("problem size",
                                                                                  colors=size_colors(stats.sizes),
                                                                         title=t("p19.size_legend")),
                         axes=charts.Axes(t("p19.steps_written"), t("p19.right_answer_y"), y_domain=[0, 1],
                                          whole="x"),
                         points=True)
    row = stats.forced[-1][np.isfinite(stats.forced[-1])]   # the largest problems: pass@1 after 0 … all results
    n = rlcore.zero.paying_steps(row)
    case = "none" if n == 0 else "last" if 2 * n <= row.size - 1 else "each"
    page.chart(charts.titled(lines, title=t(f"p19.base_title_{case}"), subtitle=wrap(t("p19.base_subtitle")),
                             height=220), df, alt_text=t("p19.base_alt"), name="zero_base")
    st.markdown(t(f"p19.base_text_{case}", m=stats.sizes[-1], none=pct(row[0], 0), before=pct(row[-1 - n], 0),
                  all=pct(row[-1], 0), n=n, results=row.size - 1))


def curve_panels(panels: dict, *, colors: dict, title: str, subtitle, x_title: str, legend: str, total: int,
                 positions: bool = False):
    """One run's curves as a trainer's dashboard shows them: one panel per entry of ``panels`` (label → {curve
    label → its values at steps 0, 1, …, or with ``positions`` at answer positions 1, 2, …}), each curve a line in
    its colour (``colors``: curve label → colour), the steps (positions) up to ``total`` on the x axis. Returns the
    chart and its long table (a point per row, missing ones out)."""
    x, first = ("position", 1) if positions else ("step", 0)
    df = pd.concat([pd.DataFrame({x: first + np.arange(len(y)), "curve": curve, "value": y, "quantity": label})
                    for label, curves in panels.items() for curve, y in curves.items()], ignore_index=True)
    df = df.dropna()
    line = charts.bands(df, x=x, mid="value", low="value", high="value",
                        key=charts.Key("curve", colors=colors, title=legend),
                        axes=charts.Axes(x_title, "", x_domain=[first, total], whole="x"))
    return charts.facets(line, field="quantity", order=list(panels), title=title, subtitle=subtitle), df


def curves(run: rlcore.zero.ZeroRun, where, total: int, *, live: bool = False) -> None:
    """The run's charts over the held-out problems; ``live``: redrawn while it trains (without tables)."""
    axis = dict(x_title=t("p19.x_step"), legend=t("p19.curve"), total=total)
    score, entropy = t("p19.score"), t("p19.entropy")
    # each curve keeps its colour in either language: KL its own, the others the free ones in this order
    critic = t("p19.explained")
    colors = method_colors({"pass@1": None, f"pass@{run.k}": None, score: None, entropy: None, "KL": "KL",
                            critic: None})
    panels = {t("p19.pass_held_out"): {"pass@1": run.pass1, f"pass@{run.k}": run.passk},
              t("p19.mean_score"): {score: run.reward}, t("p19.entropy_panel"): {entropy: run.entropy},
              t("p19.kl_panel"): {"KL": run.kl}}
    if run.config.algorithm == "ppo":  # the critic: how much of the returns' spread V explains (from step 1)
        panels[t("p19.explained_panel")] = {critic: np.r_[np.nan, run.explained]}
    health = curve_panels(panels, colors=colors, title=t("p19.health_title"),
        subtitle=t("p19.health_subtitle", problems=rlcore.zero.HELD_OUT_SIZE, k=run.k), **axis)
    names = [size_name(m) for m in run.sizes]
    mean = t("p19.all_sizes")
    thinking = curve_panels({
        t("p19.length_panel"): {mean: run.length, **dict(zip(names, run.length_by_size.T, strict=True))},
        t("p19.pass_by_size_panel"): dict(zip(names, run.pass1_by_size.T, strict=True))},
        colors={mean: NEUTRAL, **size_colors(run.sizes)}, title=t("p19.length_title"),
        subtitle=t("p19.length_subtitle"), **axis)
    for col, (ch, df), alt_text, name in zip(where.container().columns(2), (health, thinking), (
            t("p19.health_alt"), t("p19.length_alt")), ("zero_health", "zero_length"), strict=True):
        with col:
            page.chart(ch, None if live else df, alt_text=alt_text, name=name, width="stretch")


def baselines(run: rlcore.zero.ZeroRun, rft: rlcore.zero.ZeroRun | None, best: float) -> None:
    """What RL adds: the run's held-out pass@1 over the steps, offline RFT's at the same settings when it has been
    trained, and oracle best-of-G on the base model (G answers, the judge keeps a right one: pass@G) as a line: the
    same samples per problem, spent on training or at answer time. Titled by the ways it shows."""
    name = t(f"p19.algorithms.{run.config.algorithm}")
    offline = t("p19.algorithms.rft_offline")
    curves = {name: run.pass1, **({offline: rft.pass1} if rft is not None else {})}
    df = pd.DataFrame([(name, i, y) for name, ys in curves.items() for i, y in enumerate(ys)],
                      columns=["curve", "step", "pass@1"])
    rule = pd.DataFrame({"pass@1": [best], "label": [t("p19.best_of", n=run.config.group_size, p=pct(best, 1))]})
    colors = method_colors({name: run.config.algorithm} | ({offline: "rft_offline"} if rft else {}))
    lines = charts.lines(df, x="step", y="pass@1", key=charts.Key("curve", colors=colors, title=t("p19.curve")),
                         axes=charts.Axes(t("p19.x_step"), "pass@1", y_domain=[0, 1], whole="x"))
    title = t("p19.baselines_title" if rft is not None else "p19.baselines_title_two")
    page.chart(charts.layer(lines, charts.rules(rule, at="pass@1", label="label"), title=title,
                            subtitle=wrap(t("p19.baselines_subtitle", g=run.config.group_size)), height=220),
               df, alt_text=t("p19.baselines_alt"), name="zero_baselines")


def where_it_changed(run: rlcore.zero.ZeroRun) -> None:
    """Entropy and KL to the base at each answer position, at step 0 and at the end, and where each update's push
    (Σ|∂loss/∂log π|) landed, first and last update: the positions RL changed."""
    base, end, first, last = t("p19.at_step", t=0), t("p19.at_step", t=len(run.updates)), t("p19.first_update"), \
        t("p19.last_update")
    push = run.push
    ch, df = curve_panels({
        t("p19.entropy_panel"): {base: run.entropy_by_position[0], end: run.entropy_by_position[-1]},
        t("p19.kl_panel"): {end: run.kl_by_position[-1]},
        t("p19.push_panel"): {first: push[0], last: push[-1]}},
        colors={base: NEUTRAL, **method_colors({end: run.config.algorithm, first: None, last: None})},
        title=t("p19.position_title"), subtitle=wrap(t("p19.position_subtitle")), x_title=t("p19.position"),
        legend=t("p19.curve"), total=rlcore.zero.MAX_ANSWER, positions=True)
    page.chart(ch, df, alt_text=t("p19.position_alt"), name="zero_positions", width="stretch")
    share = push.mean(axis=0)
    st.markdown(t("p19.position_text", first=fmt(share[0] * 100, 0), later=fmt(share[1:].sum() * 100, 0),
                  kl_first=fmt(run.kl_by_position[-1][0], 3), kl_later=fmt(np.nanmax(run.kl_by_position[-1][1:]), 3)))


def samples(run: rlcore.zero.ZeroRun) -> None:
    """What the model wrote for one held-out problem of each size at steps 0, 10, 30 and the end, those the run reached
    (the first of its answers each time, from the same seeded draws), the sentence naming the steps the table shows."""
    done = len(run.updates)
    steps = [s for s in SHOWN_STEPS if s < done] + [done]
    problems = rlcore.zero.held_out_problems()[rlcore.zero.shown_problems()]
    df = pd.DataFrame({t("p19.col_problem"): [rlcore.zero.problem_text(p) for p in problems],
                       **{t("p19.at_step", t=s): list(run.samples[s]) for s in steps}})
    st.markdown(t("p19.samples_heading", steps=listed(str(s) for s in steps)))
    page.table(df)
    st.caption(t("p19.samples_caption", answers=listed(str(int(a)) for a in rlcore.zero.final_answers(problems))))


def pass_k(run: rlcore.zero.ZeroRun) -> None:
    """pass@k from 1 to the run's passk_max, base against trained, with a uniform guesser's as the floor, and the
    sentence read from the curves: whether, and at which k, the base catches up (Yue et al. 2025)."""
    if run.passk_ks.size == 0:   # a stopped run: its curves are measured at the end
        st.caption(t("p19.passk_stopped"))
        return
    who = [t("p19.base_model"), t("p19.trained"), t("p19.guesser")]
    ks = run.passk_ks
    df = pd.DataFrame({"k": np.tile(ks, 3), "model": np.repeat(who, ks.size),
                       "pass@k": np.r_[run.passk_base, run.passk_trained, run.passk_guess]})
    colors = {who[0]: NEUTRAL, who[1]: METHODS[run.config.algorithm], who[2]: OVERLAY}  # the base grey, the run as
    lines = charts.lines(df, x="k", y="pass@k", key=charts.Key("model", colors=colors, title=t("p19.model")),
                         axes=charts.Axes("k", "pass@k", y_domain=[0, 1], log="x"), points=True)
    n = int(ks[-1])
    subtitle = wrap(t("p19.passk_subtitle", n=n, answers=rlcore.zero.MODULUS))
    page.chart(charts.titled(lines, title=t("p19.passk_title"), subtitle=subtitle, height=200), df,
               alt_text=t("p19.passk_alt", n=n), name="zero_pass_k")
    said = dict(b1=pct(run.passk_base[0], 1), m1=pct(run.passk_trained[0], 1), bn=pct(run.passk_base[-1], 1),
                mn=pct(run.passk_trained[-1], 1), gn=pct(run.passk_guess[-1], 1), n=n)
    k = run.catches_up
    case = "none" if k == 1 else "never" if k is None else "catches_up"
    st.markdown(t(f"p19.passk_{case}", **said, k=k or n) + " " + t("p19.passk_counted", n=n, k_held=run.k))


def inside(run: rlcore.zero.ZeroRun, done: int) -> None:
    """Look back at any step: the held-out numbers there, and one problem's group of answers in that update."""
    st.subheader(t("p19.inside"))
    c1, c2 = st.columns(2)
    at = 1 if done == 1 else inputs.slider(t("p19.at"), 1, done, 1, 1, key="at", where=c1, help=t("p19.at_help"))
    n_problems = len(run.updates[0].problems)
    i = inputs.slider(t("p19.problem"), 1, n_problems, 1, 1, key="problem", where=c2,
                      help=t("p19.problem_help", problems=n_problems, group=run.config.group_size))
    numbers = [("pass@1", run.pass1, 3), (f"pass@{run.k}", run.passk, 3), (t("p19.length"), run.length, 2),
               (t("p19.entropy"), run.entropy, 3), (t("p19.kl_to_base"), run.kl, 4), (t("p19.score"), run.reward, 3)]
    for col, (label, curve, digits) in zip(st.columns(6), numbers, strict=True):
        col.metric(label, fmt(curve[at], digits), round(float(curve[at] - curve[at - 1]), digits),
                   delta_color="off", help=t("p19.metric_help", t=at, previous=at - 1))
    g = page.run(rlcore.zero.group_view, run.updates[at - 1], i - 1)
    rows = [t("p19.row", j=j + 1, score=fmt(s, 0)) for j, s in enumerate(g.score)]
    cells = g.cells()
    grid = pd.DataFrame({**cells, "answer": [rows[j] for j in cells["answer"]],
                         "token": [cell(x) for x in cells["token"]]})
    per_token = run.config.algorithm == "ppo"
    top = float(grid["advantage"].abs().max()) or 1.0   # a group of equal scores: every advantage 0
    key = charts.Cells("token", "advantage", t("p19.advantage"), [-top, 0, top], "clipped", t("p19.clipped"))
    page.chart(charts.titled(charts.token_grid(grid, x="position", row="answer", row_order=rows, cells=key,
                                               axes=charts.Axes(t("p19.position")),
                                               tooltips=(("probability", "π_old"), ("ratio", t("p19.ratio")))),
                             title=t("p19.grid_title", problem=g.problem, n=len(g.tokens), t=at),
                             subtitle=wrap(t("p19.grid_subtitle_ppo" if per_token else "p19.grid_subtitle_group"))),
               grid, alt_text=t("p19.grid_alt", n=len(g.tokens), problem=g.problem), name="zero_group")
    page.table(pd.DataFrame({t("p19.col_answer"): rows,
                             t("p19.col_text"): [rlcore.zero.answer_text([rlcore.zero.TOKEN[x] for x in toks])
                                                 for toks in g.tokens],
                             t("p19.col_right"): g.right, t("p19.col_well_formed"): g.well_formed,
                             t("p19.col_score"): g.score, t("p19.col_clipped"): [int(c.sum()) for c in g.clipped]}))
    if not per_token:
        weights(g, rows)
    clips = t("p19.one_epoch") if run.config.epochs == 1 else t(
        "p19.clipped_at", n=sum(int(c.sum()) for c in g.clipped), epochs=run.config.epochs)
    st.caption(t("p19.hover", answer=g.answer) + clips + (t("p19.teaches_nothing") if not per_token else ""))


def weights(g: rlcore.zero.GroupView, rows: list[str]) -> None:
    """How GRPO and Dr. GRPO weigh this group's tokens: the push on each token of an answer, Â times the token's
    weight in the loss, under each aggregation (page 10's length bias, on answers the model wrote)."""
    modes = {t("p19.algorithms.grpo"): "seq-mean-token-mean", t("p19.algorithms.dr_grpo"): "seq-mean-token-sum-norm"}
    labels = [t("p19.weight_row", row=r, n=len(toks)) for r, toks in zip(rows, g.tokens, strict=True)]
    adv = np.array([a[0] for a in g.advantage])
    if not adv.any():   # a dead group: nothing to weigh, and a chart of zeros would only show a flat line
        st.markdown(t("p19.weights_dead"))
        return
    df = pd.DataFrame({"answer": np.tile(labels, len(modes)), "method": np.repeat(list(modes), len(labels)),
                       "push per token": np.concatenate([adv * g.token_weight(m) for m in modes.values()])})
    bars = charts.grouped_bars(df, x="answer", y="push per token",
                               key=charts.Key("method", colors=method_colors(list(modes))),
                               axes=charts.Axes(t("p19.col_answer"), t("p19.push_y")))
    page.chart(charts.titled(bars, title=t("p19.weights_title"), subtitle=wrap(t("p19.weights_subtitle"))), df,
               alt_text=t("p19.weights_alt"), name="zero_weights")


CODE = (rlcore.zero.train_steps, rlcore.zero.policy_grads, rlcore.zero.token_advantages, rlcore.group_advantages,
        rlcore.gae, rlcore.token_weights, rlcore.gradient_weights, rlcore.kl_estimators, rlcore.zero.measure,
        rlcore.zero.judge)
