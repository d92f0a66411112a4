"""R1-Zero in miniature: a tiny numpy transformer, trained live with GRPO (or Dr. GRPO, or PPO) on a task a rule
can check, from a base model that can work problems out but mostly answers at once."""

import threading
import time
from collections import OrderedDict

import numpy as np
import pandas as pd
import streamlit as st

from rlcore import zero
from rlcore.formulas.aggregation import gradient_weights, token_weights
from rlcore.formulas.credit import gae, group_advantages
from rlcore.formulas.kl import kl_estimators
from rlcore.studies.zero import task, training, warmup
from ui import charts, inputs, page, spec
from ui.colors import ALGORITHM_COLORS, method_colors
from ui.format import fmt, pct, wrap
from ui.i18n import t

page.setup("p19", scenario=False)

NAMES = {"GRPO": "grpo", "Dr. GRPO": "dr_grpo", "PPO with a value head": "ppo"}  # the link's value → rlcore
DEFAULTS = zero.ZeroConfig()
STEP_SIZES = (3e-5, 1e-4, 3e-4, 1e-3)
MAX_RUNS = 3          # finished runs kept for everyone on the server: a run holds about 4 MB of batches
REDRAW = 0.5          # seconds between two redraws of the live charts
CELL = {"<end>": t("p19.end"), "<pad>": t("p19.pad")}  # a grid cell's label for the two tokens too wide for it
PARTIAL = "zero_partial"  # session key: the steps of the run being trained (what is left when it is stopped)
FINISHED = "zero_run"     # session key: this learner's last run


class RunStore:
    """The last ``MAX_RUNS`` finished runs, shared by every session on the server (least recently used out)."""

    def __init__(self, size: int):
        self.size, self.runs, self.lock = size, OrderedDict(), threading.Lock()

    def get(self, key):
        with self.lock:
            if key in self.runs:
                self.runs.move_to_end(key)
            return self.runs.get(key)

    def put(self, key, run) -> None:
        with self.lock:
            self.runs[key] = run
            self.runs.move_to_end(key)
            while len(self.runs) > self.size:
                self.runs.popitem(last=False)


@st.cache_resource(max_entries=1, show_spinner=False)
def shared_runs() -> RunStore:
    return RunStore(MAX_RUNS)


@page.cached(1)
def base_stats() -> warmup.FormStats:
    """What the shipped base model does on the held-out problems: free, then forced into each form."""
    return warmup.form_stats(warmup.base_model(), task.held_out_problems(), 16)


@page.cached(4)
def base_measure(seed: int, k: int) -> training.Measure:
    """The base model on the held-out problems, as a run measures it at step 0 (no training)."""
    base = warmup.base_model()
    return training.measure(base, base, seed, k)


def algorithm_name(name: str) -> str:
    """An algorithm (a key of ``NAMES``, the link's value) as the learner reads it."""
    return t(f"p19.algorithms.{NAMES[name]}")


page.presets({
    algorithm_name("GRPO"): {"algo": "GRPO"},
    algorithm_name("Dr. GRPO"): {"algo": "Dr. GRPO"},
    t("p19.preset_ppo"): {"algo": "PPO with a value head"},
    t("p19.preset_kl"): {"algo": "GRPO", "beta": 0.1},
    t("p19.preset_slow"): {"lr": 3e-5, "steps": 200},
})

# ---------------------------------------------------------------- the base model, and the question
stats = base_stats()
gap = stats.worked_right - stats.immediate_right
plan = warmup.WARMUP
options = [t("p19.worked_answers"), t("p19.answers_at_once"), t("p19.about_the_same")]
answer = options[0] if gap > 0.1 else options[1] if gap < -0.1 else options[2]
revealed = page.predict(
    t("p19.question"), options, answer,
    t("p19.explanation", worked=pct(stats.worked_right, 1), immediate=pct(stats.immediate_right, 1),
      gap=fmt(100 * gap, 1, sign=True)),
    key="predict_zero",
)
if revealed:
    st.caption(t("p19.gap_caption"))

# ---------------------------------------------------------------- settings
c1, c2, c3 = st.columns([3, 2, 2])
algo = inputs.radio(t("p19.algo"), list(NAMES), "GRPO", key="algo", horizontal=True, where=c1,
                    help=t("p19.algo_help"), format_func=algorithm_name)
