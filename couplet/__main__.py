import sys

from couplet.cli import main

sys.exit(main())
