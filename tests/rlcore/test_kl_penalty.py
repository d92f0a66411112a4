"""rlcore/studies/kl_penalty.py: ``kl_curve`` over an array of β is the one-β call at each of them."""

import numpy as np

import rlcore
from tests.rejects import rejects


def test_kl_curve_over_an_array_of_beta_is_kl_curve_at_each():
    betas = [0.0, 0.3, 1.0, 4.9]
    many = rlcore.kl_curve(rlcore.FLATTERY, 0.9, betas)
    assert many.curve.shares.shape == many.keep.shape == (4, 54) and many.points.kl.shape == (4, 3)
    for k, b in enumerate(betas):
        one = rlcore.kl_curve(rlcore.FLATTERY, 0.9, b)
        np.testing.assert_array_equal(many.curve.shares[k][many.keep[k]], one.curve.shares)
        np.testing.assert_allclose(many.curve.objective[k][many.keep[k]], one.curve.objective, rtol=0, atol=1e-12)
        np.testing.assert_allclose(many.points.objective[k], one.points.objective, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(many.best[k], one.best)
    rejects(lambda: rlcore.kl_curve(rlcore.FLATTERY, 0.9, [0.5, -0.1]), "beta")
    rejects(lambda: rlcore.kl_curve(rlcore.FLATTERY, 0.9, [[0.5]]), "beta")
