// The op functions: each packs its arguments into Values in the layout its kernels read
// (documented per family below) and dispatches with the caller's location.
//
// Argument layouts:
//   binary pointwise   {Tensor a, Tensor|double b}        where     {cond, a, b}
//   unary pointwise    {x}   gelu {x, str approximate}    to_dtype  {x, dtype}
//   sum/mean/amax/amin {x, int[] dims, bool keepdim}      argmax    {x, SymInt dim|None, keepdim}
//   matmul/mm/bmm      {a, b}                             softmax/log_softmax {x, SymInt dim}
//   layer_norm         {x, int[] shape, Tensor|None weight, Tensor|None bias, double eps}
//   embedding          {weight, indices}                  cross_entropy {logits, target}
//   gather             {x, SymInt dim, index}             scatter_add {x, SymInt dim, index, src}
//   index_select       {x, SymInt dim, index}             narrow {x, dim, SymInt start, length}
//   tril/triu          {x, SymInt diagonal}                repeat {x, int[] repeats}
//   roll               {x, int[] shifts, int[] dims}
//   convolution        {input, weight, bias|None, int[] stride, int[] padding, int[] dilation,
//                       bool transposed, int[] output_padding, SymInt groups}
//   convolution_backward {grad, input, weight, int[] bias_sizes, stride, padding, dilation,
//                       transposed, output_padding, groups, int[] output_mask}
//   max_pool2d         {x, int[] kernel, int[] stride, int[] padding, int[] dilation, bool ceil}
//   avg_pool2d         {x, int[] kernel, int[] stride, int[] padding, bool ceil,
//                       bool count_include_pad}
//   *_pool2d_backward  {grad, x, then the forward's arguments after x}
//   adaptive_avg_pool2d {x, int[] output_size}
//   group_norm         {x, SymInt num_groups, Tensor|None weight, Tensor|None bias, double eps}
//   view/reshape/expand {x, SymInt[] sizes}               transpose {x, SymInt d0, SymInt d1}
//   permute            {x, int[] dims}                    slice {x, dim, start, end, step}
//   unsqueeze          {x, SymInt dim}                    squeeze {x, SymInt dim|None}
//   detach             {x}
//   contiguous         {x}                                cat/stack {Tensor[] xs, SymInt dim}
//   arange             {SymInt end, dtype} | {double start, double end, double step, dtype}
//   full               {SymInt[] sizes, double value, dtype}   zeros/ones {SymInt[] sizes, dtype}
//   randn              {SymInt[] sizes, SymInt seed, dtype}    item/to_bool {x}
//   silu               {x}                                addmm {Tensor bias, Tensor a, Tensor b}
//   every factory      ... then `device` last when it is not the host
//   to                 {x, device}
//   clamp              {x, Tensor|double|None min, Tensor|double|None max}
//   clamp_min/clamp_max/minimum {x, Tensor|double}     logical_*/bitwise_* {a, b} or {x}
//   nan_to_num         {x, double nan, double|None posinf, double|None neginf}
//   masked_fill        {x, Tensor mask, double value}
//   leaky_relu {x, slope}  elu {x, alpha}  softplus {x, beta, threshold}  hardswish {x}
//   var                {x, int[] dims, double correction, bool keepdim}
//   logsumexp          {x, int[] dims, bool keepdim}
//   mse_loss/binary_cross_entropy_with_logits {input, target, str reduction}
//   dropout            {x, double p, SymInt seed, SymInt offset}
//   rand               {SymInt[] sizes, SymInt seed, SymInt offset, dtype}
#include "compiler/ops/ops.h"

#include "compiler/core/errors.h"
#include "kernels/shape_util.h"
#include "tensor/device_memory.h"

#include <algorithm>
#include <iomanip>
#include <mutex>
#include <sstream>

