"""R1-Zero in miniature: a tiny numpy transformer, trained live with GRPO (or Dr. GRPO, or PPO) on a task a rule
can check, from a base model that can work problems out but mostly answers at once."""

import threading
import time
from collections import OrderedDict

import numpy as np
import pandas as pd
import streamlit as st

from rlcore import zero
from rlcore.aggregation import gradient_weights, token_weights
from rlcore.credit import gae, group_advantages
from rlcore.kl import kl_estimators
from rlcore.zero import task, training, warmup
from ui import charts, inputs, page, spec
from ui.colors import ALGORITHM_COLORS, method_colors
from ui.format import fmt, pct, wrap

page.setup(
    "A real language model, small enough to train here while you watch: does reinforcement learning with a "
    "rule-based judge teach it to write its working out, and why would it?",
    scenario=False,
)
page.why(
    "DeepSeek-R1-Zero was trained with GRPO straight from a base model, scored by a rule and nothing else: is the "
    "final answer right, and is it written in the required form. Over training its pass@1 on AIME 2024 rose from "
    "15.6% to 71.0%, and its answers grew longer on their own. Every other page teaches the terms on a toy of a "
    "few tokens. Here the same advantages, clips and KL drive a causal transformer of a few tens of thousands of "
    "parameters, written in numpy: you train it, look inside one update, and ask it problems of your own."
)

NAMES = {"GRPO": "grpo", "Dr. GRPO": "dr_grpo", "PPO with a value head": "ppo"}  # what the learner reads → rlcore
DEFAULTS = zero.ZeroConfig()
STEP_SIZES = (3e-5, 1e-4, 3e-4, 1e-3)
MAX_RUNS = 3          # finished runs kept for everyone on the server: a run holds about 4 MB of batches
REDRAW = 0.5          # seconds between two redraws of the live charts
CELL = {"<end>": "end", "<pad>": "pad"}  # what a grid cell shows for the two tokens too wide for it on a phone
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


page.presets({
    "GRPO": {"algo": "GRPO"},
    "Dr. GRPO": {"algo": "Dr. GRPO"},
    "PPO (GAE per token)": {"algo": "PPO with a value head"},
    "GRPO + KL to the base": {"algo": "GRPO", "beta": 0.1},
    "Slow climb": {"lr": 3e-5, "steps": 200},
})

# ---------------------------------------------------------------- the base model, and the question
stats = base_stats()
gap = stats.worked_right - stats.immediate_right
plan = warmup.WARMUP
options = ["worked answers", "answers given at once", "about the same"]
answer = options[0] if gap > 0.1 else options[1] if gap < -0.1 else options[2]
revealed = page.predict(
    "The base model can answer at once (`= 5`) or work the problem out first (`: 7 4 1 = 5`). Made to start one "
    "way or the other, which of its answers are right more often?",
    options, answer,
    f"Made to work the problem out, it is right {pct(stats.worked_right, 1)} of the time; made to answer at once, "
    f"{pct(stats.immediate_right, 1)}: a gap of {fmt(100 * gap, 1, sign=True)} points. Each written digit of "
    "the working needs one operation on two digits the model can see; the answer at once needs all four composed "
    "in one pass. Both forms were trained equally long, so the gap is the task's, not a skill left untrained.",
    key="predict_zero",
)
if revealed:
    st.caption("This gap is what the judge's score will find: a worked answer earns more on average, so GRPO pushes "
               "up the first token that starts one. Train a run to see what that does to the answers' length.")

# ---------------------------------------------------------------- settings
c1, c2, c3 = st.columns([3, 2, 2])
algo = inputs.radio("Algorithm", list(NAMES), "GRPO", key="algo", horizontal=True, where=c1,
                    help="GRPO and Dr. GRPO: one advantage per answer from its group; PPO: a value head and GAE, "
                         "one advantage per token")
steps = inputs.slider("Steps", 5, 200, DEFAULTS.steps, 5, key="steps", where=c2,
                      help="Each step samples a group of answers to each of a batch of problems and updates once")
beta = inputs.slider("KL to the base β", 0.0, 0.5, DEFAULTS.beta, 0.05, key="beta", where=c3,
                     help="Weight of the k3 estimate of KL(π‖π_base) in the loss; 0 leaves it out")
