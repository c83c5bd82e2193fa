"""The public faces and the parameter tables: faces delegate rather than copy signatures, every keyword of every face
is a table row (or on a short stated list), and every face refuses the invalid values generated from a row's
constraints with an error naming the argument (as scikit-learn's common tests do for estimators' parameters)."""

from __future__ import annotations

import inspect
from functools import partial

import pytest


# ------------------------------------------------------------------------------------------------ faces delegate
def test_opinion_metric_excluded_groups_is_the_functions_options_keyword_only():
    from aif360_subjective.metrics import OpinionExclusionMetric
    from aif360_subjective.opinion import excluded_groups

    method = inspect.signature(OpinionExclusionMetric.excluded_groups).parameters
    function = inspect.signature(excluded_groups).parameters
    # **renamed carries the former names (n_perm), each with a DeprecationWarning
    options = [p for name, p in method.items() if name != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD]
    assert options and all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in options)
    # the same options as the function, with the same defaults, but the two the metric already knows
    # (None = the metric's performance measure and random_state)
    for p in options:
        assert p.name in function, p.name
        expected = None if p.name in ("performance", "random_state") else function[p.name].default
        assert p.default == expected, p.name
    with pytest.raises(TypeError):
        OpinionExclusionMetric.excluded_groups(object(), ["gender"])  # type: ignore[misc]


@pytest.mark.parametrize(("cls", "function"), [
    ("SubgroupDiscoveryMetric", "aif360_subjective.detectors:detect_subgroups"),
    ("OpinionExclusionMetric", "aif360_subjective.sklearn.metrics:opinion_exclusion"),
])
def test_a_class_face_and_its_function_share_each_common_option_with_one_default(cls, function):
    """The AIF360 classes take their options keyword-only, with the functions' defaults (the inputs differ: datasets
    against arrays)."""
    import importlib

    from aif360_subjective import metrics

    module, name = function.split(":")
    ours = inspect.signature(getattr(metrics, cls).__init__).parameters
    theirs = inspect.signature(getattr(importlib.import_module(module), name)).parameters
    shared = [n for n in ours if n in theirs and n not in ("self", "dataset", "classified_dataset")]
    assert len(shared) >= 15
    for n in shared:
        assert ours[n].kind is inspect.Parameter.KEYWORD_ONLY, n
        assert ours[n].default == theirs[n].default, n


def test_sklearn_style_metrics_are_the_functions_themselves():
    """The sklearn-style module re-exports: each name is the function of its home module, not a copy."""
    from aif360_subjective.metrics import perspectivist
    from aif360_subjective.opinion import functional
    from aif360_subjective.sklearn import metrics

    for name in metrics.__all__:
        home = functional if hasattr(functional, name) else perspectivist
        assert getattr(metrics, name) is getattr(home, name), name


# ------------------------------------------------------------------------------------------------ every keyword
_INPUT = "an input of the analysis (data, ids, columns or labels), not an option with a rule"
_SELECTOR = "chooses which part of a report a question is about; checked against the report's own contents"
_FLAG = "a True/False switch (the tables declare values with rules; a flag has none)"
_SEED = "None, an int seed or a numpy Generator, checked by check_random_state wherever a seed is taken"

#: Keywords of the public faces that are not rows of a parameter table, and why. An entry that becomes a row must
#: leave the list (test_the_allow_list_holds_no_table_row).
ALLOWED = {
    # inputs
    "item_ids": _INPUT, "annotator_ids": _INPUT, "annotators": _INPUT, "attributes": _INPUT,
    "categorical_features": _INPUT, "groups": _INPUT, "sample_weight": _INPUT, "loss": _INPUT, "labels": _INPUT,
    "pos_label": _INPUT, "positive_from": _INPUT, "privileged_groups": _INPUT, "unprivileged_groups": _INPUT,
    "rating_column": _INPUT, "label_col": _INPUT, "unit_col": _INPUT, "worker_col": _INPUT,
    "cluster_column": _INPUT, "data": _INPUT,
    "patterns_from": "an earlier report whose mined patterns are reused (checked against the table by "
                     "reusable_patterns)",
    "bins": "ADR bins: a count, explicit edges or a numpy bin rule (checked by the ADR grouping)",
    # the questions of a report
    "kind": _SELECTOR, "label": _SELECTOR, "names": _SELECTOR, "all_columns": _SELECTOR, "compute": _SELECTOR,
    # switches
    "inclusive": _FLAG, "keep_redundant": _FLAG, "merge_identical": _FLAG, "open_ended": _FLAG,
    "keep_history": _FLAG, "use_instance_weights": _FLAG, "protect": _FLAG,
    "greater_is_better": "True/False or None (None: the measure's own direction)",
    "test": "True/False or None (None: run the test of equal service when intervals are asked for)",
    "random_state": _SEED,
    "ascending": "deprecated (warns): the seed's raw ranking order",
    # single-face options
    "tie": "the majority vote's tie rule, shared by the dataset, the metric and the functions (opinion._ties)",
    "statistic": "exclusion_test's name of the opinion row test_statistic (its values are the row's)",
    "duplicates": "what crowdtruth_scores does with a repeated (unit, worker) pair",
    "protect_z": "CrowdTruthFilter: the z above which a consistent annotator is kept (any finite number)",
    "scale": "wasserstein_distance's rating scale (the values of the soft labels)",
    "scale_size": "normalized_absolute_distance's number of rating levels",
}


