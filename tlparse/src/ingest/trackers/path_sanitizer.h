// Output names that come from log data (artifact names, graph_dump names, has_payload digests,
// output-code file stems) must never write outside the output folder. The rule (documented in
// docs/TLPARSE-INGEST.md, "Output names from log data"):
//  - a name is kept as tlparse 0.4.3 would write it when every '/'-separated segment is
//    non-empty, not "." or "..", at most 200 bytes, valid UTF-8, and free of NUL, control
//    characters and '\\'; the whole name is at most 1000 bytes and does not start with '/';
//  - otherwise it is replaced by a mangled name: unsafe bytes, '/' and '.' become '_', the result
//  is
//    cut to 100 bytes and suffixed with "-" and 8 hex digits of a hash of the original, so two
//    different unsafe names never collide in practice and the same name always maps the same way.
#pragma once

#include <string>
#include <string_view>

namespace tlparse::ingest {

struct SanitisedName {
  std::string name;
  bool changed = false;
};

SanitisedName sanitise_output_name(std::string_view raw);

} // namespace tlparse::ingest
