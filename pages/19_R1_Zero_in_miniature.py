"""R1-Zero in miniature: a tiny numpy transformer, trained live with GRPO (or Dr. GRPO, PPO, or the RFT baseline) on
problems of 2 to 7 operands, from a base model that can work a problem out step by step but seldom writes working:
how much to write, and on which problems, is what RL finds. The sections are drawn by ``pages/views/zero.py``."""

import time
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from pages.views import zero, zero_claims, zero_runs
from ui import charts, inputs, page
from ui.format import fmt, pct
from ui.i18n import t

page.setup("p19", scenario=False)

NAMES = {"GRPO": "grpo", "Dr. GRPO": "dr_grpo", "PPO with a value head": "ppo", "online RFT (RL)": "rft",
         "offline RFT": "rft_offline", "STaR": "star"}  # the link's value (the English label) → rlcore
D, STEP_SIZES = rlcore.zero.ZeroConfig(), (3e-5, 1e-4, 3e-4, 1e-3)  # the defaults; the step sizes offered
RUNS = page.shelf("zero_runs", 3)  # finished runs kept for everyone on the server: a run holds about 4 MB of batches
DEFAULTS = page.shelf("zero_defaults", 2)  # the default run and its RFT baseline, trained once ahead of time
QUICK_PASSK = 64  # a learner's run measures pass@k up to 64; the default run's go to D.passk_max, ahead of time
AHEAD = (D, replace(D, algorithm="rft_offline", passk_max=QUICK_PASSK))  # trained before anyone presses Train
REDRAW = 0.5          # seconds between two redraws of the live charts
PARTIAL, FINISHED = "zero_partial", "zero_run"  # session keys: the run in training (a zero_runs.Recorder), the last one
SHOWN = {name: t(f"p19.algorithms.{a}") for name, a in NAMES.items()}  # the link's value → as the learner reads it
KL_NAMES = {"in the loss (k3)": "loss", "in the reward": "reward"}  # the link's value → rlcore's kl_in
KL_SHOWN = {name: t(f"p19.kl_in_{v}") for name, v in KL_NAMES.items()}  # the link's value → as the learner reads it


page.presets({SHOWN["GRPO"]: {"algo": "GRPO"}, SHOWN["Dr. GRPO"]: {"algo": "Dr. GRPO"},
              t("p19.preset_ppo"): {"algo": "PPO with a value head"}, t("p19.preset_kl"): {"algo": "GRPO", "beta": 0.1},
              t("p19.preset_slow"): {"lr": 3e-5, "steps": 200}, t("p19.preset_length_off"): {"length_cost": 0.0},
              t("p19.preset_length_on"): dict(rlcore.zero.LENGTH_ON)})


def train_ahead() -> None:
    """Once per server: the default settings (and their offline RFT baseline) trained in the server's own turns, so a
    newcomer sees a whole run at once and Train is for settings of their own."""
    for config in AHEAD:
        key = (repr(config), 0)
        page.ahead_of_time(("zero", key), lambda c=config: zero_runs.with_passk(c, 0),
                           lambda steps, c=config, k=key: DEFAULTS.put(k, zero_runs.collected(c, 0, steps)))


def same_runs(config: rlcore.zero.ZeroConfig, seed: int) -> list:
    """The keys of the runs that count as this one: the same settings with pass@k measured further (a learner's to
    64, the server's default run to 1,024)."""
    return [(repr(replace(config, passk_max=n)), seed) for n in dict.fromkeys((config.passk_max, D.passk_max,
                                                                              QUICK_PASSK))]


def held(config: rlcore.zero.ZeroConfig, seed: int):
    """The run at these settings the server holds (trained by someone, or ahead of time), or None."""
    return next((run for key in same_runs(config, seed) if (run := RUNS.get(key) or DEFAULTS.get(key))), None)


def ask(stats: rlcore.zero.BaseStats) -> None:
    """Predict first, from the base model's own numbers: on which problems does writing the working pay most?"""
    gain = np.array([row[np.isfinite(row)][-1] - row[0] for row in stats.forced])   # all written, against at once
    options = [t("p19.smallest", m=stats.sizes[0]), t("p19.largest", m=stats.sizes[-1]), t("p19.every_size")]
    answer = options[1] if gain[-1] > gain[0] + 0.1 else options[0] if gain[0] > gain[-1] + 0.1 else options[2]
    said = t("p19.explanation", m=stats.sizes[-1], worked=pct(stats.forced[-1][np.isfinite(stats.forced[-1])][-1], 1),
             immediate=pct(stats.forced[-1][0], 1), small=stats.sizes[0], once_small=pct(stats.forced[0][0], 1))
    if page.predict(t("p19.question", small=stats.sizes[0], large=stats.sizes[-1]), options, answer, said,
                    key="predict_zero"):
        zero.base_chart(stats)
        st.caption(t("p19.gap_caption"))


