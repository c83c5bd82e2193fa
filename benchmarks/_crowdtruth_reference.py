"""Run the authors' CrowdTruth package (crowdtruth 2.1) on a long annotation table.

Runs in its own venv (crowdtruth 2.1 needs pandas 1.5.3 and numpy 1.26), called as a subprocess by
``benchmarks/crowdtruth.py``:

    /work/venv-bench-crowdtruth/bin/python benchmarks/_crowdtruth_reference.py IN.csv OUT_DIR \
        [--labels a,b,c] [--open-ended] [--sep "|"]

IN.csv has columns unit, worker, label; with --sep a label cell may hold several labels joined by
that separator (multiple choice). Metrics.run is called directly on vectors built as the package's
loader builds them (label counts; closed tasks get every label of the annotation vector). Writes
units.csv, workers.csv, annotations.csv and meta.json (seconds, iterations) to OUT_DIR.
"""

import argparse
import json
import logging
import sys
import time
from collections import Counter
from pathlib import Path

# This folder holds benchmarks/crowdtruth.py, which would shadow the package of the same name.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import pandas as pd  # noqa: E402
from crowdtruth.models.metrics import Metrics  # noqa: E402


class _Config:
    def __init__(self, open_ended: bool):
        self.output = {"label": "label"}
        self.open_ended_task = open_ended


class _CountIterations(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.n = 0

    def emit(self, record):
        if "iterations; max d=" in record.getMessage():
            self.n += 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("input")
    p.add_argument("out")
    p.add_argument("--labels", default=None)
    p.add_argument("--open-ended", action="store_true")
    p.add_argument("--sep", default=None)
    a = p.parse_args()
    df = pd.read_csv(a.input, dtype=str)
    labels = a.labels.split(",") if a.labels else sorted(
        {x for cell in df["label"] for x in (cell.split(a.sep) if a.sep else [cell])}
    )

    def vector(cell):
        c = Counter(cell.split(a.sep) if a.sep else [cell])
        if not a.open_ended:
            for lab in labels:
                c.setdefault(lab, 0)
        return c

    judgments = pd.DataFrame({"unit": df["unit"], "worker": df["worker"], "label": df["label"].map(vector)})
    agg = {}
    for unit, vec in zip(judgments["unit"], judgments["label"]):
        agg.setdefault(unit, Counter()).update(vec)
    units = pd.DataFrame({"label": pd.Series(agg)})
    if not a.open_ended:
        for c in units["label"]:
            for lab in labels:
                c.setdefault(lab, 0)
    results = {
        "judgments": judgments,
        "units": units,
        "workers": pd.DataFrame(index=sorted(df["worker"].unique())),
        "annotations": pd.DataFrame(index=labels),
    }
    handler = _CountIterations()
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    root.addHandler(handler)
    t0 = time.perf_counter()
    results = Metrics.run(results, _Config(a.open_ended))
    seconds = time.perf_counter() - t0
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    u = results["units"]
    uas = pd.DataFrame(list(u["unit_annotation_score"]), index=u.index).add_prefix("uas_")
    uas0 = pd.DataFrame(list(u["unit_annotation_score_initial"]), index=u.index).add_prefix("uas_initial_")
    pd.concat([u[["uqs", "uqs_initial"]], uas, uas0], axis=1).to_csv(out / "units.csv", index_label="unit")
    results["workers"].to_csv(out / "workers.csv", index_label="worker")
    results["annotations"].to_csv(out / "annotations.csv", index_label="annotation")
    (out / "meta.json").write_text(json.dumps({"seconds": seconds, "iterations": handler.n}))


if __name__ == "__main__":
    main()
