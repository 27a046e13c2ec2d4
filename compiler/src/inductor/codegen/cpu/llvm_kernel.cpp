// A KernelPlan as LLVM IR (codegen/cpu/llvm_kernel.h): the OpsHandler that emits IR for node
// bodies, and the walk over the plan's loops.
#include "inductor/codegen/cpu/llvm_kernel.h"

#include "compiler/core/errors.h"
#include "inductor/codegen/cpu/vector_math.h"
#include "inductor/ir/index_analysis.h"
#include "kernels/counter_rng.h"

#include <cmath>
#include <limits>
#include <llvm/ADT/StringMap.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/SubtargetFeature.h>
#include <llvm/Support/Host.h>
#include <map>

namespace compiler::inductor::cpu {

const CpuTarget& host_target() {
  static const CpuTarget target = [] {
    CpuTarget t;
    t.triple = llvm::sys::getProcessTriple();
    t.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features;
    llvm::SubtargetFeatures f;
    if (llvm::sys::getHostCPUFeatures(features)) {
      for (const auto& kv : features) {
        f.AddFeature(kv.first(), kv.second);
      }
    }
    t.features = f.getString();
    const bool avx512 = features.lookup("avx512f");
    const bool avx = features.lookup("avx2") || features.lookup("avx");
    t.lanes = avx512 ? 16 : (avx ? 8 : 4);
    return t;
  }();
  return target;
}

namespace {

llvm::Type* storage_type(llvm::LLVMContext& c, DType d) {
  switch (d) {
  case DType::Float32:
    return llvm::Type::getFloatTy(c);
  case DType::Float64:
    return llvm::Type::getDoubleTy(c);
  case DType::Float16:
  case DType::BFloat16:
    return llvm::Type::getInt16Ty(c);
  case DType::Int32:
    return llvm::Type::getInt32Ty(c);
  case DType::Int64:
    return llvm::Type::getInt64Ty(c);
  case DType::Bool:
    return llvm::Type::getInt8Ty(c);
  }
  return nullptr;
}

llvm::Type* compute_scalar_type(llvm::LLVMContext& c, DType d) {
  switch (d) {
  case DType::Float32:
    return llvm::Type::getFloatTy(c);
  case DType::Int64:
    return llvm::Type::getInt64Ty(c);
  case DType::Bool:
    return llvm::Type::getInt1Ty(c);
  default:
    TORCHSCOPE_ASSERT(false, "compute dtypes are f32, i64 and bool");
  }
  return nullptr;
}

class Emitter final : public OpsHandler {
public:
  Emitter(llvm::Module& m, const KernelPlan& k, const CpuLoopPlan& loops, const LoweredGraph& ir)
      : c_(m.getContext()), m_(m), b_(c_), k_(k), loops_(loops), ir_(ir), vf_(loops.lanes),
        ptr_(ir.buffers.size(), nullptr), stored_(ir.buffers.size(), true) {
    for (const LoopStage& s : k.stages) {
      for (const FusedNode& n : s.nodes) {
        stored_[static_cast<std::size_t>(n.buffer)] = n.store;
      }
    }
  }

  void emit(const CpuTarget& target) {
    llvm::Type* i64 = b_.getInt64Ty();
    llvm::Type* i8pp = b_.getInt8PtrTy()->getPointerTo();
    llvm::FunctionType* ft = llvm::FunctionType::get(
        b_.getVoidTy(), {i8pp, i64->getPointerTo(), i64, i64, b_.getInt32Ty()->getPointerTo()},
        false);
    f_ = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, k_.name, m_);
    f_->addFnAttr("target-cpu", target.cpu);
    f_->addFnAttr("target-features", target.features);
    f_->addFnAttr("min-legal-vector-width", std::to_string(target.lanes * 32));
    f_->addFnAttr("prefer-vector-width", std::to_string(target.lanes * 32));
    f_->addFnAttr(llvm::Attribute::NoUnwind);
    for (unsigned i : {0u, 1u, 4u}) {
      f_->getArg(i)->addAttr(llvm::Attribute::NoAlias);
    }
    b_.SetInsertPoint(llvm::BasicBlock::Create(c_, "entry", f_));
    llvm::FastMathFlags fmf;
    fmf.setAllowContract(true);
    b_.setFastMathFlags(fmf);
    // Arguments: buffer pointers (typed by storage dtype) and symbol values.
    for (std::size_t a = 0; a < k_.args.size(); ++a) {
      const BufferId id = k_.args[a].buffer;
      llvm::Value* raw = b_.CreateLoad(b_.getInt8PtrTy(),
                                       b_.CreateConstGEP1_64(b_.getInt8PtrTy(), f_->getArg(0), a));
      llvm::Type* et = storage_type(c_, ir_.buffer(id).layout.dtype);
      ptr_[static_cast<std::size_t>(id)] = b_.CreateBitCast(raw, et->getPointerTo());
    }
    for (std::size_t s = 0; s < ir_.symbol_count; ++s) {
      syms_.push_back(b_.CreateLoad(i64, b_.CreateConstGEP1_64(i64, f_->getArg(1), s)));
    }
    status_ = f_->getArg(4);
    begin_ = f_->getArg(2);
    end_ = f_->getArg(3);
    push_scope();
    if (loops_.vector == CpuLoopPlan::Vector::Stage) {
      emit_with_stages();
    } else {
      emit_pointwise();
    }
    pop_scope();
    b_.CreateRetVoid();
  }

  // ---------------------------------------------------------------- OpsHandler

