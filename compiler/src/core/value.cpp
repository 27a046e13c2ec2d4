// Value printing and checked accessors.
#include "compiler/core/value.h"

#include "compiler/core/errors.h"

#include <type_traits>

namespace compiler {

namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

[[noreturn]] void wrong_kind(std::string_view expected, const Value& got) {
  user_error("expected an argument of kind " + std::string(expected) + ", got " +
             std::string(value_kind_name(got)));
}

template <class T>
const T& get_or_fail(const Value& v, std::string_view expected) {
  const T* p = std::get_if<T>(&v);
  if (p == nullptr) {
    wrong_kind(expected, v);
  }
  return *p;
}

std::string format_double(double d) {
  std::string s = std::to_string(d);
  // Trim trailing zeros of "1.500000" but keep one digit after the point.
  if (s.find('.') != std::string::npos) {
    while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') {
      s.pop_back();
    }
  }
  return s;
}

} // namespace

std::string_view value_kind_name(const Value& v) {
  static constexpr std::string_view kNames[] = {"None",  "Tensor",   "SymInt", "float",
                                                "bool",  "SymInt[]", "int[]",  "str",
                                                "dtype", "Tensor[]", "device"};
  static_assert(std::size(kNames) == std::variant_size_v<Value>);
  return kNames[v.index()];
}

std::string value_to_string(const Value& v) {
  return std::visit(
      Overloaded{
          [](const std::monostate&) { return std::string("None"); },
          [](const Tensor& t) { return t.defined() ? t.type_string() : std::string("None"); },
          [](const SymInt& s) { return s.to_string(); },
          [](double d) { return format_double(d); },
          [](bool b) { return std::string(b ? "True" : "False"); },
          [](const std::vector<SymInt>& xs) {
            std::string out = "[";
            for (std::size_t i = 0; i < xs.size(); ++i) {
              out += (i ? ", " : "") + xs[i].to_string();
            }
            return out + "]";
          },
          [](const std::vector<std::int64_t>& xs) {
            std::string out = "[";
            for (std::size_t i = 0; i < xs.size(); ++i) {
              out += (i ? ", " : "") + std::to_string(xs[i]);
            }
            return out + "]";
          },
          [](const std::string& s) { return "'" + s + "'"; },
          [](DType t) { return std::string(dtype_torch_name(t)); },
          [](const std::vector<Tensor>& ts) {
            std::string out = "[";
            for (std::size_t i = 0; i < ts.size(); ++i) {
              out += (i ? ", " : "") + ts[i].type_string();
            }
            return out + "]";
          },
          [](const Device& d) { return d.repr(); },
      },
      v);
}

const Tensor& value_tensor(const Value& v) {
  const Tensor& t = get_or_fail<Tensor>(v, "Tensor");
  if (!t.defined()) {
    user_error("expected a tensor argument, got an undefined tensor");
  }
  return t;
}

const SymInt& value_sym_int(const Value& v) {
  return get_or_fail<SymInt>(v, "SymInt");
}

std::int64_t value_int(const Value& v) {
  return value_sym_int(v).hint();
}

double value_double(const Value& v) {
  if (const auto* d = std::get_if<double>(&v)) {
    return *d;
  }
  if (const auto* s = std::get_if<SymInt>(&v)) {
    return static_cast<double>(s->hint());
  }
  if (const auto* b = std::get_if<bool>(&v)) {
    return *b ? 1.0 : 0.0;
  }
  wrong_kind("float", v);
}

bool value_bool(const Value& v) {
  return get_or_fail<bool>(v, "bool");
}

const std::vector<SymInt>& value_sym_ints(const Value& v) {
  return get_or_fail<std::vector<SymInt>>(v, "SymInt[]");
}

const std::vector<std::int64_t>& value_ints(const Value& v) {
  return get_or_fail<std::vector<std::int64_t>>(v, "int[]");
}

const std::string& value_string(const Value& v) {
  return get_or_fail<std::string>(v, "str");
}

DType value_dtype(const Value& v) {
  return get_or_fail<DType>(v, "dtype");
}

const std::vector<Tensor>& value_tensors(const Value& v) {
  return get_or_fail<std::vector<Tensor>>(v, "Tensor[]");
}

Device value_device(const Value& v) {
  return get_or_fail<Device>(v, "device");
}

Tensor value_optional_tensor(const Value& v) {
  if (std::holds_alternative<std::monostate>(v)) {
    return Tensor();
  }
  return get_or_fail<Tensor>(v, "Tensor or None");
}

} // namespace compiler
