// inductor/runtime: max-autotune on the GPU (Inductor's select_algorithm and its Triton config
// search). A kernel's candidate launch configurations (block size, elements per thread, warps
// per row) and each matmul's implementations (cuBLAS, the generated tiled kernel) are timed on
// the call's own arguments the first time they run (outputs go to scratch copies, so a run with
// an in-place argument changes nothing), the fastest is kept, and the choice is cached on disk
// under a key of everything that decides it (the kernel's source, the sizes, the device), in
// <compile cache>/autotune/, so the next process skips the measurement.
//
// Each search is traced as PyTorch traces run-time autotuning: a `cuda_autotune` artifact (the
// choices with their times, the one picked, whether it came from the cache) and a
// compilation_metrics_runtime event, both under the compile id of the graph that owns the
// kernel (docs/TRACE-SCHEMAS.md).
#pragma once

#include "cuda/runtime.h"
#include "tracer/trace.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace compiler::inductor::cuda_autotune {

struct Candidate {
  std::string description;   // "block=256 unroll=4", "cublas"
  std::function<void()> run; // queues one run on the stream being timed
};

struct Outcome {
  std::size_t best = 0;
  std::vector<double> microseconds; // per candidate (empty when the choice came from the cache)
  bool from_cache = false;
  double seconds = 0.0; // the search's wall time
};

// Picks among `candidates` for `key`: the cached choice when there is one (matched by its
// description), else each is timed on `stream` and the fastest stored. `kernel` names the search
// in the trace; `compile_id` is the owning graph's.
Outcome choose(cuda::DeviceContext& ctx, CUstream stream, const std::string& kernel,
               const std::string& key, const std::vector<Candidate>& candidates,
               const std::optional<tracer::CompileId>& compile_id);

// Where choices are stored (<compile cache dir>/autotune).
std::string cache_dir();

} // namespace compiler::inductor::cuda_autotune
