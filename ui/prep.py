"""Chart preparation: shaping rlcore's arrays for a chart, with no RL maths in it.

Thinning a long run to the points a chart keeps, picking several runs' seed bands at those points, and laying
them out in long form, one row per point. Pure numpy (no streamlit, altair or pandas): a page makes the DataFrame.
Bad input raises ``ValueError`` naming the argument, like rlcore. The seed bands themselves are rlcore's
(``rlcore.seed_bands``).
"""

from __future__ import annotations

import numpy as np

import rlcore


def thin_steps(n: int, max_points: int, *, early: bool = False) -> np.ndarray:
    """At most ``max_points`` evenly spaced indices of 0…n−1, always with the first and the last; with ``early``,
    evenly spaced in step / (n − 1) + log(1 + step) / log(n) instead: late in the run half as dense, near its start
    far denser, so a descent's fast start is drawn as finely as its slow tail.

    What a chart keeps of a long run so that it stays small (``early``: when few points must do, as in a scrubbed
    chart, which redraws them all on every move).

    >>> thin_steps(11, 4).tolist()
    [0, 4, 8, 10]
    >>> thin_steps(3, 10).tolist()
    [0, 1, 2]
    >>> thin_steps(401, 10, early=True).tolist()
    [0, 3, 11, 32, 71, 123, 185, 253, 325, 400]
    """
    size = rlcore.checks.count("n", n, low=1)
    top = rlcore.checks.count("max_points", max_points, low=2)
    if size <= top:
        return np.arange(size)
    if early:
        steps = np.arange(size)
        place = steps / (size - 1) + np.log1p(steps) / np.log(size)  # 0 … 2, increasing
        return np.unique(np.round(np.interp(np.linspace(0.0, 2.0, top), place, steps)).astype(int))
    stride = -(-size // (top - 1))
    idx = np.arange(0, size, stride)
    return idx if idx[-1] == size - 1 else np.append(idx, size - 1)


def bands_at(bands, rows, column: int | None = None) -> rlcore.SeedBands:
    """Several runs' seed bands of one quantity at the rows a chart keeps, one run per row: shape [R, N].

    Args:
        bands: R ``rlcore.SeedBands`` of the same quantity, each of shape [T] (or [T, K] with ``column``).
        rows: N indices into T (the steps a chart keeps, less one for a quantity measured from step 1).
        column: the column of [T, K] bands to take (a token, a decision point); None for [T] bands.

    >>> b = rlcore.SeedBands(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 2.0]), np.array([2.0, 3.0, 4.0]))
    >>> bands_at([b, b], [0, 2]).median.tolist()
    [[1.0, 3.0], [1.0, 3.0]]
    """
    runs = list(bands)
    if not runs or not all(isinstance(b, rlcore.SeedBands) for b in runs):
        raise ValueError(f"bands must be one rlcore.SeedBands or more, got {runs!r:.80}")
    at = np.asarray(rows)
    if at.ndim != 1 or at.dtype.kind not in "iu":
        raise ValueError(f"rows must be a list of whole numbers, got {rows!r:.80}")
    where = at if column is None else (at, rlcore.checks.count("column", column, low=0))
    return rlcore.SeedBands(*(np.stack([getattr(b, part)[where] for b in runs]) for part in ("median", "low", "high")))


def band_rows(parts: dict, *, series: str, part: str) -> dict[str, np.ndarray]:
    """The long form of stacked seed bands, as a band chart reads it: one row per part, series and step.

    Args:
        parts: label → (steps [N], names [R], rlcore.SeedBands [R, N]): each part's steps, the names of its R series
            (an algorithm, a decoding), and their bands (``bands_at``); the parts in the order of their rows.
        series: the name of the column that holds the series' names.
        part: the name of the column that holds the part's label (a chart's panel, a token).

    Returns:
        the columns step, ``series``, median, lowest, highest, ``part``, of equal length Σ R·N.

    >>> b = rlcore.SeedBands(np.array([[1.0, 2.0]]), np.array([[0.0, 1.0]]), np.array([[2.0, 3.0]]))
    >>> rows = band_rows({"KL": ([0, 5], ["GRPO"], b)}, series="algorithm", part="quantity")
    >>> rows["step"].tolist(), rows["algorithm"].tolist(), rows["median"].tolist(), rows["quantity"].tolist()
    ([0, 5], ['GRPO', 'GRPO'], [1.0, 2.0], ['KL', 'KL'])
    """
    columns: dict[str, list] = {"step": [], series: [], "median": [], "lowest": [], "highest": [], part: []}
    for label, (steps, names, bands) in parts.items():
        n, size = len(steps), len(names) * len(steps)
        if bands.median.shape != (len(names), n):
            raise ValueError(f"parts[{label!r}] must hold bands of shape {(len(names), n)}, got {bands.median.shape}")
        columns["step"].append(np.tile(steps, len(names)))
        columns[series].append(np.repeat(np.asarray(names, dtype=object), n))
        for name, values in (("median", bands.median), ("lowest", bands.low), ("highest", bands.high)):
            columns[name].append(values.ravel())
        columns[part].append(np.full(size, label, dtype=object))
    return {name: np.concatenate(values) for name, values in columns.items()}
