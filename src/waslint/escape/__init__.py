"""Escaping of text that came from outside (a server, a file name, a value) before it reaches a
terminal, a report or a URL: one module per concern, every format uses the one for its concern.

- `terminal`: control characters (newlines, ANSI/OSC escapes, bidi overrides) made visible;
- `workflow`: GitHub Actions workflow commands (`::`) and their data/property encodings;
- `markdown`: table cells, code spans, HTML and link syntax;
- `xml`: characters XML 1.0 cannot hold (JUnit);
- `uri`: path segments of `cluster://` URIs (SARIF, annotations) and of API request paths.
"""
