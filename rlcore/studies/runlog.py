"""A real training log read into arrays: TRL's trainer_state.json, verl's console and JSON lines, OpenRLHF's
metrics, a tracker's CSV; each key mapped to the explorer's concept (``runkeys``), every other key listed.

Bytes in, a ``RunLog`` out: ``steps`` ascending, one float64 array per concept aligned with them (nan where a
step lacks it), the log's own key for each, and what the reader did to get there (``notes``: rows sorted,
values a later row of the same step replaced, eval rows merged, values that were not numbers). Nothing here
imports pandas or streamlit; a log the reader cannot read raises ValueError saying why.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field

import numpy as np

from ..formulas.checks import count
from . import runkeys

__all__ = ["MAX_LOG_BYTES", "RunBuckets", "RunLog", "read_run", "run_buckets"]

MAX_LOG_BYTES = 20_000_000   # 20 MB: a 100,000-step log with a dozen metrics fits in less
MAX_KEYS = 5_000             # distinct metric names in one log
MAX_NAME_CHARS = 200         # a file name (or key) longer than this is cut when shown
STEP_KEYS = ("step", "global_step", "train/global_step", "eval/global_step", "_step", "Step",
             "trainer/global_step")
_NUMBER_TEXT = re.compile(r"^\s*(?:np\.(?:float|int)\d+|tensor|float|int)?\(?\s*([-+]?[\w.]+?)\s*(?:,[^)]*)?\)?\s*$")
_CONSOLE = re.compile(r"step:\s*(\d+)\s+-\s+(.*)")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_WANDB_BAND = re.compile(r"__(?:MIN|MAX)$")


@dataclass(frozen=True)
class RunLog:
    """One training log, by step. ``series[c][i]`` is concept ``c`` at ``steps[i]`` (nan where not logged)."""

    name: str
    trainer: str                      # "trl", "verl", "openrlhf" or "csv" (a tracker's table)
    algorithm: str | None             # "grpo", "ppo", "rloo", "dpo", "online_dpo", "orpo", or None
    steps: np.ndarray                 # [T] int64, ascending, each once
    series: dict[str, np.ndarray]     # canonical name → [T] float64
    source: dict[str, str]            # canonical name → the log's own key
    unknown: tuple[str, ...]          # keys no table here knows (listed, never dropped)
    extras: dict[str, np.ndarray] = field(default_factory=dict)  # the trainer's other known keys → [T]
    keys: str | None = None           # whose key names the log uses ("trl", "verl", "openrlhf"), or None
    version: tuple[str, str] | None = None  # ("since", "0.20"): the trainer version its key names date it to
    conventions: dict[str, str] = field(default_factory=dict)  # canonical → sign convention id (runkeys)
    nonfinite: dict[str, np.ndarray] = field(default_factory=dict)  # own key → steps where it was nan or ±inf
    not_numbers: tuple[str, ...] = ()  # keys that held text (or lists) where a number goes, not read
    notes: tuple[tuple[str, int], ...] = ()  # what the reader did: ("sorted", 1), ("replaced", n), ("eval_rows", n)


@dataclass(frozen=True)
class RunBuckets:
    """A long log drawn in at most B buckets of consecutive steps, each keeping its mean, min and max."""

    first: np.ndarray             # [B] first step of each bucket
    last: np.ndarray              # [B] last step of each bucket
    mean: dict[str, np.ndarray]   # canonical → [B] mean of its finite values (nan if none)
    low: dict[str, np.ndarray]    # canonical → [B] min
    high: dict[str, np.ndarray]   # canonical → [B] max


class _Rows:
    """Rows of (step, key, value) gathered in file order, turned into aligned arrays by ``arrays``."""

    def __init__(self):
        self.steps: list[int] = []
        self.cols: dict[str, tuple[list[int], list[float]]] = {}
        self.texts: set[str] = set()
        self.bad: dict[str, list[int]] = {}   # key → steps where the log wrote nan or ±inf
        self.verl_rows = 0                     # rows in verl's file-logger shape
        self.counts = {"no_step": 0, "eval_rows": 0, "not_numbers": 0, "bad_lines": 0, "bands": 0}

    def add(self, step, values: dict) -> None:
        s = _step(step)
        if s is None:
            self.counts["no_step"] += 1
            return
        row = len(self.steps)
        self.steps.append(s)
        for key, value in values.items():
            x = _number(value)
            if x is None:
                if value is not None and value != "":
                    self.texts.add(key)
                    self.counts["not_numbers"] += 1
                continue
            col = self.cols.get(key)
            if col is None:
                if len(self.cols) >= MAX_KEYS:
                    raise ValueError(f"data holds more than {MAX_KEYS:,} different metric names; this reader "
                                     "reads at most that many")
                col = self.cols[key] = ([], [])
            col[0].append(row)
            col[1].append(x)
            if x != x or x in (np.inf, -np.inf):
                self.bad.setdefault(key, []).append(s)


def _step(value) -> int | None:
    x = _number(value)
    if x is None or not np.isfinite(x) or x < 0 or x > 2**53 or x != int(x):
        return None
    return int(x)


def _number(value) -> float | None:
    """A float from a log's value: a number, a numeric text ("0.5", "NaN", "np.float64(0.5)"), else None."""
    kind = type(value)
    if kind is float:
        return value
    if kind is str:
        if len(value) > 60:
            return None
        try:
            return float(value)   # the common case, fast
        except ValueError:
            if value.endswith(")") and value.startswith(("np.", "tensor(", "float(")):  # numpy's repr, a tensor's
                try:
                    return float(value[value.index("(") + 1:-1].split(",")[0])
                except ValueError:
                    pass
            found = _NUMBER_TEXT.match(value)
            try:
                return float(found.group(1)) if found else None
            except ValueError:
                return None
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value) if abs(value) < 1e308 or not isinstance(value, int) else float("inf")
    return None


