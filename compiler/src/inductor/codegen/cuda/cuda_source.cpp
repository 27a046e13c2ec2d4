// CUDA C++ for a kernel plan (codegen/cuda/cuda_source.h): the CUDA dialect of the C-like
// printer (codegen/c_like_printer.h) and the two kernel shapes.
#include "inductor/codegen/cuda/cuda_source.h"

#include "compiler/core/errors.h"
#include "inductor/codegen/c_like_printer.h"
#include "inductor/ir/index_analysis.h"
#include "kernels/counter_rng.h"

#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace compiler::inductor::cuda_codegen {

namespace {

std::string cuda_storage_type(DType d) {
  switch (d) {
  case DType::Float32:
    return "float";
  case DType::Float64:
    return "double"; // float64 graphs bypass code generation; named for completeness
  case DType::Float16:
  case DType::BFloat16:
    return "unsigned short"; // raw bits, converted by the prelude's helpers
  case DType::Int32:
    return "int";
  case DType::Int64:
    return "long long";
  case DType::Bool:
    return "unsigned char";
  }
  return "?";
}

std::string value_type(DType d) {
  switch (compute_dtype(d)) {
  case DType::Int64:
    return "long long";
  case DType::Bool:
    return "bool";
  default:
    return "float";
  }
}

std::string cuda_literal(double v, DType d) {
  if (d == DType::Bool) {
    return v != 0.0 ? "true" : "false";
  }
  if (d == DType::Int64) {
    if (v <= -9.2233720368547758e18) {
      return "(-9223372036854775807LL - 1)";
    }
    if (v >= 9.2233720368547758e18) {
      return "9223372036854775807LL";
    }
    return std::to_string(static_cast<std::int64_t>(v)) + "LL";
  }
  if (std::isinf(v) || std::abs(v) > 3.4028234663852886e38) {
    return v > 0 ? "TS_INF" : "(-TS_INF)"; // beyond float's range: as f32 rounds it
  }
  if (std::isnan(v)) {
    return "TS_NAN";
  }
  return "(" + decimal_text(v) + "f)";
}

std::string init_text(ReductionType t, DType d) {
  const bool fp = d == DType::Float32;
  switch (t) {
  case ReductionType::sum:
    return fp ? "0.0f" : "0LL";
  case ReductionType::max:
  case ReductionType::argmax:
    return fp ? "(-TS_INF)" : "(-9223372036854775807LL - 1)";
  case ReductionType::min:
    return fp ? "TS_INF" : "9223372036854775807LL";
  }
  return "0";
}

// "x1 = (xindex / (19)) % (7)" for each variable of a row-major nest over `sizes`, declared as
// `type` (the kernel's index type, kernel_index_type()).
std::vector<std::string> delinearized(char prefix, const std::string& linear,
                                      const std::vector<Expr>& sizes, const std::string& type) {
  std::vector<std::string> out;
  const std::size_t n = sizes.size();
  for (std::size_t d = 0; d < n; ++d) {
    Expr inner = 1;
    for (std::size_t e = d + 1; e < n; ++e) {
      inner = inner * sizes[e];
    }
    std::string v = linear;
    if (!(inner.is_constant() && inner.constant_value() == 1)) {
      v = "(" + v + " / (" + inner.str() + "))";
    }
    if (d > 0) {
      v = "(" + v + " % (" + sizes[d].str() + "))";
    }
    out.push_back("const " + type + " " + std::string(1, prefix) + std::to_string(d) + " = " + v +
                  ";");
  }
  return out;
}

// The CUDA dialect of the C-like printer, with what a GPU kernel adds: row-level code stored by
// one thread, persistent rows kept in register arrays, stores deferred to the end of a round.
class CudaPrinter final : public CLikePrinter {
public:
  CudaPrinter(const KernelPlan& k, const LoweredGraph& ir)
      : CLikePrinter(k, ir, {.indent = 2, .brace_on_own_line = false}) {}

  bool checks_indices() const noexcept { return checks_indices_; }
  // Row-level code of a reduction kernel: every thread computes it, the thread `guard` names
  // (thread 0 of a row's block; the first row of threads of a column tile) stores it.
  void set_row_level(bool row) { row_level_ = row; }
  void set_row_guard(std::string guard) { row_guard_ = std::move(guard); }

  // A persistent row: every looping stage visits the same `slots` elements per thread (slot
  // `slot_expr`), so an input element one stage read is kept in a register array for the
  // stages after it instead of read again. Arrays are declared where mark_declarations() was
  // called.
  void set_row_cache(int slots, std::string slot_expr) {
    cache_slots_ = slots;
    slot_expr_ = std::move(slot_expr);
  }
  // Buffers whose stores this persistent kernel keeps in registers only (rows_only()).
  void set_rows_only(std::set<BufferId> ids) { rows_only_ = std::move(ids); }
  const std::set<BufferId>& rows_only() const noexcept { return rows_only_; }
  // A pointwise kernel whose arguments may alias (a result computed in place over an input):
  // stores wait in register arrays until the round's `unroll` elements are computed, so every
  // load of the round can be in flight at once (without __restrict__, a load may not pass an
  // earlier store); deferred_stores() then gives the stores, in terms of ts_u.
  void defer_stores(int unroll) { defer_stores_ = unroll; }
  const std::vector<std::string>& deferred_stores() const noexcept { return deferred_; }
  void mark_declarations() {
    decl_pos_ = text_size();
    decl_indent_ = depth();
  }

  LoopValue load(BufferId buffer, const Expr& index) override {
    if (std::optional<LoopValue> f = forwarded(buffer, index)) {
      return *f; // computed in this kernel: from registers
    }
    const DType st = ir_.buffer(buffer).layout.dtype;
    TORCHSCOPE_ASSERT(is_arg(buffer), "a CUDA kernel reads a buffer it was not given");
    const std::string element = this->element(buffer, index);
    if (in_row_loop()) {
      // Under a mask too: the slot's value is used only where the mask holds.
      auto it = stored_cache_.find(element);
      if (it != stored_cache_.end()) {
        return define(it->second + "[" + slot_expr_ + "]", compute_dtype(st)); // stored earlier
      }
    }
    std::string read = to_compute(element, st);
    if (!masks_.empty()) {
      read = "(" + masks_.back() + " ? " + read + " : " + zero(compute_dtype(st)) + ")";
    }
    if (in_row_loop() && arg_name(buffer).rfind("in_ptr", 0) == 0) {
      return cached(read, compute_dtype(st)); // an input: never written by this kernel
    }
    return define(read, compute_dtype(st));
  }

  LoopValue masked(LoopValue mask, const std::function<LoopValue()>& body, double other) override {
    const std::string m = expr(cast(mask, DType::Bool));
    masks_.push_back(masks_.empty() ? m : "(" + masks_.back() + " && " + m + ")");
    const LoopValue v = body();
    masks_.pop_back();
    return define(m + " ? " + expr(v) + " : " + literal(other, v.dtype), v.dtype);
  }

  LoopValue load_indirect(BufferId buffer, LoopValue row, const Expr& rows, const Expr& row_stride,
                          const Expr& offset) override {
    checks_indices_ = true;
    const DType st = ir_.buffer(buffer).layout.dtype;
    const std::string mask = masks_.empty() ? "true" : masks_.back();
    const LoopValue r = define("ts_check_row(" + expr(cast(row, DType::Int64)) + ", " + rows.str() +
                                   ", " + mask + ", ts_status)",
                               DType::Int64);
    std::string read = to_compute(arg_name(buffer) + "[(" + offset.str() + ") + " + expr(r) +
                                      " * (" + row_stride.str() + ")]",
                                  st);
    if (!masks_.empty()) {
      read = "(" + mask + " ? " + read + " : " + zero(compute_dtype(st)) + ")";
    }
    return define(read, compute_dtype(st));
  }

