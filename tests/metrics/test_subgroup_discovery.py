"""SubgroupDiscoveryMetric: AIF360 decoding, equality with the raw-table run, ClassificationMetric parity."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from aif360.algorithms.preprocessing import Reweighing
from aif360.datasets import BinaryLabelDataset
from aif360.metrics import BinaryLabelDatasetMetric, ClassificationMetric

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.metrics import SubgroupDiscoveryMetric

pytestmark = pytest.mark.data


def _aif360_pair(df: pd.DataFrame):
    """COMPAS the way AIF360's StandardDataset encodes it: one-hot 'race=...', sex as a protected code."""
    enc = pd.get_dummies(
        df.drop(columns=["out"]), columns=["c_charge_degree", "race"], prefix_sep="=", dtype=float
    )
    enc["sex"] = (df["sex"] == "Female").astype(float)
    enc = enc.astype(float)
    true = BinaryLabelDataset(
        df=enc,
        label_names=["class"],
        protected_attribute_names=["sex"],
        favorable_label=0.0,
        unfavorable_label=1.0,
        metadata={"protected_attribute_maps": [{1.0: "Female", 0.0: "Male"}]},
    )
    pred = true.copy(deepcopy=True)
    pred.labels = df["out"].to_numpy(dtype=float).reshape(-1, 1)
    return true, pred


@pytest.fixture(scope="module")
def compas(shared_data):
    return pd.read_csv(shared_data / "compas" / "fairvis_compas_out.csv")


@pytest.fixture(scope="module")
def full(compas):
    true, pred = _aif360_pair(compas)
    return (
        true,
        pred,
        SubgroupDiscoveryMetric(true, pred, n_clusters=30, random_state=0, undefined_rates="asdf", discovery="asdf"),
    )


@pytest.fixture(scope="module")
def small(compas):
    df = compas.iloc[:1500].reset_index(drop=True)
    true, pred = _aif360_pair(df)
    return true, pred, SubgroupDiscoveryMetric(true, pred, n_clusters=12, random_state=0)


@pytest.mark.slow
def test_decoding_gives_raw_attributes(full):
    _, _, m = full
    attrs = m.attribute_table
    assert m.attributes == list(attrs.columns)
    assert set(attrs.columns) == {
        "age",
        "c_charge_degree",
        "race",
        "sex",
        "priors_count",
        "days_b_screening_arrest",
        "jail_length_days",
    }
    assert set(attrs["race"]) == {
        "African-American",
        "Asian",
        "Caucasian",
        "Hispanic",
        "Native American",
        "Other",
    }
    assert set(attrs["sex"]) == {"Male", "Female"}
    assert m.patterns().loc[2, "race"] == "African-American"


@pytest.mark.slow
def test_equals_the_raw_table_run_and_the_reference(full, compas, reference_dir):
    _, _, m = full
    raw = detect_subgroups(
        compas.drop(columns=["out", "class"]),
        compas["class"],
        compas["out"],
        pos_label=0,
        n_clusters=30,
        undefined_rates="asdf",
        random_state=0,
        discovery="asdf",
    )
    pd.testing.assert_frame_equal(m.subgroup_metrics(), raw.subgroup_metrics(), check_exact=True)
    a, b = m.patterns(), raw.patterns()[m.patterns().columns]
    for col in a.columns:
        assert a[col].isna().tolist() == b[col].isna().tolist()
        if a[col].dtype.kind == "f":
            np.testing.assert_array_equal(a[col].dropna().to_numpy(), b[col].dropna().to_numpy(dtype=float))
        else:
            assert a[col].dropna().tolist() == b[col].dropna().tolist()
    ref = pd.read_csv(reference_dir / "asdf" / "compas_slink_k30_tau0.65" / "subgroup_metrics.csv")
    np.testing.assert_allclose(
        m.subgroup_metrics().loc["entropy", "statistical_parity"].to_numpy(),
        ref["g_stat_par"].to_numpy(),
        atol=1e-9,
    )
    assert m.summary().shape == (2, 5)
    assert m.ranking("accuracy", kind="cluster", n=3, alpha=None).shape[0] == 3


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # aif360 divides by zero where a rate is undefined
@pytest.mark.parametrize("kind", ["cluster", "entropy"])
@pytest.mark.slow
def test_exported_groups_reproduce_every_defined_value_in_classification_metric(small, kind):
    _, _, m = small
    T, P = m.subgroup_datasets(kind)
    ours = m.subgroup_metrics().loc[kind]
    info = m.pattern_info()
    checked = 0
    for i in ours.index:
        if kind == "entropy" and (info.loc[i, "is_empty"] or info.loc[i, "is_duplicate"]):
            continue
        subgroup, rest = m.aif360_groups(kind, i)
        cm = ClassificationMetric(T, P, privileged_groups=subgroup, unprivileged_groups=rest)
        theirs = {
            "size": cm.num_instances(privileged=True),
            "statistical_parity": cm.statistical_parity_difference(),
            "equal_opportunity": cm.equal_opportunity_difference(),
            "equalized_odds": cm.average_odds_difference(),
            "accuracy": cm.accuracy(privileged=True),
            "accuracy_error": cm.accuracy(privileged=True) - cm.accuracy(),
        }
        for col, v in theirs.items():
            mine = float(ours.loc[i, col])
            if np.isnan(v):
                assert np.isnan(mine), (kind, i, col)
            else:
                assert mine == pytest.approx(v, abs=1e-12), (kind, i, col)
                checked += 1
        assert cm.num_instances(privileged=False) + cm.num_instances(privileged=True) == len(T.labels)
    assert checked > 50


