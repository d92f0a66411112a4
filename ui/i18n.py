"""The language of this run and the text the app shows in it: ``t("predict.right", answer=..., explanation=...)``.

- **Which language.** ``?lang=zh`` (or ``en``) in the link wins when a page is entered; a value that is neither
  falls back to English and is reported with the other link values that did not fit (``ui.inputs``). With no
  ``lang`` in the link, the session keeps the language it has; a new session takes the browser's
  (``st.context.locale``: ``zh…`` is Chinese, anything else or none, as under AppTest, English). The sidebar's
  switch (``switch``) changes it, and the link carries it from page to page (``link``), so a shared link opens
  in the sender's language.
- **The catalogue** is one TOML file per language, ``locales/en.toml`` and ``locales/zh.toml``, read with the
  standard library's ``tomllib``. TOML because a translator edits it as plain text, with no code around the
  sentences, no compile step and no new dependency (gettext ``.po`` would need Babel and a ``.mo`` build): one
  table per area (``[predict]``, ``[home]``), one whole sentence per entry, live values as named placeholders
  (``{answer}``), and where English needs a plural, a table ``{ one = "…", other = "…" }`` chosen by the
  placeholder ``n`` (Chinese writes one form, a plain string). A literal brace is written ``{{``.
- **A missing entry is a bug**: ``t`` raises ``KeyError`` (tests check that both files hold the same entries
  with the same placeholders), never shows the entry's id.
- **Error messages** stay English where they are raised (rlcore knows no language); ``error(err)`` shows one in
  the current language, read back against the English templates of the catalogue's ``[errors.*]`` tables (see
  below).
- **Every page is in both languages**: a new page is written with its text in the catalogue from the start.
- **A page's English words.** A page's table in ``zh.toml`` may hold ``keep_english``, a list of the Latin words
  its Chinese text shows on purpose (the English term glossed in brackets, authors' and methods' names); it is no
  text (``catalogue`` leaves it out, no page shows it): tests/pages/test_chinese.py reads it (``kept_english``).
"""

from __future__ import annotations

import functools
import pathlib
import re
import string
import tomllib

import streamlit as st

LOCALES = pathlib.Path(__file__).resolve().parent.parent / "locales"
LANGS = {"en": "English", "zh": "中文"}  # code → its name in its own language (the switch's options)
DEFAULT = "en"
KEY = "lang"  # the link parameter, and the session key of the language
SWITCH = "lang_switch"  # the session key of the sidebar's switch
KEEP = "keep_english"  # a page table's list of the English words its Chinese text may show (in zh.toml only)


@functools.cache
def catalogue(lang: str) -> dict:
    """Every entry of ``locales/<lang>.toml``, by its dotted id ("predict.right" → text, or {one, other}).
    ``lang`` is one of ``LANGS`` (a link's value is checked by ``read`` first)."""
    return _flat(tables(lang))


@functools.cache
def tables(lang: str) -> dict:
    """``locales/<lang>.toml`` as its tables, as written (``catalogue`` flattens them into text entries)."""
    if lang not in LANGS:
        raise KeyError(lang)
    return tomllib.loads((LOCALES / f"{lang}.toml").read_text(encoding="utf-8"))


def kept_english(table: str) -> set[str]:
    """The Latin words the Chinese page of catalogue table ``table`` shows on purpose (its ``keep_english``)."""
    return set(tables("zh").get(table, {}).get(KEEP, []))


def _flat(table: dict, prefix: str = "") -> dict:
    out = {}
    for name, entry in table.items():
        if name == KEEP:
            continue  # no text: a page's allow-list for the Chinese check
        if isinstance(entry, dict) and not is_plural(entry):
            out.update(_flat(entry, f"{prefix}{name}."))
        else:
            out[f"{prefix}{name}"] = entry
    return out


def is_plural(entry) -> bool:
    """Whether a catalogue entry is a plural table (``one`` and ``other``)."""
    return isinstance(entry, dict) and set(entry) == {"one", "other"}


def text(lang: str, msgid: str, **values) -> str:
    """The entry ``msgid`` of ``lang``'s catalogue with its placeholders filled; a plural entry picks its form
    by ``n``. Raises KeyError for an id the catalogue lacks."""
    entry = catalogue(lang)[msgid]
    if is_plural(entry):
        entry = entry["one" if values["n"] == 1 else "other"]
    text = entry.format(**values)
    # a full-width bracket carries its own space: "{algo} 训练" with algo "PPO（带价值头）" reads "PPO（带价值头）训练"
    return _AFTER_WIDE_BRACKET.sub(r"\1", text) if lang == "zh" else text


_AFTER_WIDE_BRACKET = re.compile(r"([（）]) +")


def listed(items) -> str:
    """Items joined as the current language lists them: "open, closed" in English, "open、closed" in Chinese."""
    return t("page.list_sep").join(items)


def current() -> str:
    """The language of this run, as ``page.setup`` settled it (``start``); "en" before that, or outside a page run.
    A page looks no text up before ``page.setup``: setup reads the page's intro and why itself."""
    lang = st.session_state.get(KEY)
    return lang if lang in LANGS else DEFAULT


def has(msgid: str) -> bool:
    """Whether the catalogue holds ``msgid`` (both languages hold the same ids: tests/ui/test_i18n.py)."""
    return msgid in catalogue(DEFAULT)


def t(msgid: str, **values) -> str:
    """The current language's text for ``msgid`` (see ``text``)."""
    return text(current(), msgid, **values)


def column(name) -> str:
    """A chart's field name as its data table's column is headed in the current language: the catalogue's
    ``[columns]`` entry for the English name (in English, the name itself); a name the table lacks (a symbol
    such as ``V`` or ``λ``, or one the page already wrote in its language) stays as it is. The chart keeps its
    field names: only the table and its CSV show these."""
    return catalogue(current()).get(f"columns.{name}", name)


