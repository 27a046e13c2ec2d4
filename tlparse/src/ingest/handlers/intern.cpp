// str: `{"str": ["<text>", <index>]}` binds an index to a string of the file's string table (the
// file names of stack frames; docs/TLPARSE-INGEST.md, "Interned strings"). The line is handled
// before its payload and the rank filter and ends there (Flow::whole_line): never `ok`, never a
// raw.jsonl row. A value that is not a [string, u32] pair is fail_json.
#include "ingest/envelope/envelope.h"
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"

#include <climits>

namespace tlparse::ingest::handlers::output {
namespace {

void intern_string(EventContext& ctx) {
  auto& parser = ctx.file.parser();
  simdjson::ondemand::document doc;
  simdjson::ondemand::array arr;
  std::string_view s;
  uint64_t idx = 0;
  bool ok = false;
  if (open_array(parser, ctx.metadata, doc, arr)) {
    std::string value;
    size_t pos = 0;
    bool good = true;
    for (auto item : arr) {
      if (pos == 0) {
        good = good && !item.get_string().get(s);
        if (good) {
          value.assign(s);
        }
      } else if (pos == 1) {
        good = good && !item.get_uint64().get(idx) && idx <= UINT32_MAX;
      } else {
        good = false;
      }
      ++pos;
      if (!good) {
        break;
      }
    }
    if (good && pos == 2) {
      ok = true;
      ctx.file.intern(static_cast<int64_t>(idx), std::move(value), ctx.line);
    }
  }
  if (!ok) {
    ++ctx.file.stats().fail_json;
    ctx.file.count(index::HealthId::fail_json, ctx.line, ctx.envelope);
  }
}

} // namespace

// Checked when interning, not before: a bad value is fail_json once, and the line still ends.
const Handler intern{nullptr, &intern_string, Flow::whole_line};

} // namespace tlparse::ingest::handlers::output
