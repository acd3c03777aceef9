"""The command line's parser machinery: the standard library's argparse, with help laid out the way
users of ruff and click read it. `cli.py` declares the commands and their options with it.

- a value's metavar shows its choices (`--format [text|json|...]`), a required option says
  `[required]`, a default worth knowing says `[default: 30s]`;
- `-o, --output FILE`: the metavar once, after every spelling of the option;
- the program name is the one the user typed (`kubectl waslint` for the kubectl plugin);
- a usage error is one line on stderr and exit status 2 (`UsageError`, raised instead of exiting,
  so the caller decides how it is shown).

argparse costs about a tenth of the import time of a CLI framework (typer: 20 ms of a 105 ms run;
`python -X importtime -m waslint lint FILE`), and a pre-commit hook starts on every commit.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn


class UsageError(Exception):
    """The command line itself is wrong: exit status 2 with this one line."""

    def __init__(self, message: str, prog: str) -> None:
        super().__init__(message)
        self.prog = prog


def program_name(argv0: str) -> str:
    """`waslint`, or `kubectl waslint` when kubectl runs the plugin (its executable is `kubectl-waslint`)."""
    name = os.path.basename(argv0 or "waslint")
    if name in ("__main__.py", "-c", "-m", "") or name.startswith("python"):
        return "waslint"
    return "kubectl waslint" if name.startswith("kubectl-") else "waslint"


def terminal_columns(default: int = 100) -> int:
    """`COLUMNS`, else the width of the terminal on stdout, else `default` (what shutil's
    get_terminal_size answers, without importing shutil: it loads bz2 and lzma)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(1).columns or default
    except (OSError, ValueError):
        return default


def help_width() -> int:
    """The terminal's width for help, between 40 and 100 columns (help stays readable)."""
    return max(40, min(terminal_columns(), 100))


class HelpFormatter(argparse.HelpFormatter):
    """click's layout: `-o, --output FILE`, the help column at most 30 characters in."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30, width=help_width())

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if not action.option_strings:
            return super()._format_action_invocation(action)
        spellings = ", ".join(action.option_strings)
        if action.nargs == 0:
            return spellings
        return f"{spellings} {self._metavar_formatter(action, action.dest.upper())(1)[0]}"

    def _format_usage(
        self, usage: str | None, actions: Iterable[Any], groups: Iterable[Any], prefix: str | None
    ) -> str:
        return super()._format_usage(usage, actions, groups, "Usage: " if prefix is None else prefix)


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are raised (UsageError), with `Arguments` and `Options`."""

    def __init__(self, prog: str, usage: str, description: str) -> None:
        super().__init__(
            prog=prog,
            usage=usage,
            description=description,
            formatter_class=HelpFormatter,
            add_help=False,
            allow_abbrev=False,  # `--form` is not `--format`: a typo is an error, as with click
        )
        self.arguments = self.add_argument_group("Arguments")
        self.options = self.add_argument_group("Options")

    def error(self, message: str) -> NoReturn:
        missing = "the following arguments are required: "
        if message.startswith(missing):
            message = "; ".join(self._required(name) for name in message[len(missing) :].split(", "))
        raise UsageError(message, self.prog)

    def _required(self, name: str) -> str:
        """`--snapshot SNAP is required` (argparse says `the following arguments are required: --snapshot`)."""
        for action in self._actions:
            if "/".join(action.option_strings) == name and isinstance(action.metavar, str):
                return f"{action.option_strings[-1]} {action.metavar} is required"
        return f"{name} is required"

    def finish(self) -> Parser:
        """`-h, --help` last, as click lists it."""
        self.options.add_argument("-h", "--help", action="help", help="Show this message and exit.")
        return self

    def value(
        self,
        *flags: str,
        metavar: str,
        help: str,
        dest: str | None = None,
        default: Any = None,
        kind: Callable[[str], Any] | None = None,
        repeat: bool = False,
        required: bool = False,
        show_default: bool = False,
    ) -> None:
        """An option that takes a value. `metavar` names it (`FILE`) or lists its choices."""
        notes = []
        if show_default and default is not None:
            notes.append(f"[default: {default}]")
        if required:
            notes.append("[required]")
        text = " ".join([help, *notes])
        extra: dict[str, Any] = {"dest": dest} if dest else {}
        if kind is not None:
            extra["type"] = kind
        self.options.add_argument(
            *flags,
            metavar=metavar,
            help=text,
            default=default,
            action="append" if repeat else "store",
            required=required,
            **extra,
        )

    def switch(self, *flags: str, help: str) -> None:
        self.options.add_argument(*flags, action="store_true", help=help)

    def parse(self, args: Sequence[str]) -> argparse.Namespace:
        """Options and paths in any order (`lint a.yaml --format json b.yaml`), as click allows."""
        return self.parse_intermixed_args(list(args))


def choices(values: Iterable[object]) -> str:
    """The metavar of an option with a fixed set of values: `[text|json|markdown]`."""
    return "[" + "|".join(str(value) for value in values) + "]"


def whole_number(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An int option's type, with its range in the message (`--page-size: 0 is not in 1..10000`)."""

    def parse(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if (low is not None and number < low) or (high is not None and number > high):
            bounds = f"{low}..{high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"{number} is not in the range {bounds}")
        return number

    parse.__name__ = "whole number"  # argparse names the type in some messages
    return parse
