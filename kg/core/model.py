"""The in-memory model: papers, concepts and the mentions that link them.

Concept types
-------------
``method``
    an algorithm, model, architecture or technique (graph neural networks, MinHash).
``task``
    a problem people solve (node classification, 3D reconstruction).
``dataset``
    a dataset, benchmark or corpus (CIFAR-10, ImageNet).
``metric``
    an evaluation measure (accuracy, mean squared error).
``concept``
    a theoretical idea or phenomenon (double descent, Bayes optimality).

Every other structure (the networkx graph, RDF, the property graph, pages) is
derived from a :class:`KnowledgeGraph`, so the stores never disagree.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import pickle
from array import array
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeVar, overload

from kg.core.collect import return_free_pages, trimming
from kg.core.salience import Salience, salience_by_paper, score_salience
from kg.core.sorted_ids import SortedIds
from kg.core.text import acronym_key, norm_key

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "CONCEPT_TYPES", "Concept", "FIELDS", "KnowledgeGraph", "Mention", "MentionTable", "Paper",
    "RELATION_TYPES", "Relation", "RelationEdge", "SYMMETRIC_RELATION_TYPES", "Salience",
    "concept_index", "dump_rows", "dump_section", "edge_key", "idf", "load_rows",
    "Mentions", "mention_column", "merge_mentions", "sort_mentions", "sorted_mentions",
    "sorted_relations", "write_json_sections",
]

CONCEPT_TYPES = ("method", "task", "dataset", "metric", "concept")
FIELDS = ("title", "abstract")
#: SciERC's relation types, in its direction: ``head used-for tail`` reads "head is used for tail".
RELATION_TYPES = (
    "used-for", "feature-of", "hyponym-of", "part-of", "compare", "conjunction", "evaluate-for",
)
#: Relation types without a direction (SciERC scores them either way round).
SYMMETRIC_RELATION_TYPES = frozenset({"compare", "conjunction"})


@dataclass(slots=True)
class Paper:
    """One paper: the unit of input."""

    id: str
    title: str
    abstract: str
    keywords: list[str] = field(default_factory=list)
    venue: str | None = None
    year: int | None = None
    url: str | None = None
    #: True when the title was derived from the first sentence (plain-text input).
    title_derived: bool = False
    #: ``file:line`` the record was read from, for error messages.
    source: str | None = None

    def text(self, field_name: str) -> str:
        """Return the text of ``field_name`` (``"title"`` or ``"abstract"``)."""
        return self.title if field_name == "title" else self.abstract

    @property
    def fields(self) -> tuple[str, ...]:
        """Fields that extraction reads: a derived title repeats the abstract, so skip it."""
        return ("abstract",) if self.title_derived else FIELDS


@dataclass(slots=True)
class Concept:
    """A normalised idea: one node however many surface forms it has."""

    id: str
    label: str
    type: str = "concept"
    aliases: list[str] = field(default_factory=list)
    broader: list[str] = field(default_factory=list)
    #: where the concept came from: ``lexicon``, ``acronym``, ``model``, ``pattern``.
    origin: str = "lexicon"
    #: a one-line definition (lexicon concepts only).
    definition: str | None = None
    #: SKOS hidden labels: found by search ("attention"), never matched in text.
    hidden_labels: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Mention:
    """One occurrence of a concept in a paper, with its sentence as evidence."""

    paper: str
    concept: str
    field: str
    start: int
    end: int
    text: str
    sentence: str
    extractor: str
    score: float = 1.0


@dataclass(frozen=True, slots=True)
class Relation:
    """One relation stated in one sentence of a paper, between two spans of that sentence.

    ``head`` and ``tail`` are the relation's first and second argument in SciERC's direction
    (``head used-for tail``); ``head_concept``/``tail_concept`` name the concepts the spans
    belong to, or ``None`` when a span is not a concept the graph keeps (such relations are
    extraction output, not graph edges).
    """

    paper: str
    type: str
    field: str
    head_start: int
    head_end: int
    head_text: str
    tail_start: int
    tail_end: int
    tail_text: str
    sentence: str
    extractor: str
    score: float = 1.0
    head_concept: str | None = None
    tail_concept: str | None = None


# A Mention made field by field through its slots: what a frozen dataclass's __init__ does
# (object.__setattr__ per field) at ~60 % of its cost, for MentionTable, which makes one
# each time a row is read (Mention has no __post_init__ to skip)
_MENTION_SLOTS = tuple(getattr(Mention, name).__set__ for name in Mention.__slots__)


def _new_mention(paper: str, concept: str, field_name: str, start: int, end: int, text: str,
                 sentence: str, extractor: str, score: float) -> Mention:
    sp, sc, sf, ss, se, st, sse, sx, ssc = _MENTION_SLOTS
    m = object.__new__(Mention)
    sp(m, paper)
    sc(m, concept)
    sf(m, field_name)
    ss(m, start)
    se(m, end)
    st(m, text)
    sse(m, sentence)
    sx(m, extractor)
    ssc(m, score)
    return m


@dataclass(frozen=True, slots=True)
class RelationEdge:
    """One concept–concept relation of the graph, aggregated over every paper that states it.

    ``head type tail`` reads in SciERC's direction ("head used-for tail"); for a symmetric
    type (``compare``, ``conjunction``) ``head`` is the smaller concept id, so "A compare
    B" and "B compare A" are one edge. ``count`` counts the statements (a paper may state a
    relation in two sentences); ``evidence`` maps each paper that states it, in id order,
    to the first sentence that does.
    """

    type: str
    head: str
    tail: str
    count: int
    evidence: dict[str, str]

    @property
    def papers(self) -> list[str]:
        """The papers that state the relation, by id."""
        return list(self.evidence)


@dataclass
class KnowledgeGraph:
    """Papers, concepts and mentions; everything else is derived from these.

    ``relations`` is a list, but for a build's extraction process, where it is a sequence
    read off a temporary file at each pass (``extract_corpus(..., relations_on_disk=True)``):
    what reads it goes through it in order and keeps only what it aggregates.
    """

    papers: dict[str, Paper] = field(default_factory=dict)
    concepts: dict[str, Concept] = field(default_factory=dict)
    mentions: list[Mention] | MentionTable = field(default_factory=list)
    relations: Sequence[Relation] = field(default_factory=list)

    def __post_init__(self) -> None:
        if isinstance(self.mentions, list):  # (a MentionTable shares its strings itself)
            _share_strings(self.mentions, _MENTION_STRINGS)
        if isinstance(self.relations, list):  # relations read off disk are made at each pass
            _share_strings(self.relations, _RELATION_STRINGS)

    # -- derived views (cached: the model is immutable once built) ----------
    @cached_property
    def mentions_by_paper(self) -> dict[str, list[Mention]]:
        """Mentions grouped by paper id, in text order."""
        out: dict[str, list[Mention]] = defaultdict(list)
        for m in self.mentions:
            out[m.paper].append(m)
        return dict(out)

    @cached_property
    def paper_concepts(self) -> dict[str, Counter[str]]:
        """For each paper, how often it mentions each concept."""
        return _count_by_paper(self.mentions)

    def paper_concepts_of(self, paper_ids: Collection[str]) -> dict[str, Counter[str]]:
        """:attr:`paper_concepts` of ``paper_ids`` (all of it when it is made already): a
        page that shows a few papers of a large model does not need a table per paper
        (~1.2 KB each, ~120 MB at 100,000 papers).

        >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, "x", "x.", "lexicon")
        >>> kg = KnowledgeGraph(mentions=[m("a", "gnn"), m("a", "gnn"), m("b", "rl")])
        >>> kg.paper_concepts_of({"a"})
        {'a': Counter({'gnn': 2})}
        """
        if "paper_concepts" in self.__dict__:
            return self.paper_concepts
        return _count_by_paper(m for m in self.mentions if m.paper in paper_ids)

    def concepts_per_paper(self) -> Iterator[Collection[str]]:
        """Each paper's concepts (the keys of :attr:`paper_concepts`), a paper at a time:
        of a model whose mentions are grouped by paper (a build's), made as they are read
        unless :attr:`paper_concepts` is there already.

        >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, "x", "x.", "lexicon")
        >>> kg = KnowledgeGraph(mentions=[m("a", "gnn"), m("a", "rl"), m("b", "rl")])
        >>> [sorted(cs) for cs in kg.concepts_per_paper()]
        [['gnn', 'rl'], ['rl']]
        """
        if "paper_concepts" in self.__dict__ or not _grouped_by_paper(self.mentions):
            yield from self.paper_concepts.values()
            return
        for _paper, group in itertools.groupby(self.mentions, key=lambda m: m.paper):
            yield {m.concept for m in group}

    @cached_property
    def concept_papers(self) -> dict[str, SortedIds]:
        """For each concept, the papers that mention it directly (a set; in id order)."""
        # a list per concept (a paper once where its mentions come together, as a build's
        # do), each made a SortedIds in turn: never a hash table per concept (issue 17)
        lists: dict[str, list[str]] = defaultdict(list)
        for m in self.mentions:
            papers = lists[m.concept]
            if not papers or papers[-1] != m.paper:
                papers.append(m.paper)
        return {cid: SortedIds(lists.pop(cid)) for cid in list(lists)}

    @cached_property
    def first_evidence(self) -> dict[tuple[str, str], str]:
        """For each (paper, concept) pair, the sentence of the paper's first mention of it."""
        return _first_sentences(self.mentions)

    def first_evidence_of(self, paper_ids: Collection[str]) -> dict[tuple[str, str], str]:
        """:attr:`first_evidence` of the pairs of ``paper_ids`` (all of it when it is made
        already): a page that shows a few papers of a large model does not need every
        pair's."""
        if "first_evidence" in self.__dict__:
            return self.first_evidence
        return _first_sentences(m for m in self.mentions if m.paper in paper_ids)

    @cached_property
    def narrower(self) -> dict[str, set[str]]:
        """For each concept, its direct narrower concepts."""
        out: dict[str, set[str]] = defaultdict(set)
        for c in self.concepts.values():
            for b in c.broader:
                out[b].add(c.id)
        return dict(out)

    @cached_property
    def relation_edges(self) -> dict[tuple[str, str, str], RelationEdge]:
        """The graph's relation edges by ``(type, head, tail)``, in that order.

        Only relations whose two arguments are different concepts of the graph are edges
        (the others stay in :attr:`relations`, as extraction output). Statements are read
        in the order of :attr:`relations` (:func:`sorted_relations`), so each paper's
        evidence is its first statement in text order.
        """
        counts: Counter[tuple[str, str, str]] = Counter()
        evidence: dict[tuple[str, str, str], dict[str, str]] = defaultdict(dict)
        for key, r in self.edge_statements():
            counts[key] += 1
            evidence[key].setdefault(r.paper, r.sentence)
        return {key: RelationEdge(*key, counts[key], dict(sorted(evidence[key].items())))
                for key in sorted(counts)}

    @cached_property
    def relations_by_paper(self) -> dict[str, list[Relation]]:
        """The relation statements that are graph edges, grouped by paper id, in text order."""
        out: dict[str, list[Relation]] = defaultdict(list)
        for _key, r in self.edge_statements():
            out[r.paper].append(r)
        return dict(out)

    def edge_statements(self) -> Iterator[tuple[tuple[str, str, str], Relation]]:
        """Each relation statement that is a graph edge, with its :func:`edge_key`, in the
        order of :attr:`relations` (one pass over them, nothing kept: a build's are read
        off disk)."""
        for r in self.relations:
            key = edge_key(r)
            if key is not None and key[1] in self.concepts and key[2] in self.concepts:
                yield key, r

    def descendants(self, concept_id: str) -> set[str]:
        """``concept_id`` and every concept below it in the hierarchy."""
        seen = {concept_id}
        stack = [concept_id]
        while stack:
            for n in self.narrower.get(stack.pop(), ()):
                if n not in seen:
                    seen.add(n)
                    stack.append(n)
        return seen

    @cached_property
    def salience(self) -> dict[tuple[str, str], Salience]:
        """For each (paper, concept) pair, its salience and whether the paper is *about* the
        concept (:mod:`kg.core.salience`); stored in ``model.json``, computed when absent."""
        return {(s.paper, s.concept): s
                for s in score_salience(self.papers, self.concepts, self.mentions)}

    def salience_of(self, paper_ids: Collection[str]) -> dict[tuple[str, str], Salience]:
        """:attr:`salience` of the pairs of ``paper_ids`` alone, made from their mentions
        and the corpus's document frequencies when :attr:`salience` is not there yet (a
        page that shows a few papers of a large model does not need every pair's)."""
        if "salience" in self.__dict__:
            return {k: s for k, s in self.salience.items() if k[0] in paper_ids}
        df = {c: len(ps) for c, ps in self.concept_papers.items()}
        return {(s.paper, s.concept): s for s in score_salience(
            self.papers, self.concepts, (m for m in self.mentions if m.paper in paper_ids),
            df=df)}

    def salience_rows(self) -> Iterator[Salience]:
        """Every pair's salience in (paper, concept) order, as :attr:`salience` has it; of a
        model whose mentions are grouped by paper, papers in id order (a build's), made a
        paper at a time unless :attr:`salience` is there already."""
        if "salience" in self.__dict__ or not _grouped_by_paper(self.mentions):
            salience = self.salience
            return (salience[k] for k in sorted(salience))
        return salience_by_paper(self.papers, self.concepts, self.mentions,
                                 {c: len(ps) for c, ps in self.concept_papers.items()})

    def n_salience(self) -> int:
        """How many (paper, concept) pairs have a mention (``len(salience)``)."""
        if "salience" in self.__dict__:
            return len(self.salience)
        return sum(len(ps) for ps in self.concept_papers.values())

    def about(self, paper_id: str, concept_id: str) -> bool:
        """Whether the paper is *about* the concept (not merely mentions it)."""
        s = self.salience.get((paper_id, concept_id))
        return s is not None and s.about

    def idf(self, concept_id: str) -> float:
        """Inverse document frequency ``log(N / df)``: rare concepts weigh more."""
        return idf(len(self.papers), len(self.concept_papers.get(concept_id, ())))

    # -- persistence --------------------------------------------------------
    def _sections(self) -> dict[str, Iterator[dict]]:
        """The lists of the JSON form, each made item by item as it is read."""
        return {
            "papers": _plain(self.papers.values(), Paper),
            "concepts": _plain(self.concepts.values(), Concept),
            "mentions": _plain(self.mentions, Mention),
            "relations": _plain(self.relations, Relation),
            "salience": _plain(self.salience.values(), Salience),
        }

    def to_json(self) -> dict:
        """A plain-JSON form of the model (written as ``OUT/model.json``)."""
        return {key: list(items) for key, items in self._sections().items()}

    @classmethod
    def from_json(cls, data: dict) -> KnowledgeGraph:
        """Inverse of :meth:`to_json`."""
        kg = cls(
            papers={p["id"]: Paper(**p) for p in data["papers"]},
            concepts={c["id"]: Concept(**c) for c in data["concepts"]},
            mentions=[Mention(**m) for m in data["mentions"]],
            relations=[Relation(**r) for r in data.get("relations", ())],
        )
        if "salience" in data:  # a model of an older build has none: computed when asked
            kg.__dict__["salience"] = {(s["paper"], s["concept"]): Salience(**s)
                                       for s in data["salience"]}
        return kg

    def save(self, path: Path) -> None:
        """Write the model as compact, deterministic JSON.

        The bytes of ``json.dumps(self.to_json(), ensure_ascii=False, sort_keys=True,
        separators=(",", ":"))``, written a few thousand items at a time: the whole document
        as a string, its encoded bytes and every item as a dict took ~80 KB per paper at once.

        Examples
        --------
        >>> import tempfile
        >>> kg = KnowledgeGraph(papers={"p": Paper("p", "T", "A é")},
        ...                     concepts={"c": Concept("c", "C")})
        >>> path = Path(tempfile.mkdtemp()) / "model.json"
        >>> kg.save(path)
        >>> path.read_bytes() == json.dumps(kg.to_json(), ensure_ascii=False, sort_keys=True,
        ...                                 separators=(",", ":")).encode()
        True
        """
        write_json_sections(path, self._sections())

    @classmethod
    def load(cls, path: Path) -> KnowledgeGraph:
        """Read a model written by :meth:`save`."""
        return cls.from_json(json.loads(path.read_text(encoding="utf-8")))