def _faces():
    """(face name, callable whose signature is the face's, its parameter table) of every public face."""
    from aif360_subjective._param_tables import CROWDTRUTH_PARAMS, OPINION_PARAMS, SUBGROUP_PARAMS
    from aif360_subjective.algorithms.preprocessing import CrowdTruthFilter
    from aif360_subjective.detectors import SubgroupReport, detect_subgroups
    from aif360_subjective.metrics import OpinionExclusionMetric, SubgroupDiscoveryMetric
    from aif360_subjective.opinion import excluded_groups
    from aif360_subjective.quality import crowdtruth_scores
    from aif360_subjective.sklearn import metrics

    faces = [("detect_subgroups", detect_subgroups, SUBGROUP_PARAMS),
             ("SubgroupDiscoveryMetric", SubgroupDiscoveryMetric.__init__, SUBGROUP_PARAMS),
             ("OpinionExclusionMetric", OpinionExclusionMetric.__init__, OPINION_PARAMS),
             ("excluded_groups", excluded_groups, OPINION_PARAMS),
             ("crowdtruth_scores", crowdtruth_scores, CROWDTRUTH_PARAMS),
             ("CrowdTruthFilter", CrowdTruthFilter.__init__, CROWDTRUTH_PARAMS)]
    for cls, table in ((SubgroupReport, SUBGROUP_PARAMS), (SubgroupDiscoveryMetric, SUBGROUP_PARAMS),
                       (OpinionExclusionMetric, OPINION_PARAMS)):
        for name in vars(cls):  # the class's own methods (not AIF360's inherited ones)
            if not name.startswith("_") and inspect.isfunction(getattr(cls, name)):
                faces.append((f"{cls.__name__}.{name}", getattr(cls, name), table))
    faces += [(f"sklearn.metrics.{name}", getattr(metrics, name), OPINION_PARAMS) for name in metrics.__all__]
    return faces


def _options(func):
    """The face's options: parameters with a default (those without are its inputs: X, y_true, dataset, ...)."""
    return [p for p in inspect.signature(func).parameters.values()
            if p.name != "self" and p.default is not inspect.Parameter.empty
            and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]


#: Options whose row has another name on a face: the annotator search's permutations and measure have rules of
#: their own (19 permutations reach 0.05; only means of per-annotation scores), apart from the test of equal
#: service's n_permutations and the audit's performance.
ROW_NAMES = {face: {"n_permutations": "discovery_n_permutations", "performance": "discovery_performance"}
             for face in ("excluded_groups", "OpinionExclusionMetric.excluded_groups")}


def _row(name, table, face=""):
    """The rule of option ``name`` on ``face``: the face's table first, then the others."""
    from aif360_subjective._param_tables import CROWDTRUTH_PARAMS, OPINION_PARAMS, SUBGROUP_PARAMS

    name = ROW_NAMES.get(face, {}).get(name, name)
    for t in (table, SUBGROUP_PARAMS, OPINION_PARAMS, CROWDTRUTH_PARAMS):
        if name in t:
            return t[name]
    return None


def test_every_keyword_of_every_face_is_a_table_row_or_allowed_with_a_reason():
    faces = _faces()
    assert len(faces) > 40
    stray = {(face, p.name) for face, func, table in faces for p in _options(func)
             if _row(p.name, table, face) is None and p.name not in ALLOWED}
    assert not stray, sorted(stray)


