"""The shared scenario sidebar: editing, validation, presets, links and JSON files (AppTest + pure helpers)."""

from __future__ import annotations

import json

import pytest

import rlcore
from tests.apphelp import (
    ALL_PAGES,
    chart_fingerprint,
    edit_scenario,
    has_scenario,
    page_file,
    page_text,
    run_page,
    shared_out,
)
from ui import scenario as panel

HOME = page_file("dashboard")
EDITING = {panel.EDITOR: True}  # the sidebar's editor open, as when a learner edits


def test_the_editor_is_closed_until_opened_and_the_summary_shows_the_example():
    at = run_page(HOME)
    assert not [t for t in at.text_input if str(t.key).startswith("scn_")], "no inputs while the editor is closed"
    summary = next(m.value for m in at.sidebar.markdown if m.value.startswith("| token"))
    assert "| open | 0.5 | 3, 1, 2, 1, 3 |" in summary and "| partly | 0.2 | 10, 8 |" in summary
    at.session_state[panel.EDITOR] = True
    at.run()
    at.text_input(key=panel.key("scores", 2)).set_value("4").run()
    summary = next(m.value for m in at.sidebar.markdown if m.value.startswith("| token"))
    assert "| partly | 0.2 | 4 |" in summary
    at.session_state[panel.EDITOR] = False  # closing keeps the edit
    at.run()
    assert at.session_state["scenario"].samples[2] == (4.0,)


def test_default_is_the_article_example():
    at = run_page(HOME, state=EDITING)
    assert at.session_state["scenario"] == rlcore.ARTICLE_SCENARIO
    assert [at.text_input(key=panel.key("token", i)).value for i in range(3)] == ["open", "closed", "partly"]
    assert at.text_input(key=panel.key("scores", 0)).value == "3, 1, 2, 1, 3"


def test_valid_edit_changes_the_scenario_everywhere():
    at = run_page(HOME, state=EDITING)
    at.text_input(key=panel.key("scores", 1)).set_value("7, 9").run()
    assert at.session_state["scenario"].samples[1] == (7.0, 9.0)
    at.switch_page("pages/3_Value_Q_advantage.py").run()
    assert at.session_state["scenario"].samples[1] == (7.0, 9.0)


@pytest.mark.parametrize(("field", "row", "value", "message"), [
    ("scores", 1, "5, x", "not a number"),
    ("scores", 2, "", "no judge score"),
    ("scores", 0, "-3", "negative"),
    ("token", 1, "open", "repeated"),
    ("token", 2, "  ", "no name"),
])
def test_invalid_edit_shows_error_and_keeps_last_valid(field, row, value, message):
    at = run_page(HOME, state=EDITING)
    at.text_input(key=panel.key(field, row)).set_value(value).run()
    assert any(message in e.value for e in at.error), [e.value for e in at.error]
    assert at.session_state["scenario"] == rlcore.ARTICLE_SCENARIO
    assert "4.3" in page_text(at)  # the pages still show the last valid example


def test_probabilities_off_by_a_little_offer_rescaling():
    at = run_page(HOME, state=EDITING)
    at.number_input(key=panel.key("prob", 0)).set_value(0.6).run()
    assert any("add up to 1\\.1" in e.value for e in at.error)  # escaped for markdown: it quotes visitor text
    assert at.session_state["scenario"] == rlcore.ARTICLE_SCENARIO
    rescale = next(b for b in at.button if b.label.startswith("Rescale"))
    rescale.click().run()
    assert not at.error
    # the 0.6 just typed stays; closed and partly share the remaining 0.4 as 0.3 : 0.2
    assert at.session_state["scenario"].probs == pytest.approx((0.6, 0.4 * 0.3 / 0.5, 0.4 * 0.2 / 0.5))


def test_add_and_remove_tokens_within_limits():
    at = run_page(HOME, state=EDITING)
    for _ in range(3):
        at.button(key=panel.key("add", "new")).click().run()
    add = at.button(key=panel.key("add", "new"))
    assert at.session_state["scenario"].n == 6
    assert add.disabled  # no more than six tokens
    for _ in range(4):
        at.button(key=panel.key("remove", "last")).click().run()
    s = at.session_state["scenario"]
    assert s.tokens == ("open", "closed")
    assert s.probs == pytest.approx((0.5 / 0.8, 0.3 / 0.8))  # the removed share is spread over the rest
    assert at.button(key=panel.key("remove", "last")).disabled  # no fewer than two


def test_presets_and_reset():
    at = run_page(HOME, state=EDITING)
    at.selectbox(key=panel.PRESET).set_value("Best token is rare (2%)").run()
    assert at.session_state["scenario"].probs == (0.6, 0.38, 0.02)
    assert at.number_input(key=panel.key("prob", 2)).value == pytest.approx(0.02)
    next(b for b in at.button if b.label == "Reset").click().run()
    assert at.session_state["scenario"] == rlcore.ARTICLE_SCENARIO


def test_link_carries_a_custom_scenario():
    custom = rlcore.PRESETS["Most likely is already best"]
    at = run_page(HOME, query={panel.URL_KEY: panel.to_json(custom, indent=None)})
    assert at.session_state["scenario"] == custom
    raw = at.query_params[panel.URL_KEY]
    assert json.loads(raw if isinstance(raw, str) else raw[0])["tokens"] == list(custom.tokens)


@pytest.mark.parametrize("raw", ["{bad", "[]", '{"tokens": ["a"], "probs": [1], "samples": [[1]]}',
                                 '{"tokens": ["a", "b"], "probs": [0.5, 0.6], "samples": [[1], [2]]}',
                                 "x" * 200_000, "ünïcødé ☃"])
def test_bad_link_falls_back_with_a_notice(raw):
    at = run_page(HOME, query={panel.URL_KEY: raw})
    assert at.session_state["scenario"] == rlcore.ARTICLE_SCENARIO
    assert any("could not be used" in w.value for w in at.warning)


def test_user_text_is_escaped_in_markdown():
    hostile = rlcore.Scenario(tokens=("<b>x</b>", "[l](http://e.x)"), probs=(0.5, 0.5), samples=((1,), (2,)),
                              continuations=("$\\alpha$", "*y*"))
    at = run_page(HOME, scenario=hostile)
    md = "\n".join(m.value for m in at.markdown)
    assert "[l](http://e.x)" not in md and "<b>" not in md
    assert "\\[l\\]\\(http\\://e\\.x\\)" in md


@pytest.mark.parametrize("path", shared_out([p for p in ALL_PAGES if has_scenario(p)], every=3, ids=lambda p: p.stem))
def test_a_bad_edit_on_any_page_is_reported_and_the_charts_keep_the_last_valid_example(path):
    at = run_page(path)
    before = chart_fingerprint(at)
    edit_scenario(at, "scores", 1, "abc")
    assert at.error and "not a number" in at.error[0].value
    assert chart_fingerprint(at) == before