namespace compiler {

namespace {

Tensor call_tensor(OpKind op, std::initializer_list<Value> args, const SourceLoc& loc) {
  const Value result = dispatch(op, std::span<const Value>(args.begin(), args.size()), loc);
  const Tensor* t = std::get_if<Tensor>(&result);
  TORCHSCOPE_ASSERT(t != nullptr && t->defined(), "a tensor op returned no tensor");
  return *t;
}

Value optional_tensor(const Tensor& t) {
  return t.defined() ? Value(t) : Value(std::monostate{});
}

// "cuda" made "cuda:<current>", so graphs and tensors record the device actually used.
Device resolved(Device device, const SourceLoc& loc) {
  CallSiteScope site(loc);
  return device_memory::resolve(device);
}

// A factory's arguments, with the device appended when it is not the host (so a CPU factory's
// node reads as it always did).
Tensor call_factory(OpKind op, std::vector<Value> args, Device device, const SourceLoc& loc) {
  device = resolved(device, loc);
  if (!device.is_cpu()) {
    args.emplace_back(device);
  }
  const Value result = dispatch(op, args, loc);
  const Tensor* t = std::get_if<Tensor>(&result);
  TORCHSCOPE_ASSERT(t != nullptr && t->defined(), "a factory returned no tensor");
  return *t;
}

thread_local bool t_generator_draw = false;

// Marks the dispatch of an op whose offset comes from the process's generator.
struct GeneratorDrawScope {
  bool previous = t_generator_draw;
  GeneratorDrawScope() noexcept { t_generator_draw = true; }
  ~GeneratorDrawScope() { t_generator_draw = previous; }
  GeneratorDrawScope(const GeneratorDrawScope&) = delete;
  GeneratorDrawScope& operator=(const GeneratorDrawScope&) = delete;
};

// "[3, -1, 8]", as PyTorch prints an int list.
std::string ints_string(const std::vector<std::int64_t>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += (i == 0 ? "" : ", ") + std::to_string(v[i]);
  }
  return out + "]";
}

// 1.5, 0.25: the shortest text that reads back as the same double.
std::string number_text(double v) {
  std::ostringstream out;
  out << std::setprecision(17) << v;
  std::ostringstream shorter;
  shorter << v;
  return std::stod(shorter.str()) == v ? shorter.str() : out.str();
}

} // namespace

#define TORCHSCOPE_BINARY_OP(name)                                                                 \
  Tensor name(const Tensor& a, const Tensor& b, SourceLoc loc) {                                   \
    return call_tensor(OpKind::name, {a, b}, loc);                                                 \
  }                                                                                                \
  Tensor name(const Tensor& a, double b, SourceLoc loc) {                                          \
    return call_tensor(OpKind::name, {a, b}, loc);                                                 \
  }
TORCHSCOPE_BINARY_OP(add)
TORCHSCOPE_BINARY_OP(sub)
TORCHSCOPE_BINARY_OP(mul)
TORCHSCOPE_BINARY_OP(div)
TORCHSCOPE_BINARY_OP(pow)
TORCHSCOPE_BINARY_OP(maximum)
TORCHSCOPE_BINARY_OP(eq)
TORCHSCOPE_BINARY_OP(ne)
TORCHSCOPE_BINARY_OP(lt)
TORCHSCOPE_BINARY_OP(le)
TORCHSCOPE_BINARY_OP(gt)
TORCHSCOPE_BINARY_OP(ge)
#undef TORCHSCOPE_BINARY_OP

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, SourceLoc loc) {
  return call_tensor(OpKind::where, {cond, a, b}, loc);
}

#define TORCHSCOPE_UNARY_OP(name)                                                                  \
  Tensor name(const Tensor& x, SourceLoc loc) {                                                    \
    return call_tensor(OpKind::name, {x}, loc);                                                    \
  }
TORCHSCOPE_UNARY_OP(neg)
TORCHSCOPE_UNARY_OP(exp)
TORCHSCOPE_UNARY_OP(log)
TORCHSCOPE_UNARY_OP(sin)
TORCHSCOPE_UNARY_OP(cos)
TORCHSCOPE_UNARY_OP(tanh)
TORCHSCOPE_UNARY_OP(sigmoid)
TORCHSCOPE_UNARY_OP(relu)
TORCHSCOPE_UNARY_OP(sqrt)
TORCHSCOPE_UNARY_OP(rsqrt)
TORCHSCOPE_UNARY_OP(abs)
TORCHSCOPE_UNARY_OP(erf)
TORCHSCOPE_UNARY_OP(detach)
TORCHSCOPE_UNARY_OP(contiguous)
#undef TORCHSCOPE_UNARY_OP

Tensor gelu(const Tensor& x, std::string approximate, SourceLoc loc) {
  return call_tensor(OpKind::gelu, {x, std::move(approximate)}, loc);
}

Tensor to_dtype(const Tensor& x, DType dtype, SourceLoc loc) {
  return call_tensor(OpKind::to_dtype, {x, dtype}, loc);
}

// ---- pointwise, more

