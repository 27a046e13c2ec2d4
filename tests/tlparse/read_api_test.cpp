// The read API gives the report, the CLI and the GUI what they need from the index alone: the
// facts the ingest computed once (compiles with their status, spans, recompile reasons, graph
// breaks, typed metrics) and the rows of the compatible report.
#include "ingest_test_util.h"
#include "support/must.h"
#include "support/test_paths.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <map>
#include <sstream>

using namespace tlparse_test;
using test_support::must;
namespace fs = std::filesystem;
namespace ti = tlparse::index;
using ti::IndexReader;

namespace {
std::string artifact(int frame, int frame_compile, const std::string& name,
                     const std::string& encoding, const std::string& payload) {
  return event_with_payload(R"({"artifact": {"name": ")" + name + R"(", "encoding": ")" + encoding +
                                R"("}, "frame_id": )" + std::to_string(frame) +
                                R"(, "frame_compile_id": )" + std::to_string(frame_compile) +
                                R"(, "attempt": 0)",
                            payload);
}
} // namespace

TEST_CASE("read API returns compile keys in first-seen order with folder names",
          "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(data_log("w02_recompile"), tmp.path());
  const auto keys = must(in.reader->compile_keys(in.file().file_id));
  REQUIRE(keys.size() >= 3);
  CHECK(keys[0].display == "[0/0]");
  CHECK(keys[0].dir_name == "-_0_0_0");
  // Chromium events without a compile id create the [-/-] key (tlparse 0.4.3 does the same).
  const auto none =
      std::find_if(keys.begin(), keys.end(), [](auto& k) { return k.display == "[-/-]"; });
  REQUIRE(none != keys.end());
  CHECK(none->dir_name == "-_-_-_-");
  for (size_t i = 1; i < keys.size(); ++i) {
    CHECK(keys[i].first_line > keys[i - 1].first_line);
  }
}

TEST_CASE("read API gives one compile per frame compile id, attempts folded in, with its status",
          "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(data_log("w02_recompile"), tmp.path());
  const auto compiles = must(in.reader->compiles(in.file().file_id));
  const auto keys = must(in.reader->compile_keys(in.file().file_id));
  const auto find = [&](const std::string& display) {
    const auto it = std::find_if(compiles.begin(), compiles.end(),
                                 [&](const ti::Compile& c) { return c.display == display; });
    REQUIRE(it != compiles.end());
    return *it;
  };
  // w02's frame 1 restarted after a graph break: [1/0] and [1/0_1] are one compile.
  const ti::Compile restarted = find("[1/0]");
  CHECK(restarted.attempts == 2);
  CHECK(restarted.status == ti::CompileStatus::restart);
  CHECK(restarted.restarts >= 1);
  CHECK(restarted.graph_breaks == 1);
  int keys_of_it = 0;
  for (const ti::CompileKey& k : keys) {
    keys_of_it += k.compile_id == restarted.id;
  }
  CHECK(keys_of_it == 2);
  const ti::Compile first = find("[0/0]");
  CHECK(first.scope == ti::CompileScope::compile);
  CHECK(first.status == ti::CompileStatus::ok);
  CHECK(first.co_name == "f");
  CHECK(first.user_line.has_value());
  CHECK(first.entire_frame_compile_time_s.value_or(0) > 0);
  CHECK(first.outputs > 0);
  CHECK(first.cache_state != ti::CacheState::none);
  CHECK(find("[-/-]").scope == ti::CompileScope::outside);
  CHECK(find("[-/-]").status == ti::CompileStatus::missing);
  // Recompiles of frame 0 each say why.
  const ti::Compile second = find("[0/1]");
  CHECK(second.recompile_reasons >= 1);
}

TEST_CASE("read API streams events in log order with raw.jsonl decisions and their metadata",
          "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(data_log("w02_recompile"), tmp.path());
  int64_t last_line = 0;
  int raw_rows = 0;
  int chromium = 0;
  bool ordered = true;
  bool metadata_ok = true;
  must(in.reader->for_each_event(in.file().file_id, [&](const ti::Event& e) {
    ordered = ordered && e.line > last_line;
    last_line = e.line;
    raw_rows += e.in_raw_jsonl;
    chromium += e.kind == "chromium_event";
    if (e.kind == "artifact") {
      metadata_ok = metadata_ok && ti::event_metadata(e).starts_with("{\"name\"");
    }
    return true;
  }));
  CHECK(ordered);
  CHECK(metadata_ok);
  CHECK(raw_rows == 150); // tlparse 0.4.3 wrote 151 raw.jsonl lines, one of them the string table
  int parsed = 0;
  must(in.reader->for_each_chromium_event(in.file().file_id,
                                          [&](const ti::ChromiumEvent& c, std::string_view p) {
                                            CHECK_FALSE(c.name.empty());
                                            CHECK_FALSE(p.empty());
                                            ++parsed;
                                            return true;
                                          }));
  CHECK(parsed == chromium);
}

