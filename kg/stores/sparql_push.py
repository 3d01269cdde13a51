"""``kg push-sparql``: load a built graph into a named graph of a SPARQL 1.1 server.

Two ways, both replacing the named graph so that pushing twice leaves the same
triples:

``put`` (default)
    one `Graph Store Protocol <https://www.w3.org/TR/sparql11-http-rdf-update/>`_
    ``PUT ENDPOINT?graph=IRI`` with the whole graph as N-Triples (Virtuoso:
    ``/sparql-graph-crud-auth``).
``update``
    SPARQL Update: ``DROP SILENT GRAPH <IRI>``, then ``INSERT DATA { GRAPH <IRI> { … } }``
    in chunks of :data:`UPDATE_CHUNK` triples (Virtuoso: ``/sparql-auth``). Not atomic:
    a failure half-way leaves part of the graph; push again.

With ``user``/``password`` the request answers the server's challenge with
HTTP digest or basic authentication, whichever the server asks for.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import requests
from requests.auth import HTTPBasicAuth, HTTPDigestAuth

from kg.core.errors import Messages, StoreError
from kg.core.vocab import BASE
from kg.stores.export import rdf_bytes
from kg.stores.sparql_terms import iri

__all__ = ["DEFAULT_GRAPH", "TIMEOUT", "UPDATE_CHUNK", "push"]

DEFAULT_GRAPH = BASE + "graph"
TIMEOUT = 300  # seconds; large graphs take a while to load
#: triples per INSERT DATA request with ``method="update"`` (Virtuoso refuses big ones)
UPDATE_CHUNK = 500
_UPDATE = "application/sparql-update; charset=utf-8"


def _check_iri(value: str) -> None:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise StoreError(Messages.BAD_IRI.format(iri=value))


def _auth(response: requests.Response, user: str, password: str):
    challenge = response.headers.get("WWW-Authenticate", "").lower()
    return HTTPDigestAuth(user, password) if "digest" in challenge else \
        HTTPBasicAuth(user, password)


def _send(method: str, url: str, *, params: dict | None, data: bytes, content_type: str,
          user: str | None, password: str | None) -> requests.Response:
    headers = {"Content-Type": content_type}
    try:
        r = requests.request(method, url, params=params, data=data, headers=headers,
                             timeout=TIMEOUT)
        if r.status_code == 401 and user is not None:
            r = requests.request(method, url, params=params, data=data, headers=headers,
                                 timeout=TIMEOUT, auth=_auth(r, user, password or ""))
    except requests.RequestException as e:
        text = str(e)
        detail = ("connection refused" if "refused" in text.lower() else
                  "timed out" if isinstance(e, requests.Timeout) else
                  "name not resolved" if "resolution" in text.lower() else
                  " ".join(text.split())[:200])
        raise StoreError(Messages.ENDPOINT_UNREACHABLE.format(url=url, detail=detail)) from None
    if r.status_code == 401 and user is None:
        raise StoreError(Messages.ENDPOINT_NEEDS_AUTH.format(url=url))
    if r.status_code in (401, 403):
        raise StoreError(Messages.ENDPOINT_AUTH.format(url=url, status=r.status_code))
    if r.status_code >= 400:
        detail = " ".join(r.text.split())[:200] or r.reason
        raise StoreError(Messages.ENDPOINT_FAILED.format(url=url, status=r.status_code,
                                                         detail=detail))
    return r


def push(out: str | Path, endpoint: str, *, graph: str = DEFAULT_GRAPH, method: str = "put",
         user: str | None = None, password: str | None = None) -> int:
    """Replace the named graph ``graph`` at ``endpoint`` by the graph of the build ``out``.

    Parameters
    ----------
    out : path
        A folder written by ``kg build``.
    endpoint : str
        Graph Store Protocol URL (``method="put"``) or SPARQL Update URL
        (``method="update"``).
    graph : str
        IRI of the named graph to replace.
    method : {"put", "update"}
    user, password : str, optional
        Credentials, sent only when the server asks for them.

    Returns
    -------
    int
        The number of triples sent.

    Raises
    ------
    StoreError
        One line, when the server cannot be reached, refuses the credentials or
        the request.

    Examples
    --------
    >>> push("kg-out", "http://127.0.0.1:8890/sparql-graph-crud-auth",
    ...      user="dba", password="dba")  # doctest: +SKIP
    4234
    """
    _check_iri(endpoint)
    _check_iri(graph)
    data = rdf_bytes(Path(out), "ntriples")
    n = data.count(b"\n")
    if method == "put":
        _send("PUT", endpoint, params={"graph": graph}, data=data,
              content_type="application/n-triples", user=user, password=password)
    elif method == "update":
        g = iri(graph)
        _send("POST", endpoint, params=None, data=f"DROP SILENT GRAPH {g}".encode(),
              content_type=_UPDATE, user=user, password=password)
        lines = data.splitlines(keepends=True)
        for i in range(0, len(lines), UPDATE_CHUNK):
            body = (f"INSERT DATA {{ GRAPH {g} {{\n".encode()
                    + b"".join(lines[i:i + UPDATE_CHUNK]) + b"} }\n")
            _send("POST", endpoint, params=None, data=body, content_type=_UPDATE, user=user,
                  password=password)
    else:
        raise ValueError(f"unknown method {method!r}: use 'put' or 'update'")
    return n
