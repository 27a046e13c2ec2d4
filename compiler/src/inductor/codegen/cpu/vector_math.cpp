// Vectorisable transcendental functions as LLVM IR (codegen/cpu/vector_math.h). Method and
// error bounds, all in f32 with fused multiply-adds allowed:
//   exp   x = n*ln2 + r, |r| <= ln2/2 (ln2 split in two so n*ln2 is exact to 2^-31); Taylor
//         polynomial of degree 7 (truncation below 6e-9); 2^n applied in two halves so the
//         result reaches the denormals and overflows to inf exactly where expf does.
//   expm1 degree-8 Taylor polynomial below ln2/2 (no cancellation), exp(x) - 1 above.
//   log   x = m * 2^e, m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s), s = (m-1)/(m+1), odd series
//         to s^11 (|s| <= 0.172: truncation below 2e-11); denormals rescaled by 2^23.
//   sin/cos  q = rint(x * 2/pi), r = x - q*pi/2 with pi/2 split into three parts of 12 bits
//         (exact products for |q| < 2^12); Taylor polynomials of degree 9 (sin) and 10 (cos) on
//         [-pi/4, pi/4]; the quadrant picks the sign and function.
//   log1p log(u) * (x / (u - 1)), u = 1 + x rounded: the quotient corrects the rounding of u
//         (Goldberg's method), so small x keep their digits; x itself where u == 1; inf at inf.
//   sinh, cosh  E = expm1(|x|) up to |x| = 9: sinh = sign(x) (E + E / (E + 1)) / 2 (no
//         cancellation near 0), cosh = (E + 1 + 1 / (E + 1)) / 2; beyond, h = exp(|x| / 2) and
//         (h / 2) h, which stays finite up to sinhf's and coshf's own overflow (|x| = 89.4).
//   tanh  sign(x) * t / (t + 2) with t = expm1(2|x|); 1 beyond |x| = 9.
//   erf   |x| < 0.84375: Taylor series to x^19; below 4: 1 - exp(-x^2) g(t), g a degree-8
//         least-squares polynomial in t = 1/(1 + |x|/2) fitted to erfc(x) exp(x^2) (relative
//         error 1.1e-9; we fitted it for this file); above: 1.
#include "inductor/codegen/cpu/vector_math.h"

#include <cmath>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>
#include <numbers>

namespace compiler::inductor::cpu {

namespace {

llvm::Value* splat(llvm::IRBuilderBase& b, llvm::Type* like, llvm::Value* scalar) {
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(like)) {
    return b.CreateVectorSplat(vt->getNumElements(), scalar);
  }
  return scalar;
}

llvm::Value* fconst(llvm::IRBuilderBase& b, llvm::Value* like, double v) {
  return splat(b, like->getType(), llvm::ConstantFP::get(b.getFloatTy(), v));
}

llvm::Type* int_type_like(llvm::IRBuilderBase& b, llvm::Value* like) {
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(like->getType())) {
    return llvm::FixedVectorType::get(b.getInt32Ty(), vt->getNumElements());
  }
  return b.getInt32Ty();
}

llvm::Value* iconst(llvm::IRBuilderBase& b, llvm::Value* like_int, std::int32_t v) {
  return splat(b, like_int->getType(), b.getInt32(static_cast<std::uint32_t>(v)));
}

llvm::Value* fma(llvm::IRBuilderBase& b, llvm::Value* a, llvm::Value* x, llvm::Value* c) {
  return b.CreateIntrinsic(llvm::Intrinsic::fma, {a->getType()}, {a, x, c});
}

// c[0] + x*(c[1] + x*(c[2] + ...)) by Horner's rule.
llvm::Value* poly(llvm::IRBuilderBase& b, llvm::Value* x, std::initializer_list<double> c) {
  const double* first = c.begin();
  const double* p = c.end() - 1;
  llvm::Value* acc = fconst(b, x, *p);
  while (p != first) {
    --p;
    acc = fma(b, acc, x, fconst(b, x, *p));
  }
  return acc;
}

llvm::Value* unary(llvm::IRBuilderBase& b, llvm::Intrinsic::ID id, llvm::Value* x) {
  return b.CreateIntrinsic(id, {x->getType()}, {x});
}

// Whether x is a 16-lane float vector in a function compiled for AVX-512.
bool has_avx512_scalef(llvm::IRBuilderBase& b, llvm::Value* x) {
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (vt == nullptr || vt->getNumElements() != 16) {
    return false;
  }
  const llvm::Function* f = b.GetInsertBlock()->getParent();
  const llvm::Attribute features = f->getFnAttribute("target-features");
  return features.isValid() && features.getValueAsString().contains("+avx512f");
}

llvm::Value* is_nan(llvm::IRBuilderBase& b, llvm::Value* x) {
  return b.CreateFCmpUNO(x, x);
}