TEST_CASE("read API pairs chromium events into spans of their compiles", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(data_log("w02_recompile"), tmp.path());
  const auto spans = must(in.reader->spans(in.file().file_id));
  REQUIRE_FALSE(spans.empty());
  bool sorted = true;
  for (size_t i = 1; i < spans.size(); ++i) {
    sorted = sorted && spans[i - 1].start_us <= spans[i].start_us;
  }
  CHECK(sorted);
  const auto dynamo = std::find_if(spans.begin(), spans.end(),
                                   [](const ti::Span& s) { return s.name == "dynamo"; });
  REQUIRE(dynamo != spans.end());
  CHECK(dynamo->depth == 0);
  CHECK(dynamo->duration_us.value_or(0) > 0);
  CHECK(dynamo->compile_id.has_value());
  CHECK(dynamo->end_event_id.has_value());
}

TEST_CASE("a span never closed is kept without a duration", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  const std::string begin =
      R"({"name": "dynamo", "ts": 10.0, "ph": "B", "cat": "c", "tid": 0, "pid": 0})";
  const std::string end =
      R"({"name": "inner", "ts": 12.5, "ph": "E", "cat": "c", "tid": 0, "pid": 0})";
  const std::string inner =
      R"({"name": "inner", "ts": 11.0, "ph": "B", "cat": "c", "tid": 0, "pid": 0})";
  write_file(
      tmp.path() / "a.log",
      event_with_payload(R"({"chromium_event": {}, "frame_id": 0, "frame_compile_id": 0)", begin) +
          "\n" +
          event_with_payload(R"({"chromium_event": {}, "frame_id": 0, "frame_compile_id": 0)",
                             inner) +
          "\n" +
          event_with_payload(R"({"chromium_event": {}, "frame_id": 0, "frame_compile_id": 0)",
                             end) +
          "\n");
  auto in = ingest(tmp.path() / "a.log", tmp.path());
  const auto spans = must(in.reader->spans(in.file().file_id));
  REQUIRE(spans.size() == 2);
  CHECK(spans[0].name == "dynamo");
  CHECK_FALSE(spans[0].duration_us.has_value()); // the run stopped inside it
  CHECK(spans[1].name == "inner");
  CHECK(spans[1].depth == 1);
  CHECK(spans[1].duration_us == 1.5);
}

TEST_CASE("a chart's window reads exactly the spans it can show", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(data_log("w02_recompile"), tmp.path());
  const int64_t file = in.file().file_id;
  const auto all = must(in.reader->spans(file));
  REQUIRE(all.size() > 10);
  const ti::SpanExtent extent = must(in.reader->span_extent(file));
  CHECK(extent.spans == int64_t(all.size()));
  double first = all.front().start_us, last = first, longest = 0;
  for (const ti::Span& s : all) {
    first = std::min(first, s.start_us);
    last = std::max(last, s.start_us + s.duration_us.value_or(0));
    longest = std::max(longest, s.duration_us.value_or(0));
  }
  CHECK(extent.start_us == first);
  CHECK(extent.end_us == last);
  CHECK(extent.longest_us == longest);
  // Against the same filter over every span: whole run, a middle slice, a thin one, each with
  // and without a minimum duration, and one compile's spans.
  const double run = extent.end_us - extent.start_us;
  const auto with_compile =
      std::find_if(all.begin() + std::ptrdiff_t(all.size() / 2), all.end(),
                   [](const ti::Span& s) { return s.compile_id.has_value(); });
  REQUIRE(with_compile != all.end());
  const std::optional<int64_t> compile = with_compile->compile_id;
  for (const auto& [from, to] : {std::pair{0.0, 1.0}, std::pair{0.3, 0.6}, std::pair{0.5, 0.501}}) {
    for (const double min_us : {0.0, run / 2000, run / 20}) {
      for (const std::optional<int64_t> only : {std::optional<int64_t>(), compile}) {
        ti::SpanWindowQuery q;
        q.start_us = extent.start_us + from * run;
        q.end_us = extent.start_us + to * run;
        q.min_duration_us = min_us;
        q.compile_id = only;
        q.extent = extent;
        std::vector<int64_t> expected, got;
        for (const ti::Span& s : all) {
          const double end = s.duration_us ? s.start_us + *s.duration_us : extent.end_us;
          if (s.start_us <= q.end_us && end >= q.start_us &&
              (!s.duration_us || *s.duration_us >= min_us) && (!only || s.compile_id == only)) {
            expected.push_back(s.id);
          }
        }
        double previous = std::numeric_limits<double>::infinity();
        bool longest_first = true;
        must(in.reader->for_each_span_in(file, q, [&](const ti::Span& s) {
          got.push_back(s.id);
          const double d = s.duration_us.value_or(std::numeric_limits<double>::infinity());
          longest_first = longest_first && d <= previous;
          previous = d;
          return true;
        }));
        CAPTURE(from, to, min_us, only.has_value());
        CHECK(longest_first);
        std::sort(got.begin(), got.end());
        std::sort(expected.begin(), expected.end());
        CHECK(got == expected);
      }
    }
  }
  // One compile's extent lies inside the run's.
  const ti::SpanExtent one = must(in.reader->span_extent(file, compile));
  CHECK(one.spans > 0);
  CHECK(one.spans < extent.spans);
  CHECK(one.start_us >= extent.start_us);
  CHECK(one.end_us <= extent.end_us);
  // A file without spans has an empty extent.
  CHECK(must(in.reader->span_extent(file, int64_t(-5))).spans == 0);
}

