"""What a user's raw query may do: no SPARQL ``SERVICE``, no Cypher writes or ``LOAD CSV``.

``kg sparql`` and ``kg cypher`` ask a local graph; by default they must neither
reach the network nor change or read anything outside ``OUT``. These checks read
the query the way its parser does — comments, strings, IRIs and quoted names are
skipped, keywords match in any case — so a keyword hidden in a comment or a string
is not a keyword, and a keyword cannot hide from the check behind one. They err
on the side of refusing: a text that confuses them (an unterminated string) is
searched as it stands.

They are the first of two locks: the local Bolt server also runs queries as a
read-only user with file URLs turned off (:mod:`kg.stores.bolt_server`).
"""

from __future__ import annotations

import re

__all__ = ["CYPHER_WRITES", "cypher_forbidden", "sparql_service"]

# SPARQL: a comment, a long or short string, an IRI, an escaped character (so that the
# quote of a prefixed name's "\'" opens no string), else the SERVICE keyword itself when
# it is not part of a variable, a prefixed name or a longer word.
_SPARQL = re.compile(r"""
    \#[^\n\r]*
  | \"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\" | '''(?:[^'\\]|\\.|'(?!''))*'''
  | "(?:[^"\\\n\r]|\\.)*" | '(?:[^'\\\n\r]|\\.)*'
  | <[^<>"{}|^`\\\x00-\x20]*>
  | \\.
  | (?<![\w?$:])(?P<kw>SERVICE)(?![\w:])
""", re.X | re.I | re.S)

_CODEPOINT = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")

#: Cypher clauses that change the graph or read from outside it.
CYPHER_WRITES = ("CREATE", "MERGE", "DELETE", "DETACH", "SET", "REMOVE", "DROP", "LOAD",
                 "FOREACH", "ALTER", "GRANT", "DENY", "REVOKE", "RENAME")

# Cypher: a comment, a string, a quoted name, else one of the keywords above when it is not
# a parameter ($set), a property (n.set), a label (:Set) or a map key (set: 1).
_CYPHER = re.compile(r"""
    //[^\n\r]*
  | /\*.*?(?:\*/|\Z)
  | "(?:[^"\\]|\\.)*" | '(?:[^'\\]|\\.)*'
  | `(?:[^`]|``)*`
  | (?<![\w$.:])(?P<kw>""" + "|".join(CYPHER_WRITES) + r""")(?![\w:])
""", re.X | re.I | re.S)


def _keywords(pattern: re.Pattern[str], text: str) -> list[str]:
    return [m.group("kw").upper() for m in pattern.finditer(text) if m.group("kw")]


def sparql_service(text: str) -> bool:
    """Whether the SPARQL ``text`` has a ``SERVICE`` clause (a request to another server).

    The text is searched as written and with its ``\\u`` escapes expanded (as
    SPARQL 1.1's grammar reads them; Oxigraph does not, rdflib does).

    Examples
    --------
    >>> sparql_service("SELECT * WHERE { service <http://x/sparql> { ?s ?p ?o } }")
    True
    >>> sparql_service('SELECT ?service WHERE { ?service ex:SERVICE "SERVICE" } # SERVICE')
    False
    >>> sparql_service("SELECT * WHERE { ?s ?p ?o #\\n SERVICE <http://x/> {} }")
    True
    """
    expanded = _CODEPOINT.sub(lambda m: chr(int(m.group(1) or m.group(2), 16))
                              if int(m.group(1) or m.group(2), 16) < 0x110000 else m.group(),
                              text)
    return bool(_keywords(_SPARQL, text) or _keywords(_SPARQL, expanded))


def cypher_forbidden(text: str) -> str | None:
    """The first clause of the Cypher ``text`` that writes or loads a file, else ``None``.

    Examples
    --------
    >>> cypher_forbidden("MATCH (n) /* CREATE */ RETURN n.set AS `DELETE`, 'MERGE' AS s")
    >>> cypher_forbidden("match (n) detach\\ndelete n")
    'DETACH'
    >>> cypher_forbidden("load csv from 'file:///etc/passwd' as l return l")
    'LOAD'
    """
    found = _keywords(_CYPHER, text)
    return found[0] if found else None
