// The capture engine: frames, cache entries, the compile flow (tracing, restart at graph
// breaks, guards), running entries, eager fallback, and the trace events of each compile.
// docs/COMPILER.md describes the design; this file follows it.
#include "capture/compiler_collectives.h"
#include "capture/frame_tracer.h"
#include "capture/graph_names.h"
#include "capture/trace_slot.h"
#include "compiler/autograd/grad_mode.h"
#include "compiler/backend/backend.h"
#include "compiler/capture/compile.h"
#include "compiler/inductor/metrics.h"
#include "compiler/ops/ops.h"
#include "inductor/stage_metrics.h"
#include "tracer/trace.h"
#include "tracing/counter.h"
#include "tracing/event_keys.h"
#include "tracing/trace_util.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <shared_mutex>

namespace compiler {

void mark_dynamic(const Tensor& t, std::int64_t dim) {
  if (!t.defined()) {
    user_error("mark_dynamic(): the tensor is undefined");
  }
  if (dim < 0) {
    dim += t.dim();
  }
  if (dim < 0 || dim >= t.dim()) {
    user_error("mark_dynamic(): dim " + std::to_string(dim) + " is out of range for a tensor of " +
               std::to_string(t.dim()) + " dims");
  }
  using capture::detail::DynamicMarksSlot;
  using capture::detail::TraceSlot;
  TraceSlot* s = capture::detail::slot_of(*t.impl());
  if (s == nullptr || s->kind != TraceSlot::Kind::DynamicMarks) {
    t.impl()->trace_slot = std::make_shared<DynamicMarksSlot>();
    s = capture::detail::slot_of(*t.impl());
  }
  static_cast<DynamicMarksSlot*>(s)->dims.push_back(dim);
}

namespace capture {

namespace {

namespace keys = tracing::keys;
namespace artifacts = tracing::artifacts;
using Clock = std::chrono::steady_clock;

std::atomic<std::int64_t> g_next_frame_id{0};
// Dynamo's frame_key counts every compile the process starts, from 1.
std::atomic<std::int64_t> g_next_frame_key{1};

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::int64_t micros_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
}

GuardInput guard_input_of_value(const Value& v) {
  if (const Tensor* t = std::get_if<Tensor>(&v)) {
    return GuardInput::of(*t);
  }
  if (const double* d = std::get_if<double>(&v)) {
    return GuardInput::of_float(*d);
  }
  if (const bool* b = std::get_if<bool>(&v)) {
    return GuardInput::of_bool(*b);
  }
  if (const SymInt* s = std::get_if<SymInt>(&v)) {
    return GuardInput::of_int(s->hint());
  }
  return GuardInput{};
}

// Automatic-dynamic state of one frame input: the sizes last compiled for, and which dims
// changed between compiles (and so are symbolic from now on).
struct DimState {
  std::vector<std::int64_t> sizes;
  std::vector<bool> dynamic;
};

struct Frame;

struct Entry {
  tracer::CompileId id;
  std::string id_text;
  GuardSet guards;
  Graph graph;
  std::unique_ptr<backend::CompiledGraph> compiled; // what the backend made of `graph`
  std::vector<InputRef> guard_refs;                 // guard input i comes from guard_refs[i]
  bool identity_inputs = false;                     // guard input i is argument i (the root frame)
  bool breaks = false;
  // The generator's seed and offset symbols (-1: the graph draws no random numbers) and how
  // many numbers one call draws (over the size symbols).
  std::int64_t generator_seed_symbol = -1;
  std::int64_t generator_offset_symbol = -1;
  SymInt generator_draws;
  OpKind break_op = OpKind::item;
  std::int64_t break_index = -1;
  std::vector<Arg> break_args;
  std::source_location break_where;
  // The frame after the break. A branch on a tensor (to_bool()) has one per outcome, as
  // Dynamo makes one resume function per jump target: `resume` for true, `resume_false`.
  std::unique_ptr<Frame> resume;
  std::unique_ptr<Frame> resume_false;
  // Runtime facts (the runtime_facts artifact): the calls this entry served, and the run time
  // of a sample of them. Counted only while tracing is on.
  std::atomic<std::int64_t> calls{0};
  std::atomic<std::int64_t> timed_calls{0};
  std::atomic<std::int64_t> timed_ns{0};
};

// Whether the `n`th call (from 1) of an entry is timed: the first 8, then one in 64, so a hot
// entry pays two clock reads every 64 calls.
bool timed_call(std::int64_t n) noexcept {
  return n <= 8 || (n & 63) == 0;
}

struct Frame {
  std::int64_t id = -1; // assigned at the first compile, as Dynamo numbers frames
  std::string name;
  std::source_location where;
  std::int64_t first_op = 0; // resume frames: ops before this index are replayed
  std::int64_t compiles = 0;
  bool limit_warned = false;
  std::vector<std::unique_ptr<Entry>> entries;
  std::map<std::string, DimState> dims;
  // Compiler collectives: for the compile under way, the dims of each tensor argument whose
  // size differs between ranks (capture/compiler_collectives.h); empty when they are off.
  std::map<std::string, std::vector<bool>> ranks_disagree;
};

// The values of one call that later frames may refer to.
struct CallState {
  std::span<const Value> args;
  std::span<const GuardInput> arg_inputs;
  std::vector<Value> env;                // by op index
  std::vector<const std::string*> names; // node names by op index
  std::source_location call_site;        // where the user called the compiled function
};

// One compile's compilation_metrics event, its fields named as PyTorch's CompilationMetrics
// (torch/_dynamo/utils.py) names them. `entry` is null for a failed compile, which has no graph.
struct CompilationMetrics {
  const Entry* entry = nullptr;
  const Frame& frame;
  std::int64_t frame_key = 0;
  const std::string& compile_id;
  std::int64_t num_graph_breaks = 0;
  std::int64_t start_time_us = 0;
  Clock::time_point start; // of the compile, for its durations
  double backend_compile_time_s = 0.0;
  std::span<const std::string> restart_reasons{};
  double dynamo_time_before_restart_s = 0.0;
  const char* fail_type = nullptr; // null: the compile succeeded
  std::string fail_reason{};
  const std::source_location* fail_where = nullptr;
  std::size_t cache_size = 0;
  std::string recompile_reason{};
  double guard_latency_us = 0.0;
};

// The counters, updated from every calling thread.
struct AtomicStats {
  tracing::Counter calls;
  tracing::Counter cache_hits;
  tracing::Counter compiles;
  tracing::Counter failed_compiles;
  tracing::Counter graph_breaks;
  tracing::Counter eager_frames;
  tracing::Counter frames;

