"""No injection: hostile ids, titles, abstracts and concept labels go through every engine,
the CLI and the pages as plain data.

A corpus whose ids and texts are full of quotes, braces, backslashes, newlines,
``</script>``, SPARQL and Cypher fragments and unicode is built (with a lexicon whose
concept label is just as hostile); then every helper of every engine, the CLI commands
that take user text, the RDF files and the pages are checked: each finds exactly what it
should, or nothing with a one-line error; never a syntax error or injected code.
"""

from __future__ import annotations

import json
import re

import pyoxigraph as ox
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.build import build
from kg.core.errors import KGError, NotFoundError
from kg.core.vocab import DCTERMS, SKOS, paper_iri
from tests.guard import kg

HOSTILE = [
    "O'Brien \"quoted\" {brace} \\ <b>model</b>",
    "</script><script>alert(1)</script>",
    '"}; DROP ALL ; INSERT DATA { <a> <b> <c> } #',
    "' }) MATCH (n) DETACH DELETE n //",
    "line\nbreak\r\n\ttab \\u0041 \\U00000042 \\n",
    "ünï 中文 \u202eRTL \U0001F600 e\u0301 ${param} `tick` <!-- -->",
    "{{ jinja }} {% raw %} ]]> &amp; &lt;",
]
IDS = [
    'x"> <y', "a b/c?d#e%20", "back\\slash\\n", "</script>", "{id}",
    "'; MATCH (n) DETACH DELETE n; //", "ü-ñ-中文", "line\nbreak", "$id \\u0022",
]
EVIL_LABEL = HOSTILE[0]
LEXICON = """\
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix kgv: <https://w3id.org/kg-abstracts/vocab#> .
@prefix kgc: <https://w3id.org/kg-abstracts/concept/> .

kgc:evil-model a skos:Concept ;
    skos:prefLabel "O'Brien \\"quoted\\" {brace} \\\\ <b>model</b>"@en ;
    skos:altLabel "evil network"@en ;
    kgv:conceptType "method" .
"""
#: Texts found nowhere in the corpus (so no extractor can have made a concept of them):
#: each must give "no concept matches" / "no paper with id", nothing else.
MISSING = [
    "</script><img src=x onerror=alert(2)>",
    '"}; DELETE WHERE { ?s ?p ?o } #',
    "') RETURN 1 UNION MATCH (x) DETACH DELETE x //",
    "ab\ncd\r\n\tef \\u0041 \\",
    "{{ 7*7 }} ${7*7} `x`",
    "\\", '"', "'", "}", "{", "\n", "\x00", "?x", "$x", "*/",
]

ENGINES = ["python", "sparql", "cypher"]


def _rows():
    rows = []
    for i, pid in enumerate(IDS):
        rows.append({
            "id": pid,
            "title": f"{HOSTILE[i % len(HOSTILE)]} graph neural networks",
            "abstract": (f"We use graph neural networks and the evil network. "
                         f"{HOSTILE[(i + 1) % len(HOSTILE)]} "
                         f"{'Diffusion models.' if i % 2 else 'Reinforcement learning.'} "
                         f"{HOSTILE[(i + 2) % len(HOSTILE)]}"),
            "venue": HOSTILE[(i + 3) % len(HOSTILE)],
            "keywords": [HOSTILE[(i + 4) % len(HOSTILE)]],
        })
    return rows


ROWS = _rows()
BY_ID = {r["id"]: r for r in ROWS}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """The hostile corpus, built: ``(out, model)``."""
    d = tmp_path_factory.mktemp("hostile")
    (d / "evil.ttl").write_text(LEXICON, encoding="utf-8")
    src = d / "hostile.jsonl"
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS),
                   encoding="utf-8")
    result = build([src], d / "out", lexicons=[d / "evil.ttl"])
    return result.out, result.graph


@pytest.fixture(params=ENGINES)
def engine(request, hostile):
    """``(name, module, source)`` for each engine over the hostile build."""
    import queries as module

    out, model = hostile
    name = request.param
    if name == "python":
        return name, module, model
    if name == "sparql":
        from kg.stores.out import open_store

        return name, module, open_store(out)
    bolt = request.getfixturevalue("bolt")
    return name, module, bolt.load(model)


def test_the_build_keeps_every_hostile_text_exactly(hostile):
    out, model = hostile
    assert {p.id: (p.title, p.abstract, p.venue, p.keywords) for p in model.papers.values()} == {
        r["id"]: (r["title"], r["abstract"], r["venue"], r["keywords"]) for r in ROWS}
    assert any(c.label == EVIL_LABEL for c in model.concepts.values())


