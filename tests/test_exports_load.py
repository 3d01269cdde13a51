"""Exports load where users take them: networkx and igraph (GraphML), neo4j-admin (CSV),
JSON-LD processors (compact, with the shipped context), RDFS tools (kg/vocab.ttl)."""

from __future__ import annotations

import csv
import json
import re
import warnings
from importlib import resources
from pathlib import Path

import networkx as nx
import pytest
import rdflib
from click.testing import CliRunner
from rdflib.compare import isomorphic

from kg.cli import cli
from tests.conftest import paper_id
from tests.guard import export_bytes

KGV = "https://w3id.org/kg-abstracts/vocab#"


# -- GraphML --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def graphml_file(example_out, tmp_path_factory):
    path = tmp_path_factory.mktemp("graphml") / "kg.graphml"
    path.write_bytes(export_bytes(example_out, "graphml"))
    return path


def _broader_pairs(kg) -> set[tuple[str, str]]:
    return {(f"concept:{c.id}", f"concept:{b}") for c in kg.concepts.values()
            for b in c.broader if b in kg.concepts}


def test_graphml_is_directed_with_label_and_type_and_no_id_attribute(graphml_file):
    text = graphml_file.read_text(encoding="utf-8")
    assert 'edgedefault="directed"' in text
    assert not re.search(r'attr\.name="id"', text)  # igraph keeps "id" for the node ids
    g = nx.read_graphml(graphml_file)
    assert g.is_directed()
    assert all("label" in d and "type" in d for _, d in g.nodes(data=True))
    assert g.nodes[f"paper:{paper_id(3)}"]["type"] == "paper"
    assert g.nodes["concept:graph-neural-network"]["type"] == "method"


def test_graphml_round_trip_in_networkx_keeps_broader_directed(graphml_file, example_kg):
    g = nx.read_graphml(graphml_file)
    broader = {(a, b) for a, b, k in g.edges(data="kind") if k == "broader"}
    assert broader == _broader_pairs(example_kg)
    # the pairs the undirected export turned around
    assert ("concept:cminhash", "concept:minhash") in broader
    assert ("concept:minhash", "concept:cminhash") not in broader
    assert ("concept:locality-sensitive-hashing", "concept:minhash") not in broader
    mentions = {(a, b) for a, b, k in g.edges(data="kind") if k == "mentions"}
    assert all(a.startswith("paper:") and b.startswith("concept:") for a, b in mentions)


def test_graphml_has_the_relations_between_concepts_as_the_other_exports(graphml_file,
                                                                         example_kg):
    g = nx.read_graphml(graphml_file)
    relations = {(d["type"], a, b): d for a, b, d in g.edges(data=True)
                 if d["kind"] == "relation"}
    # every relation edge of the model, directed as in the model (and in relations.csv,
    # RDF and Bolt): head -> tail, symmetric types from the smaller concept id
    assert set(relations) == {(t, f"concept:{h}", f"concept:{e}")
                              for t, h, e in example_kg.relation_edges}
    assert len(relations) > 20
    for (t, h, e), edge in example_kg.relation_edges.items():
        d = relations[(t, f"concept:{h}", f"concept:{e}")]
        assert d["count"] == edge.count and d["papers"] == "; ".join(edge.papers)
        assert d["evidence"] == edge.evidence[edge.papers[0]]
        assert d["symmetric"] == (t in ("compare", "conjunction"))
    # a relation between two concepts that broader also joins is a second edge, not lost
    both = {(h, e) for _, h, e in relations} & _broader_pairs(example_kg)
    assert both  # the example has some (e.g. circulant permutation used-for MinHash)
    assert all(g.has_edge(h, e, "broader") for h, e in both)


def test_graphml_round_trip_in_igraph_keeps_broader_directed(graphml_file, example_kg):
    igraph = pytest.importorskip("igraph", reason="python-igraph is not installed "
                                                  "(pip install '.[test]')")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # igraph warns when an attribute is called "id"
        g = igraph.Graph.Read_GraphML(str(graphml_file))
    assert g.is_directed()
    names = g.vs["id"]  # the GraphML node ids
    assert set(g.vs["type"]) >= {"paper", "method"} and all(g.vs["label"])
    broader = {(names[e.source], names[e.target]) for e in g.es if e["kind"] == "broader"}
    assert broader == _broader_pairs(example_kg)
    used_for = {(names[e.source], names[e.target]) for e in g.es
                if e["kind"] == "relation" and e["type"] == "used-for"}
    assert used_for == {(f"concept:{h}", f"concept:{e}")
                        for t, h, e in example_kg.relation_edges if t == "used-for"}


