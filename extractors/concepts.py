"""The concept registry of a build: lexicon concepts plus concepts the corpus defines.

One :class:`ConceptRegistry` per build holds every :class:`~kg.core.model.Concept` and
the indexes that map a surface form to its concept: normalised phrases
(:func:`~kg.core.text.norm_key`) and acronyms. Acronym definitions
found in any paper ("Time Series Foundation Models (TSFMs)") join the acronym
and its long form into one concept for the whole corpus.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from extractors.acronyms import AcronymDefinition
from extractors.lexicon import Lexicon
from kg.core.model import Concept
from kg.core.text import display_label, norm_key, slug

__all__ = ["ConceptRegistry", "SHORT_ACRONYM", "TOOL_NOUNS", "guess_type"]

#: Tools named by what they do, agent nouns of processing verbs ("parser", "retriever",
#: "simulator"): methods. In SciERC train, such heads are methods in 75 of 80 mentions.
TOOL_NOUNS = frozenset(str.split("""parser tagger chunker stemmer segmenter tokenizer tokeniser
transducer recognizer recogniser analyzer analyser classifier detector extractor tracker
encoder decoder generator discriminator predictor estimator optimizer optimiser solver
planner learner ranker reranker retriever crawler simulator summarizer summariser
translator compressor"""))

# Head words that give a new term its type ("...model" is a method).
_TYPE_BY_HEAD = {
    "method": {"model", "network", "method", "algorithm", "framework", "architecture", "learning",
               "estimator", "encoder", "decoder", "transformer", "approach", "technique",
               "optimization", "regression", "mechanism", "sampling", "distillation", "search",
               "finetuning", "tuning", "embedding", "attention", "hashing",
               "inference", "analysis", "policy", "agent", "reduction", "procedure", "net",
               *TOOL_NOUNS},
    "task": {"problem", "task", "classification", "detection", "prediction", "recognition",
             "segmentation", "generation", "translation", "reconstruction", "retrieval",
             "answering", "forecasting", "quantification", "interpolation", "estimation",
             "matching", "tracking", "planning", "control", "synthesis", "completion"},
    "dataset": {"dataset", "benchmark", "corpus", "suite", "database", "treebank", "data"},
    "metric": {"score", "error", "accuracy", "distance", "divergence", "metric", "loss",
               "rate", "precision", "recall", "measure"},
}
SHORT_ACRONYM = 2  # acronyms this short are only trusted in papers that define or spell them


def guess_type(label: str) -> str:
    """Concept type of a new term from its head (last) word.

    >>> guess_type("successor-guided uncertainty reduction"), guess_type("MSE score")
    ('method', 'metric')
    """
    head = norm_key(label).rsplit(" ", 1)[-1]
    for ctype, heads in _TYPE_BY_HEAD.items():
        if head in heads:
            return ctype
    return "concept"


@dataclass
class ConceptRegistry:
    """Every concept a build knows, and the indexes from surface forms to concept ids.

    It starts with the lexicon (:meth:`from_lexicon`), then the acronyms the corpus
    defines join it (:meth:`add_definitions`), then the new terms resolution finds.
    """

    concepts: dict[str, Concept] = field(default_factory=dict)
    by_key: dict[str, str] = field(default_factory=dict)
    by_acronym: dict[str, str] = field(default_factory=dict)
    #: per paper, the acronyms it defines itself (they win over corpus-wide ones)
    paper_acronyms: dict[str, dict[str, str]] = field(default_factory=dict)
    #: acronyms with several meanings in this corpus (or one other than the lexicon's):
    #: short form → the concept ids, sorted
    ambiguous: dict[str, list[str]] = field(default_factory=dict)
    #: label → concept id: no two concepts share a label
    by_label: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_lexicon(cls, lexicon: Lexicon) -> ConceptRegistry:
        """A registry holding every lexicon concept."""
        registry = cls()
        for e in sorted(lexicon.entries.values(), key=lambda e: e.id):
            registry.concepts[e.id] = Concept(
                id=e.id, label=e.label, type=e.type, aliases=[*e.aliases, *e.acronyms],
                broader=list(e.broader), origin="lexicon", hidden_labels=list(e.hidden),
            )
            registry.by_label.setdefault(e.label, e.id)
            for form in (e.label, *e.aliases):
                registry.by_key.setdefault(norm_key(form), e.id)
            for a in e.acronyms:
                registry.by_acronym.setdefault(a, e.id)
        return registry

    def broader_by_head(self, key: str) -> list[str]:
        """Known concepts that a compound term falls under by its head.

        "fuzzy graph contrastive learning" → ["graph-contrastive-learning"] when that
        concept exists, else ["contrastive-learning"], and so on.
        """
        words = key.split()
        for i in range(1, len(words)):
            cid = self.by_key.get(" ".join(words[i:]))
            if cid:
                return [cid]
        return []

    def new_concept(self, key: str, label: str, *, origin: str, ctype: str | None = None,
                    broader: list[str] | None = None) -> str:
        """The concept of a new ``key``: a new one, or the concept that has its label.

        Two keys can read the same ("GPUs" and "GPU" before plurals of acronyms were
        folded): one label names one concept, so the second key joins the first concept.
        """
        cid = self.by_label.get(label)
        if cid is None:
            cid = slug(label)
            while cid in self.concepts:  # an id taken by a different key
                cid += "-x"
            self.concepts[cid] = Concept(
                id=cid, label=label, type=ctype or guess_type(label), aliases=[],
                broader=list(broader or []), origin=origin,
            )
            self.by_label[label] = cid
        self.by_key.setdefault(key, cid)
        return cid

    def add_term(self, text: str, *, origin: str, ctype: str | None = None,
                 acronym: str | None = None) -> str:
        """Register a term found in the corpus; return its (new or existing) concept id."""
        key = norm_key(text)
        cid = self.by_key.get(key)
        if cid is None:
            cid = self.new_concept(key, display_label(text), origin=origin, ctype=ctype,
                                   broader=self.broader_by_head(key))
        concept = self.concepts[cid]
        for alias in (text.strip(), acronym):
            if alias and alias != concept.label and alias not in concept.aliases:
                concept.aliases.append(alias)
        return cid

    def add_definitions(self, defs: Iterable[tuple[str, AcronymDefinition]]) -> None:
        """Join each defined acronym with its long form, corpus-wide.

        Where papers define one acronym differently, or other than the lexicon does, it
        is ambiguous (:attr:`ambiguous`): each paper that defines it keeps its own meaning,
        the lexicon's meaning (an existing long form) stays the corpus-wide one, and
        without one the acronym has no corpus-wide meaning: elsewhere it counts only where
        the paper spells out exactly one of its long forms.
        """
        votes: dict[str, Counter[str]] = defaultdict(Counter)
        for paper_id, d in defs:
            cid = self.by_key.get(norm_key(d.long))
            if cid is None:
                lex = self.by_acronym.get(d.short)
                # "mean square error (MSE)": the lexicon's MSE, spelled differently
                if lex and norm_key(d.long).split()[0] == norm_key(
                        self.concepts[lex].label).split()[0]:
                    cid = lex
                    self.by_key[norm_key(d.long)] = cid
            cid = cid or self.add_term(d.long, origin="acronym", acronym=d.short)
            concept = self.concepts[cid]
            for alias in (d.long, d.short):
                if alias != concept.label and alias not in concept.aliases:
                    concept.aliases.append(alias)
            self.paper_acronyms.setdefault(paper_id, {})[d.short] = cid
            votes[d.short][cid] += 1
        for short, counter in votes.items():
            meanings = set(counter) | ({self.by_acronym[short]} if short in self.by_acronym
                                       else set())
            if len(meanings) > 1:
                self.ambiguous[short] = sorted(meanings)
            elif short not in self.by_acronym:
                self.by_acronym[short] = next(iter(meanings))

    def add_keywords(self, keywords: Iterable[str]) -> list[str]:
        """Register author keywords as corpus-wide terms (origin ``"keyword"``).

        A keyword one paper declares is a term of the whole corpus: the concept matcher
        then finds it in every abstract. Keywords that are already known (a lexicon
        label or alias, an acronym, a defined long form) add nothing; forms with
        punctuation other than hyphens ("graphs; networks") are not terms. Returns the
        new concept ids, sorted.

        >>> r = ConceptRegistry()
        >>> r.add_keywords(["Machine Unlearning", "machine unlearning", "a, b", "hallucination"])
        ['hallucination', 'machine-unlearning']
        """
        new = set()
        for k in sorted({" ".join(k.split()) for k in keywords}):
            key = norm_key(k)
            if (not key or key in self.by_key or k in self.by_acronym or len(k) > 60
                    or any(ch in k for ch in ",;:()[]{}\"/|")):
                continue
            new.add(self.add_term(k, origin="keyword"))
        return sorted(new)
