"""Training runs drawn as a trainer's dashboard draws them: seed bands over the steps, one panel per quantity.

A page that trains runs (the training lab) keeps what its charts need in one view dict ``v``:

- ``results``: shown name → the run's bands (``rlcore.LabBands``: a ``SeedBands`` per quantity);
- ``names``: the runs shown, in order; ``colors``: name → colour; ``tokens``: the first token's candidates;
- ``keep``: the steps a chart keeps (``prep.thin_steps``); ``steps``: the run's length; ``shown``: the last step
  drawn (the player's position);
- ``band_lines``: the panels' subtitle (what the band is); ``titles``: the x axis's and the two legends' titles
  (tokens, runs), in the page's language.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import rlcore
from rlcore.studies.zero import training
from ui import charts, page, prep
from ui.i18n import t


def kept_steps(steps: int, n_runs: int, n_tokens: int):
    """The steps 0…``steps`` a chart keeps: at most ~60 points per curve, and under ~1,800 rows per chart (4 panels
    or one per token, per run).

    >>> kept_steps(300, 3, 3).tolist()[:4], len(kept_steps(300, 3, 3)), kept_steps(20, 1, 3).size
    ([0, 6, 12, 18], 51, 21)
    """
    return prep.thin_steps(steps + 1, max(20, min(61, 1800 // (n_runs * max(4, n_tokens)))))


def bands(v: dict, field: str, *, column: int | None = None, only=None, source=None):
    """One part of a chart: the steps kept, the runs (``only`` some), and their seed bands of a LabBands ``field``
    there (or ``source``'s: name → SeedBands); the quantities of ``rlcore.lab.PER_STEP`` start at step 1."""
    names, first = only or v["names"], int(field in rlcore.lab.PER_STEP)
    runs = [source[n] if source is not None else getattr(v["results"][n], field) for n in names]
    return v["keep"][first:], names, prep.bands_at(runs, v["keep"][first:] - first, column)


def panels(v: dict, parts, *, name: str, alt_text, title: str, by_token: bool = False, subtitle=None,
           height: int = 150, y_title: str = "", y_domain=None) -> None:
    """Band panels up to the step shown: one per part (label → ``bands``), a line per run; ``by_token``: one per
    run, a line per token (the columns of the field ``parts``). ``alt_text`` may be a function of the rows drawn."""
    if by_token:
        parts = {tok: bands(v, parts, column=i) for i, tok in enumerate(v["tokens"])}
    rows = prep.band_rows(parts, series="algorithm", part="token" if by_token else "quantity")
    shown = rows["step"] <= v["shown"]
    df = pd.DataFrame({column: values[shown] for column, values in rows.items()})
    x_title, token_title, run_title = v["titles"]
    key = (charts.Key("token", v["tokens"], title=token_title) if by_token else
           charts.Key("algorithm", colors=v["colors"], title=run_title))
    axes = charts.Axes(x_title, y_title, x_domain=[0, v["steps"]], y_domain=y_domain)
    ch = charts.facets(charts.bands(df, x="step", mid="median", low="lowest", high="highest", key=key, axes=axes),
                       field="algorithm" if by_token else "quantity", title=title, size=(330, height),
                       order=v["names"] if by_token else list(parts),
                       subtitle=v["band_lines"] if subtitle is None else subtitle, independent_y=not by_token)
    page.chart(ch, df, alt_text=alt_text(df) if callable(alt_text) else alt_text, name=name, width="stretch")


def train(configs: dict, study, *, training, diverged) -> dict:
    """Each run of ``configs`` (shown name → config) by ``study(config)`` (a ``page.study`` call), one after another,
    ``training(name)`` the caption while it trains (a Streamlit call before each: where a newer input stops this
    rerun). A run that diverged is left out, with the warning ``diverged(name, config, bands)``. Returns shown name
    → bands."""
    results, caption = {}, st.empty()
    for name, config in configs.items():
        caption.caption(training(name))
        out = study(config)
        if out.diverged_at is not None:
            st.warning(diverged(name, config, out), icon="⚠️")
        else:
            results[name] = out
    caption.empty()
    return results


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


def with_passk(config, seed: int):
    """A run step by step as ``rlcore.zero.train_steps`` yields it, then its pass@k curves' parts (None after each)
    and the curves (a ``PassK``): the whole run's work in turns, the curves last."""
    last = None
    for last in rlcore.zero.train_steps(config, seed):
        yield last
    yield from training.passk_steps(last.model, seed, config.passk_max)


class Recorder:
    """A live training's steps as they come in (``add``: each ``rlcore.zero.ZeroStep``, then what
    ``with_passk`` yields after them), and the run they make so far (``run``): what page 19 keeps in the session, so
    that a learner who stops a training keeps the part done."""

    def __init__(self, config, seed: int):
        self.config, self.seed, self.measures, self.updates, self.model = config, seed, [], [], None
        self.passk = None

    def add(self, step) -> None:
        if step is None or isinstance(step, training.PassK):   # the pass@k curves: a part of them, or all
            self.passk = step if step is not None else self.passk
            return
        self.measures.append(step.measure)
        if step.update is not None:
            self.updates.append(step.update)
        self.model = step.model

    def run(self):
        """The ``ZeroRun`` so far (ValueError before step 0 is in, as ``training.collect`` says)."""
        return training.collect(self.config, self.seed, self.measures, self.updates, self.model, self.passk)


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



def log_downloads(v: dict) -> None:
    """Each algorithm's run of seed 0 (the first of its bands) as verl's JSON lines and, but for PPO, TRL's
    trainer_state.json, once the learner asks for them: a file is made with the page, never on click (Streamlit
    deletes a file made on click after two reruns of anyone on the server: tests/app/test_downloads.py)."""
    if not st.toggle(t("p9.logs"), key="lab_logs", help=t("p9.logs_text")):
        return
    files = {"verl": "jsonl", "trl": "json"}
    for name, config in v["configs"].items():
        logs = page.study(rlcore.lab_logs, v["scenario"], config, entries=16)
        for col, (trainer, data) in zip(st.columns(len(logs)), logs.items(), strict=True):
            col.download_button(t(f"p9.log_{trainer}", name=name), data, mime="application/json",
                                file_name=f"lab_{config.algorithm}_seed0.{files[trainer]}", on_click="ignore",
                                help=t("p19.log_help"), icon=":material/download:", width="stretch")
