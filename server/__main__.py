"""`python -m server …` is the same as `deepread-mcp …`."""

import sys

from server.cli import main

if __name__ == "__main__":  # the guard matters: parsers may start spawn process pools
    sys.exit(main())
