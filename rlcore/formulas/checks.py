"""Input checks shared by every rlcore function.

Each check raises ``ValueError`` whose message names the argument and the
offending value, so a page can show it to the learner as it is. They are cheap (one pass over the array),
so a formula checks its inputs even when a vectorised loop calls it at every step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__: list[str] = []  # helpers: imported by module, not re-exported

PROB_TOL = 1e-9


def show(value) -> str:
    """A short printable form of ``value`` for an error message (at most 80 characters)."""
    try:
        text = np.array2string(np.asarray(value), precision=4, threshold=8) if np.ndim(value) else repr(value)
    except (TypeError, ValueError):  # a ragged list: numpy cannot even look at it, so show it as Python does
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def as_vector(name: str, value, *, min_len: int = 1) -> np.ndarray:
    """A finite 1-D float64 array with at least ``min_len`` entries."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a sequence of numbers, got {show(value)}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size < min_len:
        raise ValueError(f"{name} must have at least {min_len} entries, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers, got {show(arr)}")
    return arr


def as_array(name: str, value) -> np.ndarray:
    """A float64 array of any shape; a value that is not numbers raises ValueError naming ``name``."""
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers only, got {show(value)}") from None


def as_probs(name: str, value) -> np.ndarray:
    """A probability vector: entries in [0, 1] that sum to 1 within 1e-9."""
    arr = as_vector(name, value)
    if np.any(arr < 0) or np.any(arr > 1):
        raise ValueError(f"{name} must lie in [0, 1], got {show(arr)}")
    total = float(arr.sum())
    if abs(total - 1.0) > PROB_TOL:
        raise ValueError(f"{name} must sum to 1, got {show(arr)} (sum {total:.12g})")
    return arr


def as_real(name: str, value) -> float:
    """A finite real number."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {show(value)}") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return x


def in_range(name: str, value, low: float, high: float) -> float:
    """A finite number in the closed interval [low, high]."""
    x = as_real(name, value)
    if not low <= x <= high:
        raise ValueError(f"{name} must lie in [{low:g}, {high:g}], got {x!r}")
    return x


def positive(name: str, value) -> float:
    """A finite number > 0."""
    x = as_real(name, value)
    if x <= 0:
        raise ValueError(f"{name} must be > 0, got {x!r}")
    return x


def non_negative(name: str, value) -> float:
    """A finite number >= 0."""
    x = as_real(name, value)
    if x < 0:
        raise ValueError(f"{name} must be >= 0, got {x!r}")
    return x


def _ndim(value) -> int:
    try:
        return np.ndim(value)
    except (TypeError, ValueError):  # a ragged list: an array that ``finite`` refuses by name
        return 1


def in_range_each(name: str, value, low: float, high: float) -> float | np.ndarray:
    """``in_range`` for a number (a float, as ``in_range`` gives it), or for every entry of an array of any shape
    (a parameter a page scrubs: the formula broadcasts it)."""
    if _ndim(value) == 0:
        return in_range(name, value, low, high)
    x = finite(name, value)
    if x.min() < low or x.max() > high:
        raise ValueError(f"{name} must lie in [{low:g}, {high:g}], got {show(x)}")
    return x


def non_negative_each(name: str, value) -> float | np.ndarray:
    """``non_negative`` for a number (a float), or for every entry of an array of any shape."""
    if _ndim(value) == 0:
        return non_negative(name, value)
    x = finite(name, value)
    if x.min() < 0:
        raise ValueError(f"{name} must be >= 0, got {show(x)}")
    return x


def positive_each(name: str, value) -> float | np.ndarray:
    """``positive`` for a number (a float), or for every entry of an array of any shape."""
    if _ndim(value) == 0:
        return positive(name, value)
    x = finite(name, value)
    if x.min() <= 0:
        raise ValueError(f"{name} must be > 0, got {show(x)}")
    return x


def fit_shapes(**shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape ``shapes`` (argument name → shape) broadcast to; ValueError naming them all when they do not fit."""
    try:
        return np.broadcast_shapes(*shapes.values())
    except ValueError:
        raise ValueError(f"{', '.join(shapes)} shapes do not fit: {', '.join(map(str, shapes.values()))}") from None


def count(name: str, value, *, low: int = 1, high: int | None = None) -> int:
    """A whole number in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be a whole number, got {show(value)}")
    n = int(value)
    if n < low or (high is not None and n > high):
        upper = "" if high is None else f" and <= {high}"
        raise ValueError(f"{name} must be >= {low}{upper}, got {n}")
    return n


def same_length(name_a: str, a: Sequence, name_b: str, b: Sequence) -> None:
    if len(a) != len(b):
        raise ValueError(f"{name_a} and {name_b} must have the same length, got {len(a)} and {len(b)}")


def as_samples(name: str, value, n_actions: int | None = None) -> tuple[np.ndarray, ...]:
    """Per-action score samples: a sequence of non-empty finite score lists."""
    try:
        groups = [as_vector(f"{name}[{i}]", s) for i, s in enumerate(value)]
    except TypeError:
        raise ValueError(f"{name} must be a sequence of score lists, got {show(value)}") from None
    if not groups:
        raise ValueError(f"{name} must not be empty")
    if n_actions is not None and len(groups) != n_actions:
        raise ValueError(f"{name} must have one score list per token ({n_actions}), got {len(groups)}")
    return tuple(groups)


def rng_from(name: str, value) -> np.random.Generator:
    """A numpy Generator from a Generator or an integer seed."""
    if isinstance(value, np.random.Generator):
        return value
    return np.random.default_rng(count(name, value, low=0))


def choice(name: str, value, options: tuple[str, ...]) -> str:
    """One of ``options`` (a string)."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {', '.join(options)}; got {show(value)}")
    return value


