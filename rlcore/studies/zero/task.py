"""The task and its rule-based judge: problems of 2 to 7 operands, and working that may stop after any step.

A problem is m digits from 1 to 9 (m from MIN_SIZE to MAX_SIZE) joined by m − 1 operations, each ``+`` or ``*``,
worked out from left to right keeping only the last two digits (modulo MODULUS = 100): ``3 + 4 * 2 * 7`` → 3+4 = 7,
7·2 = 14, 14·7 = 98, so the answer is 98; ``9 * 9 * 9`` → 81, 729 → 29. Every number from 0 to 99 is one token, so a
running result is one token and the answer one of 100: a uniform guess is right once in 100 (``guess_rate``), and
64 guesses find it less than half the time. The prompt is the problem, then ``?``, padded with <pad> to PROMPT_LEN, so
operand j always sits at position 2j.

An answer is ``= a`` (at once) or ``: r1 … rs = a`` with s from 0 to m − 2 running results (r_i is the value after
the first i + 1 operands), then <end>. Each written result leaves one operation fewer to do in the head: the answer
after s results needs the m − 1 − s remaining operations composed in one pass, which a one-layer model does for one,
partly for two, and hardly at all for more. So how much working pays depends on the problem's size.

The judge has R1-Zero's two parts (DeepSeek-AI 2025, §2.2.2): the answer is right (the text ends with ``= d`` and d
is the answer) and it is well formed (one of the forms above for the problem's size, nothing else); the score is
1[right] + 1[well formed]. It never reads whether the working is correct; ``working_right`` does, for the page.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from ...formulas.checks import count, finite, same_length, whole_numbers

MODULUS = 100                       # running results are kept modulo 100: two digits, one token each
VOCAB = (*(str(v) for v in range(MODULUS)), "+", "*", "?", ":", "=", "<end>", "<pad>")
TOKEN = {t: i for i, t in enumerate(VOCAB)}
PLUS, TIMES, ASK, WORK, EQUALS, END, PAD = (TOKEN[t] for t in ("+", "*", "?", ":", "=", "<end>", "<pad>"))
MAX_ANSWER_CHARS = 200              # a longer text is judged neither right nor well formed, unread

MIN_SIZE, MAX_SIZE = 2, 7           # operands per problem
PROMPT_LEN = 2 * MAX_SIZE           # d0 o1 d1 … o6 d6 ?  (shorter problems padded after the ?)
MAX_ANSWER = MAX_SIZE + 2           # ": r1 … r5 = a <end>"
LONGEST = MAX_ANSWER - 1            # the visible tokens of the longest answer (<end> not counted)
POSITIONS = PROMPT_LEN + MAX_ANSWER
AT_ONCE = -1                        # the number of steps of an answer given at once ("= a")
HELD_OUT_SEED = 20250122            # the held-out problems: the same every run
HELD_OUT_PER_STEP = 4               # held-out problems of size m: 4·(m − 1)
SIZES = np.arange(MIN_SIZE, MAX_SIZE + 1)
HELD_OUT_SIZE = int(HELD_OUT_PER_STEP * np.sum(SIZES - 1))   # 84 held-out problems in all
SIZE_WEIGHTS = (SIZES - 1) / np.sum(SIZES - 1)   # P(m) ∝ m − 1: with s uniform over its m − 1 values, every
                                                 # (size, steps) pair is equally common

_NUMBER = r"(?:0|[1-9][0-9]?)"     # 0 … 99 as the model writes it (no leading zero)
_FINAL = re.compile(rf"=[ ]*({_NUMBER})[ ]*\Z")
_PROBLEM = re.compile(r"\s*[1-9](?:\s*[+*×x]\s*[1-9])+\s*")


@dataclass(frozen=True)
class Verdict:
    """The judge's two parts and its score."""

    right: bool          # the text ends with "= a" and a is the answer
    well_formed: bool    # "= a" or ": r … = a" with at most size − 2 results, nothing else
    score: float         # 1[right] + 1[well formed]


def sizes_of(problems: np.ndarray) -> np.ndarray:
    """The number of operands of each problem row [n, 2·MAX_SIZE − 1] (<pad> after the problem)."""
    return (np.sum(np.asarray(problems) != PAD, axis=1) + 1) // 2


