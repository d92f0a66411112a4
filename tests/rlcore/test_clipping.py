"""rlcore/studies/clipping.py: ``clip_curve`` over an array of ε is the one-ε call at each of them."""

import numpy as np

import rlcore
from tests.rejects import rejects


def test_clip_curve_over_an_array_of_eps_is_clip_curve_at_each():
    epss = [0.05, 0.2, 0.25, 0.5]
    for token in ("partly", "closed"):  # A > 0 and A < 0: the bound on either side
        many = rlcore.clip_curve(rlcore.ARTICLE_SCENARIO, token, epss)
        assert many.x.shape == many.keep.shape == many.pos.shape == (4, 54)
        for k, e in enumerate(epss):
            one = rlcore.clip_curve(rlcore.ARTICLE_SCENARIO, token, e)
            np.testing.assert_array_equal(many.x[k][many.keep[k]], one.x)
            for field in ("pos", "neg"):
                np.testing.assert_allclose(getattr(many, field)[k][many.keep[k]], getattr(one, field), atol=1e-12)
            for field in ("low", "high", "factor", "bound", "added"):
                assert getattr(many, field)[k] == getattr(one, field), field
    rejects(lambda: rlcore.clip_curve(rlcore.ARTICLE_SCENARIO, "partly", [0.2, 1.0]), "eps")
    rejects(lambda: rlcore.clip_curve(rlcore.ARTICLE_SCENARIO, "partly", [0.2, 0.0]), "eps")
