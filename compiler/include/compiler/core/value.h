// compiler/core: Value, one argument or result of an op as dispatch() sees it. Op functions
// pack their arguments into a std::vector<Value>; kernels, meta functions and capture's hook
// read them back. The alternatives are the argument kinds the ops use:
//   std::monostate        an absent optional argument (None), or "no result"
//   Tensor                a tensor (an undefined Tensor is never stored: use monostate)
//   SymInt                an integer: a size, a dim, a seed (concrete unless symbolic)
//   double, bool          scalars
//   std::vector<SymInt>   sizes (view, expand, full, ...)
//   std::vector<int64_t>  dim lists (permute, sum, normalized_shape)
//   std::string           enum-like strings (gelu's "approximate")
//   DType                 a dtype argument (factories, to_dtype)
//   std::vector<Tensor>   tensor lists (cat, stack)
//   Device                a device argument (to, factories with a device)
#pragma once

#include "compiler/core/sym_int.h"
#include "compiler/tensor/device.h"
#include "compiler/tensor/dtype.h"
#include "compiler/tensor/tensor.h"

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace compiler {

using Value =
    std::variant<std::monostate, Tensor, SymInt, double, bool, std::vector<SymInt>,
                 std::vector<std::int64_t>, std::string, DType, std::vector<Tensor>, Device>;

// The alternative's name: "None", "Tensor", "SymInt", "float", "bool", "SymInt[]", "int[]",
// "str", "dtype", "Tensor[]", "device".
std::string_view value_kind_name(const Value& v);

// Readable text for graph printouts: tensors as their type string ("f32[s0, 4]"), sizes as
// "[s0, 4]", strings quoted, dtypes as "torch.float32", devices as "device(type='cuda',
// index=0)", None as "None".
std::string value_to_string(const Value& v);

// Checked accessors: UserError (at the current call site) naming the expected kind when the
// value holds something else.
const Tensor& value_tensor(const Value& v);
const SymInt& value_sym_int(const Value& v);
std::int64_t value_int(const Value& v); // a concrete SymInt's value (symbolic: its hint)
double value_double(const Value& v);    // double, or an integer SymInt, or bool
bool value_bool(const Value& v);
const std::vector<SymInt>& value_sym_ints(const Value& v);
const std::vector<std::int64_t>& value_ints(const Value& v);
const std::string& value_string(const Value& v);
DType value_dtype(const Value& v);
const std::vector<Tensor>& value_tensors(const Value& v);
Device value_device(const Value& v);
// A Tensor argument that may be None: an undefined Tensor for monostate.
Tensor value_optional_tensor(const Value& v);

} // namespace compiler
