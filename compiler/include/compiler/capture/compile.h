// compiler/capture: compile(), Dynamo's role in C++.
//
//   auto cf = compiler::compile([](const Tensor& x, double scale) { return sin(x) * scale; },
//                               {.arg_names = {"x", "scale"}});
//   Tensor y = cf(x, 2.0);   // same signature as the function
//
// Each call looks for the first cached entry whose guards pass for these arguments and runs its
// graph. Otherwise it traces the function on fake tensors into a graph (capture/graph.h),
// builds the guards (capture/guards.h), caches the entry, and runs it. A failed guard causes a
// recompile whose recompile_reasons name the failed guard of each entry; a size that changed
// between compiles becomes symbolic (automatic dynamic shapes, 0 and 1 specialised); after
// `recompile_limit` compiles of one frame it runs eagerly. A data-dependent op (item(),
// to_bool()) breaks the graph: the part before runs compiled, the value is computed, and the
// rest is traced as a new frame (docs/COMPILER.md explains the replay design). Everything is
// traced as PyTorch traces it when TORCH_TRACE is set.
//
// Supported argument types: Tensor, integers, double/float, bool, and nn::Module subclasses
// by reference (guarded by identity and by the attributes the function read). Supported results:
// Tensor, std::vector<Tensor>, std::tuple of Tensors, and scalars (specialised as constants).
#pragma once

#include "compiler/backend/backend.h"
#include "compiler/capture/guards.h"
#include "compiler/core/errors.h"
#include "compiler/core/value.h"
#include "compiler/nn/module.h"
#include "compiler/tensor/tensor.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace compiler {

struct CompileOptions {
  // A graph break is a user error (compiler::UserError naming the location) instead.
  bool fullgraph = false;
  // Every dimension is symbolic from the first compile (0 and 1 stay specialised).
  bool dynamic = false;
  // A size that changed between compiles becomes symbolic on the recompile.
  bool automatic_dynamic = true;
  // Compiles per frame before it runs eagerly.
  int recompile_limit = 8;
  // The function's name in logs; default: the enclosing function of the compile() call.
  std::string name{};
  // The arguments' names in guards and graphs ("x"); default: arg0, arg1, ...
  std::vector<std::string> arg_names{};
  // What compiles the captured graphs (torch.compile's `backend=`): "inductor" (generated code)
  // or "eager" (every node on its eager kernel: capture only, exact). Empty: the environment
  // variable TORCHSCOPE_COMPILE_BACKEND, else "inductor".
  std::string backend{};
  // A user backend instead (torch.compile(backend=fn), compiler/backend/backend.h): it gets each
  // captured graph and returns the function that runs it; aot::aot_autograd makes one that runs
  // the AOT stage and hands the forward and backward graphs to user compilers. UserError when
  // `backend` is set too.
  backend::CustomBackend custom_backend{};
  // torch.compile's `mode=`: "default", "reduce-overhead" (GPU programs replay CUDA graphs),
  // "max-autotune" (GPU kernels' launch configurations and matmuls measured, and CUDA graphs),
  // "max-autotune-no-cudagraphs". Empty: TORCHSCOPE_COMPILE_MODE, else "default".
  std::string mode{};
};

// Marks dimension `dim` of `t` dynamic for its next compile, as torch._dynamo.mark_dynamic.
void mark_dynamic(const Tensor& t, std::int64_t dim);

