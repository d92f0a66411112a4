"""R1-Zero in miniature: a tiny numpy transformer, trained live with GRPO (or Dr. GRPO, or PPO) on a task a rule
can check, from a base model that can work problems out but mostly answers at once."""

import time

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from rlcore import zero
from rlcore.studies.zero import task, training, warmup
from ui import charts, inputs, page, runs
from ui.colors import ALGORITHM_COLORS, NEUTRAL, method_colors
from ui.format import fmt, pct, wrap
from ui.i18n import t

page.setup("p19", scenario=False)

NAMES = {"GRPO": "grpo", "Dr. GRPO": "dr_grpo", "PPO with a value head": "ppo"}  # the link's value → rlcore
D, STEP_SIZES = zero.ZeroConfig(), (3e-5, 1e-4, 3e-4, 1e-3)  # the defaults; the step sizes offered
RUNS = page.shelf("zero_runs", 3)  # finished runs kept for everyone on the server: a run holds about 4 MB of batches
REDRAW = 0.5          # seconds between two redraws of the live charts
CELL = {"<end>": t("p19.end"), "<pad>": t("p19.pad")}  # a grid cell's label for the two tokens too wide for it
PARTIAL, FINISHED = "zero_partial", "zero_run"  # session keys: the run in training (a runs.Recorder), the last one
SHOWN = {name: t(f"p19.algorithms.{a}") for name, a in NAMES.items()}  # the link's value → as the learner reads it


page.presets({SHOWN["GRPO"]: {"algo": "GRPO"}, SHOWN["Dr. GRPO"]: {"algo": "Dr. GRPO"},
              t("p19.preset_ppo"): {"algo": "PPO with a value head"}, t("p19.preset_kl"): {"algo": "GRPO", "beta": 0.1},
              t("p19.preset_slow"): {"lr": 3e-5, "steps": 200}})


def ask(stats) -> None:
    """Predict first, from the base model's own numbers: is it right more often when it works a problem out?"""
    gap = stats.worked_right - stats.immediate_right
    options = [t("p19.worked_answers"), t("p19.answers_at_once"), t("p19.about_the_same")]
    answer = options[0] if gap > 0.1 else options[1] if gap < -0.1 else options[2]
    said = t("p19.explanation", worked=pct(stats.worked_right, 1), immediate=pct(stats.immediate_right, 1),
             gap=fmt(100 * gap, 1, sign=True))
    if page.predict(t("p19.question"), options, answer, said, key="predict_zero"):
        st.caption(t("p19.gap_caption"))


def draw_settings() -> tuple[str, zero.ZeroConfig, int]:
    """The algorithm, the steps and β on top, the rest under "More settings": the algorithm, the config, the seed."""
    c1, c2, c3 = st.columns([3, 2, 2])
    algo = inputs.radio(t("p19.algo"), list(NAMES), "GRPO", key="algo", horizontal=True, where=c1,
                        help=t("p19.algo_help"), format_func=SHOWN.get)
    steps = inputs.slider(t("p19.steps"), 5, 200, D.steps, 5, key="steps", where=c2, help=t("p19.steps_help"))
    beta = inputs.slider(t("p19.beta"), 0.0, 0.5, D.beta, 0.05, key="beta", where=c3, help=t("p19.beta_help"))
    with st.expander(t("judge.more_settings")):
        c1, c2, c3 = st.columns(3)
        lr = inputs.select_slider(t("p19.lr"), STEP_SIZES, D.lr, key="lr", where=c1, help=t("p19.lr_help"))
        group = inputs.slider(t("p19.group"), 2, 16, D.group_size, 1, key="G", where=c2, help=t("p19.group_help"))
        epochs = inputs.slider(t("p19.epochs"), 1, 4, D.epochs, 1, key="epochs", where=c3, help=t("p19.epochs_help"))
        seed = inputs.number(t("p19.seed"), 0, 99, 0, key="seed", where=c1, help=t("p19.seed_help"))
    return algo, page.run(zero.ZeroConfig, algorithm=NAMES[algo], steps=steps, group_size=group, lr=lr, beta=beta,
                          epochs=epochs), seed


def draw_curves(run: zero.ZeroRun, where, total: int, *, live: bool = False) -> None:
    """The two charts of a run over the held-out problems; ``live``: redrawn while it trains (without tables)."""
    axis = dict(x_title=t("p19.x_step"), legend=t("p19.curve"), total=total)
    score, entropy, length, share = t("p19.score"), t("p19.entropy"), t("p19.length"), t("p19.worked_share")
    # each curve keeps its colour in either language: KL its own, the others the free ones in this order
    colors = method_colors({"pass@1": None, f"pass@{run.k}": None, score: None, entropy: None, "KL": "KL"})
    health = runs.curve_panels({
        t("p19.pass_held_out"): {"pass@1": run.pass1, f"pass@{run.k}": run.passk}, t("p19.mean_score"): {
            score: run.reward}, t("p19.entropy_panel"): {entropy: run.entropy}, t("p19.kl_panel"): {"KL": run.kl}},
        colors=colors, title=t("p19.health_title"),
        subtitle=t("p19.health_subtitle", problems=task.HELD_OUT_SIZE, k=run.k), **axis)
    length = runs.curve_panels({
        t("p19.length_panel"): {length: run.length}, t("p19.worked_share_panel"): {share: run.worked_share},
        t("p19.by_form_panel"): {t("p19.worked"): run.worked_pass, t("p19.at_once"): run.immediate_pass}},
        colors=dict(zip((length, share, t("p19.worked"), t("p19.at_once")), (ALGORITHM_COLORS[a] for a in (
            "ppo", "rloo", "grpo", "dr_grpo")), strict=True)),
        title=t("p19.length_title"), subtitle=t("p19.length_subtitle"), **axis)
    for col, (ch, df), alt_text, name in zip(where.container().columns(2), (health, length), (
            t("p19.health_alt"), t("p19.length_alt")), ("zero_health", "zero_length"), strict=True):
        with col:
            page.chart(ch, None if live else df, alt_text=alt_text, name=name, width="stretch")


