// Convolution (1-D and 2-D, PyTorch's aten.convolution), its backward, 2-D max and average
// pooling with their backwards, adaptive average pooling and group norm: eager kernels and meta
// functions sharing one plan per family, so both check arguments and compute shapes alike.
//
// Convolution runs im2col + a matrix product per (image, group): float32 the project's blocked
// GEMM (kernels/gemm.h, threaded), float64 the matrix loop of matmul.cpp (matmul.h)
// with the (image, group) pairs split across parallel_for; a 1x1 kernel with stride 1 and no
// padding reads the input as its own column matrix. A 1-D convolution is the 2-D one with a height
// of 1. Pooling and group norm loop directly over each (image, channel) plane, planes in parallel.
#include "kernels/copy.h"
#include "kernels/element.h"
#include "kernels/gemm.h"
#include "kernels/kernels.h"
#include "kernels/matmul.h"
#include "kernels/parallel.h"
#include "kernels/shape_util.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace compiler::kernels {

namespace {

std::string ints_string(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    s += (i > 0 ? ", " : "") + std::to_string(v[i]);
  }
  return s + "]";
}

std::string sizes_string(const Tensor& t) {
  return shape_string(t.sym_sizes());
}

const char* torch_type_name(DType t) {
  switch (t) {
  case DType::Float32:
    return "float";
  case DType::Float64:
    return "double";
  case DType::Float16:
    return "c10::Half";
  case DType::BFloat16:
    return "c10::BFloat16";
  case DType::Int32:
    return "int";
  case DType::Int64:
    return "long";
  case DType::Bool:
    return "bool";
  }
  return "?";
}

template <class F>
void visit_float(DType compute, F&& f) {
  if (compute == DType::Float64) {
    f(double{});
  } else {
    f(float{});
  }
}

// ---- convolution
// convolution: {input, weight, bias|None, int[] stride, int[] padding, int[] dilation,
//               bool transposed, int[] output_padding, SymInt groups}
// convolution_backward: {grad_output, input, weight, int[] bias_sizes, int[] stride,
//               int[] padding, int[] dilation, bool transposed, int[] output_padding,
//               SymInt groups, int[] output_mask}

struct ConvPlan {
  std::int64_t spatial = 2; // 1 or 2
  std::int64_t groups = 1;
  std::array<std::int64_t, 2> stride{1, 1}, padding{0, 0}, dilation{1, 1}; // (h, w)
  std::vector<SymInt> out_sizes;
  DType dtype = DType::Float32;
};

// Reads a per-spatial-dim list into (h, w): a 1-D convolution's single value is the width's.
std::array<std::int64_t, 2> spatial_pair(const std::vector<std::int64_t>& v, std::int64_t spatial,
                                         std::int64_t fill, const char* what) {
  if (static_cast<std::int64_t>(v.size()) != spatial) {
    user_error(std::string("convolution: expected ") + what + " to have " +
               std::to_string(spatial) + " elements, got " + ints_string(v));
  }
  return spatial == 1 ? std::array<std::int64_t, 2>{fill, v[0]}
                      : std::array<std::int64_t, 2>{v[0], v[1]};
}

ConvPlan plan_convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                          std::span<const Value> params) {
  // params: stride, padding, dilation, transposed, output_padding, groups
  if (value_bool(params[3])) {
    user_error("convolution: transposed convolution is not supported");
  }
  ConvPlan p;
  if (weight.dim() != 3 && weight.dim() != 4) {
    user_error("convolution: only 1-D and 2-D convolutions are supported (a 3-D or 4-D weight), "
               "got weight of size " +
               sizes_string(weight));
  }
  p.spatial = weight.dim() - 2;
  const auto& stride = value_ints(params[0]);
  const auto& padding = value_ints(params[1]);
  const auto& dilation = value_ints(params[2]);
  p.groups = value_int(params[5]);
  for (std::int64_t s : stride) {
    if (s <= 0) {
      user_error("convolution: non-positive stride is not supported");
    }
  }
  for (std::int64_t s : padding) {
    if (s < 0) {
      user_error("convolution: negative padding is not supported");
    }
  }
  for (std::int64_t s : dilation) {
    if (s <= 0) {
      user_error("convolution: dilation should be greater than zero");
    }
  }
  if (p.groups <= 0) {
    user_error("convolution: non-positive groups is not supported");
  }
  p.stride = spatial_pair(stride, p.spatial, 1, "stride");
  p.padding = spatial_pair(padding, p.spatial, 0, "padding");
  p.dilation = spatial_pair(dilation, p.spatial, 1, "dilation");
  if (input.dim() != weight.dim()) {
    user_error("convolution: Expected " + std::to_string(weight.dim()) + "-dimensional input for " +
               std::to_string(weight.dim()) + "-dimensional weight " + sizes_string(weight) +
               ", but got " + std::to_string(input.dim()) + "-dimensional input of size " +
               sizes_string(input) + " instead");
  }
  const std::vector<SymInt>& xs = input.sym_sizes();
  const std::vector<SymInt>& ws = weight.sym_sizes();
  if (ws[0].hint() % p.groups != 0) {
    user_error("convolution: Given groups=" + std::to_string(p.groups) +
               ", expected weight to be divisible by " + std::to_string(p.groups) +
               " at dimension 0, but got weight of size " + sizes_string(weight) + " instead");
  }
  if (!sym_equal(xs[1], ws[1] * SymInt(p.groups))) {
    user_error("convolution: Given groups=" + std::to_string(p.groups) + ", weight of size " +
               sizes_string(weight) + ", expected input" + sizes_string(input) + " to have " +
               std::to_string(ws[1].hint() * p.groups) + " channels, but got " +
               std::to_string(xs[1].hint()) + " channels instead");
  }
  if (bias.defined() && (bias.dim() != 1 || !sym_equal(bias.sym_sizes()[0], ws[0]))) {
    user_error("convolution: Given weight of size " + sizes_string(weight) +
               ", expected bias to be 1-dimensional with " + std::to_string(ws[0].hint()) +
               " elements, but got bias of size " + sizes_string(bias) + " instead");
  }
  if (!is_floating(input.dtype())) {
    user_error(std::string("convolution: expected a floating input, got ") +
               std::string(dtype_name(input.dtype())));
  }
  if (input.dtype() != weight.dtype()) {
    user_error(std::string("convolution: Input type (") + torch_type_name(input.dtype()) +
               ") and weight type (" + torch_type_name(weight.dtype()) + ") should be the same");
  }
  if (bias.defined() && bias.dtype() != input.dtype()) {
    user_error(std::string("convolution: Input type (") + torch_type_name(input.dtype()) +
               ") and bias type (" + torch_type_name(bias.dtype()) + ") should be the same");
  }
  p.dtype = input.dtype();
  // Output sizes, and the padded input must hold one (dilated) kernel.
  p.out_sizes = {xs[0], ws[0]};
  std::string padded;
  std::string kernel;
  bool too_small = false;
  for (std::int64_t d = 0; d < p.spatial; ++d) {
    const std::size_t i = static_cast<std::size_t>(2 + d);
    const std::size_t pd = static_cast<std::size_t>(p.spatial == 1 ? 1 : d);
    const SymInt padded_size = xs[i] + SymInt(2 * p.padding[pd]);
    const SymInt extent = SymInt(p.dilation[pd]) * (ws[i] - SymInt(1)) + SymInt(1);
    padded += (d > 0 ? " x " : "") + std::to_string(padded_size.hint());
    kernel += (d > 0 ? " x " : "") + std::to_string(extent.hint());
    if (padded_size < extent) {
      too_small = true;
    }
    p.out_sizes.push_back((padded_size - extent) / SymInt(p.stride[pd]) + SymInt(1));
  }
  if (too_small) {
    user_error("convolution: Calculated padded input size per channel: (" + padded +
               "). Kernel size: (" + kernel +
               "). Kernel size can't be greater than actual input size");
  }
  return p;
}

