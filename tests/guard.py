"""Helpers for the robustness tests: run ``kg`` as users do, and check an OUT is untouched."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
from hypothesis import settings

# Property tests stay quick in CI; KG_HYPOTHESIS_PROFILE=deep searches much harder.
settings.register_profile("ci", max_examples=40, deadline=None)
settings.register_profile("deep", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("KG_HYPOTHESIS_PROFILE", "ci"))


def few(n: int) -> settings:
    """At most ``n`` examples for a slow property in CI; the profile's count otherwise."""
    if os.environ.get("KG_HYPOTHESIS_PROFILE", "ci") == "ci":
        return settings(max_examples=n)
    return settings()

ROOT = Path(__file__).resolve().parent.parent

#: A tiny valid corpus: three papers that share concepts, so every output is non-trivial.
GOOD_JSONL = (
    '{"id": "g1", "title": "Graph neural networks", "abstract": "We train graph neural '
    'networks (GNNs) for node classification."}\n'
    '{"id": "g2", "title": "Diffusion", "abstract": "Diffusion models meet GNNs on CIFAR-10."}\n'
    '{"id": "g3", "title": "Privacy", "abstract": "Differential privacy for reinforcement '
    'learning."}\n'
)

FILES = ("graph.ttl", "model.json", "model.sqlite", "manifest.json", "graph.html")


def kg(*args: object, env: dict | None = None, cwd: Path | None = None,
       check: bool = False) -> subprocess.CompletedProcess:
    """Run ``python -m kg ARGS`` in a subprocess and return the finished process."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "kg", *map(str, args)], capture_output=True,
                          text=True, timeout=600, env=full_env, cwd=cwd or ROOT)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def snapshot(out: Path) -> dict[str, bytes]:
    """The bytes of every top-level output file, and the store's triple count."""
    snap = {name: (out / name).read_bytes() for name in FILES}
    snap["store-triples"] = str(store_triples(out)).encode()
    return snap


def store_triples(out: Path) -> int:
    """Open ``OUT/store`` read-only as users do and count its triples."""
    return len(store_quads(out))


def store_quads(out: Path) -> set:
    """Every quad of ``OUT/store``, opened read-only as users do (and closed again)."""
    store = ox.Store.read_only(str(out / "store"))
    try:
        return set(store)
    finally:
        del store


def leftovers(out: Path) -> list[str]:
    """Temporary or moved-aside siblings of ``out`` (``.OUT.tmp-*``, ``.OUT.old-*``)."""
    if not out.parent.exists():
        return []
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def assert_intact(out: Path, before: dict[str, bytes]) -> None:
    """``out`` is byte-identical to ``before``, its store opens, and nothing is left over."""
    assert snapshot(out) == before
    assert leftovers(out) == []


def copy_out(src: Path, dest: Path) -> Path:
    """A private copy of a built OUT that a test may try to overwrite."""
    shutil.copytree(src, dest)
    return dest


def export_bytes(out: Path, fmt: str) -> bytes:
    """What ``kg export OUT --format FMT`` writes, as bytes."""
    from kg.stores.export import export

    buf = io.BytesIO()
    export(out, fmt, buf)
    return buf.getvalue()
