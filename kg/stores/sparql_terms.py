"""Write RDF terms into SPARQL text safely: the only way user text reaches a query.

:func:`literal` and :func:`iri` turn any Python string into a SPARQL term that
parses as exactly that string (or that IRI), whatever it contains: quotes,
braces, backslashes, newlines, ``\\u`` sequences or non-ASCII text. Queries
are then built from these terms (typically in a ``VALUES`` block), never by
pasting user text.

Two engines are covered: Oxigraph, which reads escapes where the grammar
allows them, and rdflib, which first expands every ``\\uXXXX`` and
``\\UXXXXXXXX`` in the whole query text. A backslash followed by ``u`` is
therefore written so that neither reading can see an escape that is not there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["iri", "literal", "values"]

_ECHAR = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b",
          "\f": "\\f"}
# a "u"/"U" right after a backslash: spell it as an 8-digit escape so that rdflib's
# whole-text expansion (\\u + 4 or 8 hex digits) cannot take the user's hex digits along.
_AFTER_BACKSLASH = {"u": "\\U00000075", "U": "\\U00000055"}
_LANG = re.compile(r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$")
# characters that may not appear in an IRIREF (SPARQL 1.1 grammar rule [139])
_IRI_BAD = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_text(value: str, what: str) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    if _SURROGATE.search(value):
        raise ValueError(f"{what} is not valid Unicode (it contains a lone surrogate)")


def literal(value: str, *, lang: str | None = None, datatype: str | None = None) -> str:
    """A SPARQL string literal whose value is exactly ``value``.

    Parameters
    ----------
    value : str
        Any text.
    lang : str, optional
        A language tag (``"en"``); checked, not escaped.
    datatype : str, optional
        A datatype IRI (written with :func:`iri`).

    Raises
    ------
    ValueError
        For a malformed language tag or text with lone surrogates.

    Examples
    --------
    >>> print(literal('say "hi"\\n'))
    "say \\"hi\\"\\n"
    >>> literal("GNN", lang="en")
    '"GNN"@en'
    >>> literal("3", datatype="http://www.w3.org/2001/XMLSchema#integer")
    '"3"^^<http://www.w3.org/2001/XMLSchema#integer>'
    """
    _check_text(value, "a literal")
    out = []
    prev = ""
    for ch in value:
        if prev == "\\" and ch in _AFTER_BACKSLASH:
            out.append(_AFTER_BACKSLASH[ch])
        else:
            out.append(_ECHAR.get(ch, ch))
        prev = ch
    text = '"' + "".join(out) + '"'
    if lang is not None and datatype is not None:
        raise ValueError("a literal has a language tag or a datatype, not both")
    if lang is not None:
        if not _LANG.match(lang):
            raise ValueError(f"not a language tag: {lang!r}")
        return f"{text}@{lang}"
    if datatype is not None:
        return f"{text}^^{iri(datatype)}"
    return text


def iri(value: str) -> str:
    """``<value>`` with every character that an IRI may not contain %-encoded.

    Characters allowed in IRIs (including non-ASCII letters) are kept, so an
    IRI written by :mod:`kg.core.vocab` comes back unchanged.

    Examples
    --------
    >>> iri("https://w3id.org/kg-abstracts/concept/minhash")
    '<https://w3id.org/kg-abstracts/concept/minhash>'
    >>> iri('http://x/a b>{"}')
    '<http://x/a%20b%3E%7B%22%7D>'
    """
    _check_text(value, "an IRI")
    return "<" + _IRI_BAD.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()),
                              value) + ">"


def values(var: str, terms: Iterable[str]) -> str:
    """A ``VALUES ?var { ... }`` block of terms already written by :func:`iri`/:func:`literal`.

    Examples
    --------
    >>> values("c", [iri("http://x/a"), literal("b")])
    'VALUES ?c { <http://x/a> "b" }'
    """
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", var):
        raise ValueError(f"not a SPARQL variable name: {var!r}")
    return f"VALUES ?{var} {{ {' '.join(terms)} }}"
