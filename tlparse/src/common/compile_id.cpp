// Compile-id spelling rules of tlparse 0.4.3 (docs/TLPARSE-INGEST.md, "Compile ids").
#include "tlparse/compile_id.h"

namespace tlparse {
namespace {
void append_part(std::string& out, const std::optional<uint32_t>& v) {
  if (v) {
    out += std::to_string(*v);
  } else {
    out += '-';
  }
}
} // namespace

std::string display_name(const CompileId& id) {
  std::string out = "[";
  if (id.compiled_autograd_id) {
    out += '!';
    out += std::to_string(*id.compiled_autograd_id);
    out += '/';
  }
  append_part(out, id.frame_id);
  out += '/';
  append_part(out, id.frame_compile_id);
  if (id.attempt && *id.attempt != 0) {
    out += '_';
    out += std::to_string(*id.attempt);
  }
  out += ']';
  return out;
}

std::string directory_name(const CompileId& id) {
  std::string out;
  append_part(out, id.compiled_autograd_id);
  out += '_';
  append_part(out, id.frame_id);
  out += '_';
  append_part(out, id.frame_compile_id);
  out += '_';
  append_part(out, id.attempt);
  return out;
}

CompileId collapsed_key(const CompileId& id) {
  CompileId out = id;
  if (out.frame_compile_id && !out.attempt) {
    out.attempt = 0;
  }
  return out;
}

CompileId attempt_forced_to_zero(const CompileId& id) {
  CompileId out = id;
  if (out.frame_compile_id) {
    out.attempt = 0;
  }
  return out;
}

} // namespace tlparse
