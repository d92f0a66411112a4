"""What visitor text may do (issue 21, section 4): look-alike and blank names, markup in the editor's own messages,
bidi controls in a link or a file name, emoji lengths, the sum of the probabilities, repeated JSON fields.

Each class by every way in that can carry it (link, upload, editor): no exception, a notice that says what was
wrong, and the last valid scenario kept. Messages that quote visitor text are escaped for markdown, so they are
compared after removing the escapes (``plain``).
"""

from __future__ import annotations

import json
import re
import unicodedata

import pytest

import rlcore
from tests.apphelp import edit_scenario, page_file, run_page
from tests.rejects import rejects
from ui import scenario as panel

HOME = page_file("dashboard")
GAE = page_file("5_")  # a page with inputs in the link (?lam=)
ARTICLE = rlcore.ARTICLE_SCENARIO
CUSTOM = rlcore.Scenario(tokens=("yes", "no"), probs=(0.7, 0.3), samples=((4.0, 6.0), (1.0,)))


def plain(text: str) -> str:
    """A markdown message as it reads: ``\\[x\\]`` is ``[x]``."""
    return re.sub(r"\\(.)", r"\1", text)


def doc(tokens, probs=None, samples=None) -> str:
    n = len(tokens)
    return json.dumps({"tokens": list(tokens), "probs": probs or [1 / n] * n,
                       "samples": samples or [[float(i)] for i in range(n)]})


def notices(at) -> list[str]:
    return [plain(x.value) for x in (*at.error, *at.warning)]


def upload(at, name: str, data: str | bytes):
    at.file_uploader(key="scenario_upload").set_value((name, data if isinstance(data, bytes) else data.encode(),
                                                        "application/json"))
    return at.run()


def uploaded(path=HOME):
    """A page with the file panel open and CUSTOM loaded from a file: the example a bad file must leave alone."""
    at = run_page(path, state={"scenario_files": True})
    upload(at, "mine.json", panel.to_json(CUSTOM))
    assert at.session_state[panel.STATE] == CUSTOM
    return at


# ---------------------------------------------------------------- look-alike and blank names
INVISIBLE = {  # (second name, the character the notice must name)
    "grapheme joiner": ("open\u034f", "U+034F"),
    "variation selector": ("open\ufe0f", "U+FE0F"),
    "hangul filler": ("open\u3164", "U+3164"),
    "blank braille": ("\u2800", "U+2800"),
    "halfwidth filler": ("\uffa0", "U+FFA0"),
    "choseong and jungseong fillers": ("\u115f\u1160", "U+115F"),
    "no-break space": ("op\u00a0en", "U+00A0"),
}


@pytest.mark.parametrize("name", INVISIBLE)
def test_a_name_that_shows_as_nothing_or_as_another_is_refused_naming_the_character(name):
    second, code = INVISIBLE[name]
    rejects(lambda: panel.from_json(doc(["open", second])), re.escape(code))
    at = run_page(HOME, query={panel.URL_KEY: doc(["open", second])})  # by link
    assert at.session_state[panel.STATE] == ARTICLE
    assert any(code in n and "could not be used" in n for n in notices(at)), notices(at)
    at = uploaded()  # by file
    upload(at, "bad.json", doc(["open", second]))
    assert at.session_state[panel.STATE] == CUSTOM
    assert any(code in n and "was not loaded" in n for n in notices(at)), notices(at)
    edit_scenario(at, "token", 1, second)  # typed in the editor
    assert at.session_state[panel.STATE] == CUSTOM
    assert any(code in n and "last valid example" in n for n in notices(at)), notices(at)


def test_an_emoji_keeps_its_own_variation_selector():
    heart = "\u2764\ufe0f"  # ❤️: the selector asks for the emoji form of a symbol
    assert panel.from_json(doc([heart, "b"])).tokens == (heart, "b")


def test_nfc_and_nfd_spellings_are_one_name():
    nfc, nfd = "\u00e9t\u00e9", unicodedata.normalize("NFD", "\u00e9t\u00e9")
    assert nfc != nfd and unicodedata.normalize("NFC", nfd) == nfc
    rejects(lambda: panel.from_json(doc([nfc, nfd])), "unique")
    assert panel.from_json(doc([nfd, "b"])).tokens == (nfc, "b")  # kept in composed form
    at = edit_scenario(run_page(HOME, state={panel.EDITOR: True}), "token", 0, nfc)
    edit_scenario(at, "token", 1, nfd)
    assert at.session_state[panel.STATE].tokens == (nfc, "closed", "partly")
    assert any("repeated: " + nfc in n for n in notices(at)), notices(at)


# ---------------------------------------------------------------- markup in the editor's own messages
LINK = "[x](http://ev.il)"


def live_links(at) -> list[str]:
    texts = [x.value for x in (*at.error, *at.warning)] + [b.proto.help for b in at.button]
    texts += [t.label for t in at.text_input]
    return [t for t in texts if LINK in t]


def test_duplicate_name_error_quotes_markup_literally():
    at = edit_scenario(run_page(HOME, state={panel.EDITOR: True}), "token", 0, LINK)
    edit_scenario(at, "token", 1, LINK)
    assert at.session_state[panel.STATE].tokens == (LINK, "closed", "partly")
    assert any("repeated: " + LINK in n for n in notices(at)), notices(at)
    assert not live_links(at), live_links(at)


