"""Raw queries that reach out, never end or read what they should not (issue 18, queries).

``kg sparql`` and ``kg cypher`` ask the graph of OUT only: no SPARQL ``SERVICE``
request, no Cypher write or ``LOAD CSV`` unless asked; every query stops at its
``--timeout`` and on Ctrl-C or SIGTERM, with one line.
"""

from __future__ import annotations

import http.server
import os
import signal
import subprocess
import sys
import threading

import pytest

from queries.guards import cypher_forbidden, sparql_service

CARTESIAN = "SELECT (COUNT(*) AS ?n) WHERE {?a ?b ?c . ?d ?e ?f . ?g ?h ?i}"


def kg(*args, check=False, timeout=300):
    return subprocess.run([sys.executable, "-m", "kg", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ})


def one_line_error(proc, code=2) -> str:
    assert proc.returncode == code, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kg: "), proc.stderr
    return lines[0]


class Listener:
    """A real HTTP server on 127.0.0.1 that records every request it gets (and fails them)."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        seen = self.requests

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                seen.append(self.path)
                self.send_response(500)
                self.end_headers()

            do_POST = do_GET

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/sparql"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener():
    server = Listener()
    yield server
    server.close()


@pytest.mark.parametrize("template", [
    "SELECT * WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
    "select * where {{ service silent <{url}> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ ?x ?y ?z #\n SeRvIcE <{url}> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ ?x ?y 'SERVICE' .SERVICE <{url}> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ BIND(<{url}> AS ?u) SERVICE ?u {{ ?s ?p ?o }} }}",
])
def test_sparql_service_is_refused_without_asking_the_network(example_out, listener, template):
    proc = kg("sparql", example_out, template.format(url=listener.url))
    line = one_line_error(proc)
    assert "SERVICE" in line and "--allow-service" in line
    assert listener.requests == []


def test_allow_service_asks_and_a_failed_service_is_one_line(example_out, listener):
    query = f"SELECT * WHERE {{ SERVICE <{listener.url}> {{ ?s ?p ?o }} }}"
    line = one_line_error(kg("sparql", example_out, query, "--allow-service"))
    assert "SPARQL query failed" in line and "Traceback" not in line
    assert listener.requests  # it was asked, since the user said so


@pytest.mark.parametrize("text", [
    "SELECT ?service WHERE { ?service ex:SERVICE 'SERVICE' } # SERVICE <http://x/>",
    'SELECT * WHERE { ?s ?p """a\nSERVICE <http://x/> { }""" }',
    "SELECT * WHERE { ?s <http://x/SERVICE> ?o . ?s :SERVICE ?o . ?s SERVICE:x ?o }",
])
def test_service_check_ignores_comments_strings_iris_and_names(text):
    assert not sparql_service(text)


@pytest.mark.parametrize("text", [
    "SELECT * WHERE { \\u0053ERVICE <http://x/> { ?s ?p ?o } }",
    "SELECT * WHERE { ?s ex:a\\' ?o . SERVICE <http://x/> { ?s ?p ?o } ?s ex:b\\' ?o }",
    "SELECT * WHERE { ?s ?p 'unterminated SERVICE <http://x/> { } }",
])
def test_service_check_errs_on_the_side_of_refusing(text):
    assert sparql_service(text)


def test_sparql_timeout_ends_a_query_that_never_ends(example_out):
    line = one_line_error(kg("sparql", example_out, CARTESIAN, "--timeout", "2"))
    assert "did not finish within 2 s" in line


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_sparql_stops_on_ctrl_c_and_sigterm(example_out, sig):
    proc = subprocess.Popen([sys.executable, "-m", "kg", "sparql", str(example_out), CARTESIAN,
                             "--timeout", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=3)  # still running: the query is under way
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["kg: interrupted; nothing was changed"]


def test_sparql_table_is_capped_and_csv_streams_every_row(example_out):
    query = "SELECT ?s WHERE { ?s ?p ?o }"
    proc = kg("sparql", example_out, query, "--limit", "5")
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 2 + 5
    assert "more rows not shown" in proc.stderr
    proc = kg("sparql", example_out, query, "--format", "csv")
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) > 1000


