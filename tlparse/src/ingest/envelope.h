// The envelope: the JSON object after the glog prefix. Parsed with simdjson On-Demand in one
// forward pass: the context keys (compile id, rank, has_payload) are decoded with tlparse
// 0.4.3's typing rules, every other top-level key is kept as (key, raw JSON of its value) for the
// handlers. A compile-id key of the wrong type makes the compile id unknown (serde's flattened
// Option swallows the error); a wrong-typed rank or has_payload is a type error (fail_json).
#pragma once

#include "tlparse/model/compile_id.h"

#include <optional>
#include <simdjson.h>
#include <string>
#include <string_view>
#include <vector>

namespace tlparse::ingest {

struct EnvelopeField {
  std::string_view key;       // unescaped
  std::string_view raw_value; // the value's JSON text (inside the padded envelope buffer)
  simdjson::ondemand::json_type type = simdjson::ondemand::json_type::null;
};

struct Envelope {
  bool is_json = false;    // parsed as JSON
  bool is_object = false;  // ... and is an object
  bool type_error = false; // a recognised context key had the wrong type
  std::string error;       // why parsing failed (for messages)
  bool cid_valid = true;   // false: some compile-id key had the wrong type
  model::CompileId cid;
  std::optional<uint32_t> rank;
  std::optional<std::string_view> has_payload; // null counts as absent
  bool key_conflict = false;         // carries timestamp/thread/pathname/lineno/payload_filename
  std::vector<EnvelopeField> fields; // every non-context key, in order
};

class EnvelopeParser {
public:
  // `text` must be followed by at least simdjson::SIMDJSON_PADDING readable bytes.
  // Fields' string_views stay valid until the next parse() (and while `text` lives).
  void parse(std::string_view text, Envelope& out);

private:
  simdjson::ondemand::parser parser_;
  simdjson::dom::parser validator_; // full validation of the rare non-object documents
};

// The raw JSON text of an On-Demand value (objects and arrays whole, scalars trimmed).
simdjson::error_code raw_value_json(simdjson::ondemand::value v, std::string_view& out);

} // namespace tlparse::ingest
