// Entry point of the `tlparse` executable; everything lives in cli.cpp so tests can reach it.
#include "cli/cli.h"

#include <malloc.h>

int main(int argc, char** argv) {
  // glibc raises its mmap threshold each time a large block is freed (up to 32 MB), after which
  // large blocks come from the heaps of the threads that freed them and stay resident: a
  // --all-ranks-html run of 32 ranks peaked at 147 MB for about 55 MB in use, and grew with
  // every rank rendered. A fixed threshold keeps blocks of 256 KB and more mapped, returned to
  // the system when freed (docs/TLPARSE-MULTI-RANK.md, Performance).
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  return tlparse::cli::run(argc, argv);
}