with st.expander("More settings"):
    c1, c2, c3 = st.columns(3)
    lr = inputs.select_slider("Step size", STEP_SIZES, DEFAULTS.lr, key="lr", where=c1,
                              help="Adam's step size; smaller spreads the climb over more steps")
    group = inputs.slider("Group size G", 2, 16, DEFAULTS.group_size, 1, key="G", where=c2,
                          help="Answers sampled per problem")
    epochs = inputs.slider("Epochs per batch", 1, 4, DEFAULTS.epochs, 1, key="epochs", where=c3,
                           help="Adam steps on each batch; from the second on the ratio leaves 1 and may be clipped")
    seed = inputs.number("Seed", 0, 99, 0, key="seed", where=c1, help="The run's random draws")

config = page.run(zero.ZeroConfig, algorithm=NAMES[algo], steps=steps, group_size=group, lr=lr, beta=beta,
                  epochs=epochs)
key = (repr(config), seed)


# ---------------------------------------------------------------- the charts of a run (live or finished)
def curves(run: zero.ZeroRun) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Long tables of the held-out curves: (score, entropy and KL), (length and the two forms)."""
    x = np.arange(len(run.pass1))

    def panel(quantity, **series):
        return pd.concat([pd.DataFrame({"step": x, "curve": name, "value": y, "quantity": quantity})
                          for name, y in series.items()], ignore_index=True)

    health = pd.concat([panel("pass rate on held-out problems", **{"pass@1": run.pass1, f"pass@{run.k}": run.passk}),
                        panel("mean judge score (0 to 2)", **{"score": run.reward}),
                        panel("entropy (nats per token)", **{"entropy": run.entropy}),
                        panel("KL to the base (nats per token)", **{"KL": run.kl})], ignore_index=True)
    length = pd.concat([panel("mean answer length (tokens)", **{"length": run.length}),
                        panel("share of answers that work it out", **{"worked share": run.worked_share}),
                        panel("pass rate by form", **{"worked": run.worked_pass, "at once": run.immediate_pass})],
                       ignore_index=True)
    return health, length.dropna()


HEALTH = ["pass rate on held-out problems", "mean judge score (0 to 2)", "entropy (nats per token)",
          "KL to the base (nats per token)"]
LENGTH = ["mean answer length (tokens)", "share of answers that work it out", "pass rate by form"]
LENGTH_COLORS = {"length": ALGORITHM_COLORS["ppo"], "worked share": ALGORITHM_COLORS["rloo"],
                 "worked": ALGORITHM_COLORS["grpo"], "at once": ALGORITHM_COLORS["dr_grpo"]}


def draw_curves(run: zero.ZeroRun, where, total: int, *, live: bool = False) -> None:
    """The two charts of a run; ``live``: redrawn while it trains, so without the data tables (their keys may be
    drawn once per rerun)."""
    health, length = curves(run)
    colors = method_colors(["pass@1", f"pass@{run.k}", "score", "entropy", "KL"])
    figures = [
        (charts.facets(charts.bands(health, x="step", mid="value", low="value", high="value", series="curve",
                                    x_title="step", y_title="", colors=colors, x_domain=[0, total]),
                       field="quantity", order=HEALTH, title="On the held-out problems",
                       subtitle=f"{task.HELD_OUT_SIZE} problems never trained on, {run.k} answers each at "
                                "temperature 1"),
         health, "pass@1 and pass@k, mean judge score, entropy and KL to the base on the held-out problems at each "
                 "step", "zero_health"),
        (charts.facets(charts.bands(length, x="step", mid="value", low="value", high="value", series="curve",
                                    x_title="step", y_title="", colors=LENGTH_COLORS, x_domain=[0, total]),
                       field="quantity", order=LENGTH, title="Longer answers, and why",
                       subtitle="pass rate by form: of the answers written in that form"),
         length, "Mean answer length, the share of worked answers, and the pass rate of worked and immediate answers "
                 "at each step", "zero_length"),
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
    the server (``page.in_turns``: about a second of steps per turn); every step is kept in the session, so that a
    Stop (any rerun) leaves the part trained so far."""
    measures, updates = [], []
    partial = {"config": config, "seed": seed, "measures": measures, "updates": updates, "model": None}
    st.session_state[PARTIAL] = partial
    waiting = where.empty()  # how many runs are ahead, while this one waits for its turn
    bar = where.progress(0.0, text="Measuring the base model…")
    live = where.empty()
    last = 0.0
    for s in page.in_turns(zero.train_steps(config, seed), where=waiting):
        measures.append(s.measure)
        if s.update is not None:
            updates.append(s.update)
        partial["model"] = s.model
        now = time.perf_counter()
        if now - last > REDRAW or s.step == config.steps:
            bar.progress(s.step / config.steps, text=f"Step {s.step} of {config.steps}: pass@1 "
                                                     f"{pct(s.measure.pass1, 1)}, {fmt(s.measure.length, 1)} tokens")
            draw_curves(training.collect(config, seed, measures, updates, s.model), live, config.steps, live=True)
            last = time.perf_counter()
    run = training.collect(config, seed, measures, updates, partial["model"])
    shared_runs().put(key, run)
    st.session_state.pop(PARTIAL, None)
    bar.empty()
    live.empty()
    return run