# -- neo4j-admin CSV ----------------------------------------------------------------------

_TYPES = {"int", "long", "float", "double", "boolean", "byte", "short", "char", "string",
          "point", "date", "localtime", "time", "localdatetime", "datetime", "duration"}
_FIELD = re.compile(r"^(?P<name>[^:]*)(?::(?P<type>[A-Za-z_]+)(?:\((?P<group>[^)]*)\))?"
                    r"(?P<array>\[\])?)?$")


def _parse_header(header: list[str], kind: str) -> list[dict]:
    """The header as ``neo4j-admin database import`` reads it (Neo4j 5 operations manual,
    "CSV header format"): ``name:type`` fields, ``:ID(group)`` / ``:START_ID(group)`` /
    ``:END_ID(group)`` / ``:LABEL`` / ``:TYPE`` special fields."""
    fields = []
    for raw in header:
        m = _FIELD.match(raw)
        assert m, f"bad header field {raw!r}"
        name, typ, group, array = m["name"], m["type"], m["group"], bool(m["array"])
        if typ in ("ID", "START_ID", "END_ID", "LABEL", "TYPE"):
            assert not array
            fields.append({"special": typ, "name": name, "group": group})
            continue
        assert name, f"a property needs a name: {raw!r}"
        assert typ is None or typ in _TYPES, f"unknown type in {raw!r}"
        assert group is None
        fields.append({"name": name, "type": typ or "string", "array": array})
    specials = [f["special"] for f in fields if "special" in f]
    if kind == "nodes":
        assert specials.count("ID") == 1 and set(specials) <= {"ID", "LABEL"}
    else:
        assert sorted(specials) == ["END_ID", "START_ID", "TYPE"]
    names = [f["name"] for f in fields if "special" not in f]
    assert len(names) == len(set(names))
    return fields


def _read(path: Path, kind: str, delimiter: str) -> tuple[list[dict], list[dict]]:
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))  # multiline fields: quoted, as --multiline-fields=true
    fields = _parse_header(rows[0], kind)
    out = []
    for row in rows[1:]:
        assert len(row) == len(fields), (path.name, row[:2])
        rec: dict = {}
        for f, cell in zip(fields, row, strict=True):
            if "special" in f:
                rec[f["special"]] = (f["group"], cell)
                continue
            if cell == "":
                continue  # no property
            values = cell.split(delimiter) if f["array"] else [cell]
            convert = {"int": int, "long": int, "double": float, "float": float}.get(
                f["type"], str)
            values = [convert(v) for v in values]
            rec[f["name"]] = values if f["array"] else values[0]
        out.append(rec)
    return fields, out