  void store(BufferId buffer, const Expr& index, LoopValue v) override {
    const DType st = ir_.buffer(buffer).layout.dtype;
    const LoopValue stored = cast(v, st); // what a later read would see
    remember(buffer, index, stored);
    if (kept_in_registers(buffer)) {
      return;
    }
    const std::string element = this->element(buffer, index);
    const bool registers_only = in_row_loop() && rows_only_.count(buffer) != 0;
    if (defer_stores_ > 0) {
      // Kept until every element of the round has been computed (deferred_stores()).
      const std::string array =
          declare_array(storage_type(st), "ts_store", std::to_string(defer_stores_));
      line(array + "[ts_u] = " + to_storage(expr(stored), st) + ";");
      deferred_.push_back(element + " = " + array + "[ts_u];");
    } else if (!registers_only) {
      line((row_level_ ? "if (" + row_guard_ + ") " : "") + element + " = " +
           to_storage(expr(stored), st) + ";");
    }
    if (in_row_loop()) {
      // A later stage of the row reads it from the same slot: from registers, not memory.
      stored_cache_[element] = slot_array(stored.dtype);
      line(stored_cache_[element] + "[" + slot_expr_ + "] = " + expr(stored) + ";");
    }
  }

  LoopValue index_expr(const Expr& e, DType dtype) override {
    const LoopValue i = define("(long long)(" + e.str() + ")", DType::Int64);
    return cast(i, dtype);
  }

  LoopValue cast(LoopValue v, DType dtype) override {
    const DType to = compute_dtype(dtype);
    const bool rounds =
        dtype == DType::Float16 || dtype == DType::BFloat16 || dtype == DType::Int32;
    if (v.dtype == to && !rounds) {
      return v;
    }
    const std::string x = expr(v);
    std::string e;
    switch (to) {
    case DType::Float32:
      e = v.dtype == DType::Float32 ? x : "(float)(" + x + ")";
      if (dtype == DType::Float16) {
        e = "ts_round_f16(" + e + ")";
      } else if (dtype == DType::BFloat16) {
        e = "ts_round_bf16(" + e + ")";
      }
      break;
    case DType::Int64:
      // Float to integer saturates (NaN gives 0) in CUDA's conversions, as to_dtype does.
      e = dtype == DType::Int32 ? "(long long)(int)(" + x + ")" : "(long long)(" + x + ")";
      break;
    case DType::Bool:
      e = v.dtype == DType::Float32 ? "(" + x + " != 0.0f)" : "(" + x + " != 0)";
      break;
    default:
      TORCHSCOPE_ASSERT(false, "cast to an unknown compute dtype");
    }
    return define(e, to);
  }

  LoopValue apply(LoopOp op, std::span<const LoopValue> args) override {
    // Operand dtype, as the CPU generator decides it: mixed operands compute in float.
    DType dtype = args.empty() ? DType::Float32 : args[0].dtype;
    const LoopOpCategory cat = loop_op_category(op);
    if (cat == LoopOpCategory::Float) {
      dtype = DType::Float32;
    } else if (cat == LoopOpCategory::Random) {
      dtype = DType::Int64;
    } else if (cat == LoopOpCategory::Select) {
      dtype = args[1].dtype; // the other branch converts to it, as on the host
    } else if (cat == LoopOpCategory::Arith || cat == LoopOpCategory::Compare) {
      for (const LoopValue& v : args) {
        dtype = v.dtype == DType::Float32 ? DType::Float32 : dtype;
      }
      if (dtype == DType::Bool && cat == LoopOpCategory::Arith) {
        dtype = DType::Int64;
      }
    }
    std::vector<std::string> a;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const bool boolean =
          cat == LoopOpCategory::Logic || (cat == LoopOpCategory::Select && i == 0);
      a.push_back(expr(cast(args[i], boolean ? DType::Bool : dtype)));
    }
    const bool fp = dtype == DType::Float32;
    std::string e;
    switch (op) {
    case LoopOp::add:
      e = a[0] + " + " + a[1];
      break;
    case LoopOp::sub:
      e = a[0] + " - " + a[1];
      break;
    case LoopOp::mul:
      e = a[0] + " * " + a[1];
      break;
    case LoopOp::truediv:
      e = a[0] + " / " + a[1];
      break;
    case LoopOp::pow:
      // A constant exponent of -1 (sigmoid's decomposition) or 2 is a reciprocal or a product,
      // as exact as powf and a fraction of its cost; other exponents keep powf's special cases.
      if (fp && a[1] == cuda_literal(-1.0, DType::Float32)) {
        e = "__frcp_rn(" + a[0] + ")"; // IEEE's 1 / x, without the division's slow path
      } else if (fp && a[1] == cuda_literal(2.0, DType::Float32)) {
        e = a[0] + " * " + a[0];
      } else {
        e = fp ? "powf(" + a[0] + ", " + a[1] + ")" : "ts_int_pow(" + a[0] + ", " + a[1] + ")";
      }
      break;
    case LoopOp::maximum:
      e = "ts_maximum(" + a[0] + ", " + a[1] + ")";
      break;
    case LoopOp::minimum:
      e = "ts_minimum(" + a[0] + ", " + a[1] + ")";
      break;
    case LoopOp::eq:
      e = a[0] + " == " + a[1];
      break;
    case LoopOp::ne:
      e = a[0] + " != " + a[1];
      break;
    case LoopOp::lt:
      e = a[0] + " < " + a[1];
      break;
    case LoopOp::le:
      e = a[0] + " <= " + a[1];
      break;
    case LoopOp::gt:
      e = a[0] + " > " + a[1];
      break;
    case LoopOp::ge:
      e = a[0] + " >= " + a[1];
      break;
    case LoopOp::logical_and:
      e = a[0] + " && " + a[1];
      break;
    case LoopOp::logical_or:
      e = a[0] + " || " + a[1];
      break;
    case LoopOp::logical_not:
      e = "!" + a[0];
      break;
    case LoopOp::where:
      e = a[0] + " ? " + a[1] + " : " + a[2];
      break;
    case LoopOp::neg:
      e = "-" + a[0];
      break;
    case LoopOp::abs:
      e = fp ? "fabsf(" + a[0] + ")" : "ts_abs(" + a[0] + ")";
      break;
    case LoopOp::relu:
      e = "ts_relu(" + a[0] + ")";
      break;
    case LoopOp::exp:
      e = "expf(" + a[0] + ")";
      break;
    case LoopOp::log:
      e = "logf(" + a[0] + ")";
      break;
    case LoopOp::sin:
      e = "sinf(" + a[0] + ")";
      break;
    case LoopOp::cos:
      e = "cosf(" + a[0] + ")";
      break;
    case LoopOp::tanh:
      e = "tanhf(" + a[0] + ")";
      break;
    case LoopOp::sigmoid:
      e = "1.0f / (1.0f + expf(-" + a[0] + "))";
      break;
    case LoopOp::sqrt:
      e = "sqrtf(" + a[0] + ")";
      break;
    case LoopOp::rsqrt:
      e = "1.0f / sqrtf(" + a[0] + ")";
      break;
    case LoopOp::erf:
      e = "erff(" + a[0] + ")";
      break;
    case LoopOp::isnan:
      e = "(" + a[0] + " != " + a[0] + ")";
      break;
    // pointwise, more (floor, ceil, round, trunc leave i64 values as they are)
    case LoopOp::floor:
      e = fp ? "floorf(" + a[0] + ")" : a[0];
      break;
    case LoopOp::ceil:
      e = fp ? "ceilf(" + a[0] + ")" : a[0];
      break;
    case LoopOp::round:
      e = fp ? "rintf(" + a[0] + ")" : a[0]; // to nearest even
      break;
    case LoopOp::trunc:
      e = fp ? "truncf(" + a[0] + ")" : a[0];
      break;
    case LoopOp::sign:
      e = fp ? "(float)((" + a[0] + " > 0.0f) - (" + a[0] + " < 0.0f))"
             : "(long long)((" + a[0] + " > 0LL) - (" + a[0] + " < 0LL))";
      break;
    case LoopOp::log1p:
      e = "log1pf(" + a[0] + ")";
      break;
    case LoopOp::expm1:
      e = "expm1f(" + a[0] + ")";
      break;
    case LoopOp::tan:
      e = "tanf(" + a[0] + ")";
      break;
    case LoopOp::atan:
      e = "atanf(" + a[0] + ")";
      break;
    case LoopOp::asin:
      e = "asinf(" + a[0] + ")";
      break;
    case LoopOp::acos:
      e = "acosf(" + a[0] + ")";
      break;
    case LoopOp::sinh:
      e = "sinhf(" + a[0] + ")";
      break;
    case LoopOp::cosh:
      e = "coshf(" + a[0] + ")";
      break;
    case LoopOp::logical_xor:
      e = a[0] + " != " + a[1];
      break;
    case LoopOp::isinf:
      e = "isinf(" + a[0] + ")";
      break;
    case LoopOp::bitwise_and:
      e = a[0] + " & " + a[1];
      break;
    case LoopOp::bitwise_or:
      e = a[0] + " | " + a[1];
      break;
    case LoopOp::bitwise_xor:
      e = a[0] + " ^ " + a[1];
      break;
    case LoopOp::bitwise_not:
      e = "~" + a[0];
      break;
    case LoopOp::rand_uniform:
      e = "ts_rand_uniform(" + a[0] + ", " + a[1] + ")";
      break;
    }
    return define(e, loop_op_result(op, dtype));
  }

private:
  std::string storage_type(DType storage) const override { return cuda_storage_type(storage); }
  std::string temporary_type(DType d) const override { return "const " + value_type(d); }
  std::string literal(double v, DType d) const override { return cuda_literal(v, d); }

