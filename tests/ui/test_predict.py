"""page.predict and page.why on a bare script: hidden until answered or shown, revealed state kept."""

from streamlit.testing.v1 import AppTest


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
