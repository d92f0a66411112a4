"""The shared, editable scenario: one ``rlcore.Scenario`` in ``st.session_state`` for every page.

The sidebar shows one row of inputs per candidate token. A valid edit replaces the scenario at once;
an invalid one shows ``st.error`` beside the inputs and the pages keep the last valid scenario.
"""

from __future__ import annotations

import math
import re

import streamlit as st

import rlcore

MIN_TOKENS, MAX_TOKENS = 2, 6
STATE = "scenario"   # the current valid rlcore.Scenario
DRAFT = "scenario_draft"  # the rows as the learner typed them (may be invalid)
PRESET = "scenario_preset"
FIELDS = ("token", "prob", "scores", "cont")


def key(field: str, i: int) -> str:
    """Widget key of one input of the sidebar table, e.g. ``key("scores", 2)``."""
    return f"scn_{field}_{i}"


def current() -> rlcore.Scenario:
    """The scenario every page uses (the article's example until the learner changes it)."""
    if STATE not in st.session_state:
        st.session_state[STATE] = rlcore.ARTICLE_SCENARIO
    return st.session_state[STATE]


def to_rows(scenario: rlcore.Scenario) -> list[dict]:
    """The scenario as editable rows of text and numbers."""
    return [{"token": t, "prob": p, "scores": ", ".join(f"{x:g}" for x in s), "cont": c}
            for t, p, s, c in zip(scenario.tokens, scenario.probs, scenario.samples,
                                  scenario.continuations, strict=True)]


def parse_scores(text, token: str) -> tuple[float, ...]:
    """Judge scores typed as ``3, 1, 2``; raises ValueError naming the token."""
    parts = [p for p in re.split(r"[,;\s]+", str(text or "").strip()) if p]
    if not parts:
        raise ValueError(f"Token {token!r} has no judge score: type at least one number, e.g. 5")
    out = []
    for p in parts:
        try:
            x = float(p)
        except ValueError:
            raise ValueError(f"Token {token!r}: judge score {p!r} is not a number") from None
        if not math.isfinite(x):
            raise ValueError(f"Token {token!r}: judge score {p!r} must be a finite number")
        if x < 0:
            raise ValueError(f"Token {token!r}: judge score {p!r} is negative; scores start at 0")
        out.append(x)
    return tuple(out)


def from_rows(rows: list[dict], base: rlcore.Scenario, *, normalise: bool = False) -> rlcore.Scenario:
    """Build a Scenario from edited rows; raises ValueError with a message a learner can act on."""
    if not MIN_TOKENS <= len(rows) <= MAX_TOKENS:
        raise ValueError(f"Use between {MIN_TOKENS} and {MAX_TOKENS} tokens, not {len(rows)}")
    tokens = [str(r.get("token") or "").strip() for r in rows]
    for i, tok in enumerate(tokens, start=1):
        if not tok:
            raise ValueError(f"Token {i} has no name")
    dupes = sorted({t for t in tokens if tokens.count(t) > 1})
    if dupes:
        raise ValueError(f"Each token must be different; repeated: {', '.join(dupes)}")
    probs = []
    for tok, row in zip(tokens, rows, strict=True):
        try:
            p = float(row.get("prob"))
        except (TypeError, ValueError):
            raise ValueError(f"Token {tok!r}: probability {row.get('prob')!r} is not a number") from None
        if not (math.isfinite(p) and 0 <= p <= 1):
            raise ValueError(f"Token {tok!r}: probability {p:g} must lie between 0 and 1")
        probs.append(p)
    samples = [parse_scores(r.get("scores"), t) for t, r in zip(tokens, rows, strict=True)]
    total = math.fsum(probs)
    if normalise:
        probs = list(rlcore.normalize_probs(probs))
    elif abs(total - 1.0) > 1e-9:
        raise ValueError(f"The probabilities add up to {total:.4g}, not 1")
    return rlcore.Scenario(tokens=tuple(tokens), probs=tuple(probs), samples=tuple(samples),
                           prompt=base.prompt, prefix=base.prefix,
                           continuations=tuple(str(r.get("cont") or "") for r in rows))


