"""Multi-annotator datasets, loaders of published crowdsourced data, and a synthetic generator."""

from ._encoding import MISSING_CODE
from .dices import DICESDataset
from .lewidi import LeWiDiDataset
from .measuring_hate_speech import MeasuringHateSpeechDataset
from .multi_annotator import MultiAnnotatorDataset
from .popquorn import PopquornDataset
from .synthetic import make_subjective_dataset
from .wikipedia_talk import WikipediaTalkDataset

__all__ = ["MISSING_CODE", "MultiAnnotatorDataset", "make_subjective_dataset"]
__all__ += ["LeWiDiDataset", "WikipediaTalkDataset"]
__all__ += ["PopquornDataset", "DICESDataset", "MeasuringHateSpeechDataset"]
