"""Reproduce the Table-2 setting of Balayn et al. (2019) on real multi-annotator data.

Models (Table 2): Model 1 = logistic regression on item features trained on majority-vote labels
(one prediction per item, broadcast to its annotators); Model 2 = AnnotatorAwareClassifier (logistic
regression on item features + annotator demographics, trained on the individual annotations).
Both tuned by 5-fold cross-validation (LogisticRegressionCV, cv=5); evaluated by 5-fold CV over items,
each held-out fold balanced by majority-vote label (the paper's "balanced evaluation dataset").
Reported: unfairness (std across ADR groups of the mean per-annotator accuracy) and general
performance (mean across groups), mean +- std over the folds, plus the ADR-group table of fold 0.

Data:
* MultiPICo (LeWiDi 2025 JSON) from ``$AIF360_SUBJECTIVE_DATA/multipico`` (default ../shared/data).
  ``aif360_subjective.datasets.LeWiDiDataset`` is not on main yet, so the JSON files are read here
  directly. Item features: TF-IDF character n-grams of post + reply reduced to 50 SVD components, and
  the language. Annotator demographics: age group, gender, ethnicity, student and employment status
  ("DATA_EXPIRED" / "Prefer not to say" = missing).
* Wikipedia toxicity (the paper's data): only when the full files are in ``wikipedia_talk/``.

Usage: python benchmarks/reproduce_table2.py [--data DIR] [--folds 5] [--max-items N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn.decomposition import TruncatedSVD  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegressionCV  # noqa: E402

from aif360_subjective.algorithms.inprocessing import AnnotatorAwareClassifier  # noqa: E402
from aif360_subjective.datasets import MultiAnnotatorDataset  # noqa: E402
from aif360_subjective.metrics import OpinionExclusionMetric  # noqa: E402

MISSING = {"DATA_EXPIRED", "Prefer not to say", "CONSENT_REVOKED", ""}


def _lr():
    return LogisticRegressionCV(Cs=[0.01, 0.1, 1.0, 10.0], cv=5, max_iter=2000)


def load_multipico(folder: Path, n_components: int = 50, seed: int = 0) -> MultiAnnotatorDataset:
    records, texts = [], {}
    for split in ("dev", "test"):
        data = json.loads((folder / f"MP_{split}.json").read_text(encoding="utf-8"))
        for item_id, rec in data.items():
            key = f"{split}:{item_id}"
            texts[key] = (rec["text"]["post"] + " \n " + rec["text"]["reply"], rec.get("lang", "na"))
            for ann, lab in rec["annotations"].items():
                records.append((key, ann, int(float(lab))))
    ann_df = pd.DataFrame(records, columns=["item", "annotator", "label"])
    keys = list(texts)
    tfidf = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), min_df=3, max_features=50_000, sublinear_tf=True)
    x = tfidf.fit_transform([texts[k][0] for k in keys])
    svd = TruncatedSVD(n_components=n_components, random_state=seed).fit_transform(x)
    items = pd.DataFrame(svd, columns=[f"svd{j}" for j in range(n_components)], index=pd.Index(keys, name="item"))
    items["lang"] = [texts[k][1] for k in keys]

    meta = json.loads((folder / "MP_annotators_meta.json").read_text(encoding="utf-8"))
    demo = pd.DataFrame.from_dict(meta, orient="index")
    demo.index = [f"Ann{k}" for k in demo.index]
    demo = demo.replace(list(MISSING), np.nan)
    age = pd.to_numeric(demo["Age"], errors="coerce")
    demographics = pd.DataFrame(
        {
            "age_group": pd.cut(age, [0, 30, 45, 60, 120], labels=["18-30", "31-45", "46-60", "60+"]).astype(object),
            "gender": demo["Gender"],
            "ethnicity": demo["Ethnicity simplified"],
            "student": demo["Student status"],
            "employment": demo["Employment status"],
        },
        index=pd.Index(demo.index, name="annotator"),
    )
    return MultiAnnotatorDataset(
        ann_df,
        annotators=demographics,
        items=items,
        favorable_label=0,
        unfavorable_label=1,
        item_features=[*items.columns[:-1], "lang"],
    )


def balanced_items(ds: MultiAnnotatorDataset, rng: np.random.Generator) -> np.ndarray:
    """Row positions of a label-balanced subset of ds's items (by majority vote, ties dropped)."""
    summary = ds.item_summary(tie="drop")
    mv = summary["majority_label"]
    pos, neg = mv.index[mv == 1].to_numpy(), mv.index[mv == 0].to_numpy()
    k = min(len(pos), len(neg))
    keep = np.concatenate([rng.choice(pos, k, replace=False), rng.choice(neg, k, replace=False)])
    return np.flatnonzero(np.isin(ds.item_ids, keep))


