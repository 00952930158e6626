"""``cosycore models list|download|verify|remove``: the models folder from a terminal.

:func:`add_models_subparser` adds the ``models`` command to the ``cosycore`` parser and
:func:`run_models_command` runs it; ``python -m cosycore.hub.models_cli`` runs it on its own. Downloads
show one updating line on standard error (percent, MB/s, time left); Ctrl-C stops a download and
keeps what arrived, and the same command resumes it.

Exit codes: 0 success, 1 failure (the message says what to do), 2 usage, 130 cancelled.
"""

from __future__ import annotations

import argparse
import errno
import logging
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Protocol

from .. import hub as dl
from ..errors import ConfigError, CosyError, DownloadCancelledError
from ..safety import escape_control
from .catalog import SOURCE_TITLES, SOURCES, CatalogEntry, load_catalog

logger = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
BAR_WIDTH = 24


class _Streams(Protocol):
    stdout: IO[str]
    stderr: IO[str]


class _SysStreams:
    def __init__(self, stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> None:
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr


class ProgressLine:
    """Draws :class:`~cosycore.hub.DownloadProgress` as one line that rewrites itself.

    On a terminal the line is redrawn in place (``\\r``) at most ``rate`` times a second; into a file
    or a pipe, one line per finished file is written instead, so logs stay readable.
    """

    def __init__(self, stream: IO[str], *, tty: bool | None = None, rate: float = 10.0) -> None:
        self.stream = stream
        self.tty = stream.isatty() if tty is None else tty
        self.min_interval = 1.0 / rate
        self.last_draw = 0.0
        self.width = 0
        self.last_file = ""

    @staticmethod
    def render(p: dl.DownloadProgress, columns: int = 100) -> str:
        """``[#########...............]  38.5%  1.2/3.1 GB  11.5 MB/s  ETA 2:45  llm.pt``."""
        filled = round(p.fraction * BAR_WIDTH)
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        speed = f"{dl.format_bytes(p.speed_bps)}/s" if p.speed_bps > 0 else "--"
        line = (f"[{bar}] {100 * p.fraction:5.1f}%  {dl.format_bytes(p.done_bytes)}/{dl.format_bytes(p.total_bytes)}"
                f"  {speed}  ETA {dl.format_duration(p.eta_seconds)}")
        if p.file:
            line += f"  {p.file}"
        return line[: max(20, columns - 1)]

    def __call__(self, p: dl.DownloadProgress) -> None:
        if p.phase == "planning":
            self.stream.write(f"{p.describe()}\n")
            self.stream.flush()
            return
        if not self.tty:
            if p.file and p.file != self.last_file:
                self.last_file = p.file
                self.stream.write(f"{p.phase} {p.file} ({p.file_index + 1}/{p.file_count}), "
                                  f"{100 * p.fraction:.0f}% of {dl.format_bytes(p.total_bytes)}\n")
            return
        now = time.monotonic()
        final = p.phase in ("installing", "done")
        if not final and now - self.last_draw < self.min_interval:
            return
        self.last_draw = now
        line = self.render(p, shutil.get_terminal_size((100, 20)).columns)
        self.stream.write("\r" + line.ljust(self.width))
        self.width = len(line)
        if p.phase == "done":
            self.stream.write("\n")
        self.stream.flush()

    def finish(self) -> None:
        """End the line after an interruption, so the next message starts on a line of its own."""
        if self.tty and self.width:
            self.stream.write("\n")
            self.stream.flush()
            self.width = 0


def _dir_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dir", type=Path, default=None, dest="models_dir",
                   help="models folder (default: $COSY_STUDIO_MODELS or the user data folder)")


