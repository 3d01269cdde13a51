"""A local Bolt server for users without Neo4j: ArcadeDB from the ``arcadedb-embedded`` wheel.

``arcadedb-embedded`` (Apache-2.0, on PyPI) ships ArcadeDB's jars, its Bolt plugin
("Neo4j/5.26.0 compatible") and a Java runtime recent enough to run them, so
``pip install`` is all it takes. :func:`start_server` runs that Java runtime as a
child process bound to 127.0.0.1 on free (or given) ports, with a random root
password and one database created at start (ArcadeDB has no ``CREATE DATABASE``
in Cypher); :func:`stop_server` ends it by its process id.

The server is a read-only view unless asked: besides ``root`` (which loads the
graph) it has a user ``reader`` whose group may only read records, so a query run
as ``reader`` cannot create, change or delete anything, nor use ``LOAD CSV`` on a
local file (that needs an administrator). ``LOAD CSV`` from files and URLs is off
for every user, and a reader's query ends after :data:`READ_TIMEOUT_MS`.

``kg serve OUT`` and ``kg cypher`` (without ``--uri``) remember the server they
started for a graph folder in a small state file, ``server.json``, in a per-folder
directory under the user's cache (``$KG_CACHE_DIR``, else
``$XDG_CACHE_HOME/kg``, else ``~/.cache/kg``), next to the server's own files;
see :func:`state_dir`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from kg.core.errors import Messages, StoreError
from kg.core.processes import free_port, pid_alive, port_in_use

__all__ = [
    "BoltServer", "DEFAULT_DATABASE", "DEFAULT_USER", "LOG", "READ_TIMEOUT_MS", "READ_USER",
    "STATE", "arcadedb_home",
    "cache_dir", "file_sha256", "forget_state", "load_state", "save_state", "start_server",
    "state_dir", "stop_server", "wait_ready",
]

#: The database that a local server creates at start and the graph is loaded into.
DEFAULT_DATABASE = "kg"
DEFAULT_USER = "root"
#: The read-only user of a local server (``kg cypher`` without ``--write``, the engine).
READ_USER = "reader"
#: The longest a read-only query may run on a local server (its own bound; the client's
#: ``--timeout`` is usually shorter).
READ_TIMEOUT_MS = 600_000
LOG = "server.log"
STATE = "server.json"


@dataclass
class BoltServer:
    """A running local Bolt server (what :func:`start_server` returns)."""

    uri: str
    user: str
    password: str
    database: str
    pid: int
    root: str
    http_port: int
    #: sha256 of the ``model.json`` last loaded into it (set by the CLI).
    model_sha256: str | None = None
    #: the graph folder it serves (set by the CLI).
    out: str | None = None
    #: password of the read-only user :data:`READ_USER` (``None``: a server without one).
    reader_password: str | None = None

    @property
    def auth(self) -> tuple[str, str]:
        """``(user, password)`` for :func:`neo4j.GraphDatabase.driver`."""
        return (self.user, self.password)

    @property
    def read_auth(self) -> tuple[str, str]:
        """``(user, password)`` of the read-only user."""
        return (READ_USER, self.reader_password or "")

    def alive(self) -> bool:
        """Whether the server process still runs."""
        return pid_alive(self.pid)


def arcadedb_home() -> tuple[Path, Path]:
    """The bundled ``java`` executable and ``jars/`` folder of ``arcadedb-embedded``.

    Raises
    ------
    StoreError
        When the package is not installed or lacks its Java runtime.

    Examples
    --------
    >>> java, jars = arcadedb_home()
    >>> java.name, jars.name
    ('java', 'jars')
    """
    import importlib.util

    spec = importlib.util.find_spec("arcadedb_embedded")
    if spec is None or not spec.submodule_search_locations:
        raise StoreError(Messages.NO_ARCADEDB)
    pkg = Path(next(iter(spec.submodule_search_locations)))
    java, jars = pkg / "jre" / "bin" / "java", pkg / "jars"
    if not java.exists() or not jars.is_dir():
        raise StoreError(Messages.NO_ARCADEDB)
    return java, jars


def _command(java: Path, jars: Path, root: Path, *, host: str, bolt_port: int, http_port: int,
             password: str, database: str, heap: str) -> list[str]:
    return [
        str(java), f"-Xmx{heap}", "--add-modules", "jdk.incubator.vector",
        f"-Darcadedb.server.rootPath={root}",
        f"-Darcadedb.server.rootPassword={password}",
        f"-Darcadedb.server.httpIncomingHost={host}",
        f"-Darcadedb.server.httpIncomingPort={http_port}",
        "-Darcadedb.server.plugins=Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
        f"-Darcadedb.bolt.host={host}",
        f"-Darcadedb.bolt.port={bolt_port}",
        f"-Darcadedb.bolt.defaultDatabase={database}",
        f"-Darcadedb.server.defaultDatabases={database}[{DEFAULT_USER}]",
        # no file:/// or http(s) URL reaches LOAD CSV, whoever asks
        "-Darcadedb.opencypher.loadCsv.allowFileUrls=false",
        "-Darcadedb.opencypher.loadCsv.allowRemoteUrls=false",
        "-cp", str(jars / "*"),
        "com.arcadedb.server.ArcadeDBServer",
    ]


def _write_groups(root: Path) -> None:
    """ArcadeDB's security groups: ``admin`` (root) and ``reader``, who may only read."""
    everything = ["createRecord", "readRecord", "updateRecord", "deleteRecord"]
    groups = {
        "admin": {"resultSetLimit": -1, "readTimeout": -1,
                  "access": ["updateSecurity", "updateSchema", "updateDatabaseSettings"],
                  "types": {"*": {"access": everything}}},
        READ_USER: {"resultSetLimit": -1, "readTimeout": READ_TIMEOUT_MS, "access": [],
                    "types": {"*": {"access": ["readRecord"]}}},
        "*": {"resultSetLimit": -1, "readTimeout": -1, "access": [],
              "types": {"*": {"access": []}}},
    }
    config = root / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "server-groups.json").write_text(
        json.dumps({"databases": {"*": {"groups": groups}}, "version": 2}, indent=2),
        encoding="utf-8")


