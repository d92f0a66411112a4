"""Page 5, TD error and GAE, in Chinese (``?lang=zh``): it runs, its own text is Chinese, and its live numbers
are the ones the English page shows."""

from __future__ import annotations

import re
import sys

import pytest
from apphelp import ROOT, charts, metrics, no_exception, page_file, run_page

import rlcore
from ui import i18n

sys.path.insert(0, str(ROOT / "tests" / "ui"))  # the word finder of the language test, shared by every page
from test_i18n import chrome, english_words, prose

PAGE = page_file("5_")
# genuine names the Chinese text keeps: GRPO's method identifiers, and the statistics terms in brackets
TERMS = {"grpo", "dr", "rloo", "critic", "bias", "variance"}


def chart_words(spec: dict) -> list[str]:
    """A spec's titles, subtitles and axis / legend titles (not its field names or tooltips)."""
    out = []
    title = spec.get("title")
    if isinstance(title, dict):
        out += [title.get("text", ""), title.get("subtitle", "")]
    elif title:
        out.append(title)
    for channel in ("x", "y", "color"):
        enc = spec.get("encoding", {}).get(channel, {})
        out += [enc.get("title") or "", (enc.get("legend") or {}).get("title") or ""]
    for layer in spec.get("layer", []):
        out += chart_words(layer)
    return [w for w in out if isinstance(w, str)]


def shown_text(at) -> list[str]:
    texts = chrome(at.main) + chrome(at.sidebar) + prose(at.main) + prose(at.sidebar)
    texts += [m.label for m in at.metric] + [m.proto.help for m in at.metric] + [e.label for e in at.expander]
    for c in charts(at):
        texts += [*chart_words(c["spec"]), c["alt"]]
    return texts


def english_left(at) -> list[str]:
    """English words left, once the words of the answer itself (the learner's scenario, as the page splits it
    into tokens) are taken out."""
    scn = rlcore.ARTICLE_SCENARIO
    answer = rlcore.answer_trace(scn, scn.tokens[int(scn.pi.argmax())], 1.0).tokens
    words = sorted({w for tok in answer for w in re.findall(r"[A-Za-z]{2,}", tok)}, key=len, reverse=True)
    texts = [re.sub(r"\b(?:" + "|".join(words) + r")\b", " ", text.replace(scn.prompt, " "))
             for text in shown_text(at)]
    return [w for w in english_words(texts) if w not in TERMS]


@pytest.fixture(scope="module")
def views():
    at = run_page(PAGE, query={"lang": "zh"})
    no_exception(at)
    default = {"words": english_left(at), "count": len(shown_text(at)), "info": [i.value for i in at.info]}
    next(b for b in at.button if (b.key or "").endswith("_show")).click().run()
    no_exception(at)
    return default, at


def test_the_default_view_is_chinese(views):
    default, _ = views
    assert default["count"] > 20 and default["words"] == [], default["words"]
    assert i18n.text("zh", "page.not_translated") not in default["info"], "a translated page: no notice"


def test_after_just_show_me_the_page_is_chinese(views):
    _, at = views
    assert len(shown_text(at)) > 30 and english_left(at) == [], english_left(at)
    assert not any("Predict first" in m.value or "TD error at" in m.value for m in at.markdown)


def test_the_live_numbers_are_the_english_pages(views):
    """The article's answer: V is 4.3 before `open` and 2 after it (the mean of its one score, 2), so
    δ = 2 − 4.3 = −2.3 at `open`, as the English page says."""
    _, at = views
    m = metrics(at)
    assert m["“open”之前的 V"] == "4.3" and m["“open”之后的 V"] == "2" and m["“open”处的 TD 误差"] == "−2.3"
    text = "\n".join(x.value for x in at.markdown)
    assert "**open** 处为 −2.3" in text


def test_the_critic_chart_names_its_parts_in_chinese(views):
    _, at = views
    (critic,) = [c for c in charts(at) if "随 λ 的变化" in c["spec"]["title"]["text"]]
    parts = set(max(critic["data"].values(), key=len)["part"])
    assert parts == {i18n.text("zh", f"p5.critic.part_{p}") for p in ("bias", "variance", "mse")}