def test_groups_are_in_encoded_values(full):
    _, _, m = full
    subgroup, rest = m.aif360_groups("entropy", 2)
    assert subgroup == [
        {
            "sex": 0.0,
            "days_b_screening_arrest": -1.0,
            "jail_length_days": 0.0,
            "c_charge_degree=Felony": 1.0,
            "race=African-American": 1.0,
        }
    ]
    assert {"race=African-American": 0.0} in rest and {"sex": 1.0} in rest
    sg, rest_c = m.aif360_groups("cluster", 2)
    assert sg == [{"cluster": 2.0}] and len(rest_c) == 29


def test_a_mitigator_uses_a_discovered_subgroup(small):
    true, _, m = small
    T, _ = m.subgroup_datasets("entropy")
    worst = m.ranking("statistical_parity", n=1, alpha=None).index[0]
    subgroup, rest = m.aif360_groups("entropy", worst)
    before = BinaryLabelDatasetMetric(T, privileged_groups=subgroup, unprivileged_groups=rest)
    reweighed = Reweighing(unprivileged_groups=rest, privileged_groups=subgroup).fit_transform(T)
    after = BinaryLabelDatasetMetric(reweighed, privileged_groups=subgroup, unprivileged_groups=rest)
    assert abs(after.statistical_parity_difference()) < 1e-9 < abs(before.statistical_parity_difference())
    assert np.array_equal(true.features, m.dataset.features)  # the metric's datasets are untouched
    assert true.protected_attribute_names == ["sex"]


def test_cluster_column_helper_adds_column(small):
    true, _, m = small
    T, P = m.subgroup_datasets("cluster")
    assert T.feature_names[-1] == "cluster" and "cluster" in T.protected_attribute_names
    np.testing.assert_array_equal(T.features[:, -1], m.clusters.to_numpy())
    assert "cluster" not in true.feature_names


def test_accessors_return_fresh_objects(small):
    _, _, m = small
    a = m.subgroup_metrics()
    a.iloc[:, :] = 0
    assert not (m.subgroup_metrics() == 0).all().all()
    assert m.patterns() is not m.patterns()


def test_weights_are_used_like_aif360(compas):
    df = compas.iloc[:600].reset_index(drop=True)
    true, pred = _aif360_pair(df)
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(df))
    true.instance_weights = w.copy()
    pred.instance_weights = w.copy()
    m = SubgroupDiscoveryMetric(true, pred, n_clusters=5, random_state=0)
    T, P = m.subgroup_datasets("cluster")
    subgroup, rest = m.aif360_groups("cluster", 0)
    cm = ClassificationMetric(T, P, privileged_groups=subgroup, unprivileged_groups=rest)
    assert m.subgroup_metrics(ci=None).loc[("cluster", 0), "statistical_parity"] == pytest.approx(
        cm.statistical_parity_difference(), abs=1e-12
    )


def test_bad_inputs(compas):
    df = compas.iloc[:200].reset_index(drop=True)
    true, pred = _aif360_pair(df)
    with pytest.raises(TypeError, match="BinaryLabelDataset"):
        SubgroupDiscoveryMetric(df, pred)
    other = true.copy(deepcopy=True)
    other.favorable_label, other.unfavorable_label = 1.0, 0.0
    with pytest.raises(ValueError, match="favourable labels differ"):
        SubgroupDiscoveryMetric(true, other)
    with pytest.raises(ValueError, match=r"attributes: unknown column\(s\) \['colour'\]"):
        SubgroupDiscoveryMetric(true, pred, n_clusters=3, attributes=["race", "colour"])
    with pytest.raises(ValueError, match="entropy_threshold"):
        SubgroupDiscoveryMetric(true, pred, entropy_threshold=2)
    with pytest.raises(ValueError, match="n_clusters"):
        SubgroupDiscoveryMetric(true, pred, n_clusters=1)
    with pytest.raises(ValueError, match="cluster_column"):
        SubgroupDiscoveryMetric(true, pred, n_clusters=3, cluster_column="age")
    m = SubgroupDiscoveryMetric(true, pred, n_clusters=3, attributes=["race", "sex"], random_state=0)
    assert m.attributes == ["race", "sex"]  # reads back as given: names, not the table
    assert list(m.attribute_table.columns) == ["race", "sex"]
    with pytest.raises(ValueError, match="unknown subgroup id"):
        m.aif360_groups("entropy", 42)


