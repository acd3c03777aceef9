"""Kubernetes knowledge kept as data: releases, API lifecycle, feature gates, JSON schemas; and the
thin code that reads them. Imports only `waslint.core`."""
