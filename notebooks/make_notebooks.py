"""Write the tutorial notebooks (outputs cleared) from the cells below: ``python notebooks/make_notebooks.py``.

The notebooks are generated so that their code stays reviewable as plain Python; edit here, then regenerate.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from _nb04_perspectivist import PERSPECTIVIST  # the cells of notebook 04, kept in their own file
from _nb05_excluded_groups import EXCLUDED  # the cells of notebook 05
from _nb_common import DATA_DIR, code, data_check, md
from nbformat.v4 import new_notebook

HERE = Path(__file__).resolve().parent

# ------------------------------------------------------------------------------------------ 1 opinion exclusion
OPINION = [
    md("""
# Opinion exclusion: is the model fair to every opinion?

When annotators disagree about toxicity, irony or hate speech, training on the majority vote silences the
minority's reading. Balayn, Bozzon and Szlavik (2019) measure this **opinion-exclusion unfairness**:

1. group the annotators by their **average disagreement rate (ADR)** with the majority vote;
2. compute the model's accuracy **against each annotator's own labels**, average it per group;
3. **unfairness** = standard deviation across the groups, **performance** = their mean.

This notebook reproduces the paper's experiment (Models 1-3, Figure 3, Table 2) on generated data with a planted
minority opinion, then on real perspectivist data (MultiPICo, irony detection).
"""),
    code("""
import numpy as np
import pandas as pd

from aif360_subjective.algorithms.inprocessing import AnnotatorAwareClassifier, MajorityVoteClassifier
from aif360_subjective.algorithms.preprocessing import CrowdTruthFilter
from aif360_subjective.datasets import LeWiDiDataset, MultiAnnotatorDataset, make_subjective_dataset
from aif360_subjective.metrics import OpinionExclusionMetric
from aif360_subjective.plotting import plot_group_performance
"""),
    md("""
## Generated data with a planted minority opinion

`make_subjective_dataset` generates items with features, regular annotators, a **minority** that consistently
reads the contested items differently (mostly young annotators) and a few **spammers**. The ground truth of who is
who is in `ds.annotators["kind"]` (not a feature).
"""),
    code("""
ds = make_subjective_dataset(n_items=2000, n_annotators=150, annotations_per_item=5, random_state=0)
print(ds.labels.shape[0], "annotations;", ds.n_items, "items;", ds.n_annotators, "annotators")
ds.annotators["kind"].value_counts()
"""),
    md("""
Spammers label at random: they land in the highest-ADR group, where no model can serve them, and would dominate
the comparison of the models. As in the paper's pipeline (and the command-line demo), they are removed first with
the CrowdTruth filter, which keeps annotators whose disagreement is consistent (notebook 02 looks at the filter).
"""),
    code("""
ct = CrowdTruthFilter().fit(ds)
clean = ct.transform(ds)
print(f"CrowdTruth removed {len(ct.removed_annotators_)} annotators:",
      ds.annotators["kind"].reindex(ct.removed_annotators_.index).value_counts().to_dict())
train, test = clean.split([0.7], shuffle=True, seed=0)   # by item: no item on both sides
len(np.unique(train.item_ids)), len(np.unique(test.item_ids))
"""),
    md("""
## The three models

* **Model 1**: `MajorityVoteClassifier`, a logistic regression trained on the items' majority vote: on TF-IDF of the
  item text where the items have text (MultiPICo below), else on the numeric item features (the generated data); it
  predicts one label per item, the same for every annotator.
* **Model 2**: `AnnotatorAwareClassifier`, trained on the individual annotations with the annotators' demographics
  (and their interactions with the item features): it predicts a label per (item, annotator).
* **Model 3**: the hypothetical perfect model that returns every annotator's own label.
"""),
    code("""
pred1 = MajorityVoteClassifier().fit(train).predict(test)               # same prediction for all of an item
pred2 = AnnotatorAwareClassifier().fit(train).predict(test)
pred3 = test.copy()                                                     # the annotators' own labels

models = {name: OpinionExclusionMetric(test, pred, grouping="adr", bins=5)
          for name, pred in [("Model 1", pred1), ("Model 2", pred2), ("Model 3", pred3)]}
"""),
    md("""
## The answer first

