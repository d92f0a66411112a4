"""ui.prep, the chart preparation: thinning a run, several runs' seed bands at the steps kept, their long form;
expected values by hand. (The seed bands themselves and the lab's share of dead groups are rlcore's:
tests/rlcore/test_lab_bands.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

from rlcore import SeedBands
from tests.rejects import rejects
from ui.prep import band_rows, bands_at, thin_steps


def test_thin_steps():
    np.testing.assert_array_equal(thin_steps(5, 10), [0, 1, 2, 3, 4])
    # 201 points into at most 51: stride ⌈201/50⌉ = 5 → 0, 5, …, 200 (41 points, last included)
    idx = thin_steps(201, 51)
    assert idx[0] == 0 and idx[-1] == 200 and len(idx) <= 51 and np.all(np.diff(idx) == 5)
    rejects(lambda: thin_steps(10, 1), "max_points")


@pytest.mark.parametrize("n", [2, 25, 26, 401, 2001])
def test_thin_steps_early_keeps_the_ends_and_is_denser_at_the_start(n):
    idx = thin_steps(n, 25, early=True)
    assert idx[0] == 0 and idx[-1] == n - 1 and len(idx) <= 25 and np.all(np.diff(idx) > 0)
    if n > 25:  # the first gaps are narrower than thin_steps' stride, the last no wider than twice it
        stride = thin_steps(n, 25)[1]
        assert idx[1] < stride and np.diff(idx)[-1] <= 2 * stride and len(idx) >= 20
    else:
        np.testing.assert_array_equal(idx, np.arange(n))
    rejects(lambda: thin_steps(10, 1, early=True), "max_points")


def band(median, low, high) -> SeedBands:
    return SeedBands(np.array(median, float), np.array(low, float), np.array(high, float))


def test_bands_at_stacks_runs_at_the_rows_kept():
    a = band([1, 2, 3, 4], [0, 1, 2, 3], [2, 3, 4, 5])
    b = band([10, 20, 30, 40], [9, 19, 29, 39], [11, 21, 31, 41])
    got = bands_at([a, b], np.array([0, 3]))
    assert got.median.tolist() == [[1, 4], [10, 40]] and got.high.tolist() == [[2, 5], [11, 41]]
    two = band([[1, 5], [2, 6]], [[0, 4], [1, 5]], [[2, 6], [3, 7]])   # [T, K]: one column
    assert bands_at([two], np.array([1]), column=1).low.tolist() == [[5]]


@pytest.mark.parametrize(("runs", "rows", "word"), [([], [0], "bands"), (["a"], [0], "bands"),
                                                    ([band([1], [1], [1])], [0.5], "rows")])
def test_bands_at_rejects_what_is_not_bands_and_rows(runs, rows, word):
    rejects(lambda: bands_at(runs, np.array(rows)), word)


def test_band_rows_lays_parts_out_one_row_per_part_series_and_step():
    kl = band([[1, 2], [3, 4]], [[0, 1], [2, 3]], [[2, 3], [4, 5]])     # two runs, two steps
    clip = band([[7]], [[6]], [[8]])                                     # one run, one step
    rows = band_rows({"KL": (np.array([0, 5]), ["A", "B"], kl), "clip": (np.array([5]), ["B"], clip)},
                     series="algorithm", part="quantity")
    assert list(rows) == ["step", "algorithm", "median", "lowest", "highest", "quantity"]
    assert rows["step"].tolist() == [0, 5, 0, 5, 5]
    assert rows["algorithm"].tolist() == ["A", "A", "B", "B", "B"]
    assert rows["median"].tolist() == [1, 2, 3, 4, 7] and rows["highest"].tolist() == [2, 3, 4, 5, 8]
    assert rows["quantity"].tolist() == ["KL"] * 4 + ["clip"]
    rejects(lambda: band_rows({"KL": (np.array([0]), ["A", "B"], kl)}, series="algorithm", part="quantity"), "parts")
