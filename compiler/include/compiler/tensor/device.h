// compiler/tensor: Device, where a tensor's data lives: the host ("cpu") or one CUDA GPU
// ("cuda:0"), spelled and printed as torch.device is.
//
// A Device converts implicitly from text, so calls read as in PyTorch: `x.to("cuda")`,
// `zeros({8}, DType::Float32, "cuda:1")`. "cuda" without an index means the current CUDA device
// of the calling thread (compiler/cuda/cuda.h's DeviceGuard); ops resolve it before they record
// or run anything, so tensors and graphs always carry a concrete index ("cuda:0").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace compiler {

enum class DeviceType : std::uint8_t { CPU, CUDA };

class Device {
public:
  // The host.
  constexpr Device() noexcept = default;
  // `index` -1 means "the current device of this type" (only meaningful for CUDA).
  constexpr Device(DeviceType type, std::int16_t index = -1) noexcept
      : type_(type), index_(type == DeviceType::CPU ? std::int16_t{-1} : index) {}
  // Parses "cpu", "cuda" or "cuda:N" (torch.device's spellings); UserError otherwise.
  // Implicit on purpose, so calls read like PyTorch's.
  Device(std::string_view spec);
  Device(const char* spec);
  Device(const std::string& spec);

  static constexpr Device cpu() noexcept { return Device(); }
  static constexpr Device cuda(std::int16_t index = -1) noexcept {
    return Device(DeviceType::CUDA, index);
  }

  constexpr DeviceType type() const noexcept { return type_; }
  // -1 for the host and for an unresolved "cuda".
  constexpr std::int16_t index() const noexcept { return index_; }
  constexpr bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  constexpr bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }
  constexpr bool has_index() const noexcept { return index_ >= 0; }

  // "cpu", "cuda", "cuda:0": str(torch.device) and the suffix of FX type annotations.
  std::string str() const;
  // "device(type='cpu')", "device(type='cuda', index=0)": repr(torch.device), as traces print
  // it (describe_tensor, AOT graphs' keyword arguments).
  std::string repr() const;

  friend constexpr bool operator==(const Device&, const Device&) noexcept = default;

private:
  DeviceType type_ = DeviceType::CPU;
  std::int16_t index_ = -1;
};

// "cpu" / "cuda".
std::string_view device_type_name(DeviceType type) noexcept;

} // namespace compiler