def write_json_sections(path: Path, sections: Mapping[str, Iterable[dict]]) -> None:
    """Write ``{name: [item, ...], ...}`` as :meth:`KnowledgeGraph.save` does (keys sorted,
    compact), each section made item by item as it is written: ``model.json`` from a
    model, or from rows streamed off disk (:mod:`kg.stores.spill`)."""
    dump = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode
    with path.open("w", encoding="utf-8") as f:
        for n, (key, items) in enumerate(sorted(sections.items())):
            f.write(("{" if n == 0 else "],") + dump(key) + ":[")
            chunk: list[str] = []
            first = True
            size = 0
            for item in items:
                text = dump(item)
                chunk.append(text)
                size += len(text)
                # 4,096 items or 1 MB of text, whichever comes first: a paper's item is a
                # whole abstract (4,096 of them: ~6 MB, twice over while joined and encoded)
                if len(chunk) == 4096 or size > 1 << 20:
                    f.write(("" if first else ",") + ",".join(chunk))
                    chunk, first, size = [], False, 0
            if chunk:
                f.write(("" if first else ",") + ",".join(chunk))
        f.write("]}")


#: Rows per pickled piece of :func:`dump_rows`: pickle's memo (an entry per object) holds
#: one piece's objects at a time, not the whole model's.
ROWS_PER_PIECE = 4096
#: Pieces :func:`dump_section` writes between two returns of the C heap's free pages.
PIECES_PER_TRIM = 16