def from_locale(locale: str | None) -> str:
    """The language a browser's locale asks for.

    >>> from_locale("zh-CN"), from_locale("zh-Hant-TW"), from_locale("en-GB"), from_locale(None)
    ('zh', 'zh', 'en', 'en')
    """
    return "zh" if (locale or "").lower().startswith("zh") else DEFAULT


def read(raw: list[str]) -> str:
    """A language from the link's ``lang`` values; ValueError for anything but one known code."""
    if len(raw) != 1 or raw[0].strip().lower() not in LANGS:
        raise ValueError("not a language of this app")
    return raw[0].strip().lower()


def start(from_link: list[str] | None) -> bool:
    """Called by ``page.setup`` after ``inputs.enter``: settle this run's language from the link's ``lang``
    values (``from_link``, None when the link has none or the page was not just entered), the session, or the
    browser's locale. Returns whether the link's value did not fit (``page.setup`` reports it)."""
    if from_link is not None:
        try:
            st.session_state[KEY] = read(from_link)
        except ValueError:
            st.session_state[KEY] = DEFAULT
            return True
    elif st.session_state.get(KEY) not in LANGS:
        st.session_state[KEY] = from_locale(st.context.locale)
    return False


def switch() -> None:
    """The sidebar's language switch (``English | 中文``); a change reruns the page in the other language.

    The language has its own session key, set from the switch only when the learner changes it: right after a
    change of page, Streamlit 1.67 can hand the new page's switch no value (seen in Chromium), which read as the
    language would have turned the rest of that page to the browser's."""
    st.session_state[SWITCH] = current()
    st.segmented_control(text(current(), "nav.language"), list(LANGS), key=SWITCH, format_func=LANGS.get,
                         required=True, on_change=_switched)


def _switched() -> None:
    chosen = st.session_state.get(SWITCH)
    if chosen in LANGS:
        st.session_state[KEY] = chosen


def link() -> None:
    """Keep the language in the link: always, but for English in a browser that asks for English anyway (so an
    English link stays as it was, and a Chinese reader's shared link opens in Chinese)."""
    lang = current()
    want = None if lang == DEFAULT == from_locale(st.context.locale) else lang
    if st.query_params.get(KEY) != want:
        if want is None:
            del st.query_params[KEY]
        else:
            st.query_params[KEY] = want


# ---------------------------------------------------------------- error messages
# rlcore stays English (it is pure numpy and knows no page), so its ValueError messages are translated where a
# page shows them. The catalogue's [errors.*] tables hold each message's shape as a template: the English
# entry is rlcore's f-string with its fields named ("{name} must be > 0, got {got}"), the Chinese entry the
# same sentence with the same placeholders. A message is read back against the English templates; the text
# each placeholder held (an argument's name, a value: code and numbers) goes into the Chinese one as written.
ERRORS = "errors."  # the templates' ids start with this and one more table: "errors.checks.positive"
UNMATCHED = "errors.unmatched"  # the lead sentence of a message no template reads
# a placeholder that holds an argument's name reads only a code name ("pi_ref", "samples[2]", "run.probs"),
# so that "level (the nucleus top_p) must be > 0" is not read as an argument "level (the nucleus top_p)"
_CODE_FIELDS = ("name", "name_a", "name_b", "name_c", "arg", "key", "cls")
_CODE = r"[A-Za-z_][\w.]*(?:\[\w+\])*"
MAX_READ = 2000


@functools.cache
def _templates() -> tuple[tuple[re.Pattern, str, int], ...]:
    """Each English template of ``[errors.*]`` as (regex of the whole message, id, length of its own text),
    the longest own text first: when two templates read a message, the more specific one is used."""
    out = []
    for msgid, entry in catalogue("en").items():
        if not msgid.startswith(ERRORS) or msgid == UNMATCHED:
            continue
        pattern, own = "", 0
        for literal, field_name, _, _ in string.Formatter().parse(entry):
            pattern += re.escape(literal)
            own += len(literal)
            if field_name is not None:
                pattern += f"(?P<{field_name}>{_CODE if field_name in _CODE_FIELDS else '.+?'})"
        out.append((re.compile(pattern, re.DOTALL), msgid, own))
    return tuple(sorted(out, key=lambda item: -item[2]))


def translated(lang: str, message: str, depth: int = 3) -> str | None:
    """``message`` in ``lang`` through the first template that reads all of it, else None. What a placeholder
    held is itself translated when a template reads it whole (a message quoting another, or rlcore's
    "a number with 401 digits"), else kept as written; ``depth`` levels at most (the scenario panel's deepest,
    "This is not valid JSON (Expecting value: line 1 …)", is three), so a message quoting itself over and over
    costs no more. A message longer than ``MAX_READ`` characters (rlcore's are short: its values are cut to 80)
    is not read."""
    if len(message) > MAX_READ:
        return None
    for pattern, msgid, _ in _templates():
        found = pattern.fullmatch(message)
        if found:
            values = {k: (depth > 1 and translated(lang, v, depth - 1)) or v for k, v in found.groupdict().items()}
            return text(lang, msgid, **values)
    return None


def error(err, lang: str | None = None) -> str:
    """A ValueError's message (or any exception's, or a text) in ``lang`` (the current language if None): as it
    is in English; in Chinese through the ``[errors.*]`` templates, or, if none reads it, a Chinese lead
    sentence quoting it. Never raises for a message it cannot read."""
    message = str(err)
    lang = lang or current()
    if lang == DEFAULT:
        return message
    return translated(lang, message) or text(lang, UNMATCHED, message=message)