@pytest.mark.parametrize("text, clause", [
    ("MATCH (n) DETACH DELETE n", "DETACH"),
    ("match (n) /* read only */ delete n", "DELETE"),
    ("CREATE (:Paper {id: 'x'})", "CREATE"),
    ("MATCH (n) SET n.x = 1", "SET"),
    ("LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l", "LOAD"),
    ("MATCH (n)\n//\nMERGE (m {id: 1})", "MERGE"),
    ("MATCH (n) FOREACH (x IN [1] | REMOVE n.x)", "FOREACH"),
])
def test_cypher_write_clauses_are_found(text, clause):
    assert cypher_forbidden(text) == clause


@pytest.mark.parametrize("text", [
    "MATCH (n:Paper) WHERE n.title CONTAINS 'CREATE' RETURN n.set AS `DELETE`",
    "MATCH (n) // DETACH DELETE n\nRETURN count(n) AS n",
    "RETURN $create AS x, {set: 1, load: 2} AS m",
    'RETURN "LOAD CSV FROM \\"file:///etc/passwd\\"" AS s',
])
def test_cypher_read_queries_pass(text):
    assert cypher_forbidden(text) is None


# -- kg cypher on the local server: a read-only view of OUT --------------------------------


SLOW_CYPHER = ("MATCH (a), (b), (c), (d) WHERE a.id + b.id + c.id + d.id = 'x' "
               "RETURN count(*) AS n")


def _count(out, *extra):
    import json

    proc = kg("cypher", "MATCH (p:Paper) RETURN count(p) AS n", "--out", out,
              "--format", "json", *extra)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)[0]["n"]


def test_local_cypher_reads_no_file_and_changes_nothing_by_default(own_cache, example_out):
    from kg.core.errors import KGError
    from kg.stores.bolt import connect
    from kg.stores.bolt_server import load_state

    own_cache.append(example_out)
    assert _count(example_out) == 19
    load = "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l"
    for extra in ([], ["--write"]):  # refused by kg, then by the server itself
        proc = kg("cypher", load, "--out", example_out, *extra)
        one_line_error(proc)
        assert "root:" not in proc.stdout + proc.stderr
    for query in ("MATCH (n) DETACH DELETE n", "cReAtE (:Paper {id: 'x'})",
                  "MATCH (p:Paper) /* */ SET p.title = 'x'"):
        assert "--write" in one_line_error(kg("cypher", query, "--out", example_out))
    # the second lock: the server's own read-only user, whatever the query says
    server = load_state(example_out)
    with connect(server.uri, user=server.read_auth[0], password=server.read_auth[1],
                 database=server.database) as g:
        for query in ("CREATE (:Paper {id: 'x'})", "MATCH (n) DETACH DELETE n",
                      "CALL merge.node(['Paper'], {id: 'y'}, {}, {}) YIELD node RETURN node"):
            with pytest.raises(KGError):
                g.run_raw(query)
    assert _count(example_out) == 19


def test_cypher_write_changes_the_graph_until_the_next_read_only_use(own_cache, example_out):
    import json

    own_cache.append(example_out)
    proc = kg("cypher", "MATCH (p:Paper) DETACH DELETE p", "--out", example_out, "--write")
    assert proc.returncode == 0, proc.stderr
    assert _count(example_out, "--write") == 0  # the writer sees its change
    stats = [json.loads(kg("stats", example_out, "--engine", e, "--format", "json").stdout)
             for e in ("cypher", "sparql")]
    assert stats[0] == stats[1] and stats[0]["papers"] == 19  # loaded from OUT again
    assert _count(example_out) == 19


