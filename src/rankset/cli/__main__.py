"""``python -m rankset.cli``: the ``rankset`` command."""

import sys

from rankset.cli import main

sys.exit(main())
