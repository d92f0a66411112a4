"""The README's "Adding a page": its nav entry and its page, run as written, make a page that works.

The entry is added to ``ui.nav.PAGES`` and the page written under a temporary app folder; nothing else of
the app is touched, which is the point: the entry and the page are all the app needs.
"""

from __future__ import annotations

import ast
import re
import textwrap

import numpy as np
import pytest
from apphelp import (
    ROOT,
    assert_only_the_mark_differs,
    chart_fingerprint,
    chart_frame,
    charts,
    no_exception,
    question_key,
    reveal,
    run_page,
)

from ui import nav


def readme_blocks() -> list[str]:
    """The python blocks of the README's "Adding a page" section, in order."""
    section = (ROOT / "README.md").read_text().split("\n## Adding a page\n", 1)[1].split("\n## ", 1)[0]
    return [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)\n *```", section, flags=re.S)]


@pytest.fixture
def example(tmp_path, monkeypatch):
    """The README's page in a temporary app folder, its entry appended to the map."""
    entry_source, page_source = readme_blocks()
    call = ast.parse(entry_source.strip().rstrip(","), mode="eval").body
    assert ast.unparse(call.func) == "PageInfo"
    entry = nav.PageInfo(*(ast.literal_eval(a) for a in call.args))
    app = tmp_path.resolve()
    (app / entry.path).parent.mkdir(parents=True)
    (app / entry.path).write_text(page_source)
    monkeypatch.setattr(nav, "APP_DIR", app)
    monkeypatch.setattr(nav, "PAGES", (*nav.PAGES, entry))
    return entry, app / entry.path


def test_the_readme_has_the_entry_and_the_page():
    entry, page = readme_blocks()
    assert entry.strip().startswith("PageInfo(") and "page.setup(" in page and "page.end()" in page


def test_the_example_page_takes_its_title_from_its_entry_and_asks_first(example):
    entry, path = example
    at = run_page(path)
    no_exception(at)
    assert at.title[0].value == f"{entry.icon} {entry.title}"
    sidebar = [el.proto.label for el in at.sidebar.get("page_link")] + [m.value for m in at.sidebar.markdown]
    assert any(entry.title in label for label in sidebar), "the sidebar lists it"
    assert question_key(at) == "predict_signs"
    assert len(charts(at)) == 1, "before the answer: the policy only"


def test_the_example_page_answers_from_the_live_numbers(example):
    _, path = example
    # the article: V = 0.5·2 + 0.3·5 + 0.2·9 = 4.3; the favourite "open" has Q = 2, so A = −2.3: "no"
    at = reveal(path, 1)
    assert at.radio(key="predict_signs").value == "no" and at.success
    adv = chart_frame(at, "Advantage per token", "advantage")
    np.testing.assert_allclose(adv["advantage"], [2 - 4.3, 5 - 4.3, 9 - 4.3])


def test_the_example_page_shows_the_same_after_just_show_me(example):
    _, path = example
    shown, answered = reveal(path, None), reveal(path, 0)
    assert chart_fingerprint(shown) == chart_fingerprint(answered) and len(charts(shown)) == 2
    assert_only_the_mark_differs(shown, answered)