def train_live(config: zero.ZeroConfig, seed: int, where) -> zero.ZeroRun:
    """Train, redrawing the progress and the curves as steps come in, in turns with the server's other trainings
    (``page.live``); every step is kept in the session, so a Stop (any rerun) leaves the part trained so far."""
    record = st.session_state[PARTIAL] = runs.Recorder(config, seed)
    # how many runs are ahead while this one waits for its turn; the progress; the live charts
    waiting, bar, live, last = where.empty(), where.progress(0.0, text=t("p19.measuring")), where.empty(), 0.0
    for s in page.live(zero.train_steps(config, seed), where=waiting):
        record.add(s)
        now = time.perf_counter()
        if now - last > REDRAW or s.step == config.steps:
            said = dict(step=s.step, steps=config.steps, pass1=pct(s.measure.pass1, 1), length=fmt(s.measure.length, 1))
            bar.progress(s.step / config.steps, text=t("p19.progress", **said))
            draw_curves(record.run(), live, config.steps, live=True)
            last = time.perf_counter()
    run = record.run()
    RUNS.put((repr(config), seed), run)
    st.session_state.pop(PARTIAL, None)
    bar.empty()
    live.empty()
    return run


def find_run(config: zero.ZeroConfig, seed: int):
    """Train (and Stop), and the run to show (None: none yet): Train's (live unless the server holds it), else the
    learner's last one at these settings (a stopped one kept), else one the server holds (``shared``)."""
    left, right = st.columns([1, 4], vertical_alignment="center")
    go = left.button(t("p19.train"), type="primary", icon=":material/play_arrow:", width="stretch")
    where, key = st.container(), (repr(config), seed)
    if (stopped := runs.stopped(PARTIAL)) is not None:   # the last run was stopped after step 0 was measured
        st.session_state[FINISHED] = stopped
    if not go:
        mine = st.session_state.get(FINISHED)
        if mine is not None and (repr(mine.config), mine.seed) == key:
            return mine, False, right, where
        run = RUNS.get(key)   # someone on the server already trained these settings
        return run, run is not None, right, where
    run = RUNS.get(key)
    if run is None:
        stop = right.empty()
        stop.button(t("p19.stop"), icon=":material/stop:", help=t("p19.stop_help"))
        run = train_live(config, seed, where)
        stop.empty()
    st.session_state[FINISHED] = run
    return run, False, right, where


def draw_run(run: zero.ZeroRun, name: str, shared: bool, right, where) -> None:
    """A finished (or stopped) run: its curves, what changed, and a look inside one of its updates."""
    done = len(run.updates)
    if done < run.config.steps:
        right.caption(t("p19.stopped", done=done, steps=run.config.steps))
    elif shared:
        right.caption(t("p19.trained_already", steps=run.config.steps))
    draw_curves(run, where, run.config.steps)
    st.markdown(t(
        "p19.compare", steps=len(run.pass1) - 1, algo=name, pass1_start=pct(run.pass1[0], 1),
        pass1_end=pct(run.pass1[-1], 1), k=run.k, passk_start=pct(run.passk[0], 1), passk_end=pct(run.passk[-1], 1),
        length_start=fmt(run.length[0], 1), length_end=fmt(run.length[-1], 1),
        worked_start=pct(run.worked_share[0], 1), worked_end=pct(run.worked_share[-1], 1),
        worked_pass=pct(run.worked_pass[0], 1), immediate_pass=pct(run.immediate_pass[0], 1)))
    draw_pass_k(run)
    st.markdown(t("p19.analogy"))
    if done:
        draw_inside(run, done)


