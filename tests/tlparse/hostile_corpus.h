// The hostile corpus (docs/SECURITY.md): logs an attacker or a careless user could hand to
// tlparse, generated here rather than committed as binary blobs. Each case says what a correct
// run gives (exit status, the events that must be indexed, the counters that must say what
// happened); hostile_corpus_test.cpp runs every case through the tlparse binary and adds the
// checks that hold for all of them (nothing outside OUT, no executable markup in any page, no raw
// control byte on the terminal). The big shapes (a million events, a 100k-frame stack) are written
// by the same code for scripts/bench-hostile-memory.sh, outside the unit tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace hostile {

// One log line as PyTorch writes it: glog prefix, envelope, newline.
std::string line(std::string_view envelope);
// An envelope line and its payload lines. `head` is the envelope without its closing brace;
// has_payload is the payload's MD5 unless `declared` is given.
std::string with_payload(std::string_view head, std::string_view payload,
                         std::string_view declared = {});
// `"frame_id": F, "frame_compile_id": C, "attempt": 0`
std::string cid(int64_t frame, int64_t compile);

struct Expect {
  int exit_code = 0;
  // Events indexed with status ok (tlparse's `ok`); -1: not checked.
  int64_t ok_events = -1;
  // Data-health counters (and tlparse's, by the same names) that must have these values.
  std::map<std::string, int64_t> counters;
  // Files that must exist in OUT (relative paths).
  std::vector<std::string> files;
};

struct Case {
  std::string name; // what the case attacks
  std::string log;  // written to in/case.log (unless `setup` makes the input itself)
  // Builds anything beyond the log in the input folder `in` (symlinks, FIFOs, files outside).
  std::function<void(const std::filesystem::path& in)> setup;
  // The arguments before `-o out`; default {"in/case.log"}.
  std::vector<std::string> args;
  Expect expect;
};

// Every log case, in a fixed order.
std::vector<Case> log_cases();

// The big shapes of the memory benchmark, written to `out` as one log:
//   small-events N   N small artifacts of one compile, each its own output file
//   compile-ids N    N compiles with one small artifact each
//   deep-stack N     one line (about 120 bytes a frame) holding an N-frame stack
//   str-max          a string-table entry at index 4194303, then a stack using it
// False when the shape is unknown.
bool write_shape(std::string_view shape, uint64_t n, std::ostream& out);

} // namespace hostile
