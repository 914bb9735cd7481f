"""``python -m palace``: the same as the ``palace`` command."""

import sys

from palace.cli import main

sys.exit(main())