@pytest.mark.parametrize("name", ["graph.ttl", "export"])
def test_rdf_round_trips_every_hostile_text(hostile, name):
    out, _ = hostile
    if name == "graph.ttl":
        data, fmt = (out / "graph.ttl").read_bytes(), ox.RdfFormat.TURTLE
    else:
        data = kg("export", out, "--format", "ntriples", check=True).stdout.encode()
        fmt = ox.RdfFormat.N_TRIPLES
    triples = list(ox.parse(data, format=fmt))
    got = {}
    for t in triples:
        key = (t.subject.value, t.predicate.value)
        got.setdefault(key, set()).add(t.object.value)
    for r in ROWS:
        s = paper_iri(r["id"])
        assert got[(s, DCTERMS + "identifier")] == {r["id"]}
        assert got[(s, DCTERMS + "title")] == {r["title"]}
        assert got[(s, DCTERMS + "abstract")] == {r["abstract"]}
    labels = {v for (s, p), vs in got.items() if p == SKOS + "prefLabel" for v in vs}
    assert EVIL_LABEL in labels


def test_every_engine_finds_each_hostile_paper_by_id(engine):
    _, q, src = engine
    for pid, r in BY_ID.items():
        row = q.paper(src, pid)
        assert (row["id"], row["title"], row["abstract"]) == (pid, r["title"], r["abstract"])
        assert {c["label"] for c in row["concepts"]} >= {EVIL_LABEL, "graph neural network"}


def test_every_engine_finds_papers_by_a_hostile_concept_label(engine):
    _, q, src = engine
    rows = q.papers_for_concept(src, EVIL_LABEL)
    assert sorted(r["id"] for r in rows) == sorted(IDS)
    assert all(EVIL_LABEL in r["concepts"] for r in rows)
    co = q.cooccurring(src, EVIL_LABEL)
    assert "graph-neural-network" in {r["id"] for r in co}
    path = q.concept_path(src, EVIL_LABEL, "diffusion models")
    assert path and json.dumps(path)


def test_every_engine_relates_hostile_papers(engine, hostile):
    _, q, src = engine
    _, model = hostile
    for pid in IDS:  # every paper sharing a concept that not all papers have
        mine = set(model.paper_concepts[pid])
        expected = {other for other in IDS if other != pid and any(
            round(model.idf(c), 6) > 0 for c in mine & set(model.paper_concepts[other]))}
        assert expected  # the parity concepts make sure of that
        assert {r["id"] for r in q.related_papers(src, pid, limit=20)} == expected


@pytest.mark.parametrize("text", MISSING, ids=repr)
def test_every_engine_says_not_found_for_hostile_missing_concepts(engine, text):
    _, q, src = engine
    with pytest.raises(NotFoundError, match="^no concept matches"):
        q.papers_for_concept(src, text)
    with pytest.raises(NotFoundError, match="^no concept matches"):
        q.cooccurring(src, text)


@pytest.mark.parametrize("text", MISSING, ids=repr)
def test_every_engine_says_not_found_for_hostile_missing_papers(engine, text):
    _, q, src = engine
    with pytest.raises(NotFoundError, match="^no paper with id"):
        q.paper(src, text)
    with pytest.raises(NotFoundError, match="^no paper with id"):
        q.related_papers(src, text)


def test_stats_count_the_hostile_corpus(engine):
    _, q, src = engine
    s = q.stats(src)
    assert s["papers"] == len(IDS)


# -- the CLI: user text in arguments ----------------------------------------------------


@pytest.mark.parametrize("eng", ["sparql", "python"])
def test_cli_paper_with_hostile_ids(hostile, eng):
    out, _ = hostile
    for pid in IDS[:5]:
        proc = kg("paper", out, pid, "--engine", eng, "--format", "json", check=True)
        row = json.loads(proc.stdout)
        assert (row["id"], row["title"]) == (pid, BY_ID[pid]["title"])


@pytest.mark.parametrize("eng", ["sparql", "python"])
def test_cli_papers_by_hostile_concept(hostile, eng):
    out, _ = hostile
    proc = kg("papers", out, "--concept", EVIL_LABEL, "--engine", eng, "--format", "json",
              check=True)
    assert sorted(r["id"] for r in json.loads(proc.stdout)) == sorted(IDS)


@pytest.mark.parametrize("text", [MISSING[0], MISSING[3], "\x1b[31mred\x1b[0m"], ids=repr)
def test_cli_errors_quote_hostile_text_on_one_line(hostile, text):
    out, _ = hostile
    for args in (["papers", out, "--concept", text], ["paper", out, text],
                 ["related", out, text]):
        proc = kg(*args)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith("kg: error: no ")
        assert proc.stderr.count("\n") == 1 and "\x1b" not in proc.stderr
        assert "Traceback" not in proc.stderr


def test_cli_table_output_of_hostile_rows_stays_in_its_rows(hostile):
    out, _ = hostile
    proc = kg("papers", out, check=True)
    assert len(proc.stdout.splitlines()) == 2 + len(IDS)


# -- pages ------------------------------------------------------------------------------


def _page_data(page: str) -> dict:
    m = re.search(r'<script id="kg-data" type="application/json">(.*?)</script>', page, re.S)
    assert m, "no data block"
    return json.loads(m.group(1))


def _strings(value) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def _assert_safe_page(page: str, benign: str) -> None:
    # the hostile corpus adds no element: the same script tags and no hostile markup
    assert page.count("</script") == benign.count("</script")
    assert page.count("<script") == benign.count("<script")
    assert "<script>alert" not in page
    assert "<b>model</b>" not in page
    assert "<!-- -->" not in page


