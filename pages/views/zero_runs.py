"""Page 19's runs: a training step by step with its pass@k curves at the end (``with_passk``), the steps recorded
as they come in so that a stopped training keeps the part done (``Recorder``, ``collected``, ``stopped``), and a
finished run as the training logs TRL and verl write, for page 21 or any reader of such logs (``log_downloads``)."""

from __future__ import annotations

import streamlit as st

import rlcore
from ui.i18n import t


def with_passk(config, seed: int):
    """A run step by step as ``rlcore.zero.train_steps`` yields it, then its pass@k curves' parts (None after each)
    and the curves (a ``PassK``): the whole run's work in turns, the curves last."""
    last = None
    for last in rlcore.zero.train_steps(config, seed):
        yield last
    yield from rlcore.zero.passk_steps(last.model, seed, config.passk_max)


class Recorder:
    """A live training's steps as they come in (``add``: each ``rlcore.zero.ZeroStep``, then what
    ``with_passk`` yields after them), and the run they make so far (``run``): what page 19 keeps in the session, so
    that a learner who stops a training keeps the part done. The steps so far are one tuple, replaced whole at each
    step: after Stop the page reruns in a new thread while the stopped run may still add the step it was computing
    (Streamlit stops it at its next Streamlit call), and the rerun reads the steps whole, never one half added."""

    def __init__(self, config, seed: int):
        self.config, self.seed, self.passk = config, seed, None
        self._steps = ((), (), None)   # the measures (from step 0), the updates (from step 1), the latest model

    @property
    def model(self):
        return self._steps[2]

    def add(self, step) -> None:
        if step is None or isinstance(step, rlcore.zero.PassK):   # the pass@k curves: a part of them, or all
            self.passk = step if step is not None else self.passk
            return
        measures, updates, _ = self._steps
        self._steps = ((*measures, step.measure), updates if step.update is None else (*updates, step.update),
                       step.model)

    def run(self):
        """The ``ZeroRun`` so far (ValueError before step 0 is in, as ``rlcore.zero.collect`` says)."""
        measures, updates, model = self._steps
        return rlcore.zero.collect(self.config, self.seed, measures, updates, model, self.passk)


def collected(config, seed: int, steps):
    """The ``ZeroRun`` of ``steps`` (``rlcore.zero.ZeroStep``s from step 0 on, then ``with_passk``'s curves), as a
    Recorder would make it."""
    record = Recorder(config, seed)
    for step in steps:
        record.add(step)
    return record.run()


def stopped(key: str):
    """The run a stopped live training left in the session under ``key`` (a ``Recorder``, taken out), or None when
    there is none or it stopped before step 0 was measured."""
    record = st.session_state.pop(key, None)
    return record.run() if record is not None and record.model is not None else None


def log_downloads(run: rlcore.zero.ZeroRun) -> None:
    """The run as TRL's trainer_state.json (GRPOTrainer's keys, so not for a PPO run) and verl's JSON lines."""
    if not run.updates:
        return
    logs = {"verl": (rlcore.run_log_verl, "verl_metrics.jsonl")}
    if run.config.algorithm != "ppo":
        logs = {"trl": (rlcore.run_log_trl, "trainer_state.json"), **logs}
    for col, (trainer, (write, file_name)) in zip(st.columns(len(logs)), logs.items(), strict=True):
        col.download_button(t(f"p19.log_{trainer}"), write(run), file_name=file_name, mime="application/json",
                            on_click="ignore", help=t("p19.log_help"), icon=":material/download:", width="stretch")
