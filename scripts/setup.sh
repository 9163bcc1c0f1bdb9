#!/usr/bin/env bash
# setup.sh installs what Yakor needs on a Debian-like machine and is safe to run
# again: every step checks first and does nothing when its part is already there.
#
#   PostgreSQL server (15 or newer), postgresql-server-dev, pg_trgm (contrib),
#   pgvector: Debian's postgresql-NN-pgvector where the suite has it, else
#   built from Debian's pgvector source package of a suite that carries it.
#
#   With the argument "citus" or "test": also Citus (the distributed
#   PostgreSQL extension the distributed tests run on): Debian's
#   postgresql-NN-citus* package where the suite has one, else built once from
#   the release source in ../shared/vendor/citus (checksum checked against its
#   SHA256SUMS), in .yakor-build/ (git-ignored), and installed into the
#   server's directories. Installed already: nothing is done.
#
#   With the argument "test": also Chromium, which the browser tests drive
#   (Debian's chromium package), and the client libraries the
#   OpenAI-compatibility tests run with node (openai, ai, @ai-sdk/openai,
#   @ai-sdk/openai-compatible, @langchain/openai, @langchain/core, zod):
#   installed from the npm registry into .yakor-test/node (git-ignored),
#   major versions pinned; npm comes from Debian's packages when missing, and
#   node 22 from the npm registry (node-linux-<arch>) when the machine's
#   node is older.
#
# Environment:
#   YAKOR_PG_VERSION      PostgreSQL major version to use (default: newest installed, else 15)
#   YAKOR_PGVECTOR_SUITE  Debian suite to take pgvector's source from (default: trixie)
#   YAKOR_CITUS_SOURCE    Citus's release source: a citus-X.Y.Z.tar.gz, or the folder
#                         holding one (default: ../shared/vendor/citus next to the
#                         repository, or next to the main checkout of a git worktree)
#   YAKOR_NODE_MAJOR      node's major version for the client tests (default: 22)
#   YAKOR_OPENAI_NPM      openai's version range (default: ^7)
#   YAKOR_AI_NPM, YAKOR_AI_SDK_OPENAI_NPM, YAKOR_AI_SDK_COMPAT_NPM
#                         ai, @ai-sdk/openai and @ai-sdk/openai-compatible (default: ^7, ^4, ^3)
#   YAKOR_LANGCHAIN_OPENAI_NPM, YAKOR_LANGCHAIN_CORE_NPM, YAKOR_ZOD_NPM
#                         @langchain/openai, @langchain/core and zod (default: ^1, ^1, ^4)
set -euo pipefail

