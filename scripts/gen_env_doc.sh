#!/bin/bash
# gen_env_doc.sh [ENV_DEF_H] - print docs/environment.md, the reference of
# every environment variable, generated from the X-macro table of
# src/runtime/env_def.h (the default), on stdout:
#
#   scripts/gen_env_doc.sh src/runtime/env_def.h > docs/environment.md
#
# The ctest docs_env_reference (tests/docs.cmake) regenerates it and fails
# with a diff when the committed docs/environment.md is out of date.
#
# Rows are read from the bodies of the macros named SYMM_ENV_* but
# SYMM_ENV_ALIASES (the per-component tables, SYMM_ENV_CORE, _BOOT, ...;
# SYMM_ENV_TABLE, which only names them, adds no row), as calls X(...): arguments split at top-level
# commas, with parentheses balanced and string literals (adjacent ones
# concatenated) kept whole, wherever the lines break. NAME is the first
# argument, KIND the second, VIS the third, DEFAULT the second-to-last and
# HELP the last, so a column added between VIS and DEFAULT (a component, the
# struct field) changes nothing here. SYMM_ENV_ALIASES gives the legacy
# names: X(ALIAS, NAME, ...).
set -eu
in=${1:-src/runtime/env_def.h}
[ -r "$in" ] || { echo "gen_env_doc: cannot read $in" >&2; exit 2; }

awk -v src="$in" '
# Logical lines: a trailing backslash joins the next line.
{
    line = $0
    if (cont != "")
        line = cont " " line
    if (line ~ /\\$/) {
        cont = substr(line, 1, length(line) - 1)
        next
    }
    cont = ""
    logical[nl++] = line
}

# The text of a string literal s (quotes included) as printed by C.
function unquote(s,    out, i, c) {
    out = ""
    for (i = 2; i < length(s); i++) {
        c = substr(s, i, 1)
        if (c == "\\") {
            i++
            c = substr(s, i, 1)
            if (c == "n" || c == "t")
                c = " "
        }
        out = out c
    }
    return out
}

