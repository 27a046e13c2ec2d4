// Chromium trace events: the B/E pairs of ChromiumSpan (PyTorch's dynamo_timed) and single
// events, written as `chromium_event` payloads in PyTorch's layout.
#include "event_builder.h"

#include <ctime>

namespace tracer {

namespace detail {

namespace {

// `extra` holds `"k": v` members separated by '\n' (ChromiumSpan's end args).
void write_serialised_members(JsonWriter& w, const void* context) {
  std::string_view rest = *static_cast<const std::string_view*>(context);
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    w.raw(rest.substr(0, nl));
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
  }
}

// Starts the next `"key": ` of ChromiumSpan's end args (one member per line).
void append_end_arg_key(std::string& end_args, std::string_view key) {
  if (!end_args.empty()) {
    end_args.push_back('\n');
  }
  JsonWriter::append_escaped(end_args, key);
  end_args.append(": ");
}

} // namespace

void emit_chromium_event(std::string_view name, std::string_view ph, const CallSite& at,
                         ChromiumArgsWriter write_args, const void* context) {
  if (!enabled()) {
    return;
  }
  const CompileId* id = current_compile_id();
  write_event(begin_event_at("chromium_event", at), no_metadata, [&](std::string& out) {
    JsonWriter w(out, JsonWriter::Layout::Indent0);
    w.begin_object().member("name", name).member("ts", now_us());
    w.key("args").begin_object();
    // PyTorch puts the compile id after the timing counters on E, first on B.
    const bool end = ph == "E";
    if (end && id) {
      w.member("compile_id", id->trace_id_text());
    }
    if (write_args != nullptr) {
      write_args(w, context);
    }
    if (!end && id) {
      w.member("compile_id", id->trace_id_text());
    }
    w.end_object();
    w.member("ph", ph).member("cat", "dynamo_timed").member("tid", 0).member("pid", 0);
    w.end_object();
  });
}

} // namespace detail

double now_us() noexcept {
  struct timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

void chromium_event(std::string_view name, std::string_view ph, std::string_view extra_args,
                    SourceLocation where) {
  detail::emit_chromium_event(name, ph, detail::CallSite::from(where),
                              extra_args.empty() ? nullptr : &detail::write_serialised_members,
                              &extra_args);
}

ChromiumSpan::ChromiumSpan(std::string_view name, SourceLocation where)
    : active_(enabled()), where_(where) {
  if (active_) {
    name_ = name;
    chromium_event(name_, "B", {}, where_);
  }
}

ChromiumSpan::~ChromiumSpan() {
  if (active_) {
    chromium_event(name_, "E", end_args_, where_);
  }
}

void ChromiumSpan::add_end_arg(std::string_view key, double value) {
  if (active_) {
    detail::append_end_arg_key(end_args_, key);
    JsonWriter::append_python_float(end_args_, value);
  }
}

void ChromiumSpan::add_end_arg(std::string_view key, std::string_view value) {
  if (active_) {
    detail::append_end_arg_key(end_args_, key);
    JsonWriter::append_escaped(end_args_, value);
  }
}

} // namespace tracer