def test_intervals_and_significant_ranking_pass_through(small):
    _, _, m = small
    pd.testing.assert_frame_equal(m.subgroup_metrics(), m.report.subgroup_metrics())
    pd.testing.assert_frame_equal(m.subgroup_metrics(ci=None), m.report.subgroup_metrics(ci=None))
    assert m.subgroup_metrics().attrs["undefined"] == m.report.subgroup_metrics().attrs["undefined"]
    for direction in ("disadvantaged", "favoured"):
        ours = m.ranking("accuracy_error", direction=direction, n=None)
        pd.testing.assert_frame_equal(ours, m.report.ranking("accuracy_error", direction=direction, n=None))
        assert ours.attrs == m.report.ranking("accuracy_error", direction=direction, n=None).attrs
    with pytest.warns(DeprecationWarning, match="ascending"):
        old = m.ranking("statistical_parity", n=3, ascending=False)
    pd.testing.assert_frame_equal(old, m.ranking("statistical_parity", n=3, alpha=None))


def test_deprecated_ascending_warning_names_the_caller(small):
    _, _, m = small
    with pytest.warns(DeprecationWarning, match="ascending") as rec:
        m.ranking("accuracy", n=2, ascending=True)
    assert len(rec) == 1 and rec[0].filename == __file__


def test_groups_by_name(full):
    """names=True: the same subgroup with category names instead of codes (sex 0.0 is Male in COMPAS' map)."""
    _, _, m = full
    coded, _ = m.aif360_groups("entropy", 2)
    named, rest = m.aif360_groups("entropy", 2, names=True)
    assert named == [m.report.pattern_conditions(2)]
    assert named[0]["race"] == "African-American" and named[0]["c_charge_degree"] == "Felony"
    assert named[0]["sex"] == "Male" and coded[0]["sex"] == 0.0
    assert {"race": "Caucasian"} in rest and {"sex": "Female"} in rest
    assert {"race": "African-American"} not in rest


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # aif360 divides by zero where a rate is undefined
@pytest.mark.slow
def test_exported_pattern_groups_reproduce_classification_metric(small):
    _, _, m = small
    T, P = m.subgroup_datasets("pattern")
    ours = m.subgroup_metrics(ci=None, kind="pattern").loc["pattern"]
    with_range = [i for i in ours.index if any(isinstance(v, tuple)
                                              for v in m.report.pattern_conditions(i, kind="pattern").values())]
    ids = list(ours.index[:4]) + with_range[:3] + list(ours.index[-3:])
    assert with_range, "no mined pattern with a numeric range"
    for i in ids:
        subgroup, rest = m.aif360_groups("pattern", i)
        cm = ClassificationMetric(T, P, privileged_groups=subgroup, unprivileged_groups=rest)
        assert cm.num_instances(privileged=True) == ours.loc[i, "size"]
        assert cm.num_instances(privileged=False) + cm.num_instances(privileged=True) == len(T.labels)
        assert float(ours.loc[i, "statistical_parity"]) == pytest.approx(cm.statistical_parity_difference(), abs=1e-12)
        assert float(ours.loc[i, "accuracy"]) == pytest.approx(cm.accuracy(privileged=True), abs=1e-12)


def test_groups_permute_clusters_on_the_aif360_face(compas):
    df = compas.iloc[:600].reset_index(drop=True)
    true, pred = _aif360_pair(df)
    person = np.repeat(np.arange(200), 3)  # rows in threes, as three records of one person
    m = SubgroupDiscoveryMetric(true, pred, discovery="patterns", n_permutations=19, random_state=0, groups=person)
    assert m.report.unit.startswith("200 clusters of rows by id (whole clusters permuted")
    assert m.report.task == "binary" and "AIF360" in m.report.task_reason
    with pytest.raises(ValueError, match="groups: unknown column"):
        SubgroupDiscoveryMetric(true, pred, discovery="patterns", n_permutations=19, groups="person_id")
    with pytest.raises(ValueError, match="groups must have one cluster id per row"):
        SubgroupDiscoveryMetric(true, pred, discovery="patterns", n_permutations=19, groups=person[:10])


@pytest.mark.parametrize("name", ["patterns", "findings", "discovery_summary", "discovery_sentence", "pattern_info",
                                  "subgroup_metrics", "summary", "ranking"])
def test_face_methods_are_the_reports(small, name):
    """The AIF360 face delegates: its methods have the report's signatures and docstrings (they cannot drift, as
    the copies did: ``ranking`` without ``label=``, ``findings`` without ``keep_redundant``)."""
    import inspect

    from aif360_subjective.detectors import SubgroupReport

    face, report = getattr(SubgroupDiscoveryMetric, name), getattr(SubgroupReport, name)
    assert inspect.signature(face) == inspect.signature(report)
    assert face.__doc__ == report.__doc__ and face.__doc__
    _, _, m = small
    assert getattr(m, name) == getattr(m.report, name)  # the report's bound method
    assert getattr(m, name).__self__ is m.report


def test_face_findings_keep_redundant_reaches_the_report(small):
    _, _, m = small
    kept = m.findings(keep_redundant=True)
    pd.testing.assert_frame_equal(kept, m.report.findings(keep_redundant=True))
    assert len(kept) >= len(m.findings())
