// Compile ids as tlparse 0.4.3 spells them: the display form ("[0/0]", "[1/0_1]", "[!0/1/0]"),
// the output-folder name ("-_0_0_0") and the "collapsed" key the compile directory uses. Shared
// by the ingest, the read API and the renderers so that every view names a compile the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tlparse {

struct CompileId {
  std::optional<uint32_t> compiled_autograd_id;
  std::optional<uint32_t> frame_id;
  std::optional<uint32_t> frame_compile_id;
  std::optional<uint32_t> attempt;

  friend bool operator==(const CompileId&, const CompileId&) = default;
};

// "[0/0]", "[1/0_1]" (attempt shown only when present and non-zero), "[!0/1/0]", "[-/-]".
std::string display_name(const CompileId& id);
// "-_0_0_0": every part, "-" when missing.
std::string directory_name(const CompileId& id);
// The compile-directory key rule of tlparse 0.4.3 (docs/TLPARSE-INGEST.md, "Compile ids"): attempt
// := 0 when frame_compile_id is set and attempt is absent ("runtime compile ids"). File paths keep
// the raw id.
CompileId collapsed_key(const CompileId& id);
// The metrics/stack lookup rule of tlparse 0.4.3: attempt := 0 whenever frame_compile_id is set.
// Only the compatible report uses it; our own data keeps attempts distinct.
CompileId attempt_forced_to_zero(const CompileId& id);

} // namespace tlparse
