#!/usr/bin/env bash
# Page content: sitediag's /metascraping (renderJS false) and text-llm
# beside metascraper (its standard rule set), open-graph-scraper and
# Mozilla Readability on jsdom, on the corpus under testdata/pages.
# Prints the field-by-field agreement table, the mean token F1 of
# text-llm against Readability, and the time per page of each.
# The npm peers are pinned in bench/content/package.json + lock and
# installed here (npm ci), never by make run.
#
#   bench/content.sh [-v]
set -euo pipefail
. "$(dirname "$0")/common.bash"
# --ignore-scripts: no peer needs an install script. The only one that has
# one is re2, an optional native regex engine of url-regex-safe (it falls
# back to RegExp without it) whose script downloads a prebuilt binary from
# GitHub and, offline, hangs before building it from source.
npm_peers content --ignore-scripts
cd "$(dirname "$0")/.."
go run ./bench/contentbench "$@" testdata/pages bench/content/peers.mjs
