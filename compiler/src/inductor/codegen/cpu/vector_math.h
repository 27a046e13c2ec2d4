// codegen/cpu: transcendental functions built as plain LLVM IR arithmetic, so they vectorise
// for any lane count (libm calls would not): exp, expm1, log, log1p, sin, cos, tanh, sinh, cosh,
// erf. Each works on a float or a vector of floats and handles NaN, infinities and the ends of its
// range; the accuracy is within a few ulp of libm (the error bounds are in vector_math.cpp),
// checked by the code generator's tests against std::.
#pragma once

namespace llvm {
class IRBuilderBase;
class Module;
class Value;
} // namespace llvm

namespace compiler::inductor::cpu {

llvm::Value* emit_exp(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emit_expm1(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emit_log(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emit_log1p(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emit_tanh(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emit_sinh(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emit_cosh(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emit_erf(llvm::IRBuilderBase& b, llvm::Value* x);
// sin and cos: the vector path is exact to a few ulp for |x| <= 8192; larger arguments (and
// infinities) take a branch that calls libm per lane (`libm` is sinf or cosf in `module`).
llvm::Value* emit_sin(llvm::IRBuilderBase& b, llvm::Module& module, llvm::Value* x);
llvm::Value* emit_cos(llvm::IRBuilderBase& b, llvm::Module& module, llvm::Value* x);

} // namespace compiler::inductor::cpu