Who each model serves worst, with its 95% interval; whether that group's interval lies below the best-served
group's; which model is fairer and whether their unfairness intervals overlap. Every sentence is computed from the
numbers in the tables and the figure below (the same block opens the command line's output and the HTML report).
"""),
    code("""
from aif360_subjective.report.answer import opinion_answer

print(opinion_answer(models, n_boot=300).text())     # the verdicts' test: 9,999 permutations, seed 0
"""),
    md("""
## Table 2: unfairness and performance, with their uncertainty

The paper reports the raw figures. Each also gets a 95% interval. The performance's is a **bootstrap interval**:
the annotators of each ADR group are resampled within their group (the groups stay fixed), then each drawn
annotator's annotations. The unfairness's inverts the one-way ANOVA test: it holds the true spreads across groups
that the data do not reject, and reaches 0 when the spread is indistinguishable from noise. `n_boot=300` replicates
keep this notebook quick (the default is 1,000); the seed makes the intervals the same on every run. Under the
table, each model's **verdict**: the test of equal service (annotators permuted across groups, cross-fitted for
ADR bins) and the intervals in one sentence.
"""),
    code("""
N_BOOT = 300


def with_intervals(models, n_boot=N_BOOT):
    \"\"\"Table 2 with the bootstrap interval bounds of the unfairness and the performance.\"\"\"
    rows = {}
    for name, m in models.items():
        u = m.unfairness_ci(n_boot=n_boot, random_state=0)
        p = m.performance_ci(n_boot=n_boot, random_state=0)
        rows[name] = {"unfairness": m.unfairness(), "unfairness_low": u[0], "unfairness_high": u[1],
                      "performance": m.performance(), "performance_low": p[0], "performance_high": p[1]}
    return pd.DataFrame(rows).T


table2 = with_intervals(models)
for name, m in models.items():
    # the same test as the answer block above (same seed, replicates and permutations: one computation, one p)
    print(f"{name}: {m.verdict(n_boot=N_BOOT, random_state=0)}")
table2
"""),
    code("""
# One source for every p-value: the answer block and the verdicts above quote the same test.
answer_text = opinion_answer(models, n_boot=N_BOOT).text()
for name, m in models.items():
    assert m.verdict(n_boot=N_BOOT, random_state=0) in answer_text
"""),
    code("""
# The perfect model is perfectly fair and perfectly accurate.
assert table2.loc["Model 3", "unfairness"] == 0 and table2.loc["Model 3", "performance"] == 1
"""),
    md("""
## Figure 3: accuracy per group of annotators

The sentences under the figure are computed from the numbers in it: which groups each model serves best and
worst, and whether Model 2 narrows the gap that Model 1 leaves (a difference in unfairness below 0.005 counts as
no change), and whether the two unfairness intervals overlap. Separate intervals are a strict criterion (two
intervals can overlap while the difference is real), so "the intervals overlap" means "not shown by this check",
not "no difference".
"""),
    code("""
TOLERANCE = 0.005


from aif360_subjective.opinion.groups import group_label as bin_name   # 0.00–0.16, the package's one form


def with_interval(m, n_boot=N_BOOT):
    iv = m.unfairness_ci(n_boot=n_boot, random_state=0)
    return f"{m.unfairness():.4f} [{iv[0]:.4f}, {iv[1]:.4f}]", iv


def overlap(a, b):
    return a[0] <= b[1] and b[0] <= a[1]


def compare_models(models):
    \"\"\"Figure 3 in sentences computed from the metrics; returns Model 1's minus Model 2's unfairness and whether
    their intervals overlap.\"\"\"
    for name in ("Model 1", "Model 2"):
        perf = models[name].group_performance()["performance"]
        print(f"{name}: best served ADR group {bin_name(perf.idxmax())} ({perf.max():.3f}), worst served "
              f"{bin_name(perf.idxmin())} ({perf.min():.3f}); unfairness {with_interval(models[name])[0]}.")
    u1, u2 = models["Model 1"].unfairness(), models["Model 2"].unfairness()
    (t1, iv1), (t2, iv2) = with_interval(models["Model 1"]), with_interval(models["Model 2"])
    overlapping = overlap(iv1, iv2)
    if abs(u1 - u2) < TOLERANCE:
        verdict = f"leaves the gap as it is (a difference below {TOLERANCE})"
    else:
        verdict = "narrows the gap" if u2 < u1 else "widens the gap"
    if overlapping:
        clause = "the 95% intervals overlap, so this check does not show the difference to be more than noise"
    else:
        clause = "the 95% intervals do not overlap"
    print(f"Model 2 {verdict}: unfairness {t2} against Model 1's {t1}; {clause}.")
    return u1 - u2, overlapping