def _create_reader(server: BoltServer, password: str) -> None:
    """Add the read-only user through the server's HTTP API (as root, on 127.0.0.1)."""
    import requests

    user = {"name": READ_USER, "password": password, "databases": {server.database: [READ_USER]}}
    host = server.uri.rpartition("//")[2].rpartition(":")[0]
    try:
        r = requests.post(f"http://{host}:{server.http_port}/api/v1/server", auth=server.auth,
                          json={"command": "create user " + json.dumps(user)}, timeout=30)
        ok = r.status_code == 200
        detail = f"HTTP {r.status_code}: {r.text[:200]}"
    except requests.RequestException as e:
        ok, detail = False, str(e)
    if not ok:
        raise StoreError(Messages.SERVER_DIED.format(detail="cannot add its read-only user: "
                                                     + detail))


def _log_tail(root: Path, lines: int = 3) -> str:
    try:
        text = (root / LOG).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    errors = [ln for ln in text if "SEVERE" in ln or "Exception" in ln or "Error" in ln]
    return " | ".join((errors or text)[-lines:]).strip()


def wait_ready(uri: str, auth: tuple[str, str], database: str, *, pid: int | None = None,
               timeout: float = 90.0) -> None:
    """Poll ``RETURN 1`` until the server at ``uri`` answers (or raise :class:`StoreError`)."""
    import neo4j
    from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable

    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        if pid is not None and not pid_alive(pid):
            raise StoreError(Messages.SERVER_DIED.format(detail=last or "exited at start"))
        try:
            with neo4j.GraphDatabase.driver(uri, auth=auth, connection_timeout=2) as driver, \
                    driver.session(database=database) as session:
                session.run("RETURN 1 AS ok").consume()  # no managed retries: we poll
            return
        except (ServiceUnavailable, OSError, AuthError, Neo4jError) as e:
            last = str(e).splitlines()[0] if str(e) else type(e).__name__
        time.sleep(0.3)
    raise StoreError(Messages.SERVER_TIMEOUT.format(uri=uri, seconds=int(timeout)))


