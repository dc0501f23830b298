"""``python -m server.cli`` runs the officeqa command line."""

import sys

from server.cli import main

sys.exit(main())
