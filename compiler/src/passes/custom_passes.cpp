// The registry of user graph passes (compiler/passes/custom_passes.h) and what the pipelines
// and compile caches read from it (passes/pass_pipeline.h).
#include "compiler/passes/custom_passes.h"

#include "compiler/core/errors.h"
#include "passes/pass_pipeline.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace compiler::passes {

namespace {

struct Registered {
  std::uint64_t id;
  CustomPass pass;
};

struct Registry {
  std::mutex mutex;
  std::vector<Registered> passes;
  std::uint64_t next_id = 1;
  std::atomic<std::uint64_t> generation{0};
};

Registry& registry() {
  static Registry r;
  return r;
}

bool is_identifier(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

void unregister(std::uint64_t id) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::erase_if(r.passes, [id](const Registered& p) { return p.id == id; });
  r.generation.fetch_add(1, std::memory_order_relaxed);
}

} // namespace

CustomPassHandle& CustomPassHandle::operator=(CustomPassHandle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = other.id_;
    other.id_ = 0;
  }
  return *this;
}

CustomPassHandle::~CustomPassHandle() {
  reset();
}

void CustomPassHandle::reset() {
  if (id_ != 0) {
    unregister(id_);
    id_ = 0;
  }
}

CustomPassHandle register_custom_pass(CustomPass pass) {
  if (!pass.run) {
    user_error("register_custom_pass: the pass '" + pass.name + "' has no function to run");
  }
  if (!is_identifier(pass.name)) {
    user_error("register_custom_pass: the name '" + pass.name +
               "' must be letters, digits and '_' (it names the pass's graph dumps)");
  }
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const Registered& p : r.passes) {
    if (p.pass.stage == pass.stage && p.pass.name == pass.name) {
      user_error("register_custom_pass: a pass named '" + pass.name +
                 "' is already registered for the " + std::string(stage_name(pass.stage)) +
                 " stage");
    }
  }
  const std::uint64_t id = r.next_id++;
  r.passes.push_back({id, std::move(pass)});
  r.generation.fetch_add(1, std::memory_order_relaxed);
  return CustomPassHandle(id);
}

std::string_view stage_name(Stage stage) noexcept {
  switch (stage) {
  case Stage::PreGrad:
    return "pre_grad";
  case Stage::JointGraph:
    return "joint_graph";
  case Stage::PostGrad:
    return "post_grad";
  }
  return "?";
}

std::vector<CustomPass> custom_passes(Stage stage, Placement placement) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<CustomPass> out;
  for (const Registered& p : r.passes) {
    if (p.pass.stage == stage && p.pass.placement == placement) {
      out.push_back(p.pass);
    }
  }
  return out;
}

std::optional<std::string> custom_pass_cache_key(Stage stage) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::string key;
  for (const Registered& p : r.passes) {
    if (p.pass.stage != stage) {
      continue;
    }
    if (p.pass.uuid.empty()) {
      return std::nullopt;
    }
    key += std::string(p.pass.placement == Placement::BeforeBuiltins ? "pre:" : "post:") +
           p.pass.name + "@" + p.pass.uuid + ";";
  }
  return key;
}

std::uint64_t custom_pass_generation() noexcept {
  return registry().generation.load(std::memory_order_relaxed);
}

} // namespace compiler::passes