algo_name = algorithm_name(algo)
steps = inputs.slider(t("p19.steps"), 5, 200, DEFAULTS.steps, 5, key="steps", where=c2, help=t("p19.steps_help"))
beta = inputs.slider(t("p19.beta"), 0.0, 0.5, DEFAULTS.beta, 0.05, key="beta", where=c3, help=t("p19.beta_help"))
with st.expander(t("judge.more_settings")):
    c1, c2, c3 = st.columns(3)
    lr = inputs.select_slider(t("p19.lr"), STEP_SIZES, DEFAULTS.lr, key="lr", where=c1, help=t("p19.lr_help"))
    group = inputs.slider(t("p19.group"), 2, 16, DEFAULTS.group_size, 1, key="G", where=c2,
                          help=t("p19.group_help"))
    epochs = inputs.slider(t("p19.epochs"), 1, 4, DEFAULTS.epochs, 1, key="epochs", where=c3,
                           help=t("p19.epochs_help"))
    seed = inputs.number(t("p19.seed"), 0, 99, 0, key="seed", where=c1, help=t("p19.seed_help"))

config = page.run(zero.ZeroConfig, algorithm=NAMES[algo], steps=steps, group_size=group, lr=lr, beta=beta,
                  epochs=epochs)
key = (repr(config), seed)


