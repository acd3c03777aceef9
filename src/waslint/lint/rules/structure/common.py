"""What the WAS6xx rules share: label keys, the template tree limit, how groups and templates are
named in messages."""

from __future__ import annotations

from waslint.knowledge.names import DNS_SUBDOMAIN, QUALIFIED_NAME
from waslint.knowledge.schema import render_path
from waslint.objects.groups import Group
from waslint.objects.kobject import as_str
from waslint.objects.walks import (
    GroupTemplate,
)


def label_key_problem(key: str) -> str | None:
    """Why `key` is not a valid Kubernetes label key (qualified name), or None when it is."""
    if not key:
        return "it is empty"
    prefix, slash, name = key.rpartition("/")
    if slash and not prefix:
        return "the prefix before '/' is empty"
    if key.count("/") > 1:
        return "it has more than one '/'"
    if slash and (len(prefix) > 253 or not DNS_SUBDOMAIN.match(prefix)):
        return f"the prefix {prefix!r} is not a DNS subdomain (lowercase letters, digits, '-', '.')"
    if not name:
        return "the name after '/' is empty"
    if len(name) > 63:
        return f"the name part is {len(name)} characters long (at most 63)"
    if not QUALIFIED_NAME.match(name):
        return (
            f"the name part {name!r} may hold only letters, digits, '-', '_' and '.', and must"
            " start and end with a letter or digit"
        )
    return None


def holder_label(group: Group) -> str:
    """How a group is named in messages: template 'workers', spec, spec.scheduling."""
    if group.template is not None:
        name = group.name
        kind = "composite template" if group.composite else "template"
        return f"{kind} {name!r}" if name else f"{kind} #{group.path[-1]}"
    return render_path(group.path)


def template_name(template: GroupTemplate) -> str:
    return as_str(template.data.get("name")) or f"#{template.path[-1]}"
