"""Termhood: which of the concepts found in the text are accepted into the graph.

Extraction finds *mentions*; the graph keeps *concepts*. The span model marks
every scientific term it sees, as SciERC annotators did ("beats chance",
"class name", "Convergence speed varies"), which is right for span scores but
wrong for a knowledge graph, where every concept is a node that queries,
pages and paper links build on. :class:`TermAcceptance` is the one stage that
decides, after resolution and before the graph is built:

Always accepted
    concepts from the curated lexicon, acronym definitions ("Time Series
    Foundation Models (TSFMs)") and coined names ("we propose DeepFooNet"),
    and terms that are names themselves (inner capitals, digits, all capitals:
    "KLPatch", "List-GRPO").
A model-only concept is accepted when it is a well-formed term
    no ``,;:()\\`` and no "and"/"or"; at most ``max_words`` words; no leading
    determiner, verb or gerund ("constructing confidence regions"); no finite
    verb, auxiliary, determiner or adverb inside ("model size grows"); not a
    single word unless name-like ("attention", "coefficient" never are); not a
    hidden (search-only) lexicon label; and a generic head ("model",
    "benchmark") after a single word needs a known concept or a name there
    ("AI model", "calibration method", but not "problematic model",
    "fine-grained benchmark") —
    **and** it has evidence: mentioned in at least ``min_papers`` papers, or
    its head is a technical head ("axial attention", "boomerang distillation"),
    or it sits under an accepted concept by its head ("inverse temperature
    scheduling" under a lexicon "scheduling" would), or its one paper names it in its
    title or says it again (a match inside a longer term counts); a phrase of ``LONG_WORDS`` words
    or more that its one paper says once, outside the title, needs more than a head
    ("knowledge-augmented phrase retrieval model" is a description, not a term).

Concepts typed ``dataset`` only by the model must look like one (a name or a term
ending in one, or a dataset/benchmark/corpus head; not "LLM safety"); otherwise they
take their next-best type vote, or ``concept``. Broader links to rejected concepts
are re-pointed to the rejected concept's own accepted broader concepts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby, pairwise
from operator import attrgetter

from extractors.concepts import TOOL_NOUNS
from extractors.generic import (
    COMMON_SINGLE,
    DETERMINERS,
    GENERIC_HEADS,
    LIGHT_MODIFIERS,
    is_generic,
    word_set,
)
from extractors.termhood import (
    BURSTY,
    NOUN_EXCEPTIONS,
    CorpusStats,
    general_zipf,
    generic_name,
    property_noun,
    word_shape_ok,
)
from kg.core.collect import trimming
from kg.core.model import Concept, Mention, MentionTable
from kg.core.text import norm_key, plural

__all__ = [
    "ADVERB",
    "DATASET_HEADS",
    "DOMAIN",
    "Decision",
    "EVALUATIVE",
    "FINITE_VERBS",
    "LEADING_VERBS",
    "NOMINAL_ING",
    "REPEATED",
    "Rejected",
    "TECHNICAL_HEADS",
    "TRUSTED_ORIGINS",
    "TermAcceptance",
    "VAGUE_HEADS",
    "head_word",
    "malformed",
    "name_like",
]

#: Origins whose concepts are curated or announced by the authors: always accepted.
TRUSTED_ORIGINS = frozenset({"lexicon", "acronym", "pattern"})

#: Mentions in its one paper that make a term central there (as a title mention does).
REPEATED = 2
#: Papers the termhood filter counts between two returns of the C heap's free pages.
PAPERS_PER_TRIM = 2048

#: Words from which a one-paper term said once is a description, not a term (C-value:
#: the longer a candidate, the more occurrences it needs): "knowledge-rich vocabulary
#: based routing function", "attacker inject poisoned text" are composed on the spot.
LONG_WORDS = 4

#: Heads that make a one-paper term technical enough to keep.
TECHNICAL_HEADS = word_set("""
model network net method algorithm estimator learning regression classification attention
transformer distillation optimization inference sampling kernel loss benchmark dataset corpus
encoder decoder autoencoder classifier embedding descent bound theorem divergence entropy
detection segmentation estimation generation quantification calibration regularization
normalization hashing reconstruction synthesis pruning quantization augmentation
tree forest gan rnn cnn lstm gnn llm vae policy game pooling convolution tokenization
error regret scaling scheduling prediction recognition translation retrieval answering
forecasting matching tracking planning control completion transcription parsing summarization
captioning localization tagging equation proof lemma inequality bandit
""") | TOOL_NOUNS

#: Heads of datasets: a model-only "dataset" needs one (or to be a name).
DATASET_HEADS = word_set("""dataset benchmark corpus treebank database suite collection
data recording recordings images videos""")

#: Heads so generic that the words before them must name something ("AI model").
VAGUE_HEADS = GENERIC_HEADS | word_set("benchmark dataset network net data")

#: Modifiers that judge or size what follows rather than name a kind of it (the judged
#: rubric: "Evaluative or filler modifiers make a phrase generic or junk, not a variant").
EVALUATIVE = word_set("""
novel new proposed existing previous efficient effective powerful popular good better best
worse poor promising superior competitive comparable various several diverse excessive
suboptimal sub-optimal subpar premium correct incorrect slow slower faster large-scale
small-scale stealthier significant substantial extensive improved enhanced
""")

_COINED_WORD = "coined word, central in its paper"
#: The reason of an acronym whose long form is no term but whose short form is a coined
#: name ("allocating low-rank adaptation (ALoRA)"): the concept is the name.
_NAMED_BY_SHORT = "coined short form"
#: A coined name: an inner capital after a lower-case letter ("ALoRA", "DoTA"; not "WER",
#: nor a plural "LLMs").
_COINED_SHORT = re.compile(r"^(?=.*[a-z][A-Z])[A-Za-z][A-Za-z0-9\-]*$")
#: The reason of an accepted one-word topic of the corpus (:func:`in_passing`).
TOPIC = "corpus topic"
#: The reason of an accepted domain word (:func:`in_passing`).
DOMAIN = "domain word"

#: Zipf frequency above which the stem of a word in -ing is an English verb (phish 2.7,
#: encode 2.95, construct 4.0).
_VERB_ZIPF = 3.0

#: Nouns in -ing that do start terms ("learning rate", "sampling method").
NOMINAL_ING = word_set("""
learning training sampling clustering hashing embedding matching boosting bagging pooling
padding pruning modeling modelling reasoning planning tracking parsing tagging labeling
labelling ranking forecasting computing processing mining subsampling encoding coding
scheduling finetuning fine-tuning pretraining pre-training prompting denoising inpainting
smoothing filtering reweighting meta-learning self-training multitasking thresholding
""")

#: Verbs that never start a term (base and -s forms; imperative or infinitive clauses).
_VERB_STEMS = sorted(word_set("""
align use learn train improve reduce increase decrease show prove find propose introduce
present provide achieve outperform enable allow require yield obtain derive compute estimate
capture construct mitigate leverage analyze analyse investigate explain study balance lack
beat solve make take give vary grow contribute characterize characterise govern alleviate
obscure promise act reveal remain converge reach prevent exhibit suffer fail lead become
depend induce steer occur arise emerge perform demonstrate suggest generalize generalise
produce preserve encourage enhance exploit harm bridge address tackle refine compensate
specialize specialise push force favor favour underlie underperform distinguish uncover
"""))


LEADING_VERBS = frozenset(_VERB_STEMS) | frozenset(plural(v) for v in _VERB_STEMS)
#: Past tenses of those verbs ("o3-mini demonstrated ..."), but those that are also
#: participle modifiers of terms ("learned index", "trained model", "used car").
_PAST = frozenset(v + ("d" if v.endswith("e") else "ed") for v in _VERB_STEMS) - word_set(
    "learned trained used balanced enhanced induced derived estimated specialized refined "
    "constructed preserved")
#: Finite verbs, auxiliaries and modals that never sit inside a term.
FINITE_VERBS = frozenset(plural(v) for v in _VERB_STEMS) | _PAST | word_set("""
grow vary contribute introduce characterize govern alleviate obscure solve beat lack
is are was were be been being can could may might will would should must does do did
has have had""")
#: Heads that add nothing to the concept before them ("detection method"); "system",
#: "model", "network" do ("recommendation system" is an idea of its own).
_EMPTY_HEADS = word_set("""method approach technique framework strategy scheme procedure
solution accuracy performance process paradigm pipeline task setting metric""")
#: Stages of every study: before a vague head they make no term ("training dataset").
_STAGES = word_set("""training train evaluation test testing validation downstream upstream
baseline benchmark experimental experiment target""")
_STAGE_HEADS = word_set("""dataset datasets benchmark benchmarks metric metrics task tasks
model models method methods approach approaches set sets split splits score scores setting
settings framework frameworks system systems""")
#: (the second line: words no SciERC train gold term of two words or more starts with, as
#: "across language", "between entity", "beyond dataset watermarking" do)
_PREPOSITIONS = word_set("""of for in on with to from by at as via into onto over under
across beyond between among amongst through within without toward towards against upon about
during than based""")
_CONJUNCTIONS = word_set("and or but nor versus & \\&")
#: Words that open a clause: "unclear whether", "gains when scaling".
_CLAUSE_WORDS = word_set("""whether if when while because although though since unless whereas
thereby thus hence therefore""")
#: Adverb endings ("simultaneously", "significantly").
ADVERB = re.compile(r"(?:ally|ably|ibly|ively|ously|edly|ently|antly|ingly|fully)$")
_NAME_TOKEN = re.compile(r"^(?=.*[A-Za-z])(?:.+[A-Z]|.*\d)")
_BAD_CHARS = re.compile(r"[,;:()\[\]\\{}\"]|\bvs\b")
#: Quantities: "billion domain names", "100 languages" count things rather than name them.
_QUANTITIES = word_set("""hundred hundreds thousand thousands million millions billion billions
trillion dozen dozens""")
_NUMBER = re.compile(r"[\d,.]+%?")
#: A suspended hyphen coordinates two modifiers: "reconstruction-/contrastive-based",
#: "pre- and post-training".
_SUSPENDED = re.compile(r"[a-z]-(?=[\s/])")
#: A possessive: "mind's mirror", "RAG's vulnerability" (only a name in Title Case owns a
#: term: "Cohen's kappa", "Zipf's law").
_POSSESSIVE = re.compile(r"(\S*?)\s?['\u2019]s\b")
#: Endings of adjectives that never end a term ("LLM-based controllable", "syntactic
#: information inherent"), and nouns with those endings all the same.
_ADJECTIVE_END = re.compile(r"(?:able|ible|ous|ful|less|ent|ant)$")
#: Comparatives end no term either: "times faster", "orders of magnitude smaller".
_COMPARATIVES = word_set("""faster slower better worse larger smaller higher lower stronger
weaker cheaper longer shorter""")
_NOUNS_IN_ADJECTIVE_ENDINGS = NOUN_EXCEPTIONS | word_set("""
variable table cable label agent gradient coefficient component student client patient
content incident descent percent event intent extent parent talent current constituent
opponent respondent dependent recipient variant participant assistant constant invariant
tenant quadrant restaurant merchant accent consent element moment argument""")


def name_like(token: str) -> bool:
    """A token that looks like a name: inner capitals, digits or all capitals.

    >>> [name_like(t) for t in ["KLPatch", "CIFAR-10", "GNNs", "List-GRPO", "attention", "Lasso"]]
    [True, True, True, True, False, False]
    """
    return bool(_NAME_TOKEN.match(token))


def _names(words: list[str]) -> bool:
    """Words that name something: a name-like token, or a Title Case run ("Single Location")."""
    return any(name_like(w) for w in words) or (
        len(words) > 1 and all(w[:1].isupper() for w in words))


def _head_index(words: list[str]) -> int:
    """The head of "X of Y" is X's last word; otherwise the last word."""
    for i, w in enumerate(words):
        if i and w.lower() in ("of", "for", "in", "on", "with") and i < len(words) - 1:
            return i - 1
    return len(words) - 1