  CaptureStats snapshot() const noexcept {
    CaptureStats s;
    s.calls = calls.get();
    s.cache_hits = cache_hits.get();
    s.compiles = compiles.get();
    s.failed_compiles = failed_compiles.get();
    s.graph_breaks = graph_breaks.get();
    s.eager_frames = eager_frames.get();
    s.frames = frames.get();
    return s;
  }
};

std::string reason_for_break(OpKind op) {
  return std::string("Data-dependent operation ") + std::string(op_aten_name(op)) + " (" +
         std::string(op_name(op)) + "())";
}

// The graph break's message in Dynamo's layout (a type line, then explanation, hints and a
// debug context): what restart_reasons records and the break reason shows.
std::string break_message(OpKind op) {
  std::string out;
  if (op == OpKind::to_bool) {
    out += "Data-dependent branching\n";
    out += "  Explanation: Detected data-dependent branching (a C++ branch on to_bool() of a "
           "tensor, e.g. `if (gt(sum(x), 0.0).to_bool())`). Tracing runs on fake tensors that "
           "have no data, so it cannot follow control flow that depends on tensor values.\n";
    out += "  Hint: The graph ends at the branch and the side taken continues in a resume "
           "frame; to keep one graph, select with where() instead of branching.\n";
  } else {
    out += "Unsupported Tensor." + std::string(op_name(op)) + "() call\n";
    out += "  Explanation: " + std::string(op_name(op)) +
           "() reads tensor data on the host; tracing runs on fake tensors that have no data, "
           "so the graph ends before it and the rest of the function continues in a new "
           "frame.\n";
    out += "  Hint: Keep the value in a 0-dim tensor and use it in tensor ops, or accept the "
           "split.\n";
  }
  out += "\n  Developer debug context: " + std::string(op_aten_name(op)) + " (" +
         std::string(op_name(op)) + "())";
  return out;
}

// The dynamo_graph_break_reason payload. A branch reads as Dynamo's data-dependent jump; a
// host read as an untraceable call (Dynamo restarts at those).
std::string break_explanation(OpKind op, const std::source_location& where) {
  std::string out = "Graph break in user code at ";
  out += where.file_name();
  out += ":" + std::to_string(where.line()) + "\n";
  out += "Graph Break Reason: ";
  if (op != OpKind::to_bool) {
    out += "Encountered graph break when attempting to trace CALL: a function call, e.g. "
           "f(x, y):\n\n";
  }
  out += break_message(op) + "\n\n";
  out += "User code traceback:\n" + tracing::format_user_frame(tracing::user_frame(where));
  return out;
}

} // namespace

struct Engine::Impl {
  Body body;
  CompileOptions options;
  std::source_location where;
  Frame root;
  AtomicStats stats;
  std::vector<CompileRecord> records;
  // Lookups in the frames' caches share it; a compile (which adds entries, frames and records)
  // holds it alone.
  std::shared_mutex mutex;
  // The call site of the call being compiled (set under the exclusive lock).
  std::source_location call_site;

  Impl(Body b, CompileOptions o, std::source_location w)
      : body(std::move(b)), options(std::move(o)), where(w) {
    root.where = w;
    root.name = options.name.empty() ? std::string(tracing::short_function_name(w.function_name()))
                                     : options.name;
  }

  // The compiled function ends (usually at exit): each entry that served calls says how many
  // and how long they ran, under its own compile id (docs/COMPILER.md, "Runtime facts").
  ~Impl() { write_runtime_facts(root); }

  static void write_runtime_facts(const Frame& f) {
    for (const std::unique_ptr<Entry>& e : f.entries) {
      const std::int64_t calls = e->calls.load(std::memory_order_relaxed);
      const std::int64_t timed = e->timed_calls.load(std::memory_order_relaxed);
      if (calls > 0 && timed > 0) {
        const double mean_ms = static_cast<double>(e->timed_ns.load(std::memory_order_relaxed)) /
                               1e6 / static_cast<double>(timed);
        tracer::CompileScope scope(e->id);
        tracer::artifact(artifacts::runtime_facts, tracer::Encoding::Json, [&](std::string& out) {
          tracer::JsonWriter w(out);
          w.begin_object();
          w.member("calls", calls);
          w.member("timed_calls", timed);
          w.member("mean_run_ms", mean_ms);
          w.member("total_run_ms", mean_ms * static_cast<double>(calls));
          w.end_object();
        });
      }
      if (e->resume) {
        write_runtime_facts(*e->resume);
      }
      if (e->resume_false) {
        write_runtime_facts(*e->resume_false);
      }
    }
  }

  // The user stack of a compile of frame `f`, as dynamo_start logs it: the caller of the
  // compiled function, then the function (or the resume point) being compiled. Dynamo logs the
  // caller only for resume frames; we log it always since a C++ lambda's own location is
  // rarely informative on its own.
  std::array<tracer::StackFrame, 2> user_stack(const Frame& f) const {
    std::array<tracer::StackFrame, 2> frames{tracing::user_frame(call_site),
                                             tracing::user_frame(f.where)};
    frames[1].name = f.name;
    return frames;
  }

  std::string arg_name(std::size_t i) const {
    return i < options.arg_names.size() ? options.arg_names[i] : "arg" + std::to_string(i);
  }

  // The guard inputs of `e` for this call (the root frame reads the arguments directly).
  void gather_inputs(const Entry& e, const CallState& st, std::vector<GuardInput>& out) const {
    out.clear();
    for (const InputRef& r : e.guard_refs) {
      switch (r.kind) {
      case InputRef::Kind::Argument:
        out.push_back(st.arg_inputs[r.index]);
        break;
      case InputRef::Kind::PriorValue:
      case InputRef::Kind::BreakValue:
        out.push_back(r.index < st.env.size() ? guard_input_of_value(st.env[r.index])
                                              : GuardInput{});
        break;
      }
    }
  }

