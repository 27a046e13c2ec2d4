// A log of `n` string artifacts of one compile (frame 0, compile 0), each with a payload of its
// own and its MD5 declared: an index built from it has outputs seq 0..n-1 whose paths tests and
// fuzzers rewrite. Shared by the collision tests and fuzz_output_names.
#pragma once

#include "ingest/reader/md5.h"

#include <cstddef>
#include <string>

namespace test_support {

inline std::string artifact_outputs_log(std::size_t n) {
  std::string log;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string payload = "v" + std::to_string(i);
    log +=
        "V1122 02:46:30.969000 452 torch/_dynamo/utils.py:2126] {\"artifact\": {\"name\": \"a\", "
        "\"encoding\": \"string\"}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0, "
        "\"has_payload\": \"" +
        tlparse::ingest::md5_hex(payload) + "\"}\n\t" + payload + "\n";
  }
  return log;
}

} // namespace test_support
