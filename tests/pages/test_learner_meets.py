"""What a learner meets on every page (issue #22): no empty chart before the reveal, and an answer is never
re-marked behind the learner's back when a view changes what the question asks."""

from __future__ import annotations

import re

import pytest

import rlcore
from tests.apphelp import ALL_PAGES, SHOW, charts, preset_names, question_key, run_page, shared_out
from ui import page

CHOICES = ("radio", "selectbox", "segmented_control", "multiselect", "select_slider")
RAW_ID = re.compile(r"[a-z]+(?:_[a-z]+)+")  # a code's name (dr_grpo, reinforce_mean): never what a learner reads
METHOD_IDS = set(rlcore.GROUP_METHODS)  # grpo, dr_grpo, rloo: shown where a method's name belongs


@pytest.mark.parametrize("path", shared_out(ALL_PAGES, ids=lambda p: p.stem))
def test_before_the_reveal_no_chart_is_empty(path):
    at = run_page(path)
    for c in charts(at):
        sizes = {name: len(df) for name, df in c["data"].items()}
        assert sizes and all(sizes.values()), (c["spec"].get("title"), sizes)


def right_answer(path) -> tuple[str, str]:
    """The question's key and its right answer, read from what "Just show me" says."""
    at = run_page(path)
    key = question_key(at)
    next(b for b in at.button if b.label == SHOW).click().run()
    return key, at.info[0].value.split("**")[1]


# pages with a question and views, read from the source (running every page here would run them at collection,
# in every worker): one page in four checks its first view in the quick suite, every page every view in CI
WITH_VIEWS = [p for p in ALL_PAGES if "page.predict(" in p.read_text() and "page.presets(" in p.read_text()]
VIEW_CASES = [pytest.param(path, False, id=path.stem) for path in WITH_VIEWS[::4]]
VIEW_CASES += [pytest.param(path, True, id=f"{path.stem}-every-view", marks=pytest.mark.exhaustive)
               for path in WITH_VIEWS]


@pytest.mark.parametrize("path, every_view", VIEW_CASES)
def test_a_view_never_re_marks_a_right_answer(path, every_view):
    key, answer = right_answer(path)
    views = preset_names(run_page(path))
    assert views, "the page has views"
    for view in views if every_view else views[:1]:
        at = run_page(path)
        at.radio(key=key).set_value(answer).run()
        assert at.success and not at.warning, "the answer 'Just show me' gave is marked right"
        at.segmented_control(key=page.PRESETS_KEY).set_value(view).run()
        assert not at.warning, f"{view}: a view turned a right answer into 'Not this time' with no new choice"
        if at.radio(key=key).value is None:   # the question changed: asked again, and said so
            assert at.info, "asked again, and the page says why"
        else:                                 # the same question and answer: still marked right
            assert at.radio(key=key).value == answer and at.success


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("path", shared_out(ALL_PAGES, offset=2, ids=lambda p: p.stem))
def test_no_choice_shows_a_raw_id(path, lang):
    """Every choice a learner reads (radios, select boxes, segmented controls) reads as a name, in both languages:
    never an advantage method's id (grpo, dr_grpo, rloo) or any other snake_case code name (page 12's recipe
    switches keep their recipes' own lower-case words, "cispo" among them, as the papers write them)."""
    at = run_page(path, query={"lang": lang})
    shown = [str(o) for kind in CHOICES for w in at.main.get(kind) for o in w.options]
    raw = [o for o in shown if o in METHOD_IDS or RAW_ID.fullmatch(o)]
    assert not raw, raw