  Value input_value(const InputRef& r, const CallState& st) const {
    return r.kind == InputRef::Kind::Argument ? st.args[r.index] : st.env[r.index];
  }

  std::vector<bool> decide_dynamic(Frame& f, const std::string& name, const Tensor& real,
                                   std::size_t& symbols_left) {
    const std::vector<std::int64_t>& cur = real.sizes();
    auto [it, fresh] = f.dims.try_emplace(name);
    DimState& s = it->second;
    if (fresh || s.sizes.size() != cur.size()) {
      s.sizes = cur;
      s.dynamic.assign(cur.size(), options.dynamic);
    } else {
      for (std::size_t d = 0; d < cur.size(); ++d) {
        if (s.sizes[d] != cur[d] && options.automatic_dynamic) {
          s.dynamic[d] = true;
        }
        s.sizes[d] = cur[d];
      }
    }
    if (auto* slot = detail::slot_of(*real.impl());
        slot != nullptr && slot->kind == detail::TraceSlot::Kind::DynamicMarks) {
      for (std::int64_t d : static_cast<detail::DynamicMarksSlot*>(slot)->dims) {
        if (static_cast<std::size_t>(d) < s.dynamic.size()) {
          s.dynamic[static_cast<std::size_t>(d)] = true;
        }
      }
    }
    if (auto peers = f.ranks_disagree.find(name);
        peers != f.ranks_disagree.end() && options.automatic_dynamic) {
      for (std::size_t d = 0; d < s.dynamic.size() && d < peers->second.size(); ++d) {
        s.dynamic[d] = s.dynamic[d] || peers->second[d];
      }
    }
    std::vector<bool> out(cur.size(), false);
    for (std::size_t d = 0; d < cur.size(); ++d) {
      // 0 and 1 are specialised: they mean "empty" and "broadcasts", which change the program.
      if (s.dynamic[d] && cur[d] >= 2 && symbols_left > 0) {
        out[d] = true;
        --symbols_left;
      }
    }
    return out;
  }

  // Compiler collectives: before the frame is traced, the ranks share its tensor arguments'
  // sizes so that decide_dynamic() makes the same dims dynamic on every rank.
  void exchange_sizes_with_other_ranks(Frame& f, const CallState& st) {
    f.ranks_disagree.clear();
    if (!size_exchange_enabled() || !options.automatic_dynamic) {
      return;
    }
    std::vector<InputSizes> local;
    for (std::size_t i = 0; i < st.args.size(); ++i) {
      if (const Tensor* t = std::get_if<Tensor>(&st.args[i]); t != nullptr && t->defined()) {
        local.push_back({arg_name(i), t->sizes()});
      }
    }
    f.ranks_disagree = detail::exchange_input_sizes(f.name, local);
  }

  // Where a module read came from: a module argument (and the child path below it), or a
  // module the function closed over.
  static ModuleAttrGuard module_guard(const detail::ModuleRead& read,
                                      const std::vector<detail::TracedInput>& inputs) {
    ModuleAttrGuard g;
    g.attribute = read.attribute;
    g.expected = read.value;
    g.where = read.where;
    for (const detail::TracedInput& in : inputs) {
      if (in.kind != GuardInput::Kind::Module) {
        continue;
      }
      for (const auto& [path, m] : in.module->named_modules()) {
        if (m != read.module) {
          continue;
        }
        g.input = in.guard_index;
        g.source = "L['" + in.name + "']";
        std::size_t start = 0;
        while (start < path.size()) {
          std::size_t dot = path.find('.', start);
          std::string part =
              path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
          g.path.push_back(part);
          g.source += "." + part;
          start = dot == std::string::npos ? path.size() : dot + 1;
        }
        g.source += "." + read.attribute;
        return g;
      }
    }
    g.fixed = read.module;
    g.source = "G['" + read.module->type_name() + "']." + read.attribute;
    return g;
  }

  struct TraceResult {
    std::unique_ptr<ShapeEnv> env;
    std::unique_ptr<detail::FrameTracer> tracer;
  };

  // One tracing attempt of frame `f`. Throws GraphBreakSignal (attempt without stop_at) or
  // whatever the user's function throws.
  TraceResult trace(Frame& f, const CallState& st, std::optional<std::int64_t> stop_at) {
    TraceResult r;
    r.env = std::make_unique<ShapeEnv>();
    detail::FrameTracer::Config cfg;
    cfg.stop_at = stop_at;
    cfg.branch_in_place = !options.fullgraph;
    cfg.first_op = f.first_op;
    cfg.served = st.env;
    cfg.served_names = st.names;
    // Guard inputs: the arguments, then the break value (resume frames), then served tensors.
    cfg.first_extra_guard = static_cast<std::uint32_t>(st.args.size() + (f.first_op > 0 ? 1 : 0));
    r.tracer = std::make_unique<detail::FrameTracer>(cfg, *r.env);
    detail::FrameTracer& tr = *r.tracer;

    SymGuardRecorderScope recorder(r.env.get());
    r.env->set_call_site(st.call_site);
    // Symbols are created before the first op runs: attribute them to the traced function.
    r.env->set_user_location(f.where);
    std::vector<Value> fn_args(st.args.begin(), st.args.end());
    std::size_t symbols_left = GuardSet::kMaxSymbols;
    for (std::size_t i = 0; i < st.args.size(); ++i) {
      InputRef ref{InputRef::Kind::Argument, i};
      if (st.arg_inputs[i].kind == GuardInput::Kind::Module) {
        tr.add_module_input(*st.arg_inputs[i].module, ref, static_cast<std::uint32_t>(i),
                            arg_name(i));
      } else if (const Tensor* t = std::get_if<Tensor>(&st.args[i]); t != nullptr && t->defined()) {
        std::vector<bool> dyn = decide_dynamic(f, arg_name(i), *t, symbols_left);
        fn_args[i] = tr.wrap_tensor_input(*t, ref, static_cast<std::uint32_t>(i), arg_name(i), dyn);
      } else {
        tr.add_scalar_input(st.args[i], ref, static_cast<std::uint32_t>(i), arg_name(i));
      }
    }
    if (f.first_op > 0) {
      // The branch taken (or the value read) at the break that led here is part of this
      // frame's identity: guard it.
      std::size_t b = static_cast<std::size_t>(f.first_op - 1);
      // Served tensors take guard indices after the arguments; the break value is first.
      tr.add_scalar_input(st.env[b], InputRef{InputRef::Kind::BreakValue, b},
                          static_cast<std::uint32_t>(st.args.size()), "___break_value");
    }
    std::vector<Value> result;
    {
      tracer::ChromiumSpan span("bytecode_tracing");
      // Tracing is not a call: the draws the traced function takes from the random generator
      // are given back, and each run of the compiled graph takes them (the generator-offset
      // symbol's value, advanced by the graph's draws).
      const RandomState generator_before = random_state();
      struct RestoreGenerator {
        RandomState state;
        ~RestoreGenerator() { set_random_state(state); }
      } restore{generator_before};
      OpHookGuard hook(&tr);
      nn::ModuleObserverGuard observer(&tr);
      try {
        result = body(fn_args, st.arg_inputs);
      } catch (const detail::StopSignal&) {
      }
    }
    if (tr.stopped_at_break()) {
      tr.finish_at_break();
    } else {
      tr.finish_with_outputs(result);
    }
    return r;
  }