// 2^n for integer-valued float n in [-252, 254], as two factors of normal floats.
llvm::Value* scale_by_pow2(llvm::IRBuilderBase& b, llvm::Value* p, llvm::Value* n) {
  llvm::Type* it = int_type_like(b, p);
  llvm::Value* ni = b.CreateFPToSI(n, it);
  llvm::Value* half = b.CreateAShr(ni, iconst(b, ni, 1));
  llvm::Value* rest = b.CreateSub(ni, half);
  auto pow2 = [&](llvm::Value* e) {
    llvm::Value* bits = b.CreateShl(b.CreateAdd(e, iconst(b, e, 127)), iconst(b, e, 23));
    return b.CreateBitCast(bits, p->getType());
  };
  return b.CreateFMul(b.CreateFMul(p, pow2(half)), pow2(rest));
}

// The lanes of a float vector through a scalar libm function (the slow path of sin/cos).
llvm::Value* per_lane(llvm::IRBuilderBase& b, llvm::Module& m, const char* fn, llvm::Value* x) {
  llvm::FunctionCallee callee =
      m.getOrInsertFunction(fn, llvm::FunctionType::get(b.getFloatTy(), {b.getFloatTy()}, false));
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (vt == nullptr) {
    return b.CreateCall(callee, {x});
  }
  llvm::Value* out = llvm::UndefValue::get(vt);
  for (unsigned i = 0; i < vt->getNumElements(); ++i) {
    llvm::Value* lane = b.CreateExtractElement(x, b.getInt32(i));
    out = b.CreateInsertElement(out, b.CreateCall(callee, {lane}), b.getInt32(i));
  }
  return out;
}

llvm::Value* any_lane(llvm::IRBuilderBase& b, llvm::Value* mask) {
  if (llvm::isa<llvm::FixedVectorType>(mask->getType())) {
    return b.CreateOrReduce(mask);
  }
  return mask;
}

// sin (cos = false) or cos of x.
llvm::Value* sincos(llvm::IRBuilderBase& b, llvm::Module& m, llvm::Value* x, bool cos) {
  constexpr double kP1 = 1.5703125;
  constexpr double kP2 = 0.0004837512969970703;
  constexpr double kP3 = 7.549790126404332e-08;
  llvm::Value* q =
      unary(b, llvm::Intrinsic::rint, b.CreateFMul(x, fconst(b, x, 2.0 / std::numbers::pi)));
  llvm::Value* r = fma(b, q, fconst(b, x, -kP1), x);
  r = fma(b, q, fconst(b, x, -kP2), r);
  r = fma(b, q, fconst(b, x, -kP3), r);
  llvm::Value* r2 = b.CreateFMul(r, r);
  // sin r = r (1 - r^2/3! + r^4/5! - ...), cos r = 1 - r^2/2! + r^4/4! - ...
  llvm::Value* s =
      b.CreateFMul(r, poly(b, r2, {1.0, -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880}));
  llvm::Value* c = poly(b, r2, {1.0, -0.5, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800});
  llvm::Type* it = int_type_like(b, x);
  llvm::Value* qi = b.CreateFPToSI(q, it);
  if (cos) {
    qi = b.CreateAdd(qi, iconst(b, qi, 1)); // cos x = sin(x + pi/2)
  }
  llvm::Value* quadrant = b.CreateAnd(qi, iconst(b, qi, 3));
  llvm::Value* use_cos = b.CreateICmpNE(b.CreateAnd(quadrant, iconst(b, qi, 1)), iconst(b, qi, 0));
  llvm::Value* negate = b.CreateICmpNE(b.CreateAnd(quadrant, iconst(b, qi, 2)), iconst(b, qi, 0));
  llvm::Value* v = b.CreateSelect(use_cos, c, s);
  v = b.CreateSelect(negate, b.CreateFNeg(v), v);
  // Arguments the reduction cannot handle exactly (and inf, NaN): libm, per lane, on a branch
  // that ordinary inputs never take.
  llvm::Value* big = b.CreateFCmpUGT(unary(b, llvm::Intrinsic::fabs, x), fconst(b, x, 8192.0));
  llvm::Value* any = any_lane(b, big);
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* from = b.GetInsertBlock();
  llvm::BasicBlock* slow = llvm::BasicBlock::Create(b.getContext(), "libm_lanes", f);
  llvm::BasicBlock* join = llvm::BasicBlock::Create(b.getContext(), "libm_done", f);
  b.CreateCondBr(any, slow, join);
  b.SetInsertPoint(slow);
  llvm::Value* exact = per_lane(b, m, cos ? "cosf" : "sinf", x);
  llvm::Value* mixed = b.CreateSelect(big, exact, v);
  llvm::BasicBlock* slow_end = b.GetInsertBlock();
  b.CreateBr(join);
  b.SetInsertPoint(join);
  llvm::PHINode* phi = b.CreatePHI(v->getType(), 2);
  phi->addIncoming(v, from);
  phi->addIncoming(mixed, slow_end);
  return phi;
}

} // namespace

