#!/usr/bin/env bash
# The library's tiers, enforced: a file of libtfm includes only headers of its own tier or of
# lower ones (base < io < eval < nn < model < import < decode < train < view), never the tools' code (benchmarks,
# pictures, flags); and no file outside tools/ includes a tool-side header. docs/design.md
# describes the tiers.
set -u
root=${TFM_SOURCE:-$(cd "$(dirname "$0")/.." && pwd)}
tiers=(base io eval nn model import decode train view)
rank() {
    local i
    for i in "${!tiers[@]}"; do [ "${tiers[$i]}" = "$1" ] && { echo "$i"; return; }; done
    echo -1
}
fails=0 checked=0
while IFS= read -r file; do
    rel=${file#"$root"/libtfm/}
    case $rel in
        include/tfm/version.hpp.in) continue ;;
        include/tfm/*/*) tier=${rel#include/tfm/}; tier=${tier%%/*} ;;
        src/*/*) tier=${rel#src/}; tier=${tier%%/*} ;;
        *) echo "FAIL: $rel is outside every tier (libtfm/include/tfm/TIER/ or libtfm/src/TIER/)"; fails=$((fails + 1)); continue ;;
    esac
    own=$(rank "$tier")
    if [ "$own" -lt 0 ]; then
        echo "FAIL: $rel: '$tier' is not a tier (${tiers[*]})"; fails=$((fails + 1)); continue
    fi
    while IFS= read -r inc; do
        checked=$((checked + 1))
        case $inc in
            tfm/version.hpp) continue ;;
            tfm/*/*) other=${inc#tfm/}; other=${other%%/*} ;;
            *.hpp) [ -e "$(dirname "$file")/$inc" ] && continue  # a private header beside it
                   echo "FAIL: $rel includes \"$inc\", which is not libtfm's"; fails=$((fails + 1)); continue ;;
            *) continue ;;
        esac
        r=$(rank "$other")
        if [ "$r" -lt 0 ] || [ "$r" -gt "$own" ]; then
            echo "FAIL: $rel (tier $tier) includes \"$inc\" (tier $other, higher)"; fails=$((fails + 1))
        fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find "$root/libtfm" -name '*.hpp' -o -name '*.cpp' -o -name '*.in' | sort)
# Tool-side headers (benchmarks, pictures, the tools' common code) stay on the tools' side.
while IFS= read -r hit; do
    echo "FAIL: $hit: the library includes a tool-side header"; fails=$((fails + 1))
done < <(grep -rnE '#[[:space:]]*include[[:space:]]*"(bench|pictures|common)/' "$root/libtfm" || true)
[ "$checked" -gt 100 ] || { echo "FAIL: only $checked includes seen: is the tree there?"; fails=$((fails + 1)); }
echo "$checked includes checked, $fails wrong"
[ "$fails" -eq 0 ]
