// Module: registration, lookups that notify the observer, recursive walks, and the repr.
#include "compiler/nn/module.h"

#include "compiler/core/errors.h"

#include <algorithm>

namespace compiler::nn {

namespace {

thread_local ModuleObserver* t_observer = nullptr;

template <class Vec>
auto find_named(Vec& entries, std::string_view name) {
  return std::find_if(entries.begin(), entries.end(),
                      [&](const auto& e) { return e.first == name; });
}

std::string join_name(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

} // namespace

std::string_view attribute_kind_name(const AttributeValue& v) {
  static constexpr std::string_view kNames[] = {"int", "float", "bool", "str"};
  return kNames[v.index()];
}

std::string attribute_to_string(const AttributeValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    return std::to_string(*i);
  }
  if (const auto* d = std::get_if<double>(&v)) {
    std::string s = std::to_string(*d);
    while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') {
      s.pop_back();
    }
    return s;
  }
  if (const auto* b = std::get_if<bool>(&v)) {
    return *b ? "True" : "False";
  }
  return "'" + std::get<std::string>(v) + "'";
}

ModuleObserver* current_module_observer() noexcept {
  return t_observer;
}

ModuleObserverGuard::ModuleObserverGuard(ModuleObserver* observer) noexcept
    : previous_(t_observer) {
  t_observer = observer;
}
ModuleObserverGuard::~ModuleObserverGuard() {
  t_observer = previous_;
}

Module::Module(std::string type_name) : type_name_(std::move(type_name)) {
  set_attribute("training", true);
}

Tensor Module::forward(const Tensor& /*input*/, std::source_location loc) {
  throw UserError(type_name_ + " has no one-tensor forward()", loc);
}

Tensor Module::register_parameter(const std::string& name, Tensor value) {
  if (!value.defined()) {
    user_error("register_parameter('" + name + "'): undefined tensor");
  }
  value.set_requires_grad(true);
  auto it = find_named(parameters_, name);
  if (it != parameters_.end()) {
    it->second = value;
  } else {
    parameters_.emplace_back(name, value);
  }
  return value;
}

Tensor Module::register_buffer(const std::string& name, Tensor value) {
  if (!value.defined()) {
    user_error("register_buffer('" + name + "'): undefined tensor");
  }
  auto it = find_named(buffers_, name);
  if (it != buffers_.end()) {
    it->second = value;
  } else {
    buffers_.emplace_back(name, value);
  }
  return value;
}

Tensor Module::buffer(std::string_view name) const {
  auto it = find_named(buffers_, name);
  if (it == buffers_.end()) {
    user_error(type_name_ + " has no buffer '" + std::string(name) + "'");
  }
  return it->second;
}

void Module::collect_buffers(const std::string& prefix,
                             std::vector<std::pair<std::string, Tensor>>& out) const {
  for (const auto& [name, tensor] : buffers_) {
    out.emplace_back(join_name(prefix, name), tensor);
  }
  for (const auto& [name, child] : children_) {
    child->collect_buffers(join_name(prefix, name), out);
  }
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers() const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect_buffers("", out);
  return out;
}

Tensor Module::parameter(std::string_view name) const {
  auto it = find_named(parameters_, name);
  if (it == parameters_.end()) {
    user_error(type_name_ + " has no parameter '" + std::string(name) + "'");
  }
  if (t_observer != nullptr) {
    t_observer->on_parameter_read(*this, name, it->second);
  }
  return it->second;
}

bool Module::has_parameter(std::string_view name) const {
  return find_named(parameters_, name) != parameters_.end();
}

void Module::collect_parameters(const std::string& prefix,
                                std::vector<std::pair<std::string, Tensor>>& out) const {
  for (const auto& [name, tensor] : parameters_) {
    out.emplace_back(join_name(prefix, name), tensor);
  }
  for (const auto& [name, child] : children_) {
    child->collect_parameters(join_name(prefix, name), out);
  }
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect_parameters("", out);
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& [name, tensor] : named_parameters()) {
    out.push_back(tensor);
  }
  return out;
}

void Module::set_attribute(const std::string& name, AttributeValue value) {
  auto it = find_named(attributes_, name);
  if (it != attributes_.end()) {
    it->second = std::move(value);
  } else {
    attributes_.emplace_back(name, std::move(value));
  }
  ++version_;
}

const AttributeValue& Module::attribute(std::string_view name) const {
  auto it = find_named(attributes_, name);
  if (it == attributes_.end()) {
    user_error(type_name_ + " has no attribute '" + std::string(name) + "'");
  }
  if (t_observer != nullptr) {
    t_observer->on_attribute_read(*this, name, it->second);
  }
  return it->second;
}

bool Module::has_attribute(std::string_view name) const {
  return find_named(attributes_, name) != attributes_.end();
}

namespace {
template <class T>
const T& typed(const Module& m, std::string_view name, const AttributeValue& v,
               std::string_view expected) {
  const T* p = std::get_if<T>(&v);
  if (p == nullptr) {
    user_error(m.type_name() + " attribute '" + std::string(name) + "' is " +
               std::string(attribute_kind_name(v)) + ", not " + std::string(expected));
  }
  return *p;
}
} // namespace

std::int64_t Module::attr_int(std::string_view name) const {
  return typed<std::int64_t>(*this, name, attribute(name), "int");
}
double Module::attr_double(std::string_view name) const {
  return typed<double>(*this, name, attribute(name), "float");
}
bool Module::attr_bool(std::string_view name) const {
  return typed<bool>(*this, name, attribute(name), "bool");
}
const std::string& Module::attr_string(std::string_view name) const {
  return typed<std::string>(*this, name, attribute(name), "str");
}

void Module::train(bool on) {
  set_attribute("training", on);
  for (auto& [name, child] : children_) {
    child->train(on);
  }
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> module) {
  if (!module) {
    user_error("register_module('" + name + "'): null module");
  }
  auto it = find_named(children_, name);
  if (it != children_.end()) {
    it->second = std::move(module);
  } else {
    children_.emplace_back(name, std::move(module));
  }
}

const std::shared_ptr<Module>& Module::child(std::string_view name) const {
  auto it = find_named(children_, name);
  if (it == children_.end()) {
    user_error(type_name_ + " has no submodule '" + std::string(name) + "'");
  }
  return it->second;
}

void Module::collect_modules(const std::string& prefix,
                             std::vector<std::pair<std::string, const Module*>>& out) const {
  out.emplace_back(prefix, this);
  for (const auto& [name, child] : children_) {
    child->collect_modules(join_name(prefix, name), out);
  }
}

std::vector<std::pair<std::string, const Module*>> Module::named_modules() const {
  std::vector<std::pair<std::string, const Module*>> out;
  collect_modules("", out);
  return out;
}

void Module::print(std::string& out, int indent) const {
  out += type_name_ + "(" + extra_repr();
  if (!children_.empty()) {
    out += "\n";
    for (const auto& [name, child] : children_) {
      out += std::string(static_cast<std::size_t>(indent + 2), ' ') + "(" + name + "): ";
      child->print(out, indent + 2);
      out += "\n";
    }
    out += std::string(static_cast<std::size_t>(indent), ' ');
  }
  out += ")";
}

std::string Module::to_string() const {
  std::string out;
  print(out, 0);
  return out;
}

} // namespace compiler::nn
