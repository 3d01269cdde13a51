"""Bridges between two topics (issue 6): reader-checked answers, the three engines agree,
the ``kg bridge`` command, and hostile topic text.

The example corpus was read by hand: abstract 14 (SHiFT) puts LLMs and GNNs
together, 17 (List-GRPO) trains multimodal LLMs with reinforcement learning, 3
calibrates GNNs; differential privacy (6, Private Evolution) and diffusion models
(1) meet only through "generative model".
"""

from __future__ import annotations

import csv
import io
import json
import random

import pytest

from kg.core.errors import KGError, NotFoundError
from kg.stores.out import open_store
from queries import bridging as bridges
from queries.bridging import SameTopicError
from queries.engines import engine_for
from tests.conftest import paper_id
from tests.guard import kg

#: pairs of the example corpus, one of each kind of answer
EXAMPLE_PAIRS = [
    ("graph neural networks", "large language models"),   # one bridge, and connectors
    ("reinforcement learning", "LLMs"),                     # one bridge
    ("GNNs", "calibration"),                                # one bridge
    ("differential privacy", "diffusion models"),           # a connector
    ("3D reconstruction", "advantage function"),            # the path fallback
    ("MinHash", "differential privacy"),                    # not connected
    ("contrastive learning", "graph contrastive learning"), # nested topics
    ("graph contrastive learning", "contrastive learning"),
    ("RL", "uncertainty quantification"),
    ("GNN", "GNNs"),                                        # the same concept: an error
    ("graph neurall netwrk", "LLMs"),                       # unknown: an error
]


def ids(rows: list[dict]) -> list[str]:
    return [r["id"] for r in rows]


# -- answers a reader would give ------------------------------------------------------------

@pytest.mark.parametrize("a, b, first", [
    ("graph neural networks", "large language models", 14),
    ("reinforcement learning", "large language models", 17),
    ("graph neural networks", "calibration", 3),
    ("RL", "uncertainty quantification", 17),
])
def test_direct_bridges_put_the_paper_a_reader_names_first(example_kg, a, b, first):
    r = bridges.bridges(example_kg, a, b, all_mentions=True)
    assert r["bridges"][0]["id"] == paper_id(first)
    top = r["bridges"][0]
    assert top["score"] > 0 and top["a_concepts"] and top["b_concepts"]
    abstract = example_kg.papers[top["id"]].abstract
    sides = {e["side"] for e in top["evidence"]}
    assert sides == {"a", "b"}
    assert all(e["sentence"] in abstract for e in top["evidence"])
    # the reasons name the concepts of each side
    assert {e["concept"] for e in top["evidence"] if e["side"] == "a"} == set(top["a_concepts"])


def test_the_bridge_rows_say_which_concepts_of_each_side(example_kg):
    r = bridges.bridges(example_kg, "GNNs", "LLMs", all_mentions=True)
    assert r["a"]["label"] == "graph neural network" and r["b"]["label"] == "large language model"
    row = r["bridges"][0]
    assert row["a_concepts"] == ["graph neural network"]
    assert row["b_concepts"] == ["large language model"]
    assert "SHiFT" in row["evidence"][0]["sentence"]
    r = bridges.bridges(example_kg, "reinforcement learning", "LLMs", all_mentions=True)
    assert "reinforcement learning" in r["bridges"][0]["a_concepts"]
    assert r["bridges"][0]["b_concepts"] == ["multimodal large language model"]


def test_unconnected_topics_get_the_connecting_concept(example_kg):
    r = bridges.bridges(example_kg, "differential privacy", "diffusion models")
    assert r["bridges"] == []
    c = r["connectors"][0]
    assert (c["kind"], c["label"]) == ("concept", "generative model")
    assert (c["a_papers"], c["b_papers"]) == ([paper_id(6)], [paper_id(1)])
    steps = [(s["kind"], s["id"]) for s in c["path"]]
    assert steps[1:4] == [("paper", paper_id(6)), ("concept", "generative-model"),
                          ("paper", paper_id(1))]
    assert steps[-1] == ("concept", "diffusion-model")
    # the sentences behind each link of the path, from the right papers
    for e in c["evidence"]:
        assert e["sentence"] in example_kg.papers[e["paper"]].abstract
    assert {(e["side"], e["paper"]) for e in c["evidence"]} == {
        ("a", paper_id(6)), ("b", paper_id(1))}
    assert any(e["concept"] == "generative model" for e in c["evidence"])


