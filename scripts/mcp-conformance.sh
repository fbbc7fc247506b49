#!/usr/bin/env bash
# Runs the client scenarios of the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned in testdata/mcp-conformance) against the
# runtime's MCP client (cmd/mcpconformance), with the Node 22 installed there from npm.
# Fails when a scenario of testdata/mcp-conformance/expected-pass.txt does not pass; lists
# every other scenario by name with its result.
# Env: CONFORMANCE_OUT (a folder for each scenario's output; default a temporary one).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dir="$MCP_CONFORMANCE_DIR"
npm_deps "$dir" >&2 || die "cannot install the conformance suite"
bin="$REPO_ROOT/$dir/node_modules/.bin"
[[ -x "$bin/node" && -x "$bin/conformance" ]] || die "the conformance suite or its Node is missing in $dir/node_modules"
export PATH="$bin:$PATH"
node_version="$(node -p 'process.versions.node')"
version_ge "$node_version" "22.0.0" || die "the conformance suite needs Node 22 or newer, found $node_version"

out="${CONFORMANCE_OUT:-$(mktemp -d -t crewagent-conformance.XXXXXX)}"
mkdir -p "$out" build/test-tools
client="$REPO_ROOT/build/test-tools/mcpconformance"
go build -o "$client" ./cmd/mcpconformance || die "cannot build cmd/mcpconformance"

mapfile -t expected < <(grep -v '^\s*#' "$dir/expected-pass.txt" | sed '/^\s*$/d')
mapfile -t scenarios < <(conformance list --client | sed -n 's/^  - \([^ ]*\).*/\1/p')
((${#scenarios[@]} > 0)) || die "the suite lists no client scenarios"

passed=() failed=() missing=()
for s in "${scenarios[@]}"; do
  log_file="$out/${s//\//_}.txt"
  if timeout 120 conformance client --command "$client" --scenario "$s" --timeout 15000 >"$log_file" 2>&1; then
    passed+=("$s")
  else
    failed+=("$s")
  fi
done

is_in() {
  local x="$1"
  shift
  local y
  for y in "$@"; do [[ "$x" == "$y" ]] && return 0; done
  return 1
}

bad=0
for s in "${expected[@]}"; do
  if ! is_in "$s" "${scenarios[@]}"; then
    missing+=("$s")
    bad=1
  elif ! is_in "$s" "${passed[@]}"; then
    printf '  %sFAIL%s %s (expected to pass; output: %s)\n' "$C_RED" "$C_OFF" "$s" "$out/${s//\//_}.txt"
    bad=1
  fi
done
for s in "${passed[@]}"; do
  if is_in "$s" "${expected[@]}"; then
    printf '  pass %s\n' "$s"
  else
    printf '  pass %s (not in expected-pass.txt yet)\n' "$s"
  fi
done
for s in "${failed[@]}"; do
  is_in "$s" "${expected[@]}" || printf '  not passing: %s\n' "$s"
done
for s in "${missing[@]}"; do
  printf '  %sFAIL%s %s is expected to pass but the suite has no such scenario\n' "$C_RED" "$C_OFF" "$s"
done
printf 'conformance %s, Node %s: %d of %d client scenarios pass (outputs in %s)\n' \
  "$(conformance --version)" "$node_version" "${#passed[@]}" "${#scenarios[@]}" "$out"
exit "$bad"
