"""UCI Adult read from the publisher's files (``datasets.adult``): small files written here in the exact format,
and the real ones when the shared data folder is there."""

from __future__ import annotations

import pytest

from aif360_subjective.datasets import AdultTable, read_adult_table
from aif360_subjective.datasets.adult import ADULT_FAVORABLE, ADULT_LABEL, ADULT_WEIGHT, adult_columns

NAMES = """| This data was extracted from the census bureau database
>50K, <=50K.

age: continuous.
workclass: Private, Self-emp-not-inc, ?.
fnlwgt: continuous.
sex: Female, Male.
"""
DATA = "39, State-gov, 77516, Male, <=50K\n50, ?, 83311, Female, >50K\n\n"
TEST = "|1x3 Cross validator\n25, Private, 226802, Male, <=50K.\n38, Private, 89814, Female, >50K.\n"


@pytest.fixture
def adult(tmp_path):
    (tmp_path / "adult.names").write_text(NAMES, encoding="utf-8")
    (tmp_path / "adult.data").write_text(DATA, encoding="utf-8")
    (tmp_path / "adult.test").write_text(TEST, encoding="utf-8")
    return tmp_path


def test_columns_from_adult_names(adult):
    assert adult_columns(adult / "adult.names") == ["age", "workclass", "fnlwgt", "sex", ADULT_LABEL]


def test_folder_reads_both_files_as_published(adult):
    table = read_adult_table(adult)
    assert isinstance(table, AdultTable)
    assert [f.name for f in table.files] == ["adult.data", "adult.test"]
    df = table.frame
    assert list(df.columns) == ["age", "workclass", "fnlwgt", "sex", "income"]
    assert len(df) == 4  # the blank line and the cross-validator line are no rows
    # the test file's labels lose their trailing dot; padding spaces are gone; '?' stays a value
    assert df["income"].tolist() == ["<=50K", ">50K", "<=50K", ">50K"]
    assert df["workclass"].tolist() == ["State-gov", "?", "Private", "Private"]
    assert df["age"].tolist() == [39, 50, 25, 38]
    assert (table.label, table.favorable, table.not_attributes) == (ADULT_LABEL, ADULT_FAVORABLE, (ADULT_WEIGHT,))


def test_one_file_is_read_alone(adult):
    table = read_adult_table(adult / "adult.test")
    assert [f.name for f in table.files] == ["adult.test"] and len(table.frame) == 2


def test_missing_files_name_the_file_and_where_to_download(tmp_path, adult):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match=r"no adult.data in .*archive.ics.uci.edu"):
        read_adult_table(empty)
    (adult / "adult.names").unlink()
    with pytest.raises(FileNotFoundError, match=r"adult.names .*download adult.names"):
        read_adult_table(adult)
    (adult / "adult.names").write_text("no attribute lines here\n", encoding="utf-8")
    with pytest.raises(ValueError, match="lists no attribute"):
        read_adult_table(adult)
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        read_adult_table(tmp_path / "absent.data")


@pytest.mark.data
def test_real_files(shared_data):
    folder = shared_data / "adult"
    if not (folder / "adult.data").is_file():
        pytest.skip(f"{folder} holds no adult.data")
    table = read_adult_table(folder)
    assert len(table.frame) == 48_842  # 32,561 + 16,281, as UCI publishes them
    assert set(table.frame["income"]) == {"<=50K", ">50K"}
