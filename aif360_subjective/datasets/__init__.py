"""Multi-annotator datasets, loaders of published crowdsourced data, and a synthetic generator."""

from ._encoding import MISSING_CODE
from .lewidi import LeWiDiDataset
from .multi_annotator import MultiAnnotatorDataset
from .synthetic import make_subjective_dataset
from .synthetic_parquet import write_synthetic_parquet
from .wikipedia_talk import WikipediaTalkDataset

__all__ = ["MISSING_CODE", "MultiAnnotatorDataset", "make_subjective_dataset"]
__all__ += ["LeWiDiDataset", "WikipediaTalkDataset", "write_synthetic_parquet"]
