// Every query of the read API (tlparse/index/index_reader.h) over every file of an index, as the
// report, `tlparse render` and the GUI's backend make them. Used by the damaged-index tests and the
// fuzz targets over indexes (fuzz_ingest, fuzz_index): a query may fail with a clear error on a
// damaged index, never crash.
#pragma once

#include "tlparse/index/index_reader.h"

#include <string>

namespace test_support {

// Runs every query; returns the first error, or "" when all succeeded.
std::string read_everything(const tlparse::index::IndexReader& reader);

} // namespace test_support
