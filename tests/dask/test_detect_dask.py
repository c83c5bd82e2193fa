"""detect_subgroups on Dask collections: the in-memory candidates, metrics, findings and keyed p-values."""

from __future__ import annotations

import sys

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import make_planted_slice
from aif360_subjective.detectors import dask_summary as ds
from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors._dask.passes import chunks, unchunk
from aif360_subjective.detectors.mining import pattern_mining
from aif360_subjective.detectors.redundancy import containment


@pytest.fixture(scope="module")
def table():
    b = make_planted_slice(6000, n_categorical=4, n_numeric=2, planted_share=0.08, effect=0.25, random_state=3)
    X = b.X.copy()
    X["num1"] = np.round(X["num1"] * 2)  # a numeric column with few values: coded by value
    X["flag"] = X["cat0"] == "a"  # a boolean column
    frame = X.assign(t=np.asarray(b.y_true), p=np.asarray(b.y_pred))
    return X, b, frame


@pytest.fixture
def small_counts(monkeypatch):
    """Force the histogram passes of the exact quantiles (few value counts per partition, small bins)."""
    monkeypatch.setattr(ds, "MAX_VALUE_COUNTS", 40)
    monkeypatch.setattr(ds, "HISTOGRAM_BINS", 32)
    monkeypatch.setattr(ds, "MAX_BIN_ROWS", 50)


def _dask_report(frame, X, npartitions, **kw):
    ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    return detect_subgroups(ddf[list(X.columns)], ddf["t"], ddf["p"], discovery="patterns", random_state=0, **kw)


def test_quantiles_from_order_statistics_are_numpys():
    rng = np.random.default_rng(0)
    q = np.linspace(0, 1, 6)
    for n in (2, 3, 10, 999):
        for x in (rng.normal(size=n), rng.integers(0, 4, n).astype(float), rng.lognormal(2, 3, n)):
            vals, counts = np.unique(x, return_counts=True)
            got = ds.quantiles_from_order_statistics(ds._kth_of_counts(vals, counts), n, q)
            np.testing.assert_array_equal(got, np.quantile(x, q))  # bit for bit


def test_quantile_of_four_values_by_hand():
    # 0, 1, 2, 10: q = 0.5 lies at index 1.5 -> 1.5; q = 0.9 at 2.7 -> 2 + 0.7 * 8 = 7.6
    kth = ds._kth_of_counts(np.array([0.0, 1.0, 2.0, 10.0]), np.array([1, 1, 1, 1]))
    got = ds.quantiles_from_order_statistics(kth, 4, np.array([0.0, 0.5, 0.9, 1.0]))
    np.testing.assert_allclose(got, [0.0, 1.5, 7.6, 10.0], rtol=0, atol=1e-12)


@pytest.mark.parametrize("dist", ["normal", "lognormal", "ties"])
def test_exact_quantiles_by_histogram_passes(small_counts, dist):
    rng = np.random.default_rng(1)
    x = {"normal": rng.normal(size=3000), "lognormal": rng.lognormal(0, 3, 3000),
         "ties": np.round(rng.normal(size=3000), 1)}[dist]
    ddf = dd.from_pandas(pd.DataFrame({"a": x}), npartitions=5, sort=False)
    q = np.linspace(0, 1, 11)
    with dask.config.set(scheduler="sync"):
        summary = ds.summarise(ddf, ddf["a"] > 0, ddf["a"] > 0)
        assert summary.columns["a"].counts is None  # the histogram path
        got = ds.exact_quantiles(ddf, summary, ["a"], q)["a"]
    np.testing.assert_array_equal(got, np.quantile(x, q))


def test_hash_pieces_sum_modulo_two_to_the_64():
    h = np.array([2**64 - 1, 2**63 + 5, 12345], dtype=np.uint64)
    sums = chunks(h).sum(axis=0, keepdims=True)
    with np.errstate(over="ignore"):
        expected = h.sum(dtype=np.uint64)  # wraps modulo 2^64
    assert unchunk(sums)[0] == expected


