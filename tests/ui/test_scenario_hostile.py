"""Scenarios that once passed the checks and then crashed, by link, by upload and typed in the editor (AppTest).

For each way in and each kind of payload, on the home page and a concept page: no exception, a notice the
learner can read, the last valid scenario kept, and nothing invalid in session state or in the link.
"""

from __future__ import annotations

import pytest

import rlcore
from tests.apphelp import edit_scenario, page_file, run_page, scenario_json
from ui import scenario as panel

PAGES = [page_file("dashboard"), page_file("4_")]  # page 4 squares scores: the overflow showed there first
ARTICLE = rlcore.ARTICLE_SCENARIO
CUSTOM = rlcore.Scenario(tokens=("yes", "no"), probs=(0.7, 0.3), samples=((4.0, 6.0), (1.0,)))


PAYLOADS = {
    "deep nesting": "[" * 5000,
    "401-digit prob": scenario_json(probs=[int("1" * 401), 0.5]),
    "401-digit score": scenario_json(samples=[[int("1" * 401)], [2]]),
    "lone surrogate": scenario_json(tokens=["\ud800", "b"]),
    "scores whose sum overflows": scenario_json(samples=[[1e308, 1e308], [2]]),
}


def link(at) -> str | None:
    if panel.URL_KEY not in at.query_params:
        return None
    raw = at.query_params[panel.URL_KEY]
    return raw if isinstance(raw, str) else raw[0]


def assert_kept(at, scenario):
    """The pages keep ``scenario``: in session state, and (when custom) in the link, written as valid JSON."""
    assert at.session_state["scenario"] == scenario
    assert link(at) == (None if scenario == ARTICLE else panel.to_json(scenario, indent=None))


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
@pytest.mark.parametrize("name", PAYLOADS)
def test_a_hostile_link_falls_back_with_a_notice(path, name):
    at = run_page(path, query={panel.URL_KEY: PAYLOADS[name]})
    assert_kept(at, ARTICLE)
    notice = " ".join(w.value for w in at.warning)
    assert "could not be used" in notice and "article's example instead" in notice


def test_the_notice_quotes_a_link_as_text_not_markup():
    at = run_page(PAGES[0], query={panel.URL_KEY: scenario_json(**{"[click](http://e.x)": 1})})
    assert_kept(at, ARTICLE)
    notice = " ".join(w.value for w in at.warning)
    assert "does not use" in notice and "[click](http" not in notice and "\\[click\\]\\(http" in notice


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
@pytest.mark.parametrize("name", PAYLOADS)
def test_a_hostile_upload_is_refused_and_the_loaded_example_stays(path, name):
    at = run_page(path, state={"scenario_files": True})  # the learner opens "Save or load this example"
    upload = at.file_uploader(key="scenario_upload")
    upload.set_value(("mine.json", panel.to_json(CUSTOM).encode(), "application/json")).run()
    assert_kept(at, CUSTOM)
    at.file_uploader(key="scenario_upload").set_value(("bad.json", PAYLOADS[name].encode(), "application/json"))
    at.run()
    assert_kept(at, CUSTOM)
    assert any("bad\\.json was not loaded" in e.value and "unchanged" in e.value for e in at.error), \
        [e.value for e in at.error]


