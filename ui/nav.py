"""The map of the explorer: every page in reading order, with the title and icon a learner sees.

This is the one place a page's title, icon and id live: ``ui.page.setup`` takes them from here (found from
the calling file's path), and every list of pages (sidebar, footer, tests, benchmarks) is read from ``PAGES``.

Streamlit's own page list is switched off (``[client] showSidebarNavigation = false``): it would show
the file names. Every page draws ``sidebar`` (through ``ui.page.setup``) and ends with ``footer``.
"""

from __future__ import annotations

import pathlib
from typing import NamedTuple

import streamlit as st
from streamlit.errors import StreamlitAPIException

from . import i18n
from .i18n import t

APP_DIR = pathlib.Path(__file__).resolve().parent.parent  # where dashboard.py lives


class PageInfo(NamedTuple):
    path: str          # relative to the app's folder, as st.page_link and st.switch_page want it
    title: str         # the page's id (its inputs' keys) and its English title; ``title()`` is what is shown
    icon: str          # a Material icon, drawn without an emoji font
    heading: str = ""  # the page's heading when it is not the title (home: "Home" in links only)


HOME = PageInfo("dashboard.py", "Home", ":material/home:", "RL for LLMs, one token at a time")
PAGES = (
    HOME,
    PageInfo("pages/1_Loop_state_action.py", "Loop, state and action", ":material/autorenew:"),
    PageInfo("pages/2_Reward_and_return.py", "Reward and return", ":material/flag:"),
    PageInfo("pages/3_Value_Q_advantage.py", "Value, Q and advantage", ":material/bar_chart:"),
    PageInfo("pages/4_Baseline_and_variance.py", "Baseline and variance", ":material/ssid_chart:"),
    PageInfo("pages/5_TD_error_and_GAE.py", "TD error and GAE", ":material/functions:"),
    PageInfo("pages/6_Policy_gradient.py", "Policy gradient", ":material/trending_up:"),
    PageInfo("pages/7_Exploration.py", "Exploration", ":material/travel_explore:"),
    PageInfo("pages/8_Ratio_and_clipping.py", "Ratio and clipping", ":material/compress:"),
    PageInfo("pages/8_KL_penalty.py", "KL penalty", ":material/anchor:"),
    PageInfo("pages/9_Training_lab.py", "Training lab", ":material/science:"),
    PageInfo("pages/10_Length_and_aggregation.py", "Length and aggregation", ":material/straighten:"),
    PageInfo("pages/11_Clips_after_PPO.py", "Clips after PPO", ":material/content_cut:"),
    PageInfo("pages/12_Recipe_composer.py", "Recipe composer", ":material/tune:"),
    PageInfo("pages/13_KL_gradients.py", "KL gradients", ":material/explore:"),
    PageInfo("pages/14_Sampler_and_trainer.py", "Sampler and trainer", ":material/call_split:"),
    PageInfo("pages/15_Entropy_and_pass_at_k.py", "Entropy and pass@k", ":material/target:"),
    PageInfo("pages/16_Reward_model.py", "A reward model from comparisons", ":material/thumbs_up_down:"),
    PageInfo("pages/17_Over_optimisation.py", "Over-optimisation", ":material/trending_down:"),
    PageInfo("pages/18_DPO.py", "DPO, without a reward model", ":material/shortcut:"),
    PageInfo("pages/19_R1_Zero_in_miniature.py", "R1-Zero in miniature", ":material/school:"),
    PageInfo("pages/20_Glossary.py", "Glossary", ":material/menu_book:"),
)


def info(path: str) -> PageInfo:
    """The entry of the page at ``path`` (e.g. "pages/5_TD_error_and_GAE.py")."""
    for p in PAGES:
        if p.path == path:
            return p
    raise KeyError(path)


def title(page: PageInfo) -> str:
    """The page's title in the current language (``locales/*.toml``, ``[nav.titles]``); a page added to the map
    but not yet to the catalogue shows its English title (``tests/ui/test_i18n.py`` asks every page for one)."""
    msgid = f"nav.titles.{page.title}"
    return t(msgid) if msgid in i18n.catalogue(i18n.current()) else page.title


def heading(page: PageInfo) -> str:
    """The page's heading in the current language: its title, unless ``[nav.headings]`` gives it another."""
    return t(f"nav.headings.{page.title}") if page.heading else title(page)


def path_of(filename: str) -> str | None:
    """The map's path for a page file given as any path (e.g. a script's ``__file__``), or None."""
    path = pathlib.Path(filename)
    try:
        rel = (path if path.is_absolute() else APP_DIR / path).resolve().relative_to(APP_DIR).as_posix()
    except ValueError:
        return None
    return rel if any(p.path == rel for p in PAGES) else None


def _link(where, page: PageInfo, label: str, icon: str) -> None:
    """A link to ``page``; as plain text where Streamlit cannot resolve it: a page run alone as the app's
    entry point (AppTest), whose neighbours Streamlit looks for relative to the page itself."""
    try:
        where.page_link(page.path, label=label, icon=icon)
    except StreamlitAPIException:
        where.markdown(f"{icon} {label}")


def sidebar(current_path: str | None) -> None:
    """The language switch, then every page's link in the sidebar, by title and icon; the current one is marked
    "you are here"."""
    with st.sidebar:
        i18n.switch()
        st.markdown(t("nav.pages"))
        for p in PAGES:
            here = p.path == current_path
            # Streamlit highlights the current page's link; the bold label marks it without colour too
            _link(st, p, f"**{title(p)}**" if here else title(p), p.icon)
        st.divider()


def neighbours(current_path: str) -> tuple[PageInfo | None, PageInfo | None]:
    """The pages before and after ``current_path`` in reading order (None at either end)."""
    i = PAGES.index(info(current_path))
    return (PAGES[i - 1] if i > 0 else None), (PAGES[i + 1] if i + 1 < len(PAGES) else None)


def footer(current_path: str) -> None:
    """Links to the previous and the next page, at the bottom of a page.

    ``current_path`` is the map's path or the page's ``__file__``; every page ends with
    ``page.end()``, which calls this.
    """
    before, after = neighbours(path_of(current_path) or current_path)
    st.divider()
    left, right = st.columns(2)
    if before is not None:
        _link(left, before, t("nav.previous", title=title(before)), ":material/arrow_back:")
    if after is not None:
        _link(right, after, t("nav.next", title=title(after)), ":material/arrow_forward:")


def url_path(path: str) -> str:
    """The address Streamlit gives a page file: its stem without the number prefix ("" for home).

    >>> url_path("pages/1_Loop_state_action.py"), url_path("dashboard.py")
    ('Loop_state_action', '')
    """
    stem = pathlib.Path(path).stem
    return "" if path == HOME.path else stem.split("_", 1)[1]
