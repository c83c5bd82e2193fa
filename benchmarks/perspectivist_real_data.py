"""Perspectivist evaluation on the shared real data: reproduction numbers and timings.

Prints the tables of notebook 04 (HS-Brexit per-group accuracy of the majority vote under each tie policy;
POPQUORN opinion exclusion by education, race, gender, age; MD-Agreement ADR groups; CSC soft-label and
per-annotator scores of simple models; a gender-balanced jury on POPQUORN) and times, best of --repeat runs:

* the loaders (LeWiDi 2023 HS-Brexit / MD-Agreement / ConvAbuse, CSC, POPQUORN);
* ``wasserstein_distance`` (closed form over CDFs, all items at once) vs ``scipy.stats.wasserstein_distance``
  called per item (the peer), on the CSC test soft labels; the values are compared;
* ``annotator_error_rate`` vs a pandas ``groupby`` of the same formula;
* ``jury_verdicts`` (vectorised sampling) vs a per-item Python loop with ``Generator.choice`` (the peer), on
  POPQUORN, 100 juries of 4.

Usage: AIF360_SUBJECTIVE_DATA=../shared/data python benchmarks/perspectivist_real_data.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import best_of  # noqa: E402

from aif360_subjective.datasets import LeWiDiDataset, PopquornDataset  # noqa: E402
from aif360_subjective.metrics import OpinionExclusionMetric, jury_verdicts  # noqa: E402
from aif360_subjective.metrics.group_own_labels import group_own_label_performance  # noqa: E402
from aif360_subjective.metrics.perspectivist import (  # noqa: E402
    annotator_error_rate,
    manhattan_distance,
    normalized_absolute_distance,
    soft_cross_entropy,
    soft_labels_from_dataset,
    wasserstein_distance,
)


def quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def hs_brexit(data: Path) -> pd.DataFrame:
    hs = LeWiDiDataset(data / "lewidi2023" / "HS-Brexit")
    n_ties = int(hs.item_summary(tie="drop")["majority_label"].isna().sum())
    print(f"HS-Brexit: {hs.n_items} items, {n_ties} 3-3 ties")
    groups = hs.annotators["group"].reindex(pd.Index(hs.annotator_ids)).to_numpy()
    rows = []
    for tie in ("favorable", "unfavorable", "drop"):
        mv = hs.majority_labels(tie=tie)
        keep = ~np.isnan(mv)
        for against in ("annotations", "majority"):
            res = group_own_label_performance(hs.labels.ravel()[keep], mv[keep], item_ids=hs.item_ids[keep],
                                              groups=groups[keep], against=against)
            perf = res.table["performance"]
            rows.append({"tie": tie, "against": against, "target_group1": perf["target group"],
                         "control_group2": perf["control group"], "gap": res.gap})
    return pd.DataFrame(rows).set_index(["tie", "against"])


def popquorn(data: Path) -> tuple[pd.DataFrame, PopquornDataset]:
    pq = PopquornDataset(data / "popquorn")
    train, test = pq.split([0.7], shuffle=True, seed=0)
    mv = train.item_summary()["majority_label"]
    vec = TfidfVectorizer(min_df=2, sublinear_tf=True)
    clf = LogisticRegression(max_iter=1000).fit(vec.fit_transform(train.items.loc[mv.index, "text"]), mv.to_numpy())
    pred = test.with_predictions(pd.Series(clf.predict(vec.transform(test.items["text"])), index=test.items.index))
    rows = []
    for attribute in ("education", "race", "gender", "age"):
        m = OpinionExclusionMetric(test, pred, grouping="demographic", attributes=attribute)
        gp = m.group_performance()["performance"]
        rows.append({"attribute": attribute, "groups": len(gp), "unfairness": m.unfairness(),
                     "performance": m.performance(), "worst": f"{gp.idxmin()} ({gp.min():.3f})",
                     "best": f"{gp.idxmax()} ({gp.max():.3f})"})
    return pd.DataFrame(rows).set_index("attribute"), pq


def md_agreement(data: Path) -> pd.DataFrame:
    tr = quiet(lambda: LeWiDiDataset(data / "lewidi2023" / "MD-Agreement", split="train"))
    te = quiet(lambda: LeWiDiDataset(data / "lewidi2023" / "MD-Agreement", split="test"))
    mv = tr.item_summary()["majority_label"]
    vec = TfidfVectorizer(min_df=2, ngram_range=(1, 2), sublinear_tf=True)
    clf = LogisticRegression(max_iter=1000, C=4).fit(vec.fit_transform(tr.items.loc[mv.index, "text"]), mv.to_numpy())
    pred = te.with_predictions(pd.Series(clf.predict(vec.transform(te.items["text"])), index=te.items.index))
    m = OpinionExclusionMetric(te, pred, grouping="adr", bins=5, min_group_size=5)
    print(f"MD-Agreement test: unfairness {m.unfairness():.4f}, performance {m.performance():.4f}")
    return m.group_performance()


def csc(data: Path):
    dev = LeWiDiDataset(data / "csc", split="dev", positive_from=4)
    test = LeWiDiDataset(data / "csc", split="test", positive_from=4)
    scale = list(range(1, 7))
    t_dev = soft_labels_from_dataset(dev, "raw_label", scale)
    t_test = soft_labels_from_dataset(test, "raw_label", scale)
    const = pd.DataFrame(np.tile(t_dev.mean().to_numpy(), (len(t_test), 1)), index=t_test.index,
                         columns=t_test.columns)

    def text(ds):
        return ds.items["context"] + " " + ds.items["response"]

    vec = TfidfVectorizer(min_df=2, sublinear_tf=True)
    y_dev = dev.annotation_info["raw_label"].astype(int).to_numpy()
    clf = LogisticRegression(max_iter=2000).fit(vec.fit_transform(text(dev).loc[dev.item_ids]), y_dev)
    model = pd.DataFrame(clf.predict_proba(vec.transform(text(test).loc[t_test.index])), index=t_test.index,
                         columns=[float(c) for c in clf.classes_])
    task_a = pd.DataFrame({name: {"wasserstein": wasserstein_distance(t_test, p),
                                  "manhattan": manhattan_distance(t_test, p),
                                  "cross_entropy": soft_cross_entropy(t_test, p)}
                           for name, p in (("dev distribution", const), ("tf-idf LR", model))}).T
    y_test = test.annotation_info["raw_label"].astype(float).to_numpy()
    expected = pd.Series(model.to_numpy() @ np.arange(1, 7), index=model.index).loc[test.item_ids].to_numpy()
    offset = pd.Series(y_dev, index=dev.annotator_ids).groupby(level=0).mean() - y_dev.mean()
    shift = offset.reindex(pd.Index(test.annotator_ids)).fillna(0.0).to_numpy()
    preds = {"item rating for all": np.clip(np.rint(expected), 1, 6),
             "annotator offset": np.clip(np.rint(expected + shift), 1, 6)}
    task_b = pd.DataFrame({name: {"nad_S6": normalized_absolute_distance(y_test, yp, item_ids=test.item_ids,
                                                                         scale_size=6),
                                  "nad_S5": normalized_absolute_distance(y_test, yp, item_ids=test.item_ids,
                                                                         scale_size=5),
                                  "error_rate": annotator_error_rate(y_test, yp, item_ids=test.item_ids)}
                           for name, yp in preds.items()}).T
    return task_a, task_b, t_test, model, test, y_test, preds["item rating for all"]


def naive_jury(ds, attribute, seats, jury_size, n_juries, seed):
    """The peer: a Python loop per item and jury with Generator.choice."""
    rng = np.random.default_rng(seed)
    strata = ds.annotators[attribute].reindex(pd.Index(ds.annotator_ids)).to_numpy()
    labels = ds.labels.ravel()
    frame = pd.DataFrame({"item": ds.item_ids, "s": strata, "y": labels})
    out = {}
    for item, g in frame.groupby("item", sort=False):
        pools = {v: g["y"].to_numpy()[g["s"].to_numpy() == v] for v in seats}
        if any(len(pools[v]) < k for v, k in seats.items()):
            continue
        verdicts = []
        for _ in range(n_juries):
            votes = sum(rng.choice(pools[v], k, replace=False).sum() for v, k in seats.items())
            verdicts.append(1.0 if votes > jury_size / 2 else 0.0)
        out[item] = float(np.mean(verdicts))
    return pd.Series(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    data = Path(os.environ.get("AIF360_SUBJECTIVE_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
    pd.set_option("display.width", 160)

    print("== HS-Brexit: accuracy of the majority vote against each group's own labels ==")
    print(hs_brexit(data).round(4).to_string(), "\n")
    print("== POPQUORN: opinion exclusion (TF-IDF LR on 70% of items' majority vote, scored on 30%) ==")
    table, pq = popquorn(data)
    print(table.round(4).to_string(), "\n")
    print("== MD-Agreement: ADR groups (test split) ==")
    print(md_agreement(data).round(4).to_string(), "\n")
    print("== CSC: soft-label (Task A) and per-annotator (Task B) scores ==")
    task_a, task_b, t_test, model, test, y_test, item_pred = csc(data)
    print(task_a.round(4).to_string())
    print(task_b.round(4).to_string(), "\n")
    jury = jury_verdicts(pq, pq, {"gender": {"Woman": 0.5, "Man": 0.5}}, jury_size=4, n_juries=100, random_state=0,
                         on_shortfall="skip")
    print(f"== POPQUORN jury (2 women + 2 men, 100 juries): {len(jury.items)} items, {jury.n_skipped} skipped; "
          f"verdict differs from the plain majority vote on {jury.share_changed:.2%} of items ==\n")

    print(f"== timings (best of {args.repeat}) ==")
    rows = []
    for name, fn in [
        ("load HS-Brexit (3 files)", lambda: LeWiDiDataset(data / "lewidi2023" / "HS-Brexit")),
        ("load MD-Agreement (3 files)", lambda: quiet(lambda: LeWiDiDataset(data / "lewidi2023" / "MD-Agreement"))),
        ("load ConvAbuse (3 files)", lambda: quiet(lambda: LeWiDiDataset(data / "lewidi2023" / "ConvAbuse",
                                                                          positive_labels={-3, -2, -1}))),
        ("load CSC (dev+test)", lambda: LeWiDiDataset(data / "csc", positive_from=4)),
        ("load POPQUORN", lambda: PopquornDataset(data / "popquorn")),
    ]:
        sec, ds = best_of(fn, args.repeat)
        rows.append({"task": name, "seconds": sec, "rows": len(ds.item_ids), "note": ""})

    from scipy.stats import wasserstein_distance as scipy_w

    t_arr, p_arr = t_test.to_numpy(), model[t_test.columns].to_numpy()
    x = np.arange(1, 7, dtype=float)
    sec_ours, ours = best_of(lambda: wasserstein_distance(t_arr, p_arr), args.repeat)
    sec_scipy, theirs = best_of(lambda: float(np.mean([scipy_w(x, x, a, b) for a, b in zip(t_arr, p_arr)])),
                                args.repeat)
    rows.append({"task": "wasserstein_distance (CSC test)", "seconds": sec_ours, "rows": len(t_arr),
                 "note": f"value {ours:.6f}"})
    rows.append({"task": "  peer: scipy per item", "seconds": sec_scipy, "rows": len(t_arr),
                 "note": f"value {theirs:.6f}, |diff| {abs(ours - theirs):.1e}, x{sec_scipy / sec_ours:.0f}"})
    sec_er, er = best_of(lambda: annotator_error_rate(y_test, item_pred, item_ids=test.item_ids), args.repeat)
    sec_pd, er_pd = best_of(lambda: float(pd.Series(y_test != item_pred).groupby(test.item_ids).mean().mean()),
                            args.repeat)
    rows.append({"task": "annotator_error_rate (CSC test)", "seconds": sec_er, "rows": len(y_test),
                 "note": f"value {er:.6f}"})
    rows.append({"task": "  peer: pandas groupby", "seconds": sec_pd, "rows": len(y_test),
                 "note": f"value {er_pd:.6f}"})
    seats = {"Woman": 2, "Man": 2}
    sec_j, jr = best_of(lambda: jury_verdicts(pq, pq, {"gender": seats}, jury_size=4, n_juries=100,
                                              random_state=0, on_shortfall="skip"), args.repeat)
    sec_n, naive = best_of(lambda: naive_jury(pq, "gender", seats, 4, 100, 0), 1)
    diff = (jr.items["verdict_share"] - naive.reindex(jr.items.index)).abs()
    rows.append({"task": "jury_verdicts (POPQUORN, 100 juries of 4)", "seconds": sec_j, "rows": len(pq.item_ids),
                 "note": f"{len(jr.items)} items"})
    rows.append({"task": "  peer: Python loop per item and jury", "seconds": sec_n, "rows": len(pq.item_ids),
                 "note": f"{len(naive)} items, x{sec_n / sec_j:.0f}; mean |share diff| {diff.mean():.3f} "
                         "(other random draws)"})
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