def _flat(obj: dict, prefix: str = "", depth: int = 0) -> dict:
    """A nested object's values under "a/b" names (four levels at most; deeper parts are not numbers here)."""
    out = {}
    for k, v in obj.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and depth < 3:
            out.update(_flat(v, key + "/", depth + 1))
        else:
            out[key] = v
    return out


def _loads(text: str):
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("data nests lists or objects deeper than this reader follows") from None


def _json_document(text: str, rows: _Rows) -> str:
    """A JSON log: trainer_state.json (HF), a list of rows (a tracker's export) or JSON lines. Its format."""
    try:
        doc = _loads(text)
    except json.JSONDecodeError as err:
        if err.msg == "Extra data" or ("\n" in text.strip() and _one_line_json(text.lstrip().split("\n", 1)[0])):
            _json_lines(text, rows)
            return "jsonl"
        if err.pos >= len(text.rstrip()) or err.msg.startswith("Unterminated string"):
            raise ValueError(f"data ends before its JSON does ({err}): the file may be cut off") from None
        raise ValueError(f"data is not valid JSON ({err})") from None
    if isinstance(doc, dict) and "log_history" in doc:
        history = doc["log_history"]
        if not isinstance(history, list):
            raise ValueError(f"data's log_history must be a list of rows, got {type(history).__name__}")
        for entry in history:
            if isinstance(entry, dict):
                rows.counts["eval_rows"] += any(str(k).startswith("eval_") for k in entry)
                rows.add(entry.get("step"), _flat({k: v for k, v in entry.items() if k != "step"}))
            else:
                rows.counts["no_step"] += 1
        return "hf"
    if isinstance(doc, dict):
        doc = [doc]
    if not isinstance(doc, list):
        raise ValueError("data is JSON but neither a trainer_state.json (an object with log_history) nor a "
                         "list of rows with a step")
    for entry in doc:
        _json_row(entry, rows)
    return "rows"


def _json_row(entry, rows: _Rows) -> None:
    """One row of JSON lines: verl's file logger ``{"step": N, "data": {...}}`` or a flat row with a step key."""
    if not isinstance(entry, dict):
        rows.counts["no_step"] += 1
        return
    if isinstance(entry.get("data"), dict) and "step" in entry:
        rows.verl_rows += 1
        rows.add(entry["step"], _flat(entry["data"]))
        return
    flat = _flat(entry)
    step_key = next((k for k in STEP_KEYS if k in flat), None)
    rows.counts["eval_rows"] += any(k.startswith(("eval/", "val/", "val-core/")) for k in flat)
    rows.add(flat.get(step_key), {k: v for k, v in flat.items() if k not in STEP_KEYS})


def _json_lines(text: str, rows: _Rows) -> None:
    read = 0
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            entry = _loads(line)
        except json.JSONDecodeError:
            rows.counts["bad_lines"] += 1
            continue
        read += 1
        _json_row(entry, rows)
    if not read:
        raise ValueError("data is not valid JSON lines: no line holds a JSON row")


