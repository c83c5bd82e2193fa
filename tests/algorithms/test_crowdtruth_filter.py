"""CrowdTruthFilter: removes spammers, keeps consistent minority annotators, reports what it removed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from aif360.algorithms.transformer import NotFittedError

from aif360_subjective.algorithms.preprocessing import CrowdTruthFilter, label_consistency_z
from aif360_subjective.datasets import MultiAnnotatorDataset, make_subjective_dataset
from aif360_subjective.quality import CrowdTruthResult

SEEDS = [0, 1, 2, 3, 4]


@pytest.fixture(scope="module")
def generated():
    return {seed: make_subjective_dataset(random_state=seed) for seed in SEEDS}


def _removed_share(f: CrowdTruthFilter, ds: MultiAnnotatorDataset) -> pd.Series:
    kind = ds.annotators["kind"]
    removed = pd.Series(kind.index.isin(f.removed_annotators_.index), index=kind.index)
    return removed.groupby(kind).mean()


@pytest.mark.parametrize("seed", SEEDS)
def test_acceptance_per_seed(generated, seed):
    """Removes >= 90% of spammers, keeps >= 90% of minority and >= 95% of regular annotators."""
    ds = generated[seed]
    share = _removed_share(CrowdTruthFilter().fit(ds), ds)
    assert share["spammer"] >= 0.9
    assert 1 - share["minority"] >= 0.9
    assert 1 - share["regular"] >= 0.95


def test_acceptance_larger_minority():
    for seed in SEEDS[:3]:
        ds = make_subjective_dataset(minority_fraction=0.3, random_state=seed)
        share = _removed_share(CrowdTruthFilter().fit(ds), ds)
        assert share["spammer"] >= 0.9 and share["minority"] <= 0.1 and share["regular"] <= 0.05, share


@pytest.mark.slow
def test_protection_is_what_keeps_the_minority(generated):
    """The same threshold without protection removes many minority annotators (CrowdTruth ranks
    them below regular annotators); protection keeps them and still removes the spammers."""
    lost_plain, lost_protected = [], []
    for ds in generated.values():
        plain = CrowdTruthFilter(protect=False).fit(ds)
        protected = CrowdTruthFilter().fit(ds)
        assert protected.threshold_ == plain.threshold_
        lost_plain.append(_removed_share(plain, ds)["minority"])
        lost_protected.append(_removed_share(protected, ds)["minority"])
        assert _removed_share(plain, ds)["spammer"] == 1.0
    assert np.mean(lost_plain) >= 0.3
    assert np.mean(lost_protected) <= 0.1


def test_consistency_z_separates_spammers(generated):
    ds = generated[0]
    z = label_consistency_z(ds)
    kind = ds.annotators["kind"].reindex(z.index)
    assert z[kind == "spammer"].max() < 2.33
    assert z[kind == "regular"].median() > 5
    assert z[kind == "minority"].median() > 2.33


def test_consistency_z_formula():
    # Items with 3 annotators; annotator A's labels vs the share of the others' favourable labels.
    rows = []
    others = {"i1": (1, 1), "i2": (0, 0), "i3": (1, 0), "i4": (1, 1), "i5": (0, 1), "i6": (0, 0)}
    a_labels = {"i1": 1, "i2": 0, "i3": 1, "i4": 0, "i5": 1, "i6": 0}
    for item, (b, c) in others.items():
        rows += [(item, "A", a_labels[item]), (item, "B", b), (item, "C", c)]
    ds = MultiAnnotatorDataset(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
    z = label_consistency_z(ds, min_annotations=4)
    m = np.array([(b + c) / 2 for b, c in others.values()])
    r = np.corrcoef(list(a_labels.values()), m)[0, 1]
    assert z["A"] == pytest.approx(np.arctanh(r) * np.sqrt(6 - 3), rel=1e-12)
    assert np.isnan(label_consistency_z(ds, min_annotations=7)["A"])


def test_transform_output_and_reporting(generated):
    ds = generated[1]
    before = ds.copy(deepcopy=True)
    f = CrowdTruthFilter()
    out = f.fit_transform(ds)
    assert ds == before  # the input is never modified
    assert isinstance(out, MultiAnnotatorDataset)
    assert isinstance(f.scores_, CrowdTruthResult)
    removed = f.removed_annotators_
    assert removed.index.name == "annotator"
    assert list(removed.columns[:2]) == ["wqs", "reason"]
    assert (removed["wqs"] < f.threshold_).all()
    assert removed["reason"].str.contains("< threshold").all()
    assert not np.isin(out.annotator_ids, removed.index).any()
    # Every annotation is kept or belongs to a removed annotator.
    dropped = np.isin(ds.annotator_ids, removed.index)
    assert len(out.annotator_ids) + dropped.sum() == len(ds.annotator_ids)
    meta = out.metadata["crowdtruth_filter"]
    assert meta["n_annotations_kept"] + meta["n_annotations_removed"] == meta["n_annotations_in"] == len(ds.labels)
    assert meta["n_annotators_kept"] + meta["n_annotators_removed"] == meta["n_annotators_in"] == ds.n_annotators
    assert meta["n_annotators_removed"] == len(removed)
    assert meta["n_annotators_protected"] == int(f.annotators_["protected"].sum()) > 0
    assert out.metadata["transformer"] == "CrowdTruthFilter.fit_transform"
    assert f.transform(ds).metadata["transformer"] == "CrowdTruthFilter.transform"
    # Rows kept are exactly the input rows of kept annotators, ids aligned.
    keep = ~dropped
    np.testing.assert_array_equal(out.item_ids, ds.item_ids[keep])
    np.testing.assert_array_equal(out.labels, ds.labels[keep])
    table = f.annotators_
    assert set(table.columns) >= {"wqs", "consistency_z", "candidate", "protected", "removed"}
    assert (table["removed"] == (table["candidate"] & ~table["protected"])).all()


def test_absolute_threshold_and_quantile(generated):
    ds = generated[2]
    assert CrowdTruthFilter(threshold=0.0).fit(ds).removed_annotators_.empty
    wqs = CrowdTruthFilter().fit(ds).scores_.workers["wqs"]
    f = CrowdTruthFilter(threshold=0.8, protect=False).fit(ds)
    assert set(f.removed_annotators_.index) == set(wqs.index[wqs < 0.8])
    q = CrowdTruthFilter(quantile=0.2, protect=False).fit(ds)
    assert q.threshold_ == pytest.approx(np.quantile(wqs, 0.2))
    assert len(q.removed_annotators_) == int((wqs < q.threshold_).sum())
    # Protection applies to every threshold choice.
    qp = CrowdTruthFilter(quantile=0.2).fit(ds)
    assert set(qp.removed_annotators_.index) <= set(q.removed_annotators_.index)


def test_transform_a_part_of_the_fitted_dataset(generated):
    ds = generated[3]
    f = CrowdTruthFilter().fit(ds)
    train, test = ds.split([0.5], shuffle=True, seed=0)
    out = f.transform(test)
    assert not np.isin(out.annotator_ids, f.removed_annotators_.index).any()
    meta = out.metadata["crowdtruth_filter"]
    assert meta["n_annotations_in"] == len(test.labels)
    assert meta["n_annotations_kept"] == len(out.labels)


def test_errors(generated):
    ds = generated[0]
    with pytest.raises(NotFittedError, match="fit"):
        CrowdTruthFilter().transform(ds)
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="threshold must be in"):
            CrowdTruthFilter(threshold=bad)
        with pytest.raises(ValueError, match="quantile must be in"):
            CrowdTruthFilter(quantile=bad)
    with pytest.raises(ValueError, match="'auto' or a WQS"):
        CrowdTruthFilter(threshold="spammers")
    with pytest.raises(TypeError, match="threshold"):
        CrowdTruthFilter(threshold=True)
    with pytest.raises(ValueError, match="not both"):
        CrowdTruthFilter(threshold=0.5, quantile=0.1)
    with pytest.raises(ValueError, match="auto_k"):
        CrowdTruthFilter(auto_k=0)
    with pytest.raises(ValueError, match="min_annotations"):
        CrowdTruthFilter(min_annotations=2)
    with pytest.raises(TypeError, match="MultiAnnotatorDataset"):
        CrowdTruthFilter().fit(ds.to_dataframe())
    f = CrowdTruthFilter().fit(ds)
    with pytest.raises(ValueError, match="not in the dataset given to fit"):
        f.transform(generated[1])


def test_deterministic(generated):
    ds = generated[4]
    a, b = CrowdTruthFilter().fit(ds), CrowdTruthFilter().fit(ds)
    pd.testing.assert_frame_equal(a.removed_annotators_, b.removed_annotators_)
