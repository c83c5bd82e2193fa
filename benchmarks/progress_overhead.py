"""What progress costs: ``detect_subgroups(discovery="patterns")`` and its findings (the max-T) with progress off,
with tqdm's bars and with the plain lines, on the planted-slice tables of ``scale_patterns.py`` (8 categorical
and 2 numeric columns).

The reporter is updated once per mining level and once per batch of 50 permutations, so its cost does not grow
with the rows; the table shows the seconds of each way (the best of ``--repeat`` runs, interleaved so that load
on a shared machine hits each alike), the difference from progress off, and whether the findings and adjusted
p-values are identical. The bars and lines go to a discarded stream.

Usage: ``python benchmarks/progress_overhead.py [--rows 20000 100000] [--permutations 200] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aif360_subjective import _progress as progress  # noqa: E402
from aif360_subjective.detectors import detect_subgroups  # noqa: E402


def run(X, t, p, n_permutations: int, way: str):
    """Seconds of one analysis and its findings, and what they were."""
    sink = io.StringIO()
    patch = contextlib.nullcontext()
    if way == "plain":  # the fallback without tqdm, a line per update (its most talkative)
        patch = _plain()
    with contextlib.redirect_stderr(sink), patch:
        t0 = time.perf_counter()
        rep = detect_subgroups(X, t, p, discovery="patterns", n_permutations=n_permutations, random_state=0,
                               progress=way != "off")
        found = rep.findings()
        seconds = time.perf_counter() - t0
    return seconds, found, rep.significance.max_t().p_adjusted


@contextlib.contextmanager
def _plain():
    saved, interval = progress.reporter_for, progress.PLAIN_INTERVAL
    progress.PLAIN_INTERVAL = 0.0
    progress.reporter_for = lambda asked: progress.PlainReporter() if asked else progress.NO_PROGRESS
    try:
        yield
    finally:
        progress.reporter_for, progress.PLAIN_INTERVAL = saved, interval


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[20_000, 100_000])
    ap.add_argument("--permutations", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from scale_patterns import table

    ways = ("off", "tqdm", "plain")
    print(f"{'rows':>9}  {'way':<6} {'seconds':>8} {'vs off':>8}  identical")
    for n in args.rows:
        b = table(n)
        best = dict.fromkeys(ways, float("inf"))
        out = {}
        for _ in range(args.repeat):
            for way in ways:
                seconds, found, p_adj = run(b.X, b.y_true, b.y_pred, args.permutations, way)
                best[way] = min(best[way], seconds)
                out[way] = (found, p_adj)
        for way in ways:
            same = out[way][0].equals(out["off"][0]) and np.array_equal(out[way][1], out["off"][1], equal_nan=True)
            print(f"{n:>9,}  {way:<6} {best[way]:>8.2f} {best[way] - best['off']:>+8.2f}  {same}")


if __name__ == "__main__":
    main()