namespace capture {

// Counters of one compiled function (for tests and the sample programs).
struct CaptureStats {
  std::int64_t calls = 0;
  std::int64_t cache_hits = 0;      // frame lookups answered by an existing entry
  std::int64_t compiles = 0;        // successful compiles, all frames
  std::int64_t failed_compiles = 0; // compiles that raised (fullgraph graph breaks, user errors)
  std::int64_t graph_breaks = 0;    // breaks found while tracing
  std::int64_t eager_frames = 0;    // frame runs that fell back to eager (recompile limit)
  std::int64_t frames = 0;          // distinct frames (the function plus resume frames)
};

// One compile, as logged: what tests read instead of parsing the trace.
struct CompileRecord {
  std::string compile_id; // "0/1"
  std::int64_t frame_id = 0;
  std::string frame_name; // "f", "torch_dynamo_resume_in_f_at_12"
  std::vector<std::string> recompile_reasons;
  std::string graph;                     // the FX-style printout (without source code lines)
  std::string guards;                    // the guard tree
  std::string graph_break_reason;        // empty when the frame did not break
  std::vector<std::string> shape_guards; // "s0 > 16"
  std::vector<std::string> symbols;      // "s0 = L['x'].size()[0]"
  std::size_t guard_count = 0;
  std::size_t graph_op_count = 0;
  bool failed = false;
};

// The type-erased engine behind CompiledFunction: frames, caches, tracing, running.
class Engine {
public:
  // `body` runs the user's function on Values (fake tensors while tracing) and returns its
  // result as Values.
  // Module arguments travel as std::monostate Values; the body finds them in the guard views.
  using Body =
      std::function<std::vector<Value>(std::span<const Value>, std::span<const GuardInput>)>;
  Engine(Body body, CompileOptions options, std::source_location where);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // One call: guard, run or compile, fall back to eager; returns the function's result.
  // `call_site` is where the user called the compiled function: the outer frame of the user
  // stack that dynamo_start and compilation_metrics log. Safe to call from several threads:
  // cache lookups share a lock, a compile holds it alone.
  std::vector<Value> call(std::span<const Value> args, std::span<const GuardInput> inputs,
                          const std::source_location& call_site = std::source_location::current());