def test_connectors_link_different_papers(example_kg):
    # calibration is only in abstract 3, which is a bridge: nothing to connect it to
    r = bridges.bridges(example_kg, "GNNs", "calibration", all_mentions=True)
    assert ids(r["bridges"]) == [paper_id(3)] and r["connectors"] == []
    r = bridges.bridges(example_kg, "GNNs", "LLMs", all_mentions=True)
    assert ids(r["connectors"])  # few direct bridges: connectors too
    for c in r["connectors"]:
        assert not set(c["a_papers"]) & set(c["b_papers"])
        assert paper_id(14) not in c["a_papers"] + c["b_papers"]
        assert c["id"] not in r["a"]["concept_ids"] + r["b"]["concept_ids"]
    assert [c["score"] for c in r["connectors"]] == sorted(
        (c["score"] for c in r["connectors"]), reverse=True)


def test_no_connector_falls_back_to_the_shortest_path(example_kg):
    r = bridges.bridges(example_kg, "3D reconstruction", "advantage function")
    assert r["bridges"] == [] and len(r["connectors"]) == 1
    c = r["connectors"][0]
    assert c["kind"] == "path" and c["score"] is None
    papers = [s["id"] for s in c["path"] if s["kind"] == "paper"]
    assert len(papers) >= 3  # two papers would have been a connector
    assert papers[0] in c["a_papers"] and papers[-1] in c["b_papers"]
    assert c["path"][0]["id"] in r["a"]["concept_ids"]
    assert c["path"][-1]["id"] in r["b"]["concept_ids"]
    # every step is a real mention, with its sentence
    for e in c["evidence"]:
        assert e["sentence"] in example_kg.papers[e["paper"]].abstract


def test_topics_the_corpus_does_not_connect_give_an_empty_answer_and_a_note(example_kg):
    r = bridges.bridges(example_kg, "MinHash", "differential privacy")
    assert r["bridges"] == [] and r["connectors"] == []
    assert r["notes"] == ["the corpus does not connect 'MinHash' and 'differential privacy'"]
    assert r["a"]["papers"] == 1 and r["b"]["papers"] == 1


def test_a_narrower_topic_is_taken_out_of_the_broader_one(example_kg):
    r = bridges.bridges(example_kg, "contrastive learning", "graph contrastive learning")
    assert "graph contrastive learning" not in r["a"]["concepts"]
    assert "graph contrastive learning" in r["b"]["concepts"]
    assert "narrower" in r["notes"][0]
    assert ids(r["bridges"]) == [paper_id(18)]  # plain and graph contrastive learning
    assert r["bridges"][0]["a_concepts"] == ["contrastive learning"]
    back = bridges.bridges(example_kg, "graph contrastive learning", "contrastive learning")
    assert ids(back["bridges"]) == [paper_id(18)]
    assert back["bridges"][0]["b_concepts"] == ["contrastive learning"]


def test_the_same_concept_twice_and_unknown_topics_are_user_errors(example_kg):
    with pytest.raises(SameTopicError, match="both name the concept 'graph neural network'"):
        bridges.bridges(example_kg, "GNN", "graph neural networks")
    with pytest.raises(NotFoundError, match="did you mean 'graph neural network'"):
        bridges.bridges(example_kg, "graph neurall netwrk", "LLMs")


def test_limit_and_min_direct(example_kg):
    r = bridges.bridges(example_kg, "GNNs", "LLMs", limit=1, all_mentions=True)
    assert len(r["bridges"]) == 1 and len(r["connectors"]) == 1
    assert bridges.bridges(example_kg, "GNNs", "LLMs", min_direct=1,
                           all_mentions=True)["connectors"] == []


