"""Page 18's "DPO on a real model": DPO on the tiny transformer of page 19, on pairs of its own answers judged by the
rule, offline and online, beside GRPO from the same base at the same budget. The page reads the section's inputs and
calls these in order; every number comes from ``rlcore.zero`` (``dpo_steps``, GRPO's ``train_steps``).

- ``configs``: the three runs of the learner's settings (offline DPO, online DPO, GRPO);
- ``find``: the Train button, the runs the server holds, and the training of the missing ones in turns;
- ``pass_chart``: held-out pass@1 over the steps for the three, and which DPO ended higher;
- ``at_kl``: each run's final KL to the base beside its pass@1, and the three read at one KL (``kl_matched``);
- ``ask``: the question (what offline DPO does to the chosen answers' log-probability), answered from the run;
- ``log_prob_chart``: the chosen answers' log-probabilities over the steps, those with their working and those given
  at once apart, and the rejected answers', offline and online; what each run did to each kind.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from ui import charts, glossary, page
from ui.colors import method_colors
from ui.format import fmt, pct, wrap
from ui.i18n import t
from ui.prep import thin_steps

KINDS = ("offline", "online", "grpo")
COLORS = {"offline": "offline dpo", "online": "online dpo", "grpo": "grpo"}   # ui.colors.METHODS' ids
# Finished runs for everyone on the server, four settings' worth: a DPO run keeps its curves and its model (0.4 MB),
# GRPO's only its pass@1 and KL curves, [steps + 1, 2] (its batches are page 19's business)
RUNS = page.shelf("dpo_zero_runs", 4 * len(KINDS))
REDRAW = 0.5           # seconds between two redraws of the progress
MAX_POINTS = 101       # points per curve a chart keeps
OPTIONS = ("rose", "held", "fell")  # the question's options, in order ("none", no growth of the margin, reads "held")


def name(kind: str) -> str:
    return t(f"p18.tiny.kinds.{kind}")


def configs(beta: float, steps: int, grpo_beta: float = 0.0) -> dict:
    """The runs the section sets side by side, kind → config: DPO offline and online at the learner's β and steps,
    and GRPO with the same problems and answers per step (``DPOConfig.grpo``) and its own KL penalty."""
    offline = page.run(rlcore.zero.DPOConfig, beta=beta, steps=steps)
    grpo = offline.grpo() if not grpo_beta else page.run(replace, offline.grpo(), beta=grpo_beta)
    return {"offline": offline, "online": replace(offline, online=True), "grpo": grpo}


def grpo_curves(held) -> tuple[np.ndarray, np.ndarray]:
    """GRPO's pass@1 and KL curves as the shelf holds them (a pass@1 curve alone: its KL unknown, nan)."""
    held = np.asarray(held, dtype=np.float64)
    return (held, np.full(held.shape, np.nan)) if held.ndim == 1 else (held[:, 0], held[:, 1])


def key(kind: str, config, seed: int) -> tuple:
    """A run's place on the shelf: its kind, its settings and its seed."""
    return kind, repr(config), seed


def _steps(kind: str, config, seed: int):
    return rlcore.zero.train_steps(config, seed) if kind == "grpo" else rlcore.zero.dpo_steps(config, seed)


def _train(todo: dict, seed: int, where) -> None:
    """Train each run of ``todo`` (kind → config), one after another, in turns with the server's other trainings
    (``page.live``), the progress redrawn as steps come in; each finished run goes on the shelf. A newer input stops
    the training (the runs finished so far are kept)."""
    waiting, bar, last = where.empty(), where.progress(0.0, text=t("p18.tiny.measuring")), 0.0
    total, done = sum(c.steps + 1 for c in todo.values()), 0
    for kind, config in todo.items():
        kept = []
        for s in page.live(_steps(kind, config, seed), where=waiting):
            kept.append((s.measure.pass1, s.measure.kl) if kind == "grpo" else s)  # GRPO: all the section reads
            done += 1
            if time.perf_counter() - last > REDRAW or s.step == config.steps:
                bar.progress(done / total, text=t("p18.tiny.progress", run=name(kind), step=s.step,
                                                  steps=config.steps, pass1=pct(s.measure.pass1, 1)))
                last = time.perf_counter()
        run = np.array(kept) if kind == "grpo" else rlcore.zero.dpo_collect(config, seed, kept)
        RUNS.put(key(kind, config, seed), run)
    bar.empty()


