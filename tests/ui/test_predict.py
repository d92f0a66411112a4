"""page.predict and page.why on a bare script: hidden until answered or shown, revealed state kept."""

import ast

import pytest
from streamlit.testing.v1 import AppTest

from tests.apphelp import ROOT
from ui import nav


def script():
    import streamlit as st

    from ui import page

    page.why("Because the **sign** decides the update.")
    revealed = page.predict("Is 2 + 2 four?", ["yes", "no"], "yes", "It is.", key="q")
    if revealed:
        st.metric("the answer", "4")


def run() -> AppTest:
    return AppTest.from_function(script, default_timeout=30).run()


def test_why_is_a_closed_expander_with_the_text():
    at = run()
    box = at.expander[0]
    assert box.label == "Why this matters"
    assert "**sign** decides" in box.markdown[0].value


def test_nothing_revealed_before_a_choice():
    at = run()
    assert not at.metric
    assert [b.label for b in at.button] == ["Just show me"]


def test_a_wrong_choice_reveals_with_a_warning():
    at = run()
    at.radio(key="q").set_value("no").run()
    assert at.metric[0].value == "4"
    assert "the answer is **yes**" in at.warning[0].value
    assert not at.button, "no 'Just show me' once answered"


def test_just_show_me_reveals_and_stays_revealed():
    at = run()
    at.button[0].click().run()
    assert at.metric[0].value == "4" and at.radio(key="q").value is None
    assert "The answer is **yes**. It is." in at.info[0].value
    at.run()
    assert at.metric and at.session_state["q_shown"] is True


def predict_keys_and_other_strings(source: str) -> tuple[set, list]:
    """The keys given to ``page.predict(..., key=...)`` in a page, and every other string constant in it."""
    keys, key_nodes = set(), set()
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "page.predict":
            for kw in node.keywords:
                if kw.arg == "key" and isinstance(kw.value, ast.Constant):
                    keys.add(kw.value.value)
                    key_nodes.add(id(kw.value))
    strings = [n.value for n in ast.walk(tree)
               if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in key_nodes]
    return keys, strings


@pytest.mark.parametrize("path", [p.path for p in nav.PAGES])
def test_pages_reveal_through_page_predict_and_explain_through_page_why(path):
    """One mechanism: a page keeps ``page.predict``'s answer and never reads its question's widget itself
    (which is how "Just show me" once showed less than an answer did), and "Why this matters" is ``page.why``."""
    source = (ROOT / path).read_text()
    keys, strings = predict_keys_and_other_strings(source)
    assert not [s for s in strings if any(k in s for k in keys)], f"{path} reads its question's key by hand"
    assert "Why this matters" not in source, f"{path} draws its own 'Why this matters' instead of page.why"


def test_the_key_check_sees_a_hand_read_key():
    keys, strings = predict_keys_and_other_strings(
        'r = page.predict("q?", ["a"], "a", "x", key="k_predict")\nif st.session_state.get("k_predict"): pass')
    assert keys == {"k_predict"} and "k_predict" in strings


def changing_script():
    import streamlit as st

    from ui import page

    n = st.number_input("n", 0, 10, 2, key="n")
    answer = "even" if n % 2 == 0 else "odd"
    if page.predict(f"Is {n} even or odd?", ["even", "odd"], answer, f"{n} mod 2 = {n % 2}.", key="q"):
        st.metric("n mod 2", n % 2)


def test_an_answer_is_not_re_marked_when_the_inputs_change_the_question():
    at = AppTest.from_function(changing_script, default_timeout=30).run()
    at.radio(key="q").set_value("even").run()
    assert at.success and "**even**" in at.success[0].value
    at.number_input(key="n").set_value(3).run()   # now the answer is "odd": "even" must not turn into a warning
    assert not at.success and not at.warning and at.radio(key="q").value is None
    assert "changed the question" in at.info[0].value and "**odd**" in at.info[0].value
    assert at.metric[0].value == "1", "the page stays revealed"
    at.radio(key="q").set_value("odd").run()       # choosing again marks the new question
    assert at.success and "**odd**" in at.success[0].value


def test_an_unchanged_question_keeps_its_mark_across_reruns():
    at = AppTest.from_function(changing_script, default_timeout=30).run()
    at.radio(key="q").set_value("odd").run()
    at.run()
    assert at.warning and at.radio(key="q").value == "odd"
