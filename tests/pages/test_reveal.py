"""Every page in ``ui.nav`` that asks a question: "Just show me" reveals exactly what answering reveals.

Same charts with the same data, the same text, except the one line that marks the answer (right, not this
time, or "the answer is" after "Just show me"). A page that reads its question's widget by hand instead of
``page.predict``'s return value shows less after "Just show me" and fails here.
"""

from __future__ import annotations

from collections import Counter

import pytest
from apphelp import ALL_PAGES, chart_fingerprint, no_exception, page_parts, run_page

SHOW = "Just show me"


def question(at):
    """The key of the page's question (``page.predict``), from its "Just show me" button; None if none."""
    buttons = [b for b in at.button if b.label == SHOW]
    assert len(buttons) <= 1, "one question per page"
    return buttons[0].key.removesuffix("_show") if buttons else None


def revealed(path, how):
    """The page after "Just show me" (``how`` None) or after choosing the option ``how``."""
    at = run_page(path)
    key = question(at)
    if key is None:
        pytest.skip("this page asks no question")
    if how is None:
        next(b for b in at.button if b.label == SHOW).click().run()
    else:
        radio = at.radio(key=key)
        radio.set_value(radio.options[how]).run()
    no_exception(at)
    assert question(at) is None, "revealed: no more 'Just show me'"
    return at


@pytest.mark.parametrize("how", [0, -1], ids=["first-option", "last-option"])
@pytest.mark.parametrize("path", ALL_PAGES, ids=lambda p: p.stem)
def test_just_show_me_shows_what_an_answer_shows(path, how):
    shown, answered = revealed(path, None), revealed(path, how)
    assert chart_fingerprint(shown) == chart_fingerprint(answered)
    assert len(shown.get("vega_lite_chart")) == len(answered.get("vega_lite_chart"))
    only_shown = Counter(page_parts(shown)) - Counter(page_parts(answered))
    only_answered = Counter(page_parts(answered)) - Counter(page_parts(shown))
    # the one marking line: an info after "Just show me", a success or a warning after an answer, same answer
    assert [kind for kind, _ in only_shown] == ["info"], only_shown
    assert [kind for kind, _ in only_answered] in (["success"], ["warning"]), only_answered
    (_, line), = only_shown
    answer = line.split("**")[1]
    (_, mark), = only_answered
    assert f"**{answer}**" in mark
    assert line.split(f"**{answer}**", 1)[1] == mark.split(f"**{answer}**", 1)[1], "the same explanation"