  void emit_metrics(const CompilationMetrics& m) {
    const Entry* e = m.entry;
    const Frame& f = m.frame;
    double total_s = seconds_since(m.start);
    std::int64_t total_us = micros_since(m.start);
    tracer::event(keys::compilation_metrics, [&](tracer::JsonWriter& w) {
      w.member("compile_id", m.compile_id);
      w.member("frame_key", std::to_string(m.frame_key));
      w.member("co_name", f.name);
      w.member("co_filename", f.where.file_name());
      w.member("co_firstlineno", static_cast<std::int64_t>(f.where.line()));
      w.member("cache_size", static_cast<std::int64_t>(m.cache_size));
      w.member("accumulated_cache_size", static_cast<std::int64_t>(m.cache_size));
      if (e != nullptr) {
        w.member("guard_count", static_cast<std::int64_t>(e->guards.check_count()));
        w.member("shape_env_guard_count", static_cast<std::int64_t>(e->guards.shape_guard_count()));
        w.member("graph_op_count", static_cast<std::int64_t>(e->graph.op_count()));
        w.member("graph_node_count", static_cast<std::int64_t>(e->graph.node_count()));
        w.member("graph_input_count", static_cast<std::int64_t>(e->graph.input_count()));
      } else {
        w.key("guard_count").null().key("shape_env_guard_count").null();
        w.key("graph_op_count").null().key("graph_node_count").null();
        w.key("graph_input_count").null();
      }
      w.member("start_time", static_cast<double>(m.start_time_us) / 1e6);
      w.member("entire_frame_compile_time_s", total_s);
      w.member("backend_compile_time_s", m.backend_compile_time_s);
      if (m.fail_type != nullptr) {
        w.member("fail_type", m.fail_type).member("fail_reason", m.fail_reason);
        if (m.fail_where != nullptr) {
          w.member("fail_user_frame_filename", m.fail_where->file_name());
          w.member("fail_user_frame_lineno", static_cast<std::int64_t>(m.fail_where->line()));
        } else {
          w.key("fail_user_frame_filename").null().key("fail_user_frame_lineno").null();
        }
      } else {
        w.key("fail_type").null().key("fail_reason").null();
        w.key("fail_user_frame_filename").null().key("fail_user_frame_lineno").null();
      }
      w.key("restart_reasons").begin_array();
      for (const std::string& r : m.restart_reasons) {
        w.value(r);
      }
      w.end_array();
      w.member("dynamo_time_before_restart_s", m.dynamo_time_before_restart_s);
      w.key("stack_trace").begin_array();
      for (const tracer::StackFrame& sf : user_stack(f)) {
        w.value("Line: " + std::to_string(sf.line) + ", Name: " + std::string(sf.name) +
                ", Filename: " + std::string(sf.filename));
      }
      w.end_array();
      if (m.fail_type != nullptr) {
        w.key("exception_stack_trace").begin_array().value(m.fail_reason).end_array();
      } else {
        w.key("exception_stack_trace").null();
      }
      // A failed compile has no graph: Dynamo logs an empty mapping.
      w.member("graph_node_shapes", e != nullptr ? graph_node_shapes(e->graph) : std::string("{}"));
      w.member("has_guarded_code", e != nullptr);
      if (e != nullptr) {
        inductor::write_metrics(w, tracing::StageMetrics::current()->inductor);
      }
      w.member("start_time_us", m.start_time_us);
      w.member("duration_us", total_us);
      w.member("dynamo_cumulative_compile_time_us", total_us);
      w.member("dynamo_compile_time_before_restart_us",
               static_cast<std::int64_t>(m.dynamo_time_before_restart_s * 1e6));
      w.member("end_time_us", m.start_time_us + total_us);
      w.member("log_format_version", std::int64_t{3});
      w.member("is_forward", true);
      w.member("is_runtime", false);
      if (m.recompile_reason.empty()) {
        w.key("recompile_reason").null();
      } else {
        w.member("recompile_reason", m.recompile_reason);
      }
      if (e != nullptr) {
        w.member("num_graph_breaks", m.num_graph_breaks);
      } else {
        w.key("num_graph_breaks").null();
      }
      if (e != nullptr) {
        w.member("guard_latency_us", static_cast<std::int64_t>(m.guard_latency_us));
        // The fields of the stages after capture (the AOT stage's times, cache counts, ...).
        if (const tracing::StageMetrics* stages = tracing::StageMetrics::current()) {
          stages->write(w);
        }
      } else {
        w.key("guard_latency_us").null();
      }
      w.member("config_suppress_errors", false);
      w.member("specialize_float", true);
      w.key("dynamo_config")
          .value(std::string("{\"automatic_dynamic_shapes\": ") +
                 (options.automatic_dynamic ? "true" : "false") +
                 ", \"assume_static_by_default\": " + (options.dynamic ? "false" : "true") +
                 ", \"recompile_limit\": " + std::to_string(options.recompile_limit) + "}");
    });
  }