  LoopValue load(BufferId buffer, const Expr& index) override {
    if (std::optional<LoopValue> f = forwarded(buffer, index)) {
      return *f;
    }
    const DType st = ir_.buffer(buffer).layout.dtype;
    llvm::Type* et = storage_type(c_, st);
    llvm::Value* base = ptr_[static_cast<std::size_t>(buffer)];
    TORCHSCOPE_ASSERT(base != nullptr, "a kernel reads a buffer it was not given");
    llvm::Value* mask = current_mask();
    llvm::Value* raw = nullptr;
    if (!vectorized(index)) {
      llvm::Value* ptr = b_.CreateGEP(et, base, emit_index(index, false));
      if (mask != nullptr) {
        ptr = b_.CreateSelect(any(mask), ptr, base); // a masked-off read stays in bounds
      }
      raw = widen(b_.CreateLoad(et, ptr));
    } else if (unit_stride(index)) {
      llvm::Value* ptr = b_.CreateGEP(et, base, emit_index(index, false));
      llvm::Type* vt = llvm::FixedVectorType::get(et, lanes_);
      llvm::Value* vptr = b_.CreateBitCast(ptr, vt->getPointerTo());
      const llvm::Align align(et->getPrimitiveSizeInBits() / 8);
      raw = mask != nullptr ? static_cast<llvm::Value*>(b_.CreateMaskedLoad(
                                  vt, vptr, align, mask, llvm::Constant::getNullValue(vt)))
                            : b_.CreateAlignedLoad(vt, vptr, align);
    } else {
      llvm::Value* ptrs = b_.CreateGEP(et, base, emit_index(index, true));
      llvm::Type* vt = llvm::FixedVectorType::get(et, lanes_);
      raw = b_.CreateMaskedGather(vt, ptrs, llvm::Align(et->getPrimitiveSizeInBits() / 8),
                                  mask != nullptr ? mask : all_true(),
                                  llvm::Constant::getNullValue(vt));
    }
    llvm::Value* v = to_compute(raw, st);
    if (mask != nullptr) {
      v = b_.CreateSelect(mask, v, llvm::Constant::getNullValue(v->getType()));
    }
    return make(v, compute_dtype(st));
  }

  LoopValue masked(LoopValue mask, const std::function<LoopValue()>& body, double other) override {
    llvm::Value* m = widen(value(mask));
    llvm::Value* outer = current_mask();
    masks_.push_back(outer != nullptr ? b_.CreateAnd(outer, m) : m);
    const LoopValue v = body();
    masks_.pop_back();
    const LoopValue o = constant(other, v.dtype);
    return make(b_.CreateSelect(m, widen(value(v)), widen(value(o))), v.dtype);
  }

  LoopValue load_indirect(BufferId buffer, LoopValue row, const Expr& rows, const Expr& row_stride,
                          const Expr& offset) override {
    const DType st = ir_.buffer(buffer).layout.dtype;
    llvm::Type* et = storage_type(c_, st);
    llvm::Value* base = ptr_[static_cast<std::size_t>(buffer)];
    TORCHSCOPE_ASSERT(base != nullptr, "a kernel reads a buffer it was not given");
    llvm::Value* r = widen(value(row));
    llvm::Value* n = widen(emit_index(rows, false));
    llvm::Value* zero = llvm::Constant::getNullValue(r->getType());
    llvm::Value* bad = b_.CreateOr(b_.CreateICmpSLT(r, zero), b_.CreateICmpSGE(r, n));
    if (llvm::Value* mask = current_mask()) {
      bad = b_.CreateAnd(bad, mask);
    }
    raise_if(any(bad));
    r = b_.CreateSelect(bad, zero, r);
    llvm::Value* idx = b_.CreateAdd(b_.CreateMul(r, widen(emit_index(row_stride, false))),
                                    widen(emit_index(offset, lanes_ > 1)));
    llvm::Value* raw = nullptr;
    if (lanes_ > 1) {
      llvm::Value* ptrs = b_.CreateGEP(et, base, idx);
      llvm::Type* vt = llvm::FixedVectorType::get(et, lanes_);
      llvm::Value* mask = current_mask();
      raw = b_.CreateMaskedGather(vt, ptrs, llvm::Align(et->getPrimitiveSizeInBits() / 8),
                                  mask != nullptr ? mask : all_true(),
                                  llvm::Constant::getNullValue(vt));
    } else {
      raw = b_.CreateLoad(et, b_.CreateGEP(et, base, idx));
    }
    return make(to_compute(raw, st), compute_dtype(st));
  }

  void store(BufferId buffer, const Expr& index, LoopValue v) override {
    const DType st = ir_.buffer(buffer).layout.dtype;
    const LoopValue stored = cast(v, st); // what a later read would see
    scopes_.back().push_back({buffer, index, stored, lanes_});
    if (!stored_[static_cast<std::size_t>(buffer)]) {
      return;
    }
    llvm::Type* et = storage_type(c_, st);
    llvm::Value* base = ptr_[static_cast<std::size_t>(buffer)];
    TORCHSCOPE_ASSERT(base != nullptr, "a kernel writes a buffer it was not given");
    llvm::Value* raw = to_storage(widen(value(stored)), st);
    const llvm::Align align(et->getPrimitiveSizeInBits() / 8);
    if (!vectorized(index)) {
      if (lanes_ > 1) {
        raw = b_.CreateExtractElement(raw, b_.getInt32(lanes_ - 1));
      }
      b_.CreateStore(raw, b_.CreateGEP(et, base, emit_index(index, false)));
    } else if (unit_stride(index)) {
      llvm::Value* ptr = b_.CreateGEP(et, base, emit_index(index, false));
      b_.CreateAlignedStore(
          raw, b_.CreateBitCast(ptr, llvm::FixedVectorType::get(et, lanes_)->getPointerTo()),
          align);
    } else {
      b_.CreateMaskedScatter(raw, b_.CreateGEP(et, base, emit_index(index, true)), align,
                             all_true());
    }
  }