// Concrete 2-D geometry of one convolution (a 1-D one has height 1).
struct ConvGeometry {
  std::int64_t batch, channels, height, width;   // input
  std::int64_t out_channels, kernel_h, kernel_w; // weight
  std::int64_t out_h, out_w;                     // output
  std::int64_t groups, sh, sw, ph, pw, dh, dw;
  std::int64_t group_in() const { return channels / groups; }
  std::int64_t group_out() const { return out_channels / groups; }
  std::int64_t k() const { return group_in() * kernel_h * kernel_w; } // rows of a column matrix
  std::int64_t l() const { return out_h * out_w; }                    // its columns
  bool pointwise() const {
    return kernel_h == 1 && kernel_w == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
  }
};

ConvGeometry geometry(const ConvPlan& p, const Tensor& input, const Tensor& weight) {
  const auto& x = input.sizes();
  const auto& w = weight.sizes();
  const bool one_d = p.spatial == 1;
  ConvGeometry g{};
  g.batch = x[0];
  g.channels = x[1];
  g.height = one_d ? 1 : x[2];
  g.width = one_d ? x[2] : x[3];
  g.out_channels = w[0];
  g.kernel_h = one_d ? 1 : w[2];
  g.kernel_w = one_d ? w[2] : w[3];
  g.out_h = one_d ? 1 : p.out_sizes[2].hint();
  g.out_w = one_d ? p.out_sizes[2].hint() : p.out_sizes[3].hint();
  g.groups = p.groups;
  g.sh = p.stride[0];
  g.sw = p.stride[1];
  g.ph = p.padding[0];
  g.pw = p.padding[1];
  g.dh = p.dilation[0];
  g.dw = p.dilation[1];
  return g;
}

// The column matrix of one image's group: cols[(c, i, j), (oh, ow)] = x[c, oh*sh - ph + i*dh,
// ow*sw - pw + j*dw] (0 in the padding); `plane` points at the group's first channel.
template <class C>
void im2col(const ConvGeometry& g, const C* plane, C* cols) {
  const std::int64_t l = g.l();
  for (std::int64_t c = 0; c < g.group_in(); ++c) {
    const C* xc = plane + c * g.height * g.width;
    for (std::int64_t i = 0; i < g.kernel_h; ++i) {
      for (std::int64_t j = 0; j < g.kernel_w; ++j) {
        C* row = cols + ((c * g.kernel_h + i) * g.kernel_w + j) * l;
        for (std::int64_t oh = 0; oh < g.out_h; ++oh) {
          C* dst = row + oh * g.out_w;
          const std::int64_t ih = oh * g.sh - g.ph + i * g.dh;
          if (ih < 0 || ih >= g.height) {
            std::fill(dst, dst + g.out_w, C{0});
            continue;
          }
          const C* src = xc + ih * g.width;
          for (std::int64_t ow = 0; ow < g.out_w; ++ow) {
            const std::int64_t iw = ow * g.sw - g.pw + j * g.dw;
            dst[ow] = iw >= 0 && iw < g.width ? src[iw] : C{0};
          }
        }
      }
    }
  }
}

// The transpose of im2col's matrix: colsT[(oh, ow), (c, i, j)].
template <class C>
void im2col_transposed(const ConvGeometry& g, const C* plane, C* cols_t) {
  const std::int64_t k = g.k();
  for (std::int64_t oh = 0; oh < g.out_h; ++oh) {
    for (std::int64_t ow = 0; ow < g.out_w; ++ow) {
      C* dst = cols_t + (oh * g.out_w + ow) * k;
      for (std::int64_t c = 0; c < g.group_in(); ++c) {
        const C* xc = plane + c * g.height * g.width;
        for (std::int64_t i = 0; i < g.kernel_h; ++i) {
          const std::int64_t ih = oh * g.sh - g.ph + i * g.dh;
          for (std::int64_t j = 0; j < g.kernel_w; ++j) {
            const std::int64_t iw = ow * g.sw - g.pw + j * g.dw;
            const bool inside = ih >= 0 && ih < g.height && iw >= 0 && iw < g.width;
            *dst++ = inside ? xc[ih * g.width + iw] : C{0};
          }
        }
      }
    }
  }
}