  // A snapshot of the counters.
  CaptureStats stats() const noexcept;
  // Every compile so far. Not synchronised: read it when no other thread is calling.
  const std::vector<CompileRecord>& records() const noexcept;
  // Forgets every compiled entry (frame ids stay as assigned). Not while another thread calls.
  void reset();

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

// Result conversion: a function's result travels through the engine as a list of Values.
template <class T>
struct ValueCodec;

template <>
struct ValueCodec<Tensor> {
  static Tensor from_values(std::span<const Value> v);
  static void append(std::vector<Value>& out, const Tensor& t) { out.emplace_back(t); }
};
template <>
struct ValueCodec<std::vector<Tensor>> {
  static std::vector<Tensor> from_values(std::span<const Value> v);
  static void append(std::vector<Value>& out, const std::vector<Tensor>& ts) {
    for (const Tensor& t : ts) {
      out.emplace_back(t);
    }
  }
};
template <class... Ts>
struct ValueCodec<std::tuple<Ts...>> {
  static std::tuple<Ts...> from_values(std::span<const Value> v) {
    return from_impl(v, std::index_sequence_for<Ts...>{});
  }
  static void append(std::vector<Value>& out, const std::tuple<Ts...>& t) {
    std::apply([&](const auto&... e) { (ValueCodec<Ts>::append(out, e), ...); }, t);
  }

private:
  template <std::size_t... I>
  static std::tuple<Ts...> from_impl(std::span<const Value> v, std::index_sequence<I...>) {
    return std::tuple<Ts...>(ValueCodec<Ts>::from_values(v.subspan(I, 1))...);
  }
};

// A borrowed guard view of one argument.
GuardInput guard_input_of(const Tensor& t) noexcept;
GuardInput guard_input_of(double d) noexcept;
GuardInput guard_input_of(bool b) noexcept;
GuardInput guard_input_of(std::int64_t i) noexcept;

// The signature of a callable: its decayed argument types and result.
template <class F>
struct CallableTraits : CallableTraits<decltype(&F::operator())> {};
template <class R, class... A>
struct CallableTraits<R (*)(A...)> {
  using Result = R;
  using Args = std::tuple<A...>; // as declared: module arguments are references
};
template <class R, class... A>
struct CallableTraits<R(A...)> : CallableTraits<R (*)(A...)> {};
template <class C, class R, class... A>
struct CallableTraits<R (C::*)(A...) const> : CallableTraits<R (*)(A...)> {};
template <class C, class R, class... A>
struct CallableTraits<R (C::*)(A...)> : CallableTraits<R (*)(A...)> {};

template <class T>
inline constexpr bool kIsModule = std::is_base_of_v<nn::Module, T>;

template <class T>
Value arg_to_value(const T& a) {
  if constexpr (kIsModule<T>) {
    return std::monostate{};
  } else if constexpr (std::is_same_v<T, Tensor>) {
    return a;
  } else if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<double>(a);
  } else {
    static_assert(std::is_integral_v<T>, "compile(): unsupported argument type");
    return SymInt(static_cast<std::int64_t>(a));
  }
}

template <class T>
T arg_from_value(const Value& v) {
  if constexpr (std::is_same_v<T, Tensor>) {
    return std::get<Tensor>(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return std::get<bool>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(std::get<double>(v));
  } else {
    return static_cast<T>(std::get<SymInt>(v).hint());
  }
}

template <class T>
GuardInput arg_guard_input(const T& a) noexcept {
  if constexpr (kIsModule<T>) {
    return GuardInput::of_module(a);
  } else if constexpr (std::is_same_v<T, Tensor>) {
    return guard_input_of(a);
  } else if constexpr (std::is_same_v<T, bool>) {
    return guard_input_of(a);
  } else if constexpr (std::is_floating_point_v<T>) {
    return guard_input_of(static_cast<double>(a));
  } else {
    return guard_input_of(static_cast<std::int64_t>(a));
  }
}

template <class R>
void append_result(std::vector<Value>& out, const R& r) {
  if constexpr (std::is_same_v<R, Tensor> || std::is_same_v<R, std::vector<Tensor>>) {
    ValueCodec<R>::append(out, r);
  } else if constexpr (requires { typename std::tuple_size<R>::type; }) {
    ValueCodec<R>::append(out, r);
  } else {
    out.push_back(arg_to_value(r));
  }
}

template <class R>
R result_from(std::span<const Value> v) {
  if constexpr (std::is_void_v<R>) {
    return;
  } else if constexpr (std::is_same_v<R, Tensor> || std::is_same_v<R, std::vector<Tensor>> ||
                       requires { typename std::tuple_size<R>::type; }) {
    return ValueCodec<R>::from_values(v);
  } else {
    TORCHSCOPE_ASSERT(v.size() == 1, "a scalar result is one value");
    return arg_from_value<R>(v[0]);
  }
}

template <class F, class R, class Args>
class CompiledFunction;

// What compile() returns: callable with the function's signature.
template <class F, class R, class... A>
class CompiledFunction<F, R, std::tuple<A...>> {
public:
  CompiledFunction(F fn, CompileOptions options, std::source_location where)
      : engine_(std::make_shared<Engine>(make_body(std::move(fn)), std::move(options), where)) {}

  // The defaulted last parameter records the caller's location (the user stack of the logs);
  // the argument list itself is fixed by the function's signature, so callers never pass it.
  R operator()(const std::remove_cvref_t<A>&... args,
               std::source_location call_site = std::source_location::current()) const {
    const std::array<GuardInput, sizeof...(A)> inputs{
        arg_guard_input<std::remove_cvref_t<A>>(args)...};
    const std::array<Value, sizeof...(A)> values{arg_to_value<std::remove_cvref_t<A>>(args)...};
    std::vector<Value> out = engine_->call(values, inputs, call_site);
    return result_from<R>(out);
  }

  CaptureStats stats() const noexcept { return engine_->stats(); }
  const std::vector<CompileRecord>& records() const noexcept { return engine_->records(); }
  void reset() { engine_->reset(); }

private:
  // Rebuilds argument I for the user's function: modules from their guard view (they are
  // passed by reference), everything else from its Value.
  template <class T>
  static decltype(auto) unpack(const Value& v, const GuardInput& g) {
    using Plain = std::remove_cvref_t<T>;
    if constexpr (kIsModule<Plain>) {
      // The pointer came from a Plain& in operator(), so the downcast is exact.
      return *const_cast<Plain*>(static_cast<const Plain*>(g.module));
    } else {
      (void)g;
      return arg_from_value<Plain>(v);
    }
  }

  static Engine::Body make_body(F fn) {
    return [fn = std::move(fn)](std::span<const Value> v,
                                std::span<const GuardInput> g) -> std::vector<Value> {
      std::vector<Value> out;
      auto invoke = [&]<std::size_t... I>(std::index_sequence<I...>) {
        if constexpr (std::is_void_v<R>) {
          fn(unpack<A>(v[I], g[I])...);
        } else {
          append_result<R>(out, fn(unpack<A>(v[I], g[I])...));
        }
      };
      invoke(std::index_sequence_for<A...>{});
      return out;
    };
  }

  std::shared_ptr<Engine> engine_;
};

} // namespace capture

// Compiles `fn` (a lambda, function pointer or functor with one operator()). The returned
// object is cheap to copy; copies share the cache.
template <class F>
auto compile(F fn, CompileOptions options = {},
             std::source_location where = std::source_location::current()) {
  using Traits = capture::CallableTraits<std::decay_t<F>>;
  return capture::CompiledFunction<std::decay_t<F>, typename Traits::Result, typename Traits::Args>(
      std::move(fn), std::move(options), where);
}

} // namespace compiler
