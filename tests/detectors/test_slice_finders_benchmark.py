"""The helpers of ``benchmarks/slice_finders.py`` on hand-computed cases, without the peers installed."""

import importlib.util

import numpy as np
import pandas as pd
import pytest
from _benchmark_module import benchmark_module


@pytest.fixture(scope="module")
def bench():
    yield from benchmark_module("slice_finders")


def m(*bits):
    return np.array(bits, dtype=bool)


def test_jaccard_hand_cases(bench):
    # |{1}| / |{0, 1, 2}|
    assert bench.jaccard(m(1, 1, 0, 0, 0), m(0, 1, 1, 0, 0)) == pytest.approx(1 / 3)
    assert bench.jaccard(m(1, 1, 1, 0), m(1, 1, 0, 0)) == pytest.approx(2 / 3)
    assert bench.jaccard(m(1, 0), m(0, 1)) == 0.0
    assert bench.jaccard(m(0, 0), m(0, 0)) == 1.0  # two empty sets are equal


def test_top1_scores_hand_cases(bench):
    s = bench.top1_scores(m(1, 1, 0, 0, 0), m(0, 1, 1, 0, 0))
    assert s == {"hit": False, "jaccard": pytest.approx(1 / 3), "precision": 0.5, "recall": 0.5}
    # a superset: all planted rows found, 2 of 3 found rows planted, Jaccard 2/3 >= 0.5
    s = bench.top1_scores(m(1, 1, 1, 0), m(1, 1, 0, 0))
    assert s["hit"] and s["precision"] == pytest.approx(2 / 3) and s["recall"] == 1.0
    # Jaccard exactly 0.5 is a hit
    assert bench.top1_scores(m(1, 1, 0, 0), m(1, 0, 0, 0))["hit"]
    # nothing reported: a miss with zero precision and recall
    assert bench.top1_scores(None, m(1, 0)) == {"hit": False, "jaccard": 0.0, "precision": 0.0, "recall": 0.0}
    # an empty reported subgroup: precision 0, not a division by zero
    assert bench.top1_scores(m(0, 0, 0), m(1, 0, 0))["precision"] == 0.0


def test_hit_at_1_counts_runs(bench):
    planted = [m(1, 1, 0, 0), m(1, 1, 0, 0), m(1, 1, 0, 0)]
    found = [m(1, 1, 0, 0), None, m(0, 0, 1, 1)]
    assert bench.hit_at_1(found, planted) == 1
    # a stricter threshold: the exact match (Jaccard 1) still hits
    assert bench.hit_at_1([m(1, 1, 1, 0)], [m(1, 1, 0, 0)], threshold=0.7) == 0


def test_masks_are_checked(bench):
    with pytest.raises(TypeError, match="found must be a 1-d boolean mask"):
        bench.jaccard(np.array([1, 0]), m(1, 0))
    with pytest.raises(ValueError, match="found has 3 rows, expected 2"):
        bench.top1_scores(m(1, 0, 0), m(1, 0))


def test_quantile_bins_hand_case(bench):
    # quintile edges of 0..9: 0, 1.8, 3.6, 5.4, 7.2, 9; the last bin is closed
    labels = bench.quantile_bins(np.arange(10), bins=5)
    assert labels.tolist() == ["[0, 1.8)"] * 2 + ["[1.8, 3.6)"] * 2 + ["[3.6, 5.4)"] * 2 + ["[5.4, 7.2)"] * 2 + [
        "[7.2, 9]"
    ] * 2
    assert set(bench.quantile_bins(np.full(4, 3.0))) == {"[3, 3]"}
    with pytest.raises(ValueError, match="bins must be >= 2"):
        bench.quantile_bins(np.arange(4), bins=1)
    with pytest.raises(ValueError, match="1 missing values"):
        bench.quantile_bins(np.array([1.0, np.nan, 2.0]))


