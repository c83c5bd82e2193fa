"""The pattern miner's counting kernel against the machine's AND + popcount rate: G (row, pattern) tests per second
per core.

A test is one row checked for one candidate (a pattern extended by one item): counting P patterns against I items
over ``rows`` rows is ``P x I x rows`` tests, ``P x I x rows / 64`` word ANDs and popcounts. Three ways are timed on
random bitsets, after checking that they give the same counts:

* **numpy-naive**: the miner's form before the kernel, ``np.bitwise_count(a[:, None, :] & b[None]).sum(axis=2)``
  over blocks of patterns whose (patterns, items, words) temporary holds 32 MB;
* **numpy-blocked**: :func:`~aif360_subjective.detectors.bitset_counts.and_counts` with ``kernel="numpy"``
  (tiles of patterns x 256 words against every item, a 256 KB temporary);
* **numba**: the same with ``kernel="numba"`` (compiled loops over the same tiles); and once more with 3 class
  bitsets (``support + 3 classes``: each test then yields 4 counts, as the max-T's class counts would).

Each runs at three sizes of its input: **L1** (16 patterns x 48 items x 4,096 rows: 32 KB), **L2** (64 x 64 x
65,536 rows: 1 MB) and **memory** (256 x 16 x 4,000,000 rows: 128 MB of patterns, above the L3 cache).
``ceiling`` is this machine's rate for the loop alone: AND + popcount of two 2 KB word arrays that stay in L1,
summed (Numba), the fused C figure of issue 42 measured here. Rates are per core: thread CPU time (the best of 3
runs of at least 0.2 s each), so other work on a shared machine slows them less than wall time would.

Usage: ``python benchmarks/counting_kernel.py [--quick]`` (``--quick``: no memory-sized block).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aif360_subjective.detectors.bitset_counts import and_counts, kernel_name  # noqa: E402

#: The fused C kernel's in-cache rate of issue 42 (per core, L1, AVX-512): tests per second.
C_FIGURE = 1.4e11
SIZES = {  # name: (patterns, items, rows)
    "L1": (16, 48, 4_096),
    "L2": (64, 64, 65_536),
    "memory": (256, 16, 4_000_000),
}


def naive(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The miner's count before the kernel: one (block, items, words) temporary of at most 32 MB per block."""
    block = max(1, 32 * 2**20 // max(1, b.size * 8))
    out = np.empty((len(a), len(b)), dtype=np.int64)
    for s0 in range(0, len(a), block):
        out[s0:s0 + block] = np.bitwise_count(a[s0:s0 + block, None, :] & b[None, :, :]).sum(axis=2)
    return out


def ways(a: np.ndarray, b: np.ndarray, k: np.ndarray) -> dict[str, Callable[[], object]]:
    """The timed ways of counting ``a`` against ``b`` (and the classes ``k``)."""
    return {
        "numpy-naive": lambda: naive(a, b),
        "numpy-blocked": lambda: and_counts(a, b, kernel="numpy"),
        "numba": lambda: and_counts(a, b, kernel="numba"),
        "numba, support + 3 classes": lambda: and_counts(a, b, k, kernel="numba"),
    }


def cpu_rate(fn: Callable[[], object], tests: float, min_seconds: float = 0.2) -> float:
    """Tests per CPU second of this thread: the best of 3 runs of enough calls to last ``min_seconds``."""
    fn()  # warm: compile, caches
    t0 = time.thread_time()
    fn()
    once = max(time.thread_time() - t0, 1e-6)
    calls = max(1, int(min_seconds / once))
    best = float("inf")
    for _ in range(3):
        t0 = time.thread_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.thread_time() - t0) / calls)
    return tests / best


def ceiling() -> float:
    """Tests per second of the AND + popcount loop alone over two 256-word (2 KB) arrays in L1 (Numba)."""
    from numba import njit

    from aif360_subjective.detectors._bitset_counts_numba import _and_count

    @njit(nogil=True)
    def loop(x: np.ndarray, y: np.ndarray, reps: int) -> int:
        total = 0
        for _ in range(reps):
            total += _and_count(x, y)
        return total

    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 2**64, (2, 256), dtype=np.uint64)
    reps = 20_000
    return cpu_rate(lambda: loop(x, y, reps), reps * 256 * 64.0)


def cpu_flags() -> str:
    """What the CPU offers for this loop (Linux: /proc/cpuinfo), e.g. ``AVX-512 with VPOPCNTDQ``."""
    try:
        flags = next((ln.split(":", 1)[1].split() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                      if ln.startswith("flags")), [])
        model = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                      if ln.startswith("model name")), "unknown CPU")
    except OSError:
        return "unknown CPU"
    simd = ("AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2")
    simd += " with VPOPCNTDQ" if "avx512_vpopcntdq" in flags else " without VPOPCNTDQ"
    return f"{model}, {simd}, POPCNT {'yes' if 'popcnt' in flags else 'no'}"


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True, cwd=Path(__file__).resolve().parents[1]).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="L1 and L2 blocks only")
    args = ap.parse_args(argv)
    print(f"# Counting kernel (commit {git_commit()}; {os.cpu_count()} cores; {cpu_flags()}; "
          f"auto kernel: {kernel_name('auto')})")
    top = ceiling()
    print(f"ceiling here (AND + popcount loop, 2 x 2 KB in L1): {top / 1e9:.0f} G tests/s per core; "
          f"issue 42's fused C figure: {C_FIGURE / 1e9:.0f} G")
    rng = np.random.default_rng(0)
    header = f"{'block':>7} {'patterns x items x rows':>24} {'way':>26} {'G tests/s':>10} {'of C fig.':>10} " \
             f"{'of ceiling':>10}"
    print(header)
    for name, (p, i, rows) in SIZES.items():
        if args.quick and name == "memory":
            continue
        words = -(-rows // 64)
        a = rng.integers(0, 2**64, (p, words), dtype=np.uint64)
        b = rng.integers(0, 2**64, (i, words), dtype=np.uint64)
        k = rng.integers(0, 2**64, (3, words), dtype=np.uint64)
        expected = naive(a, b)
        for kernel in ("numpy", "numba"):  # the same counts before anything is timed
            assert np.array_equal(and_counts(a, b, kernel=kernel)[:, :, 0], expected), kernel
        assert np.array_equal(and_counts(a, b, k, kernel="numpy"), and_counts(a, b, k, kernel="numba"))
        tests = float(p * i * words * 64)
        for way, fn in ways(a, b, k).items():
            rate = cpu_rate(fn, tests)
            print(f"{name:>7} {f'{p} x {i} x {rows:,}':>24} {way:>26} {rate / 1e9:10.1f} "
                  f"{rate / C_FIGURE:10.0%} {rate / top:10.0%}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
