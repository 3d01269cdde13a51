"""Surface-form normalisation: one key for "GNNs", "graph neural network", "Graph-Neural Networks".

:func:`norm_key` is the single definition of "the same words" used by the
matcher, the acronym table, concept merging and topic resolution.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = [
    "BOUND_PREFIXES",
    "acronym_key",
    "american",
    "british_variant",
    "display_label",
    "near_duplicate",
    "norm_key",
    "plural",
    "plural_last",
    "singular",
    "slug",
]

_KEEP_S = ("ss", "us", "is", "ous", "ics", "as")
_IRREGULAR = {
    "matrices": "matrix", "indices": "index", "vertices": "vertex", "biases": "bias",
    "axes": "axis", "analyses": "analysis", "hypotheses": "hypothesis", "theses": "thesis",
    "lasso": "lasso", "gaussians": "gaussian", "series": "series", "species": "species",
    "data": "data", "criteria": "criterion", "phenomena": "phenomenon", "media": "media",
    "children": "child", "men": "man", "women": "woman", "mice": "mouse", "geese": "goose",
    "leaves": "leaf", "halves": "half", "lives": "life", "processes": "process",
    # no plurals: "news" is not "new" ("fake news detection" is no "new detection")
    "news": "news", "lens": "lens", "lenses": "lens",
    # a name: "naive Bayes" is no plural of "naive Baye"
    "bayes": "bayes",
}
# British -> American spellings, so "regularisation" and "regularization" share a key.
_ISE_STEMS = ("optim|minim|maxim|regular|normal|general|parameter|parametr|character|summar|"
              "recogn|visual|token|random|initial|special|real|util|organ|categor|vector|"
              "standard|linear|central|local|stabil|quant|discret|binar|personal|emphas|"
              "synthes|hypothes|memor|prior|symmetr|factor|lemmat|capital|modular|util")
_BRITISH = [
    (re.compile(rf"^({_ISE_STEMS})is(e|es|ed|er|ers|ing|ation|ations|ability|able)$"), r"\1iz\2"),
    (re.compile(r"^(.{3,})isations?$"), r"\1ization"),
    (re.compile(r"^(.*)(analy|paraly)s(e|es|ed|ing)$"), r"\1\2z\3"),
    (re.compile(r"^(model|label|signal|travel|cancel|level|tunnel|fuel|channel)l(ing|ed|er|ers)$"),
     r"\1\2"),
    (re.compile(r"^(behavi|neighb|col|fav|hum|harb|rum|vap|flav|lab)our(s|al|ed|ing|hood|hoods)?$"),
     r"\1or\2"),
    (re.compile(r"^(cent|fib|met|lit)re(s|d)?$"), r"\1er\2"),
    (re.compile(r"^catalogue(s)?$"), r"catalog\1"),
    (re.compile(r"^grey$"), "gray"),
]
# American -> British spellings of whole phrases, so a matcher that knows "batch
# normalization" also finds "batch normalisation". Keep it the inverse of _BRITISH on the
# words both cover (tests/test_extractors.py checks american(british_variant(w)) == w).
_AMERICAN = [
    (re.compile(r"iz(e|es|ed|er|ers|ing|ation|ations)\b"), r"is\1"),
    (re.compile(r"(analy|paraly)z(e|es|ed|ing)\b"), r"\1s\2"),
    (re.compile(r"(model|label|signal|level|channel)(ing|ed)\b"), r"\1l\2"),
    (re.compile(r"\b(behavi|neighb|col)or"), r"\1our"),
]
_DASHES = re.compile(r"[\u2010-\u2015\u2212_/-]+")
_NON_WORD = re.compile(r"[^\w\s]+")
_SPACES = re.compile(r"\s+")

# The caches below are sized for a corpus's common words and phrases, not for all of them:
# each entry holds ~200 bytes (a node, a table slot, key and value), and the build's
# process keeps them to its end. Full at 200,000 and 131,072 entries they held ~90 MB
# at 100,000 papers (issue 17); a word missed costs ~1 us again, a phrase ~13 us.


@lru_cache(maxsize=1 << 14)
def american(word: str) -> str:
    """American spelling of a lower-case British word (a conservative rule list).

    >>> [american(w) for w in ["regularisation", "modelling", "behaviour", "analyse", "noise"]]
    ['regularization', 'modeling', 'behavior', 'analyze', 'noise']
    """
    if len(word) < 4:
        return word
    for pattern, repl in _BRITISH:
        if pattern.match(word):
            return pattern.sub(repl, word)
    return word


def british_variant(form: str) -> str:
    """The British spelling of an American phrase (the same phrase when there is none).

    >>> british_variant("batch normalization"), british_variant("neighborhood modeling")
    ('batch normalisation', 'neighbourhood modelling')
    """
    for pattern, repl in _AMERICAN:
        form = pattern.sub(repl, form)
    return form


def plural(word: str) -> str:
    """English plural of a singular word (also the -s form of a verb: "vary" → "varies").

    >>> [plural(w) for w in ["model", "property", "process", "approach", "GNN"]]
    ['models', 'properties', 'processes', 'approaches', 'GNNs']
    """
    lw = word.lower()
    if word.isupper():
        return word + "s"
    if lw.endswith("y") and len(lw) > 2 and lw[-2] not in "aeiou":
        return word[:-1] + "ies"
    if lw.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


def plural_last(phrase: str) -> str:
    """``phrase`` with its last word in the plural; unchanged when that word takes none.

    A last word that does not end in a letter, or ends like a singular in -s ("loss",
    "corpus", "analysis"), is left as it is.

    >>> plural_last("graph neural network"), plural_last("graph analysis"), plural_last("ResNet-50")
    ('graph neural networks', 'graph analysis', 'ResNet-50')
    """
    head, _, last = phrase.rpartition(" ")
    if not last or not last[-1].isalpha() or last.endswith(("ss", "us", "is")):
        return phrase
    return f"{head} {plural(last)}".strip()


@lru_cache(maxsize=1 << 14)
def singular(word: str) -> str:
    """Singular form of a lower-case English word (rules tuned for ML prose).

    >>> [singular(w) for w in ["networks", "properties", "processes", "gnns", "loss", "analysis",
    ...                        "bayes"]]
    ['network', 'property', 'process', 'gnn', 'loss', 'analysis', 'bayes']
    """
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or not word.endswith("s"):
        return word
    if not word[:-1].isalpha():
        # "l1s", "3ds": plural of a code-like token
        return word[:-1] if word[:-1].isalnum() else word
    if word.endswith(_KEEP_S):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes", "zzes")):
        return word[:-2]
    return word[:-1]


#: Prefixes written joined or hyphenated ("multimodal", "multi-modal"): the key joins a
#: hyphenated one to its word. Only across a hyphen: "RE" (relation extraction) or "CO"
#: standing alone stays a word of its own.
BOUND_PREFIXES = ("multi", "pre", "post", "non", "co", "semi", "sub", "re", "un", "inter",
                  "intra", "anti", "hyper", "meta", "mini")
_PREFIX_HYPHEN = re.compile(
    rf"\b({'|'.join(BOUND_PREFIXES)})[\u2010-\u2015-](?=[^\W\d_])", re.IGNORECASE)
# "fine-tuning", "fine tuning", "finetuning"
_FINE_TUNE = re.compile(r"\b(fine)[\s\u2010-\u2015-]+(?=tun)", re.IGNORECASE)
# a version or size glued to a name: "gpt4" is read "gpt 4", as "GPT-4" is
_LETTER_DIGIT = re.compile(r"(?<=[^\W\d_])(?=\d)")
# "GPUs", "LLMs": an upper-case plural, read before lower-casing ("gpus" keeps its "us")
_UPPER_PLURAL = re.compile(r"\b([A-Z][A-Z0-9]*[A-Z0-9])s\b")


def _plain_words(text: str) -> list[str]:
    text = _UPPER_PLURAL.sub(r"\1", unicodedata.normalize("NFKC", text)).lower()
    text = _DASHES.sub(" ", text)
    text = _NON_WORD.sub(" ", text)
    return [american(singular(w)) for w in _SPACES.split(text.strip()) if w]


def _fold(words: list[str]) -> list[str]:
    """Part a number glued to a name from it: "gpt4" → "gpt 4"."""
    return [w for word in words for w in _LETTER_DIGIT.sub(" ", word).split()]


@lru_cache(maxsize=1 << 15)  # a corpus repeats its phrases: resolution asks again and again
def norm_key(text: str) -> str:
    """The matching key of a surface form: NFKC, lower case, dashes as spaces, singular words,
    American spelling, bound prefixes joined to their word, numbers parted from names.

    >>> norm_key("Graph-Neural Networks")
    'graph neural network'
    >>> norm_key("GNNs") == norm_key("gnn") and norm_key("GPUs") == norm_key("GPU")
    True
    >>> norm_key("Regularisation") == norm_key("regularizations")
    True
    >>> norm_key("multi-modal LLMs") == norm_key("multimodal LLM"), norm_key("GPT4")
    (True, 'gpt 4')
    >>> norm_key("supervised fine-tuning") == norm_key("supervised finetuning")
    True
    """
    text = _FINE_TUNE.sub(r"\1", _PREFIX_HYPHEN.sub(r"\1", text))
    return " ".join(_fold(_plain_words(text)))


def acronym_key(text: str) -> str:
    """Acronyms are matched case-sensitively; only a plural ``s`` is dropped ("GNNs" → "GNN")."""
    text = text.strip()
    if len(text) > 2 and text.endswith("s") and text[:-1].upper() == text[:-1]:
        return text[:-1]
    return text


def slug(text: str) -> str:
    """A stable, readable id for a concept label.

    >>> slug("Graph Neural Networks (GNNs)")
    'graph-neural-network-gnn'
    """
    # the words of the key before folding: ids made before folding existed stay the same
    key = " ".join(_plain_words(text))
    key = unicodedata.normalize("NFKD", key).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", key).strip("-") or "concept"


@lru_cache(maxsize=1 << 14)
def display_label(text: str) -> str:
    """A readable label for a phrase found in text: title case is folded, names are kept.

    >>> display_label("Graph Neural Networks")
    'graph neural network'
    >>> display_label("Private Evolution")
    'private evolution'
    >>> display_label("MinHash estimators")
    'MinHash estimator'
    """
    words = _SPACES.split(text.strip())
    out = []
    for i, w in enumerate(words):
        inner_caps = any(c.isupper() for c in w[1:])
        if inner_caps or any(c.isdigit() for c in w):
            out.append(w[:-1] if i == len(words) - 1 and w.endswith("s") and w[:-1].isupper()
                       else w)
            continue
        lw = w.lower()
        out.append(singular(lw) if i == len(words) - 1 else lw)
    return " ".join(out)


_DIGITS = re.compile(r"\d+")


def near_duplicate(a: str, b: str) -> bool:
    """True when two normalised keys spell one idea (typos and spellings the rules miss).

    Conservative on purpose: the keys must have the same words count and numbers,
    every differing word must agree on its first three and last letters, be at least
    six letters long and not be two words of English (``wordfreq``: "generalized" and
    "generative" are both words, "hierarchial" is a typo), and the keys must be at least
    92 % similar (rapidfuzz ``ratio``). Keys with a number are names and versions
    ("llava 13b model", "llama 13b model"): only spaces may differ. Spaces inside a word
    do not count ("data set" = "dataset").

    >>> near_duplicate("stochastic gradient descend", "stochastic gradient descent")
    False
    >>> near_duplicate("hierarchial clustering", "hierarchical clustering")
    True
    >>> near_duplicate("supervised learning", "unsupervised learning")
    False
    >>> near_duplicate("cifar 10", "cifar 100")
    False
    >>> near_duplicate("data set", "dataset")
    True
    >>> near_duplicate("llava 13b model", "llama 13b model")
    False
    """
    # only builds merge near-duplicates: queries import this module for norm_key and need
    # not pay rapidfuzz's import (~13 ms) on every command
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.fuzz import ratio

    if a == b:
        return True
    if a.replace(" ", "") == b.replace(" ", ""):
        return True
    wa, wb = a.split(), b.split()
    if len(wa) != len(wb) or _DIGITS.search(a) or _DIGITS.search(b):
        return False
    for x, y in zip(wa, wb, strict=True):
        if x != y and (x[:3] != y[:3] or x[-1] != y[-1] or min(len(x), len(y)) < 6
                       or Levenshtein.distance(x, y) > 2 or (_english(x) and _english(y))):
            return False
    return ratio(a, b) >= 92


def _english(word: str) -> bool:
    """A word of general English (``wordfreq``), not a typo or a coined name."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= _ENGLISH_ZIPF


_ENGLISH_ZIPF = 2.0  # about once per ten million words: "hierarchial" 0, "descend" 3.5
