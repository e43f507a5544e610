#!/bin/bash
# oshfort_test.sh BUILD_DIR SRC_DIR - the Fortran wrapper as users and
# build systems drive it: installed to a scratch prefix, with shmem.fh and
# mpp/shmem.fh beside shmem.h, it must answer the --showme:* queries (an
# unknown one: status 2), print a command with --showme, build and run a
# free-form and a fixed-form program (SRC_DIR/f_fixed.f), and build with
# FC=oshfort, under `make FC=oshfort` and with
# cmake -DCMAKE_Fortran_COMPILER=oshfort, never calling itself forever.
set -u
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$tmp/p" >/dev/null || fail "install"
for f in bin/oshfort include/shmem.fh include/mpp/shmem.fh; do
  [ -e "$tmp/p/$f" ] || fail "$f not installed"
done
cmp -s "$tmp/p/include/shmem.fh" "$tmp/p/include/mpp/shmem.fh" || fail "mpp/shmem.fh differs from shmem.fh"
export PATH="$tmp/p/bin:$PATH"
cd "$tmp" || fail "cd"

[ "$(oshfort --showme:libs)" = "symm pthread m" ] || fail "--showme:libs: $(oshfort --showme:libs)"
[ "$(oshfort --showme:incdirs)" = "$tmp/p/include" ] || fail "--showme:incdirs: $(oshfort --showme:incdirs)"
[ "$(oshfort --showme:compile)" = "-I$tmp/p/include" ] || fail "--showme:compile: $(oshfort --showme:compile)"
oshfort --showme:libdirs | grep -q "^$tmp/p/lib" || fail "--showme:libdirs"
oshfort --showme:link | grep -Eq -- "^-L$tmp/p/lib[^ ]* -Wl,-rpath,$tmp/p/lib[^ ]* -lsymm" || fail "--showme:link: $(oshfort --showme:link)"
oshfort --showme:version | grep -Eq '^symm [0-9]+\.[0-9]+.*Fortran' || fail "--showme:version"
oshfort --showme:nonsense 2>/dev/null; [ $? = 2 ] || fail "unknown --showme option must exit 2"
show=$(oshfort --showme x.f90 -o x) || fail "--showme"
case "$show" in
  *" -I$tmp/p/include x.f90 -o x -L$tmp/p/lib"*"-lsymm -lpthread -lm") ;;
  *) fail "--showme x.f90 -o x: $show" ;;
esac
case "$(oshfort --showme -c x.f90)" in
  *-lsymm*) fail "--showme -c links: $(oshfort --showme -c x.f90)" ;;
esac
# The relocatable prefix: a moved tree answers with its new place.
cp -a "$tmp/p" "$tmp/moved"
[ "$(SYMM_FC= "$tmp/moved/bin/oshfort" --showme:incdirs)" = "$tmp/moved/include" ] || fail "moved prefix"
rm -rf "$tmp/moved"

# A header with its function declarations on (SYMM_FORTRAN_LONG_HEADER)
# rejects programs that declare them too, as f_fixed.f does.
long=no
grep -q 'declarations on' "$tmp/p/include/shmem.fh" && long=yes
decl='  integer :: shmem_my_pe, shmem_n_pes'
[ $long = yes ] && decl=''
cat > x.f90 <<F
program x
  implicit none
  include 'shmem.fh'
$decl
  integer, save :: v
  integer :: w
  call shmem_init()
  v = shmem_my_pe()
  call shmem_barrier_all()
  call shmem_integer_get(w, v, 1, mod(shmem_my_pe() + 1, shmem_n_pes()))
  print '(a,i0,a,i0)', 'pe ', shmem_my_pe(), ' got ', w
  call shmem_finalize()
end program x
F
timeout 60 oshfort x.f90 -o x1 || fail "oshfort x.f90"
out=$(oshrun -np 2 ./x1) || fail "run x1"
grep -q 'pe 0 got 1' <<<"$out" && grep -q 'pe 1 got 0' <<<"$out" || fail "x1 output: $out"
if [ $long = no ]; then
  timeout 60 oshfort -c "$src/f_fixed.f" -o f.o || fail "oshfort -c f_fixed.f"
  timeout 60 oshfort f.o -o fixed || fail "oshfort link f.o"
  oshrun -np 2 ./fixed | grep -q 'PASS: f_fixed at 2 PEs' || fail "run fixed"
fi
timeout 60 env FC=oshfort oshfort x.f90 -o x2 || fail "FC=oshfort oshfort x.f90 (loop or error)"
timeout 60 env SYMM_FC=oshfort oshfort x.f90 -o x2 || fail "SYMM_FC=oshfort oshfort x.f90 (loop or error)"
printf 'x3: x.f90\n\t$(FC) x.f90 -o x3\n' > Makefile
timeout 60 make -s FC=oshfort x3 || fail "make FC=oshfort"
oshrun -np 1 ./x3 | grep -q 'pe 0 got 0' || fail "run x3"
mkdir c && printf 'cmake_minimum_required(VERSION 3.16)\nproject(x Fortran)\nadd_executable(x4 ../x.f90)\n' > c/CMakeLists.txt
timeout 120 cmake -S c -B c/b -DCMAKE_Fortran_COMPILER="$tmp/p/bin/oshfort" >/dev/null || fail "cmake configure with oshfort"
timeout 120 cmake --build c/b >/dev/null || fail "cmake build with oshfort"
oshrun -np 2 c/b/x4 | grep -q 'pe 1 got 0' || fail "run x4"
echo "PASS: oshfort --showme:*, free and fixed form, FC=oshfort, make, cmake"
