"""The extraction pipeline saved with ``nlp.to_disk`` loads with ``spacy.load`` in a new process.

The components are found through the ``spacy_factories`` entry points of the installed
distribution (``pyproject.toml``), and the concept matcher brings its terms back
(``kg_concept_matcher/terms.json``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points

import pytest

from tests.conftest import EXAMPLE, ROOT

FACTORIES = {"kg_concept_matcher", "kg_coined_names"}

# Runs in a fresh interpreter that imports nothing of ours: spaCy must find the factories.
_LOAD = """
import json, sys
import spacy
nlp = spacy.load(sys.argv[1])
out = []
for text in json.load(sys.stdin):
    doc = nlp(text)
    out.append({key: [[s.start_char, s.end_char, s.label_, s.kb_id_] for s in doc.spans[key]]
                for key in ("kg_concepts", "kg_coined")})
print(json.dumps(out))
"""


def _spans(nlp, texts):
    out = []
    for text in texts:
        doc = nlp(text)
        out.append({key: [[s.start_char, s.end_char, s.label_, s.kb_id_] for s in doc.spans[key]]
                    for key in ("kg_concepts", "kg_coined")})
    return out


def _installed_factories() -> set[str]:
    return {ep.name for ep in entry_points(group="spacy_factories")} & FACTORIES


@pytest.fixture(scope="module")
def pipeline():
    from extractors.concepts import ConceptRegistry
    from extractors.lexicon import load_lexicon
    from extractors.pipeline import make_pipeline

    registry = ConceptRegistry.from_lexicon(load_lexicon())
    registry.paper_acronyms["p"] = {"SHiFT": "graph-neural-network"}  # a corpus acronym too
    return make_pipeline(registry, span_model=False)


@pytest.fixture(scope="module")
def texts():
    paragraphs = EXAMPLE.read_text(encoding="utf-8").split("\n\n")[1:]
    return [p.strip() for p in paragraphs if p.strip()]


def test_saved_pipeline_loads_in_a_new_process_with_the_same_spans(pipeline, texts, tmp_path):
    missing = FACTORIES - _installed_factories()
    if missing:
        pytest.skip(f"the kg-abstracts distribution with the spacy_factories entry points "
                    f"{sorted(missing)} is not installed (pip install .)")
    pipeline.to_disk(tmp_path / "nlp")
    want = _spans(pipeline, texts)
    assert sum(len(d["kg_concepts"]) for d in want) > 50  # the matcher has its terms
    assert any(d["kg_coined"] for d in want)
    # a new process, in another folder, with nothing of ours imported beforehand
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", _LOAD, str(tmp_path / "nlp")],
                         input=json.dumps(texts), capture_output=True, text=True,
                         cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == want


def test_reloaded_in_the_same_process_the_matcher_is_not_empty(pipeline, texts, tmp_path):
    """It came back silently empty: the terms were not saved with the pipeline."""
    import spacy

    pipeline.to_disk(tmp_path / "nlp")
    assert (tmp_path / "nlp" / "kg_concept_matcher" / "terms.json").is_file()
    again = spacy.load(tmp_path / "nlp")
    assert _spans(again, texts) == _spans(pipeline, texts)


def test_to_bytes_round_trip_keeps_the_first_concept_of_a_shared_form():
    import spacy

    nlp = spacy.blank("en")
    matcher = nlp.add_pipe("kg_concept_matcher")
    matcher.add_phrases("first", ["shared form"])
    matcher.add_phrases("second", ["shared form", "other form"])
    other = spacy.blank("en")
    other.add_pipe("kg_concept_matcher").from_bytes(matcher.to_bytes())
    doc = other("A shared form and an other form.")
    assert [(s.text, s.label_) for s in doc.spans["kg_concepts"]] == [
        ("shared form", "first"), ("other form", "second")]