  LoopValue constant(double v, DType dtype) override {
    llvm::Value* c = nullptr;
    switch (dtype) {
    case DType::Bool:
      c = b_.getInt1(v != 0.0);
      break;
    case DType::Int64:
    case DType::Int32:
      c = b_.getInt64(static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
      dtype = DType::Int64;
      break;
    default:
      c = llvm::ConstantFP::get(b_.getFloatTy(), v);
      dtype = DType::Float32;
      break;
    }
    return make(c, dtype);
  }

  LoopValue index_expr(const Expr& e, DType dtype) override {
    const LoopValue i = make(emit_index(e, vectorized(e)), DType::Int64);
    return cast(i, dtype);
  }

  LoopValue cast(LoopValue v, DType dtype) override {
    llvm::Value* x = value(v);
    const DType to = compute_dtype(dtype);
    llvm::Type* t = with_lanes(compute_scalar_type(c_, to), x);
    if (v.dtype == to && dtype != DType::Float16 && dtype != DType::BFloat16 &&
        dtype != DType::Int32) {
      return v;
    }
    llvm::Value* out = nullptr;
    switch (to) {
    case DType::Float32:
      out = v.dtype == DType::Float32 ? x
            : v.dtype == DType::Int64 ? b_.CreateSIToFP(x, t)
                                      : b_.CreateUIToFP(x, t);
      if (dtype == DType::Float16) {
        llvm::Type* h = with_lanes(b_.getHalfTy(), x);
        out = b_.CreateFPExt(b_.CreateFPTrunc(out, h), t);
      } else if (dtype == DType::BFloat16) {
        out = from_bf16(to_bf16(out));
      }
      break;
    case DType::Int64:
      if (v.dtype == DType::Float32) {
        llvm::Type* narrow =
            with_lanes(dtype == DType::Int32 ? b_.getInt32Ty() : b_.getInt64Ty(), x);
        out = b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {narrow, x->getType()}, {x});
        out = b_.CreateSExt(out, t);
      } else if (v.dtype == DType::Bool) {
        out = b_.CreateZExt(x, t);
      } else {
        out = dtype == DType::Int32
                  ? b_.CreateSExt(b_.CreateTrunc(x, with_lanes(b_.getInt32Ty(), x)), t)
                  : x;
      }
      break;
    case DType::Bool:
      out = v.dtype == DType::Float32
                ? b_.CreateFCmpUNE(x, llvm::Constant::getNullValue(x->getType()))
                : b_.CreateICmpNE(x, llvm::Constant::getNullValue(x->getType()));
      break;
    default:
      break;
    }
    return make(out, to);
  }

  LoopValue apply(LoopOp op, std::span<const LoopValue> args) override {
    std::vector<llvm::Value*> a;
    DType dtype = args.empty() ? DType::Float32 : args[0].dtype;
    const LoopOpCategory cat = loop_op_category(op);
    if (cat == LoopOpCategory::Float) {
      dtype = DType::Float32;
    } else if (cat == LoopOpCategory::Random) {
      dtype = DType::Int64;
    } else if (cat == LoopOpCategory::Select) {
      dtype = args[1].dtype;
    } else if (cat == LoopOpCategory::Arith || cat == LoopOpCategory::Compare) {
      for (const LoopValue& v : args) {
        if (v.dtype == DType::Float32) {
          dtype = DType::Float32; // mixed operands compute in float
        }
      }
      if (dtype == DType::Bool && cat == LoopOpCategory::Arith) {
        dtype = DType::Int64;
      }
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
      LoopValue v = args[i];
      if (cat == LoopOpCategory::Select && i == 0) {
        v = cast(v, DType::Bool);
      } else if (cat == LoopOpCategory::Logic) {
        v = cast(v, DType::Bool);
      } else if (v.dtype != dtype) {
        v = cast(v, dtype);
      }
      a.push_back(widen(value(v)));
    }
    const bool fp = dtype == DType::Float32;
    llvm::Value* r = nullptr;
    switch (op) {
    case LoopOp::add:
      r = fp ? b_.CreateFAdd(a[0], a[1]) : b_.CreateAdd(a[0], a[1]);
      break;
    case LoopOp::sub:
      r = fp ? b_.CreateFSub(a[0], a[1]) : b_.CreateSub(a[0], a[1]);
      break;
    case LoopOp::mul:
      r = fp ? b_.CreateFMul(a[0], a[1]) : b_.CreateMul(a[0], a[1]);
      break;
    case LoopOp::truediv:
      r = b_.CreateFDiv(a[0], a[1]);
      break;
    case LoopOp::pow:
      r = fp ? per_lane2("powf", a[0], a[1], b_.getFloatTy())
             : per_lane2("torchscope_int_pow", a[0], a[1], b_.getInt64Ty());
      break;
    case LoopOp::maximum:
      r = fp ? max_nan(a[0], a[1], true)
             : b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a[0], a[1]);
      break;
    case LoopOp::minimum:
      r = fp ? max_nan(a[0], a[1], false)
             : b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a[0], a[1]);
      break;
    case LoopOp::eq:
      r = fp ? b_.CreateFCmpOEQ(a[0], a[1]) : b_.CreateICmpEQ(a[0], a[1]);
      break;
    case LoopOp::ne:
      r = fp ? b_.CreateFCmpUNE(a[0], a[1]) : b_.CreateICmpNE(a[0], a[1]);
      break;
    case LoopOp::lt:
      r = fp ? b_.CreateFCmpOLT(a[0], a[1]) : b_.CreateICmpSLT(a[0], a[1]);
      break;
    case LoopOp::le:
      r = fp ? b_.CreateFCmpOLE(a[0], a[1]) : b_.CreateICmpSLE(a[0], a[1]);
      break;
    case LoopOp::gt:
      r = fp ? b_.CreateFCmpOGT(a[0], a[1]) : b_.CreateICmpSGT(a[0], a[1]);
      break;
    case LoopOp::ge:
      r = fp ? b_.CreateFCmpOGE(a[0], a[1]) : b_.CreateICmpSGE(a[0], a[1]);
      break;
    case LoopOp::logical_and:
      r = b_.CreateAnd(a[0], a[1]);
      break;
    case LoopOp::logical_or:
      r = b_.CreateOr(a[0], a[1]);
      break;
    case LoopOp::logical_not:
      r = b_.CreateNot(a[0]);
      break;
    case LoopOp::where:
      r = b_.CreateSelect(a[0], a[1], a[2]);
      break;
    case LoopOp::neg:
      r = fp ? b_.CreateFNeg(a[0]) : b_.CreateNeg(a[0]);
      break;
    case LoopOp::abs:
      r = fp ? b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a[0])
             : b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a[0], b_.getFalse());
      break;
    case LoopOp::relu:
      // NaN propagates, as in eager: x is kept unless it is ordered and not above 0.
      r = fp ? b_.CreateSelect(b_.CreateFCmpUGT(a[0], zero_like(a[0])), a[0], zero_like(a[0]))
             : b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a[0], zero_like(a[0]));
      break;
    case LoopOp::exp:
      r = emit_exp(b_, a[0]);
      break;
    case LoopOp::log:
      r = emit_log(b_, a[0]);
      break;
    case LoopOp::sin:
      r = emit_sin(b_, m_, a[0]);
      break;
    case LoopOp::cos:
      r = emit_cos(b_, m_, a[0]);
      break;
    case LoopOp::tanh:
      r = emit_tanh(b_, a[0]);
      break;
    case LoopOp::sigmoid: {
      llvm::Value* one = llvm::ConstantFP::get(a[0]->getType(), 1.0);
      r = b_.CreateFDiv(one, b_.CreateFAdd(one, emit_exp(b_, b_.CreateFNeg(a[0]))));
      break;
    }
    case LoopOp::sqrt:
      r = b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a[0]);
      break;
    case LoopOp::rsqrt:
      r = b_.CreateFDiv(llvm::ConstantFP::get(a[0]->getType(), 1.0),
                        b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a[0]));
      break;
    case LoopOp::erf:
      r = emit_erf(b_, a[0]);
      break;
    case LoopOp::isnan:
      r = b_.CreateFCmpUNO(a[0], a[0]);
      break;
    // pointwise, more
    case LoopOp::floor:
      r = fp ? b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, a[0]) : a[0];
      break;
    case LoopOp::ceil:
      r = fp ? b_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, a[0]) : a[0];
      break;
    case LoopOp::round:
      // rint rounds in the default mode, to nearest even, as torch.round.
      r = fp ? b_.CreateUnaryIntrinsic(llvm::Intrinsic::rint, a[0]) : a[0];
      break;
    case LoopOp::trunc:
      r = fp ? b_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, a[0]) : a[0];
      break;
    case LoopOp::sign: {
      // (x > 0) - (x < 0): NaN gives 0, as the eager kernel (PyTorch 1.13).
      llvm::Value* pos =
          fp ? b_.CreateFCmpOGT(a[0], zero_like(a[0])) : b_.CreateICmpSGT(a[0], zero_like(a[0]));
      llvm::Value* negative =
          fp ? b_.CreateFCmpOLT(a[0], zero_like(a[0])) : b_.CreateICmpSLT(a[0], zero_like(a[0]));
      llvm::Type* t = a[0]->getType();
      r = fp ? b_.CreateFSub(b_.CreateUIToFP(pos, t), b_.CreateUIToFP(negative, t))
             : b_.CreateSub(b_.CreateZExt(pos, t), b_.CreateZExt(negative, t));
      break;
    }
    case LoopOp::expm1:
      r = emit_expm1(b_, a[0]);
      break;
    case LoopOp::log1p:
      r = emit_log1p(b_, a[0]);
      break;
    case LoopOp::sinh:
      r = emit_sinh(b_, a[0]);
      break;
    case LoopOp::cosh:
      r = emit_cosh(b_, a[0]);
      break;
    // libm per lane (no vector form yet), so compiled code gives the eager kernels' values.
    case LoopOp::tan:
      r = per_lane1("tanf", a[0]);
      break;
    case LoopOp::atan:
      r = per_lane1("atanf", a[0]);
      break;
    case LoopOp::asin:
      r = per_lane1("asinf", a[0]);
      break;
    case LoopOp::acos:
      r = per_lane1("acosf", a[0]);
      break;
    case LoopOp::logical_xor:
      r = b_.CreateXor(a[0], a[1]);
      break;
    case LoopOp::isinf:
      r = b_.CreateFCmpOEQ(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a[0]),
                           llvm::ConstantFP::getInfinity(a[0]->getType()));
      break;
    case LoopOp::bitwise_and:
      r = b_.CreateAnd(a[0], a[1]);
      break;
    case LoopOp::bitwise_or:
      r = b_.CreateOr(a[0], a[1]);
      break;
    case LoopOp::bitwise_xor:
      r = b_.CreateXor(a[0], a[1]);
      break;
    case LoopOp::bitwise_not:
      r = b_.CreateNot(a[0]);
      break;
    case LoopOp::rand_uniform:
      r = uniform_draw(a[0], a[1]);
      break;
    }
    return make(r, loop_op_result(op, dtype));
  }

