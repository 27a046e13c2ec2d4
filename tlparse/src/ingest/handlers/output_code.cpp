// inductor_output_code: `inductor_output_code_<file stem>_<N>.html` (highlighted by the
// renderer), or `.txt` with the raw payload under -p/--plain-text.
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_model.h"

namespace tlparse::handlers::output {
namespace {
bool validate(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(parser, metadata, {{"filename", "str", false}});
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
  const auto filename = string_field(ctx.model.parser(), ctx.metadata, "filename");
  std::string stem = "inductor_output_code";
  if (filename) {
    const std::string fs = file_stem(*filename);
    if (!fs.empty()) {
      stem += "_" + fs;
    }
  }
  if (ctx.model.options().plain_text) {
    ctx.model.add_compile_file(ctx, stem, "txt", index::OutputKind::payload_text, true,
                               model::FileModel::Readable::none, "inductor_output_code");
  } else {
    ctx.model.add_compile_file(ctx, stem, "html", index::OutputKind::output_code_html, false,
                               model::FileModel::Readable::none, "inductor_output_code");
  }
}
} // namespace

const Handler output_code{&validate, &handle};

} // namespace tlparse::handlers::output
