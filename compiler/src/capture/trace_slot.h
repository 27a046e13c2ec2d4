// Internal: what capture stores in TensorImpl::trace_slot. A fake tensor made while tracing
// carries a ProxySlot (its graph node, or the input it will become a placeholder for on first
// use); a real tensor passed to mark_dynamic carries a DynamicMarksSlot. Both derive from
// TraceSlot so the slot's kind can be read before casting.
#pragma once

#include "capture/graph_names.h"
#include "compiler/tensor/tensor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace compiler::capture::detail {

struct TraceSlot {
  enum class Kind : std::uint8_t { Proxy, DynamicMarks };
  explicit TraceSlot(Kind k) : kind(k) {}
  Kind kind;
};

struct ProxySlot : TraceSlot {
  ProxySlot() : TraceSlot(Kind::Proxy) {}
  std::uint64_t trace_id = 0; // the FrameTracer that made it
  std::int64_t node = -1;     // the graph node; -1: an input not yet used by any op
  InputRef source;            // for inputs: where the value comes from at run time
  std::uint32_t guard_index = 0;
  std::string name; // for inputs: "x"
  // False for a value served to a resume frame until an op uses it: only then does it become
  // a guarded, described input (unused earlier results cost nothing).
  bool registered = true;
  // For the result of a view op on a traced tensor: that tensor, the node it stood for when the
  // view was made (or last written through it), and the view op's node (its geometry).
  // Functionalization turns a write through the view into a new value of the base, and refuses
  // reads of a view whose base was written since (docs/COMPILER.md, "Mutation and
  // functionalization").
  std::shared_ptr<TensorImpl> view_base; // kept alive: the view sees its writes, as in eager
  std::int64_t view_base_node = -1;
  std::int64_t view_node = -1;
};

struct DynamicMarksSlot : TraceSlot {
  DynamicMarksSlot() : TraceSlot(Kind::DynamicMarks) {}
  std::vector<std::int64_t> dims;
};

inline TraceSlot* slot_of(const TensorImpl& impl) {
  return static_cast<TraceSlot*>(impl.trace_slot.get());
}

} // namespace compiler::capture::detail