@pytest.mark.parametrize("npartitions", [1, 4])
@pytest.mark.slow
def test_same_report_as_pandas(table, scheduler, small_counts, npartitions):
    X, b, frame = table
    rd = _dask_report(frame, X, npartitions)
    rp = detect_subgroups(X, b.y_true, b.y_pred, discovery="patterns", random_state=0, permutation="keyed")
    fd, fp = rd.candidates.family("pattern"), rp.candidates.family("pattern")
    assert fd.items.labels == fp.items.labels and fd.items.values == fp.items.values
    assert fd.patterns == fp.patterns and fd.n_identical == fp.n_identical
    np.testing.assert_array_equal(fd.support, fp.support)
    td, tp = rd.candidate_metrics.table, rp.candidate_metrics.table
    pd.testing.assert_index_equal(td.index, tp.index)
    np.testing.assert_allclose(td.to_numpy(float), tp.to_numpy(float), rtol=0, atol=1e-9, equal_nan=True)
    md, mp = rd.significance.max_t(), rp.significance.max_t()
    np.testing.assert_array_equal(md.p_adjusted, mp.p_adjusted)
    np.testing.assert_array_equal(md.p_global, mp.p_global)
    found = rd.findings()
    assert len(found) > 0 and found["description"].str.contains("cat").any()
    pd.testing.assert_frame_equal(found, rp.findings())
    pd.testing.assert_frame_equal(rd.ranking("statistical_parity", kind="pattern"),
                                  rp.ranking("statistical_parity", kind="pattern"))


@pytest.mark.slow
def test_max_patterns_bounds_the_dask_mining_as_in_memory(table, monkeypatch):
    # the bound is decided per length from the frequent extensions, as the in-memory miner decides it
    X, b, frame = table
    # the in-memory level in one block, counted whole (the one-sided conditions of issue 38 made it several blocks)
    monkeypatch.setattr(pattern_mining, "COUNT_BLOCK_BYTES", 2**28)
    with dask.config.set(scheduler="sync"):
        full = _dask_report(frame, X, 3).candidates.family("pattern")
        n_short = sum(len(p) < 3 for p in full.patterns) + full.n_identical
        rd = _dask_report(frame, X, 3, max_patterns=n_short)
    rp = detect_subgroups(X, b.y_true, b.y_pred, discovery="patterns", random_state=0, max_patterns=n_short)
    fd, fp = rd.candidates.family("pattern"), rp.candidates.family("pattern")
    assert max(len(p) for p in full.patterns) == 3
    assert fd.skipped_length == fp.skipped_length == 3 and fd.skipped_count == fp.skipped_count > 0
    assert not fd.skipped_count_is_lower_bound and not fp.skipped_count_is_lower_bound  # one block: counted whole
    assert fd.patterns == fp.patterns and max(len(p) for p in fd.patterns) == 2
    assert rd.mining_note() == rp.mining_note() and "stop at 2 conditions" in rd.mining_note()


@pytest.mark.slow
def test_an_early_stop_in_memory_leaves_out_the_length_dask_leaves_out(table, monkeypatch):
    # in memory, a level counted one pattern at a time stops once its patterns pass the bound (a lower bound on
    # their number); Dask counts the level in one pass (the exact number): the same length is left out
    from aif360_subjective.detectors.mining import pattern_mining

    X, b, frame = table
    with dask.config.set(scheduler="sync"):
        full = _dask_report(frame, X, 3).candidates.family("pattern")
        n_short = sum(len(p) < 3 for p in full.patterns) + full.n_identical
        rd = _dask_report(frame, X, 3, max_patterns=n_short + 10)
    monkeypatch.setattr(pattern_mining, "COUNT_BLOCK_BYTES", 1)
    rp = detect_subgroups(X, b.y_true, b.y_pred, discovery="patterns", random_state=0, max_patterns=n_short + 10)
    fd, fp = rd.candidates.family("pattern"), rp.candidates.family("pattern")
    assert fd.skipped_length == fp.skipped_length == 3 and fd.patterns == fp.patterns
    assert fp.skipped_count_is_lower_bound and not fd.skipped_count_is_lower_bound
    assert 10 < fp.skipped_count < fd.skipped_count
    assert f"the {fd.skipped_count:,} patterns of 3 conditions" in rd.mining_note()
    assert f"at least {fp.skipped_count:,} patterns of 3 conditions" in rp.mining_note()


@pytest.mark.slow
def test_classical_permutation_differs_from_keyed(table):
    X, b, frame = table
    keyed = detect_subgroups(X, b.y_true, b.y_pred, discovery="patterns", random_state=0, permutation="keyed")
    classical = detect_subgroups(X, b.y_true, b.y_pred, discovery="patterns", random_state=0)
    a, c = keyed.significance.max_t().p_adjusted, classical.significance.max_t().p_adjusted
    assert not np.array_equal(a, c, equal_nan=True)
    np.testing.assert_array_equal(keyed.significance.max_t().z, classical.significance.max_t().z)


@pytest.mark.slow
def test_containment_is_the_bitsets(table):
    X, b, frame = table
    with dask.config.set(scheduler="sync"):
        rd = _dask_report(frame, X, 3)
        fd = rd.candidates.family("pattern")
        fp = detect_subgroups(X, b.y_true, b.y_pred, discovery="patterns", random_state=0).candidates.family("pattern")
        pos = np.random.default_rng(0).choice(len(fd.patterns), 300, replace=False)
        g, s, size = fd.containment(pos)
    g2, s2, size2 = containment(fp.bits()[pos], fp.n_rows)
    assert len(g2) > 0
    assert set(zip(g.tolist(), s.tolist(), strict=True)) == set(zip(g2.tolist(), s2.tolist(), strict=True))
    np.testing.assert_array_equal(size, size2)


