"""Widgets of the main window, one module per widget."""