_ROW_CLASSES = {"papers": Paper, "concepts": Concept, "mentions": Mention,
                "relations": Relation}


def dump_rows(kg: KnowledgeGraph, file: BinaryIO) -> None:
    """Write the model to ``file`` as pickled pieces of rows (tuples of field values).

    What a build's extraction process hands back (:func:`kg.core.processes.run_apart`):
    ``pickle.dump`` of the whole model keeps a memo entry for each of its objects while it
    runs (+93 MB above a 5,000-paper model); here each piece of :data:`ROWS_PER_PIECE`
    rows is pickled on its own. Only the four fields go: the views are made again when asked
    (the same, from the same fields). :func:`load_rows` reads it back.

    Examples
    --------
    >>> import io
    >>> kg = KnowledgeGraph(papers={"p": Paper("p", "T", "A b.")},
    ...                     concepts={"c": Concept("c", "C")},
    ...                     mentions=[Mention("p", "c", "abstract", 0, 1, "A", "A b.", "lexicon")])
    >>> f = io.BytesIO()
    >>> dump_rows(kg, f)
    >>> _ = f.seek(0)
    >>> load_rows(f) == kg
    True
    """
    sections = (("papers", kg.papers.values()), ("concepts", kg.concepts.values()),
                ("mentions", kg.mentions), ("relations", kg.relations))
    for name, items in sections:
        dump_section(file, name, _ROW_CLASSES[name], items)
    pickle.dump(("end", []), file, protocol=pickle.HIGHEST_PROTOCOL)


