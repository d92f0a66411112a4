"""Every page in ``ui.nav`` that asks a question: "Just show me" reveals exactly what answering reveals.

Same charts with the same data, the same text, except the one line that marks the answer (right, not this
time, or "the answer is" after "Just show me"). A page that reads its question's widget by hand instead of
``page.predict``'s return value shows less after "Just show me" and fails here.
"""

from __future__ import annotations

import pytest

from tests.apphelp import (
    ALL_PAGES,
    SHOW,
    assert_only_the_mark_differs,
    chart_fingerprint,
    reveal,
    run_page,
    shared_out,
)

# the first option on every third page in the quick suite; both options on every page in the exhaustive suite
ASKING = [p for p in ALL_PAGES if "page.predict(" in p.read_text(encoding="utf-8")]  # the home page asks nothing
REVEALS = (shared_out([(path, 0) for path in ASKING], every=3, ids=lambda c: f"{c[0].stem}-first-option")
           + [pytest.param(path, -1, id=f"{path.stem}-last-option", marks=pytest.mark.exhaustive) for path in ASKING])


@pytest.mark.parametrize("path, how", REVEALS)
def test_just_show_me_shows_what_an_answer_shows(path, how):
    shown, answered = reveal(path, None), reveal(path, how)
    assert shown is not None and answered is not None, "a page that calls page.predict shows its question"
    assert chart_fingerprint(shown) == chart_fingerprint(answered)
    assert len(shown.get("vega_lite_chart")) == len(answered.get("vega_lite_chart"))
    assert_only_the_mark_differs(shown, answered)


# ---------------------------------------------------------------- inputs drawn only once the question is answered
def own_inputs(at) -> dict:
    """The page's own inputs drawn on this run (sliders, number boxes and toggles): key → widget."""
    return {w.key: w for w in [*at.slider, *at.number_input, *at.toggle] if w.key and "." in w.key}


def hidden_inputs(path) -> dict:
    """The page's inputs that "Just show me" brings out: key → widget (as drawn after the reveal)."""
    before, after = run_page(path), reveal(path, None)
    return {} if after is None else {k: w for k, w in own_inputs(after).items() if k not in own_inputs(before)}


def far_value(w) -> str:
    """A value of the widget's range other than the one shown, as a link writes it: the far end of a range on its
    step grid, the other side of a toggle."""
    return str(not w.value).lower() if isinstance(w.value, bool) else str(w.max if w.value != w.max else w.min)


def same(a, b) -> bool:
    """Two values as a link writes them: numbers as numbers ("5" and 5.0 alike), the rest as text (True, "true")."""
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a).lower() == str(b).lower()


LATER_PAGES = [p for p in ALL_PAGES if "inputs.later(" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", shared_out(LATER_PAGES, every=3, ids=lambda p: p.stem))  # CI: every such page
def test_a_link_to_an_input_behind_the_question_waits_for_the_answer(path):
    """A shared link to a revealed view (the lab at 50 % of the run): before the answer its values are neither
    dropped nor reported as unknown; they stay in the address bar and the inputs take them once shown."""
    hidden = hidden_inputs(path)
    assert hidden, "the page names inputs with inputs.later, so some must appear only after the answer"
    link = {k.rsplit(".", 1)[-1]: far_value(w) for k, w in hidden.items()}
    at = run_page(path, query=link)
    assert not at.toast, [t.proto.body for t in at.toast]
    assert {k: at.query_params.get(k) for k in link} == link
    at.session_state["dummy_rerun"] = 1
    at.run()  # a rerun before the answer keeps them waiting
    next(b for b in at.button if b.label == SHOW).click().run()
    shown = own_inputs(at)
    assert all(same(shown[k].value, link[k.rsplit(".", 1)[-1]]) for k in hidden), (hidden, link)
    assert all(same(at.query_params.get(k), v) for k, v in link.items())  # still shared


@pytest.mark.exhaustive
def test_every_input_behind_a_question_is_named_later():
    """The pages that draw an input only after the reveal are exactly those that call inputs.later."""
    behind = {p.stem for p in ALL_PAGES if hidden_inputs(p)}
    assert behind == {p.stem for p in LATER_PAGES}
