#!/bin/bash
# runtime-packages.sh - the Debian 12 packages msjitd, msjit-worker and msjitctl need at run time
# (the container's runtime stage installs exactly these).
#
#   runtime-packages.sh                  print them, one a line
#   runtime-packages.sh --derive BIN...  print the packages that ship the shared libraries of BIN
#                                        (ldd, then dpkg -S of each library's real file)
#   runtime-packages.sh --check BIN...   exit 1 naming each such package missing from the list
#                                        (the container's build stage runs it on the installed binaries)
set -euo pipefail
shopt -s inherit_errexit  # a failure inside $(...) fails the script too

# The binaries' shared libraries, as --derive prints them on a build machine.
LIBRARIES="
libabsl20220623 libbsd0 libc-ares2 libc6 libdnnl2 libedit2 libffi8 libfmt9 libgcc-s1 libgfortran5
libgomp1 libgrpc++1.51 libgrpc29 libhiredis0.14 libicu72 libllvm16 liblzma5 libmd0 libmlir-16
libopenblas0-openmp libprotobuf32 libquadmath0 libre2-9 libspdlog1.10 libssl3 libstdc++6 libtinfo6
libxml2 libz3-4 libzstd1 ocl-icd-libopencl1 zlib1g
"
# Not libraries: a compile worker links each artifact with `cc -shared ... -lm`
# (passes/Codegen.cpp), which takes the compiler driver, the linker and libc's linker files.
TOOLS="gcc libc6-dev"
# The container's PID 1: forwards SIGTERM to msjitd and reaps what it does not.
CONTAINER="tini"

listed() { for p in $LIBRARIES $TOOLS $CONTAINER; do echo "$p"; done; }

# The package owning each library BIN loads. The real file, not the path ldd shows: a symlink on
# that path may come from a -dev package (/usr/lib/llvm-16/lib/libLLVM-16.so.1 is llvm-16-dev's).
derive() {
  local bin out libs owners lib other pkg
  libs=$(for bin in "$@"; do
    [ -x "$bin" ] || { echo "runtime-packages.sh: $bin is not an executable" >&2; exit 2; }
    out=$(ldd "$bin") || { echo "runtime-packages.sh: ldd $bin failed" >&2; exit 2; }
    if echo "$out" | grep -q 'not found'; then
      echo "runtime-packages.sh: $bin has unresolved libraries:" >&2
      echo "$out" | grep 'not found' >&2
      exit 2
    fi
    echo "$out" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'
  done | xargs -r readlink -f | sort -u)
  # usrmerge: dpkg knows a file under /lib or under /usr/lib; one dpkg -S call asks for both.
  usrmerged() { case $1 in /usr/*) echo "${1#/usr}" ;; *) echo "/usr$1" ;; esac; }
  owners=$(for lib in $libs; do echo "$lib"; usrmerged "$lib"; done | xargs -r dpkg -S 2>/dev/null || true)
  for lib in $libs; do
    other=$(usrmerged "$lib")
    pkg=$(echo "$owners" | awk -v a="$lib" -v b="$other" '$NF == a || $NF == b {sub(/:.*/, "", $1); print $1; exit}')
    [ -n "$pkg" ] || { echo "runtime-packages.sh: no package ships $lib" >&2; exit 2; }
    echo "$pkg"
  done | sort -u
}

case "${1:-}" in
  "") listed ;;
  --derive) shift; derive "$@" ;;
  --check)
    shift
    needed=$(derive "$@")
    missing=$(comm -13 <(listed | sort -u) <(echo "$needed"))
    if [ -n "$missing" ]; then
      echo "runtime-packages.sh: not listed (add them to LIBRARIES):" $missing >&2
      exit 1
    fi ;;
  -h|--help) sed -n '2,10p' "$0" ;;
  *) echo "runtime-packages.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac
