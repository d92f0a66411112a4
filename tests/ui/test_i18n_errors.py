"""Error messages in the learner's language (``ui.i18n.error``): rlcore and the scenario panel raise English
ValueErrors; in Chinese each is read back against the catalogue's ``[errors.*]`` templates and shown in Chinese,
the argument names and values as written.

- Every message a ``raise ValueError(...)`` of rlcore or ui/scenario.py can give (found by reading the source,
  so a new raise without a template fails here) is read by a template and leaves no English behind.
- Real errors from real rlcore functions, ``rlcore.Scenario`` and the scenario panel, nested ones included.
- English is unchanged; a message no template reads is quoted after a Chinese lead sentence, never a crash.
- In AppTest with ``?lang=zh``: a bad scenario link, a bad typed score and page 1's judge show Chinese errors.
"""

from __future__ import annotations

import ast
import json
import math
import re
import time

import pytest
from streamlit.testing.v1 import AppTest

import rlcore
from tests.apphelp import ROOT, edit_scenario, input_key, page_file, run_page
from tests.rejects import rejects
from tests.words import english_words
from ui import i18n
from ui import scenario as panel
from ui.format import esc

SOURCES = [*sorted((ROOT / "rlcore").rglob("*.py")), ROOT / "ui" / "scenario.py"]
RAISED = {"ValueError", "RepeatedField"}  # RepeatedField: ui/scenario.py's ValueError, quoted in "The JSON …"

# Messages whose fields hold English chosen in the code (the scan's markers cannot show it): each shape (its
# fields as {}) with every message it can give, written out.
DYNAMIC = {
    ("rlcore/formulas/checks.py", "{} must be >= {}{}, got {}"):  # upper = "" or " and <= {high}"
        ["v1 must be >= v2, got v3", "v1 must be >= v2 and <= v3, got v4"],
    # want = "{ndim}" or "at least {min_ndim}"
    ("rlcore/formulas/checks.py", "{} must have {} dimension(s), got shape {}"):
        ["v1 must have v2 dimension(s), got shape v3", "v1 must have at least v2 dimension(s), got shape v3"],
    # counted: "" or how a browser counts
    ("rlcore/formulas/example.py", "{} may hold at most {} characters, got {}{}"):
        ["v1 may hold at most v2 characters, got v3",
         "v1 may hold at most v2 characters, got v3 as a browser counts them (an emoji counts as two)"],
    ("ui/scenario.py", "The scenario is {} {} long; the limit is {}"):  # unit = "bytes" or "characters"
        ["The scenario is v1 bytes long; the limit is v2", "The scenario is v1 characters long; the limit is v2"],
}
# Latin words a Chinese error may show besides code names: values Python writes, Unicode and file terms
VALUES = {"nan", "inf", "NaN", "Infinity", "UTF", "utf", "sig", "BOM", "uXXXX", "Unicode"}
PYTHON = {"True", "False", "None", "dict", "len", "rlcore", "float64"}
CODE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*(?:\[[A-Za-z0-9_]*\])*", re.ASCII)


