"""The task and its rule-based judge: a chain of operations on digits, kept to the last digit.

A problem is five digits from 1 to 9 joined by four operations, each ``+`` or ``*``, worked out from left to right and
keeping only the last digit after each one: ``3 + 4 * 2 + 7 * 5`` → 3+4 = 7, 7·2 = 14 → 4, 4+7 = 11 → 1,
1·5 = 5, so the answer is 5. An answer is written in one of two forms:

- at once:      ``= 5``
- worked:       ``: 7 4 1 = 5``   (the running digit after each of the first three operations, then the answer)

The working is what makes the task possible for a small model: each written digit needs only one operation
on two digits it can see, while the answer at once needs four operations composed in one pass.

The judge has R1-Zero's two parts (DeepSeek-AI 2025, §2.2.2): the answer is right (the text ends with
``= d`` and d is the answer) and it is well formed (one of the two forms above, nothing else); the score is
1[right] + 1[well formed]. It never reads whether the working is correct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ...formulas.checks import count

DIGITS = 5                        # operands per problem
OPS = ("+", "*")
VOCAB = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "+", "*", "?", ":", "=", "<end>", "<pad>")
TOKEN = {t: i for i, t in enumerate(VOCAB)}
PLUS, TIMES, ASK, WORK, EQUALS, END, PAD = (TOKEN[t] for t in ("+", "*", "?", ":", "=", "<end>", "<pad>"))
PROMPT_LEN = 2 * DIGITS           # d0 o1 d1 … o4 d4 ?
MAX_ANSWER = 8                    # tokens the model may write (the worked form needs 7 with <end>)
POSITIONS = PROMPT_LEN + MAX_ANSWER
MAX_ANSWER_CHARS = 200            # a longer text is judged neither right nor well formed, unread
HELD_OUT_SEED = 20250120          # R1's release date: the fixed held-out problems
HELD_OUT_SIZE = 64

_WELL_FORMED = re.compile(r"[ ]*(?::(?:[ ]*[0-9])+[ ]*)?=[ ]*[0-9][ ]*")
_FINAL = re.compile(r"=[ ]*([0-9])[ ]*\Z")
_PROBLEM = re.compile(r"\s*([1-9])" + r"\s*([+*×x])\s*([1-9])" * (DIGITS - 1) + r"\s*")


@dataclass(frozen=True)
class Verdict:
    """The judge's two parts and its score."""

    right: bool          # the text ends with "= d" and d is the answer
    well_formed: bool    # "= d" or ": d d … = d", nothing else
    score: float         # 1[right] + 1[well formed]


# ---------------------------------------------------------------- problems


def sample_problems(rng: np.random.Generator, n: int, exclude: np.ndarray | None = None) -> np.ndarray:
    """n random problems as token rows [n, 2·DIGITS − 1] (digit, op, digit, …), none of them in ``exclude``."""
    n = count("n", n, low=1)
    out = np.empty((0, 2 * DIGITS - 1), dtype=np.int64)
    banned = set() if exclude is None else set(problem_codes(exclude).tolist())
    while len(out) < n:
        digits = rng.integers(1, 10, size=(n, DIGITS))
        ops = rng.integers(0, 2, size=(n, DIGITS - 1)) + PLUS
        rows = np.empty((n, 2 * DIGITS - 1), dtype=np.int64)
        rows[:, 0::2], rows[:, 1::2] = digits, ops
        keep = [c not in banned for c in problem_codes(rows).tolist()]
        out = np.concatenate([out, rows[keep]])
    return out[:n]


def problem_codes(problems: np.ndarray) -> np.ndarray:
    """One whole number per problem (its digits and operations read as one number)."""
    p = np.asarray(problems)
    code = np.zeros(len(p), dtype=np.int64)
    for j in range(p.shape[1]):
        code = code * (10 if j % 2 == 0 else 2) + (p[:, j] if j % 2 == 0 else p[:, j] - PLUS)
    return code


def held_out_problems() -> np.ndarray:
    """The fixed held-out problems every run is measured on; no warm-up or training problem is one of them."""
    return sample_problems(np.random.default_rng(HELD_OUT_SEED), HELD_OUT_SIZE)


def running_digits(problems: np.ndarray) -> np.ndarray:
    """The running last digit after each operation, [n, DIGITS − 1]; the last column is the answer.

    >>> running_digits(parse_problem("3 + 4 * 2 + 7 * 5")[None]).tolist()
    [[7, 4, 1, 5]]
    """
    p = np.asarray(problems)
    v = p[:, 0].copy()
    out = np.empty((len(p), DIGITS - 1), dtype=np.int64)
    for j in range(DIGITS - 1):
        d, op = p[:, 2 * j + 2], p[:, 2 * j + 1]
        v = np.where(op == PLUS, v + d, v * d) % 10
        out[:, j] = v
    return out