namespace {
Value optional_double(std::optional<double> v) {
  return v ? Value(*v) : Value(std::monostate{});
}
} // namespace

Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max, SourceLoc loc) {
  return call_tensor(OpKind::clamp, {x, optional_double(min), optional_double(max)}, loc);
}
Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max, SourceLoc loc) {
  return call_tensor(OpKind::clamp, {x, optional_tensor(min), optional_tensor(max)}, loc);
}

#define TORCHSCOPE_BINARY_OP(name)                                                                 \
  Tensor name(const Tensor& a, const Tensor& b, SourceLoc loc) {                                   \
    return call_tensor(OpKind::name, {a, b}, loc);                                                 \
  }                                                                                                \
  Tensor name(const Tensor& a, double b, SourceLoc loc) {                                          \
    return call_tensor(OpKind::name, {a, b}, loc);                                                 \
  }
TORCHSCOPE_BINARY_OP(clamp_min)
TORCHSCOPE_BINARY_OP(clamp_max)
TORCHSCOPE_BINARY_OP(minimum)
#undef TORCHSCOPE_BINARY_OP

#define TORCHSCOPE_TENSOR_BINARY_OP(name)                                                          \
  Tensor name(const Tensor& a, const Tensor& b, SourceLoc loc) {                                   \
    return call_tensor(OpKind::name, {a, b}, loc);                                                 \
  }
TORCHSCOPE_TENSOR_BINARY_OP(logical_and)
TORCHSCOPE_TENSOR_BINARY_OP(logical_or)
TORCHSCOPE_TENSOR_BINARY_OP(logical_xor)
TORCHSCOPE_TENSOR_BINARY_OP(bitwise_and)
TORCHSCOPE_TENSOR_BINARY_OP(bitwise_or)
TORCHSCOPE_TENSOR_BINARY_OP(bitwise_xor)
#undef TORCHSCOPE_TENSOR_BINARY_OP

#define TORCHSCOPE_UNARY_OP(name)                                                                  \
  Tensor name(const Tensor& x, SourceLoc loc) {                                                    \
    return call_tensor(OpKind::name, {x}, loc);                                                    \
  }
TORCHSCOPE_UNARY_OP(floor)
TORCHSCOPE_UNARY_OP(ceil)
TORCHSCOPE_UNARY_OP(round)
TORCHSCOPE_UNARY_OP(trunc)
TORCHSCOPE_UNARY_OP(log1p)
TORCHSCOPE_UNARY_OP(expm1)
TORCHSCOPE_UNARY_OP(tan)
TORCHSCOPE_UNARY_OP(atan)
TORCHSCOPE_UNARY_OP(asin)
TORCHSCOPE_UNARY_OP(acos)
TORCHSCOPE_UNARY_OP(sinh)
TORCHSCOPE_UNARY_OP(cosh)
TORCHSCOPE_UNARY_OP(sign)
TORCHSCOPE_UNARY_OP(logical_not)
TORCHSCOPE_UNARY_OP(bitwise_not)
TORCHSCOPE_UNARY_OP(isnan)
TORCHSCOPE_UNARY_OP(isinf)
TORCHSCOPE_UNARY_OP(hardswish)
#undef TORCHSCOPE_UNARY_OP

Tensor nan_to_num(const Tensor& x, double nan, std::optional<double> posinf,
                  std::optional<double> neginf, SourceLoc loc) {
  return call_tensor(OpKind::nan_to_num, {x, nan, optional_double(posinf), optional_double(neginf)},
                     loc);
}
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value, SourceLoc loc) {
  return call_tensor(OpKind::masked_fill, {x, mask, value}, loc);
}
Tensor leaky_relu(const Tensor& x, double negative_slope, SourceLoc loc) {
  return call_tensor(OpKind::leaky_relu, {x, negative_slope}, loc);
}
Tensor elu(const Tensor& x, double alpha, SourceLoc loc) {
  return call_tensor(OpKind::elu, {x, alpha}, loc);
}
Tensor softplus(const Tensor& x, double beta, double threshold, SourceLoc loc) {
  return call_tensor(OpKind::softplus, {x, beta, threshold}, loc);
}

#define TORCHSCOPE_REDUCTION_OP(name)                                                              \
  Tensor name(const Tensor& x, std::vector<std::int64_t> dims, bool keepdim, SourceLoc loc) {      \
    return call_tensor(OpKind::name, {x, std::move(dims), keepdim}, loc);                          \
  }
TORCHSCOPE_REDUCTION_OP(sum)
TORCHSCOPE_REDUCTION_OP(mean)
TORCHSCOPE_REDUCTION_OP(amax)
TORCHSCOPE_REDUCTION_OP(amin)
#undef TORCHSCOPE_REDUCTION_OP

