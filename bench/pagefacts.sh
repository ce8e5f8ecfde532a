#!/usr/bin/env bash
# Page facts: /metascraping's date, author and logo beside metascraper
# 5.x's rules (metascraper-date, -author, -logo, -logo-favicon, pinned in
# bench/pagefacts/package.json + lock), and /brand's primary colour,
# heading and body font beside dembrandt 0.18 (pinned in bench/brand), on
# the same pages: bench/pagefacts/sites (pages written for this bench on
# the markup of common CMSs: WordPress with and without Yoast, Elementor,
# Ghost, Drupal, Blogger, Squarespace, Shopify, Medium- and Substack-like
# pages, news bylines) and, for metascraper, testdata/pages. Each page is
# served by a server of its own on 127.0.0.1; nothing leaves the machine.
#
#   bench/pagefacts.sh [-v]
set -euo pipefail
. "$(dirname "$0")/common.bash"
# --ignore-scripts: as in bench/content.sh (re2's install script hangs
# offline; it is optional).
npm_peers pagefacts --ignore-scripts
npm_peers brand
cd "$(dirname "$0")/.."
go run ./bench/pagefactsbench "$@" bench/pagefacts/peers.mjs bench/pagefacts/sites testdata/pages
echo
go run ./bench/brandbench -dir bench/pagefacts/sites -sites all bench/brand/node_modules/dembrandt/dist/index.js
