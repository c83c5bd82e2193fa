"""MeanRatingRegressor: the items' mean ratings learnt from their text, rounded to the scale."""

import numpy as np
import pandas as pd
import pytest
from aif360.algorithms.transformer import NotFittedError

from aif360_subjective.algorithms.inprocessing import MeanRatingRegressor
from aif360_subjective.datasets import MultiAnnotatorDataset


def _ds(n_items=60):
    rng = np.random.default_rng(0)
    words = {1: "calm kind gentle friendly lovely", 5: "awful hateful nasty vile rude"}
    level = rng.choice([1, 5], n_items)
    text = [" ".join(rng.choice(words[v].split(), 6)) for v in level]
    items = pd.DataFrame({"text": text}, index=pd.Index([f"i{k}" for k in range(n_items)], name="item"))
    rows = [(f"i{k}", f"a{a}", int(np.clip(level[k] + rng.integers(-1, 2), 1, 5))) for k in range(n_items)
            for a in range(3)]
    ann = pd.DataFrame(rows, columns=["item", "annotator", "rating"]).assign(label=lambda d: (d.rating >= 3) * 1)
    return MultiAnnotatorDataset(ann, items=items, info_columns=("rating",)), level


def test_predicts_the_scale_level_of_each_items_text():
    ds, level = _ds()
    model = MeanRatingRegressor().fit(ds)
    pred = model.predict(ds)
    assert pred.shape == (len(ds.labels),) and set(np.unique(pred)) <= set(model.levels_)
    item_level = np.repeat(level, 3)
    # the text says the level: predictions on the low items are below those on the high items
    assert pred[item_level == 1].mean() < 2.5 < pred[item_level == 5].mean()
    np.testing.assert_array_equal(model.ratings(ds)[:3], ds.annotation_info["rating"].to_numpy()[:3])


def test_rounds_to_the_nearest_level():
    ds, _ = _ds()
    model = MeanRatingRegressor().fit(ds)
    model.levels_ = np.array([1.0, 2.0, 4.0])

    class Fixed:
        def predict(self, x):
            return np.full(x.shape[0], 2.9)  # nearer 2 than 4 (midpoint 3)

    model.estimator_ = Fixed()
    assert set(model.predict(ds)) == {2.0}


def test_errors():
    ds, _ = _ds()
    with pytest.raises(NotFittedError):
        MeanRatingRegressor().predict(ds)
    with pytest.raises(ValueError, match="rating_column 'stars' is not a column"):
        MeanRatingRegressor("stars").fit(ds)
    with pytest.raises(TypeError, match="rating_column must be a column name"):
        MeanRatingRegressor(3)