Tensor var(const Tensor& x, std::vector<std::int64_t> dims, double correction, bool keepdim,
           SourceLoc loc) {
  return call_tensor(OpKind::var, {x, std::move(dims), correction, keepdim}, loc);
}
Tensor std(const Tensor& x, std::vector<std::int64_t> dims, double correction, bool keepdim,
           SourceLoc loc) {
  return sqrt(var(x, std::move(dims), correction, keepdim, loc), loc);
}
std::pair<Tensor, Tensor> var_mean(const Tensor& x, std::vector<std::int64_t> dims,
                                   double correction, bool keepdim, SourceLoc loc) {
  Tensor v = var(x, dims, correction, keepdim, loc);
  return {std::move(v), mean(x, std::move(dims), keepdim, loc)};
}
Tensor logsumexp(const Tensor& x, std::vector<std::int64_t> dims, bool keepdim, SourceLoc loc) {
  return call_tensor(OpKind::logsumexp, {x, std::move(dims), keepdim}, loc);
}

Tensor argmax(const Tensor& x, std::optional<std::int64_t> dim, bool keepdim, SourceLoc loc) {
  const Value d = dim ? Value(SymInt(*dim)) : Value(std::monostate{});
  return call_tensor(OpKind::argmax, {x, d, keepdim}, loc);
}

Tensor matmul(const Tensor& a, const Tensor& b, SourceLoc loc) {
  return call_tensor(OpKind::matmul, {a, b}, loc);
}
Tensor mm(const Tensor& a, const Tensor& b, SourceLoc loc) {
  return call_tensor(OpKind::mm, {a, b}, loc);
}
Tensor bmm(const Tensor& a, const Tensor& b, SourceLoc loc) {
  return call_tensor(OpKind::bmm, {a, b}, loc);
}

Tensor softmax(const Tensor& x, std::int64_t dim, SourceLoc loc) {
  return call_tensor(OpKind::softmax, {x, SymInt(dim)}, loc);
}
Tensor log_softmax(const Tensor& x, std::int64_t dim, SourceLoc loc) {
  return call_tensor(OpKind::log_softmax, {x, SymInt(dim)}, loc);
}

Tensor layer_norm(const Tensor& x, std::vector<std::int64_t> normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps, SourceLoc loc) {
  return call_tensor(
      OpKind::layer_norm,
      {x, std::move(normalized_shape), optional_tensor(weight), optional_tensor(bias), eps}, loc);
}

Tensor embedding(const Tensor& weight, const Tensor& indices, SourceLoc loc) {
  return call_tensor(OpKind::embedding, {weight, indices}, loc);
}

Tensor cross_entropy(const Tensor& logits, const Tensor& target, SourceLoc loc) {
  return call_tensor(OpKind::cross_entropy, {logits, target}, loc);
}

Tensor mse_loss(const Tensor& input, const Tensor& target, std::string reduction, SourceLoc loc) {
  return call_tensor(OpKind::mse_loss, {input, target, std::move(reduction)}, loc);
}
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        std::string reduction, SourceLoc loc) {
  return call_tensor(OpKind::binary_cross_entropy_with_logits,
                     {input, target, std::move(reduction)}, loc);
}

Tensor dropout(const Tensor& x, double p, bool train, SourceLoc loc) {
  if (!(p >= 0.0 && p <= 1.0)) {
    CallSiteScope site(loc);
    user_error("dropout probability has to be between 0 and 1, but got " + number_text(p));
  }
  if (!train) {
    return x; // PyTorch returns the input itself and draws nothing
  }
  const RandomState state = take_random_offsets(static_cast<std::uint64_t>(x.numel()));
  const GeneratorDrawScope drawing;
  return dropout(x, p, state.seed, SymInt(static_cast<std::int64_t>(state.offset)), loc);
}
Tensor dropout(const Tensor& x, double p, std::uint64_t seed, SymInt offset, SourceLoc loc) {
  return call_tensor(OpKind::dropout,
                     {x, p, SymInt(static_cast<std::int64_t>(seed)), std::move(offset)}, loc);
}

Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                   std::vector<std::int64_t> stride, std::vector<std::int64_t> padding,
                   std::vector<std::int64_t> dilation, bool transposed,
                   std::vector<std::int64_t> output_padding, std::int64_t groups, SourceLoc loc) {
  return call_tensor(OpKind::convolution,
                     {input, weight, optional_tensor(bias), std::move(stride), std::move(padding),
                      std::move(dilation), transposed, std::move(output_padding), SymInt(groups)},
                     loc);
}

