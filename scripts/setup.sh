#!/usr/bin/env bash
# setup.sh installs what Yakor needs on a Debian-like machine and is safe to run
# again: every step checks first and does nothing when its part is already there.
#
#   PostgreSQL server (15 or newer), postgresql-server-dev, pg_trgm (contrib),
#   pgvector: Debian's postgresql-NN-pgvector where the suite has it, else
#   built from Debian's pgvector source package of a suite that carries it.
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

# 4. Chromium for the browser tests.
if [ "${1:-}" = "test" ]; then
  if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    apt_install chromium fonts-dejavu-core
  fi
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { log "chromium is still missing"; exit 1; }
  log "ready: $(chromium --version 2>/dev/null || chromium-browser --version)"
fi

# 5. The client libraries the OpenAI-compatibility tests run (cmd/yakor):
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
