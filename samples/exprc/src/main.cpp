// exprc: compiles the functions of an .expr program at their first call, specialised on the
// argument types, and runs the calls; each compile is traced with torchscope's tracer the way
// PyTorch traces torch.compile, so that `tlparse` shows the stack of every compile, its graph
// after each pass, its generated code, its guards, recompile reasons and metrics, and a failed
// compile. docs/TRACER.md walks through the tracing calls below.
//
//   TORCH_TRACE=/tmp/trace exprc example.expr && tlparse /tmp/trace -o /tmp/report
#include "codegen.h"
#include "graph.h"
#include "passes.h"
#include "syntax.h"
#include "tracer/trace.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// One specialisation of a function: the argument types it was compiled for, and its graph
// (none when the compile failed: calls then run in the interpreter).
struct CacheEntry {
  std::vector<exprc::Type> types;
  std::optional<exprc::Graph> graph;
  int compile_id = 0;
};

// A function's compiles. Like a Dynamo frame, it gets its frame id at its first compile.
struct Frame {
  int frame_id = -1;
  std::vector<CacheEntry> entries;
};

std::string compile_id_text(int frame_id, int compile_id) {
  return tracer::CompileId{.frame_id = frame_id, .frame_compile_id = compile_id}.compile_id_text();
}

// Why each cached specialisation of `frame` does not fit `types`, as PyTorch words guard failures.
std::vector<std::string> recompile_reasons(const Frame& frame, const exprc::Function& f,
                                           const std::vector<exprc::Type>& types) {
  std::vector<std::string> reasons;
  for (const CacheEntry& entry : frame.entries) {
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (entry.types[i] != types[i]) {
        reasons.push_back(compile_id_text(frame.frame_id, entry.compile_id) + ": type(" +
                          f.params[i] + ") is " + exprc::type_name(types[i]) + ", expected " +
                          exprc::type_name(entry.types[i]));
        break;
      }
    }
  }
  return reasons;
}

std::string guards_text(const exprc::Function& f, const std::vector<exprc::Type>& types) {
  std::string out = "TREE_GUARD_MANAGER:\n+- RootGuardManager";
  for (std::size_t i = 0; i < types.size(); ++i) {
    out += "\n| +- TYPE_MATCH: type(" + f.params[i] + ") == " + exprc::type_name(types[i]);
  }
  return out;
}

struct CompileRequest {
  const std::string& file;
  const exprc::Function& function;
  const exprc::Call& call;
  Frame& frame;
  std::vector<exprc::Type> types;
};

// Compiles one specialisation, tracing every step.
CacheEntry compile(const CompileRequest& r) {
  const Clock::time_point t0 = Clock::now();
  const double start_time = tracer::now_us() / 1e6;
  CacheEntry entry{r.types, std::nullopt, static_cast<int>(r.frame.entries.size())};
  const std::vector<std::string> reasons = recompile_reasons(r.frame, r.function, r.types);

  // Every event until the end of this scope belongs to compile [frame/compile].
  tracer::CompileScope scope(
      {.frame_id = r.frame.frame_id, .frame_compile_id = entry.compile_id, .attempt = 0});
  tracer::ChromiumSpan whole("entire_frame_compile");
  if (!reasons.empty()) {
    tracer::artifact("recompile_reasons", tracer::Encoding::Json, [&](tracer::JsonWriter& w) {
      w.begin_array();
      for (const std::string& reason : reasons) {
        w.value(reason);
      }
      w.end_array();
    });
  }
  // The user's stack at the compiled function: where the stack trie puts this compile.
  tracer::event("dynamo_start", [&](tracer::JsonWriter& w) {
    const tracer::StackFrame frames[] = {
        {r.file, r.call.line, "<module>", r.call.text},
        {r.file, r.function.line, r.function.name, r.function.text}};
    w.key("stack");
    tracer::write_stack(w, frames);
  });

  auto lowered = exprc::lower(r.function, r.types);
  const exprc::LoweringError* error = std::get_if<exprc::LoweringError>(&lowered);
  double backend_s = 0;
  std::string kernel_name;
  if (error == nullptr) {
    exprc::Graph g = std::move(std::get<exprc::Graph>(lowered));
    tracer::event_with_payload("dynamo_output_graph", tracer::no_metadata,
                               [&](std::string& out) { out += exprc::print(g); });
    const Clock::time_point backend_t0 = Clock::now();
    {
      tracer::ChromiumSpan backend("backend_compile");
      for (const exprc::Pass& pass : exprc::pipeline()) {
        tracer::ChromiumSpan span(pass.name);
        const bool changed = pass.run(g);
        span.add_end_arg("changed", changed ? "yes" : "no");
        // One build product per pass: the graph as the pass left it.
        tracer::artifact(std::string("exprc_after_") + pass.name, tracer::Encoding::String,
                         [&](std::string& out) { out += exprc::print(g); });
      }
      kernel_name = g.name;
      for (exprc::Type t : r.types) {
        kernel_name += std::string("_") + exprc::type_name(t);
      }
      tracer::event_with_payload(
          "inductor_output_code",
          [&](tracer::JsonWriter& w) { w.member("filename", "exprc_cache/" + kernel_name + ".c"); },
          [&](std::string& out) { out += exprc::generate_c(g); });
    }
    backend_s = seconds_since(backend_t0);
    tracer::event_with_payload("dynamo_cpp_guards_str", tracer::no_metadata,
                               [&](std::string& out) { out += guards_text(r.function, r.types); });
    entry.graph = std::move(g);
  }

  // The metrics page, and the compile's colour in the stack trie (red when fail_type is set).
  tracer::event("compilation_metrics", [&](tracer::JsonWriter& w) {
    w.member("compile_id", compile_id_text(r.frame.frame_id, entry.compile_id))
        .member("co_name", r.function.name)
        .member("co_filename", r.file)
        .member("co_firstlineno", r.function.line)
        .member("cache_size", entry.compile_id)
        .member("accumulated_cache_size", entry.compile_id)
        .member("guard_count", r.types.size())
        .member("shape_env_guard_count", 0)
        .member("graph_input_count", r.types.size())
        .member("start_time", start_time)
        .member("entire_frame_compile_time_s", seconds_since(t0))
        .member("backend_compile_time_s", backend_s);
    if (entry.graph) {
      w.member("graph_op_count", exprc::op_count(*entry.graph))
          .member("graph_node_count", entry.graph->nodes.size());
      w.key("fail_type").null().key("fail_reason").null();
    } else {
      w.key("graph_op_count").null().key("graph_node_count").null();
      w.member("fail_type", error->type)
          .member("fail_reason", error->message)
          .member("fail_user_frame_filename", r.file)
          .member("fail_user_frame_lineno", error->at.line);
    }
    w.key("restart_reasons").begin_array().end_array();
    w.member("dynamo_time_before_restart_s", 0.0);
  });
  return entry;
}

