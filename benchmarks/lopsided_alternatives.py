"""Cost of the report's comparison of other clusterers when a clustering is lopsided.

``report.sections.lopsided_alternatives`` runs kmeans, birch (and ward up to 10,000 rows) at the clustering's
number of clusters, on a seeded sample of ``ALTERNATIVES_SAMPLE_ROWS`` (5,000) rows past that size. This
measures it next to the subgroup discovery itself, on the FairVis COMPAS predictions (automatic k) and on
Adult's training file (k=10, random predictions at 80 % accuracy; single linkage chains there).

    AIF360_SUBJECTIVE_DATA=/work/shared/data python benchmarks/lopsided_alternatives.py [--adult]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from aif360_subjective.detectors import detect_subgroups  # noqa: E402
from aif360_subjective.report.sections import lopsided_alternatives, share_text  # noqa: E402

ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
                 "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
                 "income"]


def run(name: str, X: pd.DataFrame, y: np.ndarray, p: np.ndarray, n_clusters: int | None) -> None:
    t = time.perf_counter()
    rep = detect_subgroups(X, y, p, n_clusters=n_clusters, random_state=0, discovery="asdf")
    detect = time.perf_counter() - t
    t = time.perf_counter()
    alt = lopsided_alternatives(rep, X, y, p)
    compare = time.perf_counter() - t
    lop = rep.lopsided
    print(f"{name}: {len(X):,} rows, k={rep.n_clusters}, largest cluster {share_text(lop['largest_share'])}, "
          f"{lop['tiny_clusters']} tiny, lopsided={lop['lopsided']}; detect_subgroups {detect:.1f} s, "
          f"alternatives {compare:.1f} s")
    if isinstance(alt, pd.DataFrame):
        print(alt[["n_found", "fairness_separation", "largest_share", "tiny_clusters", "lopsided", "seconds"]]
              .to_string(float_format="{:.3f}".format))
        print("suggestion:", alt.attrs.get("suggestion"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--adult", action="store_true", help="also Adult (single linkage there takes minutes)")
    args = parser.parse_args()
    data = Path(os.environ.get("AIF360_SUBJECTIVE_DATA", "data"))
    warnings.simplefilter("ignore")
    df = pd.read_csv(data / "compas" / "fairvis_compas_out.csv")
    run("COMPAS (FairVis)", df.drop(columns=["out", "class"]), (df["class"] == 0).to_numpy(int),
        (df["out"] == 0).to_numpy(int), None)
    if args.adult:
        ad = pd.read_csv(data / "adult" / "adult.data", header=None, names=ADULT_COLUMNS, skipinitialspace=True)
        y = (ad["income"] == ">50K").to_numpy(int)
        p = np.where(np.random.default_rng(0).random(len(y)) < 0.8, y, 1 - y)
        run("Adult (train)", ad.drop(columns=["income"]), y, p, 10)


if __name__ == "__main__":
    main()
