"""The glossary: every term learners asked about has an entry, symbols find it, and the page lists them."""

import pytest
from apphelp import GLOSSARY, no_exception, run_page

from ui import glossary, nav

ASKED = ["logit", "softmax", "one-hot", "⊙", "ρ", "nats", "k1", "k2", "k3",
         "policy", "state", "action", "reward", "return", "V", "Q", "advantage", "baseline", "δ", "λ", "γ",
         "policy gradient", "temperature", "ratio", "ε", "KL", "β", "π_ref", "GRPO", "group", "RLOO",
         "Dr. GRPO", "entropy", "pass@k", "token-mean", "DAPO", "GSPO", "CISPO", "importance sampling"]


@pytest.mark.parametrize("key", ASKED)
def test_every_term_learners_asked_about_has_a_short_definition(key):
    text = glossary.term(key)
    assert 40 < len(text) < 400  # a tooltip: one or two sentences, not a paragraph


def test_symbols_find_the_right_entry():
    assert glossary.lookup("ρ").anchor == "ppo-ratio"
    assert glossary.lookup("A").anchor == "advantage" and glossary.lookup("a").anchor == "action"
    assert glossary.lookup("δ").anchor == "td-error"
    assert glossary.lookup("rho") is glossary.lookup("ρ")


def test_unknown_term_is_a_key_error():
    with pytest.raises(KeyError, match="no glossary entry"):
        glossary.term("not a term")


def test_anchors_unique_and_pages_exist():
    anchors = [t.anchor for t in glossary.TERMS]
    assert len(anchors) == len(set(anchors))
    for t in glossary.TERMS:
        if t.page:
            nav.info(t.page)  # KeyError if the page is not in the map


def test_no_symbol_means_two_things():
    seen = {}
    for t in glossary.TERMS:
        for key in (t.anchor, t.name, *t.aliases):
            assert seen.setdefault(key, t.anchor) == t.anchor, key


def test_glossary_page_lists_every_term_with_its_anchor_and_filters():
    at = run_page(GLOSSARY)
    no_exception(at)
    headings = {h.value for h in at.subheader}
    assert headings == {t.name for t in glossary.TERMS}
    assert at.subheader[0].proto.anchor == glossary.TERMS[0].anchor
    at.text_input(key="find").set_value("leave-one-out").run()
    assert [h.value for h in at.subheader] == ["RLOO"]
