"""The differential test: every helper gives identical answers in Python, SPARQL and Cypher.

Same items, same order, same ties (docs/queries.md), on the example corpus
(every concept and paper) and on NeurIPS 2018 (a fixed sample), the Cypher
engine talking to a real Bolt server (tests/servers_bolt.py).
"""

from __future__ import annotations

import random

import pytest

from kg.core.errors import KGError
from kg.stores.out import open_store
from queries import ENGINES, QUESTIONS
from queries.engine import Engine
from queries.engines import open_engine
from queries.python_index import IndexedModelEngine

HELPERS = ("papers", "papers_for_concept", "concepts", "paper", "related_papers", "cooccurring",
           "concept_path", "stats", "relations", "methods_for", "evaluations")


def answer(fn, src, *args, **kwargs):
    """The result, or the error the user would see (engines must agree on failures too)."""
    try:
        return ("ok", fn(src, *args, **kwargs))
    except KGError as e:
        return (type(e).__name__, str(e))


class Engines:
    """Every registered engine (queries.ENGINES) over the same build."""

    def __init__(self, kg, out, graph):
        sources = {"python": kg, "sparql": open_store(out), "cypher": graph}
        assert set(sources) == set(ENGINES), "a new engine needs its source here"
        self.engines = {name: entry.load()(sources[name]) for name, entry in ENGINES.items()}
        # the Python engine over OUT reads model.sqlite by key: it must agree as well
        self.engines["python over OUT"] = indexed = open_engine("python", out)
        assert isinstance(indexed, IndexedModelEngine)
        self.checked = dict.fromkeys(HELPERS, 0)

    def agree(self, helper: str, *args, **kwargs):
        results = {name: answer(QUESTIONS[helper], engine, *args, **kwargs)
                   for name, engine in self.engines.items()}
        reference = results["python"]
        for name in results:
            assert results[name] == reference, (name, helper, args, kwargs)
        self.checked[helper] += 1
        return reference


def check_corpus(engines: Engines, kg, concepts: list[str], papers: list[str],
                 pairs: list[tuple[str, str]]) -> None:
    for i, cid in enumerate(concepts):
        c = kg.concepts[cid]
        engines.agree("papers_for_concept", c.label)
        engines.agree("cooccurring", c.label)
        engines.agree("relations", c.label)
        if cid in kg.narrower:  # only then does narrower=False change anything
            engines.agree("papers_for_concept", c.label, narrower=False)
        if i % 10 == 0:
            engines.agree("cooccurring", c.label, limit=3)
            engines.agree("relations", c.label, direction="in", narrower=False)
            engines.agree("methods_for", c.label)
            engines.agree("evaluations", c.label)
            if c.aliases:
                engines.agree("papers_for_concept", c.aliases[0])
    for pid in papers:
        engines.agree("paper", pid)
        engines.agree("related_papers", pid)
        engines.agree("related_papers", pid, limit=2)
    for a, b in pairs:
        engines.agree("concept_path", kg.concepts[a].label, kg.concepts[b].label)
    engines.agree("stats")
    engines.agree("papers")
    engines.agree("papers", since=2018, venue="NeurIPS")
    engines.agree("concepts")
    engines.agree("concepts", type="method")
    # failures: unknown concept and paper give the same one-line error everywhere
    engines.agree("papers_for_concept", "difusion model")
    engines.agree("cooccurring", "no such concept at all")
    engines.agree("paper", "no-such-paper")
    engines.agree("related_papers", "no-such-paper")
    engines.agree("relations", "no such concept at all")
    assert all(engines.checked.values()), engines.checked


def test_engines_agree_on_the_example_corpus(bolt, example_kg, example_out):
    kg = example_kg
    engines = Engines(kg, example_out, bolt.load(kg))
    mentioned = sorted(kg.concept_papers)
    # every concept that is mentioned or has narrower ones (the others answer nothing)
    concepts = sorted(set(mentioned) | {c for c in kg.narrower if c in kg.concepts})
    pairs = list(zip(mentioned, mentioned[1:] + mentioned[:1], strict=True))
    pairs += [("minhash", "graph-neural-network"), ("reinforcement-learning", "minhash")]
    pairs = [(a, b) for a, b in pairs if a in kg.concepts and b in kg.concepts]
    check_corpus(engines, kg, concepts, sorted(kg.papers), pairs)
    # the questions have non-trivial answers here, so agreement means something
    assert engines.agree("papers_for_concept", "GNNs")[1]
    assert len(engines.agree("related_papers", "neurips2026-abstracts-3")[1]) >= 1
    path = engines.agree("concept_path", "graph neural networks", "contrastive learning")
    assert path[0] == "ok" and path[1]


def test_engines_agree_on_relations(bolt, example_kg, tmp_path):
    """Relation edges made by hand (tests/relation_data.py) in all three stores."""
    from tests.relation_data import with_relations
    from tests.test_relation_graph import write_out

    kg = with_relations(example_kg)
    engines = Engines(kg, write_out(kg, tmp_path / "out"), bolt.load(kg))
    ends = sorted({c for key in kg.relation_edges for c in key[1:]})
    for cid in ends:
        label = kg.concepts[cid].label
        for direction in ("both", "in", "out"):
            engines.agree("relations", label, direction=direction)
        engines.agree("relations", label, narrower=False, type=["used-for", "compare"])
        engines.agree("methods_for", label)
        engines.agree("evaluations", label)
    for pid in sorted(kg.papers):
        engines.agree("paper", pid)
    assert any(engines.agree("relations", kg.concepts[c].label)[1] for c in ends)
    assert any(engines.agree("paper", p)[1]["relations"] for p in kg.relations_by_paper)


def test_engines_agree_on_neurips2018(bolt, neurips2018_kg, neurips2018_out):
    kg = neurips2018_kg
    engines = Engines(kg, neurips2018_out, bolt.load(kg))
    rng = random.Random(2018)
    by_df = sorted(kg.concept_papers, key=lambda c: (-len(kg.concept_papers[c]), c))
    concepts = by_df[:5] + rng.sample(by_df[5:], 10)  # the busiest ones and a random few
    # a concept with narrower ones, so narrower=True and False differ
    concepts += sorted(c for c in kg.narrower if c in kg.concepts)[:3]
    papers = rng.sample(sorted(kg.papers), 12)
    pairs = [(concepts[i], concepts[-1 - i]) for i in range(6)]
    check_corpus(engines, kg, concepts, papers, pairs)
    top = engines.agree("related_papers", papers[0], limit=10)[1]
    assert top, "a NeurIPS paper should have related papers"


@pytest.mark.parametrize("name", list(ENGINES))
def test_every_engine_implements_the_interface(name):
    cls = ENGINES[name].load()
    wanted = {m for m in vars(Engine) if not m.startswith("_") and callable(getattr(Engine, m))}
    missing = sorted(m for m in wanted if not callable(getattr(cls, m, None)))
    assert not missing, f"{name} engine lacks {missing}"
    assert cls.name == name


def test_every_question_is_asked_of_every_engine():
    # bridges: tests/test_bridges.py; topic, trends: tests/test_engines_agree_topics.py
    assert set(HELPERS) | {"bridges", "topic", "trends"} == set(QUESTIONS)