def _shapes(node: ast.expr) -> list[str] | None:
    """The messages a string, an f-string or ``a if c else b`` of them gives, each field written {}."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return ["".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)]
    if isinstance(node, ast.IfExp):
        a, b = _shapes(node.body), _shapes(node.orelse)
        return None if a is None or b is None else a + b
    return None


def _marked(shape: str) -> str:
    """``shape`` with its fields numbered: "{} and {}" → "v1 and v2"."""
    parts = shape.split("{}")
    return parts[0] + "".join(f"v{i}{part}" for i, part in enumerate(parts[1:], start=1))


def raised() -> list[tuple[str, str]]:
    """(file:line, message) for every message a ``raise`` of RAISED in SOURCES gives, each field a marker v1,
    v2 … (or the messages DYNAMIC lists for its shape)."""
    out = []
    for path in SOURCES:
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                    and getattr(node.exc.func, "id", None) in RAISED):
                continue
            where = f"{rel}:{node.lineno}"
            shapes = _shapes(node.exc.args[0]) if node.exc.args else None
            assert shapes is not None, f"{where}: a message the scan cannot read; list its messages in DYNAMIC"
            for shape in shapes:
                out += [(where, m) for m in DYNAMIC.get((rel, shape)) or [_marked(shape)]]
    return out


def code_names() -> set[str]:
    """Names rlcore's messages may quote as written: its functions' parameters, classes and their fields, and
    the names its checks are given (``as_vector("rewards", …)``)."""
    names = set(PYTHON)
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):
                names |= {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
            elif isinstance(node, ast.ClassDef):
                names.add(node.name)
                names |= {s.target.id for s in node.body if isinstance(s, ast.AnnAssign)
                          and isinstance(s.target, ast.Name)}
            elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str) and node.args[0].value.isidentifier():
                names.add(node.args[0].value)
    return names


NAMES = code_names()


def english_left(text: str, scn: rlcore.Scenario = rlcore.ARTICLE_SCENARIO) -> list[str]:
    """English words of ``text`` once code names (rlcore's names, anything with _ . or a digit) are taken out."""
    def code(m: re.Match) -> str:
        word = m.group()
        return " " if word in NAMES or re.search(r"[_.\d\[]", word) else word
    return [w for w in english_words([CODE.sub(code, text)], scn) if w not in VALUES]


def shown_in(marker: str, text: str) -> bool:
    return re.search(rf"(?<![0-9]){marker}(?![0-9])", text) is not None


# ---------------------------------------------------------------- every raise has a template

def test_the_scan_finds_every_raise_of_rlcore_and_the_scenario_panel():
    found = raised()
    text = "\n".join(p.read_text(encoding="utf-8") for p in SOURCES)
    # each `raise ValueError(` / `raise RepeatedField(` in the source gives at least one message
    assert len({w for w, _ in found}) == len(re.findall(r"raise (?:ValueError|RepeatedField)\(", text))
    assert len(found) > 230


def test_every_message_rlcore_and_the_panel_raise_reads_in_chinese():
    unread, english, lost = [], [], []
    for where, message in raised():
        zh = i18n.translated("zh", message)
        if zh is None:
            unread.append(f"{where}: {message}")
            continue
        if english_left(zh):
            english.append(f"{where}: {zh} {english_left(zh)}")
        lost += [f"{where}: {m} missing from {zh}" for m in re.findall(r"v\d+", message) if not shown_in(m, zh)]
    assert unread == [], "messages without a template in [errors.*]:\n" + "\n".join(unread)
    assert english == [], "English left:\n" + "\n".join(english)
    assert lost == [], "a field's value not shown:\n" + "\n".join(lost)


def test_a_template_matches_only_the_whole_message_and_the_more_specific_one_wins():
    # a longer sentence around a known one is not read as it
    assert i18n.translated("zh", "p must be > 0, got 1 and more") is not None  # "got {got}" takes the rest
    assert i18n.translated("zh", "Note: p must be > 0, got 1") is None
    # "level (the nucleus top_p)" is not an argument name: its own template reads it, not "{name} must be > 0"
    assert i18n.translated("zh", "level (the nucleus top_p) must be > 0, got 0.0").startswith("level（核采样")
    # "> 0 wherever pi > 0 (…)" is its own sentence, not "> {bound}" with English in the bound
    zh = i18n.translated("zh", "pi_ref must be > 0 wherever pi > 0 (else KL(π‖π_ref) is infinite), got [0.5 0. ]")
    assert zh.startswith("凡是 pi > 0 的地方，pi_ref 都必须 > 0") and english_left(zh) == []


# ---------------------------------------------------------------- real errors

def scenario(**kw) -> rlcore.Scenario:
    args = dict(tokens=("a", "b"), probs=(0.5, 0.5), samples=((1,), (2,)))
    return rlcore.Scenario(**{**args, **kw})


def rows(p0: float, p1: float) -> list[dict]:
    return [{"token": "a", "prob": p0, "scores": "1", "cont": ""}, {"token": "b", "prob": p1, "scores": "1",
                                                                   "cont": ""}]


# (call, what the Chinese must still show as written, argument names and values, or in Chinese, a nested part)
REAL = {
    "duplicate tokens": (lambda: scenario(tokens=("a", "a")), ["tokens", "['a']"]),
    "probs off 1": (lambda: scenario(probs=(0.6, 0.6)), ["probs", "[0.6, 0.6]", "1.2"]),
    "score out of range": (lambda: scenario(samples=((1,), (2e6,))),
                           ["samples[1][0]", "-1,000,000", "1,000,000", "2000000.0"]),
    "control character": (lambda: scenario(prompt="a\x00b"), ["prompt", "U+0000", "控制字符"]),
    "line break": (lambda: scenario(prefix="a\u2028b"), ["prefix", "U+2028", "换行符"]),
    "401-digit prob": (lambda: scenario(probs=(10**401, 0.5)), ["probs[0]", "402"]),
    "emoji counted twice": (lambda: scenario(prefix="😀" * 101), ["prefix", "200", "202"]),
    "KL of non-distribution": (lambda: rlcore.kl_divergence([0.5, 0.6], [0.5, 0.5]), ["p", "[0.5 0.6]", "1.1"]),
    "nan logit": (lambda: rlcore.softmax([1, math.nan]), ["logits", "nan"]),
    "gamma above 1": (lambda: rlcore.discounted_returns([1, 2], gamma=2), ["gamma", "[0, 1]", "2.0"]),
    "negative clip": (lambda: rlcore.clipped_objective([1.0], [1.0], eps=-1), ["eps", "-1.0"]),
    "judge with no answer": (lambda: rlcore.rule_based_judge("x", ""), ["expected", "''"]),
    "rescale nothing": (lambda: rlcore.normalize_probs([0, 0]), ["probs", "[0.0, 0.0]"]),
    "typed score": (lambda: panel.parse_scores("3, x", "open"), ["'open'", "'x'"]),
    "long typed score": (lambda: panel.parse_scores("1x" * 20, "open"), ["'open'", "'1x1x1x1x1x1x…'", "40"]),
    "typed probs": (lambda: panel.from_rows(rows(0.6, 0.6), rlcore.ARTICLE_SCENARIO), ["1.2"]),
    "broken JSON": (lambda: panel.from_json("{"), ["JSON", "1", "2"]),  # Python's JSON message, nested
    "NaN in JSON": (lambda: panel.from_json('{"tokens": NaN}'), ["NaN"]),
    "repeated field": (lambda: panel.from_json('{"tokens": [], "tokens": []}'), ["'tokens'"]),
    "too many bytes": (lambda: panel.from_json(b" " * 100_001), ["100,001", "100,000"]),
    "JSON scenario, rlcore's check": (lambda: panel.from_json('{"tokens": ["a", "b"], "probs": [0.5, 0.5], '
                                                              '"samples": [[1], []]}'), ["samples[1]", "'b'"]),
}


@pytest.mark.parametrize("case", list(REAL))
def test_a_real_error_reads_in_chinese_with_its_names_and_values(case):
    call, kept = REAL[case]
    message = rejects(call)
    zh = i18n.error(ValueError(message), "zh")
    assert i18n.translated("zh", message) == zh, f"no template reads {message!r}"
    assert english_left(zh) == [], (message, zh)
    assert re.search(r"[\u4e00-\u9fff]", zh)
    for part in kept:
        assert part in zh and (part in message or not part.isascii()), (part, zh)  # Chinese: the word it reads as
    assert i18n.error(ValueError(message), "en") == message  # English: the message itself


# each kind of character rlcore refuses in a text, with what it calls it ("a control character")
REFUSED = {"\x00": "控制字符", "\u200b": "看不见的格式字符", "\ud800": "落单的代理项", "\ue000": "私用区字符",
           "\u0378": "Unicode 里没有这个字符", "\u2028": "换行符", "\u2029": "分段符"}
# what Python's JSON reader says (its C reader, and the pure-Python one it falls back to), through from_json
JSON_TEXTS = ['{"a":', '{"a" 1}', '[1 2]', '"abc', '"a\x01"', '"\\q"', '"\\u12"', "[1] x", "{1:2}", "\ufeff[]"]


def refused(ch: str) -> str:
    return rejects(lambda: scenario(prompt=f"a{ch}b"))


@pytest.mark.parametrize("ch", list(REFUSED))
def test_each_kind_of_refused_character_reads_in_chinese(ch):
    zh = i18n.error(refused(ch), "zh")
    assert f"U+{ord(ch):04X}（{REFUSED[ch]}）" in zh and zh.startswith("prompt ") and english_left(zh) == [], zh


def json_messages() -> list[str]:
    out = [rejects(lambda text=text: panel.from_json(text)) for text in JSON_TEXTS]
    return out + [f"This is not valid JSON ({rejects(lambda text=text: json.decoder.py_scanstring(text, 1))})"
                  for text in ('"a\x01"', '"\\q"')]  # the pure-Python reader names the character


def test_what_pythons_json_reader_says_reads_in_chinese():
    for message in json_messages():
        zh = i18n.translated("zh", message)
        assert zh is not None and zh.startswith("这不是有效的 JSON（") and english_left(zh) == [], (message, zh)


def test_every_template_reads_some_message_rlcore_or_the_panel_gives(monkeypatch):
    used = set()
    text = i18n.text

    def recorded(lang, msgid, **values):
        used.add(msgid)
        return text(lang, msgid, **values)

    monkeypatch.setattr(i18n, "text", recorded)
    messages = [m for _, m in raised()] + json_messages() + [refused(ch) for ch in REFUSED]
    messages += [rejects(call) for call, _ in REAL.values()]
    for message in messages:
        i18n.error(message, "zh")
    templates = {k for k in i18n.catalogue("en") if k.startswith(i18n.ERRORS) and k != i18n.UNMATCHED}
    assert len(templates) > 150
    assert templates - used == set(), "templates no message reads: remove them, or add the message here"


def test_a_message_no_template_reads_is_quoted_after_a_chinese_lead_and_is_itself_in_english():
    for message in ("probs must sum to 1, got [0.6] (sum 0.6)", "numpy said something", "{odd} {{ braces"):
        assert i18n.error(ValueError(message), "en") == message
    for message in ("numpy said something", "{odd} {{ braces }", "", "p must be > 0, got"):
        zh = i18n.error(ValueError(message), "zh")
        assert zh == i18n.text("zh", "errors.unmatched", message=message)
        assert message in zh and zh.startswith("程序给出的说明")


LONG_MESSAGES = ("The JSON " * 220, "The JSON " * 5000, "This is not valid JSON (" * 80,
                 "p must be > 0, got " + "1" * 10_000)


def test_a_message_quoting_itself_or_very_long_never_raises():
    for message in LONG_MESSAGES:
        zh = i18n.error(ValueError(message), "zh")
        assert re.search(r"[\u4e00-\u9fff]", zh) and message.strip()[-40:] in zh, "Chinese, the message's end kept"


@pytest.mark.exhaustive
def test_a_long_message_costs_about_as_much_as_its_length():
    """A relative measure (no absolute clock): a message 23 times longer takes at most ~10 × 23 times as long to
    read, so no template backtracks quadratically over a quoted message (quadratic would be ~500 times)."""
    def cost(message):
        start = time.perf_counter()
        for _ in range(20):
            i18n.error(ValueError(message), "zh")
        return time.perf_counter() - start

    short, long = "The JSON " * 220, "The JSON " * 5000
    cost(short)  # the templates compiled
    assert cost(long) <= 10 * len(long) / len(short) * cost(short)


def test_visitor_text_inside_a_message_is_kept_as_typed_for_the_page_to_escape():
    # a token's name with markup travels into the Chinese sentence unchanged; ui.format.esc escapes it after
    zh = i18n.error(rejects(lambda: panel.parse_scores("x", "**[a](b)**{n}")), "zh")
    assert "'**[a](b)**{n}'" in zh and zh.startswith("词元")


# ---------------------------------------------------------------- what a Chinese learner sees

def test_a_bad_scenario_link_in_chinese_says_so_in_chinese():
    at = run_page(page_file("dashboard"), query={"lang": "zh", "scn": "{"})
    notes = [w.value for w in at.sidebar.warning]
    assert len(notes) == 1 and "这不是有效的 JSON" in notes[0] and "字段名" in notes[0], notes
    assert english_left(notes[0]) == [], notes


def test_a_bad_typed_score_in_chinese_says_so_in_chinese():
    at = run_page(page_file("dashboard"), query={"lang": "zh"})
    at = edit_scenario(at, "scores", 1, "3, abc")
    errors = [e.value for e in at.sidebar.error]
    assert len(errors) == 1 and "'abc'" in errors[0] and "不是一个数" in errors[0], errors
    said = i18n.error("Token 'closed': judge score 'abc' is not a number", "zh")  # row 1 is "closed"
    assert errors[0] == i18n.text("zh", "scenario.invalid", error=esc(said)), "the panel's own sentence around it"
    assert english_left(errors[0].replace("'abc'", "")) == [], errors
    at = edit_scenario(run_page(page_file("dashboard"), query={"lang": "en"}), "scores", 1, "3, abc")
    assert "judge score 'abc' is not a number" in at.sidebar.error[0].value  # English as before


def test_page_ones_judge_error_in_chinese_is_chinese():
    path = page_file("1_")
    at = run_page(path, query={"lang": "zh"}, state={input_key(path, "expected"): ""})
    errors = [e.value for e in at.main.error]
    assert len(errors) == 1 and "expected 不能为空" in errors[0], errors
    assert english_left(errors[0]) == [], errors


def _page_calling_rlcore_badly():
    import math

    import streamlit as st

    import rlcore
    from ui import i18n, page

    st.session_state[i18n.KEY] = st.query_params.get(i18n.KEY, "en")
    page.run(rlcore.softmax, [1.0, math.nan])
    st.write("not reached")  # page.run stops the rerun


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_page_run_shows_rlcores_error_in_the_pages_language(lang):
    at = AppTest.from_function(_page_calling_rlcore_badly)
    at.query_params[i18n.KEY] = lang
    at.run()
    message = "logits must contain only finite numbers, got [ 1. nan]"
    assert [e.value for e in at.error] == [i18n.text(lang, "page.unusable", error=esc(i18n.error(message, lang)))]
    assert ("logits 只能含有有限的数" in at.error[0].value) == (lang == "zh")
    assert (esc(message) in at.error[0].value) == (lang == "en")  # escaped for markdown, as before
    assert not at.markdown, "the rerun stopped"
