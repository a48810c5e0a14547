import sys

from playahead.cli import main

if __name__ == "__main__":
    sys.exit(main())
