#!/usr/bin/env bash
# Re-fetches the vendored htmx, unmodified, from the npm registry with npm's own client.
# Usage: web/static/update-htmx.sh [VERSION]   (default: the version in web/static/htmx.version)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${1:-$(cat "$here/htmx.version")}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "htmx.org@$version" >/dev/null && tar xzf htmx.org-*.tgz)
cp "$work/package/dist/htmx.min.js" "$here/htmx.min.js"
cp "$work/package/LICENSE" "$here/htmx.LICENSE"
echo "$version" > "$here/htmx.version"
sha256sum "$here/htmx.min.js" | cut -d' ' -f1 > "$here/htmx.min.js.sha256"
echo "htmx $version vendored"