left, right = st.columns([1, 4], vertical_alignment="center")
go = left.button("Train", type="primary", icon=":material/play_arrow:", width="stretch")
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
        stop.button("Stop", icon=":material/stop:", help="Keep the steps trained so far")
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
    right.markdown(f"Press **Train** to run {algo} for {steps} steps from the base model; the curves grow from its "
                   "point at step 0 as it trains, and **Stop** keeps what is done so far.")
    draw_curves(training.collect(config, seed, [base_measure(seed, config.k)], [], warmup.base_model()), panel, steps)

# ---------------------------------------------------------------- the task, the judge and the base model
st.markdown(
    f"**The task.** Five digits from 1 to 9 joined by + and ×, worked from left to right keeping only the last "
    f"digit after each operation: `3 + 4 * 2 + 7 * 5` → 7, 4, 1, then **5**. An answer is either given at once "
    f"(`= 5`) or worked (`: 7 4 1 = 5`, the running digit after each of the first three operations). The judge "
    f"gives 1 point for a right final digit and 1 for a well-formed answer, and never reads the working itself.\n\n"
    f"**The base model** was warmed up on {plan.examples:,} right answers, "
    f"{pct(plan.worked_examples / plan.examples)} of them worked, and taught to start with the working in only "
    f"{pct(plan.choice_share)} of its own answers. "
    f"Sampled on the {task.HELD_OUT_SIZE} held-out problems it works the problem out in "
    f"{pct(stats.worked_share, 1)} of its answers, and is right {pct(stats.pass1, 1)} of the time."
)

