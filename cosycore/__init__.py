"""Cosy Studio engine: CosyVoice2 / Fun-CosyVoice3 inference without a GUI."""

__version__ = "0.1.0"