  // The dynamo_error artifact of a failed compile: a traceback through the user's frames (the
  // call, the compiled function, the failing line) ending in the error, as Python prints one.
  void emit_dynamo_error(const Frame& f, const char* type, const std::string& message,
                         const std::source_location* fail_where) const {
    tracer::artifact(artifacts::dynamo_error, tracer::Encoding::String, [&](std::string& out) {
      out += "Traceback (most recent call last):\n";
      for (const tracer::StackFrame& sf : user_stack(f)) {
        out += tracing::format_user_frame(sf);
      }
      if (fail_where != nullptr && fail_where->file_name()[0] != '\0') {
        out += tracing::format_user_frame(tracing::user_frame(*fail_where));
      }
      out += std::string(type) + ": " + message + "\n";
    });
  }

  Entry* compile_frame(Frame& f, CallState& st) {
    Clock::time_point t0 = Clock::now();
    std::int64_t start_us = static_cast<std::int64_t>(tracer::now_us());
    if (f.id < 0) {
      f.id = g_next_frame_id.fetch_add(1);
      bump(stats.frames);
    }
    std::int64_t compile_number = f.compiles++;
    const std::int64_t frame_key = g_next_frame_key.fetch_add(1);
    call_site = st.call_site;
    tracer::CompileId id{std::nullopt, f.id, compile_number, 0};
    std::string id_text = id.compile_id_text();

    CompileRecord rec;
    rec.compile_id = id_text;
    rec.frame_id = f.id;
    rec.frame_name = f.name;

    // Why the existing entries did not serve this call, newest first as Dynamo lists them.
    std::vector<GuardInput> gi;
    for (std::size_t i = f.entries.size(); i-- > 0;) {
      const Entry& e = *f.entries[i];
      gather_inputs(e, st, gi);
      std::optional<std::string> why = e.guards.failure_reason(gi);
      rec.recompile_reasons.push_back(e.id_text + ": " + why.value_or("guards passed"));
    }

    tracer::CompileScope scope(id);
    tracing::StageMetrics stage_metrics; // filled by the backend's stages
    if (!rec.recompile_reasons.empty()) {
      tracer::artifact(artifacts::recompile_reasons, tracer::Encoding::Json,
                       [&](tracer::JsonWriter& w) {
                         w.begin_array();
                         for (const std::string& r : rec.recompile_reasons) {
                           w.value(r);
                         }
                         w.end_array();
                       });
    }
    auto entry = std::make_unique<Entry>();
    std::vector<std::string> restart_reasons;
    double before_restart_s = 0.0;
    double backend_s = 0.0;
    double guard_latency_us = 0.0;
    std::optional<tracer::CompileScope> attempt_scope;
    // A compile that failed while the user's function was traced: recorded once, with its
    // dynamo_error and its compilation_metrics as PyTorch writes them.
    auto record_failure = [&](const char* error_type, const char* fail_type,
                              const std::string& message, const std::source_location* where) {
      rec.failed = true;
      records.push_back(rec);
      bump(stats.failed_compiles);
      emit_dynamo_error(f, error_type, message, where);
      emit_metrics({.frame = f,
                    .frame_key = frame_key,
                    .compile_id = id_text,
                    .start_time_us = start_us,
                    .start = t0,
                    .restart_reasons = restart_reasons,
                    .dynamo_time_before_restart_s = seconds_since(t0),
                    .fail_type = fail_type,
                    .fail_reason = message,
                    .fail_where = where,
                    .cache_size = f.entries.size()});
    };
    try {
      tracer::ChromiumSpan whole("entire_frame_compile");
      tracer::event(keys::dynamo_start, [&](tracer::JsonWriter& w) {
        w.key("stack");
        tracer::write_stack(w, user_stack(f));
      });
      exchange_sizes_with_other_ranks(f, st);
      TraceResult tr;
      std::optional<std::int64_t> stop_at;
      for (int attempt = 0;; ++attempt) {
        if (attempt > 0) {
          attempt_scope.emplace(tracer::CompileId{std::nullopt, f.id, compile_number, attempt});
        }
        tracer::ChromiumSpan span(attempt == 0 ? "compile_attempt_0" : "compile_attempt_1");
        try {
          tr = trace(f, st, stop_at);
          break;
        } catch (const detail::GraphBreakSignal& g) {
          bump(stats.graph_breaks);
          std::string text = break_explanation(g.op, g.where);
          if (options.fullgraph) {
            std::string msg = "graph break under fullgraph=true: " + reason_for_break(g.op) +
                              " at " + g.where.file_name() + ":" + std::to_string(g.where.line()) +
                              " in " +
                              std::string(tracing::short_function_name(g.where.function_name())) +
                              ". Hint: " + std::string(op_name(g.op)) +
                              "() needs tensor data, which a single graph cannot read; compute "
                              "the result with tensor ops (where(), masks) or compile with "
                              "fullgraph=false to allow the split.";
            rec.failed = true;
            rec.graph_break_reason = text;
            records.push_back(rec);
            bump(stats.failed_compiles);
            emit_dynamo_error(f, "compiler::UserError", msg, &g.where);
            emit_metrics({.frame = f,
                          .frame_key = frame_key,
                          .compile_id = id_text,
                          .start_time_us = start_us,
                          .start = t0,
                          .dynamo_time_before_restart_s = seconds_since(t0),
                          .fail_type = "Unsupported",
                          .fail_reason = msg,
                          .fail_where = &g.where,
                          .cache_size = f.entries.size(),
                          .recompile_reason =
                              rec.recompile_reasons.empty() ? "" : rec.recompile_reasons.front()});
            throw UserError(msg, g.where);
          }
          tracer::artifact(artifacts::dynamo_graph_break_reason, tracer::Encoding::String,
                           [&](std::string& out) { out += text; });
          rec.graph_break_reason = text;
          restart_reasons.push_back(break_message(g.op));
          before_restart_s = seconds_since(t0);
          stop_at = g.op_index;
          if (attempt > 0) {
            // The restarted attempt must stop at the known break; reaching another one means
            // the function is not deterministic in its op sequence.
            throw UserError("compile(): the function took a different path when traced again "
                            "(its sequence of ops must depend only on its inputs)",
                            g.where);
          }
        }
      }
      detail::FrameTracer& ft = *tr.tracer;
      if (ft.stopped_at_break() && !stop_at) {
        // A branch on a tensor value: the graph ended where the branch is, in this attempt,
        // as Dynamo compiles the graph at a data-dependent jump without restarting.
        bump(stats.graph_breaks);
        std::string text = break_explanation(ft.break_op(), ft.break_where());
        tracer::artifact(artifacts::dynamo_graph_break_reason, tracer::Encoding::String,
                         [&](std::string& out) { out += text; });
        rec.graph_break_reason = text;
      }
      entry->graph = std::move(ft.graph());
      entry->generator_seed_symbol = ft.generator_seed_symbol();
      entry->generator_offset_symbol = ft.generator_offset_symbol();
      entry->generator_draws = ft.generator_draws();
      {
        tracer::event_with_payload(
            keys::dynamo_output_graph,
            [&](tracer::JsonWriter& w) {
              w.key("sizes").begin_object();
              write_graph_sizes(w, entry->graph);
              w.end_object();
            },
            [&](std::string& out) { out += print_graph(entry->graph); });
      }
      {
        Clock::time_point b0 = Clock::now();
        tracer::ChromiumSpan span("backend_compile");
        // Decisions the later stages make on symbolic sizes (a decomposition's guard_int) are
        // guards of this entry too, as PyTorch's AOT stage shares Dynamo's ShapeEnv: they are
        // recorded into the frame's environment, whose guards are built below.
        SymGuardRecorderScope recorder(tr.env.get());
        entry->compiled = backend::compile_graph(
            {.graph = entry->graph,
             .keep = ft.stopped_at_break() ? backend::Keep::AllNodes : backend::Keep::Outputs,
             .frame_name = f.name,
             .backend = options.backend,
             .mode = options.mode,
             .custom_backend = options.custom_backend ? &options.custom_backend : nullptr});
        backend_s = seconds_since(b0);
      }
      {
        tracer::ChromiumSpan span("build_guards");
        entry->identity_inputs = &f == &root;
        for (const detail::TracedInput& in : ft.inputs()) {
          if (entry->guard_refs.size() <= in.guard_index) {
            entry->guard_refs.resize(in.guard_index + 1);
          }
          entry->guard_refs[in.guard_index] = in.ref;
          switch (in.kind) {
          case GuardInput::Kind::Tensor:
            entry->guards.add_tensor_input(in.guard_index, in.name, *in.real, in.dynamic_dims,
                                           in.where);
            break;
          case GuardInput::Kind::Int:
            entry->guards.add_int_input(in.guard_index, in.name, std::get<SymInt>(in.value).hint(),
                                        in.where);
            break;
          case GuardInput::Kind::Float:
            entry->guards.add_float_input(in.guard_index, in.name, std::get<double>(in.value),
                                          in.where);
            break;
          case GuardInput::Kind::Bool:
            entry->guards.add_bool_input(in.guard_index, in.name, std::get<bool>(in.value),
                                         in.where);
            break;
          case GuardInput::Kind::Module:
            entry->guards.add_module_input(in.guard_index, in.name, *in.module, in.where);
            break;
          case GuardInput::Kind::None:
            entry->guards.add_none_input(in.guard_index, in.name, in.where);
            break;
          }
        }
        for (const detail::ModuleRead& read : ft.module_reads()) {
          entry->guards.add_module_attribute(module_guard(read, ft.inputs()));
        }
        // Grad mode and the parameters' requires_grad decide whether the backend built a
        // backward: a change recompiles, as Dynamo's GLOBAL_STATE and tensor guards do.
        entry->guards.add_grad_mode(autograd::is_grad_enabled());
        add_constant_guards(*entry);
        entry->guards.add_shape_env(*tr.env);
        gather_inputs(*entry, st, gi);
        Clock::time_point g0 = Clock::now();
        // Timed for the guard-latency line. The result is not asserted: a NaN attribute of a
        // module never equals itself, so such an entry runs once and then recompiles, as in
        // PyTorch.
        volatile bool passed = entry->guards.check(gi);
        (void)passed;
        guard_latency_us = std::chrono::duration<double, std::micro>(Clock::now() - g0).count();
        tracer::event_with_payload(
            keys::dynamo_cpp_guards_str, tracer::no_metadata, [&](std::string& out) {
              out += entry->guards.to_tree_string();
              char latency[48];
              std::snprintf(latency, sizeof latency, "\nGuard latency = %.2f us", guard_latency_us);
              out += latency;
            });
      }
      if (ft.stopped_at_break()) {
        entry->breaks = true;
        entry->break_op = ft.break_op();
        entry->break_index = ft.break_index();
        entry->break_args = ft.break_args();
        entry->break_where = ft.break_where();
        // Named as Dynamo names resume functions: after the compiled function and the line.
        auto make_resume = [&] {
          auto r = std::make_unique<Frame>();
          r->first_op = ft.break_index() + 1;
          r->where = ft.break_where();
          r->name =
              "torch_dynamo_resume_in_" + root.name + "_at_" + std::to_string(r->where.line());
          return r;
        };
        entry->resume = make_resume();
        if (entry->break_op == OpKind::to_bool) {
          entry->resume_false = make_resume();
        }
      }
      for (const SymbolInfo& s : tr.env->symbols()) {
        rec.symbols.push_back("s" + std::to_string(s.id) + " = " + s.source_name());
      }
      for (const ShapeGuard& g : tr.env->guards()) {
        rec.shape_guards.push_back(g.to_string());
      }
    } catch (const UserError& e) {
      if (!rec.failed) {
        const std::source_location& w = e.where();
        record_failure("compiler::UserError", "UserError", e.what(), &w);
      }
      throw;
    } catch (const std::exception& e) {
      // Anything else the user's function threw while traced: record the failed compile.
      record_failure("std::exception", "Exception", e.what(), nullptr);
      throw;
    }
    entry->id = id;
    entry->id_text = id_text;
    rec.graph = print_graph(entry->graph, false);
    rec.guards = entry->guards.to_tree_string();
    rec.guard_count = entry->guards.check_count();
    rec.graph_op_count = entry->graph.op_count();
    records.push_back(rec);
    bump(stats.compiles);
    emit_metrics(
        {.entry = entry.get(),
         .frame = f,
         .frame_key = frame_key,
         .compile_id = id_text,
         .num_graph_breaks = static_cast<std::int64_t>(restart_reasons.size()),
         .start_time_us = start_us,
         .start = t0,
         .backend_compile_time_s = backend_s,
         .restart_reasons = restart_reasons,
         .dynamo_time_before_restart_s = before_restart_s,
         .cache_size = f.entries.size(),
         .recompile_reason = rec.recompile_reasons.empty() ? "" : rec.recompile_reasons.front(),
         .guard_latency_us = guard_latency_us});
    f.entries.push_back(std::move(entry));
    return f.entries.back().get();
  }

