"""The resource helper finds bundled files from source, frozen and installed layouts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.config import resources

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_cache():
    resources.resource_root.cache_clear()
    yield
    resources.resource_root.cache_clear()


def test_source_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(resources.RESOURCES_ENV, raising=False)
    assert resources.resource_root() == REPO / "resources"
    assert resources.resource_path("icons", "app.svg").is_file()


def test_frozen_layout_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(resources.RESOURCES_ENV, raising=False)
    (tmp_path / "resources" / "icons").mkdir(parents=True)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert resources.resource_root() == tmp_path / "resources"


def test_installed_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(resources.RESOURCES_ENV, raising=False)
    installed = tmp_path / "share" / "cosy-studio" / "resources"
    (installed / "icons").mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    monkeypatch.setattr(resources, "__file__", str(tmp_path / "site-packages" / "app" / "resources.py"))
    assert resources.resource_root() == installed


def test_override_and_readable_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "icons").mkdir()
    monkeypatch.setenv(resources.RESOURCES_ENV, str(tmp_path))
    assert resources.resource_root() == tmp_path
    with pytest.raises(FileNotFoundError, match=r"icons/nothing\.png is missing"):
        resources.resource_path("icons", "nothing.png")
    resources.resource_root.cache_clear()
    monkeypatch.setenv(resources.RESOURCES_ENV, str(tmp_path / "absent"))
    monkeypatch.setattr(resources, "__file__", str(tmp_path / "x" / "app" / "resources.py"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "prefix"))
    with pytest.raises(FileNotFoundError, match="COSY_STUDIO_RESOURCES"):
        resources.resource_root()


def test_icon_loads(qtbot) -> None:
    assert not resources.icon("app.svg").isNull()
    assert resources.icon("missing.svg").isNull()
