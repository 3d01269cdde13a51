"""Shared fixtures: the example corpus built once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "neurips2026-abstracts.txt"
SHARED_DATA = ROOT.parent / "shared" / "data"


def paper_id(n: int) -> str:
    """Id of the n-th abstract of the example corpus."""
    return f"neurips2026-abstracts-{n}"


@pytest.fixture(scope="session")
def example_build(tmp_path_factory):
    """The example corpus built into a temporary OUT (shared, treat as read-only)."""
    from kg.build import build

    out = tmp_path_factory.mktemp("example") / "out"
    return build([EXAMPLE], out)


@pytest.fixture(scope="session")
def example_kg(example_build):
    return example_build.graph


@pytest.fixture(scope="session")
def example_out(example_build) -> Path:
    return example_build.out


def shared_file(name: str) -> Path:
    """A file of ../shared/data, or skip the test with a clear reason."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} not found: the shared data folder is not next to the repo")
    return path


# The Bolt server fixtures (``bolt``, ``bolt_example``): see tests/servers_bolt.py.
from tests.servers_bolt import bolt, bolt_example  # noqa: E402, F401


@pytest.fixture(scope="session")
def neurips2018_out(tmp_path_factory) -> Path:
    """../shared/data/neurips2018.jsonl (1003 papers) built once per session (~20 s)."""
    from kg.build import build

    src = shared_file("neurips2018.jsonl")
    out = tmp_path_factory.mktemp("neurips2018") / "out"
    build([src], out, page=False)
    return out


@pytest.fixture(scope="session")
def neurips2018_kg(neurips2018_out):
    """The model of :func:`neurips2018_out` (treat as read-only)."""
    from kg.stores.out import load_model

    return load_model(neurips2018_out)


@pytest.fixture(scope="session")
def virtuoso(tmp_path_factory):
    """A real Virtuoso server on free 127.0.0.1 ports (see tests/servers.py), or skip."""
    from tests.servers import Virtuoso, virtuoso_available

    if not virtuoso_available():
        pytest.skip("virtuoso-t not installed (apt-get install virtuoso-opensource)")
    with Virtuoso(tmp_path_factory.mktemp("virtuoso")) as server:
        yield server


@pytest.fixture(scope="module")
def good_out(tmp_path_factory) -> Path:
    """A good OUT built from a tiny corpus (copied per test before anyone overwrites it)."""
    from kg.build import build
    from tests.guard import GOOD_JSONL

    src = tmp_path_factory.mktemp("good") / "good.jsonl"
    src.write_text(GOOD_JSONL, encoding="utf-8")
    return build([src], src.parent / "out").out


@pytest.fixture
def out(good_out, tmp_path) -> Path:
    """A copy of :func:`good_out` that a test may overwrite."""
    from tests.guard import copy_out

    return copy_out(good_out, tmp_path / "out")
