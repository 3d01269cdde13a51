"""Corpus statistics for termhood: which words this corpus treats as its own vocabulary.

A fixed list cannot follow a field that renames itself every year, so one-word terms
are decided by statistics of the corpus at hand, contrasted with general English
(the ``wordfreq`` package's offline frequencies, on the Zipf scale: ``log10`` of
occurrences per billion words; "the" is 7.7, "performance" 5.2, "hallucination" 2.9):

Domain word (:meth:`CorpusStats.domain_word`)
    a lower-case noun-like word that is rare in general English (Zipf below
    :data:`RARE_ZIPF`), occurs in at least two papers of the corpus, and is
    *topical* there: in some paper's title, or bursty (on average at least
    :data:`BURSTY` occurrences in the papers that use it — a paper about
    hallucination says it again and again, a paper that reports a "coefficient"
    says it once): *hallucination*, *unlearning*, *tokenization*, *locomotion*,
    *blockchain*. Rarity alone is not enough: generic words of scientific prose
    ("coefficient", "heuristic", "convergence") are as rare in general English.
Corpus topic (:meth:`CorpusStats.topic_word`)
    a word common in general English (*reasoning*, *alignment*, *evaluation*,
    *agents*) is a concept only where the corpus treats it as a topic: it names
    what papers are about, i.e. it is in the titles of at least
    :data:`TOPIC_TITLE_SHARE` of the papers (and at least :data:`TOPIC_MIN_TITLES`).
    On NAACL 2024 "reasoning" passes; on NeurIPS 2018 it does not.

Both need the word to name something of its own, not a relation to something else: a
*relational* noun (:meth:`CorpusStats.relational`) that the corpus mostly follows with its
complement ("a subset of", "the interplay between", "the efficacy of", "a multitude of")
is no concept alone; property nouns in -ity and -ness ("the plausibility of",
"compositionality of") are, as properties are concepts.

Both need the word to be used as a noun: the head of a phrase (followed by punctuation,
a preposition or a verb-like function word) in at least :data:`HEAD_SHARE` of its
occurrences. "hallucination", "reasoning" end phrases; "online", "noisy", "large-scale",
"enhancing" (title-initial verbs) modify the word after them. And neither may be a mere
*compound head* (:meth:`CorpusStats.compound_head`, nestedness as in C-value): a word
that a content word precedes in at least :data:`COMPOUND_HEAD` of its occurrences names
the compounds it ends ("anomaly detection", "prompt tuning", "knowledge tracing", "data
augmentation"), not an idea of its own; where a paper says it alone, it is short for
its compound.

Words that are never one-word concepts, whatever their frequency: function words and
the generic stop-lists of :mod:`extractors.generic` unless they are corpus topics,
adjectives and adverbs by their endings, and generic names (:func:`generic_name`:
"AI", "GPU", "13B").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from wordfreq import zipf_frequency

from extractors.generic import DETERMINERS, word_set
from kg.core.model import Paper
from kg.core.text import norm_key

__all__ = [
    "BURSTY",
    "COMPOUND_HEAD",
    "GENERIC_NAMES",
    "HEAD_SHARE",
    "MODIFIER_SHARE",
    "NOUN_EXCEPTIONS",
    "RARE_ZIPF",
    "RELATIONAL_MIN",
    "RELATIONAL_SHARE",
    "TOPIC_MIN_TITLES",
    "TOPIC_TITLE_SHARE",
    "CorpusStats",
    "general_zipf",
    "generic_name",
    "property_noun",
    "word_shape_ok",
]

#: Below this Zipf frequency a word is rare in general English (hallucination 2.9,
#: blockchain 3.7, but reasoning 4.0, performance 5.2).
RARE_ZIPF = 3.75
#: Share of a word's occurrences in which it ends a noun phrase, for it to be a noun.
HEAD_SHARE = 0.25
#: Words after which the word before ends its phrase.
_PHRASE_END = word_set("""of for in on with and or to is are was were be by from via as at
than that which can could may might will would should has have had into over under between
across without through using while when where whether but not""")
#: Mean occurrences per paper that uses it for a word to be topical without a title.
BURSTY = 1.5
#: Share of titles a common word must appear in to be a topic of the corpus.
TOPIC_TITLE_SHARE = 0.02
#: ... and at least this many titles (small corpora).
TOPIC_MIN_TITLES = 3

#: Share of a word's occurrences after a content word above which it is only the head of
#: compounds ("detection" 0.92, "tuning" 0.90 on NAACL + WWW; "hallucination" 0.63,
#: "reasoning" 0.73).
COMPOUND_HEAD = 0.85
#: Share of a word's occurrences before a content word from which it is a modifier
#: ("fake" 0.91, "federated" 0.99 on NAACL + WWW; "model" 0.42, "employs" 0.45).
MODIFIER_SHARE = 0.75
#: Share of a word's occurrences followed by "of", "between" or "among" from which it is a
#: relational noun (on NAACL + WWW: "interplay" 0.89, "efficacy" 0.52, "subset" 0.48;
#: "transferability" 0.19, "hallucination" 0.01).
RELATIONAL_SHARE = 0.4
#: ... in at least this many uses: a word the corpus says four times is not "mostly" anything
#: ("symmetry of" 3 times of 6 on ICLR 2018, "the Hessian of" twice).
RELATIONAL_MIN = 4
_COMPLEMENT = word_set("of between among")
#: Endings of property nouns: relational by nature, concepts all the same.
_PROPERTY = re.compile(r"(?:ity|ness)$")
#: Words after which a word does not continue a compound (function words, determiners).
_NOT_MODIFIER = _PHRASE_END | DETERMINERS | word_set("""we also how what only very less""")

#: Names that are everywhere and say nothing about a paper: hardware, "AI" as a word.
GENERIC_NAMES = word_set("""ai ml gpu gpus cpu cpus tpu tpus api apis llm llms nlp cv sota
url urls http pdf""")
_MODEL_SIZE = re.compile(r"^\d+(?:\.\d+)?[kmbt]$", re.IGNORECASE)  # 13B, 7B, 1.5M
_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
#: Words and punctuation; a LaTeX command ("\\textbf") is one token, never a word.
_TOKEN = re.compile(r"\\[a-z]+|[a-z][a-z0-9]*(?:-[a-z0-9]+)*|[^\sa-z]")
#: Endings of adjectives and adverbs: "probabilistic", "heterogeneous" name no idea alone.
_NOT_NOUN = re.compile(r"(?:ic|ical|al|ous|ive|able|ible|ful|less|ed|ly|ant|ent|ary|ish|wise)$")
#: Nouns with those endings all the same ("signal" is no adjective, "proposal" neither).
NOUN_EXCEPTIONS = word_set("""signal interval tutorial trial portal rival proposal arrival
removal retrieval approval survival rehearsal reversal denial referral manual journal
recommender transformer encoder decoder tokenizer optimizer classifier crawler server
browser router compiler sampler planner learner reasoner retriever ranker player layer
adversary dictionary vocabulary summary boundary agent gradient component coefficient
student patient parent client content incident descent percent fingerprint
objective detective narrative representative alternative collective perspective
initiative incentive motive primitive derivative directive positive negative
chemical graphical
""")


@lru_cache(maxsize=65536)
def general_zipf(word: str) -> float:
    """How common ``word`` is in general English (Zipf scale; 0 when unknown).

    >>> general_zipf("hallucination") < RARE_ZIPF < general_zipf("performance")
    True
    """
    return zipf_frequency(word, "en")


def property_noun(word: str) -> bool:
    """A noun in -ity or -ness: it names a property ("fairness", "transferability").

    >>> [property_noun(w) for w in ["fairness", "Transferability", "identity", "safety"]]
    [True, True, True, False]
    """
    return bool(_PROPERTY.search(word.lower()))


def generic_name(form: str) -> bool:
    """A name-like form that says nothing about a paper: "AI", "GPUs", "13B".

    >>> [generic_name(f) for f in ["AI", "GPUs", "13B", "1.5M", "GPT-4", "LoRA"]]
    [True, True, True, True, False, False]
    """
    return form.lower() in GENERIC_NAMES or bool(_MODEL_SIZE.match(form))


def word_shape_ok(word: str) -> bool:
    """A lower-case word that may be a one-word term by its shape (a noun, not a modifier).

    >>> [word_shape_ok(w) for w in ["hallucination", "unlearning", "probabilistic",
    ...                             "empirically", "retrieval", "x", "13b"]]
    [True, True, False, False, True, False, False]
    """
    if len(word) < 4 or not _WORD.fullmatch(word) or not any(c.isalpha() for c in word[-2:]):
        return False
    return word in NOUN_EXCEPTIONS or not _NOT_NOUN.search(word)


@dataclass
class CorpusStats:
    """Document frequencies of the corpus's words, in titles and anywhere.

    Words are keyed by :func:`~kg.core.text.norm_key` (case and plural folded).

    Examples
    --------
    >>> from kg.core.model import Paper
    >>> papers = [Paper(str(i), "Hallucination in LLMs", "We study hallucination.")
    ...           for i in range(3)] + [Paper("x", "Reasoning", "Performance is good.")]
    >>> stats = CorpusStats.of(papers)
    >>> stats.domain_word("hallucination"), stats.domain_word("performance")
    (True, False)
    >>> stats.topic_word("hallucination"), stats.topic_word("reasoning")
    (True, False)
    """

    n_papers: int = 0
    df: Counter[str] = field(default_factory=Counter)
    title_df: Counter[str] = field(default_factory=Counter)
    #: occurrences in all papers, titles included
    occurrences: Counter[str] = field(default_factory=Counter)
    #: occurrences that end a phrase (see :data:`HEAD_SHARE`)
    heads: Counter[str] = field(default_factory=Counter)
    #: occurrences right after a content word (see :data:`COMPOUND_HEAD`)
    after_word: Counter[str] = field(default_factory=Counter)
    #: occurrences right before a content word (see :data:`MODIFIER_SHARE`)
    before_word: Counter[str] = field(default_factory=Counter)
    #: occurrences right before "of", "between", "among" (see :data:`RELATIONAL_SHARE`)
    complemented: Counter[str] = field(default_factory=Counter)

    @classmethod
    def of(cls, papers: Iterable[Paper]) -> CorpusStats:
        """The statistics of ``papers`` (titles and abstracts)."""
        stats = cls()
        keys: dict[str, str] = {}  # norm_key per distinct token: the corpus repeats its words
        for p in papers:
            stats.n_papers += 1
            words: Counter[str] = Counter()
            for text in (p.title, p.abstract):
                toks = _TOKEN.findall(text.lower())
                last = len(toks) - 1
                for i, t in enumerate(toks):
                    if not t[0].isalpha():
                        continue
                    k = keys.get(t) or _key(t, keys)
                    words[k] += 1
                    if i == last or not toks[i + 1][0].isalpha() or toks[i + 1] in _PHRASE_END:
                        stats.heads[k] += 1
                        if i < last and toks[i + 1] in _COMPLEMENT:
                            stats.complemented[k] += 1
                    elif toks[i + 1] not in _NOT_MODIFIER:
                        stats.before_word[k] += 1
                    if i and toks[i - 1][0].isalpha() and toks[i - 1] not in _NOT_MODIFIER:
                        stats.after_word[k] += 1
                if text is p.title:
                    stats.title_df.update(words.keys())
            stats.df.update(words.keys())
            stats.occurrences.update(words)
        return stats

    def domain_word(self, word: str) -> bool:
        """A noun-like word rare in general English that two or more papers use, topically."""
        w = word.lower()
        k = norm_key(w)
        df = self.df[k]
        # the corpus's own evidence first: cheaper than the general-English look-up
        return (df >= 2 and (self.title_df[k] > 0 or self.occurrences[k] >= BURSTY * df)
                and self.noun(k) and not self.compound_head(k) and not self.relational(k)
                and word_shape_ok(w) and general_zipf(w) < RARE_ZIPF)

    def domain_words(self) -> list[str]:
        """Every :meth:`domain_word` and :meth:`topic_word` of the corpus (``norm_key``
        forms), sorted."""
        need = max(TOPIC_MIN_TITLES, TOPIC_TITLE_SHARE * self.n_papers)
        return sorted(k for k in self.df if " " not in k and (
            self.domain_word(k) or (self.title_df[k] >= need and self.topic_word(k))))

    def topic_word(self, word: str) -> bool:
        """A word in enough of the corpus's titles to be one of its topics."""
        need = max(TOPIC_MIN_TITLES, TOPIC_TITLE_SHARE * self.n_papers)
        k = norm_key(word.lower())
        return (self.title_df[k] >= need and self.noun(k) and not self.compound_head(k)
                and not self.relational(k))

    def noun(self, key: str) -> bool:
        """Whether the word (a ``norm_key``) ends a phrase often enough to be a noun."""
        return self.heads[key] >= HEAD_SHARE * max(1, self.occurrences[key])

    def relational(self, key: str) -> bool:
        """Whether the word (a ``norm_key``) mostly takes a complement ("of", "between",
        "among") and is no property noun: "subset", "interplay", "efficacy" say what they
        are of, not what a paper is about.

        >>> from kg.core.model import Paper
        >>> text = ("A subset of cases, the interplay of attention and hallucination, the "
        ...         "plausibility of outputs. Hallucination matters. ")
        >>> s = CorpusStats.of([Paper(str(i), "T", text) for i in range(4)])
        >>> s.relational("interplay"), s.relational("subset"), s.relational("hallucination")
        (True, True, False)
        >>> s.relational("plausibility")
        False

        Four uses with a complement at least: a word said so once in three uses is not.

        >>> CorpusStats.of([Paper("1", "T", text)]).relational("subset")
        False
        """
        n = self.complemented[key]
        return (n >= RELATIONAL_MIN and n >= RELATIONAL_SHARE * self.occurrences[key]
                and not _PROPERTY.search(key))

    def modifier(self, key: str) -> bool:
        """Whether the word (a ``norm_key``) nearly always modifies a content word after it:
        "fake", "federated", "symbolic", not "model" or "employs" (followed by punctuation,
        function words, determiners).

        >>> from kg.core.model import Paper
        >>> s = CorpusStats.of([Paper("1", "Fake news", "Fake news detection employs a "
        ...                               "model. The model employs the data.")])
        >>> s.modifier("fake"), s.modifier("employs"), s.modifier("model")
        (True, False, False)
        """
        return self.before_word[key] >= MODIFIER_SHARE * max(1, self.occurrences[key])

    def compound_head(self, key: str) -> bool:
        """Whether the word (a ``norm_key``) nearly always ends a longer compound.

        >>> from kg.core.model import Paper
        >>> s = CorpusStats.of([Paper("1", "Anomaly detection", "Fraud detection, and "
        ...                               "hallucination. We detect hallucination.")])
        >>> s.compound_head("detection"), s.compound_head("hallucination")
        (True, False)
        """
        return self.after_word[key] >= COMPOUND_HEAD * max(1, self.occurrences[key])


def _key(word: str, cache: dict[str, str]) -> str:
    k = cache.get(word)
    if k is None:
        k = cache[word] = norm_key(word)
    return k