def find(runs: dict, seed: int) -> dict | None:
    """The Train button and the runs to show (kind → a ``DPORun``, or GRPO's pass@1 curve), or None before they are
    all trained: pressed, it trains those the server does not hold."""
    left, right = st.columns([1, 4], vertical_alignment="center")
    go = left.button(t("p18.tiny.train"), type="primary", icon=":material/play_arrow:", width="stretch",
                     help=t("p18.tiny.train_help"))
    where = st.container()
    held = {kind: RUNS.get(key(kind, c, seed)) for kind, c in runs.items()}
    missing = {kind: c for kind, c in runs.items() if held[kind] is None}
    if missing and go:
        _train(missing, seed, where)
        held = {kind: RUNS.get(key(kind, c, seed)) for kind, c in runs.items()}
    elif missing:
        right.markdown(t("p18.tiny.press", steps=runs["offline"].steps, runs=len(missing)))
        return None
    elif not go:
        right.caption(t("p18.tiny.held"))
    return held


def pass_chart(shown: dict) -> None:
    """Held-out pass@1 over the steps, the three runs from the same base, and which DPO ended higher."""
    offline, online, grpo = shown["offline"], shown["online"], grpo_curves(shown["grpo"])[0]
    at = thin_steps(len(grpo), MAX_POINTS)
    curves = {name(k): c[at] for k, c in zip(KINDS, (offline.pass1, online.pass1, grpo), strict=True)}
    df = pd.DataFrame([(label, int(s), float(y)) for label, ys in curves.items() for s, y in zip(at, ys, strict=True)],
                      columns=["curve", "step", "pass@1"])
    colors = method_colors({name(k): COLORS[k] for k in KINDS})
    c = offline.config
    lines = charts.lines(df, x="step", y="pass@1", key=charts.Key("curve", colors=colors, title=t("p18.tiny.run")),
                         axes=charts.Axes(t("p18.tiny.x_step"), "pass@1", y_domain=[0, 1], whole="x"))
    page.chart(charts.layer(lines, title=t("p18.tiny.pass_title"), height=220,
                            subtitle=wrap(t("p18.tiny.pass_subtitle", batch=c.prompts, g=c.group_size,
                                            problems=rlcore.zero.HELD_OUT_SIZE, k=c.k))),
               df, alt_text=t("p18.tiny.pass_alt"), name="dpo_tiny_pass")
    leads = rlcore.zero.who_leads(offline.pass1[-1], online.pass1[-1])
    st.markdown(t(f"p18.tiny.pass_{leads}", steps=c.steps, start=pct(offline.pass1[0], 1),
                  offline=pct(offline.pass1[-1], 1), online=pct(online.pass1[-1], 1), grpo=pct(grpo[-1], 1),
                  first=int(online.pairs[0]), last=int(online.pairs[-1])), help=glossary.term("online DPO"))


def at_kl(shown: dict) -> None:
    """Each run's KL to the base at its end beside its pass@1, and (when every KL is known) the three read where each
    first reaches the smallest of those KLs: the ranking at equal KL, not at equal samples."""
    grpo_pass, grpo_kl = grpo_curves(shown["grpo"])
    curves = {"offline": (shown["offline"].kl, shown["offline"].pass1),
              "online": (shown["online"].kl, shown["online"].pass1), "grpo": (grpo_kl, grpo_pass)}
    if not all(np.isfinite(k).all() for k, _ in curves.values()):
        return
    target, passes = page.run(rlcore.zero.kl_matched, curves)
    cols = [t("p18.tiny.run"), t("p18.tiny.col_kl"), t("p18.tiny.col_pass_end"),
            t("p18.tiny.col_pass_at", kl=fmt(target))]
    page.table(pd.DataFrame([[name(k), float(kl[-1]), float(p[-1]), passes[k]] for k, (kl, p) in curves.items()],
                            columns=cols), formats={cols[1]: "%.3f", cols[2]: "%.3f", cols[3]: "%.3f"})
    leader = page.run(rlcore.zero.leader_at_kl, passes)
    said = {f"{k}_pass": pct(passes[k], 1) for k in KINDS} | {f"{k}_kl": fmt(curves[k][0][-1]) for k in KINDS}
    st.markdown(t("p18.tiny.matched_level" if leader == "level" else "p18.tiny.matched_lead", kl=fmt(target),
                  leader=name(leader) if leader != "level" else "", **said), help=glossary.term("KL-matched"))


