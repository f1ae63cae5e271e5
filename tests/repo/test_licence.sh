#!/bin/bash
# The licences: the code under MIT (LICENSE), a NOTICE that a build linking eSpeak NG (GPL-3+)
# and FFTW (GPL-2+) is distributed under the GPL's terms, the shipped model's CC BY-SA 4.0
# file beside it (data/models/LICENSE, also after cmake --install: tests/api/test_install.sh),
# and `qkv --version` naming the licence of the build it is.
set -u
ROOT=${QKV_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$ROOT" || exit 1
[ -f LICENSE ] || fail "no LICENSE at the root"
head -1 LICENSE | grep -qx 'MIT License' || fail "LICENSE is not the MIT licence"
grep -q 'Permission is hereby granted, free of charge' LICENSE || fail "LICENSE lacks the MIT grant"
[ -f NOTICE ] || fail "no NOTICE at the root"
grep -q 'eSpeak NG' NOTICE && grep -q 'GPL-3.0-or-later' NOTICE || fail "NOTICE does not name eSpeak NG's GPL-3+"
grep -q 'FFTW' NOTICE && grep -q 'GPL-2.0-or-later' NOTICE || fail "NOTICE does not name FFTW's GPL-2+"
grep -q 'GNU General Public License, version 3' NOTICE || fail "NOTICE does not say such builds are under the GPL"
for model in data/models/*.h5; do
    lic=$(dirname "$model")/LICENSE
    [ -f "$lic" ] || fail "no licence file beside $model"
    grep -q 'CC BY-SA 4.0' "$lic" || fail "$lic does not name CC BY-SA 4.0"
    grep -q "$(basename "$model")" "$lic" || fail "$lic does not name $(basename "$model")"
done
grep -q 'data/models/LICENSE' api/CMakeLists.txt || fail "api/CMakeLists.txt does not install data/models/LICENSE"
if [ -n "${QKV_BIN:-}" ]; then
    v=$("$QKV_BIN" --version) || fail "qkv --version"
    if [ "${QKV_SPEECH_BUILT:-0}" = 1 ]; then
        echo "$v" | grep -q 'GPL-3.0-or-later' || fail "a build with qkv speech says '$v', not the GPL"
    else
        echo "$v" | grep -q '(MIT)$' || fail "a build without qkv speech says '$v', not MIT"
    fi
fi
echo "ok: LICENSE (MIT), NOTICE (GPL builds), the model's CC BY-SA 4.0 file, qkv --version"
