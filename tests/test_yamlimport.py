"""core/yamlimport.py imports PyYAML with two patterns of its pure-Python classes compiled at their
first use, not at import: a plain lint compiles neither, and PyYAML's pure-Python reader and
constructor behave as with a plain `import yaml`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import FIXTURES, ROOT

# Run in a fresh interpreter with PyYAML imported either way; prints what the pure-Python classes do.
_PROBE = r"""
import json, re, sys
compile_before = re.compile
if sys.argv[1] == "waslint":
    from waslint.core.yamlimport import LazyPattern, yaml
    lazy = [isinstance(yaml.reader.Reader.NON_PRINTABLE, LazyPattern),
            isinstance(yaml.constructor.SafeConstructor.timestamp_regexp, LazyPattern)]
else:
    import yaml
    lazy = []
out = {"lazy": lazy, "re.compile restored": re.compile is compile_before}
texts = ["plain: text\n", "bell: \x07\n", "bom: \ufeffx\n", "nel: \x85 ok\n", "astral: \U0001f600\n",
         "surrogate: \ud800\n", "private: \ue000\n", "nonchar: \uffff\n"]
for text in texts:
    try:
        out[repr(text)] = repr(yaml.load(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError as error:
        out[repr(text)] = f"{type(error).__name__}: {error}"
    out["search " + repr(text)] = repr(yaml.reader.Reader.NON_PRINTABLE.search(text))
for value in ["2024-01-02", "2024-01-02T03:04:05Z", "2024-1-2 3:04:05.123 +02:30", "2024-01-02T03:04:05.5-7",
              "2024-13-40", "20240102", "2024-01-02T03:04"]:
    try:
        out[value] = repr(yaml.load("t: " + value, Loader=yaml.SafeLoader))
    except (yaml.YAMLError, ValueError) as error:
        out[value] = f"{type(error).__name__}: {error}"
    found = yaml.constructor.SafeConstructor.timestamp_regexp.match(value)
    out["match " + value] = found and found.groupdict()
out["pattern"] = yaml.reader.Reader.NON_PRINTABLE.pattern
print(json.dumps(out))
"""


def _probe(how: str) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, how], capture_output=True, text=True, env=env, timeout=120, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_pyyaml_s_pure_python_classes_behave_as_with_a_plain_import() -> None:
    ours, plain = _probe("waslint"), _probe("plain")
    assert ours.pop("lazy") == [True, True]
    assert plain.pop("lazy") == []
    assert ours["re.compile restored"] is True
    assert ours == plain


def test_a_plain_lint_compiles_neither_pattern() -> None:
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['waslint', 'lint', {str(FIXTURES / 'rules' / 'WAS105' / 'bad.yaml')!r}]\n"
        "try:\n    runpy.run_module('waslint', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "import yaml\n"
        "patterns = [yaml.reader.Reader.NON_PRINTABLE, yaml.constructor.SafeConstructor.timestamp_regexp]\n"
        "print([vars(p).get('_compiled', 'compiled') for p in patterns], file=sys.stderr)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.stderr.strip() == "[None, None]"
