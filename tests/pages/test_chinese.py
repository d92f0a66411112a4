"""Every page in Simplified Chinese (``?lang=zh``), by one check for all: before and after "Just show me" and with
its question answered, a page shows no English prose outside its allow-list (the RL terms it glosses in brackets
on first use, names of papers' authors and models: ``keep_english`` in the page's table of locales/zh.toml), its
translated answer is marked right, and its numbers (those its prose writes, its metrics, its charts' data) are the
English page's.

The word finder is ``tests/ui/test_i18n.py``'s (``zhhelp.english_left``): Latin words left once the learner's own
text (the scenario's prompt, tokens and the answer written from them) and the app-wide allow-list are taken out.
It could fail: the same views in English are full of words it reports (checked here too).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.apphelp import QUICK_SHARE, ROOT, charts, numbers, page_parts, run_page, shared_out
from tests.pages.zhhelp import english_left, shown_text
from tests.words import punctuation_slips
from ui import i18n, nav

PAGES = [ROOT / p.path for p in nav.PAGES if p.path != "pages/20_Glossary.py"]  # its own: test_zh_glossary.py
ZH = {"lang": "zh"}


def terms(path) -> set[str]:
    """Latin words the page may show in Chinese besides the app-wide ones (tests/ui/test_i18n.py ALLOWED): its
    table's ``keep_english`` in locales/zh.toml (the English term in brackets on its first use, authors' and models'
    names, symbols of formulas)."""
    return i18n.kept_english(nav.info(nav.path_of(str(path))).table)


def assert_chinese(at, path, view: str) -> None:
    assert not at.error, [e.value for e in at.error]
    for c in charts(at):  # Chinese reads across: a vertical axis's title stands level above it (ui.page)
        assert c["spec"]["config"]["axisY"]["titleAngle"] == 0, f"{view}: a y title lies sideways"
    assert len(shown_text(at)) > 10, f"{view}: the page shows almost nothing"
    left = english_left(at, terms(path))
    table = nav.info(nav.path_of(str(path))).table
    assert left == [], (f"{path.name}, {view}: English left: {left}. Translate them, or, for an English term glossed "
                        f"in brackets or a name, add them to keep_english in [{table}] of locales/zh.toml")
    assert punctuation_slips(shown_text(at)) == [], f"{view}: a list joined with ', ', or a space after a bracket"


def show(at):
    """Press the question's "Just show me" (found by its key: its label is Chinese)."""
    next(b for b in at.button if (b.key or "").endswith("_show")).click().run()
    return at


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_every_view_of_the_page_is_chinese_and_its_translated_answer_is_marked_right(path):
    at = run_page(path, query=ZH)
    assert_chinese(at, path, "opened")
    key = next((b.key.removesuffix("_show") for b in at.button if (b.key or "").endswith("_show")), None)
    if key is None:
        return  # a page that asks nothing
    assert_chinese(show(at), path, "after Just show me")
    shown = next(i.value for i in at.info if "**" in i.value)
    answer = re.search(r"\*\*(.+?)\*\*", shown).group(1)  # 答案是 **…**
    at.radio(key=key).set_value(answer).run()
    assert_chinese(at, path, "answered")
    assert at.success, f"{path.name}: the right answer {answer!r}, chosen in Chinese, is not marked right"


def numbers_of(at) -> tuple[set[float], list[list[float]], list[list[np.ndarray]]]:
    """The numbers the prose writes (as a set: a sentence may say "0" once where the other language says it twice),
    the metrics' numbers, and every chart's numeric data columns, in order."""
    prose = {round(x, 9) for kind, text in page_parts(at) if kind != "table" for x in numbers(text)}
    metrics = [numbers(m.value) for m in at.metric]
    frames = [[df[col].to_numpy(dtype=float) for df in chart["data"].values() for col in df.select_dtypes("number")]
              for chart in charts(at)]
    return prose, metrics, frames


def assert_same_numbers(en, zh) -> None:
    (en_prose, en_metrics, en_frames), (zh_prose, zh_metrics, zh_frames) = numbers_of(en), numbers_of(zh)
    assert en_prose == zh_prose, f"only in English: {en_prose - zh_prose}; only in Chinese: {zh_prose - en_prose}"
    assert en_metrics == zh_metrics
    assert [len(a) for a in en_frames] == [len(b) for b in zh_frames]
    for a, b in zip(en_frames, zh_frames, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("path", shared_out(PAGES, every=QUICK_SHARE, offset=1, ids=lambda p: p.stem))
def test_the_chinese_page_shows_the_english_pages_numbers(path):
    """The same numbers in the prose, the metrics and the charts, before and after "Just show me"."""
    en, zh = run_page(path), run_page(path, query=ZH)
    assert english_left(en, terms(path)), "the finder would see English here"
    assert all("titleAngle" not in c["spec"].get("config", {}).get("axisY", {}) for c in charts(en))
    assert_same_numbers(en, zh)
    if any((b.key or "").endswith("_show") for b in en.button):
        assert_same_numbers(show(en), show(zh))


def test_the_finder_reads_english_as_english():
    """The check above could fail: an English page, read as if it were Chinese, is full of words it reports."""
    at = run_page(ROOT / nav.PAGES[2].path)
    assert len(english_left(at, set())) > 20
    assert i18n.text("zh", "predict.show") != i18n.text("en", "predict.show")


# Page 19's algorithm radio is drawn with a format_func; AppTest 1.67 cannot rebuild its state after a preset sets it
# (ValueError in its widget state), so its presets are run in the browser tests instead.
@pytest.mark.exhaustive
@pytest.mark.parametrize("path", [p for p in PAGES if not p.name.startswith("19_")], ids=lambda p: p.stem)
def test_every_preset_in_chinese_keeps_the_page_chinese(path):
    """A preset's Chinese name sets the view the English one sets (the link keeps its numbers), and the page
    stays Chinese."""
    from ui import page

    at = run_page(path, query=ZH)
    controls = [c for c in at.segmented_control if c.key == page.PRESETS_KEY]
    for name in controls[0].options if controls else []:
        at.segmented_control(key=page.PRESETS_KEY).set_value(name).run()
        assert_chinese(at, path, f"preset {name}")