def _moves(run: rlcore.zero.DPORun) -> dict:
    """The fixed pairs' numbers a sentence quotes: the chosen and rejected log-probabilities at the start and the end,
    and the implicit-reward margin at the end."""
    return dict(c0=fmt(run.chosen[0]), c1=fmt(run.chosen[-1]), r0=fmt(run.rejected[0]), r1=fmt(run.rejected[-1]),
                margin=fmt(run.margin[-1], 3))


def ask(offline: rlcore.zero.DPORun) -> bool:
    """Predict first: what offline DPO does to the chosen answers' log-probability, answered from the run."""
    options = [t(f"p18.tiny.option_{o}") for o in OPTIONS]
    change = offline.change
    answer = options[OPTIONS.index("held" if change == "none" else change)]
    return page.predict(t("p18.tiny.question", steps=offline.config.steps, beta=fmt(offline.config.beta)), options,
                        answer, t(f"p18.tiny.explain_{change}", **_moves(offline)), key="predict_dpo_tiny")


ROLES = ("chosen_worked", "chosen_guessed", "rejected")  # the fixed pairs' answers, one line style each


def log_prob_chart(shown: dict) -> None:
    """The fixed pairs' mean log-probabilities over the steps, offline and online: the chosen answers with their
    working, those given at once, and the rejected (chosen and rejected only for a run without the split); then what
    each run did to each kind."""
    offline, online = shown["offline"], shown["online"]
    at = thin_steps(len(offline.chosen), MAX_POINTS)
    split = all(r.chosen_worked is not None and r.chosen_guessed is not None for r in (offline, online))
    roles = ROLES if split else ("chosen", "rejected")
    labels = [t(f"p18.tiny.{r}") for r in roles]
    df = pd.concat([pd.DataFrame({"step": at, "log-probability": getattr(run, role)[at], "run": name(kind),
                                  "answer": label})
                    for kind, run in (("offline", offline), ("online", online))
                    for label, role in zip(labels, roles, strict=True)], ignore_index=True)
    colors = method_colors({name(k): COLORS[k] for k in KINDS[:2]})
    lines = charts.lines(df, x="step", y="log-probability",
                         key=charts.Key("run", colors=colors, title=t("p18.tiny.run")),
                         axes=charts.Axes(t("p18.tiny.x_step"), t("p18.tiny.lp_y"), whole="x"), dash="answer",
                         dash_order=labels)
    page.chart(charts.layer(lines, title=t("p18.tiny.lp_title"), height=240,
                            subtitle=wrap(t("p18.tiny.lp_subtitle", problems=rlcore.zero.HELD_OUT_SIZE,
                                            n=rlcore.zero.PROBE_GROUP))),
               df, alt_text=t("p18.tiny.lp_alt"), name="dpo_tiny_log_probs")
    said = [split_said(k, r) for k, r in (("offline", offline), ("online", online)) if r.split != "none"]
    if not said:  # no split to read: what online DPO did to the chosen as a whole
        said = [t(f"p18.tiny.online_{online.change}", **_moves(online))]
    st.markdown(t("p18.tiny.join").join(said), help=glossary.term("likelihood displacement"))


def split_said(kind: str, run: rlcore.zero.DPORun) -> str:
    """What one run did to each kind of chosen answer, chosen from ``DPORun.split``."""
    w, g, r = run.chosen_worked, run.chosen_guessed, run.rejected
    return t(f"p18.tiny.split_{run.split}", run=name(kind), share=pct(run.guessed_share), w0=fmt(w[0]), w1=fmt(w[-1]),
             g0=fmt(g[0]), g1=fmt(g[-1]), r0=fmt(r[0]), r1=fmt(r[-1]))


CODE = (rlcore.zero.dpo_steps, rlcore.zero.dpo_grads, rlcore.zero.pairs_within_groups, rlcore.zero.measure_probe,
        rlcore.zero.kl_matched)
