// The tools of `tlparse mcp` (see tools.h): one table, each handler a query over the documented
// views or a read-API call. Every string that reaches SQL is quoted here (sql_string); every
// string from the index is written through the project's JSON writer, which escapes it and
// repairs invalid UTF-8.
#include "mcp/tools.h"

#include "tlparse/answers/graph_break_id.h"
#include "tlparse/answers/run_diff.h"
#include "tlparse/answers/run_facts.h"
#include "tlparse/graph/fx_graph.h"
#include "tlparse/report/diff_json.h"

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace tlparse::mcp {
namespace {

using report::JsonValue;
using Type = ToolArg::Type;

JsonValue str(std::string_view s) {
  return JsonValue::string(std::string(s));
}

// An SQL string literal: the only way a request's text reaches a statement.
std::string sql_string(std::string_view s) {
  std::string out = "'";
  for (const char c : s) {
    out += c;
    if (c == '\'') {
      out += '\'';
    }
  }
  return out + "'";
}

// The cut of `s` at `max` bytes that does not split a UTF-8 sequence.
size_t utf8_cut(std::string_view s, size_t max) {
  if (s.size() <= max) {
    return s.size();
  }
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80) {
    --n;
  }
  return n;
}

// Compile ids as PyTorch prints them: "[0/1]"; "0/1" is accepted too.
std::string compile_display(const std::string& given) {
  return !given.empty() && given.front() == '[' ? given : "[" + given + "]";
}

// Stops a query after kQuerySeconds, or at Ctrl-C, through IndexReader's cancel flag.
class Deadline {
public:
  explicit Deadline(const std::atomic<bool>* interrupted) : interrupted_(interrupted) {
    thread_ = std::thread([this] {
      const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(kQuerySeconds);
      std::unique_lock<std::mutex> lock(mutex_);
      while (!done_) {
        if (std::chrono::steady_clock::now() >= end ||
            (interrupted_ != nullptr && interrupted_->load())) {
          cancel_ = true;
          return;
        }
        cv_.wait_for(lock, std::chrono::milliseconds(100));
      }
    });
  }
  ~Deadline() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  const std::atomic<bool>* flag() const { return &cancel_; }

private:
  const std::atomic<bool>* interrupted_;
  std::atomic<bool> cancel_{false};
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// A value of a row as JSON; text longer than kMaxCellBytes is cut (and `cut` set).
JsonValue cell_json(const index::QueryValue& v, bool& cut) {
  switch (v.type) {
  case index::QueryValue::Type::null:
    return JsonValue::null();
  case index::QueryValue::Type::integer:
    return JsonValue::integer(v.integer);
  case index::QueryValue::Type::real:
    return std::isfinite(v.real) ? JsonValue::number(v.real) : JsonValue::null();
  case index::QueryValue::Type::text: {
    const size_t n = utf8_cut(v.bytes, kMaxCellBytes);
    cut = cut || n < v.bytes.size();
    return str(std::string_view(v.bytes).substr(0, n));
  }
  case index::QueryValue::Type::blob: {
    JsonValue o = JsonValue::object();
    o.set("blob_bytes", JsonValue::integer(static_cast<int64_t>(v.bytes.size())));
    return o;
  }
  }
  return JsonValue::null();
}

// The rows of one statement, at most `limit` and about kMaxResultBytes of values.
struct Rows {
  std::vector<std::string> columns;
  std::vector<std::vector<index::QueryValue>> rows;
  bool truncated = false;
};

Result<Rows> run_rows(const ToolContext& ctx, const std::string& sql, int64_t limit) {
  Rows out;
  size_t bytes = 0;
  Deadline deadline(ctx.interrupted);
  index::QueryOptions options;
  options.cancel = deadline.flag();
  options.max_value_bytes = kMaxQueryValueBytes;
  const Status st = ctx.reader->query(
      sql, [&](const std::vector<std::string>& cols) { out.columns = cols; },
      [&](const std::vector<index::QueryValue>& row) {
        if (static_cast<int64_t>(out.rows.size()) >= limit || bytes > kMaxResultBytes) {
          out.truncated = true;
          return false;
        }
        for (const auto& v : row) {
          bytes += std::min(v.bytes.size(), kMaxCellBytes) + 8;
        }
        out.rows.push_back(row);
        return true;
      },
      options);
  if (!st) {
    if (deadline.flag()->load()) {
      return Error{"the query ran longer than " + std::to_string(kQuerySeconds) +
                   " s and was stopped"};
    }
    return Error{st.error()};
  }
  return out;
}

// Rows as objects keyed by column; sets `truncated` when rows or values were cut.
JsonValue row_objects(const Rows& rows, bool& truncated) {
  JsonValue list = JsonValue::array();
  for (const auto& row : rows.rows) {
    JsonValue o = JsonValue::object();
    for (size_t c = 0; c < row.size() && c < rows.columns.size(); ++c) {
      o.set(rows.columns[c], cell_json(row[c], truncated));
    }
    list.items().push_back(std::move(o));
  }
  truncated = truncated || rows.truncated;
  return list;
}

// " WHERE a AND b" from the conditions given.
std::string where(const std::vector<std::string>& conditions) {
  std::string out;
  for (const auto& c : conditions) {
    out += (out.empty() ? " WHERE " : " AND ") + c;
  }
  return out;
}

std::vector<std::string> file_only(const ToolArgs& args) {
  std::vector<std::string> conds;
  if (const auto f = args.integer("file_id")) {
    conds.push_back("file_id = " + std::to_string(*f));
  }
  return conds;
}

std::vector<std::string> file_and_compile(const ToolArgs& args, const char* compile_column) {
  std::vector<std::string> conds = file_only(args);
  if (const auto c = args.string("compile")) {
    conds.push_back(std::string(compile_column) + " = " + sql_string(compile_display(*c)));
  }
  return conds;
}

JsonValue answer(const char* key, JsonValue rows, bool truncated) {
  JsonValue o = JsonValue::object();
  o.set(key, std::move(rows));
  o.set("truncated", JsonValue::boolean(truncated));
  return o;
}

int64_t limit_of(const ToolArgs& args) {
  return args.integer("limit").value_or(kDefaultRows);
}

// ---- the tools ----

// A tool that is one view's rows: {key: [rows as objects], truncated}.
ToolResult view_rows(const ToolContext& ctx, const char* key, const std::string& sql,
                     int64_t limit) {
  auto rows = run_rows(ctx, sql, limit);
  if (!rows) {
    return Error{rows.error()};
  }
  bool truncated = false;
  JsonValue list = row_objects(*rows, truncated);
  return answer(key, std::move(list), truncated);
}

ToolResult compiles_tool(const ToolContext& ctx, const ToolArgs& args) {
  auto conds = file_and_compile(args, "compile");
  if (const auto s = args.string("status")) {
    conds.push_back("status = " + sql_string(*s));
  }
  return view_rows(ctx, "compiles",
                   "SELECT * FROM compile_summary" + where(conds) + " ORDER BY file_id, compile_id",
                   limit_of(args));
}

ToolResult recompiles_tool(const ToolContext& ctx, const ToolArgs& args) {
  return view_rows(ctx, "recompiles",
                   "SELECT file_id, compile, frame_id, frame_compile_id, cached_entry, guard, "
                   "category, suggestion, user_file, user_line, user_stack FROM recompiles" +
                       where(file_and_compile(args, "compile")) + " ORDER BY file_id, line, pos",
                   limit_of(args));
}

ToolResult graph_breaks_tool(const ToolContext& ctx, const ToolArgs& args) {
  auto rows = run_rows(ctx,
                       "SELECT file_id, reason, user_file, user_line, count, compiles, "
                       "compile_ids, user_stack FROM graph_break_summary" +
                           where(file_only(args)) + " ORDER BY count DESC, file_id, reason",
                       limit_of(args));
  if (!rows) {
    return Error{rows.error()};
  }
  bool truncated = false;
  JsonValue list = row_objects(*rows, truncated);
  // The stable id and docs link, read from the whole reason (before any cut).
  for (size_t r = 0; r < rows->rows.size(); ++r) {
    const auto& reason = rows->rows[r][1];
    const answers::GraphBreakId id = answers::graph_break_id(reason.bytes);
    JsonValue& o = list.items()[r];
    o.set("id", id.id.empty() ? JsonValue::null() : str(id.id));
    o.set("docs_url", id.docs_url.empty() ? JsonValue::null() : str(id.docs_url));
  }
  return answer("graph_breaks", std::move(list), truncated);
}

ToolResult compile_time_tool(const ToolContext& ctx, const ToolArgs& args) {
  const auto conds = file_and_compile(args, "compile");
  const int64_t limit = limit_of(args);
  bool truncated = false;
  JsonValue out = JsonValue::object();
  auto total = run_rows(ctx,
                        "SELECT COUNT(*) AS compiles, SUM(compile_time_s) AS compile_time_s, "
                        "SUM(backend_compile_time_s) AS backend_compile_time_s, "
                        "SUM(inductor_compile_time_s) AS inductor_compile_time_s, "
                        "SUM(code_gen_time_s) AS code_gen_time_s FROM compile_summary" +
                            where(conds),
                        1);
  if (!total) {
    return Error{total.error()};
  }
  JsonValue totals = row_objects(*total, truncated);
  out.set("total", totals.items().empty() ? JsonValue::null() : std::move(totals.items()[0]));
  auto by_compile =
      run_rows(ctx,
               "SELECT file_id, compile, status, compile_time_s, backend_compile_time_s, "
               "inductor_compile_time_s, code_gen_time_s FROM compile_summary" +
                   where(conds) +
                   " ORDER BY compile_time_s IS NULL, compile_time_s DESC, file_id, compile_id",
               limit);
  if (!by_compile) {
    return Error{by_compile.error()};
  }
  out.set("slowest_compiles", row_objects(*by_compile, truncated));
  auto by_span = run_rows(ctx,
                          "SELECT name, SUM(spans) AS spans, SUM(total_us) / 1e6 AS total_s "
                          "FROM span_times" +
                              where(conds) + " GROUP BY name ORDER BY total_s DESC, name",
                          limit);
  if (!by_span) {
    return Error{by_span.error()};
  }
  out.set("spans_by_name", row_objects(*by_span, truncated));
  out.set("truncated", JsonValue::boolean(truncated));
  out.set("note", str("compile times in seconds from compilation_metrics (summed over a "
                      "compile's attempts); spans_by_name: chromium spans by name, unclosed ones "
                      "left out; spans nest, so their totals overlap"));
  return out;
}

// The outputs of a compile whose artifact, file name or path is `name` (all of them without a
// name), in production order.
Result<Rows> artifact_rows(const ToolContext& ctx, const std::string& compile,
                           const std::optional<std::string>& name,
                           const std::optional<int64_t>& file_id, int64_t limit) {
  const std::string display = sql_string(compile_display(compile));
  std::string sql = "SELECT o.event_id, o.artifact, o.name, o.path, o.kind, o.file_id "
                    "FROM outputs o JOIN compile_keys k ON k.id = o.key_id "
                    "LEFT JOIN compiles c ON c.id = k.compile_id "
                    "WHERE o.in_directory AND (k.display = " +
                    display + " OR c.display = " + display + ")";
  if (name) {
    const std::string n = sql_string(*name);
    sql += " AND (o.artifact = " + n + " OR o.name = " + n + " OR o.path = " + n + ")";
  }
  if (file_id) {
    sql += " AND o.file_id = " + std::to_string(*file_id);
  }
  return run_rows(ctx, sql + " ORDER BY o.file_id, o.seq", limit);
}

// The text of an output: its payload, else the event's metadata as logged (metrics pages).
Result<std::string> output_text(const ToolContext& ctx, int64_t event_id) {
  auto payload = ctx.reader->payload(event_id);
  if (!payload) {
    return Error{payload.error()};
  }
  if (*payload) {
    return std::move(**payload);
  }
  auto event = ctx.reader->event(event_id);
  if (!event) {
    return Error{event.error()};
  }
  if (!*event) {
    return std::string();
  }
  return std::string(index::event_metadata(**event));
}

struct FoundArtifact {
  JsonValue header = JsonValue::object();
  std::string text;
};

Result<FoundArtifact> find_artifact(const ToolContext& ctx, const ToolArgs& args,
                                    const std::string& name) {
  const std::string compile = *args.string("compile");
  auto rows = artifact_rows(ctx, compile, name, args.integer("file_id"), 50);
  if (!rows) {
    return Error{rows.error()};
  }
  if (rows->rows.empty()) {
    return Error{"no artifact named '" + name + "' in compile " + compile_display(compile) +
                 " (call artifact with only the compile to list them)"};
  }
  const auto& first = rows->rows[0];
  auto text = output_text(ctx, first[0].integer);
  if (!text) {
    return Error{text.error()};
  }
  FoundArtifact out;
  bool cut = false;
  out.header.set("compile", str(compile_display(compile)));
  out.header.set("artifact", cell_json(first[1], cut));
  out.header.set("name", cell_json(first[2], cut));
  out.header.set("path", cell_json(first[3], cut));
  out.header.set("file_id", cell_json(first[5], cut));
  out.header.set("matches", JsonValue::integer(static_cast<int64_t>(rows->rows.size())));
  out.text = std::move(*text);
  return out;
}

ToolResult artifact_tool(const ToolContext& ctx, const ToolArgs& args) {
  const std::string compile = *args.string("compile");
  const auto name = args.string("name");
  if (!name) {
    auto rows = artifact_rows(ctx, compile, std::nullopt, args.integer("file_id"), kMaxRows);
    if (!rows) {
      return Error{rows.error()};
    }
    bool truncated = false;
    JsonValue list = row_objects(*rows, truncated);
    if (list.items().empty()) {
      return Error{"no compile " + compile_display(compile) + " with artifacts"};
    }
    return answer("artifacts", std::move(list), truncated);
  }
  auto found = find_artifact(ctx, args, *name);
  if (!found) {
    return Error{found.error()};
  }
  const size_t max = static_cast<size_t>(
      args.integer("max_bytes").value_or(static_cast<int64_t>(kDefaultArtifactBytes)));
  const size_t n = utf8_cut(found->text, max);
  JsonValue out = std::move(found->header);
  out.set("bytes", JsonValue::integer(static_cast<int64_t>(found->text.size())));
  out.set("truncated", JsonValue::boolean(n < found->text.size()));
  out.set("text", str(std::string_view(found->text).substr(0, n)));
  return out;
}

ToolResult graph_tool(const ToolContext& ctx, const ToolArgs& args) {
  const std::string name = args.string("name").value_or("dynamo_output_graph");
  auto found = find_artifact(ctx, args, name);
  if (!found) {
    return Error{found.error()};
  }
  JsonValue out = std::move(found->header);
  const graph::FxGraph parsed = graph::parse_fx_graph(found->text);
  const std::vector<graph::FxNode>& nodes = parsed.nodes;
  if (nodes.empty()) {
    const size_t n = utf8_cut(found->text, kDefaultArtifactBytes);
    out.set("parsed", JsonValue::boolean(false));
    out.set("truncated", JsonValue::boolean(n < found->text.size()));
    out.set("text", str(std::string_view(found->text).substr(0, n)));
    return out;
  }
  const auto limit = static_cast<size_t>(limit_of(args));
  JsonValue list = JsonValue::array();
  size_t bytes = 0;
  for (const graph::FxNode& node : nodes) {
    if (list.items().size() >= limit || bytes > kMaxResultBytes) {
      break;
    }
    JsonValue o = JsonValue::object();
    o.set("name", str(node.name));
    o.set("op", str(node.op));
    o.set("target", str(node.target));
    JsonValue a = JsonValue::array();
    for (const auto& arg : node.args) {
      a.items().push_back(str(arg));
      bytes += arg.size();
    }
    o.set("args", std::move(a));
    if (!node.type.empty()) {
      o.set("type", str(node.type));
    }
    if (!node.source.empty()) {
      o.set("source", str(node.source));
    }
    if (!node.module.empty()) {
      o.set("module", str(node.module));
    }
    // The edges: the names of the nodes it reads (of its own module).
    JsonValue inputs = JsonValue::array();
    for (const size_t in : node.inputs) {
      inputs.items().push_back(str(nodes[in].name));
      bytes += nodes[in].name.size();
    }
    o.set("inputs", std::move(inputs));
    bytes += node.name.size() + node.target.size() + node.type.size() + node.source.size() + 64;
    list.items().push_back(std::move(o));
  }
  out.set("parsed", JsonValue::boolean(true));
  out.set("truncated", JsonValue::boolean(list.items().size() < nodes.size()));
  out.set("node_count", JsonValue::integer(static_cast<int64_t>(nodes.size())));
  out.set("nodes", std::move(list));
  return out;
}

ToolResult sql_tool(const ToolContext& ctx, const ToolArgs& args) {
  auto rows = run_rows(ctx, *args.string("query"), limit_of(args));
  if (!rows) {
    return Error{rows.error()};
  }
  bool truncated = rows->truncated;
  JsonValue columns = JsonValue::array();
  for (const auto& c : rows->columns) {
    columns.items().push_back(str(c));
  }
  // Rows as arrays, in the statement's column order.
  JsonValue list = JsonValue::array();
  for (const auto& row : rows->rows) {
    JsonValue r = JsonValue::array();
    for (const auto& v : row) {
      r.items().push_back(cell_json(v, truncated));
    }
    list.items().push_back(std::move(r));
  }
  JsonValue out = JsonValue::object();
  out.set("columns", std::move(columns));
  out.set("rows", std::move(list));
  out.set("truncated", JsonValue::boolean(truncated));
  return out;
}

ToolResult diff_tool(const ToolContext& ctx, const ToolArgs& args) {
  if (ctx.compare == nullptr) {
    return Error{"no second run: start the server with --compare OTHER"};
  }
  auto files_a = ctx.reader->files();
  auto files_b = ctx.compare->files();
  if (!files_a || !files_b) {
    return Error{!files_a ? files_a.error() : files_b.error()};
  }
  const auto pick = static_cast<size_t>(args.integer("log").value_or(0));
  if (pick >= files_a->size() || pick >= files_b->size()) {
    return Error{"no log " + std::to_string(pick) + " in both runs (the first has " +
                 std::to_string(files_a->size()) + ", the second " +
                 std::to_string(files_b->size()) + ")"};
  }
  auto a = answers::run_facts(*ctx.reader, (*files_a)[pick]);
  auto b = answers::run_facts(*ctx.compare, (*files_b)[pick]);
  if (!a || !b) {
    return Error{!a ? a.error() : b.error()};
  }
  auto d = answers::diff_runs(*ctx.reader, *a, *ctx.compare, *b);
  if (!d) {
    return Error{d.error()};
  }
  auto parsed =
      report::parse_json(report::diff_json(*d, (*files_a)[pick].path, (*files_b)[pick].path));
  if (!parsed || !parsed->is_object()) {
    return Error{"internal: the diff did not serialise"};
  }
  // Bounded: the frames that changed least are dropped from the end until it fits.
  JsonValue out = std::move(*parsed);
  bool truncated = false;
  for (;;) {
    std::string probe;
    report::write_compact(probe, out);
    const JsonValue* frames = out.find("frames");
    if (probe.size() <= kMaxResultBytes || frames == nullptr || frames->items().empty()) {
      break;
    }
    JsonValue shorter = *frames;
    shorter.items().resize(shorter.items().size() / 2);
    out.set("frames", std::move(shorter));
    truncated = true;
  }
  out.set("truncated", JsonValue::boolean(truncated));
  return out;
}

const ToolArg kFileId{"file_id", Type::integer,
                      false,     "Only this log of the index (files.id; the ranks view lists them)",
                      0,         INT64_MAX};
const ToolArg kLimit{"limit", Type::integer, false, "At most this many rows [default: 200]",
                     1,       kMaxRows};
ToolArg compile_arg(bool required, const char* what) {
  return {"compile", Type::string, required, what};
}

std::vector<Tool> make_tools() {
  std::vector<Tool> t;
  t.push_back({"compiles",
               "The compiles of the run: id as PyTorch prints it ([frame/compile]), status (ok, "
               "restart, empty, error, missing), times in seconds, cache state and counts, the "
               "user's code location. Rows of the compile_summary view.",
               {kFileId,
                compile_arg(false, "Only this compile, e.g. [0/1]"),
                {"status",
                 Type::string,
                 false,
                 "Only compiles that ended so",
                 0,
                 0,
                 {"ok", "restart", "empty", "error", "missing"}},
                kLimit},
               false,
               compiles_tool});
  t.push_back(
      {"recompiles",
       "Why frames recompiled: per recompile, the guard that failed (and the cached "
       "compile it failed on), a category (shape, dtype, device, requires_grad, global "
       "state, object identity, type, value, other), a suggestion and the user's code "
       "that created the guard. Rows of the recompiles view.",
       {kFileId, compile_arg(false, "Only the recompile that made this compile, e.g. [0/1]"),
        kLimit},
       false,
       recompiles_tool});
  t.push_back({"graph_breaks",
               "Distinct graph breaks, most frequent first: reason, user location, how often, in "
               "which compiles, one user stack; `id` (PyTorch 2.11's stable id, e.g. gb0170) and "
               "`docs_url` when the reason names them. Rows of the graph_break_summary view.",
               {kFileId, kLimit},
               false,
               graph_breaks_tool});
  t.push_back({"compile_time",
               "Where compile time went: the total, the slowest compiles with their backend, "
               "inductor and code generation times, and chromium span time by span name "
               "(dynamo, aot, inductor phases).",
               {kFileId, compile_arg(false, "Only this compile, e.g. [0/0]"), kLimit},
               false,
               compile_time_tool});
  t.push_back({"artifact",
               "An artifact's text (a graph, generated code, guards, metrics as logged) by compile "
               "and name, cut at max_bytes with `truncated` set. Without a name, lists the "
               "compile's artifacts (name, path, kind).",
               {compile_arg(true, "The compile, e.g. [0/0]"),
                kFileId,
                {"name", Type::string, false,
                 "The artifact (e.g. dynamo_output_graph, inductor_output_code), or an output's "
                 "file name or path as listed"},
                {"max_bytes", Type::integer, false, "Cut the text here [default: 262144]", 1,
                 static_cast<int64_t>(kMaxArtifactBytes)}},
               false,
               artifact_tool});
  t.push_back({"graph",
               "A graph artifact's nodes, parsed from the printed FX graph: name, op "
               "(placeholder, call_function, call_method, get_attr, output), target, args, type "
               "annotation, source line, inputs (the nodes it reads: the edges), module (a "
               "nested submodule). The text instead (parsed: false) when it does not parse.",
               {compile_arg(true, "The compile, e.g. [0/0]"),
                kFileId,
                {"name", Type::string, false,
                 "The graph artifact [default: dynamo_output_graph]; also aot_forward_graph, "
                 "inductor_post_grad_graph, ..."},
                kLimit},
               false,
               graph_tool});
  t.push_back({"sql",
               "One read-only SQL statement (SELECT or WITH ... SELECT) over the index's tables "
               "and documented views (compile_summary, frames, recompiles, graph_break_summary, "
               "cache_results, failures, restarts, phase_times, span_times, artifacts, guards, "
               "events_per_kind, ranks; docs/INDEX-SCHEMA.md). Writes, ATTACH and "
               "load_extension are refused. Returns columns and rows (arrays).",
               {{"query", Type::string, true, "The statement"}, kLimit},
               false,
               sql_tool});
  t.push_back({"diff",
               "What changed between this run and the one given with --compare: frames added or "
               "gone, compiles and recompiles per frame, recompile reasons that appeared or "
               "vanished, graph and guard line diffs, compile time deltas, graph breaks whose "
               "count changed, new and fixed failures.",
               {{"log", Type::integer, false, "Which log (rank) pair, in index order [default: 0]",
                 0, INT64_MAX}},
               true,
               diff_tool});
  return t;
}

// An integer argument as int64 (the parser keeps non-negative literals unsigned).
std::optional<int64_t> as_int64(const JsonValue& v) {
  if (v.kind() == JsonValue::Kind::Int) {
    return v.as_int();
  }
  if (v.kind() == JsonValue::Kind::UInt && v.as_uint() <= static_cast<uint64_t>(INT64_MAX)) {
    return static_cast<int64_t>(v.as_uint());
  }
  return std::nullopt;
}

const char* type_name(Type t) {
  return t == Type::string ? "string" : "integer";
}

} // namespace

std::optional<std::string> ToolArgs::string(const char* name) const {
  const JsonValue* v = object != nullptr ? object->find(name) : nullptr;
  if (v == nullptr || v->kind() != JsonValue::Kind::String) {
    return std::nullopt;
  }
  return v->as_string();
}

std::optional<int64_t> ToolArgs::integer(const char* name) const {
  const JsonValue* v = object != nullptr ? object->find(name) : nullptr;
  return v != nullptr ? as_int64(*v) : std::nullopt;
}

const std::vector<Tool>& tools() {
  static const std::vector<Tool> table = make_tools();
  return table;
}

const Tool* find_tool(std::string_view name) {
  for (const Tool& t : tools()) {
    if (name == t.name) {
      return &t;
    }
  }
  return nullptr;
}

JsonValue input_schema(const Tool& tool) {
  JsonValue props = JsonValue::object();
  JsonValue required = JsonValue::array();
  for (const ToolArg& a : tool.args) {
    JsonValue p = JsonValue::object();
    p.set("type", str(type_name(a.type)));
    p.set("description", str(a.description));
    if (a.type == Type::integer) {
      p.set("minimum", JsonValue::integer(a.minimum));
      if (a.maximum != INT64_MAX) {
        p.set("maximum", JsonValue::integer(a.maximum));
      }
    }
    if (!a.choices.empty()) {
      JsonValue e = JsonValue::array();
      for (const char* c : a.choices) {
        e.items().push_back(str(c));
      }
      p.set("enum", std::move(e));
    }
    props.set(a.name, std::move(p));
    if (a.required) {
      required.items().push_back(str(a.name));
    }
  }
  JsonValue schema = JsonValue::object();
  schema.set("type", str("object"));
  schema.set("properties", std::move(props));
  schema.set("required", std::move(required));
  schema.set("additionalProperties", JsonValue::boolean(false));
  return schema;
}

std::optional<std::string> check_arguments(const Tool& tool, const JsonValue& arguments) {
  if (!arguments.is_object()) {
    return "arguments must be an object";
  }
  for (const auto& [key, value] : arguments.members()) {
    const ToolArg* decl = nullptr;
    for (const ToolArg& a : tool.args) {
      if (key == a.name) {
        decl = &a;
      }
    }
    if (decl == nullptr) {
      return "unknown argument '" + key + "' for tool " + tool.name;
    }
    if (decl->type == Type::string) {
      if (value.kind() != JsonValue::Kind::String) {
        return std::string("argument '") + decl->name + "' must be a string";
      }
      if (value.as_string().find('\0') != std::string::npos) {
        return std::string("argument '") + decl->name + "' holds a NUL character";
      }
      if (!decl->choices.empty()) {
        bool ok = false;
        for (const char* c : decl->choices) {
          ok = ok || value.as_string() == c;
        }
        if (!ok) {
          return std::string("argument '") + decl->name + "' is not one of the allowed values";
        }
      }
    } else {
      const std::optional<int64_t> n = as_int64(value);
      if (!n) {
        return std::string("argument '") + decl->name + "' must be an integer";
      }
      if (*n < decl->minimum || *n > decl->maximum) {
        return std::string("argument '") + decl->name + "' must be between " +
               std::to_string(decl->minimum) + " and " + std::to_string(decl->maximum);
      }
    }
  }
  for (const ToolArg& a : tool.args) {
    if (a.required && arguments.find(a.name) == nullptr) {
      return std::string("missing required argument '") + a.name + "'";
    }
  }
  return std::nullopt;
}

} // namespace tlparse::mcp