def draw_settings() -> tuple[str, rlcore.zero.ZeroConfig, int]:
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
        kl_in = inputs.radio(t("p19.kl_in"), list(KL_NAMES), "in the loss (k3)", key="kl_in", horizontal=True,
                             where=c2, help=t("p19.kl_in_help"), format_func=KL_SHOWN.get)
        cost = inputs.slider(t("p19.length_cost"), 0.0, 0.1, D.length_cost, 0.01, key="length_cost", where=c3,
                             help=t("p19.length_cost_help"))
    config = page.run(rlcore.zero.ZeroConfig, algorithm=NAMES[algo], steps=steps, group_size=group, lr=lr, beta=beta,
                      epochs=epochs, kl_in=KL_NAMES[kl_in], length_cost=cost, passk_max=QUICK_PASSK)
    return algo, config, seed


def train_live(config: rlcore.zero.ZeroConfig, seed: int, where) -> rlcore.zero.ZeroRun:
    """Train, redrawing the progress and the curves as steps come in, in turns with the server's other trainings
    (``page.live``); every step is kept in the session, so a Stop (any rerun) leaves the part trained so far."""
    record = st.session_state[PARTIAL] = zero_runs.Recorder(config, seed)
    # how many runs are ahead while this one waits for its turn; the progress; the live charts
    waiting, bar, live, last = where.empty(), where.progress(0.0, text=t("p19.measuring")), where.empty(), 0.0
    for s in page.live(zero_runs.with_passk(config, seed), where=waiting):
        record.add(s)
        if not isinstance(s, rlcore.zero.ZeroStep):   # the pass@k curves, measured after the last step
            bar.progress(1.0, text=t("p19.measuring_passk", n=config.passk_max))
            continue
        now = time.perf_counter()
        if now - last > REDRAW or s.step == config.steps:
            said = dict(step=s.step, steps=config.steps, pass1=pct(s.measure.pass1, 1), length=fmt(s.measure.length, 1))
            bar.progress(s.step / config.steps, text=t("p19.progress", **said))
            zero.curves(record.run(), live, config.steps, live=True)
            last = time.perf_counter()
    run = record.run()
    RUNS.put((repr(config), seed), run)
    st.session_state.pop(PARTIAL, None)
    bar.empty()
    live.empty()
    return run


def find_run(config: rlcore.zero.ZeroConfig, seed: int):
    """Train (and Stop), and the run to show (None: none yet): Train's (live unless the server holds it), else the
    learner's last one at these settings (a stopped one kept), else one the server holds (``shared``)."""
    left, right = st.columns([1, 4], vertical_alignment="center")
    go = left.button(t("p19.train"), type="primary", icon=":material/play_arrow:", width="stretch")
    where, key = st.container(), (repr(config), seed)
    if (stopped := zero_runs.stopped(PARTIAL)) is not None:   # the last run was stopped after step 0 was measured
        st.session_state[FINISHED] = stopped
    if not go:
        mine = st.session_state.get(FINISHED)
        if mine is not None and (repr(mine.config), mine.seed) == key:
            return mine, False, right, where
        run = held(config, seed)   # someone on the server (or the server itself) already trained these settings
        return run, run is not None, right, where
    run = held(config, seed)
    if run is None and any(page.wait_ahead(("zero", k), where.empty()) for k in same_runs(config, seed)):
        run = held(config, seed)  # the server was training it: shared, not trained twice
    if run is None:
        stop = right.empty()
        stop.button(t("p19.stop"), icon=":material/stop:", help=t("p19.stop_help"))
        run = train_live(config, seed, where)
        stop.empty()
    st.session_state[FINISHED] = run
    return run, False, right, where


def draw_run(run: rlcore.zero.ZeroRun, name: str, shared: bool, right, where) -> None:
    """A finished (or stopped) run: its curves, what changed and where, and a look inside one of its updates."""
    done = len(run.updates)
    if done < run.config.steps:
        right.caption(t("p19.stopped", done=done, steps=run.config.steps))
    elif shared:
        right.caption(t("p19.trained_already", steps=run.config.steps))
    zero.curves(run, where, run.config.steps)
    zero_runs.log_downloads(run)  # the run as a real training log, for page 21
    small, large = (run.length_by_size[:, i] for i in (0, -1))
    st.markdown(t(
        "p19.compare", steps=done, algo=name, pass1_start=pct(run.pass1[0], 1), pass1_end=pct(run.pass1[-1], 1),
        length_start=fmt(run.length[0], 1), length_end=fmt(run.length[-1], 1), small=run.sizes[0],
        large=run.sizes[-1], small_start=fmt(small[0], 1), small_end=fmt(small[-1], 1), large_start=fmt(large[0], 1),
        large_end=fmt(large[-1], 1)))
    zero_claims.claims(run)
    if (partner := zero_claims.PARTNER.get(run.config.algorithm)) is not None and done == run.config.steps:
        zero_claims.aggregation(run, held(replace(run.config, algorithm=partner), run.seed))
    draw_baselines(run)
    if done:
        zero.where_it_changed(run)
    zero.samples(run)
    zero.pass_k(run)
    st.markdown(t("p19.analogy", longest=rlcore.zero.LONGEST))
    if done:
        zero.inside(run, done)


