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
- **Pages not translated yet** (every page not in ``TRANSLATED``) keep their own English prose; in Chinese the
  chrome around them (titles, navigation, buttons, notices) follows the language and a notice at the top says
  the page's text is not translated yet.
"""

from __future__ import annotations

import functools
import pathlib
import tomllib

import streamlit as st

LOCALES = pathlib.Path(__file__).resolve().parent.parent / "locales"
LANGS = {"en": "English", "zh": "中文"}  # code → its name in its own language (the switch's options)
DEFAULT = "en"
KEY = "lang"  # the link parameter, and the session key of the language
SWITCH = "lang_switch"  # the session key of the sidebar's switch
TRANSLATED = (  # the pages (nav paths) whose own text is in the catalogue, one a line
    "dashboard.py",
    "pages/1_Loop_state_action.py",
    "pages/2_Reward_and_return.py",
    "pages/3_Value_Q_advantage.py",
    "pages/4_Baseline_and_variance.py",
    "pages/5_TD_error_and_GAE.py",
    "pages/6_Policy_gradient.py",
    "pages/7_Exploration.py",
    "pages/8_KL_penalty.py",
    "pages/8_Ratio_and_clipping.py",
    "pages/9_Training_lab.py",
    "pages/10_Length_and_aggregation.py",
    "pages/11_Clips_after_PPO.py",
    "pages/12_Recipe_composer.py",
    "pages/13_KL_gradients.py",
    "pages/14_Sampler_and_trainer.py",
    "pages/15_Entropy_and_pass_at_k.py",
    "pages/16_Reward_model.py",
    "pages/17_Over_optimisation.py",
    "pages/18_DPO.py",
    "pages/20_Glossary.py",
)


@functools.cache
def catalogue(lang: str) -> dict:
    """Every entry of ``locales/<lang>.toml``, by its dotted id ("predict.right" → text, or {one, other}).
    ``lang`` is one of ``LANGS`` (a link's value is checked by ``read`` first)."""
    if lang not in LANGS:
        raise KeyError(lang)
    return _flat(tomllib.loads((LOCALES / f"{lang}.toml").read_text(encoding="utf-8")))


def _flat(table: dict, prefix: str = "") -> dict:
    out = {}
    for name, entry in table.items():
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
    return entry.format(**values)


def current() -> str:
    """The language of this run ("en" outside a page run, where the session and the link are empty). Before
    ``start`` settled it on a session's first run (a page's intro is looked up before ``page.setup`` runs), what
    ``start`` will settle: the link's, else the browser's."""
    lang = st.session_state.get(KEY)
    if lang in LANGS:
        return lang
    if KEY not in st.query_params:
        return from_locale(st.context.locale)
    try:
        return read(st.query_params.get_all(KEY))
    except ValueError:
        return DEFAULT


def t(msgid: str, **values) -> str:
    """The current language's text for ``msgid`` (see ``text``)."""
    return text(current(), msgid, **values)


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
