// docs/INDEX-SCHEMA.md is generated from schemas/index/index_schema.json; the committed copy must
// equal the generated one (regenerate: copy build/<dir>/generated/docs/INDEX-SCHEMA.md).
#include "support/test_paths.h"

#include <catch2/catch.hpp>

TEST_CASE("committed INDEX-SCHEMA.md equals the one generated from the schema",
          "[tlparse][schema]") {
  const auto generated = test_support::read_file(TORCHSCOPE_INDEX_SCHEMA_DOC);
  const auto committed =
      test_support::read_file(test_support::source_dir() / "docs/INDEX-SCHEMA.md");
  REQUIRE_FALSE(generated.empty());
  CHECK(committed == generated);
}