def draw_baselines(run: rlcore.zero.ZeroRun) -> None:
    """RL beside its baselines on the same samples: offline RFT at the same settings (trained here on request, or
    held by the server) and oracle best-of-G on the base model (the judge picks: pass@G)."""
    config = replace(run.config, algorithm="rft_offline", passk_max=QUICK_PASSK)
    rft = run if run.config.algorithm == "rft_offline" else held(config, run.seed)
    slot = st.container()
    if rft is None and slot.button(t("p19.train_rft"), icon=":material/play_arrow:", help=t("p19.train_rft_help")):
        rft = train_live(config, run.seed, slot)
    best = page.study(rlcore.zero.best_of_n, run.config.group_size, run.seed, entries=16, heavy=True)
    zero.baselines(run, None if rft is run else rft, best)
    said = dict(g=run.config.group_size, steps=len(run.updates), algo=t(f"p19.algorithms.{run.config.algorithm}"),
                end=pct(run.pass1[-1], 1), best=pct(best, 1), start=pct(run.pass1[0], 1))
    if rft is not None and rft is not run:
        said = dict(said, rft=pct(rft.pass1[-1], 1), rft_steps=len(rft.updates))
    st.markdown(t("p19.baselines_rft" if "rft" in said else "p19.baselines_text", **said))


def draw_answers(run: rlcore.zero.ZeroRun | None, name: str) -> None:
    """Before and after: the base model and the trained one answer a problem the learner types."""
    st.subheader(t("p19.ask_heading"))
    typed = inputs.text_input(t("p19.ask"), "3 + 4 * 2 + 7 * 5 + 6", key="ask", max_chars=60, help=t("p19.ask_help"))
    draw = inputs.slider(t("p19.draw"), 0, 20, 0, 1, key="draw", help=t("p19.draw_help"))
    trained = {} if run is None else {t("p19.after", steps=len(run.updates), algo=name): run.model}
    models = {t("p19.base_model"): rlcore.zero.base_model(), **trained}
    cols = st.columns(2)
    for j, (col, (who, model)) in enumerate(zip(cols, models.items(), strict=False)):
        if (a := page.attempt(rlcore.zero.answer, model, typed, draw)) is None:
            return  # a problem that cannot be read: said once, and the rest of the page goes on
        df = pd.DataFrame({"label": [zero.cell(x) for x in a.tokens], "position": np.arange(len(a.tokens)),
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
    train_ahead()
    stats = page.study(rlcore.zero.base_stats, entries=1)
    ask(stats)
    algo, config, seed = draw_settings()
    run, shared, right, where = find_run(config, seed)
    base = [page.study(rlcore.zero.base_measure, seed, config.k, entries=4)]   # step 0 of every run with this seed
    if run is None:
        right.markdown(t("p19.press_train", algo=SHOWN[algo], steps=config.steps))
        if (config, seed) in ((c, 0) for c in AHEAD):
            right.caption(t("p19.ahead_coming"))
        zero.curves(rlcore.zero.collect(config, seed, base, [], rlcore.zero.base_model()), where, config.steps)
    plan = rlcore.zero.WARMUP
    st.markdown(t("p19.task", examples=f"{plan.examples:,}", start=pct(plan.start_share), keep=pct(plan.keep_share),
                  problems=rlcore.zero.HELD_OUT_SIZE, worked_share=pct(base[0].worked_share, 1), k_held=config.k,
                  pass1=pct(base[0].pass1, 1), length=fmt(base[0].length, 1), answers=rlcore.zero.MODULUS,
                  guess=pct(rlcore.zero.guess_rate(rlcore.zero.MIN_SIZE), 0), k=QUICK_PASSK,
                  guess_k=pct(rlcore.zero.guess_curve(np.array([QUICK_PASSK]))[0], 0)))
    if run is not None:
        draw_run(run, SHOWN[algo], shared, right, where)
    draw_answers(run, SHOWN[algo])


zero_panel()
page.end(code=zero.CODE)