  std::string intrinsic(LoopOp op, const std::vector<std::string>& a,
                        DType operand) const override {
    const bool fp = operand == DType::Float32;
    switch (op) {
    case LoopOp::pow:
      return fp ? "powf(" + a[0] + ", " + a[1] + ")" : "ts_int_pow(" + a[0] + ", " + a[1] + ")";
    case LoopOp::maximum:
      return "ts_maximum(" + a[0] + ", " + a[1] + ")";
    case LoopOp::minimum:
      return "ts_minimum(" + a[0] + ", " + a[1] + ")";
    case LoopOp::abs:
      return fp ? "fabsf(" + a[0] + ")" : "ts_abs(" + a[0] + ")";
    case LoopOp::relu:
      return "ts_relu(" + a[0] + ")";
    case LoopOp::exp:
      return "expf(" + a[0] + ")";
    case LoopOp::log:
      return "logf(" + a[0] + ")";
    case LoopOp::sin:
      return "sinf(" + a[0] + ")";
    case LoopOp::cos:
      return "cosf(" + a[0] + ")";
    case LoopOp::tanh:
      return "tanhf(" + a[0] + ")";
    case LoopOp::sigmoid:
      return "1.0f / (1.0f + expf(-" + a[0] + "))";
    case LoopOp::sqrt:
      return "sqrtf(" + a[0] + ")";
    case LoopOp::rsqrt:
      return "1.0f / sqrtf(" + a[0] + ")";
    case LoopOp::erf:
      return "erff(" + a[0] + ")";
    case LoopOp::isnan:
      return "(" + a[0] + " != " + a[0] + ")";
    default:
      break;
    }
    TORCHSCOPE_ASSERT(false, "an op without a CUDA spelling");
    return "";
  }

  // Declares a mutable variable and returns its name.
  std::string variable(const std::string& stem, const std::string& type, const std::string& init) {
    const std::string name = stem + std::to_string(vars_++);
    line(type + " " + name + " = " + init + ";");
    return name;
  }

  // A thread's accumulator: combined across the threads of its row after the loop
  // (combine_accumulators).
  Accumulator declare_accumulator(const Buffer& b) override {
    Accumulator a;
    a.value = variable("acc", value_type(b.accumulate), init_text(b.reduction, b.accumulate));
    if (b.reduction == ReductionType::argmax) {
      a.index = variable("acc_index", "long long", "0LL");
    }
    return a;
  }

  void update_accumulator(const Accumulator& a, const Buffer& b, const FusedNode& n,
                          LoopValue v) override {
    const std::string x = expr(cast(v, b.accumulate));
    switch (b.reduction) {
    case ReductionType::sum:
      line(a.value + " += " + x + ";");
      break;
    case ReductionType::max:
    case ReductionType::min:
      line(a.value + " = " + combined(b.reduction, a.value, x, b.accumulate) + ";");
      break;
    case ReductionType::argmax: {
      const Expr linear = dot(n.rindex, contiguous_strides(b.reduction_ranges));
      line("ts_argmax_combine(" + a.value + ", " + a.index + ", " + x + ", (long long)(" +
           linear.str() + "));");
      break;
    }
    }
  }

  static std::string zero(DType compute) {
    return compute == DType::Float32 ? "0.0f" : compute == DType::Bool ? "false" : "0LL";
  }
  static std::string to_compute(const std::string& raw, DType st) {
    switch (st) {
    case DType::Float16:
      return "ts_f16_to_f32(" + raw + ")";
    case DType::BFloat16:
      return "ts_bf16_to_f32(" + raw + ")";
    case DType::Int32:
      return "(long long)" + raw;
    case DType::Bool:
      return "(" + raw + " != 0)";
    default:
      return raw;
    }
  }
  static std::string to_storage(const std::string& v, DType st) {
    switch (st) {
    case DType::Float16:
      return "ts_f32_to_f16(" + v + ")";
    case DType::BFloat16:
      return "ts_f32_to_bf16(" + v + ")";
    case DType::Int32:
      return "(int)" + v;
    case DType::Bool:
      return "(unsigned char)(" + v + " ? 1 : 0)";
    default:
      return v;
    }
  }

  // Inside a looping stage of a persistent row: each thread visits the same slots in every
  // stage, so a value of a slot can wait in a register array for the stages after it.
  bool in_row_loop() const noexcept { return cache_slots_ > 0 && !row_level_; }

  // A register array, declared where mark_declarations() was called.
  std::string declare_array(const std::string& type, const std::string& stem,
                            const std::string& size) {
    const std::string name = stem + std::to_string(slot_arrays_++);
    insert_line(decl_pos_, decl_indent_, type + " " + name + "[" + size + "];");
    return name;
  }
  // A new register array of the row's slots.
  std::string slot_array(DType d) {
    return declare_array(value_type(d), "row_cache", std::to_string(cache_slots_));
  }

  // `read` from the row cache when an earlier stage read it, else read and kept there.
  LoopValue cached(const std::string& read, DType d) {
    auto it = row_cache_.find(read);
    if (it != row_cache_.end()) {
      return define(it->second + "[" + slot_expr_ + "]", d);
    }
    const LoopValue v = define(read, d);
    const std::string name = slot_array(d);
    line(name + "[" + slot_expr_ + "] = " + expr(v) + ";");
    row_cache_[read] = name;
    return v;
  }