def flag(name: str, value) -> bool:
    """True or False (a Python or numpy bool; no other truthy value)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def finite(name: str, value, *, ndim: int | None = None, min_ndim: int = 0) -> np.ndarray:
    """A finite float64 array (with ``ndim`` dimensions when given, at least ``min_ndim``) holding at least one
    number.

    Numbers or booleans only: text such as "3" is refused, not parsed.
    """
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):  # a ragged list
        raw = np.asarray(None)
    if raw.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold numbers only, got {show(value)}")
    arr = np.asarray(raw, dtype=np.float64)  # no copy of a float64 array (as as_vector): rlcore never writes to it
    if (ndim is not None and arr.ndim != ndim) or arr.ndim < min_ndim:
        want = f"{ndim}" if ndim is not None else f"at least {min_ndim}"
        raise ValueError(f"{name} must have {want} dimension(s), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if not np.isfinite(arr).all():  # the method, not np.all: these checks run inside loops
        raise ValueError(f"{name} must contain only finite numbers, got {show(arr)}")
    return arr


def log_probs(name: str, value, **shape) -> np.ndarray:
    """``finite`` log-probabilities: every entry <= 0."""
    lp = finite(name, value, **shape)
    if lp.max() > 0:
        raise ValueError(f"{name} must be log-probabilities (<= 0), got {show(lp)}")
    return lp


def prob_rows(name: str, value) -> np.ndarray:
    """Probability vectors along the last axis: entries in [0, 1], each row summing to 1 within 1e-9."""
    p = finite(name, value)
    if p.ndim == 0:
        raise ValueError(f"{name} must be a probability vector (or a batch of them), got {show(p)}")
    if p.min() < 0 or p.max() > 1:
        raise ValueError(f"{name} must lie in [0, 1], got {show(p)}")
    totals = p.sum(axis=-1)
    if np.abs(totals - 1.0).max() > PROB_TOL:
        raise ValueError(f"{name} must sum to 1 along its last axis, got {show(p)} (sums {show(totals)})")
    return p


def whole_numbers(name: str, value, low: int) -> np.ndarray:
    """``finite`` whole numbers >= ``low`` (as floats)."""
    k = finite(name, value)
    if (k != np.rint(k)).any() or k.min() < low:
        raise ValueError(f"{name} must hold whole numbers >= {low}, got {show(k)}")
    return k


def same_shape(name_a: str, a: np.ndarray, name_b: str, b: np.ndarray) -> None:
    if a.shape != b.shape:
        raise ValueError(f"{name_a} and {name_b} must have the same shape, got {a.shape} and {b.shape}")


def broadcast(name_a: str, a: np.ndarray, name_b: str, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a`` and ``b`` broadcast to one shape; ValueError naming both when their shapes do not fit."""
    try:
        return np.broadcast_arrays(a, b)
    except ValueError:
        raise ValueError(f"{name_a} and {name_b} shapes do not fit: {a.shape} and {b.shape}") from None


def eps_pair(name: str, value) -> tuple[float, float]:
    """A clip range (ε_low, ε_high): two finite numbers > 0; ValueError naming ``name`` otherwise."""
    try:
        pair = tuple(value)
    except TypeError:
        raise ValueError(f"{name} must be a pair (ε_low, ε_high), got {show(value)}") from None
    if len(pair) != 2:
        raise ValueError(f"{name} must be a pair (ε_low, ε_high), got {show(value)}")
    low, high = (positive(name, e) for e in pair)
    return low, high


GRID_TOL = 1e-6     # a grid is uniform when its steps agree to this, relative to the step (decimals add up in binary)
MAX_GRID = 1001     # values of a scrubbed input's grid at most: a chart's data stays within a browser's budget


def scrub_grid(name: str, grid, value_name: str, value, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    """The values a study computes a scrubbed chart at: ``grid`` (at least two values in [low, high], ascending in
    equal steps) and, where the committed ``value`` lies between its points, ``value`` itself after them; and which
    of those values is that exact one (a boolean array of the same length). ``value`` None: the grid alone (a page
    whose input takes only grid points, so that moving it finds the same result). ValueError naming ``name`` or
    ``value_name`` otherwise.

    >>> values, exact = scrub_grid("grid", [0.1, 0.2, 0.3], "eps", 0.25, 0.0, 1.0)
    >>> values.tolist(), exact.tolist()
    ([0.1, 0.2, 0.3, 0.25], [False, False, False, True])
    """
    g = as_vector(name, grid, min_len=2)
    if g.size > MAX_GRID:
        raise ValueError(f"{name} must hold at most {MAX_GRID} values, got {g.size}")
    steps = np.diff(g)
    step = (g[-1] - g[0]) / (g.size - 1)
    if step <= 0 or np.any(np.abs(steps - step) > GRID_TOL * step):
        raise ValueError(f"{name} must ascend in equal steps, got {show(g)}")
    if g[0] < low or g[-1] > high:
        raise ValueError(f"{name} must lie in [{low:g}, {high:g}], got {show(g)}")
    if value is None:
        return g, np.zeros(g.size, dtype=bool)
    v = in_range(value_name, value, low, high)
    on_grid = bool(np.any(np.abs(g - v) <= GRID_TOL * step))
    values = g if on_grid else np.r_[g, v]
    return values, np.r_[np.zeros(g.size, dtype=bool), np.ones(values.size - g.size, dtype=bool)]
