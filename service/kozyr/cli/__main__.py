"""`python -m kozyr.cli …`: the `kozyr` command without its installed script."""

import sys

from kozyr.cli.commands import main

sys.exit(main())
