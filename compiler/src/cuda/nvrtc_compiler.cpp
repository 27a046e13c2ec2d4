// compile_cuda: flags, the NVRTC program's life, the log, the cache.
#include "cuda/nvrtc_compiler.h"

#include "cuda/driver_api.h"
#include "cuda/nvrtc_api.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace compiler::cuda {

namespace {

std::string arch_text(const NvrtcOptions& o) {
  return (o.kind == BinaryKind::Cubin ? "sm_" : "compute_") + std::to_string(o.arch.major) +
         std::to_string(o.arch.minor);
}

// Destroys the program on every path out of compile_cuda.
struct ProgramGuard {
  nvrtcProgram program = nullptr;
  ~ProgramGuard() {
    if (program != nullptr) {
      (void)nvrtc().nvrtcDestroyProgram(&program);
    }
  }
};

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  check_nvrtc(nvrtc().nvrtcGetProgramLogSize(program, &size), "nvrtcGetProgramLogSize");
  std::string log(size, '\0');
  if (size > 0) {
    check_nvrtc(nvrtc().nvrtcGetProgramLog(program, log.data()), "nvrtcGetProgramLog");
  }
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) {
    log.pop_back();
  }
  return log;
}

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace

std::string CompileResult::failure_message(std::string_view name) const {
  return "NVRTC could not compile '" + std::string(name) + "' for " + target + ":\n" + log;
}

NvrtcOptions options_for(const DeviceProperties& device) {
  NvrtcOptions o;
  o.arch = GpuArch{device.major, device.minor};
  const NvrtcApi& api = nvrtc();
  int count = 0;
  check_nvrtc(api.nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(static_cast<std::size_t>(std::max(count, 0)));
  if (count > 0) {
    check_nvrtc(api.nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  }
  const int wanted = device.major * 10 + device.minor;
  if (std::find(archs.begin(), archs.end(), wanted) == archs.end() && !archs.empty()) {
    const int newest = *std::max_element(archs.begin(), archs.end());
    o.arch = GpuArch{newest / 10, newest % 10};
    o.kind = BinaryKind::Ptx; // the driver compiles it for the newer device
  }
  return o;
}

std::vector<std::string> nvrtc_flags(const NvrtcOptions& options) {
  std::vector<std::string> flags = {"-std=c++17", "--gpu-architecture=" + arch_text(options)};
  std::error_code ec;
  if (std::filesystem::is_directory(TORCHSCOPE_CUDA_INCLUDE_DIR, ec)) {
    flags.push_back(std::string("-I") + TORCHSCOPE_CUDA_INCLUDE_DIR);
  }
  flags.insert(flags.end(), options.flags.begin(), options.flags.end());
  return flags;
}

std::string kernel_cache_key(std::string_view source, const NvrtcOptions& options) {
  const NvrtcStatus& n = nvrtc_status();
  std::string key = "nvrtc " + std::to_string(n.major) + "." + std::to_string(n.minor) +
                    "\ndriver " + std::to_string(driver_status().version) + "\nkind " +
                    (options.kind == BinaryKind::Cubin ? "cubin" : "ptx") + "\nflags";
  for (const std::string& f : nvrtc_flags(options)) {
    key += ' ';
    key += f;
  }
  key += "\nsource\n";
  key += source;
  return key;
}

CompileResult compile_cuda(std::string_view source, std::string_view name,
                           const NvrtcOptions& options, KernelCache* cache) {
  const auto start = std::chrono::steady_clock::now();
  const NvrtcApi& api = nvrtc();
  CompileResult result;
  result.kind = options.kind;
  result.target = arch_text(options);
  std::string key;
  if (cache != nullptr && cache->enabled()) {
    key = kernel_cache_key(source, options);
    if (std::optional<std::string> image = cache->load(key)) {
      result.ok = true;
      result.image = std::move(*image);
      result.from_cache = true;
      result.milliseconds = elapsed_ms(start);
      return result;
    }
  }

  const std::string text(source);
  const std::string file(name);
  ProgramGuard guard;
  check_nvrtc(
      api.nvrtcCreateProgram(&guard.program, text.c_str(), file.c_str(), 0, nullptr, nullptr),
      "nvrtcCreateProgram");
  const std::vector<std::string> flags = nvrtc_flags(options);
  std::vector<const char*> argv;
  argv.reserve(flags.size());
  for (const std::string& f : flags) {
    argv.push_back(f.c_str());
  }
  const nvrtcResult compiled =
      api.nvrtcCompileProgram(guard.program, static_cast<int>(argv.size()), argv.data());
  result.log = program_log(guard.program);
  if (compiled == NVRTC_ERROR_COMPILATION || compiled == NVRTC_ERROR_INVALID_OPTION) {
    if (compiled == NVRTC_ERROR_INVALID_OPTION && result.log.empty()) {
      result.log = "invalid option among:";
      for (const std::string& f : flags) {
        result.log += ' ' + f;
      }
    }
    result.milliseconds = elapsed_ms(start);
    return result;
  }
  check_nvrtc(compiled, "nvrtcCompileProgram");

  std::size_t size = 0;
  if (options.kind == BinaryKind::Cubin) {
    check_nvrtc(api.nvrtcGetCUBINSize(guard.program, &size), "nvrtcGetCUBINSize");
    result.image.resize(size);
    check_nvrtc(api.nvrtcGetCUBIN(guard.program, result.image.data()), "nvrtcGetCUBIN");
  } else {
    check_nvrtc(api.nvrtcGetPTXSize(guard.program, &size), "nvrtcGetPTXSize");
    result.image.resize(size);
    check_nvrtc(api.nvrtcGetPTX(guard.program, result.image.data()), "nvrtcGetPTX");
    while (!result.image.empty() && result.image.back() == '\0') {
      result.image.pop_back(); // PTX is text; Module adds the terminator the driver wants
    }
  }
  result.ok = true;
  if (cache != nullptr && cache->enabled()) {
    cache->store(key, result.image);
  }
  result.milliseconds = elapsed_ms(start);
  return result;
}

} // namespace compiler::cuda
