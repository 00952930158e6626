"""Cosy Studio desktop app (PySide6)."""