@pytest.mark.slow
def test_members_are_lazy_until_computed(table, scheduler):
    X, b, frame = table
    rd = _dask_report(frame, X, 3)
    rp = detect_subgroups(X, b.y_true, b.y_pred, discovery="patterns", random_state=0)
    lazy = rd.members("pattern", 7)
    assert isinstance(lazy, dd.Series)
    got = rd.members("pattern", 7, compute=True)
    assert isinstance(got, pd.Series) and got.dtype == bool
    np.testing.assert_array_equal(got.to_numpy(), rp.members("pattern", 7))
    with pytest.raises(ValueError, match="stay in the Dask collection"):
        rd.candidates.rows("pattern", 7)


@pytest.mark.parametrize("discovery", ["asdf", "both"])
def test_clustering_is_refused_naming_patterns(table, discovery):
    X, _, frame = table
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(ValueError, match=f"discovery='{discovery}' is not available on Dask.*discovery=\"patterns\""):
        detect_subgroups(ddf[list(X.columns)], ddf["t"], ddf["p"], discovery=discovery)


@pytest.mark.parametrize("kw, name", [
    ({"groups": np.zeros(6000)}, "groups"), ({"sample_weight": np.ones(6000)}, "sample_weight"),
    ({"task": "multiclass"}, "task"), ({"permutation": "classical"}, "permutation"),
    ({"loss": np.zeros(6000)}, "loss"),
])
def test_unsupported_arguments_are_named(table, kw, name):
    X, _, frame = table
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(ValueError, match=f"^{name}=.*not available on Dask"):
        detect_subgroups(ddf[list(X.columns)], ddf["t"], ddf["p"], discovery="patterns", **kw)


def test_more_than_two_labels_name_the_task(table):
    X, _, frame = table
    ddf = dd.from_pandas(frame.assign(t=np.arange(len(frame)) % 3), npartitions=2)
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match="binary decisions only"):
        detect_subgroups(ddf[list(X.columns)], ddf["t"], ddf["p"], discovery="patterns")


def test_unknown_divisions_refused_when_alignment_needs_them(table):
    X, _, frame = table
    a = dd.from_pandas(frame, npartitions=3).clear_divisions()
    b = dd.from_pandas(frame, npartitions=4).clear_divisions()
    with pytest.raises(ValueError, match="divisions of X and y_true are unknown: aligning them needs known divisions"):
        detect_subgroups(a[list(X.columns)], b["t"], a["p"], discovery="patterns")


@pytest.mark.slow
def test_known_divisions_are_aligned(table):
    X, b, frame = table
    a = dd.from_pandas(frame, npartitions=3)
    c = dd.from_pandas(frame, npartitions=5)
    with dask.config.set(scheduler="sync"):
        rd = detect_subgroups(a[list(X.columns)], c["t"], a["p"], discovery="patterns", random_state=0)
    rp = detect_subgroups(X, b.y_true, b.y_pred, discovery="patterns", random_state=0)
    np.testing.assert_array_equal(rd.candidate_metrics.row_counts, rp.candidate_metrics.row_counts)


def test_series_of_other_collections_refused(table):
    X, _, frame = table
    a = dd.from_pandas(frame, npartitions=3, sort=False)
    # as many rows per partition, other rows (their index says so)
    other = dd.from_pandas(frame.set_axis(frame.index + 10**6), npartitions=3, sort=False).clear_divisions()
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match="come from different Dask collections"):
        detect_subgroups(a[list(X.columns)].clear_divisions(), other["t"], a["p"].clear_divisions(),
                         discovery="patterns")
    shorter = dd.from_pandas(frame.iloc[:5000], npartitions=3, sort=False).clear_divisions()
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match="come from different Dask collections"):
        detect_subgroups(a[list(X.columns)].clear_divisions(), shorter["t"], a["p"].clear_divisions(),
                         discovery="patterns")


def test_pandas_labels_beside_a_dask_frame_refused(table):
    X, b, frame = table
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(TypeError, match="y_true must be a Dask Series partitioned as X"):
        detect_subgroups(ddf[list(X.columns)], b.y_true, ddf["p"], discovery="patterns")


