// See span_tracker.h.
#include "ingest/trackers/span_tracker.h"

namespace tlparse::ingest {
namespace {
// Real traces nest a few dozen spans deep; a hostile log must not grow memory without bound.
constexpr size_t kMaxOpenSpans = 100000;
} // namespace

index::Span SpanTracker::begin(const ChromiumPoint& p, int64_t depth) const {
  index::Span s;
  s.file_id = file_id_;
  s.begin_event_id = p.event_id;
  s.key_id = p.key_id;
  s.compile_id = p.compile_id;
  s.name = std::string(p.name);
  s.cat = std::string(p.cat);
  s.pid = p.pid;
  s.tid = p.tid;
  s.start_us = p.ts;
  s.depth = depth;
  return s;
}

void SpanTracker::write(index::Span span, std::optional<int64_t> end_event_id,
                        std::optional<double> duration) {
  span.id = writer_.next_id<index::Span>();
  span.end_event_id = end_event_id;
  span.duration_us = duration;
  writer_.add(index::io::record_of(span));
}

void SpanTracker::add(const ChromiumPoint& p) {
  const std::pair<int64_t, int64_t> thread{p.pid.value_or(0), p.tid.value_or(0)};
  if (p.ph == "B") {
    if (open_count_ >= kMaxOpenSpans && !open_.empty()) {
      // The oldest open span of the first thread is written as never closed.
      auto first = open_.begin();
      write(std::move(first->second.front()), std::nullopt, std::nullopt);
      first->second.erase(first->second.begin());
      --open_count_;
      if (first->second.empty()) {
        open_.erase(first);
      }
    }
    auto& stack = open_[thread];
    stack.push_back(begin(p, static_cast<int64_t>(stack.size())));
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
        const double start = stack[i].start_us;
        write(std::move(stack[i]), p.event_id, p.ts - start);
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
    write(begin(p, depth), std::nullopt, p.dur.value_or(0));
  }
}

void SpanTracker::finish() {
  for (auto& [thread, stack] : open_) {
    for (index::Span& s : stack) {
      write(std::move(s), std::nullopt, std::nullopt);
    }
  }
  open_.clear();
  open_count_ = 0;
}

} // namespace tlparse::ingest
