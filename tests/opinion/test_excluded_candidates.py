"""The annotator groups are a candidate family of the subgroup discovery's protocol."""

from __future__ import annotations

import numpy as np
import pandas as pd

from aif360_subjective.detectors.candidates import CandidateFamily
from aif360_subjective.opinion.excluded_candidates import AnnotatorGroups, build_candidates


def test_annotator_groups_are_a_candidate_family_classed_by_number_of_conditions():
    # 6 annotators; g=a holds 0-3, e=u holds 0, 1, 4, 5; both: 0, 1
    table = pd.DataFrame({"g": ["a", "a", "a", "a", "b", "b"], "e": ["u", "u", "v", "v", "u", "u"]})
    fam = build_candidates(table, max_conditions=2, min_units=2, ranges=4)
    assert isinstance(fam, AnnotatorGroups) and isinstance(fam, CandidateFamily)
    assert fam.kind == "annotator" and fam.n_rows == 6
    descriptions = [fam.description(i) for i in range(len(fam.ids))]
    members = fam.members().toarray()
    assert members.shape == (6, len(descriptions))
    by_name = {d: set(np.flatnonzero(members[:, i])) for i, d in enumerate(descriptions)}
    assert by_name["g=a"] == {0, 1, 2, 3} and by_name["e=u"] == {0, 1, 4, 5}
    assert by_name["g=a AND e=u"] == {0, 1}
    # g=b holds the same annotators as e=u AND g=b: the shorter description is kept, the other counted
    assert "g=b" in by_name and "e=u AND g=b" not in by_name and "g=b AND e=u" not in by_name
    assert fam.n_identical >= 1
    classes = fam.description_class()
    np.testing.assert_array_equal(classes, [f"annotator:{d.count(' AND ') + 1}" for d in descriptions])
    np.testing.assert_array_equal(fam.n_conditions, [d.count(" AND ") + 1 for d in descriptions])
    assert fam.missing == {}


def test_no_candidate_gives_an_empty_membership_and_missing_values_are_counted():
    table = pd.DataFrame({"g": ["a", "b", None, "c"]})
    fam = build_candidates(table, max_conditions=1, min_units=3, ranges=4)
    assert fam.members().shape == (4, 0) and len(fam.description_class()) == 0
    assert fam.missing == {"g": 1}


# ------------------------------------------------------------------------------------------------ the options
def _small():
    rng = np.random.default_rng(0)
    n = 30
    table = pd.DataFrame({"g": rng.choice(["a", "b"], n)}, index=pd.Index([f"a{i}" for i in range(n)]))
    who = np.repeat(np.arange(n), 10)
    item = np.tile(np.arange(10), n)
    y = rng.integers(0, 2, len(who))
    return y, np.where(rng.random(len(who)) < 0.8, y, 1 - y), item, table.index[who].to_numpy(), table


def test_n_perm_is_a_deprecated_name_of_n_permutations():
    import pytest

    from aif360_subjective.opinion import excluded_groups
    from aif360_subjective.opinion.excluded import check_discovery_options

    y, pred, item, who, table = _small()
    kw = {"item_ids": item, "annotator_ids": who, "annotators": table, "random_state": 0}
    new = excluded_groups(y, pred, n_permutations=39, **kw)
    with pytest.warns(DeprecationWarning, match=r"excluded_groups\(n_perm=\.\.\.\) is deprecated: use n_permutations="):
        old = excluded_groups(y, pred, n_perm=39, **kw)
    assert old.n_permutations == new.n_permutations == 39
    pd.testing.assert_frame_equal(old.candidates(), new.candidates())
    with pytest.raises(TypeError, match=r"got both n_perm= and n_permutations="):
        excluded_groups(y, pred, n_perm=39, n_permutations=59, **kw)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'n_perms'"):
        excluded_groups(y, pred, n_perms=39, **kw)
    with pytest.warns(DeprecationWarning, match="check_discovery_options"):
        assert check_discovery_options(n_perm=99).n_permutations == 99


def test_discovery_options_are_checked_by_the_table_naming_argument_value_and_expectation():
    import pytest

    from aif360_subjective.opinion.excluded import check_discovery_options

    cases = [
        ({"max_conditions": 4}, ValueError, r"^max_conditions must be <= 3, got 4$"),
        ({"max_conditions": 1.5}, TypeError, r"^max_conditions must be an int from 1 to 3, got 1\.5$"),
        ({"min_annotators": 1}, ValueError, r"^min_annotators must be >= 2, got 1$"),
        ({"ranges": "4"}, TypeError, r"^ranges must be an int >= 2, got '4'$"),
        ({"alpha": 1.0}, ValueError, r"^alpha must be strictly between 0 and 1, got 1\.0$"),
        ({"n_permutations": 5}, ValueError, r"^n_permutations must be >= 19, got 5 \(adjusted p-values resolve"),
        ({"adjust": "item"}, ValueError, r"^adjust must be one of \['none', 'items'\], got 'item'$"),
        ({"balance": 1}, ValueError, r"^balance must be one of \['conditions', 'none'\], got 1$"),
        ({"performance": "f1"}, ValueError, r"performance 'f1' is not a mean of per-annotation scores"),
        ({"performance": "auc"}, ValueError, r"^performance must be one of \['accuracy', "),
        ({"alpha": 0.01, "n_permutations": 50}, ValueError,
         r"^n_permutations=50 cannot reach alpha=0\.01 .* use n_permutations >= 99$"),
    ]
    for given, error, match in cases:
        with pytest.raises(error, match=match):
            check_discovery_options(**given)
    opts = check_discovery_options()
    assert (opts.max_conditions, opts.min_annotators, opts.ranges, opts.alpha, opts.n_permutations) == (2, 5, 4, 0.05,
                                                                                                        999)


def test_the_metric_face_takes_n_permutations_and_warns_on_n_perm():
    import pytest

    from aif360_subjective.datasets import MultiAnnotatorDataset
    from aif360_subjective.metrics import OpinionExclusionMetric

    y, pred, item, who, table = _small()
    ds = MultiAnnotatorDataset(pd.DataFrame({"item": item, "annotator": who, "label": y}), annotators=table,
                               favorable_label=1, unfavorable_label=0)
    metric = OpinionExclusionMetric(ds, ds.with_predictions(pred))
    new = metric.excluded_groups(n_permutations=39, random_state=0)
    with pytest.warns(DeprecationWarning, match=r"OpinionExclusionMetric\.excluded_groups\(n_perm=\.\.\.\)"):
        old = metric.excluded_groups(n_perm=39, random_state=0)
    assert old is new and new.n_permutations == 39  # one cache key whichever name
