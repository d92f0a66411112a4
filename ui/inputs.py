"""Page inputs that live in the link: one call draws the widget, records its default and keeps the link in step.

    lam = inputs.slider("λ", 0.0, 1.0, 0.95, 0.05, key="lam", where=c2, help="...")

- **Scoped per page.** The widget's session key is ``"<page>.<name>"`` and its link parameter is ``name``
  (``?lam=0.5``). Two pages may both have a ``steps`` input with different ranges: neither value ever
  reaches the other page.
- **The link is read when a page is entered** (a shared link, or the browser's back button). Each value is
  parsed and checked (a finite number inside the range, or one of the options) *before* the widget exists;
  one that does not fit is dropped from the link and reported once, by ``report_link``.
- **Defaults are recorded where the input is declared**, so a preset (``set_view``) and the sidebar's Reset
  can put every input back without asking Streamlit for them.
- **An input drawn only after the page's question is answered** is named with ``later(name, ...)`` on the runs
  that do not draw it: its link value waits (in the address bar too, and unreported) until a run draws it.
- A value that no longer fits (a token the scenario lost, a step beyond the last one) is put back inside
  the range, or to the default, before the widget is drawn.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

import streamlit as st

import rlcore

from .format import cut_to, esc
from .i18n import t

PAGE = "inputs_page"          # the id of the page that ran last
DEFAULTS = "inputs_defaults"  # {page: {name: default}}, recorded where each input is declared
LINK = "inputs_link"          # link parameters no input has read yet, on the run that entered the page
UNFIT = "inputs_unfit"        # [(name, raw values)] link values that did not fit their input
DRAWN = "inputs_drawn"        # names of the inputs drawn on this run
KEEP = (PAGE, DEFAULTS)       # what Reset keeps of this module's state
SHOWN_IN_NOTICE = 4           # names a notice lists before it says "and N more"
LATER = "inputs_later"        # names of this page's inputs that this run does not draw yet (``later``)
WAITING = "inputs_waiting"    # their link values, kept for the run that draws them


def page_id(title: str) -> str:
    """A page's id from its title: "TD error and GAE" → "td_error_and_gae"."""
    return re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")


def enter(page: str) -> None:
    """Called once per run by ``page.setup``: note the page, and take its link if the page was just entered."""
    entering = st.session_state.get(PAGE) != page
    st.session_state[PAGE] = page
    st.session_state[DRAWN] = set()
    waiting = st.session_state.pop(WAITING, {})
    st.session_state[LINK] = {k: st.query_params.get_all(k) for k in st.query_params} if entering else waiting
    st.session_state[LATER] = set()
    st.session_state[UNFIT] = []


def key(name: str, page: str | None = None) -> str:
    """The session key of input ``name`` on ``page`` (the current page by default), e.g. "td_error_and_gae.lam"."""
    return f"{page or st.session_state.get(PAGE, '')}.{name}"


def value(name: str):
    """The current value of an input of this page (its recorded default before it was first drawn)."""
    return st.session_state.get(key(name), _recorded().get(name))


def _recorded(page: str | None = None) -> dict:
    return st.session_state.get(DEFAULTS, {}).get(page or st.session_state.get(PAGE, ""), {})


def take(name: str) -> list[str] | None:
    """The link's values for ``name``, a setting every page reads that is no input of its own (the language), on
    the run that entered the page (None otherwise, or when the link has none); taken, so it is not reported as
    unused."""
    return st.session_state.get(LINK, {}).pop(name, None)


def unfit(name: str, raw: list[str]) -> None:
    """Report a link value of ``take`` that did not fit, in the same notice as the inputs' own."""
    st.session_state.setdefault(UNFIT, []).append((name, raw))


def later(*names: str) -> None:
    """Inputs of this page that this run leaves out (drawn once the question is answered): a link value for one
    of them is neither dropped nor reported but waits, in the address bar too, for the run that draws it."""
    st.session_state.setdefault(LATER, set()).update(names)


