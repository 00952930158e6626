"""Import every module of the packages named on the command line, so that Python writes their byte code
(and that of everything they import) once, at setup, instead of in each process that imports them.

Run by installer/setup.sh with byte-code writing on. ``__main__`` modules are skipped (they run a
command). A module that fails to import is named on stderr and the rest go on: setup still works,
and the app says what is wrong when it imports it.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import warnings


def main(packages: list[str]) -> int:
    warnings.simplefilter("ignore")  # deprecation notices from third-party imports are not setup's news
    failed: list[str] = []
    for top in packages:
        package = importlib.import_module(top)
        for info in pkgutil.walk_packages(package.__path__, f"{top}.", onerror=failed.append):
            if info.name.rsplit(".", 1)[-1] == "__main__":
                continue
            try:
                importlib.import_module(info.name)
            except Exception as e:  # reported below, and setup goes on
                failed.append(f"{info.name} ({type(e).__name__}: {e})")
    for name in failed:
        print(f"warm_imports: could not import {name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
