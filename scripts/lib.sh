# shellcheck shell=bash
# Shared helpers for scripts/serve, scripts/test and scripts/setup: idempotent installers for
# everything the build needs. Each `ensure_*` is a no-op (a version check, well under a second)
# when the right version is already there, and installs or reinstalls it otherwise.
#
# Only package registries are reachable on our machines (crates.io, npm, Debian apt): nothing
# here downloads prebuilt binaries or browsers.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
case ":$PATH:" in
  *":$CARGO_HOME/bin:"*) ;;
  *) export PATH="$CARGO_HOME/bin:$PATH" ;;
esac

TRUNK_VERSION="0.21.14"
WASM_TARGET="wasm32-unknown-unknown"
CHROMIUM_BIN="/usr/bin/chromium"
CHROMEDRIVER_BIN="/usr/bin/chromedriver"

if [[ -t 1 ]]; then
  _B=$'\033[1m' _R=$'\033[31m' _G=$'\033[32m' _0=$'\033[0m'
else
  _B="" _R="" _G="" _0=""
fi

say() { printf '%s==> %s%s\n' "$_B" "$*" "$_0"; }
die() {
  printf '%serror: %s%s\n' "$_R" "$*" "$_0" >&2
  exit 1
}

# Run as root, through sudo when we are not root.
as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    die "need root for: $* (no sudo found)"
  fi
}

# apt-get install, refreshing the package lists only when the first attempt fails
# (a fresh image has none; an existing machine usually has good enough ones).
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  if ! as_root apt-get install -y "$@"; then
    say "apt-get install failed; running apt-get update and retrying"
    as_root apt-get update
    as_root apt-get install -y "$@"
  fi
}

ensure_rust() {
  command -v cargo >/dev/null || die "cargo not found: install Rust (rustup) first"
  if command -v rustup >/dev/null; then
    # Components a minimal rustup profile lacks.
    cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
    cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
    if ! rustup target list --installed | grep -qx "$WASM_TARGET"; then
      say "installing Rust target $WASM_TARGET"
      rustup target add "$WASM_TARGET"
    fi
  else
    [[ -d "$(rustc --print sysroot)/lib/rustlib/$WASM_TARGET" ]] ||
      die "Rust target $WASM_TARGET missing and rustup not found"
  fi
}

# The wasm-bindgen version the workspace is locked to: the CLI must match it exactly.
wasm_bindgen_version() {
  [[ -f Cargo.lock ]] || cargo generate-lockfile --offline 2>/dev/null || cargo generate-lockfile
  local v
  v="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
  [[ -n "$v" ]] || die "wasm-bindgen not found in Cargo.lock"
  printf '%s\n' "$v"
}

ensure_wasm_bindgen() {
  local want have_bg have_runner
  want="$(wasm_bindgen_version)"
  have_bg="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
  have_runner="$(wasm-bindgen-test-runner --version 2>/dev/null | awk '{print $2}' || true)"
  if [[ "$have_bg" != "$want" || "$have_runner" != "$want" ]]; then
    say "installing wasm-bindgen-cli $want (found: ${have_bg:-none})"
    # No --locked: one of its locked dependencies is not on crates.io any more.
    cargo install wasm-bindgen-cli --version "$want" --force
  fi
}

ensure_trunk() {
  local have
  have="$(trunk --version 2>/dev/null | awk '{print $2}' || true)"
  if [[ "$have" != "$TRUNK_VERSION" ]]; then
    say "installing trunk $TRUNK_VERSION (found: ${have:-none})"
    # trunk 0.22 needs a newer rustc than ours; 0.21.14 builds with --locked.
    # Its release profile uses fat LTO with one codegen unit, which makes the build minutes
    # longer on 2 cores for no benefit to us: override it for this install.
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
      cargo install --locked "trunk@$TRUNK_VERSION" --force
  fi
  # The release build's post_build hook (Trunk.toml): node running scripts/wasm-split.mjs, which
  # runs the splitter.
  ensure_node
  ensure_wasm_split
  # Trunk.toml pins the wasm-bindgen version; keep it equal to Cargo.lock's.
  local pinned
  pinned="$(sed -n 's/^wasm_bindgen *= *"\(.*\)"/\1/p' Trunk.toml)"
  [[ "$pinned" == "$(wasm_bindgen_version)" ]] ||
    die "Trunk.toml pins wasm_bindgen = \"$pinned\" but Cargo.lock has $(wasm_bindgen_version)"
}

# The splitter of the release build's wasm (issue 44; scripts/wasm-split.mjs): crates.io
# wasm-split-cli, Dioxus', at the version of the `wasm-splitter` macros core uses.
WASM_SPLIT_VERSION="0.8.0-alpha.3"
ensure_wasm_split() {
  local have
  # No --version: ask cargo what it installed.
  have="$(cargo install --list | sed -n 's/^wasm-split-cli v\([^:]*\):$/\1/p')"
  if [[ "$have" != "$WASM_SPLIT_VERSION" ]] || ! command -v wasm-split-cli >/dev/null; then
    say "installing wasm-split-cli $WASM_SPLIT_VERSION (found: ${have:-none})"
    cargo install wasm-split-cli --version "$WASM_SPLIT_VERSION" --force
  fi
}

_major() { "$1" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9.]+' | head -1 | cut -d. -f1; }

ensure_chromium() {
  local cm dm
  cm="$(_major "$CHROMIUM_BIN" || true)"
  dm="$(_major "$CHROMEDRIVER_BIN" || true)"
  if [[ -z "$cm" || -z "$dm" || "$cm" != "$dm" ]]; then
    say "installing chromium + chromium-driver (found chromium ${cm:-none}, driver ${dm:-none})"
    apt_install chromium chromium-driver
  fi
}

ensure_node() {
  local major
  major="$(node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/' || true)"
  if [[ -z "$major" ]] || ! command -v npm >/dev/null; then
    say "installing nodejs + npm from apt"
    apt_install nodejs npm
    major="$(node --version | sed -E 's/^v([0-9]+).*/\1/')"
  fi
  [[ "$major" -ge 18 ]] || die "node $major is too old for playwright-core (need >= 18, ideally 20)"
}

# npm dependencies of the e2e harness, from the committed lockfile.
ensure_e2e_deps() {
  ensure_node
  local dir="$ROOT/tests/e2e" want have
  want="$(node -e 'const l=require(process.argv[1]);console.log(l.packages["node_modules/playwright-core"].version)' "$dir/package-lock.json")"
  have="$(node -e 'try{console.log(require(process.argv[1]).version)}catch{console.log("")}' "$dir/node_modules/playwright-core/package.json")"
  if [[ "$have" != "$want" ]]; then
    say "installing e2e npm dependencies (playwright-core $want)"
    (cd "$dir" && npm ci --no-audit --no-fund)
  fi
}
