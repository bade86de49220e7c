#!/usr/bin/env bash
# The previous release's jar for RollingUpgradeIT: builds the commit named in .previous-release (git archive of it,
# mvn package without tests) into target/previous-release/idempotent-relay.jar, once; target/previous-release/commit
# says which commit built it, and a jar of that commit is used again. mvn verify runs it before the integration tests.
#   scripts/previous-release.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
OUT=target/previous-release
command -v git >/dev/null 2>&1 || { echo "previous-release: git is needed to build the previous release's jar" >&2; exit 1; }
[ -f .previous-release ] || { echo "previous-release: .previous-release is missing (the commit of the previous release)" >&2; exit 1; }
named=$(grep -v '^#' .previous-release | tr -d '[:space:]')
commit=$(git rev-parse --verify --quiet "$named^{commit}") || {
  echo "previous-release: commit '$named' of .previous-release is not in this repository (a shallow clone? git fetch --unshallow)" >&2
  exit 1
}
if [ -f "$OUT/idempotent-relay.jar" ] && [ "$(cat "$OUT/commit" 2>/dev/null)" = "$commit" ]; then
  echo "previous-release: $OUT/idempotent-relay.jar is the jar of $named"
  exit 0
fi
echo "previous-release: building the jar of $named into $OUT/idempotent-relay.jar"
rm -rf "$OUT"
mkdir -p "$OUT/src"
git archive "$commit" | tar -x -C "$OUT/src"
(cd "$OUT/src" && mvn -B -q package -DskipTests)
cp "$OUT/src/target/idempotent-relay.jar" "$OUT/idempotent-relay.jar"
echo "$commit" > "$OUT/commit"
echo "previous-release: built $OUT/idempotent-relay.jar of $named"