Tensor convolution_backward(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                            std::vector<std::int64_t> bias_sizes, std::vector<std::int64_t> stride,
                            std::vector<std::int64_t> padding, std::vector<std::int64_t> dilation,
                            bool transposed, std::vector<std::int64_t> output_padding,
                            std::int64_t groups, std::vector<std::int64_t> output_mask,
                            SourceLoc loc) {
  return call_tensor(OpKind::convolution_backward,
                     {grad_output, input, weight, std::move(bias_sizes), std::move(stride),
                      std::move(padding), std::move(dilation), transposed,
                      std::move(output_padding), SymInt(groups), std::move(output_mask)},
                     loc);
}

namespace {

// F.conv1d/F.conv2d: one value stands for every spatial dim; an unbatched input gets a batch
// dim of 1 for aten.convolution, which wants one.
Tensor conv_nd(const char* name, std::int64_t spatial, const Tensor& input, const Tensor& weight,
               const Tensor& bias, std::vector<std::int64_t> stride,
               std::vector<std::int64_t> padding, std::vector<std::int64_t> dilation,
               std::int64_t groups, const SourceLoc& loc) {
  const std::int64_t rank = input.dim();
  if (rank != spatial + 1 && rank != spatial + 2) {
    CallSiteScope site(loc);
    user_error(std::string(name) + ": Expected " + std::to_string(spatial + 1) +
               "D (unbatched) or " + std::to_string(spatial + 2) + "D (batched) input to " + name +
               ", but got input of size: " + input.type_string());
  }
  auto expand_list = [&](std::vector<std::int64_t>& v, const char* what) {
    if (v.size() == 1) {
      v.assign(static_cast<std::size_t>(spatial), v[0]);
    } else if (static_cast<std::int64_t>(v.size()) != spatial) {
      CallSiteScope site(loc);
      user_error(std::string(name) + ": expected " + what +
                 " to be a single integer value or a "
                 "list of " +
                 std::to_string(spatial) +
                 " values to match the convolution "
                 "dimensions, but got " +
                 what + "=" + std::to_string(v.size()) + " values");
    }
  };
  expand_list(stride, "stride");
  expand_list(padding, "padding");
  expand_list(dilation, "dilation");
  const bool unbatched = rank == spatial + 1;
  const Tensor x = unbatched ? unsqueeze(input, 0, loc) : input;
  std::vector<std::int64_t> output_padding(static_cast<std::size_t>(spatial), 0);
  const Tensor y = convolution(x, weight, bias, std::move(stride), std::move(padding),
                               std::move(dilation), false, std::move(output_padding), groups, loc);
  return unbatched ? squeeze(y, 0, loc) : y;
}

} // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
              std::vector<std::int64_t> stride, std::vector<std::int64_t> padding,
              std::vector<std::int64_t> dilation, std::int64_t groups, SourceLoc loc) {
  return conv_nd("conv2d", 2, input, weight, bias, std::move(stride), std::move(padding),
                 std::move(dilation), groups, loc);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
              std::vector<std::int64_t> stride, std::vector<std::int64_t> padding,
              std::vector<std::int64_t> dilation, std::int64_t groups, SourceLoc loc) {
  return conv_nd("conv1d", 1, input, weight, bias, std::move(stride), std::move(padding),
                 std::move(dilation), groups, loc);
}

Tensor max_pool2d(const Tensor& x, std::vector<std::int64_t> kernel_size,
                  std::vector<std::int64_t> stride, std::vector<std::int64_t> padding,
                  std::vector<std::int64_t> dilation, bool ceil_mode, SourceLoc loc) {
  return call_tensor(OpKind::max_pool2d,
                     {x, std::move(kernel_size), std::move(stride), std::move(padding),
                      std::move(dilation), ceil_mode},
                     loc);
}

Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& x,
                           std::vector<std::int64_t> kernel_size, std::vector<std::int64_t> stride,
                           std::vector<std::int64_t> padding, std::vector<std::int64_t> dilation,
                           bool ceil_mode, SourceLoc loc) {
  return call_tensor(OpKind::max_pool2d_backward,
                     {grad_output, x, std::move(kernel_size), std::move(stride), std::move(padding),
                      std::move(dilation), ceil_mode},
                     loc);
}