def add_models_subparser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``models`` (with list, download, verify, remove) to a parser's subcommands."""
    ids = ", ".join(e.id for e in load_catalog())
    p = subparsers.add_parser("models", help="download, check and remove models",
                              description="Download, check and remove models in the models folder.")
    msub = p.add_subparsers(dest="models_command", required=True, metavar="{list,download,verify,remove}")
    ls = msub.add_parser("list", help="installed models, unfinished downloads and what can be downloaded")
    _dir_arg(ls)
    d = msub.add_parser("download", help="download (or resume) a model", description=f"Models: {ids}.")
    d.add_argument("model", help=f"catalogue id: {ids}")
    _dir_arg(d)
    d.add_argument("--source", choices=SOURCES, default="huggingface",
                   help="where to download from (ModelScope needs the modelscope extra)")
    d.add_argument("--endpoint", default=None, help="Hugging Face endpoint or mirror (default: $HF_ENDPOINT)")
    d.add_argument("--revision", default=None, help="branch, tag or commit (default: the main branch)")
    d.add_argument("--force", action="store_true", help="download again even when installed")
    v = msub.add_parser("verify", help="re-check an installed model's files")
    v.add_argument("target", help="a catalogue id (installed in the models folder) or a model folder")
    _dir_arg(v)
    v.add_argument("--quick", action="store_true", help="compare sizes only, skip the sha256 hashes")
    v.add_argument("--smoke", action="store_true",
                   help="also load the model and synthesise a few tokens (a recognizer: transcribe a test clip)")
    v.add_argument("--device", default="cpu", help="device for --smoke (default cpu)")
    r = msub.add_parser("remove", help="delete an installed model, or an unfinished download")
    r.add_argument("target", help="a catalogue id or a model folder")
    _dir_arg(r)
    r.add_argument("--partial", action="store_true", help="delete the unfinished download of this id instead")
    r.add_argument("--delete-user-folder", action="store_true",
                   help="also delete a folder Cosy Studio did not download, if it holds only a release's files")
    return p


def _resolve_target(target: str, models_dir: Path) -> Path:
    """A catalogue id names its folder in the models folder; anything else is a path."""
    for entry in load_catalog():
        if target == entry.id:
            return models_dir / entry.folder
    return Path(target)


def _cmd_list(args: argparse.Namespace, io: _Streams) -> int:
    models_dir = args.models_dir or dl.default_models_dir()
    out = io.stdout
    out.write(f"Models folder: {models_dir}\n")
    installed = dl.list_installed(models_dir, kind=None)
    out.write("\nInstalled:\n" if installed else "\nInstalled: none\n")
    for m in installed:
        origin = f"{SOURCE_TITLES.get(m.source or '', m.source)} {m.revision[:12]}" if m.managed and m.revision \
            else "your own folder"
        if m.unverified:
            origin += f", {len(m.unverified)} file(s) unverified (no published hash)"
        if m.kind == "asr":
            origin += ", speech recognition (voice transcripts)"
        if m.problem:
            origin += ", its install record is unreadable (nothing in it is deleted; `verify` checks the files)"
        out.write(f"  {m.name:<32} {m.family:<11} {dl.format_bytes(m.size_bytes):>9}  {origin}\n"
                  f"  {'':<32} {m.folder}\n")
    partial = dl.list_partial(models_dir)
    if partial:
        out.write("\nUnfinished downloads (run download again to resume):\n")
        for pd in partial:
            out.write(f"  {pd.model_id:<32} {dl.format_bytes(pd.bytes_staged):>9} so far\n")
    out.write("\nAvailable:\n")
    have = {m.model_id for m in installed}
    entry: CatalogEntry
    for entry in load_catalog():
        state = "installed" if entry.id in have else f"about {dl.format_bytes(entry.approx_bytes)}"
        if entry.kind == "asr":
            state += " (speech recognition for voice transcripts)"
        out.write(f"  {entry.id:<32} {entry.name:<32} {state}\n")
    return EXIT_OK