def test_the_score_is_the_documented_one():
    # one paper, "x" twice (once in the title), "y" once; idf 1 and 0.5
    w = bridges.weight
    side_a = (1 + 1.0) * w(2, True)      # 2 * 3.0
    side_b = (1 + 0.5) * w(1, False)     # 1.5 * 1.0
    expect = round(2 * side_a * side_b / (side_a + side_b), 6)
    got = bridges.rank_bridges({"p": {"x": (2, True)}}, {"p": {"y": (1, False)}},
                               {"x": 1.0, "y": 0.5})
    assert got == [("p", expect)] and expect == 2.4


# -- the three engines agree ----------------------------------------------------------------

def answer(fn, src, *args, **kwargs):
    try:
        return ("ok", fn(src, *args, **kwargs))
    except KGError as e:
        return (type(e).__name__, str(e))


def agree(sources: dict, a: str, b: str, **kwargs):
    results = {name: answer(fn, src, a, b, **kwargs) for name, (fn, src) in sources.items()}
    for name in ("sparql", "cypher"):
        assert results[name] == results["python"], (name, a, b, kwargs)
    return results["python"]


def engines(bolt, model, out) -> dict:
    return {"python": (bridges.bridges, model),
            "sparql": (bridges.bridges, open_store(out)),
            "cypher": (bridges.bridges, bolt.load(model))}


def test_engines_agree_on_the_example_corpus(bolt, example_kg, example_out):
    sources = engines(bolt, example_kg, example_out)
    kinds = set()
    for a, b in EXAMPLE_PAIRS:
        status, r = agree(sources, a, b)
        if status == "ok":
            kinds.add("bridge" if r["bridges"] else
                      r["connectors"][0]["kind"] if r["connectors"] else "none")
        agree(sources, a, b, limit=1, min_direct=1)
    assert kinds == {"bridge", "concept", "path", "none"}
    # a broad sample of concept pairs
    rng = random.Random(26)
    mentioned = sorted(example_kg.concept_papers)
    for _ in range(40):
        a, b = rng.sample(mentioned, 2)
        agree(sources, example_kg.concepts[a].label, example_kg.concepts[b].label)


def test_engines_agree_on_neurips2018(bolt, neurips2018_kg, neurips2018_out):
    kg_ = neurips2018_kg
    sources = engines(bolt, kg_, neurips2018_out)
    rng = random.Random(2018)
    by_df = sorted(kg_.concept_papers, key=lambda c: (-len(kg_.concept_papers[c]), c))
    busy, rest = by_df[:12], by_df[12:]
    pairs = [(busy[i], busy[i + 1]) for i in range(0, 12, 2)]
    pairs += [(rng.choice(busy), rng.choice(rest)) for _ in range(6)]
    pairs += [tuple(rng.sample(rest, 2)) for _ in range(6)]
    titled = 0
    found = set()
    for a, b in pairs:
        status, r = agree(sources, kg_.concepts[a].label, kg_.concepts[b].label)
        if status != "ok":
            continue
        found.add("bridge" if r["bridges"] else
                  r["connectors"][0]["kind"] if r["connectors"] else "none")
        titled += sum(1 for row in r["bridges"]
                      if any(m.field == "title" and m.concept in r["a"]["concept_ids"]
                             + r["b"]["concept_ids"] for m in kg_.mentions_by_paper[row["id"]]))
    assert "bridge" in found and titled, (found, titled)  # title mentions were weighed
    agree(sources, "reinforcement learning", "neural network")


def test_every_engine_sees_title_mentions(bolt, neurips2018_kg, neurips2018_out):
    """The profiles behind the score: mention counts and "one is in the title"."""
    kg_ = neurips2018_kg
    titled = sorted({m.concept for m in kg_.mentions if m.field == "title"})[:40]
    engines = [engine_for(s) for s in (kg_, open_store(neurips2018_out), bolt.load(kg_))]
    python, sparql, cypher = (e.profile(titled) for e in engines)
    assert python == sparql == cypher
    assert any(t for prof in python.values() for _, t in prof.values())
    assert any(not t for prof in python.values() for _, t in prof.values())


# -- the command ----------------------------------------------------------------------------

