"""GitHub Actions workflow commands: the runner reads any output line that starts (after
blanks) with `::` as a command, `::stop-commands::TOKEN` included, which turns off every later
annotation. Untrusted text never starts a line (newlines are escaped by `terminal`) and a path
that would begin one is written `./::...` (the same file); inside a command, data and property
values use the runner's own percent encoding.
"""

from __future__ import annotations


def command_data(text: str) -> str:
    """The message after `::`: the runner decodes %25, %0D, %0A."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def command_property(text: str) -> str:
    """A `key=value` property: also `:` and `,`, which would end the value."""
    return command_data(text).replace(":", "%3A").replace(",", "%2C")


def safe_line_start(path: str) -> str:
    """A path printed first on a line: `::x` becomes `./::x` so the line is no workflow command."""
    return "./" + path if path.lstrip().startswith("::") else path
