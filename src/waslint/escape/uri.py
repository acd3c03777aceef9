"""URI path segments: a name from a server is one segment, never a path of its own.

`quote(..., safe="")` encodes `/`, `?`, `#`, `%` and every non-ASCII character; a segment that
is `.` or `..` (which quoting leaves alone and every URL parser resolves) is encoded too. Used
for `cluster://` object paths (SARIF, GitHub annotations, reports) and API request paths.
"""

from __future__ import annotations

from urllib.parse import quote


def segment(text: str) -> str:
    quoted = quote(text, safe="")
    if quoted in (".", ".."):
        return quoted.replace(".", "%2E")
    return quoted
