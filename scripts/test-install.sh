#!/usr/bin/env bash
# The install path the README gives, tried for real: pack this checkout, install the tarball
# into a throwaway prefix (as `sudo npm install -g` would into /usr/local), then run the
# installed CLIs from there. Run by .ci/run; needs the npm registry for the dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

npm run build --silent
tarball="$(npm pack --silent --pack-destination "$work" | tail -n 1)"
npm install --global --prefix "$work/prefix" --no-audit --no-fund --loglevel=error "$work/$tarball"

bin="$work/prefix/bin"
"$bin/autoloop-cron" --version
"$bin/autoloop" --version
"$bin/autoloop" agents >/dev/null

# A config and a schedule like the README's, validated by the installed CLI.
mkdir -p "$work/etc/schedules" "$work/repo"
cat >"$work/etc/autoloop-cron.toml" <<'TOML'
state_dir = "state"
[http]
listen = ""
TOML
cat >"$work/etc/schedules/nightly.toml" <<TOML
[[schedule]]
name = "nightly-fix"
cron = "0 2 * * *"
timezone = "Europe/Berlin"
preset = "autofix"
objective = "Make the test suite pass"
project_dir = "$work/repo"
TOML
"$bin/autoloop-cron" validate --config "$work/etc/autoloop-cron.toml"
echo "install test: ok ($tarball into $work/prefix)"
