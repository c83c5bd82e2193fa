"""The bad-input contract: every public entry point rejects bad input with a clear error.

ONE table-driven test. Each case calls a public function, constructor, method or CLI command with one
mistake and expects ``ValueError`` / ``TypeError`` (``FileNotFoundError`` for missing files; subclasses
are fine) whose message names the argument or column (the ``match`` regex). Never a ``KeyError``,
``IndexError``, ``AttributeError``, ``ZeroDivisionError`` or an error raised from inside numpy/pandas.
CLI cases expect exit status 2 and exactly one line on stderr matching ``match``.

Adding a public entry point means adding its cases here.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from aif360.datasets import BinaryLabelDataset

from aif360_subjective.algorithms.inprocessing import AnnotatorAwareClassifier, MajorityVoteClassifier
from aif360_subjective.cli import main
from aif360_subjective.datasets import (
    LeWiDiDataset,
    MultiAnnotatorDataset,
    WikipediaTalkDataset,
    make_subjective_dataset,
)
from aif360_subjective.detectors import compare_clusterings, detect_subgroups
from aif360_subjective.detectors.error_control.maxt import max_t
from aif360_subjective.metrics import OpinionExclusionMetric, SubgroupDiscoveryMetric
from aif360_subjective.plotting import (
    group_performance_table,
    plot_group_performance,
    plot_ranking,
    plot_subgroup_metrics,
    plot_summary_radar,
)
from aif360_subjective.report import Figure, Report, Table
from aif360_subjective.report.sections import lopsided_alternatives, opinion_sections
from aif360_subjective.sklearn import metrics as skm

FORBIDDEN = (KeyError, IndexError, ZeroDivisionError)
#: Python argument names of the library (with a flag, or none) that a command-line error must not show.
PYTHON_WORDS = (r"(?<![\w-])(positive_from|duplicates|attributes|favorable_label|n_clusters|min_group_size|"
                r"warn_group_size|n_boot|grouping|bins|random_state|seed|entropy_threshold|categorical_features|"
                r"performance|ci|alpha|split|task|annotators_meta|test_size|open_ended|separator)=")


@dataclass(frozen=True)
class Case:
    """One bad input: ``call(ctx)`` must raise ``exc`` matching ``match`` (or, for ``cli``, exit 2)."""

    id: str
    call: Callable | None
    exc: type[BaseException] | tuple = ValueError
    match: str = ""
    cli: tuple[str, ...] | None = None
    needs: str | None = None  # "module:name" of a piece that may not be merged yet


def cli(id: str, *argv: str, match: str, needs: str | None = None) -> Case:
    """A CLI case; ``{d}`` in an argument is replaced by the case folder."""
    return Case(id, None, SystemExit, match, cli=argv, needs=needs)


def _ann(**cols) -> pd.DataFrame:
    base = {"item": [1, 1, 2, 2], "annotator": ["a", "b", "a", "b"], "label": [0, 1, 1, 1]}
    base.update(cols)
    return pd.DataFrame(base)


def mad(df=None, **kw):
    return MultiAnnotatorDataset(_ann() if df is None else df, **kw)


# ------------------------------------------------------------------------------------------------- context
@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad_input")
    ds = make_subjective_dataset(n_items=40, n_annotators=12, annotations_per_item=3, random_state=0)
    pred = ds.with_predictions(ds.majority_labels())
    n = 30
    X = pd.DataFrame({"g": np.array(["u", "v", "w"], dtype=object)[np.arange(n) % 3], "x": np.arange(n) % 5})
    y = (np.arange(n) % 2).astype(int)
    yp = ((np.arange(n) // 2) % 2).astype(int)
    rep = detect_subgroups(X, y, yp, n_clusters=3, random_state=0)
    frame = pd.DataFrame({"sex": (np.arange(n) % 2).astype(float), "age": (np.arange(n) % 3).astype(float),
                          "y": y.astype(float)})
    bld = BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["sex"])
    bld_pred = bld.copy(deepcopy=True)
    bld_pred.labels = yp.astype(float).reshape(-1, 1)
    sdm = SubgroupDiscoveryMetric(bld, bld_pred, n_clusters=3, random_state=0)
    aac = AnnotatorAwareClassifier().fit(ds)
    oem = OpinionExclusionMetric(ds, pred)

    # files for the loaders and the command line
    ann = pd.DataFrame({"item": ds.item_ids, "annotator": ds.annotator_ids,
                        "label": ds.original_labels().astype(int)})
    ann["pred"] = ann["label"].to_numpy()[::-1]
    ann.to_csv(d / "ann.csv", index=False)
    ann.assign(label=np.where(np.arange(len(ann)) == 0, 7, ann["label"])).to_csv(d / "ann3.csv", index=False)
    ann.assign(pred=np.where(np.arange(len(ann)) == 0, 5, ann["pred"])).to_csv(d / "annpred.csv", index=False)
    ann.assign(label=ann["label"].astype(float).where(np.arange(len(ann)) != 2)).to_csv(
        d / "annnan.csv", index=False)
    pd.DataFrame({"annotator": ["A00000", "A00000"], "age": [1, 2]}).to_csv(d / "dupann.csv", index=False)
    sg = X.assign(label=y, pred=yp)
    sg.to_csv(d / "sg.csv", index=False)
    sg.assign(x=sg["x"].astype(float).where(np.arange(n) != 1)).to_csv(d / "sgnan.csv", index=False)
    (d / "empty.csv").write_text("")
    (d / "dupct.csv").write_text("unit,worker,label\nu1,w1,a\nu1,w1,b\nu2,w2,a\n")
    (d / "afile").write_text("x")
    (d / "bad_dev.json").write_text("{not json")
    (d / "MP_dev.json").write_text('{"1": {"annotations": {"Ann0": "2", "Ann1": "0"}}}')
    # issue 23: the fault sweep's files
    (d / "latin1_dev.json").write_bytes('{"1": {"annotations": {"Ann0": "1"}, "text": "caf\xe9"}}'.encode("latin-1"))
    sg.assign(label=sg["label"].astype(float).where(np.arange(n) != 4)).to_csv(d / "sgnolabel.csv", index=False)
    sg.assign(x=sg["x"].astype(float).where(np.arange(n) != 6, np.inf)).to_csv(d / "sginf.csv", index=False)
    sg.assign(x=np.where(np.arange(n) % 2 == 0, 1e308, -1e308)).to_csv(d / "sgbig.csv", index=False)
    (d / "duppair.csv").write_text("item,annotator,label,pred\n1,a,0,0\n1,a,1,0\n2,a,1,1\n2,b,0,1\n")
    (d / "noid.csv").write_text("unit,worker,label\nu1,w1,a\n,w2,b\nu2,w2,a\n")
    (d / "lwinf").mkdir()
    (d / "lwinf" / "XX_dev.json").write_text(
        '{"1": {"text": {"post": "t"}, "annotators": "Ann0,Ann1", "annotations": {"Ann0": "1", "Ann1": "0"}}}')
    (d / "lwinf" / "XX_annotators_meta.json").write_text('{"0": {"Age": 20}, "1": {"Age": Infinity}}')
    (d / "popq").mkdir()
    (d / "popq" / "offensiveness_raw_data.csv").write_text("instance_id,user_id,offensiveness\n")
    (d / "nometa").mkdir()
    (d / "nometa" / "X_dev.json").write_text('{"1": {"annotations": "Ann0"}}')
    return SimpleNamespace(d=d, ds=ds, pred=pred, X=X, y=y, yp=yp, rep=rep, bld=bld, bld_pred=bld_pred,
                           sdm=sdm, aac=aac, oem=oem, n=n)


def _ct():
    """The CrowdTruth pieces (imported at call time: they merged last)."""
    from aif360_subjective.algorithms.preprocessing import CrowdTruthFilter
    from aif360_subjective.quality import crowdtruth_scores

    return SimpleNamespace(crowdtruth_scores=crowdtruth_scores, CrowdTruthFilter=CrowdTruthFilter)


def _ct_df(**cols) -> pd.DataFrame:
    base = {"unit": ["u1", "u1", "u1", "u2"], "worker": ["w1", "w2", "w3", "w1"], "label": ["a", "a", "b", "a"]}
    base.update(cols)
    return pd.DataFrame(base)


def _oe(c, **kw):
    return OpinionExclusionMetric(c.ds, c.pred, **kw)


def _fn(**kw):
    args = {"item_ids": [1, 1, 2, 2], "annotator_ids": ["a", "b", "a", "b"]}
    args.update(kw)
    y_true = args.pop("y_true", [0, 1, 1, 1])
    y_pred = args.pop("y_pred", [1, 1, 1, 0])
    return skm.opinion_exclusion(y_true, y_pred, **args)


def _ds(c, **kw):
    args = {"n_clusters": 3, "random_state": 0}
    args.update(kw)
    X = args.pop("X", c.X)
    y_true = args.pop("y_true", c.y)
    y_pred = args.pop("y_pred", c.yp)
    return detect_subgroups(X, y_true, y_pred, **args)


def _sdm(c, **kw):
    args = {"n_clusters": 3, "random_state": 0}
    args.update(kw)
    return SubgroupDiscoveryMetric(args.pop("dataset", c.bld), args.pop("classified_dataset", c.bld_pred), **args)


def _with_fav(bld, fav):
    out = bld.copy(deepcopy=True)
    out.favorable_label, out.unfavorable_label = fav, 1.0 - fav
    return out


def _aac_other_features(c):
    other = make_subjective_dataset(n_items=10, n_annotators=5, annotations_per_item=2, n_features=3,
                                    random_state=1)
    return c.aac.predict(other)


# -------------------------------------------------------------------------------------------------- cases
CASES: list[Case] = [
    # ---- MultiAnnotatorDataset(...)
    Case("mad-annotations-not-frame", lambda c: MultiAnnotatorDataset([[1, "a", 0]]), TypeError,
         r"annotations must be a pandas DataFrame"),
    Case("mad-item-col-not-str", lambda c: mad(item_col=0), TypeError, r"item_col must be a column name"),
    Case("mad-misspelled-label-col", lambda c: mad(label_col="lable"), ValueError,
         r"label_col='lable' is not a column"),
    Case("mad-same-columns", lambda c: mad(annotator_col="item"), ValueError, r"item_col, annotator_col and label_col"),
    Case("mad-empty", lambda c: mad(_ann().iloc[:0]), ValueError, r"annotations is empty"),
    Case("mad-nan-item-id", lambda c: mad(_ann(item=[1, np.nan, 2, 2])), ValueError, r"column 'item' has 1 missing id"),
    Case("mad-nan-annotator-id", lambda c: mad(_ann(annotator=["a", None, "a", "b"])), ValueError,
         r"column 'annotator' has 1 missing id"),
    Case("mad-nan-label", lambda c: mad(_ann(label=[0, np.nan, 1, 1])), ValueError,
         r"column 'label' has 1 missing label"),
    Case("mad-label-outside-set", lambda c: mad(_ann(label=[0, 2, 1, 1])), ValueError,
         r"column 'label' has 1 label\(s\) outside \{favorable_label"),
    Case("mad-string-label-outside-set",
         lambda c: mad(_ann(label=["y", "n", "maybe", "y"]), favorable_label="y", unfavorable_label="n"),
         ValueError, r"column 'label' .*outside.*'maybe'"),
    Case("mad-list-labels", lambda c: mad(_ann(label=[[0], [1], [1], [1]])), ValueError,
         r"column 'label' .*outside"),
    Case("mad-favorable-equals-unfavorable", lambda c: mad(favorable_label=1, unfavorable_label=1), ValueError,
         r"favorable_label and unfavorable_label must differ"),
    Case("mad-favorable-none", lambda c: mad(favorable_label=None), TypeError, r"favorable_label must be"),
    Case("mad-duplicate-pair", lambda c: mad(_ann(annotator=["a", "a", "a", "b"])), ValueError,
         r"duplicate \(item, annotator\) pair.*item=1, annotator='a'"),
    Case("mad-info-columns-unknown", lambda c: mad(info_columns=["score"]), ValueError,
         r"info_columns \['score'\] are not columns"),
    Case("mad-info-columns-str-unknown", lambda c: mad(info_columns="score"), ValueError,
         r"info_columns \['score'\] are not columns"),
    Case("mad-annotators-not-frame", lambda c: mad(annotators=pd.Series([1])), TypeError,
         r"annotators must be a pandas DataFrame"),
    Case("mad-annotators-duplicate-ids",
         lambda c: mad(annotators=pd.DataFrame({"age": [1, 2, 3]}, index=["a", "a", "b"])), ValueError,
         r"annotators table has 1 duplicate id"),
    Case("mad-annotators-share-no-id",
         lambda c: mad(annotators=pd.DataFrame({"age": [1, 2]}, index=["x", "y"])), ValueError,
         r"no id of the annotations is in the annotators table"),
    Case("mad-protected-unknown",
         lambda c: mad(annotators=pd.DataFrame({"age": [1, 2]}, index=["a", "b"]),
                       protected_attribute_names=["gender"]), ValueError,
         r"protected_attribute_names \['gender'\] are not columns of annotators"),
    Case("mad-protected-without-table", lambda c: mad(protected_attribute_names=["age"]), ValueError,
         r"protected_attribute_names=\['age'\] given without an annotators table"),
    Case("mad-item-features-without-items", lambda c: mad(item_features=["x"]), ValueError,
         r"item_features=\['x'\] given without an items table"),
    Case("mad-item-features-unknown",
         lambda c: mad(items=pd.DataFrame({"x": [1.0, 2.0]}, index=[1, 2]), item_features=["y"]), ValueError,
         r"item_features \['y'\] are not columns of items"),
    Case("mad-item-feature-missing-value",
         lambda c: mad(items=pd.DataFrame({"x": [1.0, np.nan]}, index=[1, 2]), item_features=["x"]),
         ValueError, r"item feature 'x' is missing for 1"),
    Case("mad-items-duplicate-ids",
         lambda c: mad(items=pd.DataFrame({"x": [1.0, 2.0, 3.0]}, index=[1, 1, 2])), ValueError,
         r"items table has 1 duplicate id"),
    Case("mad-attribute-named-like-label",
         lambda c: mad(annotators=pd.DataFrame({"label": ["p", "q"]}, index=["a", "b"])), ValueError,
         r"annotator attribute 'label' has the same name"),
    Case("mad-numeric-attribute-missing-and-negative",
         lambda c: mad(annotators=pd.DataFrame({"score": [-1.0, np.nan]}, index=["a", "b"])), ValueError,
         r"column 'score' is numeric with missing values and negative"),
    # ---- dataset methods
    Case("split-unknown-unit", lambda c: c.ds.split([0.5], by="person"), ValueError, r"by='person'"),
    Case("split-zero-folds", lambda c: c.ds.split(0), ValueError, r"num_or_size_splits=0"),
    Case("split-fraction-out-of-range", lambda c: c.ds.split([1.5]), ValueError,
         r"fractions in num_or_size_splits must lie in \(0, 1\)"),
    Case("split-decreasing", lambda c: c.ds.split([0.7, 0.3]), ValueError, r"num_or_size_splits must be increasing"),
    Case("split-bool", lambda c: c.ds.split(True), TypeError, r"num_or_size_splits must be an int"),
    Case("split-mixed-types", lambda c: c.ds.split([0.5, 3]), TypeError, r"num_or_size_splits must be all fractions"),
    Case("split-bad-seed", lambda c: c.ds.split([0.5], shuffle=True, seed="abc"), TypeError, r"seed"),
    Case("majority-vote-unknown-tie", lambda c: c.ds.majority_vote(tie="random"), ValueError,
         r"tie must be one of .*, got 'random'"),
    Case("item-summary-unknown-tie", lambda c: c.ds.item_summary(tie=None), ValueError,
         r"tie must be one of .*, got None"),
    Case("majority-labels-unknown-tie", lambda c: c.ds.majority_labels(tie="coin"), ValueError,
         r"tie must be one of .*, got 'coin'"),
    Case("with-predictions-wrong-length", lambda c: c.ds.with_predictions([0, 1]), ValueError,
         r"pred must have one value per row"),
    Case("with-predictions-outside-labels", lambda c: c.ds.with_predictions(np.full(len(c.ds.labels), 3)),
         ValueError, r"pred has \d+ value\(s\) outside"),
    Case("with-predictions-nan", lambda c: c.ds.with_predictions(np.full(len(c.ds.labels), np.nan)),
         ValueError, r"pred has \d+ value\(s\) outside"),
    Case("with-predictions-series-missing-items", lambda c: c.ds.with_predictions(pd.Series({0: 1})),
         ValueError, r"pred has no value for \d+ row"),
    Case("with-predictions-scores-out-of-range",
         lambda c: c.ds.with_predictions(c.ds.labels.ravel(), scores=np.full(len(c.ds.labels), 1.5)),
         ValueError, r"scores must be probabilities"),
    Case("with-predictions-scores-not-numbers",
         lambda c: c.ds.with_predictions(c.ds.labels.ravel(), scores=["a"] * len(c.ds.labels)),
         ValueError, r"scores must be"),
    Case("subset-mask-wrong-length", lambda c: c.ds.subset(np.array([True, False])), ValueError,
         r"boolean mask must have length"),
    Case("subset-float-positions", lambda c: c.ds.subset(np.array([0.5])), TypeError,
         r"indexes must be integer positions"),
    Case("subset-position-out-of-range", lambda c: c.ds.subset([10**6]), ValueError, r"indexes"),
    Case("align-not-a-multi-annotator-dataset", lambda c: c.ds.align_datasets(c.bld), TypeError,
         r"other must be a MultiAnnotatorDataset"),
    Case("align-different-pairs", lambda c: c.ds.align_datasets(c.ds.subset(np.arange(5))), ValueError,
         r"different \(item, annotator\) pairs"),
    # ---- make_subjective_dataset
    Case("gen-zero-items", lambda c: make_subjective_dataset(n_items=0), ValueError, r"n_items must be >= 1"),
    Case("gen-items-not-int", lambda c: make_subjective_dataset(n_items="10"), TypeError, r"n_items must be an int"),
    Case("gen-items-bool", lambda c: make_subjective_dataset(n_items=True), TypeError, r"n_items must be an int"),
    Case("gen-more-annotations-than-annotators",
         lambda c: make_subjective_dataset(n_annotators=3, annotations_per_item=4), ValueError,
         r"annotations_per_item=4 exceeds n_annotators=3"),
    Case("gen-noise-out-of-range", lambda c: make_subjective_dataset(noise=1.5), ValueError, r"noise must be"),
    Case("gen-noise-nan", lambda c: make_subjective_dataset(noise=float("nan")), ValueError, r"noise must be"),
    Case("gen-fractions-sum-above-one",
         lambda c: make_subjective_dataset(minority_fraction=0.6, spammer_fraction=0.6), ValueError,
         r"minority_fraction \+ spammer_fraction"),
    Case("gen-one-feature", lambda c: make_subjective_dataset(n_features=1), ValueError, r"n_features must be >= 2"),
    Case("gen-negative-skew", lambda c: make_subjective_dataset(activity_skew=-1), ValueError, r"activity_skew"),
    Case("gen-bad-random-state", lambda c: make_subjective_dataset(n_items=5, random_state="abc"), TypeError,
         r"random_state"),
    # ---- loaders
    Case("wiki-unknown-task", lambda c: WikipediaTalkDataset("toxic", data_dir=c.d), ValueError,
         r"task must be one of"),
    Case("wiki-missing-files", lambda c: WikipediaTalkDataset("toxicity", data_dir=c.d / "nowhere"),
         FileNotFoundError, r"toxicity_annotated_comments\.tsv"),
    Case("wiki-unknown-duplicates-policy",
         lambda c: WikipediaTalkDataset("toxicity", data_dir=c.d, duplicates="last"), ValueError, r"duplicates"),
    Case("wiki-tables-wrong-type", lambda c: WikipediaTalkDataset("toxicity", tables=(1, 2, 3, 4)), TypeError,
         r"tables must be WikipediaTalkTables"),
    Case("lewidi-missing-path", lambda c: LeWiDiDataset(c.d / "nowhere.json"), FileNotFoundError,
         r"LeWiDi data file\(s\) not found"),
    Case("lewidi-favorable-label", lambda c: LeWiDiDataset(c.d / "MP_dev.json", favorable_label=2), ValueError,
         r"favorable_label must be 0 or 1"),
    Case("lewidi-unknown-split", lambda c: LeWiDiDataset(c.d, split="validation"), ValueError,
         r"split must be one of"),
    Case("lewidi-invalid-json", lambda c: LeWiDiDataset(c.d / "bad_dev.json", annotators_meta=False),
         ValueError, r"bad_dev\.json: not valid JSON"),
    Case("lewidi-labels-not-binary", lambda c: LeWiDiDataset(c.d / "MP_dev.json", annotators_meta=False),
         ValueError, r"labels must be 0 or 1.*positive_labels"),
    Case("lewidi-positive-labels-str",
         lambda c: LeWiDiDataset(c.d / "MP_dev.json", annotators_meta=False, positive_labels="2"), TypeError,
         r"positive_labels must be a collection"),
    Case("lewidi-annotations-not-object",
         lambda c: LeWiDiDataset(c.d / "nometa" / "X_dev.json", annotators_meta=False), ValueError,
         r"item '1' must have an 'annotations' object"),
    Case("lewidi-missing-meta-file",
         lambda c: LeWiDiDataset(c.d / "MP_dev.json", annotators_meta=c.d / "nometa.json"), FileNotFoundError,
         r"annotator metadata file not found"),
    # ---- OpinionExclusionMetric
    Case("oe-dataset-not-multi-annotator", lambda c: OpinionExclusionMetric(c.bld, c.bld_pred), TypeError,
         r"dataset must be a MultiAnnotatorDataset"),
    Case("oe-rows-mismatch", lambda c: OpinionExclusionMetric(c.ds, c.pred.subset(np.arange(10))), ValueError,
         r"same \(item, annotator\) rows: \d+ vs 10 rows"),
    Case("oe-rows-reordered",
         lambda c: OpinionExclusionMetric(c.ds, c.pred.subset(np.arange(len(c.ds.labels))[::-1])), ValueError,
         r"align_datasets"),
    Case("oe-unknown-grouping", lambda c: _oe(c, grouping="adr2"), ValueError, r"grouping must be one of"),
    Case("oe-grouping-wrong-type", lambda c: _oe(c, grouping=["adr"]), TypeError, r"grouping must be one of"),
    Case("oe-grouping-series-shares-no-id", lambda c: _oe(c, grouping=pd.Series({"zz": 1})), ValueError,
         r"grouping .*no annotator id"),
    Case("oe-bins-zero", lambda c: _oe(c, bins=0), ValueError, r"bins must be a positive number"),
    Case("oe-bins-bool", lambda c: _oe(c, bins=True), TypeError, r"bins must be an int"),
    Case("oe-bins-decreasing", lambda c: _oe(c, bins=[0, 0.5, 0.2]), ValueError, r"bin edges must be strictly"),
    Case("oe-bins-nan-edge", lambda c: _oe(c, bins=[0, np.nan, 1]), ValueError, r"bin edges must not contain NaN"),
    Case("oe-bins-one-edge", lambda c: _oe(c, bins=[0.5]), ValueError, r"bin edges must be a 1-D sequence"),
    Case("oe-bins-bad-string", lambda c: _oe(c, bins="quantile:x"), ValueError, r"bins as a string"),
    Case("oe-bins-wrong-type", lambda c: _oe(c, bins=2.5), TypeError, r"bins must be an int"),
    Case("oe-unknown-performance", lambda c: _oe(c, performance="recall"), ValueError, r"performance must be one of"),
    Case("oe-empty-performance", lambda c: _oe(c, performance=[]), ValueError, r"performance must not be an empty"),
    Case("oe-performance-wrong-type", lambda c: _oe(c, performance=3), TypeError, r"performance must be a metric"),
    Case("oe-unknown-tie", lambda c: _oe(c, tie="coin"), ValueError, r"tie must be one of"),
    Case("oe-unknown-small-groups", lambda c: _oe(c, small_groups="keep"), ValueError, r"small_groups must be"),
    Case("oe-unknown-aggregate", lambda c: _oe(c, aggregate="median"), ValueError, r"aggregate must be None or one of"),
    Case("oe-unknown-ambiguity", lambda c: _oe(c, ambiguity="variance"), ValueError, r"ambiguity must be one of"),
    Case("oe-unknown-nan-policy", lambda c: _oe(c, nan_policy="ignore"), ValueError, r"nan_policy must be one of"),
    Case("oe-min-group-size-zero", lambda c: _oe(c, min_group_size=0), ValueError, r"min_group_size must be >= 1"),
    Case("oe-min-group-size-float", lambda c: _oe(c, min_group_size=1.5), TypeError, r"min_group_size must be an int"),
    Case("oe-demographic-unknown-attribute", lambda c: _oe(c, grouping="demographic", attributes=["height"]),
         ValueError, r"attributes \['height'\] are not annotator columns"),
    Case("oe-demographic-without-attributes",
         lambda c: OpinionExclusionMetric(mad(), mad(), grouping="demographic"), ValueError,
         r"grouping='demographic' needs annotator attributes"),
    Case("oe-discovered-unknown-clustering", lambda c: _oe(c, grouping="discovered", clustering="spectral"),
         ValueError, r"clustering must be one of"),
    Case("oe-discovered-one-cluster", lambda c: _oe(c, grouping="discovered", n_clusters=1), ValueError,
         r"n_clusters must be between 2 and the number of annotators \(12\)"),
    Case("oe-discovered-clusters-text", lambda c: _oe(c, grouping="discovered", n_clusters="3"), TypeError,
         r"n_clusters must be an int"),
    Case("oe-discovered-bad-random-state", lambda c: _oe(c, grouping="discovered", random_state="x"), TypeError,
         r"random_state must be None"),
    Case("oe-random-state-bool", lambda c: _oe(c, random_state=True), TypeError, r"random_state must be None"),
    Case("sdm-positional-options", lambda c: SubgroupDiscoveryMetric(c.bld, c.bld_pred, "kmeans"), TypeError,
         r"positional argument"),
    Case("oe-positional-options", lambda c: OpinionExclusionMetric(c.ds, c.pred, "adr"), TypeError,
         r"positional argument"),
    Case("oe-discovered-unknown-attribute", lambda c: _oe(c, grouping="discovered", attributes=["height"]),
         ValueError, r"attributes \['height'\] are not annotator columns"),
    # ---- functional API (aif360_subjective.sklearn.metrics)
    Case("fn-length-mismatch", lambda c: _fn(item_ids=[1, 1, 2]), ValueError,
         r"must have the same length.*'item_ids': 3"),
    Case("fn-empty", lambda c: _fn(y_true=[], y_pred=[], item_ids=[], annotator_ids=[]), ValueError,
         r"y_true is empty"),
    Case("fn-nan-label", lambda c: _fn(y_true=[0, np.nan, 1, 1]), ValueError, r"y_true contains missing labels"),
    Case("fn-nan-prediction", lambda c: _fn(y_pred=[0, 1, None, 1]), ValueError, r"y_pred contains missing labels"),
    Case("fn-nan-annotator-id", lambda c: _fn(annotator_ids=["a", None, "a", "b"]), ValueError,
         r"annotator_ids contains missing values"),
    Case("fn-three-labels", lambda c: _fn(y_pred=[0, 1, 2, 1]), ValueError, r"labels must be binary"),
    Case("fn-pos-label-not-a-label", lambda c: _fn(pos_label=2), ValueError, r"pos_label=2"),
    Case("fn-two-dimensional", lambda c: _fn(y_true=np.zeros((4, 2))), ValueError, r"y_true must be one-dimensional"),
    Case("fn-no-item-level", lambda c: skm.opinion_exclusion(pd.Series([0, 1]), [0, 1], annotator_ids=["a", "b"]),
         ValueError, r"item_ids not given and y_true has no index level 'item'"),
    Case("fn-demographic-without-table", lambda c: _fn(grouping="demographic", attributes="age"), ValueError,
         r"grouping='demographic' needs an annotator table"),
    Case("fn-bad-bins", lambda c: _fn(bins=-1), ValueError, r"bins must be a positive number"),
    Case("fn-min-group-size-float", lambda c: _fn(min_group_size=1.5), TypeError, r"min_group_size must be an int"),
    Case("fn-demographic-no-attribute-columns", lambda c: _fn(grouping="demographic", annotators=pd.DataFrame(
        index=pd.Index(["a", "b"]))), ValueError, r"grouping='demographic' needs annotator attributes"),
    Case("fn-random-state-bool", lambda c: _fn(random_state=True), TypeError, r"random_state must be None"),
    Case("fn-unknown-tie", lambda c: skm.disagreement_rates([0, 1, 1, 1], item_ids=[1, 1, 2, 2],
                                                            annotator_ids=list("abab"), tie="x"),
         ValueError, r"tie must be one of"),
    Case("fn-callable-returns-text", lambda c: _fn(performance=lambda a, b: "good"), ValueError,
         r"performance callable .*returned 'good'"),
    Case("fn-discovered-too-many-clusters", lambda c: _fn(grouping="discovered", n_clusters=5), ValueError,
         r"n_clusters must be between 2 and the number of annotators \(2\)"),
    Case("fn-unknown-grouping", lambda c: skm.opinion_unfairness([0, 1, 1, 1], [1, 1, 1, 0], item_ids=[1, 1, 2, 2],
                                                                 annotator_ids=list("abab"), grouping="age"),
         ValueError, r"grouping must be one of"),
    # ---- detect_subgroups
    Case("ds-X-wrong-type", lambda c: _ds(c, X={"a": [1, 2]}), TypeError, r"X must be a pandas DataFrame"),
    Case("ds-X-one-dimensional", lambda c: _ds(c, X=np.arange(30)), ValueError, r"X must be 2-dimensional"),
    Case("ds-X-no-columns", lambda c: _ds(c, X=pd.DataFrame(index=range(30))), ValueError, r"X has no feature"),
    Case("ds-X-one-row", lambda c: _ds(c, X=c.X.iloc[:1], y_true=[1], y_pred=[1], n_clusters=None), ValueError,
         r"X needs at least 2 rows"),
    Case("ds-X-nan", lambda c: _ds(c, X=c.X.assign(x=np.where(np.arange(30) == 3, np.nan, 1.0))), ValueError,
         r"X contains missing values.*'x': 1"),
    Case("ds-X-duplicate-columns", lambda c: _ds(c, X=pd.concat([c.X, c.X[["x"]]], axis=1)), ValueError,
         r"X has duplicated column names: \['x'\]"),
    Case("ds-y-true-wrong-length", lambda c: _ds(c, y_true=c.y[:-1]), ValueError, r"y_true has 29 values but X has 30"),
    Case("ds-y-pred-nan", lambda c: _ds(c, y_pred=np.where(np.arange(30) == 0, np.nan, 1.0)), ValueError,
         r"y_pred contains 1 missing"),
    Case("ds-y-true-outside-labels", lambda c: _ds(c, y_true=np.where(np.arange(30) == 0, 2, c.y), task="binary"),
         ValueError, r"y_true has values \[2\] outside the admissible labels"),
    Case("ds-task-unknown", lambda c: _ds(c, task="numeric"), ValueError,
         r"task must be one of \['auto', 'binary', 'multiclass', 'ordinal', 'regression'\], got 'numeric'"),
    Case("ds-groups-all-distinct", lambda c: _ds(c, groups=np.arange(30)), ValueError,
         r"groups gives every one of the 30 rows its own cluster: it adds nothing"),
    Case("ds-regression-nan", lambda c: _ds(c, y_true=np.where(np.arange(30) == 0, np.nan, 0.5),
                                            y_pred=np.full(30, 0.2), task="regression"),
         ValueError, r"y_true contains 1 missing values"),
    Case("ds-y-true-two-columns", lambda c: _ds(c, y_true=np.zeros((30, 2))), ValueError,
         r"y_true must be 1-dimensional"),
    Case("ds-labels-three-values", lambda c: _ds(c, labels=(0, 1, 2)), ValueError, r"labels must be two distinct"),
    Case("ds-pos-label-not-admissible", lambda c: _ds(c, pos_label=5), ValueError,
         r"pos_label=5 is not one of the admissible labels"),
    Case("ds-threshold-above-one", lambda c: _ds(c, entropy_threshold=1.5), ValueError,
         r"entropy_threshold must be in \[0, 1\]"),
    Case("ds-threshold-nan", lambda c: _ds(c, entropy_threshold=float("nan")), ValueError,
         r"entropy_threshold must be in"),
    Case("ds-threshold-text", lambda c: _ds(c, entropy_threshold="high"), TypeError, r"entropy_threshold must be a"),
    Case("ds-one-cluster", lambda c: _ds(c, n_clusters=1), ValueError, r"n_clusters must be between 2"),
    Case("ds-more-clusters-than-rows", lambda c: _ds(c, n_clusters=31), ValueError,
         r"n_clusters must be between 2 and the number of rows \(30\)"),
    Case("ds-fractional-clusters", lambda c: _ds(c, n_clusters=2.5), TypeError, r"n_clusters must be an int"),
    Case("ds-empty-cluster-candidates", lambda c: _ds(c, n_clusters=[]), ValueError, r"n_clusters: the sequence"),
    Case("ds-unknown-undefined-rates", lambda c: _ds(c, undefined_rates="zero"), ValueError,
         r"undefined_rates must be one of"),
    Case("ds-unknown-normalization", lambda c: _ds(c, normalization="global"), ValueError,
         r"normalization must be one of"),
    Case("ds-unknown-selection-metric", lambda c: _ds(c, selection_metric="f1"), ValueError,
         r"selection_metric must be one of"),
    Case("ds-unknown-clustering", lambda c: _ds(c, clustering="hdbscan"), ValueError, r"clustering must be one of"),
    Case("ds-clustering-not-a-clusterer", lambda c: _ds(c, clustering=42), TypeError,
         r"clustering must be one of \[.*\] or a scikit-learn clusterer instance, got 42"),
    Case("ds-density-clustering-with-k", lambda c: _ds(c, clustering="dbscan"), ValueError,
         r"clustering='dbscan' finds its own number of clusters"),
    Case("ds-unknown-categorical-feature", lambda c: _ds(c, categorical_features=["colour"]), ValueError,
         r"categorical_features: unknown column\(s\) \['colour'\]"),
    Case("ds-string-column-not-categorical", lambda c: _ds(c, categorical_features=["x"]), TypeError,
         r"column 'g' has non-numeric dtype"),
    Case("ds-bad-random-state", lambda c: _ds(c, random_state="abc"), TypeError, r"random_state must be None"),
    Case("ds-negative-weights", lambda c: _ds(c, sample_weight=-np.ones(30)), ValueError,
         r"sample_weight must be finite and non-negative"),
    Case("ds-weights-wrong-length", lambda c: _ds(c, sample_weight=np.ones(3)), ValueError,
         r"sample_weight has 3 values"),
    Case("ds-weights-not-numbers", lambda c: _ds(c, sample_weight=["a"] * 30), ValueError, r"sample_weight"),
    Case("ds-negative-silhouette-sample", lambda c: _ds(c, silhouette_sample_size=-1), ValueError,
         r"silhouette_sample_size"),
    Case("compare-unknown-clustering", lambda c: compare_clusterings(c.X, c.y, c.yp, [("hdbscan", 3)]), ValueError,
         r"unknown clustering 'hdbscan'"),
    Case("compare-k-out-of-range", lambda c: compare_clusterings(c.X, c.y, c.yp, [2, 40]), ValueError,
         r"n_clusters must be between 2"),
    Case("compare-candidates-not-a-list", lambda c: compare_clusterings(c.X, c.y, c.yp, 5), TypeError,
         r"candidates"),
    Case("compare-unknown-selection-metric",
         lambda c: compare_clusterings(c.X, c.y, c.yp, [2], selection_metric="gini"), ValueError,
         r"selection_metric must be one of"),
    # ---- SubgroupReport
    Case("report-ranking-unknown-metric", lambda c: c.rep.ranking("gini"), ValueError, r"metric must be one of"),
    Case("report-ranking-unknown-kind", lambda c: c.rep.ranking("accuracy", kind="slice"), ValueError,
         r"kind must be one of"),
    Case("report-ranking-zero-n", lambda c: c.rep.ranking("accuracy", n=0), ValueError, r"n must be a positive int"),
    Case("report-ranking-zero-min-size", lambda c: c.rep.ranking("accuracy", min_size=0), ValueError,
         r"min_size must be a positive int"),
    Case("report-members-unknown-id", lambda c: c.rep.members("cluster", 99), ValueError, r"unknown subgroup id 99"),
    Case("report-members-unknown-kind", lambda c: c.rep.members("slice", 0), ValueError, r"kind must be one of"),
    Case("report-conditions-unknown-id", lambda c: c.rep.pattern_conditions(-5), ValueError,
         r"unknown subgroup id -5"),
    # ---- SubgroupDiscoveryMetric
    Case("sdm-dataset-wrong-type", lambda c: _sdm(c, dataset=c.X), TypeError, r"dataset must be a BinaryLabelDataset"),
    Case("sdm-classified-wrong-type", lambda c: _sdm(c, classified_dataset=c.yp), TypeError,
         r"classified_dataset must be a BinaryLabelDataset"),
    Case("sdm-rows-mismatch", lambda c: _sdm(c, classified_dataset=c.bld_pred.subset(np.arange(10))), ValueError,
         r"classified_dataset has 10 rows but dataset has 30"),
    Case("sdm-favorable-labels-differ", lambda c: _sdm(c, classified_dataset=_with_fav(c.bld_pred, 0.0)),
         ValueError, r"favourable labels differ"),
    Case("sdm-unknown-attribute", lambda c: _sdm(c, attributes=["height"]), ValueError,
         r"attributes: unknown column\(s\) \['height'\]"),
    Case("sdm-threshold-negative", lambda c: _sdm(c, entropy_threshold=-0.1), ValueError, r"entropy_threshold"),
    Case("sdm-too-many-clusters", lambda c: _sdm(c, n_clusters=100), ValueError, r"n_clusters must be between"),
    Case("sdm-cluster-column-clash", lambda c: _sdm(c, cluster_column="sex"), ValueError,
         r"cluster_column 'sex' is already a column"),
    Case("sdm-unknown-clustering", lambda c: _sdm(c, clustering="spectral"), ValueError, r"clustering must be one of"),
    Case("sdm-groups-unknown-kind", lambda c: c.sdm.aif360_groups("slice", 0), ValueError, r"kind must be one of"),
    Case("sdm-groups-unknown-id", lambda c: c.sdm.aif360_groups("entropy", 99), ValueError, r"unknown subgroup id 99"),
    Case("sdm-datasets-unknown-kind", lambda c: c.sdm.subgroup_datasets("slice"), ValueError,
         r"kind must be 'cluster', 'entropy' or 'pattern'"),
    Case("sdm-ranking-unknown-metric", lambda c: c.sdm.ranking("gini"), ValueError, r"metric must be one of"),
    # ---- MajorityVoteClassifier
    Case("mvc-predict-before-fit", lambda c: MajorityVoteClassifier().predict(c.ds), ValueError, r"not fitted"),
    Case("mvc-fit-wrong-dataset", lambda c: MajorityVoteClassifier().fit(c.bld), TypeError,
         r"dataset must be a MultiAnnotatorDataset"),
    Case("mvc-fit-no-item-features", lambda c: MajorityVoteClassifier().fit(mad()), ValueError, r"no item features"),
    Case("mvc-unknown-tie", lambda c: MajorityVoteClassifier(tie="coin"), ValueError, r"tie must be one of"),
    Case("mvc-estimator-not-a-classifier", lambda c: MajorityVoteClassifier(estimator="svm"), TypeError,
         r"estimator must be"),
    Case("mvc-bad-random-state", lambda c: MajorityVoteClassifier(random_state=1.5), TypeError,
         r"random_state must be None"),
    # ---- AnnotatorAwareClassifier
    Case("aac-predict-before-fit", lambda c: AnnotatorAwareClassifier().predict(c.ds), ValueError, r"not fitted"),
    Case("aac-fit-wrong-dataset", lambda c: AnnotatorAwareClassifier().fit(c.bld), TypeError,
         r"dataset must be a MultiAnnotatorDataset"),
    Case("aac-predict-wrong-dataset", lambda c: c.aac.predict(c.bld), TypeError,
         r"dataset must be a MultiAnnotatorDataset"),
    Case("aac-fit-single-label", lambda c: AnnotatorAwareClassifier().fit(mad(_ann(label=[1, 1, 1, 1]))), ValueError,
         r"single label value"),
    Case("aac-unknown-attribute", lambda c: AnnotatorAwareClassifier(attributes=["height"]).fit(c.ds), ValueError,
         r"attributes \['height'\] are not annotator attributes"),
    Case("aac-predict-other-features", _aac_other_features, ValueError, r"differ from those seen in fit"),
    Case("aac-estimator-not-a-classifier", lambda c: AnnotatorAwareClassifier(estimator="svm").fit(c.ds), TypeError,
         r"estimator must be"),
    Case("aac-bad-random-state", lambda c: AnnotatorAwareClassifier(random_state="seed"), TypeError,
         r"random_state must be None"),
    # ---- crowdtruth_scores and CrowdTruthFilter
    Case("ct-not-a-frame", lambda c: _ct().crowdtruth_scores([("u", "w", "a")]), TypeError, r"df must be a pandas"),
    Case("ct-misspelled-column", lambda c: _ct().crowdtruth_scores(_ct_df(), worker_col="annotator"), ValueError,
         r"worker_col='annotator'"),
    Case("ct-same-column", lambda c: _ct().crowdtruth_scores(_ct_df(), worker_col="unit"), ValueError,
         r"unit, worker and label columns must differ"),
    Case("ct-empty", lambda c: _ct().crowdtruth_scores(_ct_df().iloc[:0]), ValueError, r"empty"),
    Case("ct-missing-label", lambda c: _ct().crowdtruth_scores(_ct_df(label=["a", None, "b", "a"])), ValueError,
         r"column 'label' has 1 judgment\(s\) without a label"),
    Case("ct-missing-worker", lambda c: _ct().crowdtruth_scores(_ct_df(worker=["w1", None, "w3", "w1"])),
         ValueError, r"column 'worker' has 1 missing id"),
    Case("ct-label-outside-labels", lambda c: _ct().crowdtruth_scores(_ct_df(), labels=["a"]), ValueError,
         r"column 'label' has 1 label\(s\) not in labels=\['a'\]"),
    Case("ct-labels-not-a-list", lambda c: _ct().crowdtruth_scores(_ct_df(), labels="ab"), TypeError,
         r"labels must be a list"),
    Case("ct-labels-repeated", lambda c: _ct().crowdtruth_scores(_ct_df(), labels=["a", "a", "b"]), ValueError,
         r"labels has duplicates"),
    Case("ct-duplicate-pairs", lambda c: _ct().crowdtruth_scores(pd.concat([_ct_df(), _ct_df().iloc[:1]])),
         ValueError, r"1 duplicate \(unit, worker\) row"),
    Case("ct-unknown-duplicates-policy", lambda c: _ct().crowdtruth_scores(_ct_df(), duplicates="first"),
         ValueError, r"duplicates='first' is not a policy"),
    Case("ct-dict-label-cell", lambda c: _ct().crowdtruth_scores(_ct_df(label=[{"a": 1}, "a", "b", "a"])),
         ValueError, r"column 'label' holds a dict"),
    Case("ct-max-delta-zero", lambda c: _ct().crowdtruth_scores(_ct_df(), max_delta=0), ValueError,
         r"max_delta must be a finite number > 0"),
    Case("ct-max-iter-float", lambda c: _ct().crowdtruth_scores(_ct_df(), max_iter=1.5), TypeError,
         r"max_iter must be an int"),
    Case("ct-open-ended-text", lambda c: _ct().crowdtruth_scores(_ct_df(), open_ended="yes"), TypeError,
         r"open_ended must be True or False"),
    Case("ctf-threshold-above-one", lambda c: _ct().CrowdTruthFilter(threshold=1.5), ValueError,
         r"threshold must be in \[0, 1\]"),
    Case("ctf-threshold-unknown-name", lambda c: _ct().CrowdTruthFilter(threshold="low"), ValueError,
         r"threshold must be 'auto'"),
    Case("ctf-threshold-and-quantile", lambda c: _ct().CrowdTruthFilter(threshold=0.3, quantile=0.1), ValueError,
         r"either threshold or quantile"),
    Case("ctf-quantile-nan", lambda c: _ct().CrowdTruthFilter(quantile=float("nan")), ValueError, r"quantile"),
    Case("ctf-protect-text", lambda c: _ct().CrowdTruthFilter(protect="yes"), TypeError, r"protect must be True"),
    Case("ctf-auto-k-zero", lambda c: _ct().CrowdTruthFilter(auto_k=0), ValueError, r"auto_k must be"),
    Case("ctf-min-annotations-small", lambda c: _ct().CrowdTruthFilter(min_annotations=2), ValueError,
         r"min_annotations must be >= 4"),
    Case("ctf-max-delta-negative", lambda c: _ct().CrowdTruthFilter(max_delta=-1), ValueError, r"max_delta"),
    Case("ctf-max-iter-zero", lambda c: _ct().CrowdTruthFilter(max_iter=0), ValueError, r"max_iter must be >= 1"),
    Case("ctf-transform-before-fit", lambda c: _ct().CrowdTruthFilter().transform(c.ds), ValueError,
         r"not fitted"),
    Case("ctf-fit-a-frame", lambda c: _ct().CrowdTruthFilter().fit(_ct_df()), TypeError,
         r"dataset must be a MultiAnnotatorDataset"),
    Case("ctf-transform-other-dataset",
         lambda c: _ct().CrowdTruthFilter().fit(c.ds.subset(np.arange(30))).transform(c.ds), ValueError,
         r"were not in the dataset given to fit"),
    # ---- plotting and report
    Case("plot-radar-wrong-object", lambda c: plot_summary_radar(42), TypeError, r"expected a SubgroupReport"),
    Case("plot-subgroup-unknown-id", lambda c: plot_subgroup_metrics(c.rep, 99), ValueError,
         r"unknown subgroup id 99"),
    Case("plot-ranking-unknown-metric", lambda c: plot_ranking(c.rep, "gini"), ValueError, r"metric must be one of"),
    Case("plot-group-table-empty", lambda c: group_performance_table({}), ValueError, r"metrics must be a non-empty"),
    Case("plot-group-table-wrong-value", lambda c: group_performance_table({"m": 1}), TypeError,
         r"metrics\['m'\] must be an OpinionExclusionMetric"),
    Case("plot-group-unknown-kind", lambda c: plot_group_performance({"m": c.oem}, kind="pie"), ValueError,
         r"kind must be 'heatmap', 'bars' or 'dots'"),
    Case("report-title-not-str", lambda c: Report(3), TypeError, r"title must be a str"),
    Case("report-table-not-frame", lambda c: Table.from_frame([1, 2]), TypeError, r"frame must be a pandas"),
    Case("report-figure-not-png", lambda c: Figure.from_png(b"GIF89a"), ValueError, r"png must be the bytes"),
    Case("report-figure-missing-file", lambda c: Figure.from_png(str(c.d / "nowhere.png")), FileNotFoundError,
         r"nowhere\.png"),
    # ---- command line: exit status 2, one line on stderr
    cli("cli-unknown-command", "explain", match=r"invalid choice: 'explain'"),
    cli("cli-audit-missing-file", "audit", "{d}/nowhere.csv", "--item-col", "item", "--annotator-col", "annotator",
        "--label-col", "label", "--prediction-col", "pred", match=r"no such file or folder: .*nowhere\.csv"),
    cli("cli-audit-misspelled-column", "audit", "{d}/ann.csv", "--item-col", "item", "--annotator-col",
        "annotator", "--label-col", "lable", "--prediction-col", "pred", match=r"--label-col 'lable' is not a column"),
    cli("cli-audit-missing-required-option", "audit", "{d}/ann.csv", "--item-col", "item", match=r"required"),
    cli("cli-audit-unknown-option", "audit", "{d}/ann.csv", "--item-col", "item", "--annotator-col", "annotator",
        "--label-col", "label", "--prediction-col", "pred", "--colour", "red", match=r"unrecognized arguments"),
    cli("cli-audit-bad-bins", "audit", "{d}/ann.csv", "--item-col", "item", "--annotator-col", "annotator",
        "--label-col", "label", "--prediction-col", "pred", "--bins", "five", match=r"--bins 'five'"),
    cli("cli-audit-zero-bins", "audit", "{d}/ann.csv", "--item-col", "item", "--annotator-col", "annotator",
        "--label-col", "label", "--prediction-col", "pred", "--bins", "0", match=r"bins must be a positive"),
    cli("cli-audit-favorable-not-a-value", "audit", "{d}/ann.csv", "--item-col", "item", "--annotator-col",
        "annotator", "--label-col", "label", "--prediction-col", "pred", "--favorable-label", "3",
        match=r"--favorable-label 3 is not a value of 'label'"),
    cli("cli-audit-three-labels", "audit", "{d}/ann3.csv", "--item-col", "item", "--annotator-col", "annotator",
        "--label-col", "label", "--prediction-col", "pred", match=r"--label-col 'label' holds 3 values"),
    cli("cli-audit-prediction-outside", "audit", "{d}/annpred.csv", "--item-col", "item", "--annotator-col",
        "annotator", "--label-col", "label", "--prediction-col", "pred", match=r"--prediction-col 'pred' holds 5"),
    cli("cli-audit-missing-label", "audit", "{d}/annnan.csv", "--item-col", "item", "--annotator-col", "annotator",
        "--label-col", "label", "--prediction-col", "pred", match=r"column 'label' has 1 missing label"),
    cli("cli-audit-duplicate-annotator-ids", "audit", "{d}/ann.csv", "--item-col", "item", "--annotator-col",
        "annotator", "--label-col", "label", "--prediction-col", "pred", "--annotators", "{d}/dupann.csv",
        match=r"id column 'annotator' repeats the id 'A00000'"),
    cli("cli-audit-empty-file", "audit", "{d}/empty.csv", "--item-col", "item", "--annotator-col", "annotator",
        "--label-col", "label", "--prediction-col", "pred", match=r"cannot read annotations file"),
    cli("cli-audit-unknown-grouping", "audit", "{d}/ann.csv", "--item-col", "item", "--annotator-col",
        "annotator", "--label-col", "label", "--prediction-col", "pred", "--grouping", "age",
        match=r"--grouping: invalid choice"),
    cli("cli-audit-demographic-without-annotators", "audit", "{d}/ann.csv", "--item-col", "item",
        "--annotator-col", "annotator", "--label-col", "label", "--prediction-col", "pred", "--grouping",
        "demographic", match=r"--grouping demographic needs annotator attributes, .*give --annotators CSV"),
    cli("cli-audit-unknown-adr-fit", "audit", "{d}/ann.csv", "--item-col", "item", "--annotator-col", "annotator",
        "--label-col", "label", "--prediction-col", "pred", "--adr-fit", "twice", match=r"--adr-fit: invalid choice"),
    cli("cli-audit-adr-fit-without-adr", "audit", "{d}/ann.csv", "--item-col", "item", "--annotator-col",
        "annotator", "--label-col", "label", "--prediction-col", "pred", "--grouping", "ambiguity", "--adr-fit",
        "cross", match=r"--adr-fit cross cross-fits ADR bins and applies to --grouping adr only"),
    cli("cli-demo-unknown-adr-fit", "demo", "--out", "{d}/demo", "--adr-fit", "halves",
        match=r"--adr-fit: invalid choice"),
    cli("cli-subgroups-missing-column", "subgroups", "{d}/sg.csv", "--label-col", "truth", "--prediction-col",
        "pred", match=r"--label-col 'truth' is not a column"),
    cli("cli-subgroups-threshold-above-one", "subgroups", "{d}/sg.csv", "--label-col", "label", "--prediction-col",
        "pred", "--entropy-threshold", "2", match=r"--entropy-threshold: expected a number in \[0, 1\]"),
    cli("cli-subgroups-zero-clusters", "subgroups", "{d}/sg.csv", "--label-col", "label", "--prediction-col",
        "pred", "--n-clusters", "0", match=r"--n-clusters: expected an integer >= 2"),
    cli("cli-subgroups-too-many-clusters", "subgroups", "{d}/sg.csv", "--label-col", "label", "--prediction-col",
        "pred", "--n-clusters", "500", match=r"--n-clusters must be between 2 and the number of rows"),
    cli("cli-subgroups-categorical-not-a-feature", "subgroups", "{d}/sg.csv", "--label-col", "label",
        "--prediction-col", "pred", "--categorical", "colour", match=r"--categorical 'colour' is not one of"),
    cli("cli-subgroups-unknown-column", "subgroups", "{d}/sg.csv", "--label-col", "label", "--prediction-col",
        "pred", "--columns", "x", "colour", match=r"--columns 'colour' is not a column"),
    cli("cli-subgroups-favorable-not-a-value", "subgroups", "{d}/sg.csv", "--label-col", "label",
        "--prediction-col", "pred", "--favorable-label", "yes", match=r"--favorable-label 'yes' is not a number"),
    cli("cli-subgroups-missing-feature-values", "subgroups", "{d}/sgnan.csv", "--label-col", "label",
        "--prediction-col", "pred", match=r"feature columns \['x'\] have missing values"),
    cli("cli-subgroups-exclude-everything", "subgroups", "{d}/sg.csv", "--label-col", "label", "--prediction-col",
        "pred", "--exclude", "g", "x", match=r"no feature columns left"),
    cli("cli-subgroups-unknown-clustering", "subgroups", "{d}/sg.csv", "--label-col", "label", "--prediction-col",
        "pred", "--clustering", "spectral", match=r"--clustering: invalid choice"),
    cli("cli-crowdtruth-missing-file", "crowdtruth", "{d}/nowhere.csv", "--unit-col", "item", "--worker-col",
        "annotator", "--label-col", "label", match=r"no such file or folder: .*nowhere\.csv \(the annotations file\)"),
    cli("cli-crowdtruth-missing-column", "crowdtruth", "{d}/ann.csv", "--unit-col", "unit", "--worker-col",
        "annotator", "--label-col", "label", match=r"--unit-col 'unit' is not a column"),
    cli("cli-crowdtruth-empty-label", "crowdtruth", "{d}/annnan.csv", "--unit-col", "item", "--worker-col",
        "annotator", "--label-col", "label", match=r"--label-col 'label' is empty at row 2"),
    cli("cli-crowdtruth-out-is-a-file", "crowdtruth", "{d}/ann.csv", "--unit-col", "item", "--worker-col",
        "annotator", "--label-col", "label", "--out", "{d}/afile", match=r"--out '.*afile' exists and is not a folder"),
    cli("cli-demo-zero-items", "demo", "--n-items", "0", match=r"--n-items: expected an integer from 1 to"),
    cli("cli-demo-out-is-a-file", "demo", "--out", "{d}/afile", match=r"--out '.*afile' exists and is not a folder"),
    cli("cli-crowdtruth-duplicate-pairs", "crowdtruth", "{d}/dupct.csv", "--unit-col", "unit", "--worker-col",
        "worker", "--label-col", "label", "--out", "{d}/ctout",
        match=r"duplicate \(unit, worker\) row.*; keep one row per pair in the file$"),
]


def _write(path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _p14():
    """The issue-14 pieces (loaders, perspectivist scores, juries, group own labels), imported at call time."""
    from aif360_subjective.datasets import DICESDataset, MeasuringHateSpeechDataset, PopquornDataset
    from aif360_subjective.metrics import jury_verdicts
    from aif360_subjective.metrics.group_own_labels import group_own_label_performance

    return SimpleNamespace(Popquorn=PopquornDataset, DICES=DICESDataset, MHS=MeasuringHateSpeechDataset,
                           jury=jury_verdicts, own=group_own_label_performance)


# Issue 14: perspectivist evaluation (new loaders, soft-label and per-annotator scores, juries, group own labels).
CASES += [
    Case("lewidi2023-labels-annotators-mismatch",
         lambda c: LeWiDiDataset(_write(c.d / "l23" / "HS_train.json",
                                        '{"1": {"annotators": "Ann1,Ann2", "annotations": "1"}}')),
         ValueError, r"HS_train.json: item '1': field 'annotations' has 1 label\(s\) for 2 annotator"),
    Case("lewidi-positive-from-not-a-number", lambda c: LeWiDiDataset(c.d / "MP_dev.json", annotators_meta=False,
                                                                       positive_from="4"),
         TypeError, r"positive_from must be a number"),
    Case("popquorn-missing-file", lambda c: _p14().Popquorn(c.d / "nowhere"), FileNotFoundError,
         r"Potato-Prolific-Dataset"),
    Case("popquorn-missing-columns", lambda c: _p14().Popquorn(c.d / "ann.csv"), ValueError,
         r"ann.csv: field\(s\) \['instance_id', 'user_id'"),
    Case("dices-unknown-version", lambda c: _p14().DICES(c.d / "ann.csv", version=500), ValueError,
         r"version=500 is not a DICES version"),
    Case("mhs-missing-columns", lambda c: _p14().MHS(c.d / "ann.csv"), ValueError,
         r"field\(s\) \['comment_id', 'annotator_id', 'hatespeech'\] missing"),
    Case("soft-ce-one-class", lambda c: skm.soft_cross_entropy([[1.0]], [[1.0]]), ValueError,
         r"y_soft_true must be an \(N items x C classes\) array"),
    Case("manhattan-pred-not-a-distribution", lambda c: skm.manhattan_distance([[1, 0]], [[0.5, 0.7]]),
         ValueError, r"y_soft_pred rows must sum to 1"),
    Case("wasserstein-bad-scale", lambda c: skm.wasserstein_distance([[1, 0]], [[0, 1]], scale=[2, 1]),
         ValueError, r"scale must be 2 strictly increasing positions"),
    Case("error-rate-lengths", lambda c: skm.annotator_error_rate([1, 0], [1], item_ids=[1, 1]), ValueError,
         r"y_true, y_pred and item_ids must be non-empty 1-d arrays of one length"),
    Case("nad-scale-size", lambda c: skm.normalized_absolute_distance([1], [2], item_ids=[1], scale_size=-1),
         ValueError, r"scale_size must be a positive int"),
    Case("jury-unknown-attribute", lambda c: _p14().jury(c.ds, c.pred, {"shoe_size": {"40": 1.0}}), ValueError,
         r"composition attribute 'shoe_size' is not an annotator attribute"),
    Case("jury-shares", lambda c: _p14().jury(c.ds, c.pred, {"gender": {"a": 0.2}}), ValueError,
         r"must sum to 1"),
    Case("group-own-labels-against", lambda c: _p14().own([0], [0], item_ids=[1], groups=["g"], against="x"),
         ValueError, r"against must be one of .*got 'x'"),
]


# Issue 23: the fault sweep (missing labels, numeric-looking ids, duplicates, misaligned Series, non-finite
# features, failed writes, CLI wording). The cases that must give the right answer instead of an error are in
# tests/test_input_contract.py.
def _dask_frame(blocksize=None, n=None):
    import dask.dataframe as dd

    frame = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4], "annotator": list("abababab"),
                          "label": [0, 1, 1, 1, 0, 0, 1, 0], "pred": [1, 1, 1, 0, 0, 1, 1, 1]})
    return dd.from_pandas(frame, npartitions=n or 2)


def _dask_fn(y_true, y_pred, item_ids, annotator_ids):
    import dask

    with dask.config.set(scheduler="sync"):
        return skm.opinion_exclusion(y_true, y_pred, item_ids=item_ids, annotator_ids=annotator_ids, bins=2)


def _dask_other_collection(c):
    a, b = _dask_frame(n=2), _dask_frame(n=3)
    return _dask_fn(a["label"], b["pred"], a["item"], a["annotator"])


def _dask_reordered(c):
    a = _dask_frame()
    return _dask_fn(a["label"], a["pred"].map_partitions(lambda s: s.iloc[::-1]), a["item"], a["annotator"])


def _dask_duplicate(c):
    import dask.dataframe as dd

    frame = pd.DataFrame({"item": [1, 1, 1, 2], "annotator": ["a", "b", "a", "b"], "label": [0, 1, 1, 1],
                          "pred": [1, 1, 1, 0]})
    a = dd.from_pandas(frame, npartitions=2)
    return _dask_fn(a["label"], a["pred"], a["item"], a["annotator"])


def _no_shared_items():
    return mad(pd.DataFrame({"item": [1, 2, 3, 4], "annotator": ["a", "b", "a", "c"], "label": [0, 1, 1, 0]}))


def _inf_at(c, row, value=np.inf):
    return c.X.assign(x=np.where(np.arange(c.n) == row, value, c.X["x"].astype(float)))


def _audit(*extra):
    return ("audit", "{d}/ann.csv", "--item-col", "item", "--annotator-col", "annotator", "--label-col", "label",
            "--prediction-col", "pred", *extra)


CASES += [
    # ---- functional face: the dataset class's rules
    Case("fn-duplicate-pair", lambda c: _fn(annotator_ids=["a", "a", "b", "a"]), ValueError,
         r"^1 duplicate \(item, annotator\) pair\(s\), e\.g\. item=1, annotator='a' \(row 1\); keep one label"),
    Case("fn-series-other-order", lambda c: _fn(y_true=pd.Series([0, 1, 1, 1]),
                                                y_pred=pd.Series([1, 1, 1, 0]).sort_values()), ValueError,
         r"y_pred and y_true are pandas Series with different indexes .*paired by position"),
    Case("fn-series-other-labels", lambda c: _fn(y_true=pd.Series([0, 1, 1, 1]),
                                                 y_pred=pd.Series([1, 1, 1, 0], index=[5, 6, 7, 8])), ValueError,
         r"different indexes \(first difference at position 0: 5 vs 0\)"),
    Case("fn-series-ids-other-length", lambda c: _fn(y_true=pd.Series([0, 1, 1, 1]),
                                                     item_ids=pd.Series([1, 1, 2, 2, 3])), ValueError,
         r"item_ids has 5 rows and y_true 4"),
    Case("fn-nan-item-id", lambda c: _fn(item_ids=[1, np.nan, 2, 2]), ValueError,
         r"item_ids contains missing values at rows \[1\]"),
    Case("fn-discovered-inf-attribute",
         lambda c: _fn(grouping="discovered", n_clusters=2, annotators=pd.DataFrame({"age": [np.inf, 30.0]},
                                                                                   index=["a", "b"]),
                       attributes=["age"]), ValueError, r"column 'age' holds inf at row 'a'"),
    Case("fn-n-boot-huge", lambda c: _fn(ci=0.9, n_boot=2_000_000_000), ValueError,
         r"n_boot must be <= 100,000, got 2,000,000,000: .*48\.0 GB"),
    # ---- Dask face: the same rules
    Case("dask-other-collection", _dask_other_collection, ValueError,
         r"y_pred and y_true come from different Dask collections \(3 vs 2 partitions\)"),
    Case("dask-reordered-partition", _dask_reordered, ValueError,
         r"y_pred and y_true do not match row for row in a partition .*different index"),
    Case("dask-duplicate-pair", _dask_duplicate, ValueError,
         r"^1 duplicate \(item, annotator\) pair\(s\), e\.g\. item=1, annotator='a' \(row 2\); keep one label"),
    # ---- subgroup discovery: non-finite features refused before any clustering (the x-means crash)
    Case("ds-X-inf", lambda c: _ds(c, X=_inf_at(c, 7), clustering="xmeans", n_clusters=None), ValueError,
         r"X: column 'x' holds inf at row 7 \(1 infinite value"),
    Case("ds-X-minus-inf", lambda c: _ds(c, X=_inf_at(c, 2, -np.inf)), ValueError, r"column 'x' holds -inf at row 2"),
    Case("ds-X-overflowing-range",
         lambda c: _ds(c, X=c.X.assign(x=np.where(np.arange(c.n) % 2 == 0, 1e308, -1e308)), clustering="xmeans",
                       n_clusters=None), ValueError, r"column 'x' ranges from -1e\+308 to 1e\+308 .*overflows"),
    Case("compare-clusterings-inf", lambda c: compare_clusterings(_inf_at(c, 0), c.y, c.yp, [("kmeans", 3)]),
         ValueError, r"column 'x' holds inf at row 0"),
    Case("encode-for-clustering-inf",
         lambda c: importlib.import_module("aif360_subjective.detectors").encode_for_clustering(_inf_at(c, 1), ["g"]),
         ValueError, r"column 'x' holds inf at row 1"),
    # ---- CrowdTruth filter without any shared item
    Case("ctf-fit-no-shared-item", lambda c: _ct().CrowdTruthFilter().fit(_no_shared_items()), ValueError,
         r"no item holds two annotations \(4 items, one annotation each\)"),
    # ---- loaders
    Case("lewidi-latin1-json", lambda c: LeWiDiDataset(c.d / "latin1_dev.json", annotators_meta=False), ValueError,
         r"latin1_dev\.json: not UTF-8 text \(byte 0xe9 at offset \d+\)"),
    Case("lewidi-meta-infinite-age", lambda c: LeWiDiDataset(c.d / "lwinf"), ValueError,
         r"XX_annotators_meta\.json: attribute 'Age' of annotator 'Ann1' is inf"),
    Case("mad-annotators-infinite-attribute",
         lambda c: mad(annotators=pd.DataFrame({"age": [30.0, -np.inf]}, index=["a", "b"])), ValueError,
         r"annotators table: column 'age' holds -inf at row 'b'"),
    # ---- command line
    cli("cli-subgroups-lewidi-infinite-age", "subgroups", "{d}/lwinf", "--model", "annotator-aware",
        match=r"XX_annotators_meta\.json: attribute 'Age' of annotator 'Ann1' is inf"),
    cli("cli-subgroups-missing-truth-label", "subgroups", "{d}/sgnolabel.csv", "--label-col", "label",
        "--prediction-col", "pred", match=r"--label-col 'label' is empty in 1 row of .*sgnolabel\.csv \(first at "
        r"row 4\); a missing truth label is not guessed"),
    cli("cli-subgroups-inf-feature", "subgroups", "{d}/sginf.csv", "--label-col", "label", "--prediction-col",
        "pred", "--clustering", "xmeans", match=r"column 'x' holds inf at row 6"),
    cli("cli-subgroups-overflowing-feature", "subgroups", "{d}/sgbig.csv", "--label-col", "label",
        "--prediction-col", "pred", "--clustering", "xmeans", match=r"column 'x' ranges from .*overflows"),
    cli("cli-audit-duplicate-pair", "audit", "{d}/duppair.csv", "--item-col", "item", "--annotator-col",
        "annotator", "--label-col", "label", "--prediction-col", "pred",
        match=r"1 duplicate \(item, annotator\) pair\(s\), e\.g\. item='1', annotator='a'"),
    cli("cli-crowdtruth-missing-unit-id", "crowdtruth", "{d}/noid.csv", "--unit-col", "unit", "--worker-col",
        "worker", "--label-col", "label", "--out", "{d}/ctnoid",
        match=r"--unit-col 'unit' is empty in 1 row of .*noid\.csv \(first at row 1\)"),
    cli("cli-audit-n-boot-huge", *_audit("--n-boot", "2000000000"),
        match=r"--n-boot: expected an integer from 100 to 100,000, got '2000000000' \(.*48\.0 GB"),
    cli("cli-demo-n-items-huge", "demo", "--n-items", "2000000000", "--out", "{d}/demo_huge",
        match=r"--n-items: expected an integer from 1 to 1,000,000, got '2000000000' \(.* GB"),
    cli("cli-demo-negative-seed", "demo", "--seed", "-1", match=r"--seed: expected a seed from 0 to 4,294,967,295"),
    cli("cli-audit-seed-too-big", *_audit("--seed", str(2**32)), match=r"--seed: expected a seed from 0"),
    cli("cli-audit-latin1-json", "audit", "{d}/latin1_dev.json", "--annotators-meta", "none", "--model", "majority",
        match=r"latin1_dev\.json: not UTF-8 text"),
    cli("cli-audit-positive-from-as-flag", "audit", "{d}/popq", "--positive-from", "9", "--model", "majority",
        match=r"--positive-from 9 must lie in \(1, 5\]"),
    cli("cli-audit-out-missing-folder", *_audit("--ci", "none", "--out", "{d}/no/such/folder/r.html"),
        match=r"output folder does not exist"),
]

if os.path.exists("/dev/full"):  # Linux: a device on which every write fails with "No space left on device"
    CASES.append(cli("cli-audit-out-dev-full", *_audit("--ci", "none", "--out", "/dev/full"),
                     match=r"cannot write /dev/full: No space left on device; no output file was changed"))


def _available(needs: str | None) -> bool:
    if needs is None:
        return True
    module, name = needs.split(":")
    try:
        return hasattr(importlib.import_module(f"aif360_subjective.{module}"), name)
    except ImportError:
        return False


CASES += [
    # ---- the max-T penalty, the test subset, the sampled clusterer comparison, the verdict option
    Case("ds-max-t-penalty-unknown", lambda c: _ds(c, max_t_penalty="scan"), ValueError,
         r"max_t_penalty must be one of \['classes', 'size', 'none'\], got 'scan'"),
    Case("sdm-max-t-penalty-unknown", lambda c: _sdm(c, max_t_penalty="scan"), ValueError,
         r"max_t_penalty must be one of \['classes', 'size', 'none'\], got 'scan'"),
    Case("maxt-tests-unknown", lambda c: max_t(sp.csc_matrix(np.ones((4, 2), dtype=bool)), [0, 1, 0, 1], [1, 1, 0, 0],
                                               n_permutations=19, tests=(0, 5)), ValueError,
         r"tests must be positions in \('statistical_parity', .*got \(0, 5\)"),
    Case("alternatives-sample-rows-text", lambda c: lopsided_alternatives(c.rep, c.X, c.y, c.yp, sample_rows="5k"),
         TypeError, r"sample_rows must be an int"),
    Case("alternatives-sample-rows-one", lambda c: lopsided_alternatives(c.rep, c.X, c.y, c.yp, sample_rows=1),
         ValueError, r"sample_rows must be >= 2"),
    Case("report-rewrite-not-callable", lambda c: Report("r").rewrite_text("--adr-fit"), TypeError,
         r"fn must be callable \(str -> str\), got str"),
    Case("report-rewrite-returns-none", lambda c: Report("r", summary=["adr_fit='same'"]).rewrite_text(print),
         TypeError, r"fn must return a str, got NoneType for \"adr_fit='same'\""),
    Case("sections-verdicts-text", lambda c: opinion_sections(_oe(c), figures=False, ci=None, verdicts="no"),
         TypeError, r"verdicts must be True, False or None, got 'no'"),
    cli("cli-audit-adr-fit-unknown", *_audit("--adr-fit", "both"), match=r"--adr-fit: invalid choice: 'both'"),
    cli("cli-audit-adr-fit-cross-other-grouping", *_audit("--grouping", "ambiguity", "--adr-fit", "cross"),
        match=r"--adr-fit cross cross-fits ADR bins and applies to --grouping adr only"),
]


def _grouping_repeated(c):
    g = pd.Series({a: i % 2 for i, a in enumerate(c.ds.annotators.index)})
    return pd.concat([g, g.iloc[:1]])


CASES += [
    # ---- issue 33: the fourth round's fault sweep
    Case("ds-weights-all-zero", lambda c: _ds(c, sample_weight=np.zeros(c.n)), ValueError,
         r"sample_weight is 0 for all \d+ rows"),
    Case("ds-permutations-too-many", lambda c: _ds(c, n_permutations=10**9), ValueError,
         r"n_permutations must be <= 100,000, got 1,000,000,000"),
    Case("maxt-permutations-too-many", lambda c: max_t(sp.csc_matrix(np.ones((4, 2), dtype=bool)), [0, 1, 0, 1],
                                                       [1, 1, 0, 0], n_permutations=100_001), ValueError,
         r"n_permutations must be <= 100,000"),
    Case("fn-test-permutations-too-many", lambda c: _fn(test=True, n_permutations=10**7), ValueError,
         r"n_permutations must be <= 100,000, got 10,000,000"),
    Case("oe-test-permutations-too-many", lambda c: _oe(c).exclusion_test(n_permutations=10**7), ValueError,
         r"n_permutations must be <= 100,000"),
    Case("ds-random-state-negative", lambda c: _ds(c, random_state=-1), ValueError,
         r"random_state must be None, a non-negative int or a numpy Generator, got -1"),
    Case("oe-random-state-negative", lambda c: _oe(c, random_state=-1), ValueError,
         r"random_state must be None, a non-negative int or a numpy Generator, got -1"),
    Case("oe-ci-random-state-negative", lambda c: _oe(c).unfairness_ci(random_state=-1), ValueError,
         r"random_state must be None, a non-negative int or a numpy Generator, got -1"),
    Case("fn-random-state-negative", lambda c: _fn(ci=0.95, random_state=-1), ValueError,
         r"random_state must be None, a non-negative int"),
    Case("oe-grouping-repeated-id", lambda c: _oe(c, grouping=_grouping_repeated(c)), ValueError,
         r"grouping Series holds 1 annotator id\(s\) more than once \(e.g. \['A\w+'\]\)"),
    Case("fn-grouping-repeated-id", lambda c: _fn(grouping=pd.Series([0, 1, 0], index=["a", "b", "a"])), ValueError,
         r"grouping Series holds 1 annotator id\(s\) more than once \(e.g. \['a'\]\)"),
]


def _dask_table(c, npartitions=2):
    import dask.dataframe as dd

    frame = c.X.assign(t=np.asarray(c.y), p=np.asarray(c.yp))
    return dd.from_pandas(frame, npartitions=npartitions, sort=False)


def _ds_dask(c, **kw):
    import dask

    ddf = _dask_table(c)
    with dask.config.set(scheduler="sync"):
        return detect_subgroups(ddf[list(c.X.columns)], ddf["t"], ddf["p"], **kw)


def _excluded(c, **kw):
    return _oe(c).excluded_groups(**kw)


def _keyed(name):
    return getattr(importlib.import_module("aif360_subjective.detectors.error_control.keyed_permutation"), name)


CASES += [
    # ---- fourth round: subgroup discovery on Dask (issue 31), its permutations, the bounds of wide tables (issue 30)
    Case("ds-dask-asdf", lambda c: _ds_dask(c, discovery="asdf"), ValueError,
         r"discovery='asdf' is not available on Dask collections: .*pass discovery=\"patterns\""),
    Case("ds-dask-groups", lambda c: _ds_dask(c, discovery="patterns", groups=np.arange(c.n)), ValueError,
         r"groups=.* is not available on Dask collections"),
    Case("ds-dask-task-regression", lambda c: _ds_dask(c, discovery="patterns", task="regression"), ValueError,
         r"task='regression' is not available on Dask collections"),
    Case("ds-permutation-unknown", lambda c: _ds(c, discovery="patterns", permutation="shuffle"), ValueError,
         r"permutation must be one of \['auto', 'classical', 'keyed'\], got 'shuffle'"),
    Case("ds-keyed-with-groups", lambda c: _ds(c, discovery="patterns", permutation="keyed",
                                               groups=np.arange(c.n) // 2), ValueError,
         r"permutation='keyed' permutes the rows of binary decisions: with groups="),
    Case("ds-patterns-with-n-clusters", lambda c: _ds(c, discovery="patterns", n_clusters=3), ValueError,
         r"n_clusters=3 applies to the clustering, which discovery='patterns' does not run"),
    Case("ds-cluster-sample-one", lambda c: _ds(c, cluster_sample=1), ValueError, r"cluster_sample must be >= 2"),
    Case("ds-max-patterns-zero", lambda c: _ds(c, discovery="patterns", max_patterns=0), ValueError,
         r"max_patterns must be >= 1, got 0"),
    Case("maxt-permutation-unknown", lambda c: max_t(sp.csc_matrix(np.ones((4, 2), dtype=bool)), [0, 1, 0, 1],
                                                     [1, 1, 0, 0], permutation="x"), ValueError,
         r"permutation must be one of \['classical', 'keyed'\], got 'x'"),
    Case("keyed-permutation-negative-seed", lambda c: _keyed("keyed_permutation")(-1, 0, 1, np.arange(3), 3),
         ValueError, r"seed must be an int in \[0, 2\*\*64\), got -1"),
    Case("keyed-classes-negative-count", lambda c: _keyed("permuted_classes")(0, 0, 2, np.arange(4),
                                                                                np.array([2, -1])),
         ValueError, r"class_counts must be non-negative, got \[2, -1\]"),
    # ---- fourth round: whose opinions are excluded (issue 29)
    Case("excluded-adjust-unknown", lambda c: _excluded(c, adjust="both"), ValueError,
         r"adjust must be one of \['none', 'items'\], got 'both'"),
    Case("excluded-max-conditions-four", lambda c: _excluded(c, max_conditions=4), ValueError,
         r"max_conditions must be <= 3, got 4"),
    Case("excluded-min-annotators-one", lambda c: _excluded(c, min_annotators=1), ValueError,
         r"min_annotators must be >= 2, got 1"),
    Case("excluded-attribute-missing", lambda c: _excluded(c, attributes=["no_such_attribute"]), ValueError,
         r"attributes \['no_such_attribute'\] are not columns of the annotators table"),
    Case("excluded-balance-unknown", lambda c: _excluded(c, balance="x"), ValueError,
         r"balance must be one of \['conditions', 'none'\], got 'x'"),
    Case("excluded-balance-not-a-name", lambda c: _excluded(c, balance=1), ValueError,
         r"balance must be one of \['conditions', 'none'\], got 1"),
    cli("cli-audit-balance-unknown", *_audit("--discover", "--balance", "x"), match=r"--balance: invalid choice: 'x'"),
    cli("cli-subgroups-task-unknown", "subgroups", "{d}/sg.csv", "--label-col", "label", "--prediction-col", "pred",
        "--task", "bogus", match=r"--task"),
    cli("cli-audit-test-adjust-unknown", *_audit("--test-adjust", "bogus"), match=r"--test-adjust"),
]


CASES += [
    # ---- fifth round: silent wrong results of subgroup discovery (issue 41)
    Case("ds-auto-stray-prediction", lambda c: _ds(c, discovery="patterns", n_clusters=None,
                                                   y_pred=np.where(np.arange(c.n) == 4, 3, c.yp)), ValueError,
         r"y_pred holds 1 value that y_true never takes: 3 \(1 row, first at row 4\)"),
    Case("ds-y-pred-misordered-series", lambda c: _ds(c, y_pred=pd.Series(c.yp, index=np.arange(c.n))[::-1]),
         ValueError, r"y_pred is a pandas Series whose index differs from X's \(the same labels in another order"),
    Case("ds-groups-other-index", lambda c: _ds(c, discovery="patterns", n_clusters=None,
                                                groups=pd.Series(np.arange(c.n) // 2, index=np.arange(c.n) + 100)),
         ValueError, r"groups is a pandas Series whose index differs from X's \(other labels"),
    Case("ds-X-blank-strings", lambda c: _ds(c, X=c.X.assign(g=np.where(np.arange(c.n) % 10 == 0, " ", c.X["g"]))),
         ValueError, r"X contains missing values \(column: count\) \{'g': 3\}, of which 3 empty or blank strings"),
]


def test_case_ids_are_unique():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case, ctx, capsys):
    if not _available(case.needs):
        msg = f"{case.needs} is not merged yet"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    if case.cli is not None:
        argv = [a.replace("{d}", str(ctx.d)) for a in case.cli]
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse usage errors
            code = exc.code
        out, err = capsys.readouterr()
        assert code == 2, (out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith("aif360-subjective"), lines[0]
        assert "Traceback" not in err
        import re

        assert re.search(case.match, lines[0]), lines[0]
        # the command line speaks in flags: no Python keyword argument (positive_from=, duplicates=) in its errors
        assert not re.search(PYTHON_WORDS, lines[0]), lines[0]
        return
    with pytest.raises(case.exc, match=case.match) as info:
        case.call(ctx)
    exc = info.value
    assert isinstance(exc, ValueError | TypeError | FileNotFoundError), type(exc)
    assert not isinstance(exc, FORBIDDEN), type(exc)
    # an error raised from inside numpy/pandas says nothing about the caller's argument
    assert not type(exc).__module__.startswith(("numpy", "pandas")), type(exc)