ax = plot_group_performance(models, kind="heatmap")
"""),
    code("""
narrowed, overlapping = compare_models(models)
# On these generated data the minority's reading is planted, and Model 2 learns it: its unfairness is lower.
# Whether that is more than noise is what the interval clause above says (computed, not assumed).
assert narrowed > TOLERANCE
"""),
    md("""
## Thin groups

With the paper's `min_group_size=1` every non-empty bin counts, however few annotators it holds, and one such bin
can set the standard deviation on its own. The metric warns (`warn_group_size=5` by default) and names the thin
groups with their share of the unfairness; `thin_groups()` gives the table. Ten equal-width bins over this data's
ADR range leave few annotators in the high-ADR bins:
"""),
    code("""
fine = OpinionExclusionMetric(test, pred1, bins=10)       # warns if a bin holds fewer than 5 annotators
assert len(fine.thin_groups()) > 0                        # the sentence above, checked
fine.thin_groups()
"""),
    md("""
`min_group_size=5` merges such bins with a neighbour (`warn_group_size=0` silences the warning and keeps the
paper's raw figures). The two audits side by side, with their intervals:
"""),
    code("""
merged = OpinionExclusionMetric(test, pred1, bins=10, min_group_size=5)
print("groups:", len(fine.group_performance()), "->", len(merged.group_performance()),
      "| thin groups:", len(fine.thin_groups()), "->", len(merged.thin_groups()))
with_intervals({"10 bins, min_group_size=1": fine, "10 bins, min_group_size=5": merged})
"""),
    code("""
models["Model 1"].group_performance()
"""),
    md("""
Who are the high-ADR annotators? On generated data each annotator's kind is known:
"""),
    code("""
adr = models["Model 1"].disagreement_rates()
by_kind = adr.groupby(test.annotators["kind"].reindex(adr.index)).describe()[["count", "mean", "50%", "max"]]
print(f"mean ADR: minority {by_kind.loc['minority', 'mean']:.3f}, regular {by_kind.loc['regular', 'mean']:.3f}")
assert by_kind.loc["minority", "mean"] > by_kind.loc["regular", "mean"]   # the planted minority disagrees most
by_kind
"""),
    md("""
## Real data: MultiPICo (irony, LeWiDi format)

MultiPICo holds the irony judgments of 506 annotators with their demographics. The items are (post, reply) pairs
of text; as item features we use a small TF-IDF + SVD representation of the text. Without the data folder the
cells below say where to get the files and skip.
"""),
    code(DATA_DIR),
    code(data_check("multipico", "MultiPICo", "https://github.com/Le-Wi-Di/le-wi-di.github.io (folder "
                    "LeWiDi_3-2025/MP: MP_train.json, MP_dev.json, MP_test.json, MP_annotators_meta.json)",
                    "HAVE_MULTIPICO")),
    code("""
if HAVE_MULTIPICO:
    mp = LeWiDiDataset(DATA / "multipico", split="dev")
    print(mp.labels.shape[0], "annotations;", mp.n_items, "items;", mp.n_annotators, "annotators")
    print("protected attributes:", mp.protected_attribute_names)
"""),
    code("""
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer

if HAVE_MULTIPICO:
    items = mp.items
    text = (items["post"].fillna("") + " " + items["reply"].fillna("")).to_numpy()
    svd = TruncatedSVD(n_components=20, random_state=0)
    emb = svd.fit_transform(TfidfVectorizer(min_df=2, max_features=20000).fit_transform(text))
    # Model 2 reads the 20 text components; Model 1 reads the text itself (TF-IDF + logistic regression): on the
    # components alone its majority-vote regression answered "not ironic" for every item
    item_table = pd.DataFrame(emb, index=items.index, columns=[f"t{i}" for i in range(emb.shape[1])]).assign(text=text)

    attrs = ["Gender", "Age", "Ethnicity simplified", "Student status"]
    ann = mp.annotators[attrs].copy()
    ann["Age"] = pd.cut(ann["Age"], [0, 25, 35, 50, 120], labels=["<25", "25-35", "35-50", "50+"]).astype(object)
    frame = pd.DataFrame({"item": mp.item_ids, "annotator": mp.annotator_ids, "label": mp.labels.ravel()})
    mpd = MultiAnnotatorDataset(frame, annotators=ann, items=item_table, favorable_label=mp.favorable_label,
                                unfavorable_label=mp.unfavorable_label)
    mp_train, mp_test = mpd.split([0.7], shuffle=True, seed=0)
"""),
    code("""
if HAVE_MULTIPICO:
    mp_pred1 = MajorityVoteClassifier(random_state=0).fit(mp_train).predict(mp_test)
    print("Model 1 predictions per label:", pd.Series(mp_pred1.original_labels()).value_counts().to_dict())
    mp_models = {
        "Model 1": OpinionExclusionMetric(mp_test, mp_pred1, bins=5),
        "Model 2": OpinionExclusionMetric(mp_test, AnnotatorAwareClassifier().fit(mp_train).predict(mp_test),
                                          bins=5),
        "Model 3": OpinionExclusionMetric(mp_test, mp_test.copy(), bins=5),
    }
    display(with_intervals(mp_models))
    for name, m in mp_models.items():
        thin = m.thin_groups()
        if len(thin):
            print(f"{name}: {len(thin)} thin group(s), share of the unfairness:",
                  {bin_name(g): round(float(s), 3) for g, s in thin["share_of_unfairness"].items()})
"""),
    code("""
if HAVE_MULTIPICO:
    ax = plot_group_performance(mp_models, kind="heatmap")
    compare_models(mp_models)
"""),
    md("""
Irony is highly subjective, and the sentences above say how the two models serve the annotators who disagree
most with the majority. Other groupings (`grouping="demographic"`, `"ambiguity"`, `"popularity"`) show *whose*
opinions they are.
"""),
    code("""
if HAVE_MULTIPICO:
    display(OpinionExclusionMetric(mp_test, mp_pred1, grouping="demographic", attributes="Gender",
                                   min_group_size=10).group_performance())
"""),
]

# ------------------------------------------------------------------------------------------ 2 CrowdTruth
CROWDTRUTH = [
    md("""
# CrowdTruth filtering: spammers versus minority opinions

Low agreement has two causes: **spammers**, whose labels are noise, and **minority annotators**, whose labels carry
a consistent opinion the majority does not share. Removing the first cleans the data; removing the second makes the
data look cleaner and the model *less fair*. CrowdTruth 2.0 (Dumitrache et al. 2018) scores annotators by their
agreement, weighted by item and label quality. This notebook looks at what its scores and the `CrowdTruthFilter`
do with each kind of annotator, and at the opinion-exclusion unfairness of a model before and after filtering.
"""),
    code("""
import numpy as np
import pandas as pd

from aif360_subjective.algorithms.inprocessing import MajorityVoteClassifier
from aif360_subjective.algorithms.preprocessing import CrowdTruthFilter
from aif360_subjective.datasets import make_subjective_dataset
from aif360_subjective.metrics import OpinionExclusionMetric
from aif360_subjective.quality import crowdtruth_scores
"""),
    code("""
ds = make_subjective_dataset(n_items=2000, n_annotators=150, spammer_fraction=0.1, minority_fraction=0.15,
                             random_state=1)
kind = ds.annotators["kind"]
kind.value_counts()
"""),
    md("## Worker quality by kind of annotator"),
    code("""
scores = crowdtruth_scores(ds.to_dataframe(), unit_col=ds.item_col, worker_col=ds.annotator_col,
                           label_col=ds.label_col)
workers = scores.workers.join(kind)
workers.groupby("kind")[["wqs", "wwa", "wua"]].describe().loc[:, (slice(None), ["mean", "min", "max"])]
"""),
    code("""
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3.5))
for k, part in workers.groupby("kind"):
    ax.hist(part["wqs"], bins=np.linspace(0, 1, 31), alpha=0.6, label=k)