  bool row_level_ = false;
  std::string row_guard_ = "threadIdx.x == 0";
  int cache_slots_ = 0;
  std::string slot_expr_;
  std::size_t decl_pos_ = 0;
  int decl_indent_ = 0;
  std::map<std::string, std::string> row_cache_;    // an input's element read -> its array
  std::map<std::string, std::string> stored_cache_; // an element this kernel stored -> its array
  int slot_arrays_ = 0;
  std::set<BufferId> rows_only_;
  int defer_stores_ = 0;
  std::vector<std::string> deferred_;
  bool checks_indices_ = false;
  int vars_ = 0;
};

// The arguments of `k` that can be the same memory as another of its arguments (buffers
// planned into one allocation). Buffers the kernel never touches in memory (`untouched`: kept
// in registers only) do not count.
std::set<BufferId> aliased_args(const Schedule& s, const KernelPlan& k,
                                const std::set<BufferId>& untouched) {
  std::map<std::int32_t, std::vector<BufferId>> by_slot;
  for (const KernelArg& a : k.args) {
    const BufferPlan& p = s.buffers[static_cast<std::size_t>(a.buffer)];
    if (untouched.count(a.buffer) == 0 &&
        (p.source == BufferPlan::Source::Slot || p.source == BufferPlan::Source::Output)) {
      by_slot[p.slot].push_back(a.buffer);
    }
  }
  std::set<BufferId> out;
  for (const auto& [slot, buffers] : by_slot) {
    if (buffers.size() > 1) {
      out.insert(buffers.begin(), buffers.end());
    }
  }
  return out;
}

bool args_may_alias(const Schedule& s, const KernelPlan& k, const std::set<BufferId>& untouched) {
  return !aliased_args(s, k, untouched).empty();
}

// Every argument that shares its memory with no other is __restrict__: its loads may pass the
// stores of a result computed in place over another argument (a backward kernel's inputs
// beside its in-place gradient), and read-only ones go through the non-coherent cache.
std::string signature(const CudaPrinter& p, const Schedule& s, const KernelPlan& k,
                      const LoweredGraph& ir, const std::string& name, int max_threads,
                      bool split) {
  const std::set<BufferId> aliased = aliased_args(s, k, p.rows_only());
  std::string out = "extern \"C\" __global__ void __launch_bounds__(" +
                    std::to_string(max_threads) + ") " + name + "(";
  out += p.buffer_params([&](BufferId b) {
    return aliased.count(b) != 0 ? std::string() : std::string(" __restrict__");
  });
  out += "int* __restrict__ ts_status";
  for (std::size_t i = 0; i < ir.symbol_count; ++i) {
    out += ", const long long s" + std::to_string(i);
  }
  if (split) {
    out += ", unsigned long long* __restrict__ ts_scratch, unsigned int* __restrict__ ts_counters";
  }
  return out + ")";
}

// The type of `k`'s loop indices and the variables computed from them: `int` when every size
// is a constant and every index the kernel forms fits in 31 bits (no iteration space, and no
// buffer it reads or writes, reaches 2^31 elements), else `long long`. A 64-bit division or
// modulo by a constant is a call of dozens of instructions on the GPU, a 32-bit one a
// multiply-high and a shift: a 2-D broadcast over an odd width spent more time delinearizing
// its index than moving its data (issue 31). The loop counters stay 64-bit (they may step past
// 2^31 before the bound check); only the values inside the bound are narrowed.
std::string kernel_index_type(const KernelPlan& k, const LoweredGraph& ir) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 31;
  auto fits = [&](const Expr& e) {
    return e.is_constant() && e.constant_value() >= 0 && e.constant_value() < kLimit;
  };
  if (!fits(product(k.outer))) {
    return "long long";
  }
  for (const LoopStage& st : k.stages) {
    if (!fits(product(st.inner)) || !fits(product(k.outer) * product(st.inner))) {
      return "long long";
    }
  }
  for (const KernelArg& a : k.args) {
    if (!fits(ir.buffer(a.buffer).layout.storage_extent())) {
      return "long long";
    }
  }
  return "int";
}

void print_pointwise(CudaPrinter& p, const KernelPlan& k, const LaunchConfig& c, bool may_alias,
                     const std::string& it) {
  const Expr xnumel = product(k.outer);
  const std::string u = std::to_string(c.unroll);
  p.line("const long long xnumel = " + xnumel.str() + ";");
  p.line("const long long ts_step = (long long)gridDim.x * blockDim.x * " + u + ";");
  p.open("for (long long ts_base = (long long)blockIdx.x * blockDim.x * " + u +
         " + threadIdx.x; ts_base < xnumel; ts_base += ts_step)");
  if (may_alias) {
    p.mark_declarations();
    p.defer_stores(c.unroll);
  }
  // Twice when stores are deferred: the round's elements computed, then stored.
  for (int pass = 0; pass < (may_alias ? 2 : 1); ++pass) {
    p.line("#pragma unroll");
    p.open("for (int ts_u = 0; ts_u < " + u + "; ++ts_u)");
    p.line("const long long ts_x = ts_base + (long long)ts_u * blockDim.x;");
    p.open("if (ts_x < xnumel)");
    p.line("const " + it + " xindex = (" + it + ")ts_x;");
    for (const std::string& d : delinearized('x', "xindex", k.outer, it)) {
      p.line(d);
    }
    if (pass == 0) {
      for (const LoopStage& st : k.stages) {
        p.straight_line(st);
      }
    } else {
      for (const std::string& store : p.deferred_stores()) {
        p.line(store);
      }
    }
    p.close();
    p.close();
  }
  p.close();
}

// The row length of a kernel whose looping stages all loop over the same constant row, short
// enough to keep in registers (a persistent reduction, as Triton's); nullopt otherwise.
constexpr std::int64_t kMaxPersistentRow = 8192;
std::optional<Expr> persistent_rows(const KernelPlan& k) {
  const std::vector<Expr>* inner = nullptr;
  for (const LoopStage& st : k.stages) {
    if (st.inner.empty()) {
      continue;
    }
    if (inner != nullptr && *inner != st.inner) {
      return std::nullopt;
    }
    inner = &st.inner;
  }
  if (inner == nullptr) {
    return std::nullopt;
  }
  const Expr r = product(*inner);
  if (!r.is_constant() || r.constant_value() <= 0 || r.constant_value() > kMaxPersistentRow) {
    return std::nullopt;
  }
  return r;
}

// The buffers a persistent kernel stores only for its own later stages: computed inside a
// row loop, read by nothing after this kernel (not a result), and read here only directly, in
// row loops (where the row cache serves them). Their stores are left out: a softmax's
// exp(x - max), written and rescaled in place on the CPU, never reaches memory on the GPU.
std::set<BufferId> rows_only(const Schedule& s, std::size_t index, const KernelPlan& k,
                             const LoweredGraph& ir) {
  std::size_t step = s.steps.size();
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    if (s.steps[i].kind == Step::Kind::Kernel && s.steps[i].kernel == index) {
      step = i;
    }
  }
  std::set<BufferId> out;
  for (const LoopStage& st : k.stages) {
    for (const FusedNode& n : st.nodes) {
      const BufferPlan& plan = s.buffers.at(static_cast<std::size_t>(n.buffer));
      if (!st.inner.empty() && n.store && plan.source == BufferPlan::Source::Slot &&
          plan.last_use == step) {
        out.insert(n.buffer);
      }
    }
  }
  for (const LoopStage& st : k.stages) {
    for (const FusedNode& n : st.nodes) {
      for (const MemoryAccess& r : analyze_at(ir.buffer(n.buffer), n.index, n.rindex).reads) {
        if (out.count(r.buffer) != 0 && (r.indirect || st.inner.empty())) {
          out.erase(r.buffer);
        }
      }
    }
  }
  return out;
}

