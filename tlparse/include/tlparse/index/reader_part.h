// What the parts of the read API share. IndexReader (index_reader.h) is the one door to an index;
// its queries are declared and implemented by concern, one part each: compiles and their facts
// (compiles_reader.h), outputs, events and payloads (outputs_reader.h), spans (spans_reader.h),
// and the answers: views, SQL and search (answers_reader.h). A part is no reader of its own: only
// the door opens an index, and every part reads through the door's one connection. A caller that
// needs one concern may take that part by reference (`const SpansReader&`).
#pragma once

#include "tlparse/index/schema.gen.h"
#include "tlparse/model/compile_id.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tlparse::index {

using model::CompileId;
using StackFrames = std::vector<StackFrame>;

// Where a per-event row comes from.
struct EventRef {
  int64_t event_id = 0;
  int64_t line = 0;
  std::optional<CompileId> cid;  // raw id of the event
  std::optional<int64_t> key_id; // compile-directory entry (processed events)
};

namespace detail {
// The door's connection, statement cache and row readers (src/index/reader_core.h).
struct ReaderCore;
} // namespace detail

// The base of each part: the door's connection, which outlives the parts (the door owns it).
class ReaderPart {
public:
  ReaderPart(const ReaderPart&) = delete;
  ReaderPart& operator=(const ReaderPart&) = delete;

protected:
  explicit ReaderPart(detail::ReaderCore* core) : core_(core) {}
  ~ReaderPart() = default;
  detail::ReaderCore* core_;
};

} // namespace tlparse::index
