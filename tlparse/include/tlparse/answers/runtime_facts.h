// How each compile's cache entries served their calls, from our compiler's runtime_facts
// artifacts (the runtime_facts view): one rule for the report's recompilation explorer and the
// GUI's Recompiles page.
#pragma once

#include "tlparse/index/answers_reader.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace tlparse::answers {

struct Served {
  int64_t calls = 0;
  double total_ms = 0.0;
};

// By compile as PyTorch prints it ("[0/1]"), attempts summed; rows without calls or a mean
// (a payload that was not the documented object) are left out.
std::unordered_map<std::string, Served>
served_by_compile(const std::vector<index::RuntimeFacts>& facts);

// "640 calls, 0.25 ms each", "1 call, 0.5 ms"; "no call" when `s` is null or served none.
std::string served_text(const Served* s);

} // namespace tlparse::answers