TEST_CASE("recompile reasons of every payload shape become rows with their user stacks",
          "[tlparse][read_api]") {
  test_support::TempDir tmp;
  // The three shapes PyTorch 2.11 writes: a bare string, a JSON list, text with user stacks.
  const std::string text =
      "0/0: x.size()[0] == 8\nUser stack trace:\n  File \"/w/a.py\", line 6, in f\n    y = x * 2\n"
      "0/1: scale == 2.0";
  write_file(tmp.path() / "a.log",
             artifact(0, 1, "recompile_reasons", "json",
                      "0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16") +
                 "\n" +
                 artifact(0, 2, "recompile_reasons", "json",
                          "[\n\"0/1: tensor 'x' dtype mismatch\",\n\"0/0: scale == 2.0\\nUser "
                          "stack trace:\\n  File \\\"/w/b.py\\\", line 9, in g\\n    z\"\n]") +
                 "\n" + artifact(0, 3, "recompile_reasons", "string", text) + "\n");
  auto in = ingest(tmp.path() / "a.log", tmp.path());
  const auto reasons = must(in.reader->recompile_reasons(in.file().file_id));
  REQUIRE(reasons.size() == 5);
  CHECK(reasons[0].shape == ti::ReasonShape::text);
  CHECK(reasons[0].cached_entry == "0/0");
  CHECK(reasons[0].guard == "tensor 'x' size mismatch at index 0. expected 8, actual 16");
  CHECK(reasons[1].shape == ti::ReasonShape::json_list);
  CHECK(reasons[1].guard == "tensor 'x' dtype mismatch");
  CHECK(reasons[2].guard == "scale == 2.0");
  CHECK(reasons[2].user_file == "/w/b.py");
  CHECK(reasons[2].user_line == 9);
  CHECK(reasons[3].shape == ti::ReasonShape::text);
  CHECK(reasons[3].reason == "0/0: x.size()[0] == 8");
  CHECK(reasons[3].user_file == "/w/a.py");
  CHECK(reasons[3].user_line == 6);
  CHECK(reasons[4].guard == "scale == 2.0");
  CHECK_FALSE(reasons[4].user_stack.has_value());
  const auto compiles = must(in.reader->compiles(in.file().file_id));
  REQUIRE(compiles.size() == 3);
  CHECK(compiles[2].recompile_reasons == 2);
}

TEST_CASE("graph breaks become rows with reason, user location and stack", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(data_log("w02_recompile"), tmp.path());
  const auto breaks = must(in.reader->graph_breaks(in.file().file_id));
  REQUIRE(breaks.size() == 1);
  CHECK(breaks[0].user_line == 15);
  CHECK(breaks[0].user_file.value_or("").ends_with("w02_recompile.py"));
  CHECK(breaks[0].reason.starts_with("Encountered graph break"));
  CHECK(breaks[0].reason.find("User code traceback") == std::string::npos);
  REQUIRE(breaks[0].user_stack);
  CHECK(breaks[0].user_stack->find("print(\"graph break here\")") != std::string::npos);
  CHECK(breaks[0].user_stack->find("symbolic_convert.py") == std::string::npos);
}

