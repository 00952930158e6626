"""README.md and docs/*.md: every relative link resolves, and the commands they show exist.

* Links: ``[text](path)`` and ``![alt](path)`` outside code; the file (or folder) must exist, and a
  ``#anchor`` must be a heading of the Markdown file it points to (GitHub's slugs).
* Paths: an inline code span or a code-block word that names a file of this repository
  (``bench/bench_perf.py``, ``cosycore/data/models.json``) must exist.
* Commands in code blocks (and inline ``python …`` spans): ``python -m MODULE`` must be importable from the checkout and
  ``python SCRIPT`` / ``bash SCRIPT`` must exist; every ``--flag`` after them must be one that the
  command's ``--help`` lists. The flags are read from the argparse parser the command builds (its
  ``--help`` text comes from the same parser), found by running the command's ``__main__`` in one
  subprocess with ``parse_args`` intercepted, and followed through sub-commands
  (``cosycore models download``). A shell script's flags must appear in the script.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The folders at the top of this repository whose files the docs name.
_TOP = ("app", "bench", "cosycore", "docs", "installer", "resources", "tests", ".ci")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_REPO_PATH = re.compile(r"^(?:\./)?(?:" + "|".join(re.escape(t) for t in _TOP) + r")/[\w./-]*$")


def _rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else path.name


def doc_files() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Block:
    """A fenced code block: its info string and its lines, with the line number of the first."""

    lang: str
    first_line: int
    lines: tuple[str, ...]


def split_markdown(text: str) -> tuple[list[tuple[int, str]], list[Block]]:
    """The prose lines (number, text) and the fenced code blocks of a Markdown text."""
    prose: list[tuple[int, str]] = []
    blocks: list[Block] = []
    fence: str | None = None
    lang, start, body = "", 0, []
    for n, line in enumerate(text.splitlines(), 1):
        m = _FENCE.match(line)
        if fence is None and m:
            fence, lang, start, body = m.group(1), line.strip()[3:].strip().lower(), n + 1, []
        elif fence is not None and line.strip().startswith(fence):
            blocks.append(Block(lang, start, tuple(body)))
            fence = None
        elif fence is not None:
            body.append(line)
        else:
            prose.append((n, line))
    return prose, blocks


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())  # a link keeps its text
    text = text.lower().replace("`", "").replace("*", "")
    text = re.sub(r"[^\w\- ]", "", text)  # \w keeps letters of every script, digits and _
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    prose, _ = split_markdown(path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    out: set[str] = set()
    for _, line in prose:
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def link_problems(path: Path) -> list[str]:
    """One message per relative link of ``path`` that does not resolve."""
    problems: list[str] = []
    prose, _ = split_markdown(path.read_text(encoding="utf-8"))
    for n, line in prose:
        for target in _LINK.findall(_INLINE_CODE.sub("", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            where = f"{_rel(path)}:{n}: {target}"
            if not dest.exists():
                problems.append(f"{where}: no such file {dest}")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                problems.append(f"{where}: {dest.name} has no heading with the anchor #{anchor}")
    return problems


def _words(block: Block) -> Iterator[tuple[int, str]]:
    for i, line in enumerate(block.lines):
        for word in re.split(r"[\s'\"=()\[\],;|<>]+", line):
            yield block.first_line + i, word


def path_problems(path: Path) -> list[str]:
    """One message per repository path named in ``path`` (inline code or a code block) that is missing."""
    problems: list[str] = []
    prose, blocks = split_markdown(path.read_text(encoding="utf-8"))
    named: list[tuple[int, str]] = []
    for n, line in prose:
        for _, code in _INLINE_CODE.findall(line):
            named.extend((n, w) for w in code.split())
    for block in blocks:
        named.extend(_words(block))
    for n, word in named:
        word = word.rstrip(".,:;")
        if not _REPO_PATH.match(word) or any(c in word for c in "*?{}"):
            continue
        if not (REPO / word).exists():
            problems.append(f"{_rel(path)}:{n}: {word} does not exist in this repository")
    return problems


@dataclass(frozen=True)
class Command:
    """``python -m MODULE words…``, ``python SCRIPT words…`` or ``bash SCRIPT words…`` in a code block."""

    where: str
    kind: str  # "module", "script" or "shell"
    target: str
    words: tuple[str, ...]


_SHELL_OPS = {"&&", "||", ";", "|", ">", ">>", "2>", "2>/dev/null", "<", "&"}


def _logical_lines(block: Block) -> Iterator[tuple[int, str]]:
    """The block's command lines: continuations joined, console prompts removed, variables expanded."""
    variables: dict[str, str] = {}
    pending, start = "", 0
    prompted = any(line.startswith("$ ") for line in block.lines)  # a console: the rest is output
    for i, raw in enumerate(block.lines):
        if prompted and not pending and not raw.startswith("$ "):
            continue
        line = raw.rstrip()
        if not pending:
            start = block.first_line + i
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = (pending + line).strip()
        pending = ""
        if line.startswith("$ "):
            line = line[2:]
        m = re.match(r"^([A-Z_][A-Z0-9_]*)=\"([^\"]*)\"\s*$", line)
        if m:
            variables[m.group(1)] = m.group(2)
            continue
        for name, value in variables.items():
            line = re.sub(r"\$" + name + r"\b", value, line)
        yield start, line


