#!/bin/bash
# oshcc_test.sh BUILD_DIR - the compiler wrapper as build systems drive it:
# installed to a scratch prefix, it must build and link (libm included) a
# program with CC=oshcc, under `make CC=oshcc` and with
# cmake -DCMAKE_C_COMPILER=oshcc, never calling itself forever, and answer
# the --showme:* queries (an unknown one: status 2).
set -u
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$tmp/p" >/dev/null || fail "install"
export PATH="$tmp/p/bin:$PATH"
cat > "$tmp/x.c" <<'C'
#include <math.h>
#include <shmem.h>
#include <stdio.h>
int main(int argc, char **argv) {
    (void)argv;
    shmem_init();
    volatile double d = 2.0 + argc - 1;
    volatile long double ld = d;
    /* Both need libm (a volatile argument keeps them calls): oshcc links -lm. */
    printf("pe %d sqrt %.3f powl %.3Lf\n", shmem_my_pe(), sqrt(d), powl(ld, 0.5L));
    shmem_finalize();
    return 0;
}
C
cd "$tmp" || fail "cd"
timeout 60 env CC=oshcc oshcc x.c -o x1 || fail "CC=oshcc oshcc x.c (loop or error)"
out=$(oshrun -np 2 ./x1) || fail "run x1"
[ "$(grep -c 'sqrt 1.414 powl 1.414' <<<"$out")" = 2 ] || fail "x1 output: $out"
printf 'x2: x.c\n\t$(CC) x.c -o x2\n' > Makefile
timeout 60 make -s CC=oshcc x2 || fail "make CC=oshcc"
mkdir c && printf 'cmake_minimum_required(VERSION 3.16)\nproject(x C)\nadd_executable(x3 ../x.c)\n' > c/CMakeLists.txt
timeout 120 cmake -S c -B c/b -DCMAKE_C_COMPILER="$tmp/p/bin/oshcc" >/dev/null || fail "cmake configure with oshcc"
timeout 120 cmake --build c/b >/dev/null || fail "cmake build with oshcc"
oshrun -np 1 c/b/x3 | grep -q 'sqrt 1.414' || fail "run x3"
[ "$(oshcc --showme:libs)" = "symm pthread m" ] || fail "--showme:libs: $(oshcc --showme:libs)"
[ "$(oshcc --showme:incdirs)" = "$tmp/p/include" ] || fail "--showme:incdirs: $(oshcc --showme:incdirs)"
oshcc --showme:libdirs | grep -q "^$tmp/p/lib" || fail "--showme:libdirs"
oshcc --showme:version | grep -Eq '^symm [0-9]+\.[0-9]+' || fail "--showme:version"
oshcc --showme:nonsense 2>/dev/null; [ $? = 2 ] || fail "unknown --showme option must exit 2"
# MPICH's and Open MPI's spellings: the same answers.
for o in -show -showme --show; do
  [ "$(oshcc $o x.c)" = "$(oshcc --showme x.c)" ] || fail "$o: $(oshcc $o x.c)"
done
for o in -show:compile -showme:compile; do
  [ "$(oshcc $o)" = "$(oshcc --showme:compile)" ] || fail "$o: $(oshcc $o)"
done
[ "$(oshcc -show:link)" = "$(oshcc --showme:link)" ] || fail "-show:link: $(oshcc -show:link)"
echo "PASS: oshcc with CC=oshcc, make, cmake; --showme:* answers"
