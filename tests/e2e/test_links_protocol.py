"""Hostile links against a real server, spoken to in Streamlit's websocket protocol (bench/wsclient.py): the
address bar is cleaned in one update however many parameters the link has, and a link too long for Streamlit
to read opens the page as Streamlit opens it (at its own values, the address bar cleared); a forged notice
parameter is only an unknown parameter."""

from __future__ import annotations

import asyncio
import threading

import pytest

from bench.wsclient import AppClient
from tests.e2e.e2ehelp import Server

pytestmark = pytest.mark.e2e  # a real server, no browser


@pytest.fixture(scope="module")
def server():
    srv = Server()
    yield srv
    srv.stop()


def first_run(url: str, press: str | None = None) -> AppClient:
    """The app's first run at ``url`` as a browser's session sees it, then, given ``press``, that button pressed."""
    async def go():
        client = await AppClient.open(url)
        try:
            await client.rerun(timeout=60)
            if press:
                await client.press(press, timeout=120)
        finally:
            await client.close()
        return client
    # in a thread of its own: a browser test earlier in the same worker may leave Playwright's loop running in this one
    out = {}
    worker = threading.Thread(target=lambda: out.setdefault("client", asyncio.run(go())))
    worker.start()
    worker.join()
    return out["client"]


def test_a_link_of_a_thousand_unknown_parameters_is_cleaned_in_one_update(server):
    junk = "&".join(f"junk{i}=1" for i in range(999))  # with gamma: 1,000 parameters, Streamlit's most
    client = first_run(f"{server.url}/Reward_and_return?gamma=0.5&{junk}")
    assert not client.problems, client.problems
    assert client.link_updates == 1, "one address-bar update, not one per parameter"
    assert client.query == "gamma=0.5", "the valid parameter stays, the unknown ones are gone"
    assert any("999 parameters this page does not use" in t for t in client.toasts), client.toasts
    # one update carries the short link: a few kB in all, not the 5 MB of a 10 kB query string sent 999 times
    assert client.bytes_in < 1_000_000, client.bytes_in


def test_a_link_too_long_to_read_opens_the_page_at_its_own_values(server):
    """Streamlit reads no part of a link over 1,000 parameters; the app uses only its public API, so the page
    opens as if the link were empty (README "Share a view"): no error, no made-up notice, the page's own γ."""
    plain = first_run(f"{server.url}/Reward_and_return")
    junk = "&".join(f"junk{i}=1" for i in range(1000))
    client = first_run(f"{server.url}/Reward_and_return?gamma=0.5&{junk}")  # 1,001 parameters
    assert not client.problems, client.problems
    assert not any("too long" in t for t in client.toasts), client.toasts
    assert gamma(client) == gamma(plain) != [0.5], "the page opened with its own γ, not the unread link's 0.5"


def test_a_forged_notice_parameter_is_an_unknown_parameter(server):
    client = first_run(f"{server.url}/Reward_and_return?gamma=0.5&link_too_long=-5.99999")
    assert not client.problems, client.problems
    assert client.query == "gamma=0.5", "the forged parameter is cleared like any other unknown one"
    assert any("link_too_long" in t.replace("\\", "") and "means nothing on this page" in t  # markdown-escaped
               for t in client.toasts), client.toasts
    assert gamma(client) == [0.5]


def gamma(client: AppClient) -> list[float]:
    slider = next(w for w in client.widgets.values() if w.kind == "slider" and "γ" in w.element.label)
    return list(slider.state.double_array_value.data)


def test_a_sections_link_values_wait_for_the_answer_that_draws_them(server):
    """Page 18's tiny-model section is drawn once its question is answered (``inputs.later``): with
    ``DPO?zsteps=55&zseed=7``, "Just show me" (a rerun of the page's panel alone, a fragment, which AppTest does not
    make) draws the section with the link's 55 steps and seed 7, and the address bar keeps them."""
    from ui.i18n import text

    client = first_run(f"{server.url}/DPO?zsteps=55&zseed=7", press="Just show me")
    assert not client.problems, client.problems
    steps = client.labelled("slider", text("en", "p18.tiny.steps"))
    seed = client.labelled("number_input", text("en", "p18.tiny.seed"))
    shown = [w.element.value if w.element.set_value else w.element.default for w in (steps, seed)]
    assert list(shown[0]) == [55.0] and shown[1] == 7, shown
    assert "zsteps=55" in client.query and "zseed=7" in client.query, client.query