ax.set_xlabel("worker quality score (WQS)")
ax.set_ylabel("annotators")
ax.legend();
"""),
    md("""
Spammers get the lowest WQS. Minority annotators score lower than regular ones too (they disagree on the contested
items), but their disagreement is consistent.

## The filter
"""),
    code("""
f = CrowdTruthFilter().fit(ds)
clean = f.transform(ds)
removed = f.removed_annotators_.join(kind)
print(f"removed {len(removed)} of {ds.n_annotators} annotators; {len(ds.labels) - len(clean.labels)} annotations")
removed["kind"].value_counts()
"""),
    code("""
removed.head(10)
"""),
    md("""
## Unfairness before and after filtering

The same majority-vote model is trained on the raw and on the filtered training items and audited on the **same raw
test annotations** (every annotator's opinion counts in the evaluation).
"""),
    code("""
def majority_vote_model(train, test):
    return MajorityVoteClassifier().fit(train).predict(test)   # the paper's Model 1

train, test = ds.split([0.7], shuffle=True, seed=0)
train_items = np.unique(train.item_ids)
clean_train = clean.subset(np.flatnonzero(np.isin(clean.item_ids, train_items)))

audit = {"raw training data": OpinionExclusionMetric(test, majority_vote_model(train, test)),
         "CrowdTruth-filtered": OpinionExclusionMetric(test, majority_vote_model(clean_train, test))}
N_BOOT = 300   # bootstrap replicates: enough for a notebook (the default is 1,000); seeded, so reproducible
intervals = {n: (m.unfairness_ci(n_boot=N_BOOT, random_state=0), m.performance_ci(n_boot=N_BOOT, random_state=0))
             for n, m in audit.items()}
pd.DataFrame({n: {"unfairness": m.unfairness(), "unfairness_low": intervals[n][0][0],
                  "unfairness_high": intervals[n][0][1], "performance": m.performance(),
                  "performance_low": intervals[n][1][0], "performance_high": intervals[n][1][1]}
              for n, m in audit.items()}).T
"""),
    code("""
from aif360_subjective.report.answer import opinion_answer

print(opinion_answer(audit, n_boot=N_BOOT).text())   # the answer first: computed from the table above
"""),
    code("""
from aif360_subjective.plotting import plot_group_performance

ax = plot_group_performance(audit, kind="heatmap")
"""),
    code("""
TOLERANCE = 0.005
du = audit["CrowdTruth-filtered"].unfairness() - audit["raw training data"].unfairness()
dp = audit["CrowdTruth-filtered"].performance() - audit["raw training data"].performance()
moved = "hardly moved" if abs(du) < TOLERANCE else ("fell" if du < 0 else "rose")
(raw_u, _), (filt_u, _) = intervals["raw training data"], intervals["CrowdTruth-filtered"]
overlapping = raw_u[0] <= filt_u[1] and filt_u[0] <= raw_u[1]
print(f"With CrowdTruth filtering the model's unfairness {moved} ({du:+.4f}; 95% intervals "
      f"[{raw_u[0]:.4f}, {raw_u[1]:.4f}] before, [{filt_u[0]:.4f}, {filt_u[1]:.4f}] after, which "
      f"{'overlap: the change is within the noise this check can see' if overlapping else 'do not overlap'}); "
      f"its performance changed by {dp:+.4f}.")
"""),
    md("""
A naive, stricter filter drops every annotator with a below-average WQS. The cell below counts whom it removes
and compares, per kind of annotator, the accuracy of the model trained on each version of the data. A
majority-vote model is trained on the majority's labels whichever annotators remain, so any loss for the minority
is small here; it shows for models that learn from the individual annotations (Model 2 in notebook 01) and in any
audit that uses the filtered annotations as its ground truth.
"""),
    code("""
strict = workers.index[workers["wqs"] < workers["wqs"].mean()]
print("naive filter removes:", kind.reindex(strict).value_counts().to_dict())
strict_train = train.subset(np.flatnonzero(~np.isin(train.annotator_ids, strict)))
audit["naive strict filter"] = OpinionExclusionMetric(test, majority_vote_model(strict_train, test))
per_kind = pd.DataFrame({n: m.annotator_performance().groupby(kind).mean() for n, m in audit.items()})
per_kind.loc["unfairness"] = [m.unfairness() for m in audit.values()]
n_min = int((kind.reindex(strict) == "minority").sum())
loss = per_kind.loc["minority", "naive strict filter"] - per_kind.loc["minority", "raw training data"]
print(f"The naive filter removes {n_min} of {int((kind == 'minority').sum())} minority annotators; the minority's "
      f"accuracy changes by {loss:+.4f} for the majority-vote model.")
per_kind
"""),
]

# ------------------------------------------------------------------------------------------ 3 subgroups on COMPAS
SUBGROUPS = [
    md("""
# Automated subgroup discovery on COMPAS, inside an AIF360 workflow

Instead of choosing in advance which groups to compare, the ASDF method (Schäfer and Wiese) **finds** subgroups:
cluster the rows, take each cluster and its entropy pattern (its dominant attribute values) as subgroups, and
measure each subgroup against the rest. Sign convention: **rest minus subgroup, positive = the subgroup is
disadvantaged**.

1. AIF360's `CompasDataset` from the data folder, a logistic-regression classifier;
2. `SubgroupDiscoveryMetric` on the test predictions;
3. the most disadvantaged *entropy-based* subgroup (the ASDF paper's kind, a conjunction of attribute values that
   AIF360's group dicts can state) exported with `aif360_groups`, checked with AIF360's `ClassificationMetric`,
   mitigated with AIF360's `Reweighing` (the answer of step 2 ranks every kind, mined ranges included: its first
   finding can be another subgroup);
4. the FairVis COMPAS predictions analysed as in the ASDF paper's dashboard figures.
"""),
    code("""
# First: aif360 logs a WARNING for every optional extra it lacks (tensorflow, fairlearn, ...) when its
# algorithms and metrics are imported; the package's quiet import filters those notices (and only those).
from aif360_subjective._compat import import_aif360_quietly

import_aif360_quietly()

import inspect

import numpy as np
import pandas as pd
from aif360.algorithms.preprocessing import Reweighing
from aif360.datasets import CompasDataset, StandardDataset
from aif360.metrics import ClassificationMetric
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from aif360_subjective.detectors import detect_subgroups
from aif360_subjective.metrics import SubgroupDiscoveryMetric
from aif360_subjective.plotting import plot_ranking, plot_subgroup_sizes, plot_summary_radar
"""),
    code(DATA_DIR),
    md("""
AIF360's `CompasDataset` reads `compas-scores-two-years.csv` from inside its own package folder. Rather than copy the
file into site-packages, we build the same dataset from our data folder: a `CompasDataset` instance initialised with
exactly `CompasDataset`'s default arguments (label, protected attributes, features, preprocessing). The file is read
with pandas' classic string handling because aif360 0.6.1 does not accept pandas 3 string columns (the
"Working with AIF360" guide page has the workaround for `CompasDataset()` itself, and `contrib/` the upstream fix).
"""),
    code("""
