"""The release yaml read as plain data: HyperPyYAML's ``!new:``/``!name:``/``!apply:`` tags only
*record* what they name (:class:`Tagged`); ``!ref`` references are resolved the way HyperPyYAML
resolves them (whole-scalar references alias the node, embedded ones interpolate and then evaluate
simple arithmetic), and nothing is ever imported or called. Every step is bounded (file size,
aliases, values visited, arithmetic).
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import ConfigError, ModelNotFoundError
from ..safety import UnsafeFileError, read_regular_file


@dataclass(frozen=True)
class Tagged:
    """A ``!new:``, ``!name:`` or ``!apply:`` node, recorded instead of being executed."""

    kind: str  # "new" | "name" | "apply" | "module"
    target: str  # dotted path, e.g. "cosyvoice.llm.llm.Qwen2LM"
    args: Any = None  # mapping (keyword arguments), list (positional) or None

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.args) if isinstance(self.args, Mapping) else {}

    @property
    def class_name(self) -> str:
        return self.target.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class _Ref:
    expr: str
    copy: bool = False


MAX_YAML_BYTES = 1 << 20  # the release yaml is ~10 kB; config.json ~1 kB
MAX_YAML_ALIASES = 256  # the release yaml uses none; "billion laughs" needs many
MAX_YAML_NODES = 100_000  # nodes visited while resolving !ref (the release yaml has a few hundred)
MAX_REF_STRING = 10_000  # characters of an interpolated !ref string
MAX_ARITH_CHARS = 200  # a !ref arithmetic expression, e.g. "<a> * <b> // 2"
MAX_ARITH_VALUE = 10**15  # magnitude of any operand or intermediate result
MAX_EXPONENT = 64  # "x ** e" only with a literal e up to this; no towers such as 9**9**9


class _PlainLoader(yaml.SafeLoader):
    """SafeLoader that turns HyperPyYAML tags into inert data; aliases are counted and capped."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise ConfigError(f"the yaml uses more than {MAX_YAML_ALIASES} aliases (*name); a release yaml "
                                  "uses none. Use the yaml that came with the release folder.")
        return super().compose_node(parent, index)


