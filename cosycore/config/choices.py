"""The user-facing choices the engine, the CLI and the app share: quality modes, text readings, speeds.
Named here, in a module without torch, so that the CLI's ``--help`` and the app's settings can use them cheaply."""

from __future__ import annotations

from typing import Literal

# The user-facing speed/quality modes (cosycore.perf maps them onto engine options). Named here,
# in a module without torch, so that the CLI's --help and the app's settings can use them cheaply.
FAMILY_TITLES: dict[str, str] = {"cosyvoice2": "CosyVoice2", "cosyvoice3": "Fun-CosyVoice3"}  # as people name them
QUALITY_MODES = ("exact", "fast", "draft")
Quality = Literal["exact", "fast", "draft"]
# How the text frontend reads text (cosycore.frontend.text_reading): "original" is CosyVoice's own
# text_normalize (the default in exact mode), "improved" the project's English reading (money,
# dates, units, abbreviations; the default in the other modes).
TEXT_READINGS = ("original", "improved")
TextReading = Literal["original", "improved"]
# "auto" picks one of them per device (cosycore.perf.resolve_quality): the app's default.
AUTO_QUALITY = "auto"
QUALITY_CHOICES = (AUTO_QUALITY, *QUALITY_MODES)
# The speed range (cosycore.speed applies it; requests, the server, the CLI and the app's controls check it).
MIN_SPEED = 0.5
MAX_SPEED = 2.0
