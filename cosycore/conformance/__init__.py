"""Reference comparisons against the original implementation's recorded numbers.

``python -m cosycore.conformance DIR`` runs them (:mod:`.runner`). Runtime modules never import
this package; it sits above them (an import-linter contract and tests/test_architecture.py say so).
"""

from .runner import find_targets, main, run

__all__ = ["find_targets", "main", "run"]
