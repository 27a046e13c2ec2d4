// Internal: PyTorch's c10 ScalarType names ("Float", "Half", "BFloat16", "Int", "Long", "Bool",
// "Double"), which PyTorch's messages use: guard failures (capture) and the in-place ops'
// "result type Float can't be cast to the desired output type Long". Kept out of the public
// dtype.h, whose names are the torch.* spellings.
#pragma once

#include "compiler/tensor/dtype.h"

#include <string_view>

namespace compiler::dtype_names {

std::string_view scalar_type_name(DType t) noexcept;

} // namespace compiler::dtype_names