def head_word(label: str) -> str:
    """The head word of a term, normalised.

    >>> head_word("cross-view attention heads"), head_word("curse of dimensionality")
    ('head', 'curse')
    """
    words = norm_key(label).split()
    return words[_head_index(words)] if words else ""


def malformed(form: str, *, max_words: int = 5,
              noun: Callable[[str], bool] | None = None) -> str | None:
    """Why a surface form is not a well-formed term, or ``None`` when it is one.

    Examples
    --------
    >>> [malformed(t) for t in ["beats chance", "Convergence speed varies",
    ...                         "benign, refusal", "constructing confidence regions"]]
    ['leading verb', 'finite verb', 'punctuation', 'leading gerund']
    >>> [malformed(t) for t in ["axial attention", "attention", "KLPatch"]]
    [None, 'single common word', None]

    Clauses and cut coordinations the span model runs together are no terms either:

    >>> [malformed(t) for t in ["mind's mirror", "LLM-based controllable",
    ...                         "tasks evaluating reasoning capability",
    ...                         "reconstruction-/contrastive-based learning", "times faster"]]
    ['possessive', 'trailing adjective', 'clause', 'conjunction', 'trailing adjective']
    >>> [malformed(t) for t in ["Cohen's kappa", "latent variable", "news recommending system"]]
    [None, None, None]

    ``noun`` tells which leading words in -ing the corpus uses as nouns ("poisoning" in
    "data poisoning"): they may start a term ("poisoning attack").

    >>> nouns = {"poisoning"}
    >>> malformed("poisoning attack"), malformed("poisoning attack", noun=nouns.__contains__)
    ('leading gerund', None)
    """
    if _BAD_CHARS.search(form):
        return "punctuation"
    words = form.split()
    if not words:
        return "empty"
    if len(words) > max_words:
        return "too long"
    low = [w.lower() for w in words]
    if len(words) == 1:
        return None if name_like(words[0]) else "single common word"
    if "et" in low and low[low.index("et") + 1:][:1] in (["al"], ["al."]):
        # "Smith et al": a citation, not a term (no SciERC train gold term holds one)
        return "citation"
    if low[0] in DETERMINERS:
        return "leading determiner"
    if low[0] in _PREPOSITIONS:
        return "leading preposition"
    if low[0] in LEADING_VERBS:
        return "leading verb"
    if low[0].endswith("ing") and low[0] not in NOMINAL_ING and not name_like(words[0]) \
            and not (noun is not None and noun(low[0])) and _verb_stem(low[0]):
        return "leading gerund"
    if _SUSPENDED.search(form):
        return "conjunction"
    for w in low:
        if w in _CONJUNCTIONS:
            return "conjunction"
        if w in _CLAUSE_WORDS:
            return "clause"
    for m in _POSSESSIVE.finditer(form):
        owner = m.group(1)
        if not (owner[:1].isupper() and owner[1:].islower()):
            return "possessive"
    last = low[-1]
    if (last.isalpha() and not last.endswith("ment") and last not in _NOUNS_IN_ADJECTIVE_ENDINGS
            and _ADJECTIVE_END.search(last)) or (len(low) > 1 and last in _COMPARATIVES):
        return "trailing adjective"
    if any(w in _QUANTITIES for w in low) or _NUMBER.fullmatch(low[0]):
        return "quantity"
    for i in range(len(words) - 2):
        # "BGMAttack renders backdoor trigger": a name and a verb in -s open a clause
        b = words[i + 1]
        if name_like(words[i]) and b.islower() and b.isalpha() and b.endswith("s") \
                and not b.endswith(("ss", "us", "is")):
            return "clause"
    for a, b in zip(low, low[1:], strict=False):
        # "tasks evaluating reasoning capability": a plural noun and a participle open a
        # clause (a reduced relative), not a compound
        if b.endswith("ing") and b not in NOMINAL_ING and len(a) > 3 and a.endswith("s") \
                and not a.endswith(("ss", "us", "is", "news")):
            return "clause"
    for w in low[1:]:
        if w in FINITE_VERBS:
            return "finite verb"
        if w in DETERMINERS and w not in ("all", "no", "most", "more"):
            return "inner determiner"
        if ADVERB.search(w):
            return "adverb"
    return None