def draw_pass_k(run: zero.ZeroRun) -> None:
    """pass@k from 1 to 64, base against trained, and what RL changed at either end (Yue et al. 2025)."""
    c = page.study(zero.pass_curve, run.model, run.seed, 64, entries=4, heavy=True)
    who = [t("p19.base_model"), t("p19.trained")]
    df = pd.DataFrame({"k": np.tile(c.k, 2), "model": np.repeat(who, c.k.size), "pass@k": np.r_[c.base, c.model]})
    colors = {who[0]: NEUTRAL, who[1]: ALGORITHM_COLORS[run.config.algorithm]}  # the base grey, the run as trained
    lines = charts.lines(df, x="k", y="pass@k", key=charts.Key("model", colors=colors, title=t("p19.model")),
                         axes=charts.Axes("k", "pass@k", y_domain=[0, 1], log="x"))
    page.chart(charts.titled(lines, title=t("p19.passk_title"), subtitle=wrap(t("p19.passk_subtitle")), height=200),
               df, alt_text=t("p19.passk_alt"), name="zero_pass_k")
    st.markdown(t(f"p19.passk_{c.change}", b1=pct(c.base[0], 1), m1=pct(c.model[0], 1), bn=pct(c.base[-1], 1),
                  mn=pct(c.model[-1], 1), n=int(c.k[-1])))


def draw_inside(run: zero.ZeroRun, done: int) -> None:
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
    g = page.run(training.group_view, run.updates[at - 1], i - 1)
    rows = [t("p19.row", j=j + 1, score=fmt(s, 0)) for j, s in enumerate(g.score)]
    cells = g.cells()
    grid = pd.DataFrame({**cells, "answer": [rows[j] for j in cells["answer"]], "token": [CELL.get(x, x) for x in
                                                                                           cells["token"]]})
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
                             t("p19.col_text"): [task.answer_text([task.TOKEN[x] for x in toks]) for toks in g.tokens],
                             t("p19.col_right"): g.right, t("p19.col_well_formed"): g.well_formed,
                             t("p19.col_score"): g.score, t("p19.col_clipped"): [int(c.sum()) for c in g.clipped]}))
    clips = t("p19.one_epoch") if run.config.epochs == 1 else t(
        "p19.clipped_at", n=sum(int(c.sum()) for c in g.clipped), epochs=run.config.epochs)
    st.caption(t("p19.hover", answer=g.answer) + clips + (t("p19.teaches_nothing") if not per_token else ""))


def draw_answers(run: zero.ZeroRun | None, name: str) -> None:
    """Before and after: the base model and the trained one answer a problem the learner types."""
    st.subheader(t("p19.ask_heading"))
    typed = inputs.text_input(t("p19.ask"), "3 + 4 * 2 + 7 * 5", key="ask", max_chars=60, help=t("p19.ask_help"))
    draw = inputs.slider(t("p19.draw"), 0, 20, 0, 1, key="draw", help=t("p19.draw_help"))
    trained = {} if run is None else {t("p19.after", steps=len(run.updates), algo=name): run.model}
    models = {t("p19.base_model"): warmup.base_model(), **trained}
    cols = st.columns(2)
    for j, (col, (who, model)) in enumerate(zip(cols, models.items(), strict=False)):
        if (a := page.attempt(training.answer, model, typed, draw)) is None:
            return  # a problem that cannot be read: said once, and the rest of the page goes on
        df = pd.DataFrame({"label": [CELL.get(x, x) for x in a.tokens], "position": np.arange(len(a.tokens)),
                           "probability": a.probs})  # <end> named as the grid above names it
        verdict = t(f"p19.{'right' if a.verdict.right else 'wrong'}_"
                    f"{'well' if a.verdict.well_formed else 'ill'}_formed", score=fmt(a.verdict.score, 0))
        strip = charts.answer_strip(df, value="probability", axes=charts.Axes(y=t("p19.answer_y")))
        with col:
            page.chart(charts.titled(strip, title=t("p19.answer_title", name=who, text=a.text),
                                     subtitle=t("p19.answer_subtitle", verdict=verdict, answer=a.answer)),
                       df, alt_text=t("p19.answer_alt", name=who), name=("zero_answer_base", "zero_answer_trained")[j])
    if run is None:
        cols[1].info(t("p19.train_first"))


@page.panel(whole_page=True)  # Stop must interrupt a live training (page.panel says why)
def zero_panel() -> None:
    """The question, the settings, Train, the run (or the base model before one) and the before-and-after."""
    stats = page.study(zero.base_stats, entries=1)
    ask(stats)
    algo, config, seed = draw_settings()
    run, shared, right, where = find_run(config, seed)
    if run is None:
        right.markdown(t("p19.press_train", algo=SHOWN[algo], steps=config.steps))
        base = [page.study(zero.base_measure, seed, config.k, entries=4)]
        draw_curves(training.collect(config, seed, base, [], warmup.base_model()), where, config.steps)
    plan = warmup.WARMUP
    st.markdown(t("p19.task", examples=f"{plan.examples:,}", worked_examples=pct(plan.worked_examples / plan.examples),
                  choice=pct(plan.choice_share), problems=task.HELD_OUT_SIZE, worked_share=pct(stats.worked_share, 1),
                  pass1=pct(stats.pass1, 1)))
    if run is not None:
        draw_run(run, SHOWN[algo], shared, right, where)
    draw_answers(run, SHOWN[algo])


zero_panel()
page.end(code=(zero.train_steps, training.policy_grads, training._advantages, rlcore.group_advantages, rlcore.gae,
               rlcore.token_weights, rlcore.gradient_weights, rlcore.kl_estimators, training.measure, task.judge,))