  // Guards requires_grad of every tensor the entry's graph holds as a constant.
  static void add_constant_guards(Entry& e) {
    std::vector<const TensorImpl*> seen;
    for (const Node& n : e.graph.nodes()) {
      for (const Arg& a : n.args) {
        const Tensor* t = std::get_if<Tensor>(&a.constant);
        if (a.kind != Arg::Kind::Constant || t == nullptr || !t->defined() ||
            std::find(seen.begin(), seen.end(), t->impl()) != seen.end()) {
          continue;
        }
        seen.push_back(t->impl());
        e.guards.add_constant_requires_grad(
            t->impl_ptr(), "the tensor " + t->type_string() + " that " +
                               std::string(op_aten_name(n.op)) + " reads at " +
                               n.where.file_name() + ":" + std::to_string(n.where.line()));
      }
    }
  }

  // Runs the rest of the call eagerly from frame `f` (the recompile limit was hit there).
  std::vector<Value> run_eager_from(Frame& f, CallState& st) {
    bump(stats.eager_frames);
    if (&f == &root) {
      OpHookGuard no_hook(nullptr);
      return body(st.args, st.arg_inputs);
    }
    // Replay: ops before the frame come from the compiled frames' results, the rest run eager.
    struct EagerReplay final : OpHook {
      std::span<const Value> served;
      std::int64_t first_op;
      std::int64_t next = 0;
      Value call(OpKind op, std::span<const Value> args, const std::source_location& loc) override {
        std::int64_t index = next++;
        if (index < first_op) {
          return served[static_cast<std::size_t>(index)];
        }
        CallSiteScope site(loc);
        return run_eager(op, args);
      }
    } replay;
    replay.served = st.env;
    replay.first_op = f.first_op;
    OpHookGuard hook(&replay);
    return body(st.args, st.arg_inputs);
  }