def test_stats_on_a_changed_bolt_graph_is_one_line(bolt, example_kg, example_out):
    bolt.load(example_kg)
    try:
        bolt.graph.run("CREATE (:Concept {id: 5})", write=True)
        env = {"NEO4J_URI": bolt.uri, "NEO4J_USER": bolt.user, "NEO4J_PASSWORD": bolt.password,
               "NEO4J_DATABASE": bolt.database or ""}
        proc = subprocess.run([sys.executable, "-m", "kg", "stats", str(example_out),
                               "--engine", "cypher"], capture_output=True, text=True,
                              env={**os.environ, **env}, timeout=300)
        assert "is not as kg push writes it" in one_line_error(proc)
    finally:
        bolt.forget()  # the next load pushes (and replaces) again


def _running(out, text: str, *, wait: float = 15.0) -> list[str]:
    """The queries holding ``text`` that the local server of ``out`` still runs (asked as root
    through its HTTP API), after waiting up to ``wait`` seconds for them to end."""
    import time

    import requests

    from kg.stores.bolt_server import load_state

    server = load_state(out)
    url = f"http://127.0.0.1:{server.http_port}/api/v1/server"
    deadline = time.monotonic() + wait
    while True:
        listed = requests.post(url, json={"command": "list queries"}, auth=server.auth,
                               timeout=10).json()["result"]
        running = [q["id"] for q in listed if text in q["text"]]
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.5)


def _end(out, ids: list[str]) -> None:
    import requests

    from kg.stores.bolt_server import load_state

    server = load_state(out)
    for qid in ids:  # so a failed test leaves no query burning a core
        requests.post(f"http://127.0.0.1:{server.http_port}/api/v1/server",
                      json={"command": f"terminate query {qid}"}, auth=server.auth, timeout=10)


def test_cypher_timeout_and_ctrl_c(own_cache, example_out):
    own_cache.append(example_out)
    assert _count(example_out) == 19  # the server is up
    line = one_line_error(kg("cypher", SLOW_CYPHER, "--out", example_out, "--timeout", "2"))
    assert "did not finish within 2 s" in line
    # ArcadeDB ignores Bolt's transaction timeout and goes on when the client leaves: kg ends
    # the query on the server too (kg.stores.bolt.BoltGraph.cancel)
    left = _running(example_out, SLOW_CYPHER)
    _end(example_out, left)
    assert left == []
    proc = subprocess.Popen([sys.executable, "-m", "kg", "cypher", SLOW_CYPHER, "--out",
                             str(example_out), "--timeout", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=3)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert err.strip().splitlines() == ["kg: interrupted; nothing was changed"]
    left = _running(example_out, SLOW_CYPHER)
    _end(example_out, left)
    assert left == []


@pytest.mark.parametrize("inherited", [signal.SIG_DFL, signal.SIG_IGN])
def test_serve_stops_on_ctrl_c_right_after_its_port_opens(own_cache, example_out, inherited):
    """Also when started with SIGINT ignored (as a shell starts a background job)."""
    import time

    from kg.core.processes import free_port, port_in_use
    from kg.stores.bolt_server import load_state

    own_cache.append(example_out)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kg", "serve", str(example_out),
                             "--port", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, inherited))
    try:
        while not port_in_use(port) and proc.poll() is None:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode in (0, 130)
    assert load_state(example_out) is None
    assert not port_in_use(port)


# -- terminal escape sequences in the data ------------------------------------------------

EVIL_TITLE = "Graph neural networks \x1b]0;owned\x07 for node classification"
EVIL = [
    {"id": "evil-1", "title": EVIL_TITLE, "venue": "V\x1b[31m", "year": 2024,
     "abstract": "We train graph neural networks (GNNs) \x1b[2J on citation graphs for node "
                 "classification. Contrastive learning \u202e helps."},
    {"id": "evil-2", "title": "Contrastive learning \x9b2J at scale", "year": 2024,
     "abstract": "Contrastive learning with large language models \x1b[2J improves retrieval. "
                 "We also study calibration."},
    {"id": "evil-3", "title": "Calibration of large language models", "year": 2024,
     "abstract": "We study calibration of large language models \x1b]0;x\x07 and graph neural "
                 "networks."},
]
RAW_CONTROL = ("\x1b", "\x07", "\x9b", "\u202e")


