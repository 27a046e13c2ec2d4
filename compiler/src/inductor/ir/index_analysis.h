// inductor/ir: the analysis handler. Running a buffer's body with it records every element the
// body reads and writes, as index expressions over the body's own loop variables; the
// scheduler decides fusion and in-place reuse from them.
#pragma once

#include "inductor/ir/loop_ir.h"

#include <vector>

namespace compiler::inductor {

struct MemoryAccess {
  BufferId buffer = -1;
  Expr index;
  bool indirect = false; // an embedding-style read: any element of the buffer
};

struct ReadWrites {
  std::vector<MemoryAccess> reads;
  std::vector<MemoryAccess> writes;
};

// The variables a computed buffer's body runs over: x0.. for `ranges`, r0.. for
// `reduction_ranges`.
std::vector<Expr> index_vars(std::span<const Expr> ranges, char prefix);

// What buffer `b`'s body reads and writes when run over its own index variables (for a
// reduction, writes are at the result index, reads over the reduction variables too).
ReadWrites analyze(const Buffer& b);

// What `b`'s body reads and writes when run at (`index`, `rindex`), expressions over the
// caller's variables (a reduction writes its result at layout.index(index)).
ReadWrites analyze_at(const Buffer& b, std::span<const Expr> index, std::span<const Expr> rindex);

// Runs `b`'s body at (`index`, `rindex`) with `ops` and stores the result at its layout index
// (a pointwise buffer) or returns the value to be reduced (a reduction).
LoopValue run_body(const Buffer& b, OpsHandler& ops, std::span<const Expr> index,
                   std::span<const Expr> rindex);

// The number of ops a body runs (cost estimate).
int body_op_count(const Buffer& b);

} // namespace compiler::inductor