@dataclass(frozen=True)
class Decision:
    """Whether a concept enters the graph, and why."""

    accepted: bool
    reason: str


@dataclass
class Rejected:
    """What extraction found but the graph did not accept (filled in by the pipeline)."""

    mentions: list[Mention] = field(default_factory=list)
    concepts: dict[str, Concept] = field(default_factory=dict)
    decisions: dict[str, Decision] = field(default_factory=dict)


@dataclass
class TermAcceptance:
    """The termhood filter between extraction and the graph (see the module docstring).

    Parameters
    ----------
    max_words : int
        Longest accepted model-only term, in words.
    min_papers : int
        Papers that mention a model-only term for it to count as established.
    technical_heads : frozenset of str
        Head words that make a one-paper term technical.

    Examples
    --------
    >>> from kg.core.model import Concept, Mention
    >>> cs = {"a": Concept("a", "axial attention", "method", origin="model"),
    ...       "b": Concept("b", "beats chance", origin="model")}
    >>> ms = [Mention("p", c, "abstract", 0, 1, "x", "x", "model") for c in cs]
    >>> {c: d.accepted for c, d in TermAcceptance().decide(cs, ms).items()}
    {'a': True, 'b': False}
    """

    max_words: int = 5
    min_papers: int = 2
    technical_heads: frozenset[str] = TECHNICAL_HEADS
    hidden_labels: frozenset[str] = field(default_factory=frozenset)

    def decide(self, concepts: Mapping[str, Concept], mentions: Iterable[Mention], *,
               vocabulary: Mapping[str, Concept] | None = None,
               stats: CorpusStats | None = None) -> dict[str, Decision]:
        """A :class:`Decision` for every concept in ``concepts``.

        ``vocabulary`` holds every concept known before the text was read (the lexicon
        and the acronyms defined in the corpus): their hidden labels are never accepted
        as new terms, and their labels make a generic head specific ("deep learning model").
        ``stats`` (:class:`~extractors.termhood.CorpusStats` of the corpus) lets one-word
        terms in: domain words and the corpus's topics; without it none is.

        A term counts the papers of the terms nested under it too (C-value-like): "tactile
        sensing" inside "vision-based tactile sensing" and "optical tactile sensing" is
        established by two papers, even if neither says "tactile sensing" alone.
        """
        coined: set[str] = set()
        titled: set[str] = set()
        # every mention counts, those matched again by propagation or inside a longer term
        # too: a paper that says "public key" once alone and again in "user public key" says
        # it twice (C-value counts a term's nested occurrences). Counted a paper at a time,
        # into tables of one entry per concept: a set of papers per concept and a count per
        # (concept, paper) grew with the corpus (~8 KB per paper at 5,000 papers)
        n_papers: Counter[str] = Counter()  # papers that mention it or a concept under it
        said: Counter[str] = Counter()  # its mentions
        repeated: set[str] = set()  # said REPEATED times or more in one paper
        # (each paper's mentions and counts are garbage once counted: given back on the way)
        for run in trimming(_paper_runs(mentions), every=PAPERS_PER_TRIM):
            here: Counter[str] = Counter()
            for m in run:
                here[m.concept] += 1
                if m.field == "title":
                    titled.add(m.concept)
                if m.extractor == "pattern":
                    coined.add(m.concept)
            said.update(here)
            repeated.update(cid for cid, k in here.items() if k >= REPEATED)
            # the paper counts for each concept it mentions and for their broader concepts
            n_papers.update({*here, *(b for cid in here if cid in concepts
                                      for b in concepts[cid].broader)})
        vocab = [*concepts.values(), *(vocabulary or {}).values()]
        hidden = {norm_key(h) for h in self.hidden_labels} | {
            norm_key(h) for c in vocab for h in c.hidden_labels}
        known = {norm_key(f) for c in vocab if c.origin in TRUSTED_ORIGINS
                 for f in (c.label, *c.aliases)}
        out: dict[str, Decision] = {}
        accepted_keys: set[str] = set()
        # shorter terms first: a term may be accepted because it sits under one
        for cid in sorted(concepts, key=lambda c: (len(concepts[c].label.split()), c)):
            c = concepts[cid]
            if c.origin == "acronym" and _bad_long_form(c.label, c.aliases):
                # "we propose a ... (WER)", "state-of-the-art (SOTA)": a definition found,
                # but its long form is no term; a coined short form ("allocating low-rank
                # adaptation (ALoRA)") is a name all the same
                out[cid] = Decision(True, _NAMED_BY_SHORT) if _coined_short(c) else \
                    Decision(False, "acronym of no term")
            elif c.origin in TRUSTED_ORIGINS and _vague_word(c.label) and not (
                    stats and stats.topic_word(c.label)):
                # "accuracy", "robustness", "state-of-the-art": everywhere, about nothing
                out[cid] = Decision(False, "vague word")
            elif c.origin in TRUSTED_ORIGINS:
                out[cid] = Decision(True, c.origin)
            elif c.origin == "keyword":
                out[cid] = self._keyword(c, stats)
            elif cid in coined and stats is not None and _empty_head_on(
                    norm_key(c.label).split(), accepted_keys):
                # "GraphCLIP framework": the name is the concept
                out[cid] = Decision(False, "generic head on a concept")
            elif cid in coined:
                out[cid] = Decision(True, "coined name")
            else:
                out[cid] = self._model_term(c, n_papers[cid], hidden, known,
                                            out, stats, central=cid in titled or (
                                                _repeated_term(c.label, known)
                                                and cid in repeated),
                                            accepted_keys=accepted_keys,
                                            said_once=said[cid] <= 1)
            if out[cid].accepted:
                accepted_keys.add(norm_key(c.label))
        return out

    @staticmethod
    def _keyword(c: Concept, stats: CorpusStats | None) -> Decision:
        """An author keyword: accepted unless it is a generic word or name."""
        if is_generic(c.label) or generic_name(c.label):
            return Decision(False, "generic keyword")
        words = c.label.split()
        if len(words) == 1 and not name_like(words[0]) and _stop_word(words[0]) and not (
                stats and stats.topic_word(words[0])):
            return Decision(False, "generic keyword")
        return Decision(True, "author keyword")

    def one_word(self, word: str, stats: CorpusStats) -> bool:
        """Whether a lower-case one-word term found by a model is accepted in this corpus."""
        return _one_word(word, stats).accepted

    def _model_term(self, c: Concept, n_papers: int, hidden: set[str], known: set[str],
                    done: Mapping[str, Decision], stats: CorpusStats | None = None, *,
                    central: bool = False, accepted_keys: set[str] | None = None,
                    said_once: bool = False) -> Decision:
        forms = [c.label, *c.aliases]
        key = norm_key(c.label)
        if key in hidden:
            return Decision(False, "hidden label")
        if key in known:  # "RL" where the lexicon's RL was not trusted: no second concept
            return Decision(False, "form of a known concept")
        words = c.label.split()
        if len(words) == 1 and generic_name(words[0]) and not (
                stats and stats.topic_word(words[0])):
            return Decision(False, "generic name")
        if all(name_like(w) for w in words) and malformed(c.label, max_words=self.max_words) \
                is None:
            return Decision(True, "name")
        if len(words) == 1 and stats is not None:
            one = _one_word(words[0], stats)
            if not one.accepted and central and word_shape_ok(words[0].lower()) \
                    and general_zipf(words[0].lower()) == 0:
                # a coined one-word name its paper names in the title or repeats ("pyvene")
                return Decision(True, _COINED_WORD)
            return one
        # a gerund the corpus mostly puts after other words, as a compound's head ("data
        # poisoning", "load balancing"), is a noun there and may start a term
        noun = None if stats is None else (
            lambda w: stats.after_word[norm_key(w)] >= self.min_papers
            and 2 * stats.after_word[norm_key(w)] > stats.occurrences[norm_key(w)])
        for f in forms:
            why = malformed(f, max_words=self.max_words, noun=noun)
            if why:
                return Decision(False, why)
        kw = key.split()
        h = _head_index(kw)
        # "problematic model", "fine-grained benchmark": one word must make a vague head
        # specific: a known concept, a name, or (with the corpus's statistics) a noun
        # ("traffic prediction", "multi-agent system", "index structure")
        if kw[h] in VAGUE_HEADS and len(words) == 2 and not (
                norm_key(words[0]) in known or any(_true_name(f.split()[0]) for f in forms)
                or (stats is not None and (_noun_modifier(words[0]) or central))):
            # ... or the paper names it in its title or says it again: "parametric
            # knowledge" in a paper about it
            return Decision(False, "vague head")
        if len(kw) == 2 and kw[1] in _STAGE_HEADS and (kw[0] in _STAGES or kw[0] in _EMPTY_HEADS):
            # "training dataset", "evaluation metrics", "downstream task", "approach model":
            # a stage of every study, or another generic head, says nothing of which one
            return Decision(False, "generic stage")
        if stats is not None and h == len(kw) - 1 and _empty_head_on(
                kw, accepted_keys or set(), known):
            # "detection method", "machine unlearning method": the concept before the
            # generic head is the idea; the paper links to it (found inside this term)
            return Decision(False, "generic head on a concept")
        if stats is not None and all(w.lower() in LIGHT_MODIFIERS for w in words[:-1]):
            # "real-world dataset", "large-scale study": in many papers, about none
            return Decision(False, "light modifiers only")
        if stats is not None and words[0].lower() in EVALUATIVE and not name_like(words[0]):
            # "stealthier backdoor attack", "sub-optimal retrieval", "novel reward model":
            # the judgement is the author's, the term is what follows it
            return Decision(False, "evaluative modifier")
        if n_papers >= self.min_papers:
            return Decision(True, f"{n_papers} papers")
        if stats is not None and said_once and not central and len(words) >= LONG_WORDS \
                and kw[h] not in DATASET_HEADS:
            # a long phrase its one paper says once, outside the title, is a description
            # made for that sentence ("knowledge-augmented phrase retrieval model"): its
            # head or the known concept under it makes the shorter term, not this one.
            # A resource is named by such a description ("news media reliability
            # dataset"): the paper releases it, it need not repeat it
            return Decision(False, "long phrase said once")
        if kw[h] in self.technical_heads:
            return Decision(True, "technical head")
        if any(done.get(b, Decision(False, "")).accepted for b in c.broader):
            return Decision(True, "under a known concept")
        if all(w in LIGHT_MODIFIERS for w in kw[:-1]):
            return Decision(False, "light modifiers only")
        if stats is not None and central:
            # one paper, but it names the term in its title or says it again and again
            return Decision(True, "central in its paper")
        return Decision(False, "one paper, no technical head")

    def retype(self, concept: Concept, votes: Counter[str] | None,
               stats: CorpusStats | None = None) -> str:
        """The type of an accepted model-only or acronym concept: a "dataset" must look like one.

        >>> TermAcceptance().retype(Concept("x", "anchored response", "dataset", origin="model"),
        ...                         Counter({"dataset": 3, "method": 1}))
        'method'
        >>> TermAcceptance().retype(Concept("x", "LLM safety", "dataset", origin="model"),
        ...                         Counter({"dataset": 2, "concept": 1}))
        'concept'

        Data said by a property ("noisy data", "unlabeled data", "textual data") is a kind
        of data, a concept; data said by what it holds or where it comes from ("training
        data", "speech data") is a dataset. An adjective is told from a noun by the
        corpus's use (it seldom ends a phrase: :meth:`CorpusStats.noun`), without the
        corpus by its ending:

        >>> [TermAcceptance().retype(Concept("x", t, "dataset", origin="model"), None)
        ...  for t in ["unlabeled data", "textual data", "speech data"]]
        ['concept', 'concept', 'dataset']
        """
        if concept.type != "dataset" or concept.origin not in ("model", "acronym"):
            return concept.type
        words = concept.label.split()
        if len(words) >= 2 and norm_key(words[-1]) == "data" and _adjective(words[-2], stats):
            return "concept"
        if name_like(words[-1]) or head_word(concept.label) in DATASET_HEADS:
            return "dataset"
        rest = [t for t, _ in sorted((votes or Counter()).items(), key=lambda kv: (-kv[1], kv[0]))
                if t not in ("dataset", "generic", "")]
        return rest[0] if rest else "concept"

    def apply(self, concepts: Mapping[str, Concept], mentions: Sequence[Mention],
              votes: Mapping[str, Counter[str]] | None = None, *,
              vocabulary: Mapping[str, Concept] | None = None,
              stats: CorpusStats | None = None, in_place: bool = False,
              ) -> tuple[MentionTable, dict[str, Concept], dict[str, Decision]]:
        """The accepted mentions and concepts (with accepted ancestors), and every decision.

        Concepts are updated in place: model-only and acronym datasets that are not datasets are
        retyped, and broader links skip rejected concepts. With ``in_place``, ``mentions``
        (a :class:`~kg.core.model.MentionTable`) keeps only the accepted ones and is returned
        as they, not copied.
        """
        decisions = self.decide(concepts, mentions, vocabulary=vocabulary, stats=stats)
        ok = {cid for cid, d in decisions.items() if d.accepted}
        for cid in ok:
            c = concepts[cid]
            c.type = self.retype(c, (votes or {}).get(cid), stats)
            if c.type == "concept" and decisions[cid].reason == _COINED_WORD:
                c.type = "method"  # a word its authors coined names their system ("pyvene")
            if decisions[cid].reason == _NAMED_BY_SHORT:
                # the name, not a clause, labels the concept
                short = _coined_short(c)
                if short and not any(o.label == short for o in concepts.values()):
                    c.aliases = sorted({*c.aliases, c.label} - {short})
                    c.label = short
            c.broader = _accepted_broader(c, concepts, ok)
        passing = in_passing(mentions, decisions, concepts, stats)

        def accepted(m: Mention) -> bool:
            return m.concept in ok and not (passing and (m.paper, m.concept) in passing)

        if in_place and isinstance(mentions, MentionTable):
            mentions.keep(map(accepted, mentions))
            kept = mentions
        else:
            kept = MentionTable(filter(accepted, mentions), papers=mentions.papers
                                if isinstance(mentions, MentionTable) else None)
        used = set(kept.column("concept"))
        stack, keep = list(used), set(used)
        while stack:
            for b in concepts[stack.pop()].broader:
                if b not in keep and b in concepts:
                    keep.add(b)
                    stack.append(b)
        return kept, {cid: concepts[cid] for cid in sorted(keep)}, decisions