TEST_CASE("read API resolves stacks with the file's own string table", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(data_log("w02_recompile"), tmp.path());
  const auto table = must(in.reader->string_table(in.file().file_id));
  REQUIRE_FALSE(table.empty());
  const auto starts = must(in.reader->stacks(in.file().file_id, ti::StackRole::dynamo_start));
  REQUIRE_FALSE(starts.empty());
  for (const auto& d : starts) {
    REQUIRE_FALSE(d.frames.empty());
    for (const auto& f : d.frames) {
      REQUIRE(f.filename_idx);
      REQUIRE(f.filename);
      CHECK(table.at(static_cast<size_t>(*f.filename_idx)) == *f.filename);
    }
  }
}

TEST_CASE("read API keeps metrics typed, every other field, and attempts distinct",
          "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(data_log("w02_recompile"), tmp.path());
  const auto metrics = must(in.reader->compilation_metrics(in.file().file_id));
  REQUIRE_FALSE(metrics.empty());
  bool saw_attempt_1 = false;
  for (const auto& m : metrics) {
    CHECK(m.metrics.output_id);
    const auto logged = must(in.reader->event(m.metrics.event_id));
    REQUIRE(logged);
    CHECK(ti::event_metadata(*logged).starts_with("{"));
    if (m.metrics.event_key == ti::MetricsKind::compilation_metrics) {
      CHECK(m.metrics.co_name);
      CHECK(m.metrics.restart_reasons.has_value());
      // Fields no column holds are kept as logged, and so is the whole object.
      CHECK(ti::event_metadata(*logged).find("\"graph_node_shapes\"") != std::string_view::npos);
      const auto other_fields = must(in.reader->metrics_other_fields(m.metrics.event_id));
      const auto other = [&](const std::string& name) {
        return std::find_if(other_fields.begin(), other_fields.end(),
                            [&](const ti::MetricsOtherField& f) { return f.field == name; });
      };
      REQUIRE(other("graph_node_shapes") != other_fields.end());
      CHECK(other("graph_node_shapes")->value.starts_with("\"{'"));
      CHECK(other("co_name") == other_fields.end());
    }
    saw_attempt_1 = saw_attempt_1 || (m.event.cid && m.event.cid->attempt == 1u);
  }
  CHECK(saw_attempt_1); // w02's [1/0_1] restart stays attempt 1 in our data
  const auto rf = must(in.reader->restarts_and_failures(in.file().file_id));
  CHECK_FALSE(rf.empty());
}

TEST_CASE("read API names each output's artifact the same across compiles", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(data_log("w02_recompile"), tmp.path());
  const auto outputs = must(in.reader->outputs(in.file().file_id));
  REQUIRE_FALSE(outputs.empty());
  int graphs = 0;
  for (const auto& o : outputs) {
    graphs += o.artifact == "dynamo_output_graph";
    if (o.event_key == "inductor_output_code" && o.kind != ti::OutputKind::payload_copy) {
      CHECK(o.artifact == "inductor_output_code");
    }
    if (o.kind == ti::OutputKind::payload_text) {
      REQUIRE(must(in.reader->payload(o.event_id)));
      const auto ev = must(in.reader->event(o.event_id));
      REQUIRE(ev);
      REQUIRE(ev->payload_md5);
    }
  }
  CHECK(graphs >= 4);
  CHECK_FALSE(must(in.reader->cache_events(in.file().file_id)).empty());
}

TEST_CASE("read API counts a compile's memoizer artifacts without reading them",
          "[tlparse][read_api]") {
  test_support::TempDir tmp;
  const auto memoizer = [](int frame_compile, const std::string& payload) {
    return event_with_payload(R"({"memoizer_artifacts": {"aggregated": false}, "frame_id": 0, )"
                              R"("frame_compile_id": )" +
                                  std::to_string(frame_compile) + R"(, "attempt": 0)",
                              payload) +
           "\n";
  };
  // [0/0] has two, [0/1] none (another kind only), [0/2] one.
  write_file(tmp.path() / "a.log", memoizer(0, R"({"key": "a"})") + memoizer(0, R"({"key": "b"})") +
                                       artifact(0, 1, "after", "string", "text") + "\n" +
                                       memoizer(2, R"({"key": "c"})"));
  auto in = ingest(tmp.path() / "a.log", tmp.path());
  std::map<std::string, int64_t> counts;
  for (const ti::CompileKey& k : must(in.reader->compile_keys(in.file().file_id))) {
    const int64_t n = must(in.reader->memoizer_artifact_count(k.id));
    CHECK(n == static_cast<int64_t>(must(in.reader->memoizer_artifact_events(k.id)).size()));
    counts[k.display] = n;
  }
  CHECK(counts == std::map<std::string, int64_t>{{"[0/0]", 2}, {"[0/1]", 0}, {"[0/2]", 1}});
}