llvm::Value* emit_exp(llvm::IRBuilderBase& b, llvm::Value* x) {
  constexpr double kLn2Hi = 0.693359375;
  constexpr double kLn2Lo = -0.00021219444005471377;
  llvm::Value* clamped =
      b.CreateMinNum(b.CreateMaxNum(x, fconst(b, x, -104.0)), fconst(b, x, 89.0));
  llvm::Value* n =
      unary(b, llvm::Intrinsic::rint, b.CreateFMul(clamped, fconst(b, x, std::numbers::log2e)));
  llvm::Value* r = fma(b, n, fconst(b, x, -kLn2Hi), clamped);
  r = fma(b, n, fconst(b, x, -kLn2Lo), r);
  llvm::Value* p =
      poly(b, r, {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040});
  if (has_avx512_scalef(b, x)) {
    // vscalefps: p * 2^n in one instruction, overflowing to inf and underflowing through the
    // denormals to 0 exactly as the two-step scaling below.
    llvm::Value* y = b.CreateIntrinsic(
        llvm::Intrinsic::x86_avx512_mask_scalef_ps_512, {},
        {p, n, p, b.getInt16(0xffff), b.getInt32(4 /* the current rounding mode */)});
    return b.CreateSelect(is_nan(b, x), x, y);
  }
  llvm::Value* y = scale_by_pow2(b, p, n);
  y = b.CreateSelect(b.CreateFCmpOGT(x, fconst(b, x, 88.72283905206835)), fconst(b, x, INFINITY),
                     y);
  y = b.CreateSelect(b.CreateFCmpOLT(x, fconst(b, x, -103.97208)), fconst(b, x, 0.0), y);
  return b.CreateSelect(is_nan(b, x), x, y);
}

llvm::Value* emit_expm1(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* small = poly(
      b, x, {0.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320});
  llvm::Value* large = b.CreateFSub(emit_exp(b, x), fconst(b, x, 1.0));
  llvm::Value* use_small =
      b.CreateFCmpOLT(unary(b, llvm::Intrinsic::fabs, x), fconst(b, x, std::numbers::ln2 / 2));
  return b.CreateSelect(use_small, small, large);
}

llvm::Value* emit_log(llvm::IRBuilderBase& b, llvm::Value* x) {
  constexpr double kLn2Hi = 0.693359375;
  constexpr double kLn2Lo = -0.00021219444005471377;
  llvm::Type* it = int_type_like(b, x);
  // Denormals: scale into the normal range first.
  llvm::Value* tiny = b.CreateFCmpOLT(x, fconst(b, x, 1.1754943508222875e-38));
  llvm::Value* xs = b.CreateSelect(tiny, b.CreateFMul(x, fconst(b, x, 8388608.0)), x);
  llvm::Value* bits = b.CreateBitCast(xs, it);
  llvm::Value* e = b.CreateSub(b.CreateLShr(bits, iconst(b, bits, 23)), iconst(b, bits, 127));
  e = b.CreateSelect(tiny, b.CreateSub(e, iconst(b, e, 23)), e);
  llvm::Value* mbits =
      b.CreateOr(b.CreateAnd(bits, iconst(b, bits, 0x007fffff)), iconst(b, bits, 0x3f800000));
  llvm::Value* m = b.CreateBitCast(mbits, x->getType());
  llvm::Value* high = b.CreateFCmpOGT(m, fconst(b, x, std::numbers::sqrt2));
  m = b.CreateSelect(high, b.CreateFMul(m, fconst(b, x, 0.5)), m);
  e = b.CreateSelect(high, b.CreateAdd(e, iconst(b, e, 1)), e);
  llvm::Value* f = b.CreateFSub(m, fconst(b, x, 1.0));
  llvm::Value* s = b.CreateFDiv(f, b.CreateFAdd(f, fconst(b, x, 2.0)));
  llvm::Value* s2 = b.CreateFMul(s, s);
  llvm::Value* lm = b.CreateFMul(b.CreateFMul(s, fconst(b, x, 2.0)),
                                 poly(b, s2, {1.0, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11}));
  llvm::Value* ef = b.CreateSIToFP(e, x->getType());
  llvm::Value* y = fma(b, ef, fconst(b, x, kLn2Hi), fma(b, ef, fconst(b, x, kLn2Lo), lm));
  y = b.CreateSelect(b.CreateFCmpOEQ(x, fconst(b, x, 0.0)), fconst(b, x, -INFINITY), y);
  y = b.CreateSelect(b.CreateFCmpOEQ(x, fconst(b, x, INFINITY)), x, y);
  return b.CreateSelect(b.CreateFCmpULT(x, fconst(b, x, 0.0)), fconst(b, x, NAN), y);
}

