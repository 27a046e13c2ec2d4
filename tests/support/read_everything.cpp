// See read_everything.h.
#include "support/read_everything.h"

namespace test_support {

std::string read_everything(const tlparse::index::IndexReader& r) {
  namespace ti = tlparse::index;
  std::string error;
  const auto note = [&](const auto& result) {
    if (error.empty() && !result.ok()) {
      error = result.error();
    }
  };
  auto files = r.files();
  note(files);
  if (!files) {
    return error;
  }
  for (const ti::File& f : *files) {
    note(r.compiles(f.id));
    note(r.compile_keys(f.id));
    auto outputs = r.outputs(f.id);
    note(outputs);
    if (outputs) {
      for (const ti::Output& o : *outputs) {
        note(r.payload(o.event_id));
        note(r.payload_md5(o.event_id));
        note(r.output(o.id));
      }
    }
    note(r.for_each_event(f.id, [&](const ti::Event& e) {
      (void)ti::event_metadata(e);
      return true;
    }));
    note(r.for_each_chromium_event(
        f.id, [](const ti::ChromiumEvent&, std::string_view) { return true; }));
    note(r.string_table(f.id));
    note(r.for_each_string(f.id, [](int64_t, std::string_view) { return true; }));
    note(r.stacks(f.id, ti::StackRole::dynamo_start));
    note(r.stacks(f.id, ti::StackRole::unknown));
    auto metrics = r.compilation_metrics(f.id);
    note(metrics);
    if (metrics) {
      for (const ti::MetricsEvent& m : *metrics) {
        note(r.metrics_other_fields(m.metrics.event_id));
      }
    }
    note(r.restarts_and_failures(f.id));
    note(r.specializations(f.id));
    note(r.guards_added_fast(f.id));
    note(r.created_symbols(f.id));
    note(r.cache_events(f.id));
    note(r.recompile_reasons(f.id));
    note(r.graph_breaks(f.id));
    note(r.spans(f.id));
    note(r.stats(f.id));
    note(r.health(f.id));
    note(r.unknown_keys(f.id));
    note(r.bad_lines(f.id));
  }
  return error;
}

} // namespace test_support