// Threads for a row of `r` elements, `unroll` per round: two rounds, 32 to 1024 threads.
int row_block(std::int64_t r, int unroll) {
  int threads = 32;
  while (threads * 2 * unroll < r && threads < 1024) {
    threads *= 2;
  }
  return threads;
}

using Accumulator = CLikePrinter::Accumulator;

// One element of stage `st` (inside its loop, at rindex): its variables from rindex, then every
// node's body, each reduction's value folded into this thread's accumulator.
void accumulate_element(CudaPrinter& p, const LoopStage& st, const std::vector<Accumulator>& accs,
                        const std::string& it) {
  for (const std::string& d : delinearized('r', "rindex", st.inner, it)) {
    p.line(d);
  }
  p.accumulate(st, accs);
}

// Combines each accumulator across the threads that share its row (`combine`: ts_block_reduce
// across a row's block, ts_column_reduce across a column tile's rows).
// The prelude's functor that folds two values of reduction `t` (not argmax, which carries an
// index and folds through ts_argmax_combine).
const char* fold_functor(ReductionType t) {
  TORCHSCOPE_ASSERT(t != ReductionType::argmax, "argmax folds with its index");
  return t == ReductionType::sum ? "TsSum()" : t == ReductionType::max ? "TsMax()" : "TsMin()";
}

void combine_accumulators(CudaPrinter& p, const std::vector<Accumulator>& accs,
                          const LoweredGraph& ir, const std::string& combine) {
  for (const Accumulator& a : accs) {
    const Buffer& b = ir.buffer(a.node->buffer);
    if (b.reduction == ReductionType::argmax) {
      p.line(std::string(combine == "ts_lane_reduce" ? "ts_warp_argmax(" : "ts_block_argmax(") +
             a.value + ", " + a.index + ");");
      continue;
    }
    const std::string identity = b.reduction == ReductionType::sum
                                     ? "(" + value_type(b.accumulate) + ")0"
                                     : init_text(b.reduction, b.accumulate);
    p.line(a.value + " = " + combine + "(" + a.value + ", " + fold_functor(b.reduction) + ", " +
           identity + ");");
  }
}

// The per-stage skeleton the row shapes share: each straight-line stage at row level; each
// looping stage's accumulators declared at row level and its row length recorded, then
// `loop(stage, accumulators, rnumel)` prints the shape's loop over the row, and `finish`
// combines (where the shape has threads to combine across) and stores the row's results.
void walk_stages(
    CudaPrinter& p, const KernelPlan& k, std::vector<Expr>& rnumels,
    const std::function<void(const LoopStage&, const std::vector<Accumulator>&, const Expr&)>& loop,
    const std::function<void(const std::vector<Accumulator>&)>& finish) {
  for (const LoopStage& st : k.stages) {
    p.set_row_level(true);
    if (st.inner.empty()) {
      p.straight_line(st);
      continue;
    }
    const std::vector<Accumulator> accs = p.declare_accumulators(st);
    const Expr rnumel = product(st.inner);
    rnumels.push_back(rnumel);
    p.set_row_level(false);
    loop(st, accs, rnumel);
    p.set_row_level(true);
    finish(accs);
  }
  p.set_row_level(false);
}

// A block per row, or with `warp_rows` a warp per row (blockDim.x / 32 rows a block, the lane
// in place of the thread, warp shuffles in place of the block's shared memory).
void print_reduction(CudaPrinter& p, const KernelPlan& k, const LoweredGraph& ir,
                     const LaunchConfig& c, std::vector<Expr>& rnumels, int persistent_block,
                     const std::string& it, bool warp_rows) {
  const Expr xnumel = product(k.outer);
  p.line("const long long xnumel = " + xnumel.str() + ";");
  std::string lane = "threadIdx.x";
  std::string combine = "ts_block_reduce";
  if (warp_rows) {
    p.line("const int ts_lane = threadIdx.x & 31;");
    p.open("for (long long ts_x = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); "
           "ts_x < xnumel; ts_x += (long long)gridDim.x * (blockDim.x >> 5))");
    lane = "ts_lane";
    combine = "ts_lane_reduce";
    p.set_row_guard("ts_lane == 0");
  } else {
    p.open("for (long long ts_x = blockIdx.x; ts_x < xnumel; ts_x += gridDim.x)");
  }
  p.line("const " + it + " xindex = (" + it + ")ts_x;");
  for (const std::string& d : delinearized('x', "xindex", k.outer, it)) {
    p.line(d);
  }
  int rounds = 0;
  if (persistent_block > 0) {
    const std::int64_t r = persistent_rows(k)->constant_value();
    const std::int64_t per_round = static_cast<std::int64_t>(persistent_block) * c.unroll;
    rounds = static_cast<int>((r + per_round - 1) / per_round);
    p.set_row_cache(rounds * c.unroll, "ts_r * " + std::to_string(c.unroll) + " + ts_u");
    p.mark_declarations();
  }
  // No barrier between stages or rows: a thread reads back only elements it stored itself (the
  // scheduler's reads are at the stored index, and every stage maps an index to the same
  // thread), row-level values are in every thread's registers, and each block reduction
  // begins with a barrier before it reuses its shared memory.
  auto loop = [&](const LoopStage& st, const std::vector<Accumulator>& accs, const Expr& rnumel) {
    // Each thread takes `unroll` elements a block-width apart per round: independent loads in
    // flight while the accumulator's chain waits.
    const std::string u = std::to_string(c.unroll);
    p.line("const long long rnumel" + std::to_string(rnumels.size() - 1) + " = " + rnumel.str() +
           ";");
    const std::string rn = "rnumel" + std::to_string(rnumels.size() - 1);
    if (rounds > 0) {
      // A persistent row: a fixed number of rounds, unrolled, so the row cache is registers.
      p.line("#pragma unroll");
      p.open("for (int ts_r = 0; ts_r < " + std::to_string(rounds) + "; ++ts_r)");
      p.line("#pragma unroll");
      p.open("for (int ts_u = 0; ts_u < " + u + "; ++ts_u)");
      p.line("const " + it + " rindex = " + lane + " + (" + it + ")(ts_r * " + u + " + ts_u) * " +
             std::to_string(persistent_block) + ";");
    } else {
      p.open("for (long long ts_rbase = threadIdx.x; ts_rbase < " + rn +
             "; ts_rbase += (long long)blockDim.x * " + u + ")");
      p.line("#pragma unroll");
      p.open("for (int ts_ru = 0; ts_ru < " + u + "; ++ts_ru)");
      p.line("const " + it + " rindex = (" + it + ")(ts_rbase + (long long)ts_ru * blockDim.x);");
    }
    // A persistent row that the rounds cover exactly needs no bound check: without it every
    // load of the rounds is issued at once (behind a branch each waited for the one before).
    const bool exact =
        rounds > 0 && persistent_rows(k)->constant_value() ==
                          static_cast<std::int64_t>(rounds) * c.unroll * persistent_block;
    if (!exact) {
      p.open("if (rindex < " + rn + ")");
    }
    accumulate_element(p, st, accs, it);
    if (!exact) {
      p.close();
    }
    p.close();
    p.close();
  };
  walk_stages(p, k, rnumels, loop, [&](const std::vector<Accumulator>& accs) {
    combine_accumulators(p, accs, ir, combine);
    p.store_accumulators(accs);
  });
  p.close();
}

