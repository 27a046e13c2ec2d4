// The engine's side of compiler collectives (capture/compiler_collectives.h).
#include "capture/compiler_collectives.h"

#include "tracer/trace.h"
#include "tracing/event_keys.h"

#include <chrono>
#include <utility>

namespace compiler::capture {

namespace {

SizeExchange& installed_exchange() {
  static SizeExchange exchange;
  return exchange;
}

void write_inputs(tracer::JsonWriter& w, const std::vector<InputSizes>& inputs) {
  w.begin_object();
  for (const InputSizes& in : inputs) {
    w.key(in.name).begin_array();
    for (std::int64_t s : in.sizes) {
      w.value(s);
    }
    w.end_array();
  }
  w.end_object();
}

} // namespace

void set_size_exchange(SizeExchange exchange) {
  installed_exchange() = std::move(exchange);
}

bool size_exchange_enabled() noexcept {
  return static_cast<bool>(installed_exchange());
}

namespace detail {

std::map<std::string, std::vector<bool>>
exchange_input_sizes(const std::string& frame_name, const std::vector<InputSizes>& local) {
  std::map<std::string, std::vector<bool>> disagree;
  const SizeExchange& exchange = installed_exchange();
  if (!exchange) {
    return disagree;
  }
  const auto start = std::chrono::steady_clock::now();
  SizeExchangeResult result;
  {
    // PyTorch names the span (its dynamo_timed) as the artifact.
    tracer::ChromiumSpan span(tracing::artifacts::compiler_collective);
    result = exchange(local);
  }
  const double duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  // A dim is dynamic when some rank saw another size, or another rank (the inputs of one frame
  // have the same names everywhere; a name or rank count that differs makes the size differ).
  for (const InputSizes& mine : local) {
    std::vector<bool>& dims = disagree[mine.name];
    dims.assign(mine.sizes.size(), false);
    for (const std::vector<InputSizes>& theirs : result.ranks) {
      const InputSizes* same = nullptr;
      for (const InputSizes& in : theirs) {
        if (in.name == mine.name) {
          same = &in;
        }
      }
      if (same == nullptr || same->sizes.size() != mine.sizes.size()) {
        continue; // another program on that rank: nothing to agree on for this input
      }
      for (std::size_t d = 0; d < dims.size(); ++d) {
        dims[d] = dims[d] || same->sizes[d] != mine.sizes[d];
      }
    }
  }
  tracer::artifact(tracing::artifacts::compiler_collective, tracer::Encoding::Json,
                   [&](tracer::JsonWriter& w) {
                     w.begin_object();
                     w.member("frame", frame_name);
                     w.member("rank", static_cast<std::int64_t>(result.rank));
                     w.member("world_size", static_cast<std::int64_t>(result.ranks.size()));
                     w.member("duration_ms", duration_ms);
                     w.key("local");
                     write_inputs(w, local);
                     w.key("ranks").begin_array();
                     for (const std::vector<InputSizes>& theirs : result.ranks) {
                       write_inputs(w, theirs);
                     }
                     w.end_array();
                     w.key("dynamic_dims").begin_object();
                     for (const auto& [name, dims] : disagree) {
                       w.key(name).begin_array();
                       for (std::size_t d = 0; d < dims.size(); ++d) {
                         if (dims[d]) {
                           w.value(static_cast<std::int64_t>(d));
                         }
                       }
                       w.end_array();
                     }
                     w.end_object();
                     w.end_object();
                   });
  return disagree;
}

} // namespace detail

} // namespace compiler::capture
