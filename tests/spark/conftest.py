"""Spark fixtures: one local SparkSession for the whole run (the JVM starts once).

``local[2]`` with few shuffle partitions and the UI off. Without a Java runtime the Spark tests are skipped with
the reason, except under ``CI=true``, where ``.ci/run`` installs Java and they must run (a failure, not a skip).
"""

from __future__ import annotations

import os

import pytest

pyspark = pytest.importorskip("pyspark", reason="the [spark] extra is not installed (pip install '.[spark]')")

from aif360_subjective._spark import JAVA_HINT, java_path, local_session  # noqa: E402


@pytest.fixture(scope="session")
def spark():
    if java_path() is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and no Java runtime: .ci/run should have installed one ({JAVA_HINT})")
        pytest.skip(f"no Java runtime for Spark: {JAVA_HINT}")
    session = local_session("local[2]", **{"spark.sql.shuffle.partitions": "4", "spark.default.parallelism": "2",
                                           "spark.driver.memory": "1g"})
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