def _cmd_download(args: argparse.Namespace, io: _Streams) -> int:
    models_dir = args.models_dir or dl.default_models_dir()
    if args.endpoint is not None:
        from urllib.parse import urlsplit

        parts = urlsplit(args.endpoint.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in args.endpoint.strip()):
            io.stderr.write(f"error: --endpoint {escape_control(args.endpoint)!r} is not a web address; give one like "
                            "https://hf-mirror.com (or leave it out for huggingface.co).\n")
            return EXIT_USAGE
    bar = ProgressLine(io.stderr)
    try:
        model = dl.download_model(args.model, models_dir, source=args.source, endpoint=args.endpoint,
                                  revision=args.revision, progress=bar, force=args.force)
    except (DownloadCancelledError, KeyboardInterrupt):
        bar.finish()
        io.stderr.write("Download stopped; what arrived is kept. Run the same command to resume.\n")
        return EXIT_INTERRUPTED
    except CosyError:
        bar.finish()
        raise
    if model.unverified:
        io.stderr.write(f"warning: {len(model.unverified)} file(s) are unverified (no published hash): "
                        f"{', '.join(model.unverified)}. A damaged or altered copy of them could not be detected. "
                        "'models list' and 'models verify' keep saying so.\n")
    io.stdout.write(f"{model.name} ({model.family}, {dl.format_bytes(model.size_bytes)}) is installed in "
                    f"{model.folder}\n")
    return EXIT_OK


def _cmd_verify(args: argparse.Namespace, io: _Streams) -> int:
    models_dir = args.models_dir or dl.default_models_dir()
    folder = _resolve_target(args.target, models_dir)
    smoke = dl.smoke_test_for(folder, device=args.device) if args.smoke else None

    bar = ProgressLine(io.stderr)
    try:
        report = dl.verify(folder, hashes=not args.quick, smoke_test=smoke, progress=bar)
    except KeyboardInterrupt:
        bar.finish()
        io.stderr.write("Verification stopped; nothing was changed.\n")
        return EXIT_INTERRUPTED
    bar.finish()
    if report.ok:
        io.stdout.write(report.summary() + "\n")
        return EXIT_OK
    io.stderr.write(f"{folder} has problems:\n")
    for problem in report.problems:
        io.stderr.write(f"  - {problem}\n")
    return EXIT_FAILED


def _cmd_remove(args: argparse.Namespace, io: _Streams) -> int:
    from .removal import remove_target

    models_dir = args.models_dir or dl.default_models_dir()
    message = remove_target(args.target, models_dir, partial=args.partial,
                            delete_user_folder=args.delete_user_folder)
    io.stdout.write(escape_control(message) + "\n")
    return EXIT_OK


_COMMANDS = {"list": _cmd_list, "download": _cmd_download, "verify": _cmd_verify, "remove": _cmd_remove}


def run_models_command(args: argparse.Namespace, io: _Streams | None = None) -> int:
    """Run a parsed ``models`` command; cosycore's typed errors become a message and exit code 1."""
    streams: _Streams = io or _SysStreams()
    try:
        return _COMMANDS[args.models_command](args, streams)
    except ConfigError as e:  # an unknown catalogue id, a broken catalogue
        streams.stderr.write(f"error: {e}\n")
        return EXIT_USAGE
    except CosyError as e:
        logger.debug("models %s failed", args.models_command, exc_info=True)
        streams.stderr.write(f"error: {escape_control(e, keep=chr(10))}\n")
        return EXIT_FAILED
    except OSError as e:  # a models folder that cannot be read or changed
        logger.debug("models %s failed", args.models_command, exc_info=True)
        advice = ("the folder is on a read-only disk; choose a models folder on a writable one (--dir)"
                  if e.errno == errno.EROFS else "check the folder's permissions")
        streams.stderr.write(f"error: {escape_control(e, keep=chr(10))}; {advice}.\n")
        return EXIT_FAILED


def main(argv: Sequence[str] | None = None, stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    """``python -m cosycore.hub.models_cli download cosyvoice2-0.5b`` (the same as ``cosycore models …``)."""
    parser = argparse.ArgumentParser(prog="cosycore")
    add_models_subparser(parser.add_subparsers(dest="command", required=True))
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(["models", *argv])
    except SystemExit as e:
        return int(e.code) if isinstance(e.code, int) else EXIT_USAGE
    return run_models_command(args, _SysStreams(stdout, stderr))


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    sys.exit(main())