log() { printf 'setup: %s\n' "$*" >&2; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    log "not root and no sudo: install packages by hand or run as root"; fi
fi

apt_updated=0
apt_install() {
  if [ "$apt_updated" -eq 0 ]; then
    log "apt-get update"
    $SUDO apt-get update -qq
    apt_updated=1
  fi
  log "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

pg_version() {
  if [ -n "${YAKOR_PG_VERSION:-}" ]; then echo "$YAKOR_PG_VERSION"; return; fi
  local newest
  newest=$(ls -1 /usr/lib/postgresql 2>/dev/null | grep -E '^[0-9]+$' | sort -n | tail -n 1 || true)
  echo "${newest:-15}"
}

# citus_source prints the Citus release tarball to build: YAKOR_CITUS_SOURCE
# (the file, or a folder holding one), else the newest citus-*.tar.gz in
# ../shared/vendor/citus beside the repository or, in a git worktree, beside
# the main checkout.
citus_source() {
  local root dirs=() d f
  root=$(cd "$(dirname "$0")/.." && pwd)
  if [ -n "${YAKOR_CITUS_SOURCE:-}" ]; then
    if [ -f "$YAKOR_CITUS_SOURCE" ]; then echo "$YAKOR_CITUS_SOURCE"; return; fi
    dirs=("$YAKOR_CITUS_SOURCE")
  else
    dirs=("$root/../shared/vendor/citus")
    d=$(git -C "$root" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
    [ -n "$d" ] && dirs+=("$(dirname "$d")/../shared/vendor/citus")
  fi
  for d in "${dirs[@]}"; do
    f=$(ls -1 "$d"/citus-*.tar.gz 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -n "$f" ]; then echo "$f"; return; fi
  done
  log "no Citus source: looked for citus-*.tar.gz in ${dirs[*]} (set YAKOR_CITUS_SOURCE)"
  return 1
}

# install_citus installs Citus for PostgreSQL $PGV when its control file or
# library is missing: Debian's package where a suite has one, else the release
# source, built in .yakor-build/ and removed once installed.
install_citus() {
  local lib pkg tarball name dir work p
  lib="$("$PGBIN/pg_config" --pkglibdir)/citus.so"
  if [ -f "$EXTDIR/citus.control" ] && [ -f "$lib" ]; then
    log "ready: Citus $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$EXTDIR/citus.control")"
    return
  fi
  citus_package() { apt-cache search --names-only "^postgresql-$PGV-citus" 2>/dev/null | awk '{print $1}' | sort -V | tail -n 1 || true; }
  pkg=$(citus_package)
  if [ -z "$pkg" ] && [ "$apt_updated" -eq 0 ]; then
    $SUDO apt-get update -qq
    apt_updated=1
    pkg=$(citus_package)
  fi
  if [ -n "$pkg" ] && apt-cache policy "$pkg" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    apt_install "$pkg"
  else
    tarball=$(citus_source)
    name=$(basename "$tarball" .tar.gz)
    dir=$(dirname "$tarball")
    if [ -f "$dir/SHA256SUMS" ]; then
      grep -E "[[:space:]]\*?$name\.tar\.gz\$" "$dir/SHA256SUMS" | (cd "$dir" && sha256sum --quiet -c -) ||
        { log "$tarball does not match $dir/SHA256SUMS"; exit 1; }
    fi
    log "no Citus package for PostgreSQL $PGV: building $name from $tarball (a few minutes)"
    for p in build-essential "postgresql-server-dev-$PGV" libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev; do
      have_pkg "$p" || apt_install "$p"
    done
    work="$(cd "$(dirname "$0")/.." && pwd)/.yakor-build/citus"
    mkdir -p "$work"
    [ -x "$work/$name/configure" ] || tar xzf "$tarball" -C "$work"
    citus_patch_headers "$work/$name"
    # The build's output goes to build.log, shown in part when a step fails;
    # the folder is kept then, so that a second run goes on from there.
    citus_build() {
      "$@" >>"$work/build.log" 2>&1 || { tail -n 30 "$work/build.log" >&2; log "Citus build failed: $work/build.log"; exit 1; }
    }
    if [ ! -f "$work/$name/Makefile.global" ]; then
      (cd "$work/$name" && citus_build ./configure PG_CONFIG="$PGBIN/pg_config")
    fi
    citus_build make -C "$work/$name" -j"$(nproc)"
    citus_build $SUDO make -C "$work/$name" install
    rm -rf "$work"
    rmdir "$(dirname "$work")" 2>/dev/null || true
    log "$name built and installed into $EXTDIR"
  fi
  [ -f "$EXTDIR/citus.control" ] && [ -f "$lib" ] || { log "Citus is still missing from $EXTDIR or $lib"; exit 1; }
  log "ready: Citus $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$EXTDIR/citus.control")"
}

# citus_patch_headers removes Citus's own static have_createdb_privilege() from
# src/include/pg_version_compat.h when the server's commands/dbcommands.h
# exports that function (Debian's PostgreSQL 15.20 does; Citus 13.2.2 still
# defines it for 15, and the two declarations do not compile together). On
# servers that do not export it, the source is left as it is.
citus_patch_headers() {
  local compat="$1/src/include/pg_version_compat.h"
  local db
  db="$("$PGBIN/pg_config" --includedir-server)/commands/dbcommands.h"
  grep -q 'have_createdb_privilege(void)' "$db" 2>/dev/null || return 0
  grep -q '^have_createdb_privilege(void)' "$compat" || return 0
  awk '
    held != "" { if ($0 ~ /^have_createdb_privilege\(void\)/) { skip = 1; held = ""; next } print held; held = "" }
    skip { if ($0 ~ /^}/) skip = 0; next }
    /^static inline bool[[:space:]]*$/ { held = $0; next }
    { print }
    END { if (held != "") print held }
  ' "$compat" >"$compat.new" && mv "$compat.new" "$compat"
  log "removed Citus's static have_createdb_privilege(): $db exports it"
}

PGV=$(pg_version)
if [ "$PGV" -lt 15 ]; then
  log "PostgreSQL $PGV is too old: Yakor needs 15 or newer (set YAKOR_PG_VERSION)"; exit 1
fi
PGBIN="/usr/lib/postgresql/$PGV/bin"
EXTDIR="/usr/share/postgresql/$PGV/extension"

# 1. PostgreSQL server, contrib (pg_trgm) and the server headers.
[ -x "$PGBIN/postgres" ] || apt_install "postgresql-$PGV"
[ -f "$EXTDIR/pg_trgm.control" ] || apt_install "postgresql-contrib-$PGV" || apt_install postgresql-contrib
have_pkg "postgresql-server-dev-$PGV" || apt_install "postgresql-server-dev-$PGV"

# 2. A UTF-8 locale for initdb (C.UTF-8 ships with glibc; the locales package is a fallback).
if ! locale -a 2>/dev/null | grep -qiE '^(c\.utf-?8|en_us\.utf-?8)$'; then
  apt_install locales
  $SUDO sed -i 's/^# *en_US.UTF-8 UTF-8/en_US.UTF-8 UTF-8/' /etc/locale.gen
  $SUDO locale-gen >/dev/null
fi

