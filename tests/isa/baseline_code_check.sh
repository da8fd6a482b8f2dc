#!/bin/sh
# Checks a portable build's library (CDENS_ISA_DISPATCH): outside the AVX2 and AVX-512 copies of
# the vector loops (functions whose names end in .isa_avx2 or .isa_avx512, which only run on a CPU
# that has them), no function uses an AVX instruction (VEX or EVEX encoded: a mnemonic beginning
# with v, or a ymm, zmm or mask register), so the library runs on any x86-64 CPU. It fails, for
# example, when the linker hands baseline code a template instantiation compiled for AVX-512.
#
#   baseline_code_check.sh LIBRARY [OBJDUMP]
set -eu
library=$1
objdump=${2:-objdump}
"$objdump" -d --no-show-raw-insn "$library" | awk '
  /^[0-9a-f]+ <.*>:$/ {
    name = substr($2, 2, length($2) - 3)
    wide = name ~ /\.isa_avx(2|512)$/
    next
  }
  !wide && /^ +[0-9a-f]+:\t/ {
    instruction = $0
    sub(/^ +[0-9a-f]+:\t/, "", instruction)
    if (instruction ~ /^v[a-z]/ || instruction ~ /%[yz]mm|%k[0-7]/) {
      if (!(name in reported)) {
        reported[name] = 1
        print name ": " instruction
        ++count
      }
    }
  }
  END {
    if (count > 0) {
      print count " functions outside the AVX2 and AVX-512 copies use AVX instructions"
      exit 1
    }
    print "no AVX instruction outside the AVX2 and AVX-512 copies"
  }'
