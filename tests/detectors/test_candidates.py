"""Candidate families: the protocol, the stacked candidates, their metrics, and a new family plugged in."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.detectors.asdf.families import ClusterFamily
from aif360_subjective.detectors.bitsets import bit_keys, pack_columns
from aif360_subjective.detectors.candidates import CandidateFamily, Candidates, candidate_metrics
from aif360_subjective.detectors.error_control.counters import MemberCounter
from aif360_subjective.detectors.options import check_analysis_options
from aif360_subjective.detectors.ranking import ranking
from aif360_subjective.detectors.significance import Significance, findings_frame


def _table(n: int = 400, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.choice(["x", "y"], n), "b": rng.choice(["u", "v", "w"], n)})
    t = (rng.random(n) < 0.5).astype(int)
    p = (rng.random(n) < np.where(X["a"].to_numpy() == "x", 0.2, 0.7)).astype(int)
    return X, t, p


class RowSetFamily:
    """A family of given row sets (as annotator groups would be): only the protocol's members, nothing else."""

    kind: ClassVar[str] = "rowset"
    method_name: ClassVar[str] = "the row sets"
    has_conditions: ClassVar[bool] = False
    count_label: ClassVar[str | None] = "row sets"

    def __init__(self, masks: np.ndarray) -> None:
        self.masks = masks  # (rows, sets) bool
        self.ids = np.arange(masks.shape[1])
        self.n_rows = masks.shape[0]
        self.method = self.method_name

    def members(self) -> sp.csc_matrix:
        return sp.csc_matrix(self.masks)

    def bits(self) -> np.ndarray:
        return pack_columns(self.members())

    def row_keys(self) -> np.ndarray:
        return bit_keys(self.bits())

    def counter(self) -> MemberCounter:
        return MemberCounter(self.members())

    def sizes(self) -> Any:
        return pd.array(self.masks.sum(axis=0), dtype="Int64")

    def defined(self) -> np.ndarray:
        return np.ones(self.masks.shape[1], dtype=bool)

    def rows(self, i: int) -> np.ndarray:
        return np.flatnonzero(self.masks[:, i])

    def description(self, i: int) -> str:
        return f"set {i}"

    def conditions(self, i: int) -> dict[str, Any]:
        return {}

    def description_class(self) -> np.ndarray:
        return np.full(self.masks.shape[1], self.kind, dtype=object)

    def condition_table(self) -> pd.DataFrame:
        return pd.DataFrame(index=pd.Index(self.ids, name="id"))


def test_the_three_families_implement_the_protocol():
    X, t, p = _table()
    rep = detect_subgroups(X, t, p, discovery="both", n_clusters=3, n_permutations=19, random_state=0)
    assert rep.candidates.kinds == ("cluster", "entropy", "pattern")
    for fam in rep.candidates.families:
        assert isinstance(fam, CandidateFamily), fam.kind
        m = fam.members()
        assert m.shape == (len(X), len(fam.ids))
        # the bitsets, the counter and rows(i) say the same as the memberships
        np.testing.assert_array_equal(fam.bits(), pack_columns(m))
        Y = np.column_stack([np.ones(len(X)), t])
        np.testing.assert_array_equal(fam.counter().count(Y), m.T.astype(np.float64) @ Y)
        # a continuous outcome: every family sums y and y**2 over its candidates' rows (a mean and a variance)
        y = np.linspace(-1.0, 2.0, len(X))
        Yc = np.column_stack([y, y**2])
        np.testing.assert_allclose(fam.counter().count(Yc), m.T.astype(np.float64) @ Yc, rtol=1e-12, atol=1e-9)
        has = fam.defined()
        for i in np.flatnonzero(has)[:5]:
            np.testing.assert_array_equal(fam.rows(int(i)), np.flatnonzero(m[:, i].toarray().ravel()))


def test_candidates_positions_rows_and_the_stacked_counter():
    X, t, p = _table()
    rep = detect_subgroups(X, t, p, discovery="both", n_clusters=3, n_permutations=19, random_state=0)
    c = rep.candidates
    k = rep.n_clusters
    np.testing.assert_array_equal(c.positions("cluster"), np.arange(k))
    np.testing.assert_array_equal(c.positions("entropy"), np.arange(k, 2 * k))
    assert c.positions("pattern")[0] == 2 * k and c.n_candidates == 2 * k + len(c.family("pattern").ids)
    np.testing.assert_array_equal(c.positions("all"), np.arange(c.n_candidates))
    # the stacked counter: the families' counts one after the other
    Y = np.column_stack([t, p]).astype(np.float64)
    stacked = c.counter().count(Y)
    np.testing.assert_array_equal(stacked, np.vstack([f.counter().count(Y) for f in c.families]))
    assert c.family("pattern").description(0) in c.descriptions()
    with pytest.raises(ValueError, match="unknown subgroup id 99"):
        c.position("cluster", 99)
    with pytest.raises(ValueError, match="kind must be one of"):
        c.family("slice")