def in_passing(mentions: Iterable[Mention], decisions: Mapping[str, Decision],
               concepts: Mapping[str, Concept] | None = None,
               stats: CorpusStats | None = None) -> set[tuple[str, str]]:
    """The (paper, concept) pairs where an accepted corpus topic is only named in passing:
    once, and not in the title.

    A one-word topic of the corpus ("recommendation", "generation", "understanding") is a
    concept of the papers that treat it (name it in their title or use it again), not of
    every paper that says the word once ("… and sequential recommendation"): such a paper
    links to its more specific terms.

    >>> ms = [Mention("p", "t", "abstract", 0, 1, "x", "x", "model"),
    ...       Mention("q", "t", "title", 0, 1, "x", "x", "model")]
    >>> sorted(in_passing(ms, {"t": Decision(True, TOPIC)}))
    [('p', 't')]

    So is a domain word that the corpus does not repeat either (fewer than
    :data:`~extractors.termhood.BURSTY` occurrences per paper that uses it): a topical
    word comes back in the papers about it (Katz's burstiness), a word said once here and
    once there ("implication", "computation", "plugin", "bottleneck") is the prose's,
    where a paper does not name it again. A property ("anonymity", "connectivity") is a
    concept however often it is said, as it is a concept whatever the span model voted.
    """
    topics = {cid for cid, d in decisions.items() if d.accepted and d.reason == TOPIC}
    if concepts is not None and stats is not None:
        for cid, d in decisions.items():
            if d.accepted and d.reason == DOMAIN and cid in concepts:
                k = norm_key(concepts[cid].label.lower())
                if stats.occurrences[k] < BURSTY * stats.df[k] and not property_noun(k):
                    topics.add(cid)
    if not topics:
        return set()
    out: set[tuple[str, str]] = set()
    # a paper at a time: a count per topic it names (its mentions garbage once counted)
    for run in trimming(_paper_runs(mentions), every=PAPERS_PER_TRIM):
        n: Counter[str] = Counter()
        for m in run:
            if m.concept in topics:
                n[m.concept] += 2 if m.field == "title" else 1
        out.update((run[0].paper, cid) for cid, c in n.items() if c < 2)
    return out


