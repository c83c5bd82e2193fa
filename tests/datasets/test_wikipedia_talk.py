"""Wikipedia Talk Labels loader: fixture files written in the published format, and the real shared files."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from aif360_subjective.datasets import MISSING_CODE, MultiAnnotatorDataset, WikipediaTalkDataset, _download
from aif360_subjective.datasets import wikipedia_talk as wt

COMMENTS = (
    "rev_id\tcomment\tyear\tlogged_in\tns\tsample\tsplit\n"
    "37675\tThis is NEWLINE_TOKENa TAB_TOKENtest\t2002\tFalse\tarticle\trandom\ttrain\n"
    "44816\tNA\t2003\tTrue\tuser\tblocked\tdev\n"
    '49851\t"She said ""hi"" NEWLINE_TOKENNEWLINE_TOKEN"\t2015\tTrue\tuser\trandom\ttest\n'
    "50000\t\t2016\tFalse\tarticle\tblocked\ttrain\n"
)
TOX_ANNOTATIONS = (
    "rev_id\tworker_id\ttoxicity\ttoxicity_score\n"
    "37675.0\t1\t0\t0.0\n"
    "37675.0\t2\t1\t-1.0\n"
    "37675.0\t3\t0\t1.0\n"
    "44816.0\t1\t1\t-2.0\n"
    "44816.0\t4\t0\t0.0\n"
    "49851.0\t2\t0\t2.0\n"
)
ATTACK_ANNOTATIONS = (
    "rev_id\tworker_id\tquoting_attack\trecipient_attack\tthird_party_attack\tother_attack\tattack\n"
    "37675.0\t7\t0.0\t1.0\t0.0\t0.0\t1.0\n"
    "37675.0\t8\t0.0\t0.0\t0.0\t0.0\t0.0\n"
    "44816.0\t7\t0.0\t0.0\t1.0\t1.0\t1.0\n"
)
DEMOGRAPHICS = (
    "worker_id\tgender\tenglish_first_language\tage_group\teducation\n"
    "1\tfemale\t0\t18-30\tbachelors\n"
    "2\tmale\t1\t\ths\n"
    "7\tmale\t0\t30-45\tmasters\n"
    "99\tother\t0\tOver 60\tdoctorate\n"
)


def write_release(folder: Path, task: str = "toxicity", annotations: str | None = None,
                  comments: str = COMMENTS, demographics: str | None = DEMOGRAPHICS) -> Path:
    """Write the three files of ``task`` into ``folder`` byte for byte as given."""
    folder.mkdir(parents=True, exist_ok=True)
    if annotations is None:
        annotations = ATTACK_ANNOTATIONS if task == "attack" else TOX_ANNOTATIONS
    (folder / f"{task}_annotated_comments.tsv").write_text(comments, encoding="utf-8")
    (folder / f"{task}_annotations.tsv").write_text(annotations, encoding="utf-8")
    if demographics is not None:
        (folder / f"{task}_worker_demographics.tsv").write_text(demographics, encoding="utf-8")
    return folder


# ----------------------------------------------------------------------------------------- file readers


def test_read_comments_restores_text_and_types(tmp_path):
    write_release(tmp_path)
    items = wt.read_comments(tmp_path / "toxicity_annotated_comments.tsv")
    assert items.index.name == "rev_id" and items.index.dtype == np.int64
    assert list(items.index) == [37675, 44816, 49851, 50000]
    assert list(items.columns) == ["comment", "year", "logged_in", "ns", "sample", "split"]
    assert items.loc[37675, "comment"] == "This is \na \ttest"
    assert items.loc[44816, "comment"] == "NA"  # text, not a missing value
    assert items.loc[49851, "comment"] == 'She said "hi" \n\n'
    assert items.loc[50000, "comment"] == ""
    assert items["year"].tolist() == [2002, 2003, 2015, 2016]
    assert items["logged_in"].tolist() == [0, 1, 1, 0]
    assert items["ns"].tolist() == ["article", "user", "user", "article"]
    assert items["sample"].tolist() == ["random", "blocked", "random", "blocked"]
    assert items["split"].tolist() == ["train", "dev", "test", "train"]
    assert isinstance(items["ns"].dtype, pd.CategoricalDtype)


def test_read_annotations_float_rev_id_to_int(tmp_path):
    write_release(tmp_path)
    ann = wt.read_annotations(tmp_path / "toxicity_annotations.tsv", "toxicity")
    assert list(ann.columns) == ["rev_id", "worker_id", "toxicity", "toxicity_score"]
    assert ann["rev_id"].dtype == np.int64 and ann["toxicity"].dtype == np.int64
    assert ann["rev_id"].tolist() == [37675, 37675, 37675, 44816, 44816, 49851]
    assert ann["toxicity"].tolist() == [0, 1, 0, 1, 0, 0]
    assert ann["toxicity_score"].tolist() == [0.0, -1.0, 1.0, -2.0, 0.0, 2.0]


def test_read_attack_annotations_keeps_subtypes(tmp_path):
    write_release(tmp_path, "attack")
    ann = wt.read_annotations(tmp_path / "attack_annotations.tsv", "attack")
    assert list(ann.columns) == ["rev_id", "worker_id", "quoting_attack", "recipient_attack",
                                 "third_party_attack", "other_attack", "attack"]
    assert ann["attack"].tolist() == [1, 0, 1]
    assert ann["recipient_attack"].tolist() == [1.0, 0.0, 0.0]
    assert ann["other_attack"].tolist() == [0.0, 0.0, 1.0]


def test_read_demographics_missing_age_group(tmp_path):
    write_release(tmp_path)
    dem = wt.read_demographics(tmp_path / "toxicity_worker_demographics.tsv")
    assert dem.index.name == "worker_id" and list(dem.index) == [1, 2, 7, 99]
    assert list(dem.columns) == ["gender", "english_first_language", "age_group", "education"]
    assert pd.isna(dem.loc[2, "age_group"])
    assert dem["age_group"].isna().tolist() == [False, True, False, False]
    assert dem["english_first_language"].tolist() == [0, 1, 0, 0]


@pytest.mark.parametrize(
    ("annotations", "match"),
    [
        (TOX_ANNOTATIONS.replace("44816.0\t4", "44816.5\t4"), r"whole-number ids.*data row 5: 44816\.5"),
        (TOX_ANNOTATIONS.replace("49851.0\t2\t0", "\t2\t0"), "whole-number ids"),
        (TOX_ANNOTATIONS.replace("49851.0\t2\t0", "49851.0\t2\t2"), r"'toxicity' must be 0 or 1.*\[2\.0\]"),
        (TOX_ANNOTATIONS.replace("toxicity_score", "score"), "expected the header columns"),
        (TOX_ANNOTATIONS.replace("\t4\t", "\tfour\t"), "cannot read it in the published format"),
        ("", "the file is empty"),
    ],
)
def test_bad_annotation_files(tmp_path, annotations, match):
    write_release(tmp_path, annotations=annotations)
    with pytest.raises(ValueError, match=match):
        wt.read_annotations(tmp_path / "toxicity_annotations.tsv", "toxicity")


@pytest.mark.parametrize(
    ("comments", "match"),
    [
        (COMMENTS.replace("\tFalse\tarticle\trandom", "\tno\tarticle\trandom"),
         "'logged_in' must be True or False"),
        (COMMENTS + "37675\tagain\t2002\tFalse\tarticle\trandom\ttrain\n", "rev_id must be unique"),
        (COMMENTS.replace("rev_id\tcomment", "comment\trev_id"), "expected the header columns"),
    ],
)
def test_bad_comment_files(tmp_path, comments, match):
    write_release(tmp_path, comments=comments)
    with pytest.raises(ValueError, match=match):
        wt.read_comments(tmp_path / "toxicity_annotated_comments.tsv")


def test_unknown_task():
    with pytest.raises(ValueError, match=r"task must be one of \['aggression', 'attack', 'toxicity'\]"):
        wt.get_task("insult")


# ---------------------------------------------------------------------------------------------- tables


def test_tables_keep_workers_without_demographics(tmp_path):
    write_release(tmp_path)
    t = wt.load_wikipedia_talk_tables("toxicity", data_dir=tmp_path)
    assert len(t.annotations) == 6 and t.n_duplicates_dropped == 0
    # workers 3 and 4 have no demographics row: their judgements stay
    assert sorted(t.annotations["worker_id"].unique()) == [1, 2, 3, 4]
    assert set(t.annotators.index) == {1, 2, 7, 99}
    assert len(t.items) == 4  # comment 50000 has no judgement and stays in the items table


def test_tables_without_demographics(tmp_path):
    write_release(tmp_path, demographics=None)
    t = wt.load_wikipedia_talk_tables("toxicity", data_dir=tmp_path, demographics=False)
    assert t.annotators.empty and len(t.annotations) == 6


def test_tables_reject_judgements_of_unknown_comments(tmp_path):
    write_release(tmp_path, annotations=TOX_ANNOTATIONS + "12345.0\t1\t0\t0.0\n")
    with pytest.raises(ValueError, match=r"1 judgement\(s\) of 1 rev_id\(s\) absent .* e\.g\. 12345"):
        wt.load_wikipedia_talk_tables("toxicity", data_dir=tmp_path)


def test_tables_repeated_judgements(tmp_path):
    write_release(tmp_path, annotations=TOX_ANNOTATIONS + "37675.0\t2\t0\t1.0\n")
    with pytest.warns(UserWarning, match=r"dropped 1 repeated \(rev_id, worker_id\)"):
        t = wt.load_wikipedia_talk_tables("toxicity", data_dir=tmp_path)
    assert t.n_duplicates_dropped == 1 and len(t.annotations) == 6
    # the first judgement is kept
    row = t.annotations[(t.annotations.rev_id == 37675) & (t.annotations.worker_id == 2)]
    assert row["toxicity"].tolist() == [1]
    with pytest.raises(ValueError, match=r"1 repeated .* \(37675, 2\)"):
        wt.load_wikipedia_talk_tables("toxicity", data_dir=tmp_path, duplicates="raise")


def test_missing_files_named_each_with_source_and_folder(tmp_path):
    folder = tmp_path / "nowhere"
    with pytest.raises(FileNotFoundError) as err:
        wt.load_wikipedia_talk_tables("attack", data_dir=folder)
    msg = str(err.value)
    assert "3 file(s) missing" in msg
    figshare = "download it from https://ndownloader.figshare.com/files"
    assert f"attack_annotated_comments.tsv: {figshare}/7554634" in msg
    assert f"attack_annotations.tsv: {figshare}/7554637" in msg
    collection = 'from the figshare collection "Wikipedia Talk Labels"'
    assert f"attack_worker_demographics.tsv: download it {collection}" in msg
    assert "Wulczyn, Thain and Dixon" in msg and "10.6084/m9.figshare.4054689" in msg
    assert f"in the folder {folder}" in msg and "download=True" in msg


def test_missing_demographics_only(tmp_path):
    write_release(tmp_path, demographics=None)
    with pytest.raises(FileNotFoundError) as err:
        wt.load_wikipedia_talk_tables("toxicity", data_dir=tmp_path)
    msg = str(err.value)
    assert "1 file(s) missing" in msg and "toxicity_worker_demographics.tsv" in msg
    assert "toxicity_annotations.tsv" not in msg


def test_default_data_dir_from_environment(tmp_path, monkeypatch):
    write_release(tmp_path / "wikipedia_talk")
    monkeypatch.setenv("AIF360_SUBJECTIVE_DATA", str(tmp_path))
    assert len(wt.load_wikipedia_talk_tables().annotations) == 6
    monkeypatch.delenv("AIF360_SUBJECTIVE_DATA")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    expected = tmp_path / "home" / "aif360_subjective_data" / "wikipedia_talk"
    with pytest.raises(FileNotFoundError, match=str(expected)):
        wt.load_wikipedia_talk_tables()


# -------------------------------------------------------------------------------------------- download


class _FakeWeb:
    """Serves URLs from a dict (bytes), recording the requests; anything else is a network error."""

    def __init__(self, pages: dict[str, bytes]):
        self.pages = pages
        self.requested: list[str] = []

    def __call__(self, url, timeout=None):
        self.requested.append(url)
        if url not in self.pages:
            raise OSError(f"no network in tests: {url}")
        return io.BytesIO(self.pages[url])


def _release_pages(task: str = "toxicity", demographics: bytes | None = None) -> dict[str, bytes]:
    spec = wt.TASKS[task]
    dem_url = "https://ndownloader.figshare.com/files/424242"
    listing = [{"name": "other.tsv", "download_url": "https://x/1"},
               {"name": f"{task}_worker_demographics.tsv", "download_url": dem_url}]
    return {
        f"https://ndownloader.figshare.com/files/{spec.comments_file_id}": COMMENTS.encode(),
        f"https://ndownloader.figshare.com/files/{spec.annotations_file_id}": TOX_ANNOTATIONS.encode(),
        f"https://api.figshare.com/v2/articles/{spec.article_id}/files": json.dumps(listing).encode(),
        dem_url: demographics if demographics is not None else DEMOGRAPHICS.encode(),
    }


def test_download_fetches_missing_files(tmp_path, monkeypatch):
    web = _FakeWeb(_release_pages())
    monkeypatch.setattr(_download, "urlopen", web)
    folder = tmp_path / "data" / "wikipedia_talk"
    t = wt.load_wikipedia_talk_tables("toxicity", data_dir=folder, download=True)
    assert len(t.annotations) == 6 and len(t.annotators) == 4
    assert sorted(p.name for p in folder.iterdir()) == [
        "toxicity_annotated_comments.tsv", "toxicity_annotations.tsv", "toxicity_worker_demographics.tsv"]
    assert (folder / "toxicity_annotations.tsv").read_text() == TOX_ANNOTATIONS
    # present files are not downloaded again
    web.requested.clear()
    wt.load_wikipedia_talk_tables("toxicity", data_dir=folder, download=True)
    assert web.requested == []


def test_download_rejects_wrong_content_and_leaves_nothing(tmp_path, monkeypatch):
    web = _FakeWeb(_release_pages(demographics=b"<html><body>Not found</body></html>\n"))
    monkeypatch.setattr(_download, "urlopen", web)
    with pytest.raises(ValueError, match=r"toxicity_worker_demographics\.tsv.*expected the header columns"):
        wt.load_wikipedia_talk_tables("toxicity", data_dir=tmp_path, download=True)
    assert not (tmp_path / "toxicity_worker_demographics.tsv").exists()
    assert not list(tmp_path.glob(".*.part"))


def test_download_network_error_propagates_without_partial_file(tmp_path, monkeypatch):
    pages = _release_pages()
    del pages["https://ndownloader.figshare.com/files/7394539"]
    monkeypatch.setattr(_download, "urlopen", _FakeWeb(pages))
    with pytest.raises(OSError, match="no network in tests"):
        wt.load_wikipedia_talk_tables("toxicity", data_dir=tmp_path, download=True)
    assert not (tmp_path / "toxicity_annotations.tsv").exists()
    assert not list(tmp_path.glob(".*.part"))


def test_download_file_from_file_url(tmp_path):
    src = tmp_path / "src.tsv"
    src.write_text(DEMOGRAPHICS, encoding="utf-8")
    dest = tmp_path / "out" / "toxicity_worker_demographics.tsv"
    _download.download_file(
        src.as_uri(), dest, verify=lambda p: _download.check_delimited_header(p, wt.DEMOGRAPHIC_COLUMNS))
    assert dest.read_text(encoding="utf-8") == DEMOGRAPHICS


@pytest.mark.parametrize(
    ("content", "match"),
    [(b"", "empty"), (b"worker_id\tgender\tenglish_first_language\tage_group\teducation\n", "no data row"),
     (b"\xff\xfe\x00", "not UTF-8")],
)
def test_header_check(tmp_path, content, match):
    p = tmp_path / "f.tsv"
    p.write_bytes(content)
    with pytest.raises(ValueError, match=match):
        _download.check_delimited_header(p, wt.DEMOGRAPHIC_COLUMNS)


# ------------------------------------------------------------------------------- real shared files


@pytest.fixture(scope="module")
def wiki_dir(shared_data) -> Path:
    return shared_data / "wikipedia_talk"


@pytest.mark.data
def test_real_toxicity_demographics(wiki_dir):
    dem = wt.read_demographics(wiki_dir / "toxicity_worker_demographics.tsv")
    assert len(dem) == 3591 and dem.index.is_unique
    assert dem["gender"].value_counts().to_dict() == {"male": 2327, "female": 1263, "other": 1}
    assert dem["english_first_language"].value_counts().to_dict() == {0: 2925, 1: 666}
    assert dem["age_group"].isna().sum() == 77
    assert dem["age_group"].value_counts().to_dict() == {
        "18-30": 1862, "30-45": 1247, "45-60": 296, "Under 18": 79, "Over 60": 30}
    assert dem["education"].value_counts()["bachelors"] == 1441 and dem["education"].isna().sum() == 0
    assert dem.index.min() >= 0 and dem.index.max() <= 4300


@pytest.mark.data
def test_real_attack_and_aggression_demographics(wiki_dir):
    att = wt.read_demographics(wiki_dir / "attack_worker_demographics.tsv")
    agg = wt.read_demographics(wiki_dir / "aggression_worker_demographics.tsv")
    assert len(att) == 2190 and att.equals(agg)


@pytest.mark.data
def test_real_sample_split_into_tables(wiki_dir):
    ann, items = wt.read_labelled_sample(wiki_dir / "toxicity_labelled_comments_3k_sample.csv")
    assert len(ann) == 3000 and len(items) == 2976
    assert ann["worker_id"].nunique() == 2112
    assert ann.groupby("rev_id").size().value_counts().to_dict() == {1: 2952, 2: 24}
    # toxicity == 1 exactly when toxicity_score < 0 (88 + 369 rows), as FORMAT.md measured
    assert ((ann["toxicity"] == 1) == (ann["toxicity_score"] < 0)).all()
    assert ann["toxicity_score"].value_counts()[[-2.0, -1.0]].sum() == 88 + 369
    assert ann.loc[0, ["rev_id", "worker_id", "toxicity"]].tolist() == [182449647, 1607, 0]
    assert items.loc[182449647, "comment"].endswith("I'd say.    \n\n")
    assert not items["comment"].str.contains("NEWLINE_TOKEN|TAB_TOKEN").any()
    assert items["year"].between(2002, 2016).all()
    dem = wt.read_demographics(wiki_dir / "toxicity_worker_demographics.tsv")
    assert ann["worker_id"].isin(dem.index).mean() == pytest.approx(0.846)


def _write_sample_as_release(sample_csv: Path, folder: Path) -> None:
    """Write the real sample rows as the two published TSV files (raw text, float rev_id)."""
    raw = pd.read_csv(sample_csv, dtype=str, keep_default_na=False)
    comments = raw[list(wt.COMMENT_COLUMNS)].drop_duplicates("rev_id").copy()
    comments["rev_id"] = comments["rev_id"].str.removesuffix(".0")
    folder.mkdir(parents=True, exist_ok=True)
    comments.to_csv(folder / "toxicity_annotated_comments.tsv", sep="\t", index=False)
    raw[["rev_id", "worker_id", "toxicity", "toxicity_score"]].to_csv(
        folder / "toxicity_annotations.tsv", sep="\t", index=False)


@pytest.mark.data
def test_real_sample_through_the_release_format(wiki_dir, tmp_path):
    _write_sample_as_release(wiki_dir / "toxicity_labelled_comments_3k_sample.csv", tmp_path)
    (tmp_path / "toxicity_worker_demographics.tsv").write_bytes(
        (wiki_dir / "toxicity_worker_demographics.tsv").read_bytes())
    first_row = (tmp_path / "toxicity_annotations.tsv").read_text().splitlines()[1]
    assert first_row.startswith("182449647.0\t1607\t")
    t = wt.load_wikipedia_talk_tables("toxicity", data_dir=tmp_path)
    ann, items = wt.read_labelled_sample(wiki_dir / "toxicity_labelled_comments_3k_sample.csv")
    pd.testing.assert_frame_equal(t.annotations, ann)
    pd.testing.assert_frame_equal(t.items, items, check_categorical=False)
    assert len(t.annotators) == 3591


# ------------------------------------------------------------------------------------------------ dataset


def test_dataset_from_fixture_files(tmp_path):
    write_release(tmp_path)
    ds = WikipediaTalkDataset("toxicity", data_dir=tmp_path)
    assert isinstance(ds, MultiAnnotatorDataset)
    assert ds.item_ids.tolist() == [37675, 37675, 37675, 44816, 44816, 49851]
    assert ds.annotator_ids.tolist() == [1, 2, 3, 1, 4, 2]
    assert ds.labels.ravel().tolist() == [0, 1, 0, 1, 0, 0]
    assert (ds.favorable_label, ds.unfavorable_label) == (0.0, 1.0)
    assert ds.feature_names == ["year", "logged_in", "ns=article", "ns=user", "sample=blocked", "sample=random",
                                "gender", "english_first_language", "age_group", "education"]
    assert ds.protected_attribute_names == ["gender", "english_first_language", "age_group", "education"]
    f = pd.DataFrame(ds.features, columns=ds.feature_names)
    assert f["year"].tolist() == [2002, 2002, 2002, 2003, 2003, 2015]
    assert f["logged_in"].tolist() == [0, 0, 0, 1, 1, 1]
    assert f["ns=user"].tolist() == [0, 0, 0, 1, 1, 1]
    # workers 3 and 4 have no demographics: kept, every attribute missing; worker 2 lacks only age_group
    gender_map = ds.metadata["protected_attribute_maps"][0]
    assert [gender_map[c] for c in f["gender"][[0, 1, 3]]] == ["female", "male", "female"]
    assert f.loc[[2, 4], ds.protected_attribute_names].eq(MISSING_CODE).all().all()
    assert f["age_group"][1] == MISSING_CODE and f["age_group"][0] != MISSING_CODE
    assert ds.metadata["n_annotators_without_attributes"] == 2
    assert ds.metadata["task"] == "toxicity" and ds.metadata["data_dir"] == str(tmp_path)
    # text and split stay in the items table, not in the features
    assert ds.items.loc[37675, "comment"] == "This is \na \ttest"
    assert ds.items.loc[49851, "split"] == "test"
    assert ds.annotation_info["toxicity_score"].tolist() == [0.0, -1.0, 1.0, -2.0, 0.0, 2.0]
    long = ds.to_dataframe()
    assert list(long.columns[:4]) == ["rev_id", "worker_id", "toxicity", "toxicity_score"]
    summary = ds.item_summary()
    assert summary.loc[37675, "n_annotations"] == 3 and summary.loc[37675, "majority_label"] == 0


def test_dataset_extra_columns_follow_rows(tmp_path):
    write_release(tmp_path)
    ds = WikipediaTalkDataset("toxicity", data_dir=tmp_path)
    expected = {(i, a): s for i, a, s in zip(ds.item_ids, ds.annotator_ids, ds.annotation_info["toxicity_score"])}
    parts = ds.split([0.5], shuffle=True, seed=3)
    assert sum(len(p.annotation_info) for p in parts) == 6
    for part in [*parts, ds.subset([5, 0]), ds.subset(np.array([True, False] * 3)), ds.copy()]:
        got = {(i, a): s for i, a, s in zip(part.item_ids, part.annotator_ids, part.annotation_info["toxicity_score"])}
        assert got == {k: expected[k] for k in got}
        assert len(part.annotation_info) == len(part.labels)
    shuffled = ds.subset([3, 1, 0, 5, 4, 2])
    assert ds.align_datasets(shuffled).annotation_info.equals(ds.annotation_info)


def test_attack_dataset_keeps_subtypes(tmp_path):
    write_release(tmp_path, "attack")
    ds = WikipediaTalkDataset("attack", data_dir=tmp_path)
    assert ds.label_names == ["attack"] and ds.labels.ravel().tolist() == [1, 0, 1]
    assert list(ds.annotation_info.columns) == ["quoting_attack", "recipient_attack", "third_party_attack",
                                                "other_attack"]
    assert ds.annotation_info["third_party_attack"].tolist() == [0.0, 0.0, 1.0]
    assert ds.to_dataframe()["other_attack"].tolist() == [0.0, 0.0, 1.0]


def test_dataset_without_demographics(tmp_path):
    write_release(tmp_path, demographics=None)
    ds = WikipediaTalkDataset("toxicity", data_dir=tmp_path, demographics=False)
    assert ds.protected_attribute_names == [] and len(ds.labels) == 6


def test_dataset_missing_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="toxicity_annotations.tsv: download it from"):
        WikipediaTalkDataset("toxicity", data_dir=tmp_path)
    with pytest.raises(TypeError, match="tables must be WikipediaTalkTables"):
        WikipediaTalkDataset("toxicity", tables=("a", "b"))


@pytest.mark.data
def test_dataset_from_real_sample(wiki_dir):
    ds = WikipediaTalkDataset.from_labelled_sample(
        wiki_dir / "toxicity_labelled_comments_3k_sample.csv", wiki_dir / "toxicity_worker_demographics.tsv")
    assert len(ds.labels) == 3000 and ds.labels.sum() == 88 + 369
    assert len(np.unique(ds.item_ids)) == 2976 and len(np.unique(ds.annotator_ids)) == 2112
    dem = wt.read_demographics(wiki_dir / "toxicity_worker_demographics.tsv")
    n_without = int((~pd.Index(np.unique(ds.annotator_ids)).isin(dem.index)).sum())
    assert ds.metadata["n_annotators_without_attributes"] == n_without > 0
    rows_without = ~np.isin(ds.annotator_ids, dem.index)
    gender = ds.features[:, ds.feature_names.index("gender")]
    assert (gender[rows_without] == MISSING_CODE).all() and (gender[~rows_without] != MISSING_CODE).all()
    assert rows_without.mean() == pytest.approx(1 - 0.846)
    no_dem = WikipediaTalkDataset.from_labelled_sample(wiki_dir / "toxicity_labelled_comments_3k_sample.csv")
    assert no_dem.protected_attribute_names == []