llvm::Value* emit_log1p(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* u = b.CreateFAdd(x, fconst(b, x, 1.0));
  llvm::Value* correction = b.CreateFDiv(x, b.CreateFSub(u, fconst(b, x, 1.0)));
  llvm::Value* y = b.CreateFMul(emit_log(b, u), correction);
  y = b.CreateSelect(b.CreateFCmpOEQ(u, fconst(b, x, 1.0)), x, y);
  return b.CreateSelect(b.CreateFCmpOEQ(x, fconst(b, x, INFINITY)), x, y);
}

namespace {
// sinh(|x|) (or cosh) as described at the top of this file.
llvm::Value* hyperbolic(llvm::IRBuilderBase& b, llvm::Value* x, bool cosine) {
  llvm::Value* a = unary(b, llvm::Intrinsic::fabs, x);
  llvm::Value* e = emit_expm1(b, a);
  llvm::Value* ep1 = b.CreateFAdd(e, fconst(b, x, 1.0));
  llvm::Value* half = fconst(b, x, 0.5);
  llvm::Value* small = cosine ? b.CreateFAdd(ep1, b.CreateFDiv(fconst(b, x, 1.0), ep1))
                              : b.CreateFAdd(e, b.CreateFDiv(e, ep1));
  small = b.CreateFMul(small, half);
  llvm::Value* h = emit_exp(b, b.CreateFMul(a, half));
  llvm::Value* large = b.CreateFMul(b.CreateFMul(h, half), h);
  return b.CreateSelect(b.CreateFCmpOGT(a, fconst(b, x, 9.0)), large, small);
}
} // namespace

llvm::Value* emit_sinh(llvm::IRBuilderBase& b, llvm::Value* x) {
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, hyperbolic(b, x, false), x);
}

llvm::Value* emit_cosh(llvm::IRBuilderBase& b, llvm::Value* x) {
  return hyperbolic(b, x, true);
}

llvm::Value* emit_tanh(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* a = unary(b, llvm::Intrinsic::fabs, x);
  llvm::Value* t = emit_expm1(b, b.CreateFMul(a, fconst(b, x, 2.0)));
  llvm::Value* y = b.CreateFDiv(t, b.CreateFAdd(t, fconst(b, x, 2.0)));
  y = b.CreateSelect(b.CreateFCmpOGT(a, fconst(b, x, 9.0)), fconst(b, x, 1.0), y);
  y = b.CreateIntrinsic(llvm::Intrinsic::copysign, {x->getType()}, {y, x});
  return b.CreateSelect(is_nan(b, x), x, y);
}

llvm::Value* emit_erf(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* a = unary(b, llvm::Intrinsic::fabs, x);
  // Small |x|: 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)).
  const double k = 2.0 * std::numbers::inv_sqrtpi;
  llvm::Value* x2 = b.CreateFMul(x, x);
  llvm::Value* series = b.CreateFMul(x, poly(b, x2,
                                             {k, -k / 3, k / 10, -k / 42, k / 216, -k / 1320,
                                              k / 9360, -k / 75600, k / 685440, -k / 6894720}));
  // Larger |x|: 1 - exp(-x^2) g(1 / (1 + |x|/2)).
  llvm::Value* t = b.CreateFDiv(fconst(b, x, 1.0), fma(b, a, fconst(b, x, 0.5), fconst(b, x, 1.0)));
  llvm::Value* g = poly(b, t,
                        {-0.00015191765851341188, 0.2848612368106842, 0.26015928387641907,
                         0.3454507887363434, -0.0965694785118103, 0.5502099394798279,
                         -0.45648133754730225, 0.11009649932384491, 0.0024903847370296717});
  llvm::Value* tail = b.CreateFSub(fconst(b, x, 1.0),
                                   b.CreateFMul(emit_exp(b, b.CreateFNeg(b.CreateFMul(a, a))), g));
  tail = b.CreateSelect(b.CreateFCmpOGT(a, fconst(b, x, 4.0)), fconst(b, x, 1.0), tail);
  tail = b.CreateIntrinsic(llvm::Intrinsic::copysign, {x->getType()}, {tail, x});
  llvm::Value* y = b.CreateSelect(b.CreateFCmpOLT(a, fconst(b, x, 0.84375)), series, tail);
  return b.CreateSelect(is_nan(b, x), x, y);
}

llvm::Value* emit_sin(llvm::IRBuilderBase& b, llvm::Module& module, llvm::Value* x) {
  return sincos(b, module, x, false);
}

llvm::Value* emit_cos(llvm::IRBuilderBase& b, llvm::Module& module, llvm::Value* x) {
  return sincos(b, module, x, true);
}

} // namespace compiler::inductor::cpu