def dump_section(file: BinaryIO, name: str, cls: type, items: Iterable) -> None:
    """Pickle ``items`` (instances of the dataclass ``cls``) to ``file`` as pieces
    ``(name, rows)`` of at most :data:`ROWS_PER_PIECE` rows, each row the tuple of an
    item's field values (:func:`dump_rows`, :func:`kg.stores.spill.dump_spill`)."""
    names = [f.name for f in dataclass_fields(cls)]
    piece: list[tuple] = []
    # (each piece's rows and pickled bytes are garbage once written: given back on the way,
    # not at the end, issue 17)
    for item in trimming(items, every=ROWS_PER_PIECE * PIECES_PER_TRIM):
        piece.append(tuple([getattr(item, n) for n in names]))
        if len(piece) == ROWS_PER_PIECE:
            pickle.dump((name, piece), file, protocol=pickle.HIGHEST_PROTOCOL)
            piece = []
    if piece:
        pickle.dump((name, piece), file, protocol=pickle.HIGHEST_PROTOCOL)


def load_rows(file: BinaryIO) -> KnowledgeGraph:
    """The model :func:`dump_rows` wrote to ``file`` (``EOFError`` if it was cut short)."""
    papers: dict[str, Paper] = {}
    concepts: dict[str, Concept] = {}
    mentions: list[Mention] = []
    relations: list[Relation] = []
    while True:
        name, piece = pickle.load(file)
        if name == "papers":
            papers.update((row[0], Paper(*row)) for row in piece)
        elif name == "concepts":
            concepts.update((row[0], Concept(*row)) for row in piece)
        elif name == "mentions":
            mentions.extend([Mention(*row) for row in piece])
        elif name == "relations":
            relations.extend([Relation(*row) for row in piece])
        else:
            break
    # equal strings of different pieces become one object again (as in the model dumped)
    return KnowledgeGraph(papers=papers, concepts=concepts, mentions=mentions,
                          relations=relations)


_MENTION_STRINGS = ("paper", "concept", "field", "text", "sentence", "extractor")
_RELATION_STRINGS = ("paper", "type", "field", "head_text", "tail_text", "sentence", "extractor",
                     "head_concept", "tail_concept")


def _share_strings(items: list, names: tuple[str, ...]) -> None:
    """Make equal strings in the ``names`` fields of ``items`` one object.

    Every mention of a sentence carries that sentence, and mentions made in other processes
    (or read from JSON) carry their own copies of it and of their paper id: shared, the
    mentions of 20,000 papers take ~100 MB less. The values do not change, so neither do
    the (frozen) items' hashes.

    Examples
    --------
    >>> a = Mention("p", "c", "abstract", 0, 1, "A", "".join(["A b."]), "lexicon")
    >>> b = Mention("p", "d", "abstract", 2, 3, "b", "".join(["A b."]), "lexicon")
    >>> a.sentence is b.sentence
    False
    >>> _share_strings([a, b], _MENTION_STRINGS)
    >>> a.sentence is b.sentence
    True
    """
    pool: dict[str, str] = {}
    share = pool.setdefault
    for item in items:
        for name in names:
            value = getattr(item, name)
            if value is not None:
                shared = share(value, value)
                if shared is not value:
                    object.__setattr__(item, name, shared)


def _first_sentences(mentions: Iterable[Mention]) -> dict[tuple[str, str], str]:
    """Per (paper, concept) pair of ``mentions``, the sentence of its first mention."""
    out: dict[tuple[str, str], str] = {}
    for m in mentions:
        out.setdefault((m.paper, m.concept), m.sentence)
    return out


def _count_by_paper(mentions: Iterable[Mention]) -> dict[str, Counter[str]]:
    """For each paper of ``mentions``, how often they name each concept."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for m in mentions:
        out[m.paper][m.concept] += 1
    return dict(out)


def _grouped_by_paper(items: Iterable) -> bool:
    """Whether ``items`` are grouped by paper, papers in id order."""
    last = ""
    for item in items:
        if item.paper < last:
            return False
        last = item.paper
    return True


def idf(n_papers: int, df: int) -> float:
    """``log(n_papers / df)``, 0 for a concept no paper mentions (``df`` 0).

    >>> round(idf(100, 10), 4), idf(100, 0)
    (2.3026, 0.0)
    """
    return math.log(n_papers / df) if df else 0.0


def concept_index(concepts: dict[str, Concept]) -> dict[str, str]:
    """Map every normalised label, alias, acronym and hidden label to a concept id.

    Labels win over aliases, and aliases over hidden labels.

    Examples
    --------
    >>> concept_index({"gnn": Concept("gnn", "graph neural network", aliases=["GNN"])})
    {'gnn': 'gnn', 'GNN': 'gnn', 'graph neural network': 'gnn'}
    """
    index: dict[str, str] = {}
    for cid in sorted(concepts):
        for hidden in concepts[cid].hidden_labels:
            index[norm_key(hidden)] = cid
    for cid in sorted(concepts):
        for alias in concepts[cid].aliases:
            index.setdefault(norm_key(alias), cid)
            index.setdefault(acronym_key(alias), cid)
    for cid in sorted(concepts):  # labels override aliases
        index[norm_key(concepts[cid].label)] = cid
    return index


def _plain(items: Iterable, cls: type) -> Iterator[dict]:
    """Each dataclass instance as a dict of its fields (``asdict`` without its deep copies,
    which took 2.5 of the 4.5 s of writing ``model.json`` at 20,000 papers)."""
    names = [f.name for f in dataclass_fields(cls)]
    return ({n: getattr(item, n) for n in names} for item in items)


def edge_key(r: Relation) -> tuple[str, str, str] | None:
    """``(type, head, tail)`` of the graph edge the statement ``r`` belongs to, or ``None``.

    ``None`` when an argument is not a concept or both are the same concept; a symmetric
    type puts the smaller concept id first.

    Examples
    --------
    >>> r = Relation("p", "compare", "abstract", 0, 3, "GCN", 8, 11, "GAT", "GCN vs GAT.",
    ...              "model", head_concept="gcn", tail_concept="gat")
    >>> edge_key(r)
    ('compare', 'gat', 'gcn')
    """
    h, t = r.head_concept, r.tail_concept
    if h is None or t is None or h == t:
        return None
    if r.type in SYMMETRIC_RELATION_TYPES and t < h:
        h, t = t, h
    return r.type, h, t


def sorted_relations(relations: Iterable[Relation]) -> list[Relation]:
    """Relations in a stable order: paper, field (title first), head, tail, type."""
    return sorted(relations, key=lambda r: (
        r.paper, r.field != "title", r.head_start, r.head_end, r.tail_start, r.tail_end, r.type,
        r.extractor))


def sorted_mentions(mentions: Iterable[Mention]) -> list[Mention]:
    """Mentions in a stable order: paper, field (title first), offset, concept.

    The same list as ``sorted(mentions, key=lambda m: (m.paper, m.field != "title",
    m.start, m.end, m.concept))``, sorted one text at a time: the mentions are grouped by
    paper and title-or-not, in their order, and each group is sorted by offset and
    concept when its turn comes. A stable sort of the whole list with one key tuple per
    mention held ~140 bytes a mention at once (21 MB for the 150,000 mentions of 5,000
    papers, issue 17); the groups hold a pointer each, and one group's keys at a time.

    >>> m = [Mention("b", "c1", "abstract", 3, 5, "", "", "model"),
    ...      Mention("a", "c2", "abstract", 0, 2, "", "", "model"),
    ...      Mention("b", "c0", "title", 9, 9, "", "", "model"),
    ...      Mention("b", "c1", "abstract", 1, 2, "", "", "model")]
    >>> [(x.paper, x.field, x.start) for x in sorted_mentions(m)]
    [('a', 'abstract', 0), ('b', 'title', 9), ('b', 'abstract', 1), ('b', 'abstract', 3)]
    """
    groups: dict[tuple[str, bool], list[Mention]] = {}
    for m in mentions:
        key = (m.paper, m.field != "title")
        group = groups.get(key)
        if group is None:
            groups[key] = [m]
        else:
            group.append(m)
    out: list[Mention] = []
    for key in sorted(groups):
        # each group's list is let go once it is in ``out``
        out.extend(sorted(groups.pop(key), key=lambda m: (m.start, m.end, m.concept)))
    return out


#: A corpus's mentions, as :func:`merge_mentions` and consolidation's passes take them and
#: give them back: a list, or a table (a build's).
Mentions = TypeVar("Mentions", list[Mention], "MentionTable")


def _mention_key(m: Mention) -> tuple[str, bool, int, int, str]:
    """:func:`sorted_mentions`' order, as one key."""
    return (m.paper, m.field != "title", m.start, m.end, m.concept)


