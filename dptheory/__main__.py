"""``python -m dptheory``: the ``dptheory`` command line (:func:`dptheory.cli.main`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
