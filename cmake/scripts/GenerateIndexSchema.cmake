# Turns schemas/index/index_schema.json (the index schema, declared once) into:
#   OUT_PUBLIC  tlparse/index/schema.gen.h: the enums and the row types the read API returns
#   OUT_IO      tlparse/index/schema_io.gen.h (private to tlparse/src/index): the SQL (tables,
#               indexes, views, the search table), one record type per table for writing (views
#               over the caller's bytes), and the binding, reading and merging of every row
#   OUT_DOC     docs/INDEX-SCHEMA.md
# cmake -DIN=<json> -DOUT_PUBLIC=<h> -DOUT_IO=<h> -DOUT_DOC=<md> -P GenerateIndexSchema.cmake
# Column types: id, int, real, text, json, blob, bool, enum (see the schema's $comment).
cmake_policy(VERSION 3.25)
file(READ "${IN}" json)
string(JSON version GET "${json}" version)

# Optional member of the schema (path given after `out`), empty when absent.
function(optional_member out)
  string(JSON value ERROR_VARIABLE err GET "${json}" ${ARGN})
  if(err)
    set(value "")
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

function(fail message)
  message(FATAL_ERROR "index schema: ${message}")
endfunction()

# ---------------------------------------------------------------------------------------------
# Enums
set(pub_enums "")
set(doc_enums "")
set(enum_names "")
string(JSON nenums LENGTH "${json}" enums)
math(EXPR elast "${nenums} - 1")
foreach(e RANGE ${elast})
  string(JSON ename GET "${json}" enums ${e} name)
  string(JSON edoc GET "${json}" enums ${e} doc)
  string(JSON nvalues LENGTH "${json}" enums ${e} values)
  math(EXPR vlast "${nvalues} - 1")
  list(APPEND enum_names "${ename}")
  set(values_decl "")
  set(to_string_cases "")
  set(parse_chain "")
  string(APPEND doc_enums "\n### `${ename}`\n\n${edoc}\n\n| value | meaning |\n|---|---|\n")
  foreach(v RANGE ${vlast})
    string(JSON vname GET "${json}" enums ${e} values ${v} 0)
    string(JSON vdoc GET "${json}" enums ${e} values ${v} 1)
    string(APPEND values_decl "  ${vname}, // ${vdoc}\n")
    string(APPEND to_string_cases "  case ${ename}::${vname}:\n    return \"${vname}\";\n")
    string(APPEND parse_chain "  if (s == \"${vname}\") {\n    out = ${ename}::${vname};\n    return true;\n  }\n")
    string(APPEND doc_enums "| `${vname}` | ${vdoc} |\n")
  endforeach()
  string(APPEND pub_enums "// ${edoc}
enum class ${ename} {
${values_decl}};
inline constexpr int k${ename}Count = ${nvalues};
constexpr std::string_view to_string(${ename} v) {
  switch (v) {
${to_string_cases}  }
  return {};
}
// False (and `out` unchanged) when `s` names no value.
inline bool parse(std::string_view s, ${ename}& out) {
${parse_chain}  return false;
}

")
endforeach()

# ---------------------------------------------------------------------------------------------
# Tables
set(pub_rows "")
set(io_records "")
set(io_functions "")
set(io_table_infos "")
set(io_merges "")
set(io_references "")
set(sql_tables "")
set(doc_tables "")
set(id_tables "")
string(JSON ntables LENGTH "${json}" tables)
math(EXPR tlast "${ntables} - 1")
foreach(t RANGE ${tlast})
  string(JSON tname GET "${json}" tables ${t} name)
  list(APPEND table_names "${tname}")
  string(JSON has_id ERROR_VARIABLE err GET "${json}" tables ${t} columns 0 type)
  optional_member(tmerge tables ${t} merge)
  if(has_id STREQUAL "id" AND (NOT tmerge OR tmerge STREQUAL "offset" OR tmerge STREQUAL "by_content"))
    list(APPEND id_tables "${tname}")
  endif()
endforeach()

foreach(t RANGE ${tlast})
  string(JSON tname GET "${json}" tables ${t} name)
  string(JSON row GET "${json}" tables ${t} row)
  string(JSON tdoc GET "${json}" tables ${t} doc)
  string(JSON ncols LENGTH "${json}" tables ${t} columns)
  math(EXPR clast "${ncols} - 1")
  optional_member(tmerge tables ${t} merge)
  if(NOT tmerge)
    set(tmerge "offset")
  endif()
  set(row_fields "")
  set(record_fields "")
  set(bind_body "")
  set(read_body "")
  set(visit_body "")
  set(record_of_body "")
  set(col_infos "")
  set(sql_cols "")
  set(insert_cols "")
  set(insert_params "")
  set(merge_exprs "")
  set(payload_exprs "")
  set(has_payload_refs OFF)
  set(json_slots "")
  set(json_list_slots "")
  set(has_json_columns OFF)
  string(APPEND doc_tables "\n### `${tname}`\n\n${tdoc} C++ row: `tlparse::index::${row}`.\n\n| column | type | meaning |\n|---|---|---|\n")
  foreach(c RANGE ${clast})
    string(JSON cname GET "${json}" tables ${t} columns ${c} name)
    string(JSON ctype GET "${json}" tables ${t} columns ${c} type)
    string(JSON cdoc GET "${json}" tables ${t} columns ${c} doc)
    optional_member(cnull tables ${t} columns ${c} null)
    optional_member(cref tables ${t} columns ${c} ref)
    optional_member(cenum tables ${t} columns ${c} enum)
    optional_member(cprimary tables ${t} columns ${c} primary)
    optional_member(cjson tables ${t} columns ${c} json)
    optional_member(cjson_list tables ${t} columns ${c} json_list)
    set(nullable OFF)
    if(cnull STREQUAL "ON")
      set(nullable ON)
    endif()
    # SQL and C++ types.
    if(ctype STREQUAL "id")
      set(sql_type "INTEGER")
      set(cpp "int64_t")
      set(rec "int64_t")
      set(init " = 0")
      if(NOT c EQUAL 0)
        fail("${tname}.${cname}: an id column comes first")
      endif()
    elseif(ctype STREQUAL "int")
      set(sql_type "INTEGER")
      set(cpp "int64_t")
      set(rec "int64_t")
      set(init " = 0")
    elseif(ctype STREQUAL "bool")
      set(sql_type "INTEGER")
      set(cpp "bool")
      set(rec "bool")
      set(init " = false")
    elseif(ctype STREQUAL "real")
      set(sql_type "REAL")
      set(cpp "double")
      set(rec "double")
      set(init " = 0")
    elseif(ctype STREQUAL "text" OR ctype STREQUAL "json")
      set(sql_type "TEXT")
      set(cpp "std::string")
      set(rec "std::string_view")
      set(init "")
    elseif(ctype STREQUAL "blob")
      set(sql_type "BLOB")
      set(cpp "std::string")
      set(rec "std::string_view")
      set(init "")
    elseif(ctype STREQUAL "enum")
      if(NOT cenum IN_LIST enum_names)
        fail("${tname}.${cname}: unknown enum '${cenum}'")
      endif()
      set(sql_type "TEXT")
      set(cpp "${cenum}")
      set(rec "${cenum}")
      set(init " = ${cenum}{}")
    else()
      fail("${tname}.${cname}: unknown type '${ctype}'")
    endif()
    if(nullable)
      set(cpp "std::optional<${cpp}>")
      set(rec "std::optional<${rec}>")
      set(init "")
    endif()
    if(cref AND NOT cref IN_LIST table_names)
      fail("${tname}.${cname}: ref to unknown table '${cref}'")
    endif()
    # The row (public) and the record (private, for writing).
    string(APPEND row_fields "  ${cpp} ${cname}${init}; // ${cdoc}\n")
    string(APPEND record_fields "  ${rec} ${cname}${init};\n")
    string(APPEND visit_body "  f(\"${cname}\", r.${cname});\n")
    string(APPEND record_of_body "  out.${cname} = r.${cname};\n")
    # SQL column.
    set(col_sql "${cname} ${sql_type}")
    set(not_null "true")
    set(primary "false")
    if(ctype STREQUAL "id")
      string(APPEND col_sql " PRIMARY KEY")
      set(primary "true")
    elseif(cprimary STREQUAL "ON")
      string(APPEND col_sql " PRIMARY KEY NOT NULL")
      set(primary "true")
    elseif(nullable)
      set(not_null "false")
    else()
      string(APPEND col_sql " NOT NULL")
    endif()
    if(ctype STREQUAL "id")
      set(not_null "false") # SQLite reports INTEGER PRIMARY KEY as nullable (it is the rowid)
    endif()
    if(c GREATER 0)
      string(APPEND sql_cols ", ")
      string(APPEND insert_cols ",")
      string(APPEND insert_params ",")
      string(APPEND merge_exprs ", ")
    endif()
    string(APPEND sql_cols "${col_sql}")
    string(APPEND insert_cols "${cname}")
    string(APPEND insert_params "?")
    string(APPEND col_infos "    {\"${cname}\", \"${sql_type}\", ${not_null}, ${primary}},\n")
    # Binding and reading.
    math(EXPR pos "${c} + 1")
    if(ctype STREQUAL "enum")
      string(APPEND bind_body "  bind_enum(s, ${pos}, r.${cname});\n")
    elseif(ctype STREQUAL "blob")
      string(APPEND bind_body "  s.bind_blob(${pos}, r.${cname});\n")
    else()
      string(APPEND bind_body "  s.bind(${pos}, r.${cname});\n")
    endif()
    if(ctype STREQUAL "blob")
      string(APPEND read_body "  if (!read_blob(s, first + ${c}, row.${cname})) {\n    return first + ${c};\n  }\n")
    else()
      string(APPEND read_body "  if (!read_column(s, first + ${c}, row.${cname})) {\n    return first + ${c};\n  }\n")
    endif()
    # Merging a per-file part: ids move past the main database's. File ids move by :off_files,
    # which the ingest binds to 0 (it numbers the files itself) and `tlparse merge` to the files
    # the merged index already holds.
    if(ctype STREQUAL "id" AND tmerge STREQUAL "offset")
      string(APPEND merge_exprs "${cname} + :off_${tname}")
    elseif(ctype STREQUAL "id" AND tname STREQUAL "files")
      string(APPEND merge_exprs "${cname} + :off_files")
    elseif(cname STREQUAL "file_id")
      string(APPEND merge_exprs "${cname} + :off_files")
      string(APPEND io_references "    {\"${tname}\", \"${cname}\", \"files\"},\n")
    elseif(cref STREQUAL "payloads")
      string(APPEND merge_exprs "(SELECT main_id FROM temp.payload_map WHERE part_id = x.${cname})")
      string(APPEND io_references "    {\"${tname}\", \"${cname}\", \"payloads\"},\n")
    elseif(cref)
      string(APPEND merge_exprs "${cname} + :off_${cref}")
      string(APPEND io_references "    {\"${tname}\", \"${cname}\", \"${cref}\"},\n")
    else()
      string(APPEND merge_exprs "${cname}")
    endif()
    # The same with the part's ids kept (they were given past the index's): only payload ids
    # that the index already held under another id change.
    if(c GREATER 0)
      string(APPEND payload_exprs ", ")
    endif()
    if(cref STREQUAL "payloads")
      set(has_payload_refs ON)
      string(APPEND payload_exprs "COALESCE((SELECT main_id FROM temp.payload_map WHERE part_id = x.${cname}), x.${cname})")
    else()
      string(APPEND payload_exprs "${cname}")
    endif()
    # Typed columns filled from JSON fields of a metadata object.
    if(cjson)
      set(has_json_columns ON)
      string(APPEND json_slots "  if (field == \"${cjson}\") {\n    return &r.${cname};\n  }\n")
    endif()
    if(cjson_list)
      set(has_json_columns ON)
      string(APPEND json_list_slots "  if (field == \"${cjson_list}\") {\n    return &r.${cname};\n  }\n")
    endif()
    # Docs.
    set(doc_type "${ctype}")
    if(ctype STREQUAL "enum")
      set(doc_type "enum `${cenum}`")
    endif()
    if(nullable)
      string(APPEND doc_type ", null")
    endif()
    set(doc_extra "")
    if(cref)
      set(doc_extra " → `${cref}`")
    endif()
    if(cjson)
      set(doc_extra "${doc_extra} (field `${cjson}`)")
    endif()
    string(APPEND doc_tables "| `${cname}` | ${doc_type}${doc_extra} | ${cdoc} |\n")
  endforeach()
  string(APPEND sql_tables "CREATE TABLE ${tname} (${sql_cols}) STRICT;\n")
  string(APPEND pub_rows "// `${tname}`: ${tdoc}\nstruct ${row} {\n${row_fields}};\n// Calls f(column name, value) for each column, in declaration order.\ntemplate <class F>\nvoid for_each_column(const ${row}& r, F&& f) {\n${visit_body}}\n\n")
  string(APPEND io_records "// A `${tname}` row to write; text fields view the caller's bytes.\nstruct ${row}Record {\n  using Row = ${row};\n${record_fields}};\n\n")
  string(APPEND io_functions "template <>
struct Table<${row}> {
  static constexpr const char* kName = \"${tname}\";
  static constexpr int kIndex = ${t}; // position in kTables
  static constexpr int kColumns = ${ncols};
  static constexpr const char* kInsert = \"INSERT INTO ${tname}(${insert_cols}) VALUES(${insert_params})\";
  using Record = ${row}Record;
};

// A record viewing a row's own strings (the row must outlive it).
inline ${row}Record record_of(const ${row}& r) {
  ${row}Record out;
${record_of_body}  return out;
}

inline void bind_record(Stmt& s, const ${row}Record& r) {
${bind_body}}

// Reads the ${ncols} columns of a `${tname}` row starting at column `first` (as `SELECT ${tname}.*`
// lists them). Returns -1, or the first column whose value does not have the declared type.
inline int read_row(const Stmt& s, int first, ${row}& row) {
${read_body}  return -1;
}

")
  if(has_json_columns)
    string(APPEND io_functions "// The typed column of a `${tname}` record that holds metadata field `field`, if any.
inline JsonSlot json_slot(${row}Record& r, std::string_view field) {
${json_slots}  return {};
}
// The column that counts the items of list field `field`, if any.
inline std::optional<int64_t>* json_list_slot(${row}Record& r, std::string_view field) {
${json_list_slots}  return nullptr;
}

")
  endif()
  string(APPEND io_table_infos "inline constexpr ColumnInfo k${row}Columns[] = {\n${col_infos}};\n")
  list(APPEND table_info_entries "    {\"${tname}\", k${row}Columns, ${ncols}}")
  if(tmerge STREQUAL "offset" OR tmerge STREQUAL "copy")
    # SELECT * with nothing else is SQLite's transfer optimisation: records are copied as they
    # are stored, without decoding them (when the main table has no index yet).
    if(has_payload_refs)
      set(remap_sql "\"INSERT INTO main.${tname} SELECT ${payload_exprs} FROM part.${tname} x ORDER BY x.rowid\"")
    else()
      set(remap_sql "nullptr")
    endif()
    string(APPEND io_merges "    {\"${tname}\", \"INSERT INTO main.${tname} SELECT ${merge_exprs} FROM part.${tname} x ORDER BY x.rowid\",\n     \"INSERT INTO main.${tname} SELECT * FROM part.${tname}\",\n     ${remap_sql}},\n")
  endif()
endforeach()
list(JOIN table_info_entries ",\n" table_info_list)
list(JOIN id_tables "\", \"" id_table_list)

# ---------------------------------------------------------------------------------------------
# Indexes, views, search table
set(sql_ingest_indexes "")
set(sql_end_indexes "")
set(doc_indexes "")
string(JSON nidx LENGTH "${json}" indexes)
math(EXPR ilast "${nidx} - 1")
foreach(i RANGE ${ilast})
  string(JSON iname GET "${json}" indexes ${i} name)
  string(JSON itable GET "${json}" indexes ${i} table)
  string(JSON icols GET "${json}" indexes ${i} columns)
  string(JSON iwhen GET "${json}" indexes ${i} when)
  string(JSON idoc GET "${json}" indexes ${i} doc)
  optional_member(iunique indexes ${i} unique)
  set(kw "INDEX")
  set(unique_note "")
  if(iunique STREQUAL "ON")
    set(kw "UNIQUE INDEX")
    set(unique_note ", unique")
  endif()
  set(stmt "CREATE ${kw} IF NOT EXISTS ${iname} ON ${itable}(${icols})")
  if(iwhen STREQUAL "ingest")
    string(APPEND sql_ingest_indexes "${stmt};\n")
  elseif(iwhen STREQUAL "end")
    string(APPEND sql_end_indexes "${stmt};\n")
  else()
    fail("index ${iname}: `when` is ingest or end")
  endif()
  string(APPEND doc_indexes "| `${iname}` | `${itable}(${icols})`${unique_note} | ${iwhen} | ${idoc} |\n")
endforeach()

set(sql_views "")
set(sql_temp_views "")
set(doc_views "")
set(pub_views "")
string(JSON nviews LENGTH "${json}" views)
math(EXPR vlast "${nviews} - 1")
foreach(v RANGE ${vlast})
  string(JSON vname GET "${json}" views ${v} name)
  string(JSON vdoc GET "${json}" views ${v} doc)
  string(JSON vsql GET "${json}" views ${v} sql)
  string(JSON vexample GET "${json}" views ${v} example)
  string(APPEND sql_views "CREATE VIEW ${vname} AS ${vsql};\n")
  string(APPEND sql_temp_views "CREATE TEMP VIEW ${vname} AS ${vsql};\n")
  string(APPEND doc_views "\n### `${vname}`\n\n${vdoc}\n\n```sql\n${vsql}\n```\n\nExample: `${vexample}`\n")
  string(APPEND pub_views "    {\"${vname}\", R\"v(${vdoc})v\", R\"v(${vexample})v\"},\n")
endforeach()

string(JSON search_name GET "${json}" search name)
string(JSON search_doc GET "${json}" search doc)
string(JSON search_sql GET "${json}" search sql)

# ---------------------------------------------------------------------------------------------
# Outputs
set(public "// Generated from schemas/index/index_schema.json by cmake/scripts/GenerateIndexSchema.cmake.
// Do not edit: edit the schema declaration. The enums and row types of the index (one struct
// per table, its columns in declaration order) that tlparse::index::IndexReader returns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tlparse::index {

inline constexpr int kSchemaVersion = ${version};

${pub_enums}${pub_rows}
// The views over the tables (SQL in the index and in docs/INDEX-SCHEMA.md): what each answers
// and an example query (`tlparse query --list`).
struct ViewInfo {
  const char* name;
  const char* doc;
  const char* example;
};
inline constexpr ViewInfo kViewInfos[] = {
${pub_views}};

} // namespace tlparse::index
")

set(io "// Generated from schemas/index/index_schema.json by cmake/scripts/GenerateIndexSchema.cmake.
// Do not edit: edit the schema declaration. Private to tlparse/src/index: the SQL of the schema,
// one record type per table for writing, and the binding, reading and merging of every row.
#pragma once

#include \"index/sqlite_util.h\"
#include \"tlparse/index/schema.gen.h\"

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

namespace tlparse::index::io {

inline constexpr const char* kCreateTables = R\"sql(${sql_tables})sql\";
// Indexes the ingest needs while it writes.
inline constexpr const char* kIngestIndexes = R\"sql(${sql_ingest_indexes})sql\";
// Indexes built once after the last file.
inline constexpr const char* kEndIndexes = R\"sql(${sql_end_indexes})sql\";
inline constexpr const char* kViews = R\"sql(${sql_views})sql\";
// The same views as temporary views of a reader's connection: they exist, as declared now, over
// an index whatever views it holds itself (an index from elsewhere may hold others).
inline constexpr const char* kTempViews = R\"sql(${sql_temp_views})sql\";
inline constexpr const char* kSearchTableName = \"${search_name}\";
inline constexpr const char* kCreateSearchTable = R\"sql(${search_sql})sql\";

// What a reader checks on open: every declared table with its columns, in order.
struct ColumnInfo {
  const char* name;
  const char* type;
  bool not_null;
  bool primary;
};
${io_table_infos}
struct TableInfo {
  const char* name;
  const ColumnInfo* columns;
  int column_count;
};
inline constexpr TableInfo kTables[] = {
${table_info_list}};
inline constexpr int kTableCount = ${ntables};

// Merging a per-file part database (attached as `part`) into the main one: the tables with ids,
// and three statements per table. Payload ids go through temp.payload_map (part id -> main id),
// filled after the part's payloads are.
inline constexpr const char* kTablesWithIds[] = {\"${id_table_list}\"};
struct MergeStatement {
  const char* table;
  // Ids move past the main table's largest (bind :off_<table> to it); payload ids are mapped.
  const char* sql;
  // The part's ids are kept (they lie past the index's): its rows are copied as stored.
  const char* copy_sql;
  // The part's ids are kept, and payload ids in temp.payload_map are mapped; nullptr when the
  // table references no payload (copy_sql then serves).
  const char* payload_sql;
};
inline constexpr MergeStatement kMerges[] = {
${io_merges}};

// Every column that holds another row's id (file ids included), for checking that a database
// merged from elsewhere points only at its own rows before its ids are moved.
struct Reference {
  const char* table;
  const char* column;
  const char* target; // the table whose id it holds
};
inline constexpr Reference kReferences[] = {
${io_references}};

// Typed columns filled from the JSON fields of a metadata object.
using JsonSlot = std::variant<std::monostate, std::optional<int64_t>*, std::optional<double>*,
                              std::optional<std::string_view>*, std::optional<bool>*>;

template <class Row>
struct Table;

${io_records}${io_functions}} // namespace tlparse::index::io
")

set(doc "# The index schema (index.sqlite)

Generated from `schemas/index/index_schema.json` by `cmake/scripts/GenerateIndexSchema.cmake`;
do not edit by hand (a test checks this copy equals the generated one). Schema version ${version}.
The same declaration generates the SQL, the C++ row types the read API returns
(`tlparse/index/schema.gen.h`) and the code that writes and reads every row, so a column is
named in one place. How the ingest fills the tables and what readers may rely on:
[READ-MODEL.md](READ-MODEL.md).

Every table is `STRICT`. A reader checks on open that each table has exactly the declared
columns, and checks each value's type as it reads it: a damaged index is an error, never a
silent default. Column types: `id` (the row id), `int`, `real`, `text`, `json` (text holding
JSON), `blob`, `bool` (0 or 1), `enum` (text: one of the enum's values, below). Columns are
NOT NULL unless marked `null`; `→ table` names the table whose id a column holds.

## Tables
${doc_tables}
## Enums
${doc_enums}
## Indexes

| name | on | built | for |
|---|---|---|---|
${doc_indexes}
## Views
${doc_views}
## Search table: `${search_name}`

${search_doc}

```sql
${search_sql}
```
")

foreach(pair "OUT_PUBLIC;public" "OUT_IO;io" "OUT_DOC;doc")
  list(GET pair 0 outvar)
  list(GET pair 1 contentvar)
  set(target "${${outvar}}")
  set(content "${${contentvar}}")
  if(EXISTS "${target}")
    file(READ "${target}" old)
    if(old STREQUAL content)
      continue()
    endif()
  endif()
  file(WRITE "${target}" "${content}")
endforeach()
