// inductor/codegen: the seam between the scheduler and the code generators (Inductor's
// backends, Halide's device backends). Everything before this point (loop IR, lowering,
// scheduling, memory planning) is shared; a code generator turns a Schedule's kernels into
// loaded machine code and readable source. The CPU generator (codegen/cpu/) emits LLVM IR and
// runs it through ORC; a GPU generator plugs in here with its own device name, without
// touching the rest. What a device does differently around code generation (its kernels'
// names, what torch.compile's mode asks of it, how its programs run) is asked of its generator
// here too, so compile_fx_inner has no device-specific code.
#pragma once

#include "compiler/backend/backend.h"
#include "compiler/inductor/inductor.h"
#include "compiler/tensor/device.h"
#include "inductor/scheduler/kernel_plan.h"
#include "kernels/gemm.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace compiler::inductor {

// The kernels of one compiled graph, loaded and ready to run.
class LoadedKernels {
public:
  virtual ~LoadedKernels() = default;
  // Runs kernel `k` over its whole iteration space. `args` holds one data pointer per kernel
  // argument (KernelPlan::args order), `symbols` the size symbols' values. Returns false when
  // the kernel raised its error flag (an index read from data was out of range).
  virtual bool launch(std::size_t k, void* const* args,
                      std::span<const std::int64_t> symbols) const = 0;
  // Like launch(), but a generator whose kernels run asynchronously (a GPU) need not wait for
  // the error flag: the check it returns waits for the kernel then and says whether it raised
  // the flag (empty when the kernel checks nothing). The host's generator checks at once.
  virtual std::function<bool()> launch_check_later(std::size_t k, void* const* args,
                                                   std::span<const std::int64_t> symbols) const {
    if (launch(k, args, symbols)) {
      return {};
    }
    return [] { return true; };
  }
  // Where the kernels run and the program's buffers live (the host for the CPU generator).
  virtual Device device() const { return Device::cpu(); }
  // The extern kernel of buffer `buffer` (matmul, bmm, addmm): C = A @ B (+ bias), pointers on
  // device(). The host's GEMM unless a device generator has its own.
  virtual void gemm(BufferId buffer, std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a,
                    MatrixView b, float* c, std::int64_t ldc, const MatrixView* bias) const;
};

struct CompiledCode {
  std::unique_ptr<LoadedKernels> kernels;
  std::string object; // the machine code, for the compile cache
  std::string ir;     // the optimised IR of every kernel, as text (an artifact)
};

// What a code generator keeps set on the compiling thread while one graph compiles (see
// KernelCompiler::compile_scope); destroying it restores what was set before.
class CompileScope {
public:
  virtual ~CompileScope() = default;
};

class KernelCompiler {
public:
  virtual ~KernelCompiler() = default;
  // "cpu".
  virtual std::string_view device() const noexcept = 0;
  // What the generated code depends on besides the schedule (the target machine): part of the
  // compile cache's key.
  virtual std::string target_description() const = 0;
  // Kernel `k` as readable source for inductor_output_code.
  virtual std::string kernel_source(const Schedule& s, std::size_t k,
                                    const LoweredGraph& ir) const = 0;
  virtual CompiledCode compile(const Schedule& s, const LoweredGraph& ir) = 0;
  // Loads machine code compile() made for an equal schedule; nullptr when it does not hold
  // the schedule's kernels.
  virtual std::unique_ptr<LoadedKernels> load(std::string_view object, const Schedule& s,
                                              const LoweredGraph& ir) = 0;
  // Another generator's check of a schedule compiled for the host: a device generator compiles
  // its own code for it without a device (NVRTC to PTX), so CI checks every kernel the tests
  // generate. Returns "" or what failed. Only asked for when TORCHSCOPE_INDUCTOR_CHECK_CUDA=1.
  virtual std::string check_compiles(const Schedule&, const LoweredGraph&) { return ""; }

  // What `mode` sets for the kernels this generator compiles and loads on this thread while
  // the scope lives (the GPU's max-autotune); null when the generator has nothing to set.
  virtual std::unique_ptr<CompileScope> compile_scope(Mode) const { return nullptr; }
  // Renames a schedule's kernels as this device's output code and trace name them; the host
  // keeps the scheduler's names ("cpp_fused_add_0").
  virtual void name_kernels(Schedule&) const {}
  // The compiled program as `mode` runs it on this device (the GPU puts it behind CUDA graphs
  // under reduce-overhead and max-autotune); `s` and `ir` are the program's.
  virtual std::unique_ptr<backend::CompiledGraph>
  wrap_program(std::unique_ptr<backend::CompiledGraph> program, const Schedule& /*s*/,
               const LoweredGraph& /*ir*/, Mode /*mode*/) const {
    return program;
  }
};

// The code generator for `device`, or nullptr when this build has none. Thread-safe; lives for
// the process.
KernelCompiler* kernel_compiler(std::string_view device);

} // namespace compiler::inductor
