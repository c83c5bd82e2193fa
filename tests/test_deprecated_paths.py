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
#: detectors/ modules that moved into the family sub-folders (asdf/, mining/, error_control/, _dask/).
DETECTOR_MOVES = {
    "clustering": "asdf.clustering", "xmeans": "asdf.xmeans", "mst": "asdf.mst",
    "cluster_sample": "asdf.cluster_sample", "lopsided": "asdf.lopsided", "selection": "asdf.selection",
    "patterns": "asdf.patterns", "families": "asdf.families",
    "pattern_mining": "mining.pattern_mining", "cell_counts": "mining.cell_counts",
    "maxt": "error_control.maxt", "keyed_permutation": "error_control.keyed_permutation",
    "resampling": "error_control.resampling", "inference": "error_control.inference",
    "continuous": "error_control.continuous",
    "dask_counts": "_dask.counts", "dask_detect": "_dask.detect", "dask_summary": "_dask.summary",
}
MOVED.update({f"aif360_subjective.detectors.{old}": f"aif360_subjective.detectors.{new}"
              for old, new in DETECTOR_MOVES.items()})


@pytest.mark.parametrize("old, new", sorted(MOVED.items()))
def test_old_path_warns_and_is_the_new_module(old, new):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)


def test_moved_detector_modules_leave_no_file_behind_and_keep_their_names():
    from pathlib import Path

    import aif360_subjective.detectors as det

    root = Path(det.__file__).parent
    for old in DETECTOR_MOVES:
        assert not (root / f"{old}.py").exists(), old  # the former path is an alias, not a file
    sys.modules.pop("aif360_subjective.detectors.maxt", None)
    with pytest.warns(DeprecationWarning, match="detectors.maxt moved to aif360_subjective.detectors.error_control"):
        from aif360_subjective.detectors.maxt import max_t_from_counts
    from aif360_subjective.detectors.error_control.maxt import max_t_from_counts as new

    assert max_t_from_counts is new


def test_private_names_still_import_from_an_old_path():
    sys.modules.pop("aif360_subjective.metrics.opinion_core", None)
    with pytest.warns(DeprecationWarning):
        from aif360_subjective.metrics.opinion_core import OpinionExclusionResult, result_from_counts
    from aif360_subjective.opinion.core import OpinionExclusionResult as New

    assert OpinionExclusionResult is New and callable(result_from_counts)


@pytest.mark.parametrize("module", ["aif360_subjective.opinion.groups", "aif360_subjective.opinion",
                                    "aif360_subjective.metrics"])
def test_grouping_report_is_a_warning_alias_of_grouping_summary(module):
    from aif360_subjective.opinion import GroupingSummary

    mod = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=r"GroupingReport is deprecated: use GroupingSummary"):
        assert mod.GroupingReport is GroupingSummary
    assert "GroupingReport" not in mod.__all__  # the new name has the one public home
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        mod.Nope  # noqa: B018


def test_grouping_report_method_and_report_property_warn_and_return_the_summary():
    from aif360_subjective.datasets import make_subjective_dataset
    from aif360_subjective.metrics import OpinionExclusionMetric
    from aif360_subjective.sklearn.metrics import opinion_exclusion

    ds = make_subjective_dataset(n_items=60, random_state=0)
    metric = OpinionExclusionMetric(ds, ds)
    with pytest.warns(DeprecationWarning, match=r"grouping_report\(\) is deprecated: use grouping_summary\(\)"):
        assert metric.grouping_report() == metric.grouping_summary()
    res = opinion_exclusion(ds.labels.ravel(), ds.labels.ravel(), item_ids=ds.item_ids,
                            annotator_ids=ds.annotator_ids)
    with pytest.warns(DeprecationWarning, match=r"OpinionExclusionResult.report is deprecated"):
        assert res.report is res.grouping_summary


@pytest.mark.parametrize(("old", "name", "home"), [
    ("aif360_subjective.detectors.asdf.clustering", "MST_METHODS", "aif360_subjective.detectors.asdf.mst"),
    ("aif360_subjective.detectors.detect", "DISCOVERIES", "aif360_subjective.detectors.options"),
    ("aif360_subjective.metrics.perspectivist", "unit_within_one", "aif360_subjective.opinion.annotations"),
    ("aif360_subjective.opinion.equal_service", "verdict_sentence", "aif360_subjective.opinion.verdict"),
    ("aif360_subjective.quality.crowdtruth", "EPS", "aif360_subjective.quality.engine"),
    ("aif360_subjective.detectors.report", "RANKABLE", "aif360_subjective.detectors.ranking"),
    ("aif360_subjective.detectors.report", "KINDS", "aif360_subjective.detectors.candidates"),
    ("aif360_subjective.detectors.report", "INFERENCE_COLUMNS", "aif360_subjective.detectors.significance"),
])
def test_a_name_imported_from_a_module_that_is_not_its_home_warns(old, name, home):
    module = importlib.import_module(old)
    assert name not in module.__all__  # one __all__ home (tests/test_architecture.py)
    with pytest.warns(DeprecationWarning, match=f"import {name} from {home}, not from {old}"):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(home), name)
