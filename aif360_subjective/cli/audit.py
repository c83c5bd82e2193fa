"""``aif360-subjective audit``: opinion-exclusion audit of predictions on multi-annotator data."""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._param_tables import OPINION_PARAMS
from . import _common as common
from . import _inputs as inputs
from ._common import CLIError

if TYPE_CHECKING:
    import pandas as pd

    from ..datasets import MultiAnnotatorDataset

#: The command: its name, help texts, examples and memory hint (options of this command only).
COMMAND = common.Command(
    "audit", help="opinion-exclusion audit of predictions on multi-annotator data",
    description="Measure how unequally predictions serve the opinions of different annotators (Balayn et al. "
                "2019): annotators grouped (by default by their disagreement rate with the majority), the "
                "model's performance per group, unfairness = standard deviation across groups. The favourable "
                f"label defaults to {inputs.DEFAULT_FAVORABLE} (the package's convention for detection tasks: "
                "'not flagged'); labels other than 0/1 need --favorable-label. The label used is printed.",
    memory_hint="try a smaller input (--split), fewer bootstrap replicates (--n-boot) or no intervals (--ci none)",
    examples=("aif360-subjective audit ann.csv --item-col item --annotator-col annotator \\",
              "    --label-col label --prediction-col pred",
              "aif360-subjective audit data/multipico --split dev --model majority --out audit.html",
              "aif360-subjective audit MP_dev.json --predictions pred.csv \\",
              "    --grouping demographic --attributes Gender"))

#: A numeric attribute with more distinct values than this makes one group per value: say so.
MANY_VALUES = 10
#: The groupings the command offers: the table's names but "discovered" (its clusterer options are the library's).
GROUPINGS = tuple(g for g in OPINION_PARAMS.choices("grouping") if g != "discovered")


@dataclass(frozen=True)
class AuditSpec(common.CommandSpec):
    """The options of ``audit``, typed (built from the parsed namespace by :meth:`from_namespace`). Every field is
    an option of the command: its default is the parser's, read from the opinion parameter table where the option
    is a row, and not restated here.

    Attributes:
        inputs: how the annotations and the predictions are read.
        grouping, adr_fit, attributes, bins, min_group_size, warn_group_size, performance: the analysis
            (:class:`~aif360_subjective.metrics.OpinionExclusionMetric`'s options; ``bins`` as typed).
        ci, n_boot: the intervals (``ci`` None: the paper's raw figures).
        test_adjust: the item adjustment of the test of equal service behind the verdict ("none" or "items").
        out: the HTML report's path, if any.
        discover, max_conditions, adjust, min_annotators, n_permutations, balance, step_down: whose opinions are
            excluded
            (``--discover``: :meth:`~aif360_subjective.metrics.OpinionExclusionMetric.excluded_groups`).
    """

    inputs: inputs.InputSpec
    grouping: str
    adr_fit: str
    attributes: tuple[str, ...] | None
    bins: str
    min_group_size: int
    warn_group_size: int
    ci: float | None
    n_boot: int
    performance: str
    test_adjust: str
    out: str | None
    discover: bool
    max_conditions: int
    adjust: str
    min_annotators: int
    n_permutations: int
    balance: str
    step_down: bool

    @classmethod
    def from_namespace(cls, args: argparse.Namespace) -> AuditSpec:
        """The command's boundary: the namespace as a spec."""
        return common.spec_from(cls, args, inputs=inputs.InputSpec.from_namespace(args, args.annotations))


def _attributes(spec: AuditSpec, ds: MultiAnnotatorDataset, fmt: str = "csv") -> list[str] | None:
    """``--attributes`` checked against the annotator table (only meaningful with ``--grouping demographic``)."""
    if spec.grouping == "demographic" and not len(ds.annotators.columns):
        where = ("give --annotators CSV, a table with one row per annotator whose columns are the attributes"
                 if fmt == "csv" else
                 "this data has no annotator table (LeWiDi: the *_annotators_meta.json, see --annotators-meta)")
        raise CLIError(f"--grouping demographic needs annotator attributes, and there are none: {where}")
    if spec.attributes is None:
        return None
    if spec.grouping != "demographic" and not spec.discover:
        raise CLIError(f"--attributes applies to --grouping demographic or --discover, not --grouping {spec.grouping}")
    known = list(ds.annotators.columns)
    for a in spec.attributes:
        if a not in known and not (spec.discover and a == "adr"):
            raise CLIError(f"--attributes {a!r} is not an annotator attribute (attributes: "
                           f"{common.show_values(known, limit=12)})")
    return list(spec.attributes)