// The longest constant row a thread reduces alone (thread_rows()).
constexpr std::int64_t kThreadRowMax = 32;

// Whether every looping stage of `k` runs over the same constant row of at most kThreadRowMax
// elements: one thread per row then reads it whole (a warp's 32 rows are contiguous memory, so
// its loads share cache lines), with no block reduction. A block per row of 7 elements left 25
// of its 32 threads idle and launched a block per row: softmax over 4.8M rows of 7 ran at 2% of
// the copy's bandwidth (issue 31).
bool thread_rows(const KernelPlan& k) {
  std::optional<std::int64_t> row;
  for (const LoopStage& st : k.stages) {
    if (st.inner.empty()) {
      continue;
    }
    const Expr r = product(st.inner);
    if (!r.is_constant() || r.constant_value() > kThreadRowMax ||
        (row && *row != r.constant_value())) {
      return false;
    }
    row = r.constant_value();
  }
  return row.has_value();
}

// The longest constant row a warp reduces alone (warp_rows()).
constexpr std::int64_t kWarpRowMax = 256;

// Whether `k` is a persistent row (persistent_rows()) longer than a thread's row and at most
// kWarpRowMax: a warp per row, 8 rows a block. A block of 32 threads per row of 129 elements
// ran one warp per block, a quarter of the occupancy rows of that length need (issue 31).
bool warp_rows(const KernelPlan& k) {
  const std::optional<Expr> r = persistent_rows(k);
  return r && r->constant_value() > kThreadRowMax && r->constant_value() <= kWarpRowMax;
}

// Threads along the rows: each thread runs its row's stages in order, a looping stage as a
// sequential, unrolled loop into its own accumulators. The row's inputs are kept in register
// arrays from the stage that reads them to the last (as a persistent row's are), and what only
// later stages of the row read is never stored; every store is the thread's own (no guard).
void print_thread_rows(CudaPrinter& p, const Schedule& s, std::size_t index, const KernelPlan& k,
                       const LoweredGraph& ir, std::vector<Expr>& rnumels, const std::string& it) {
  std::int64_t row = 0;
  for (const LoopStage& st : k.stages) {
    row = st.inner.empty() ? row : product(st.inner).constant_value();
  }
  p.line("const long long xnumel = " + product(k.outer).str() + ";");
  p.open("for (long long ts_x = (long long)blockIdx.x * blockDim.x + threadIdx.x; ts_x < xnumel; "
         "ts_x += (long long)gridDim.x * blockDim.x)");
  p.line("const " + it + " xindex = (" + it + ")ts_x;");
  for (const std::string& d : delinearized('x', "xindex", k.outer, it)) {
    p.line(d);
  }
  p.set_row_guard("true");
  p.set_row_cache(static_cast<int>(row), "rindex");
  p.set_rows_only(rows_only(s, index, k, ir));
  p.mark_declarations();
  walk_stages(
      p, k, rnumels,
      [&](const LoopStage& st, const std::vector<Accumulator>& accs, const Expr& rnumel) {
        p.line("#pragma unroll");
        p.open("for (" + it + " rindex = 0; rindex < " + rnumel.str() + "; ++rindex)");
        accumulate_element(p, st, accs, it);
        p.close();
      },
      [&](const std::vector<Accumulator>& accs) { p.store_accumulators(accs); });
  p.close();
}

// The parts of each row of a split reduction (split_parts()): 0 when `k` is not one.
// A row of millions of elements in one block used one of the GPU's 132 multiprocessors: a sum
// over 33M elements ran at 1% of the copy's bandwidth (issue 31). Split, each row is reduced by
// `parts` blocks into partials, and the last block to finish folds them (in a fixed order, so
// the result does not depend on which block is last) and runs the row's epilogue.
int split_parts(const KernelPlan& k, const LoweredGraph& ir) {
  constexpr std::int64_t kMinRow = std::int64_t{1} << 16; // shorter rows fill a block well
  constexpr std::int64_t kPerPart = std::int64_t{1} << 15;
  constexpr std::int64_t kMaxParts = 1024;
  constexpr std::int64_t kMaxBlocks = 4096; // rows x parts
  const Expr xnumel = product(k.outer);
  if (k.stages.empty() || k.stages[0].inner.empty() || !xnumel.is_constant() ||
      xnumel.constant_value() < 1) {
    return 0;
  }
  for (std::size_t i = 1; i < k.stages.size(); ++i) {
    if (!k.stages[i].inner.empty()) {
      return 0; // one looping stage, first: the later ones need the whole row's values
    }
  }
  for (const FusedNode& n : k.stages[0].nodes) {
    const Buffer& b = ir.buffer(n.buffer);
    if (b.kind == BufferKind::Reduction && b.reduction == ReductionType::argmax) {
      return 0;
    }
  }
  const Expr rnumel = product(k.stages[0].inner);
  if (!rnumel.is_constant() || rnumel.constant_value() < kMinRow) {
    return 0;
  }
  const std::int64_t rows = xnumel.constant_value();
  const std::int64_t parts =
      std::min({kMaxParts, rnumel.constant_value() / kPerPart, kMaxBlocks / rows});
  return parts >= 2 ? static_cast<int>(parts) : 0;
}

// One block per (row, part): the part's elements, a block reduction, the partial published to
// ts_scratch (8 bytes a slot, row-major over rows, parts, accumulators) and counted in
// ts_counters[row]; the block that counts last folds the row's partials, resets the counter for
// the next launch, and stores the row's results and epilogue (thread 0).
void print_split_reduction(CudaPrinter& p, const KernelPlan& k, const LoweredGraph& ir,
                           const LaunchConfig& c, std::vector<Expr>& rnumels, int parts,
                           const std::string& it) {
  const std::string np = std::to_string(parts);
  p.line("const long long ts_x = blockIdx.x / " + np + ";");
  p.line("const int ts_part = blockIdx.x % " + np + ";");
  p.line("const " + it + " xindex = (" + it + ")ts_x;");
  for (const std::string& d : delinearized('x', "xindex", k.outer, it)) {
    p.line(d);
  }
  const LoopStage& st = k.stages[0];
  p.set_row_level(true);
  const std::vector<Accumulator> accs = p.declare_accumulators(st);
  const Expr rnumel = product(st.inner);
  rnumels.push_back(rnumel);
  p.set_row_level(false);
  const std::string u = std::to_string(c.unroll);
  p.line("const long long rnumel0 = " + rnumel.str() + ";");
  p.open("for (long long ts_rbase = (long long)ts_part * blockDim.x * " + u +
         " + threadIdx.x; ts_rbase < rnumel0; ts_rbase += (long long)" + np + " * blockDim.x * " +
         u + ")");
  p.line("#pragma unroll");
  p.open("for (int ts_ru = 0; ts_ru < " + u + "; ++ts_ru)");
  p.line("const " + it + " rindex = (" + it + ")(ts_rbase + (long long)ts_ru * blockDim.x);");
  p.open("if (rindex < rnumel0)");
  accumulate_element(p, st, accs, it);
  p.close();
  p.close();
  p.close();
  p.set_row_level(true);
  combine_accumulators(p, accs, ir, "ts_block_reduce");
  const std::string na = std::to_string(accs.size());
  auto slot = [&](std::size_t a, const std::string& part) {
    return "ts_scratch + (ts_x * " + np + " + " + part + ") * " + na + " + " + std::to_string(a);
  };
  p.line("__shared__ bool ts_last;");
  p.open("if (threadIdx.x == 0)");
  for (std::size_t a = 0; a < accs.size(); ++a) {
    const std::string t = value_type(ir.buffer(accs[a].node->buffer).accumulate);
    p.line("*(" + t + "*)(" + slot(a, "ts_part") + ") = " + accs[a].value + ";");
  }
  p.line("__threadfence();");
  p.line("ts_last = atomicAdd(ts_counters + ts_x, 1u) == " + np + "u - 1u;");
  p.close();
  p.line("__syncthreads();");
  p.open("if (ts_last)");
  p.line("__threadfence();");
  for (std::size_t a = 0; a < accs.size(); ++a) {
    const Buffer& b = ir.buffer(accs[a].node->buffer);
    const std::string t = value_type(b.accumulate);
    const char* fold = fold_functor(b.reduction);
    p.line(accs[a].value + " = " + init_text(b.reduction, b.accumulate) + ";");
    p.open("for (int ts_i = threadIdx.x; ts_i < " + np + "; ts_i += blockDim.x)");
    p.line(accs[a].value + " = " + fold + "(" + accs[a].value + ", *(volatile " + t + "*)(" +
           slot(a, "ts_i") + "));");
    p.close();
  }
  combine_accumulators(p, accs, ir, "ts_block_reduce");
  p.line("if (threadIdx.x == 0) ts_counters[ts_x] = 0u;");
  p.store_accumulators(accs);
  for (std::size_t i = 1; i < k.stages.size(); ++i) {
    p.straight_line(k.stages[i]);
  }
  p.close();
  p.set_row_level(false);
}

