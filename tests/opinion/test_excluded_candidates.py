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