TEST_CASE("read API refuses files that are not an index", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  write_file(tmp.path() / "x.sqlite", "not a database");
  CHECK_FALSE(IndexReader::open(tmp.path() / "x.sqlite").ok());
  CHECK_FALSE(IndexReader::open(tmp.path() / "missing.sqlite").ok());
}

TEST_CASE("each file keeps its own string table", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  write_file(tmp.path() / "a.log", glog_line(R"({"str": ["/a.py", 0]})") + "\n");
  write_file(
      tmp.path() / "b.log",
      glog_line(
          R"({"dynamo_start": {"stack": [{"line": 1, "name": "f", "filename": 0}]}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})") +
          "\n");
  const auto result = tlparse::ingest::ingest_files({tmp.path() / "a.log", tmp.path() / "b.log"},
                                                    tmp.path() / "i.sqlite", {});
  REQUIRE(result.ok);
  auto reader = must(IndexReader::open(tmp.path() / "i.sqlite"));
  const auto starts = must(reader->stacks(result.files[1].file_id, ti::StackRole::dynamo_start));
  REQUIRE(starts.size() == 1);
  REQUIRE(starts[0].frames.size() == 1);
  CHECK_FALSE(starts[0].frames[0].filename); // not resolved from a.log's table
  CHECK(result.files[1].health[static_cast<size_t>(ti::HealthId::unresolved_string)] == 1);
}

TEST_CASE("read API gives large metrics values as logged though the index stores them once",
          "[tlparse][read_api]") {
  test_support::TempDir tmp;
  const fs::path log = data_log("w02_recompile");
  fs::copy_file(log, tmp.path() / "copy.log");
  // Two files through the parallel ingest: the second one's rows come through a merged part.
  tlparse::ingest::IngestOptions options;
  options.threads = 2;
  REQUIRE(tlparse::ingest::ingest_files({log, tmp.path() / "copy.log"}, tmp.path() / "i.sqlite",
                                        options)
              .ok);
  auto reader = must(IndexReader::open(tmp.path() / "i.sqlite"));
  const auto lines = [&] {
    std::vector<std::string> out;
    std::istringstream in(test_support::read_file(log));
    for (std::string l; std::getline(in, l);) {
      out.push_back(l);
    }
    return out;
  }();
  const auto one = [&](const std::string& sql) {
    int64_t v = -1;
    must(reader->query(
        sql, [](const std::vector<std::string>&) {},
        [&](const std::vector<ti::QueryValue>& row) {
          v = row.at(0).integer;
          return false;
        }));
    return v;
  };
  // Inductor's configuration (22 KB) is logged with every compile but stored once for both files.
  CHECK(one("SELECT COUNT(*) FROM metrics_other_fields WHERE field='inductor_config'") >= 4);
  CHECK(one("SELECT COUNT(DISTINCT value_id) FROM metrics_other_fields WHERE "
            "field='inductor_config'") == 1);
  CHECK(one("SELECT COUNT(*) FROM metrics_other_fields WHERE field='inductor_config' AND "
            "value<>''") == 0);
  CHECK(one("SELECT COUNT(*) FROM envelope_cuts") == one("SELECT SUM(cut_values) FROM events"));
  CHECK(one("SELECT MAX(length(envelope)) FROM events WHERE kind='compilation_metrics'") < 8000);
  // SQL gets them back through the query's functions.
  CHECK(one("SELECT MIN(length(stored_value(value_id))) FROM metrics_other_fields WHERE "
            "field='inductor_config'") > 10000);
  CHECK(one("SELECT COUNT(*) FROM events WHERE cut_values>0 AND instr(logged_envelope(id), "
            "'\"inductor_config\": \"')=0") == 0);
  CHECK(one("SELECT COUNT(*) FROM events WHERE logged_envelope(id)<>envelope AND cut_values=0") ==
        0);

  int checked = 0;
  for (const int64_t file_id : {int64_t{1}, int64_t{2}}) {
    for (const auto& m : must(reader->compilation_metrics(file_id))) {
      const auto e = must(reader->event(m.metrics.event_id));
      REQUIRE(e);
      const std::string& line = lines.at(static_cast<size_t>(e->line - 1));
      // The envelope as logged, byte for byte, and the same through the streaming read.
      CHECK(e->envelope == line.substr(line.find("] ") + 2));
      bool streamed = false;
      must(reader->for_each_event(file_id, [&](const ti::Event& s) {
        if (s.id == e->id) {
          streamed = s.envelope == e->envelope;
          return false;
        }
        return true;
      }));
      CHECK(streamed);
      for (const auto& f : must(reader->metrics_other_fields(m.metrics.event_id))) {
        CHECK(e->envelope.find("\"" + f.field + "\": " + f.value) != std::string::npos);
        if (f.field == "inductor_config") {
          CHECK(f.value.size() > 10000);
          CHECK(f.value_id);
          ++checked;
        }
      }
    }
  }
  CHECK(checked >= 8);
}