# Split the X(...) calls of body into rows[r, k] (k = 1..nargs[r]); an
# argument made of string literals only is their concatenated text, any
# other is its trimmed source text.
function parse_rows(body, table,    i, n, c, p, depth, arg, strs, nonstr, k, lit, j) {
    n = length(body)
    i = 1
    while (i <= n) {
        c = substr(body, i, 1)
        if (c == "\"") { # a string outside any X( call: skip it
            for (i++; i <= n && substr(body, i, 1) != "\""; i++)
                if (substr(body, i, 1) == "\\")
                    i++
            i++
            continue
        }
        if (c == "/" && substr(body, i + 1, 1) == "*") {
            p = index(substr(body, i + 2), "*/")
            i = p ? i + p + 3 : n + 1
            continue
        }
        p = (i > 1) ? substr(body, i - 1, 1) : " "
        if (c == "X" && p !~ /[A-Za-z0-9_]/ && substr(body, i + 1) ~ /^[ \t]*\(/) {
            i = index(substr(body, i), "(") + i
            nr++
            table_of[nr] = table
            k = 0
            depth = 0
            arg = ""
            strs = ""
            nonstr = 0
            while (i <= n) {
                c = substr(body, i, 1)
                if (c == "\"") {
                    lit = c
                    for (j = i + 1; j <= n; j++) {
                        c = substr(body, j, 1)
                        lit = lit c
                        if (c == "\\") {
                            j++
                            lit = lit substr(body, j, 1)
                        } else if (c == "\"")
                            break
                    }
                    arg = arg lit
                    strs = strs unquote(lit)
                    i = j + 1
                    continue
                }
                if (c == "/" && substr(body, i + 1, 1) == "*") {
                    p = index(substr(body, i + 2), "*/")
                    i = p ? i + p + 3 : n + 1
                    continue
                }
                if (c == "(")
                    depth++
                if ((c == "," || c == ")") && depth == 0) {
                    gsub(/^[ \t]+|[ \t]+$/, "", arg)
                    rows[nr, ++k] = nonstr ? arg : strs
                    isstr[nr, k] = !nonstr
                    arg = ""
                    strs = ""
                    nonstr = 0
                    i++
                    if (c == ")")
                        break
                    continue
                }
                if (c == ")")
                    depth--
                if (c !~ /[ \t]/)
                    nonstr = 1
                arg = arg c
                i++
            }
            nargs[nr] = k
            continue
        }
        i++
    }
}

# Markdown table cell text.
function cell(s) {
    gsub(/\|/, "\\|", s)
    gsub(/</, "\\&lt;", s)
    return s
}

function code(s) {
    return s == "" ? "" : "`" s "`"
}

END {
    for (l = 0; l < nl; l++) {
        line = logical[l]
        if (line ~ /^[ \t]*#[ \t]*define[ \t]+SYMM_ENV_[A-Z0-9_]*[ \t]*\(/ &&
            line !~ /^[ \t]*#[ \t]*define[ \t]+SYMM_ENV_ALIASES[ \t]*\(/) {
            name = line
            sub(/^[ \t]*#[ \t]*define[ \t]+/, "", name)
            sub(/[ \t]*\(.*/, "", name)
            parse_rows(substr(line, index(line, ")") + 1), name)
        } else if (line ~ /^[ \t]*#[ \t]*define[ \t]+SYMM_ENV_ALIASES[ \t]*\(/) {
            parse_rows(substr(line, index(line, ")") + 1), "ALIASES")
        } else if (line ~ /^[ \t]*#[ \t]*define[ \t]+[A-Z0-9_]+_CHOICES[ \t]*\(/) {
            # An ENUM row'"'"'s values: the string literals of Y(E, "value") calls.
            name = line
            sub(/^[ \t]*#[ \t]*define[ \t]+/, "", name)
            sub(/_CHOICES[ \t]*\(.*/, "", name)
            rest = substr(line, index(line, ")") + 1)
            list = ""
            while (match(rest, /"[^"]*"/)) {
                list = list (list == "" ? "" : ", ") "`" substr(rest, RSTART + 1, RLENGTH - 2) "`"
                rest = substr(rest, RSTART + RLENGTH)
            }
            choices[name] = list
        }
    }
    nuser = nhidden = nalias = 0
    for (r = 1; r <= nr; r++) {
        if (table_of[r] == "ALIASES") {
            if (nargs[r] >= 2)
                alias[++nalias] = r
            continue
        }
        if (nargs[r] < 5) {
            printf "gen_env_doc: %s: a row of %s has %d arguments, not NAME, KIND, VIS, ..., DEFAULT, HELP\n",
                src, table_of[r], nargs[r] > "/dev/stderr"
            bad = 1
            continue
        }
        nm = rows[r, 1]
        if (nm in seen)
            continue
        seen[nm] = 1
        if (rows[r, 3] == "HIDDEN")
            hidden[++nhidden] = r
        else
            user[++nuser] = r
    }
    if (bad)
        exit 2
    if (nuser == 0) {
        printf "gen_env_doc: %s: no X(NAME, KIND, VIS, ..., DEFAULT, HELP) rows in a SYMM_ENV_TABLE macro\n",
            src > "/dev/stderr"
        exit 2
    }

    print "<!-- Generated by scripts/gen_env_doc.sh from src/runtime/env_def.h: do not edit."
    print "     Regenerate: scripts/gen_env_doc.sh src/runtime/env_def.h > docs/environment.md"
    print "     (the ctest docs_env_reference fails while this file is out of date). -->"
    print ""
    print "# Environment variables"
    print ""
    print "Every variable symm reads, in symm itself, `oshrun`, `oshcc`, `oshfort` and the Python"
    print "package, is a row of one table, `src/runtime/env_def.h`; this page, the"
    print "`SHMEM_INFO=1` print-out at start-up (PE 0, on stderr, after a first line"
    print "`symm: version ... (OpenSHMEM 1.5)`) and `symm-info` (every variable with"
    print "its current value) are generated from it. The ctest `env_table` fails when"
    print "a `getenv` in `src/`, `tools/` or `python/symm` names a variable that is"
    print "not in it."
    print ""
    print "Kinds: `SIZE` is bytes with an optional K, M, G or T suffix; `BOOL` is 0 or"
    print "1; `INT` and `DOUBLE` are numbers; `STR` is text (read by the component"
    print "named at the start of its meaning where that is not the library);"
    print "`SECRET` is a string that `SHMEM_INFO` and `symm-info` never print;"
    print "a variable whose kind lists its values takes one of them, and any other"
    print "value fails init on every PE, naming the values."
    print "The user guide explains the variables in context: see [the index](README.md)."
    print "UCX'\''s own variables (`UCX_TLS`, `UCX_NET_DEVICES`, ...) pass through to UCX."
    print ""
    print "| variable | kind | default | meaning |"
    print "|---|---|---|---|"
    for (i = 1; i <= nuser; i++) {
        r = user[i]
        kind = rows[r, 2]
        if (kind == "ENUM")
            kind = "one of " choices[rows[r, 1]]
        printf "| `%s` | %s | %s | %s |\n", rows[r, 1], kind,
            cell(code(rows[r, nargs[r] - 1])), cell(rows[r, nargs[r]])
    }
    if (nalias > 0) {
        print ""
        print "## Legacy names"
        print ""
        print "SGI SHMEM'\''s `SMA_` names, still read by SOS and Open MPI'\''s oshmem, are"
        print "read when the `SHMEM_` name is unset; when both are set the `SHMEM_` one"
        print "wins, with a warning if they disagree."
        print ""
        print "| legacy name | same as |"
        print "|---|---|"
        for (i = 1; i <= nalias; i++)
            printf "| `%s` | `%s` |\n", rows[alias[i], 1], rows[alias[i], 2]
    }
    if (nhidden > 0) {
        print ""
        print "## Internal"
        print ""
        print "Set by `oshrun` for its PEs (and by `oshcc` and `oshfort` for themselves), not by users;"
        print "`SHMEM_INFO` and `symm-info` list them only with `SYMM_LOG_LEVEL=3`."
        print ""
        print "| variable | meaning |"
        print "|---|---|"
        for (i = 1; i <= nhidden; i++) {
            r = hidden[i]
            printf "| `%s` | %s |\n", rows[r, 1], cell(rows[r, nargs[r]])
        }
    }
}
' "$in"