// Adds a column matrix back onto the input positions it was read from (im2col's adjoint).
template <class C>
void col2im_add(const ConvGeometry& g, const C* cols, C* plane) {
  const std::int64_t l = g.l();
  for (std::int64_t c = 0; c < g.group_in(); ++c) {
    C* xc = plane + c * g.height * g.width;
    for (std::int64_t i = 0; i < g.kernel_h; ++i) {
      for (std::int64_t j = 0; j < g.kernel_w; ++j) {
        const C* row = cols + ((c * g.kernel_h + i) * g.kernel_w + j) * l;
        for (std::int64_t oh = 0; oh < g.out_h; ++oh) {
          const std::int64_t ih = oh * g.sh - g.ph + i * g.dh;
          if (ih < 0 || ih >= g.height) {
            continue;
          }
          C* dst = xc + ih * g.width;
          const C* src = row + oh * g.out_w;
          for (std::int64_t ow = 0; ow < g.out_w; ++ow) {
            const std::int64_t iw = ow * g.sw - g.pw + j * g.dw;
            if (iw >= 0 && iw < g.width) {
              dst[iw] += src[ow];
            }
          }
        }
      }
    }
  }
}

// (image, group) items per parallel_for chunk: enough multiply-adds to be worth a thread.
std::int64_t conv_grain(const ConvGeometry& g) {
  return std::max<std::int64_t>(1, kDefaultGrain /
                                       std::max<std::int64_t>(g.group_out() * g.k() * g.l(), 1));
}

// out[m, n] = a[m, k] @ b[k, n], row-major and contiguous. float32 runs the project's blocked
// GEMM (kernels/gemm.h, the extern kernel behind compiled matmuls, threaded over its
// own pool); float64 the matrix loop of matmul.cpp on the calling thread.
template <class C>
void matrix_product(const C* a, const C* b, C* out, std::int64_t m, std::int64_t k,
                    std::int64_t n) {
  if constexpr (std::is_same_v<C, float>) {
    inductor::sgemm(m, n, k, {a, k, 1}, {b, n, 1}, out, n, nullptr);
  } else {
    matmul_rows<C>(a, b, out, m, k, n, 0, m);
  }
}

// Calls fn(item) for every (image, group) item: float32 one item at a time (its GEMM is
// threaded), float64 with items split across parallel_for.
template <class C, class F>
void for_each_item(const ConvGeometry& g, F&& fn) {
  const std::int64_t items = g.batch * g.groups;
  if constexpr (std::is_same_v<C, float>) {
    for (std::int64_t item = 0; item < items; ++item) {
      fn(item);
    }
  } else {
    parallel_for(items, conv_grain(g), [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t item = begin; item < end; ++item) {
        fn(item);
      }
    });
  }
}

template <class C>
void conv_forward(const ConvGeometry& g, const C* x, const C* w, const C* bias, C* out) {
  const std::int64_t k = g.k();
  const std::int64_t l = g.l();
  const std::int64_t go = g.group_out();
  for_each_item<C>(g, [&](std::int64_t item) {
    std::vector<C> cols(g.pointwise() ? 0 : static_cast<std::size_t>(k * l));
    const std::int64_t n = item / g.groups;
    const std::int64_t grp = item % g.groups;
    const C* plane = x + (n * g.channels + grp * g.group_in()) * g.height * g.width;
    const C* matrix = plane;
    if (!g.pointwise()) {
      im2col(g, plane, cols.data());
      matrix = cols.data();
    }
    C* dst = out + (n * g.out_channels + grp * go) * l;
    matrix_product<C>(w + grp * go * k, matrix, dst, go, k, l);
    if (bias != nullptr) {
      for (std::int64_t o = 0; o < go; ++o) {
        const C b = bias[grp * go + o];
        for (std::int64_t i = 0; i < l; ++i) {
          dst[o * l + i] += b;
        }
      }
    }
  });
}

// grad_input[n, group] = col2im(W_group^T @ grad_output[n, group]).
template <class C>
void conv_grad_input(const ConvGeometry& g, const C* grad, const C* w, C* grad_input) {
  const std::int64_t k = g.k();
  const std::int64_t l = g.l();
  const std::int64_t go = g.group_out();
  std::vector<C> w_t(static_cast<std::size_t>(g.groups * k * go)); // per group [k, go]
  for (std::int64_t grp = 0; grp < g.groups; ++grp) {
    for (std::int64_t o = 0; o < go; ++o) {
      for (std::int64_t r = 0; r < k; ++r) {
        w_t[static_cast<std::size_t>((grp * k + r) * go + o)] = w[(grp * go + o) * k + r];
      }
    }
  }
  for_each_item<C>(g, [&](std::int64_t item) {
    std::vector<C> cols(g.pointwise() ? 0 : static_cast<std::size_t>(k * l));
    const std::int64_t n = item / g.groups;
    const std::int64_t grp = item % g.groups;
    const C* gout = grad + (n * g.out_channels + grp * go) * l;
    C* plane = grad_input + (n * g.channels + grp * g.group_in()) * g.height * g.width;
    if (g.pointwise()) {
      matrix_product<C>(w_t.data() + grp * k * go, gout, plane, k, go, l);
      return;
    }
    matrix_product<C>(w_t.data() + grp * k * go, gout, cols.data(), k, go, l);
    col2im_add(g, cols.data(), plane);
  });
}

