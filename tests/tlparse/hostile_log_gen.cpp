// Writes one big shape of the hostile corpus (hostile_corpus.h) for the memory benchmark:
//   hostile_log_gen SHAPE N OUT.log      (scripts/bench-hostile-memory.sh runs it)
#include "hostile_corpus.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: hostile_log_gen small-events|compile-ids|deep-stack|str-max N "
                         "OUT.log\n");
    return 2;
  }
  std::ofstream out(argv[3], std::ios::binary);
  if (!hostile::write_shape(argv[1], std::strtoull(argv[2], nullptr, 10), out)) {
    std::fprintf(stderr, "unknown shape %s\n", argv[1]);
    return 2;
  }
  out.close();
  return out ? 0 : 1;
}
