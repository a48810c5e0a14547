import sys

from playahead.tools.play import main

sys.exit(main())
