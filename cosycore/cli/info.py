"""``cosycore info`` (what a model folder holds) and ``cosycore instruct-presets`` (the ready-made
instructions)."""

from __future__ import annotations

import argparse

from .common import EXIT_OK, CliIO, EngineLoader


def run_info(args: argparse.Namespace, io: CliIO, load_engine: EngineLoader) -> int:
    info = load_engine(args).info()
    out = io.stdout
    out.write(f"model:        {info.title} ({info.family})\n")
    out.write(f"folder:       {info.model_dir}\n")
    out.write(f"device:       {info.device} ({info.dtype})\n")
    out.write(f"quality:      {info.quality}\n")
    out.write(f"text reading: {info.text_reading}\n")
    out.write(f"sample rate:  {info.sample_rate} Hz, {info.token_rate} speech tokens/s\n")
    for name, n in info.parameters:
        out.write(f"{name + ':':<14}{n:,} parameters\n")
    out.write(f"{'total:':<14}{info.total_parameters:,} parameters\n")
    for name, size in info.onnx_files:
        out.write(f"{'onnx:':<14}{name} ({size / 1e6:.1f} MB)\n")
    out.write(f"text vocab:   {info.text_vocab:,} ids\n")
    return EXIT_OK


def run_presets(args: argparse.Namespace, io: CliIO) -> int:
    from ..presets import FAMILIES, GROUP_TITLES, grouped_presets, instruct_prompt

    out = io.stdout
    for family in [args.family] if args.family else list(FAMILIES):
        out.write(f"{family}\n")
        for category, presets in grouped_presets(family):
            out.write(f"  {GROUP_TITLES[category]}\n")
            if not presets:
                out.write("    (none documented for this model)\n")
            for p in presets:
                mark = "" if p.verbatim else "  [phrased after the source's example]"
                out.write(f"    {p.id:<22}{p.text}  ({p.gloss}){mark}\n")
        example = instruct_prompt(family, "X").replace("X", "<instruction>", 1)
        out.write(f"  The LM receives: {example}<text>\n")
        out.write("  Combine with repeated --preset: one per group, in the order dialect, emotion, speed, volume; "
                  "a role play stands alone.\n")
    return EXIT_OK
