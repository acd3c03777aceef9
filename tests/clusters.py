"""1.36- and 1.37-shaped test clusters for tests/apiserver.py, built from the kubernetes client's models.

The 1.36 cluster follows the facts sheet (../shared/facts/was-api.md §1.0, §6, §7): scheduling.k8s.io
serves v1 and v1alpha2; it stores v1alpha2 Workloads and PodGroups, one written by kubectl apply
(last-applied annotation) and one by server-side apply (managedFields only); its gates disagree
between the API server and a kubelet. The 1.37 cluster serves v1beta1 and v1alpha3, stores only
v1beta1 objects and has consistent gates. Both plant secret strings (env values, a Secret, a
ConfigMap, a service-account token, command arguments) that a capture must never carry.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from apiserver import FakeCluster, ResourceType
from kubernetes import client as k

SERIALIZER = k.ApiClient()
NOW = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
LONG_AGO = NOW - datetime.timedelta(days=3)

PACKAGED_SCHEMAS = Path(__file__).resolve().parent.parent / "src" / "waslint" / "knowledge" / "schemas"

SECRET_STRINGS = [
    "s3cr3t-env-value",
    "hunter2-command-arg",
    "c2VjcmV0LWRhdGE=",  # base64 of the Secret's data
    "configmap-private-value",
    "eyJhbGciOiJSUzI1NiJ9.service-account-token",
]

CORE = [
    ResourceType("", "v1", "nodes", "Node", namespaced=False, short_names=("no",), subresources=("status",)),
    ResourceType("", "v1", "pods", "Pod", short_names=("po",), subresources=("status",)),
    ResourceType("", "v1", "namespaces", "Namespace", namespaced=False, short_names=("ns",)),
    ResourceType("", "v1", "secrets", "Secret"),
    ResourceType("", "v1", "configmaps", "ConfigMap", short_names=("cm",)),
    ResourceType("batch", "v1", "jobs", "Job", subresources=("status",)),
    ResourceType("batch", "v1", "cronjobs", "CronJob", short_names=("cj",)),
    ResourceType("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", namespaced=False, short_names=("pc",)),
    ResourceType("resource.k8s.io", "v1", "resourceslices", "ResourceSlice", namespaced=False),
    ResourceType("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", subresources=("status",)),
    ResourceType("scheduling.run.ai", "v2", "queues", "Queue", namespaced=False),
    ResourceType("kueue.x-k8s.io", "v1beta2", "topologies", "Topology", namespaced=False),
]


def wg(version: str, plural: str, kind: str) -> ResourceType:
    return ResourceType(
        "scheduling.k8s.io", version, plural, kind, subresources=("status",) if kind != "Workload" else ()
    )


def to_dict(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = SERIALIZER.sanitize_for_serialization(model)
    return data


def meta(name: str, namespace: str | None = None, **fields: Any) -> k.V1ObjectMeta:
    fields.setdefault("creation_timestamp", LONG_AGO)
    return k.V1ObjectMeta(name=name, namespace=namespace, **fields)


def node(name: str, gpus: int = 8, zone: str = "zone-a") -> dict[str, Any]:
    allocatable = {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": str(gpus), "pods": "110"}
    return to_dict(
        k.V1Node(
            api_version="v1",
            kind="Node",
            metadata=meta(
                name,
                labels={"topology.kubernetes.io/zone": zone, "kubernetes.io/hostname": name},
                annotations={"node.alpha.kubernetes.io/ttl": "0"},
            ),
            spec=k.V1NodeSpec(
                taints=[k.V1Taint(key="nvidia.com/gpu", value="present", effect="NoSchedule")],
                provider_id=f"aws:///{zone}/i-{name}",
            ),
            status=k.V1NodeStatus(
                allocatable=allocatable,
                capacity=allocatable,
                conditions=[k.V1NodeCondition(type="Ready", status="True", reason="KubeletReady", message="ok")],
                addresses=[k.V1NodeAddress(type="InternalIP", address="10.0.0.1")],
            ),
        )
    )


def pod(
    name: str,
    namespace: str,
    node_name: str | None,
    group: str | None = None,
    phase: str = "Running",
    gpus: int = 1,
    owner: tuple[str, str] | None = None,
) -> dict[str, Any]:
    container = k.V1Container(
        name="trainer",
        image="registry.example/trainer:1",
        command=["python", "train.py"],
        args=["--password", "hunter2-command-arg"],
        env=[k.V1EnvVar(name="API_KEY", value="s3cr3t-env-value")],
        resources=k.V1ResourceRequirements(
            requests={"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": str(gpus)}, limits={"nvidia.com/gpu": str(gpus)}
        ),
        volume_mounts=[k.V1VolumeMount(name="token", mount_path="/var/run/secrets/token")],
    )
    owners = (
        [k.V1OwnerReference(api_version="batch/v1", kind="Job", name=owner[1], uid=f"uid-{owner[1]}", controller=True)]
        if owner
        else None
    )
    spec = k.V1PodSpec(
        containers=[container],
        node_name=node_name,
        scheduler_name="default-scheduler",
        priority=100,
        priority_class_name="training",
        tolerations=[k.V1Toleration(key="nvidia.com/gpu", operator="Exists")],
        node_selector={"topology.kubernetes.io/zone": "zone-a"},
        volumes=[k.V1Volume(name="token", secret=k.V1SecretVolumeSource(secret_name="trainer-token"))],
        scheduling_group=k.V1PodSchedulingGroup(pod_group_name=group) if group else None,
    )
    return to_dict(
        k.V1Pod(
            api_version="v1",
            kind="Pod",
            metadata=meta(name, namespace, labels={"app": "trainer"}, owner_references=owners),
            spec=spec,
            status=k.V1PodStatus(phase=phase),
        )
    )


def secrets(namespace: str) -> list[tuple[str, dict[str, Any]]]:
    secret = to_dict(
        k.V1Secret(
            api_version="v1",
            kind="Secret",
            metadata=meta("db-password", namespace),
            data={"password": "c2VjcmV0LWRhdGE="},
        )
    )
    token = to_dict(
        k.V1Secret(
            api_version="v1",
            kind="Secret",
            metadata=meta("trainer-token", namespace),
            type="kubernetes.io/service-account-token",
            string_data={"token": "eyJhbGciOiJSUzI1NiJ9.service-account-token"},
        )
    )
    config_map = to_dict(
        k.V1ConfigMap(
            api_version="v1",
            kind="ConfigMap",
            metadata=meta("settings", namespace),
            data={"private": "configmap-private-value"},
        )
    )
    return [("secrets", secret), ("secrets", token), ("configmaps", config_map)]


def priority_class() -> dict[str, Any]:
    return to_dict(
        k.V1PriorityClass(
            api_version="scheduling.k8s.io/v1",
            kind="PriorityClass",
            metadata=meta("training"),
            value=100,
            preemption_policy="PreemptLowerPriority",
        )
    )


def resource_slice(node_name: str) -> dict[str, Any]:
    return to_dict(
        k.V1ResourceSlice(
            api_version="resource.k8s.io/v1",
            kind="ResourceSlice",
            metadata=meta(f"{node_name}-gpu"),
            spec=k.V1ResourceSliceSpec(
                driver="gpu.example.com",
                node_name=node_name,
                pool=k.V1ResourcePool(name=node_name, generation=1, resource_slice_count=1),
                devices=[k.V1Device(name=f"gpu-{i}") for i in range(2)],
            ),
        )
    )


def queue() -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.run.ai/v2",
        "kind": "Queue",
        "metadata": {"name": "research"},
        "spec": {"resources": {"gpu": {"quota": 16, "limit": -1, "overQuotaWeight": 1}}},
    }


def topology() -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Topology",
        "metadata": {"name": "default"},
        "spec": {"levels": [{"nodeLabel": "topology.kubernetes.io/zone"}, {"nodeLabel": "kubernetes.io/hostname"}]},
    }


def job(
    name: str, namespace: str, parallelism: int = 4, scheduling: k.V1JobSchedulingConfiguration | None = None
) -> dict[str, Any]:
    template = k.V1PodTemplateSpec(
        spec=k.V1PodSpec(
            restart_policy="Never",
            containers=[k.V1Container(name="w", image="w:1", env=[k.V1EnvVar(name="TOKEN", value="s3cr3t-env-value")])],
        )
    )
    return to_dict(
        k.V1Job(
            api_version="batch/v1",
            kind="Job",
            metadata=meta(name, namespace),
            spec=k.V1JobSpec(
                parallelism=parallelism,
                completions=parallelism,
                completion_mode="Indexed",
                template=template,
                scheduling=scheduling,
            ),
        )
    )


def managed(manager: str, api_version: str, operation: str) -> k.V1ManagedFieldsEntry:
    return k.V1ManagedFieldsEntry(
        manager=manager,
        api_version=api_version,
        operation=operation,
        fields_type="FieldsV1",
        fields_v1={"f:spec": {}},
        time=LONG_AGO,
    )


def _base(version: str) -> FakeCluster:
    return FakeCluster(git_version=version, resources=list(CORE))


def _add(cluster: FakeCluster, group: str, version: str, plural: str, obj: dict[str, Any]) -> None:
    resource = cluster.resource(group, version, plural)
    assert resource is not None, (group, version, plural)
    cluster.add(resource, obj)


def control_plane_pod(component: str) -> dict[str, Any]:
    labels = {"component": component, "tier": "control-plane"}
    container = k.V1Container(
        name=component,
        image=f"registry.k8s.io/{component}:v1",
        command=[component, "--feature-gates=GenericWorkload=true"],
    )
    return to_dict(
        k.V1Pod(
            api_version="v1",
            kind="Pod",
            metadata=meta(f"{component}-cp-0", "kube-system", labels=labels),
            spec=k.V1PodSpec(containers=[container], node_name="cp-0"),
            status=k.V1PodStatus(phase="Running"),
        )
    )


def _common(cluster: FakeCluster, nodes: int) -> None:
    for index in range(nodes):
        _add(cluster, "", "v1", "nodes", node(f"gpu-node-{index}"))
        _add(cluster, "resource.k8s.io", "v1", "resourceslices", resource_slice(f"gpu-node-{index}"))
    for namespace in ("ml", "kube-system"):
        _add(
            cluster,
            "",
            "v1",
            "namespaces",
            to_dict(k.V1Namespace(api_version="v1", kind="Namespace", metadata=meta(namespace))),
        )
    for plural, obj in secrets("ml"):
        _add(cluster, "", "v1", plural, obj)
    _add(cluster, "scheduling.k8s.io", "v1", "priorityclasses", priority_class())
    for component in ("kube-scheduler", "kube-controller-manager"):
        _add(cluster, "", "v1", "pods", control_plane_pod(component))
    _add(cluster, "scheduling.run.ai", "v2", "queues", queue())
    _add(cluster, "kueue.x-k8s.io", "v1beta2", "topologies", topology())


def cluster_136(nodes: int = 3) -> FakeCluster:
    """Kubernetes 1.36 with scheduling.k8s.io/v1alpha2 enabled and WAS objects stored at v1alpha2."""
    cluster = _base("v1.36.4")
    cluster.resources += [wg("v1alpha2", "workloads", "Workload"), wg("v1alpha2", "podgroups", "PodGroup")]
    _common(cluster, nodes)
    workload = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "Workload",
        "metadata": {"name": "trainer", "namespace": "ml", "creationTimestamp": LONG_AGO.isoformat()},
        "spec": {
            "podGroupTemplates": [
                {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 2}}, "disruptionMode": "PodGroup"}
            ]
        },
    }
    workload["metadata"]["annotations"] = {  # type: ignore[index]
        "kubectl.kubernetes.io/last-applied-configuration": json.dumps(workload, separators=(",", ":"))
    }
    workload["metadata"]["managedFields"] = [  # type: ignore[index]
        to_dict(managed("kubectl-client-side-apply", "scheduling.k8s.io/v1alpha2", "Update"))
    ]
    _add(cluster, "scheduling.k8s.io", "v1alpha2", "workloads", workload)
    # Written by server-side apply: no last-applied annotation, only managedFields names the version.
    podgroup = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {
            "name": "trainer-workers",
            "namespace": "ml",
            "creationTimestamp": LONG_AGO.isoformat(),
            "managedFields": [to_dict(managed("kubectl", "scheduling.k8s.io/v1alpha2", "Apply"))],
        },
        "spec": {
            "podGroupTemplateRef": {"workload": {"workloadName": "trainer", "podGroupTemplateName": "workers"}},
            "schedulingPolicy": {"gang": {"minCount": 2}},
        },
        "status": {
            "conditions": [
                {
                    "type": "PodGroupScheduled",
                    "status": "True",
                    "reason": "Scheduled",
                    "message": "",
                    "lastTransitionTime": LONG_AGO.isoformat(),
                }
            ]
        },
    }
    _add(cluster, "scheduling.k8s.io", "v1alpha2", "podgroups", podgroup)
    for index in range(2):
        _add(cluster, "", "v1", "pods", pod(f"trainer-{index}", "ml", f"gpu-node-{index}", group="trainer-workers"))
    _add(cluster, "batch", "v1", "jobs", job("indexed-gang", "ml"))
    cluster.apiserver_gates = {
        "GenericWorkload": ("ALPHA", True),
        "GangScheduling": ("ALPHA", True),
        "WorkloadAwarePreemption": ("ALPHA", True),
        "DRAWorkloadResourceClaims": ("ALPHA", True),
        "WorkloadWithJob": ("ALPHA", False),
    }
    cluster.kubelet_gates = {
        "gpu-node-0": {"GenericWorkload": ("ALPHA", True), "DRAWorkloadResourceClaims": ("ALPHA", False)}
    }
    # gpu-node-1 answers 503 (kubelet unreachable); gpu-node-2 is forbidden by RBAC.
    cluster.forbidden_paths = {
        "/api/v1/nodes/gpu-node-2/proxy/metrics",
        "/api/v1/namespaces/kube-system/pods/https:kube-scheduler-cp-0:10259/proxy/metrics",
    }
    return cluster


def workload_137(name: str, namespace: str, min_count: int) -> dict[str, Any]:
    return to_dict(
        k.V1beta1Workload(
            api_version="scheduling.k8s.io/v1beta1",
            kind="Workload",
            metadata=meta(name, namespace),
            spec=k.V1beta1WorkloadSpec(
                pod_group_templates=[
                    k.V1beta1PodGroupTemplate(
                        name="workers",
                        scheduling_policy=k.V1beta1PodGroupSchedulingPolicy(
                            gang=k.V1beta1GangSchedulingPolicy(min_count=min_count)
                        ),
                    )
                ]
            ),
        )
    )


def podgroup_137(
    name: str,
    namespace: str,
    workload: str | None,
    min_count: int,
    conditions: list[k.V1Condition] | None = None,
    **metadata: Any,
) -> dict[str, Any]:
    return to_dict(
        k.V1beta1PodGroup(
            api_version="scheduling.k8s.io/v1beta1",
            kind="PodGroup",
            metadata=meta(name, namespace, **metadata),
            spec=k.V1beta1PodGroupSpec(
                workload_ref=k.V1beta1WorkloadReference(workload_name=workload, template_name="workers")
                if workload
                else None,
                scheduling_policy=k.V1beta1PodGroupSchedulingPolicy(
                    gang=k.V1beta1GangSchedulingPolicy(min_count=min_count)
                ),
            ),
            status=k.V1beta1PodGroupStatus(conditions=conditions) if conditions else None,
        )
    )


def condition(type_: str, status_: str, reason: str) -> k.V1Condition:
    return k.V1Condition(type=type_, status=status_, reason=reason, message="", last_transition_time=LONG_AGO)


def _as_served(node: Any) -> Any:
    """A packaged (strict, nullable) schema node back in the API server's OpenAPI v3 form."""
    if isinstance(node, list):
        return [_as_served(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "additionalProperties" and value is False:
            continue  # the served documents are not strict
        if key == "type" and isinstance(value, list):
            value = next(kind for kind in value if kind != "null")
        if key == "$ref":
            value = value.replace("#/$defs/", "#/components/schemas/")
        out[key] = _as_served(value)
    return out


def openapi_document(release: str, version: str) -> dict[str, Any]:
    """/openapi/v3/apis/scheduling.k8s.io/<version> of a `release` API server, rebuilt from the
    packaged schemas (which were generated from the upstream OpenAPI)."""
    index = json.loads((PACKAGED_SCHEMAS / release / "index.json").read_text())["definitions"]
    schemas: dict[str, Any] = {}
    for file, name in index.items():
        if not file.endswith(f"-scheduling-{version}.json"):
            continue
        packaged = json.loads((PACKAGED_SCHEMAS / release / file).read_text())
        schemas.update(packaged.pop("$defs", {}))
        packaged.pop("$schema", None)
        schemas[name] = packaged
    served = _as_served(schemas)
    for schema in served.values():  # as the API server writes them: a defaulted ref is wrapped in allOf
        spec = schema.get("properties", {}).get("spec")
        if isinstance(spec, dict) and "$ref" in spec:
            schema["properties"]["spec"] = {"allOf": [{"$ref": spec["$ref"]}], "default": {}}
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": f"v{release}.1"},
        "paths": {},
        "components": {"schemas": served},
    }


def cluster_137(nodes: int = 3) -> FakeCluster:
    """Kubernetes 1.37 with scheduling.k8s.io v1beta1 and v1alpha3 enabled; clean WAS objects."""
    cluster = _base("v1.37.1")
    cluster.resources += [
        wg("v1beta1", "workloads", "Workload"),
        wg("v1beta1", "podgroups", "PodGroup"),
        wg("v1alpha3", "workloads", "Workload"),
        wg("v1alpha3", "podgroups", "PodGroup"),
        wg("v1alpha3", "compositepodgroups", "CompositePodGroup"),
    ]
    _common(cluster, nodes)
    _add(cluster, "scheduling.k8s.io", "v1beta1", "workloads", workload_137("trainer", "ml", 2))
    scheduled = [condition("PodGroupInitiallyScheduled", "True", "Scheduled")]
    owner = [
        k.V1OwnerReference(api_version="scheduling.k8s.io/v1beta1", kind="Workload", name="trainer", uid="uid-trainer")
    ]
    _add(
        cluster,
        "scheduling.k8s.io",
        "v1beta1",
        "podgroups",
        podgroup_137("trainer-workers", "ml", "trainer", 2, scheduled, owner_references=owner),
    )
    for index in range(2):
        _add(cluster, "", "v1", "pods", pod(f"trainer-{index}", "ml", f"gpu-node-{index}", group="trainer-workers"))
    gates = {
        "GenericWorkload": ("BETA", True),
        "DRAWorkloadResourceClaims": ("BETA", False),
        "WorkloadWithJob": ("ALPHA", False),
        "CompositePodGroup": ("ALPHA", False),
    }
    cluster.apiserver_gates = dict(gates)
    cluster.component_gates = {
        "kube-scheduler-cp-0": {"GenericWorkload": ("BETA", True), "CompositePodGroup": ("ALPHA", False)}
    }
    cluster.kubelet_gates = {
        f"gpu-node-{index}": {"GenericWorkload": ("BETA", True), "DRAWorkloadResourceClaims": ("BETA", False)}
        for index in range(nodes)
    }
    cluster.openapi = {
        f"apis/scheduling.k8s.io/{version}": openapi_document("1.37", version) for version in ("v1beta1", "v1alpha3")
    }
    return cluster


def with_runtime_problems(cluster: FakeCluster) -> FakeCluster:
    """Add to a 1.37 cluster the runtime rot the WAS8xx rules look for, in namespace `rot`."""
    add = _add
    long_ago = {"creation_timestamp": LONG_AGO}
    add(cluster, "scheduling.k8s.io", "v1beta1", "podgroups", podgroup_137("ghost", "rot", None, 2, **long_ago))
    add(
        cluster,
        "scheduling.k8s.io",
        "v1beta1",
        "podgroups",
        podgroup_137(
            "stuck",
            "rot",
            None,
            1,
            deletion_timestamp=LONG_AGO,
            finalizers=["example.com/cleanup"],
            owner_references=[k.V1OwnerReference(api_version="batch/v1", kind="Job", name="gone", uid="u")],
        ),
    )
    add(
        cluster,
        "scheduling.k8s.io",
        "v1beta1",
        "podgroups",
        podgroup_137("degraded", "rot", None, 4, [condition("PodGroupInitiallyScheduled", "True", "Scheduled")]),
    )
    add(cluster, "", "v1", "pods", pod("degraded-0", "rot", "gpu-node-0", group="degraded"))
    add(cluster, "", "v1", "pods", pod("degraded-1", "rot", "gpu-node-1", group="degraded", phase="Failed"))
    add(
        cluster,
        "scheduling.k8s.io",
        "v1beta1",
        "podgroups",
        podgroup_137("too-big", "rot", None, 64, [condition("PodGroupInitiallyScheduled", "False", "Unschedulable")]),
    )
    add(cluster, "", "v1", "pods", pod("too-big-0", "rot", None, group="too-big", phase="Pending", gpus=8))
    claim = to_dict(
        k.ResourceV1ResourceClaim(
            api_version="resource.k8s.io/v1",
            kind="ResourceClaim",
            metadata=meta("left-behind", "rot"),
            spec=k.V1ResourceClaimSpec(),
            status=k.V1ResourceClaimStatus(
                allocation=k.V1AllocationResult(),
                reserved_for=[
                    k.V1ResourceClaimConsumerReference(
                        api_group="scheduling.k8s.io", resource="podgroups", name="deleted-group", uid="u2"
                    )
                ],
            ),
        )
    )
    add(cluster, "resource.k8s.io", "v1", "resourceclaims", claim)
    return cluster


# -- hostile clusters (tests/test_hostile_cluster.py, tests/test_hostile_property.py) -------------------

HOSTILE_NAMES = {
    "path": "../../../api/v1/namespaces/default/secrets?x=",
    "newline": "node-a\n::error::forged annotation",
    "ansi": "node-\x1b[2J\x1b]0;pwned\x07b",
    "osc": "node-\x1b]8;;https://evil.example/\x07link\x1b]8;;\x07",
    "stop": "::stop-commands::token",
    "table": "node|with|pipes`<b>html</b>`",
}


def hostile(cluster: FakeCluster, *scenarios: Any) -> FakeCluster:
    """`cluster` answering the paths of `scenarios` (apiserver.Hostile) the hostile way."""
    cluster.hostile.extend(scenarios)
    return cluster


def with_hostile_names(cluster: FakeCluster) -> FakeCluster:
    """Nodes and a PodGroup whose names no API server would store: paths, newlines, ANSI/OSC,
    workflow commands, markdown."""
    for index, name in enumerate(HOSTILE_NAMES.values()):
        hostile_node = node(f"placeholder-{index}")
        hostile_node["metadata"]["name"] = name
        _add(cluster, "", "v1", "nodes", hostile_node)
        cluster.kubelet_gates[name] = {}
    return cluster


QUEUE_RESOURCES = [
    ResourceType("kueue.x-k8s.io", "v1beta2", "clusterqueues", "ClusterQueue", namespaced=False),
    ResourceType("kueue.x-k8s.io", "v1beta2", "localqueues", "LocalQueue"),
    ResourceType("kueue.x-k8s.io", "v1beta2", "resourceflavors", "ResourceFlavor", namespaced=False),
    ResourceType("kueue.x-k8s.io", "v1beta2", "workloads", "Workload"),
    ResourceType("scheduling.volcano.sh", "v1beta1", "queues", "Queue", namespaced=False),
]


def with_queues(cluster: FakeCluster) -> FakeCluster:
    """Kueue (a ClusterQueue of 8 GPUs, 6 held by an admitted Workload) and a Volcano queue; a
    running trainer charged to the KAI queue `research` by its label."""
    cluster.resources += QUEUE_RESOURCES
    group = "kueue.x-k8s.io"
    _add(
        cluster,
        group,
        "v1beta2",
        "resourceflavors",
        {"apiVersion": f"{group}/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}, "spec": {}},
    )
    quota = {"name": "nvidia.com/gpu", "nominalQuota": "8"}
    spec = {
        "resourceGroups": [
            {"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": "default", "resources": [quota]}]}
        ]
    }
    _add(
        cluster,
        group,
        "v1beta2",
        "clusterqueues",
        {"apiVersion": f"{group}/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "team-cq"}, "spec": spec},
    )
    local = {
        "apiVersion": f"{group}/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": "team", "namespace": "ml"},
        "spec": {"clusterQueue": "team-cq"},
    }
    _add(cluster, group, "v1beta2", "localqueues", local)
    admitted = {
        "apiVersion": f"{group}/v1beta2",
        "kind": "Workload",
        "metadata": {"name": "running-job", "namespace": "ml"},
        "spec": {
            "podSets": [
                {
                    "name": "main",
                    "count": 3,
                    "template": {
                        "spec": {
                            "containers": [{"name": "c", "env": [{"name": "API_KEY", "value": "s3cr3t-env-value"}]}]
                        }
                    },
                }
            ]
        },
        "status": {
            "admission": {
                "clusterQueue": "team-cq",
                "podSetAssignments": [
                    {
                        "name": "main",
                        "flavors": {"nvidia.com/gpu": "default"},
                        "resourceUsage": {"nvidia.com/gpu": "6"},
                        "count": 3,
                    }
                ],
            },
            "conditions": [{"type": "QuotaReserved", "status": "True", "message": "private message"}],
        },
    }
    _add(cluster, group, "v1beta2", "workloads", admitted)
    volcano = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": "batch"},
        "spec": {"capability": {"nvidia.com/gpu": "4"}},
        "status": {"state": "Open"},
    }
    _add(cluster, "scheduling.volcano.sh", "v1beta1", "queues", volcano)
    labelled = pod("queued-0", "ml", "gpu-node-2", gpus=2)
    labelled["metadata"]["labels"]["kai.scheduler/queue"] = "research"
    _add(cluster, "", "v1", "pods", labelled)
    return cluster
