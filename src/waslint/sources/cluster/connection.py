"""A read-only connection to a live cluster through the official kubernetes client.

The client does what it is good at (kubeconfig and in-cluster loading, contexts, tokens, client
certificates, exec plugins, TLS, proxies); waslint sends only GET requests through it and reads the
raw bodies itself (json module), so typed model deserialisation never runs on large lists.
Every failure that ends the run is a `ClusterError` with one line that names the server and the
context; a status that concerns one resource only (403, 404, 410, 5xx) is a `RequestFailed` the
caller decides about.
"""

from __future__ import annotations

import base64
import datetime
import json
import os
from dataclasses import dataclass
from typing import Any

from waslint import __version__

DEFAULT_TIMEOUT = 30.0
JSON = "application/json"


class ClusterError(Exception):
    """The cluster cannot be read at all: the run ends with this one line and exit status 2."""


class RequestFailed(ClusterError):
    """One request answered with an error status; the caller may warn and go on."""

    def __init__(self, path: str, status: int, reason: str, message: str) -> None:
        super().__init__(f"GET {path}: {status} {reason}: {message}" if message else f"GET {path}: {status} {reason}")
        self.path = path
        self.status = status
        self.reason = reason
        self.message = message


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
        reason = "connection refused" if "refused" in text.lower() else text[:160]
        return ClusterError(f"cannot reach {where}: {reason}")

    def get(self, path: str, query: dict[str, str] | None = None, accept: str = JSON) -> Response:
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
        try:
            response = self._client.call_api(method, url, headers, _request_timeout=self.options.request_timeout)
            body = response.read()
            response.response.release_conn()
        except (urllib3.exceptions.HTTPError, ApiException, OSError) as error:
            raise self._explain_transport_error(error) from None
        content_type = str(response.getheader("Content-Type") or "")
        return Response(int(response.status), content_type, body or b"")

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
        try:
            status_body = json.loads(response.body)
            reason, message = str(status_body.get("reason", "")), str(status_body.get("message", ""))
        except (ValueError, AttributeError):
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
        try:
            return json.loads(response.body), response.content_type
        except ValueError:
            raise ClusterError(
                f"the cluster at {self.server} (context {self.context}) answered GET {path} with something that is "
                f"not JSON ({response.content_type or 'no content type'})"
            ) from None

    def get_text(self, path: str) -> str:
        response = self.get(path, accept="text/plain")
        if response.status != 200 or "html" in response.content_type:
            raise self._fail(path, response)
        return response.body.decode("utf-8", "replace")

    def close(self) -> None:
        self._client.close()


def connect(options: ConnectOptions) -> Connection:
    """Load the configuration and check that an API server answers (GET /version)."""
    connection = Connection(options)
    connection.get_json("/version")
    return connection