def test_neo4j_csv_headers_parse_as_neo4j_admin_reads_them(example_out, example_kg, tmp_path):
    folder = tmp_path / "neo4j"
    r = CliRunner().invoke(cli, ["export", str(example_out), "--format", "neo4j-csv",
                                 "-o", str(folder)])
    assert r.exit_code == 0, r.output
    command = r.stdout.strip().splitlines()[-1]
    script = (folder / "import.sh").read_text(encoding="utf-8")
    # the command names every file, the delimiter and the database, in the tool's syntax
    args = command.split()
    assert args[:4] == ["neo4j-admin", "database", "import", "full"] and args[-1] == "neo4j"
    options = dict(a[2:].split("=", 1) for a in args[4:-1] if a.startswith("--")
                   and a.split("=", 1)[0] in ("--array-delimiter", "--multiline-fields"))
    assert options == {"array-delimiter": "U+001F", "multiline-fields": "true"}
    files = {Path(a.split("=", 1)[1]).name: a[2:].split("=", 1)[0] for a in args
             if a.startswith(("--nodes=", "--relationships="))}
    assert files == {"papers.csv": "nodes", "concepts.csv": "nodes",
                     "mentions.csv": "relationships", "broader.csv": "relationships",
                     "relations.csv": "relationships"}
    assert "neo4j-admin database import full --nodes=papers.csv" in script
    delimiter = chr(int(options["array-delimiter"][2:], 16))

    ids: dict[str, set[str]] = {}
    nodes = {}
    for name in ("papers.csv", "concepts.csv"):
        fields, rows = _read(folder / name, "nodes", delimiter)
        for rec in rows:
            group, node_id = rec["ID"]
            ids.setdefault(group, set()).add(node_id)
            nodes[(group, node_id)] = rec
    assert ids["Paper"] == set(example_kg.papers) and ids["Concept"] == set(example_kg.concepts)
    gnn = nodes[("Concept", "graph-neural-network")]
    assert gnn["LABEL"] == (None, "Concept") and gnn["papers"] == 2
    assert gnn["aliases"] == sorted(set(example_kg.concepts["graph-neural-network"].aliases))
    assert isinstance(gnn["idf"], float)

    rels = []
    for name in ("mentions.csv", "broader.csv", "relations.csv"):
        _, rows = _read(folder / name, "relationships", delimiter)
        for rec in rows:
            (sg, start), (eg, end) = rec["START_ID"], rec["END_ID"]
            assert start in ids[sg] and end in ids[eg]  # every end refers to a node of its group
            rels.append(rec)
    mentions = [r for r in rels if r["TYPE"][1] == "MENTIONS"]
    assert len(mentions) == sum(len(c) for c in example_kg.paper_concepts.values())
    m = next(r for r in mentions if r["START_ID"][1] == paper_id(3)
             and r["END_ID"][1] == "graph-neural-network")
    assert m["count"] == example_kg.paper_concepts[paper_id(3)]["graph-neural-network"]
    assert m["evidence"][0].startswith("Graph Neural Networks (GNNs)")
    broader = {(r["START_ID"][1], r["END_ID"][1]) for r in rels if r["TYPE"][1] == "BROADER"}
    assert ("cminhash", "minhash") in broader
    # relations between concepts, typed as kg push writes them
    typed = {(r["TYPE"][1], r["START_ID"][1], r["END_ID"][1]): r for r in rels
             if r["TYPE"][1] not in ("MENTIONS", "BROADER")}
    assert set(typed) == {(t.upper().replace("-", "_"), h, e)
                          for t, h, e in example_kg.relation_edges}
    for (t, h, e), edge in example_kg.relation_edges.items():
        rec = typed[(t.upper().replace("-", "_"), h, e)]
        assert rec["count"] == edge.count and rec["papers"] == edge.papers


def test_neo4j_csv_needs_a_folder(example_out):
    r = CliRunner().invoke(cli, ["export", str(example_out), "--format", "neo4j-csv"])
    assert r.exit_code == 2
    assert "give a folder with -o DIR" in r.output and "Traceback" not in r.output


# -- JSON-LD ------------------------------------------------------------------------------

def _shipped_context() -> dict:
    return json.loads((resources.files("kg") / "context.jsonld").read_text(encoding="utf-8"))


def test_jsonld_is_compact_with_the_shipped_context(example_out):
    doc = json.loads(export_bytes(example_out, "jsonld"))
    assert doc["@context"] == _shipped_context()["@context"]
    keys = {k for node in doc["@graph"] for k in node}
    assert not [k for k in keys if "://" in k]  # no full IRI as a key
    assert {"title", "prefLabel", "subject", "start", "hasBody"} <= keys
    assert export_bytes(example_out, "jsonld") == export_bytes(example_out, "jsonld")


def test_jsonld_gives_back_the_graph_in_rdflib(example_out, built_graph):
    g = rdflib.Graph().parse(data=export_bytes(example_out, "jsonld"), format="json-ld")
    assert isomorphic(g, built_graph)


def _normal(nodes: list[dict]) -> dict:
    """Node id -> key -> sorted JSON values (lists and single values alike)."""
    out = {}
    for node in nodes:
        out[node["@id"]] = {k: sorted(json.dumps(x, sort_keys=True)
                                      for x in (v if isinstance(v, list) else [v]))
                            for k, v in node.items() if k != "@id"}
    return out


def _doubles_by_value(g: rdflib.Graph) -> rdflib.Graph:
    """``g`` with every xsd:double written the same way (PyLD's to_rdf rewrites a typed
    "2.9444389791664403" to 15 significant digits)."""
    out = rdflib.Graph()
    for s, p, o in g:
        if isinstance(o, rdflib.Literal) and o.datatype == rdflib.XSD.double:
            o = rdflib.Literal(f"{float(o):.12e}", datatype=rdflib.XSD.double)
        out.add((s, p, o))
    return out


def _pyld_dataset(out) -> dict:
    """The store's triples in PyLD's dataset form (its N-Quads parser doubles escaped
    backslashes, so the triples are handed over parsed)."""
    import pyoxigraph as ox

    from kg.stores.export import sorted_triples

    def term(t):
        if isinstance(t, ox.NamedNode):
            return {"type": "IRI", "value": t.value}
        if isinstance(t, ox.BlankNode):
            return {"type": "blank node", "value": f"_:{t.value}"}
        out = {"type": "literal", "value": t.value, "datatype": t.datatype.value}
        if t.language:
            out["language"] = t.language
        return out

    return {"@default": [{"subject": term(t.subject), "predicate": term(t.predicate),
                          "object": term(t.object)} for t in sorted_triples(out)]}