Tensor avg_pool2d(const Tensor& x, std::vector<std::int64_t> kernel_size,
                  std::vector<std::int64_t> stride, std::vector<std::int64_t> padding,
                  bool ceil_mode, bool count_include_pad, SourceLoc loc) {
  return call_tensor(OpKind::avg_pool2d,
                     {x, std::move(kernel_size), std::move(stride), std::move(padding), ceil_mode,
                      count_include_pad},
                     loc);
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& x,
                           std::vector<std::int64_t> kernel_size, std::vector<std::int64_t> stride,
                           std::vector<std::int64_t> padding, bool ceil_mode,
                           bool count_include_pad, SourceLoc loc) {
  return call_tensor(OpKind::avg_pool2d_backward,
                     {grad_output, x, std::move(kernel_size), std::move(stride), std::move(padding),
                      ceil_mode, count_include_pad},
                     loc);
}

Tensor adaptive_avg_pool2d(const Tensor& x, std::vector<std::int64_t> output_size, SourceLoc loc) {
  return call_tensor(OpKind::adaptive_avg_pool2d, {x, std::move(output_size)}, loc);
}

Tensor group_norm(const Tensor& x, std::int64_t num_groups, const Tensor& weight,
                  const Tensor& bias, double eps, SourceLoc loc) {
  return call_tensor(OpKind::group_norm,
                     {x, SymInt(num_groups), optional_tensor(weight), optional_tensor(bias), eps},
                     loc);
}

Tensor instance_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                     SourceLoc loc) {
  if (x.dim() < 2) {
    CallSiteScope site(loc);
    user_error("instance_norm: Expected at least 2 dimensions for input tensor but received " +
               std::to_string(x.dim()));
  }
  return group_norm(x, x.sizes()[1], weight, bias, eps, loc);
}

Tensor gather(const Tensor& x, std::int64_t dim, const Tensor& index, SourceLoc loc) {
  return call_tensor(OpKind::gather, {x, SymInt(dim), index}, loc);
}
Tensor scatter_add(const Tensor& x, std::int64_t dim, const Tensor& index, const Tensor& src,
                   SourceLoc loc) {
  return call_tensor(OpKind::scatter_add, {x, SymInt(dim), index, src}, loc);
}

// ---- indexing, more
Tensor index_select(const Tensor& x, std::int64_t dim, const Tensor& index, SourceLoc loc) {
  return call_tensor(OpKind::index_select, {x, SymInt(dim), index}, loc);
}
Tensor narrow(const Tensor& x, std::int64_t dim, SymInt start, SymInt length, SourceLoc loc) {
  return call_tensor(OpKind::narrow, {x, SymInt(dim), std::move(start), std::move(length)}, loc);
}
std::vector<Tensor> split(const Tensor& x, std::int64_t split_size, std::int64_t dim,
                          SourceLoc loc) {
  CallSiteScope site(loc);
  if (x.dim() == 0) {
    user_error("split expects at least a 1-dimensional tensor");
  }
  if (split_size < 0) {
    user_error("split expects split_size be non-negative, but got split_size=" +
               std::to_string(split_size));
  }
  const std::int64_t d = kernels::wrap_dim(dim, x.dim());
  const std::int64_t n = x.sizes()[static_cast<std::size_t>(d)];
  if (split_size == 0 && n != 0) {
    user_error("split_size can only be 0 if dimension size is 0, but got dimension size of " +
               std::to_string(n));
  }
  std::vector<std::int64_t> sizes;
  if (split_size == 0) {
    sizes.push_back(0);
  }
  for (std::int64_t start = 0; start < n; start += split_size) {
    sizes.push_back(std::min(split_size, n - start));
  }
  return split(x, sizes, d, loc);
}

std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& split_sizes,
                          std::int64_t dim, SourceLoc loc) {
  CallSiteScope site(loc);
  if (x.dim() == 0) {
    user_error("split_with_sizes expects at least a 1-dimensional tensor");
  }
  const std::int64_t d = kernels::wrap_dim(dim, x.dim());
  const std::int64_t n = x.sizes()[static_cast<std::size_t>(d)];
  std::int64_t total = 0;
  for (std::int64_t s : split_sizes) {
    if (s < 0) {
      user_error("split_with_sizes expects split_sizes have only non-negative entries, but got "
                 "split_sizes=" +
                 ints_string(split_sizes));
    }
    total += s;
  }
  if (total != n) {
    user_error("split_with_sizes expects split_sizes to sum exactly to " + std::to_string(n) +
               " (input tensor's size at dimension " + std::to_string(d) +
               "), but got split_sizes=" + ints_string(split_sizes));
  }
  std::vector<Tensor> pieces;
  pieces.reserve(split_sizes.size());
  std::int64_t start = 0;
  for (std::int64_t s : split_sizes) {
    pieces.push_back(narrow(x, d, SymInt(start), SymInt(s), loc));
    start += s;
  }
  return pieces;
}