// grad_weight[group] = sum over images of grad_output[n, group] @ cols[n, group]^T; each image's
// product is its own buffer, summed in image order so the result never depends on the split.
template <class C>
void conv_grad_weight(const ConvGeometry& g, const C* grad, const C* x, C* grad_weight) {
  const std::int64_t k = g.k();
  const std::int64_t l = g.l();
  const std::int64_t go = g.group_out();
  const std::int64_t per_image = g.out_channels * k;
  if constexpr (std::is_same_v<C, float>) {
    // Images in order, each GEMM adding the previous images' sum as its bias (two buffers in
    // turn): grad_output[n, group] [go, l] @ cols^T, cols [k, l] read transposed by strides.
    std::vector<float> sums[2] = {std::vector<float>(static_cast<std::size_t>(per_image)),
                                  std::vector<float>(static_cast<std::size_t>(per_image))};
    std::vector<float> cols(g.pointwise() ? 0 : static_cast<std::size_t>(k * l));
    for (std::int64_t n = 0; n < g.batch; ++n) {
      float* into = sums[n % 2].data();
      const float* before = sums[(n + 1) % 2].data();
      for (std::int64_t grp = 0; grp < g.groups; ++grp) {
        const float* plane = x + (n * g.channels + grp * g.group_in()) * g.height * g.width;
        const float* matrix = plane;
        if (!g.pointwise()) {
          im2col(g, plane, cols.data());
          matrix = cols.data();
        }
        const float* gout = grad + (n * g.out_channels + grp * go) * l;
        const inductor::MatrixView bias{before + grp * go * k, k, 1};
        inductor::sgemm(go, k, l, {gout, l, 1}, {matrix, 1, l}, into + grp * go * k, k,
                        n > 0 ? &bias : nullptr);
      }
    }
    const std::vector<float>& total = sums[(g.batch + 1) % 2];
    std::copy(total.begin(), total.end(), grad_weight);
    return;
  }
  std::vector<C> partial(static_cast<std::size_t>(g.batch * per_image));
  for_each_item<C>(g, [&](std::int64_t item) {
    std::vector<C> cols_t(static_cast<std::size_t>(l * k));
    const std::int64_t n = item / g.groups;
    const std::int64_t grp = item % g.groups;
    const C* plane = x + (n * g.channels + grp * g.group_in()) * g.height * g.width;
    im2col_transposed(g, plane, cols_t.data());
    const C* gout = grad + (n * g.out_channels + grp * go) * l;
    matrix_product<C>(gout, cols_t.data(), partial.data() + n * per_image + grp * go * k, go, l, k);
  });
  parallel_for(per_image, 4096, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      double total = 0;
      for (std::int64_t n = 0; n < g.batch; ++n) {
        total += static_cast<double>(partial[static_cast<std::size_t>(n * per_image + i)]);
      }
      grad_weight[i] = static_cast<C>(total);
    }
  });
}

struct ConvBackwardArgs {
  const Tensor& grad;
  const Tensor& input;
  const Tensor& weight;
  ConvPlan plan;
  int which = 0; // 0 input, 1 weight, 2 bias
};

ConvBackwardArgs plan_convolution_backward(std::span<const Value> args) {
  const Tensor& grad = tensor_arg(args, 0);
  const Tensor& input = tensor_arg(args, 1);
  const Tensor& weight = tensor_arg(args, 2);
  (void)value_ints(arg(args, 3));
  ConvBackwardArgs b{grad, input, weight,
                     plan_convolution(input, weight, Tensor(), args.subspan(4, 6))};
  const auto& mask = value_ints(arg(args, 10));
  if (mask.size() != 3 || mask[0] + mask[1] + mask[2] != 1) {
    user_error("convolution_backward: output_mask must pick exactly one of grad_input, "
               "grad_weight and grad_bias (the op returns one tensor), got " +
               ints_string(mask));
  }
  b.which = mask[0] != 0 ? 0 : mask[1] != 0 ? 1 : 2;
  const std::vector<SymInt>& gs = grad.sym_sizes();
  bool same = gs.size() == b.plan.out_sizes.size();
  for (std::size_t i = 0; same && i < gs.size(); ++i) {
    same = sym_equal(gs[i], b.plan.out_sizes[i]);
  }
  if (!same) {
    user_error("convolution_backward: grad_output of size " + sizes_string(grad) +
               " does not match the convolution's output size " + shape_string(b.plan.out_sizes));
  }
  if (grad.dtype() != input.dtype()) {
    user_error(std::string("convolution_backward: grad_output type (") +
               torch_type_name(grad.dtype()) + ") and input type (" +
               torch_type_name(input.dtype()) + ") should be the same");
  }
  return b;
}

// ---- pooling
// max_pool2d: {x, int[] kernel_size, int[] stride, int[] padding, int[] dilation, bool ceil_mode}
// avg_pool2d: {x, int[] kernel_size, int[] stride, int[] padding, bool ceil_mode,
//              bool count_include_pad}
// max_pool2d_backward / avg_pool2d_backward: {grad_output, x, then the forward's arguments}

struct PoolPlan {
  std::int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::vector<SymInt> out_sizes;
};

std::array<std::int64_t, 2> pool_pair(const std::vector<std::int64_t>& v, const char* op,
                                      const char* what, bool may_be_empty,
                                      std::array<std::int64_t, 2> empty_value) {
  if (v.empty() && may_be_empty) {
    return empty_value;
  }
  if (v.size() == 1) {
    return {v[0], v[0]};
  }
  if (v.size() == 2) {
    return {v[0], v[1]};
  }
  user_error(std::string(op) + ": " + what + " must " +
             (may_be_empty ? "either be omitted, a single int, or a tuple of two ints"
                           : "either be a single int, or a tuple of two ints"));
}

// PyTorch's pooling_output_shape: floor or ceil division, and a ceil-mode window must start
// inside the input or its left padding.
SymInt pooled_size(const SymInt& in, std::int64_t k, std::int64_t pad, std::int64_t stride,
                   std::int64_t dilation, bool ceil_mode) {
  const SymInt numerator =
      in + SymInt(2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0));
  // Floor division of a possibly negative numerator (an output size below 1 is refused next).
  const std::int64_t nh = numerator.hint();
  SymInt out =
      nh >= 0 ? numerator / SymInt(stride) + SymInt(1) : SymInt(-((-nh + stride - 1) / stride) + 1);
  if (ceil_mode && (out - SymInt(1)) * SymInt(stride) >= in + SymInt(pad)) {
    out = out - SymInt(1);
  }
  return out;
}