def sample_problems(rng: np.random.Generator, n: int, sizes=None, exclude: np.ndarray | None = None) -> np.ndarray:
    """n random problems [n, 2·MAX_SIZE − 1], padded with <pad>, none of them in ``exclude``.

    ``sizes``: one size per problem, or None for sizes drawn with SIZE_WEIGHTS (P(m) ∝ m − 1).
    """
    n = count("n", n, low=1)
    if sizes is None:
        sizes = rng.choice(SIZES, size=n, p=SIZE_WEIGHTS)
    sizes = np.asarray(sizes)
    if sizes.shape != (n,) or sizes.min() < MIN_SIZE or sizes.max() > MAX_SIZE:
        raise ValueError(f"sizes must be {n} whole numbers from {MIN_SIZE} to {MAX_SIZE}, got {sizes.tolist()}")
    banned = set() if exclude is None else {r.tobytes() for r in np.asarray(exclude, dtype=np.int64)}
    out = np.empty((n, 2 * MAX_SIZE - 1), dtype=np.int64)
    todo = np.arange(n)
    while len(todo):
        rows = np.empty((len(todo), 2 * MAX_SIZE - 1), dtype=np.int64)
        rows[:, 0::2] = rng.integers(1, 10, size=(len(todo), MAX_SIZE))
        rows[:, 1::2] = rng.integers(0, 2, size=(len(todo), MAX_SIZE - 1)) + PLUS
        rows[np.arange(2 * MAX_SIZE - 1) >= 2 * sizes[todo, None] - 1] = PAD
        out[todo] = rows
        todo = todo[[r.tobytes() in banned for r in rows]]
    return out


@functools.cache
def held_out_problems() -> np.ndarray:
    """The fixed held-out problems, HELD_OUT_PER_STEP·(m − 1) of size m (as SIZE_WEIGHTS), smallest first, all
    different (one read-only array, made once)."""
    rng = np.random.default_rng(HELD_OUT_SEED)
    out = np.empty((0, 2 * MAX_SIZE - 1), dtype=np.int64)
    for m in np.repeat(SIZES, HELD_OUT_PER_STEP * (SIZES - 1)):
        out = np.concatenate([out, sample_problems(rng, 1, [m], out)])
    out.setflags(write=False)
    return out


def running_results(problems: np.ndarray) -> np.ndarray:
    """The value after each operation, [n, MAX_SIZE − 1] (−1 past a problem's end); the answer is column m − 2.

    >>> running_results(parse_problem("3 + 4 * 2 * 7")[None])[0, :3].tolist()
    [7, 14, 98]
    """
    p = np.asarray(problems)
    v = p[:, 0].copy()
    out = np.full((len(p), MAX_SIZE - 1), -1, dtype=np.int64)
    for j in range(MAX_SIZE - 1):
        op, d = p[:, 2 * j + 1], p[:, 2 * j + 2]
        v = np.where(op == PLUS, v + d, v * d) % MODULUS
        out[:, j] = np.where(op == PAD, -1, v)
    return out


def final_answers(problems: np.ndarray) -> np.ndarray:
    """The right answer to each problem [n] (0 … MODULUS − 1)."""
    return running_results(problems)[np.arange(len(problems)), sizes_of(problems) - 2]


def prompts(problems: np.ndarray) -> np.ndarray:
    """The model's input [n, PROMPT_LEN]: each problem, ``?``, then <pad>."""
    p = np.asarray(problems)
    out = np.concatenate([p, np.full((len(p), 1), PAD, dtype=p.dtype)], axis=1)
    out[np.arange(len(p)), 2 * sizes_of(p) - 1] = ASK
    return out


def answers(problems: np.ndarray, steps) -> np.ndarray:
    """The right answer tokens [n, MAX_ANSWER] with ``steps`` running results per row (AT_ONCE: ``= a``)."""
    p = np.asarray(problems)
    m = sizes_of(p)
    s = np.asarray(steps)
    if s.shape != (len(p),) or np.any((s < AT_ONCE) | (s > m - 2)):
        raise ValueError(f"steps must be one per problem, each from {AT_ONCE} to its size − 2, got {s.tolist()}")
    run = running_results(p)
    out = np.full((len(p), MAX_ANSWER), PAD, dtype=np.int64)
    for i in range(len(p)):
        body = [] if s[i] == AT_ONCE else [WORK, *run[i, :s[i]]]
        row = [*body, EQUALS, run[i, m[i] - 2], END]
        out[i, :len(row)] = row
    return out


def answer_lengths(tokens: np.ndarray) -> np.ndarray:
    """Visible tokens per answer row [n]: those before the first <end> (all of them when there is none)."""
    t = np.asarray(tokens)
    ended = np.cumsum((t == END) | (t == PAD), axis=1) > 0
    return np.sum(~ended, axis=1)


def parse_problem(text, name: str = "text") -> np.ndarray:
    """A problem typed as text, ``"3 + 4 * 2 + 7"`` (``×`` or ``x`` also mean times), as a padded row.

    >>> parse_problem("3+4x2").tolist()[:4]
    [3, 100, 4, 101]
    """
    if not isinstance(text, str):
        raise ValueError(f"{name} must be text, got {type(text).__name__}")
    chars = [c for c in text if not c.isspace()] if len(text) <= 100 else []
    if _PROBLEM.fullmatch(text) is None or not MIN_SIZE <= (len(chars) + 1) // 2 <= MAX_SIZE:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise ValueError(f"{name} must be {MIN_SIZE} to {MAX_SIZE} digits from 1 to 9 joined by + or *, "
                         f"like 3 + 4 * 2 + 7; got {shown!r}")
    row = np.full(2 * MAX_SIZE - 1, PAD, dtype=np.int64)
    row[:len(chars)] = [int(c) if i % 2 == 0 else (PLUS if c == "+" else TIMES) for i, c in enumerate(chars)]
    return row