def _console(text: str, rows: _Rows) -> int:
    """verl's console lines ``step:N - key:value - …`` (ANSI colours and a ``(pid=…)`` prefix allowed)."""
    found = 0
    for line in text.splitlines():
        if "step:" not in line:
            continue
        if "\x1b" in line:
            line = _ANSI.sub("", line)
        m = _CONSOLE.search(line)
        if not m:
            continue
        values = {}
        for part in m.group(2).split(" - "):
            key, sep, value = part.rpartition(":")
            if sep and key.strip():
                values[key.strip()] = value.strip()
        if values:
            found += 1
            rows.counts["eval_rows"] += any(k.startswith(("val/", "val-core/", "val-aux/")) for k in values)
            rows.add(m.group(1), values)
    return found


def _tensorboard_tag(name: str) -> str:
    """The metric of TensorBoard's one-metric CSV, from its file name ("run-x-tag-actor_entropy.csv"): the tag with
    its first "_" read as the "/" the download replaced, when that is a key this reader knows (actor/entropy)."""
    stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    tag = stem.split("-tag-", 1)[1] if "-tag-" in stem else stem
    slashed = tag.replace("_", "/", 1)
    known = any(slashed == k or (k.startswith("^") and re.match(k, slashed))
                for _, keys in runkeys.CONCEPTS.values() for k in keys)
    return slashed if known else tag


def _csv(text: str, rows: _Rows, name: str = "") -> None:
    """A tracker's table: a header with a step column, one column per metric (W&B's "run - key" headers too;
    TensorBoard's "Wall time, Step, Value", its metric named by the file)."""
    reader = csv.reader(text.splitlines())
    try:
        header = [h.strip() for h in next(reader)]
    except (StopIteration, csv.Error):
        raise ValueError("data is a CSV without a header row") from None
    names = [h.split(" - ", 1)[1] if " - " in h else h for h in header]
    if sorted(names) == ["Step", "Value", "Wall time"]:
        names = [_tensorboard_tag(name) if n == "Value" else n for n in names]
    step_col = next((names.index(k) for k in STEP_KEYS if k in names), None)
    if step_col is None:
        shown = ", ".join(names[:8])[:160]
        raise ValueError(f"data is a CSV without a step column (one of {', '.join(STEP_KEYS)}); its columns are "
                         f"{shown}")
    keep = [(i, n) for i, n in enumerate(names) if i != step_col and n and not _WANDB_BAND.search(n)]
    rows.counts["bands"] = sum(1 for n in names if _WANDB_BAND.search(n))
    try:
        for record in reader:
            if not record:
                continue
            if len(record) <= step_col:
                rows.counts["no_step"] += 1
                continue
            rows.add(record[step_col], {n: record[i] for i, n in keep if i < len(record)})
    except csv.Error as err:
        raise ValueError(f"data is a CSV that cannot be read ({err})") from None


def _decode(data) -> str:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"data must be bytes, got {type(data).__name__}")
    if len(data) > MAX_LOG_BYTES:
        raise ValueError(f"data is {len(data):,} bytes long; the limit is {MAX_LOG_BYTES:,} (20 MB)")
    try:
        text = bytes(data).decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(f"data is not UTF-8 text (byte {err.start:,} cannot be read)") from None
    if not text.strip():
        raise ValueError("data is empty")
    return text


def _parse(text: str, name: str = "") -> tuple[str, _Rows]:
    """The rows of a log and its container: "hf", "rows" (JSON), "jsonl", "console" or "csv"."""
    rows = _Rows()
    head = text.lstrip()[:1]
    first = text.lstrip().split("\n", 1)[0]
    if head in ("[", "{"):
        return _json_document(text, rows), rows
    if _console(text, rows):
        return "console", rows
    if "," in first:
        _csv(text, rows, name)
        return "csv", rows
    raise ValueError("data is none of the formats this reader knows: trainer_state.json, JSON lines, verl's "
                     "console lines (step:N - key:value) or a CSV with a step column")


def _one_line_json(line: str) -> bool:
    try:
        return isinstance(_loads(line), dict)
    except (json.JSONDecodeError, ValueError):
        return False


