// compiler/ops: OpKind (generated from op_list.h), dispatch, and the hook capture installs.
//
// Every op function packs its arguments into Values and calls dispatch(). With no hook
// installed on this thread, dispatch runs the eager CPU kernel (run_eager). While capture
// traces, it installs an OpHook (OpHookGuard) that records a graph node and computes output
// metadata with run_meta (shape and dtype inference over SymInt sizes, no data). The
// compiled-graph interpreter calls run_eager directly, so compiled and eager agree bit for bit.
//
// run_eager and run_meta uninstall the hook while they run, so a kernel that is built from
// other ops never re-enters the hook.
#pragma once

#include "compiler/core/value.h"
#include "compiler/ops/op_list.h"

#include <cstdint>
#include <optional>
#include <source_location>
#include <span>
#include <string_view>

namespace compiler {

enum class OpKind : std::uint8_t {
#define TORCHSCOPE_OP_ENUM(name, aten, category, level) name,
  TORCHSCOPE_COMPILER_OPS(TORCHSCOPE_OP_ENUM)
#undef TORCHSCOPE_OP_ENUM
};

#define TORCHSCOPE_OP_COUNT(name, aten, category, level) +1
inline constexpr int kNumOps = 0 TORCHSCOPE_COMPILER_OPS(TORCHSCOPE_OP_COUNT);
#undef TORCHSCOPE_OP_COUNT

enum class OpCategory : std::uint8_t {
  Pointwise,     // elementwise with broadcasting
  Reduction,     // reduces dims
  Linalg,        // matmul, bmm
  Nn,            // softmax, layer_norm, ...
  View,          // result aliases the input's storage (reshape: when the strides allow it)
  Shape,         // copies into a new layout (cat, stack, contiguous)
  Indexing,      // reads or writes along one dim at positions an index tensor gives (gather)
  Transfer,      // moves a tensor to another device (to); the only op that changes devices
  Factory,       // creates a tensor from scalars
  DataDependent, // returns a host value read from tensor data (a graph break under capture)
  Extern,        // a user's op (custom_ops.h): opaque to passes and fusion, runs its kernel
};

// Whether an op is primitive or decomposes into primitives (op_list.h explains the levels).
enum class OpLevel : std::uint8_t { Prim, Composite };

// The C++ name ("add").
std::string_view op_name(OpKind op) noexcept;
// The ATen name graphs print ("aten.add").
std::string_view op_aten_name(OpKind op) noexcept;
OpCategory op_category(OpKind op) noexcept;
OpLevel op_level(OpKind op) noexcept;
// True for the primitive ops (op_level == Prim).
inline bool is_prim(OpKind op) noexcept {
  return op_level(op) == OpLevel::Prim;
}
std::string_view op_category_name(OpCategory c) noexcept;
// Looks an op up by its C++ or ATen name.
std::optional<OpKind> op_from_name(std::string_view name) noexcept;

// Receives every op while installed. Implemented by capture.
class OpHook {
public:
  virtual ~OpHook() = default;
  virtual Value call(OpKind op, std::span<const Value> args, const std::source_location& loc) = 0;
  // An in-place op (`op`: "add_") writes `value`, already of dst's dtype and shape, into `dst`
  // (ops.h, in-place ops). Capture records it functionally: dst stands for value from now on,
  // and a mutated graph input is written back after the graph runs. The default writes the
  // data, as eager does (a hook that only serves or runs ops eagerly); UserError on fakes.
  virtual void mutate(const Tensor& dst, const Tensor& value, std::string_view op,
                      const std::source_location& loc);
};

// The hook installed on this thread, or nullptr.
OpHook* current_op_hook() noexcept;

// RAII: installs `hook` (nullptr uninstalls) on this thread; restores the previous one.
class OpHookGuard {
public:
  explicit OpHookGuard(OpHook* hook) noexcept;
  ~OpHookGuard();
  OpHookGuard(const OpHookGuard&) = delete;
  OpHookGuard& operator=(const OpHookGuard&) = delete;

private:
  OpHook* previous_;
};

// Forwards to the installed hook, or runs the eager kernel. Makes `loc` the current call site
// (errors.h) so a UserError raised by the kernel or the hook names the user's line. When grad
// mode is on and a tensor argument requires grad, autograd records the call (the op runs
// below autograd, then its result gets a backward node: autograd/autograd.h).
Value dispatch(OpKind op, std::span<const Value> args,
               const std::source_location& loc = std::source_location::current());

// The hook or the eager kernel, without autograd (what dispatch() runs beneath it).
Value dispatch_below_autograd(OpKind op, std::span<const Value> args,
                              const std::source_location& loc);

// The eager CPU kernel. Tensor arguments must be real (not fake) and, except for to(), item(),
// to_bool() and factories, on the host (ops/op_device.h); UserError otherwise.
Value run_eager(OpKind op, std::span<const Value> args);

// Output metadata only: the result tensor(s) are fake, with sizes computed over SymInt (so
// symbolic sizes flow through, and decisions on them record guards). Tensor arguments may be
// real or fake. The result's device follows the arguments (ops/op_device.h: a tensor on the
// devices its inputs share, the device asked for by to() and factories). For DataDependent ops
// (item, to_bool) there is no value without data: it returns std::monostate, and capture must break
// the graph there.
Value run_meta(OpKind op, std::span<const Value> args);

} // namespace compiler
