"""DRA device counts as resources: the devices a node's ResourceSlices publish (capacity) and the
devices a pod's ResourceClaimTemplates ask for (requests), both as `dra/<driver>` (and
`dra/*` when a request's DeviceClass names no driver the CEL selector makes plain).

Only counts: device attributes and CEL selectors beyond `device.driver == "..."` are not
evaluated, and the devices running pods already hold are not subtracted (snapshots carry no
ResourceClaim allocations). A shared ResourceClaim (`resourceClaimName`) is one allocation for
all its pods: it is not charged per pod, and the pods naming it must reach the same devices, on
one node since the ResourceSlices read are node-local (`shared_claims`, applied in analysis).
Applied only when the snapshot has ResourceSlices.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from waslint.objects.kobject import as_list, as_map
from waslint.objects.quantity import MILLI, Resources

PREFIX = "dra/"
ANY_DRIVER = "dra/*"
DRA_GROUP = "resource.k8s.io"
_DRIVER = re.compile(r"""device\.driver\s*==\s*["']([^"']+)["']""")


def node_devices(slice_items: list[dict[str, Any]]) -> dict[str, Resources]:
    """Node name -> {dra/<driver>: devices, dra/*: all devices} in milli-units."""
    found: dict[str, Resources] = {}
    for item in slice_items:
        spec = as_map(item.get("spec"))
        node = spec.get("nodeName")
        driver = spec.get("driver")
        if not isinstance(node, str) or not isinstance(driver, str):
            continue
        devices = sum(1 for device in as_list(spec.get("devices")) if isinstance(device, dict)) * MILLI
        resources = found.setdefault(node, {})
        resources[PREFIX + driver] = resources.get(PREFIX + driver, 0) + devices
        resources[ANY_DRIVER] = resources.get(ANY_DRIVER, 0) + devices
    return found


def shared_claims(spec: dict[str, Any]) -> list[str]:
    """The ResourceClaims a pod spec names (`resourceClaimName`): one allocation shared by every
    pod that names it, so they all reach the same devices."""
    found = []
    for entry in as_list(spec.get("resourceClaims")):
        name = as_map(entry).get("resourceClaimName")
        if isinstance(name, str) and name:
            found.append(name)
    return found


def class_drivers(device_classes: list[dict[str, Any]]) -> dict[str, str]:
    """DeviceClass name -> the driver its CEL selectors pin (`device.driver == "gpu.nvidia.com"`)."""
    found: dict[str, str] = {}
    for item in device_classes:
        name = as_map(item.get("metadata")).get("name")
        for selector in as_list(as_map(item.get("spec")).get("selectors")):
            match = _DRIVER.search(str(as_map(as_map(selector).get("cel")).get("expression", "")))
            if isinstance(name, str) and match:
                found[name] = match.group(1)
    return found


@dataclass
class ClaimBook:
    """The ResourceClaimTemplates and DeviceClasses of a run, and whether to charge devices."""

    templates: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    drivers: dict[str, str] = field(default_factory=dict)
    active: bool = False

    def requests(self, spec: dict[str, Any], namespace: str) -> tuple[Resources, list[str]]:
        """Devices one pod of this spec claims through templates, and notes on what is not counted."""
        extra: Resources = {}
        notes: list[str] = []
        if not self.active:
            return extra, notes
        for entry in as_list(spec.get("resourceClaims")):
            name = as_map(entry).get("resourceClaimTemplateName")
            if not isinstance(name, str):
                continue  # a shared claim: allocated once for all its pods
            template = self.templates.get((namespace, name))
            if template is None:
                notes.append(f"ResourceClaimTemplate {name} is not in the set: its devices are not counted")
                continue
            for request in as_list(
                as_map(as_map(as_map(template.get("spec")).get("spec")).get("devices")).get("requests")
            ):
                self._charge(as_map(request), extra, notes)
        return extra, notes

    def _charge(self, request: dict[str, Any], extra: Resources, notes: list[str]) -> None:
        exactly = as_map(request.get("exactly")) or request  # v1 `exactly`; v1beta1 keeps the fields flat
        alternatives = as_list(request.get("firstAvailable"))
        if not request.get("exactly") and alternatives:
            exactly = as_map(alternatives[0])
        if exactly.get("allocationMode") == "All":
            notes.append(f"device request {request.get('name')} asks for all devices: not counted")
            return
        count = exactly.get("count")
        devices = count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1
        driver = self.drivers.get(str(exactly.get("deviceClassName")))
        key = PREFIX + driver if driver else ANY_DRIVER
        extra[key] = extra.get(key, 0) + devices * MILLI


def claim_book(
    templates: list[tuple[str, dict[str, Any]]], device_classes: list[dict[str, Any]], active: bool
) -> ClaimBook:
    """From (namespace, ResourceClaimTemplate) pairs and DeviceClass items."""
    book = ClaimBook(drivers=class_drivers(device_classes), active=active)
    for namespace, item in templates:
        name = as_map(item.get("metadata")).get("name")
        if isinstance(name, str):
            book.templates[(namespace, name)] = item
    return book