# ---------------------------------------------------------------- a finished (or stopped) run
if run is not None:
    done = len(run.updates)
    if done < run.config.steps:
        right.caption(f"Stopped after {done} of {run.config.steps} steps; Train starts again from the base model.")
    elif shared:
        right.caption(f"These settings were trained already ({run.config.steps} steps): shown without waiting.")
    draw_curves(run, panel, run.config.steps)
    last = len(run.pass1) - 1
    st.markdown(
        f"**How this compares with R1-Zero.** R1-Zero's pass@1 on AIME 2024 went from 15.6% to 71.0% and its "
        f"answers grew longer. Here, over {last} steps of {algo}, held-out pass@1 went from {pct(run.pass1[0], 1)} "
        f"to {pct(run.pass1[-1], 1)} (pass@{run.k} from {pct(run.passk[0], 1)} to {pct(run.passk[-1], 1)}), the "
        f"mean answer from {fmt(run.length[0], 1)} to {fmt(run.length[-1], 1)} tokens, and the share of answers "
        f"that work the problem out from {pct(run.worked_share[0], 1)} to {pct(run.worked_share[-1], 1)}. The "
        f"answers grow because worked ones were right more often: at step 0, {pct(run.worked_pass[0], 1)} of the "
        f"worked answers against {pct(run.immediate_pass[0], 1)} of those given at once."
    )
    st.markdown(
        "**Where the analogy stops.** This model has one skill it already holds and a choice of form: RL only "
        "makes the better form its habit, it does not learn to add or multiply. R1-Zero's working was free text "
        "that the judge never checked either, but it had to be useful on problems far harder than one the model "
        "could answer in a few tokens, on a model of billions of parameters. And here the working is always the "
        "same three digits, so a longer answer means about 6 tokens instead of 2, not thousands of tokens."
    )

    # ---------------------------------------------------------------- look back, and inside one update
    if done:
        st.subheader("Inside one update")
        c1, c2 = st.columns(2)
        t = 1 if done == 1 else inputs.slider(
            "Step", 1, done, 1, 1, key="at", where=c1,
            help="The update that took the model from step t − 1 to step t; late in a run most groups are all right, "
                 "so every advantage is 0")
        n_problems = len(run.updates[0].problems)
        i = inputs.slider("Problem of the batch", 1, n_problems, 1, 1, key="problem", where=c2,
                          help=f"Each step trains on {n_problems} problems, {run.config.group_size} answers each")
        cols = st.columns(6)
        for col, (label, curve, digits) in zip(cols, [("pass@1", run.pass1, 3), (f"pass@{run.k}", run.passk, 3),
                                                      ("length", run.length, 2), ("entropy", run.entropy, 3),
                                                      ("KL to base", run.kl, 4), ("score", run.reward, 3)],
                                               strict=True):
            col.metric(label, fmt(curve[t], digits), round(float(curve[t] - curve[t - 1]), digits), delta_color="off",
                       help=f"On the held-out problems after step {t}; the change is from step {t - 1}")
        g = page.run(training.group_view, run.updates[t - 1], i - 1)
        rows = [f"#{j + 1}  score {fmt(s, 0)}" for j, s in enumerate(g.score)]
        grid = pd.DataFrame([{"answer": rows[j], "position": p + 1, "token": CELL.get(tok, tok),
                              "advantage": g.advantage[j][p],
                              "probability": g.prob[j][p], "ratio": g.ratio[j][p], "clipped": bool(g.clipped[j][p])}
                             for j, toks in enumerate(g.tokens) for p, tok in enumerate(toks)])
        per_token = run.config.algorithm == "ppo"
        top = float(grid["advantage"].abs().max()) or 1.0   # a group of equal scores: every advantage 0
        page.chart(charts.token_grid(grid, x="position", row="answer", row_order=rows, text="token",
                                          value="advantage", value_title="advantage Â", value_domain=[-top, 0, top],
                                          title=f"{g.problem}: {len(g.tokens)} answers, step {t}",
                                          subtitle=wrap(("PPO: GAE gives each token its own advantage" if per_token
                                                         else "one advantage per answer, on all of its tokens")
                                                        + "; “end” stops the answer; outlined: clipped"),
                                          marked="clipped",
                                          marked_title="clipped",
                                          tooltips=(("probability", "π_old"), ("ratio", "ratio π/π_old"))),
                   grid, alt_text=f"The {len(g.tokens)} sampled answers to {g.problem}, one row each, every token "
                                  "coloured by its advantage", name="zero_group")
        verdicts = pd.DataFrame({"answer": rows, "text": [task.answer_text([task.TOKEN[x] for x in toks])
                                                          for toks in g.tokens],
                                 "right": g.right, "well formed": g.well_formed, "score": g.score,
                                 "clipped tokens": [int(c.sum()) for c in g.clipped]})
        st.dataframe(verdicts, hide_index=True, width="stretch")
        n_clipped = sum(int(c.sum()) for c in g.clipped)
        st.caption(
            f"The right final digit is {g.answer}. Hover a token for its probability under the model that wrote it "
            f"and its ratio after the update's last epoch. "
            + ("With one epoch per batch the ratio is 1 at every token and nothing is clipped; set more epochs "
               "under More settings to see the clip at work." if run.config.epochs == 1 else
               f"{n_clipped} of this group's tokens were clipped at the last of {run.config.epochs} epochs.")
            + (" A group whose answers all got the same score has every advantage 0: it teaches nothing."
               if not per_token else "")
        )

# ---------------------------------------------------------------- before and after
st.subheader("Before and after: ask it yourself")
typed = inputs.text_input("A problem: five digits from 1 to 9 joined by + or *", "3 + 4 * 2 + 7 * 5", key="ask",
                          max_chars=60, help="Worked left to right, keeping the last digit after each operation")
ask_seed = inputs.slider("Sample number", 0, 20, 0, 1, key="draw", help="Another sample of the same answer")
answers_box = st.container()

page.show_code(zero.train_steps, training.policy_grads, training._advantages, group_advantages, gae,
               token_weights, gradient_weights, kl_estimators, training.measure, task.judge)
page.end()

# drawn after the page's end (the link's notices are in), so that a problem that cannot be read stops only this part
with answers_box:
    models = {"The base model": warmup.base_model()}
    if run is not None:
        models[f"After {len(run.updates)} steps of {algo}"] = run.model
    cols = st.columns(2)
    for j, (col, (name, model)) in enumerate(zip(cols, models.items(), strict=False)):
        a = page.run(training.answer, model, typed, ask_seed)
        df = pd.DataFrame({"label": list(a.tokens), "position": np.arange(len(a.tokens)), "probability": a.probs})
        verdict = (f"{'right' if a.verdict.right else 'wrong'}, "
                   f"{'well formed' if a.verdict.well_formed else 'ill formed'} (score {fmt(a.verdict.score, 0)})")
        with col:
            page.chart(charts.answer_strip(df, value="probability", title=f"{name}: “{a.text}”",
                                           subtitle=f"{verdict}; the right answer is {a.answer}",
                                           y_title="probability of the token"),
                       df, alt_text=f"{name}: the answer token by token, with each token's probability",
                       name=("zero_answer_base", "zero_answer_trained")[j])
    if run is None:
        cols[1].info("Train a run above and the trained model answers here too.")
