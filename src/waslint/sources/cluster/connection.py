"""A read-only connection to a live cluster through the official kubernetes client.

The client does what it is good at (kubeconfig and in-cluster loading, contexts, tokens, client
certificates, exec plugins, TLS, proxies); waslint sends only GET requests through it and reads the
raw bodies itself (json module), so typed model deserialisation never runs on large lists.
Every failure that ends the run is a `ClusterError` with one line that names the server and the
context; a status that concerns one resource only (403, 404, 410, 5xx) is a `RequestFailed` the
caller decides about, and so is a reply of the wrong shape (`BadReply`).

Every reply is bounded: the body is streamed from the client's response in chunks and refused
past MAX_REPLY_BYTES (`ReplyTooLarge`, naming the path), JSON is decoded by the one bounded reader
(io/reading.loads_json: depth, number size) and `--request-timeout` is a deadline for the whole
request, headers and body (a server that drips a byte at a time is cut off there), not per read.
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from waslint import __version__
from waslint.escape.terminal import printable

DEFAULT_TIMEOUT = 30.0
JSON = "application/json"
MAX_REPLY_BYTES = 64 * 1024 * 1024  # one reply (a list page, a discovery or OpenAPI document, /metrics)
_CHUNK = 256 * 1024


class ClusterError(Exception):
    """The cluster cannot be read at all: the run ends with this one line and exit status 2."""


class RequestFailed(ClusterError):
    """One request answered with an error status; the caller may warn and go on."""

    def __init__(self, path: str, status: int, reason: str, message: str) -> None:
        reason, message = printable(reason)[:200], printable(message)[:300]  # server text: shown, never sent
        super().__init__(f"GET {path}: {status} {reason}: {message}" if message else f"GET {path}: {status} {reason}")
        self.path = path
        self.status = status
        self.reason = reason
        self.message = message


class BadReply(RequestFailed):
    """A 200 reply whose body is not the shape asked for (wrong JSON types, not a list, too deep):
    a required resource ends the run, an optional one is a warning."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(path, 200, "malformed reply", message)


class ReplyTooLarge(ClusterError):
    """A reply over MAX_REPLY_BYTES: the run ends (a server that never stops sending)."""


class _DeadlinePassed(BaseException):
    """Raised by SIGALRM inside a request: BaseException, so no library's `except Exception`
    retries or swallows it on the way out."""


def _raise_deadline(signum: int, frame: Any) -> None:
    raise _DeadlinePassed()


@contextlib.contextmanager
def _whole_request_deadline(seconds: float) -> Iterator[None]:
    """An alarm at the deadline interrupts whatever the request waits for (connect, TLS, headers,
    body). Signals reach the main thread only: elsewhere the body loop's own clock check bounds
    the body, and the client's timeout each read."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    previous = signal.signal(signal.SIGALRM, _raise_deadline)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass(frozen=True)
class ConnectOptions:
    kubeconfig: str | None = None
    context: str | None = None
    request_timeout: float = DEFAULT_TIMEOUT


@dataclass
class Response:
    status: int
    content_type: str
    body: bytes


def parse_timeout(text: str) -> float:
    """`--request-timeout` as kubectl spells it: `30`, `30s`, `2m`, `1h`, `500ms`; 0 means the default."""
    units = (("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0))
    stripped = text.strip()
    for suffix, scale in units:
        if stripped.endswith(suffix) and stripped[: -len(suffix)].replace(".", "", 1).isdigit():
            value = float(stripped[: -len(suffix)]) * scale
            return value or DEFAULT_TIMEOUT
    if stripped.replace(".", "", 1).isdigit():
        return float(stripped) or DEFAULT_TIMEOUT
    raise ValueError(f"invalid --request-timeout {text!r}: use a number of seconds or 30s, 2m, 500ms")


def _in_a_pod(options: ConnectOptions) -> bool:
    if options.kubeconfig or os.environ.get("KUBECONFIG"):
        return False
    if os.path.exists(os.path.expanduser("~/.kube/config")):
        return False
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST"))


def _token_expiry(token: str) -> datetime.datetime | None:
    """The `exp` claim of a JWT bearer token, if the token is one (read only to explain a 401)."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
        return datetime.datetime.fromtimestamp(int(payload["exp"]), tz=datetime.timezone.utc)
    except (ValueError, KeyError, TypeError):
        return None


