"""Cells of notebook 04 (perspectivist evaluation on real data); ``make_notebooks.py`` writes the notebook.

Every statement about results is printed by a code cell from the numbers it computes (or asserted), never
written in the markdown.
"""

from __future__ import annotations

from nbformat.v4 import new_code_cell, new_markdown_cell


def md(text: str):
    return new_markdown_cell(text.strip())


def code(text: str):
    return new_code_cell(text.strip())


DATA_DIR = '''import os
import warnings
from pathlib import Path

# The data folder: $AIF360_SUBJECTIVE_DATA, else ../shared/data beside the checkout, else ~/aif360_subjective_data.
candidates = [os.environ.get("AIF360_SUBJECTIVE_DATA"), "../../shared/data", "../shared/data",
              "~/aif360_subjective_data"]
DATA = next((Path(c).expanduser() for c in candidates if c and Path(c).expanduser().is_dir()), None)
print("data folder:", DATA)

# Every section reads published real data; without it the notebook stops here and says where to get it.
WHERE = {
    "lewidi2023": "LeWiDi 2023 (HS-Brexit, MD-Agreement): https://github.com/Le-Wi-Di/le-wi-di.github.io",
    "popquorn": "POPQUORN: https://github.com/Jiaxin-Pei/Potato-Prolific-Dataset (offensiveness raw_data.csv)",
    "csc": "LeWiDi 2025 CSC: https://github.com/Le-Wi-Di/le-wi-di.github.io (folder LeWiDi_3-2025)",
}
missing = [name for name in WHERE if DATA is None or not (DATA / name).is_dir()]
if missing:
    raise FileNotFoundError(
        "this notebook evaluates on published real data; missing folder(s) "
        + ", ".join(f"{name}/ ({WHERE[name]})" for name in missing)
        + ": put them in a data folder and set AIF360_SUBJECTIVE_DATA to it"
    )'''