  // Warns once per frame that it hit the recompile limit, with the last reason (under the
  // exclusive lock).
  void warn_recompile_limit(Frame& f, const CallState& st) const {
    if (f.limit_warned) {
      return;
    }
    f.limit_warned = true;
    std::vector<GuardInput> last;
    gather_inputs(*f.entries.front(), st, last);
    std::string reason = f.entries.front()->guards.failure_reason(last).value_or("guards failed");
    std::fprintf(stderr,
                 "torchscope: compile(): frame %lld (%s) hit the recompile limit (%d); it runs "
                 "eagerly from now on. Last reason: %s\n",
                 static_cast<long long>(f.id), f.name.c_str(), options.recompile_limit,
                 reason.c_str());
  }

  // Functionalization's epilogue: the final value of every input the frame wrote in place
  // goes back into that input's memory, as PyTorch's AOT runtime wrapper copies mutated inputs
  // back, so eager and compiled calls leave the same values in them. It runs after the graph
  // and before a graph break's op, which may read the input.
  static void write_back_mutations(const Graph& g, std::span<const Value> inputs,
                                   std::span<const Value> values) {
    for (const graph::InputMutation& m : g.input_mutations) {
      const Tensor& target = m.placeholder >= 0
                                 ? std::get<Tensor>(inputs[static_cast<std::size_t>(m.placeholder)])
                                 : m.constant;
      const Tensor* value = std::get_if<Tensor>(&values[m.value_node]);
      TORCHSCOPE_ASSERT(value != nullptr && value->defined(), "a mutated input's value was kept");
      if (!value->is_same(target)) {
        autograd::NoGradGuard no_grad; // a data write: the input keeps its own autograd state
        OpHookGuard no_hook(nullptr);
        copy_(target, *value);
      }
    }
  }

  // The first entry of `f` whose guards pass for this call, or null.
  Entry* lookup(const Frame& f, const CallState& st, std::vector<GuardInput>& gi) const {
    for (const auto& e : f.entries) {
      bool ok;
      if (e->identity_inputs && e->guard_refs.size() == st.arg_inputs.size()) {
        ok = e->guards.check(st.arg_inputs);
      } else {
        gather_inputs(*e, st, gi);
        ok = e->guards.check(gi);
      }
      if (ok) {
        return e.get();
      }
    }
    return nullptr;
  }

