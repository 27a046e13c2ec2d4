// codegen/cuda: one KernelPlan as CUDA C++ source (Inductor's Triton kernels, written as CUDA
// for NVRTC). Two shapes of kernel, as Inductor's "poi" and "red"/"per" kernels:
//
//   pointwise  (every stage straight-line): the outer loops flattened into one index, each
//              thread handling `unroll` elements a block-width apart in a grid-stride loop
//              (coalesced; several loads in flight per thread);
//   reduction  (a stage loops over reduction variables): one block per outer index (a row),
//              its threads striding over the row; each reduction accumulates per thread, then
//              combines across the warp with shuffles and across warps through shared memory,
//              so every thread holds the row's result for the stages after it (softmax's max,
//              then its sum, then the normalised row, in one kernel). A constant row of up to
//              8192 elements is persistent: each thread keeps the input elements it reads in
//              registers for every stage, so the row is read from memory once. A reduction
//              over columns (a sum over dim 0: reads contiguous along the outer index, strided
//              along the row) takes a column tile instead: 32 outer indices across a block's
//              x threads, its 32 rows of threads striding over the reduced rows.
//
// Values a fused node keeps in registers are read back from registers (the scheduler marks
// them); size symbols are kernel arguments (s0, s1, ...), so one kernel serves every size. The
// body of each node prints through the C-like printer the CPU's C printer shares
// (codegen/c_like_printer.h); this file adds CUDA's spelling and the kernel shapes.
// Helper functions (conversions of 16-bit floats, NaN-propagating max, warp and block
// reductions) come once per module from prelude(). Needs nothing of CUDA: the text is
// compiled by NVRTC where the toolkit is (codegen/cuda/cuda_kernel_compiler.cpp).
#pragma once

#include "inductor/scheduler/kernel_plan.h"

#include <string>
#include <vector>

namespace compiler::inductor::cuda_codegen {

enum class KernelShape : std::uint8_t { Pointwise, Reduction };

// What max-autotune varies: threads per block and elements per thread per round (pointwise:
// of the flattened index; reduction: of the row). A reduction's block 0 means "sized to the
// row": the smallest power of two from 32 to 1024 that covers it in two rounds.
struct LaunchConfig {
  int block = 256;
  int unroll = 4;
  friend bool operator==(const LaunchConfig&, const LaunchConfig&) = default;
};

// The rows of threads of a column reduction's block (KernelSource::column).
constexpr int kColumnRows = 32;

// The default configuration of each shape.
LaunchConfig default_config(KernelShape shape);

struct KernelSource {
  std::string name; // "cuda_poi_fused_add_mul_0": the __global__ function
  std::string text; // the kernel, without the prelude
  KernelShape shape = KernelShape::Pointwise;
  LaunchConfig config;
  Expr xnumel;                 // elements (pointwise) or rows (reduction)
  std::vector<Expr> rnumels;   // each looping stage's row length (reduction)
  bool checks_indices = false; // reads rows from data (embedding): raises the status flag
  // A reduction over a constant row of at most 8192 elements: each thread keeps the inputs of
  // its elements in registers from the first stage that reads them to the last (no stage reads
  // the row from memory again), with the block fixed at generation (config.block).
  bool persistent = false;
  // A reduction over columns (its reads contiguous along the outer index): blocks of 32 x 32
  // threads, x along the outer index, y over the rows (config.block is the tile's width).
  bool column = false;
  // A reduction over a constant row of at most 32 elements: each thread reduces whole rows
  // alone, kThreadRowBlock threads a block along the rows (launched as a pointwise kernel over
  // the rows, one element a thread).
  bool thread_rows = false;
  // A persistent row of 33 to 256 elements: a warp per row, kWarpRowBlock threads a block
  // (launched over ceil(rows / 8) blocks; config.block is fixed).
  bool warp_rows = false;
  // A split reduction: each of its constant rows reduced by `parts` blocks (grid = rows x
  // parts), which take two more arguments after the symbols: 8-byte partials (rows x parts x
  // accumulators) and a counter per row, zero between launches.
  int parts = 0;
  int accumulators = 0; // a split reduction's accumulators (slots per part)
};

// The block of a thread_rows kernel, and of a warp_rows one (8 rows).
inline constexpr int kThreadRowBlock = 256;
inline constexpr int kWarpRowBlock = 256;

KernelShape kernel_shape(const KernelPlan& k);

// Kernel `k` of `s` with `config`. `symbols`: the graph's size symbols (all are arguments).
KernelSource generate_kernel(const Schedule& s, std::size_t k, const LoweredGraph& ir,
                             const LaunchConfig& config);

// The helpers every kernel uses, once at the top of a module.
const std::string& prelude();

// A module: the prelude and each kernel's text.
std::string module_source(const std::vector<KernelSource>& kernels);

} // namespace compiler::inductor::cuda_codegen
