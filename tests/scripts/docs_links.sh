#!/bin/bash
# docs_links.sh SOURCE_DIR - every relative link in README.md, python/README.md
# and docs/**/*.md, [text](path) or [text](path#anchor), names a file or
# directory that exists (relative to the page that holds the link). Links
# with a scheme (https:, mailto:) and pure anchors (#...) are not checked.
set -u
cd "$1" || exit 2
bad=0 n=0
while IFS= read -r page; do
    dir=$(dirname "$page")
    # Link targets outside code spans and blocks: drop fenced blocks and
    # `code` first, so a C array index or a shell example is never a link.
    while IFS= read -r target; do
        [ -n "$target" ] || continue
        case $target in
        *://* | mailto:* | \#*) continue ;;
        esac
        path=${target%%#*}
        n=$((n + 1))
        if [ ! -e "$dir/$path" ]; then
            echo "docs_links: $page: link to $target: no such file" >&2
            bad=1
        fi
    done < <(awk '/^[ \t]*```/ { fence = !fence; next } !fence' "$page" |
        sed -E 's/`[^`]*`//g' | grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\(//; s/\)$//')
done < <(ls README.md python/README.md 2>/dev/null; find docs -name '*.md' | sort)
if [ "$n" -eq 0 ]; then
    echo "docs_links: found no link at all (is the pattern broken?)" >&2
    exit 2
fi
[ $bad -eq 0 ] && echo "docs_links: $n links, all to existing files"
exit $bad