def set_view(values: dict) -> None:
    """A preset (use as a button callback): the named inputs take the given values, every other input of the
    page goes back to its default, so a view never depends on what was clicked before."""
    st.session_state.pop(WAITING, None)  # a link's waiting value would undo the preset once drawn
    for name, default in {**_recorded(), **values}.items():
        st.session_state[key(name)] = values.get(name, default)


def recorded_defaults() -> dict:
    """Session key → default of every input drawn so far on any page (what Reset sets)."""
    return {key(name, page): default for page, names in st.session_state.get(DEFAULTS, {}).items()
            for name, default in names.items()}


# ---------------------------------------------------------------- the one place an input is declared
def _declare(name: str, default, *, read: Callable[[list[str]], object], fits: Callable[[object], bool],
             text: Callable[[object], list[str]], draw: Callable[[str], object], fix: Callable | None = None):
    """Record the default, take a fitting value from the link, repair a stale value, draw, write the link."""
    k = key(name)
    st.session_state.setdefault(DEFAULTS, {}).setdefault(st.session_state.get(PAGE, ""), {})[name] = default
    st.session_state.setdefault(DRAWN, set()).add(name)
    raw = st.session_state.get(LINK, {}).pop(name, None)
    if raw is None:  # a value that waited for this input (``later``): a panel's own rerun (a fragment) draws it
        raw = st.session_state.get(WAITING, {}).pop(name, None)  # without the page's ``enter``
    if raw is not None:
        try:
            parsed = read(raw)
            ok = fits(parsed)
        except (ValueError, TypeError, OverflowError):
            ok = False
        if ok:
            st.session_state[k] = parsed
        else:
            st.session_state.setdefault(UNFIT, []).append((name, raw))
    if k not in st.session_state:
        st.session_state[k] = default
    elif not fits(st.session_state[k]):  # e.g. a token the scenario no longer has
        st.session_state[k] = fix(st.session_state[k]) if fix else default
    shown = draw(k)
    want = [] if _same(shown, default) else text(shown)
    if st.query_params.get_all(name) != want:
        if want:
            st.query_params[name] = want
        elif name in st.query_params:
            del st.query_params[name]
    return shown


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
        except (TypeError, ValueError):
            return False
    return a == b


def _one(raw: list[str]) -> str:
    if len(raw) != 1:
        raise ValueError("a repeated parameter")
    return raw[0]


def _number(raw: list[str]) -> float:
    x = float(_one(raw).strip())
    if not math.isfinite(x):
        raise ValueError("not a finite number")
    return x


def _number_text(x) -> list[str]:
    return [str(int(x)) if isinstance(x, int) else format(float(x), ".10g")]


def _range(lo, hi, whole: bool):
    def fits(x) -> bool:
        return (isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and lo <= x <= hi
                and (not whole or float(x).is_integer()))

    def read(raw):
        x = _number(raw)
        return int(x) if whole and x.is_integer() else x

    def fix(x):
        x = min(max(x, lo), hi) if isinstance(x, (int, float)) and math.isfinite(x) else lo
        return round(x) if whole else x

    return read, fits, fix


def _where(where):
    return st if where is None else where


# ---------------------------------------------------------------- the widgets the pages use
def slider(label: str, lo, hi, default, step, *, key: str, help: str | None = None, where=None):
    """``st.slider`` bound to the link; whole numbers when ``lo``, ``hi``, ``default`` and ``step`` are ints."""
    whole = all(isinstance(x, int) for x in (lo, hi, default, step))
    read, fits, fix = _range(lo, hi, whole)
    return _declare(key, default, read=read, fits=fits, fix=fix, text=_number_text,
                    draw=lambda k: _where(where).slider(label, lo, hi, step=step, key=k, help=help,
                                                        persist_state="session"))


