"""Two languages: the catalogues agree entry by entry, the home page speaks Chinese with ``?lang=zh`` (every page,
its chrome and every view: tests/pages/test_chinese.py), and the language rides in the link, from page to page and
through the sidebar's switch."""

import re
import string

import pytest
from streamlit.testing.v1 import AppTest

import rlcore
from serve import line as lines
from tests.apphelp import ROOT, run_page
from tests.words import chrome, english_words, prose
from ui import i18n, nav, scenario

HOME = ROOT / "dashboard.py"
# the first concept page that asks a question (the tests below read its answer box and chart table)
CONCEPT = next(ROOT / p.path for p in nav.PAGES[1:] if "page.predict(" in (ROOT / p.path).read_text(encoding="utf-8"))


def fields(entry) -> list[set[str]]:
    """The placeholder names of each form of an entry (one form for a plain string)."""
    forms = [entry["one"], entry["other"]] if i18n.is_plural(entry) else [entry]
    out = []
    for form in forms:
        assert isinstance(form, str), form
        names = [name for _, name, _, _ in string.Formatter().parse(form) if name is not None]
        assert all(n.isidentifier() for n in names), f"only named placeholders: {form!r}"
        out.append(set(names))
    return out


@pytest.mark.every_page
def test_both_catalogues_hold_the_same_entries_with_the_same_placeholders():
    en, zh = i18n.catalogue("en"), i18n.catalogue("zh")
    en = {k: v for k, v in en.items() if not k.endswith(".nav_icon")}  # an icon is no text: in en.toml only
    assert set(en) == set(zh), f"only in one: {sorted(set(en) ^ set(zh))}"
    for msgid in en:
        en_forms, zh_forms = fields(en[msgid]), fields(zh[msgid])
        assert set().union(*en_forms) == set().union(*zh_forms), msgid
        for forms, entry in ((en_forms, en[msgid]), (zh_forms, zh[msgid])):
            if i18n.is_plural(entry):  # the count picks the form, and the general form shows it
                assert "n" in forms[1], msgid
        if i18n.is_plural(zh[msgid]):
            assert i18n.is_plural(en[msgid]), f"{msgid}: a plural in Chinese only"


@pytest.mark.every_page
def test_a_pages_english_words_are_a_list_in_its_chinese_table_and_no_text():
    """``keep_english`` (the words tests/pages/test_chinese.py lets a Chinese page show) is a list of words in a
    page's own table of zh.toml, and no entry of either catalogue: no page can show it."""
    raw = {lang: i18n.tables(lang) for lang in i18n.LANGS}
    holders = {name for name, table in raw["zh"].items() if isinstance(table, dict) and i18n.KEEP in table}
    assert holders <= {p.table for p in nav.PAGES} and len(holders) > 15, holders - {p.table for p in nav.PAGES}
    assert not any(i18n.KEEP in table for table in raw["en"].values() if isinstance(table, dict)), "zh.toml only"
    assert all(re.fullmatch(r"[A-Za-z0-9]+", w) for t in holders for w in raw["zh"][t][i18n.KEEP]), "words"
    assert not any(k.endswith(i18n.KEEP) for lang in i18n.LANGS for k in i18n.catalogue(lang))
    assert "Dr" in i18n.kept_english("p10") and i18n.kept_english("no_such_table") == set()


def test_english_plurals_follow_the_count_and_chinese_writes_one_form():
    assert i18n.text("en", "chart.rows", n=1).startswith("1 row,")
    assert i18n.text("en", "chart.rows", n=3).startswith("3 rows,")
    assert "3" in i18n.text("zh", "chart.rows", n=3) and "1" in i18n.text("zh", "chart.rows", n=1)
    # the bench's workshop reads the number of runs ahead from the English notice (bench/workshop.py)
    for n, line in ((1, lines.PANELS), (4, lines.TRAININGS)):  # the notice a line shows: say(f"turns.{what}", n=…)
        assert re.search(r"(\d+) runs? (?:is|are) ahead", i18n.text("en", f"turns.{line.what}", n=n)).group(1) == str(n)


def test_a_missing_entry_is_an_error_not_its_id():
    with pytest.raises(KeyError):
        i18n.text("zh", "predict.no_such_entry")
    with pytest.raises(KeyError):  # a placeholder the sentence needs but the caller did not give
        i18n.text("en", "predict.right", answer="yes")


@pytest.mark.every_page
def test_every_name_the_code_looks_up_by_data_has_an_entry():
    """Titles, headings, preset names and the turn lines are looked up by their English names."""
    for lang in i18n.LANGS:
        cat = i18n.catalogue(lang)
        for p in nav.PAGES:
            assert f"{p.table}.nav_title" in cat
            assert not p.heading or f"{p.table}.nav_heading" in cat
        for name in rlcore.PRESETS:
            assert f"scenario.presets.{name}" in cat, name
        for line in (lines.PANELS, lines.TRAININGS):
            assert f"turns.{line.what}" in cat