import warnings


def compas_dataset(path):
    defaults = {k: p.default for k, p in inspect.signature(CompasDataset.__init__).parameters.items()
                if k != "self"}
    with warnings.catch_warnings():
        # pandas 3 announces that this option goes away in pandas 4; by then AIF360 needs the contrib/ fix
        warnings.filterwarnings("ignore", message=".*future.infer_string.*")
        with pd.option_context("future.infer_string", False):
            df = pd.read_csv(path, index_col="id", na_values=[])
            ds = CompasDataset.__new__(CompasDataset)
            StandardDataset.__init__(ds, df=df, **defaults)
    return ds

compas = compas_dataset(DATA / "compas" / "compas-scores-two-years.csv")
print(compas.features.shape, "favourable label:", compas.favorable_label, "(no recidivism)")
"""),
    code("""
# AIF360's own split seeds numpy's global generator: split the row indexes with a local seed instead.
idx_train, idx_test = train_test_split(np.arange(compas.features.shape[0]), test_size=0.3, random_state=0)
train, test = compas.subset(idx_train), compas.subset(idx_test)

scaler = StandardScaler().fit(train.features)
clf = LogisticRegression(max_iter=2000).fit(scaler.transform(train.features), train.labels.ravel())
test_pred = test.copy()
test_pred.labels = clf.predict(scaler.transform(test.features)).reshape(-1, 1)
print("test accuracy:", (test_pred.labels == test.labels).mean().round(3))
"""),
    md("## Subgroup discovery on the test predictions"),
    code("""