def number(label: str, lo, hi, default, *, key: str, step=1, help: str | None = None, where=None):
    """``st.number_input`` bound to the link: a whole number (a seed) when ``lo``, ``hi``, ``default`` and
    ``step`` are ints, a float otherwise."""
    whole = all(isinstance(x, int) for x in (lo, hi, default, step))
    read, fits, fix = _range(lo, hi, whole)
    return _declare(key, default, read=read, fits=fits, fix=fix, text=_number_text,
                    draw=lambda k: _where(where).number_input(label, lo, hi, step=step, key=k, help=help,
                                                              persist_state="session"))


def _choice(options: Sequence):
    options = list(options)

    def read(raw):
        text = _one(raw)
        for o in options:
            if str(o) == text:
                return o
        raise ValueError("not an option")

    return read, (lambda x: x in options), (lambda x: [str(x)])


def selectbox(label: str, options: Sequence, default, *, key: str, help: str | None = None, where=None,
              format_func=str):
    """``st.selectbox`` bound to the link (the parameter is the option's text; ``format_func`` only changes what
    the learner reads, e.g. an option in the page's language)."""
    read, fits, text = _choice(options)
    return _declare(key, default, read=read, fits=fits, text=text,
                    draw=lambda k: _where(where).selectbox(label, options, key=k, help=help,
                                                           format_func=format_func, persist_state="session"))


def named_selectbox(label: str, names: dict, default, *, key: str, help: str | None = None, where=None):
    """A ``selectbox`` over ``names`` ({id: name}, e.g. rlcore's algorithm ids and their names) that shows, and keeps
    in the link, each option's name, and returns the chosen id: a learner never reads a code's name."""
    picked = selectbox(label, list(names.values()), names[default], key=key, help=help, where=where)
    return next(i for i, name in names.items() if name == picked)


def select_slider(label: str, options: Sequence, default, *, key: str, help: str | None = None, where=None,
                  format_func=str):
    """``st.select_slider`` bound to the link."""
    read, fits, text = _choice(options)
    return _declare(key, default, read=read, fits=fits, text=text,
                    draw=lambda k: _where(where).select_slider(label, options=options, key=k, help=help,
                                                               format_func=format_func, persist_state="session"))


def segmented(label: str, options: Sequence, default, *, key: str, help: str | None = None, where=None,
              format_func=str):
    """``st.segmented_control`` with one selection, bound to the link; a cleared selection reads as the default
    (``format_func``: as for ``selectbox``)."""
    read, fits, text = _choice(options)
    value = _declare(key, default, read=read, fits=fits, text=text,
                     draw=lambda k: _where(where).segmented_control(label, options, key=k, help=help,
                                                                    format_func=format_func,
                                                                    persist_state="session"))
    return default if value is None else value


def radio(label: str, options: Sequence, default, *, key: str, horizontal: bool = False, help: str | None = None,
          where=None, format_func=str):
    """``st.radio`` bound to the link (``format_func``: as for ``selectbox``)."""
    read, fits, text = _choice(options)
    return _declare(key, default, read=read, fits=fits, text=text,
                    draw=lambda k: _where(where).radio(label, options, key=k, horizontal=horizontal, help=help,
                                                       format_func=format_func, persist_state="session"))


def multiselect(label: str, options: Sequence, default: list, *, key: str, max_selections: int,
                help: str | None = None, where=None, format_func=str):
    """``st.multiselect`` bound to the link (one repeated parameter per chosen option; ``format_func``: as for
    ``selectbox``). Its chips wrap onto more rows where they do not fit (in a column Streamlit would otherwise
    keep one row and cut the last chip)."""
    options = list(options)

    def fits(x) -> bool:
        return isinstance(x, list) and len(x) <= max_selections and len(set(x)) == len(x) and set(x) <= set(options)

    def read(raw):
        return [next(o for o in options if str(o) == r) for r in raw]  # StopIteration: not an option

    def safe_read(raw):
        try:
            return read(raw)
        except StopIteration:
            raise ValueError("not an option") from None

    return _declare(key, list(default), read=safe_read, fits=fits, text=lambda x: [str(o) for o in x],
                    draw=lambda k: _where(where).multiselect(label, options, key=k, max_selections=max_selections,
                                                             help=help, format_func=format_func,
                                                             persist_state="session", wrap=True))