def test_the_allow_list_holds_no_table_row_and_no_unused_name():
    from aif360_subjective._param_tables import CROWDTRUTH_PARAMS, OPINION_PARAMS, SUBGROUP_PARAMS

    rows = set(SUBGROUP_PARAMS) | set(OPINION_PARAMS) | set(CROWDTRUTH_PARAMS)
    assert not rows & set(ALLOWED), "a row of a table: remove it from ALLOWED"
    used = {p.name for _, func, _ in _faces() for p in _options(func)}
    assert set(ALLOWED) <= used, set(ALLOWED) - used
    assert all(reason for reason in ALLOWED.values())


def test_face_defaults_are_the_rows_defaults():
    """A face may document None as its own "not asked" (subgroup_metrics(ci=None): no intervals); otherwise its
    default is the row's."""
    odd = []
    for face, func, table in _faces():
        for p in _options(func):
            row = _row(p.name, table, face)
            if row is not None and p.default is not None and p.default != row.default:
                odd.append((face, p.name, p.default, row.default))
    assert not odd, odd


def test_engine_vocabularies_of_the_new_rows_are_the_tables():
    from aif360_subjective._param_tables import SUBGROUP_PARAMS
    from aif360_subjective.detectors.error_control.resampling import DESIGNS
    from aif360_subjective.detectors.options import PERMUTATION_CHOICES
    from aif360_subjective.detectors.ranking import CONTROLS

    assert SUBGROUP_PARAMS.choices("design") == DESIGNS == ("between", "within")
    assert SUBGROUP_PARAMS.choices("control") == CONTROLS == ("fwer", "fdr")
    assert SUBGROUP_PARAMS.choices("permutation") == PERMUTATION_CHOICES == ("auto", "classical", "keyed")


# ------------------------------------------------------------------------------------------------ invalid values
def test_generated_invalid_values_fail_their_rule_and_cover_each_constraint():
    from aif360_subjective._param_tables import CROWDTRUTH_PARAMS, OPINION_PARAMS, SUBGROUP_PARAMS
    from aif360_subjective._params import Interval, Param

    for table in (SUBGROUP_PARAMS, OPINION_PARAMS, CROWDTRUTH_PARAMS):
        for name in table:
            values = table[name].invalid_values()
            assert values, name
            for v in values:
                with pytest.raises((ValueError, TypeError), match=name):
                    table.check(name, v)
    # by hand: an int interval [2, 5], an open real interval, names
    assert Param("k", (Interval("int", 2, 5),)).invalid_values() == [1, 6, 1.5, "many", b"bytes", None]
    assert Param("p", (Interval("real", 0.0, 1.0, closed="neither"),)).invalid_values() == [
        -0.5, 0.0, 1.5, 1.0, "many", b"bytes", None]


