"""Every user-facing error message, in one place (as spaCy does in ``spacy.errors``).

Code raises :class:`KGError` subclasses with a message from :class:`Messages`;
the CLI prints it as one line and exits with status 2.
"""

from __future__ import annotations

__all__ = [
    "CredentialsError", "InputError", "KGError", "Messages", "NotFoundError", "OutputError",
    "QueryError", "StoreError", "WorkerError",
]


class KGError(Exception):
    """An error caused by the user's input or environment, shown as one line."""

    exit_code = 2


class InputError(KGError):
    """A corpus file or one of its records cannot be read."""

    def __init__(self, path: str, where: str | None, message: str) -> None:
        self.path = path
        self.where = where
        self.reason = message
        loc = f"{path}:{where}" if where else str(path)
        super().__init__(f"{loc}: {message}")

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str | None, str]]:
        # pickled as made (a build's extraction process reads the inputs and sends back
        # the records it skipped): the default would call __init__ with the message alone
        return type(self), (self.path, self.where, self.reason)


class NotFoundError(KGError):
    """A concept, paper or output folder that the user named does not exist."""


class StoreError(KGError):
    """A built graph folder is missing or unreadable, or a server refused us."""


class CredentialsError(StoreError):
    """A server (at ``uri``) refused the user name or password."""

    def __init__(self, message: str, uri: str) -> None:
        super().__init__(message)
        self.uri = uri


class QueryError(KGError):
    """A user-written query is malformed."""


class OutputError(KGError):
    """The output folder cannot be written, or is not ours to replace."""


class WorkerError(KGError):
    """A worker process of the build died (killed, out of memory); nothing was written."""


