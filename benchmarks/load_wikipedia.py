"""Benchmark: loading the Wikipedia Talk toxicity release at full scale.

Writes synthetic files in the exact published format (159,686 comments, 1,598,289 annotations, 4,301
workers of whom 3,591 have demographics; float ``rev_id`` in the annotations file, ``NEWLINE_TOKEN`` /
``TAB_TOKEN`` in the comments) to a temporary folder, then times, each in a fresh process (so peak memory is
that of the step alone):

* ``tables``: :func:`load_wikipedia_talk_tables` (the three files read and checked);
* ``dataset``: :class:`WikipediaTalkDataset` (files read + MultiAnnotatorDataset built);
* peer ``pandas notebook``: the reading code of the publishers' getting-started notebook
  (``pd.read_csv(..., sep='\\t', index_col=0)`` and a per-row ``apply`` to undo the newline tokens).

Usage: ``python benchmarks/load_wikipedia.py [--scale 1.0] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

N_COMMENTS = 159_686
N_ANNOTATIONS = 1_598_289
N_WORKERS = 4_301
N_WITH_DEMOGRAPHICS = 3_591

WORDS = np.array(
    "the a of to and is you this that it not for on are be your have with as article page please talk "  # noqa: SIM905
    "wikipedia edit source was by if do can an or what about user i me my we will just like don't why "
    "NEWLINE_TOKEN NEWLINE_TOKEN TAB_TOKEN \"quoted\" stupid idiot thanks good sources vandalism".split()
)


def write_release(folder: Path, scale: float = 1.0, seed: int = 0) -> dict[str, int]:
    """Write toxicity_{annotated_comments,annotations,worker_demographics}.tsv in the published format."""
    rng = np.random.default_rng(seed)
    n_c, n_a = int(N_COMMENTS * scale), int(N_ANNOTATIONS * scale)
    n_w, n_d = max(int(N_WORKERS * scale), 20), max(int(N_WITH_DEMOGRAPHICS * scale), 10)
    candidates = np.unique(rng.integers(30_000, 700_000_000, size=n_c + n_c // 10 + 10))
    rev_id = np.sort(rng.choice(candidates, size=n_c, replace=False))
    lengths = rng.integers(5, 120, size=n_c)  # ~60 words: about the release's 60 MB of text
    words = WORDS[rng.integers(0, len(WORDS), size=int(lengths.sum()))]
    cuts = np.cumsum(lengths)[:-1]
    comments = pd.DataFrame({
        "rev_id": rev_id,
        "comment": [" ".join(w) for w in np.split(words, cuts)],
        "year": rng.integers(2001, 2017, size=n_c),
        "logged_in": rng.random(n_c) < 0.7,
        "ns": np.where(rng.random(n_c) < 0.6, "user", "article"),
        "sample": np.where(rng.random(n_c) < 0.5, "random", "blocked"),
        "split": rng.choice(np.array(["train", "dev", "test"]), size=n_c, p=[0.6, 0.2, 0.2]),
    })
    comments.to_csv(folder / "toxicity_annotated_comments.tsv", sep="\t", index=False)

    # ~10 distinct workers per comment, as in the release
    item = np.sort(rng.integers(0, n_c, size=n_a))
    worker = rng.integers(0, n_w, size=n_a)
    pairs = pd.DataFrame({"i": item, "w": worker}).drop_duplicates()
    while len(pairs) < n_a:  # replace the few repeated (comment, worker) pairs
        extra = pd.DataFrame({"i": rng.integers(0, n_c, n_a - len(pairs)),
                              "w": rng.integers(0, n_w, n_a - len(pairs))})
        pairs = pd.concat([pairs, extra]).drop_duplicates()
    pairs = pairs.sort_values("i", kind="stable")
    score = rng.choice(np.array([-2.0, -1.0, 0.0, 1.0, 2.0]), size=n_a, p=[0.03, 0.07, 0.6, 0.2, 0.1])
    pd.DataFrame({
        "rev_id": rev_id[pairs["i"].to_numpy()].astype(np.float64),  # written as 182449647.0
        "worker_id": pairs["w"].to_numpy(),
        "toxicity": (score < 0).astype(int),
        "toxicity_score": score,
    }).to_csv(folder / "toxicity_annotations.tsv", sep="\t", index=False)

    wid = np.sort(rng.choice(n_w, size=n_d, replace=False))
    age = rng.choice(np.array(["18-30", "30-45", "45-60", "Under 18", "Over 60", ""]), size=n_d,
                     p=[0.52, 0.35, 0.08, 0.02, 0.01, 0.02])
    pd.DataFrame({
        "worker_id": wid,
        "gender": rng.choice(np.array(["male", "female", "other"]), size=n_d, p=[0.648, 0.3517, 0.0003]),
        "english_first_language": (rng.random(n_d) < 0.19).astype(int),
        "age_group": age,
        "education": rng.choice(np.array(["bachelors", "hs", "masters", "professional", "some", "doctorate",
                                          "none"]), size=n_d),
    }).to_csv(folder / "toxicity_worker_demographics.tsv", sep="\t", index=False)
    return {"comments": n_c, "annotations": n_a, "workers": int(pairs["w"].nunique()), "demographics": n_d}


CHILD = r"""
import json, sys, time
what, folder = sys.argv[1], sys.argv[2]
import pandas as pd
from aif360_subjective.datasets.wikipedia_talk import WikipediaTalkDataset, load_wikipedia_talk_tables

