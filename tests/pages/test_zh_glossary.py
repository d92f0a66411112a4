"""The Glossary in Simplified Chinese: every heading names the term in Chinese with the English term beside it,
every definition is Chinese, the search finds Chinese and English words, the links keep their anchors; the
tooltips other pages take from the glossary, and the play control's buttons, follow the language."""

import re

from tests.apphelp import GLOSSARY, ROOT, page_file, run_page
from tests.words import chrome, english_words, prose  # the shared word finder, from tests/ui
from ui import glossary, i18n

CJK = re.compile(r"[\u4e00-\u9fff]")
ZH = {"lang": "zh"}
LAB = page_file("9_")
# English words the Chinese Glossary shows on purpose (keep_english in [glossary] of locales/zh.toml): the English
# terms beside the Chinese ones (their lookup names, the aliases, are taken out before the search, as the scenario's
# tokens are), the spelled-out names of the acronyms, the functions of the formulas, authors' and models' names
TERMS_EN = i18n.kept_english("glossary")


def latin(*texts: str) -> set[str]:
    """The Latin-letter words of ``texts``, lower-cased."""
    return {w.lower() for text in texts for w in re.findall(r"[A-Za-z]{2,}", text)}


def left_in(texts: list[str]) -> list[str]:
    """The English words in ``texts`` once the links' anchors, Markdown's escapes and every entry's aliases (of two
    characters or more, as whole words) are taken out, and outside ``TERMS_EN``."""
    aliases = sorted({a for e in glossary.TERMS for a in e.aliases if len(a) >= 2}, key=len, reverse=True)
    out = []
    for text in texts:
        text = re.sub(r"\]\(#[a-z0-9-]+\)", "]", text).replace("\\", "")
        for a in aliases:
            text = re.sub(r"(?<![A-Za-z])" + re.escape(a) + r"(?![A-Za-z])", " ", text)
        out.append(text)
    return [w for w in english_words(out) if w not in TERMS_EN]


def test_the_glossary_in_chinese_has_no_english_left_but_the_terms():
    at = run_page(GLOSSARY, query=ZH)
    assert not at.info, "translated: no 'not translated yet' notice"
    heads = at.subheader
    assert [h.proto.anchor for h in heads] == [e.anchor for e in glossary.TERMS], "the anchors links point to"
    assert all(CJK.search(h.value) for h in heads), [h.value for h in heads if not CJK.search(h.value)]
    # the English term beside the Chinese one: the English heading's words, or one of the entry's aliases
    for h, e in zip(heads, glossary.TERMS, strict=True):
        assert latin(e.name, *e.aliases) & latin(h.value), (h.value, e.name)
    written = {i18n.text("zh", f"glossary.terms.{e.anchor}.text") for e in glossary.TERMS}
    definitions = [m.value for m in at.markdown if m.value in written]
    assert len(definitions) == len(glossary.TERMS) and all(CJK.search(d) for d in definitions)
    shown = chrome(at.main) + prose(at.main) + chrome(at.sidebar) + prose(at.sidebar)
    assert len(shown) > 100 and left_in(shown) == [], left_in(shown)


def test_the_same_finder_reports_the_english_glossary():
    """The check above could fail: on the English page the same finder reports the definitions' words."""
    at = run_page(GLOSSARY)
    words = set(left_in(prose(at.main)))
    assert {"model", "token", "answer", "the"} <= words


def test_the_search_finds_chinese_and_english_words_and_echoes_the_query():
    at = run_page(GLOSSARY, query=ZH)
    rloo = i18n.text("zh", "glossary.terms.rloo.name")
    for needle in ("留一法", "leave-one-out"):  # a Chinese word of the entry, and an English one of its alias
        at.text_input(key="find").set_value(needle).run()
        assert [h.value for h in at.subheader] == [rloo], needle
    at.text_input(key="find").set_value("优势").run()
    assert "advantage" in [h.proto.anchor for h in at.subheader]
    at.text_input(key="find").set_value("zzq").run()
    assert [i.value for i in at.info] == ["没有哪个条目提到“zzq”。"] and not at.subheader


def test_each_entry_links_its_page_by_its_chinese_title():
    at = run_page(GLOSSARY, query=ZH)
    linked = [m.value for m in at.markdown if "一页里动手看看" in m.value]  # a link drawn as text in AppTest
    assert len(linked) == sum(1 for e in glossary.TERMS if e.page)
    assert any(m.endswith("在“长度与聚合”一页里动手看看") for m in linked)
    assert not any("Explored" in m for m in linked)


def test_the_tooltips_other_pages_take_from_the_glossary_follow_the_language():
    path = ROOT / "pages" / "2_Reward_and_return.py"
    (zh,) = [s.help for s in run_page(path, query=ZH).slider if s.help and "γ" in s.help]
    (en,) = [s.help for s in run_page(path).slider if s.help and "γ" in s.help]
    assert zh.startswith("**折扣因子（discount factor）γ**：") and CJK.search(zh.split("：", 1)[1])
    assert en.startswith("**Discount γ**: ") and not CJK.search(en)
    assert glossary.term("γ") == en, "outside a page run, English"


def _lab_shown(query=None):
    at = run_page(LAB, query=query)
    next(b for b in at.button if (b.key or "").endswith("_show")).click().run()
    return at, {b.key: b for b in at.button if b.key in ("lab_play", "lab_step")}


def test_the_play_control_speaks_chinese_with_the_pages_step_count():
    (_, en), (at, zh) = _lab_shown(), _lab_shown(ZH)
    assert (en["lab_play"].label, en["lab_step"].label) == ("Play", "Step")
    assert (zh["lab_play"].label, zh["lab_play"].help, zh["lab_step"].label) == ("播放", "一步一步地看", "单步")
    steps = re.fullmatch(r"(\d+) steps further, then pause", en["lab_step"].help).group(1)  # the lab's frame
    assert zh["lab_step"].help == f"前进 {steps} 步，然后暂停"
    at.button(key="lab_play").click().run()
    assert at.button(key="lab_pause").label == "暂停"
