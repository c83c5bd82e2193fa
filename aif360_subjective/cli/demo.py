"""``aif360-subjective demo``: the main job on generated data, with an HTML report."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .._param_tables import OPINION_PARAMS
from . import _common as common
from ._common import CLIError

if TYPE_CHECKING:
    import pandas as pd

    from ..datasets import MultiAnnotatorDataset

#: The command: its name, help and memory hint.
COMMAND = common.Command(
    "demo", help="run the main job on generated data and write an HTML report",
    description="Generate multi-annotator data, filter spammers with CrowdTruth, train a majority-vote and an "
                "annotator-aware model, measure their opinion-exclusion unfairness, discover disadvantaged "
                "subgroups, write DIR/report.html and the figures as PNG files.",
    memory_hint="try fewer generated items (--n-items)")


@dataclass(frozen=True)
class DemoSpec(common.CommandSpec):
    """The options of ``demo``, typed.

    Attributes:
        out: the output folder.
        seed: seed of the generated data and the models.
        adr_fit: how the ADR bins are fitted (the opinion table's ``adr_fit``).
        n_items: items to generate.
    """

    out: str = "aif360_subjective_demo"
    seed: int = 0
    adr_fit: str = "same"
    n_items: int = 2000


def _annotator_frame(ds: MultiAnnotatorDataset) -> pd.DataFrame:
    """Annotator demographics per annotation row, as strings ("unknown" where missing)."""
    import numpy as np

    attrs = [c for c in ds.protected_attribute_names if c in ds.annotators.columns]
    table: pd.DataFrame = ds.annotators.reindex(ds.annotator_ids)[attrs].astype(object)
    table = table.where(table.notna(), "unknown").astype(str)
    table.index = np.arange(len(table))
    return table


#: The generator's annotator kinds as nouns (for counts: "5 spammers", "1 minority annotator").
KIND_NOUNS = {"regular": "regular annotator", "minority": "minority annotator", "spammer": "spammer"}


def _kinds(counts: pd.Series) -> str:
    return ", ".join(common.count(int(v), KIND_NOUNS.get(str(k), str(k))) for k, v in counts.items())


#: The demo's intervals: 95 %, 1,000 replicates, seeded by --seed.
CI, N_BOOT = 0.95, 1000


def run(args: argparse.Namespace) -> int:
    """The command's boundary: the parsed namespace becomes a :class:`DemoSpec`."""
    return demo(DemoSpec.from_namespace(args))


def demo(spec: DemoSpec) -> int:
    """Run the demo the spec describes: print the answer and write the report with its figures."""
    common.matplotlib_agg()
    from ..datasets import make_subjective_dataset
    from ..report import Report
    from ..report.sections import crowdtruth_sections, opinion_sections, subgroup_sections

    out = Path(spec.out)
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out {spec.out!r} exists and is not a folder")
    (CrowdTruthFilter,) = common.require("algorithms.preprocessing", "CrowdTruthFilter")
    AnnotatorAwareClassifier, MajorityVoteClassifier = common.require(
        "algorithms.inprocessing", "AnnotatorAwareClassifier", "MajorityVoteClassifier"
    )
    (OpinionExclusionMetric,) = common.require("metrics", "OpinionExclusionMetric")
    (detect_subgroups,) = common.require("detectors", "detect_subgroups")

    # the folder is created with the files, at the end: an interrupted or failed run leaves nothing behind
    seed = spec.seed
    names = ["generating annotations", "CrowdTruth filtering", "training Model 1 (majority vote)",
             "training Model 2 (annotator-aware)", "opinion-exclusion unfairness", "subgroup discovery",
             "writing the report"]
    with common.steps(names) as step:
        step(names[0])
        ds = make_subjective_dataset(n_items=spec.n_items, random_state=seed)
        step(names[1])
        ct = CrowdTruthFilter().fit(ds)
        clean = ct.transform(ds)
        train, test = clean.split([0.7], shuffle=True, seed=seed)
        step(names[2])
        pred1 = MajorityVoteClassifier(random_state=seed).fit(train).predict(test)
        step(names[3])
        pred2 = AnnotatorAwareClassifier().fit(train).predict(test)
        step(names[4])
        library_notes: list[str] = []
        with common.quiet_thin_group_warnings(library_notes):  # thin groups: one line per model below
            models = {
                "Model 1 (majority vote)": OpinionExclusionMetric(test, pred1, adr_fit=spec.adr_fit),
                "Model 2 (annotator-aware)": OpinionExclusionMetric(test, pred2, adr_fit=spec.adr_fit),
            }
        table = common.opinion_interval_frame(models, CI, N_BOOT, seed)
        step(names[5])
        fav = test.favorable_label
        X = _annotator_frame(test)
        y_true, y_pred = (test.labels.ravel() == fav).astype(int), (pred1.labels.ravel() == fav).astype(int)
        subgroups = detect_subgroups(X, y_true, y_pred, pos_label=1, random_state=seed)
        from ..report.sections import lopsided_alternatives, thin_group_line

        alternatives = lopsided_alternatives(subgroups, X, y_true, y_pred, random_state=seed)
        from ..report.answer import answer_section, opinion_answer, subgroup_answer
        from ..report.sections import pattern_texts, whole_numbers_as_int

        # the answer first, one block for the two analyses (the same sentences in the console and the report)
        opinion = opinion_answer(models, ci=CI, n_boot=N_BOOT, random_state=seed)
        texts = pattern_texts(whole_numbers_as_int(subgroups.patterns(all_columns=False)))
        found = subgroup_answer(subgroups, pattern_text=texts)
        step(names[6])
        removed = ct.removed_annotators_
        kinds = ds.annotators["kind"]
        removed_kinds = kinds.reindex(removed.index).value_counts()
        report = Report(
            "aif360-subjective demo: opinion exclusion and subgroup fairness",
            summary=[
                f"Generated data: {len(ds.labels):,} annotations of {ds.n_items:,} items by {ds.n_annotators} "
                f"annotators ({_kinds(kinds.value_counts())}). The ground "
                "truth is known: minority annotators consistently read the contested items differently; "
                "spammers label at random.",
                "A majority-vote model (Model 1) and an annotator-aware model (Model 2) were trained on 70% of "
                f"the items and audited on the other 30%. Favourable label {common.show(test.favorable_label)}.",
            ],
        )
        report.add_facts(opinion.facts)
        report.add_facts({f"unfairness, {k}": v for k, v in table["unfairness"].items()})
        report.fact("annotators removed by CrowdTruth", len(removed))
        first = answer_section(opinion)
        subgroup_part = answer_section(found, "Significant subgroup findings under Model 1, smallest adjusted p first.")
        first.text("Subgroups under Model 1 (majority vote):")
        first.blocks.extend(subgroup_part.blocks)
        report.extend([first])
        report.extend(opinion_sections(models, ci=CI, n_boot=N_BOOT, random_state=seed, answer=False,
                                       verdicts=False))  # the answer at the top states them
        report.extend(subgroup_sections(subgroups, model="Model 1 (majority vote)", alternatives=alternatives,
                                        answer=False))
        report.extend(crowdtruth_sections(ct, annotator_info=ds.annotators))
        report.rewrite_text(lambda text: common.cli_words(text, ("--adr-fit",)))  # the command's words
        path = common.save_report(report, out / "report.html", figures_dir=out)

    print(common.cli_words(opinion.text(), ("--adr-fit",)))
    print(found.text("Subgroups under Model 1 (majority vote):"))
    print()
    print(f"Generated {len(ds.labels):,} annotations of {ds.n_items:,} items by {ds.n_annotators} annotators; "
          f"favourable label: {common.show(ds.favorable_label)}.")
    print(f"CrowdTruth filter removed {len(removed)} annotators"
          + (f" ({_kinds(removed_kinds)})." if len(removed) else "."))
    print()
    common.print_frame(table, "Opinion-exclusion audit on the test items (performance = accuracy):")
    print(common.interval_note(CI, N_BOOT, seed).replace(" --ci none gives the paper's raw figures.", ""))
    for line in library_notes:
        print(line)
    for name, m in models.items():
        thin = thin_group_line(name, m)
        if thin is not None:
            print(f"Thin groups: {thin}")
    lop = subgroups.lopsided
    if lop["lopsided"]:
        suggestion = getattr(alternatives, "attrs", {}).get("suggestion")
        print(f"Subgroup clustering ({subgroups.clustering}, {common.count(subgroups.n_clusters, 'cluster')}) is "
              "lopsided: "
              f"{lop['reason']}" + (f"; {suggestion[0]} is not lopsided at that number of clusters (see the "
                                    "report)." if suggestion else "."))
    from ..report.answer import as_subgroup_report
    from ..report.significance import in_report_family

    rep = as_subgroup_report(subgroups)
    # significant as in the report's answer: a finding of the whole report's family, with its adjusted p
    top = in_report_family(rep, rep.ranking("statistical_parity", kind="entropy", n=None), "statistical_parity",
                           "entropy", "disadvantaged", 0.05, 0.95, 1)
    top.attrs["n_permutations"] = rep.options.n_permutations
    print(common.significance_line(top, "statistical parity", "subgroup under Model 1"))
    print(f"Report: {path}")
    return 0


def add_arguments(parser: common.Parser) -> None:
    """Add the command's options to its parser."""
    parser.add_argument("--out", default="aif360_subjective_demo", metavar="DIR",
                        help="output folder (default: %(default)s)")
    parser.add_argument("--seed", type=common.seed, default=0,
                        help="seed of the generated data and models (default: 0)")
    rule = OPINION_PARAMS["adr_fit"]
    parser.add_argument("--adr-fit", default=rule.default, choices=rule.choices, help=common.choices_help(rule))
    parser.add_argument("--n-items", type=common.demo_items, default=2000,
                        help=f"items to generate, at most {common.MAX_DEMO_ITEMS:,} (default: 2000)")
