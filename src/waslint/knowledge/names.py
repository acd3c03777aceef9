"""Kubernetes name formats (apimachinery's validation): the one copy of their patterns.

Every check of a DNS label, DNS subdomain or qualified (label-key) name reads these; each caller
words its own message.
"""

from __future__ import annotations

import re

_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS_LABEL = re.compile(rf"^{_LABEL}\Z")  # at most 63 characters
DNS_SUBDOMAIN = re.compile(rf"^{_LABEL}(\.{_LABEL})*\Z")  # at most 253 characters
QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\Z")  # name part, at most 63