def _arrays(rows: _Rows) -> tuple[np.ndarray, dict[str, np.ndarray], list[tuple[str, int]]]:
    """Unique ascending steps and each key's values on them: a later row of the same step wins."""
    notes = []
    raw = np.asarray(rows.steps, dtype=np.int64)
    if raw.size and np.any(np.diff(raw) < 0):
        notes.append(("sorted", 1))
    steps, where = np.unique(raw, return_inverse=True)
    out, replaced = {}, 0
    for key, (idx, vals) in rows.cols.items():
        pos = where[np.asarray(idx, dtype=np.int64)][::-1]    # newest row first
        kept, first = np.unique(pos, return_index=True)        # each step's newest value
        col = np.full(steps.size, np.nan)
        col[kept] = np.asarray(vals, dtype=np.float64)[::-1][first]
        replaced += pos.size - kept.size
        out[key] = col
    if replaced:
        notes.append(("replaced", replaced))
    return steps, out, notes


# ---------------------------------------------------------------- the keys

_PATTERNS = {name: tuple(re.compile(k) if k.startswith("^") else k for k in keys)
             for name, (_, keys) in runkeys.CONCEPTS.items()}
_EXTRAS = re.compile("|".join(f"(?:{p})" for ps in runkeys.EXTRAS.values() for p in ps))
# who writes a key: the family whose patterns match most of a log's keys (to name a CSV's or JSON list's trainer)
_FAMILY = {name: re.compile("|".join(f"(?:{p})" for p in ps)) for name, ps in runkeys.EXTRAS.items()
           if name != "tracker"}


def _assign(keys) -> tuple[dict[str, str], tuple[str, ...], tuple[str, ...]]:
    """The canonical name of each concept the keys hold (canonical → the log's key, the first by preference),
    then the keys known as a trainer's own but mapped to no concept, then the keys nobody knows."""
    keys = sorted(keys)
    source: dict[str, str] = {}
    for name, patterns in _PATTERNS.items():
        for p in patterns:
            hit = (p if p in keys else None) if isinstance(p, str) else next((k for k in keys if p.match(k)), None)
            if hit is not None and hit not in source.values():
                source[name] = hit
                break
    used = set(source.values())
    rest = [k for k in keys if k not in used]
    # a concept's second key (Unsloth's duplicate completion_length beside completions/mean_length) is known too
    named = {p for ps in _PATTERNS.values() for p in ps if isinstance(p, str)}
    regexes = [p for ps in _PATTERNS.values() for p in ps if not isinstance(p, str)]

    def known(k):
        return k in named or _EXTRAS.match(k) or any(p.match(k) for p in regexes)
    return source, tuple(k for k in rest if known(k)), tuple(k for k in rest if not known(k))


def _family(keys) -> str | None:
    """Whose key names these are ("trl", "verl", "openrlhf"), by the most keys matched, or None."""
    counts = {name: sum(1 for k in keys if p.match(k)) for name, p in _FAMILY.items()}
    best = max(counts, key=counts.get)
    return best if counts[best] else None


def _trl_version(keys) -> str | None:
    """The TRL GRPO version a log's keys date it to (the newest key's), e.g. "0.20", or None."""
    for key, version in runkeys.TRL_SINCE:
        found = any(re.match(key, k) for k in keys) if key.startswith("^") else key in keys
        if found:
            return version
    return None


def _algorithm(trainer: str, keys) -> str | None:
    """The algorithm the keys tell, or None when they do not."""
    ks = set(keys)

    def has(*prefixes):
        return any(k.startswith(prefixes) for k in ks)
    if has("rewards/chosen", "logps/chosen", "train/chosen_reward"):
        if "odds_ratio_loss" in ks:
            return "orpo"
        return "online_dpo" if has("objective/") else "dpo"
    if has("objective/", "policy/approxkl_avg"):
        return "ppo" if has("loss/value_avg", "val/clipfrac_avg") else "rloo"
    if has("critic/vf_loss", "train/critic_loss"):
        return "ppo"
    if trainer == "trl" or has("frac_reward_zero_std", "completions/", "completion_length", "reward_std"):
        return "grpo" if has("reward", "completion", "frac_reward_zero_std") else None
    return None