def _paper_runs(mentions: Iterable[Mention]) -> Iterator[list[Mention]]:
    """The mentions of each paper, one paper after another.

    Mentions sorted by paper (:func:`~kg.core.model.sorted_mentions`, as consolidation
    gives them) are read as they come, a paper's run at a time; others are sorted by paper
    first (a list of them, in their order within each paper).

    >>> ms = [Mention(p, "c", "abstract", 0, 1, "x", "x", "model") for p in "qpq"]
    >>> [[m.paper for m in run] for run in _paper_runs(ms)]
    [['p'], ['q', 'q']]
    """
    if not isinstance(mentions, Sequence):
        mentions = list(mentions)
    if isinstance(mentions, MentionTable):
        papers = mentions.column("paper")  # (read without making a mention per row)
        if not any(a > b for a, b in pairwise(papers)):
            a = 0
            for _, same in groupby(papers):
                b = a + sum(1 for _ in same)
                yield mentions[a:b]
                a = b
            return
    if any(a > b for a, b in pairwise(m.paper for m in mentions)):  # (one pass)
        mentions = sorted(mentions, key=attrgetter("paper"))
    for _, run in groupby(mentions, key=attrgetter("paper")):
        yield list(run)


def _coined_short(c: Concept) -> str | None:
    """The coined short form among an acronym concept's aliases, if any ("ALoRA").

    >>> _coined_short(Concept("x", "allocating low-rank adaptation", aliases=["ALoRA"]))
    'ALoRA'
    >>> _coined_short(Concept("x", "we propose a word error rate", aliases=["WER"])) is None
    True
    """
    return next((a for a in sorted(c.aliases) if _COINED_SHORT.match(a)), None)


