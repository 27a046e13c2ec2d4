// Device: parsing torch.device spellings and printing them back.
#include "compiler/tensor/device.h"

#include "compiler/core/errors.h"

#include <charconv>

namespace compiler {

namespace {

[[noreturn]] void bad_spec(std::string_view spec) {
  user_error("invalid device string '" + std::string(spec) +
             "': expected \"cpu\", \"cuda\" or \"cuda:N\" (N a device index)");
}

} // namespace

Device::Device(std::string_view spec) {
  const std::size_t colon = spec.find(':');
  const std::string_view type = spec.substr(0, colon);
  if (type == "cpu") {
    if (colon != std::string_view::npos && spec.substr(colon) != ":0") {
      bad_spec(spec); // torch.device accepts "cpu:0" and nothing else with an index
    }
    return;
  }
  if (type != "cuda") {
    bad_spec(spec);
  }
  type_ = DeviceType::CUDA;
  if (colon == std::string_view::npos) {
    return; // the current device, resolved by the op that takes it
  }
  const std::string_view digits = spec.substr(colon + 1);
  int value = -1;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || value < 0 ||
      value > INT16_MAX) {
    bad_spec(spec);
  }
  index_ = static_cast<std::int16_t>(value);
}

Device::Device(const char* spec) : Device(std::string_view(spec == nullptr ? "" : spec)) {}
Device::Device(const std::string& spec) : Device(std::string_view(spec)) {}

std::string_view device_type_name(DeviceType type) noexcept {
  return type == DeviceType::CUDA ? "cuda" : "cpu";
}

std::string Device::str() const {
  std::string out(device_type_name(type_));
  if (index_ >= 0) {
    out += ':';
    out += std::to_string(index_);
  }
  return out;
}

std::string Device::repr() const {
  std::string out = "device(type='";
  out += device_type_name(type_);
  out += '\'';
  if (index_ >= 0) {
    out += ", index=" + std::to_string(index_);
  }
  return out + ")";
}

} // namespace compiler