// Whether `k` reduces columns: one looping stage (the first; the others straight-line), no
// argmax, one outer and one inner loop, and every read walks the outer index contiguously (or
// not at all) and the row with a stride other than 1 (a sum over dim 0, a bias's gradient).
// One block per row would read one element per 32-byte sector there; a column tile reads
// neighbouring elements with neighbouring threads.
bool column_reduction(const KernelPlan& k, const LoweredGraph& ir) {
  if (k.outer.size() != 1 || k.stages.empty() || k.stages[0].inner.size() != 1) {
    return false;
  }
  for (std::size_t i = 1; i < k.stages.size(); ++i) {
    if (!k.stages[i].inner.empty()) {
      return false;
    }
  }
  const VarId x{'x', 0};
  const VarId r{'r', 0};
  bool column = false;
  for (const FusedNode& n : k.stages[0].nodes) {
    const Buffer& b = ir.buffer(n.buffer);
    if (b.kind == BufferKind::Reduction && b.reduction == ReductionType::argmax) {
      return false;
    }
    for (const MemoryAccess& a : analyze_at(b, n.index, n.rindex).reads) {
      const std::optional<Expr> sx = a.index.stride(x);
      const std::optional<Expr> sr = a.index.stride(r);
      if (a.indirect || !sx || !sr || *sr == Expr(1) || !(sx->is_zero() || *sx == Expr(1))) {
        return false;
      }
      column = column || *sx == Expr(1);
    }
  }
  return column;
}

// A column reduction: blocks of kColumnTile x kColumnRows threads, threadIdx.x along the
// outer index (coalesced reads), threadIdx.y striding over the rows; the tile's rows then
// combine through shared memory (ts_column_reduce), and the straight-line stages after it run
// per column.
constexpr int kColumnTile = 32;

void print_column_reduction(CudaPrinter& p, const KernelPlan& k, const LoweredGraph& ir,
                            const LaunchConfig& c, std::vector<Expr>& rnumels,
                            const std::string& it) {
  p.line("const long long xnumel = " + product(k.outer).str() + ";");
  p.open("for (long long ts_xbase = (long long)blockIdx.x * blockDim.x; ts_xbase < xnumel; "
         "ts_xbase += (long long)gridDim.x * blockDim.x)");
  p.line("const bool ts_xmask = ts_xbase + threadIdx.x < xnumel;");
  p.line("const " + it + " xindex = (" + it + ")(ts_xbase + threadIdx.x);");
  p.line("const " + it + " x0 = xindex;");
  p.set_row_guard("threadIdx.y == 0");
  const LoopStage& st = k.stages[0];
  p.set_row_level(true);
  const std::vector<Accumulator> accs = p.declare_accumulators(st);
  const Expr rnumel = product(st.inner);
  rnumels.push_back(rnumel);
  p.set_row_level(false);
  const std::string u = std::to_string(c.unroll);
  p.line("const long long rnumel0 = " + rnumel.str() + ";");
  // Rows that the rounds cover exactly (blockDim.y is kColumnRows) need no bound check per
  // element: the column's check outside the loop lets the round's loads issue together.
  const bool exact =
      rnumel.is_constant() && rnumel.constant_value() % (std::int64_t{kColumnRows} * c.unroll) == 0;
  if (exact) {
    p.open("if (ts_xmask)");
  }
  p.open("for (long long ts_rbase = threadIdx.y; ts_rbase < rnumel0; ts_rbase += (long "
         "long)blockDim.y * " +
         u + ")");
  p.line("#pragma unroll");
  p.open("for (int ts_ru = 0; ts_ru < " + u + "; ++ts_ru)");
  p.line("const " + it + " rindex = (" + it + ")(ts_rbase + (long long)ts_ru * blockDim.y);");
  if (!exact) {
    p.open("if (ts_xmask && rindex < rnumel0)");
  }
  accumulate_element(p, st, accs, it);
  p.close();
  p.close();
  p.close();
  p.set_row_level(true);
  combine_accumulators(p, accs, ir, "ts_column_reduce"); // every thread: it has barriers
  p.open("if (ts_xmask)");
  p.store_accumulators(accs);
  for (std::size_t i = 1; i < k.stages.size(); ++i) {
    p.straight_line(k.stages[i]);
  }
  p.close();
  p.set_row_level(false);
  p.close();
}

} // namespace

LaunchConfig default_config(KernelShape shape) {
  // A reduction's block 0: sized per launch to the row (launch_dims in the kernel compiler).
  return shape == KernelShape::Pointwise ? LaunchConfig{256, 4} : LaunchConfig{0, 4};
}

KernelShape kernel_shape(const KernelPlan& k) {
  return k.pointwise_only() ? KernelShape::Pointwise : KernelShape::Reduction;
}

KernelSource generate_kernel(const Schedule& s, std::size_t index, const LoweredGraph& ir,
                             const LaunchConfig& config) {
  const KernelPlan& k = s.kernels.at(index);
  KernelSource out;
  out.shape = kernel_shape(k);
  out.config = config;
  out.name = k.name;
  out.xnumel = product(k.outer);
  CudaPrinter p(k, ir);
  const std::string it = kernel_index_type(k, ir);
  if (out.shape == KernelShape::Pointwise) {
    print_pointwise(p, k, config, args_may_alias(s, k, {}), it);
  } else {
    // A column reduction reads across rows; otherwise a constant row short enough is
    // persistent: its block is fixed here (the rounds and the register arrays depend on it).
    // max-autotune leaves both.
    int persistent_block = 0;
    if (column_reduction(k, ir)) {
      out.column = true;
      out.config.block = kColumnTile;
      print_column_reduction(p, k, ir, out.config, out.rnumels, it);
    } else if (const int parts = split_parts(k, ir); parts > 0) {
      out.parts = parts;
      for (const FusedNode& n : k.stages[0].nodes) {
        out.accumulators += ir.buffer(n.buffer).kind == BufferKind::Reduction ? 1 : 0;
      }
      print_split_reduction(p, k, ir, out.config, out.rnumels, parts, it);
    } else if (thread_rows(k)) {
      out.thread_rows = true;
      out.config.block = kThreadRowBlock;
      print_thread_rows(p, s, index, k, ir, out.rnumels, it);
    } else if (warp_rows(k)) {
      out.warp_rows = true;
      out.persistent = true;
      out.config.block = kWarpRowBlock;
      persistent_block = 32;
      p.set_rows_only(rows_only(s, index, k, ir));
    } else if (std::optional<Expr> r = persistent_rows(k)) {
      persistent_block =
          config.block > 0 ? config.block : row_block(r->constant_value(), config.unroll);
      out.config.block = persistent_block;
      out.persistent = true;
      p.set_rows_only(rows_only(s, index, k, ir));
    }
    if (!out.column && !out.thread_rows && out.parts == 0) {
      print_reduction(p, k, ir, out.config, out.rnumels, persistent_block, it, out.warp_rows);
    }
  }
  out.checks_indices = p.checks_indices();
  const int max_threads = 1024; // max-autotune launches any block size up to this
  out.text =
      signature(p, s, k, ir, out.name, max_threads, out.parts > 0) + " {\n" + p.text() + "}\n";
  return out;
}

