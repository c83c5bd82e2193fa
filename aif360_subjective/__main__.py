"""``python -m aif360_subjective``."""

import sys

from .cli import main

sys.exit(main())
