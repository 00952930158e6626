"""Issue 12 items 3, 4 and 16: downloads are bounded and never silently "verified".

The fake hub on 127.0.0.1 lies about sizes, sends bodies that never end (bounded by its own byte
and time limits), drops every connection, lists files without hashes, or answers the listing with
an HTML page. Each test is named after what the server does.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cosycore import hub as dl
from cosycore.errors import HubUnreachableError, IntegrityError
from cosycore.hub import models_cli, transfer
from cosycore.hub.common import UNLISTED_MARGIN
from cosycore.hub.plan import byte_cap
from cosycore.testing.fake_hub import FakeHub, FakeRepo
from tests.conftest import CV2_REPO

LLM = f"{CV2_REPO}/llm.pt"


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transfer, "RETRY_DELAYS", (0.0, 0.0, 0.0, 0.0))


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = models_cli.main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _staged_sizes(models: Path) -> dict[str, int]:
    root = models / dl.STAGING_DIR
    return {p.relative_to(root).as_posix(): p.stat().st_size for p in root.rglob("*") if p.is_file()} \
        if root.exists() else {}


# -- item 3: more bytes than listed ------------------------------------------------------------------

def test_server_sends_more_bytes_than_listed(hub: FakeHub, cv2_repo: FakeRepo, tmp_path: Path) -> None:
    hub.oversize[LLM] = 4096
    with pytest.raises(IntegrityError, match=r"llm\.pt: the server 127\.0\.0\.1:\d+ sent more than"):
        dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    assert len(hub.requests_for("/llm.pt")) <= 2  # no endless refetching (one GET, plus the LFS redirect)
    assert not any(k.endswith("llm.pt.part") for k in _staged_sizes(tmp_path))  # the junk .part is gone
    assert all(size <= len(cv2_repo.files["llm.pt"]) for size in _staged_sizes(tmp_path).values())


# -- item 4: a body that never ends -----------------------------------------------------------------

def test_body_that_never_ends(hub: FakeHub, cv2_repo: FakeRepo, tmp_path: Path) -> None:
    hub.endless.add(LLM)
    listed = len(cv2_repo.files["llm.pt"])
    with pytest.raises(IntegrityError, match=r"llm\.pt.*more than the .* bytes listed"):
        dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    assert not any(k.endswith("llm.pt.part") for k in _staged_sizes(tmp_path))
    assert sum(_staged_sizes(tmp_path).values()) <= sum(len(d) for d in cv2_repo.files.values())
    assert hub.body_bytes_sent[LLM] < listed + (32 << 20)  # we stopped reading; the server did not run dry
    # and the next attempt with an honest server resumes nothing stale and installs
    hub.endless.clear()
    model = dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    assert dl.verify(model.folder).ok


def test_cap_without_a_listed_size() -> None:
    remote = dl.RemoteFile("llm.pt", None, None, None, "http://127.0.0.1/x")
    capped = dl.PlannedFile("llm.pt", remote, approx_bytes=1000)
    assert byte_cap(capped) == 1000 * 5 // 4 + UNLISTED_MARGIN
    listed = dl.PlannedFile("llm.pt", dl.RemoteFile("llm.pt", 1234, None, None, "u"), approx_bytes=10)
    assert byte_cap(listed) == 1234


# -- retries count every failure ----------------------------------------------------------------------

def test_connection_dropped_every_time(hub: FakeHub, tmp_path: Path) -> None:
    hub.drop_always.add(f"{CV2_REPO}/cosyvoice2.yaml")
    with pytest.raises(HubUnreachableError, match=r"cosyvoice2\.yaml.*5 times in a row"):
        dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    assert 5 <= len(hub.requests_for("/cosyvoice2.yaml")) <= 6


# -- item 16: listings without hashes, HTML listings, manifests pointing outside ----------------------

def test_listing_without_hashes(hub: FakeHub, tmp_path: Path) -> None:
    hub.no_hashes = True
    hub.corrupt.add(f"{CV2_REPO}/hift.pt")  # a corrupted file that nothing can catch without a hash
    code, out, err = cli("download", "cosyvoice2-0.5b", "--dir", str(tmp_path), "--endpoint", hub.url)
    assert code == 0, err
    assert "unverified" in err and "no published hash" in err
    code, out, _ = cli("list", "--dir", str(tmp_path))
    assert code == 0 and "unverified" in out
    code, out, err = cli("verify", "cosyvoice2-0.5b", "--dir", str(tmp_path))
    assert code == 0 and "unverified" in out and "hift.pt" in out  # never a silent "verified"
    manifest = json.loads((tmp_path / "CosyVoice2-0.5B" / dl.MANIFEST_NAME).read_text())
    assert {f["path"]: f["verified"] for f in manifest["files"]}["hift.pt"] is False


def test_listing_with_hashes_is_verified(hub: FakeHub, tmp_path: Path) -> None:
    code, _out, err = cli("download", "cosyvoice2-0.5b", "--dir", str(tmp_path), "--endpoint", hub.url)
    assert code == 0 and "unverified" not in err
    code, out, _ = cli("list", "--dir", str(tmp_path))
    assert "unverified" not in out


def test_html_listing_from_a_captive_portal(hub: FakeHub, tmp_path: Path) -> None:
    hub.html_listing = True
    code, _out, err = cli("download", "cosyvoice2-0.5b", "--dir", str(tmp_path), "--endpoint", hub.url)
    assert code == 1 and "Traceback" not in err and "JSONDecodeError" not in err
    assert "proxy" in err and "HF_ENDPOINT" in err


def test_verify_with_a_manifest_listing_paths_outside(hub: FakeHub, tmp_path: Path) -> None:
    model = dl.download_model("cosyvoice2-0.5b", tmp_path / "models", endpoint=hub.url)
    secret = tmp_path / "secret.txt"
    secret.write_text("not yours to hash")
    manifest = model.folder / dl.MANIFEST_NAME
    data = json.loads(manifest.read_text())
    data["files"].append({"path": "../../secret.txt", "size": secret.stat().st_size, "sha256": "0" * 64})
    data["files"].append({"path": "/etc/hostname", "size": 1, "sha256": "0" * 64})
    manifest.write_text(json.dumps(data))
    report = dl.verify(model.folder)
    assert not report.ok
    outside = [p for p in report.problems if "outside the model folder" in p]
    assert len(outside) == 2 and report.files_checked == len(data["files"]) - 2


def test_junk_part_longer_than_listed_is_removed(hub: FakeHub, cv2_repo: FakeRepo, tmp_path: Path) -> None:
    staged = tmp_path / dl.STAGING_DIR / "cosyvoice2-0.5b"
    staged.mkdir(parents=True)
    (staged / "llm.pt.part").write_bytes(b"\0" * (len(cv2_repo.files["llm.pt"]) + 10))
    model = dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    assert dl.verify(model.folder).ok


@pytest.mark.parametrize("endpoint", ["not a url", "ftp://mirror.example", "hf-mirror.com"])
def test_download_with_endpoint(tmp_path: Path, endpoint: str) -> None:
    """A malformed --endpoint is a usage error (exit 2) that says so, not "check the internet"."""
    out, err = io.StringIO(), io.StringIO()
    code = models_cli.main(["download", "cosyvoice2-0.5b", "--endpoint", endpoint, "--dir", str(tmp_path)],
                           stdout=out, stderr=err)
    assert code == 2 and "is not a web address" in err.getvalue() and "internet" not in err.getvalue()
    assert list(tmp_path.iterdir()) == []


# -- issue 27: listings that never end, nest 100k deep or hold fields of the wrong kind -------------

@pytest.mark.parametrize(("fault", "why"), [("endless", "longer than 8 MiB"), ("deep", "nests deeper than 32 levels"),
                                            ("malformed", "its fields are not a model listing's")])
def test_model_listing_that_is(hub: FakeHub, tmp_path: Path, fault: str, why: str) -> None:
    """Typed errors (not "unexpected failure"), and an endless listing is read no further than the cap."""
    hub.listing_fault = fault
    code, _out, err = cli("download", "cosyvoice2-0.5b", "--dir", str(tmp_path), "--endpoint", hub.url)
    assert code == 1 and "Traceback" not in err and "unexpected" not in err
    assert "did not answer like a model hub" in err and why in err and "HF_ENDPOINT" in err
    assert sum(hub.body_bytes_sent.values()) < 64 << 20  # stopped reading soon after the 8 MiB cap