def test_jsonld_compaction_matches_pyld(example_out, built_graph):
    pyld = pytest.importorskip("pyld", reason="PyLD is not installed (pip install '.[test]')")
    jsonld = pyld.jsonld
    doc = json.loads(export_bytes(example_out, "jsonld"))
    # a JSON-LD processor reads it back to the same triples …
    nquads = jsonld.to_rdf(doc, {"format": "application/n-quads"})
    assert isomorphic(_doubles_by_value(rdflib.Graph().parse(data=nquads, format="nt")),
                      _doubles_by_value(built_graph))
    # … and compacting the graph's triples with the shipped context gives the same document
    compacted = jsonld.compact(jsonld.from_rdf(_pyld_dataset(example_out)), _shipped_context())
    assert _normal(compacted["@graph"]) == _normal(doc["@graph"])


# -- the vocabulary -----------------------------------------------------------------------

def test_every_kgv_term_of_a_built_graph_is_defined_in_the_shipped_vocabulary(built_graph):
    vocab_file = resources.files("kg") / "vocab.ttl"
    vocab = rdflib.Graph().parse(data=vocab_file.read_text(encoding="utf-8"), format="turtle")
    used = {str(t) for triple in built_graph for t in triple
            if isinstance(t, rdflib.URIRef) and str(t).startswith(KGV) and str(t) != KGV}
    assert len(used) > 20
    RDFS, OWL = rdflib.RDFS, rdflib.OWL
    defined = set()
    for term in map(rdflib.URIRef, sorted(used)):
        types = set(vocab.objects(term, rdflib.RDF.type))
        if types & {OWL.Class, OWL.ObjectProperty, OWL.DatatypeProperty} \
                and vocab.value(term, RDFS.label) and vocab.value(term, RDFS.comment):
            defined.add(str(term))
    assert used - defined == set()


def test_the_vocabulary_defines_no_term_the_graph_writer_does_not_know():
    from kg.core.vocab import KGV as ns

    vocab = rdflib.Graph().parse(Path(__file__).parent.parent / "kg" / "vocab.ttl")
    # the writer: kg/stores/rdf.py, and the relation properties of kg/core/vocab.py
    source = "".join((Path(__file__).parent.parent / "kg" / part).read_text(encoding="utf-8")
                     for part in ("stores/rdf.py", "core/vocab.py"))
    names = {str(s)[len(ns):] for s in vocab.subjects() if str(s).startswith(ns)}
    assert names and all(f'"{n}"' in source for n in names), sorted(
        n for n in names if f'"{n}"' not in source)


def test_mentions_are_web_annotations_and_totals_a_void_dataset(built_graph, example_kg):
    OA = rdflib.Namespace("http://www.w3.org/ns/oa#")
    PROV = rdflib.Namespace("http://www.w3.org/ns/prov#")
    VOID = rdflib.Namespace("http://rdfs.org/ns/void#")
    kgv = rdflib.Namespace(KGV)
    g = built_graph
    mentions = set(g.subjects(rdflib.RDF.type, kgv.Mention))
    assert mentions == set(g.subjects(rdflib.RDF.type, OA.Annotation))
    assert len(mentions) == len(example_kg.mentions)
    for m in mentions:
        assert g.value(m, OA.hasBody) == g.value(m, kgv.concept)
        assert g.value(m, OA.hasTarget) == g.value(m, kgv.paper)
        agent = g.value(m, PROV.wasAttributedTo)
        assert (agent, rdflib.RDF.type, PROV.SoftwareAgent) in g
        assert str(g.value(agent, rdflib.RDFS.label)) == str(g.value(m, kgv.extractor))
    dataset = rdflib.URIRef("https://w3id.org/kg-abstracts/dataset")
    assert (dataset, rdflib.RDF.type, VOID.Dataset) in g
    entities = {g.value(p, VOID["class"]): g.value(p, VOID.entities).toPython()
                for p in g.objects(dataset, VOID.classPartition)}
    assert entities == {rdflib.URIRef("https://schema.org/ScholarlyArticle"): 19,
                        rdflib.SKOS.Concept: len(example_kg.concepts),
                        kgv.Mention: len(example_kg.mentions),
                        kgv.ConceptLink: sum(len(c) for c in example_kg.paper_concepts.values())}