def demographic_notes(ds: MultiAnnotatorDataset, attrs: list[str], groups: pd.DataFrame) -> list[str]:
    """Why annotators are missing from a demographic grouping, and groups too fine to compare (counted on the
    group table ``groups`` of the analysis, after any merging by --min-group-size)."""
    import pandas as pd

    table = ds.annotators.reindex(pd.unique(ds.annotator_ids))[attrs]
    notes = [f"Demographic groups: intersections of {', '.join(attrs)}."]
    missing = table.isna()
    n_left = int(missing.any(axis=1).sum())
    if n_left:
        per_attr = ", ".join(f"{a} {int(n)}" for a, n in missing.sum().items() if n)
        notes.append(f"{common.count(n_left, 'annotator')} left out for a missing value in at least one "
                     f"attribute (missing per attribute: {per_attr}).")
    for a in attrs:
        col = table[a]
        if pd.api.types.is_numeric_dtype(col) and col.nunique() > MANY_VALUES:
            notes.append(f"{a} is numeric with {col.nunique()} distinct values, each its own group; leave it out "
                         "with --attributes or bin it before the audit.")
    singletons = int((groups["n_annotators"] == 1).sum())
    if singletons:
        notes.append(f"{singletons} of {common.count(len(groups), 'group')} {'holds' if singletons == 1 else 'hold'} "
                     "a single annotator; fewer "
                     "--attributes or --min-group-size give comparable groups.")
    return notes

#: Options whose Python names library sentences may use (``adr_fit='cross'``): printed as the options.
CONSOLE_FLAGS = ("--grouping", "--adr-fit", "--bins", "--performance", "--attributes", "--test-adjust")


def console_words(text: str) -> str:
    """A library sentence in this command's words: the test's ``adjust='items'`` is ``--test-adjust items`` here
    (the command's option for the verdict's test), then :data:`CONSOLE_FLAGS`."""
    return common.cli_words(re.sub(r"(?<![\w])adjust='items'", "test_adjust='items'", text), CONSOLE_FLAGS)

def run(args: argparse.Namespace) -> int:
    """The command's boundary: the parsed namespace becomes an :class:`AuditSpec` (the notes on deprecated
    spellings the parser met are printed on stderr)."""
    for note in getattr(args, "deprecated_spellings", ()):
        print(f"Note: {note}.", file=sys.stderr)
    return audit(AuditSpec.from_namespace(args))


