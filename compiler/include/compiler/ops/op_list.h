// compiler/ops: THE list of ops, written once. Everything per-op (OpKind, names, categories,
// the eager and meta dispatch tables, the primitive marker) is generated from it with an
// X-macro:
//
//   X(name, "aten_name", category, level)
//
// `name` is the C++ function in namespace compiler (ops/ops.h) and the OpKind enumerator;
// "aten_name" is how graphs print it (PyTorch's ATen name, so graphs read like PyTorch's);
// category is an OpCategory enumerator (ops/op_hook.h) that passes and capture can use;
// level is an OpLevel enumerator:
//   Prim       a primitive op (PrimTorch's role): the AOT stage's graphs contain only these,
//              so code generation lowers exactly this set;
//   Composite  an op the AOT stage decomposes into prims (aot/decompositions.h, one entry per
//              composite op, checked numerically and in gradient by a test).
// The data-dependent ops (item, to_bool) are marked Prim but never reach a graph: capture breaks
// the graph at them.
//
// Each op's derivative is declared once, in op order, in src/autograd/derivatives.cpp (the
// role of PyTorch's derivatives.yaml): eager autograd and the AOT stage's joint graph both use
// it. A test checks that every op has its entry.
#pragma once

// clang-format off
#define TORCHSCOPE_COMPILER_OPS(X)                                              \
  /* pointwise, binary (tensor-tensor or tensor-scalar) */                      \
  X(add,           "aten.add",           Pointwise,     Prim)                   \
  X(sub,           "aten.sub",           Pointwise,     Prim)                   \
  X(mul,           "aten.mul",           Pointwise,     Prim)                   \
  X(div,           "aten.div",           Pointwise,     Prim)                   \
  X(pow,           "aten.pow",           Pointwise,     Prim)                   \
  X(maximum,       "aten.maximum",       Pointwise,     Prim)                   \
  X(eq,            "aten.eq",            Pointwise,     Prim)                   \
  X(ne,            "aten.ne",            Pointwise,     Prim)                   \
  X(lt,            "aten.lt",            Pointwise,     Prim)                   \
  X(le,            "aten.le",            Pointwise,     Prim)                   \
  X(gt,            "aten.gt",            Pointwise,     Prim)                   \
  X(ge,            "aten.ge",            Pointwise,     Prim)                   \
  X(where,         "aten.where",         Pointwise,     Prim)                   \
  /* pointwise, unary */                                                        \
  X(neg,           "aten.neg",           Pointwise,     Prim)                   \
  X(exp,           "aten.exp",           Pointwise,     Prim)                   \
  X(log,           "aten.log",           Pointwise,     Prim)                   \
  X(sin,           "aten.sin",           Pointwise,     Prim)                   \
  X(cos,           "aten.cos",           Pointwise,     Prim)                   \
  X(tanh,          "aten.tanh",          Pointwise,     Prim)                   \
  X(sigmoid,       "aten.sigmoid",       Pointwise,     Composite)              \
  X(relu,          "aten.relu",          Pointwise,     Composite)              \
  X(gelu,          "aten.gelu",          Pointwise,     Composite)              \
  X(sqrt,          "aten.sqrt",          Pointwise,     Prim)                   \
  X(rsqrt,         "aten.rsqrt",         Pointwise,     Prim)                   \
  X(abs,           "aten.abs",           Pointwise,     Prim)                   \
  X(erf,           "aten.erf",           Pointwise,     Prim)                   \
  X(to_dtype,      "aten._to_copy",      Pointwise,     Prim)                   \
  /* pointwise, more: clamping, rounding, more transcendentals, logical and      \
     bitwise ops, NaN tests, activations */                                     \
  X(clamp,         "aten.clamp",         Pointwise,     Composite)              \
  X(clamp_min,     "aten.clamp_min",     Pointwise,     Composite)              \
  X(clamp_max,     "aten.clamp_max",     Pointwise,     Composite)              \
  X(minimum,       "aten.minimum",       Pointwise,     Prim)                   \
  X(floor,         "aten.floor",         Pointwise,     Prim)                   \
  X(ceil,          "aten.ceil",          Pointwise,     Prim)                   \
  X(round,         "aten.round",         Pointwise,     Prim)                   \
  X(trunc,         "aten.trunc",         Pointwise,     Prim)                   \
  X(log1p,         "aten.log1p",         Pointwise,     Prim)                   \
  X(expm1,         "aten.expm1",         Pointwise,     Prim)                   \
  X(tan,           "aten.tan",           Pointwise,     Prim)                   \
  X(atan,          "aten.atan",          Pointwise,     Prim)                   \
  X(asin,          "aten.asin",          Pointwise,     Prim)                   \
  X(acos,          "aten.acos",          Pointwise,     Prim)                   \
  X(sinh,          "aten.sinh",          Pointwise,     Prim)                   \
  X(cosh,          "aten.cosh",          Pointwise,     Prim)                   \
  X(sign,          "aten.sign",          Pointwise,     Prim)                   \
  X(logical_and,   "aten.logical_and",   Pointwise,     Prim)                   \
  X(logical_or,    "aten.logical_or",    Pointwise,     Prim)                   \
  X(logical_xor,   "aten.logical_xor",   Pointwise,     Prim)                   \
  X(logical_not,   "aten.logical_not",   Pointwise,     Prim)                   \
  X(bitwise_and,   "aten.bitwise_and",   Pointwise,     Prim)                   \
  X(bitwise_or,    "aten.bitwise_or",    Pointwise,     Prim)                   \
  X(bitwise_xor,   "aten.bitwise_xor",   Pointwise,     Prim)                   \
  X(bitwise_not,   "aten.bitwise_not",   Pointwise,     Prim)                   \
  X(isnan,         "aten.isnan",         Pointwise,     Prim)                   \
  X(isinf,         "aten.isinf",         Pointwise,     Prim)                   \
  X(nan_to_num,    "aten.nan_to_num",    Pointwise,     Composite)              \
  X(masked_fill,   "aten.masked_fill",   Pointwise,     Composite)              \
  X(leaky_relu,    "aten.leaky_relu",    Pointwise,     Composite)              \
  X(elu,           "aten.elu",           Pointwise,     Composite)              \
  X(softplus,      "aten.softplus",      Pointwise,     Composite)              \
  X(hardswish,     "aten.hardswish",     Pointwise,     Composite)              \
  /* reductions */                                                              \
  X(sum,           "aten.sum",           Reduction,     Prim)                   \
  X(mean,          "aten.mean",          Reduction,     Composite)              \
  X(amax,          "aten.amax",          Reduction,     Prim)                   \
  X(amin,          "aten.amin",          Reduction,     Prim)                   \
  X(argmax,        "aten.argmax",        Reduction,     Prim)                   \
  X(var,           "aten.var",           Reduction,     Composite)              \
  X(logsumexp,     "aten.logsumexp",     Reduction,     Composite)              \
  /* linear algebra */                                                          \
  X(matmul,        "aten.matmul",        Linalg,        Composite)              \
  X(mm,            "aten.mm",            Linalg,        Prim)                   \
  X(bmm,           "aten.bmm",           Linalg,        Prim)                   \
  /* neural-network composites */                                               \
  X(softmax,       "aten._softmax",      Nn,            Composite)              \
  X(log_softmax,   "aten._log_softmax",  Nn,            Composite)              \
  X(layer_norm,    "aten.layer_norm",    Nn,            Composite)              \
  X(embedding,     "aten.embedding",     Nn,            Composite)              \
  X(cross_entropy, "aten.cross_entropy", Nn,            Composite)              \
  X(mse_loss,      "aten.mse_loss",      Nn,            Composite)              \
  X(binary_cross_entropy_with_logits,                                           \
    "aten.binary_cross_entropy_with_logits",                                    \
                                         Nn,            Composite)              \
  X(dropout,       "aten.dropout",       Nn,            Composite)              \
  /* convolution, pooling, normalisation (issue 26). One output each: the graph   \
     has no tuples, so convolution_backward returns the one gradient its mask     \
     picks and max_pool2d_backward recomputes the window argmax (no indices) */   \
  X(convolution,          "aten.convolution",          Nn, Prim)               \
  X(convolution_backward, "aten.convolution_backward", Nn, Prim)               \
  X(max_pool2d,           "aten.max_pool2d",           Nn, Prim)               \
  X(max_pool2d_backward,  "aten.max_pool2d_backward",  Nn, Prim)               \
  X(avg_pool2d,           "aten.avg_pool2d",           Nn, Prim)               \
  X(avg_pool2d_backward,  "aten.avg_pool2d_backward",  Nn, Prim)               \
  X(adaptive_avg_pool2d,  "aten.adaptive_avg_pool2d",  Nn, Composite)          \
  X(group_norm,           "aten.group_norm",           Nn, Composite)          \
  /* indexing along one dim */                                                  \
  X(gather,        "aten.gather",        Indexing,      Prim)                   \
  X(scatter_add,   "aten.scatter_add",   Indexing,      Prim)                   \
  /* indexing, more: composites of the ops above and the views below */         \
  X(index_select,  "aten.index_select",  Indexing,      Composite)              \
  X(narrow,        "aten.narrow",        View,          Composite)              \
  X(tril,          "aten.tril",          Shape,         Composite)              \
  X(triu,          "aten.triu",          Shape,         Composite)              \
  X(repeat,        "aten.repeat",        Shape,         Composite)              \
  X(roll,          "aten.roll",          Shape,         Composite)              \
  /* views: the result shares the input's storage */                            \
  X(view,          "aten.view",          View,          Prim)                   \
  X(reshape,       "aten.reshape",       View,          Composite)              \
  X(transpose,     "aten.transpose",     View,          Composite)              \
  X(permute,       "aten.permute",       View,          Prim)                   \
  X(slice,         "aten.slice",         View,          Prim)                   \
  X(expand,        "aten.expand",        View,          Prim)                   \
  X(unsqueeze,     "aten.unsqueeze",     View,          Composite)              \
  X(squeeze,       "aten.squeeze",       View,          Composite)              \
  X(detach,        "aten.detach",        View,          Composite)              \
  /* shape ops that copy */                                                     \
  X(contiguous,    "aten.contiguous",    Shape,         Prim)                   \
  X(cat,           "aten.cat",           Shape,         Prim)                   \
  X(stack,         "aten.stack",         Shape,         Composite)              \
  /* device transfer: the result lives on the device asked for */                \
  X(to,            "aten.to",            Transfer,      Prim)                   \
  /* factories: no tensor inputs */                                             \
  X(arange,        "aten.arange",        Factory,       Prim)                   \
  X(full,          "aten.full",          Factory,       Prim)                   \
  X(zeros,         "aten.zeros",         Factory,       Composite)              \
  X(ones,          "aten.ones",          Factory,       Composite)              \
  X(randn,         "aten.randn",         Factory,       Prim)                   \
  X(rand,          "aten.rand",          Factory,       Prim)                   \
  /* inductor: ops the pattern rewrites produce (compiler/src/passes/           \
     pattern_rewrites.h); kernels in kernels/fused_ops.cpp */                   \
  X(silu,          "aten.silu",          Pointwise,     Composite)              \
  X(addmm,         "aten.addmm",         Linalg,        Composite)              \
  /* data-dependent: the result is a host value read from tensor data */        \
  X(item,          "aten.item",          DataDependent, Prim)                   \
  X(to_bool,       "aten.is_nonzero",    DataDependent, Prim)                   \
  /* extension: an op a user registered (compiler/ops/custom_ops.h); graphs     \
     print it under its own name (torch.ops.mylib.scale_add.default) */        \
  X(custom_op,     "custom_op",          Extern,        Prim)
// clang-format on