TEST_CASE("a damaged stored value of an envelope is an error of the read API",
          "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(data_log("w02_recompile"), tmp.path());
  const auto metrics = must(in.reader->compilation_metrics(in.file().file_id));
  REQUIRE_FALSE(metrics.empty());
  const int64_t event_id = metrics.front().metrics.event_id;
  in.reader.reset();
  const std::string id = std::to_string(event_id);
  std::string tamper, message;
  SECTION("a value put back outside its envelope") {
    tamper = "UPDATE envelope_cuts SET byte_offset=1000000000 WHERE event_id=" + id;
    message = "outside";
  }
  SECTION("one value listed thousands of times (memory stays bounded)") {
    tamper = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<10000) "
             "INSERT INTO envelope_cuts SELECT c.event_id, c.pos+i, c.byte_offset, c.value_id "
             "FROM n, (SELECT * FROM envelope_cuts WHERE event_id=" +
             id + " ORDER BY pos DESC LIMIT 1) c; UPDATE events SET cut_values=cut_values+10000 " +
             "WHERE id=" + id;
    message = "larger than any envelope";
  }
  sql(tmp.path() / "index.sqlite", tamper);
  auto reader = must(IndexReader::open(tmp.path() / "index.sqlite"));
  const auto e = reader->event(event_id);
  REQUIRE_FALSE(e);
  CHECK(e.error().find(message) != std::string::npos);
  CHECK(e.error().find("index.sqlite") != std::string::npos);
}

TEST_CASE("read API reuses its statements: a query inside another's callback, and the file left "
          "unlocked after each",
          "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(data_log("w02_recompile"), tmp.path());
  const int64_t file = in.file().file_id;
  std::vector<int64_t> outer;
  std::vector<int64_t> inner_first;
  // The same query (same SQL text) runs inside its own callback: the inner one cannot use the
  // statement the outer one is stepping, and both must see every row.
  must(in.reader->for_each_event(file, [&](const ti::Event& e) {
    outer.push_back(e.id);
    if (outer.size() <= 3) {
      std::vector<int64_t> inner;
      must(in.reader->for_each_event(file, [&](const ti::Event& f) {
        inner.push_back(f.id);
        return true;
      }));
      if (inner_first.empty()) {
        inner_first = inner;
      }
      CHECK(inner == inner_first);
    }
    return true;
  }));
  CHECK(outer == inner_first);
  // Stopped early, asked again: the kept statement starts from the first row.
  int seen = 0;
  must(in.reader->for_each_event(file, [&](const ti::Event&) { return ++seen < 2; }));
  std::vector<int64_t> again;
  must(in.reader->for_each_event(file, [&](const ti::Event& e) {
    again.push_back(e.id);
    return true;
  }));
  CHECK(again == outer);
  // No statement kept for reuse holds a read lock: another connection can write the file.
  sql(tmp.path() / "index.sqlite", "UPDATE meta SET value=value WHERE key='schema_version'");
}

TEST_CASE("read API gives an event's declared payload MD5 without its row", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(data_log("w02_recompile"), tmp.path());
  int with = 0;
  int without = 0;
  must(in.reader->for_each_event(in.file().file_id, [&](const ti::Event& e) {
    const auto md5 = must(in.reader->payload_md5(e.id));
    CHECK(md5 == e.payload_md5);
    (md5 ? with : without)++;
    return true;
  }));
  CHECK(with > 0);
  CHECK(without > 0);
  CHECK_FALSE(must(in.reader->payload_md5(-1)));
}