std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, std::int64_t dim, SourceLoc loc) {
  CallSiteScope site(loc);
  if (x.dim() == 0) {
    user_error("chunk expects at least a 1-dimensional tensor");
  }
  if (chunks <= 0) {
    user_error("chunk expects `chunks` to be greater than 0, got: " + std::to_string(chunks));
  }
  const std::int64_t d = kernels::wrap_dim(dim, x.dim());
  const std::int64_t n = x.sizes()[static_cast<std::size_t>(d)];
  const std::int64_t split_size = (n + chunks - 1) / chunks;
  if (split_size == 0 && n == 0) { // chunks of an empty dim: as many empty views as asked
    return split(x, std::vector<std::int64_t>(static_cast<std::size_t>(chunks), 0), d, loc);
  }
  return split(x, split_size, d, loc);
}

Tensor tril(const Tensor& x, std::int64_t diagonal, SourceLoc loc) {
  return call_tensor(OpKind::tril, {x, SymInt(diagonal)}, loc);
}
Tensor triu(const Tensor& x, std::int64_t diagonal, SourceLoc loc) {
  return call_tensor(OpKind::triu, {x, SymInt(diagonal)}, loc);
}
Tensor repeat(const Tensor& x, std::vector<std::int64_t> repeats, SourceLoc loc) {
  return call_tensor(OpKind::repeat, {x, std::move(repeats)}, loc);
}
Tensor roll(const Tensor& x, std::vector<std::int64_t> shifts, std::vector<std::int64_t> dims,
            SourceLoc loc) {
  return call_tensor(OpKind::roll, {x, std::move(shifts), std::move(dims)}, loc);
}

Tensor view(const Tensor& x, std::vector<SymInt> sizes, SourceLoc loc) {
  return call_tensor(OpKind::view, {x, std::move(sizes)}, loc);
}
Tensor reshape(const Tensor& x, std::vector<SymInt> sizes, SourceLoc loc) {
  return call_tensor(OpKind::reshape, {x, std::move(sizes)}, loc);
}
Tensor transpose(const Tensor& x, std::int64_t dim0, std::int64_t dim1, SourceLoc loc) {
  return call_tensor(OpKind::transpose, {x, SymInt(dim0), SymInt(dim1)}, loc);
}
Tensor permute(const Tensor& x, std::vector<std::int64_t> dims, SourceLoc loc) {
  return call_tensor(OpKind::permute, {x, std::move(dims)}, loc);
}
Tensor slice(const Tensor& x, std::int64_t dim, SymInt start, SymInt end, std::int64_t step,
             SourceLoc loc) {
  return call_tensor(OpKind::slice,
                     {x, SymInt(dim), std::move(start), std::move(end), SymInt(step)}, loc);
}
Tensor expand(const Tensor& x, std::vector<SymInt> sizes, SourceLoc loc) {
  return call_tensor(OpKind::expand, {x, std::move(sizes)}, loc);
}
Tensor unsqueeze(const Tensor& x, std::int64_t dim, SourceLoc loc) {
  return call_tensor(OpKind::unsqueeze, {x, SymInt(dim)}, loc);
}
Tensor squeeze(const Tensor& x, std::int64_t dim, SourceLoc loc) {
  return call_tensor(OpKind::squeeze, {x, SymInt(dim)}, loc);
}
Tensor squeeze(const Tensor& x, SourceLoc loc) {
  return call_tensor(OpKind::squeeze, {x, std::monostate{}}, loc);
}

Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim, SourceLoc loc) {
  return call_tensor(OpKind::cat, {tensors, SymInt(dim)}, loc);
}
Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim, SourceLoc loc) {
  return call_tensor(OpKind::stack, {tensors, SymInt(dim)}, loc);
}

