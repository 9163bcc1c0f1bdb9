#!/usr/bin/env bash
# test.sh runs Yakor's whole test suite on a fresh machine: it installs what
# is missing, starts a throw-away private PostgreSQL (fsync off) in a
# temporary folder, points TEST_DATABASE_URL at it, checks formatting and
# vet, runs every test, and stops the server whatever happens.
#
# TEST_DATABASE_URL already set: that server is used and none is started.
# GOTESTFLAGS: extra flags for go test (e.g. "-run TestWindow -v").
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh test
go build -buildvcs=auto -o bin/yakor ./cmd/yakor

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  dir=$(mktemp -d /tmp/yakor-test.XXXXXX)
  chmod 755 "$dir"
  cleanup() { bin/yakor db stop --data-dir "$dir/data" --log-level warn || true; rm -rf "$dir"; }
  trap cleanup EXIT
  TEST_DATABASE_URL=$(bin/yakor db start --fast --data-dir "$dir/data" --log-level warn)
  export TEST_DATABASE_URL
fi

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
go vet ./...
# shellcheck disable=SC2086
go test -count=1 -timeout 12m ${GOTESTFLAGS:-} ./...

# A short fuzzing pass over the parsers and request decoders on every run;
# seeds live in each package's testdata/fuzz. YAKOR_FUZZTIME=5m for a longer
# one. go test -fuzz takes one package and one target at a time.
for target in search:FuzzParser search:FuzzPatterns words:FuzzKeywords web/oaicompat:FuzzChatRequest web:FuzzDecode; do
  go test -run '^$' -fuzz "^${target#*:}\$" -fuzztime "${YAKOR_FUZZTIME:-10s}" "./${target%%:*}/"
done