def commands(path: Path) -> list[Command]:
    """The commands of the shell code blocks of ``path``."""
    out: list[Command] = []
    prose, blocks = split_markdown(path.read_text(encoding="utf-8"))
    # an inline command in the prose (`python -m bench.bench_soak --takes 100`) is a one-line block
    blocks += [Block("bash", n, (code,)) for n, line in prose for _, code in _INLINE_CODE.findall(line)
               if re.search(r"(^|[\s/])python3? ", code)]
    for block in blocks:
        if block.lang not in ("", "bash", "sh", "shell", "console"):
            continue
        for n, line in _logical_lines(block):
            try:
                tokens = shlex.split(line, comments=True)
            except ValueError:
                tokens = line.split()
            where = f"{_rel(path)}:{n}"
            for i, tok in enumerate(tokens):
                rest = tokens[i + 1:]
                cut = next((j for j, t in enumerate(rest) if t in _SHELL_OPS or t.startswith(">")), len(rest))
                if re.search(r"(^|/)python3?$", tok) and rest[:1] == ["-m"] and len(rest) > 1:
                    out.append(Command(where, "module", rest[1], tuple(rest[2:cut])))
                elif re.search(r"(^|/)python3?$", tok) and rest and rest[0].endswith(".py"):
                    out.append(Command(where, "script", rest[0], tuple(rest[1:cut])))
                elif tok == "bash" and rest and rest[0].endswith(".sh"):
                    out.append(Command(where, "shell", rest[0], tuple(rest[1:cut])))
    return out


# Runs in a subprocess: for each command, run its __main__ with parse_args intercepted, then follow the
# words through the parser's sub-commands and print the option strings of the parser reached.
_PROBE = r"""
import argparse, io, json, os, runpy, sys, contextlib
sys.path.insert(0, os.getcwd())


class Captured(Exception):
    def __init__(self, parser):
        self.parser = parser


def _capture(self, *args, **kwargs):
    raise Captured(self)


argparse.ArgumentParser.parse_known_args = _capture
argparse.ArgumentParser.parse_intermixed_args = _capture


def options(parser, words):
    flags, remainder, chain = set(), [], []
    while True:
        chain.append(parser.prog)
        subs = None
        for action in parser._actions:
            flags.update(action.option_strings)
            if action.nargs == argparse.REMAINDER and action.option_strings:
                remainder.extend(action.option_strings)
            if isinstance(action, argparse._SubParsersAction):
                subs = action
        if subs is None:
            return sorted(flags), remainder, chain
        words = [w for w in words if not w.startswith("-")]
        nxt = next((w for w in words if w in subs.choices), None)
        if nxt is None:
            return sorted(flags), remainder, chain
        words = words[words.index(nxt) + 1:]
        parser = subs.choices[nxt]


results = {}
for key, kind, target, words in json.load(sys.stdin):
    sys.argv = [target, "--help"]
    try:
        sink = io.TextIOWrapper(io.BytesIO())  # with .buffer, which the CLI writes audio to
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            if kind == "module":
                runpy.run_module(target, run_name="__main__", alter_sys=True)
            else:
                sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
                runpy.run_path(target, run_name="__main__")
        results[key] = {"error": "no argparse parser was reached"}
    except Captured as c:
        flags, remainder, chain = options(c.parser, words)
        results[key] = {"flags": flags, "remainder": remainder, "chain": chain}
    except BaseException as e:
        results[key] = {"error": f"{type(e).__name__}: {e}"}
print("@@PROBE@@" + json.dumps(results))
"""


