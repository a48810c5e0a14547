"""``python -m playahead.evaluate ...``: the same as ``playahead evaluate ...``."""

import sys

from playahead.evaluate.cli import main

sys.exit(main())