def test_candidate_metrics_hand_computed():
    # 6 rows, two clusters {0, 1, 2} and {3, 4, 5}; truth and prediction chosen by hand
    labels = np.array([0, 0, 0, 1, 1, 1])
    t = np.array([1, 1, 0, 1, 0, 0])
    p = np.array([1, 0, 0, 1, 1, 1])
    fam = ClusterFamily(labels, np.array([0, 1]), "hand")
    c = Candidates([fam], 6, "asdf")
    m = candidate_metrics(c, t, p, None, "nan", permutation_seed=0)
    # cluster 0: TP 1 (row 0), FN 1 (row 1), TN 1 (row 2); cluster 1: TP 1 (row 3), FP 2 (rows 4, 5)
    np.testing.assert_array_equal(m.row_counts, [[1, 0, 1, 1], [0, 2, 0, 1]])
    np.testing.assert_array_equal(m.total, [1, 2, 1, 2])
    # statistical parity, rest minus subgroup: cluster 0 selects 1/3, the rest 3/3
    assert m.table.loc[("cluster", 0), "statistical_parity"] == pytest.approx(1.0 - 1 / 3)
    # accuracy of cluster 0: 2/3; overall 3/6
    assert m.table.loc[("cluster", 0), "accuracy"] == pytest.approx(2 / 3)
    assert m.table.loc[("cluster", 0), "accuracy_error"] == pytest.approx(2 / 3 - 1 / 2)
    assert m.overall_accuracy == pytest.approx(0.5)
    assert list(m.table["size"]) == [3, 3]


def test_a_new_family_plugs_in_without_edits():
    """A family class with the protocol's members (here: given row sets, as annotator groups would be) is
    counted, ranked, tested and merged like the others; nothing else changes."""
    X, t, p = _table(600, seed=2)
    a = X["a"].to_numpy()
    masks = np.column_stack([a == "x", a == "y", X["b"].to_numpy() == "u"])
    fam = RowSetFamily(masks)
    c = Candidates([fam], len(X), "rowset")
    opts = check_analysis_options(X, n_permutations=99)
    metrics = candidate_metrics(c, t, p, None, "nan", permutation_seed=3)
    sig = Significance(c, metrics, opts)
    rk = ranking(sig, "statistical_parity", kind="rowset", n=None)
    # rows with a = x get favourable predictions 20 % of the time, the others 70 %: set 0 is disadvantaged
    assert list(rk.index) == [0] and rk["subgroup"].iloc[0] == "set 0"
    found = findings_frame(sig, 0.05, 0.95, False, True)
    assert {(m, d) for m, d in zip(found["metric"], found["direction"], strict=True)} >= {
        ("statistical_parity", "disadvantaged"), ("statistical_parity", "favoured")}
    assert set(found["kind"]) == {"rowset"}


def test_a_patterns_only_report_has_no_clustering():
    X, t, p = _table()
    rep = detect_subgroups(X, t, p, discovery="patterns", n_permutations=19, random_state=0)
    assert rep.kinds == ("pattern",) and rep.n_clusters == 0 and rep.clustering == "none"
    assert rep.clusters.isna().all() and len(rep.clusters) == len(X)
    assert rep.pattern_info().empty and list(rep.entropies().columns) == ["a", "b"]
    with pytest.raises(ValueError, match="holds no 'cluster' subgroups"):
        rep.members("cluster", 0)
    assert "patterns=" in repr(rep)


@pytest.mark.slow
def test_patterns_from_reuses_the_mined_patterns_and_checks_them():
    X, t, p = _table()
    first = detect_subgroups(X, t, p, discovery="both", n_clusters=3, n_permutations=19, random_state=0)
    again = detect_subgroups(X, t, p, discovery="both", n_clusters=5, n_permutations=19, random_state=0,
                             patterns_from=first)
    fresh = detect_subgroups(X, t, p, discovery="both", n_clusters=5, n_permutations=19, random_state=0)
    assert again.candidates.family("pattern") is first.candidates.family("pattern")  # not mined again
    pd.testing.assert_frame_equal(again.subgroup_metrics(ci=0.95), fresh.subgroup_metrics(ci=0.95))
    pd.testing.assert_frame_equal(again.findings(), fresh.findings())
    asdf = detect_subgroups(X, t, p, discovery="asdf", n_clusters=3, random_state=0)
    with pytest.raises(ValueError, match="patterns_from holds no mined patterns"):
        detect_subgroups(X, t, p, discovery="both", patterns_from=asdf)
    with pytest.raises(ValueError, match="needs discovery='both' or 'patterns'"):
        detect_subgroups(X, t, p, discovery="asdf", patterns_from=first)
    with pytest.raises(ValueError, match="mined from other rows or columns"):
        detect_subgroups(X.iloc[:-1], t[:-1], p[:-1], discovery="both", patterns_from=first)
    with pytest.raises(ValueError, match="mined with min_support"):
        detect_subgroups(X, t, p, discovery="patterns", min_support=50, patterns_from=first)
    with pytest.raises(TypeError, match="patterns_from must be a SubgroupReport"):
        detect_subgroups(X, t, p, patterns_from="report")
