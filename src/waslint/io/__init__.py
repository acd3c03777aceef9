"""Inputs: file discovery, the loader (YAML/JSON with positions) and the config file."""
