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