PoolPlan plan_pool(const Tensor& x, std::span<const Value> params, bool max, const char* op) {
  PoolPlan p;
  const auto kernel = pool_pair(value_ints(params[0]), op, "kernel_size", false, {1, 1});
  const auto stride = pool_pair(value_ints(params[1]), op, "stride", true, kernel);
  const auto padding = pool_pair(value_ints(params[2]), op, "padding", false, {0, 0});
  std::array<std::int64_t, 2> dilation{1, 1};
  if (max) {
    dilation = pool_pair(value_ints(params[3]), op, "dilation", false, {1, 1});
    p.ceil_mode = value_bool(params[4]);
  } else {
    p.ceil_mode = value_bool(params[3]);
    p.count_include_pad = value_bool(params[4]);
  }
  p.kh = kernel[0];
  p.kw = kernel[1];
  p.sh = stride[0];
  p.sw = stride[1];
  p.ph = padding[0];
  p.pw = padding[1];
  p.dh = dilation[0];
  p.dw = dilation[1];
  if (p.kh <= 0 || p.kw <= 0) {
    user_error(std::string(op) + ": kernel size should be greater than zero, but got kH: " +
               std::to_string(p.kh) + " kW: " + std::to_string(p.kw));
  }
  if (p.sh <= 0 || p.sw <= 0) {
    user_error(std::string(op) + ": stride should be greater than zero, but got dH: " +
               std::to_string(p.sh) + " dW: " + std::to_string(p.sw));
  }
  if (p.dh <= 0 || p.dw <= 0) {
    user_error(std::string(op) + ": dilation should be greater than zero, but got dilationH: " +
               std::to_string(p.dh) + " dilationW: " + std::to_string(p.dw));
  }
  const std::vector<SymInt>& xs = x.sym_sizes();
  bool empty = x.dim() != 3 && x.dim() != 4;
  for (std::int64_t d = x.dim() == 4 ? 1 : 0; !empty && d < x.dim(); ++d) {
    empty = is_concrete(xs[static_cast<std::size_t>(d)], 0);
  }
  if (empty) {
    user_error(std::string(op) +
               ": Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
               "input, but got: " +
               sizes_string(x));
  }
  if (p.ph > p.kh / 2 || p.pw > p.kw / 2) {
    user_error(std::string(op) +
               ": pad should be smaller than or equal to half of kernel size, but got padW = " +
               std::to_string(p.pw) + ", padH = " + std::to_string(p.ph) +
               ", kW = " + std::to_string(p.kw) + ", kH = " + std::to_string(p.kh));
  }
  if (!is_floating(x.dtype())) {
    user_error(std::string(op) + ": expected a floating input, got " +
               std::string(dtype_name(x.dtype())));
  }
  const std::size_t hd = xs.size() - 2;
  const SymInt oh = pooled_size(xs[hd], p.kh, p.ph, p.sh, p.dh, p.ceil_mode);
  const SymInt ow = pooled_size(xs[hd + 1], p.kw, p.pw, p.sw, p.dw, p.ceil_mode);
  if (oh.hint() < 1 || ow.hint() < 1) {
    user_error(std::string(op) + ": Given input size: (" + xs[hd - 1].to_string() + "x" +
               xs[hd].to_string() + "x" + xs[hd + 1].to_string() + "). Calculated output size: (" +
               xs[hd - 1].to_string() + "x" + oh.to_string() + "x" + ow.to_string() +
               "). Output size is too small");
  }
  p.out_sizes.assign(xs.begin(), xs.end() - 2);
  p.out_sizes.push_back(oh);
  p.out_sizes.push_back(ow);
  return p;
}

void check_pool_grad(const Tensor& grad, const PoolPlan& p, const char* op) {
  const std::vector<SymInt>& gs = grad.sym_sizes();
  bool same = gs.size() == p.out_sizes.size();
  for (std::size_t i = 0; same && i < gs.size(); ++i) {
    same = sym_equal(gs[i], p.out_sizes[i]);
  }
  if (!same) {
    user_error(std::string(op) + ": grad_output of size " + sizes_string(grad) +
               " does not match the pooling's output size " + shape_string(p.out_sizes));
  }
}

struct PoolShape {
  std::int64_t planes, h, w, oh, ow;
};

PoolShape pool_shape(const Tensor& x, const PoolPlan& p) {
  const auto& s = x.sizes();
  const std::size_t hd = s.size() - 2;
  PoolShape r{};
  r.planes = product(std::span<const std::int64_t>(s.data(), hd));
  r.h = s[hd];
  r.w = s[hd + 1];
  r.oh = p.out_sizes[hd].hint();
  r.ow = p.out_sizes[hd + 1].hint();
  return r;
}

// The flat input position (ih * w + iw) whose value max pooling picks for output (oh, ow):
// the first maximum scanning the window row by row, a NaN taking over as PyTorch's CPU kernel
// does (`val > max || isnan(val)`); the window's first position when every value is -inf.
template <class C>
std::int64_t window_argmax(const C* plane, const PoolShape& s, const PoolPlan& p, std::int64_t oh,
                           std::int64_t ow, C* max_out) {
  std::int64_t h0 = oh * p.sh - p.ph;
  std::int64_t w0 = ow * p.sw - p.pw;
  const std::int64_t h1 = std::min(h0 + (p.kh - 1) * p.dh + 1, s.h);
  const std::int64_t w1 = std::min(w0 + (p.kw - 1) * p.dw + 1, s.w);
  while (h0 < 0) {
    h0 += p.dh;
  }
  while (w0 < 0) {
    w0 += p.dw;
  }
  std::int64_t best = h0 * s.w + w0;
  C max = -std::numeric_limits<C>::infinity();
  for (std::int64_t ih = h0; ih < h1; ih += p.dh) {
    for (std::int64_t iw = w0; iw < w1; iw += p.dw) {
      const C v = plane[ih * s.w + iw];
      if (v > max || std::isnan(v)) {
        max = v;
        best = ih * s.w + iw;
      }
    }
  }
  *max_out = max;
  return best;
}

// Average pooling's window of output (oh, ow), clipped to the input, and its divisor.
struct AvgWindow {
  std::int64_t h0, h1, w0, w1, divisor;
};

AvgWindow avg_window(const PoolShape& s, const PoolPlan& p, std::int64_t oh, std::int64_t ow) {
  std::int64_t h0 = oh * p.sh - p.ph;
  std::int64_t w0 = ow * p.sw - p.pw;
  std::int64_t h1 = std::min(h0 + p.kh, s.h + p.ph);
  std::int64_t w1 = std::min(w0 + p.kw, s.w + p.pw);
  const std::int64_t padded_count = (h1 - h0) * (w1 - w0);
  h0 = std::max<std::int64_t>(h0, 0);
  w0 = std::max<std::int64_t>(w0, 0);
  h1 = std::min(h1, s.h);
  w1 = std::min(w1, s.w);
  const std::int64_t divisor = p.count_include_pad ? padded_count : (h1 - h0) * (w1 - w0);
  return {h0, h1, w0, w1, divisor};
}

