"""Glossary: every term and symbol of the explorer, one or two sentences each, with the page that explores it (its
text is the catalogue's ``[glossary]``, ``locales/*.toml``)."""

import streamlit as st

from ui import glossary, nav, page
from ui.format import esc
from ui.i18n import t

page.setup("glossary", scenario=False)

query = st.text_input(t("glossary.find"), key="find", placeholder=t("glossary.find_placeholder"),
                      help=t("glossary.find_help"))
needle = query.strip().lower()
# the English names, symbols and definitions always match (a learner may search the term of a paper), and the
# page's language's too
shown = [e for e in glossary.TERMS if not needle or needle in " ".join(
    (e.name, *e.aliases, e.text, glossary.name(e), glossary.definition(e))).lower()]
if not shown:
    st.info(t("glossary.none", query=esc(query[:60])))

# an index of anchors first, so a learner can jump; the entries follow in the syllabus order
st.markdown("\u00a0· ".join(f"[{esc(glossary.name(e))}](#{e.anchor})" for e in shown))  # "·" stays with its term
for e in shown:
    heading = glossary.name(e)
    st.subheader(heading, anchor=e.anchor)
    st.markdown(glossary.definition(e))
    symbols = [a for a in e.aliases if a.lower() not in heading.lower()]
    if symbols:
        st.caption(t("glossary.also", names=t("glossary.also_separator").join(symbols)))
    if e.page:  # a link to the page that teaches it
        where = nav.info(e.page)
        nav.link(st, where, t("glossary.explored", title=nav.title(where)), where.icon)

page.end()