class Messages:
    """Message templates; ``str.format`` fields are filled by the raiser."""

    EMPTY_FILE = "the file is empty"
    HEADER_ONLY = "the file has a header line but no abstracts"
    NOT_UTF8 = "not valid UTF-8 text (byte {byte} at offset {offset}); is this a binary file?"
    BINARY = "looks like a binary file (contains NUL bytes), not a text corpus"
    BAD_JSON = "not a JSON object: {detail}"
    NOT_OBJECT = "expected a JSON object, got {kind}"
    MISSING_FIELD = "record has no '{field}'"
    EMPTY_FIELD = "record has an empty '{field}'"
    BAD_FIELD_TYPE = "field '{field}' must be {expected}, got {got}"
    CSV_COLUMNS = "CSV header must name the columns {required}; found {found}"
    DUPLICATE_ID = "paper id '{id}' appears twice with different content (first at {first})"
    UNKNOWN_FORMAT = ("unknown input format '{suffix}': use .txt, .jsonl/.ndjson or .csv, or name "
                      "the format with --input-format")
    NO_SUCH_FILE = "no such file"
    NO_INPUT = "no abstracts found in the input"
    NO_INPUT_SKIPPED = "no abstracts found in the input ({n} skipped; the first: {first})"
    SURROGATE = "field '{field}' holds half of a UTF-16 surrogate pair ({char}), not text"
    BAD_CSV = "malformed CSV: {detail}"
    CACHE_MISMATCH = ("{path} does not hold what its hashes say (edited or damaged); "
                      "building from scratch")
    CSV_DUPLICATE_COLUMN = "the CSV header names the column '{column}' twice"
    DUPLICATE_FIELD = "the record names the field '{field}' twice"
    UNREADABLE = "cannot read the file: {detail}"
    TEXT_TRUNCATED = ("the {field} has {n:,} characters: only its first {limit:,} are read "
                      "(the longest text kg reads; see README, Limits)")
    OUT_IS_FILE = "{out} is a file; the output must be a folder (choose another -o)"
    OUT_NOT_OURS = ("{out} exists and is not a kg output folder (no manifest.json); refusing to "
                    "replace it: choose another -o or remove it")
    OUT_NOT_WRITABLE = "cannot write the output {out}: {detail}"
    EXPORT_DIR_IS_FILE = "{path} is a file; --format {fmt} writes a folder (choose another -o)"
    EXPORT_NEEDS_DIR = "--format {fmt} writes several files: give a folder with -o DIR"
    ARRAY_DELIMITER_IN_VALUE = ("{what} of {node} contains the array delimiter {delimiter}, which "
                                "neo4j-admin would split on")
    NOT_BUILT = "{path} is not a built graph folder (run 'kg build' first; no {missing})"
    DAMAGED = ("{path} is damaged and cannot be read ({detail}); build OUT again with "
               "'kg build … -o OUT --no-incremental'")
    NO_CONCEPT = "no concept matches '{text}'{hint}"
    NO_PAPER = "no paper with id '{id}'{hint}"
    BAD_CHOICE = "unknown {what} '{value}'; choose from {choices}"
    TREND_YEARS = ("trends compare the papers of two different years; {start} → {end} does not "
                   "(years with papers: {years})")
    TREND_NO_YEARS = ("trends compare the papers of two different years, and no paper here has a "
                      "year (give 'year' in JSON Lines or CSV input)")
    NOT_MENTIONED = "no paper mentions '{label}' or a narrower concept"
    SAME_TOPIC = "'{a}' and '{b}' both name the concept '{label}'; give two different topics"
    VIEW_NEEDS = "--view {view} needs {option}"
    BAD_LEXICON = "lexicon {path}: {detail}"
    LEXICON_IRI = ("concept {iri} is not under {ns}: kg would ignore it (name concepts "
                   "{ns}ID)")
    LEXICON_NO_LABEL = "concept {id} has no skos:prefLabel"
    LEXICON_EMPTY_LABEL = ("concept {id} has the {prop} '{label}', which has no letter or "
                           "digit (it would match any word)")
    WORKER_DIED = "{what} stopped: {how}; nothing was written"
    WORKERS_NOT_STARTED = "could not start {n} local Dask worker processes: {detail}"
    SCHEDULER_UNREACHABLE = ("cannot reach the Dask scheduler {address}: {detail} (start it with "
                             "'dask scheduler', or check --scheduler)")
    SCHEDULER_NO_WORKERS = ("the Dask scheduler {address} has no worker (none joined within "
                            "{seconds} s; start one with 'dask worker {address}')")
    SCHEDULER_LOST = ("{what} stopped: lost the Dask scheduler {address} ({detail}); nothing "
                      "was written")
    WORKER_MODEL_DIFFERS = ("worker {worker} has another span model or kg version than this "
                            "build (its model: {model}); install the same kg-abstracts on every "
                            "worker")
    # SPARQL (queries.sparql, kg.cli.sparql, kg.stores.export, kg.stores.sparql_push)
    NO_PATH = "no path links '{a}' and '{b}' through papers"
    SPARQL_SYNTAX = "SPARQL syntax error: {detail}"
    SPARQL_FAILED = "SPARQL query failed: {detail}"
    QUERY_ARGS = "give a query or --file, not both"
    QUERY_FILE = "{path}: {detail}"
    SPARQL_SERVICE = ("the query has a SERVICE clause, which would ask another server over the "
                      "network; kg sparql asks only OUT (pass --allow-service to allow it)")
    TOO_MANY_TRIPLES = ("the query gives more than {n} triples; add a LIMIT (CONSTRUCT and "
                        "DESCRIBE results are sorted in memory)")
    ROWS_LEFT_OUT = ("kg: note: {n} more rows not shown (--limit {limit}); --limit 0 shows all, "
                     "--format csv or json streams them")
    ROWS_CUT = ("kg: note: only the first {limit} rows were read (--limit {limit}); "
                "--limit 0 reads all")
    QUERY_TIMEOUT = "the query did not finish within {seconds} s (raise --timeout, or add a LIMIT)"
    QUESTION_TIMEOUT = ("the question did not finish within {seconds} s (raise --timeout, "
                        "or 0 for no limit)")
    NO_QUERY = "give a query (or --file FILE)"
    ENDPOINT_UNREACHABLE = "cannot reach the SPARQL endpoint {url}: {detail}"
    ENDPOINT_AUTH = "the SPARQL endpoint {url} refused the user name or password (HTTP {status})"
    ENDPOINT_NEEDS_AUTH = ("the SPARQL endpoint {url} asks for a user name and password "
                           "(--user, --password)")
    ENDPOINT_FAILED = "the SPARQL endpoint {url} answered HTTP {status}: {detail}"
    BAD_IRI = "not an absolute http(s) IRI: '{iri}'"
    # Bolt / Cypher (kg.stores.bolt, kg.stores.bolt_server, kg.cli.cypher)
    NO_ARCADEDB = ("no local Bolt server available: the 'arcadedb-embedded' package (with its "
                   "bundled Java runtime) is not installed; pip install arcadedb-embedded, or pass "
                   "--uri")
    PORT_IN_USE = "cannot start a Bolt server on {host}:{port}: the port is already in use"
    SERVER_DIED = "the local Bolt server stopped while starting: {detail}"
    SERVER_TIMEOUT = "the local Bolt server at {uri} did not answer within {seconds} s"
    BOLT_UNREACHABLE = "cannot reach a Bolt server at {uri}: {detail}"
    BOLT_AUTH = "the Bolt server at {uri} refused the user name or password"
    BOLT_AUTH_LOCAL = ("the Bolt server at {uri} refused the user name or password; it is the "
                       "local server of {out}: use --user {user} --password {password}")
    BOLT_AUTH_HINT = ("the Bolt server at {uri} refused the user name or password: pass --user "
                      "and --password (or NEO4J_USER, NEO4J_PASSWORD); a server started by "
                      "'kg serve OUT' takes the ones it printed")
    BOLT_NO_DATABASE = "the Bolt server at {uri} has no database '{database}'"
    BOLT_BAD_URI = "not a Bolt URI: '{uri}' (expected e.g. bolt://localhost:7687)"
    BOLT_FAILED = "the Bolt server at {uri} failed: {detail}"
    CYPHER_ERROR = "Cypher query failed: {detail}"
    BAD_PARAM = "--param expects NAME=VALUE, got '{text}'"
    NOT_SERVED = "no local Bolt server is serving {out}"
    NO_BOLT_URI = "no Bolt server given: pass --uri bolt://HOST:PORT or set NEO4J_URI"
    NO_QUERY_TEXT = "the query is empty"
    BOLT_NOT_KG = ("the Bolt graph at {uri} is not as kg push writes it (was it changed?): "
                   "{detail}; load the build again ('kg serve OUT --stop' for the local server, "
                   "'kg push OUT --replace' for another)")
    CYPHER_WRITES = ("the query has a {clause} clause, which changes the graph or reads files; "
                     "kg cypher only reads unless you pass --write")
    ALREADY_SERVED = ("{out} is already served at {uri} (pid {pid}); use it, or stop it with "
                      "'kg serve {out} --stop'")
    PORT_CONFLICT = ("{out} is already served at {uri} (pid {pid}), not on port {port}: stop it "
                     "with 'kg serve {out} --stop' first, or use it as it is")
    SERVER_EXITED = "the local Bolt server at {uri} exited"
    JUDGED_RECORD = ("not a judged record: {detail} (see bench/judged/README.md for the "
                     "format)")