@pytest.fixture(scope="module")
def benign_page(example_out):
    return (example_out / "graph.html").read_text(encoding="utf-8")


def test_default_page_escapes_everything_and_keeps_the_text(hostile, benign_page):
    out, _ = hostile
    page = (out / "graph.html").read_text(encoding="utf-8")
    _assert_safe_page(page, benign_page)
    strings = "\n".join(_strings(_page_data(page)))
    for r in ROWS:  # the data still carries every id and title, unharmed
        assert r["id"] in strings and r["title"] in strings


@pytest.mark.parametrize("args", [
    ["--focus", EVIL_LABEL], ["--focus", IDS[3]], ["--focus", IDS[7]],
    ["--view", "concepts"], ["--bridge", EVIL_LABEL, "diffusion models"],
], ids=["focus-concept", "focus-script-id", "focus-newline-id", "concepts", "bridge"])
def test_viz_pages_of_hostile_nodes_are_escaped(hostile, benign_page, args, tmp_path):
    out, _ = hostile
    page_path = tmp_path / "p.html"
    kg("viz", out, *args, "-o", page_path, check=True)
    page = page_path.read_text(encoding="utf-8")
    assert page.count("</script") == benign_page.count("</script")
    assert "<b>model</b>" not in page
    title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
    assert "<" not in title and ">" not in title  # any name in it is escaped for HTML
    if args[0] == "--focus" and args[1] in BY_ID:  # the page centres on that very paper
        assert BY_ID[args[1]]["title"] in _strings(_page_data(page))


@pytest.mark.parametrize("text", [MISSING[0], MISSING[2], "\\"], ids=repr)
def test_viz_focus_on_missing_hostile_text_is_one_line(hostile, text, tmp_path):
    out, _ = hostile
    proc = kg("viz", out, "--focus", text, "-o", tmp_path / "p.html")
    assert proc.returncode == 2
    assert proc.stderr.startswith("kg: error: ") and proc.stderr.count("\n") == 1
    assert not (tmp_path / "p.html").exists()


# -- property: any text is data ---------------------------------------------------------


@given(text=st.text(st.characters(blacklist_categories=["Cs"]), max_size=40))
def test_any_text_finds_a_concept_or_nothing_in_sparql_and_python(hostile, text):
    from kg.stores.out import open_store
    from queries import papers_for_concept

    out, model = hostile
    answers = []
    for src in (model, open_store(out)):
        try:
            answers.append([r["id"] for r in papers_for_concept(src, text)])
        except KGError as e:
            assert isinstance(e, NotFoundError), e
            answers.append("not found")
    assert answers[0] == answers[1]


@given(text=st.text(st.characters(blacklist_categories=["Cs"]), max_size=40))
def test_sparql_literal_round_trips_any_text(hostile, text):
    from kg.stores.out import open_store
    from kg.stores.sparql_terms import literal

    out, _ = hostile
    store = open_store(out)
    rows = list(store.query(f"SELECT ?x WHERE {{ BIND({literal(text)} AS ?x) }}"))
    assert rows[0]["x"].value == text


# -- servers: Cypher parameters and SPARQL pushes --------------------------------------


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_cypher_cli_parameters_are_values(bolt, value):
    proc = kg("cypher", "RETURN $v AS v, size($v) AS n", "--param", f"v={json.dumps(value)}",
              "--format", "json", *bolt.cli_args(), check=True)
    assert json.loads(proc.stdout) == [{"v": value, "n": len(value)}]


HOSTILE_GRAPH = 'http://example.org/g> } ; DROP ALL ; INSERT DATA { GRAPH <http://example.org/x'


def test_push_sparql_with_a_hostile_graph_iri_and_texts(virtuoso, hostile, example_out):
    out, model = hostile
    keep = "http://example.org/keep"
    push = ["--endpoint", virtuoso.update_url, "--method", "update", "--user", virtuoso.user,
            "--password", virtuoso.password]
    kg("push-sparql", example_out, "--graph", keep, *push, check=True)
    kept = virtuoso.select(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{keep}> {{ ?s ?p ?o }} }}")
    kg("push-sparql", out, "--graph", HOSTILE_GRAPH, *push, check=True)
    # the other graph survived: the IRI's "DROP ALL" was data, not an operation
    assert virtuoso.select(
        f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{keep}> {{ ?s ?p ?o }} }}") == kept
    rows = virtuoso.select(
        "SELECT DISTINCT ?g ?id WHERE { GRAPH ?g { ?p <http://purl.org/dc/terms/identifier> ?id }"
        " FILTER(STRSTARTS(STR(?g), 'http://example.org/g')) }")
    assert {r["g"] for r in rows} == {
        "http://example.org/g%3E%20%7D%20;%20DROP%20ALL%20;%20INSERT%20DATA%20%7B%20GRAPH%20"
        "%3Chttp://example.org/x"}
    assert {r["id"] for r in rows} == set(IDS)
