// Module loading (with the JIT's error log) and kernel launches.
#include "cuda/module.h"

#include "compiler/core/errors.h"

#include <cstdio>
#include <cstring>

namespace compiler::cuda {

namespace {

int function_attribute(CUfunction f, CUfunction_attribute which) {
  int value = 0;
  TORCHSCOPE_CU(cuFuncGetAttribute, &value, which, f);
  return value;
}

} // namespace

Kernel::Kernel(DeviceContext& ctx, CUfunction function, std::string name)
    : ctx_(ctx), function_(function), name_(std::move(name)) {
  info_.registers = function_attribute(function_, CU_FUNC_ATTRIBUTE_NUM_REGS);
  info_.static_shared_bytes = function_attribute(function_, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  info_.const_bytes = function_attribute(function_, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
  info_.local_bytes = function_attribute(function_, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  info_.max_threads_per_block =
      function_attribute(function_, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info_.ptx_version = function_attribute(function_, CU_FUNC_ATTRIBUTE_PTX_VERSION);
  info_.binary_version = function_attribute(function_, CU_FUNC_ATTRIBUTE_BINARY_VERSION);
  max_dynamic_shared_ =
      function_attribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
}

void Kernel::set_max_dynamic_shared_bytes(int bytes) {
  const int limit = ctx_.properties().shared_memory_per_block_optin - info_.static_shared_bytes;
  if (bytes < 0 || bytes > limit) {
    user_error("kernel " + name_ + ": " + std::to_string(bytes) +
               " bytes of dynamic shared memory asked for; " + ctx_.device().str() +
               " allows at most " + std::to_string(limit));
  }
  TORCHSCOPE_CU(cuFuncSetAttribute, function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes);
  max_dynamic_shared_ = bytes;
}

void Kernel::launch(Dim3 grid, Dim3 block, unsigned dynamic_shared_bytes, CUstream stream,
                    void** args) const {
  const unsigned long long threads = static_cast<unsigned long long>(block.x) * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0) {
    user_error("kernel " + name_ + ": empty launch (grid " + std::to_string(grid.x) + "x" +
               std::to_string(grid.y) + "x" + std::to_string(grid.z) + ", block " +
               std::to_string(block.x) + "x" + std::to_string(block.y) + "x" +
               std::to_string(block.z) + ")");
  }
  if (threads > static_cast<unsigned long long>(info_.max_threads_per_block)) {
    user_error("kernel " + name_ + ": a block of " + std::to_string(threads) +
               " threads; with its " + std::to_string(info_.registers) +
               " registers per thread it can run at most " +
               std::to_string(info_.max_threads_per_block));
  }
  if (dynamic_shared_bytes > static_cast<unsigned>(max_dynamic_shared_)) {
    user_error("kernel " + name_ + ": " + std::to_string(dynamic_shared_bytes) +
               " bytes of dynamic shared memory, above its limit of " +
               std::to_string(max_dynamic_shared_) + " (set_max_dynamic_shared_bytes raises it)");
  }
  ctx_.bind();
  TORCHSCOPE_CU(cuLaunchKernel, function_, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                dynamic_shared_bytes, stream, args, nullptr);
}

Module::Module(DeviceContext& ctx, std::string_view image) : ctx_(ctx) {
  ctx_.bind();
  // The driver wants PTX text NUL-terminated; a cubin carries its own size.
  std::string owned(image);
  char error_log[8192] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log, reinterpret_cast<void*>(sizeof error_log - 1)};
  const CUresult r = driver().cuModuleLoadDataEx(&module_, owned.c_str(), 2, options, values);
  if (r != CUDA_SUCCESS) {
    throw CudaError("cuModuleLoadDataEx", static_cast<int>(r), driver_error_name(r),
                    driver_error_description(r) +
                        (error_log[0] != '\0' ? std::string("; JIT log: ") + error_log : ""));
  }
}

Module::~Module() {
  if (driver().cuModuleUnload(module_) != CUDA_SUCCESS) {
    std::fputs("torchscope: cuModuleUnload failed\n", stderr);
  }
}

Kernel Module::kernel(std::string_view name) const {
  const std::string owned(name);
  CUfunction f = nullptr;
  const CUresult r = driver().cuModuleGetFunction(&f, module_, owned.c_str());
  if (r == CUDA_ERROR_NOT_FOUND) {
    user_error("the CUDA module has no kernel named '" + owned +
               "' (declare it extern \"C\" __global__ so its name is not mangled)");
  }
  check(r, "cuModuleGetFunction");
  return Kernel(ctx_, f, owned);
}

} // namespace compiler::cuda