def _probe(cmds: list[Command]) -> dict[str, dict]:
    jobs = []
    for c in cmds:
        if c.kind == "shell" or not _flags(c):
            continue  # without flags, existence is all there is to check: the command is not run
        key = json.dumps([c.kind, c.target, list(c.words)])
        jobs.append([key, c.kind, c.target, list(c.words)])
    res = subprocess.run([sys.executable, "-c", _PROBE], input=json.dumps(jobs), cwd=REPO, capture_output=True,
                         text=True, timeout=300, env=_probe_env())
    out = res.stdout.rpartition("@@PROBE@@")[2]
    assert res.returncode == 0 and out, res.stdout[-2000:] + res.stderr[-4000:]
    return json.loads(out)


def _probe_env() -> dict[str, str]:
    import os

    env = dict(os.environ, PYTHONPATH=str(REPO), COSY_THREADS="1", OMP_NUM_THREADS="1", QT_QPA_PLATFORM="offscreen")
    env.pop("DISPLAY", None)
    return env


def _flags(c: Command) -> list[str]:
    return [w.split("=", 1)[0] for w in c.words if w.startswith("--") and len(w) > 2]


def command_problems(cmds: list[Command]) -> list[str]:
    problems: list[str] = []
    # Modules of other projects (python -m pytest) are theirs to document.
    cmds = [c for c in cmds if c.kind != "module" or c.target.split(".")[0] in _TOP]
    for c in cmds:
        if c.kind == "module":
            spec_ok = _in_checkout(c.target)
            if not spec_ok:
                problems.append(f"{c.where}: python -m {c.target}: no such module in this repository")
        elif not (REPO / c.target).is_file():
            problems.append(f"{c.where}: {c.target} does not exist")
    if problems:
        return problems
    probed = _probe(cmds)
    for c in cmds:
        flags = _flags(c)
        if not flags:
            continue
        if c.kind == "shell":
            text = (REPO / c.target).read_text(encoding="utf-8")
            problems.extend(f"{c.where}: {c.target} has no option {f}" for f in flags if f not in text)
            continue
        info = probed[json.dumps([c.kind, c.target, list(c.words)])]
        if "error" in info:
            problems.append(f"{c.where}: {c.target} --help could not be read: {info['error']}")
            continue
        for word in c.words:
            if word in info["remainder"]:
                break  # the rest belongs to another command (bench_playback.py --run ...)
            flag = word.split("=", 1)[0]
            if word.startswith("--") and len(word) > 2 and flag not in info["flags"]:
                problems.append(f"{c.where}: `{info['chain'][-1]} --help` lists no option {flag}")
    return problems


def _in_checkout(module: str) -> bool:
    """Whether ``module`` is a module or package of this checkout (found without importing it)."""
    parts = module.split(".")
    base = REPO.joinpath(*parts)
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file() or (base / "__main__.py").is_file()


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_relative_links_resolve(path: Path) -> None:
    problems = link_problems(path)
    assert not problems, "broken links:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_repository_paths_named_in_the_docs_exist(path: Path) -> None:
    problems = path_problems(path)
    assert not problems, "missing paths:\n" + "\n".join(problems)


