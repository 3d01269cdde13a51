"""Real servers for tests, started on free 127.0.0.1 ports and stopped afterwards.

:class:`Virtuoso` runs Debian's ``virtuoso-t`` on a fresh database in a
temporary folder (user ``dba``, password ``dba``)::

    with Virtuoso(tmp_path) as v:
        v.sparql_url          # anonymous, read-only  /sparql
        v.update_url          # digest auth, updates  /sparql-auth
        v.gsp_url             # digest auth, Graph Store Protocol  /sparql-graph-crud-auth
        v.select("SELECT ...")  # rows of SPARQL results JSON bindings (str values)

``tests/conftest.py`` has a session fixture ``virtuoso`` built on it.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import requests

from kg.core.processes import free_port

VIRTUOSO = "virtuoso-t"
USER = "dba"
PASSWORD = "dba"


def virtuoso_available() -> bool:
    """Whether ``virtuoso-t`` and its VAD folder are installed."""
    return shutil.which(VIRTUOSO) is not None


_INI = """\
[Database]
DatabaseFile = {d}/virtuoso.db
ErrorLogFile = {d}/virtuoso.log
LockFile = {d}/virtuoso.lck
TransactionFile = {d}/virtuoso.trx
xa_persistent_file = {d}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {d}/virtuoso-temp.db
TransactionFile = {d}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:{sql_port}
LiteMode = 0
DisableUnixSocket = 1
DisableTcpSocket = 0
ServerThreads = 10
CheckpointInterval = 60
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
MaxQueryMem = 200M
DirsAllowed = ., {d}
VADInstallDir = /usr/share/virtuoso-opensource-7/vad

[HTTPServer]
ServerPort = 127.0.0.1:{http_port}
ServerRoot = {d}
ServerThreads = 10
MaxClientConnections = 10
DavRoot = DAV
EnabledDavVSP = 0
HTTPProxyEnabled = 0

[Client]
SQL_PREFETCH_ROWS = 100
SQL_PREFETCH_BYTES = 16000
SQL_QUERY_TIMEOUT = 0
SQL_TXN_TIMEOUT = 0

[SPARQL]
ResultSetMaxRows = 100000
MaxQueryCostEstimationTime = 400
MaxQueryExecutionTime = 60
DefaultGraph = http://localhost:{http_port}/dataspace
"""


class Virtuoso:
    """A throw-away Virtuoso server in ``folder`` (a context manager)."""

    def __init__(self, folder: Path, *, timeout: float = 90.0) -> None:
        self.folder = Path(folder)
        self.timeout = timeout
        self.sql_port = free_port()
        self.http_port = free_port()
        self.process: subprocess.Popen | None = None
        base = f"http://127.0.0.1:{self.http_port}"
        self.base_url = base
        self.sparql_url = base + "/sparql"
        self.update_url = base + "/sparql-auth"
        self.gsp_url = base + "/sparql-graph-crud-auth"
        self.user, self.password = USER, PASSWORD

    def start(self) -> Virtuoso:
        """Start the server and wait until ``/sparql`` answers."""
        self.folder.mkdir(parents=True, exist_ok=True)
        ini = self.folder / "virtuoso.ini"
        ini.write_text(_INI.format(d=self.folder, sql_port=self.sql_port,
                                   http_port=self.http_port), encoding="utf-8")
        log = open(self.folder / "stdout.log", "wb")  # noqa: SIM115 - closed in stop()
        self._log = log
        self.process = subprocess.Popen(
            [VIRTUOSO, "+configfile", str(ini), "+foreground"], cwd=self.folder,
            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"virtuoso-t exited with {self.process.returncode}: "
                                   f"{self.log_tail()}")
            try:
                r = requests.get(self.sparql_url, params={"query": "ASK {}"}, timeout=2)
                if r.status_code == 200:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"virtuoso did not answer within {self.timeout} s: {self.log_tail()}")

    def log_tail(self) -> str:
        """The end of the server's log, for error messages."""
        path = self.folder / "virtuoso.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 20 s)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process = None
        if getattr(self, "_log", None):
            self._log.close()

    def select(self, query: str) -> list[dict]:
        """Run a read query on the anonymous endpoint; bindings as ``{var: str}``."""
        r = requests.get(self.sparql_url, params={"query": query},
                         headers={"Accept": "application/sparql-results+json"}, timeout=60)
        r.raise_for_status()
        data = r.json()
        if "boolean" in data:
            return [{"boolean": data["boolean"]}]
        return [{k: v["value"] for k, v in b.items()} for b in data["results"]["bindings"]]

    def __enter__(self) -> Virtuoso:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
