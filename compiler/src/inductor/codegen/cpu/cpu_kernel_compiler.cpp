// The CPU code generator (codegen/cpu/cpu_kernel_compiler.h): LLVM for machine code, the C
// printer for source, the thread pool for launches, all three following each kernel's loop plan.
#include "inductor/codegen/cpu/cpu_kernel_compiler.h"

#include "inductor/codegen/cpu/c_printer.h"
#include "inductor/codegen/cpu/cpu_loop_plan.h"
#include "inductor/codegen/cpu/llvm_jit.h"
#include "inductor/codegen/cpu/llvm_kernel.h"
#include "kernels/thread_pool.h"

namespace compiler::inductor::cpu {

namespace {

struct Launch {
  KernelFn fn = nullptr;
  CpuLoopPlan loops; // how x0 is split across the threads
};

class CpuKernels final : public LoadedKernels {
public:
  CpuKernels(std::unique_ptr<LoadedObject> object, const Schedule& s) : object_(std::move(object)) {
    for (std::size_t i = 0; i < s.kernels.size(); ++i) {
      launches_.push_back({object_->function(i), plan_cpu_loops(s.kernels[i], host_target())});
    }
  }

  bool launch(std::size_t k, void* const* args,
              std::span<const std::int64_t> symbols) const override {
    const Launch& l = launches_.at(k);
    const std::int64_t n = l.loops.split_extent.evaluate(symbols);
    const std::int64_t work = std::max<std::int64_t>(1, l.loops.work.evaluate(symbols));
    std::int32_t status = 0;
    const std::int64_t* syms = symbols.data();
    parallel_for(
        n, l.loops.split_align, work, l.loops.min_work_per_thread,
        [&](std::int64_t begin, std::int64_t end) { l.fn(args, syms, begin, end, &status); });
    return status == 0;
  }

private:
  std::unique_ptr<LoadedObject> object_;
  std::vector<Launch> launches_;
};

std::vector<std::string> kernel_names(const Schedule& s) {
  std::vector<std::string> names;
  for (const KernelPlan& k : s.kernels) {
    names.push_back(k.name);
  }
  return names;
}

class CpuKernelCompiler final : public KernelCompiler {
public:
  std::string_view device() const noexcept override { return "cpu"; }

  std::string target_description() const override {
    const CpuTarget& t = host_target();
    return "cpu llvm-14 " + t.triple + " " + t.cpu + " lanes=" + std::to_string(t.lanes) + " " +
           t.features;
  }

  std::string kernel_source(const Schedule& s, std::size_t k,
                            const LoweredGraph& ir) const override {
    const KernelPlan& plan = s.kernels.at(k);
    return print_kernel(plan, plan_cpu_loops(plan, host_target()), ir, thread_count());
  }

  CompiledCode compile(const Schedule& s, const LoweredGraph& ir) override {
    ObjectCode code = compile_kernels(s, ir);
    CompiledCode out;
    out.kernels = load(code.object, s, ir);
    out.object = std::move(code.object);
    out.ir = std::move(code.ir);
    return out;
  }

  std::unique_ptr<LoadedKernels> load(std::string_view object, const Schedule& s,
                                      const LoweredGraph&) override {
    std::unique_ptr<LoadedObject> loaded = load_object(object, kernel_names(s));
    if (!loaded) {
      return nullptr;
    }
    return std::make_unique<CpuKernels>(std::move(loaded), s);
  }
};

} // namespace

} // namespace compiler::inductor::cpu

namespace compiler::inductor {

std::unique_ptr<KernelCompiler> make_cpu_kernel_compiler() {
  return std::make_unique<cpu::CpuKernelCompiler>();
}

} // namespace compiler::inductor
