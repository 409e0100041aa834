"""``python -m rankset``: the ``rankset`` command, as ``python -m rankset.cli`` runs it."""

import sys

from rankset.cli import main

sys.exit(main())
