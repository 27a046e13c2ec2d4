// inductor_output_code: `inductor_output_code_<file stem>_<N>.html` (highlighted by the
// renderer), or `.txt` with the raw payload under -p/--plain-text.
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"

namespace tlparse::ingest::handlers::output {
namespace {
bool validate(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata, {{"filename", "str", false}});
}

// Rust's Path::file_stem: the last component without its last extension ("a.tar.gz" ->
// "a.tar"; ".bashrc" stays ".bashrc").
std::string file_stem(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') {
    path.remove_suffix(1);
  }
  const size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (name == "..") {
    return std::string(name);
  }
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) {
    return std::string(name);
  }
  return std::string(name.substr(0, dot));
}

void handle(EventContext& ctx) {
  const auto filename = string_field(ctx.file.parser(), ctx.metadata, "filename");
  std::string stem = "inductor_output_code";
  if (filename) {
    const std::string fs = file_stem(*filename);
    if (!fs.empty()) {
      stem += "_" + fs;
    }
  }
  if (ctx.file.options().plain_text) {
    ctx.file.add_compile_file(ctx, stem, "txt", index::OutputKind::payload_text, true,
                              FileState::Readable::none, "inductor_output_code");
  } else {
    ctx.file.add_compile_file(ctx, stem, "html", index::OutputKind::output_code_html, false,
                              FileState::Readable::none, "inductor_output_code");
  }
}
} // namespace

const Handler output_code{&validate, &handle};

} // namespace tlparse::ingest::handlers::output
