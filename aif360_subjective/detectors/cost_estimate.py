"""What a pattern analysis will cost in memory, said before it runs, and a refusal when the machine has not got it.

Measured on 200,000 rows x 10 columns (8 categorical of 4 levels, 2 numeric; 110 frequent items, 66,957 patterns,
B = 200; ``benchmarks/million_rows.py --profile``) the memory is, after the table itself:

* per row: the items' codes (4 bytes per column), their sparse indicator (5 bytes per item a row satisfies), the
  frequent items' bitsets (1 bit per item) and the permuted 0/1 columns of the max-T batches in flight (1 bit per
  row, permutation of a batch and count, packed: ``4 x BATCH x (WORKERS + 1) / 8`` bytes);
* per candidate: the max-T's batch of counts, z values and statistics (about ``20 x BATCH x 8`` bytes), its
  description, counts and metrics (about 1 KB).

Nothing is of size rows x candidates (:mod:`.mining.pattern_bits`, :mod:`.mining.cell_counts`,
:mod:`.error_control.row_permutations`). The estimate is checked twice: before mining, with the candidates at
their bound (``max_patterns``); and after it, with the patterns found, before any count or permutation.

The memory the machine has is read from ``/proc/meminfo`` (``MemAvailable``), else from ``os.sysconf``; where
neither answers nothing is refused. The environment variable ``AIF360_SUBJECTIVE_MEMORY_LIMIT`` (bytes, e.g.
``2e9``) overrides it: a smaller budget than the machine's on a shared machine, or a tiny one in tests.

References:
    R. Agrawal and R. Srikant, "Fast algorithms for mining association rules", VLDB 1994 (the candidates'
    number bounded by the frequent items).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["MEMORY_LIMIT_ENV", "Cost", "available_memory", "estimate_cost", "check_cost"]

#: The environment variable that sets the memory budget in bytes (overrides what the machine reports).
MEMORY_LIMIT_ENV = "AIF360_SUBJECTIVE_MEMORY_LIMIT"
#: Bytes per candidate of the max-T's state and the report's tables (see the module's docstring).
BYTES_PER_CANDIDATE = 20 * 50 * 8 + 1024
#: CPU seconds per (row, column set, permutation) of the cell counts and per (candidate, permutation) of the
#: max-T's statistics, measured on a 2-core machine (rough: the estimate says how long, not to the second).
SECONDS_PER_ROW_SET_PERMUTATION = 1.2e-9
SECONDS_PER_CANDIDATE_PERMUTATION = 4e-7


@dataclass(frozen=True)
class Cost:
    """An analysis' estimated peak memory (bytes, beside the table the caller holds) and CPU seconds."""

    memory: float
    seconds: float

    def text(self) -> str:
        """``"about 1.1 GB and 90 CPU seconds"``."""
        return f"about {self.memory / 1e9:.2g} GB and {self.seconds:.2g} CPU seconds"


def estimate_cost(n_rows: int, n_columns: int, item_entries: int, n_items: int, n_candidates: int,
                  n_permutations: int, column_sets: int, batch: int = 50, workers: int = 2) -> Cost:
    """The memory and time of a pattern analysis (see the module's docstring for the model).

    Args:
        n_rows, n_columns: the table's.
        item_entries: rows x items satisfied (the items' indicator's entries).
        n_items: the frequent items.
        n_candidates: the patterns (or their bound).
        n_permutations: B.
        column_sets: the column sets the patterns use (the cell counts' passes over the rows).
        batch, workers: the max-T's batch and batches in flight.
    """
    per_row = 4.0 * n_columns + n_items / 8.0 + 4.0 * batch * (workers + 1) / 8.0  # permuted columns: bits
    memory = n_rows * per_row + 5.0 * item_entries + n_candidates * float(BYTES_PER_CANDIDATE)
    seconds = n_permutations * (n_rows * column_sets * SECONDS_PER_ROW_SET_PERMUTATION
                                + n_candidates * SECONDS_PER_CANDIDATE_PERMUTATION)
    return Cost(memory, seconds)


def available_memory() -> float | None:
    """Bytes the analysis may use: ``AIF360_SUBJECTIVE_MEMORY_LIMIT`` when set, else the machine's available memory
    (``/proc/meminfo``, else ``os.sysconf``), else None (unknown: nothing is refused).

    Raises:
        ValueError: the environment variable is not a positive number.
    """
    raw = os.environ.get(MEMORY_LIMIT_ENV)
    if raw is not None:
        try:
            limit = float(raw)
        except ValueError:
            limit = -1.0
        if not limit > 0:
            raise ValueError(f"{MEMORY_LIMIT_ENV} must be a positive number of bytes (e.g. 2e9), got {raw!r}")
        return limit
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024.0
    except OSError:
        pass
    try:
        return float(os.sysconf("SC_AVPHYS_PAGES")) * float(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def check_cost(cost: Cost, what: str) -> None:
    """Refuse an analysis whose estimate exceeds :func:`available_memory`.

    Args:
        cost: the estimate.
        what: what was counted (``"200,000 rows and at most 200,000 patterns"``), said in the message.

    Raises:
        ValueError: the estimate exceeds the memory available, naming the options that lower it.
    """
    limit = available_memory()
    if limit is None or cost.memory <= limit:
        return
    raise ValueError(
        f"this pattern analysis of {what} needs {cost.text()}, more than the {limit / 1e9:.2g} GB available "
        f"({MEMORY_LIMIT_ENV} if set, else the machine's free memory): lower max_patterns, raise min_support, lower "
        "n_bins (fewer range conditions), or pass Dask collections to count it per partition")
