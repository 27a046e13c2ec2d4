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
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace tlparse::report::detail {

// Renames the colliding paths of `outputs` in place (links are URLs, not files, and are left
// alone; so are paths the output folder refuses anyway). Returns how many outputs were renamed.
std::size_t rename_colliding_outputs(std::vector<index::Output>& outputs);

// What a render does to a file's outputs before writing them, decided from the index without
// holding its outputs (docs/SECURITY.md, "Memory"): the same renames as
// rename_colliding_outputs, and which outputs a later one overwrites (tlparse's last write wins).
struct OutputPlan {
  std::unordered_map<std::string, std::string> renamed; // old path -> new path (few: collisions)
  std::vector<std::int64_t> overwritten;                // seqs of skipped outputs, ascending
  std::size_t renamed_outputs = 0;                      // how many outputs the renames move

  // Gives `o` its new path, if it has one.
  void apply(index::Output& o) const;
  // Whether the output at `seq` is rewritten by a later one (so it is not written).
  bool is_overwritten(std::int64_t seq) const;
};
// Reads the index's sorted output paths once (SQLite sorts them on disk); the paths that collide
// are then renamed with the index answering "is this name taken?" through an indexed temporary
// table (built only when some name collides).
Result<OutputPlan> plan_outputs(const index::IndexReader& reader, std::int64_t file_id);

} // namespace tlparse::report::detail
