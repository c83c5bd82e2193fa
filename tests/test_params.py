"""Parameter rules declared once (``_params``, ``_param_tables``): the rules themselves, and that every face (the
engine's vocabularies and defaults, the functions' signatures, the command line, the dashboard) reads the tables."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from aif360_subjective._param_tables import CROWDTRUTH_PARAMS, OPINION_PARAMS, SUBGROUP_PARAMS
from aif360_subjective._params import NONE, Instance, Interval, Options, Param, ParamTable


# ------------------------------------------------------------------------------------------------ the rules
@pytest.mark.parametrize(("interval", "inside", "outside"), [
    (Interval("int", 1), [1, 2, np.int64(7), 10**12], [0, -1, 1.0, True, np.bool_(True), "1", None]),
    (Interval("int", 100, 100_000), [100, 100_000], [99, 100_001]),
    (Interval("real", 0.0, 1.0), [0, 0.0, 0.5, 1, 1.0], [-0.1, 1.1, float("nan"), True, "0.5"]),
    (Interval("real", 0.0, 1.0, closed="neither"), [0.5, 1e-9], [0.0, 1.0, 0, 1]),
    (Interval("real", 0.0, closed="neither"), [1e-12, 1e300], [0.0, -1.0, float("inf")]),
    (Interval("real", None, 1.0, closed="left"), [-5.0, 0.999], [1.0, float("-inf")]),
])
def test_interval_bounds_and_types(interval, inside, outside):
    assert all(interval.accepts(v) for v in inside), inside
    assert not any(interval.accepts(v) for v in outside), outside


@pytest.mark.parametrize(("interval", "text"), [
    (Interval("int", 1), "an int >= 1"),
    (Interval("int", 100, 100_000), "an int from 100 to 100,000"),
    (Interval("real", 0.0, 1.0), "a number in [0, 1]"),
    (Interval("real", 0.0, 1.0, closed="neither"), "a number strictly between 0 and 1"),
    (Interval("real", 0.0, 1.0, closed="left"), "a number in [0, 1)"),
    (Interval("real", 0.0, closed="neither"), "a finite number > 0"),
    (Interval("real", None, 2.5, closed="right"), "a finite number <= 2.5"),
])
def test_interval_says_what_it_admits(interval, text):
    assert interval.describe() == text


def test_param_check_raises_type_or_value_error_naming_argument_value_and_expectation():
    count = Param("max_length", (Interval("int", 1),), 3)
    assert count.check(2) == 2
    with pytest.raises(TypeError, match=r"^max_length must be an int >= 1, got 'a'$"):
        count.check("a")
    with pytest.raises(TypeError, match=r"^max_length must be an int >= 1, got 1\.5$"):
        count.check(1.5)
    # the type is right: the message names the broken bound, with numpy scalars shown as plain values
    with pytest.raises(ValueError, match=r"^max_length must be >= 1, got 0$"):
        count.check(np.int64(0))
    boot = Param("n_boot", (Interval("int", 100, 1000),), why="the reason")
    with pytest.raises(ValueError, match=r"^n_boot must be <= 1,000, got 5,000 \(the reason\)$"):
        boot.check(5000)
    with pytest.raises(ValueError, match=r"^k must be >= 100, got 5 \(the reason\)$"):
        boot.check(5, name="k")


def test_choices_raise_value_error_even_for_a_non_string_unless_objects_are_admissible():
    names = Param("discovery", (Options(("asdf", "both")),))
    with pytest.raises(ValueError, match=r"^discovery must be one of \['asdf', 'both'\], got 1$"):
        names.check(1)
    with pytest.raises(ValueError, match=r"got 'ASDF'$"):
        names.check("ASDF")
    maybe = Param("aggregate", (NONE, Options(("annotator", "pooled"))))
    assert maybe.check(None) is None and maybe.accepts_none and maybe.choices == ("annotator", "pooled")
    objects = Param("clustering", (Options(("slink",)), Instance(callable, "a callable")))
    assert objects.check(len) is len
    with pytest.raises(TypeError, match=r"^clustering must be one of \['slink'\] or a callable, got 5$"):
        objects.check(5)
    with pytest.raises(ValueError, match=r"got 'ward'$"):  # a string: a wrong name, not a wrong type
        objects.check("ward")


def test_two_intervals_are_both_named():
    support = SUBGROUP_PARAMS["min_support"]
    assert support.check(5) == 5 and support.check(0.5) == 0.5
    with pytest.raises(ValueError, match=r"^min_support must be an int >= 1 or a number strictly between 0 and 1, "
                                         r"got 1\.5$"):
        support.check(1.5)


def test_table_is_a_read_only_mapping_with_helpful_lookup_errors():
    table = ParamTable("demo", (Param("a", (NONE,)), Param("b", (Options(("x", "y")),), "x", "what b does")))
    assert list(table) == ["a", "b"] and len(table) == 2
    assert table.choices("b") == ("x", "y") and table.default("b") == "x" and table.help("b") == "what b does"
    with pytest.raises(KeyError, match=r"demo has no option 'c'; options: \['a', 'b'\]"):
        table["c"]
    with pytest.raises(ValueError, match="declared twice"):
        ParamTable("dup", (Param("a", (NONE,)), Param("a", (NONE,))))


def test_ground_floor_imports_nothing_heavy():
    import ast
    from pathlib import Path

    import aif360_subjective

    root = Path(aif360_subjective.__file__).parent
    for name in ("_params.py", "_param_tables.py"):
        tree = ast.parse((root / name).read_text(encoding="utf-8"))
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
                     and n.level == 0}
        assert imported <= {"__future__", "math", "numbers", "collections", "dataclasses", "typing"}, imported


# ------------------------------------------------------------------------------------------------ the faces
def test_engine_vocabularies_are_the_tables():
    from aif360_subjective.detectors import CLUSTERINGS
    from aif360_subjective.detectors._validation import UNDEFINED_RATES
    from aif360_subjective.detectors.asdf.mst import MST_METHODS
    from aif360_subjective.detectors.asdf.patterns import NORMALIZATIONS
    from aif360_subjective.detectors.asdf.selection import SELECTION_METRICS
    from aif360_subjective.detectors.directions import DIRECTION_CHOICES
    from aif360_subjective.detectors.options import DISCOVERIES, MAX_T_PENALTIES
    from aif360_subjective.detectors.subgroup_metrics import METRICS
    from aif360_subjective.opinion import options as o

    s = SUBGROUP_PARAMS
    assert s.choices("clustering") == CLUSTERINGS and s.choices("mst") == MST_METHODS
    assert s.choices("normalization") == NORMALIZATIONS and s.choices("undefined_rates") == UNDEFINED_RATES
    assert s.choices("discovery") == DISCOVERIES and s.choices("max_t_penalty") == MAX_T_PENALTIES
    assert s.choices("direction") == DIRECTION_CHOICES
    from aif360_subjective.detectors.tasks import TASKS

    assert s.choices("task") == TASKS
    # the fairness-aware choice of k knows the ASDF metrics; the error-rate metrics (false positive / negative
    # rate) are registered for rankings and max-T, not for choosing k
    assert s.choices("selection_metric") == SELECTION_METRICS
    assert set(SELECTION_METRICS) <= set(METRICS)
    assert OPINION_PARAMS.choices("grouping") == o.GROUPING_NAMES
    assert OPINION_PARAMS.choices("performance") == o.PERFORMANCE_NAMES
    assert set(o.PERFORMANCES) == set(o.PERFORMANCE_NAMES)  # each named measure has its direction and kind
    assert (o.MIN_BOOT, o.MAX_BOOT, o.MIN_PERMUTATIONS) == (100, 100_000, 99)
    for name, values in [("ambiguity", o.AMBIGUITY_MEASURES), ("aggregate", o.AGGREGATES),
                         ("adr_reference", o.ADR_REFERENCES), ("adr_fit", o.ADR_FITS), ("nan_policy", o.NAN_POLICIES),
                         ("small_groups", o.SMALL_GROUP_POLICIES), ("bootstrap_levels", o.BOOTSTRAP_LEVELS),
                         ("test_statistic", o.TEST_STATISTICS)]:
        assert values == OPINION_PARAMS.choices(name), name
    from aif360_subjective.opinion import excluded as ex

    assert ex.BALANCES == OPINION_PARAMS.choices("balance") == ("conditions", "none")
    assert ex.ADJUSTMENTS == OPINION_PARAMS.choices("adjust") == ("none", "items")
    assert OPINION_PARAMS.choices("discovery_performance") == ex.DISCOVERY_PERFORMANCES
    assert set(ex.DISCOVERY_PERFORMANCES) <= set(OPINION_PARAMS.choices("performance"))
    # every option of the discovery is a row of the table, and every discovery row is an option
    assert set(ex.DISCOVERY_ROWS.values()) <= set(OPINION_PARAMS)
    options = set(inspect.signature(ex.check_discovery_options).parameters) - {"renamed", "random_state"}
    assert set(ex.DISCOVERY_ROWS) == options


def test_discovery_defaults_are_the_tables_defaults():
    from aif360_subjective.cli.audit import AuditSpec
    from aif360_subjective.metrics import OpinionExclusionMetric
    from aif360_subjective.opinion import excluded as ex

    faces = (ex.excluded_groups, ex.check_discovery_options, OpinionExclusionMetric.excluded_groups)
    for face in faces:
        params = inspect.signature(face).parameters
        for name, row in ex.DISCOVERY_ROWS.items():
            if name in params and params[name].default is not inspect.Parameter.empty:
                if face is OpinionExclusionMetric.excluded_groups and name == "performance":
                    continue  # None: the metric's own measure
                assert params[name].default == OPINION_PARAMS.default(row), (face.__qualname__, name)
    # the command's spec takes the parser's defaults, which are the table's
    from aif360_subjective.cli import build_parser

    spec = AuditSpec.from_namespace(build_parser().parse_args(["audit", "a.csv", "--discover"]))
    for name in ("max_conditions", "min_annotators", "n_permutations", "adjust", "balance", "step_down"):
        assert getattr(spec, name) == OPINION_PARAMS.default(ex.DISCOVERY_ROWS[name]), name


def test_discover_command_line_reads_the_table_and_keeps_the_old_flag():
    from aif360_subjective.cli import build_parser

    parser = build_parser().commands["audit"]
    help_text = " ".join(parser.format_help().split())
    assert "--max-conditions {1,2,3}" in help_text and "--n-permutations N" in help_text
    assert OPINION_PARAMS.help("discovery_n_permutations") in help_text
    assert OPINION_PARAMS.help("min_annotators") in help_text
    args = parser.parse_args(["x.csv", "--discover"])
    assert (args.max_conditions, args.min_annotators, args.n_permutations) == (2, 5, 999)
    args = parser.parse_args(["x.csv", "--discover", "--n-perm", "199"])
    assert args.n_permutations == 199 and "--n-perm is deprecated" in args.deprecated_spellings[0]
    assert parser.parse_args(["x.csv", "--n-permutations", "59"]).n_permutations == 59
    assert parser.parse_args(["x.csv", "--discover"]).step_down is False
    assert parser.parse_args(["x.csv", "--discover", "--step-down"]).step_down is True


def test_step_down_row_takes_true_or_false_only():
    # a flag, not a count: 1, 0, "yes" and None are refused with the row's message; numpy's bool is a bool
    rule = OPINION_PARAMS["step_down"]
    assert rule.default is False
    assert rule.check(True) is True and rule.check(np.bool_(False)) == np.bool_(False)
    for bad in (1, 0, "yes", None, 1.0):
        with pytest.raises(TypeError, match="step_down must be True or False, got"):
            rule.check(bad)
    assert rule.invalid_values() == ["many", b"bytes", None]


def _defaults_agree(func, table, skip=()):
    params = inspect.signature(func).parameters
    shared = [n for n in table if n in params and n not in skip]
    assert shared, func
    for name in shared:
        assert params[name].default == table.default(name), (func.__qualname__, name)
    return shared


def test_function_defaults_are_the_tables_defaults():
    from aif360_subjective.algorithms.preprocessing import CrowdTruthFilter
    from aif360_subjective.detectors import check_analysis_options, detect_subgroups
    from aif360_subjective.metrics import OpinionExclusionMetric
    from aif360_subjective.opinion import check_opinion_options
    from aif360_subjective.quality import crowdtruth_scores

    assert len(_defaults_agree(detect_subgroups, SUBGROUP_PARAMS)) >= 12
    _defaults_agree(check_analysis_options, SUBGROUP_PARAMS)
    # the metric's discovered grouping clusters with k-means by default, as the functions do
    _defaults_agree(OpinionExclusionMetric.__init__, OPINION_PARAMS)
    _defaults_agree(check_opinion_options, OPINION_PARAMS)
    _defaults_agree(CrowdTruthFilter.__init__, CROWDTRUTH_PARAMS)
    _defaults_agree(crowdtruth_scores, CROWDTRUTH_PARAMS)


@pytest.mark.parametrize("face", [
    "aif360_subjective.detectors:detect_subgroups",
    "aif360_subjective.detectors:compare_clusterings",
    "aif360_subjective.detectors:alternative_clusterings",
    "aif360_subjective.detectors:check_analysis_options",
    "aif360_subjective.metrics:SubgroupDiscoveryMetric",
])
def test_subgroup_faces_default_each_row_to_the_table(face):
    """A subgroup option's default is declared once, in the table: a face that restated one (as
    ``check_analysis_options`` did, with literals) drifts when the row's default changes."""
    import importlib

    module, name = face.split(":")
    func = getattr(importlib.import_module(module), name)
    params = inspect.signature(func.__init__ if inspect.isclass(func) else func).parameters
    rows = [n for n in params if n in SUBGROUP_PARAMS]
    assert rows, face
    drifted = {n: (params[n].default, SUBGROUP_PARAMS.default(n)) for n in rows
               if params[n].default is not inspect.Parameter.empty and params[n].default != SUBGROUP_PARAMS.default(n)}
    assert not drifted, drifted


