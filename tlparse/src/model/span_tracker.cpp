// See span_tracker.h.
#include "model/span_tracker.h"

namespace tlparse::model {
namespace {
// Real traces nest a few dozen spans deep; a hostile log must not grow memory without bound.
constexpr size_t kMaxOpenSpans = 100000;
} // namespace

void SpanTracker::write(const Open& o, std::optional<int64_t> end_event_id,
                        std::optional<double> duration) {
  index::io::SpanRecord r;
  r.id = writer_.next_id<index::Span>();
  r.file_id = file_id_;
  r.begin_event_id = o.begin_event_id;
  r.end_event_id = end_event_id;
  r.key_id = o.key_id;
  r.compile_id = o.compile_id;
  r.name = o.name;
  r.cat = o.cat;
  r.pid = o.pid;
  r.tid = o.tid;
  r.start_us = o.start;
  r.duration_us = duration;
  r.depth = o.depth;
  writer_.add(r);
}

void SpanTracker::add(const ChromiumPoint& p) {
  const std::pair<int64_t, int64_t> thread{p.pid.value_or(0), p.tid.value_or(0)};
  if (p.ph == "B") {
    if (open_count_ >= kMaxOpenSpans && !open_.empty()) {
      // The oldest open span of the first thread is written as never closed.
      auto first = open_.begin();
      write(first->second.front(), std::nullopt, std::nullopt);
      first->second.erase(first->second.begin());
      --open_count_;
      if (first->second.empty()) {
        open_.erase(first);
      }
    }
    auto& stack = open_[thread];
    stack.push_back(Open{p.event_id, p.key_id, p.compile_id, std::string(p.name),
                         std::string(p.cat), p.pid, p.tid, p.ts,
                         static_cast<int64_t>(stack.size())});
    ++open_count_;
    return;
  }
  const auto it = open_.find(thread);
  if (p.ph == "E") {
    if (it == open_.end()) {
      return; // an E with nothing open: nothing to pair
    }
    auto& stack = it->second;
    for (size_t i = stack.size(); i-- > 0;) {
      if (stack[i].name == p.name) {
        write(stack[i], p.event_id, p.ts - stack[i].start);
        stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(i));
        --open_count_;
        break;
      }
    }
    if (stack.empty()) {
      open_.erase(it);
    }
  } else if (p.ph == "X") {
    const int64_t depth = it == open_.end() ? 0 : static_cast<int64_t>(it->second.size());
    const Open o{p.event_id, p.key_id, p.compile_id, std::string(p.name), std::string(p.cat), p.pid,
                 p.tid,      p.ts,     depth};
    write(o, std::nullopt, p.dur.value_or(0));
  }
}

void SpanTracker::finish() {
  for (auto& [thread, stack] : open_) {
    for (const Open& o : stack) {
      write(o, std::nullopt, std::nullopt);
    }
    stack.clear();
  }
  open_.clear();
  open_count_ = 0;
}

} // namespace tlparse::model
