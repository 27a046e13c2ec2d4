// Optimising, compiling and linking kernels (codegen/cpu/llvm_jit.h).
#include "inductor/codegen/cpu/llvm_jit.h"

#include "compiler/core/errors.h"
#include "inductor/codegen/cpu/llvm_kernel.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <mutex>

extern "C" {
// Integer power as the eager kernel computes it: exact for non-negative exponents; for negative
// exponents 1 and -1 have integer results and everything else truncates to 0.
std::int64_t torchscope_int_pow(std::int64_t base, std::int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) {
      return 1;
    }
    if (base == -1) {
      return exponent % 2 == 0 ? 1 : -1;
    }
    return 0;
  }
  std::uint64_t result = 1;
  auto b = static_cast<std::uint64_t>(base);
  while (exponent > 0) {
    if ((exponent & 1) != 0) {
      result *= b;
    }
    b *= b;
    exponent >>= 1;
  }
  return static_cast<std::int64_t>(result);
}
}

namespace compiler::inductor::cpu {

namespace {

void init_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

llvm::orc::JITTargetMachineBuilder host_machine() {
  const CpuTarget& t = host_target();
  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(t.triple)};
  jtmb.setCPU(t.cpu);
  jtmb.addFeatures(std::vector<std::string>{t.features});
  jtmb.setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  return jtmb;
}

// The process's LLJIT: one per process, each compiled graph in a JITDylib of its own.
class Jit {
public:
  // Never destroyed: compiled graphs held by static objects unload their code after main.
  static Jit& get() {
    static Jit* jit = new Jit();
    return *jit;
  }

  llvm::orc::LLJIT& lljit() { return *jit_; }

  llvm::orc::JITDylib* new_dylib() {
    std::lock_guard<std::mutex> lock(mutex_);
    auto jd = jit_->createJITDylib("graph" + std::to_string(next_++));
    if (!jd) {
      llvm::consumeError(jd.takeError());
      return nullptr;
    }
    llvm::orc::JITDylib& d = *jd;
    // Helpers generated code calls, by address (the process may not export them).
    llvm::orc::MangleAndInterner mangle(jit_->getExecutionSession(), jit_->getDataLayout());
    llvm::orc::SymbolMap helpers;
    auto add = [&](const char* name, void* addr) {
      helpers[mangle(name)] = llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(addr),
                                                       llvm::JITSymbolFlags::Exported);
    };
    add("torchscope_int_pow", reinterpret_cast<void*>(&torchscope_int_pow));
    add("powf", reinterpret_cast<void*>(static_cast<float (*)(float, float)>(&::powf)));
    add("sinf", reinterpret_cast<void*>(static_cast<float (*)(float)>(&::sinf)));
    add("cosf", reinterpret_cast<void*>(static_cast<float (*)(float)>(&::cosf)));
    // pointwise, more: the f32 libm functions generated code calls per lane
    add("tanf", reinterpret_cast<void*>(static_cast<float (*)(float)>(&::tanf)));
    add("atanf", reinterpret_cast<void*>(static_cast<float (*)(float)>(&::atanf)));
    add("asinf", reinterpret_cast<void*>(static_cast<float (*)(float)>(&::asinf)));
    add("acosf", reinterpret_cast<void*>(static_cast<float (*)(float)>(&::acosf)));
    add("memset", reinterpret_cast<void*>(&::memset));
    add("memcpy", reinterpret_cast<void*>(&::memcpy));
    llvm::cantFail(d.define(llvm::orc::absoluteSymbols(std::move(helpers))));
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        jit_->getDataLayout().getGlobalPrefix());
    if (process) {
      d.addGenerator(std::move(*process));
    } else {
      llvm::consumeError(process.takeError());
    }
    return &d;
  }

  void remove(llvm::orc::JITDylib* d) {
    std::lock_guard<std::mutex> lock(mutex_);
    llvm::consumeError(jit_->getExecutionSession().removeJITDylib(*d));
  }

private:
  Jit() {
    init_llvm();
    auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(host_machine()).create();
    TORCHSCOPE_ASSERT(static_cast<bool>(jit), "LLVM's JIT could not start on this machine");
    jit_ = std::move(*jit);
  }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::mutex mutex_;
  int next_ = 0;
};

class JitObject final : public LoadedObject {
public:
  JitObject(llvm::orc::JITDylib* d, std::vector<KernelFn> fns) : dylib_(d), fns_(std::move(fns)) {}
  ~JitObject() override { Jit::get().remove(dylib_); }
  KernelFn function(std::size_t i) const override { return fns_.at(i); }

private:
  llvm::orc::JITDylib* dylib_;
  std::vector<KernelFn> fns_;
};

void optimize(llvm::Module& m, llvm::TargetMachine& tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(m, mam);
}

} // namespace

ObjectCode compile_kernels(const Schedule& s, const LoweredGraph& ir) {
  init_llvm();
  auto tm = host_machine().createTargetMachine();
  TORCHSCOPE_ASSERT(static_cast<bool>(tm), "no LLVM target machine for this host");
  llvm::LLVMContext context;
  llvm::Module module("torchscope_kernels", context);
  module.setTargetTriple(host_target().triple);
  module.setDataLayout((*tm)->createDataLayout());
  for (const KernelPlan& k : s.kernels) {
    emit_kernel(module, k, plan_cpu_loops(k, host_target()), ir, host_target());
  }
  std::string verify;
  llvm::raw_string_ostream vs(verify);
  TORCHSCOPE_ASSERT(!llvm::verifyModule(module, &vs), "generated LLVM IR does not verify");
  optimize(module, **tm);
  ObjectCode out;
  llvm::raw_string_ostream irs(out.ir);
  module.print(irs, nullptr);
  irs.flush();
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  const bool cannot = (*tm)->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_ObjectFile);
  TORCHSCOPE_ASSERT(!cannot, "LLVM cannot emit object files for this host");
  pm.run(module);
  out.object.assign(buffer.begin(), buffer.end());
  return out;
}

std::unique_ptr<LoadedObject> load_object(std::string_view object,
                                          const std::vector<std::string>& names) {
  Jit& jit = Jit::get();
  llvm::orc::JITDylib* d = jit.new_dylib();
  if (d == nullptr) {
    return nullptr;
  }
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.data(), object.size()),
                                                     "torchscope_kernels");
  if (llvm::Error e = jit.lljit().addObjectFile(*d, std::move(buffer))) {
    llvm::consumeError(std::move(e));
    jit.remove(d);
    return nullptr;
  }
  std::vector<KernelFn> fns;
  for (const std::string& name : names) {
    auto sym = jit.lljit().lookup(*d, name);
    if (!sym) {
      llvm::consumeError(sym.takeError());
      jit.remove(d);
      return nullptr;
    }
    fns.push_back(reinterpret_cast<KernelFn>(static_cast<std::uintptr_t>(sym->getAddress())));
  }
  return std::make_unique<JitObject>(d, std::move(fns));
}

} // namespace compiler::inductor::cpu