def _verb_stem(word: str) -> bool:
    """Whether a word in -ing is the gerund of an English verb ("constructing", "running"),
    not a noun of its own ("phishing", "wedding"): a stem common in general English.

    >>> _verb_stem("constructing"), _verb_stem("running"), _verb_stem("phishing")
    (True, True, False)
    """
    stem = word[:-3]
    forms = [stem, stem + "e"] + ([stem[:-1]] if len(stem) > 2 and stem[-1] == stem[-2] else [])
    return any(general_zipf(f) >= _VERB_ZIPF for f in forms if len(f) > 1)


def _repeated_term(label: str, known: set[str] = frozenset()) -> bool:
    """A term that its paper's repeating makes central: not one a participle opens, which
    describes rather than names ("anchored response", "learned features"), nor a modifier
    on a curated concept's form (``known``), which the paper links to anyway
    ("high-dimensional MDPs").

    >>> _repeated_term("wave equation"), _repeated_term("anchored response")
    (True, False)
    >>> _repeated_term("high-dimensional MDPs", {"mdp"})
    False
    """
    words = label.split()
    first = words[0].lower()
    return not (first.endswith("ed") and not name_like(words[0])) and (
        norm_key(words[-1]) not in known)


def _empty_head_on(kw: list[str], keys: set[str], more: set[str] = frozenset()) -> bool:
    """A term (``norm_key`` words) that ends in an empty head after a concept (in ``keys`` or
    ``more``) or an activity:
    "detection method", "image generation task", "pretraining method", "few-shot setting".

    >>> _empty_head_on("graph anomaly detection task".split(), set())
    True
    >>> _empty_head_on("few-shot setting".split(), {"few-shot"})
    True
    >>> _empty_head_on("recommendation system".split(), {"recommendation"})
    False
    """
    if len(kw) < 2 or kw[-1] not in _EMPTY_HEADS:
        return False
    before, rest = kw[-2], " ".join(kw[:-1])
    return (rest in keys or rest in more or before in TECHNICAL_HEADS or before in NOMINAL_ING
            or (before.endswith("ing") and before.replace("-", "") in NOMINAL_ING))


