// Output names that cannot all exist at once. A log (or a tampered index) may name one output `x`
// and another `x/y` (a dump_file `x.html` and `x.html/y.html`; an artifact `k_0.txt` and
// `k_0.txt/deeper_1.txt`), or name an output like one of the report's own files (`index.html`).
// Writing them as named would fail the whole run, so before anything is written such outputs are
// renamed: a file another output needs as a folder becomes `<stem>_collision<N><ext>`, an output
// that needs one of the report's own files as a folder (or replaces one) moves to
// `collisions/<its path with '/' as '_'>`. The rule is deterministic, so `tlparse --overwrite`
// lists the same names when it reads the previous report's index. Counted as output_name_collision
// (docs/SECURITY.md).
#pragma once

#include "tlparse/index/index_reader.h"

#include <cstddef>
#include <vector>

namespace tlparse::report::detail {

// Renames the colliding paths of `outputs` in place (links are URLs, not files, and are left
// alone; so are paths the output folder refuses anyway). Returns how many outputs were renamed.
std::size_t rename_colliding_outputs(std::vector<index::Output>& outputs);

} // namespace tlparse::report::detail