class _NPermAction(argparse.Action):
    """``--n-perm``: the former name of ``--n-permutations`` (a deprecated alias that still works)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any,
                 option_string: str | None = None) -> None:
        namespace.n_permutations = values
        namespace.deprecated_spellings = [*getattr(namespace, "deprecated_spellings", []), (
            f"--n-perm is deprecated: use --n-permutations {values}; --n-perm will be removed in a later release")]


def audit(spec: AuditSpec) -> int:
    """Run the opinion-exclusion audit the spec describes; print the answer (and write the report)."""
    common.matplotlib_agg()
    common.bins(spec.bins)  # a malformed --bins fails before any reading
    ann = inputs.load_annotations(spec.inputs)
    attrs = _attributes(spec, ann.dataset, ann.fmt)
    (OpinionExclusionMetric,) = common.require("metrics", "OpinionExclusionMetric")
    with common.steps(["predictions", "opinion-exclusion audit", "writing the report"]) as step:
        step("predictions")
        pred = inputs.get_predictions(spec.inputs, ann, spec.performance)
        ds = pred.dataset
        step("opinion-exclusion audit")
        library_notes: list[str] = []
        with common.quiet_thin_group_warnings(library_notes):  # thin groups: one line below, not a warning
            metric = OpinionExclusionMetric(ds, pred.classified, grouping=spec.grouping,
                                            bins=common.bins(spec.bins), performance=spec.performance,
                                            attributes=attrs, min_group_size=spec.min_group_size,
                                            warn_group_size=spec.warn_group_size, rating_column=pred.rating_column,
                                            adr_fit=spec.adr_fit)
        from ..report.answer import opinion_answer
        from ..report.sections import thin_group_line

        ci, n_boot, seed = spec.ci, spec.n_boot, spec.inputs.seed
        with warnings.catch_warnings(record=True) as caught:  # the test's advice, in this command's words
            answer = opinion_answer({pred.name: metric}, ci=ci, n_boot=n_boot, random_state=seed,
                                    test_adjust=spec.test_adjust)
        for w in caught:
            warnings.warn_explicit(console_words(str(w.message)), w.category, w.filename, w.lineno)
        summary = common.opinion_interval_frame({pred.name: metric}, ci, n_boot, seed)
        groups = metric.group_performance() if ci is None else metric.group_performance(ci=ci, n_boot=n_boot,
                                                                                         random_state=seed)
        thin = thin_group_line(pred.name, metric)
        grouping = metric.grouping_summary()
        notes = [f"favourable label: {common.show(ann.favorable)}", f"Grouping: {grouping.summary()}.",
                 *library_notes]
        if metric.grouping == "adr":  # which ADR fit the figures use, and that the verdict's test is cross-fitted
            notes.append("ADR bins fitted on the scored annotations (the paper's method, --adr-fit same); the test "
                         "behind the verdict is cross-fitted." if spec.adr_fit == "same" else
                         "ADR bins cross-fitted (--adr-fit cross): bins from one half of the items, accuracy on the "
                         "other, both ways; the test behind the verdict is cross-fitted too.")
        if spec.grouping == "demographic":
            used = attrs or [a for a in ds.protected_attribute_names if a in ds.annotators.columns]
            notes += demographic_notes(ds, used, groups)
        ex = discovery(spec, metric, attrs) if spec.discover else None
        step("writing the report")
        path = None
        if spec.out:
            from ..report import Report, Section
            from ..report.sections import opinion_sections

            report = Report(f"Opinion-exclusion audit of {Path(spec.inputs.path).name}",
                            summary=[f"{common.count(len(ds.labels), 'annotation')} of "
                                     f"{common.count(ds.n_items, 'item')} by "
                                     f"{common.count(ds.n_annotators, 'annotator')}; {pred.description}; "
                                     f"favourable label {common.show(ann.favorable)}."])
            report.add_facts(answer.facts)
            report.fact("unfairness", summary.loc[pred.name, "unfairness"])
            report.fact(f"{spec.performance} (mean over groups)", summary.loc[pred.name, "performance"])
            report.extend(opinion_sections({pred.name: metric}, ci=ci, n_boot=n_boot, random_state=seed))
            if ex is not None:
                from ..report.sections import excluded_groups_section

                report.extend([excluded_groups_section(ex)])
            # how the data was read and grouped: details, after the answer and the rankings
            data_notes = Section("Data and grouping notes")
            data_notes.text(*ann.notes[1:], *pred.notes, *notes)
            report.extend([data_notes])
            # the library's sentences name Python options; the report of a command names the command's options
            report.rewrite_text(console_words)
            path = common.save_report(report, spec.out)
    if ex is not None:  # the question asked comes first; the audit by the grouping is its context
        print("Answer (whose opinions are excluded): " + common.cli_words(ex.sentence(), DISCOVER_FLAGS))
        print()
    print(console_words(answer.text(f"The audit by {spec.grouping} grouping:" if ex is not None else "Answer:")))
    print()
    for note in notes:
        print(console_words(note))
    print()
    common.print_frame(summary, f"Opinion-exclusion audit ({spec.performance}, grouping {spec.grouping}):")
    if ci is not None:
        print(common.interval_note(ci, n_boot, seed))
    if thin is not None:
        print(f"Thin groups: {thin}")
    if ci is not None or thin is not None:
        print()
    from ..opinion.groups import group_label

    # the report's group names (0.00–0.07, A & B), not pandas' interval reprs
    common.print_frame(groups.rename(index=group_label), "Groups:")
    if ex is not None:
        print_discovery(ex)
    if path:
        print(f"Report: {path}")
    return 0


#: How many findings ``--discover`` prints.
SHOWN_FINDINGS = 10


def discovery(spec: AuditSpec, metric: Any, attrs: list[str] | None) -> Any:
    """``--discover``: whose opinions are excluded (:meth:`OpinionExclusionMetric.excluded_groups`)."""
    from ..opinion.excluded import DISCOVERY_PERFORMANCES

    if spec.performance not in DISCOVERY_PERFORMANCES:
        raise CLIError(f"--discover compares a mean of per-annotation scores; --performance {spec.performance} is not "
                       f"one: use one of {', '.join(DISCOVERY_PERFORMANCES)}")
    if not len(metric.dataset.annotators.columns) and attrs != ["adr"]:
        raise CLIError("--discover needs annotator attributes, and this data has none (give --annotators CSV), or "
                       "--attributes adr for the disagreement rate alone")
    try:
        ex = metric.excluded_groups(attributes=attrs, max_conditions=spec.max_conditions, adjust=spec.adjust,
                                    n_permutations=spec.n_permutations, min_annotators=spec.min_annotators,
                                    performance=spec.performance, random_state=spec.inputs.seed,
                                    balance=spec.balance, step_down=spec.step_down)
    except ValueError as err:
        raise CLIError(f"--discover: {common.cli_words(str(err), DISCOVER_FLAGS)}") from None
    return ex


def print_discovery(ex: Any) -> None:
    """What ``--discover`` searched and the groups found (its answer line comes first in the output)."""
    print()
    print("Whose opinions are excluded (details): " + common.cli_words(ex.summary().removesuffix(ex.sentence()).strip(),
                                                                        DISCOVER_FLAGS))
    found = ex.findings()
    if len(found):
        cols = ["description", "n_annotators", "n_annotations", "performance", "rest_performance", "gap", "ci_low",
                "ci_high", "p_adjusted", "shared_items"]
        shown = found[cols].head(SHOWN_FINDINGS)
        # "≤ 0.001" at the smallest adjusted p the permutations can give, never "0.001" as if measured
        shown = shown.assign(p_adjusted=[ex.p_short(p) for p in shown["p_adjusted"]])
        title = f"Groups served worse (first {min(len(found), SHOWN_FINDINGS)} of {len(found)})"
        if ex.adjust == "items":  # the columns measure different things: say which is which
            shown = shown.rename(columns={"performance": "performance (raw)", "rest_performance": "rest (raw)",
                                          "gap": "gap (item-adjusted)"})
            title += "; gap and its bounds item-adjusted, performance columns raw"
        common.print_frame(shown.set_index("description"), title + ":")


#: The options of --discover that library sentences may name.
DISCOVER_FLAGS = ("--adjust", "--max-conditions", "--min-annotators", "--n-permutations", "--attributes",
                  "--performance", "--balance", "--step-down")


def add_arguments(audit: common.Parser) -> None:
    """Add the command's arguments and options to its parser ``audit``."""
    audit.add_argument("annotations", metavar="ANNOTATIONS",
                       help="a CSV file with one row per annotation (item id, annotator id, label[, prediction]), "
                            "or a published dataset (file or folder, see --format)")
    csv = audit.add_argument_group("columns (--format csv)")
    csv.add_argument("--item-col", metavar="C", help="item id column (also of --predictions; default there: item)")
    csv.add_argument("--annotator-col", metavar="C", help="annotator id column (also of --predictions; default "
                     "there: annotator)")
    csv.add_argument("--label-col", metavar="C", help="the annotator's label")
    csv.add_argument("--annotators", metavar="CSV", help="annotator table (demographics), one row per annotator")
    csv.add_argument("--annotators-id-col", metavar="C", help="id column of --annotators (default: the "
                     "--annotator-col name, else the first column)")
    csv.add_argument("--items", metavar="CSV", help="item table (text, features), one row per item")
    csv.add_argument("--items-id-col", metavar="C", help="id column of --items (default: the --item-col name, "
                     "else the first column)")
    inputs.add_input_options(audit)
    audit.add_argument("--favorable-label", metavar="V", help=f"the favourable label (default: "
                       f"{inputs.DEFAULT_FAVORABLE}; required for labels other than 0/1)")
    rule = OPINION_PARAMS["grouping"]
    audit.add_argument("--grouping", default=rule.default, choices=GROUPINGS, help=common.choices_help(rule))
    rule = OPINION_PARAMS["adr_fit"]
    audit.add_argument("--adr-fit", default=rule.default, choices=rule.choices,
                       help="--grouping adr: " + common.choices_help(rule) + "; cross has no sorting artefact")
    audit.add_argument("--attributes", nargs="+", metavar="A", help="--grouping demographic: the annotator "
                       "attributes whose intersections are the groups (default: all of them)")
    audit.add_argument("--bins", default="5", metavar="B",
                       help="groups: an int (equal-width bins), 'quantile:N' or edges '0,0.2,0.5,1' (default: 5)")
    for name in ("min_group_size", "warn_group_size"):
        rule = OPINION_PARAMS[name]
        audit.add_argument("--" + name.replace("_", "-"), type=common.option_type(rule), default=rule.default,
                           metavar="N", help=common.choices_help(rule))
    audit.add_argument("--ci", type=common.option_type(OPINION_PARAMS["ci"], none=True),
                       default=OPINION_PARAMS.default("ci"), metavar="L",
                       help="confidence level of the bootstrap intervals next to the unfairness, the performance "
                            "and every group's value; 'none' for the paper's raw figures (default: 0.95)")
    audit.add_argument("--n-boot", type=common.boot_count, default=OPINION_PARAMS.default("n_boot"), metavar="N",
                       help=f"bootstrap replicates of the intervals, {common.MIN_BOOT} to {common.MAX_BOOT:,} "
                            "(default: 1000; the seed is --seed)")
    rule = OPINION_PARAMS["test_adjust"]
    audit.add_argument("--test-adjust", default=rule.default, choices=rule.choices, help=common.choices_help(rule))
    rule = OPINION_PARAMS["performance"]
    audit.add_argument("--performance", default=rule.default, choices=rule.choices,
                       help=common.choices_help(rule) + "; the measures on ratings (POPQUORN 1-5, CSC 1-6, ConvAbuse "
                            "-3..1) need --predictions FILE holding predicted ratings")
    disc = audit.add_argument_group("whose opinions are excluded (--discover)")
    disc.add_argument("--discover", action="store_true",
                      help="also search every conjunction of annotator attribute values (--attributes, default all; "
                           "'adr' adds the cross-fitted disagreement rate) for groups served worse than the other "
                           "annotators, with the family-wise error held by a max-T over annotator permutations")
    # the options of the search: choices, defaults and help from the opinion parameter table; the library checks
    # the values with the same table (its messages, in this command's words)
    rule = OPINION_PARAMS["max_conditions"]
    assert rule.interval is not None and rule.interval.low is not None and rule.interval.high is not None
    disc.add_argument("--max-conditions", type=int, choices=range(int(rule.interval.low), int(rule.interval.high) + 1),
                      default=rule.default, help=common.choices_help(rule))
    rule = OPINION_PARAMS["adjust"]
    disc.add_argument("--adjust", choices=rule.choices, default=rule.default,
                      help="items: compare each annotation with the other annotations of its item, so that a group "
                           f"that saw harder items is not called excluded (default: {rule.default})")
    rule = OPINION_PARAMS["min_annotators"]
    disc.add_argument("--min-annotators", type=int, default=rule.default, metavar="N",
                      help=f"{rule.help} ({rule.expected()}; default: {rule.default})")
    rule = OPINION_PARAMS["discovery_n_permutations"]
    disc.add_argument("--n-permutations", type=int, default=rule.default, metavar="N",
                      help=f"{rule.help} ({rule.expected()}; default: {rule.default:,})")
    disc.add_argument("--n-perm", type=int, action=_NPermAction, dest="n_permutations", metavar="N",
                      help="deprecated spelling of --n-permutations")
    rule = OPINION_PARAMS["balance"]
    disc.add_argument("--balance", choices=rule.choices, default=rule.default, help=common.choices_help(rule))
    rule = OPINION_PARAMS["step_down"]
    disc.add_argument("--step-down", action="store_true", default=rule.default,
                      help=f"{rule.help} (default: the single step)")
    audit.add_argument("--out", metavar="report.html", help="write an HTML report")
