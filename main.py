"""Start Cosy Studio: ``python main.py``."""

from app.main import main

raise SystemExit(main())