def test_mixed_object_types_across_partitions_refused(table):
    X, _, frame = table
    mixed = frame.copy()
    mixed["cat0"] = mixed["cat0"].astype(object)
    mixed.loc[mixed.index[-2000:], "cat0"] = 7  # the last partition holds ints, the others strings
    # as a CSV read block by block can give: object columns kept as objects
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(mixed, npartitions=3, sort=False)
    with dask.config.set(scheduler="sync"), pytest.raises(TypeError, match="column 'cat0' holds objects of mixed "
                                                                           "types across partitions"):
        detect_subgroups(ddf[list(X.columns)], ddf["t"], ddf["p"], discovery="patterns")


def test_missing_values_counted_and_named(table):
    X, _, frame = table
    holes = frame.copy()
    holes.loc[holes.index[:3], "num0"] = np.nan
    ddf = dd.from_pandas(holes, npartitions=3, sort=False)
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match=r"missing values \(column: count\) "
                                                                            r"\{'num0': 3\}"):
        detect_subgroups(ddf[list(X.columns)], ddf["t"], ddf["p"], discovery="patterns")


def test_labels_outside_the_pair_refused(table):
    X, _, frame = table
    ddf = dd.from_pandas(frame.assign(p=frame["p"] * 2), npartitions=3, sort=False)
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match="y_pred has values .* outside the "
                                                                            "admissible labels"):
        detect_subgroups(ddf[list(X.columns)], ddf["t"], ddf["p"], discovery="patterns")


@pytest.mark.slow
def test_workers_without_the_package_refused(table, cluster):
    from dask.distributed import Client

    import aif360_subjective._dask as backend

    backend._CHECKED.clear()  # a cluster that passed the check is not probed again; this one changes underneath
    X, _, frame = table
    ddf = dd.from_pandas(frame, npartitions=2)
    with Client(cluster, set_as_default=True) as client:
        client.run(lambda: sys.modules.__setitem__("aif360_subjective", None))  # an import now fails there
        try:
            with pytest.raises(RuntimeError, match=r"Dask worker\(s\) cannot import aif360_subjective"):
                detect_subgroups(ddf[list(X.columns)], ddf["t"], ddf["p"], discovery="patterns")
        finally:
            client.run(lambda: sys.modules.pop("aif360_subjective", None))
            backend._CHECKED.clear()


def test_in_memory_permutation_argument_is_checked(table):
    X, b, _ = table
    with pytest.raises(ValueError, match="permutation"):
        detect_subgroups(X, b.y_true, b.y_pred, discovery="patterns", permutation="shuffled")
    with pytest.raises(ValueError, match="permutation='keyed' permutes the rows of binary decisions"):
        detect_subgroups(X, b.y_true, b.y_pred, discovery="patterns", permutation="keyed",
                         groups=np.arange(len(X)) // 2)


def _misordered(table):
    """The table's labels as pandas Series with X's index labels in another order (a Series sorted on its own)."""
    X, _, frame = table
    X = X.iloc[:1500]
    f = frame.iloc[:1500]
    shuffled = np.random.default_rng(0).permutation(len(f))
    return X, f["t"].iloc[shuffled], f["p"].iloc[shuffled]


def test_one_pairing_rule_pandas_refuses_misordered_series(table):
    X, t, p = _misordered(table)
    with pytest.raises(ValueError, match=r"y_true is a pandas Series whose index differs from X's \(the same labels "
                                         r"in another order; first difference at position 0"):
        detect_subgroups(X, t, p, discovery="patterns", random_state=0, n_permutations=19)
    with pytest.raises(ValueError, match=r"y_pred is a pandas Series whose index differs from X's"):
        detect_subgroups(X, t.reindex(X.index), p, discovery="patterns", random_state=0, n_permutations=19)


def test_one_pairing_rule_dask_refuses_misordered_partitions(table):
    X, t, p = _misordered(table)
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match=r"X, y_true and y_pred come from "
                                                                            r"different Dask collections"):
        detect_subgroups(dd.from_pandas(X, npartitions=3, sort=False), dd.from_pandas(t, npartitions=3, sort=False),
                         dd.from_pandas(p, npartitions=3, sort=False), discovery="patterns", random_state=0,
                         n_permutations=19)


def test_one_pairing_rule_same_index_gives_the_same_findings_on_both_engines(table):
    X, t, p = _misordered(table)
    t, p = t.reindex(X.index), p.reindex(X.index)  # aligned by the caller: both engines pair the same rows
    mem = detect_subgroups(X, t, p, discovery="patterns", random_state=0, n_permutations=99, permutation="keyed")
    with dask.config.set(scheduler="sync"):
        parts = [dd.from_pandas(v, npartitions=3, sort=False) for v in (X, t, p)]
        dsk = detect_subgroups(*parts, discovery="patterns", random_state=0, n_permutations=99)
    cols = ["metric", "description", "direction", "size"]
    a, b = mem.findings(0.05)[cols], dsk.findings(0.05)[cols]
    assert len(a) > 0
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))
