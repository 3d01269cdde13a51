"""Shared fixtures: the example corpus and the NeurIPS 2018 sample, built once per session.

Every test runs from a plain clone: the corpora tests need are in the repo
(``examples/``, ``tests/data/``). Only the evaluation tests read the shared data
folder (``../shared/data``, or ``$KG_SHARED_DATA``), and skip without it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "neurips2026-abstracts.txt"
#: 200 NeurIPS 2018 abstracts (every fifth record of ../shared/data/neurips2018.jsonl):
#: real abstracts with LaTeX, acronyms defined across papers, more than 400 nodes a page.
NEURIPS2018_SAMPLE = ROOT / "tests" / "data" / "neurips2018-sample.jsonl"
SHARED_DATA = Path(os.environ.get("KG_SHARED_DATA") or ROOT.parent / "shared" / "data")


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
    """A file of ../shared/data, or skip the test with a clear reason (evaluation only)."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"evaluation data {path} not found: the shared data folder is not next "
                    "to the repo (set KG_SHARED_DATA to its path)")
    return path


# The Bolt server fixtures (``bolt``, ``bolt_example``): see tests/servers_bolt.py.
from tests.servers_bolt import bolt, bolt_example  # noqa: E402, F401


@pytest.fixture(scope="session")
def neurips2018_out(tmp_path_factory) -> Path:
    """The NeurIPS 2018 sample (200 papers, :data:`NEURIPS2018_SAMPLE`) built once per session."""
    from kg.build import build

    out = tmp_path_factory.mktemp("neurips2018") / "out"
    build([NEURIPS2018_SAMPLE], out, page=False)
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


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    """A private cache for local servers; append each OUT served, its server is stopped after."""
    from kg.stores.bolt_server import forget_state, load_state, stop_server

    monkeypatch.setenv("KG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    outs: list = []
    yield outs
    for out in outs:
        server = load_state(out)
        if server is not None:
            stop_server(server)
            forget_state(out)


@pytest.fixture(scope="session")
def built_graph(example_out):
    """The example build's ``graph.ttl`` parsed by rdflib."""
    import rdflib

    return rdflib.Graph().parse(example_out / "graph.ttl", format="turtle")