def read_run(data: bytes, name: str) -> RunLog:
    """Read a training log (bytes of a file) into a ``RunLog``; ``name`` is its file name.

    Recognises TRL's ``trainer_state.json`` (its ``log_history``, eval rows merged by step; GRPO of every
    version, RLOO, PPO, DPO, online DPO, and the trainers built on them), verl's console lines
    ``step:N - key:value - …`` and file-logger JSON lines ``{"step": N, "data": {…}}``, OpenRLHF's
    ``train/…`` and ``eval/…`` rows, and a CSV with a step column. JSON's NaN and Infinity are read as values
    (and listed in ``nonfinite``); a numeric text is read as its number; rows out of order are sorted, and of
    two rows of one step the later one's values win (``notes`` says so).

    Args:
        data: the file's bytes, at most ``MAX_LOG_BYTES`` (20 MB), UTF-8 text.
        name: its file name, kept (cut to 200 characters) to show.

    Returns:
        RunLog(trainer, algorithm, steps [T], series {canonical: [T]}, source, unknown, extras, keys, version,
        conventions, nonfinite, not_numbers, notes).

    Raises ValueError for more than 20 MB, text that is not UTF-8, JSON that is broken or cut off, a CSV
    without a step column, or a log with no step that holds a number.

    >>> log = read_run(b'{"log_history": [{"step": 1, "loss": 0.5, "kl": NaN}]}', "trainer_state.json")
    >>> log.trainer, log.steps.tolist(), log.source["loss"], float(log.series["loss"][0])
    ('trl', [1], 'loss', 0.5)
    """
    text = _decode(data)
    shown = str(name)[:MAX_NAME_CHARS]
    container, rows = _parse(text, shown)
    if not rows.steps:
        raise ValueError("data has no row with a step number (a whole number >= 0), so nothing can be drawn "
                         "against the steps")
    steps, cols, notes = _arrays(rows)
    keys = _family(cols)
    trainer = {"hf": "trl", "console": "verl", "csv": "csv"}.get(container) or keys or "csv"
    if rows.verl_rows:
        trainer = "verl"
    source, known, unknown = _assign(cols)
    algorithm = _algorithm(trainer, cols)
    version = None
    if trainer == "trl" and algorithm == "grpo" and _trl_version(cols):
        version = ("since", _trl_version(cols))
    elif keys == "verl" or trainer == "verl":
        old = any(k in cols for k in ("actor/entropy_loss", "critic/kl")) or any(k.startswith("timing/") for k in cols)
        version = ("before", "0.4.1") if old else None
    nonfinite = {k: np.unique(np.asarray(s, dtype=np.int64)) for k, s in rows.bad.items()}
    counts = rows.counts
    notes += [(k, counts[k]) for k in ("eval_rows", "not_numbers", "no_step", "bad_lines", "bands") if counts[k]]
    return RunLog(name=shown, trainer=trainer, algorithm=algorithm, steps=steps,
                  series={c: cols[k] for c, k in source.items()}, source=source, unknown=unknown,
                  extras={k: cols[k] for k in known}, keys=keys if keys else None, version=version,
                  conventions={c: runkeys.CONVENTIONS[k] for c, k in source.items() if k in runkeys.CONVENTIONS},
                  nonfinite=nonfinite, not_numbers=tuple(sorted(rows.texts - set(cols))), notes=tuple(notes))


def run_buckets(log: RunLog, most: int = 400) -> RunBuckets:
    """The log's concepts in at most ``most`` buckets of consecutive steps, each with its mean, min and max, so a
    long log draws fast and a one-step spike still shows (as its bucket's max).

    >>> b = run_buckets(RunLog("x", "csv", None, np.arange(4), {"kl": np.array([0., 9., 1., 1.])}, {"kl": "kl"},
    ...                        ()), most=2)
    >>> b.first.tolist(), b.high["kl"].tolist(), b.mean["kl"].tolist()
    ([0, 2], [9.0, 1.0], [4.5, 1.0])
    """
    if not isinstance(log, RunLog):
        raise ValueError(f"log must be a RunLog (from read_run), got {type(log).__name__}")
    most = count("most", most)
    n = log.steps.size
    starts = np.unique(np.linspace(0, n, min(n, most) + 1).astype(np.int64)[:-1]) if n else np.zeros(0, int)
    ends = np.append(starts[1:], n) - 1
    mean, low, high = {}, {}, {}
    for name, v in log.series.items():
        ok = np.isfinite(v)
        vf = np.where(ok, v, np.nan)
        counted = np.add.reduceat(ok.astype(np.float64), starts) if n else np.zeros(0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean[name] = np.add.reduceat(np.where(ok, v, 0.0), starts) / counted if n else np.zeros(0)
        low[name] = np.fmin.reduceat(vf, starts) if n else np.zeros(0)
        high[name] = np.fmax.reduceat(vf, starts) if n else np.zeros(0)
    return RunBuckets(first=log.steps[starts], last=log.steps[ends], mean=mean, low=low, high=high)