Tensor pool_eager(const Tensor& x, const PoolPlan& p, bool max, const char* op) {
  require_real(x, op);
  const DType compute = compute_type(x.dtype());
  const Tensor in = contiguous_as(x, compute);
  Tensor out = make_overwritten_output(p.out_sizes, compute);
  const PoolShape s = pool_shape(x, p);
  const std::int64_t grain = std::max<std::int64_t>(
      1, kDefaultGrain / std::max<std::int64_t>(s.oh * s.ow * p.kh * p.kw, 1));
  visit_float(compute, [&](auto zero) {
    using C = decltype(zero);
    const C* xp = static_cast<const C*>(in.raw_data());
    C* op_ = static_cast<C*>(out.raw_data());
    parallel_for(s.planes, grain, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t plane = begin; plane < end; ++plane) {
        const C* xpl = xp + plane * s.h * s.w;
        C* opl = op_ + plane * s.oh * s.ow;
        for (std::int64_t oh = 0; oh < s.oh; ++oh) {
          for (std::int64_t ow = 0; ow < s.ow; ++ow) {
            if (max) {
              C m{};
              (void)window_argmax(xpl, s, p, oh, ow, &m);
              opl[oh * s.ow + ow] = m;
              continue;
            }
            const AvgWindow win = avg_window(s, p, oh, ow);
            double total = 0;
            for (std::int64_t ih = win.h0; ih < win.h1; ++ih) {
              for (std::int64_t iw = win.w0; iw < win.w1; ++iw) {
                total += static_cast<double>(xpl[ih * s.w + iw]);
              }
            }
            opl[oh * s.ow + ow] = win.h0 >= win.h1 || win.w0 >= win.w1
                                      ? C{0}
                                      : static_cast<C>(total / static_cast<double>(win.divisor));
          }
        }
      }
    });
  });
  return to_result(std::move(out), x.dtype());
}

Tensor pool_backward_eager(const Tensor& grad, const Tensor& x, const PoolPlan& p, bool max,
                           const char* op) {
  require_real(grad, op);
  require_real(x, op);
  const DType compute = compute_type(x.dtype());
  const Tensor in = contiguous_as(x, compute);
  const Tensor g = contiguous_as(grad, compute);
  Tensor out = make_output(x.sym_sizes(), compute, false);
  const PoolShape s = pool_shape(x, p);
  visit_float(compute, [&](auto zero) {
    using C = decltype(zero);
    const C* xp = static_cast<const C*>(in.raw_data());
    const C* gp = static_cast<const C*>(g.raw_data());
    C* op_ = static_cast<C*>(out.raw_data());
    const std::int64_t grain = std::max<std::int64_t>(
        1, kDefaultGrain / std::max<std::int64_t>(s.oh * s.ow * p.kh * p.kw, 1));
    parallel_for(s.planes, grain, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t plane = begin; plane < end; ++plane) {
        const C* xpl = xp + plane * s.h * s.w;
        const C* gpl = gp + plane * s.oh * s.ow;
        C* opl = op_ + plane * s.h * s.w;
        for (std::int64_t oh = 0; oh < s.oh; ++oh) {
          for (std::int64_t ow = 0; ow < s.ow; ++ow) {
            const C go = gpl[oh * s.ow + ow];
            if (max) {
              C m{};
              opl[window_argmax(xpl, s, p, oh, ow, &m)] += go;
              continue;
            }
            const AvgWindow win = avg_window(s, p, oh, ow);
            const C share = go / static_cast<C>(win.divisor);
            for (std::int64_t ih = win.h0; ih < win.h1; ++ih) {
              for (std::int64_t iw = win.w0; iw < win.w1; ++iw) {
                opl[ih * s.w + iw] += share;
              }
            }
          }
        }
      }
    });
  });
  return to_result(std::move(out), x.dtype());
}

// ---- adaptive_avg_pool2d: {x, int[] output_size}

std::vector<SymInt> plan_adaptive(const Tensor& x, const std::vector<std::int64_t>& size) {
  if (size.size() != 2) {
    user_error("adaptive_avg_pool2d: output_size must be 2, got " + ints_string(size));
  }
  const std::vector<SymInt>& xs = x.sym_sizes();
  bool bad = x.dim() != 3 && x.dim() != 4;
  for (std::int64_t d = 1; !bad && d < x.dim(); ++d) {
    bad = is_concrete(xs[static_cast<std::size_t>(d)], 0);
  }
  if (bad) {
    user_error("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got " + sizes_string(x));
  }
  if (size[0] < 0 || size[1] < 0) {
    user_error("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
               "but received " +
               ints_string(size));
  }
  if (!is_floating(x.dtype())) {
    user_error("adaptive_avg_pool2d: expected a floating input, got " +
               std::string(dtype_name(x.dtype())));
  }
  std::vector<SymInt> out(xs.begin(), xs.end() - 2);
  out.emplace_back(size[0]);
  out.emplace_back(size[1]);
  return out;
}

// ---- group_norm: {x, SymInt num_groups, weight|None, bias|None, double eps}

std::int64_t plan_group_norm(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const std::int64_t groups = value_int(arg(args, 1));
  const Tensor weight = value_optional_tensor(arg(args, 2));
  const Tensor bias = value_optional_tensor(arg(args, 3));
  (void)value_double(arg(args, 4));
  if (x.dim() < 2) {
    user_error("group_norm: Expected at least 2 dimensions for input tensor but received " +
               std::to_string(x.dim()));
  }
  const SymInt& channels = x.sym_sizes()[1];
  if (groups <= 0 || channels.hint() % groups != 0) {
    user_error("group_norm: Expected number of channels in input to be divisible by num_groups, "
               "but got input of shape " +
               sizes_string(x) + " and num_groups=" + std::to_string(groups));
  }
  for (const Tensor* t : {&weight, &bias}) {
    if (t->defined() && (t->dim() != 1 || !sym_equal(t->sym_sizes()[0], channels))) {
      user_error(std::string("group_norm: Expected ") + (t == &weight ? "weight" : "bias") +
                 " to be a vector of size equal to the number of channels in input, but got " +
                 (t == &weight ? "weight" : "bias") + " of shape " + sizes_string(*t) +
                 " and input of shape " + sizes_string(x));
    }
  }
  if (!is_floating(x.dtype())) {
    user_error("group_norm: expected a floating input, got " + std::string(dtype_name(x.dtype())));
  }
  return groups;
}

} // namespace