def test_bad_score_error_quotes_markup_literally():
    at = edit_scenario(run_page(HOME, state={panel.EDITOR: True}), "scores", 1, LINK)
    assert at.session_state[panel.STATE] == ARTICLE
    assert any(f"judge score '{LINK}' is not a number" in n for n in notices(at)), notices(at)
    assert not live_links(at), live_links(at)


def test_rescale_tooltip_quotes_markup_literally():
    at = edit_scenario(run_page(HOME, state={panel.EDITOR: True}), "token", 0, LINK)
    at.number_input(key=panel.key("prob", 0)).set_value(0.6).run()
    (rescale,) = [b for b in at.button if b.label.startswith("Rescale")]
    assert "Keeps " + LINK + " at 0.6" in plain(rescale.proto.help)
    assert not live_links(at), live_links(at)


# ---------------------------------------------------------------- bidi controls in a link or a file name
RLO = "\u202e"


def test_a_right_to_left_override_in_a_link_shows_as_its_code_point():
    at = run_page(GAE, query={f"ab{RLO}cd": "1", "lam": f"{RLO}0.5"})
    bodies = [plain(t.proto.body) for t in at.toast]
    assert bodies and not any(RLO in b for b in bodies), bodies
    assert any("“ab⟨U+202E⟩cd”" in b for b in bodies), bodies  # the unknown parameter's name
    assert any("“⟨U+202E⟩0.5”" in b for b in bodies), bodies  # the value that did not fit


def test_a_right_to_left_override_in_a_file_name_shows_as_its_code_point():
    at = uploaded()
    upload(at, f"bad{RLO}nosj.json", "[1]")
    assert at.session_state[panel.STATE] == CUSTOM
    shown = [e.value for e in at.error]
    assert shown and not any(RLO in s for s in shown), shown
    assert any("bad⟨U+202E⟩nosj.json was not loaded" in plain(s) for s in shown), shown


# ---------------------------------------------------------------- lengths as the browser counts them
def test_names_are_counted_as_the_browsers_field_counts_them():
    """The editor's field holds 24 UTF-16 units (12 emoji); the scenario counts the same way, so every name it
    accepts can be edited in the field, and a name the field could not hold is refused, saying why."""
    twelve, thirteen = "😀" * 12, "😀" * 13
    assert panel.from_json(doc([twelve, "b"])).tokens[0] == twelve
    rejects(lambda: panel.from_json(doc([thirteen, "b"])), "at most 24 characters, got 26 as a browser counts them")
    at = run_page(HOME, query={panel.URL_KEY: doc([twelve, "b"])}, state={panel.EDITOR: True})
    assert at.text_input(key=panel.key("token", 0)).value == twelve


def test_text_too_long_for_its_field_is_cut_to_what_fits_never_emptied():
    """24 😀 pasted into a name: the browser checks Streamlit's ``max_chars`` and drops an over-long change whole (the
    field stayed empty), so the fields have none and the server cuts: the name keeps the 12 emoji that fit, a list
    of scores ends at its last whole score, and the editor says what happened."""
    at = edit_scenario(run_page(HOME), "token", 0, "😀" * 24)
    assert all(w.proto.max_chars == 0 for w in at.text_input), "no limit the browser would enforce by dropping"
    assert at.text_input(key=panel.key("token", 0)).value == "😀" * 12
    assert at.session_state[panel.STATE].tokens[0] == "😀" * 12, "the cut name is the example's"
    assert any("cut to what fits: at most 24" in i.value for i in at.info), [i.value for i in at.info]
    at = edit_scenario(at, "scores", 0, ", ".join(["123.25"] * 400))  # 3,198 characters; the field holds 2,500
    kept = at.text_input(key=panel.key("scores", 0)).value
    assert len(kept) <= panel.SCORES_MAX_CHARS and kept.endswith("123.25"), kept[-20:]
    at = edit_scenario(at, "cont", 1, "z" * 200)
    assert at.text_input(key=panel.key("cont", 1)).value == "z" * 80
    assert not at.exception


# ---------------------------------------------------------------- the sum of the probabilities
@pytest.mark.parametrize(("typed", "shown"), [(0.500000002, "1.000000002"), (0.6, "1.1"), (0.45, "0.95")])
def test_the_sum_is_shown_with_the_digits_that_tell_it_from_1(typed, shown):
    at = run_page(HOME, state={panel.EDITOR: True})
    at.number_input(key=panel.key("prob", 0)).set_value(typed).run()
    assert at.session_state[panel.STATE] == ARTICLE
    assert any(f"add up to {shown}, not 1" in n for n in notices(at)), notices(at)


# ---------------------------------------------------------------- JSON that names a field twice
REPEATED = '{"tokens": ["a", "b"], "probs": [0.5, 0.5], "samples": [[1], [2]], "tokens": ["c", "d"]}'


def test_a_repeated_json_field_is_refused_by_link_and_by_file():
    rejects(lambda: panel.from_json(REPEATED), "'tokens' more than once")
    with pytest.raises(ValueError, match="'x' more than once"):  # in a nested object too
        panel.from_json(REPEATED.replace("\"tokens\": [\"c\", \"d\"]", "\"prompt\": {\"x\": 1, \"x\": 0}"))
    at = run_page(HOME, query={panel.URL_KEY: REPEATED})
    assert at.session_state[panel.STATE] == ARTICLE
    assert any("'tokens' more than once" in n for n in notices(at)), notices(at)
    at = uploaded()
    upload(at, "twice.json", REPEATED)
    assert at.session_state[panel.STATE] == CUSTOM
    assert any("'tokens' more than once" in n and "unchanged" in n for n in notices(at)), notices(at)