def check_kubeconfig(path: str) -> None:
    """Read the kubeconfig as every input is read (a regular file, bounded, YAML nesting limited)
    before the client does: a FIFO, /dev/zero, a tab or an unclosed bracket is one located line."""
    from waslint.io.loader import MAX_FILE_BYTES, parse_bytes
    from waslint.io.reading import InputError, read_bounded

    if not os.path.exists(path):
        return  # the client says it is missing, and names the in-cluster alternative
    try:
        raw = read_bounded(path, MAX_FILE_BYTES)
    except InputError as error:
        raise ClusterError(f"kubeconfig {error}") from None
    source = parse_bytes(path, raw)
    for problem in source.problems:
        raise ClusterError(f"kubeconfig {path}:{problem.line}:{problem.column}: {problem.message}")
    data = source.documents[0].data if len(source.documents) == 1 else None
    if not isinstance(data, dict):
        raise ClusterError(f"kubeconfig {path}: not a kubeconfig (a YAML mapping with clusters, users, contexts)")


class Connection:
    """GET requests against one cluster; `context` names it in findings (`cluster://<context>/...`)."""

    def __init__(self, options: ConnectOptions) -> None:
        from kubernetes.client.api_client import ApiClient
        from kubernetes.client.configuration import Configuration
        from kubernetes.config.config_exception import ConfigException
        from urllib3.util.retry import Retry

        self.options = options
        configuration = Configuration()
        try:
            if _in_a_pod(options):
                from kubernetes.config.incluster_config import load_incluster_config

                load_incluster_config(client_configuration=configuration)
                self.context = options.context or "in-cluster"
            else:
                self.context = self._load_kubeconfig(options, configuration)
        except ClusterError:
            raise
        except (ConfigException, Exception) as error:  # whatever a wrong kubeconfig makes the client raise
            where = options.kubeconfig or os.environ.get("KUBECONFIG") or "~/.kube/config"
            detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise ClusterError(f"kubeconfig {where}: {detail}") from None
        # Connection errors are retried twice; a read is never retried (a slow server would make us wait 3x).
        configuration.retries = Retry(total=2, connect=2, read=0, redirect=0, status=0, other=0)
        self.server = str(configuration.host)
        # The kubeconfig asked for no verification: say so once (the CLI warns) instead of per request.
        self.insecure = not configuration.verify_ssl
        if self.insecure:
            import warnings

            import urllib3

            warnings.simplefilter("ignore", urllib3.exceptions.InsecureRequestWarning)
        self._configuration = configuration
        self._client = ApiClient(configuration)
        self._client.user_agent = f"waslint/{__version__}"
        self.requests = 0

    @staticmethod
    def _load_kubeconfig(options: ConnectOptions, configuration: Any) -> str:
        from kubernetes.config import kube_config

        config_file = options.kubeconfig or os.environ.get("KUBECONFIG", "").split(os.pathsep)[0] or None
        check_kubeconfig(os.path.expanduser(config_file or "~/.kube/config"))
        contexts, active = kube_config.list_kube_config_contexts(config_file=config_file)
        name = options.context or (active or {}).get("name")
        if options.context and not any(context.get("name") == options.context for context in contexts):
            raise ValueError(f"no context named {options.context!r}")
        kube_config.load_kube_config(
            config_file=config_file, context=options.context, client_configuration=configuration, persist_config=False
        )
        return str(name or "default")

    def _bearer_token(self) -> str:
        keys = self._configuration.api_key or {}
        return str(keys.get("BearerToken") or keys.get("authorization") or "").removeprefix("Bearer ").strip()

    def _explain_transport_error(self, error: Exception) -> ClusterError:
        text = " ".join(str(error).split())
        where = f"the cluster at {self.server} (context {self.context})"
        if "CERTIFICATE_VERIFY_FAILED" in text or "certificate verify failed" in text:
            return ClusterError(
                f"TLS verification of {where} failed: the server certificate is not signed by the kubeconfig's "
                "certificate authority (waslint verifies TLS unless the kubeconfig sets insecure-skip-tls-verify)"
            )
        if "timed out" in text.lower() or "timeout" in text.lower():
            return ClusterError(f"{where} did not answer within {self.options.request_timeout:g}s (--request-timeout)")
        reason = "connection refused" if "refused" in text.lower() else printable(text[:160])
        return ClusterError(f"cannot reach {where}: {reason}")

    def _timed_out(self) -> ClusterError:
        where = f"the cluster at {self.server} (context {self.context})"
        return ClusterError(f"{where} did not answer within {self.options.request_timeout:g}s (--request-timeout)")

    def get(self, path: str, query: dict[str, str] | None = None, accept: str = JSON) -> Response:
        """One GET; `path` is built by the caller from validated, quoted segments (paths.py)."""
        import urllib3
        from kubernetes.client.exceptions import ApiException

        method, url, headers, _, _ = self._client.param_serialize(
            "GET",
            path,
            query_params=list((query or {}).items()),
            header_params={"Accept": accept},
            auth_settings=["BearerToken"],
        )
        self.requests += 1
        seconds = self.options.request_timeout
        ends = time.monotonic() + seconds
        try:
            with _whole_request_deadline(seconds):
                response = self._client.call_api(method, url, headers, _request_timeout=seconds)
                try:
                    body = self._read_body(response.response, path, ends)
                except BaseException:
                    response.response.close()  # never hand a half-read connection back to the pool
                    raise
                response.response.release_conn()
        except _DeadlinePassed:
            raise self._timed_out() from None
        except (urllib3.exceptions.HTTPError, ApiException, OSError) as error:
            raise self._explain_transport_error(error) from None
        content_type = str(response.getheader("Content-Type") or "")
        return Response(int(response.status), content_type, body)

    def _read_body(self, raw: Any, path: str, ends: float) -> bytes:
        """The body in chunks (decompressed, if the server compressed it, a chunk at a time),
        refused past MAX_REPLY_BYTES; the clock is checked between reads."""
        too_large = ReplyTooLarge(
            f"the cluster at {self.server} (context {self.context}) answered GET {path} with more than"
            f" {MAX_REPLY_BYTES // 2**20} MiB (the reply limit); if it is a list, try a smaller --page-size"
        )
        declared = str(raw.headers.get("Content-Length") or "")
        if declared.isdigit() and int(declared) > MAX_REPLY_BYTES:
            raise too_large
        parts: list[bytes] = []
        total = 0
        while True:
            if time.monotonic() > ends:
                raise self._timed_out()
            chunk = raw.read1(_CHUNK)
            if not chunk:
                return b"".join(parts)
            total += len(chunk)
            if total > MAX_REPLY_BYTES:
                raise too_large
            parts.append(chunk)

    def _looks_like_html(self, response: Response) -> bool:
        return "html" in response.content_type or response.body.lstrip()[:1] == b"<"

    def _fail(self, path: str, response: Response) -> ClusterError:
        where = f"the cluster at {self.server} (context {self.context})"
        if self._looks_like_html(response):
            return ClusterError(
                f"{where} answered GET {path} with an HTML page (status {response.status}), not the Kubernetes API: "
                "a proxy or login portal is in between, or the server address is wrong"
            )
        reason, message = "", ""
        status_body = _json_or_none(response.body)
        if isinstance(status_body, dict):
            reason, message = _text(status_body.get("reason")), _text(status_body.get("message"))
        else:
            message = response.body[:120].decode("utf-8", "replace").strip()
        if response.status == 401:
            expiry = _token_expiry(self._bearer_token())
            now = datetime.datetime.now(datetime.timezone.utc)
            if expiry is not None and expiry < now:
                return ClusterError(
                    f"{where} rejected the credentials: the token expired at {expiry:%Y-%m-%d %H:%M} UTC; log in again"
                )
            return ClusterError(f"{where} rejected the credentials (401 Unauthorized): the token is invalid or expired")
        return RequestFailed(path, response.status, reason or f"HTTP {response.status}", message)

    def get_json(self, path: str, query: dict[str, str] | None = None, accept: str = JSON) -> tuple[Any, str]:
        """The decoded body and its content type; any status but 200 raises."""
        response = self.get(path, query, accept)
        if response.status != 200:
            raise self._fail(path, response)
        if self._looks_like_html(response):
            raise self._fail(path, response)
        from waslint.io.reading import BadJSON, loads_json

        try:
            return loads_json(response.body), response.content_type
        except BadJSON as error:
            if error.reason.startswith("JSON syntax error"):
                raise ClusterError(
                    f"the cluster at {self.server} (context {self.context}) answered GET {path} with something that"
                    f" is not JSON ({printable(response.content_type) or 'no content type'})"
                ) from None
            raise BadReply(path, f"{error.reason} (line {error.line}, column {error.column})") from None

    def get_text(self, path: str) -> str:
        response = self.get(path, accept="text/plain")
        if response.status != 200 or "html" in response.content_type:
            raise self._fail(path, response)
        return response.body.decode("utf-8", "replace")

    def close(self) -> None:
        self._client.close()


def _json_or_none(body: bytes) -> Any:
    from waslint.io.reading import BadJSON, loads_json

    try:
        return loads_json(body)
    except (BadJSON, ValueError):
        return None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def connect(options: ConnectOptions) -> Connection:
    """Load the configuration and check that an API server answers (GET /version)."""
    connection = Connection(options)
    connection.get_json("/version")
    return connection
