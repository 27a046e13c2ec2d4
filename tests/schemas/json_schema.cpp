// The test-only JSON Schema validator (see json_schema.h): keyword checks over simdjson's DOM.
#include "schemas/json_schema.h"

#include <cmath>
#include <cstring>
#include <set>
#include <utility>

namespace torchscope::test {

namespace dom = simdjson::dom;

namespace {

// Deep schemas are a bug (a $ref cycle); stop rather than overflow the stack.
constexpr int kMaxDepth = 64;

// Keywords that carry no assertion: skipped by check() and lint().
const std::set<std::string_view> kAnnotations = {"$schema", "$id",     "$comment", "$defs",
                                                 "title",   "default", "examples", "description"};

std::string escape_pointer_token(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string unescape_pointer_token(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

bool is_number(dom::element v) {
  auto t = v.type();
  return t == dom::element_type::INT64 || t == dom::element_type::UINT64 ||
         t == dom::element_type::DOUBLE;
}

long double as_long_double(dom::element v) {
  switch (v.type()) {
  case dom::element_type::INT64:
    return static_cast<long double>(int64_t(v));
  case dom::element_type::UINT64:
    return static_cast<long double>(uint64_t(v));
  default:
    return static_cast<long double>(double(v));
  }
}

bool is_integer(dom::element v) {
  auto t = v.type();
  if (t == dom::element_type::INT64 || t == dom::element_type::UINT64) {
    return true;
  }
  if (t == dom::element_type::DOUBLE) {
    // JSON Schema counts 2.0 as an integer: the type is about the value, not the spelling.
    double d = double(v);
    return std::isfinite(d) && std::floor(d) == d;
  }
  return false;
}

bool type_matches(dom::element v, std::string_view type) {
  switch (v.type()) {
  case dom::element_type::ARRAY:
    return type == "array";
  case dom::element_type::OBJECT:
    return type == "object";
  case dom::element_type::STRING:
    return type == "string";
  case dom::element_type::BOOL:
    return type == "boolean";
  case dom::element_type::NULL_VALUE:
    return type == "null";
  default:
    return type == "number" || (type == "integer" && is_integer(v));
  }
}

const std::set<std::string_view> kTypeNames = {"null",   "boolean", "object", "array",
                                               "number", "string",  "integer"};

std::string describe(dom::element v) {
  std::string s = simdjson::minify(v);
  if (s.size() > 60) {
    s = s.substr(0, 57) + "...";
  }
  return s;
}

// Size of a dom array or object (simdjson's size() saturates at 0xFFFFFF; ours never do).
size_t count_elements(dom::array a) {
  size_t n = 0;
  for (auto it = a.begin(); it != a.end(); ++it) {
    ++n;
  }
  return n;
}
size_t count_members(dom::object o) {
  size_t n = 0;
  for (auto it = o.begin(); it != o.end(); ++it) {
    ++n;
  }
  return n;
}

bool get_count(dom::element v, uint64_t* out) {
  if (v.type() == dom::element_type::UINT64) {
    *out = uint64_t(v);
    return true;
  }
  if (v.type() == dom::element_type::INT64 && int64_t(v) >= 0) {
    *out = static_cast<uint64_t>(int64_t(v));
    return true;
  }
  return false;
}

} // namespace

std::string to_string(const SchemaError& e) {
  return (e.instance_path.empty() ? std::string("(root)") : e.instance_path) + ": " + e.message +
         " [" + e.schema_path + "]";
}

std::string_view json_type_name(dom::element value) {
  switch (value.type()) {
  case dom::element_type::ARRAY:
    return "array";
  case dom::element_type::OBJECT:
    return "object";
  case dom::element_type::STRING:
    return "string";
  case dom::element_type::BOOL:
    return "boolean";
  case dom::element_type::NULL_VALUE:
    return "null";
  default:
    return is_integer(value) ? "integer" : "number";
  }
}

bool json_equal(dom::element a, dom::element b) {
  if (is_number(a) && is_number(b)) {
    return as_long_double(a) == as_long_double(b);
  }
  if (a.type() != b.type()) {
    return false;
  }
  switch (a.type()) {
  case dom::element_type::STRING:
    return std::string_view(a) == std::string_view(b);
  case dom::element_type::BOOL:
    return bool(a) == bool(b);
  case dom::element_type::NULL_VALUE:
    return true;
  case dom::element_type::ARRAY: {
    dom::array x = a;
    dom::array y = b;
    auto i = x.begin();
    auto j = y.begin();
    for (; i != x.end() && j != y.end(); ++i, ++j) {
      if (!json_equal(*i, *j)) {
        return false;
      }
    }
    return i == x.end() && j == y.end();
  }
  case dom::element_type::OBJECT: {
    dom::object x = a;
    dom::object y = b;
    if (count_members(x) != count_members(y)) {
      return false;
    }
    for (auto [key, value] : x) {
      dom::element other;
      if (y.at_key(key).get(other) != simdjson::SUCCESS || !json_equal(value, other)) {
        return false;
      }
    }
    return true;
  }
  default:
    return false;
  }
}

bool SchemaSet::load_file(const std::filesystem::path& file, std::string* error) {
  std::string key = std::filesystem::absolute(file).lexically_normal().string();
  return find_or_load(key, error) != nullptr;
}

bool SchemaSet::add_document(const std::string& path, std::string_view json, std::string* error) {
  std::string key = std::filesystem::path(path).lexically_normal().string();
  Document doc;
  doc.parser = std::make_unique<dom::parser>();
  simdjson::padded_string text(json);
  if (auto err = doc.parser->parse(text).get(doc.root); err != simdjson::SUCCESS) {
    *error = key + ": " + simdjson::error_message(err);
    return false;
  }
  doc.dir = std::filesystem::path(key).parent_path();
  documents_.insert_or_assign(key, std::move(doc));
  return true;
}

const SchemaSet::Document* SchemaSet::find_or_load(const std::string& key, std::string* error) {
  if (auto it = documents_.find(key); it != documents_.end()) {
    return &it->second;
  }
  simdjson::padded_string text;
  if (auto err = simdjson::padded_string::load(key).get(text); err != simdjson::SUCCESS) {
    *error = key + ": cannot read: " + simdjson::error_message(err);
    return nullptr;
  }
  Document doc;
  doc.parser = std::make_unique<dom::parser>();
  if (auto err = doc.parser->parse(text).get(doc.root); err != simdjson::SUCCESS) {
    *error = key + ": invalid JSON: " + simdjson::error_message(err);
    return nullptr;
  }
  doc.dir = std::filesystem::path(key).parent_path();
  return &documents_.emplace(key, std::move(doc)).first->second;
}

bool SchemaSet::resolve(const Location& from, std::string_view ref, dom::element* out,
                        Location* out_loc, std::string* error) {
  size_t hash = ref.find('#');
  std::string_view file_part = ref.substr(0, hash);
  std::string_view fragment = hash == std::string_view::npos ? "" : ref.substr(hash + 1);
  const Document* doc = from.doc;
  std::string key = from.key;
  if (!file_part.empty()) {
    if (file_part.find("://") != std::string_view::npos) {
      *error = "$ref to a remote URI is not supported: " + std::string(ref);
      return false;
    }
    key = (from.doc->dir / std::string(file_part)).lexically_normal().string();
    doc = find_or_load(key, error);
    if (doc == nullptr) {
      return false;
    }
  }
  if (!fragment.empty() && fragment.front() != '/') {
    *error = "$ref fragment is not a JSON Pointer (anchors are not supported): " + std::string(ref);
    return false;
  }
  dom::element at = doc->root;
  size_t pos = 0;
  while (pos < fragment.size()) {
    size_t next = fragment.find('/', pos + 1);
    std::string token = unescape_pointer_token(
        fragment.substr(pos + 1, next == std::string_view::npos ? next : next - pos - 1));
    dom::element child;
    bool found = false;
    if (at.type() == dom::element_type::OBJECT) {
      found = dom::object(at).at_key(token).get(child) == simdjson::SUCCESS;
    } else if (at.type() == dom::element_type::ARRAY && !token.empty() &&
               token.find_first_not_of("0123456789") == std::string::npos) {
      found = dom::array(at).at(std::stoul(token)).get(child) == simdjson::SUCCESS;
    }
    if (!found) {
      *error =
          "$ref does not resolve: " + std::string(ref) + " (no '" + token + "' in " + key + ")";
      return false;
    }
    at = child;
    pos = next == std::string_view::npos ? fragment.size() : next;
  }
  *out = at;
  *out_loc = Location{doc, key, std::string(fragment)};
  return true;
}

const std::regex* SchemaSet::regex_for(std::string_view pattern) {
  if (auto it = regexes_.find(pattern); it != regexes_.end()) {
    return &it->second;
  }
  try {
    std::regex re{std::string(pattern), std::regex::ECMAScript};
    return &regexes_.emplace(std::string(pattern), std::move(re)).first->second;
  } catch (const std::regex_error&) {
    return nullptr;
  }
}

bool SchemaSet::validate(dom::element instance, const std::string& ref,
                         std::vector<SchemaError>* errors) {
  size_t hash = ref.find('#');
  std::string key = std::filesystem::absolute(std::filesystem::path(ref.substr(0, hash)))
                        .lexically_normal()
                        .string();
  if (documents_.count(key) == 0) {
    // In-memory documents are keyed by the path they were added under, not an absolute one.
    std::string plain = std::filesystem::path(ref.substr(0, hash)).lexically_normal().string();
    if (documents_.count(plain) != 0) {
      key = plain;
    }
  }
  std::string error;
  const Document* doc = find_or_load(key, &error);
  if (doc == nullptr) {
    errors->push_back({"", ref, "schema error: " + error});
    return false;
  }
  Location root{doc, key, ""};
  dom::element schema = doc->root;
  Location loc = root;
  if (hash != std::string::npos) {
    if (!resolve(root, std::string_view(ref).substr(hash), &schema, &loc, &error)) {
      errors->push_back({"", ref, "schema error: " + error});
      return false;
    }
  }
  return check(instance, schema, loc, "", errors, 0);
}

bool SchemaSet::check(dom::element instance, dom::element schema, const Location& loc,
                      const std::string& instance_path, std::vector<SchemaError>* errors,
                      int depth) {
  std::string where = loc.key + "#" + loc.pointer;
  if (depth > kMaxDepth) {
    errors->push_back({instance_path, where, "schema error: $ref nesting too deep (a cycle?)"});
    return false;
  }
  if (schema.type() == dom::element_type::BOOL) {
    if (bool(schema)) {
      return true;
    }
    errors->push_back({instance_path, where, "no value is allowed here (schema false)"});
    return false;
  }
  if (schema.type() != dom::element_type::OBJECT) {
    errors->push_back({instance_path, where, "schema error: a schema must be an object or bool"});
    return false;
  }
  dom::object object = schema;
  bool ok = true;
  for (auto [keyword, value] : object) {
    if (kAnnotations.count(keyword) != 0) {
      continue;
    }
    Location at{loc.doc, loc.key, loc.pointer + "/" + escape_pointer_token(keyword)};
    ok &= check_keyword(instance, keyword, value, object, at, instance_path, errors, depth);
  }
  return ok;
}

bool SchemaSet::check_keyword(dom::element instance, std::string_view keyword, dom::element value,
                              dom::object schema, const Location& loc,
                              const std::string& instance_path, std::vector<SchemaError>* errors,
                              int depth) {
  std::string where = loc.key + "#" + loc.pointer;
  auto fail = [&](std::string message) {
    errors->push_back({instance_path, where, std::move(message)});
    return false;
  };
  auto schema_error = [&](const std::string& message) { return fail("schema error: " + message); };
  auto sub = [&](std::string_view token) {
    return Location{loc.doc, loc.key, loc.pointer + "/" + escape_pointer_token(token)};
  };
  const auto type = instance.type();

  if (keyword == "$ref") {
    if (value.type() != dom::element_type::STRING) {
      return schema_error("$ref must be a string");
    }
    dom::element target;
    Location target_loc;
    std::string error;
    if (!resolve(loc, std::string_view(value), &target, &target_loc, &error)) {
      return schema_error(error);
    }
    return check(instance, target, target_loc, instance_path, errors, depth + 1);
  }
  if (keyword == "type") {
    if (value.type() == dom::element_type::STRING) {
      if (kTypeNames.count(std::string_view(value)) == 0) {
        return schema_error("unknown type '" + std::string(std::string_view(value)) + "'");
      }
      if (type_matches(instance, std::string_view(value))) {
        return true;
      }
      return fail("expected " + std::string(std::string_view(value)) + ", got " +
                  std::string(json_type_name(instance)));
    }
    if (value.type() != dom::element_type::ARRAY) {
      return schema_error("type must be a string or an array of strings");
    }
    std::string names;
    for (dom::element t : dom::array(value)) {
      if (t.type() != dom::element_type::STRING || kTypeNames.count(std::string_view(t)) == 0) {
        return schema_error("type arrays hold type names");
      }
      if (type_matches(instance, std::string_view(t))) {
        return true;
      }
      names += (names.empty() ? "" : " or ") + std::string(std::string_view(t));
    }
    return fail("expected " + names + ", got " + std::string(json_type_name(instance)));
  }
  if (keyword == "enum") {
    if (value.type() != dom::element_type::ARRAY) {
      return schema_error("enum must be an array");
    }
    for (dom::element candidate : dom::array(value)) {
      if (json_equal(instance, candidate)) {
        return true;
      }
    }
    return fail(describe(instance) + " is not one of " + describe(value));
  }
  if (keyword == "const") {
    return json_equal(instance, value) ? true
                                       : fail(describe(instance) + " is not " + describe(value));
  }
  if (keyword == "properties") {
    if (value.type() != dom::element_type::OBJECT) {
      return schema_error("properties must be an object");
    }
    if (type != dom::element_type::OBJECT) {
      return true;
    }
    bool ok = true;
    dom::object members = instance;
    for (auto [name, subschema] : dom::object(value)) {
      dom::element member;
      if (members.at_key(name).get(member) == simdjson::SUCCESS) {
        ok &= check(member, subschema, sub(name), instance_path + "/" + escape_pointer_token(name),
                    errors, depth + 1);
      }
    }
    return ok;
  }
  if (keyword == "required") {
    if (value.type() != dom::element_type::ARRAY) {
      return schema_error("required must be an array");
    }
    if (type != dom::element_type::OBJECT) {
      return true;
    }
    bool ok = true;
    dom::object members = instance;
    for (dom::element name : dom::array(value)) {
      if (name.type() != dom::element_type::STRING) {
        return schema_error("required holds property names");
      }
      dom::element ignored;
      if (members.at_key(std::string_view(name)).get(ignored) != simdjson::SUCCESS) {
        ok = fail("missing required property '" + std::string(std::string_view(name)) + "'");
      }
    }
    return ok;
  }
  if (keyword == "additionalProperties") {
    if (type != dom::element_type::OBJECT) {
      return true;
    }
    dom::element declared_value;
    bool has_declared = schema.at_key("properties").get(declared_value) == simdjson::SUCCESS &&
                        declared_value.type() == dom::element_type::OBJECT;
    bool ok = true;
    for (auto [name, member] : dom::object(instance)) {
      dom::element ignored;
      if (has_declared &&
          dom::object(declared_value).at_key(name).get(ignored) == simdjson::SUCCESS) {
        continue;
      }
      ok &= check(member, value, loc, instance_path + "/" + escape_pointer_token(name), errors,
                  depth + 1);
    }
    return ok;
  }
  if (keyword == "prefixItems") {
    if (value.type() != dom::element_type::ARRAY) {
      return schema_error("prefixItems must be an array");
    }
    if (type != dom::element_type::ARRAY) {
      return true;
    }
    bool ok = true;
    dom::array items = instance;
    size_t i = 0;
    auto it = items.begin();
    for (dom::element subschema : dom::array(value)) {
      if (it == items.end()) {
        break;
      }
      ok &= check(*it, subschema, sub(std::to_string(i)), instance_path + "/" + std::to_string(i),
                  errors, depth + 1);
      ++it;
      ++i;
    }
    return ok;
  }
  if (keyword == "items") {
    if (type != dom::element_type::ARRAY) {
      return true;
    }
    // With prefixItems, items applies only to the elements after the prefix.
    size_t skip = 0;
    dom::element prefix;
    if (schema.at_key("prefixItems").get(prefix) == simdjson::SUCCESS &&
        prefix.type() == dom::element_type::ARRAY) {
      skip = count_elements(prefix);
    }
    bool ok = true;
    size_t i = 0;
    for (dom::element item : dom::array(instance)) {
      if (i >= skip) {
        ok &= check(item, value, loc, instance_path + "/" + std::to_string(i), errors, depth + 1);
      }
      ++i;
    }
    return ok;
  }
  if (keyword == "minItems" || keyword == "maxItems" || keyword == "minProperties" ||
      keyword == "maxProperties") {
    uint64_t limit = 0;
    if (!get_count(value, &limit)) {
      return schema_error(std::string(keyword) + " must be a non-negative integer");
    }
    bool items = keyword.find("Items") != std::string_view::npos;
    if (items ? type != dom::element_type::ARRAY : type != dom::element_type::OBJECT) {
      return true;
    }
    size_t n = items ? count_elements(instance) : count_members(instance);
    bool is_min = keyword.substr(0, 3) == "min";
    if (is_min ? n >= limit : n <= limit) {
      return true;
    }
    return fail(std::string(items ? "array has " : "object has ") + std::to_string(n) +
                (items ? " items" : " properties") + ", " + std::string(keyword) + " is " +
                std::to_string(limit));
  }
  if (keyword == "minimum" || keyword == "maximum") {
    if (!is_number(value)) {
      return schema_error(std::string(keyword) + " must be a number");
    }
    if (!is_number(instance)) {
      return true;
    }
    long double x = as_long_double(instance);
    long double limit = as_long_double(value);
    if (keyword == "minimum" ? x >= limit : x <= limit) {
      return true;
    }
    return fail(describe(instance) + (keyword == "minimum" ? " is below " : " is above ") +
                describe(value));
  }
  if (keyword == "pattern") {
    if (value.type() != dom::element_type::STRING) {
      return schema_error("pattern must be a string");
    }
    const std::regex* re = regex_for(std::string_view(value));
    if (re == nullptr) {
      return schema_error("pattern is not a valid regular expression");
    }
    if (type != dom::element_type::STRING) {
      return true;
    }
    std::string_view text = instance;
    if (std::regex_search(text.begin(), text.end(), *re)) {
      return true;
    }
    return fail(describe(instance) + " does not match " + describe(value));
  }
  if (keyword == "oneOf" || keyword == "anyOf" || keyword == "allOf") {
    if (value.type() != dom::element_type::ARRAY) {
      return schema_error(std::string(keyword) + " must be an array");
    }
    size_t matched = 0;
    size_t i = 0;
    std::vector<SchemaError> branch_errors;
    for (dom::element subschema : dom::array(value)) {
      std::vector<SchemaError> these;
      if (check(instance, subschema, sub(std::to_string(i)), instance_path, &these, depth + 1)) {
        ++matched;
      } else {
        // A broken branch is a broken schema, whatever the other branches say.
        for (auto& e : these) {
          if (e.message.rfind("schema error:", 0) == 0) {
            errors->push_back(e);
            return false;
          }
        }
        branch_errors.insert(branch_errors.end(), these.begin(), these.end());
      }
      ++i;
    }
    if (keyword == "allOf") {
      errors->insert(errors->end(), branch_errors.begin(), branch_errors.end());
      return matched == i;
    }
    if (keyword == "anyOf" && matched > 0) {
      return true;
    }
    if (keyword == "oneOf" && matched == 1) {
      return true;
    }
    std::string message = std::string(keyword) + ": " + std::to_string(matched) + " of " +
                          std::to_string(i) + " subschemas matched";
    if (matched == 0 && !branch_errors.empty()) {
      message += " (first failure: " + to_string(branch_errors.front()) + ")";
    }
    return fail(message);
  }
  if (keyword == "not") {
    std::vector<SchemaError> ignored;
    if (!check(instance, value, loc, instance_path, &ignored, depth + 1)) {
      return true;
    }
    return fail("value matches a schema it must not match");
  }
  return schema_error("unsupported keyword '" + std::string(keyword) + "'");
}

std::vector<SchemaError> SchemaSet::lint(const std::string& path) {
  std::vector<SchemaError> errors;
  std::string key = std::filesystem::absolute(path).lexically_normal().string();
  std::string error;
  const Document* doc = find_or_load(key, &error);
  if (doc == nullptr) {
    errors.push_back({"", path, error});
    return errors;
  }
  lint_schema(doc->root, Location{doc, key, ""}, &errors, 0);
  dom::element defs;
  if (doc->root.type() == dom::element_type::OBJECT &&
      dom::object(doc->root).at_key("$defs").get(defs) == simdjson::SUCCESS) {
    if (defs.type() != dom::element_type::OBJECT) {
      errors.push_back({"", key + "#/$defs", "$defs must be an object"});
    } else {
      for (auto [name, schema] : dom::object(defs)) {
        lint_schema(schema, Location{doc, key, "/$defs/" + escape_pointer_token(name)}, &errors, 1);
      }
    }
  }
  return errors;
}

void SchemaSet::lint_schema(dom::element schema, const Location& loc,
                            std::vector<SchemaError>* errors, int depth) {
  std::string where = loc.key + "#" + loc.pointer;
  if (depth > kMaxDepth) {
    errors->push_back({"", where, "schema nesting too deep"});
    return;
  }
  if (schema.type() == dom::element_type::BOOL) {
    return;
  }
  if (schema.type() != dom::element_type::OBJECT) {
    errors->push_back({"", where, "a schema must be an object or bool"});
    return;
  }
  auto at = [&](std::string_view a, std::string_view b = {}) {
    std::string p = loc.pointer + "/" + escape_pointer_token(a);
    if (!b.empty()) {
      p += "/" + escape_pointer_token(b);
    }
    return Location{loc.doc, loc.key, p};
  };
  for (auto [keyword, value] : dom::object(schema)) {
    if (kAnnotations.count(keyword) != 0) {
      continue;
    }
    if (keyword == "$ref") {
      dom::element target;
      Location target_loc;
      std::string error;
      if (value.type() != dom::element_type::STRING) {
        errors->push_back({"", where, "$ref must be a string"});
      } else if (!resolve(loc, std::string_view(value), &target, &target_loc, &error)) {
        errors->push_back({"", where, error});
      }
    } else if (keyword == "properties") {
      if (value.type() != dom::element_type::OBJECT) {
        errors->push_back({"", where, "properties must be an object"});
        continue;
      }
      for (auto [name, subschema] : dom::object(value)) {
        lint_schema(subschema, at(keyword, name), errors, depth + 1);
      }
    } else if (keyword == "additionalProperties" || keyword == "items" || keyword == "not") {
      lint_schema(value, at(keyword), errors, depth + 1);
    } else if (keyword == "prefixItems" || keyword == "oneOf" || keyword == "anyOf" ||
               keyword == "allOf") {
      if (value.type() != dom::element_type::ARRAY) {
        errors->push_back({"", where, std::string(keyword) + " must be an array"});
        continue;
      }
      size_t i = 0;
      for (dom::element subschema : dom::array(value)) {
        lint_schema(subschema, at(keyword, std::to_string(i++)), errors, depth + 1);
      }
    } else if (keyword == "type" || keyword == "enum" || keyword == "const" ||
               keyword == "required" || keyword == "minItems" || keyword == "maxItems" ||
               keyword == "minProperties" || keyword == "maxProperties" || keyword == "minimum" ||
               keyword == "maximum" || keyword == "pattern") {
      // Check the keyword's own value the way validation would, against a dummy instance of
      // every type, collecting only schema errors.
      static const char* const kSamples[] = {"null", "true", "0", "0.5", "\"\"", "[]", "{}"};
      dom::parser sample_parser;
      bool reported = false;
      for (const char* text : kSamples) {
        dom::element sample;
        if (reported ||
            sample_parser.parse(text, std::strlen(text)).get(sample) != simdjson::SUCCESS) {
          continue;
        }
        std::vector<SchemaError> found;
        check_keyword(sample, keyword, value, dom::object(schema), at(keyword), "", &found, depth);
        for (auto& e : found) {
          if (e.message.rfind("schema error:", 0) == 0) {
            errors->push_back({"", e.schema_path, e.message});
            reported = true;
            break;
          }
        }
      }
    } else {
      errors->push_back({"", where, "unsupported keyword '" + std::string(keyword) + "'"});
    }
  }
}

} // namespace torchscope::test