std::string format_value(const exprc::Value& v) {
  char buf[64];
  const auto end = v.is_float ? std::to_chars(buf, buf + sizeof buf, v.number).ptr
                              : buf + std::snprintf(buf, sizeof buf, "%.0f", v.number);
  std::string text(buf, end);
  if (v.is_float && text.find_first_of(".eni") == std::string::npos) {
    text += ".0"; // a float prints as one
  }
  return text;
}

std::optional<std::string> read_source(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fprintf(argc == 2 ? stdout : stderr,
                 "usage: exprc FILE.expr\n"
                 "Compiles and runs the calls of FILE.expr. With TORCH_TRACE=DIR set, writes a\n"
                 "trace of every compile into DIR for tlparse.\n");
    return argc == 2 ? 0 : 2;
  }
  // File names in the glog prefix relative to this project, as PyTorch writes its own.
  tracer::set_source_root(EXPRC_SOURCE_ROOT);

  const std::string file = argv[1];
  const std::optional<std::string> source = read_source(argv[1]);
  if (!source) {
    std::fprintf(stderr, "exprc: cannot read %s\n", argv[1]);
    return 2;
  }
  auto parsed = exprc::parse_program(*source);
  if (const auto* error = std::get_if<exprc::SyntaxError>(&parsed)) {
    std::fprintf(stderr, "exprc: %s:%d:%d: error: %s\n", argv[1], error->at.line, error->at.column,
                 error->message.c_str());
    return 2;
  }
  const exprc::Program& program = std::get<exprc::Program>(parsed);

  std::map<std::string, Frame> frames;
  int next_frame_id = 0;
  for (const exprc::Call& call : program.calls) {
    const exprc::Function* function = nullptr;
    for (const exprc::Function& f : program.functions) {
      function = f.name == call.function ? &f : function;
    }
    if (function == nullptr || function->params.size() != call.args.size()) {
      std::fprintf(stderr, "exprc: %s:%d: error: no function %s of %zu parameters\n", argv[1],
                   call.line, call.function.c_str(), call.args.size());
      return 2;
    }
    std::vector<exprc::Type> types;
    for (const exprc::Value& v : call.args) {
      types.push_back(v.is_float ? exprc::Type::Float : exprc::Type::Int);
    }
    Frame& frame = frames[function->name];
    const CacheEntry* entry = nullptr;
    for (const CacheEntry& e : frame.entries) {
      entry = e.types == types ? &e : entry;
    }
    if (entry == nullptr) {
      if (frame.frame_id < 0) {
        frame.frame_id = next_frame_id++;
      }
      frame.entries.push_back(compile({file, *function, call, frame, types}));
      entry = &frame.entries.back();
      if (!entry->graph) {
        std::fprintf(stderr, "exprc: %s:%d: note: %s is not compiled; it runs in the interpreter\n",
                     argv[1], call.line, function->name.c_str());
      }
    }
    const exprc::Value result = entry->graph ? exprc::run(*entry->graph, call.args)
                                             : exprc::interpret(*function, call.args);
    std::string args;
    for (const exprc::Value& v : call.args) {
      args += args.empty() ? "" : ", ";
      args += format_value(v);
    }
    std::printf("%s(%s) = %s\n", function->name.c_str(), args.c_str(),
                format_value(result).c_str());
  }
  if (const std::string log = tracer::log_path(); !log.empty()) {
    std::fprintf(stderr, "exprc: trace written to %s\n", log.c_str());
  }
  return 0;
}
