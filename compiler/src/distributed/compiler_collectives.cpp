// Compiler collectives over a process group (distributed/compiler_collectives.h): the size
// exchange capture calls, as an all-gather of each rank's inputs in a small text encoding.
#include "compiler/distributed/compiler_collectives.h"

#include "compiler/capture/compiler_collectives.h"
#include "compiler/core/errors.h"

#include <charconv>
#include <string>
#include <string_view>

namespace compiler::distributed {

namespace {

// One rank's inputs: for each, "<name length>:<name><dims>:" then "<size>," per dim. Names are
// length-prefixed so that any character may appear in them.
std::string encode(const std::vector<capture::InputSizes>& inputs) {
  std::string out;
  for (const capture::InputSizes& in : inputs) {
    out += std::to_string(in.name.size()) + ":" + in.name + std::to_string(in.sizes.size()) + ":";
    for (std::int64_t s : in.sizes) {
      out += std::to_string(s) + ",";
    }
  }
  return out;
}

// Reads an integer up to `stop`; nullopt when the text is not one.
std::optional<std::int64_t> read_number(std::string_view text, std::size_t& at, char stop) {
  const std::size_t end = text.find(stop, at);
  if (end == std::string_view::npos) {
    return std::nullopt;
  }
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data() + at, text.data() + end, value);
  if (ec != std::errc{} || ptr != text.data() + end || value < 0) {
    return std::nullopt;
  }
  at = end + 1;
  return value;
}

std::vector<capture::InputSizes> decode(std::string_view text, int from_rank) {
  std::vector<capture::InputSizes> out;
  std::size_t at = 0;
  auto malformed = [&]() -> std::vector<capture::InputSizes> {
    user_error("compiler collectives: rank " + std::to_string(from_rank) +
               " sent sizes this rank cannot read (do all ranks run the same program?)");
  };
  while (at < text.size()) {
    std::optional<std::int64_t> length = read_number(text, at, ':');
    if (!length || at + static_cast<std::size_t>(*length) > text.size()) {
      return malformed();
    }
    capture::InputSizes in;
    in.name = std::string(text.substr(at, static_cast<std::size_t>(*length)));
    at += static_cast<std::size_t>(*length);
    std::optional<std::int64_t> dims = read_number(text, at, ':');
    if (!dims) {
      return malformed();
    }
    for (std::int64_t d = 0; d < *dims; ++d) {
      std::optional<std::int64_t> size = read_number(text, at, ',');
      if (!size) {
        return malformed();
      }
      in.sizes.push_back(*size);
    }
    out.push_back(std::move(in));
  }
  return out;
}

} // namespace

void enable_compiler_collectives(std::shared_ptr<ProcessGroup> group) {
  if (!group) {
    user_error("enable_compiler_collectives(): no process group");
  }
  capture::set_size_exchange([group](const std::vector<capture::InputSizes>& local) {
    capture::SizeExchangeResult result;
    result.rank = group->rank();
    const std::vector<std::string> everyone = group->all_gather_bytes(encode(local));
    for (std::size_t r = 0; r < everyone.size(); ++r) {
      result.ranks.push_back(decode(everyone[r], static_cast<int>(r)));
    }
    return result;
  });
}

void disable_compiler_collectives() {
  capture::set_size_exchange({});
}

} // namespace compiler::distributed
