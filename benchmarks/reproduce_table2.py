"""Reproduce the Table-2 setting of Balayn et al. (2019) on real multi-annotator data.

Models (Table 2): Model 1 = MajorityVoteClassifier (logistic regression on item features trained on
majority-vote labels, one prediction per item, broadcast to its annotators); Model 2 =
AnnotatorAwareClassifier (logistic regression on item features + annotator demographics, trained on the
individual annotations).
Both tuned by 5-fold cross-validation (LogisticRegressionCV, cv=5); evaluated by 5-fold CV over items,
each held-out fold balanced by majority-vote label (the paper's "balanced evaluation dataset").
Reported: unfairness (std across ADR groups of the mean per-annotator accuracy) and general
performance (mean across groups), mean +- std over the folds, plus the ADR-group table of fold 0.

Data:
* MultiPICo (LeWiDi 2025 JSON) from ``$AIF360_SUBJECTIVE_DATA/multipico`` (default ../shared/data), read by
  ``LeWiDiDataset``. Item features: TF-IDF character n-grams of post + reply reduced to 50 SVD components,
  and the language. Annotator demographics: age group, gender, ethnicity, student and employment status
  ("DATA_EXPIRED" / "Prefer not to say" = missing).
* Wikipedia toxicity (the paper's data), read by ``WikipediaTalkDataset`` when the full files are in
  ``wikipedia_talk/``: word TF-IDF of the comments (50 SVD components), year and logged_in; demographics.

``--min-group-size`` (default 1, the paper's method) drops ADR groups with fewer annotators: on small held-out
folds the top ADR bins hold one or two annotators and their noise dominates the std.

Usage: python benchmarks/reproduce_table2.py [--data DIR] [--folds 5] [--seed 0] [--min-group-size 1]
"""

from __future__ import annotations

import argparse
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

from aif360_subjective.algorithms.inprocessing import AnnotatorAwareClassifier, MajorityVoteClassifier  # noqa: E402
from aif360_subjective.datasets import LeWiDiDataset, MultiAnnotatorDataset, WikipediaTalkDataset  # noqa: E402
from aif360_subjective.metrics import OpinionExclusionMetric  # noqa: E402


def _lr():
    return LogisticRegressionCV(Cs=[0.01, 0.1, 1.0, 10.0], cv=5, max_iter=2000)


def with_text_features(ds: MultiAnnotatorDataset, text: pd.Series, categorical: pd.DataFrame,
                       annotators: pd.DataFrame, n_components: int = 50, seed: int = 0,
                       analyzer: str = "char_wb") -> MultiAnnotatorDataset:
    """``ds`` re-built with item features = TF-IDF n-grams of ``text`` reduced by SVD (+ ``categorical``)."""
    ngrams = (2, 4) if analyzer == "char_wb" else (1, 2)
    tfidf = TfidfVectorizer(analyzer=analyzer, ngram_range=ngrams, min_df=3, max_features=50_000, sublinear_tf=True)
    svd = TruncatedSVD(n_components=n_components, random_state=seed).fit_transform(tfidf.fit_transform(text))
    items = pd.DataFrame(svd, columns=[f"svd{j}" for j in range(n_components)], index=text.index)
    items = items.join(categorical)
    long = ds.to_dataframe()[[ds.item_col, ds.annotator_col, ds.label_col]]
    return MultiAnnotatorDataset(long, item_col=ds.item_col, annotator_col=ds.annotator_col, label_col=ds.label_col,
                                 annotators=annotators, items=items, favorable_label=ds.favorable_label,
                                 unfavorable_label=ds.unfavorable_label, item_features=list(items.columns))


def load_multipico(folder: Path, n_components: int = 50, seed: int = 0) -> MultiAnnotatorDataset:
    """MultiPICo dev + test through LeWiDiDataset, with text features and age groups."""
    ds = LeWiDiDataset(folder)
    text = ds.items["post"].fillna("") + " \n " + ds.items["reply"].fillna("")
    demo = ds.annotators
    age = pd.to_numeric(demo["Age"], errors="coerce")
    annotators = pd.DataFrame(
        {
            "age_group": pd.cut(age, [0, 30, 45, 60, 120], labels=["18-30", "31-45", "46-60", "60+"]).astype(object),
            "gender": demo["Gender"],
            "ethnicity": demo["Ethnicity simplified"],
            "student": demo["Student status"],
            "employment": demo["Employment status"],
        },
        index=demo.index,
    )
    return with_text_features(ds, text, ds.items[["lang"]], annotators, n_components, seed)


def load_wikipedia(folder: Path, n_components: int = 50, seed: int = 0) -> MultiAnnotatorDataset:
    """Wikipedia toxicity (the paper's data) with word TF-IDF features of the comments."""
    ds = WikipediaTalkDataset("toxicity", data_dir=folder)
    cols = ["gender", "english_first_language", "age_group", "education"]
    return with_text_features(ds, ds.items["comment"].fillna(""), ds.items[["year", "logged_in"]].astype(float),
                              ds.annotators[cols], n_components, seed, analyzer="word")


def balanced_items(ds: MultiAnnotatorDataset, rng: np.random.Generator) -> np.ndarray:
    """Row positions of a label-balanced subset of ds's items (by majority vote, ties dropped)."""
    summary = ds.item_summary(tie="drop")
    mv = summary["majority_label"]
    pos, neg = mv.index[mv == 1].to_numpy(), mv.index[mv == 0].to_numpy()
    k = min(len(pos), len(neg))
    keep = np.concatenate([rng.choice(pos, k, replace=False), rng.choice(neg, k, replace=False)])
    return np.flatnonzero(np.isin(ds.item_ids, keep))


def run(ds: MultiAnnotatorDataset, name: str, folds: int, seed: int, min_group_size: int = 1) -> None:
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
        pred1 = MajorityVoteClassifier(_lr()).fit(train).predict(test)
        pred2 = AnnotatorAwareClassifier(_lr()).fit(train).predict(test)
        for model, pred in (("Model 1", pred1), ("Model 2", pred2)):
            m = OpinionExclusionMetric(test, pred, bins=5, min_group_size=min_group_size, small_groups="drop")
            results[model].append((m.unfairness(), m.performance(), m.accuracy()))
            if f == 0:
                first_tables[model] = m.group_performance()
    elapsed = time.perf_counter() - t0
    print(f"\n== {name}: {ds.n_items} items, {len(ds.labels)} annotations, {ds.n_annotators} annotators; "
          f"{folds}-fold CV over items, balanced held-out folds, min_group_size={min_group_size} ({elapsed:.0f} s)")
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
    ap.add_argument("--min-group-size", type=int, default=1)
    args = ap.parse_args()
    data = Path(args.data)

    mp = data / "multipico"
    if (mp / "MP_dev.json").exists():
        run(load_multipico(mp, seed=args.seed), "MultiPICo (dev + test)", args.folds, args.seed, args.min_group_size)
    else:
        print(f"MultiPICo not found in {mp}: skipped")

    wiki = data / "wikipedia_talk"
    needed = ["toxicity_annotated_comments.tsv", "toxicity_annotations.tsv", "toxicity_worker_demographics.tsv"]
    if all((wiki / f).exists() for f in needed):
        run(load_wikipedia(wiki, seed=args.seed), "Wikipedia toxicity", args.folds, args.seed, args.min_group_size)
    else:
        missing = [f for f in needed if not (wiki / f).exists()]
        print(f"\nWikipedia toxicity (the paper's data): full files not in {wiki} (missing {missing}): skipped")


if __name__ == "__main__":
    main()