ATTRIBUTES = ["sex", "race", "age_cat", "c_charge_degree", "priors_count"]
sdm = SubgroupDiscoveryMetric(test, test_pred, n_clusters=12, entropy_threshold=0.65, attributes=ATTRIBUTES,
                              random_state=0)
"""),
    md("""
### The answer first

The significant findings across every fairness metric (adjusted p < 0.05 by permutation max-T over every
subgroup, metric and direction, a family-wise error; the interval on one side of 0): the same list opens
`aif360-subjective subgroups` and its HTML report. `sdm.findings()` is the table behind it.
"""),
    code("""
from aif360_subjective.report.answer import subgroup_answer

print(subgroup_answer(sdm).text())
"""),
    code("""
sdm.summary()
"""),
    code("""
sdm.patterns()
"""),
    code("""
# only subgroups significantly disadvantaged (max-T adjusted p < 0.05 over every subgroup: a family-wise error),
# the strongest evidence first
top = sdm.ranking("statistical_parity", kind="entropy", n=5)
print(f"{len(top)} of the entropy-based subgroups are significantly disadvantaged "
      f"({top.attrs['n_not_significant']} tested subgroups are not significant, "
      f"{top.attrs['n_other_side']} are significantly favoured)")
top
"""),
    md("""
## The discovered subgroup as AIF360 groups