def _bad_long_form(label: str, short_forms: Iterable[str] = ()) -> bool:
    """A long form that is a clause or a generic word, not a term.

    A leading word in -ing is no verb where the words' initials spell the short form: the
    authors named the term so ("referring expression comprehension (REC)").

    >>> _bad_long_form("referring expression comprehension", ["REC"])
    False
    >>> _bad_long_form("allocating low-rank adaptation", ["AdaLoRA"])
    True

    One adjective is the definition of a modifier ("collaborative (CO) signals"); one noun,
    or a word the noun list excepts, is a term:

    >>> [_bad_long_form(f) for f in ["collaborative", "Auto-Regressive", "Out-Of-Vocabulary",
    ...                              "hallucination", "Kullback–Leibler", "HumanRankEval",
    ...                              "one-vs-all"]]
    [True, True, False, False, False, False, False]
    """
    why = malformed(label, max_words=12)
    if why == "leading gerund" and any(_initials_spell(label, s) for s in short_forms):
        why = None
    if why in ("leading verb", "leading determiner", "finite verb", "clause",
               "leading gerund", "possessive", "citation"):
        return True
    if label.split()[0] in _CONJUNCTIONS:
        # "and planning for complex tasks (ADaPT)": the definition found is cut
        return True
    low = label.lower()
    last = low.rsplit("-", 1)[-1]
    if _MODIFIER_WORD.fullmatch(low) and not _true_name(label) and len(last) >= 4 \
            and not word_shape_ok(last):
        # one adjective, defined where it modifies the term: "collaborative (CO) signals",
        # "Auto-Regressive (AR) models" define a modifier, not a concept
        return True
    return is_generic(label) or low in LIGHT_MODIFIERS or low in GENERIC_HEADS


