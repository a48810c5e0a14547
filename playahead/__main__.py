import sys

from playahead.cli import main

sys.exit(main())