def _construct_args(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    value = loader.construct_scalar(node)  # type: ignore[arg-type]
    return None if value in ("", None) else value


def _multi(kind: str):
    def construct(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Tagged:
        return Tagged(kind, suffix, _construct_args(loader, node))

    return construct


for _kind in ("new", "name", "apply", "module"):
    _PlainLoader.add_multi_constructor(f"!{_kind}:", _multi(_kind))
_PlainLoader.add_constructor(
    "!ref", lambda loader, node: _Ref(str(loader.construct_scalar(node)))  # type: ignore[arg-type]
)
_PlainLoader.add_constructor(
    "!copy", lambda loader, node: _Ref(str(loader.construct_scalar(node)), copy=True)  # type: ignore[arg-type]
)
_PlainLoader.add_constructor(
    "!tuple", lambda loader, node: tuple(loader.construct_sequence(node, deep=True))  # type: ignore[arg-type]
)

_REF_RE = re.compile(r"<([^<>]+)>")
_ARITH_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
    ast.Mod: operator.mod,
}


def _bounded(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("not arithmetic")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"a !ref expression gives {value}; use finite numbers")
    if abs(value) > MAX_ARITH_VALUE:
        raise ConfigError(f"a !ref expression gives a number beyond {MAX_ARITH_VALUE:.0e}; no release uses one")
    return value


def _eval_arith(text: str) -> Any:
    """Evaluate ``text`` if it is plain arithmetic on numbers, else return it unchanged.

    Operands and results are kept within ±10**15 and a power needs a literal exponent of at most
    64, so an expression such as ``9**9**9`` is refused instead of computed for hours.
    """

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return _bounded(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITH_OPS:
            left = ev(node.left)
            if isinstance(node.op, ast.Pow):
                if not (isinstance(node.right, ast.Constant) and isinstance(node.right.value, (int, float))
                        and abs(node.right.value) <= MAX_EXPONENT):
                    raise ConfigError(f"the !ref expression {text.strip()!r} raises to a power that is not a "
                                      f"literal number up to {MAX_EXPONENT}")
                if abs(left) > 1 and math.log10(abs(left)) * abs(node.right.value) > 15:
                    raise ConfigError(f"the !ref expression {text.strip()!r} gives a number beyond "
                                      f"{MAX_ARITH_VALUE:.0e}")
            right = ev(node.right)
            return _bounded(_ARITH_OPS[type(node.op)](left, right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        raise ValueError("not arithmetic")

    if len(text) > MAX_ARITH_CHARS:
        return text
    try:
        return ev(ast.parse(text.strip(), mode="eval"))
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, RecursionError, MemoryError):
        return text
    except OverflowError as e:
        raise ConfigError(f"the !ref expression {text.strip()!r} overflows ({e})") from e


def _lookup(tree: Mapping[str, Any], key: str) -> Any:
    # "a[b][c]" -> tree["a"]["b"]["c"]
    parts = re.findall(r"[^\[\]]+", key)
    node: Any = tree
    for p in parts:
        if isinstance(node, Mapping) and p in node:
            node = node[p]
        elif isinstance(node, Tagged) and isinstance(node.args, Mapping) and p in node.args:
            node = node.args[p]
        else:
            raise KeyError(key)
    return node


def _resolve(node: Any, root: Mapping[str, Any], depth: int = 0, budget: list[int] | None = None) -> Any:
    budget = [MAX_YAML_NODES] if budget is None else budget
    budget[0] -= 1
    if budget[0] < 0:  # aliases and !ref would otherwise expand exponentially ("billion laughs")
        raise ConfigError(f"the yaml expands to more than {MAX_YAML_NODES:,} values through !ref and aliases; "
                          "a release yaml has a few hundred. Use the yaml that came with the release folder.")
    if depth > 64:
        raise ConfigError("the yaml has a !ref cycle deeper than 64 levels")
    if isinstance(node, _Ref):
        expr = node.expr.strip()
        whole = _REF_RE.fullmatch(expr)
        if whole:
            return _resolve(_lookup(root, whole.group(1)), root, depth + 1, budget)

        def sub(m: re.Match[str]) -> str:
            return str(_resolve(_lookup(root, m.group(1)), root, depth + 1, budget))

        text = _REF_RE.sub(sub, expr)
        if len(text) > MAX_REF_STRING:
            raise ConfigError(f"a !ref expression expands to {len(text):,} characters; a release yaml has short ones")
        return _eval_arith(text)
    if isinstance(node, Tagged):
        return Tagged(node.kind, node.target, _resolve(node.args, root, depth + 1, budget))
    if isinstance(node, dict):
        return {k: _resolve(v, root, depth + 1, budget) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        items = [_resolve(v, root, depth + 1, budget) for v in node]
        return tuple(items) if isinstance(node, tuple) else items
    return node


def read_small_text(path: Path, what: str) -> str:
    """A config file's text: a regular file (not a FIFO or /dev/zero), at most 1 MiB, UTF-8."""
    try:
        raw = read_regular_file(path, MAX_YAML_BYTES)
    except FileNotFoundError as e:
        raise ModelNotFoundError(f"{Path(path).name} is missing from {Path(path).parent}") from e
    except UnsafeFileError as e:
        raise ConfigError(f"{e}; {what} must be the small text file that came with the release.") from e
    except OSError as e:
        raise ConfigError(f"{path} cannot be read ({e.strerror or e}); check its permissions.") from e
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path} is not UTF-8 text ({e.reason} at byte {e.start}); use the file that came with "
                          "the release.") from e


@contextmanager
def _naming_the_file(path: Path) -> Iterator[None]:
    """A reading step's :class:`ConfigError`, or nesting too deep for the stack or memory, as an error naming
    ``path``."""
    try:
        yield
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from e
    except (RecursionError, MemoryError) as e:
        raise ConfigError(f"{path} nests too deeply to be a release yaml") from e


def load_plain_yaml(path: Path, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Read a HyperPyYAML file as plain data. Nothing named in it is imported or run.

    Bounded: only a regular file of at most 1 MiB is read, aliases are capped, ``!ref`` expansion
    visits at most 100,000 values and ``!ref`` arithmetic stays within ±10**15.
    """
    text = read_small_text(Path(path), "the release yaml")
    try:
        with _naming_the_file(path):
            tree = yaml.load(text, Loader=_PlainLoader)
    except yaml.YAMLError as e:
        raise ConfigError(f"{path} is not valid yaml: {e}") from e
    if not isinstance(tree, dict):
        raise ConfigError(f"{path} does not hold a yaml mapping at the top level")
    if overrides:
        tree.update(overrides)
    try:
        with _naming_the_file(path):
            resolved = _resolve(tree, tree)
    except KeyError as e:
        raise ConfigError(f"{path}: !ref to {e.args[0]!r}, which the file does not define") from e
    return {k: v for k, v in resolved.items() if not str(k).startswith("__")}