def prompts(problems: np.ndarray) -> np.ndarray:
    """The model's input: each problem followed by ``?``, [n, PROMPT_LEN]."""
    p = np.asarray(problems)
    return np.concatenate([p, np.full((len(p), 1), ASK, dtype=p.dtype)], axis=1)


def answers(problems: np.ndarray, worked: np.ndarray) -> np.ndarray:
    """The correct answer tokens, worked or at once per row, each ending with <end> and padded: [n, MAX_ANSWER]."""
    run = running_digits(problems)
    out = np.full((len(run), MAX_ANSWER), PAD, dtype=np.int64)
    w = np.asarray(worked, dtype=bool)
    out[w, 0] = WORK
    out[w, 1:DIGITS - 1] = run[w, :-1]
    out[w, DIGITS - 1:DIGITS + 2] = np.stack([np.full(w.sum(), EQUALS), run[w, -1], np.full(w.sum(), END)], axis=1)
    out[~w, 0], out[~w, 1], out[~w, 2] = EQUALS, run[~w, -1], END
    return out


def parse_problem(text, name: str = "text") -> np.ndarray:
    """A problem typed by a learner, e.g. ``"3 + 4 * 2 + 7 * 5"`` (``×`` or ``x`` also mean times).

    >>> parse_problem("3+4x2 + 7*5").tolist()
    [3, 10, 4, 11, 2, 10, 7, 11, 5]
    """
    if not isinstance(text, str):
        raise ValueError(f"{name} must be text, got {type(text).__name__}")
    m = _PROBLEM.fullmatch(text) if len(text) <= 100 else None
    if m is None:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise ValueError(f"{name} must be {DIGITS} digits from 1 to 9 joined by + or *, like 3 + 4 * 2 + 7 * 5; "
                         f"got {shown!r}")
    parts = m.groups()
    return np.array([int(s) if i % 2 == 0 else (PLUS if s == "+" else TIMES) for i, s in enumerate(parts)])


def problem_text(problem: np.ndarray) -> str:
    """``"3 + 4 * 2 + 7 * 5"``."""
    return " ".join(VOCAB[int(t)] for t in problem)


# ---------------------------------------------------------------- answers as text, and the judge


def answer_text(tokens) -> str:
    """The text of an answer's tokens, up to (not including) the first <end>; anything after it dropped.

    A <pad> the model wrote before any <end> is part of the text (and makes it ill formed).
    """
    words = []
    for t in tokens:
        t = int(t)
        if t == END:
            break
        words.append(VOCAB[t])
    return " ".join(words)


def judge(text, answer: int) -> Verdict:
    """Score one answer's text against the right final digit, R1-Zero style: right, and well formed.

    Anything that is not a string raises ValueError; any string is judged (empty, huge, other scripts):
    only ASCII digits count, and a text over MAX_ANSWER_CHARS characters is neither right nor well formed.

    >>> judge(": 7 4 1 = 5", 5), judge("= 5", 5), judge("5", 5), judge("= 3", 5)
    (Verdict(right=True, well_formed=True, score=2.0), Verdict(right=True, well_formed=True, score=2.0), \
Verdict(right=False, well_formed=False, score=0.0), Verdict(right=False, well_formed=True, score=1.0))
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    answer = count("answer", answer, low=0, high=9)
    if len(text) > MAX_ANSWER_CHARS:
        return Verdict(False, False, 0.0)
    final = _FINAL.search(text)
    right = final is not None and int(final.group(1)) == answer
    well = _WELL_FORMED.fullmatch(text) is not None
    return Verdict(right, well, float(right) + float(well))


def is_worked(tokens) -> bool:
    """Whether an answer starts by showing its working (its first token is ``:``)."""
    return len(tokens) > 0 and int(tokens[0]) == WORK


def judge_batch(answer_tokens: np.ndarray, problems: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``judge`` on each row of sampled answer tokens [n, L]: (right [n] bool, well formed [n] bool, score [n])."""
    finals = running_digits(problems)[:, -1]
    verdicts = [judge(answer_text(row), int(a)) for row, a in zip(answer_tokens, finals, strict=True)]
    right = np.array([v.right for v in verdicts])
    well = np.array([v.well_formed for v in verdicts])
    return right, well, np.array([v.score for v in verdicts])