@pytest.fixture(scope="module")
def evil_out(tmp_path_factory):
    import json

    from kg.build import build

    src = tmp_path_factory.mktemp("evil") / "evil.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in EVIL), encoding="utf-8")
    return build([src], src.parent / "out", page=False).out


@pytest.mark.parametrize("args", [
    ["paper", "{out}", "evil-1"],
    ["path", "{out}", "calibration", "GNNs"],
    ["papers", "{out}"],
    ["papers", "{out}", "--concept", "GNNs"],
    ["bridge", "{out}", "GNNs", "calibration"],
    ["related", "{out}", "evil-1"],
    ["sparql", "{out}", "SELECT ?t WHERE { ?p dcterms:title ?t }"],
    ["sparql", "{out}", "CONSTRUCT { ?p dcterms:title ?t } WHERE { ?p dcterms:title ?t }"],
])
def test_escape_sequences_from_the_data_never_reach_the_terminal(evil_out, args):
    proc = kg(*[a.replace("{out}", str(evil_out)) for a in args])
    assert proc.returncode == 0, proc.stderr
    assert "\\x1b" in proc.stdout or "\\x9b" in proc.stdout  # shown, escaped
    assert not any(c in proc.stdout + proc.stderr for c in RAW_CONTROL)


def test_json_output_keeps_the_data_exact(evil_out):
    import json

    proc = kg("paper", evil_out, "evil-1", "--format", "json")
    assert json.loads(proc.stdout)["title"] == EVIL_TITLE


# -- a damaged OUT ------------------------------------------------------------------------

def _truncate_model(out):
    # the model is read from model.sqlite where there is one: without it (an OUT built
    # before it held the whole model), model.json is read
    (out / "model.sqlite").unlink()
    path = out / "model.json"
    path.write_bytes(path.read_bytes()[:500])
    return "model.json"


def _empty_model(out):
    (out / "model.sqlite").unlink()
    (out / "model.json").write_text("{}", encoding="utf-8")
    return "model.json"


def _truncate_model_sqlite(out):
    path = out / "model.sqlite"
    path.write_bytes(path.read_bytes()[:4096])
    return "model.sqlite"


def _biggest_sst(out):
    return max((out / "store").glob("*.sst"), key=lambda p: p.stat().st_size)


def _delete_sst(out):
    _biggest_sst(out).unlink()
    return "store"


def _flip_sst(out):
    path = _biggest_sst(out)
    data = bytearray(path.read_bytes())
    for i in range(64, len(data), 257):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))
    return "store"


@pytest.mark.parametrize("damage", [_truncate_model, _empty_model, _truncate_model_sqlite,
                                    _delete_sst, _flip_sst])
def test_a_damaged_out_is_one_line_naming_the_file(out, damage, tmp_path):
    part = damage(out)
    commands = [
        ["papers", out], ["papers", out, "--concept", "GNNs"], ["stats", out],
        ["papers", out, "--concept", "GNNs", "--engine", "python"],
        ["sparql", out, "SELECT * WHERE { ?s ?p ?o }"], ["export", out, "--format", "turtle"],
        ["export", out, "--format", "graphml"], ["viz", out, "-o", tmp_path / "page.html"],
    ]
    failed = 0
    for args in commands:
        proc = kg(*args)
        if proc.returncode == 0:
            continue  # this command does not read the damaged file
        failed += 1
        line = one_line_error(proc)
        assert "is damaged" in line and part in line and "kg build" in line, line
    assert failed >= 2


# -- writing -o files: atomically, one line on failure ------------------------------------