Tensor arange(SymInt end, DType dtype, SourceLoc loc) {
  return arange(std::move(end), dtype, Device::cpu(), loc);
}
Tensor arange(SymInt end, DType dtype, Device device, SourceLoc loc) {
  return call_factory(OpKind::arange, {std::move(end), dtype}, device, loc);
}
Tensor arange(double start, double end, double step, DType dtype, SourceLoc loc) {
  return arange(start, end, step, dtype, Device::cpu(), loc);
}
Tensor arange(double start, double end, double step, DType dtype, Device device, SourceLoc loc) {
  return call_factory(OpKind::arange, {start, end, step, dtype}, device, loc);
}
Tensor full(std::vector<SymInt> sizes, double value, DType dtype, SourceLoc loc) {
  return full(std::move(sizes), value, dtype, Device::cpu(), loc);
}
Tensor full(std::vector<SymInt> sizes, double value, DType dtype, Device device, SourceLoc loc) {
  return call_factory(OpKind::full, {std::move(sizes), value, dtype}, device, loc);
}
Tensor zeros(std::vector<SymInt> sizes, DType dtype, SourceLoc loc) {
  return zeros(std::move(sizes), dtype, Device::cpu(), loc);
}
Tensor zeros(std::vector<SymInt> sizes, DType dtype, Device device, SourceLoc loc) {
  return call_factory(OpKind::zeros, {std::move(sizes), dtype}, device, loc);
}
Tensor ones(std::vector<SymInt> sizes, DType dtype, SourceLoc loc) {
  return ones(std::move(sizes), dtype, Device::cpu(), loc);
}
Tensor ones(std::vector<SymInt> sizes, DType dtype, Device device, SourceLoc loc) {
  return call_factory(OpKind::ones, {std::move(sizes), dtype}, device, loc);
}
Tensor randn(std::vector<SymInt> sizes, std::uint64_t seed, DType dtype, SourceLoc loc) {
  return randn(std::move(sizes), seed, dtype, Device::cpu(), loc);
}
Tensor randn(std::vector<SymInt> sizes, std::uint64_t seed, DType dtype, Device device,
             SourceLoc loc) {
  return call_factory(OpKind::randn,
                      {std::move(sizes), SymInt(static_cast<std::int64_t>(seed)), dtype}, device,
                      loc);
}

Tensor rand(std::vector<SymInt> sizes, std::uint64_t seed, SymInt offset, DType dtype,
            SourceLoc loc) {
  return rand(std::move(sizes), seed, std::move(offset), dtype, Device::cpu(), loc);
}
Tensor rand(std::vector<SymInt> sizes, std::uint64_t seed, SymInt offset, DType dtype,
            Device device, SourceLoc loc) {
  return call_factory(
      OpKind::rand,
      {std::move(sizes), SymInt(static_cast<std::int64_t>(seed)), std::move(offset), dtype}, device,
      loc);
}
Tensor rand(std::vector<SymInt> sizes, DType dtype, SourceLoc loc) {
  std::int64_t count = 1;
  for (const SymInt& s : sizes) {
    count *= s.hint();
  }
  const RandomState state =
      take_random_offsets(static_cast<std::uint64_t>(std::max<std::int64_t>(count, 0)));
  const GeneratorDrawScope drawing;
  return rand(std::move(sizes), state.seed, SymInt(static_cast<std::int64_t>(state.offset)), dtype,
              loc);
}

// PyTorch's default seed of its CPU generator.
constexpr std::uint64_t kDefaultSeed = 67280421310721ULL;

namespace {
std::mutex g_random_mutex;
RandomState g_random_state{kDefaultSeed, 0};
} // namespace

bool dispatching_generator_draw() noexcept {
  return t_generator_draw;
}

void manual_seed(std::uint64_t seed) {
  set_random_state({seed, 0});
}
RandomState random_state() {
  const std::lock_guard lock(g_random_mutex);
  return g_random_state;
}
void set_random_state(RandomState state) {
  const std::lock_guard lock(g_random_mutex);
  g_random_state = state;
}
RandomState take_random_offsets(std::uint64_t count) {
  const std::lock_guard lock(g_random_mutex);
  const RandomState before = g_random_state;
  g_random_state.offset += count;
  return before;
}

Tensor to(const Tensor& x, Device device, SourceLoc loc) {
  return call_tensor(OpKind::to, {x, resolved(device, loc)}, loc);
}

Tensor silu(const Tensor& x, SourceLoc loc) {
  return call_tensor(OpKind::silu, {x}, loc);
}
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, SourceLoc loc) {
  return call_tensor(OpKind::addmm, {bias, a, b}, loc);
}

double item(const Tensor& x, SourceLoc loc) {
  const Value args[] = {x};
  const Value result = dispatch(OpKind::item, args, loc);
  CallSiteScope site(loc);
  return value_double(result);
}

bool to_bool(const Tensor& x, SourceLoc loc) {
  const Value args[] = {x};
  const Value result = dispatch(OpKind::to_bool, args, loc);
  CallSiteScope site(loc);
  return value_bool(result);
}

} // namespace compiler