EDITS = {  # what a learner can type into the judge-score field, one per crash class, and the notice it gets
    "deep nesting": ("[" * 5000, "not a number"),
    "401-digit score": ("1" * 401, "too large"),
    "scores whose sum overflows": ("1e308, 1e308", "too large"),
}


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
@pytest.mark.parametrize("name", EDITS)
def test_a_hostile_edit_is_refused_and_the_last_valid_example_stays(path, name):
    at = run_page(path)
    edit_scenario(at, "scores", 2, "4")  # a valid edit first: that is the example to keep
    edited = at.session_state["scenario"]
    assert edited.samples[2] == (4.0,)
    assert_kept(at, edited)
    text, message = EDITS[name]
    edit_scenario(at, "scores", 1, text)
    assert_kept(at, edited)
    assert any(message in e.value and "last valid example" in e.value for e in at.error), \
        [e.value for e in at.error]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_a_lone_surrogate_in_an_editor_input_is_dropped_with_a_notice(path):
    """A browser cannot send a lone surrogate (its UTF-8 encoder replaces it), but session state can hold one."""
    at = run_page(path)
    edit_scenario(at, "scores", 2, "4")
    edited = at.session_state["scenario"]
    at.session_state[panel.EDITOR] = False  # the learner closes the editor ...
    at.run()
    at.session_state[panel.key("token", 0)] = "\ud800"
    at.session_state[panel.EDITOR] = True  # ... and opens it again with a broken name in its input
    at.run()
    assert_kept(at, edited)
    assert any("lone surrogate" in w.value for w in at.warning)
    assert at.text_input(key=panel.key("token", 0)).value == "open"
    next(b for b in at.button if b.label == "Reset").click().run()
    assert_kept(at, ARTICLE)  # and Reset is there and works


def test_opening_the_editor_keeps_every_score_of_a_loaded_example():
    # 40 scores of 5 and 40 of 5.25 (each 17 characters as 5.250000000000001 would be lost to rounding)
    many = rlcore.Scenario(tokens=("long", "short"), probs=(0.5, 0.5),
                           samples=((5.0, 5.25) * 40, (0.1 + 0.2, 1 / 3)))
    at = run_page(page_file("dashboard"), query={panel.URL_KEY: panel.to_json(many, indent=None)})
    assert_kept(at, many)
    at.session_state[panel.EDITOR] = True
    at.run()
    assert_kept(at, many)
    assert at.session_state["scenario"].q.tolist() == [5.125, (0.1 + 0.2 + 1 / 3) / 2]
    assert at.text_input(key=panel.key("scores", 0)).value.count(",") == 79


def test_the_preset_selector_says_custom_after_an_edit():
    at = run_page(page_file("dashboard"))
    box = lambda: at.selectbox(key=panel.PRESET).value  # noqa: E731
    assert box() == "The article's example"
    edit_scenario(at, "scores", 2, "4")
    assert box() == panel.CUSTOM
    at.selectbox(key=panel.PRESET).set_value("Best token is rare (2%)").run()
    assert box() == "Best token is rare (2%)" and at.session_state["scenario"] == rlcore.PRESETS[box()]
    edit_scenario(at, "scores", 2, "10, 8")  # typed back to the preset's own scores: it is the preset again
    assert box() == "Best token is rare (2%)"
    next(b for b in at.button if b.label == "Reset").click().run()
    assert box() == "The article's example"


def test_rescale_keeps_the_probability_just_typed():
    at = run_page(page_file("dashboard"), state={panel.EDITOR: True})
    at.number_input(key=panel.key("prob", 0)).set_value(0.6).run()
    button = next(b for b in at.button if b.label.startswith("Rescale"))
    assert button.label == "Rescale the others to fill 0.4"
    button.click().run()
    assert at.session_state["scenario"].probs == pytest.approx((0.6, 0.24, 0.16))  # 0.4 shared as 3 : 2
    assert at.number_input(key=panel.key("prob", 0)).value == pytest.approx(0.6)


def test_rescale_says_when_it_divides_everything():
    at = run_page(page_file("dashboard"), state={panel.EDITOR: True})
    at.number_input(key=panel.key("prob", 0)).set_value(0.9)
    at.number_input(key=panel.key("prob", 1)).set_value(0.9).run()  # the typed ones alone exceed 1
    button = next(b for b in at.button if b.label.startswith("Rescale"))
    assert button.label == "Rescale all: divide each by 2"
    button.click().run()
    assert at.session_state["scenario"].probs == pytest.approx((0.45, 0.45, 0.1))
