"""``python -m playahead.alphazero``: the same as ``playahead train alphazero``."""

from playahead.alphazero.cli import main

raise SystemExit(main())