def _small_disk():
    """In the child: files may grow to 64 KB only (EFBIG, as a full disk gives ENOSPC)."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, no signal
    resource.setrlimit(resource.RLIMIT_FSIZE, (64_000, 64_000))


@pytest.mark.parametrize("args", [
    ["viz", "{out}", "-o", "{target}"],
    ["export", "{out}", "--format", "turtle", "-o", "{target}"],
    ["export", "{out}", "--format", "graphml", "-o", "{target}"],
])
def test_a_write_that_fails_leaves_the_previous_file_and_no_temporary(example_out, tmp_path,
                                                                      args):
    folder = tmp_path / "outputs"
    folder.mkdir()
    target = folder / "result"
    target.write_text("the previous result\n", encoding="utf-8")
    argv = [a.replace("{out}", str(example_out)).replace("{target}", str(target))
            for a in args]
    proc = subprocess.run([sys.executable, "-m", "kg", *argv], capture_output=True, text=True,
                          timeout=300, preexec_fn=_small_disk)
    line = one_line_error(proc)
    assert str(target) in line and "cannot write" in line
    assert target.read_text(encoding="utf-8") == "the previous result\n"
    assert [p.name for p in folder.iterdir()] == ["result"]


@pytest.mark.parametrize("command", [["viz"], ["export", "--format", "turtle"]])
def test_writing_into_a_missing_or_read_only_folder_is_one_line(example_out, tmp_path, command):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    for target in (blocker / "x.out", tmp_path / "missing" / "x.out"):
        proc = kg(command[0], example_out, *command[1:], "-o", target)
        if command[0] == "viz" and target.parent.name == "missing":
            assert proc.returncode == 0 and target.exists()  # kg viz makes the folder
            continue
        assert "cannot write" in one_line_error(proc)
    if os.geteuid() != 0:  # root writes into read-only folders anyway
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        assert "cannot write" in one_line_error(kg(command[0], example_out, *command[1:],
                                                   "-o", locked / "x.out"))


# -- passwords inside URIs ----------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["cypher", "RETURN 1", "--uri", "bolt://neo4j:S3cretPW@127.0.0.1:1"],
    ["cypher", "RETURN 1", "--uri", "bolx://neo4j:S3cretPW@127.0.0.1:1"],
    ["push", "{out}", "--uri", "neo4j://neo4j:S3cretPW@127.0.0.1:1"],
    ["push-sparql", "{out}", "--endpoint", "http://dba:S3cretPW@127.0.0.1:1/sparql"],
    ["push-sparql", "{out}", "--endpoint", "http://S3cretPW@127.0.0.1:1/sparql"],
])
def test_a_password_in_a_uri_is_never_shown(example_out, args):
    proc = kg(*[a.replace("{out}", str(example_out)) for a in args])
    one_line_error(proc)
    assert "S3cretPW" not in proc.stdout + proc.stderr and "***@" in proc.stderr


def test_cypher_reads_at_most_limit_rows(bolt, example_kg):
    import json

    bolt.load(example_kg)
    args = ["--uri", bolt.uri, "--user", bolt.user, "--password", bolt.password]
    proc = kg("cypher", "MATCH (a:Concept), (b:Concept) RETURN a.id AS a, b.id AS b", *args,
              "--limit", "7", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)) == 7 and "--limit 7" in proc.stderr
    proc = kg("cypher", "MATCH (p:Paper) RETURN p.id AS id", *args, "--limit", "0",
              "--format", "csv")
    assert len(proc.stdout.splitlines()) == 1 + len(example_kg.papers) and not proc.stderr


@pytest.mark.parametrize("content", [b"SELECT \xd0\x00\xff WHERE {}", b"#" * (2 << 20), None],
                         ids=["binary", "huge", "endless"])
def test_a_query_file_that_is_no_query_is_one_line(example_out, tmp_path, content):
    path = tmp_path / "q.rq"
    if content is None:
        path = path.with_name("zero.rq")
        path.symlink_to("/dev/zero")  # endless
    else:
        path.write_bytes(content)
    line = one_line_error(kg("sparql", example_out, "--file", path))
    assert str(path) in line and "is it a query?" in line
