// A small JSON Schema (draft 2020-12) validator over simdjson's DOM, for tests only: it checks
// trace envelopes and payloads against schemas/trace/*.schema.json. It implements the subset of
// keywords those schemas use and reports any other keyword as an error, so that a schema can
// never silently claim a check the validator does not make.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <simdjson.h>
#include <string>
#include <string_view>
#include <vector>

namespace torchscope::test {

// One failed check: where in the instance (a JSON Pointer, "" for the root), which schema
// location made it (file#pointer) and what was wrong.
struct SchemaError {
  std::string instance_path;
  std::string schema_path;
  std::string message;
};

std::string to_string(const SchemaError& e);

// A set of schema documents keyed by their normalised path. "$ref" values resolve relative to
// the directory of the document that holds them; documents not yet added are read from disk on
// first reference. Supported: $ref, $defs, type (string or array), properties, required,
// additionalProperties, items, prefixItems, minItems, maxItems, minProperties, maxProperties,
// enum, const, oneOf, anyOf, allOf, not, minimum, maximum, pattern; annotations ($schema, $id,
// $comment, title, description, default, examples) are ignored.
class SchemaSet {
public:
  SchemaSet() = default;
  SchemaSet(const SchemaSet&) = delete;
  SchemaSet& operator=(const SchemaSet&) = delete;

  // Reads and parses a schema file. Returns false and sets *error when it cannot.
  bool load_file(const std::filesystem::path& file, std::string* error);
  // Adds a schema from text under a made-up path (tests of the validator itself).
  bool add_document(const std::string& path, std::string_view json, std::string* error);

  // Validates `instance` against the schema at `ref` ("dir/file.schema.json" or
  // "dir/file.schema.json#/$defs/x"). Returns true when valid; appends what failed to *errors.
  // A broken schema (unresolvable $ref, unsupported keyword) is reported as an error too.
  bool validate(simdjson::dom::element instance, const std::string& ref,
                std::vector<SchemaError>* errors);

  // Walks a whole schema document without an instance and reports unsupported keywords,
  // malformed keyword values and $refs that do not resolve, including in branches that no
  // instance reached.
  std::vector<SchemaError> lint(const std::string& path);

private:
  struct Document {
    std::unique_ptr<simdjson::dom::parser> parser;
    simdjson::dom::element root;
    std::filesystem::path dir;
  };
  // Where a subschema lives: its document (for resolving $refs) and its location for messages.
  struct Location {
    const Document* doc;
    std::string key;
    std::string pointer;
  };

  const Document* find_or_load(const std::string& key, std::string* error);
  bool resolve(const Location& from, std::string_view ref, simdjson::dom::element* out,
               Location* out_loc, std::string* error);
  bool check(simdjson::dom::element instance, simdjson::dom::element schema, const Location& loc,
             const std::string& instance_path, std::vector<SchemaError>* errors, int depth);
  bool check_keyword(simdjson::dom::element instance, std::string_view keyword,
                     simdjson::dom::element value, simdjson::dom::object schema,
                     const Location& loc, const std::string& instance_path,
                     std::vector<SchemaError>* errors, int depth);
  void lint_schema(simdjson::dom::element schema, const Location& loc,
                   std::vector<SchemaError>* errors, int depth);
  const std::regex* regex_for(std::string_view pattern);

  std::map<std::string, Document> documents_;
  std::map<std::string, std::regex, std::less<>> regexes_;
};

// The JSON type name of a value as JSON Schema spells it ("integer" for whole numbers).
std::string_view json_type_name(simdjson::dom::element value);
// JSON equality: numbers compare by value (1 == 1.0), objects ignore key order.
bool json_equal(simdjson::dom::element a, simdjson::dom::element b);

} // namespace torchscope::test