@pytest.mark.parametrize(("locale", "lang"), [("zh-CN", "zh"), ("zh-TW", "zh"), ("ZH", "zh"), ("en-US", "en"),
                                              ("fr-FR", "en"), ("", "en"), (None, "en")])
def test_the_browsers_locale_picks_chinese_for_any_zh(locale, lang):
    assert i18n.from_locale(locale) == lang


# ---------------------------------------------------------------- what a Chinese reader sees (tests/words.py)


def test_the_home_page_in_chinese_has_no_english_left():
    at = run_page(HOME, query={"lang": "zh"})
    for block in (at.main, at.sidebar):
        shown = chrome(block) + prose(block)
        assert len(shown) > 10 and english_words(shown) == [], english_words(shown)
    assert at.title[0].value.endswith(i18n.text("zh", "home.nav_heading"))
    assert not at.info, "the home page is translated: no notice"
    assert at.query_params["lang"] == "zh", "the link keeps the language"


def test_the_word_finder_finds_english():
    """The check above could fail: the English home page is full of words it reports."""
    at = run_page(HOME)
    assert {"judge", "training", "token"} <= set(english_words(prose(at.main)))
    assert english_words(["答案是 **open**。", "按 Next 继续"]) == ["Next"]


def test_an_unknown_language_falls_back_to_english_with_the_link_notice():
    at = run_page(HOME, query={"lang": "xx"})
    assert at.title[0].value.endswith(nav.HOME.heading)
    notes = [t.value for t in at.toast]
    assert len(notes) == 1 and "“xx”" in notes[0] and "“lang”" in notes[0], notes
    assert "lang" not in at.query_params, "the unfit value left the link"


def test_link_notices_speak_the_pages_language():
    at = run_page(CONCEPT, query={"lang": "zh", "nosuch": "1"})
    (note,) = [t.value for t in at.toast]
    assert "“nosuch”" in note and english_words([note.replace("nosuch", "")]) == [], note


def test_the_language_goes_with_the_learner_from_page_to_page():
    at = run_page(HOME, query={"lang": "zh"})
    at.switch_page(nav.path_of(str(CONCEPT))).run()
    assert at.title[0].value.endswith(i18n.text("zh", f"{nav.info(nav.path_of(str(CONCEPT))).table}.nav_title"))
    assert at.query_params["lang"] == "zh"


def test_the_switch_changes_the_language_and_the_link():
    at = run_page(HOME)
    assert "lang" not in at.query_params, "English, as the browser asks (none under AppTest): no parameter"
    at.segmented_control(key=i18n.SWITCH).set_value("zh").run()
    assert at.title[0].value.endswith(i18n.text("zh", "home.nav_heading"))
    assert at.query_params["lang"] == "zh"
    at.segmented_control(key=i18n.SWITCH).set_value("en").run()
    assert at.title[0].value.endswith(nav.HOME.heading) and "lang" not in at.query_params


def test_reset_keeps_the_language():
    at = run_page(HOME, query={"lang": "zh"})
    next(b for b in at.sidebar.button if b.label == i18n.text("zh", "scenario.reset")).click().run()
    assert at.title[0].value.endswith(i18n.text("zh", "home.nav_heading"))
    assert at.query_params["lang"] == "zh"


def test_the_language_entry_is_read_like_a_link_input():
    assert i18n.read(["zh"]) == "zh" and i18n.read([" EN "]) == "en"
    for bad in (["xx"], ["zh", "en"], [""]):
        with pytest.raises(ValueError):
            i18n.read(bad)
    assert scenario.preset_name(scenario.CUSTOM) == i18n.text("en", "scenario.custom")


def test_a_second_session_is_not_told_the_first_ones_language():
    first = run_page(HOME, query={"lang": "zh"})
    assert first.title[0].value.endswith(i18n.text("zh", "home.nav_heading"))
    second = AppTest.from_file(str(HOME), default_timeout=60).run()
    assert second.title[0].value.endswith(nav.HOME.heading)


def test_the_answer_lines_follow_the_language():
    at = run_page(CONCEPT, query={"lang": "zh"})
    next(b for b in at.button if (b.key or "").endswith("_show")).click().run()
    answer = [i.value for i in at.info if i.value.startswith("答案是 **")]
    assert len(answer) == 1, [i.value for i in at.info]
    box = next(e for e in at.expander if e.label == i18n.text("zh", "chart.data"))
    assert box.label != i18n.text("en", "chart.data")