private:
  // ---------------------------------------------------------------- random draws

  // kernels/counter_rng.h's mix(), on i64 scalars or vectors alike.
  llvm::Value* splitmix(llvm::Value* x) {
    llvm::Type* t = x->getType();
    x = b_.CreateAdd(x, llvm::ConstantInt::get(t, kernels::kMixIncrement));
    x = b_.CreateMul(b_.CreateXor(x, b_.CreateLShr(x, 30)),
                     llvm::ConstantInt::get(t, kernels::kMixMultiplier1));
    x = b_.CreateMul(b_.CreateXor(x, b_.CreateLShr(x, 27)),
                     llvm::ConstantInt::get(t, kernels::kMixMultiplier2));
    return b_.CreateXor(x, b_.CreateLShr(x, 31));
  }

  // uniform(seed, counter): the top 24 bits of the counter's draw, as a float in [0, 1).
  llvm::Value* uniform_draw(llvm::Value* seed, llvm::Value* counter) {
    llvm::Type* t = counter->getType();
    llvm::Value* bits = splitmix(b_.CreateXor(
        splitmix(seed), b_.CreateMul(counter, llvm::ConstantInt::get(t, kernels::kCounterStride))));
    llvm::Value* top = b_.CreateLShr(bits, 64 - kernels::kUniformBits);
    llvm::Value* f = b_.CreateUIToFP(top, with_lanes(b_.getFloatTy(), top));
    return b_.CreateFMul(f, llvm::ConstantFP::get(f->getType(), 0x1.0p-24));
  }

  // ---------------------------------------------------------------- values

  LoopValue make(llvm::Value* v, DType d) {
    values_.push_back(v);
    return {static_cast<std::int32_t>(values_.size() - 1), d};
  }
  llvm::Value* value(LoopValue v) const {
    TORCHSCOPE_ASSERT(v.id >= 0 && static_cast<std::size_t>(v.id) < values_.size(),
                      "a loop value from another handler");
    return values_[static_cast<std::size_t>(v.id)];
  }
  // `v` with the current lane count (scalars are splat).
  llvm::Value* widen(llvm::Value* v) {
    if (lanes_ > 1 && !v->getType()->isVectorTy()) {
      return b_.CreateVectorSplat(lanes_, v);
    }
    return v;
  }
  llvm::Type* with_lanes(llvm::Type* scalar, llvm::Value* like) const {
    if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(like->getType())) {
      return llvm::FixedVectorType::get(scalar, vt->getNumElements());
    }
    return scalar;
  }
  llvm::Value* zero_like(llvm::Value* v) { return llvm::Constant::getNullValue(v->getType()); }
  llvm::Value* all_true() {
    return llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(lanes_), b_.getTrue());
  }
  llvm::Value* any(llvm::Value* mask) {
    return mask->getType()->isVectorTy() ? b_.CreateOrReduce(mask) : mask;
  }
  llvm::Value* current_mask() { return masks_.empty() ? nullptr : masks_.back(); }

  // The larger (or smaller) of a and b, NaN if either is (the eager kernels propagate NaN).
  // LLVM 14 cannot select llvm.maximum on x86, hence compares and selects.
  llvm::Value* max_nan(llvm::Value* a, llvm::Value* b, bool larger) {
    llvm::Value* pick_a = larger ? b_.CreateFCmpOGT(a, b) : b_.CreateFCmpOLT(a, b);
    return b_.CreateSelect(b_.CreateOr(pick_a, b_.CreateFCmpUNO(a, a)), a, b);
  }

  // Storage to compute type (f16 and bf16 widen to f32, i32 to i64, bool to i1).
  llvm::Value* to_compute(llvm::Value* raw, DType st) {
    switch (st) {
    case DType::Float32:
    case DType::Int64:
      return raw;
    case DType::Float16:
      return b_.CreateFPExt(b_.CreateBitCast(raw, with_lanes(b_.getHalfTy(), raw)),
                            with_lanes(b_.getFloatTy(), raw));
    case DType::BFloat16:
      return from_bf16(raw);
    case DType::Int32:
      return b_.CreateSExt(raw, with_lanes(b_.getInt64Ty(), raw));
    case DType::Bool:
      return b_.CreateICmpNE(raw, zero_like(raw));
    case DType::Float64:
      TORCHSCOPE_ASSERT(false, "float64 graphs bypass code generation (compile_fx.cpp)");
    }
    return raw;
  }

  // Compute to storage type (rounding to nearest even for 16-bit floats).
  llvm::Value* to_storage(llvm::Value* v, DType st) {
    switch (st) {
    case DType::Float32:
    case DType::Int64:
      return v;
    case DType::Float16:
      return b_.CreateBitCast(b_.CreateFPTrunc(v, with_lanes(b_.getHalfTy(), v)),
                              with_lanes(b_.getInt16Ty(), v));
    case DType::BFloat16:
      return to_bf16(v);
    case DType::Int32:
      return b_.CreateTrunc(v, with_lanes(b_.getInt32Ty(), v));
    case DType::Bool:
      return b_.CreateZExt(v, with_lanes(b_.getInt8Ty(), v));
    case DType::Float64:
      TORCHSCOPE_ASSERT(false, "float64 graphs bypass code generation (compile_fx.cpp)");
    }
    return v;
  }

  llvm::Value* from_bf16(llvm::Value* bits16) {
    llvm::Value* wide = b_.CreateZExt(bits16, with_lanes(b_.getInt32Ty(), bits16));
    wide = b_.CreateShl(wide, 16);
    return b_.CreateBitCast(wide, with_lanes(b_.getFloatTy(), bits16));
  }

  // f32 to bf16 bits, rounding to nearest even; NaN stays a quiet NaN.
  llvm::Value* to_bf16(llvm::Value* f) {
    llvm::Type* i32 = with_lanes(b_.getInt32Ty(), f);
    llvm::Value* bits = b_.CreateBitCast(f, i32);
    llvm::Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), llvm::ConstantInt::get(i32, 1));
    llvm::Value* rounded =
        b_.CreateAdd(bits, b_.CreateAdd(llvm::ConstantInt::get(i32, 0x7fff), lsb));
    llvm::Value* out = b_.CreateLShr(rounded, 16);
    out = b_.CreateSelect(b_.CreateFCmpUNO(f, f), llvm::ConstantInt::get(i32, 0x7fc0), out);
    return b_.CreateTrunc(out, with_lanes(b_.getInt16Ty(), f));
  }

  // A unary f32 libm function applied lane by lane.
  llvm::Value* per_lane1(const char* name, llvm::Value* x) {
    llvm::Type* t = b_.getFloatTy();
    llvm::FunctionCallee fn = m_.getOrInsertFunction(name, llvm::FunctionType::get(t, {t}, false));
    auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
    if (vt == nullptr) {
      return b_.CreateCall(fn, {x});
    }
    llvm::Value* out = llvm::UndefValue::get(vt);
    for (unsigned i = 0; i < vt->getNumElements(); ++i) {
      llvm::Value* r = b_.CreateCall(fn, {b_.CreateExtractElement(x, b_.getInt32(i))});
      out = b_.CreateInsertElement(out, r, b_.getInt32(i));
    }
    return out;
  }

  // A binary libm-style function applied lane by lane.
  llvm::Value* per_lane2(const char* name, llvm::Value* x, llvm::Value* y, llvm::Type* t) {
    llvm::FunctionCallee fn =
        m_.getOrInsertFunction(name, llvm::FunctionType::get(t, {t, t}, false));
    auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
    if (vt == nullptr) {
      return b_.CreateCall(fn, {x, y});
    }
    llvm::Value* out = llvm::UndefValue::get(vt);
    for (unsigned i = 0; i < vt->getNumElements(); ++i) {
      llvm::Value* r = b_.CreateCall(fn, {b_.CreateExtractElement(x, b_.getInt32(i)),
                                          b_.CreateExtractElement(y, b_.getInt32(i))});
      out = b_.CreateInsertElement(out, r, b_.getInt32(i));
    }
    return out;
  }

  // Sets the status word when `cond` holds (an index read from data was out of range).
  void raise_if(llvm::Value* cond) {
    llvm::BasicBlock* raise = llvm::BasicBlock::Create(c_, "raise", f_);
    llvm::BasicBlock* cont = llvm::BasicBlock::Create(c_, "cont", f_);
    b_.CreateCondBr(cond, raise, cont);
    b_.SetInsertPoint(raise);
    auto* st = b_.CreateStore(b_.getInt32(1), status_);
    st->setAtomic(llvm::AtomicOrdering::Monotonic);
    st->setAlignment(llvm::Align(4));
    b_.CreateBr(cont);
    b_.SetInsertPoint(cont);
  }

  // ---------------------------------------------------------------- indices

  bool vectorized(const Expr& e) const { return lanes_ > 1 && vec_var_ && e.depends_on(*vec_var_); }
  bool unit_stride(const Expr& e) const {
    const std::optional<Expr> s = e.stride(*vec_var_);
    return s && s->is_constant() && s->constant_value() == 1;
  }

  // The index as i64: a scalar at the vector loop's first lane, or (vector) one per lane.
  llvm::Value* emit_index(const Expr& e, bool vector) {
    llvm::Value* total = nullptr;
    for (const Expr::Term& t : e.terms()) {
      llvm::Value* product = nullptr;
      for (const auto& atom : t.factors) {
        llvm::Value* f = nullptr;
        switch (atom->kind) {
        case Expr::Atom::Kind::Var: {
          auto it = vars_.find(atom->var);
          TORCHSCOPE_ASSERT(it != vars_.end(), "an index uses a loop variable out of its loop");
          f = it->second;
          if (vector && vec_var_ && atom->var == *vec_var_) {
            f = b_.CreateAdd(b_.CreateVectorSplat(lanes_, f), iota());
          }
          break;
        }
        case Expr::Atom::Kind::Symbol:
          f = syms_.at(static_cast<std::size_t>(atom->symbol));
          break;
        case Expr::Atom::Kind::FloorDiv:
        case Expr::Atom::Kind::Mod: {
          llvm::Value* a = emit_index(atom->a, vector);
          llvm::Value* d = emit_index(atom->b, vector);
          if (a->getType()->isVectorTy() || d->getType()->isVectorTy()) {
            a = splat_i64(a);
            d = splat_i64(d);
          }
          f = atom->kind == Expr::Atom::Kind::FloorDiv ? b_.CreateSDiv(a, d) : b_.CreateSRem(a, d);
          break;
        }
        }
        product = product == nullptr ? f : mul_i64(product, f);
      }
      llvm::Value* term = b_.getInt64(static_cast<std::uint64_t>(t.coeff));
      if (product != nullptr) {
        product = t.coeff == 1 ? product : mul_i64(product, term);
        term = product;
      }
      total = total == nullptr ? term : add_i64(total, term);
    }
    if (total == nullptr) {
      total = b_.getInt64(0);
    }
    return vector ? splat_i64(total) : total;
  }

  llvm::Value* splat_i64(llvm::Value* v) {
    return v->getType()->isVectorTy() ? v : b_.CreateVectorSplat(lanes_, v);
  }
  llvm::Value* mul_i64(llvm::Value* a, llvm::Value* b) {
    if (a->getType()->isVectorTy() != b->getType()->isVectorTy()) {
      a = splat_i64(a);
      b = splat_i64(b);
    }
    return b_.CreateMul(a, b);
  }
  llvm::Value* add_i64(llvm::Value* a, llvm::Value* b) {
    if (a->getType()->isVectorTy() != b->getType()->isVectorTy()) {
      a = splat_i64(a);
      b = splat_i64(b);
    }
    return b_.CreateAdd(a, b);
  }
  llvm::Value* iota() {
    std::vector<llvm::Constant*> lanes;
    for (unsigned i = 0; i < lanes_; ++i) {
      lanes.push_back(b_.getInt64(i));
    }
    return llvm::ConstantVector::get(lanes);
  }

  // ---------------------------------------------------------------- forwarding scopes

  struct Forward {
    BufferId buffer;
    Expr index;
    LoopValue value;
    unsigned lanes;
  };
  void push_scope() { scopes_.emplace_back(); }
  void pop_scope() { scopes_.pop_back(); }
  std::optional<LoopValue> forwarded(BufferId buffer, const Expr& index) {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      for (auto f = s->rbegin(); f != s->rend(); ++f) {
        if (f->buffer == buffer && f->index == index) {
          if (f->lanes == lanes_) {
            return f->value;
          }
          if (f->lanes == 1) {
            return make(widen(value(f->value)), f->value.dtype); // an outer value in a loop
          }
        }
      }
    }
    TORCHSCOPE_ASSERT(stored_[static_cast<std::size_t>(buffer)],
                      "a kernel-local value is read where it is not in registers");
    return std::nullopt;
  }

  // ---------------------------------------------------------------- loops

  // for (var = start; var < end; var += step) body(), with `lanes` lanes for var.
  void loop(VarId var, llvm::Value* start, llvm::Value* end, unsigned step, unsigned lanes,
            const std::function<void()>& body) {
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* header = llvm::BasicBlock::Create(c_, "loop", f_);
    llvm::BasicBlock* inside = llvm::BasicBlock::Create(c_, "body", f_);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(c_, "exit", f_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* i =
        b_.CreatePHI(b_.getInt64Ty(), 2, std::string(1, var.prefix) + std::to_string(var.index));
    i->addIncoming(start, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(i, end), inside, exit);
    b_.SetInsertPoint(inside);
    const unsigned saved_lanes = lanes_;
    const std::optional<VarId> saved_var = vec_var_;
    vars_[var] = i;
    if (lanes > 1) {
      lanes_ = lanes;
      vec_var_ = var;
    }
    push_scope();
    body();
    pop_scope();
    lanes_ = saved_lanes;
    vec_var_ = saved_var;
    llvm::Value* next = b_.CreateAdd(i, b_.getInt64(step));
    i->addIncoming(next, b_.GetInsertBlock());
    b_.CreateBr(header);
    b_.SetInsertPoint(exit);
    vars_.erase(var);
  }

  // A vector loop of vf_ lanes over [start, end), then a scalar loop over the rest.
  void vector_loop(VarId var, llvm::Value* start, llvm::Value* end,
                   const std::function<void()>& body) {
    llvm::Value* n = b_.CreateSub(end, start);
    llvm::Value* whole = b_.CreateMul(b_.CreateSDiv(n, b_.getInt64(vf_)), b_.getInt64(vf_));
    llvm::Value* split = b_.CreateAdd(
        start, b_.CreateSelect(b_.CreateICmpSGT(whole, b_.getInt64(0)), whole, b_.getInt64(0)));
    loop(var, start, split, vf_, vf_, body);
    loop(var, split, end, 1, 1, body);
  }

  // Nested loops over `sizes` (variables prefix0..), the first from `first_begin` to
  // `first_end` when given; the innermost is a vector loop when `vector_innermost`.
  void nest(char prefix, const std::vector<Expr>& sizes, std::size_t d, llvm::Value* first_begin,
            llvm::Value* first_end, bool vector_innermost, const std::function<void()>& body) {
    if (d == sizes.size()) {
      body();
      return;
    }
    const VarId var{prefix, static_cast<std::int32_t>(d)};
    llvm::Value* start = d == 0 && first_begin != nullptr ? first_begin : b_.getInt64(0);
    llvm::Value* end = d == 0 && first_end != nullptr ? first_end : emit_index(sizes[d], false);
    auto inner = [&] {
      nest(prefix, sizes, d + 1, first_begin, first_end, vector_innermost, body);
    };
    if (vector_innermost && d + 1 == sizes.size()) {
      vector_loop(var, start, end, inner);
    } else {
      loop(var, start, end, 1, 1, inner);
    }
  }

  void emit_pointwise() {
    // Every stage is straight-line; emit_stage also stores a reduction over nothing (the sum of
    // a 0-dim tensor), which a bare run_body would compute and drop.
    auto body = [&] {
      for (const LoopStage& s : k_.stages) {
        emit_stage(s);
      }
    };
    if (k_.outer.empty()) {
      guard_single(body);
      return;
    }
    nest('x', k_.outer, 0, begin_, end_, loops_.vector == CpuLoopPlan::Vector::Outer, body);
  }

  // Runs `body` once when the launch range is not empty (a kernel with no outer loop).
  void guard_single(const std::function<void()>& body) {
    llvm::BasicBlock* run = llvm::BasicBlock::Create(c_, "single", f_);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(c_, "done", f_);
    b_.CreateCondBr(b_.CreateICmpSLT(begin_, end_), run, done);
    b_.SetInsertPoint(run);
    push_scope();
    body();
    pop_scope();
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

  void emit_with_stages() {
    auto body = [&] {
      for (const LoopStage& s : k_.stages) {
        emit_stage(s);
      }
    };
    if (k_.outer.empty()) {
      guard_single(body);
      return;
    }
    nest('x', k_.outer, 0, begin_, end_, loops_.vector == CpuLoopPlan::Vector::Outer, body);
  }

  // ---------------------------------------------------------------- reductions

  struct Accumulator {
    const FusedNode* node;
    ReductionType type;
    DType dtype;
    llvm::AllocaInst* vec = nullptr; // vf_ lanes
    llvm::AllocaInst* scalar = nullptr;
    llvm::AllocaInst* vec_index = nullptr; // argmax
    llvm::AllocaInst* scalar_index = nullptr;
  };

  llvm::Value* init_value(ReductionType t, DType d, unsigned lanes) {
    llvm::Value* v = nullptr;
    const bool fp = d == DType::Float32;
    switch (t) {
    case ReductionType::sum:
      v = fp ? llvm::ConstantFP::get(b_.getFloatTy(), 0.0) : b_.getInt64(0);
      break;
    case ReductionType::max:
    case ReductionType::argmax:
      v = fp ? llvm::ConstantFP::getInfinity(b_.getFloatTy(), true)
             : b_.getInt64(static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::min()));
      break;
    case ReductionType::min:
      v = fp ? llvm::ConstantFP::getInfinity(b_.getFloatTy(), false)
             : b_.getInt64(static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
      break;
    }
    return lanes > 1 ? b_.CreateVectorSplat(lanes, v) : v;
  }

  llvm::AllocaInst* entry_alloca(llvm::Type* t) {
    llvm::IRBuilder<> eb(&f_->getEntryBlock(), f_->getEntryBlock().begin());
    return eb.CreateAlloca(t);
  }

  DType acc_dtype(const Buffer& b) const { return b.accumulate; }

  llvm::Value* better(llvm::Value* v, llvm::Value* best, bool fp) {
    // Argmax: strictly greater, or a NaN over a number (NaN counts as the maximum).
    if (!fp) {
      return b_.CreateICmpSGT(v, best);
    }
    return b_.CreateOr(b_.CreateFCmpOGT(v, best),
                       b_.CreateAnd(b_.CreateFCmpUNO(v, v), b_.CreateFCmpORD(best, best)));
  }

  llvm::Value* combine(ReductionType t, bool fp, llvm::Value* acc, llvm::Value* v) {
    switch (t) {
    case ReductionType::sum:
      return fp ? b_.CreateFAdd(acc, v) : b_.CreateAdd(acc, v);
    case ReductionType::max:
      return fp ? max_nan(v, acc, true) : b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, acc, v);
    case ReductionType::min:
      return fp ? max_nan(v, acc, false) : b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, acc, v);
    case ReductionType::argmax:
      break;
    }
    TORCHSCOPE_ASSERT(false, "argmax combines values and indices");
    return nullptr;
  }

  void emit_stage(const LoopStage& stage) {
    if (stage.inner.empty()) {
      for (const FusedNode& n : stage.nodes) {
        const Buffer& b = ir_.buffer(n.buffer);
        if (b.kind == BufferKind::Pointwise) {
          run_body(b, *this, n.index, n.rindex);
        } else {
          // A reduction over nothing: its one element.
          const LoopValue v = run_body(b, *this, n.index, n.rindex);
          store(b.id, b.layout.index(n.index),
                b.reduction == ReductionType::argmax ? constant(0.0, DType::Int64) : v);
        }
      }
      return;
    }
    std::vector<Accumulator> accs;
    for (const FusedNode& n : stage.nodes) {
      const Buffer& b = ir_.buffer(n.buffer);
      if (b.kind != BufferKind::Reduction) {
        continue;
      }
      Accumulator a{&n, b.reduction, acc_dtype(b)};
      llvm::Type* st = compute_scalar_type(c_, a.dtype);
      a.vec = entry_alloca(llvm::FixedVectorType::get(st, vf_));
      a.scalar = entry_alloca(st);
      b_.CreateStore(init_value(a.type, a.dtype, vf_), a.vec);
      b_.CreateStore(init_value(a.type, a.dtype, 1), a.scalar);
      if (a.type == ReductionType::argmax) {
        a.vec_index = entry_alloca(llvm::FixedVectorType::get(b_.getInt64Ty(), vf_));
        a.scalar_index = entry_alloca(b_.getInt64Ty());
        b_.CreateStore(llvm::Constant::getNullValue(a.vec_index->getAllocatedType()), a.vec_index);
        b_.CreateStore(b_.getInt64(0), a.scalar_index);
      }
      accs.push_back(a);
    }
    auto body = [&] {
      for (const FusedNode& n : stage.nodes) {
        const Buffer& b = ir_.buffer(n.buffer);
        if (b.kind == BufferKind::Pointwise) {
          run_body(b, *this, n.index, n.rindex);
          continue;
        }
        Accumulator* a = nullptr;
        for (Accumulator& x : accs) {
          a = x.node == &n ? &x : a;
        }
        const bool fp = a->dtype == DType::Float32;
        LoopValue v = run_body(b, *this, n.index, n.rindex);
        v = cast(v, a->dtype);
        llvm::Value* x = widen(value(v));
        llvm::AllocaInst* slot = lanes_ > 1 ? a->vec : a->scalar;
        llvm::Value* acc = b_.CreateLoad(slot->getAllocatedType(), slot);
        if (a->type != ReductionType::argmax) {
          b_.CreateStore(combine(a->type, fp, acc, x), slot);
          continue;
        }
        // The position in the reduction's own ranges.
        const Expr linear = dot(n.rindex, contiguous_strides(b.reduction_ranges));
        llvm::Value* idx = emit_index(linear, lanes_ > 1);
        llvm::AllocaInst* islot = lanes_ > 1 ? a->vec_index : a->scalar_index;
        llvm::Value* iacc = b_.CreateLoad(islot->getAllocatedType(), islot);
        llvm::Value* take = better(x, acc, fp);
        b_.CreateStore(b_.CreateSelect(take, x, acc), slot);
        b_.CreateStore(b_.CreateSelect(take, idx, iacc), islot);
      }
    };
    nest('r', stage.inner, 0, nullptr, nullptr, loops_.vector == CpuLoopPlan::Vector::Stage, body);
    // Combine the lanes and the tail; the results are the buffers' values from here on.
    for (const Accumulator& a : accs) {
      const bool fp = a.dtype == DType::Float32;
      llvm::Value* vec = b_.CreateLoad(a.vec->getAllocatedType(), a.vec);
      llvm::Value* tail = b_.CreateLoad(a.scalar->getAllocatedType(), a.scalar);
      llvm::Value* result = nullptr;
      if (a.type == ReductionType::argmax) {
        llvm::Value* vi = b_.CreateLoad(a.vec_index->getAllocatedType(), a.vec_index);
        llvm::Value* best = tail;
        llvm::Value* best_i = b_.CreateLoad(b_.getInt64Ty(), a.scalar_index);
        for (unsigned l = 0; l < vf_; ++l) {
          llvm::Value* v = b_.CreateExtractElement(vec, b_.getInt32(l));
          llvm::Value* i = b_.CreateExtractElement(vi, b_.getInt32(l));
          llvm::Value* same =
              fp ? b_.CreateOr(b_.CreateFCmpOEQ(v, best),
                               b_.CreateAnd(b_.CreateFCmpUNO(v, v), b_.CreateFCmpUNO(best, best)))
                 : b_.CreateICmpEQ(v, best);
          // Ties go to the smaller index: the first maximum wins.
          llvm::Value* take =
              b_.CreateOr(better(v, best, fp), b_.CreateAnd(same, b_.CreateICmpSLT(i, best_i)));
          best = b_.CreateSelect(take, v, best);
          best_i = b_.CreateSelect(take, i, best_i);
        }
        result = best_i;
        const Buffer& b = ir_.buffer(a.node->buffer);
        store(b.id, b.layout.index(a.node->index), make(result, DType::Int64));
        continue;
      }
      if (a.type == ReductionType::sum) {
        if (fp) {
          llvm::FastMathFlags reassoc;
          reassoc.setAllowReassoc(true);
          llvm::IRBuilderBase::FastMathFlagGuard guard(b_);
          b_.setFastMathFlags(reassoc);
          result = b_.CreateFAdd(
              b_.CreateFAddReduce(llvm::ConstantFP::get(b_.getFloatTy(), 0.0), vec), tail);
        } else {
          result = b_.CreateAdd(b_.CreateAddReduce(vec), tail);
        }
      } else {
        llvm::Value* r = tail;
        for (unsigned l = 0; l < vf_; ++l) {
          r = combine(a.type, fp, r, b_.CreateExtractElement(vec, b_.getInt32(l)));
        }
        result = r;
      }
      const Buffer& b = ir_.buffer(a.node->buffer);
      store(b.id, b.layout.index(a.node->index), make(result, a.dtype));
    }
  }

  llvm::LLVMContext& c_;
  llvm::Module& m_;
  llvm::IRBuilder<> b_;
  const KernelPlan& k_;
  const CpuLoopPlan& loops_;
  const LoweredGraph& ir_;
  unsigned vf_; // the vector loop's lanes
  llvm::Function* f_ = nullptr;
  llvm::Value* status_ = nullptr;
  llvm::Value* begin_ = nullptr;
  llvm::Value* end_ = nullptr;
  std::vector<llvm::Value*> ptr_;
  std::vector<bool> stored_;
  std::vector<llvm::Value*> syms_;
  std::map<VarId, llvm::Value*> vars_;
  std::optional<VarId> vec_var_;
  unsigned lanes_ = 1;
  std::vector<llvm::Value*> values_;
  std::vector<std::vector<Forward>> scopes_;
  std::vector<llvm::Value*> masks_;
};

} // namespace

void emit_kernel(llvm::Module& module, const KernelPlan& kernel, const CpuLoopPlan& loops,
                 const LoweredGraph& ir, const CpuTarget& target) {
  Emitter(module, kernel, loops, ir).emit(target);
}

} // namespace compiler::inductor::cpu
