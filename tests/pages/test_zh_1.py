"""Page 1, "Loop, state and action", in Simplified Chinese (``?lang=zh``): the page runs in every view a learner
reaches (the question answered, the answer sampled to its end, each of the judge's examples), its prose, labels,
metrics and charts show no English left, and the live numbers are the ones the formulas give."""

from __future__ import annotations

import math
import pathlib
import sys

from apphelp import charts, no_exception, numbers, page_file, run_page

import rlcore
from ui import i18n

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "ui"))
from test_i18n import WORD, chrome, english_words, prose  # the shared word finder

PAGE = page_file("1_")
ZH = {"lang": "zh"}
# Latin words this page may show in Chinese: terms in brackets on first use, a name and the judge's tag
TERMS = {"trajectory", "temperature", "softmax", "DeepSeek", "think"}


def zh(msgid: str, **values) -> str:
    return i18n.text("zh", f"p1.{msgid}", **values)


def spec_titles(node) -> list[str]:
    """Every title, subtitle and axis or legend title of a Vega-Lite spec (tooltips left out: ``ui.charts``')."""
    out = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "tooltip":
                continue
            if key in ("title", "subtitle") and isinstance(value, str):
                out.append(value)
            elif key == "title" and isinstance(value, dict):
                out += [str(value.get("text", "")), str(value.get("subtitle", ""))]
            else:
                out += spec_titles(value)
    elif isinstance(node, list):
        for item in node:
            out += spec_titles(item)
    return out


def shown(at) -> list[str]:
    """What the main area says: prose, the shared helpers' labels, the text area, metrics, tables' headers, and
    the charts' titles, text alternatives and the words they draw (legend entries, labels)."""
    out = chrome(at.main) + prose(at.main)
    out += [w.label for w in at.main.text_area] + [w.help or "" for w in at.main.text_area]
    out += [f"{m.label} {m.value} {m.proto.delta} {m.proto.help}" for m in at.main.metric]
    out += [o for r in at.main.radio for o in r.options]
    out += [str(c) for df in at.main.dataframe for c in df.value.columns]
    for c in charts(at):
        out += [*spec_titles(c["spec"]), c["alt"]]
    return out + drawn(at)


def drawn(at) -> list[str]:
    """The text values of the charts' data: what they write as legend entries, axis labels and rule labels."""
    return [v for c in charts(at) for df in c["data"].values() for col in df for v in df[col].unique()
            if isinstance(v, str)]


def english_left(at, scn: rlcore.Scenario = rlcore.ARTICLE_SCENARIO, terms: set = TERMS) -> list[str]:
    """English words left in the page outside ``terms``, once the words of the scenario's answers (the learner's
    data) are out."""
    answers = " ".join(rlcore.answer_text(scn, tok) for tok in scn.tokens)
    return [w for w in english_words(shown(at), scn) if w not in terms | set(WORD.findall(answers))]


def test_the_default_view_in_chinese_has_no_english_left():
    at = run_page(PAGE, query=ZH)
    no_exception(at)
    assert len(shown(at)) > 20 and english_left(at) == [], english_left(at)
    assert zh("temp") in [s.label for s in at.slider]
    assert any(c["alt"] == zh("trained_alt") for c in charts(at))


def test_the_finder_would_see_english_here():
    """The check above could fail: the same page in English is full of words it reports."""
    assert {"judge", "answer", "token"} <= set(english_left(run_page(PAGE)))


def test_after_just_show_me_the_answer_is_chinese_with_the_formulas_numbers():
    at = run_page(PAGE, query=ZH)
    next(b for b in at.button if b.label == i18n.text("zh", "predict.show")).click().run()
    no_exception(at)
    assert english_left(at) == [], english_left(at)
    # the rarest token (0.2 in the article's example) at τ = 2: √p / Σ √p
    p = rlcore.ARTICLE_SCENARIO.probs
    before, after = min(p), math.sqrt(min(p)) / sum(math.sqrt(x) for x in p)
    (line,) = [i.value for i in at.info if i.value.startswith("答案是 **")]
    assert line.startswith(f"答案是 **{zh('more')}**"), line
    got = numbers(line)
    assert math.isclose(got[0], 100 * before, abs_tol=0.05) and math.isclose(got[1], 100 * after, abs_tol=0.05), got


def check_marking(path, key: str, choices: list[str], right: str, wrong: str) -> None:
    """The question ``key`` offers the Chinese ``choices``, and a Chinese answer is marked right or wrong."""
    at = run_page(path, query=ZH)
    assert at.radio(key=key).options == choices
    at.radio(key=key).set_value(right).run()
    assert at.success and at.success[0].value.startswith(f"答对了：**{right}**"), [s.value for s in at.success]
    at.radio(key=key).set_value(wrong).run()
    assert at.warning and not at.success


def test_the_translated_choice_is_marked_right():
    check_marking(PAGE, "predict_temperature", [zh("more"), zh("less"), zh("same")], zh("more"), zh("less"))


def test_sampling_to_the_end_stays_chinese():
    at = run_page(PAGE, query=ZH)
    steps = 0
    while not at.button(key="sample").disabled:
        at = at.button(key="sample").click().run()
        steps += 1
        no_exception(at)
        assert english_left(at) == [], (steps, english_left(at))
        assert zh("state_heading", n=steps) in [h.value for h in at.subheader]
    first = next(m for m in at.metric if m.label == zh("action")).value
    whole = rlcore.answer_tokens(rlcore.ARTICLE_SCENARIO, first)
    ending = next(m.value for m in at.markdown if m.value.startswith("写完的回答共有"))
    # the answer's length, the prefix's share and the steps written here, in the Chinese sentence
    assert numbers(ending)[:3] == [len(whole), len(whole) - steps, steps], ending
    assert zh("trajectory") in [h.value for h in at.subheader]


def test_each_judge_example_in_chinese():
    at = run_page(PAGE, query=ZH)
    labels = [zh(f"examples.{name}") for name in ("Tags, right answer", "No tags", "Wrong answer", "Wrong reasoning")]
    points = {}
    for label in labels:
        at = next(b for b in at.button if b.label == label).click().run()
        no_exception(at)
        assert english_left(at) == [], (label, english_left(at))
        points[label] = next(m.value for m in at.metric if m.label == zh("judge_score") and "/" in m.value)
    # by the two rules: tags and the right answer 2; no tags 1 (answer only); the wrong answer 1 (format only);
    # the wrong reasoning still 2
    assert list(points.values()) == ["2 / 2", "1 / 2", "1 / 2", "2 / 2"], points