# 3. pgvector.
if [ ! -f "$EXTDIR/vector.control" ]; then
  if apt-cache policy "postgresql-$PGV-pgvector" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    apt_install "postgresql-$PGV-pgvector"
  else
    [ "$apt_updated" -eq 1 ] || { $SUDO apt-get update -qq; apt_updated=1; }
    if apt-cache policy "postgresql-$PGV-pgvector" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
      apt_install "postgresql-$PGV-pgvector"
    else
      suite="${YAKOR_PGVECTOR_SUITE:-trixie}"
      log "no postgresql-$PGV-pgvector package: building Debian's pgvector source from $suite"
      for p in build-essential dpkg-dev; do have_pkg "$p" || apt_install "$p"; done
      src=/etc/apt/sources.list.d/yakor-pgvector-src.sources
      if [ ! -f "$src" ]; then
        printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$suite" | $SUDO tee "$src" >/dev/null
      fi
      $SUDO apt-get update -qq
      work=$(mktemp -d)
      trap 'rm -rf "$work"' EXIT
      chmod 755 "$work"
      (cd "$work" && apt-get source -qq --download-only pgvector >/dev/null 2>&1 && dpkg-source -x ./*.dsc src >/dev/null)
      make -s -C "$work/src" PG_CONFIG="$PGBIN/pg_config" OPTFLAGS="" >/dev/null
      $SUDO make -s -C "$work/src" PG_CONFIG="$PGBIN/pg_config" install >/dev/null
      log "pgvector built and installed into $EXTDIR"
    fi
  fi
fi

[ -f "$EXTDIR/vector.control" ] || { log "pgvector is still missing from $EXTDIR"; exit 1; }
log "ready: PostgreSQL $PGV with pg_trgm and pgvector"

# 4. Citus, for the distributed tests (make test) and `yakor db start --citus`.
if [ "${1:-}" = "citus" ] || [ "${1:-}" = "test" ]; then
  install_citus
fi

# 5. Chromium for the browser tests.
if [ "${1:-}" = "test" ]; then
  if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    apt_install chromium fonts-dejavu-core
  fi
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { log "chromium is still missing"; exit 1; }
  log "ready: $(chromium --version 2>/dev/null || chromium-browser --version)"
fi

# 6. The client libraries the OpenAI-compatibility tests run (cmd/yakor):
#    installed from the npm registry into .yakor-test/node, majors pinned,
#    with node 22 from the registry too (node-linux-<arch>, into
#    .yakor-test/node-runtime) when the machine's node is older, linked as
#    .yakor-test/node/bin/node.
if [ "${1:-}" = "test" ]; then
  command -v node >/dev/null 2>&1 || apt_install nodejs
  command -v npm >/dev/null 2>&1 || apt_install npm
  root=$(cd "$(dirname "$0")/.." && pwd)
  node_dir="$root/.yakor-test/node"
  mkdir -p "$node_dir/bin"
  node_bin="$node_dir/bin/node"
  if ! "$node_bin" --version 2>/dev/null | grep -q "^v${YAKOR_NODE_MAJOR:-22}\."; then
    case "$(uname -m)" in aarch64|arm64) arch=arm64 ;; *) arch=x64 ;; esac
    sys=$(node --version 2>/dev/null || true)
    if [ "${sys#v}" != "$sys" ] && [ "${sys#v${YAKOR_NODE_MAJOR:-22}.}" != "$sys" ]; then
      ln -sf "$(command -v node)" "$node_bin"
    else
      runtime="$root/.yakor-test/node-runtime"
      log "npm install node-linux-$arch@${YAKOR_NODE_MAJOR:-22} into $runtime (the machine's node is ${sys:-missing})"
      npm install --prefix "$runtime" --no-audit --no-fund --no-save --loglevel=error "node-linux-$arch@^${YAKOR_NODE_MAJOR:-22}" >/dev/null
      ln -sf "$runtime/node_modules/node-linux-$arch/bin/node" "$node_bin"
    fi
  fi
  pkgs=(
    "openai@${YAKOR_OPENAI_NPM:-^7}"
    "ai@${YAKOR_AI_NPM:-^7}"
    "@ai-sdk/openai@${YAKOR_AI_SDK_OPENAI_NPM:-^4}"
    "@ai-sdk/openai-compatible@${YAKOR_AI_SDK_COMPAT_NPM:-^3}"
    "@langchain/openai@${YAKOR_LANGCHAIN_OPENAI_NPM:-^1}"
    "@langchain/core@${YAKOR_LANGCHAIN_CORE_NPM:-^1}"
    "zod@${YAKOR_ZOD_NPM:-^4}"
  )
  missing=()
  for p in "${pkgs[@]}"; do
    name=${p%@*}; want=${p##*@}; major=${want#^}; major=${major%%.*}
    have=$("$node_bin" -p "require('$node_dir/node_modules/$name/package.json').version" 2>/dev/null || true)
    [ "${have%%.*}" = "$major" ] || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "npm install ${missing[*]} into $node_dir"
    PATH="$node_dir/bin:$PATH" npm install --prefix "$node_dir" --no-audit --no-fund --no-save --loglevel=error "${pkgs[@]}" >/dev/null
  fi
  log "ready: node $("$node_bin" --version), ${pkgs[*]} (npm) in $node_dir"
fi
