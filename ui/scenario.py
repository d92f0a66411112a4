"""The shared, editable scenario: one ``rlcore.Scenario`` in ``st.session_state`` for every page.

The sidebar shows the candidates as a small table; its editor (an expander, drawn only while open)
has one row of inputs per candidate token. A valid edit replaces the scenario at once; an invalid
one shows ``st.error`` below the inputs and the pages keep the last valid scenario.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata

import streamlit as st

import rlcore

from . import i18n, inputs
from .format import breakable, cut_to, esc
from .i18n import t

# The editor's own range, narrower than what rlcore computes with (rlcore.MAX_TOKENS = 12): six rows, one colour
# each in ui/colors.py's token palette.
EDITOR_MIN_TOKENS, EDITOR_MAX_TOKENS = 2, 6
CUSTOM = "Custom (your edits)"  # the preset selector's choice once the example is not one of the presets
STATE = "scenario"   # the current valid rlcore.Scenario
DRAFT = "scenario_draft"  # the rows as the learner typed them (may be invalid)
SYNCED = "scenario_synced"  # the scenario the draft last agreed with
PRESET = "scenario_preset"
EDITOR = "scenario_editor"  # the expander holding the inputs (open or closed)
REPLACED = "scenario_replaced"  # the example a page's ``load`` replaced, kept for ``restore``
CUT = "scenario_cut"     # the most units of a field whose text was cut to fit in this run (for its notice)
URL_KEY = "scn"          # query parameter that carries a custom scenario in a shared link
MAX_JSON_BYTES = 100_000
MAX_DEPTH = 3            # {"samples": [[1, 2], [3]]} is the deepest a scenario nests
FIELDS = ("prompt", "prefix", "tokens", "probs", "samples", "continuations")
# The editor's score field holds every score a scenario may have, each written out in full (the longest
# float is 23 characters, "2.2250738585072014e-308", plus ", "), so opening the editor never cuts one off.
SCORES_MAX_CHARS = rlcore.example.MAX_SAMPLES * 25
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"')  # a JSON string literal


def key(field: str, i: int) -> str:
    """Widget key of one input of the sidebar table, e.g. ``key("scores", 2)``."""
    return f"scn_{field}_{i}"


def current() -> rlcore.Scenario:
    """The scenario every page uses (the article's example until the learner changes it)."""
    if STATE not in st.session_state:
        st.session_state[STATE] = rlcore.ARTICLE_SCENARIO
    return st.session_state[STATE]


def to_rows(scenario: rlcore.Scenario) -> list[dict]:
    """The scenario as editable rows of text and numbers; reading them back gives the same scenario.

    >>> to_rows(rlcore.ARTICLE_SCENARIO)[2]["scores"], _score_text(0.1 + 0.2)
    ('10, 8', '0.30000000000000004')
    """
    return [{"token": t, "prob": p, "scores": ", ".join(_score_text(x) for x in s), "cont": c}
            for t, p, s, c in zip(scenario.tokens, scenario.probs, scenario.samples,
                                  scenario.continuations, strict=True)]


def _score_text(x: float) -> str:
    """A score as short as it reads (``3``, ``2.5``) unless that would change it; then every digit."""
    short = f"{x:g}"
    return short if float(short) == x else repr(float(x))


def parse_scores(text, token: str) -> tuple[float, ...]:
    """Judge scores typed as ``3, 1, 2``; raises ValueError naming the token."""
    parts = [p for p in re.split(r"[,;\s]+", str(text or "").strip()) if p]
    if not parts:
        raise ValueError(f"Token {token!r} has no judge score: type at least one number, e.g. 5")
    if len(parts) > rlcore.example.MAX_SAMPLES:
        raise ValueError(f"Token {token!r} has {len(parts)} judge scores; keep at most {rlcore.example.MAX_SAMPLES}")
    out = []
    for p in parts:
        shown = repr(p) if len(p) <= 30 else f"'{p[:12]}…' ({len(p)} characters)"
        try:
            x = float(p)
        except ValueError:
            x = math.nan
        if math.isnan(x):
            raise ValueError(f"Token {token!r}: judge score {shown} is not a number")
        if x < 0:
            raise ValueError(f"Token {token!r}: judge score {shown} is negative; scores start at 0")
        if x > rlcore.example.MAX_SCORE:
            raise ValueError(f"Token {token!r}: judge score {shown} is too large; "
                             f"scores go up to {rlcore.example.MAX_SCORE:,.0f}")
        out.append(x)
    return tuple(out)


def from_rows(rows: list[dict], base: rlcore.Scenario, *, normalise: bool = False,
              keep: tuple[int, ...] = ()) -> rlcore.Scenario:
    """Build a Scenario from edited rows; raises ValueError with a message a learner can act on.

    With ``normalise`` the probabilities are rescaled to add up to 1, those of the rows in ``keep``
    staying as typed (``rlcore.normalize_probs``).
    """
    if not EDITOR_MIN_TOKENS <= len(rows) <= EDITOR_MAX_TOKENS:
        raise ValueError(f"Use between {EDITOR_MIN_TOKENS} and {EDITOR_MAX_TOKENS} tokens, not {len(rows)}")
    # compared in composed form (NFC): "é" typed as e + U+0301 is the same name as "é"
    tokens = [unicodedata.normalize("NFC", str(r.get("token") or "").strip()) for r in rows]
    for i, tok in enumerate(tokens, start=1):
        if not tok:
            raise ValueError(f"Token {i} has no name")
        if rlcore.browser_length(tok) > rlcore.example.MAX_TOKEN_CHARS:  # as the browser's field counts (an emoji: 2)
            raise ValueError(f"Token {i} has a name of {rlcore.browser_length(tok)} characters; keep it to "
                             f"{rlcore.example.MAX_TOKEN_CHARS} (an emoji counts as two)")
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
        probs = list(rlcore.normalize_probs(probs, keep))
    elif abs(total - 1.0) > 1e-9:
        raise ValueError(f"The probabilities add up to {sum_text(total)}, not 1")
    return rlcore.Scenario(tokens=tuple(tokens), probs=tuple(probs), samples=tuple(samples),
                           prompt=base.prompt, prefix=base.prefix,
                           continuations=tuple(str(r.get("cont") or "") for r in rows))


def sum_text(total: float) -> str:
    """A sum of probabilities with as many digits as it takes not to read as 1 (it is 1 only within 1e-9).

    >>> sum_text(0.95), sum_text(1.000000002), sum_text(0.9999999989)
    ('0.95', '1.000000002', '0.9999999989')
    """
    for digits in range(3, 18):
        text = f"{total:.{digits}g}"
        if abs(float(text) - total) <= abs(total - 1.0) / 100:  # shows how far from 1 it is, within 1%
            return text
    return repr(total)


def to_json(scenario: rlcore.Scenario, *, indent: int | None = 2) -> str:
    """The scenario as a JSON document (what the sidebar's download gives)."""
    doc = {"prompt": scenario.prompt, "prefix": scenario.prefix, "tokens": list(scenario.tokens),
           "probs": list(scenario.probs), "samples": [list(s) for s in scenario.samples],
           "continuations": list(scenario.continuations)}
    return json.dumps(doc, indent=indent, ensure_ascii=False, separators=None if indent else (",", ":"))


def from_json(data: str | bytes) -> rlcore.Scenario:
    """Read a scenario saved with ``to_json``; raises ValueError saying what is wrong with it.

    The text is checked before it is parsed (size, nesting depth), every field's type is checked, and
    ``rlcore.Scenario`` checks the rest (bounds on scores, names and texts), so whatever this returns
    every page can show.
    """
    if len(data) > MAX_JSON_BYTES:
        unit = "bytes" if isinstance(data, bytes) else "characters"
        raise ValueError(f"The scenario is {len(data):,} {unit} long; the limit is {MAX_JSON_BYTES:,}")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ValueError("This is not valid JSON: it is not UTF-8 text") from None
    if not isinstance(data, str):
        raise ValueError(f"A scenario must be JSON text, got {type(data).__name__}")
    depth = _depth(data)
    if depth > MAX_DEPTH:
        raise ValueError(f"The JSON nests lists or objects more than {MAX_DEPTH} deep; a scenario needs "
                         "at most 3 (an object holding samples, a list of lists of scores)")
    try:
        doc = json.loads(data, parse_constant=_no_constant, parse_int=_int, object_pairs_hook=_no_repeats)
    except RepeatedField as err:
        raise ValueError(f"The JSON {err}") from None
    except ValueError as err:  # json.JSONDecodeError is a ValueError, so is _no_constant's
        raise ValueError(f"This is not valid JSON ({err})") from None
    if not isinstance(doc, dict):
        raise ValueError("The JSON must be an object with tokens, probs and samples")
    unknown = [k for k in doc if k not in FIELDS]
    if unknown:
        shown = ", ".join(repr(k[:24]) for k in unknown[:3]) + (" ..." if len(unknown) > 3 else "")
        raise ValueError(f"The JSON has fields a scenario does not use ({shown}); it may hold {', '.join(FIELDS)}")
    missing = [k for k in ("tokens", "probs", "samples") if k not in doc]
    if missing:
        raise ValueError(f"The JSON lacks {', '.join(missing)}")
    tokens, probs, samples = doc["tokens"], doc["probs"], doc["samples"]
    if not all(isinstance(x, list) for x in (tokens, probs, samples)):
        raise ValueError("tokens, probs and samples must be lists")
    if not EDITOR_MIN_TOKENS <= len(tokens) <= EDITOR_MAX_TOKENS:
        raise ValueError(f"Use between {EDITOR_MIN_TOKENS} and {EDITOR_MAX_TOKENS} tokens, not {len(tokens)}")
    if not all(isinstance(t, str) for t in tokens):
        raise ValueError("Every token must be a string")
    for name in ("prompt", "prefix"):
        if not isinstance(doc.get(name, ""), str):
            raise ValueError(f"{name} must be a string")
    conts = doc.get("continuations") or [""] * len(tokens)
    if not isinstance(conts, list) or not all(isinstance(c, str) for c in conts):
        raise ValueError("continuations must be a list of strings")
    if not all(_is_number(p) for p in probs):
        raise ValueError("probs must be numbers")
    for i, group in enumerate(samples):
        if not isinstance(group, list) or not all(_is_number(x) for x in group):
            raise ValueError("samples must be a list of lists of numbers")
        for j, x in enumerate(group):
            if x < 0:
                raise ValueError(f"samples[{i}][{j}] is negative; judge scores start at 0")
            if x > rlcore.example.MAX_SCORE:
                raise ValueError(f"samples[{i}][{j}] is above {rlcore.example.MAX_SCORE:,.0f}, the largest judge score "
                                 "a scenario may hold")
    base = rlcore.ARTICLE_SCENARIO
    return rlcore.Scenario(tokens=tuple(tokens), probs=tuple(probs), samples=tuple(tuple(g) for g in samples),
                           prompt=doc.get("prompt", base.prompt), prefix=doc.get("prefix", base.prefix),
                           continuations=tuple(conts))


def _depth(text: str) -> int:
    """How deep the JSON text nests ``[`` and ``{`` (brackets inside strings do not count); stops early.

    >>> _depth('{"a": [[1], "[[["]}'), _depth("[" * 5000)
    (3, 4)
    """
    depth = deepest = 0
    for ch in re.sub(r"[^\[\]{}]", "", _STRING.sub("", text)):
        depth += 1 if ch in "[{" else -1
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            break
    return deepest


class RepeatedField(ValueError):
    """A JSON object names a field twice."""


def _no_repeats(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object whose fields each appear once; ``json.loads`` alone would keep the last of a repeated one."""
    doc = dict(pairs)
    if len(doc) < len(pairs):
        seen: set[str] = set()
        again = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise RepeatedField(f"gives the field {again[:24]!r} more than once; a scenario needs each field once, "
                            "so it is not clear which value to use")
    return doc


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number a scenario can hold")


def _int(text: str):
    """JSON integers: a very long one becomes a float (inf if too large), never Python's 4,300-digit error."""
    return int(text) if len(text) <= 4000 else float(text)


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _from_url() -> None:
    """On a session's first run, adopt a scenario carried by a shared link (``?scn=...``)."""
    if STATE in st.session_state or URL_KEY not in st.query_params:
        return
    raw = st.query_params.get_all(URL_KEY)
    try:
        if len(raw) != 1:
            raise ValueError("the link repeats the scenario parameter")
        replace(from_json(raw[0]))
    except ValueError as err:  # the notice quotes the link's text: escaped, so it cannot add a link or markup
        st.session_state["scenario_url_notice"] = t("scenario.url_unusable", error=esc(i18n.error(err)))


def _to_url(scenario: rlcore.Scenario) -> None:
    """Keep the link shareable: a custom scenario rides along in the URL."""
    if scenario == rlcore.ARTICLE_SCENARIO:
        if URL_KEY in st.query_params:
            del st.query_params[URL_KEY]
    else:
        text = to_json(scenario, indent=None)
        if st.query_params.get(URL_KEY) != text:
            st.query_params[URL_KEY] = text


def _load_file() -> None:
    upload = st.session_state.get("scenario_upload")
    if upload is None:
        return
    name = esc(upload.name[:60])  # the file's name and the reason are visitor text: escaped for markdown
    try:
        replace(from_json(upload.getvalue()))
        st.session_state["scenario_file_notice"] = ("success", t("scenario.loaded", name=name))
    except ValueError as err:
        reason = esc(i18n.error(err))
        st.session_state["scenario_file_notice"] = ("error", t("scenario.not_loaded", name=name, error=reason))


def replace(scenario: rlcore.Scenario) -> None:
    """Make ``scenario`` current and refill the sidebar inputs from it (use in callbacks)."""
    st.session_state[STATE] = scenario
    _set_draft(to_rows(scenario))


def load(name: str) -> None:
    """Make the preset ``name`` (a key of ``rlcore.PRESETS``) the example of every page, keeping the one it replaces
    for ``restore``: a page's "load this example" button (use in callbacks)."""
    st.session_state[REPLACED] = current()
    replace(rlcore.PRESETS[name])


def replaced() -> rlcore.Scenario | None:
    """The example the last ``load`` replaced, while ``restore`` can still bring it back; None otherwise."""
    return st.session_state.get(REPLACED)


def restore() -> None:
    """Back to the example the last ``load`` replaced (use in callbacks); nothing to do if there is none."""
    previous = st.session_state.pop(REPLACED, None)
    if previous is not None:
        replace(previous)


def _set_draft(rows: list[dict]) -> None:
    st.session_state[DRAFT] = rows
    for k in [k for k in st.session_state if str(k).startswith("scn_")]:
        del st.session_state[k]


def _pick_preset() -> None:
    name = {preset_name(k): k for k in rlcore.PRESETS}.get(st.session_state.get(PRESET))
    if name in rlcore.PRESETS:
        replace(rlcore.PRESETS[name])


def _reset() -> None:
    """Back to the defaults: the article's example, every page's inputs at the defaults recorded where they
    are declared (``ui.inputs``), and a link with nothing in it but the language, which stays."""
    defaults = inputs.recorded_defaults()
    for k in [k for k in st.session_state if k not in defaults and k not in (*inputs.KEEP, i18n.KEY)]:
        del st.session_state[k]
    st.session_state.update(defaults)
    st.query_params.clear()
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


def _normalise(keep: tuple[int, ...] = ()) -> None:
    try:
        replace(from_rows(st.session_state[DRAFT], current(), normalise=True, keep=keep))
    except ValueError as err:
        st.session_state["scenario_normalise_error"] = i18n.error(err)


def sidebar() -> rlcore.Scenario:
    """Draw the scenario in the sidebar (a summary, and the inputs while the editor is open); return it."""
    _from_url()
    scenario = current()
    if DRAFT not in st.session_state or st.session_state.get(SYNCED) != scenario:
        _set_draft(to_rows(scenario))  # first run, or the scenario was replaced from outside the sidebar
    draft = st.session_state[DRAFT]
    with st.sidebar:
        st.markdown(t("scenario.heading"))
        st.caption(t("scenario.caption", prompt=esc(scenario.prompt), prefix=esc(scenario.prefix)))
        summary = st.empty()  # filled once this run's edits are in
        preset = st.empty()  # likewise: it names the preset the example now is, or says "Custom"
        # the inputs exist only while the editor is open: a closed editor costs a page rerun nothing
        with st.expander(t("scenario.edit"), key=EDITOR, on_change="rerun") as box:
            rows = _editor(draft) if box.open else draft
        st.session_state[DRAFT] = rows
        try:
            new = from_rows(rows, scenario)
        except ValueError as err:  # the message quotes what was typed: escaped, so a name cannot add markup
            st.error(t("scenario.invalid", error=esc(i18n.error(err))), icon="⚠️")
            if "add up to" in str(err):
                _rescale_button(rows, scenario)
        else:
            if new != scenario:
                st.session_state[STATE] = scenario = new
        note = st.session_state.pop("scenario_normalise_error", None)
        if note:
            st.error(esc(note))
        summary.markdown(_summary(scenario))
        # the options are the names in the current language (a format_func would do, but AppTest cannot set it)
        st.session_state[PRESET] = preset_name(next((k for k, v in rlcore.PRESETS.items() if v == scenario), CUSTOM))
        preset.selectbox(t("scenario.preset"), [preset_name(k) for k in (*rlcore.PRESETS, CUSTOM)], key=PRESET,
                         on_change=_pick_preset, help=t("scenario.preset_help", custom=preset_name(CUSTOM)))
        st.button(t("scenario.reset"), on_click=_reset, width="stretch", help=t("scenario.reset_help"))
        notice = st.session_state.pop("scenario_url_notice", None)
        if notice:
            st.warning(notice)
        with st.expander(t("scenario.files"), key="scenario_files", on_change="rerun") as box:
            if box.open:
                _files(scenario)
    st.session_state[SYNCED] = scenario
    _to_url(scenario)
    return scenario


def preset_name(name: str) -> str:
    """A preset's name (or ``CUSTOM``) as the selector shows it, in the current language."""
    return t("scenario.custom") if name == CUSTOM else t(f"scenario.presets.{name}")


def _rescale_button(rows: list[dict], scenario: rlcore.Scenario) -> None:
    """Offer to rescale: the probabilities just typed stay, the others share what is left of 1.

    When that is not possible (every probability was changed, the typed ones exceed 1, or the others are
    all 0), the button says that it divides every probability by their sum instead.
    """
    probs = [float(r["prob"]) for r in rows]
    same_tokens = [unicodedata.normalize("NFC", str(r["token"]).strip()) for r in rows] == list(scenario.tokens)
    typed = tuple(i for i, p in enumerate(probs) if not same_tokens or p != scenario.probs[i])
    room = 1.0 - math.fsum(probs[i] for i in typed)
    others = math.fsum(p for i, p in enumerate(probs) if i not in typed)
    if typed and len(typed) < len(rows) and room >= 0 and others > 0:
        kept = t("link.separator").join(t("scenario.rescale_kept", token=esc(_shown(rows[i]["token"]).strip()),
                                          prob=f"{probs[i]:.3g}") for i in typed)
        st.button(t("scenario.rescale_others", room=f"{room:.3g}"), on_click=_normalise, args=(typed,),
                  width="stretch", help=t("scenario.rescale_others_help", kept=kept))
    else:
        total = math.fsum(probs)
        st.button(t("scenario.rescale_all", total=sum_text(total)), on_click=_normalise, width="stretch",
                  help=t("scenario.rescale_all_help"))


def _summary(scenario: rlcore.Scenario) -> str:
    """The candidates as one small markdown table (token, probability, judge scores)."""
    lines = [t("scenario.summary_header"), "|---|---:|---|"]
    lines += [f"| {breakable(t)} | {p:.3g} | {esc(', '.join(f'{x:g}' for x in sc))} |"
              for t, p, sc in zip(scenario.tokens, scenario.probs, scenario.samples, strict=True)]
    return "\n".join(lines)


def _editor(draft: list[dict]) -> list[dict]:
    """One row of inputs per token, how each answer goes on, and Add / Remove; returns the rows as typed."""
    st.caption(t("scenario.editor_caption"))
    for k in [k for k in st.session_state if str(k).startswith("scn_")]:
        if isinstance(st.session_state[k], str) and _shown(st.session_state[k]) != st.session_state[k]:
            del st.session_state[k]  # a lone surrogate has no UTF-8 form: the input could not be drawn
            st.warning(t("scenario.surrogate"))
    rows = []
    for i, row in enumerate(draft):
        vis = "visible" if i == 0 else "collapsed"
        c1, c2, c3 = st.columns([2.1, 1.7, 2.6], vertical_alignment="bottom")
        tok = _text_field(c1, t("scenario.token"), row["token"], key("token", i), rlcore.example.MAX_TOKEN_CHARS,
                          label_visibility=vis, help=t("scenario.token_help", most=rlcore.example.MAX_TOKEN_CHARS))
        prob = c2.number_input(t("scenario.prob"), value=float(row["prob"]), min_value=0.0, max_value=1.0,
                               step=0.05, format="%.3f", key=key("prob", i), label_visibility=vis,
                               help=t("scenario.prob_help"))
        scores = _text_field(c3, t("scenario.scores"), row["scores"], key("scores", i), SCORES_MAX_CHARS,
                             items=True, label_visibility=vis,
                             help=t("scenario.scores_help", most=rlcore.example.MAX_SAMPLES,
                                    top=f"{rlcore.example.MAX_SCORE:,.0f}"))
        rows.append({"token": tok, "prob": prob, "scores": scores, "cont": row["cont"]})
    st.caption(t("scenario.continuations"))
    for i, row in enumerate(rows):
        row["cont"] = _text_field(st, t("scenario.after", token=esc(_shown(row["token"]))), draft[i]["cont"],
                                  key("cont", i), rlcore.example.MAX_CONT_CHARS)
    if (most := st.session_state.pop(CUT, None)) is not None:
        st.info(t("scenario.cut", most=most), icon=":material/content_cut:")
    c1, c2 = st.columns(2)
    c1.button(t("scenario.add"), key=key("add", "new"), on_click=_add_token,
              disabled=len(draft) >= EDITOR_MAX_TOKENS, width="stretch", help=t("scenario.add_help"))
    c2.button(t("scenario.remove"), key=key("remove", "last"), on_click=_remove_token, args=(len(draft) - 1,),
              disabled=len(draft) <= EDITOR_MIN_TOKENS, width="stretch", help=t("scenario.remove_help"))
    return rows


def _text_field(where, label: str, default, k: str, most: int, *, items: bool = False, **kwargs) -> str:
    """A text input of the editor holding at most ``most`` UTF-16 units (as the browser counts): longer text, typed or
    pasted, is cut to what fits (``ui.format.cut_to``; a list, ``items``, at its last whole item) and the editor says
    so. Streamlit's own ``max_chars`` is checked in the browser, which drops a change that is too long whole: 24 😀
    pasted into an empty name left it empty. So the field has none, and the server cuts."""
    held = st.session_state.get(k)
    cut = isinstance(held, str) and rlcore.browser_length(held) > most
    if cut:
        fitted = cut_to(held, most)
        if items and "," in fitted and held[len(fitted):][:1] not in (",", " "):
            fitted = fitted[:fitted.rindex(",")]  # a score cut in two would be another number
        st.session_state[k] = fitted  # before the input is drawn: it shows the cut text
        st.session_state[CUT] = max(most, st.session_state.get(CUT, 0))
    # no default beside a value just set (Streamlit logs a warning for both); the input keeps its key's value
    return where.text_input(label, value=None if cut else _shown(default), key=k, **kwargs)


def _shown(text) -> str:
    """Text as a widget can carry it: a lone surrogate (which has no UTF-8 form) shows as U+FFFD.

    >>> _shown("a\\ud800b") == "a\\ufffdb"
    True
    """
    return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in str(text))


def _files(scenario: rlcore.Scenario) -> None:
    """Download the example as JSON, or load one; drawn only while its expander is open."""
    st.download_button(t("scenario.download"), to_json(scenario).encode(), file_name="scenario.json",
                       mime="application/json", on_click="ignore", width="stretch")
    st.file_uploader(t("scenario.upload"), type=["json"], max_upload_size=1,  # MB: a scenario is 100 kB at most
                     key="scenario_upload", on_change=_load_file)
    kind, text = st.session_state.pop("scenario_file_notice", (None, None))
    if kind == "error":
        st.error(text)
    elif kind == "success":
        st.success(text)