def replace(scenario: rlcore.Scenario) -> None:
    """Make ``scenario`` current and refill the sidebar inputs from it (use in callbacks)."""
    st.session_state[STATE] = scenario
    _set_draft(to_rows(scenario))


def _set_draft(rows: list[dict]) -> None:
    st.session_state[DRAFT] = rows
    for k in [k for k in st.session_state if str(k).startswith("scn_")]:
        del st.session_state[k]


def _pick_preset() -> None:
    name = st.session_state.get(PRESET)
    if name in rlcore.PRESETS:
        replace(rlcore.PRESETS[name])


def _reset() -> None:
    st.session_state[PRESET] = next(iter(rlcore.PRESETS))
    replace(rlcore.ARTICLE_SCENARIO)


def _add_token() -> None:
    rows = st.session_state[DRAFT]
    taken = {r["token"] for r in rows}
    name = next(f"token{i}" for i in range(1, 99) if f"token{i}" not in taken)
    _set_draft([*rows, {"token": name, "prob": 0.0, "scores": "5", "cont": ""}])


def _remove_token(i: int) -> None:
    rows = st.session_state[DRAFT]
    rows = rows[:i] + rows[i + 1:]
    try:  # the removed token's probability is shared out among the others
        replace(from_rows(rows, current(), normalise=True))
    except ValueError:
        _set_draft(rows)


def _normalise() -> None:
    try:
        replace(from_rows(st.session_state[DRAFT], current(), normalise=True))
    except ValueError as err:
        st.session_state["scenario_normalise_error"] = str(err)


def sidebar() -> rlcore.Scenario:
    """Draw the scenario inputs in the sidebar and return the current valid scenario."""
    scenario = current()
    if DRAFT not in st.session_state:
        st.session_state[DRAFT] = to_rows(scenario)
    draft = st.session_state[DRAFT]
    with st.sidebar:
        st.markdown("**The running example**")
        st.caption(f"Prompt: “{scenario.prompt}” · answer so far: “{scenario.prefix}” · "
                   "edit the candidates for the next token below.")
        st.selectbox("Start from a preset", list(rlcore.PRESETS), key=PRESET, on_change=_pick_preset)
        rows = []
        for i, row in enumerate(draft):
            first = i == 0
            vis = "visible" if first else "collapsed"
            c1, c2, c3, c4 = st.columns([2.2, 1.6, 2.8, 0.7], vertical_alignment="bottom")
            tok = c1.text_input("token", value=row["token"], key=key("token", i), max_chars=24,
                                label_visibility=vis, help="A candidate next token")
            prob = c2.number_input("prob.", value=float(row["prob"]), min_value=0.0, max_value=1.0,
                                   step=0.05, format="%.3f", key=key("prob", i), label_visibility=vis,
                                   help="The policy's probability of this token; together they add up to 1")
            scores = c3.text_input("judge scores", value=row["scores"], key=key("scores", i), max_chars=200,
                                   label_visibility=vis,
                                   help="Scores (0–10) of sampled answers that began with this token, "
                                        "separated by commas")
            c4.button("✕", key=key("remove", i), on_click=_remove_token, args=(i,),
                      disabled=len(draft) <= MIN_TOKENS, help=f"Remove token {i + 1}")
            rows.append({"token": tok, "prob": prob, "scores": scores, "cont": row["cont"]})
        with st.expander("How each answer goes on"):
            for i, row in enumerate(rows):
                row["cont"] = st.text_input(f"after “{row['token']}”", value=draft[i]["cont"],
                                            key=key("cont", i), max_chars=80)
        st.session_state[DRAFT] = rows
        try:
            new = from_rows(rows, scenario)
        except ValueError as err:
            st.error(f"{err}. The pages keep the last valid example.", icon="⚠️")
            if "add up to" in str(err):
                st.button("Rescale the probabilities to add up to 1", on_click=_normalise, width="stretch")
        else:
            if new != scenario:
                st.session_state[STATE] = scenario = new
        note = st.session_state.pop("scenario_normalise_error", None)
        if note:
            st.error(note)
        c1, c2 = st.columns(2)
        c1.button("Add a token", on_click=_add_token, disabled=len(draft) >= MAX_TOKENS, width="stretch")
        c2.button("Reset", on_click=_reset, width="stretch", help="Back to the article's example")
    return scenario
