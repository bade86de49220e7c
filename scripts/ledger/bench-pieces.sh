#!/usr/bin/env bash
# What the ledger's own pieces beside stock camel-sql are worth, side by side (docs/performance.md#the-ledgers-own-pieces):
# a jar of this checkout with leave-out-pieces.patch applied, whose system property relay.exp leaves out
# ReusedStatements (noreuse: sqlite-jdbc's plain data source) or the named parameters parsed once and the parameter count
# preset of the sql: reads (noparsed: camel-sql's own strategy); relay.db.group-commit=false leaves out SqliteGroupCommit.
# Then scripts/bench-alternate.sh, new transfers with the four variants, resends of DONE GUIDs with the three that read.
set -euo pipefail
cd "$(dirname "$0")/../.."
tree=$(mktemp -d)
git worktree add -q --detach "$tree" HEAD
trap 'git worktree remove --force "$tree"' EXIT
git -C "$tree" apply "$PWD/scripts/ledger/leave-out-pieces.patch"
(cd "$tree" && mvn -B -q package -Dmaven.test.skip=true)
J="$tree/target/idempotent-relay.jar"
export WARMUP=${WARMUP:-45} DURATION=${DURATION:-10} ROUNDS=${ROUNDS:-6}
export ENV_noreuse="JAVA_TOOL_OPTIONS=-Drelay.exp=noreuse" ENV_noparsed="JAVA_TOOL_OPTIONS=-Drelay.exp=noparsed"
export ENV_nogc="RELAY_DB_GROUP_COMMIT=false"
echo "new transfers"
VARIANTS="base=$J noreuse=$J noparsed=$J nogc=$J" scripts/bench-alternate.sh
echo "resends of DONE GUIDs"
BENCH_ARGS="--resend-ratio 1" VARIANTS="base=$J noreuse=$J noparsed=$J" scripts/bench-alternate.sh
