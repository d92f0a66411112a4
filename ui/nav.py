"""The map of the explorer: every page in reading order, with the title and icon a learner sees.

The map is read, not written: every script in ``pages/`` (and ``dashboard.py``, home) that calls
``page.setup("<table>")`` is a page, and its catalogue table (``locales/en.toml``'s ``[<table>]``) gives its
English title (``nav_title``, which is also the page's id: its inputs' keys), its Material icon (``nav_icon``)
and, for home, a heading (``nav_heading``); ``locales/zh.toml``'s table gives the Chinese title. Pages are read
in the order of their file's number (home first), and pages of one number in the order of their tables in
``en.toml``. So a new page is its file, its table in each catalogue, and its test: nothing to add here. A script
that calls no ``page.setup`` (an old address that forwards with ``st.switch_page``) is no page of the map.

``ui.page.setup`` takes the title and icon from here (found from the calling file's path), and every list of
pages (sidebar, footer, tests, benchmarks) is read from ``PAGES``. Streamlit's own page list is switched off
(``[client] showSidebarNavigation = false``): it would show the file names. Every page draws ``sidebar``
(through ``ui.page.setup``) and ends with ``footer``.
"""

from __future__ import annotations

import pathlib
import re
from typing import NamedTuple

import streamlit as st
from streamlit.errors import StreamlitAPIException

from . import i18n
from .i18n import t

APP_DIR = pathlib.Path(__file__).resolve().parent.parent  # where dashboard.py lives
HOME_PATH = "dashboard.py"
SETUP = re.compile(r"""page\.setup\(\s*["']([A-Za-z0-9_]+)["']""")  # how a page names its catalogue table


class PageInfo(NamedTuple):
    path: str          # relative to the app's folder, as st.page_link and st.switch_page want it
    title: str         # the page's id (its inputs' keys) and its English title; ``title()`` is what is shown
    icon: str          # a Material icon, drawn without an emoji font
    heading: str = ""  # the page's heading when it is not the title (home: "Home" in links only)
    table: str = ""    # its catalogue table ("p2"), which page.setup names


def read_map(app_dir: pathlib.Path = APP_DIR) -> tuple[PageInfo, ...]:
    """Every page of ``app_dir`` in reading order (see the module's docstring); a page whose table lacks a title
    or an icon is an error that names the table and the file."""
    en = i18n.catalogue(i18n.DEFAULT)
    order = {table: i for i, table in enumerate(dict.fromkeys(k.split(".", 1)[0] for k in en))}
    found = []
    for path in [app_dir / HOME_PATH, *sorted((app_dir / "pages").glob("*.py"))]:
        named = SETUP.search(path.read_text(encoding="utf-8"))
        if named is None:
            continue  # an old address that forwards, not a page
        table, rel = named.group(1), path.relative_to(app_dir).as_posix()
        missing = [k for k in ("nav_title", "nav_icon") if f"{table}.{k}" not in en]
        if missing:
            raise LookupError(f"{rel} names the catalogue table [{table}], which lacks {', '.join(missing)}: add "
                              f"them to [{table}] in locales/en.toml (and nav_title to locales/zh.toml)")
        number = 0 if rel == HOME_PATH else int(re.match(r"\d*", path.stem).group() or 10**6)
        entry = PageInfo(rel, en[f"{table}.nav_title"], en[f"{table}.nav_icon"], en.get(f"{table}.nav_heading", ""),
                         table)
        found.append(((number, order.get(table, len(order))), entry))
    return tuple(entry for _, entry in sorted(found, key=lambda item: item[0]))


PAGES = read_map()
HOME = PAGES[0]


def info(path: str) -> PageInfo:
    """The entry of the page at ``path`` (e.g. "pages/5_TD_error_and_GAE.py")."""
    for p in PAGES:
        if p.path == path:
            return p
    raise KeyError(path)


def title(page: PageInfo) -> str:
    """The page's title in the current language: its table's ``nav_title``."""
    return t(f"{page.table}.nav_title")


def heading(page: PageInfo) -> str:
    """The page's heading in the current language: its title, unless its table gives a ``nav_heading``."""
    return t(f"{page.table}.nav_heading") if page.heading else title(page)


def path_of(filename: str) -> str | None:
    """The map's path for a page file given as any path (e.g. a script's ``__file__``), or None."""
    path = pathlib.Path(filename)
    try:
        rel = (path if path.is_absolute() else APP_DIR / path).resolve().relative_to(APP_DIR).as_posix()
    except ValueError:
        return None
    return rel if any(p.path == rel for p in PAGES) else None


def link(where, page: PageInfo, label: str, icon: str) -> None:
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
            link(st, p, f"**{title(p)}**" if here else title(p), p.icon)
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
        link(left, before, t("nav.previous", title=title(before)), ":material/arrow_back:")
    if after is not None:
        link(right, after, t("nav.next", title=title(after)), ":material/arrow_forward:")


def url_path(path: str) -> str:
    """The address Streamlit gives a page file: its stem without the number prefix ("" for home).

    >>> url_path("pages/1_Loop_state_action.py"), url_path("dashboard.py")
    ('Loop_state_action', '')
    """
    stem = pathlib.Path(path).stem
    return "" if path == HOME_PATH else stem.split("_", 1)[1]