The answer above names the most significant finding of every kind; a mined range such as `priors_count ∈ [5, 36]`
has no AIF360 group dict (AIF360 groups are attribute = value conditions). This section exports the most
disadvantaged *entropy-based* subgroup, whose pattern is such a conjunction; `rep.to_aif360` (below, on the FairVis
predictions) exports a subgroup of any kind as a membership attribute.

`aif360_groups` returns the subgroup and the rest as AIF360 lists of dicts. AIF360 evaluates groups on protected
attributes, so `subgroup_datasets` gives copies of the datasets where the pattern's features are protected
attributes. With `privileged_groups = subgroup`, AIF360's statistical parity difference (unprivileged minus
privileged) is exactly our "rest minus subgroup".
"""),
    code("""
assert len(top), "no significantly disadvantaged subgroup: nothing to mitigate"
sid = top.index[0]
subgroup, rest = sdm.aif360_groups("entropy", sid)
first = sdm.findings().query("direction == 'disadvantaged'").iloc[0]
print(f"the answer's first finding: {first['description']} ({first['kind']}); exported here: the first "
      f"entropy-based subgroup, {top.loc[sid, 'subgroup']}")
print("subgroup:", subgroup)
t_sg, p_sg = sdm.subgroup_datasets("entropy")
cm = ClassificationMetric(t_sg, p_sg, privileged_groups=subgroup, unprivileged_groups=rest)
print("AIF360 statistical parity difference:", round(cm.statistical_parity_difference(), 6))
print("SubgroupDiscoveryMetric:              ", round(top.loc[sid, "statistical_parity"], 6))
assert np.isclose(cm.statistical_parity_difference(), top.loc[sid, "statistical_parity"])
"""),
    md("""
## Mitigation with AIF360's Reweighing

The subgroup is disadvantaged (positive value), so it is the *unprivileged* group for the mitigator. We make the
same features protected attributes in the training data, reweigh, retrain and measure again on the test set.
"""),
    code("""
def with_protected(ds, names):
    out = ds.copy(deepcopy=True)
    cols = [ds.feature_names.index(n) for n in names]
    out.protected_attribute_names = list(names)
    out.protected_attributes = ds.features[:, cols].copy()
    out.privileged_protected_attributes = [np.array([1.0]) for _ in names]
    out.unprivileged_protected_attributes = [np.array([0.0]) for _ in names]
    return out

names = list(t_sg.protected_attribute_names)
train_p = with_protected(train, names)
rw = Reweighing(unprivileged_groups=subgroup, privileged_groups=rest).fit(train_p)
train_rw = rw.transform(train_p)

clf_rw = LogisticRegression(max_iter=2000).fit(scaler.transform(train.features), train.labels.ravel(),
                                               sample_weight=train_rw.instance_weights)
p_rw = t_sg.copy()
p_rw.labels = clf_rw.predict(scaler.transform(test.features)).reshape(-1, 1)
after = ClassificationMetric(t_sg, p_rw, privileged_groups=subgroup, unprivileged_groups=rest)
pd.DataFrame({"statistical parity (rest - subgroup)": [cm.statistical_parity_difference(),
                                                       after.statistical_parity_difference()],
              "accuracy": [cm.accuracy(), after.accuracy()]}, index=["before", "after Reweighing"])
"""),
    md("""
## The ASDF paper's figures on the FairVis COMPAS predictions

The ASDF paper analyses the COMPAS predictions shipped with FairVis: favourable label 0 (no recidivism within two
years), entropy threshold 0.65, categorical columns `c_charge_degree`, `race`, `sex`, SLINK with k = 30.
"""),
    code("""