def test_discretise_and_conditions_mask(bench):
    X = pd.DataFrame({"c": ["a", "b", "a", "b", "a", "b"], "x": [0.0, 1, 2, 3, 4, 5]})
    D = bench.discretise(X, bins=2)  # x has 6 > 2 distinct values: cut at its median 2.5
    assert D["x"].tolist() == ["[0, 2.5)"] * 3 + ["[2.5, 5]"] * 3
    assert bench.conditions_mask(D, {"c": "a", "x": "[0, 2.5)"}).tolist() == [True, False, True, False, False, False]
    assert bench.conditions_mask(D, {"c": ["a", "b"], "x": ["[2.5, 5]"]}).tolist() == [False] * 3 + [True] * 3
    assert bench.conditions_mask(D, {}).all()


def test_summarise_hand_records(bench):
    recs = []
    for seed, (found, planted) in enumerate([(m(1, 1, 0), m(1, 1, 0)), (None, m(1, 0, 0))]):
        r = {"setting": "conjunction SP 0.2", "method": "X", "seed": seed, "any_report": found is not None,
             "any_finding": None, "seconds": 1.0 + seed}
        r.update(bench.top1_scores(found, planted))
        recs.append(r)
    for seed, rep in enumerate([True, False, False, False]):
        recs.append({"setting": "null SP", "method": "ours discovery=both", "seed": seed, "any_report": rep,
                     "any_finding": False, "seconds": 0.5, "hit": False, "jaccard": 0.0, "precision": 0.0,
                     "recall": 0.0})
    t = bench.summarise(recs).set_index(["setting", "method"])
    row = t.loc[("conjunction SP 0.2", "X")]
    assert row["hit@1"] == "1/2" and row["precision"] == 0.5 and row["recall"] == 0.5 and row["s/table"] == 1.5
    null = t.loc[("null SP", "ours discovery=both")]
    assert null["any report"] == "1/4" and null["any finding"] == "0/4"


def test_missing_peer_is_named(bench, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(bench.importlib.util, "find_spec",
                        lambda name, *a: None if name == "sliceline" else real(name, *a))
    peers, missing = bench.available_peers()
    assert "SliceLine" not in peers
    assert any(line.startswith("SliceLine: module 'sliceline' not installed") for line in missing)


def test_settings_cover_the_issue_grid(bench):
    full = bench.settings(10, 15, quick=False)
    names = [s.name for s in full]
    assert {"conjunction SP 0.2", "conjunction ER 0.2", "conjunction SP 0.1", "region SP 0.2", "null SP"} <= set(names)
    assert all(s.seeds >= 10 for s in full)
    # the planted share spreads over 2-10 % of the rows across the seeds, conditions alternate 2 / 3
    s = full[0]
    shares = [bench.table_for(s, seed, n_samples=40_000).planted.mean() for seed in (0, 9)]
    assert shares[0] == pytest.approx(0.02, abs=0.005) and shares[1] == pytest.approx(0.10, abs=0.01)
    assert len(bench.table_for(s, 1, n_samples=200).conditions) == 3


class _FakeReport:
    """Members by (kind, id): kind "pattern" id 7 is rows 0-1, kind "entropy" id 7 is row 2."""

    def members(self, kind, id):
        mask = np.zeros(4, dtype=bool)
        mask[{("pattern", 7): [0, 1], ("entropy", 7): [2]}[(kind, id)]] = True
        return mask


def test_members_of_first_reads_every_index_form(bench):
    rep = _FakeReport()
    by_tuple = pd.DataFrame({"rank": [1]}, index=pd.MultiIndex.from_tuples([("pattern", 7)], names=["kind", "id"]))
    assert bench._members_of_first(rep, by_tuple, "all").tolist() == [True, True, False, False]
    by_column = pd.DataFrame({"rank": [1], "kind": ["entropy"]}, index=pd.Index([7], name="id"))
    assert bench._members_of_first(rep, by_column, "all").tolist() == [False, False, True, False]
    plain = pd.DataFrame({"rank": [1]}, index=pd.Index([7], name="id"))
    assert bench._members_of_first(rep, plain, "entropy").tolist() == [False, False, True, False]
