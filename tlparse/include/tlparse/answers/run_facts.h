// A run seen as frames and their compiles, read from an index through the read API: what
// `tlparse check` gates on and `tlparse diff` compares. Frames are keyed by where they are in the
// user's code (code object file, line and name; else the innermost user frame), never by raw
// ids, so two runs of one program line up even when frame ids differ.
#pragma once

#include "tlparse/index/index_reader.h"
#include "tlparse/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tlparse::answers {

struct CompileFacts {
  std::string display; // [0/1], as PyTorch prints it
  index::CompileStatus status = index::CompileStatus::missing;
  std::optional<double> total_s, backend_s, inductor_s, code_gen_s;
  index::CacheState cache_state = index::CacheState::none;
  int64_t cache_hits = 0, cache_misses = 0, cache_bypasses = 0;
  std::optional<std::string> fail_type, fail_reason;
  std::vector<std::string> recompile_guards; // why it happened (guards that failed)
  // The payloads compared between runs: the captured graph and the guards (md5 as declared,
  // event to read the text from); empty when not logged.
  std::string graph_md5, guards_md5;
  std::optional<int64_t> graph_event, guards_event;
};

struct FrameFacts {
  std::string location; // "f (model.py:12)"; "frame 3" when nothing better is known
  std::optional<int64_t> frame_id;
  std::vector<CompileFacts> compiles; // in compile order
};

// A distinct graph break of a run.
struct BreakFacts {
  std::string reason, location; // location "model.py:12" or ""
  int64_t count = 0;
};

struct RunFacts {
  std::string label;              // rank N, or the file name
  std::vector<FrameFacts> frames; // first-seen order
  std::vector<BreakFacts> graph_breaks;
  int64_t compiles = 0, recompiles = 0, graph_break_count = 0, failures = 0;
  int64_t cache_hits = 0, cache_misses = 0;
  double compile_time_s = 0; // sum of the compiles' entire_frame_compile_time_s
};

// The facts of one file of an index.
Result<RunFacts> run_facts(const index::IndexReader& reader, const index::File& file);

// A frame's label: "f (model.py:12)" from a compile's code object or user location.
std::string frame_location(const index::Compile& c);

} // namespace tlparse::answers
