"""``python -m cosycore.conformance DIR``: see :mod:`cosycore.conformance.runner`."""

from .runner import main

raise SystemExit(main())
