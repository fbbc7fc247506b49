# Shared by scripts/run.sh and scripts/test.sh (source it; it defines
# functions and a few constants, and changes to the repository root).
# Installs what is missing: Debian/Ubuntu packages (as root or via sudo) and
# npm dependencies. Go and Node must already be there.

set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"

BIN="build/bin/crewagent"
BUILD_TAGS="desktop,production,webkit2_41"
APT_BUILD_PACKAGES=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev fonts-noto-color-emoji)
APT_E2E_PACKAGES=(xvfb xauth xdotool imagemagick xsettingsd)
# What the app runs with: bubblewrap is the sandbox of the command tool (shell.run);
# python3 runs the scripts skills bundle (the xlsx, pdf, docx ... skills).
APT_RUNTIME_PACKAGES=(bubblewrap python3)
# What scripts/run.sh needs to offer a virtual display on a machine without one.
APT_HEADLESS_PACKAGES=(xvfb xauth)
NODE_MIN="20.19.0"
# Third-party MCP servers the Go tests of backend/mcp run against (npm install there).
MCP_TEST_SERVERS_DIR="testdata/mcp-servers"
# The official MCP conformance suite and the Node 22 it needs (npm install there).
MCP_CONFORMANCE_DIR="testdata/mcp-conformance"

if [[ -t 1 ]]; then
  C_BOLD=$'\e[1m' C_RED=$'\e[31m' C_GREEN=$'\e[32m' C_YELLOW=$'\e[33m' C_OFF=$'\e[0m'
else
  C_BOLD='' C_RED='' C_GREEN='' C_YELLOW='' C_OFF=''
fi

log() { printf '%s==>%s %s\n' "$C_BOLD" "$C_OFF" "$*"; }
warn() { printf '%swarning:%s %s\n' "$C_YELLOW" "$C_OFF" "$*" >&2; }
die() {
  printf '%serror:%s %s\n' "$C_RED" "$C_OFF" "$*" >&2
  exit 1
}

can_root() {
  [[ $(id -u) -eq 0 ]] || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }
}

# as_root CMD...: runs CMD as root (directly, or with passwordless sudo).
as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo -n "$@"; fi
}

apt_missing() {
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || printf '%s\n' "$pkg"
  done
}

# ensure_apt PKG...: installs the packages that are not installed yet.
ensure_apt() {
  command -v dpkg-query >/dev/null 2>&1 || {
    warn "not a Debian/Ubuntu system: make sure these are installed: $*"
    return 0
  }
  local missing
  mapfile -t missing < <(apt_missing "$@")
  ((${#missing[@]} == 0)) && return 0
  can_root || die "missing system packages: ${missing[*]}
       run this as root or with passwordless sudo, or install them first:
       sudo apt-get install -y ${missing[*]}"
  log "installing system packages: ${missing[*]}"
  local aptlog
  aptlog="$(mktemp -t crewagent-apt.XXXXXX)"
  if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$aptlog" 2>&1 ||
    ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
      "${missing[@]}" >>"$aptlog" 2>&1; then
    tail -n 30 "$aptlog" >&2
    die "apt-get failed (full log: $aptlog)"
  fi
  rm -f "$aptlog"
}

version_ge() { [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" == "$2" ]]; }

ensure_go() {
  command -v go >/dev/null 2>&1 || die "Go is not installed (need $(go_wanted) or newer: https://go.dev/dl/)"
  local have want
  have="$(go env GOVERSION | sed 's/^go//')"
  want="$(go_wanted)"
  version_ge "$have" "$want" || die "Go $have is too old; go.mod needs $want or newer"
}

go_wanted() { awk '/^go /{print $2; exit}' go.mod; }

ensure_node() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
    die "Node.js and npm are not installed (need Node $NODE_MIN or newer: https://nodejs.org/)"
  local have
  have="$(node -p 'process.versions.node')"
  version_ge "$have" "$NODE_MIN" || die "Node $have is too old; the frontend build needs $NODE_MIN or newer"
}

# npm_deps DIR: npm install in DIR unless node_modules matches the lock file.
# (npm ci fails here: the registry lacks some optional packages at the
# locked versions; npm install works and leaves the lock unchanged.)
npm_deps() {
  local dir="$1"
  if [[ -f "$dir/node_modules/.package-lock.json" && "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" && "$dir/node_modules/.package-lock.json" -nt "$dir/package.json" ]]; then
    return 0
  fi
  log "npm install ($dir)"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error)
}

build_frontend() {
  log "building the frontend"
  (cd frontend && npm run --silent build)
}

build_desktop() {
  log "building $BIN"
  go build -tags "$BUILD_TAGS" -trimpath -ldflags "-w -s" -o "$BIN" .
}

# The version of golang.org/x/tools whose deadcode checks for unreachable functions.
DEADCODE_VERSION="v0.52.0"
DEADCODE_ALLOW="scripts/deadcode-allow.txt"

# deadcode_check: fails when a production function is unreachable from the
# program (main and cmd/*), unless a pattern of $DEADCODE_ALLOW matches it.
# A function that only tests use belongs in a _test.go file.
deadcode_check() {
  local found allow=() line pat fn bad=0 ok
  found="$(go run "golang.org/x/tools/cmd/deadcode@$DEADCODE_VERSION" \
    -f '{{range .Funcs}}{{$.Path}}.{{.Name}}{{"\n"}}{{end}}' ./...)" || return 1
  while IFS= read -r line; do
    pat="${line%%#*}"
    pat="${pat//[[:space:]]/}"
    [[ -n "$pat" ]] && allow+=("$pat")
  done <"$DEADCODE_ALLOW"
  while IFS= read -r fn; do
    [[ -z "$fn" ]] && continue
    ok=false
    for pat in "${allow[@]}"; do
      # shellcheck disable=SC2053 # the pattern is a glob on purpose
      if [[ "$fn" == $pat ]]; then
        ok=true
        break
      fi
    done
    if ! $ok; then
      echo "unreachable: $fn"
      bad=1
    fi
  done <<<"$found"
  if ((bad)); then
    echo "delete it, move it into a _test.go file, or add it to $DEADCODE_ALLOW with the reason"
  fi
  return "$bad"
}
