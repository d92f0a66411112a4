"""ui.prep, the chart preparation: thinning a run, the share of dead groups, seed bands; expected values by hand.

(test_dead_share and test_thin_steps also sit in tests/rlcore/test_lab.py, from when rlcore re-exported these
names; they go from there when the lab's tests are rewritten.)
"""

from __future__ import annotations

import numpy as np
import pytest

from ui.prep import dead_share, seed_bands, thin_steps


def test_thin_steps():
    np.testing.assert_array_equal(thin_steps(5, 10), [0, 1, 2, 3, 4])
    # 201 points into at most 51: stride ⌈201/50⌉ = 5 → 0, 5, …, 200 (41 points, last included)
    idx = thin_steps(201, 51)
    assert idx[0] == 0 and idx[-1] == 200 and len(idx) <= 51 and np.all(np.diff(idx) == 5)
    with pytest.raises(ValueError, match="max_points"):
        thin_steps(10, 1)


def test_dead_share():
    dead = np.array([[True, False, True, True], [False, False, True, False]])
    # per step over the two seeds: 0.5, 0, 1, 0.5
    np.testing.assert_allclose(dead_share(dead), [0.5, 0.0, 1.0, 0.5])
    # window 3: 0.5, (0.5+0)/2, (0.5+0+1)/3, (0+1+0.5)/3
    np.testing.assert_allclose(dead_share(dead, 3), [0.5, 0.25, 0.5, 0.5])
    with pytest.raises(ValueError, match="dead"):
        dead_share([1, 0])
    with pytest.raises(ValueError, match="window"):
        dead_share(dead, 0)


def test_seed_bands_hand_values():
    bands = seed_bands([[1.0, 5.0], [3.0, 4.0], [2.0, 9.0]])
    assert bands.median.tolist() == [2.0, 5.0]
    assert bands.low.tolist() == [1.0, 4.0]
    assert bands.high.tolist() == [3.0, 9.0]
    probs = seed_bands(np.zeros((4, 6, 3)))  # [S, T, K] → [T, K]
    assert probs.median.shape == (6, 3)


@pytest.mark.parametrize("values", [[1.0, 2.0], [[1.0], [2.0, 3.0]], [["a"]]], ids=["flat", "ragged", "text"])
def test_seed_bands_rejects_what_is_not_seeds_by_steps(values):
    with pytest.raises(ValueError, match="values"):
        seed_bands(values)