def mention_column(mentions: Sequence[Mention], name: str) -> Sequence[str]:
    """Every mention's ``"paper"``, ``"concept"`` or ``"field"``, in order: a
    :class:`MentionTable`'s own column (no :class:`Mention` made per row), else a list of them.

    >>> mention_column([Mention("p", "rl", "title", 3, 5, "RL", "On RL", "model")], "paper")
    ['p']
    """
    if isinstance(mentions, MentionTable):
        return mentions.column(name)
    if name not in ("paper", "concept", "field"):
        raise ValueError(f"mention columns are 'paper', 'concept' and 'field', not {name!r}")
    return [getattr(m, name) for m in mentions]


def merge_mentions(mentions: Mentions, more: Iterable[Mention]) -> Mentions:
    """``mentions`` with ``more`` added, in :func:`sorted_mentions`' order: the same list,
    changed in place (and returned).

    The same order as ``sorted_mentions([*mentions, *more])``. ``more`` is sorted, then
    merged into ``mentions`` from the back, in the room ``mentions`` is extended by:
    when ``mentions`` is in order already (as consolidation keeps a corpus's), no second
    list of the corpus's mentions is made, nor :func:`sorted_mentions`' groups (~30 bytes a
    mention beside the list, issue 17). A list not in order is sorted first
    (:func:`sort_mentions`).

    >>> ms = [Mention(p, "c", "abstract", a, a + 1, "x", "x", "model")
    ...       for p, a in [("p", 1), ("q", 3), ("q", 9)]]
    >>> new = [Mention(p, "d", "abstract", a, a + 1, "x", "x", "corpus")
    ...        for p, a in [("q", 5), ("a", 0), ("q", 3)]]
    >>> expected = sorted_mentions([*ms, *new])
    >>> merge_mentions(ms, new) is ms, ms == expected
    (True, True)
    """
    if isinstance(mentions, MentionTable):
        mentions.merge(more)
        return mentions
    extra = sorted_mentions(more)
    if not extra:
        return mentions
    if not _in_order(mentions):
        sort_mentions(mentions)
    i, j = len(mentions) - 1, len(extra) - 1
    mentions.extend(extra)  # the room (what is there now is written over)
    k = len(mentions) - 1
    placing = _mention_key(extra[j])  # (made once per added mention, not per step)
    while j >= 0:
        # a tie goes to ``mentions``' item first, as a stable sort of both would place it
        if i >= 0 and _mention_key(mentions[i]) > placing:
            mentions[k] = mentions[i]
            i -= 1
        else:
            mentions[k] = extra[j]
            j -= 1
            if j >= 0:
                placing = _mention_key(extra[j])
        k -= 1
    return mentions


def _in_order(mentions: Iterable[Mention]) -> bool:
    """Whether ``mentions`` are in :func:`sorted_mentions`' order."""
    return _keys_in_order(map(_mention_key, mentions))


def _keys_in_order(keys: Iterator[tuple[str, bool, int, int, str]]) -> bool:
    """Whether ``keys`` (:func:`_mention_key`'s, or a table's own) never go down."""
    last = next(keys, None)
    for key in keys:
        if key < last:  # type: ignore[operator]
            return False
        last = key
    return True


def sort_mentions(mentions: list[Mention] | MentionTable) -> None:
    """Sort ``mentions`` in place into :func:`sorted_mentions`' order.

    The list is sorted by paper (stably), then each paper's run by the whole key: the same
    order (both sorts are stable), with a key tuple per mention of one paper at a time, not
    of the corpus (~100 bytes a mention while sorting).

    >>> ms = [Mention(p, c, "abstract", a, a + 1, "x", "x", "model")
    ...       for p, c, a in [("q", "b", 3), ("p", "a", 9), ("q", "a", 3), ("p", "a", 1)]]
    >>> ordered = sorted_mentions(ms)
    >>> sort_mentions(ms)
    >>> ms == ordered
    True
    """
    if isinstance(mentions, MentionTable):
        mentions.sort()
        return
    mentions.sort(key=lambda m: m.paper)
    a, n = 0, len(mentions)
    while a < n:
        paper, b = mentions[a].paper, a + 1
        while b < n and mentions[b].paper == paper:
            b += 1
        if b - a > 1:
            mentions[a:b] = sorted_mentions(mentions[a:b])
        a = b


_V = TypeVar("_V")


def _set_sparse(sparse: dict[int, _V], i: int, value: _V | None) -> None:
    """Row ``i``'s value in a column kept only for the rows that have one (``None``: none)."""
    if value is None:
        sparse.pop(i, None)
    else:
        sparse[i] = value


#: A :class:`MentionTable`'s columns of numbers (arrays), one value a row.
_NUMERIC_COLUMNS = ("_papers", "_concepts", "_sent_a", "_sent_b", "_starts", "_ends", "_kinds")


