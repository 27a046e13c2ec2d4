// Internal: which device an op's result lives on, and whether an op may run eagerly, decided
// in one place for dispatch(), run_eager() and run_meta() (ops/op_hook.h).
//
//   to                   the device it is given
//   factories            their trailing device argument; the host when there is none
//   item, to_bool        the host (they return a host value)
//   every other op       the one device all its tensor arguments share; tensors on two
//                        devices are a UserError, as in PyTorch
//
// Eager kernels run on the CPU, so an op whose tensors are on a GPU may run eagerly only when
// it moves data (to), reads one value back (item, to_bool) or makes a tensor (factories).
#pragma once

#include "compiler/core/value.h"
#include "compiler/ops/op_hook.h"

#include <span>

namespace compiler::op_device {

// The device of `op`'s result for `args` (see above). UserError when tensors disagree.
Device result_device(OpKind op, std::span<const Value> args);

// UserError naming the op and the fix unless `op` can run on the CPU kernels with `args`.
void check_eager(OpKind op, std::span<const Value> args);

// Sets the device of a meta function's tensor result(s).
void stamp(Value& result, Device device);

} // namespace compiler::op_device
