#!/bin/bash
# No document tells the user to build with an unbounded `-j` (make starts every job at once:
# on a small machine it runs out of memory): every `cmake --build DIR -j` of the README, the
# contributing guide, docs/ and the header of CMakeLists.txt names its number of jobs.
set -u
ROOT=${QKV_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1
found=$(grep -rnE --include='*.md' --include=CMakeLists.txt -e 'cmake --build [^ ]+ -j($| |&|;)' \
    README.md CONTRIBUTING.md docs CMakeLists.txt | grep -v '^docs/results/')
if [ -n "$found" ]; then
    echo "$found" >&2
    echo "FAIL: an unbounded -j (give the number of jobs, e.g. -j\"\$(nproc)\")" >&2
    exit 1
fi
echo "ok: every documented build names its number of jobs"
