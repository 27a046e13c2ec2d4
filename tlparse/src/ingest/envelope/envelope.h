// The envelope: the JSON object after the glog prefix. Parsed with simdjson On-Demand in one
// forward pass: the context keys (compile id, rank, has_payload) are decoded with tlparse
// 0.4.3's typing rules, every other top-level key is kept as (key, raw JSON of its value) for the
// handlers. A compile-id key of the wrong type makes the compile id unknown (serde's flattened
// Option swallows the error); a wrong-typed rank or has_payload is a type error (fail_json).
#pragma once

#include "tlparse/compile_id.h"

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
  CompileId cid;
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

// Starts iterating `json` (followed by simdjson::SIMDJSON_PADDING readable bytes) as an object or
// an array; false when it is not valid JSON of that type. `doc` must outlive what is iterated.
bool open_object(simdjson::ondemand::parser& parser, std::string_view json,
                 simdjson::ondemand::document& doc, simdjson::ondemand::object& out);
bool open_array(simdjson::ondemand::parser& parser, std::string_view json,
                simdjson::ondemand::document& doc, simdjson::ondemand::array& out);
// Calls fn(key, value, type) for each field of `obj` in order, the key unescaped; fn returns
// false to stop. False when the object is not valid JSON or fn stopped.
template <class Fn>
bool for_each_field(simdjson::ondemand::object& obj, Fn&& fn) {
  for (auto field_result : obj) {
    simdjson::ondemand::field field;
    std::string_view key;
    simdjson::ondemand::json_type type{};
    if (std::move(field_result).get(field) || field.unescaped_key().get(key)) {
      return false;
    }
    simdjson::ondemand::value value = field.value();
    if (value.type().get(type) || !fn(key, value, type)) {
      return false;
    }
  }
  return true;
}

// A copy of `json` followed by the padding simdjson reads past the end (for JSON copied out of
// a padded buffer). Parse std::string_view(copy.data(), json.size()).
std::string padded_copy(std::string_view json);

// A list item as text: a string unescaped, any other value as its JSON. An error when invalid.
simdjson::error_code item_text(simdjson::ondemand::value item, std::string_view& out);

} // namespace tlparse::ingest
