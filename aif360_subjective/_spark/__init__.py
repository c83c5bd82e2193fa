"""Shared helpers of the Spark back ends (optional extra ``[spark]``).

The back ends live beside what they parallelise: ``detectors._spark`` (subgroup discovery) and
``opinion._spark`` (the opinion-exclusion metrics). Their faces test the input with :func:`is_spark_dataframe`,
which never imports PySpark itself (an object can only be a Spark DataFrame if PySpark is already imported), and
import the back end only then.

* :func:`local_session`: the local ``SparkSession`` the command line starts (``--engine spark --master ...``),
  after checking that a Java runtime is there (:func:`check_java`: PySpark 4 needs Java 17 or later).
* :func:`check_workers`: every Python worker must import this package at the driver's version (the tasks are
  this package's functions, unpickled on the executors); one tiny ``mapInPandas`` asks each of a few partitions,
  so a worker without it is named in one clear error instead of a deserialisation failure deep in a task.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any

from .._workers import judge_worker_answers

__all__ = ["INSTALL_HINT", "JAVA_HINT", "check_java", "check_workers", "is_spark_column", "is_spark_dataframe",
           "local_session", "require_spark"]

INSTALL_HINT = "pip install 'aif360-subjective[spark]'"
#: How to install the Java runtime PySpark 4 needs.
JAVA_HINT = ("install a Java 17 (or later) runtime, e.g. `apt-get install openjdk-17-jre-headless` on Debian/Ubuntu "
             "or `brew install openjdk@17` on macOS, or point JAVA_HOME at one")


def is_spark_dataframe(*objs: Any) -> bool:
    """Whether any of ``objs`` is a Spark DataFrame (without importing PySpark)."""
    if "pyspark" not in sys.modules:
        return False
    from pyspark.sql import DataFrame

    return any(isinstance(o, DataFrame) for o in objs)


def is_spark_column(*objs: Any) -> bool:
    """Whether any of ``objs`` is a Spark Column (without importing PySpark)."""
    if "pyspark" not in sys.modules:
        return False
    from pyspark.sql import Column

    return any(isinstance(o, Column) for o in objs)


def require_spark() -> None:
    """Import PySpark's SQL module or raise an ImportError naming the ``[spark]`` extra."""
    try:
        import pyspark.sql  # noqa: F401
    except ImportError as err:  # pragma: no cover - exercised only without the extra
        raise ImportError(f"the Spark back end needs pyspark: {INSTALL_HINT}") from err


def java_path() -> str | None:
    """The ``java`` executable Spark would start: ``$JAVA_HOME/bin/java`` when JAVA_HOME is set, else the one on
    the PATH; None when there is none."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = os.path.join(home, "bin", "java")
        return candidate if os.path.exists(candidate) else None
    return shutil.which("java")


def check_java() -> None:
    """Raise a RuntimeError with the install command when no Java runtime is found (before Spark tries to start
    one and fails with a gateway error)."""
    if java_path() is None:
        where = f"JAVA_HOME={os.environ['JAVA_HOME']!r} has no bin/java" if os.environ.get("JAVA_HOME") else \
            "no `java` on the PATH"
        raise RuntimeError(f"Spark needs a Java runtime and none was found ({where}): {JAVA_HINT}")


def local_session(master: str = "local[*]", app_name: str = "aif360-subjective", **conf: str) -> Any:
    """A ``SparkSession`` on ``master`` (the command line's: ``--master``), the UI off, Arrow on; ``conf`` adds
    Spark settings (``{"spark.executor.memory": "2g"}``).

    Raises:
        ImportError: PySpark is not installed.
        RuntimeError: no Java runtime (:func:`check_java`).
    """
    require_spark()
    check_java()
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master(master).appName(app_name)
               .config("spark.ui.enabled", "false")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true"))
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


_CHECKED: set[tuple[str, str]] = set()  # (application id, master) already probed


def check_workers(session: Any, probes: int | None = None) -> None:
    """Make sure the session's Python workers import this package at the driver's version.

    A tiny ``mapInPandas`` over ``probes`` partitions (default: the session's default parallelism) returns each
    worker's answer: the version it imports or its import error. The probe function is nested, so cloudpickle
    sends it by value and it runs without the package. A session that passed is not probed again.

    Raises:
        RuntimeError: naming the hosts whose workers cannot import the package (with their error) or run another
            version, and what to install.
    """
    __version__ = str(sys.modules[__name__.split(".")[0]].__version__)
    sc = session.sparkContext
    key = (str(sc.applicationId), str(sc.master))
    if key in _CHECKED:
        return
    root = __name__.split(".")[0]

    def probe(batches: Any) -> Any:  # nested: sent by value, imports only pandas and the standard library
        import importlib
        import socket

        import pandas as pd

        for _ in batches:
            pass
        try:
            status, msg = "ok", str(importlib.import_module(root).__version__)
        except Exception as err:  # noqa: BLE001 (any import failure is the answer)
            status, msg = "error", f"{type(err).__name__}: {err}"
        yield pd.DataFrame({"host": [socket.gethostname()], "status": [status], "msg": [msg]})

    n = int(probes or max(1, sc.defaultParallelism))
    rows = session.range(0, n, 1, n).mapInPandas(probe, "host string, status string, msg string").collect()
    judge_worker_answers(((r["host"], r["status"], r["msg"]) for r in rows), __version__, noun="Spark worker host(s)",
                         home="driver", where="executor", hint=INSTALL_HINT, fallback="run Spark locally")
    _CHECKED.add(key)