#: One lower-case word, hyphenated parts allowed (no name, no punctuation).
_MODIFIER_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")


def _initials_spell(long_form: str, short: str) -> bool:
    """Whether the initials of ``long_form``'s words (hyphenated parts too) are ``short``.

    >>> _initials_spell("referring image segmentation", "RIS")
    True
    >>> _initials_spell("Referring Image-Segmentation", "RIS"), _initials_spell("a b", "AB2")
    (True, False)
    """
    letters = "".join(c for c in short.lower() if c.isalnum())
    words = [w for w in re.split(r"[\s\-]+", long_form.lower()) if w]
    whole = "".join(w[0] for w in words)
    firsts = "".join(w[0] for w in long_form.lower().split())
    return len(letters) >= 2 and letters in (whole, firsts)


def _vague_word(label: str) -> bool:
    """One word of the generic heads or light modifiers ("accuracy", "state-of-the-art"),
    spaced or hyphenated: a concept labelled by its most used form may be "state of the art".

    >>> _vague_word("state of the art"), _vague_word("State-of-the-art")
    (True, True)
    >>> _vague_word("art of the state"), _vague_word("SOTA")
    (False, False)
    """
    low = label.lower().replace(" ", "-")
    return not name_like(label) and (low in GENERIC_HEADS or low in LIGHT_MODIFIERS)


def _stop_word(word: str) -> bool:
    """A word of the generic stop-lists: never a one-word term unless the corpus's topic."""
    w = word.lower()
    return (w in COMMON_SINGLE or norm_key(w) in COMMON_SINGLE or w in LIGHT_MODIFIERS
            or w in DETERMINERS or w in LEADING_VERBS or bool(ADVERB.search(w)))


def _true_name(token: str) -> bool:
    """A name-like token that is more than Title Case ("GPT-4", "LoRA", not "Real-World")."""
    return name_like(token) and not all(p[:1].isupper() and p[1:].islower()
                                        for p in token.split("-") if p)


def _adjective(word: str, stats: CorpusStats | None) -> bool:
    """A modifier that is an adjective or participle ("noisy", "raw", "unlabeled",
    "multi-source"): the corpus seldom ends a phrase with it, or without the corpus, its
    ending says so ("textual", "synthesized").

    >>> [_adjective(w, None) for w in ["textual", "unlabeled", "speech", "training"]]
    [True, True, False, False]
    """
    w = word.lower()
    if name_like(word) or w in NOUN_EXCEPTIONS:
        return False
    if stats is not None and stats.occurrences[norm_key(w)]:
        return not stats.noun(norm_key(w))
    return not word_shape_ok(w.rsplit("-", 1)[-1])


def _noun_modifier(word: str) -> bool:
    """A modifier that is a noun ("traffic", "multi-agent", "cold-start"), not an adjective."""
    w = word.lower()
    return w not in LIGHT_MODIFIERS and word_shape_ok(w.rsplit("-", 1)[-1]) and (
        "-" not in w or w.rsplit("-", 1)[-1] not in LIGHT_MODIFIERS)


def _one_word(word: str, stats: CorpusStats) -> Decision:
    """A lower-case one-word term: a domain word or a topic of the corpus (:mod:`termhood`)."""
    w = word.lower()
    if not word_shape_ok(w):
        return Decision(False, "single common word")
    k = norm_key(w)
    if w.endswith("ing") and w not in NOMINAL_ING and general_zipf(w) >= 2.5 \
            and stats.heads[k] < 0.5 * stats.occurrences[k]:
        # "Rethinking ...", "Detecting X": a gerund of an English verb is a term only where
        # it ends phrases ("unlearning", rare in general English, is a noun of its field)
        return Decision(False, "verb")
    if stats.topic_word(w):
        return Decision(True, TOPIC)
    if _stop_word(w) or k in _EMPTY_HEADS:
        # ... and a head that says nothing before it ("paradigm", "pipeline") says nothing
        # alone either
        return Decision(False, "single common word")
    if stats.domain_word(w):
        return Decision(True, DOMAIN)
    return Decision(False, "single common word")


def _accepted_broader(c: Concept, concepts: Mapping[str, Concept], ok: set[str]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    stack = list(reversed(c.broader))
    while stack:
        b = stack.pop()
        if b in seen or b not in concepts:
            continue
        seen.add(b)
        if b in ok:
            out.append(b)
        else:
            stack.extend(reversed(concepts[b].broader))
    return out
