// compilation_metrics, bwd_compilation_metrics and aot_autograd_backward_compilation_metrics:
// each gets its HTML page and a metrics row. The schema declares which metadata field each typed
// column holds (schema_io.gen.h's json_slot); a field no column holds, or one whose value has
// another type than its column, becomes a metrics_other_fields row as logged, so nothing is lost.
// List fields become metadata_lists rows and their column counts the items. Validation follows the
// field types of tlparse 0.4.3's metadata structs.
#include "ingest/envelope/envelope.h"
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"

namespace tlparse::ingest::handlers::output {
namespace {

bool validate_metrics(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata,
                         {{"co_name", "str"},
                          {"co_filename", "str"},
                          {"co_firstlineno", "i32"},
                          {"cache_size", "u64"},
                          {"accumulated_cache_size", "u64"},
                          {"guard_count", "u64"},
                          {"shape_env_guard_count", "u64"},
                          {"graph_op_count", "u64"},
                          {"graph_node_count", "u64"},
                          {"graph_input_count", "u64"},
                          {"start_time", "f64"},
                          {"entire_frame_compile_time_s", "f64"},
                          {"backend_compile_time_s", "f64"},
                          {"inductor_compile_time_s", "f64"},
                          {"code_gen_time_s", "f64"},
                          {"dynamo_time_before_restart_s", "f64"},
                          {"fail_type", "str"},
                          {"fail_reason", "str"},
                          {"fail_user_frame_filename", "str"},
                          {"fail_user_frame_lineno", "u32"},
                          {"non_compliant_ops", "arr"},
                          {"compliant_custom_ops", "arr"},
                          {"restart_reasons", "arr"}});
}

bool validate_bwd(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata,
                         {{"inductor_compile_time_s", "f64"},
                          {"code_gen_time_s", "f64"},
                          {"fail_type", "str"},
                          {"fail_reason", "str"}});
}

bool validate_aot_bwd(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata,
                         {{"start_time", "f64"},
                          {"elapsed_time", "f64"},
                          {"fail_type", "str"},
                          {"fail_reason", "str"}});
}

// Sets `slot` from `v` when the types agree; false leaves the field to other_fields.
bool set_typed(const index::io::JsonSlot& slot, simdjson::ondemand::value v,
               simdjson::ondemand::json_type t) {
  using simdjson::ondemand::json_type;
  if (t == json_type::null) {
    return true; // the column stays NULL; the field is in `json` as logged
  }
  if (auto* i = std::get_if<std::optional<int64_t>*>(&slot)) {
    int64_t x = 0;
    if (t != json_type::number || v.get_int64().get(x)) {
      return false;
    }
    **i = x;
    return true;
  }
  if (auto* d = std::get_if<std::optional<double>*>(&slot)) {
    double x = 0;
    if (t != json_type::number || v.get_double().get(x)) {
      return false;
    }
    **d = x;
    return true;
  }
  if (auto* str = std::get_if<std::optional<std::string_view>*>(&slot)) {
    std::string_view x;
    if (t != json_type::string || v.get_string().get(x)) {
      return false;
    }
    **str = x;
    return true;
  }
  if (auto* b = std::get_if<std::optional<bool>*>(&slot)) {
    bool x = false;
    if (t != json_type::boolean || v.get_bool().get(x)) {
      return false;
    }
    **b = x;
    return true;
  }
  return false;
}

// Other fields this large are stored once by content, not in the row nor in the envelope: each
// compile of PyTorch 2.x logs Inductor's whole configuration (22 KB) and Dynamo's (5 KB), the
// same bytes every time (docs/INDEX-SCHEMA.md, payloads).
constexpr size_t kStoredValueMin = 512;

void record_row(EventContext& ctx, int64_t output_id) {
  using simdjson::ondemand::json_type;
  index::io::CompilationMetricsRecord row;
  row.id = ctx.file.writer().next_id<index::CompilationMetrics>();
  row.file_id = ctx.file.file_id();
  row.event_id = ctx.event_id;
  row.compile_id = ctx.compile_id;
  index::parse(ctx.key, row.event_key);
  row.output_id = output_id;
  int64_t other_fields = 0;
  auto& parser = ctx.file.parser();
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (ingest::open_object(parser, ctx.metadata, doc, obj)) {
    // The metadata was validated: a field that fails to parse now only ends the loop.
    ingest::for_each_field(
        obj, [&](std::string_view key, simdjson::ondemand::value v, json_type t) {
          const index::io::JsonSlot slot = index::io::json_slot(row, key);
          if (!std::holds_alternative<std::monostate>(slot) && set_typed(slot, v, t)) {
            return true;
          }
          if (std::optional<int64_t>* count = index::io::json_list_slot(row, key)) {
            simdjson::ondemand::array items;
            if (t == json_type::null) {
              return true;
            }
            if (t == json_type::array && !v.get_array().get(items)) {
              *count = ctx.file.add_list(ctx.event_id, key, items);
              return true;
            }
          }
          std::string_view raw;
          if (ingest::raw_value_json(v, raw)) {
            return false;
          }
          index::io::MetricsOtherFieldRecord other{ctx.event_id, other_fields++, key, raw,
                                                   std::nullopt};
          if (raw.size() >= kStoredValueMin) {
            other.value = {};
            other.value_id = ctx.file.store_value(raw);
            ctx.cut_values.emplace_back(raw, *other.value_id);
          }
          ctx.file.writer().add(other);
          return true;
        });
  }
  if (row.event_key == index::MetricsKind::compilation_metrics) {
    ctx.file.facts(ctx.compile_id).note_metrics(row);
  }
  ctx.file.writer().add(row);
}

void handle_metrics(EventContext& ctx) {
  const auto out = ctx.file.add_compile_file(ctx, "compilation_metrics", "html",
                                             index::OutputKind::metrics_html, false);
  record_row(ctx, out.output_id);
}
void handle_bwd(EventContext& ctx) {
  const auto out = ctx.file.add_compile_file(ctx, "bwd_compilation_metrics", "html",
                                             index::OutputKind::bwd_metrics_html, false);
  record_row(ctx, out.output_id);
}
void handle_aot_bwd(EventContext& ctx) {
  const auto out =
      ctx.file.add_compile_file(ctx, "aot_autograd_backward_compilation_metrics", "html",
                                index::OutputKind::aot_bwd_metrics_html, false);
  record_row(ctx, out.output_id);
}
} // namespace

const Handler metrics_html{&validate_metrics, &handle_metrics};
const Handler bwd_metrics_html{&validate_bwd, &handle_bwd};
const Handler aot_bwd_metrics_html{&validate_aot_bwd, &handle_aot_bwd};

} // namespace tlparse::ingest::handlers::output
