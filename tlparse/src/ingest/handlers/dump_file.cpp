// dump_file: a global, line-numbered source page `dump_file/eval_with_key_<id>.html` when the
// name contains `<eval_with_key>.<digits>` (tlparse's regex search), else
// `dump_file/<name>.html` with the name sanitised.
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"
#include "ingest/trackers/path_sanitizer.h"

namespace tlparse::ingest::handlers::output {
namespace {
bool validate(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata, {{"name", "str", true}});
}

std::optional<std::string> eval_with_key_id(std::string_view name) {
  static constexpr std::string_view kMarker = "<eval_with_key>.";
  size_t pos = 0;
  while ((pos = name.find(kMarker, pos)) != std::string_view::npos) {
    size_t k = pos + kMarker.size();
    const size_t start = k;
    while (k < name.size() && name[k] >= '0' && name[k] <= '9') {
      ++k;
    }
    if (k > start) {
      return std::string(name.substr(start, k - start));
    }
    pos += 1;
  }
  return std::nullopt;
}

void handle(EventContext& ctx) {
  const auto name = string_field(ctx.file.parser(), ctx.metadata, "name").value_or("");
  std::string path;
  if (auto id = eval_with_key_id(name)) {
    path = "dump_file/eval_with_key_" + *id + ".html";
  } else {
    const auto safe = sanitise_output_name(name);
    if (safe.changed) {
      ctx.file.count(index::HealthId::unsafe_output_name, ctx.line, name);
    }
    path = "dump_file/" + safe.name + ".html";
  }
  ctx.file.add_global_file(ctx, path, index::OutputKind::dump_file_html);
}
} // namespace

const Handler dump_file_html{&validate, &handle};

} // namespace tlparse::ingest::handlers::output
