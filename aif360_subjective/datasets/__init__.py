"""Multi-annotator datasets, loaders of published crowdsourced data, and synthetic generators."""

from ._encoding import MISSING_CODE
from .adult import AdultTable, read_adult_table
from .dices import DICESDataset
from .lewidi import LeWiDiDataset
from .measuring_hate_speech import MeasuringHateSpeechDataset
from .multi_annotator import MultiAnnotatorDataset
from .popquorn import PopquornDataset
from .subgroup_benchmark import SubgroupBenchmark, make_planted_slice, make_subgroup_benchmark
from .synthetic import make_subjective_dataset
from .synthetic_parquet import write_synthetic_parquet
from .wikipedia_talk import WikipediaTalkDataset

__all__ = [
    "MISSING_CODE",
    "AdultTable",
    "DICESDataset",
    "LeWiDiDataset",
    "MeasuringHateSpeechDataset",
    "MultiAnnotatorDataset",
    "PopquornDataset",
    "SubgroupBenchmark",
    "WikipediaTalkDataset",
    "make_planted_slice",
    "read_adult_table",
    "make_subgroup_benchmark",
    "make_subjective_dataset",
    "write_synthetic_parquet",
]