def status(key):  # kB lines of /proc/self/status; VmHWM = peak resident memory of this process
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":")) / 1024

base = status("VmRSS")
t0 = time.perf_counter()
if what == "tables":
    t = load_wikipedia_talk_tables("toxicity", data_dir=folder)
    rows = len(t.annotations)
elif what == "dataset":
    ds = WikipediaTalkDataset("toxicity", data_dir=folder)
    rows = len(ds.labels)
else:  # the publishers' getting-started notebook
    comments = pd.read_csv(f"{folder}/toxicity_annotated_comments.tsv", sep="\t", index_col=0)
    annotations = pd.read_csv(f"{folder}/toxicity_annotations.tsv", sep="\t")
    demographics = pd.read_csv(f"{folder}/toxicity_worker_demographics.tsv", sep="\t")
    comments["comment"] = comments["comment"].apply(lambda x: x.replace("NEWLINE_TOKEN", " "))
    comments["comment"] = comments["comment"].apply(lambda x: x.replace("TAB_TOKEN", " "))
    rows = len(annotations.merge(demographics, on="worker_id", how="left"))
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "peak_rss_mb": status("VmHWM"), "import_rss_mb": base, "rows": rows}))
"""


def run_child(what: str, folder: Path) -> dict:
    repo = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", CHILD, what, str(folder)], capture_output=True, text=True,
                         cwd=repo, env={"PYTHONPATH": str(repo), "PATH": "/usr/bin:/bin"}, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the release's size")
    parser.add_argument("--keep", type=Path, default=None, help="write the files here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        sizes = write_release(folder, args.scale)
        mb = sum(p.stat().st_size for p in folder.glob("toxicity_*.tsv")) / 2**20
        print(f"wrote {sizes} ({mb:.0f} MB) in {time.perf_counter() - t0:.1f} s\n")
        rows = [("aif360-subjective tables", run_child("tables", folder)),
                ("aif360-subjective WikipediaTalkDataset", run_child("dataset", folder)),
                ("peer: pandas, publishers' notebook", run_child("notebook", folder))]
    print(f"{'step (fresh process each)':42s} {'rows':>9s} {'time s':>7s} {'peak RSS MB':>12s} "
          f"{'RSS after imports MB':>21s} {'peak - imports MB':>18s}")
    for name, r in rows:
        print(f"{name:42s} {r['rows']:9d} {r['seconds']:7.2f} {r['peak_rss_mb']:12.0f} "
              f"{r['import_rss_mb']:21.0f} {r['peak_rss_mb'] - r['import_rss_mb']:18.0f}")


if __name__ == "__main__":
    main()