  std::vector<Value> call(std::span<const Value> args, std::span<const GuardInput> inputs,
                          const std::source_location& call_site_now) {
    bump(stats.calls);
    CallState st;
    st.args = args;
    st.arg_inputs = inputs;
    st.call_site = call_site_now;
    Frame* f = &root;
    std::vector<GuardInput> gi;
    for (;;) {
      Entry* hit = nullptr;
      {
        // Entries are only ever appended (under the exclusive lock) and never move, so a hit
        // stays valid after the shared lock is released.
        std::shared_lock lock(mutex);
        hit = lookup(*f, st, gi);
      }
      if (hit != nullptr) {
        bump(stats.cache_hits);
      } else {
        std::unique_lock lock(mutex);
        // Another thread may have compiled an entry for these inputs meanwhile.
        hit = lookup(*f, st, gi);
        if (hit == nullptr) {
          if (static_cast<int>(f->entries.size()) >= options.recompile_limit) {
            warn_recompile_limit(*f, st);
            lock.unlock();
            return run_eager_from(*f, st);
          }
          hit = compile_frame(*f, st);
        } else {
          bump(stats.cache_hits);
        }
      }
      std::span<const GuardInput> hit_inputs = inputs;
      if (!hit->identity_inputs) {
        gather_inputs(*hit, st, gi);
        hit_inputs = gi;
      }
      std::array<std::int64_t, GuardSet::kMaxSymbols> symbols{};
      hit->guards.symbol_values(hit_inputs, symbols);
      std::span<const std::int64_t> sv(symbols.data(), hit->guards.symbol_count());
      if (hit->generator_offset_symbol >= 0) {
        // This call's draws: [offset, offset + draws) of the process's generator, taken at
        // once so concurrent calls never share numbers; the graph reads seed and offset as
        // symbols.
        const SymInt& draws = hit->generator_draws;
        const std::int64_t n = draws.is_symbolic() ? draws.node()->evaluate(sv) : draws.hint();
        const RandomState taken = take_random_offsets(static_cast<std::uint64_t>(n));
        symbols[static_cast<std::size_t>(hit->generator_seed_symbol)] =
            static_cast<std::int64_t>(taken.seed);
        symbols[static_cast<std::size_t>(hit->generator_offset_symbol)] =
            static_cast<std::int64_t>(taken.offset);
      }
      std::vector<Value> placeholders;
      placeholders.reserve(hit->graph.input_count());
      for (const Node& n : hit->graph.nodes()) {
        if (n.kind == NodeKind::Placeholder) {
          placeholders.push_back(input_value(n.input, st));
        }
      }
      std::vector<Value> values;
      const std::int64_t nth =
          tracer::enabled() ? hit->calls.fetch_add(1, std::memory_order_relaxed) + 1 : 0;
      if (nth > 0 && timed_call(nth)) {
        const auto t0 = Clock::now();
        values = hit->compiled->run(placeholders, sv);
        const auto ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
        hit->timed_calls.fetch_add(1, std::memory_order_relaxed);
        hit->timed_ns.fetch_add(ns, std::memory_order_relaxed);
      } else {
        values = hit->compiled->run(placeholders, sv);
      }
      write_back_mutations(hit->graph, placeholders, values);
      if (!hit->breaks) {
        std::size_t out = hit->graph.output_index();
        TORCHSCOPE_ASSERT(out < hit->graph.size(), "a final frame has an output node");
        return resolve_args(hit->graph, hit->graph.node(out), values, sv);
      }
      // Keep every result for the frames after the break, then compute the break value.
      std::size_t need = static_cast<std::size_t>(hit->break_index) + 1;
      if (st.env.size() < need) {
        st.env.resize(need);
        st.names.resize(need, nullptr);
      }
      for (std::size_t i = 0; i < hit->graph.size(); ++i) {
        const Node& n = hit->graph.node(i);
        if (n.kind == NodeKind::CallOp && n.op_index >= 0) {
          st.env[static_cast<std::size_t>(n.op_index)] = values[i];
          st.names[static_cast<std::size_t>(n.op_index)] = &n.name;
        }
      }
      Node brk;
      brk.args = hit->break_args;
      std::vector<Value> bargs = resolve_args(hit->graph, brk, values, sv);
      {
        CallSiteScope site(hit->break_where);
        st.env[static_cast<std::size_t>(hit->break_index)] = run_eager(hit->break_op, bargs);
      }
      const Value& taken = st.env[static_cast<std::size_t>(hit->break_index)];
      const bool* branch = std::get_if<bool>(&taken);
      f = branch != nullptr && !*branch && hit->resume_false ? hit->resume_false.get()
                                                             : hit->resume.get();
    }
  }
};

Engine::Engine(Body body, CompileOptions options, std::source_location where) {
  if (options.custom_backend && !options.backend.empty()) {
    throw UserError("compile(): both backend = \"" + options.backend +
                        "\" and a custom_backend are set; pass one of them",
                    where);
  }
  impl_ = std::make_unique<Impl>(std::move(body), std::move(options), where);
}

Engine::~Engine() = default;

std::vector<Value> Engine::call(std::span<const Value> args, std::span<const GuardInput> inputs,
                                const std::source_location& call_site) {
  return impl_->call(args, inputs, call_site);
}

CaptureStats Engine::stats() const noexcept {
  return impl_->stats.snapshot();
}
const std::vector<CompileRecord>& Engine::records() const noexcept {
  return impl_->records;
}

void Engine::reset() {
  std::unique_lock lock(impl_->mutex);
  Impl::write_runtime_facts(impl_->root); // the entries about to go
  impl_->root.entries.clear();
  impl_->root.dims.clear();
  impl_->root.compiles = 0;
  impl_->root.limit_warned = false;
}

Tensor ValueCodec<Tensor>::from_values(std::span<const Value> v) {
  TORCHSCOPE_ASSERT(v.size() == 1, "a Tensor result is one value");
  // An undefined tensor result travels as None.
  const Tensor* t = std::get_if<Tensor>(&v[0]);
  return t != nullptr ? *t : Tensor();
}

std::vector<Tensor> ValueCodec<std::vector<Tensor>>::from_values(std::span<const Value> v) {
  std::vector<Tensor> out;
  out.reserve(v.size());
  for (const Value& x : v) {
    const Tensor* t = std::get_if<Tensor>(&x);
    out.push_back(t != nullptr ? *t : Tensor());
  }
  return out;
}

GuardInput guard_input_of(const Tensor& t) noexcept {
  return GuardInput::of(t);
}
GuardInput guard_input_of(double d) noexcept {
  return GuardInput::of_float(d);
}
GuardInput guard_input_of(bool b) noexcept {
  return GuardInput::of_bool(b);
}
GuardInput guard_input_of(std::int64_t i) noexcept {
  return GuardInput::of_int(i);
}

} // namespace capture
} // namespace compiler