def toggle(label: str, default: bool, *, key: str, help: str | None = None, where=None):
    """``st.toggle`` bound to the link (``true`` or ``false``)."""
    def read(raw):
        text = _one(raw).strip().lower()
        if text not in ("true", "false"):
            raise ValueError("not true or false")
        return text == "true"

    return _declare(key, default, read=read, fits=lambda x: isinstance(x, bool), text=lambda x: [str(x).lower()],
                    draw=lambda k: _where(where).toggle(label, key=k, help=help, persist_state="session"))


def text_input(label: str, default: str, *, key: str, max_chars: int, help: str | None = None, where=None):
    """``st.text_input`` bound to the link, holding at most ``max_chars`` characters as the browser counts them (an
    emoji counts as two). Longer text, typed or pasted, is cut to what fits (``ui.format.cut_to``) when it arrives:
    Streamlit's own ``max_chars`` is checked in the browser, which drops a change that is too long whole (a pasted
    answer one character too long left the field as it was), so the input has none."""
    return _declare(key, default, read=_one,
                    fits=lambda x: isinstance(x, str) and rlcore.browser_length(x) <= max_chars, text=lambda x: [x],
                    fix=lambda x: cut_to(x, max_chars) if isinstance(x, str) else default,
                    draw=lambda k: _where(where).text_input(label, key=k, help=help, persist_state="session"))


# ---------------------------------------------------------------- the end of the page: what the link did
def report_link(*, keep: Sequence[str] = ()) -> None:
    """After the page's last input: one notice for link values that did not fit, and for parameters no input
    read; and the link cleared, in one update of the address bar, of every
    parameter no input on this page drew (``keep`` names others' params) but those of inputs drawn ``later``."""
    unfit = st.session_state.pop(UNFIT, [])
    left = st.session_state.pop(LINK, {})
    drawn = st.session_state.get(DRAWN, set())
    waits = st.session_state.get(LATER, set()) - drawn  # inputs behind the question: their link values wait
    st.session_state[WAITING] = {k: v for k, v in left.items() if k in waits}
    keep = (*keep, *waits)
    unused = [k for k in left if k not in keep]
    for message in notices(unfit, unused):
        st.toast(message, icon="🔗")
    stale = {k for k in st.query_params if k not in drawn and k not in keep}
    if stale:  # one message, however many: deleting them one by one sends the whole query string each time
        st.query_params.from_dict({k: st.query_params.get_all(k) for k in st.query_params if k not in stale})


def notices(unfit: list[tuple[str, list[str]]], unused: list[str]) -> list[str]:
    """At most two sentences about a link: its values that did not fit, and its parameters nothing used."""
    out = []
    if len(unfit) == 1:
        (name, raw), = unfit
        out.append(t("link.unfit_one", value=_shown(raw), name=esc(name[:40])))
    elif unfit:
        out.append(_listed("unfit", [t("link.unfit_item", name=esc(n[:40]), value=_shown(r)) for n, r in unfit]))
    if len(unused) == 1:
        out.append(t("link.unused_one", name=esc(unused[0][:40])))
    elif unused:
        out.append(_listed("unused", [t("link.unused_item", name=esc(n[:40])) for n in unused]))
    return out


def _listed(kind: str, items: list[str]) -> str:
    """The notice about several values or parameters: the first ``SHOWN_IN_NOTICE``, and how many more."""
    listed = t("link.separator").join(items[:SHOWN_IN_NOTICE])
    more = len(items) - SHOWN_IN_NOTICE
    if more > 0:
        return t(f"link.{kind}_many_more", n=len(items), listed=listed, more=more)
    return t(f"link.{kind}_many", n=len(items), listed=listed)


def _shown(raw: list[str]) -> str:
    """Link text is visitor text: shortened and shown literally."""
    return esc(", ".join(v[:40] for v in raw)[:80])
