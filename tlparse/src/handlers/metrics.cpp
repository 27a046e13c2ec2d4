// compilation_metrics, bwd_compilation_metrics and aot_autograd_backward_compilation_metrics:
// each gets its HTML page and a metrics row (every field as JSON plus the main columns).
// Validation follows the field types of tlparse 0.4.3's metadata structs.
#include "handlers/handler.h"
#include "ingest/envelope.h"
#include "model/file_model.h"

namespace tlparse::handlers::output {
namespace {

bool validate_metrics(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(parser, metadata,
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

bool validate_bwd(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(parser, metadata,
                         {{"inductor_compile_time_s", "f64"},
                          {"code_gen_time_s", "f64"},
                          {"fail_type", "str"},
                          {"fail_reason", "str"}});
}

bool validate_aot_bwd(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(parser, metadata,
                         {{"start_time", "f64"},
                          {"elapsed_time", "f64"},
                          {"fail_type", "str"},
                          {"fail_reason", "str"}});
}

void record_row(EventContext& ctx, int64_t output_id) {
  using simdjson::ondemand::json_type;
  index::MetricsRow row;
  row.file_id = ctx.model.file_id();
  row.event_id = ctx.event_id;
  row.event_key = ctx.key;
  row.output_id = output_id;
  row.json = ctx.metadata;
  auto& parser = ctx.model.parser();
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (!parser
           .iterate(ctx.metadata.data(), ctx.metadata.size(),
                    ctx.metadata.size() + simdjson::SIMDJSON_PADDING)
           .get(doc) &&
      !doc.get_object().get(obj)) {
    for (auto field : obj) {
      std::string_view key;
      if (field.unescaped_key().get(key)) {
        break;
      }
      simdjson::ondemand::value v = field.value();
      json_type t;
      if (v.type().get(t)) {
        break;
      }
      std::string_view s;
      if (t == json_type::string && (key == "co_name" || key == "co_filename" ||
                                     key == "fail_type" || key == "fail_reason")) {
        if (v.get_string().get(s)) {
          break;
        }
        (key == "co_name"       ? row.co_name
         : key == "co_filename" ? row.co_filename
         : key == "fail_type"   ? row.fail_type
                                : row.fail_reason) = std::string(s);
        continue;
      }
      if (t == json_type::number && (key == "co_firstlineno" || key == "graph_op_count")) {
        int64_t i = 0;
        if (!v.get_int64().get(i)) {
          (key == "co_firstlineno" ? row.co_firstlineno : row.graph_op_count) = i;
        }
        continue;
      }
      if (t == json_type::number && key == "entire_frame_compile_time_s") {
        double d = 0;
        if (!v.get_double().get(d)) {
          row.entire_frame_compile_time_s = d;
        }
        continue;
      }
      if (ingest::raw_value_json(v, s)) {
        break;
      }
      if (key == "restart_reasons" && t == json_type::array) {
        row.restart_reasons = std::string(s);
      }
    }
  }
  ctx.model.writer().add_metrics(row);
}

void handle_metrics(EventContext& ctx) {
  const auto out = ctx.model.add_compile_file(ctx, "compilation_metrics", "html",
                                              index::OutputKind::metrics_html, false);
  record_row(ctx, out.output_id);
}
void handle_bwd(EventContext& ctx) {
  const auto out = ctx.model.add_compile_file(ctx, "bwd_compilation_metrics", "html",
                                              index::OutputKind::bwd_metrics_html, false);
  record_row(ctx, out.output_id);
}
void handle_aot_bwd(EventContext& ctx) {
  const auto out =
      ctx.model.add_compile_file(ctx, "aot_autograd_backward_compilation_metrics", "html",
                                 index::OutputKind::aot_bwd_metrics_html, false);
  record_row(ctx, out.output_id);
}
} // namespace

const Handler metrics_html{&validate_metrics, &handle_metrics};
const Handler bwd_metrics_html{&validate_bwd, &handle_bwd};
const Handler aot_bwd_metrics_html{&validate_aot_bwd, &handle_aot_bwd};

} // namespace tlparse::handlers::output
