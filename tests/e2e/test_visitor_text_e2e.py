"""Visitor text in a real browser: long names keep the home page on a phone, a name of emoji can be edited in its
field, and a keyboard can skip the sidebar.
"""

from __future__ import annotations

import json
import urllib.parse

import pytest
from playwright.sync_api import expect

from tests.apphelp import shared_out
from tests.e2e.e2ehelp import layout_problems, wait_for_run

pytestmark = pytest.mark.e2e

ZWSP = "\u200b"
CUNEIFORM = "".join(chr(0x12000 + i) for i in range(12))  # wide signs beyond U+FFFF: 24 UTF-16 units, the most
LONG_NAMES = {
    "cuneiform": [CUNEIFORM, "closed", "partly"],
    "arabic-ligature": ["\ufdfd" * 24, "closed", "partly"],  # one of the widest characters there is
    "latin": ["x" * 24, "y" * 24, "z" * 24],
    "six-cuneiform": [CUNEIFORM[:11] + chr(0x12040 + i) for i in range(6)],
}
EMOJI = "😀" * 12  # 24 UTF-16 units: the field's limit


def link(tokens) -> str:
    n = len(tokens)
    doc = {"tokens": tokens, "probs": [1 / n] * n, "samples": [[float(i)] for i in range(n)]}
    return "?scn=" + urllib.parse.quote(json.dumps(doc))


def open_page(pg, url: str) -> None:
    pg.goto(url)
    pg.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
    wait_for_run(pg)


@pytest.mark.parametrize("name", shared_out(list(LONG_NAMES), every=len(LONG_NAMES), ids=str))
def test_long_names_keep_the_home_page_on_a_phone(server, phone, name):
    """A name has no space to wrap at: the quick-reference table once grew to 564 px on a 390 px phone."""
    open_page(phone, f"{server.url}/{link(LONG_NAMES[name])}")
    phone.locator("[data-testid='stMain'] [data-testid='stExpander'] summary").last.click()  # the quick reference
    wait_for_run(phone)
    text = phone.locator("[data-testid='stMain'] table").last.inner_text().replace(ZWSP, "")
    assert LONG_NAMES[name][0] in text  # the page adopted the linked names, and shows them whole
    assert not layout_problems(phone, "phone")


@pytest.mark.exhaustive  # the field's limit in a real browser: CI's exhaustive stage
def test_a_name_of_emoji_can_be_edited_in_its_field(server, page):
    """The field counts UTF-16 units, as the scenario does: a name of 12 emoji fills it and can still be edited (what
    is typed past its 24 units is cut when it is sent: tests/e2e/test_visitor_keys_e2e.py)."""
    open_page(page, f"{server.url}/{link([EMOJI, 'b'])}")
    page.locator("[data-testid='stSidebar'] summary", has_text="Edit the candidates").click()
    wait_for_run(page)
    field = page.locator("[data-testid='stSidebar'] [data-testid='stTextInput'] input").first
    assert field.input_value() == EMOJI
    field.click()
    page.keyboard.press("End")
    page.keyboard.press("Backspace")  # one emoji goes
    page.keyboard.type("🙂x")  # only the emoji fits: the server cuts the x when the field is sent
    page.keyboard.press("Enter")
    expect(field).to_have_value("😀" * 11 + "🙂", timeout=30_000)
    wait_for_run(page)
    summary = page.locator("[data-testid='stSidebar'] table").first.inner_text().replace(ZWSP, "")
    assert "😀" * 11 + "🙂" in summary  # the edit was accepted: the example now has that name
    assert page.locator("[data-testid='stSidebar'] [data-testid='stAlertContentError']").count() == 0


def test_the_first_tab_stop_skips_the_sidebar(server, page):
    """Streamlit's own skip link (1.67) is the first stop: Enter on it puts the next Tab inside the page, instead
    of after the two dozen links and inputs of the sidebar."""
    open_page(page, f"{server.url}/Policy_gradient")
    page.keyboard.press("Tab")
    first = page.evaluate("() => ({text: document.activeElement.textContent, "
                          "width: document.activeElement.getBoundingClientRect().width})")
    assert first["text"] == "Skip to main content" and first["width"] > 0  # shown while it has the focus
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("() => !!document.activeElement.closest('[data-testid=\"stMain\"]')")