Value eager_convolution(std::span<const Value> args) {
  const Tensor& input = tensor_arg(args, 0);
  const Tensor& weight = tensor_arg(args, 1);
  const Tensor bias = value_optional_tensor(arg(args, 2));
  const ConvPlan p = plan_convolution(input, weight, bias, args.subspan(3));
  require_real(input, "convolution");
  require_real(weight, "convolution");
  const DType compute = compute_type(p.dtype);
  const Tensor x = contiguous_as(input, compute);
  const Tensor w = contiguous_as(weight, compute);
  const Tensor b = bias.defined() ? contiguous_as(bias, compute) : Tensor();
  Tensor out = make_overwritten_output(p.out_sizes, compute);
  const ConvGeometry g = geometry(p, input, weight);
  visit_float(compute, [&](auto zero) {
    using C = decltype(zero);
    conv_forward<C>(g, static_cast<const C*>(x.raw_data()), static_cast<const C*>(w.raw_data()),
                    b.defined() ? static_cast<const C*>(b.raw_data()) : nullptr,
                    static_cast<C*>(out.raw_data()));
  });
  return to_result(std::move(out), p.dtype);
}

Value meta_convolution(std::span<const Value> args) {
  const Tensor& input = tensor_arg(args, 0);
  const ConvPlan p = plan_convolution(input, tensor_arg(args, 1),
                                      value_optional_tensor(arg(args, 2)), args.subspan(3));
  return make_output(p.out_sizes, p.dtype, true);
}

Value eager_convolution_backward(std::span<const Value> args) {
  const ConvBackwardArgs b = plan_convolution_backward(args);
  require_real(b.grad, "convolution_backward");
  const DType compute = compute_type(b.plan.dtype);
  const Tensor grad = contiguous_as(b.grad, compute);
  if (b.which == 2) {
    Tensor total = make_output({b.weight.sym_sizes()[0]}, compute, false);
    const std::int64_t channels = b.weight.sizes()[0];
    const std::int64_t plane = product(std::span<const std::int64_t>(grad.sizes()).subspan(2));
    visit_float(compute, [&](auto zero) {
      using C = decltype(zero);
      const C* gp = static_cast<const C*>(grad.raw_data());
      C* tp = static_cast<C*>(total.raw_data());
      for (std::int64_t c = 0; c < channels; ++c) {
        double acc = 0;
        for (std::int64_t n = 0; n < grad.sizes()[0]; ++n) {
          const C* src = gp + (n * channels + c) * plane;
          for (std::int64_t i = 0; i < plane; ++i) {
            acc += static_cast<double>(src[i]);
          }
        }
        tp[c] = static_cast<C>(acc);
      }
    });
    return to_result(std::move(total), b.plan.dtype);
  }
  const ConvGeometry g = geometry(b.plan, b.input, b.weight);
  if (b.which == 0) {
    require_real(b.weight, "convolution_backward");
    const Tensor w = contiguous_as(b.weight, compute);
    Tensor out = make_output(b.input.sym_sizes(), compute, false); // col2im adds into zeros
    visit_float(compute, [&](auto zero) {
      using C = decltype(zero);
      conv_grad_input<C>(g, static_cast<const C*>(grad.raw_data()),
                         static_cast<const C*>(w.raw_data()), static_cast<C*>(out.raw_data()));
    });
    return to_result(std::move(out), b.plan.dtype);
  }
  require_real(b.input, "convolution_backward");
  const Tensor x = contiguous_as(b.input, compute);
  Tensor out = make_overwritten_output(b.weight.sym_sizes(), compute);
  visit_float(compute, [&](auto zero) {
    using C = decltype(zero);
    conv_grad_weight<C>(g, static_cast<const C*>(grad.raw_data()),
                        static_cast<const C*>(x.raw_data()), static_cast<C*>(out.raw_data()));
  });
  return to_result(std::move(out), b.plan.dtype);
}

Value meta_convolution_backward(std::span<const Value> args) {
  const ConvBackwardArgs b = plan_convolution_backward(args);
  const std::vector<SymInt> sizes = b.which == 0   ? b.input.sym_sizes()
                                    : b.which == 1 ? b.weight.sym_sizes()
                                                   : std::vector<SymInt>{b.weight.sym_sizes()[0]};
  return make_output(sizes, b.plan.dtype, true);
}

Value eager_max_pool2d(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const PoolPlan p = plan_pool(x, args.subspan(1), true, "max_pool2d");
  return pool_eager(x, p, true, "max_pool2d");
}

Value meta_max_pool2d(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  return make_output(plan_pool(x, args.subspan(1), true, "max_pool2d").out_sizes, x.dtype(), true);
}

Value eager_max_pool2d_backward(std::span<const Value> args) {
  const Tensor& grad = tensor_arg(args, 0);
  const Tensor& x = tensor_arg(args, 1);
  const PoolPlan p = plan_pool(x, args.subspan(2), true, "max_pool2d_backward");
  check_pool_grad(grad, p, "max_pool2d_backward");
  return pool_backward_eager(grad, x, p, true, "max_pool2d_backward");
}

Value meta_max_pool2d_backward(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 1);
  const PoolPlan p = plan_pool(x, args.subspan(2), true, "max_pool2d_backward");
  check_pool_grad(tensor_arg(args, 0), p, "max_pool2d_backward");
  return make_output(x.sym_sizes(), x.dtype(), true);
}

Value eager_avg_pool2d(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const PoolPlan p = plan_pool(x, args.subspan(1), false, "avg_pool2d");
  return pool_eager(x, p, false, "avg_pool2d");
}

Value meta_avg_pool2d(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  return make_output(plan_pool(x, args.subspan(1), false, "avg_pool2d").out_sizes, x.dtype(), true);
}

