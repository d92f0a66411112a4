"""Glossary: every term and symbol of the explorer, one or two sentences each, with the page that explores it."""

import streamlit as st

from ui import glossary, nav, page
from ui.format import esc

page.setup(
    "Every word and symbol the pages use, in one or two sentences. Each entry has its own link "
    "(copy it from the heading) and names the page where you can watch it move.",
    scenario=False,
)

query = st.text_input("Find a term", key="find", placeholder="e.g. advantage, ρ, k3",
                      help="Matches the name, its symbols and the definition")
needle = query.strip().lower()
shown = [t for t in glossary.TERMS
         if not needle or needle in " ".join((t.name, *t.aliases, t.text)).lower()]
if not shown:
    st.info(f"No entry mentions “{esc(query[:60])}”.")

# an index of anchors first, so a learner can jump; the entries follow in the syllabus order
st.markdown(" · ".join(f"[{esc(t.name)}](#{t.anchor})" for t in shown))
for t in shown:
    st.subheader(t.name, anchor=t.anchor)
    st.markdown(t.text)
    symbols = [a for a in t.aliases if a.lower() not in t.name.lower()]
    if symbols:
        st.caption("also: " + ", ".join(symbols))
    if t.page:  # a link to the page that teaches it
        where = nav.info(t.page)
        nav._link(st, where, f"Explored on “{where.title}”", where.icon)

page.end()