class _Column(Sequence[str]):
    """A :class:`MentionTable` column of strings as a sequence: each row's code read as its
    string (no list of them made). Equal to a list or column of the same strings."""

    __slots__ = ("_codes", "_names")

    def __init__(self, codes: array, names: list[str]) -> None:
        self._codes, self._names = codes, names

    def __len__(self) -> int:
        return len(self._codes)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self._names[c] for c in self._codes[index]]
        return self._names[self._codes[index]]

    def __iter__(self) -> Iterator[str]:
        return map(self._names.__getitem__, self._codes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (_Column, list)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


class MentionTable(Sequence[Mention]):
    """Mentions kept in columns: ~26 bytes each (and each distinct paper and concept id
    once), where a list of :class:`Mention` objects takes ~110 (the object and its slot in
    the list).

    What consolidation holds for every mention of a corpus, from the first pass to the
    model it hands on (issue 17: the mentions were the largest thing a build keeps per
    paper). A :class:`Mention` is made each time an item is read: equal to the one stored,
    not the same object. Paper and concept are kept as the codes of their ids, offsets in
    arrays, field and extractor as one code per row; surfaces (a paper's equal ones one
    object) and scores other than ``1.0`` apart, for the rows that have them. Equal to a
    list or table of equal mentions in the same order.

    Given ``papers`` (id → :class:`Paper`), the text read from a paper's field is not kept
    again: a surface that is the field's ``[start:end]`` is read from the paper when its row
    is read, and a sentence found in the field is kept as its bounds there (a build's papers
    keep their texts on disk; surfaces and sentences were ~1 KB a paper, issue 17). Other
    sentences, and all of them without ``papers``, are kept as strings, one per distinct
    sentence.

    Examples
    --------
    >>> ms = MentionTable([Mention("p", "gnn", "abstract", 0, 4, "GNNs", "GNNs work.", "acronym"),
    ...                    Mention("a", "rl", "title", 3, 5, "RL", "On RL", "model", 0.5)])
    >>> len(ms), ms[1]
    (2, Mention(paper='a', concept='rl', field='title', start=3, end=5, text='RL', \
sentence='On RL', extractor='model', score=0.5))
    >>> ms.sort()
    >>> [m.paper for m in ms]
    ['a', 'p']
    >>> ms == sorted_mentions(ms)
    True
    >>> papers = {"p": Paper("p", "Graphs", "GNNs work. They scale.")}
    >>> t = MentionTable([Mention("p", "gnn", "abstract", 0, 4, "GNNs", "GNNs work.", "model")],
    ...                  papers=papers)
    >>> t[0].sentence, t.papers is papers
    ('GNNs work.', True)
    """

    __slots__ = ("_papers", "_concepts", "_ids", "_id_codes", "_texts", "_sent_a", "_sent_b",
                 "_literals", "_literal_codes", "_paper_texts", "_where", "_last_read",
                 "_last_text", "_starts", "_ends",
                 "_kinds", "_names", "_codes", "_scores", "_pool", "_pool_paper", "_sorted")

    def __init__(self, mentions: Iterable[Mention] = (), *,
                 papers: Mapping[str, Paper] | None = None) -> None:
        # a row's paper and concept: the codes of their ids in ``_ids`` (4 bytes a row each,
        # not a reference of 8)
        self._papers = array("i")
        self._concepts = array("i")
        self._ids: list[str] = []
        self._id_codes: dict[str, int] = {}
        #: the rows whose surface is not their paper's field's [start:end], and it (a build's
        #: have none: a reference a row, None, was 8 bytes)
        self._texts: dict[int, str] = {}
        # a row's sentence: its bounds in its paper's field, or (a < 0) the string
        # ``_literals[-1 - a]``
        self._sent_a = array("i")
        self._sent_b = array("i")
        self._literals: list[str] = []
        self._literal_codes: dict[str, int] = {}
        self._paper_texts = papers
        # the current paper's sentences, (field, sentence) -> bounds (rows come a paper at a
        # time); the last sentence read, ((paper, field, a, b), sentence)
        self._where: dict[tuple[str, str], tuple[int, int]] = {}
        self._last_read: tuple[tuple[str, str, int, int], str] = (("", "", 0, 0), "")
        self._last_text: tuple[str, str, str] | None = None  # (paper, field, its text)
        self._starts = array("i")
        self._ends = array("i")
        #: per row, the code of its (field, extractor) pair in ``_names``
        self._kinds = array("H")
        self._names: list[tuple[str, str]] = []
        self._codes: dict[tuple[str, str], int] = {}
        self._scores: dict[int, float] = {}
        # the strings of the paper rows were last added for (rows come a paper at a time)
        self._pool: dict[str, str] = {}
        self._pool_paper: str | None = None
        #: known to be in sorted_mentions' order (sorted or merged into since last changed)
        self._sorted = False
        self.extend(mentions)

    def _id_code(self, name: str) -> int:
        code = self._id_codes.get(name)
        if code is None:
            code = self._id_codes[name] = len(self._ids)
            self._ids.append(name)
        return code

    def _code(self, field_name: str, extractor: str) -> int:
        code = self._codes.get((field_name, extractor))
        if code is None:
            code = self._codes[(field_name, extractor)] = len(self._names)
            self._names.append((field_name, extractor))
        return code

    def _enter(self, paper: str) -> None:
        """Make ``paper`` the one whose strings and sentences the pools hold."""
        if paper != self._pool_paper:
            self._pool.clear()
            self._where.clear()
            self._pool_paper = paper

    def _shared(self, paper: str, value: str) -> str:
        self._enter(paper)
        return self._pool.setdefault(value, value)

    @property
    def papers(self) -> Mapping[str, Paper] | None:
        """The papers whose texts the sentences are read from (``None``: kept as strings)."""
        return self._paper_texts

    def _literal(self, sentence: str) -> tuple[int, int]:
        code = self._literal_codes.get(sentence)
        if code is None:
            code = self._literal_codes[sentence] = len(self._literals)
            self._literals.append(sentence)
        return -1 - code, 0

    def _bounds(self, paper: str, field_name: str, sentence: str) -> tuple[int, int]:
        """Where row's ``sentence`` is kept (``paper`` is the current one of :meth:`_shared`)."""
        if self._paper_texts is None:
            return self._literal(sentence)
        bounds = self._where.get((field_name, sentence))
        if bounds is None:
            # (any place the sentence is at reads back the same string)
            a = self._field_text(paper, field_name).find(sentence)
            bounds = (a, a + len(sentence)) if a >= 0 else self._literal(sentence)
            self._where[(field_name, sentence)] = bounds
        return bounds

    def _field_text(self, paper: str, field_name: str) -> str:
        last = self._last_text
        if last is not None and last[0] == paper and last[1] == field_name:
            return last[2]
        assert self._paper_texts is not None
        text = self._paper_texts[paper].text(field_name)
        self._last_text = (paper, field_name, text)
        return text

    def _surface(self, paper: str, field_name: str, start: int, end: int, text: str
                 ) -> str | None:
        """What the surface column keeps of a row's ``text``."""
        # (compared in place: no slice made per row added)
        if self._paper_texts is not None and start >= 0 and end - start == len(text) and \
                self._field_text(paper, field_name).startswith(text, start):
            return None
        return self._shared(paper, text)

    def _sentence(self, paper: str, field_name: str, a: int, b: int) -> str:
        if a < 0:
            return self._literals[-1 - a]
        key = (paper, field_name, a, b)
        last = self._last_read
        if last[0] == key:
            return last[1]
        sentence = self._field_text(paper, field_name)[a:b]
        self._last_read = (key, sentence)
        return sentence

    def _text(self, i: int, paper: str, field_name: str) -> str:
        text = self._texts.get(i)
        if text is None:
            return self._field_text(paper, field_name)[self._starts[i]:self._ends[i]]
        return text

    def append(self, m: Mention) -> None:
        """Add ``m`` at the end."""
        self._sorted = False
        paper = m.paper
        self._enter(paper)
        row = len(self._papers)
        self._papers.append(self._id_code(paper))
        self._concepts.append(self._id_code(m.concept))
        text = self._surface(paper, m.field, m.start, m.end, m.text)
        if text is not None:
            self._texts[row] = text
        a, b = self._bounds(paper, m.field, m.sentence)
        self._sent_a.append(a)
        self._sent_b.append(b)
        self._starts.append(m.start)
        self._ends.append(m.end)
        self._kinds.append(self._code(m.field, m.extractor))
        if type(m.score) is not float or m.score != 1.0:  # (an int 1 stays an int)
            self._scores[row] = m.score

    def extend(self, mentions: Iterable[Mention]) -> None:
        """Add ``mentions`` at the end, in their order."""
        append = self.append
        for m in mentions:
            append(m)

    def _row(self, i: int) -> Mention:
        field_name, extractor = self._names[self._kinds[i]]
        paper = self._ids[self._papers[i]]
        return _new_mention(paper, self._ids[self._concepts[i]], field_name, self._starts[i],
                            self._ends[i], self._text(i, paper, field_name),
                            self._sentence(paper, field_name, self._sent_a[i], self._sent_b[i]),
                            extractor, self._scores.get(i, 1.0))

    def __len__(self) -> int:
        return len(self._papers)

    def __iter__(self) -> Iterator[Mention]:
        return self._rows(0, len(self))

    def _rows(self, a: int, b: int) -> Iterator[Mention]:
        """Rows ``a:b``, made as they are read from the columns' slices."""
        names, scores, make, sentence = self._names, self._scores, _new_mention, self._sentence
        field_text, ids, texts = self._field_text, self._ids, self._texts
        rows = zip(self._papers[a:b], self._concepts[a:b], self._starts[a:b], self._ends[a:b],
                   self._sent_a[a:b], self._sent_b[a:b], self._kinds[a:b], strict=True)
        for i, (p, c, start, end, sa, sb, kind) in enumerate(rows, start=a):
            field_name, extractor = names[kind]
            paper, concept = ids[p], ids[c]
            text = texts.get(i) if texts else None
            if text is None:
                text = field_text(paper, field_name)[start:end]
            yield make(paper, concept, field_name, start, end, text,
                       sentence(paper, field_name, sa, sb), extractor,
                       scores.get(i, 1.0) if scores else 1.0)

    @overload
    def __getitem__(self, index: int) -> Mention: ...

    @overload
    def __getitem__(self, index: slice) -> list[Mention]: ...

    def __getitem__(self, index: int | slice) -> Mention | list[Mention]:
        if isinstance(index, slice):
            a, b, step = index.indices(len(self))
            if step == 1:  # (a text's run: its rows from slices of the columns)
                return list(self._rows(a, max(a, b)))
            return [self._row(i) for i in range(a, b, step)]
        return self._row(range(len(self))[index])

    def __setitem__(self, index: int, m: Mention) -> None:
        i = range(len(self))[index]
        self._sorted = False
        self._papers[i] = self._id_code(m.paper)
        self._concepts[i] = self._id_code(m.concept)
        self._enter(m.paper)  # (the pools are per paper: a row of another paper empties them)
        _set_sparse(self._texts, i, self._surface(m.paper, m.field, m.start, m.end, m.text))
        self._sent_a[i], self._sent_b[i] = self._bounds(m.paper, m.field, m.sentence)
        self._starts[i] = m.start
        self._ends[i] = m.end
        self._kinds[i] = self._code(m.field, m.extractor)
        if type(m.score) is not float or m.score != 1.0:
            self._scores[i] = m.score
        else:
            self._scores.pop(i, None)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (MentionTable, list)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other,
                                                                       strict=True))

    __hash__ = None  # type: ignore[assignment]  # (mutable, as a list)

    def __repr__(self) -> str:
        return f"MentionTable({list(self)!r})"

    def column(self, name: str) -> Sequence[str]:
        """Every row's ``"paper"``, ``"concept"`` or ``"field"``, in order, without making a
        :class:`Mention` each: the table's own column (to be read, not changed).

        >>> MentionTable([Mention("p", "rl", "title", 3, 5, "RL", "On RL", "model")]
        ...              ).column("concept")
        ['rl']
        """
        if name == "paper":
            return _Column(self._papers, self._ids)
        if name == "concept":
            return _Column(self._concepts, self._ids)
        if name == "field":
            return _Column(self._kinds, [f for f, _ in self._names])
        raise ValueError(
            f"a mention table's columns are 'paper', 'concept' and 'field', not {name!r}")

    def _replace_by(self, other: MentionTable) -> None:
        """Take ``other``'s rows (and let go of this table's)."""
        for name in self.__slots__:
            setattr(self, name, getattr(other, name))

    def _key(self, i: int) -> tuple[str, bool, int, int, str]:
        """Row ``i``'s :func:`sorted_mentions` key (no :class:`Mention` made)."""
        ids = self._ids
        return (ids[self._papers[i]], self._names[self._kinds[i]][0] != "title",
                self._starts[i], self._ends[i], ids[self._concepts[i]])

    def _row_values(self, i: int) -> tuple:
        return (self._papers[i], self._concepts[i], self._texts.get(i), self._sent_a[i],
                self._sent_b[i], self._starts[i], self._ends[i], self._kinds[i],
                self._scores.get(i))

    def _set_values(self, i: int, values: tuple) -> None:
        (self._papers[i], self._concepts[i], text, self._sent_a[i], self._sent_b[i],
         self._starts[i], self._ends[i], self._kinds[i], score) = values
        _set_sparse(self._texts, i, text)
        _set_sparse(self._scores, i, score)

    def sort(self) -> None:
        """Sort in place into :func:`sorted_mentions`' order.

        Rows grouped by paper in id order (a corpus read in id order) are sorted a paper at
        a time where they are; others are first ordered stably by paper, a column at a time
        (:meth:`_permute`: no second table).
        """
        papers = self.column("paper")
        if any(a > b for a, b in itertools.pairwise(papers)):
            import numpy as np  # (~0.1 s to import: only where a table is out of paper order)

            # each row's paper id's rank among the ids: the codes ordered as the ids are
            rank = np.empty(len(self._ids), dtype=np.int64)
            rank[np.argsort(np.array(self._ids, dtype=object), kind="stable")] = np.arange(
                len(self._ids))
            self._permute(np.argsort(rank[np.asarray(memoryview(self._papers))],
                                     kind="stable"))
        codes = self._papers  # (a paper's rows: a run of its code)
        a, n = 0, len(codes)
        while a < n:
            b = a + 1
            while b < n and codes[b] == codes[a]:
                b += 1
            if b - a > 1:
                rows = sorted(range(a, b), key=self._key)
                if rows != list(range(a, b)):
                    values = [self._row_values(i) for i in rows]
                    for k, v in enumerate(values, start=a):
                        self._set_values(k, v)
            a = b
        self._sorted = True

    def _take(self, index: np.ndarray) -> None:
        """Each numeric column replaced by its rows at ``index`` (an order or a mask), a
        column at a time."""
        import numpy as np

        for name in _NUMERIC_COLUMNS:
            column = getattr(self, name)
            taken = array(column.typecode)
            # (the rows taken read as they are: no bytes copy of them between)
            taken.frombytes(memoryview(np.asarray(memoryview(column))[index]).cast("B"))
            setattr(self, name, taken)
            # the old column's pages back before the next column is copied (glibc keeps a
            # freed block this large, issue 17)
            del column, taken
            return_free_pages()

    def _permute(self, order: np.ndarray) -> None:
        """Put row ``order[k]`` at ``k``, a column at a time: a copy of one column at a time
        beside the table, not a second table (a corpus's ids out of order: "p2", "p10")."""
        import numpy as np

        self._take(order)
        if self._scores or self._texts:
            where = np.empty_like(order)
            where[order] = np.arange(len(order))  # each row's new place
            self._scores = {int(where[i]): score for i, score in self._scores.items()}
            self._texts = {int(where[i]): text for i, text in self._texts.items()}

    def keep(self, flags: Iterable[object]) -> None:
        """Keep the rows whose flag is true, in their order; drop the others. In place, a
        column at a time: no second table beside this one (a filter that made one held
        both, the corpus's mentions twice over, issue 17).

        >>> ms = MentionTable([Mention(p, "c", "abstract", 0, 1, "x", "x", "model", s)
        ...                    for p, s in (("a", 1.0), ("b", 0.5), ("c", 0.25))])
        >>> ms.keep([False, True, True])
        >>> [(m.paper, m.score) for m in ms]
        [('b', 0.5), ('c', 0.25)]
        """
        import numpy as np

        kept_rows = bytes(bool(f) for f in flags)  # (a byte a row)
        if len(kept_rows) != len(self):
            raise ValueError(f"{len(kept_rows)} flags for a table of {len(self)} rows")
        mask = np.frombuffer(kept_rows, dtype=np.bool_)
        self._take(mask)
        if self._scores or self._texts:
            place = np.cumsum(mask) - 1  # each kept row's new place
            self._scores = {int(place[i]): v for i, v in self._scores.items() if mask[i]}
            self._texts = {int(place[i]): v for i, v in self._texts.items() if mask[i]}
        # (a subsequence of rows in order is in order: _sorted stays as it was)

    def merge(self, more: Iterable[Mention]) -> None:
        """Add ``more`` in place, in :func:`sorted_mentions`' order (as
        :func:`merge_mentions` does to a list).

        ``more`` is sorted, each of its rows placed by binary search (after this table's
        equal rows, as a stable sort of both would place it), and the columns extended and
        their runs between those places moved back from the end, a slice at a time: no
        second table, and a key made per added row, not per row of the table. A ``more``
        that is a table of the same papers is sorted in place and read as it is (no list of
        its mentions made, nor a copy of it), and is not to be used after.
        """
        if isinstance(more, MentionTable) and more._paper_texts is self._paper_texts:
            extra = more
            extra.sort()
        else:
            extra = MentionTable(sorted_mentions(more), papers=self._paper_texts)
        m, n = len(extra), len(self)
        if not m:
            return
        if not self._sorted and not _keys_in_order(map(self._key, range(n))):
            self.sort()
        # (4 bytes a row, not an int object in a list: ~40 bytes, 845,000 rows of term
        # propagation at 100,000 papers)
        places = array("i", (bisect.bisect_right(range(n), extra._key(j), key=self._key)
                             for j in range(m)))
        numbers = tuple(getattr(self, name) for name in _NUMERIC_COLUMNS)
        for numeric in numbers:
            numeric.extend(array(numeric.typecode, bytes(m * numeric.itemsize)))
        # a column that grew was copied where glibc keeps the old copy's pages: given back
        # before the rows move (issue 17: ~40 MB at 100,000 papers)
        return_free_pages()
        end = n
        for j in range(m - 1, -1, -1):
            # this table's rows places[j]:end move j + 1 on, then extra row j goes before them
            a = places[j]
            if a < end:
                for numeric in numbers:
                    numeric[a + j + 1:end + j + 1] = numeric[a:end]
            row = extra._row_values(j)
            field_name, extractor = extra._names[extra._kinds[j]]
            at = a + j
            # (a string gets this table's code for it)
            self._papers[at] = self._id_code(extra._ids[row[0]])
            self._concepts[at] = self._id_code(extra._ids[row[1]])
            sa, sb, self._starts[at], self._ends[at] = row[3:7]
            # (offsets read the same papers; a string gets this table's code for it)
            self._sent_a[at], self._sent_b[at] = (sa, sb) if sa >= 0 else self._literal(
                extra._literals[-1 - sa])
            self._kinds[at] = self._code(field_name, extractor)
            end = a
        for name in ("_scores", "_texts"):
            moved = {i + bisect.bisect_right(places, i): v
                     for i, v in getattr(self, name).items()}
            moved.update({places[j] + j: v for j, v in getattr(extra, name).items()})
            setattr(self, name, moved)
        self._sorted = True