Value eager_avg_pool2d_backward(std::span<const Value> args) {
  const Tensor& grad = tensor_arg(args, 0);
  const Tensor& x = tensor_arg(args, 1);
  const PoolPlan p = plan_pool(x, args.subspan(2), false, "avg_pool2d_backward");
  check_pool_grad(grad, p, "avg_pool2d_backward");
  return pool_backward_eager(grad, x, p, false, "avg_pool2d_backward");
}

Value meta_avg_pool2d_backward(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 1);
  const PoolPlan p = plan_pool(x, args.subspan(2), false, "avg_pool2d_backward");
  check_pool_grad(tensor_arg(args, 0), p, "avg_pool2d_backward");
  return make_output(x.sym_sizes(), x.dtype(), true);
}

Value eager_adaptive_avg_pool2d(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const std::vector<SymInt> sizes = plan_adaptive(x, value_ints(arg(args, 1)));
  require_real(x, "adaptive_avg_pool2d");
  const DType compute = compute_type(x.dtype());
  const Tensor in = contiguous_as(x, compute);
  Tensor out = make_overwritten_output(sizes, compute);
  const auto& xs = x.sizes();
  const std::size_t hd = xs.size() - 2;
  const std::int64_t planes = product(std::span<const std::int64_t>(xs.data(), hd));
  const std::int64_t h = xs[hd];
  const std::int64_t w = xs[hd + 1];
  const std::int64_t oh = sizes[hd].hint();
  const std::int64_t ow = sizes[hd + 1].hint();
  // Window i of n over a length-`len` dim: [floor(i * len / n), ceil((i + 1) * len / n)).
  auto start = [](std::int64_t i, std::int64_t n, std::int64_t len) { return i * len / n; };
  auto stop = [](std::int64_t i, std::int64_t n, std::int64_t len) {
    return ((i + 1) * len + n - 1) / n;
  };
  visit_float(compute, [&](auto zero) {
    using C = decltype(zero);
    const C* xp = static_cast<const C*>(in.raw_data());
    C* op_ = static_cast<C*>(out.raw_data());
    parallel_for(planes,
                 std::max<std::int64_t>(1, kDefaultGrain / std::max<std::int64_t>(h * w, 1)),
                 [&](std::int64_t begin, std::int64_t end) {
                   for (std::int64_t plane = begin; plane < end; ++plane) {
                     for (std::int64_t i = 0; i < oh; ++i) {
                       for (std::int64_t j = 0; j < ow; ++j) {
                         const std::int64_t h0 = start(i, oh, h), h1 = stop(i, oh, h);
                         const std::int64_t w0 = start(j, ow, w), w1 = stop(j, ow, w);
                         double total = 0;
                         for (std::int64_t ih = h0; ih < h1; ++ih) {
                           for (std::int64_t iw = w0; iw < w1; ++iw) {
                             total += static_cast<double>(xp[(plane * h + ih) * w + iw]);
                           }
                         }
                         op_[(plane * oh + i) * ow + j] =
                             static_cast<C>(total / static_cast<double>((h1 - h0) * (w1 - w0)));
                       }
                     }
                   }
                 });
  });
  return to_result(std::move(out), x.dtype());
}

Value meta_adaptive_avg_pool2d(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  return make_output(plan_adaptive(x, value_ints(arg(args, 1))), x.dtype(), true);
}

Value eager_group_norm(std::span<const Value> args) {
  const std::int64_t groups = plan_group_norm(args);
  const Tensor& x = tensor_arg(args, 0);
  const Tensor weight = value_optional_tensor(arg(args, 2));
  const Tensor bias = value_optional_tensor(arg(args, 3));
  const double eps = value_double(arg(args, 4));
  require_real(x, "group_norm");
  const DType compute = compute_type(x.dtype());
  const Tensor in = contiguous_as(x, compute);
  const Tensor w = weight.defined() ? contiguous_as(weight, compute) : Tensor();
  const Tensor b = bias.defined() ? contiguous_as(bias, compute) : Tensor();
  Tensor out = make_overwritten_output(x.sym_sizes(), compute);
  const std::int64_t batch = x.sizes()[0];
  const std::int64_t channels = x.sizes()[1];
  const std::int64_t plane = product(std::span<const std::int64_t>(x.sizes()).subspan(2));
  const std::int64_t per_group = channels / groups * plane;
  visit_float(compute, [&](auto zero) {
    using C = decltype(zero);
    const C* xp = static_cast<const C*>(in.raw_data());
    const C* wp = w.defined() ? static_cast<const C*>(w.raw_data()) : nullptr;
    const C* bp = b.defined() ? static_cast<const C*>(b.raw_data()) : nullptr;
    C* yp = static_cast<C*>(out.raw_data());
    const std::int64_t grain =
        std::max<std::int64_t>(1, kDefaultGrain / std::max<std::int64_t>(3 * per_group, 1));
    parallel_for(batch * groups, grain, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t item = begin; item < end; ++item) {
        const C* src = xp + item * per_group;
        C* dst = yp + item * per_group;
        double total = 0;
        for (std::int64_t i = 0; i < per_group; ++i) {
          total += static_cast<double>(src[i]);
        }
        const double mean = per_group > 0 ? total / static_cast<double>(per_group) : 0.0;
        double squares = 0;
        for (std::int64_t i = 0; i < per_group; ++i) {
          const double d = static_cast<double>(src[i]) - mean;
          squares += d * d;
        }
        const double var = per_group > 0 ? squares / static_cast<double>(per_group) : 0.0;
        const double rstd = 1.0 / std::sqrt(var + eps);
        const std::int64_t c0 = (item % groups) * (channels / groups);
        for (std::int64_t i = 0; i < per_group; ++i) {
          const std::int64_t c = c0 + i / std::max<std::int64_t>(plane, 1);
          double y = (static_cast<double>(src[i]) - mean) * rstd;
          if (wp != nullptr) {
            y *= static_cast<double>(wp[c]);
          }
          if (bp != nullptr) {
            y += static_cast<double>(bp[c]);
          }
          dst[i] = static_cast<C>(y);
        }
      }
    });
  });
  return to_result(std::move(out), x.dtype());
}

Value meta_group_norm(std::span<const Value> args) {
  (void)plan_group_norm(args);
  const Tensor& x = tensor_arg(args, 0);
  return make_output(x.sym_sizes(), x.dtype(), true);
}

} // namespace compiler::kernels