def test_cli_table_shows_scores_concepts_and_one_sentence_per_side(example_out):
    proc = kg("bridge", example_out, "graph neural networks", "large language models",
              "--all-mentions",
              "--engine", "python", check=True)
    out = proc.stdout
    assert "A: graph neural network" in out and "B: large language model" in out
    first = out.index(paper_id(14))
    assert "score 4.877" in out[first:first + 80]
    assert "A: graph neural network" in out[first:] and "B: large language model" in out[first:]
    assert "SHiFT" in out
    assert "Connectors" in out and "path:" in out


def test_cli_json_has_the_documented_shape(example_out):
    proc = kg("bridge", example_out, "differential privacy", "diffusion models",
              "--format", "json", check=True)
    r = json.loads(proc.stdout)
    assert set(r) >= {"a", "b", "bridges", "connectors"}
    assert set(r["a"]) >= {"id", "label", "text", "concepts", "papers"}
    assert r["connectors"][0]["label"] == "generative model"
    proc = kg("bridge", example_out, "GNNs", "calibration", "--format", "json", check=True)
    row = json.loads(proc.stdout)["bridges"][0]
    assert set(row) == {"id", "title", "score", "a_concepts", "b_concepts", "evidence"}
    assert row["id"] == paper_id(3)


def test_cli_csv_and_limit(example_out):
    proc = kg("bridge", example_out, "GNNs", "LLMs", "--all-mentions", "--format", "csv",
              "--limit", "1",
              check=True)
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [r["kind"] for r in rows] == ["bridge", "connector"]
    assert rows[0]["id"] == paper_id(14) and rows[0]["a_evidence"]
    assert "→" in rows[1]["path"]


def test_cli_says_when_the_corpus_does_not_connect_the_topics(example_out):
    proc = kg("bridge", example_out, "MinHash", "differential privacy", check=True)
    assert "the corpus does not connect 'MinHash' and 'differential privacy'" in proc.stdout


def test_cli_engine_cypher_answers_like_sparql(bolt, example_kg, example_out):
    bolt.load(example_kg)
    env = {"NEO4J_URI": bolt.uri, "NEO4J_USER": bolt.user, "NEO4J_PASSWORD": bolt.password,
           "NEO4J_DATABASE": bolt.database or ""}
    args = ("bridge", example_out, "GNNs", "LLMs", "--format", "json")
    got = json.loads(kg(*args, "--engine", "cypher", env=env, check=True).stdout)
    assert got == json.loads(kg(*args, "--engine", "sparql", check=True).stdout)


@pytest.mark.parametrize("a, b, message", [
    ("graph neurall netwrk", "LLMs",
     "kg: error: no concept matches 'graph neurall netwrk'; did you mean 'graph neural network'"),
    ("GNN", "graph neural networks",
     "kg: error: 'GNN' and 'graph neural networks' both name the concept"),
])
def test_cli_errors_are_one_line(example_out, a, b, message):
    proc = kg("bridge", example_out, a, b)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith(message)


# -- hostile topic text ---------------------------------------------------------------------

HOSTILE_TOPICS = [
    "O'Brien \"quoted\" {brace} \\ <b>",
    "</script><script>alert(1)</script>",
    '"}; DROP ALL ; INSERT DATA { <a> <b> <c> } #',
    "' }) MATCH (n) DETACH DELETE n //",
    "line\nbreak\r\n\ttab \\u0041 \\n",
    "${param} `tick` {{ jinja }} ]]>",
]


def test_hostile_topics_give_no_concept_in_every_engine(bolt, example_kg, example_out):
    sources = engines(bolt, example_kg, example_out)
    for text in HOSTILE_TOPICS:
        for pair in ((text, "GNNs"), ("GNNs", text)):
            status, message = agree(sources, *pair)
            assert status == "NotFoundError"
            assert message.startswith(f"no concept matches '{text}'")


@pytest.mark.parametrize("text", HOSTILE_TOPICS[:4] + ["a\nb"])
def test_hostile_topics_on_the_command_line(example_out, text):
    proc = kg("bridge", example_out, text, "GNNs")
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith("kg: error: no concept matches")
    assert "syntax" not in proc.stderr.lower() and "Traceback" not in proc.stderr
