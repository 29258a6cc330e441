"""``python -m relu_frames_nb {check,reproduce} ...``."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
