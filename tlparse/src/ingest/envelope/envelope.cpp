// See envelope.h.
#include "ingest/envelope/envelope.h"

#include <limits>
#include <utility>

namespace tlparse::ingest {

using simdjson::ondemand::json_type;

simdjson::error_code raw_value_json(simdjson::ondemand::value v, std::string_view& out) {
  json_type t;
  if (auto err = v.type().get(t)) {
    return err;
  }
  if (t == json_type::object) {
    simdjson::ondemand::object o;
    if (auto err = v.get_object().get(o)) {
      return err;
    }
    return o.raw_json().get(out);
  }
  if (t == json_type::array) {
    simdjson::ondemand::array a;
    if (auto err = v.get_array().get(a)) {
      return err;
    }
    return a.raw_json().get(out);
  }
  out = v.raw_json_token();
  while (!out.empty() &&
         (out.back() == ' ' || out.back() == '\t' || out.back() == '\n' || out.back() == '\r')) {
    out.remove_suffix(1);
  }
  // A scalar still has to be valid: check it by decoding.
  switch (t) {
  case json_type::string: {
    std::string_view s;
    return v.get_string().get(s);
  }
  case json_type::number: {
    double d;
    return v.get_double().get(d);
  }
  case json_type::boolean: {
    bool b;
    return v.get_bool().get(b);
  }
  case json_type::null: {
    bool is_null = false;
    if (auto err = v.is_null().get(is_null)) {
      return err;
    }
    return is_null ? simdjson::SUCCESS : simdjson::INCORRECT_TYPE;
  }
  default:
    return simdjson::SUCCESS;
  }
}

namespace {

// Decodes an Option<u32>: absent/null -> nullopt; wrong type -> false.
bool decode_u32(simdjson::ondemand::value v, json_type t, std::optional<uint32_t>& out) {
  if (t == json_type::null) {
    out.reset();
    return true;
  }
  if (t != json_type::number) {
    return false;
  }
  uint64_t u = 0;
  if (v.get_uint64().get(u) || u > std::numeric_limits<uint32_t>::max()) {
    return false;
  }
  out = static_cast<uint32_t>(u);
  return true;
}

bool is_conflict_key(std::string_view k) {
  return k == "timestamp" || k == "thread" || k == "pathname" || k == "lineno" ||
         k == "payload_filename";
}

} // namespace

void EnvelopeParser::parse(std::string_view text, Envelope& out) {
  out = Envelope{};
  simdjson::ondemand::document doc;
  if (auto err = parser_.iterate(text.data(), text.size(), text.size() + simdjson::SIMDJSON_PADDING)
                     .get(doc)) {
    out.error = simdjson::error_message(err);
    return;
  }
  json_type t;
  if (auto err = doc.type().get(t)) {
    out.error = simdjson::error_message(err);
    return;
  }
  if (t != json_type::object) {
    // Not an object: On-Demand does not validate what it skips, so check with the DOM parser.
    simdjson::dom::element element;
    out.is_json = !validator_.parse(text.data(), text.size(), false).get(element);
    out.error = "not a JSON object";
    return;
  }
  simdjson::ondemand::object obj;
  if (auto err = doc.get_object().get(obj)) {
    out.error = simdjson::error_message(err);
    return;
  }
  for (auto field_result : obj) {
    simdjson::ondemand::field field;
    if (auto err = std::move(field_result).get(field)) {
      out.error = simdjson::error_message(err);
      out.fields.clear();
      return;
    }
    std::string_view key;
    if (auto err = field.unescaped_key().get(key)) {
      out.error = simdjson::error_message(err);
      return;
    }
    simdjson::ondemand::value v = field.value();
    json_type vt;
    if (auto err = v.type().get(vt)) {
      out.error = simdjson::error_message(err);
      return;
    }
    if (key == "frame_id" || key == "frame_compile_id" || key == "attempt" ||
        key == "compiled_autograd_id") {
      std::optional<uint32_t>* slot = key == "frame_id"           ? &out.cid.frame_id
                                      : key == "frame_compile_id" ? &out.cid.frame_compile_id
                                      : key == "attempt"          ? &out.cid.attempt
                                                                  : &out.cid.compiled_autograd_id;
      if (!decode_u32(v, vt, *slot)) {
        out.cid_valid = false;
        std::string_view skip;
        if (auto err = raw_value_json(v, skip)) {
          out.error = simdjson::error_message(err);
          return;
        }
      }
      continue;
    }
    if (key == "rank") {
      if (!decode_u32(v, vt, out.rank)) {
        out.type_error = true;
        out.error = "invalid type for `rank`";
        std::string_view skip;
        if (auto err = raw_value_json(v, skip)) {
          out.error = simdjson::error_message(err);
          return;
        }
      }
      continue;
    }
    if (key == "has_payload") {
      if (vt == json_type::null) {
        out.has_payload.reset();
      } else if (vt == json_type::string) {
        std::string_view s;
        if (auto err = v.get_string().get(s)) {
          out.error = simdjson::error_message(err);
          return;
        }
        out.has_payload = s;
      } else {
        out.type_error = true;
        out.error = "invalid type for `has_payload`";
        std::string_view skip;
        if (auto err = raw_value_json(v, skip)) {
          out.error = simdjson::error_message(err);
          return;
        }
      }
      continue;
    }
    if (is_conflict_key(key)) {
      out.key_conflict = true;
    }
    EnvelopeField f;
    f.key = key;
    f.type = vt;
    if (auto err = raw_value_json(v, f.raw_value)) {
      out.error = simdjson::error_message(err);
      return;
    }
    out.fields.push_back(f);
  }
  // The object must be the whole line: once its closing brace is consumed the document has no
  // token left (current_location() reports OUT_OF_BOUNDS). tlparse 0.4.3 fails a line such as
  // `{"a":1} x` or `{"a":1}}` as bad JSON, and so do we.
  const char* rest = nullptr;
  if (!doc.current_location().get(rest)) {
    out.error = "trailing characters after the JSON object";
    return;
  }
  out.is_json = true;
  out.is_object = true;
}

bool open_object(simdjson::ondemand::parser& parser, std::string_view json,
                 simdjson::ondemand::document& doc, simdjson::ondemand::object& out) {
  return !parser.iterate(json.data(), json.size(), json.size() + simdjson::SIMDJSON_PADDING)
              .get(doc) &&
         !doc.get_object().get(out);
}

bool open_array(simdjson::ondemand::parser& parser, std::string_view json,
                simdjson::ondemand::document& doc, simdjson::ondemand::array& out) {
  return !parser.iterate(json.data(), json.size(), json.size() + simdjson::SIMDJSON_PADDING)
              .get(doc) &&
         !doc.get_array().get(out);
}

std::string padded_copy(std::string_view json) {
  std::string out(json);
  out.resize(json.size() + simdjson::SIMDJSON_PADDING, ' ');
  return out;
}

simdjson::error_code item_text(simdjson::ondemand::value item, std::string_view& out) {
  json_type t{};
  if (auto err = item.type().get(t)) {
    return err;
  }
  return t == json_type::string ? item.get_string().get(out) : raw_value_json(item, out);
}

} // namespace tlparse::ingest
