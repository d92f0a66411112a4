"""Page 9's runs drawn as a trainer's dashboard draws them: seed bands over the steps, one panel per quantity.

The training lab keeps what its charts need in one view dict ``v``:

- ``results``: shown name → the run's bands (``rlcore.LabBands``: a ``SeedBands`` per quantity);
- ``names``: the runs shown, in order; ``colors``: name → colour; ``tokens``: the first token's candidates;
- ``keep``: the steps a chart keeps (``prep.thin_steps``); ``steps``: the run's length; ``shown``: the last step
  drawn (the player's position);
- ``band_lines``: the panels' subtitle (what the band is); ``titles``: the x axis's and the two legends' titles
  (tokens, runs), in the page's language.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

import rlcore
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