def start_server(root: str | Path, *, port: int | None = None, host: str = "127.0.0.1",
                 password: str | None = None, database: str = DEFAULT_DATABASE,
                 heap: str = "1g", timeout: float = 90.0, fresh: bool = True) -> BoltServer:
    """Start a local ArcadeDB Bolt server keeping its files in ``root``; wait until it answers.

    Parameters
    ----------
    root : path
        The server's folder (databases, config, ``server.log``); emptied first
        when ``fresh``.
    port : int, optional
        Bolt port; a free one by default.
    host : str
        Interface to listen on (127.0.0.1: only this machine).
    password : str, optional
        Password of the ``root`` user; random by default.
    database : str
        Database created at start, where the graph goes.
    heap : str
        Java's maximum heap (``-Xmx``).
    timeout : float
        Seconds to wait for the first answer to ``RETURN 1``.
    fresh : bool
        Remove whatever ``root`` held before.

    Returns
    -------
    BoltServer
        Its URI, credentials, database and process id. Stop it with :func:`stop_server`.

    Raises
    ------
    StoreError
        The package is missing, the port is taken, or the server did not come up.

    Examples
    --------
    >>> import tempfile, neo4j
    >>> server = start_server(tempfile.mkdtemp())  # doctest: +SKIP
    >>> with neo4j.GraphDatabase.driver(server.uri, auth=server.auth) as d:  # doctest: +SKIP
    ...     d.execute_query("RETURN 1 AS x", database_=server.database).records[0]["x"]
    1
    >>> stop_server(server)  # doctest: +SKIP
    """
    java, jars = arcadedb_home()
    root = Path(root).resolve()
    if fresh and root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True, exist_ok=True)
    if port is not None and port_in_use(port, host):
        raise StoreError(Messages.PORT_IN_USE.format(host=host, port=port))
    bolt_port = port or free_port(host)
    http_port = free_port(host)
    while http_port == bolt_port:
        http_port = free_port(host)
    password = password or secrets.token_urlsafe(12)
    _write_groups(root)
    cmd = _command(java, jars, root, host=host, bolt_port=bolt_port, http_port=http_port,
                   password=password, database=database, heap=heap)
    with open(root / LOG, "ab") as log:
        # A session of its own: Ctrl-C in the terminal reaches us, and we stop it in order.
        proc = subprocess.Popen(cmd, cwd=root, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    server = BoltServer(uri=f"bolt://{host}:{bolt_port}", user=DEFAULT_USER, password=password,
                        database=database, pid=proc.pid, root=str(root), http_port=http_port)
    try:
        wait_ready(server.uri, server.auth, database, pid=proc.pid, timeout=timeout)
        reader = secrets.token_urlsafe(12)
        _create_reader(server, reader)
        server.reader_password = reader
    except BaseException as e:
        stop_server(server)
        if isinstance(e, StoreError) and "exited" in str(e):
            tail = _log_tail(root)
            raise StoreError(Messages.SERVER_DIED.format(detail=tail or "see " + str(root / LOG))
                             ) from None
        raise
    return server


def stop_server(server: BoltServer | int, *, timeout: float = 30.0) -> None:
    """Stop a server started by :func:`start_server` (SIGTERM, then SIGKILL); no-op if gone."""
    pid = server if isinstance(server, int) else server.pid
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 10.0)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not pid_alive(pid):
                return
            time.sleep(0.1)


# -- servers remembered per graph folder (``kg serve`` / ``kg cypher``) ---------------------

def cache_dir() -> Path:
    """Where local servers keep their files: ``$KG_CACHE_DIR`` or ``~/.cache/kg``."""
    if os.environ.get("KG_CACHE_DIR"):
        return Path(os.environ["KG_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kg"


def state_dir(out: str | Path) -> Path:
    """The per-graph-folder directory of the local server serving ``out``."""
    key = hashlib.sha256(str(Path(out).resolve()).encode()).hexdigest()[:16]
    return cache_dir() / "bolt" / key


def file_sha256(path: str | Path) -> str:
    """Hex sha256 of a file's bytes (to tell whether a served graph is stale)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def save_state(server: BoltServer, out: str | Path) -> Path:
    """Remember ``server`` as the one serving ``out`` (file readable by its owner only)."""
    path = state_dir(out) / STATE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(asdict(server), f, indent=2)
    os.replace(tmp, path)
    return path


def load_state(out: str | Path) -> BoltServer | None:
    """The server remembered for ``out`` if its process still runs, else ``None``."""
    path = state_dir(out) / STATE
    try:
        server = BoltServer(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None
    if not (server.alive() and _runs_arcadedb(server.pid, server.root)):
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    return server


def _runs_arcadedb(pid: int, root: str) -> bool:
    """Whether ``pid`` is an ArcadeDB server with files in ``root`` (not a reused pid)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return True  # no /proc: trust the pid
    args = [a.decode(errors="replace") for a in cmdline]
    return "com.arcadedb.server.ArcadeDBServer" in args and \
        f"-Darcadedb.server.rootPath={root}" in args


def forget_state(out: str | Path, server: BoltServer | None = None) -> None:
    """Remove the state file of ``out`` (only if it still names ``server``, when given)."""
    path = state_dir(out) / STATE
    if server is not None:
        current = load_state(out)
        if current is not None and current.pid != server.pid:
            return
    with contextlib.suppress(OSError):
        path.unlink()
