"""The word finder the language tests share: the Latin words a page in Chinese still shows, outside the app's
allow-list of RL terms and symbols and outside the learner's own text (tests/ui/test_i18n.py, tests/pages/)."""

from __future__ import annotations

import re

import rlcore
from ui.format import esc

# Latin words a Chinese page may show: RL terms in brackets and symbols, file formats, the tokens' names
ALLOWED = {"RL", "PPO", "GRPO", "KL", "TD", "GAE", "DPO", "Zero", "pass", "CSV", "JSON", "kB", "logit", "old",
           "ref", "DFFF", "policy", "state", "action", "reward", "return", "value", "advantage", "baseline",
           "error", "group", "gradient", "exploration", "ratio", "clipping", "penalty"}
WORD = re.compile(r"[A-Za-z]{2,}")


def english_words(texts, scn: rlcore.Scenario = rlcore.ARTICLE_SCENARIO) -> list[str]:
    """The Latin-letter words in ``texts`` outside ``ALLOWED``, once the scenario's own text (prompt, answer so
    far, tokens, continuations: the learner's data, not the app's prose) and icon names are taken out."""
    data = sorted({scn.prompt, scn.prefix, *scn.tokens, *scn.continuations} - {""}, key=len, reverse=True)
    left = []
    for text in texts:
        text = re.sub(r":material/[a-z_]+:", "", text)
        for d in data:  # as written, and as markdown shows it (escaped)
            text = text.replace(esc(d), " ").replace(d, " ")
        left += [w for w in WORD.findall(text) if w not in ALLOWED]
    return left


CJK = re.compile(r"[\u4e00-\u9fff]")
SLIP = re.compile(r".{0,8}(?:, |[（）] (?!\|)).{0,8}")  # an ASCII list comma; a space after （ or ） (not a cell's)


def punctuation_slips(texts, scn: rlcore.Scenario = rlcore.ARTICLE_SCENARIO) -> list[str]:
    """Where a Chinese text lists with an ASCII ", " (Chinese joins items with 、; code, the scenario's text and
    what ASCII brackets hold, a formula's arguments or a tuple, are left out) or puts a space after （ or ）. The
    sidebar's scores are the learner's input, written as they type it: "10, 8"."""
    scores = {", ".join(f"{x:g}" for x in s) for s in scn.samples}
    data = sorted({scn.prompt, scn.prefix, *scn.tokens, *scores} - {""}, key=len, reverse=True)
    out = []
    for text in filter(CJK.search, texts):
        text = re.sub(r"`[^`]*`", "x", text)
        for d in data:
            text = text.replace(esc(d), "x").replace(d, "x")
        while (bare := re.sub(r"[(\[][^()\[\]]*[)\]]", "x", text)) != text:
            text = bare
        out += SLIP.findall(text)
    return out


def chrome(block) -> list[str]:
    """Every label a block shows that the shared helpers write: headings, alerts, expanders, buttons, links,
    and each widget's label and help."""
    out = [e.value for kind in ("title", "info", "warning", "success", "error") for e in getattr(block, kind)]
    out += [e.label for e in block.expander] + [b.label for b in block.button]
    out += [el.proto.label for kind in ("page_link", "download_button") for el in block.get(kind)]
    for kind in ("selectbox", "segmented_control", "radio", "slider", "text_input", "number_input", "toggle"):
        for w in getattr(block, kind):
            out += [w.label, w.help or ""]
    return out


def prose(block) -> list[str]:
    """What a block says in sentences: markdown, captions and headings."""
    return [e.value for kind in ("markdown", "caption", "header", "subheader") for e in getattr(block, kind)]