def problem_text(problem: np.ndarray) -> str:
    """``"3 + 4 * 2 + 7"``."""
    return " ".join(VOCAB[int(t)] for t in problem if t != PAD)


def guess_rate(size) -> float:
    """The chance that a uniform guess of the answer to a problem of ``size`` operands is right: 1/MODULUS (every
    answer from 0 to 99 can be reached at every size, and the guesser does not read the problem).

    >>> guess_rate(2), round(1 - (1 - guess_rate(7)) ** 64, 3)   # pass@64 of 64 independent guesses
    (0.01, 0.474)
    """
    count("size", size, low=MIN_SIZE, high=MAX_SIZE)
    return 1.0 / MODULUS


def judge(text, answer: int, size: int) -> Verdict:
    """Judge one answer's text to a problem of ``size`` operands whose right answer is ``answer`` (0 … 99).

    Well formed: ``= a``, or ``:`` then 0 to size − 2 numbers, then ``= a``; right: the text ends with ``= answer``.

    >>> judge(": 7 14 = 98", 98, 4).score, judge(": 7 14 98 = 98", 98, 4).score, judge("= 2", 98, 4).score
    (2.0, 1.0, 1.0)
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    answer = count("answer", answer, low=0, high=MODULUS - 1)
    size = count("size", size, low=MIN_SIZE, high=MAX_SIZE)
    if len(text) > MAX_ANSWER_CHARS:
        return Verdict(False, False, 0.0)
    final = _FINAL.search(text)
    right = final is not None and int(final.group(1)) == answer
    working = "" if size == MIN_SIZE else rf"(?:{_NUMBER}(?:[ ]+{_NUMBER}){{0,{size - 3}}}[ ]*)?"
    well = re.fullmatch(rf"[ ]*(?::[ ]*{working})?=[ ]*{_NUMBER}[ ]*", text) is not None
    return Verdict(right, well, float(right) + float(well))


def answer_text(tokens) -> str:
    """The text of an answer's tokens before the first <end>."""
    words = []
    for t in tokens:
        if int(t) == END:
            break
        words.append(VOCAB[int(t)])
    return " ".join(words)


def working_right(answer_tokens: np.ndarray, problems: np.ndarray) -> np.ndarray:
    """Whether each sampled answer row [n, L] is right with its written working right too [n]: ``= a`` with a the
    answer, or ``: r1 … rs = a`` with every r_i the running result after i + 1 operands (what the judge does not read).

    >>> p = parse_problem("3 + 4 * 2")[None].repeat(2, axis=0)
    >>> working_right(np.array([[WORK, 7, EQUALS, 14, END], [WORK, 8, EQUALS, 14, END]]), p).tolist()
    [True, False]
    """
    t = whole_numbers("answer_tokens", finite("answer_tokens", answer_tokens, ndim=2), 0).astype(np.int64)
    p = whole_numbers("problems", finite("problems", problems, ndim=2), 0).astype(np.int64)
    same_length("answer_tokens", t, "problems", p)
    run, m = running_results(p), sizes_of(p)
    out = np.zeros(len(t), dtype=bool)
    for i, row in enumerate(t):
        words = row[:int(np.argmax(row == END))].tolist() if (row == END).any() else row.tolist()
        body = words[1:-2] if words[:1] == [WORK] else None if len(words) != 2 else []
        out[i] = (body is not None and len(body) <= m[i] - 2 and words[-2:] == [EQUALS, run[i, m[i] - 2]]
                  and body == run[i, :len(body)].tolist())
    return out


def judge_batch(answer_tokens: np.ndarray, problems: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``judge`` on each sampled answer row [n, L]: (right [n], well formed [n], score [n])."""
    finals, sizes = final_answers(problems), sizes_of(problems)
    v = [judge(answer_text(r), int(a), int(m)) for r, a, m in zip(answer_tokens, finals, sizes, strict=True)]
    return (np.array([x.right for x in v]), np.array([x.well_formed for x in v]), np.array([x.score for x in v]))


__all__ = [
    "ASK",
    "AT_ONCE",
    "END",
    "EQUALS",
    "HELD_OUT_SIZE",
    "LONGEST",
    "MAX_ANSWER",
    "MAX_SIZE",
    "MIN_SIZE",
    "MODULUS",
    "PAD",
    "PLUS",
    "POSITIONS",
    "PROMPT_LEN",
    "SIZES",
    "SIZE_WEIGHTS",
    "TIMES",
    "TOKEN",
    "VOCAB",
    "WORK",
    "Verdict",
    "answer_lengths",
    "answer_text",
    "answers",
    "final_answers",
    "guess_rate",
    "held_out_problems",
    "judge",
    "judge_batch",
    "parse_problem",
    "problem_text",
    "prompts",
    "running_results",
    "sample_problems",
    "sizes_of",
    "working_right",
]