// The prelude's ts_rand_uniform spells kernels/counter_rng.h's constants out.
static_assert(kernels::kMixIncrement == 0x9e3779b97f4a7c15ULL &&
                  kernels::kMixMultiplier1 == 0xbf58476d1ce4e5b9ULL &&
                  kernels::kMixMultiplier2 == 0x94d049bb133111ebULL &&
                  kernels::kCounterStride == 0xD1B54A32D192ED03ULL && kernels::kUniformBits == 24,
              "ts_rand_uniform in the CUDA prelude must draw what kernels/counter_rng.h draws");

const std::string& prelude() {
  static const std::string text =
      R"(// torchscope generated CUDA (docs/COMPILER.md, "GPU code generation")
#define TS_INF __int_as_float(0x7f800000)
#define TS_NAN __int_as_float(0x7fc00000)
__device__ __forceinline__ float ts_f16_to_f32(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ unsigned short ts_f32_to_f16(float f) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
__device__ __forceinline__ float ts_bf16_to_f32(unsigned short b) {
  return __uint_as_float(((unsigned)b) << 16);
}
__device__ __forceinline__ unsigned short ts_f32_to_bf16(float f) {
  unsigned u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
__device__ __forceinline__ float ts_round_f16(float f) { return ts_f16_to_f32(ts_f32_to_f16(f)); }
__device__ __forceinline__ float ts_round_bf16(float f) { return ts_bf16_to_f32(ts_f32_to_bf16(f)); }
__device__ __forceinline__ float ts_maximum(float a, float b) { return (a > b || a != a) ? a : b; }
__device__ __forceinline__ float ts_minimum(float a, float b) { return (a < b || a != a) ? a : b; }
__device__ __forceinline__ long long ts_maximum(long long a, long long b) { return a > b ? a : b; }
__device__ __forceinline__ long long ts_minimum(long long a, long long b) { return a < b ? a : b; }
__device__ __forceinline__ float ts_relu(float a) { return (a > 0.0f || a != a) ? a : 0.0f; }
__device__ __forceinline__ long long ts_relu(long long a) { return a > 0 ? a : 0; }
__device__ __forceinline__ long long ts_abs(long long a) { return a < 0 ? -a : a; }
__device__ long long ts_int_pow(long long base, long long e) {
  if (e < 0) return base == 1 ? 1 : (base == -1 ? ((e & 1) ? -1 : 1) : 0);
  unsigned long long r = 1, b = (unsigned long long)base;
  while (e > 0) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return (long long)r;
}
// kernels/counter_rng.h's uniform(seed, counter): the draw rand's eager kernel makes.
__device__ __forceinline__ unsigned long long ts_splitmix(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
__device__ __forceinline__ float ts_rand_uniform(long long seed, long long counter) {
  const unsigned long long bits = ts_splitmix(
      ts_splitmix((unsigned long long)seed) ^ ((unsigned long long)counter * 0xD1B54A32D192ED03ULL));
  return (float)(bits >> 40) * 0x1.0p-24f;
}
// A row index read from data: out of range raises the status flag and reads row 0.
__device__ __forceinline__ long long ts_check_row(long long r, long long rows, bool active,
                                                  int* status) {
  if (r < 0 || r >= rows) {
    if (active) *status = 1;
    return 0;
  }
  return r;
}
struct TsSum {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
struct TsMax {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return ts_maximum(a, b); }
};
struct TsMin {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return ts_minimum(a, b); }
};
template <class T, class F> __device__ __forceinline__ T ts_warp_reduce(T v, F f) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = f(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
// ts_warp_reduce with ts_block_reduce's signature (a warp-per-row kernel's combine).
template <class T, class F> __device__ __forceinline__ T ts_lane_reduce(T v, F f, T) {
  return ts_warp_reduce(v, f);
}
// Every thread of the block gets the block's result (blockDim.x a multiple of 32).
template <class T, class F> __device__ T ts_block_reduce(T v, F f, T identity) {
  __shared__ T partials[32];
  v = ts_warp_reduce(v, f);
  if (blockDim.x <= 32) return v;
  const int lane = threadIdx.x & 31;
  __syncthreads();
  if (lane == 0) partials[threadIdx.x >> 5] = v;
  __syncthreads();
  v = lane < (int)((blockDim.x + 31) >> 5) ? partials[lane] : identity;
  return ts_warp_reduce(v, f);
}
// Every thread of a column tile (blockDim.x columns, up to 32 rows of threads) gets its
// column's result.
template <class T, class F> __device__ T ts_column_reduce(T v, F f, T) {
  __shared__ T columns[32][33];
  if (blockDim.y == 1) return v;
  __syncthreads();
  columns[threadIdx.y][threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.y == 0) {
    for (int y = 1; y < (int)blockDim.y; ++y) v = f(v, columns[y][threadIdx.x]);
    columns[0][threadIdx.x] = v;
  }
  __syncthreads();
  return columns[0][threadIdx.x];
}
// argmax: the larger value, NaN above all, the first index among equals.
template <class T> __device__ __forceinline__ bool ts_argmax_better(T bv, long long bi, T av, long long ai) {
  if (av != av) return bv != bv && bi < ai;
  if (bv != bv) return true;
  return bv > av || (bv == av && bi < ai);
}
template <class T> __device__ __forceinline__ void ts_argmax_combine(T& v, long long& i, T ov, long long oi) {
  if (ts_argmax_better(ov, oi, v, i)) { v = ov; i = oi; }
}
template <class T> __device__ __forceinline__ void ts_warp_argmax(T& v, long long& i) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const T ov = __shfl_xor_sync(0xffffffffu, v, o);
    const long long oi = __shfl_xor_sync(0xffffffffu, i, o);
    ts_argmax_combine(v, i, ov, oi);
  }
}
template <class T> __device__ void ts_block_argmax(T& v, long long& i) {
  __shared__ T values[32];
  __shared__ long long indices[32];
  ts_warp_argmax(v, i);
  if (blockDim.x <= 32) return;
  const int lane = threadIdx.x & 31;
  __syncthreads();
  if (lane == 0) { values[threadIdx.x >> 5] = v; indices[threadIdx.x >> 5] = i; }
  __syncthreads();
  const int w = lane < (int)((blockDim.x + 31) >> 5) ? lane : 0; // repeats change no argmax
  v = values[w];
  i = indices[w];
  ts_warp_argmax(v, i);
}
)";
  return text;
}

std::string module_source(const std::vector<KernelSource>& kernels) {
  std::string out = prelude();
  for (const KernelSource& k : kernels) {
    out += "\n" + k.text;
  }
  return out;
}

} // namespace compiler::inductor::cuda_codegen
