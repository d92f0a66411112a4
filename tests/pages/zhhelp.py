"""Helpers for the Chinese page tests (tests/pages/test_zh_<N>.py): every text a page shows, read with the word
finder of tests/ui/test_i18n.py."""

from __future__ import annotations

import re

import pytest

import rlcore
from tests.apphelp import charts, run_page
from tests.words import chrome, english_words, prose


def chart_words(spec: dict) -> list[str]:
    """A spec's titles, subtitles and axis / legend titles (not its field names or tooltips)."""
    out = []
    title = spec.get("title")
    if isinstance(title, dict):
        out += [title.get("text", ""), title.get("subtitle", "")]
    elif title:
        out.append(title)
    for channel in ("x", "y", "color", "strokeDash"):
        enc = spec.get("encoding", {}).get(channel, {})
        out += [enc.get("title") or "", (enc.get("legend") or {}).get("title") or ""]
    for key in ("layer", "vconcat", "hconcat", "concat"):  # layers, and the panels of ui.charts.facets
        for sub in spec.get(key, []):
            out += chart_words(sub)
    if isinstance(spec.get("spec"), dict):  # a faceted chart's inner view
        out += chart_words(spec["spec"])
    flat = []
    for w in out:  # a wrapped subtitle is a list of lines (ui.format.wrap)
        flat += w if isinstance(w, list) else [w]
    return [w for w in flat if isinstance(w, str)]


def shown_text(at) -> list[str]:
    """Everything a learner reads on the page: the shared chrome, the prose, metrics, expanders, buttons' help,
    the choices of radios, select boxes and segmented controls, charts' titles and text alternatives."""
    texts = chrome(at.main) + chrome(at.sidebar) + prose(at.main) + prose(at.sidebar)
    texts += [m.label for m in at.metric] + [m.proto.help for m in at.metric] + [e.label for e in at.expander]
    texts += [b.proto.help for b in at.button]  # the shared chrome reads buttons' labels only
    # the page's own choices (the sidebar's language switch names each language in its own)
    texts += [o for kind in ("radio", "selectbox", "segmented_control") for w in at.main.get(kind) for o in w.options]
    for c in charts(at):
        texts += [*chart_words(c["spec"]), c["alt"]]
    return texts


def without_addresses(text: str) -> str:
    """A text without its markdown links' addresses ("[标题](/Some_page)" → "[标题]"): an address is not prose."""
    return re.sub(r"\]\([^)\s]*\)", "]", text)


def english_left(at, terms=frozenset(), scn: rlcore.Scenario = rlcore.ARTICLE_SCENARIO) -> list[str]:
    """English words left outside ``terms``, once the scenario's text and the words of the answers the pages
    write from it (the learner's data, split into tokens) are taken out."""
    answers = [w for tok in scn.tokens for w in rlcore.answer_trace(scn, tok, 1.0).tokens]
    words = sorted({w for tok in answers for w in re.findall(r"[A-Za-z]{2,}", tok)}, key=len, reverse=True)
    texts = [re.sub(r"\b(?:" + "|".join(words) + r")\b", " ", text.replace(scn.prompt, " "))
             for text in map(without_addresses, shown_text(at))]
    return [w for w in english_words(texts, scn) if w not in terms]


def chinese_views(page, terms=frozenset(), **run):
    """The page with ``?lang=zh``: what its default view shows (the English words left outside ``terms``, the
    number of texts, the notices), then the AppTest after "Just show me"."""
    at = run_page(page, query={"lang": "zh"}, **run)
    default = {"words": english_left(at, terms), "count": len(shown_text(at)), "info": [i.value for i in at.info]}
    next(b for b in at.button if (b.key or "").endswith("_show")).click().run()
    return default, at


def views_of(page, terms=frozenset()):
    """A module fixture ``views`` of ``chinese_views(page, terms)``: ``views = views_of(PAGE, TERMS)``."""
    return pytest.fixture(scope="module", name="views")(lambda: chinese_views(page, terms))


def assert_chinese(default: dict, at, terms=frozenset()) -> None:
    """Both views of ``chinese_views``: many texts, no English word left outside ``terms``, and no notice that
    the page is not translated."""
    assert default["count"] > 20 and default["words"] == [], default["words"]
    assert len(shown_text(at)) > 30 and english_left(at, terms) == [], english_left(at, terms)
