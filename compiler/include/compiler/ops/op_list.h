// compiler/ops: THE list of ops, written once. Everything per-op (OpKind, names, categories,
// the eager and meta dispatch tables) is generated from it with an X-macro:
//
//   X(name, "aten_name", category)
//
// `name` is the C++ function in namespace compiler (ops/ops.h) and the OpKind enumerator;
// "aten_name" is how graphs print it (PyTorch's ATen name, so graphs read like PyTorch's);
// category is an OpCategory enumerator (ops/op_hook.h) that passes and capture can use.
#pragma once

// clang-format off
#define TORCHSCOPE_COMPILER_OPS(X)                                   \
  /* pointwise, binary (tensor-tensor or tensor-scalar) */           \
  X(add,           "aten.add",           Pointwise)                  \
  X(sub,           "aten.sub",           Pointwise)                  \
  X(mul,           "aten.mul",           Pointwise)                  \
  X(div,           "aten.div",           Pointwise)                  \
  X(pow,           "aten.pow",           Pointwise)                  \
  X(eq,            "aten.eq",            Pointwise)                  \
  X(ne,            "aten.ne",            Pointwise)                  \
  X(lt,            "aten.lt",            Pointwise)                  \
  X(le,            "aten.le",            Pointwise)                  \
  X(gt,            "aten.gt",            Pointwise)                  \
  X(ge,            "aten.ge",            Pointwise)                  \
  X(where,         "aten.where",         Pointwise)                  \
  /* pointwise, unary */                                             \
  X(neg,           "aten.neg",           Pointwise)                  \
  X(exp,           "aten.exp",           Pointwise)                  \
  X(log,           "aten.log",           Pointwise)                  \
  X(sin,           "aten.sin",           Pointwise)                  \
  X(cos,           "aten.cos",           Pointwise)                  \
  X(tanh,          "aten.tanh",          Pointwise)                  \
  X(sigmoid,       "aten.sigmoid",       Pointwise)                  \
  X(relu,          "aten.relu",          Pointwise)                  \
  X(gelu,          "aten.gelu",          Pointwise)                  \
  X(sqrt,          "aten.sqrt",          Pointwise)                  \
  X(abs,           "aten.abs",           Pointwise)                  \
  X(to_dtype,      "aten._to_copy",      Pointwise)                  \
  /* reductions */                                                   \
  X(sum,           "aten.sum",           Reduction)                  \
  X(mean,          "aten.mean",          Reduction)                  \
  X(amax,          "aten.amax",          Reduction)                  \
  X(amin,          "aten.amin",          Reduction)                  \
  X(argmax,        "aten.argmax",        Reduction)                  \
  /* linear algebra */                                               \
  X(matmul,        "aten.matmul",        Linalg)                     \
  X(bmm,           "aten.bmm",           Linalg)                     \
  /* neural-network composites */                                    \
  X(softmax,       "aten._softmax",      Nn)                         \
  X(log_softmax,   "aten._log_softmax",  Nn)                         \
  X(layer_norm,    "aten.layer_norm",    Nn)                         \
  X(embedding,     "aten.embedding",     Nn)                         \
  X(cross_entropy, "aten.cross_entropy", Nn)                         \
  /* views: the result shares the input's storage */                 \
  X(view,          "aten.view",          View)                       \
  X(reshape,       "aten.reshape",       View)                       \
  X(transpose,     "aten.transpose",     View)                       \
  X(permute,       "aten.permute",       View)                       \
  X(slice,         "aten.slice",         View)                       \
  X(expand,        "aten.expand",        View)                       \
  X(unsqueeze,     "aten.unsqueeze",     View)                       \
  X(squeeze,       "aten.squeeze",       View)                       \
  /* shape ops that copy */                                          \
  X(contiguous,    "aten.contiguous",    Shape)                      \
  X(cat,           "aten.cat",           Shape)                      \
  X(stack,         "aten.stack",         Shape)                      \
  /* device transfer: the result lives on the device asked for */    \
  X(to,            "aten.to",            Transfer)                   \
  /* factories: no tensor inputs */                                  \
  X(arange,        "aten.arange",        Factory)                    \
  X(full,          "aten.full",          Factory)                    \
  X(zeros,         "aten.zeros",         Factory)                    \
  X(ones,          "aten.ones",          Factory)                    \
  X(randn,         "aten.randn",         Factory)                    \
  /* inductor: ops the pattern rewrites produce (compiler/src/passes/     \
     pattern_rewrites.h); kernels in kernels/fused_ops.cpp */          \
  X(silu,          "aten.silu",          Pointwise)                  \
  X(addmm,         "aten.addmm",         Linalg)                     \
  /* data-dependent: the result is a host value read from tensor data */ \
  X(item,          "aten.item",          DataDependent)              \
  X(to_bool,       "aten.is_nonzero",    DataDependent)
// clang-format on
