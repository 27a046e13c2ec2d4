// Provenance artifacts (inductor/provenance.h).
#include "inductor/provenance.h"

#include "compiler/graph/graph_rewrite.h"
#include "inductor/codegen/output_code.h"
#include "tracer/trace.h"
#include "tracing/event_keys.h"
#include "tracing/trace_util.h"

#include <algorithm>
#include <map>

namespace compiler::inductor {

namespace {

namespace artifacts = tracing::artifacts;

using Mapping = std::vector<std::pair<std::string, std::vector<std::string>>>;

void add(Mapping& m, const std::string& key, const std::string& value) {
  auto it = std::find_if(m.begin(), m.end(), [&](const auto& kv) { return kv.first == key; });
  if (it == m.end()) {
    m.emplace_back(key, std::vector<std::string>{value});
    return;
  }
  if (std::find(it->second.begin(), it->second.end(), value) == it->second.end()) {
    it->second.push_back(value);
  }
}

void write_mapping(tracer::JsonWriter& w, std::string_view name, const Mapping& m) {
  w.key(name).begin_object();
  for (const auto& [k, values] : m) {
    w.key(k).begin_array();
    for (const std::string& v : values) {
      w.value(v);
    }
    w.end_array();
  }
  w.end_object();
}

// The post-grad nodes step `i` computes.
std::vector<std::size_t> step_nodes(const LoweredGraph& ir, const Schedule& s, const Step& st) {
  if (st.kind == Step::Kind::Kernel) {
    return s.kernels[st.kernel].origins;
  }
  std::vector<std::size_t> o = ir.buffer(st.buffer).origins;
  std::sort(o.begin(), o.end());
  o.erase(std::unique(o.begin(), o.end()), o.end());
  return o;
}

} // namespace

void write_provenance(const graph::Graph& g, const LoweredGraph& ir, const Schedule& s) {
  if (!tracer::enabled()) {
    return;
  }
  Mapping pre_to_post;
  Mapping post_to_pre;
  Mapping code_to_post;
  Mapping post_to_code;
  for (const graph::Node& n : g.nodes()) {
    if (n.kind != graph::NodeKind::CallOp) {
      continue;
    }
    for (const std::string& pre : graph::provenance_of(n)) {
      add(pre_to_post, pre, n.name);
      add(post_to_pre, n.name, pre);
    }
  }
  const std::vector<std::string> handles = step_handles(ir, s);
  std::map<std::string, std::vector<std::string>> traces;
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    std::vector<std::string>& stack = traces[handles[i]];
    for (std::size_t n : step_nodes(ir, s, s.steps[i])) {
      const graph::Node& node = g.node(n);
      add(code_to_post, handles[i], node.name);
      add(post_to_code, node.name, handles[i]);
      if (node.where.file_name()[0] != '\0') {
        const std::string frame = tracing::format_user_frame(tracing::user_frame(node.where));
        if (std::find(stack.begin(), stack.end(), frame) == stack.end()) {
          stack.push_back(frame);
        }
      }
    }
  }
  // One line of JSON each, as PyTorch writes them (json.dumps without indent).
  tracer::artifact(artifacts::inductor_provenance_tracking_node_mappings, tracer::Encoding::Json,
                   [&](std::string& out) {
                     tracer::JsonWriter w(out);
                     w.begin_object();
                     write_mapping(w, "preToPost", pre_to_post);
                     write_mapping(w, "postToPre", post_to_pre);
                     write_mapping(w, "cppCodeToPost", code_to_post);
                     write_mapping(w, "postToCppCode", post_to_code);
                     w.member("version", 2.0);
                     w.end_object();
                   });
  tracer::artifact(artifacts::inductor_provenance_tracking_kernel_stack_traces,
                   tracer::Encoding::Json, [&](std::string& out) {
                     tracer::JsonWriter w(out);
                     w.begin_object();
                     for (const std::string& h : handles) {
                       w.key(h).begin_array();
                       for (const std::string& f : traces[h]) {
                         w.value(f);
                       }
                       w.end_array();
                     }
                     w.end_object();
                   });
}

} // namespace compiler::inductor
