// must(result): the value of a tlparse::Result, or a test failure that shows its error.
#pragma once

#include "tlparse/result.h"

#include <catch2/catch.hpp>
#include <utility>

namespace test_support {

template <class T>
T must(tlparse::Result<T> r) {
  INFO((r.ok() ? std::string() : r.error()));
  REQUIRE(r.ok());
  return std::move(r).value();
}

inline void must(const tlparse::Status& s) {
  INFO(s.error());
  REQUIRE(s.ok());
}

} // namespace test_support
