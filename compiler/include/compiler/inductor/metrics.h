// compiler/inductor: what Inductor's stages report per compile (the compilation_metrics fields
// PyTorch's Inductor fills) and process-wide counters for tests and benchmarks.
#pragma once

#include "tracer/json_writer.h"

#include <cstdint>

namespace compiler::inductor {

// The Inductor part of one compile's compilation_metrics.
struct CompileMetrics {
  double pre_grad_pass_s = 0.0;
  double post_grad_pass_s = 0.0;
  double inductor_compile_s = 0.0; // compile_fx_inner, whole
  double code_gen_s = 0.0;         // LLVM IR, optimisation and machine code (0 on a cache hit)
  std::int64_t fx_cache_hits = 0;
  std::int64_t fx_cache_misses = 0;
  std::int64_t fx_cache_bypasses = 0;
  std::int64_t kernels = 0;        // generated kernels
  std::int64_t extern_calls = 0;   // extern kernel calls (matmul, bmm)
  std::int64_t fallback_nodes = 0; // nodes run on their eager kernel
  std::int64_t ir_nodes = 0;       // loop-IR buffers after lowering (PyTorch's ir_count)
};

// The metrics of the compile open on this thread (the innermost of capture's per-compile
// scopes), collecting what its Inductor compiles report; a dummy outside any compile.
CompileMetrics& current_metrics() noexcept;

// Writes the compilation_metrics members PyTorch's Inductor writes (pre_grad_pass_time_us,
// inductor_compile_time_s, inductor_fx_local_cache_hit_count, ...) into an open JSON object.
void write_metrics(tracer::JsonWriter& w, const CompileMetrics& m);

// Process-wide counters (atomics; read for tests and benchmarks).
struct Counters {
  std::int64_t graphs_compiled = 0; // compile_fx_inner calls that generated code
  std::int64_t kernel_launches = 0; // generated kernels run
  std::int64_t extern_calls = 0;    // extern kernels (GEMM) run
  std::int64_t fallback_runs = 0;   // nodes run on their eager kernel at run time
  std::int64_t cache_hits = 0;
  std::int64_t cache_misses = 0;
};
Counters counters() noexcept;
void reset_counters() noexcept;

} // namespace compiler::inductor