@pytest.fixture(scope="module")
def ctx():
    from types import SimpleNamespace

    import numpy as np
    import pandas as pd
    from aif360.datasets import BinaryLabelDataset

    from aif360_subjective.datasets import make_subjective_dataset
    from aif360_subjective.detectors import detect_subgroups
    from aif360_subjective.metrics import OpinionExclusionMetric, SubgroupDiscoveryMetric

    n = 30
    X = pd.DataFrame({"g": np.array(["u", "v", "w"], dtype=object)[np.arange(n) % 3], "x": np.arange(n) % 5})
    y = (np.arange(n) % 2).astype(int)
    yp = ((np.arange(n) // 2) % 2).astype(int)
    frame = pd.DataFrame({"sex": (np.arange(n) % 2).astype(float), "age": (np.arange(n) % 3).astype(float),
                          "y": y.astype(float)})
    bld = BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["sex"])
    bld_pred = bld.copy(deepcopy=True)
    bld_pred.labels = yp.astype(float).reshape(-1, 1)
    ds = make_subjective_dataset(n_items=40, n_annotators=12, annotations_per_item=3, random_state=0)
    pred = ds.with_predictions(ds.majority_labels())
    return SimpleNamespace(X=X, y=y, yp=yp, rep=detect_subgroups(X, y, yp, n_clusters=3, random_state=0),
                           bld=bld, bld_pred=bld_pred, ds=ds, pred=pred,
                           sdm=SubgroupDiscoveryMetric(bld, bld_pred, n_clusters=3, random_state=0),
                           oem=OpinionExclusionMetric(ds, pred))


def _annotations(c):
    return {"item_ids": c.ds.item_ids, "annotator_ids": c.ds.annotator_ids}


def _with_labels(func, c, kw):
    return func(c.ds.labels.ravel(), c.pred.labels.ravel(), **_annotations(c), **kw)


def _ask(obj, method, c, kw):
    """A question of the context's report or metric ``obj``."""
    return getattr(getattr(c, obj), method)(**kw)


def _calls():
    """Face name -> how to call it on the context's valid data with extra keywords."""
    import pandas as pd

    from aif360_subjective.algorithms.preprocessing import CrowdTruthFilter
    from aif360_subjective.detectors import detect_subgroups
    from aif360_subjective.metrics import OpinionExclusionMetric, SubgroupDiscoveryMetric
    from aif360_subjective.opinion import excluded_groups
    from aif360_subjective.quality import crowdtruth_scores
    from aif360_subjective.sklearn import metrics

    crowd = pd.DataFrame({"unit": ["u1", "u1", "u1", "u2"], "worker": ["w1", "w2", "w3", "w1"],
                          "label": ["a", "a", "b", "a"]})
    truth, pred = (lambda c: c.ds.labels.ravel()), (lambda c: c.pred.labels.ravel())
    calls = {
        "detect_subgroups": lambda c, kw: detect_subgroups(c.X, c.y, c.yp, **{"random_state": 0, **kw}),
        "SubgroupDiscoveryMetric": lambda c, kw: SubgroupDiscoveryMetric(
            c.bld, c.bld_pred, **{"n_clusters": 3, "random_state": 0, **kw}),
        "OpinionExclusionMetric": lambda c, kw: OpinionExclusionMetric(c.ds, c.pred, **kw),
        "excluded_groups": lambda c, kw: excluded_groups(truth(c), pred(c), annotators=c.ds.annotators,
                                                         **_annotations(c), **kw),
        "crowdtruth_scores": lambda c, kw: crowdtruth_scores(crowd, **kw),
        "CrowdTruthFilter": lambda c, kw: CrowdTruthFilter(**kw).fit(c.ds),
        "SubgroupReport.ranking": lambda c, kw: c.rep.ranking("statistical_parity", **kw),
        "SubgroupDiscoveryMetric.ranking": lambda c, kw: c.sdm.ranking("statistical_parity", **kw),
    }
    labelled = {"opinion_exclusion": metrics.opinion_exclusion, "annotator_performance": metrics.annotator_performance}
    for name, func in labelled.items():
        calls[f"sklearn.metrics.{name}"] = partial(_with_labels, func)
    calls["sklearn.metrics.disagreement_rates"] = lambda c, kw: metrics.disagreement_rates(
        truth(c), **_annotations(c), **kw)
    questions = {"rep": ("SubgroupReport", ("findings", "discovery_summary", "discovery_sentence",
                                            "subgroup_metrics")),
                 "sdm": ("SubgroupDiscoveryMetric", ("findings", "discovery_summary", "discovery_sentence",
                                                     "subgroup_metrics")),
                 "oem": ("OpinionExclusionMetric", ("group_performance", "unfairness_ci", "exclusion_test",
                                                    "excluded_groups", "verdict", "performance_ci"))}
    for obj, (face, names) in questions.items():
        for name in names:
            calls[f"{face}.{name}"] = partial(_ask, obj, name)
    return calls


def _cases():
    """(face, keyword, invalid value) for every keyword of every face that is a table row."""
    cases = []
    for face, func, table in _faces():
        for p in _options(func):
            row = _row(p.name, table, face)
            if row is None:
                continue
            for value in row.invalid_values():
                if value is None and "None" in str(p.annotation):
                    continue  # the face declares None (subgroup_metrics(ci=None): no intervals)
                cases.append((face, p.name, value))
    return cases


_CASES = _cases()


def test_every_face_with_a_row_is_called():
    assert {face for face, _, _ in _CASES} <= set(_calls())


#: Options a face reads only when another option asks for their part, and that part: opinion_exclusion checks its
#: interval and test options when ci asks for intervals (its own ``ci=None`` skips the bootstrap and the test).
_ENABLING = {"sklearn.metrics.opinion_exclusion": {"ci": 0.95, "test": True}}


@pytest.mark.parametrize(("face", "name", "value"), _CASES, ids=[f"{f}-{n}={v!r}" for f, n, v in _CASES])
def test_each_face_refuses_each_invalid_value_naming_the_argument(ctx, face, name, value):
    base = {k: v for k, v in _ENABLING.get(face, {}).items() if k != name}
    with pytest.raises((ValueError, TypeError)) as err:
        _calls()[face](ctx, {**base, name: value})
    assert name in str(err.value), str(err.value)
