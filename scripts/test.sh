#!/usr/bin/env bash
# test.sh runs Yakor's whole test suite on a fresh machine: it installs what
# is missing (Citus too, built from source where Debian has no package),
# starts a throw-away private PostgreSQL (fsync off) in a temporary folder and
# a throw-away Citus cluster (a coordinator and two workers) beside it, points
# TEST_DATABASE_URL and TEST_CITUS_URL at them, checks formatting and vet,
# runs every test, and stops the servers whatever happens.
#
# TEST_DATABASE_URL already set: that server is used and none is started;
# the same for TEST_CITUS_URL and the Citus cluster.
# GOTESTFLAGS: extra flags for go test (e.g. "-run TestWindow -v").
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh test
go build -buildvcs=auto -o bin/yakor ./cmd/yakor

dir=$(mktemp -d /tmp/yakor-test.XXXXXX)
chmod 755 "$dir"
cleanup() {
  [ ! -d "$dir/data" ] || bin/yakor db stop --data-dir "$dir/data" --log-level warn || true
  [ ! -d "$dir/citus" ] || bin/yakor db stop --data-dir "$dir/citus" --log-level warn || true
  rm -rf "$dir"
}
trap cleanup EXIT
if [ -z "${TEST_DATABASE_URL:-}" ]; then
  TEST_DATABASE_URL=$(bin/yakor db start --fast --data-dir "$dir/data" --log-level warn)
  export TEST_DATABASE_URL
fi
if [ -z "${TEST_CITUS_URL:-}" ]; then
  began=$SECONDS
  TEST_CITUS_URL=$(bin/yakor db start --citus --citus-workers 2 --fast --data-dir "$dir/citus" --log-level warn)
  export TEST_CITUS_URL
  echo "test: Citus cluster (a coordinator, two workers) started in $((SECONDS - began))s" >&2
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
#
# Go 1.26's fuzz coordinator can fail a run at the -fuzztime boundary with a
# bare "context deadline exceeded" when its workers are starved of CPU
# (go.dev/issue/75804, fixed in Go 1.27): nothing was found, no input was
# written. A real finding always writes its input ("Failing input written
# to testdata/fuzz/…"), so only that, or any other failure, fails the run.
fuzz() {
  local out rc=0
  out=$(go test -run '^$' -fuzz "^${1#*:}\$" -fuzztime "${YAKOR_FUZZTIME:-10s}" "./${1%%:*}/" 2>&1) || rc=$?
  printf '%s\n' "$out"
  if [ "$rc" -ne 0 ]; then
    if grep -q 'context deadline exceeded' <<<"$out" && ! grep -qE 'Failing input written|panic:' <<<"$out"; then
      echo "fuzz $1: stopped at the fuzztime boundary with nothing found (go.dev/issue/75804); not a failure" >&2
      return 0
    fi
    return "$rc"
  fi
}
for target in search:FuzzParser search:FuzzPatterns words:FuzzKeywords web/oaicompat:FuzzChatRequest web:FuzzDecode fence:FuzzText turn:FuzzFences; do
  fuzz "$target"
done
