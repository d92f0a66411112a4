"""The glossary: every term learners asked about has an entry, symbols find it, and the page lists them."""

import re

import pytest

import rlcore
from rlcore import clips, mismatch, recipes
from tests.apphelp import ALL_PAGES, GLOSSARY, charts, page_file, reveal, run_page, spec_items
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


@pytest.mark.every_page
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
    headings = {h.value for h in at.subheader}
    assert headings == {t.name for t in glossary.TERMS}
    assert at.subheader[0].proto.anchor == glossary.TERMS[0].anchor
    at.text_input(key="find").set_value("leave-one-out").run()
    assert [h.value for h in at.subheader] == ["RLOO"]


# ---------------------------------------------------------------- what the pages show, against the glossary
def _titles(node, out: list) -> None:
    """Every title, subtitle line and axis or legend title in a Vega-Lite spec."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("title", "subtitle", "text") and isinstance(v, str):
                out.append(v)
            elif k in ("title", "subtitle") and isinstance(v, list):
                out += [x for x in v if isinstance(x, str)]
            else:
                _titles(v, out)
    elif isinstance(node, list):
        for v in node:
            _titles(v, out)


def _color_fields(spec) -> set:
    """The fields a Vega-Lite spec colours by."""
    return {v["encoding"]["color"]["field"] for _, v in spec_items({"": spec}, skip=())
            if isinstance(v, dict) and isinstance(v.get("encoding"), dict)
            and isinstance(v["encoding"].get("color"), dict) and "field" in v["encoding"]["color"]}


@pytest.fixture(scope="module")
def shown():
    """Per page (after "Just show me"): its legend entries and metric labels, and every label it shows: those,
    its headings, and its charts' titles, subtitles and axis titles."""
    out = {}
    for path in ALL_PAGES[1:]:  # the concept pages (home only points to them)
        at = reveal(path, None) or run_page(path)
        legend, labels = [m.label for m in at.metric], [h.value for h in (*at.title, *at.header, *at.subheader)]
        for c in charts(at):
            _titles(c["spec"], labels)
            fields = _color_fields(c["spec"])
            legend += sorted({str(v) for df in c["data"].values() for f in fields if f in df.columns
                              for v in df[f].unique()})
        out[nav.path_of(str(path))] = {"legend": legend, "labels": labels + legend}
    return out


def uses(texts: list[str], term: glossary.Term) -> int:
    """How often ``texts`` name the term (its name, a symbol such as ρ, or an alias of two letters or more: not
    a one-letter name such as "a" or "A", which every text has; as a whole word)."""
    names = [k for k in (term.name, *term.aliases) if len(k) >= 2 or not k.isascii()]
    return sum(len(re.findall(r"(?<![\w-])" + re.escape(k) + r"(?![\w-])", t)) for t in texts for k in names)


CATALOGUES = {*rlcore.AGGREGATION_MODES, *(r.name for r in recipes.RECIPES), *rlcore.ALGORITHM_NAMES.values(),
              *mismatch.METHODS, *clips.CLIP_METHODS}  # the names of methods rlcore offers the pages


@pytest.mark.every_page
def test_every_method_a_legend_or_metric_names_has_an_entry(shown):
    named = set()
    for page_shown in shown.values():
        for entry in page_shown["legend"]:
            named |= {part.strip() for part in re.split(r" · |, |\(|\)", entry)} & CATALOGUES
    assert {"token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "GRPO", "truncate"} <= named  # found some
    missing = sorted(n for n in named if not _has(n))
    assert not missing, f"named in a legend or metric with no glossary entry: {missing}"


def _has(name: str) -> bool:
    try:
        glossary.lookup(name)
    except KeyError:
        return False
    return True


@pytest.mark.every_page
def test_every_entry_links_the_page_that_introduces_it_or_uses_it_most(shown):
    """The linked page names the term in its labels, and either introduces it (no page before it, in reading
    order, names it more often) or names it at least half as often as the page that names it most."""
    assert not (found := glossary_order(shown)), "\n".join(found)


def glossary_order(shown) -> list[str]:
    """What breaks the rule above, one line per page, naming the page, the term and the fix. ``shown``: as the
    fixture's, {page: {"labels": [...]}}, the pages in reading order."""
    order, found = list(shown), []
    for t in glossary.TERMS:
        counts = {p: uses(shown[p]["labels"], t) for p in order}
        named = [p for p in order if counts[p]]
        if not named:
            continue
        if t.page is None:
            found.append(f"“{t.name}”: {', '.join(named)} name it, and its entry in ui/glossary.py links no page: give "
                         "it the page that introduces it")
            continue
        here = counts.get(t.page, 0)
        before = order[:order.index(t.page)] if t.page in order else []
        if not here:
            found.append(f"“{t.name}”: its Glossary entry links {t.page}, which never names it in a heading, chart "
                         f"title, legend or metric; {', '.join(named)} do")
        elif any(counts[p] > here for p in before) and 2 * here < max(counts.values()):
            found += [f"{p} names “{t.name}” {counts[p]} times in its headings, chart titles, legends and metrics, "
                      f"before {t.page}, which introduces it (ui/glossary.py). Fix: on {p}, name it in those labels no "
                      f"more often than {t.page} does ({here}; prose is not counted), or number {p} after {t.page}"
                      for p in before if counts[p] > here]
    return found


def test_the_order_check_names_the_page_the_term_and_the_fix():
    """It could fail: a page before page 4 that names the baseline in more labels than page 4 does is reported."""
    early = {"pages/1_Early.py": {"labels": ["baseline b"] * 9}}
    (line,) = glossary_order(early | {"pages/4_Baseline_and_variance.py": {"labels": ["baseline b"]}})
    assert line.startswith(f"pages/1_Early.py names “{glossary.lookup('b').name}” 9 times") and "does (1;" in line, line


def test_the_modern_terms_link_their_pages():
    # the ones the learner in issue #22 met first elsewhere
    assert glossary.lookup("token-mean").page == "pages/10_Length_and_aggregation.py"
    assert glossary.lookup("pass@k").page == "pages/15_Entropy_and_pass_at_k.py"
    for name in ("clip-higher", "dynamic sampling", "truncated importance sampling", "masked importance sampling",
                 "forward KL", "reverse KL", "seq-mean-token-mean", "seq-mean-token-sum", "seq-mean-token-sum-norm",
                 "DAPO", "GSPO", "CISPO"):
        assert glossary.lookup(name).page, name


def test_the_glossary_page_links_each_entry_to_its_page():
    at = run_page(GLOSSARY)
    linked = [m.value for m in at.markdown if "Explored on" in m.value]  # a link drawn as text in AppTest
    assert len(linked) == sum(1 for t in glossary.TERMS if t.page)
    assert any("Explored on “Length and aggregation”" in m for m in linked)


@pytest.mark.parametrize(("name", "page"), [("best-of-n", "17_"), ("√KL", "17_"), ("proxy", "17_"), ("gold", "17_"),
                                            ("online DPO", "18_"), ("likelihood displacement", "18_")])
def test_the_terms_of_gao_and_dpo_on_sequences_link_their_pages(name, page):
    """Issue #32's terms: over-optimisation as Gao et al. measured it (page 17), DPO beyond the toy (page 18)."""
    entry = glossary.lookup(name)
    assert entry.page == nav.path_of(str(page_file(page))) and 40 < len(entry.text) < 400
