"""Every page in ``ui.nav`` that asks a question: "Just show me" reveals exactly what answering reveals.

Same charts with the same data, the same text, except the one line that marks the answer (right, not this
time, or "the answer is" after "Just show me"). A page that reads its question's widget by hand instead of
``page.predict``'s return value shows less after "Just show me" and fails here.
"""

from __future__ import annotations

import pytest
from apphelp import ALL_PAGES, assert_only_the_mark_differs, chart_fingerprint, reveal


# the first option in the quick suite, the last one too in the exhaustive suite
@pytest.mark.parametrize("how", [0, pytest.param(-1, marks=pytest.mark.exhaustive)],
                         ids=["first-option", "last-option"])
@pytest.mark.parametrize("path", ALL_PAGES, ids=lambda p: p.stem)
def test_just_show_me_shows_what_an_answer_shows(path, how):
    shown, answered = reveal(path, None), reveal(path, how)
    if shown is None:
        pytest.skip("this page asks no question")
    assert chart_fingerprint(shown) == chart_fingerprint(answered)
    assert len(shown.get("vega_lite_chart")) == len(answered.get("vega_lite_chart"))
    assert_only_the_mark_differs(shown, answered)