def run(ds: MultiAnnotatorDataset, name: str, folds: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    parts = ds.split(folds, shuffle=True, seed=seed)
    results = {"Model 1": [], "Model 2": []}
    first_tables = {}
    t0 = time.perf_counter()
    for f in range(folds):
        train_rows = np.concatenate(
            [np.flatnonzero(np.isin(ds.item_ids, np.unique(parts[g].item_ids))) for g in range(folds) if g != f]
        )
        train = ds.subset(np.sort(train_rows))
        test = parts[f].subset(balanced_items(parts[f], rng))
        mv = train.majority_vote()
        m1 = _lr().fit(mv.features, mv.labels.ravel())
        item_idx = [test.feature_names.index(c) for c in test.item_feature_names]
        pred1 = test.with_predictions(m1.predict(test.features[:, item_idx]))
        pred2 = AnnotatorAwareClassifier(_lr()).fit(train).predict(test)
        for model, pred in (("Model 1", pred1), ("Model 2", pred2)):
            m = OpinionExclusionMetric(test, pred, bins=5)
            results[model].append((m.unfairness(), m.performance(), m.accuracy()))
            if f == 0:
                first_tables[model] = m.group_performance()
    elapsed = time.perf_counter() - t0
    print(f"\n== {name}: {ds.n_items} items, {len(ds.labels)} annotations, {ds.n_annotators} annotators; "
          f"{folds}-fold CV over items, balanced held-out folds ({elapsed:.0f} s)")
    print(f"{'':10} {'unfairness':>18} {'general performance':>22} {'pooled accuracy':>18}")
    for model, vals in results.items():
        v = np.array(vals)
        print(f"{model:10} {v[:, 0].mean():>10.3f} +- {v[:, 0].std():.3f} {v[:, 1].mean():>14.3f} +- "
              f"{v[:, 1].std():.3f} {v[:, 2].mean():>10.3f} +- {v[:, 2].std():.3f}")
    print("Paper (Wikipedia toxicity): Model 1 unfairness 0.07, performance 0.68; Model 2 0.04, 0.68")
    for model, table in first_tables.items():
        print(f"\n{model}, fold 0, ADR groups:\n{table.to_string()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default = os.environ.get("AIF360_SUBJECTIVE_DATA", str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--data", default=default)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    data = Path(args.data)

    mp = data / "multipico"
    if (mp / "MP_dev.json").exists():
        run(load_multipico(mp, seed=args.seed), "MultiPICo (dev + test)", args.folds, args.seed)
    else:
        print(f"MultiPICo not found in {mp}: skipped")

    wiki = data / "wikipedia_talk"
    needed = ["toxicity_annotated_comments.tsv", "toxicity_annotations.tsv", "toxicity_worker_demographics.tsv"]
    if all((wiki / f).exists() for f in needed):
        try:
            from aif360_subjective.datasets import WikipediaTalkDataset
        except ImportError:
            print("Wikipedia toxicity files found but WikipediaTalkDataset is not available yet: skipped")
        else:
            print("Wikipedia toxicity: the loader gives no item features for logistic regression here; "
                  "add a text representation before running this setting")
            del WikipediaTalkDataset
    else:
        missing = [f for f in needed if not (wiki / f).exists()]
        print(f"\nWikipedia toxicity (the paper's data): full files not in {wiki} (missing {missing}): skipped")


if __name__ == "__main__":
    main()
