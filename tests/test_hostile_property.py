"""Property: whatever discovery document, list page or `/metrics` text a server sends, `audit` and
`snapshot capture` end with status 0, 1 or 2 only, never a traceback, and their memory stays
bounded. Generated bodies go through the test API server's hostile mode (tests/apiserver.py)."""

from __future__ import annotations

import json
import resource
from pathlib import Path
from typing import Any

from apiserver import Hostile
from clusters import cluster_137
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import in_process

AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
SCALAR = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | TEXT
JSON = st.recursive(
    SCALAR, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=20
)
NAMES = st.sampled_from(["batch", "v1", "nodes", "Node", "../../api/v1/secrets", "a\nb", "\x1b[2J", "", "::error::x"])
NAME_OR_JSON = NAMES | JSON


def _resource_entry() -> Any:
    return st.fixed_dictionaries(
        {"resource": NAME_OR_JSON, "responseKind": st.fixed_dictionaries({"kind": NAME_OR_JSON}) | JSON},
        optional={"scope": st.sampled_from(["Namespaced", "Cluster"]) | JSON, "verbs": st.lists(NAME_OR_JSON) | JSON},
    )


DISCOVERY = (
    st.fixed_dictionaries(
        {
            "kind": st.just("APIGroupDiscoveryList"),
            "items": st.lists(
                st.fixed_dictionaries(
                    {
                        "metadata": st.fixed_dictionaries({"name": NAME_OR_JSON}) | JSON,
                        "versions": st.lists(
                            st.fixed_dictionaries(
                                {"version": NAME_OR_JSON, "resources": st.lists(_resource_entry(), max_size=3) | JSON}
                            )
                            | JSON,
                            max_size=3,
                        )
                        | JSON,
                    }
                )
                | JSON,
                max_size=3,
            )
            | JSON,
        }
    )
    | JSON
)
ITEM = (
    st.fixed_dictionaries(
        {
            "metadata": st.fixed_dictionaries(
                {"name": NAME_OR_JSON}, optional={"namespace": NAME_OR_JSON, "labels": JSON}
            )
            | JSON
        },
        optional={"spec": JSON, "status": JSON},
    )
    | JSON
)
LIST = (
    st.fixed_dictionaries(
        {"kind": st.just("NodeList")},
        optional={
            "metadata": st.fixed_dictionaries({}, optional={"continue": TEXT | JSON, "resourceVersion": JSON}) | JSON,
            "items": st.none() | st.lists(ITEM, max_size=4) | JSON,
        },
    )
    | JSON
)
FEATURE_LINE = st.builds(
    lambda name, stage, value, tail: f'kubernetes_feature_enabled{{name="{name}",stage="{stage}"}} {value}{tail}',
    NAMES | TEXT,
    st.sampled_from(["ALPHA", "BETA", "", "\x1b"]) | TEXT,
    st.sampled_from(["1", "0", "NaN", "+Inf", "1e999", "x"]),
    st.sampled_from(["", " 123", "{", "}"]),
)
METRICS = st.lists(FEATURE_LINE | TEXT | st.just('kubernetes_feature_enabled{name="GangScheduling'), max_size=8).map(
    "\n".join
)

REPLIES = st.one_of(
    DISCOVERY.map(lambda body: Hostile("/apis", body=json.dumps(body).encode(), content_type=AGGREGATED)),
    DISCOVERY.map(lambda body: Hostile("/api", body=json.dumps(body).encode(), content_type=AGGREGATED)),
    LIST.map(lambda body: Hostile("/api/v1/nodes", body=json.dumps(body).encode())),
    LIST.map(lambda body: Hostile("/api/v1/pods", body=json.dumps(body).encode())),
    LIST.map(lambda body: Hostile("/apis/scheduling.k8s.io/v1beta1/podgroups", body=json.dumps(body).encode())),
    METRICS.map(lambda text: Hostile("/metrics", body=text.encode(), content_type="text/plain")),
    st.binary(max_size=200).map(lambda raw: Hostile("/api/v1/nodes", body=raw)),
)


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,  # the same examples on every run, whatever profile conftest registers
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(replies=st.lists(REPLIES, min_size=1, max_size=3))
def test_generated_replies_never_break_audit_or_capture(serve: Any, tmp_path: Path, replies: list[Hostile]) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cluster = cluster_137()
    cluster.hostile = list(replies)
    _, kubeconfig = serve(cluster)
    output = tmp_path / "snap.json"
    for args in (
        ["audit", "--kubeconfig", str(kubeconfig), "--format", "json"],
        ["audit", "--kubeconfig", str(kubeconfig), "--format", "markdown"],
        ["snapshot", "capture", "-o", str(output), "--kubeconfig", str(kubeconfig)],
    ):
        result = in_process(*args)
        assert result.returncode in (0, 1, 2), (args, result.returncode, result.stderr)
        assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
        if result.returncode == 2:
            assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "\x1b" not in result.stderr
    output.unlink(missing_ok=True)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 200 * 1024, f"peak memory grew by {grown_kib} KiB"