def test_commands_in_code_blocks_resolve() -> None:
    cmds = [c for p in doc_files() for c in commands(p)]
    assert len(cmds) > 40, "the command scanner found too few commands; has the docs' format changed?"
    problems = command_problems(cmds)
    assert not problems, "commands that do not resolve:\n" + "\n".join(problems)


def test_ci_runs_the_readme_second_quick_start_command() -> None:
    _, blocks = split_markdown((REPO / "README.md").read_text(encoding="utf-8"))
    quick_start = next(b for b in blocks if b.lang == "bash")
    ci = [line for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert ci == [quick_start.lines[1]]


@pytest.mark.usefixtures("single_thread")
def test_readme_python_example_runs(tiny_cv2_model: Path, espeak_wav: Path, tmp_path: Path) -> None:
    """The README's Python API example, run as written on the tiny model and an espeak-ng prompt.

    Only the request gets a token cap (``max_tokens``), to keep it short on the tiny model's random LM.
    """
    _, blocks = split_markdown((REPO / "README.md").read_text(encoding="utf-8"))
    (code,) = ["\n".join(b.lines) for b in blocks if b.lang == "python"]
    out = tmp_path / "hello-api.wav"
    code = (code.replace('"/tmp/tiny"', repr(str(tiny_cv2_model))).replace('"/tmp/prompt.wav"', repr(str(espeak_wav)))
            .replace('"/tmp/hello-api.wav"', repr(str(out))).replace("stream=True,", "stream=True, max_tokens=60,"))
    assert "max_tokens=60" in code
    exec(compile(code, "README.md", "exec"), {})
    import soundfile as sf

    info = sf.info(str(out))
    assert info.samplerate == 24000 and info.frames > 0


# The checks above must be able to fail: each is shown a page with one fault of its kind.

def test_a_broken_link_and_a_wrong_anchor_are_reported(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "b.md").write_text("# Title\n\n## Where your files live\n", encoding="utf-8")
    page = tmp_path / "docs" / "a.md"
    page.write_text("[ok](b.md#where-your-files-live) [gone](c.md) [anchor](b.md#nowhere)\n"
                    "`[not a link](x.md)`\n```\n[in code](y.md)\n```\n", encoding="utf-8")
    problems = link_problems(page)
    assert len(problems) == 2, problems
    assert "no such file" in problems[0] and "c.md" in problems[0]
    assert "#nowhere" in problems[1]


def test_a_missing_path_and_an_unknown_flag_are_reported(tmp_path: Path) -> None:
    page = tmp_path / "faults.md"
    page.write_text("`bench/no_such_bench.py`\n\n```bash\n"
                    ".venv/bin/python -m cosycore synth --model /tmp/tiny --no-such-flag \\\n    --out x.wav\n"
                    ".venv/bin/python -m cosycore models download x --source modelscope\n"
                    ".venv/bin/python -m cosycore.no_such_module --x\n```\n", encoding="utf-8")
    assert path_problems(page) == ["faults.md:1: bench/no_such_bench.py does not exist in this repository"]
    cmds = commands(page)
    assert [c.target for c in cmds] == ["cosycore", "cosycore", "cosycore.no_such_module"]
    assert command_problems(cmds) == [
        "faults.md:7: python -m cosycore.no_such_module: no such module in this repository"]
    problems = command_problems(cmds[:2])
    assert problems == ["faults.md:4: `cosycore synth --help` lists no option --no-such-flag"]


def test_slugs_follow_github() -> None:
    assert slug("Which torch `setup.sh` installs") == "which-torch-setupsh-installs"
    assert slug("Local speech server (OpenAI-compatible)") == "local-speech-server-openai-compatible"
    assert slug("Dialogue scripts, pronunciation dictionary, long-form") == \
        "dialogue-scripts-pronunciation-dictionary-long-form"
    assert slug("The three modes, previous and now, quiet and busy") == \
        "the-three-modes-previous-and-now-quiet-and-busy"