# ---------------------------------------------------------------- the charts of a run (live or finished)
def curves(run: zero.ZeroRun) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Long tables of the held-out curves: (score, entropy and KL), (length and the two forms)."""
    x = np.arange(len(run.pass1))

    def panel(quantity, series):
        return pd.concat([pd.DataFrame({"step": x, "curve": name, "value": y, "quantity": quantity})
                          for name, y in series.items()], ignore_index=True)

    health = pd.concat([panel(HEALTH[0], {"pass@1": run.pass1, f"pass@{run.k}": run.passk}),
                        panel(HEALTH[1], {SERIES["score"]: run.reward}),
                        panel(HEALTH[2], {SERIES["entropy"]: run.entropy}),
                        panel(HEALTH[3], {SERIES["KL"]: run.kl})], ignore_index=True)
    length = pd.concat([panel(LENGTH[0], {SERIES["length"]: run.length}),
                        panel(LENGTH[1], {SERIES["worked share"]: run.worked_share}),
                        panel(LENGTH[2], {SERIES["worked"]: run.worked_pass, SERIES["at once"]: run.immediate_pass})],
                       ignore_index=True)
    return health, length.dropna()


# the panels and the curves, in the page's language
HEALTH = [t("p19.pass_held_out"), t("p19.mean_score"), t("p19.entropy_panel"), t("p19.kl_panel")]
LENGTH = [t("p19.length_panel"), t("p19.worked_share_panel"), t("p19.by_form_panel")]
SERIES = {"score": t("p19.score"), "entropy": t("p19.entropy"), "KL": "KL", "length": t("p19.length"),
          "worked share": t("p19.worked_share"), "worked": t("p19.worked"), "at once": t("p19.at_once")}
LENGTH_COLORS = {SERIES["length"]: ALGORITHM_COLORS["ppo"], SERIES["worked share"]: ALGORITHM_COLORS["rloo"],
                 SERIES["worked"]: ALGORITHM_COLORS["grpo"], SERIES["at once"]: ALGORITHM_COLORS["dr_grpo"]}


def draw_curves(run: zero.ZeroRun, where, total: int, *, live: bool = False) -> None:
    """The two charts of a run; ``live``: redrawn while it trains, so without the data tables (their keys may be
    drawn once per rerun)."""
    health, length = curves(run)
    # each curve keeps its colour in either language: KL its own, the others the free ones in this order
    colors = method_colors({"pass@1": None, f"pass@{run.k}": None, SERIES["score"]: None, SERIES["entropy"]: None,
                            SERIES["KL"]: "KL"})
    figures = [
        (charts.facets(charts.bands(health, x="step", mid="value", low="value", high="value",
                                    key=charts.Key("curve", colors=colors, title=t("p19.curve")),
                                    axes=charts.Axes(t("p19.x_step"), "", x_domain=[0, total])),
                       field="quantity", order=HEALTH, title=t("p19.health_title"),
                       subtitle=t("p19.health_subtitle", problems=task.HELD_OUT_SIZE, k=run.k)),
         health, t("p19.health_alt"), "zero_health"),
        (charts.facets(charts.bands(length, x="step", mid="value", low="value", high="value",
                                    key=charts.Key("curve", colors=LENGTH_COLORS, title=t("p19.curve")),
                                    axes=charts.Axes(t("p19.x_step"), "", x_domain=[0, total])),
                       field="quantity", order=LENGTH, title=t("p19.length_title"),
                       subtitle=t("p19.length_subtitle")),
         length, t("p19.length_alt"), "zero_length"),
    ]
    with where.container():
        for col, (ch, df, alt_text, name) in zip(st.columns(2), figures, strict=True):
            with col:
                if live:
                    st.vega_lite_chart(spec.vega_lite(ch), alt=alt_text, width="stretch")
                else:
                    page.chart(ch, df, alt_text=alt_text, name=name, width="stretch")


def train_live(config: zero.ZeroConfig, seed: int, where) -> zero.ZeroRun:
    """Train, redrawing the progress and the curves as the steps come in, in turns with everyone else training on
    the server (``page.live``: about a second of steps per turn); every step is kept in the session, so that a
    Stop (any rerun) leaves the part trained so far."""
    measures, updates = [], []
    partial = {"config": config, "seed": seed, "measures": measures, "updates": updates, "model": None}
    st.session_state[PARTIAL] = partial
    waiting = where.empty()  # how many runs are ahead, while this one waits for its turn
    bar = where.progress(0.0, text=t("p19.measuring"))
    live = where.empty()
    last = 0.0
    for s in page.live(zero.train_steps(config, seed), where=waiting):
        measures.append(s.measure)
        if s.update is not None:
            updates.append(s.update)
        partial["model"] = s.model
        now = time.perf_counter()
        if now - last > REDRAW or s.step == config.steps:
            bar.progress(s.step / config.steps, text=t("p19.progress", step=s.step, steps=config.steps,
                                                         pass1=pct(s.measure.pass1, 1),
                                                         length=fmt(s.measure.length, 1)))
            draw_curves(training.collect(config, seed, measures, updates, s.model), live, config.steps, live=True)
            last = time.perf_counter()
    run = training.collect(config, seed, measures, updates, partial["model"])
    shared_runs().put(key, run)
    st.session_state.pop(PARTIAL, None)
    bar.empty()
    live.empty()
    return run


left, right = st.columns([1, 4], vertical_alignment="center")
go = left.button(t("p19.train"), type="primary", icon=":material/play_arrow:", width="stretch")
panel = st.container()
run, shared = None, False
partial = st.session_state.pop(PARTIAL, None)
if partial is not None and partial["model"] is not None:   # the last run was stopped after step 0 was measured
    st.session_state[FINISHED] = training.collect(partial["config"], partial["seed"], partial["measures"],
                                                  partial["updates"], partial["model"])
if go:
    run = shared_runs().get(key)
    if run is None:
        stop = right.empty()
        stop.button(t("p19.stop"), icon=":material/stop:", help=t("p19.stop_help"))
        run = train_live(config, seed, panel)
        stop.empty()
    st.session_state[FINISHED] = run
else:
    mine = st.session_state.get(FINISHED)
    if mine is not None and (repr(mine.config), mine.seed) == key:
        run = mine
    else:
        run = shared_runs().get(key)   # someone on the server already trained these settings
        shared = run is not None
if run is None:
    right.markdown(t("p19.press_train", algo=algo_name, steps=steps))
    draw_curves(training.collect(config, seed, [base_measure(seed, config.k)], [], warmup.base_model()), panel, steps)

# ---------------------------------------------------------------- the task, the judge and the base model
st.markdown(t("p19.task", examples=f"{plan.examples:,}", worked_examples=pct(plan.worked_examples / plan.examples),
              choice=pct(plan.choice_share), problems=task.HELD_OUT_SIZE, worked_share=pct(stats.worked_share, 1),
              pass1=pct(stats.pass1, 1)))

# ---------------------------------------------------------------- a finished (or stopped) run
if run is not None:
    done = len(run.updates)
    if done < run.config.steps:
        right.caption(t("p19.stopped", done=done, steps=run.config.steps))
    elif shared:
        right.caption(t("p19.trained_already", steps=run.config.steps))
    draw_curves(run, panel, run.config.steps)
    last = len(run.pass1) - 1
    st.markdown(t(
        "p19.compare", steps=last, algo=algo_name, pass1_start=pct(run.pass1[0], 1), pass1_end=pct(run.pass1[-1], 1),
        k=run.k, passk_start=pct(run.passk[0], 1), passk_end=pct(run.passk[-1], 1),
        length_start=fmt(run.length[0], 1), length_end=fmt(run.length[-1], 1),
        worked_start=pct(run.worked_share[0], 1), worked_end=pct(run.worked_share[-1], 1),
        worked_pass=pct(run.worked_pass[0], 1), immediate_pass=pct(run.immediate_pass[0], 1)))
    st.markdown(t("p19.analogy"))

    # ---------------------------------------------------------------- look back, and inside one update
    if done:
        st.subheader(t("p19.inside"))
        c1, c2 = st.columns(2)
        at = 1 if done == 1 else inputs.slider(t("p19.at"), 1, done, 1, 1, key="at", where=c1, help=t("p19.at_help"))
        n_problems = len(run.updates[0].problems)
        i = inputs.slider(t("p19.problem"), 1, n_problems, 1, 1, key="problem", where=c2,
                          help=t("p19.problem_help", problems=n_problems, group=run.config.group_size))
        cols = st.columns(6)
        for col, (label, curve, digits) in zip(cols, [("pass@1", run.pass1, 3), (f"pass@{run.k}", run.passk, 3),
                                                      (SERIES["length"], run.length, 2),
                                                      (SERIES["entropy"], run.entropy, 3),
                                                      (t("p19.kl_to_base"), run.kl, 4),
                                                      (SERIES["score"], run.reward, 3)],
                                               strict=True):
            col.metric(label, fmt(curve[at], digits), round(float(curve[at] - curve[at - 1]), digits),
                       delta_color="off", help=t("p19.metric_help", t=at, previous=at - 1))
        g = page.run(training.group_view, run.updates[at - 1], i - 1)
        rows = [t("p19.row", j=j + 1, score=fmt(s, 0)) for j, s in enumerate(g.score)]
        grid = pd.DataFrame([{"answer": rows[j], "position": p + 1, "token": CELL.get(tok, tok),
                              "advantage": g.advantage[j][p],
                              "probability": g.prob[j][p], "ratio": g.ratio[j][p], "clipped": bool(g.clipped[j][p])}
                             for j, toks in enumerate(g.tokens) for p, tok in enumerate(toks)])
        per_token = run.config.algorithm == "ppo"
        top = float(grid["advantage"].abs().max()) or 1.0   # a group of equal scores: every advantage 0
        cells = charts.Cells("token", "advantage", t("p19.advantage"), [-top, 0, top], "clipped", t("p19.clipped"))
        page.chart(charts.titled(charts.token_grid(grid, x="position", row="answer", row_order=rows, cells=cells,
                                                   axes=charts.Axes(t("p19.position")),
                                                   tooltips=(("probability", "π_old"), ("ratio", t("p19.ratio")))),
                                 title=t("p19.grid_title", problem=g.problem, n=len(g.tokens), t=at),
                                 subtitle=wrap(t("p19.grid_subtitle_ppo" if per_token else "p19.grid_subtitle_group"))),
                   grid, alt_text=t("p19.grid_alt", n=len(g.tokens), problem=g.problem), name="zero_group")
        verdicts = pd.DataFrame({t("p19.col_answer"): rows,
                                 t("p19.col_text"): [task.answer_text([task.TOKEN[x] for x in toks])
                                                     for toks in g.tokens],
                                 t("p19.col_right"): g.right, t("p19.col_well_formed"): g.well_formed,
                                 t("p19.col_score"): g.score,
                                 t("p19.col_clipped"): [int(c.sum()) for c in g.clipped]})
        page.table(verdicts)
        n_clipped = sum(int(c.sum()) for c in g.clipped)
        st.caption(
            t("p19.hover", answer=g.answer)
            + (t("p19.one_epoch") if run.config.epochs == 1 else
               t("p19.clipped_at", n=n_clipped, epochs=run.config.epochs))
            + (t("p19.teaches_nothing") if not per_token else "")
        )

# ---------------------------------------------------------------- before and after
st.subheader(t("p19.ask_heading"))
typed = inputs.text_input(t("p19.ask"), "3 + 4 * 2 + 7 * 5", key="ask", max_chars=60, help=t("p19.ask_help"))
ask_seed = inputs.slider(t("p19.draw"), 0, 20, 0, 1, key="draw", help=t("p19.draw_help"))
answers_box = st.container()

page.end(code=(zero.train_steps, training.policy_grads, training._advantages, group_advantages, gae,
               token_weights, gradient_weights, kl_estimators, training.measure, task.judge,))

# drawn after the page's end (the link's notices are in), so that a problem that cannot be read stops only this part
with answers_box:
    models = {t("p19.base_model"): warmup.base_model()}
    if run is not None:
        models[t("p19.after", steps=len(run.updates), algo=algo_name)] = run.model
    cols = st.columns(2)
    for j, (col, (name, model)) in enumerate(zip(cols, models.items(), strict=False)):
        a = page.run(training.answer, model, typed, ask_seed)
        df = pd.DataFrame({"label": list(a.tokens), "position": np.arange(len(a.tokens)), "probability": a.probs})
        verdict = t(f"p19.{'right' if a.verdict.right else 'wrong'}_"
                    f"{'well' if a.verdict.well_formed else 'ill'}_formed", score=fmt(a.verdict.score, 0))
        with col:
            strip = charts.answer_strip(df, value="probability", axes=charts.Axes(y=t("p19.answer_y")))
            page.chart(charts.titled(strip,
                                     title=t("p19.answer_title", name=name, text=a.text),
                                     subtitle=t("p19.answer_subtitle", verdict=verdict, answer=a.answer)),
                       df, alt_text=t("p19.answer_alt", name=name), name=("zero_answer_base", "zero_answer_trained")[j])
    if run is None:
        cols[1].info(t("p19.train_first"))