fv = pd.read_csv(DATA / "compas" / "fairvis_compas_out.csv")
X = fv.drop(columns=["out", "class"])
rep = detect_subgroups(X, fv["class"], fv["out"], pos_label=0, clustering="slink", n_clusters=30,
                       entropy_threshold=0.65, categorical_features=["c_charge_degree", "race", "sex"],
                       random_state=0)
rep.summary()
"""),
    code("""
import matplotlib.pyplot as plt

fig = plt.figure(figsize=(13, 4.5))
plot_summary_radar(rep, ax=fig.add_subplot(1, 3, 1, projection="polar"))
plot_subgroup_sizes(rep, ax=fig.add_subplot(1, 3, 2))
plot_ranking(rep, "statistical_parity", n=5, direction="disadvantaged", ax=fig.add_subplot(1, 3, 3))
fig.tight_layout()
"""),
    code("""
rep.pattern_info().sort_values("size", ascending=False).head(10)
"""),
    md("""
## From `detect_subgroups` to AIF360

`rep.to_aif360(X, y_true, y_pred, kind, id)` turns a discovered subgroup into AIF360's terms without building a
dataset by hand: two `BinaryLabelDataset`s (truth and predictions) whose protected attribute `subgroup` is
membership (1 = in it), the subgroup as `unprivileged_groups` and the rest as `privileged_groups`. Features and
the description keep the table's own names (`race=African-American`, never `race=0.0`). AIF360's differences
are unprivileged minus privileged, i.e. subgroup minus rest: the report's values times `sg.sign` (-1).
"""),
    code("""
top_fv = rep.findings().query("direction == 'disadvantaged'").iloc[0]
sg = rep.to_aif360(X, fv["class"], fv["out"], top_fv["kind"], top_fv["id"])
print(f"subgroup: {sg.description} ({sg.size:,} rows)")
print("features:", sg.dataset.feature_names[:6], "...")
cm_fv = ClassificationMetric(sg.dataset, sg.classified_dataset, unprivileged_groups=sg.unprivileged_groups,
                             privileged_groups=sg.privileged_groups)
ours = rep.subgroup_metrics(ci=None).loc[(top_fv["kind"], top_fv["id"])]
print("AIF360 statistical parity difference (subgroup - rest):", round(cm_fv.statistical_parity_difference(), 6))
print("report's statistical parity (rest - subgroup):          ", round(ours["statistical_parity"], 6))
assert np.isclose(cm_fv.statistical_parity_difference(), sg.sign * ours["statistical_parity"])
assert np.isclose(cm_fv.equal_opportunity_difference(), sg.sign * ours["equal_opportunity"])
"""),
    code("""
# AIF360's Reweighing takes the same group dicts: the subgroup gets the weights that balance its favourable rate
rw_fv = Reweighing(unprivileged_groups=sg.unprivileged_groups, privileged_groups=sg.privileged_groups)
weights = rw_fv.fit_transform(sg.dataset).instance_weights
inside = sg.dataset.protected_attributes.ravel() == 1.0
favourable = sg.dataset.labels.ravel() == sg.dataset.favorable_label
pd.DataFrame({"rows": [int((inside & favourable).sum()), int((inside & ~favourable).sum())],
              "weight": [weights[inside & favourable][0], weights[inside & ~favourable][0]]},
             index=["subgroup, favourable truth", "subgroup, unfavourable truth"]).round(3)
"""),
    md("""
The same analysis from the command line, with an HTML report:

```bash
aif360-subjective subgroups fairvis_compas_out.csv --label-col class --prediction-col out --favorable-label 0 \\
    --n-clusters 30 --categorical c_charge_degree race sex --out compas_subgroups.html
```
"""),
]


def write(name: str, cells: list) -> Path:
    nb = new_notebook(cells=cells)
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i:02d}"  # stable ids: regenerating gives the same file
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    path = HERE / name
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return path


NOTEBOOKS = {
    "01_opinion_exclusion.ipynb": OPINION,
    "02_crowdtruth_filtering.ipynb": CROWDTRUTH,
    "03_subgroup_discovery_compas.ipynb": SUBGROUPS,
    "04_perspectivist_real_data.ipynb": PERSPECTIVIST,
    "05_whose_opinions_are_excluded.ipynb": EXCLUDED,
}

if __name__ == "__main__":
    for name, cells in NOTEBOOKS.items():
        print("wrote", write(name, cells))
