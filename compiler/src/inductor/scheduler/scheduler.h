// inductor/scheduler: fusion and memory planning (Inductor's scheduler.py and memory planning).
//
// Buffers are visited in order; each computed buffer joins the latest kernel it may join, or
// starts one. A kernel has outer loops (x0..) and stages of inner loops (r0..): pointwise
// nodes fuse with pointwise nodes over the same number of elements (vertically and
// horizontally), reductions open or join a stage whose inner loop has their reduction's size,
// and pointwise nodes over a reduction's outer index or over outer x inner become its
// epilogues and prologues. A fusion is legal when every value a node reads from the kernel is
// read at the index where it is computed, in a stage where it is available (from the index
// analysis). Adjacent loops whose every access is contiguous across them merge into one loop.
// Buffers whose readers all read the computed value stay in registers; the rest get
// allocations, reused once dead, and computed in place over a dead input read at the same
// index.
#pragma once

#include "compiler/graph/graph.h"
#include "inductor/scheduler/kernel_plan.h"

namespace compiler::inductor {

Schedule schedule(const LoweredGraph& ir, const graph::Graph& graph);

} // namespace compiler::inductor
