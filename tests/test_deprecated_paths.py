"""The module paths that moved in 0.3 keep working for one release, with a DeprecationWarning."""

import importlib
import sys

import pytest

MOVED = {
    "aif360_subjective.metrics.opinion_options": "aif360_subjective.opinion.options",
    "aif360_subjective.metrics.opinion_annotations": "aif360_subjective.opinion.annotations",
    "aif360_subjective.metrics.opinion_groupers": "aif360_subjective.opinion.groupers",
    "aif360_subjective.metrics.opinion_groups": "aif360_subjective.opinion.groups",
    "aif360_subjective.metrics.opinion_core": "aif360_subjective.opinion.core",
    "aif360_subjective.metrics.opinion_bootstrap": "aif360_subjective.opinion.bootstrap",
    "aif360_subjective.metrics.opinion_uncertainty": "aif360_subjective.opinion.uncertainty",
    "aif360_subjective._dask.opinion": "aif360_subjective.opinion._dask",
    "aif360_subjective._dask.crowdtruth": "aif360_subjective.quality._dask",
}


@pytest.mark.parametrize("old, new", sorted(MOVED.items()))
def test_old_path_warns_and_is_the_new_module(old, new):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)


def test_private_names_still_import_from_an_old_path():
    sys.modules.pop("aif360_subjective.metrics.opinion_core", None)
    with pytest.warns(DeprecationWarning):
        from aif360_subjective.metrics.opinion_core import OpinionExclusionResult, result_from_counts
    from aif360_subjective.opinion.core import OpinionExclusionResult as New

    assert OpinionExclusionResult is New and callable(result_from_counts)