def test_analysis_options_take_the_tables_defaults_and_no_others():
    """Every keyword of check_analysis_options but the input ``categorical_features`` and the flag ``inclusive`` is
    a row, and leaving an option out checks the same options as passing the row's default."""
    import pandas as pd

    from aif360_subjective.detectors import check_analysis_options

    params = inspect.signature(check_analysis_options).parameters
    outside = [n for n in params if n not in SUBGROUP_PARAMS]
    assert outside == ["X", "categorical_features", "inclusive"]
    X = pd.DataFrame({"a": list("xyxyxy"), "b": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    explicit = {n: SUBGROUP_PARAMS.default(n) for n in params if n in SUBGROUP_PARAMS}
    assert len(explicit) == 20
    assert check_analysis_options(X) == check_analysis_options(X, **explicit)


@pytest.mark.parametrize(("command", "option", "table", "name"), [
    ("subgroups", "--clustering", SUBGROUP_PARAMS, "clustering"),
    ("subgroups", "--discovery", SUBGROUP_PARAMS, "discovery"),
    ("subgroups", "--task", SUBGROUP_PARAMS, "task"),
    ("dashboard", "--task", SUBGROUP_PARAMS, "task"),
    ("dashboard", "--clustering", SUBGROUP_PARAMS, "clustering"),
    ("audit", "--performance", OPINION_PARAMS, "performance"),
    ("audit", "--adr-fit", OPINION_PARAMS, "adr_fit"),
    ("audit", "--balance", OPINION_PARAMS, "balance"),
    ("audit", "--adjust", OPINION_PARAMS, "adjust"),
    ("demo", "--adr-fit", OPINION_PARAMS, "adr_fit"),
])
def test_command_line_choices_are_the_tables(command, option, table, name):
    from aif360_subjective.cli import build_parser

    parser = build_parser().commands[command]
    help_text = " ".join(parser.format_help().split())
    assert f"{option} {{{','.join(table.choices(name))}}}" in help_text
    for choice in table.choices(name):
        args = ["x.csv"] if command in ("subgroups", "dashboard", "audit") else []
        assert getattr(parser.parse_args([*args, option, choice]), name) == choice


def test_audit_groupings_are_the_tables_but_discovered():
    from aif360_subjective.cli import audit, build_parser

    assert tuple(g for g in OPINION_PARAMS.choices("grouping") if g != "discovered") == audit.GROUPINGS
    help_text = " ".join(build_parser().commands["audit"].format_help().split())
    assert "--grouping {adr,ambiguity,popularity,demographic}" in help_text


def test_dashboard_widget_options_are_the_tables():
    app = pytest.importorskip("aif360_subjective.dashboard.app")
    from aif360_subjective.opinion.options import ORDINAL_PERFORMANCES

    assert list(OPINION_PARAMS.choices("grouping")) == app.GROUPINGS
    assert list(SUBGROUP_PARAMS.choices("task")) == app.TASKS  # the subgroups tab's task control
    # the tab has binary labels only: every named measure but those on ratings
    assert [p for p in OPINION_PARAMS.choices("performance") if p not in ORDINAL_PERFORMANCES] == app.PERFORMANCES
    assert "accuracy" in app.PERFORMANCES and "mae" not in app.PERFORMANCES