PERSPECTIVIST = [
    md("""
# Perspectivist evaluation on real data: beyond the majority vote

A majority vote turns several annotators' views into one label, and a model trained on it is scored against
that label only. This notebook evaluates on **real annotator-level data** instead:

1. **HS-Brexit** (LeWiDi 2023): 6 annotators, 3 from the target group of the hate speech (Muslim immigrants in
   the UK) and 3 controls. How well does the majority vote represent each group, under each tie policy?
2. **POPQUORN**: offensiveness ratings (1-5) by a US-representative sample; opinion exclusion by education,
   race, gender and age.
3. **MD-Agreement** (LeWiDi 2023): opinion exclusion by the annotators' disagreement rate (ADR) groups.
4. **CSC** (LeWiDi 2025): ordinal sarcasm ratings (1-6); soft-label scores (Wasserstein, Manhattan,
   cross-entropy) and per-annotator scores of simple models.
5. **Juries** (Gordon et al., 2022): what a gender-balanced jury decides, compared with the plain majority.
"""),
    code(DATA_DIR),
    code("""
import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from aif360_subjective.datasets import LeWiDiDataset, PopquornDataset
from aif360_subjective.metrics import OpinionExclusionMetric, jury_verdicts
from aif360_subjective.metrics.group_own_labels import group_own_label_performance
from aif360_subjective.opinion.groups import group_label   # group names as the reports write them (0.02–0.16)
from aif360_subjective.metrics.perspectivist import soft_labels_from_dataset
from aif360_subjective.sklearn.metrics import (
    annotator_error_rate,
    manhattan_distance,
    normalized_absolute_distance,
    soft_cross_entropy,
    wasserstein_distance,
)


def pct(x):
    return f"{100 * x:.1f}%"
"""),
    md("""
## 1. HS-Brexit: whose view does the majority vote keep?

The 2023 files give each annotator's group in `other_info`; the loader makes it the annotator attribute
`group` with the names the file gives (`target group`, published as `group1`; `control group`, published as
`group2`; the codes in `metadata["group_names"]`). Item ids are
prefixed with their split because the keys restart in every split file.
"""),
    code("""
hs = LeWiDiDataset(DATA / "lewidi2023" / "HS-Brexit")
summary = hs.item_summary(tie="drop")
n_ties = int(summary["majority_label"].isna().sum())
print(f"{hs.n_items} items, {hs.n_annotators} annotators, groups {hs.annotators['group'].to_dict()}")
print(f"group names: {hs.metadata['group_names']}")
print(f"{n_ties} of {hs.n_items} items are 3-3 ties: the tie policy decides whose view wins on them.")
"""),
    md("""
The "model" here is the majority vote itself (the target a majority-trained model learns). For each tie
policy we score it against each group's **own** labels: against every annotation of the group
(`against="annotations"`), and against the group's own majority (`against="majority"`: 3 annotators, never
tied).
"""),
    code("""
groups = hs.annotators["group"].reindex(pd.Index(hs.annotator_ids)).to_numpy()
rows = []
for tie in ("favorable", "unfavorable", "drop"):
    mv = hs.majority_labels(tie=tie)
    keep = ~np.isnan(mv)
    for against in ("annotations", "majority"):
        res = group_own_label_performance(hs.labels.ravel()[keep], mv[keep], item_ids=hs.item_ids[keep],
                                          groups=groups[keep], against=against)
        perf = res.table["performance"]
        rows.append({"tie": tie, "against": against, "target group": perf["target group"],
                     "control group": perf["control group"], "gap": res.gap, "worst": res.worst_group,
                     "items scored": int(keep.sum())})
brexit = pd.DataFrame(rows).set_index(["tie", "against"])
brexit.round(4)
"""),
    code("""
# On the tied items only: how does each group label them?
tied = summary.index[summary["majority_label"].isna()]
on_tie = pd.Index(hs.item_ids).isin(tied)  # rows of the tied items
share_hs = pd.Series(hs.labels.ravel()[on_tie]).groupby(groups[on_tie]).mean()
for g, s in share_hs.items():
    print(f"on the {n_ties} tied items, the {g} labels {pct(s)} as hate speech")
for tie in ("favorable", "unfavorable"):
    r = brexit.loc[(tie, "annotations")]
    better = "target" if r["target group"] > r["control group"] else "control"
    print(f"tie -> {tie} label: the majority vote agrees with {pct(r['target group'])} of the target group's "
          f"labels and {pct(r['control group'])} of the control group's: the {better} group is served better "
          f"(gap {pct(r['gap'])}).")
"""),
    md("""
## 2. POPQUORN: opinion exclusion by demographics

One row per rating; the label is a stated binary view (rating >= 3 = offensive), the 1-5 rating stays in
`annotation_info["rating"]`. A simple model (TF-IDF + logistic regression on the majority vote of 70% of the
items) predicts the other 30%; `OpinionExclusionMetric(grouping="demographic")` scores it against each
annotator's own labels, per group, with 95% bootstrap intervals (annotators resampled within each group, then
their ratings; 500 replicates to keep the notebook fast) and the groups of fewer than 5 annotators named.
"""),
    code("""
pq = PopquornDataset(DATA / "popquorn")
print(f"{len(pq.item_ids)} ratings, {pq.n_items} items, {pq.n_annotators} annotators; "
      f"missing demographics: {pq.metadata['n_missing_attributes']}")
train, test = pq.split([0.7], shuffle=True, seed=0)
mv = train.item_summary()["majority_label"]
vec = TfidfVectorizer(min_df=2, sublinear_tf=True)
clf = LogisticRegression(max_iter=1000).fit(vec.fit_transform(train.items.loc[mv.index, "text"]), mv.to_numpy())
test_items = test.items.index
pred = test.with_predictions(pd.Series(clf.predict(vec.transform(test.items["text"])), index=test_items))
rows, tables = [], {}
for attribute in ("education", "race", "gender", "age"):
    with warnings.catch_warnings():  # thin groups are listed in the next cell instead
        warnings.simplefilter("ignore", UserWarning)
        m = OpinionExclusionMetric(test, pred, grouping="demographic", attributes=attribute)
    gp = m.group_performance(ci=0.95, n_boot=500, random_state=0)
    low, high = m.unfairness_ci(n_boot=500, random_state=0)
    tables[attribute] = gp
    rows.append({"attribute": attribute, "groups": len(gp), "unfairness (std)": m.unfairness(),
                 "unfairness 95% low": low, "unfairness 95% high": high,
                 "performance (mean)": m.performance(), "worst group": gp["performance"].idxmin(),
                 "worst": gp["performance"].min(), "best group": gp["performance"].idxmax(),
                 "best": gp["performance"].max()})
popquorn = pd.DataFrame(rows).set_index("attribute")
popquorn.round(4)
"""),
    code("""
top = popquorn["unfairness (std)"].idxmax()
low_top = popquorn.loc[top, "unfairness 95% low"]
others_high = popquorn.drop(index=top)["unfairness 95% high"]
print(f"The largest unfairness is across {top} groups ({popquorn.loc[top, 'unfairness (std)']:.4f}, 95% interval "
      f"[{low_top:.4f}, {popquorn.loc[top, 'unfairness 95% high']:.4f}]); the smallest across "
      f"{popquorn['unfairness (std)'].idxmin()} groups ({popquorn['unfairness (std)'].min():.4f}).")
clear = list(others_high.index[others_high < low_top])
print("Its interval lies above the intervals of " + (", ".join(clear) if clear else "none of the other attributes")
      + (": only there is the larger unfairness clear of sampling noise." if clear else
         ": the ranking of the attributes is within sampling noise."))
small = tables[top][tables[top]["n_annotators"] < 5]
print(f"{len(small)} of the {len(tables[top])} {top} group(s) have fewer than 5 annotators in the test split "
      f"({list(small.index)}): their means are noisy.")
tables[top].round(3)
"""),
    md("""
## 3. MD-Agreement: opinion exclusion by ADR group

The paper's grouping: annotators binned by their average disagreement rate with the majority vote. A TF-IDF
logistic regression is trained on the majority vote of the train split and scored on the test split (the split
of Leonardelli et al., 2021). Groups with fewer than 5 annotators are merged into their neighbour.
"""),
    code("""
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # test item 2038 lists Ann448 twice: reported in metadata
    md_train = LeWiDiDataset(DATA / "lewidi2023" / "MD-Agreement", split="train")
    md_test = LeWiDiDataset(DATA / "lewidi2023" / "MD-Agreement", split="test")
print(f"test split: {md_test.n_items} items, {md_test.n_annotators} annotators; repeated pairs dropped: "
      f"{md_test.metadata['n_repeated_annotations']}")
mv = md_train.item_summary()["majority_label"]
vec = TfidfVectorizer(min_df=2, ngram_range=(1, 2), sublinear_tf=True)
clf = LogisticRegression(max_iter=1000, C=4).fit(vec.fit_transform(md_train.items.loc[mv.index, "text"]),
                                                 mv.to_numpy())
md_pred = md_test.with_predictions(pd.Series(clf.predict(vec.transform(md_test.items["text"])),
                                             index=md_test.items.index))
m = OpinionExclusionMetric(md_test, md_pred, grouping="adr", bins=5, min_group_size=5)
md_groups = m.group_performance()
print(f"unfairness {m.unfairness():.4f}, performance {m.performance():.4f}")
md_groups.round(3)
"""),
    code("""
from aif360_subjective.report.answer import opinion_answer

# the answer block of the command line and the HTML report: the worst-served ADR group with its interval
print(opinion_answer({"TF-IDF model": m}, n_boot=300).text())
"""),
    code("""
perf = md_groups["performance"].to_numpy()
low, high = group_label(md_groups.index[0]), group_label(md_groups.index[-1])
print(f"Accuracy against the annotators' own labels falls from {pct(perf[0])} in the lowest-ADR group {low} "
      f"to {pct(perf[-1])} in the highest {high}.")
assert np.all(np.diff(perf) <= 0), "the claim above needs performance to fall with the ADR"
"""),
    md("""
## 4. CSC: soft-label and per-annotator scores on an ordinal scale

CSC ratings are 1-6 (ordinal; the binary view needs a threshold, here `positive_from=4`, and the raw rating
stays in `annotation_info["raw_label"]`). Two simple models predict a rating distribution per test item:
the dev split's overall distribution (a constant), and a TF-IDF multinomial logistic regression trained on
the dev annotations. LeWiDi 2025 scores CSC with the Wasserstein distance (Task A) and the normalised absolute
distance of per-annotator predictions (Task B; `S` = 6 scale points as the official scorer, `S` = 5 = the
range for comparison).
"""),
    code("""
dev = LeWiDiDataset(DATA / "csc", split="dev", positive_from=4)
test = LeWiDiDataset(DATA / "csc", split="test", positive_from=4)
scale = list(range(1, 7))
t_dev = soft_labels_from_dataset(dev, "raw_label", scale)
t_test = soft_labels_from_dataset(test, "raw_label", scale)
constant = pd.DataFrame(np.tile(t_dev.mean().to_numpy(), (len(t_test), 1)), index=t_test.index,
                        columns=t_test.columns)
text = lambda ds: ds.items["context"] + " " + ds.items["response"]  # noqa: E731
vec = TfidfVectorizer(min_df=2, sublinear_tf=True)
y_dev = dev.annotation_info["raw_label"].astype(int).to_numpy()
clf = LogisticRegression(max_iter=2000).fit(vec.fit_transform(text(dev).loc[dev.item_ids]), y_dev)
model = pd.DataFrame(clf.predict_proba(vec.transform(text(test).loc[t_test.index])), index=t_test.index,
                     columns=[float(c) for c in clf.classes_])
csc_a = pd.DataFrame({name: {"wasserstein": wasserstein_distance(t_test, p),
                             "manhattan": manhattan_distance(t_test, p),
                             "cross-entropy": soft_cross_entropy(t_test, p)}
                      for name, p in (("dev distribution", constant), ("tf-idf LR", model))}).T
csc_a.round(4)
"""),
    code("""
y_test = test.annotation_info["raw_label"].astype(float).to_numpy()
expected = pd.Series(model.to_numpy() @ np.arange(1, 7), index=model.index).loc[test.item_ids].to_numpy()
# annotator-aware: shift the item's expected rating by the annotator's mean offset on dev (0 if unseen)
offset = (pd.Series(y_dev, index=dev.annotator_ids).groupby(level=0).mean() - y_dev.mean())
shift = offset.reindex(pd.Index(test.annotator_ids)).fillna(0.0).to_numpy()
preds = {"item rating for all": np.clip(np.rint(expected), 1, 6),
         "annotator offset": np.clip(np.rint(expected + shift), 1, 6)}
csc_b = pd.DataFrame({name: {"NAD (S=6, scorer)": normalized_absolute_distance(y_test, yp, item_ids=test.item_ids,
                                                                                scale_size=6),
                             "NAD (S=5, range)": normalized_absolute_distance(y_test, yp, item_ids=test.item_ids,
                                                                               scale_size=5),
                             "error rate (exact rating)": annotator_error_rate(y_test, yp, item_ids=test.item_ids)}
                      for name, yp in preds.items()}).T
seen = float(np.isin(test.annotator_ids, dev.annotator_ids).mean())
print(f"{pct(seen)} of the test annotations are by annotators seen in dev.")
csc_b.round(4)
"""),
    code("""
better = csc_a["wasserstein"].idxmin()
print(f"Task A: the {better} scores the lower Wasserstein distance "
      f"({csc_a.loc[better, 'wasserstein']:.4f} vs {csc_a['wasserstein'].max():.4f}).")
b = csc_b["NAD (S=6, scorer)"]
print(f"Task B: normalised absolute distance {b.iloc[0]:.4f} ({b.index[0]}) vs {b.iloc[1]:.4f} ({b.index[1]}); "
      f"exact-rating error rate {csc_b.iloc[0, 2]:.4f} vs {csc_b.iloc[1, 2]:.4f}.")
"""),
    md("""
## 5. Juries: a gender-balanced jury instead of whoever annotated

`jury_verdicts` samples, per item, juries of 4 POPQUORN annotators (2 women, 2 men) among those who rated the
item, takes each jury's majority (a 2-2 split goes to the favourable label, "not offensive", like the
majority vote's default), and compares the median verdict of 100 juries with the plain majority vote. Items
without 2 women and 2 men among their annotators are skipped and counted.
"""),
    code("""
jury = jury_verdicts(pq, pq, {"gender": {"Woman": 0.5, "Man": 0.5}}, jury_size=4, n_juries=100,
                     random_state=0, on_shortfall="skip")
print(f"{len(jury.items)} items judged, {jury.n_skipped} skipped (fewer than 2 women or 2 men), seats {jury.seats}")
print(f"The jury's verdict differs from the plain majority vote on {pct(jury.share_changed)} of the items "
      f"(Gordon et al. report 14% of outcomes changed on their data).")
jury.items["verdict_share"].describe().round(3)
"""),
]
