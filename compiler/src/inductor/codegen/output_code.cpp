// The inductor_output_code payload (inductor/codegen/output_code.h).
#include "inductor/codegen/output_code.h"

#include "compiler/core/errors.h"
#include "compiler/graph/graph_printer.h"
#include "kernels/thread_pool.h"

#include <algorithm>
#include <set>

namespace compiler::inductor {

namespace {

std::string torch_dtype(DType d) {
  return std::string(dtype_torch_name(d));
}

std::string tuple(const std::vector<Expr>& v) {
  std::string out = "(";
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += (i ? ", " : "") + v[i].str();
  }
  return out + (v.size() == 1 ? ",)" : ")");
}

std::string aten_name(const graph::Node& n) {
  return graph::op_target(n) + (n.inplace_arg >= 0 ? "_" : "");
}

// The graph nodes a buffer list computes, in graph order, without repeats.
// extern_kernels.convolution's arguments as Inductor prints them: input, weight, then the
// settings as keywords, the bias last.
std::string convolution_arguments(const FallbackCall& call, const std::vector<std::string>& names) {
  const graph::Node& n = call.node;
  std::size_t next = 0;
  auto operand = [&](const graph::Arg& a) {
    return a.kind == graph::Arg::Kind::Node
               ? names[static_cast<std::size_t>(call.operands[next++].buffer)]
               : std::string("None");
  };
  auto ints = [&](std::size_t i) {
    std::string t = "(";
    const auto* v = std::get_if<std::vector<std::int64_t>>(&n.args[i].constant);
    for (std::size_t k = 0; v != nullptr && k < v->size(); ++k) {
      t += (k > 0 ? ", " : "") + std::to_string((*v)[k]);
    }
    return t + (v != nullptr && v->size() == 1 ? ",)" : ")");
  };
  const std::string input = operand(n.args[0]);
  const std::string weight = operand(n.args[1]);
  const std::string bias = operand(n.args[2]);
  const bool* transposed = std::get_if<bool>(&n.args[6].constant);
  const SymInt* groups = std::get_if<SymInt>(&n.args[8].constant);
  return input + ", " + weight + ", stride=" + ints(3) + ", padding=" + ints(4) +
         ", dilation=" + ints(5) +
         ", transposed=" + (transposed != nullptr && *transposed ? "True" : "False") +
         ", output_padding=" + ints(7) +
         ", groups=" + (groups != nullptr ? groups->to_string() : std::string("?")) +
         ", bias=" + bias;
}

std::vector<std::size_t> sorted_origins(std::vector<std::size_t> nodes) {
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

std::string node_comment(const graph::Graph& g, const std::vector<std::size_t>& nodes) {
  std::string out = "# Topologically Sorted Source Nodes: " + source_nodes(g, nodes) +
                    ", Original ATen: " + original_aten(g, nodes) + "\n";
  out += "# Source node to ATen node mapping:\n";
  std::vector<std::size_t> by_name = nodes;
  std::sort(by_name.begin(), by_name.end(),
            [&](std::size_t a, std::size_t b) { return g.node(a).name < g.node(b).name; });
  for (std::size_t n : by_name) {
    out += "#   " + g.node(n).name + " => " + g.node(n).name + "\n";
  }
  return out;
}

std::string fragment(const graph::Graph& g, const std::vector<std::size_t>& nodes) {
  std::string out = "# Graph fragment:\n";
  for (std::size_t n : nodes) {
    const graph::Node& node = g.node(n);
    out += "#   %" + node.name + " : Tensor \"" + graph::meta_annotation(node.meta) +
           "\" = call_function[target=torch.ops." + aten_name(node) + "](args = (";
    for (std::size_t i = graph::first_printed_arg(node); i < node.args.size(); ++i) {
      const graph::Arg& a = node.args[i];
      out += i > graph::first_printed_arg(node) ? ", " : "";
      if (a.kind == graph::Arg::Kind::Node) {
        out += "%" + g.node(a.node).name;
      } else if (a.kind == graph::Arg::Kind::Constant) {
        out += value_to_string(a.constant);
      } else if (a.kind == graph::Arg::Kind::Symbolic) {
        out += a.sym.to_string();
      } else {
        out += "...";
      }
    }
    out += "), kwargs = {})\n";
  }
  return out;
}

} // namespace

std::string source_nodes(const graph::Graph& g, const std::vector<std::size_t>& nodes) {
  std::string out = "[";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    out += (i ? ", " : "") + g.node(nodes[i]).name;
  }
  return out + "]";
}

std::string original_aten(const graph::Graph& g, const std::vector<std::size_t>& nodes) {
  std::vector<std::string> names;
  for (std::size_t n : nodes) {
    const std::string a = aten_name(g.node(n));
    if (std::find(names.begin(), names.end(), a) == names.end()) {
      names.push_back(a);
    }
  }
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += (i ? ", " : "") + names[i];
  }
  return out + "]";
}

std::vector<std::string> step_handles(const LoweredGraph& ir, const Schedule& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    const std::string handle = ":" + std::to_string(i + 1);
    switch (st.kind) {
    case Step::Kind::Kernel:
      out.push_back(s.kernels[st.kernel].name + handle);
      break;
    case Step::Kind::Extern: {
      const ExternCall& c = *ir.buffer(st.buffer).extern_call;
      const char* name = c.kind == ExternCall::Kind::Mm            ? "mm"
                         : c.kind == ExternCall::Kind::Bmm         ? "bmm"
                         : c.kind == ExternCall::Kind::Convolution ? "convolution"
                                                                   : "addmm";
      out.push_back(std::string("extern_kernels.") + name + handle);
      break;
    }
    case Step::Kind::Fallback:
      out.push_back(graph::op_target(ir.buffer(st.buffer).fallback->node) + handle);
      break;
    }
  }
  return out;
}

std::string output_code(const OutputCodeInput& in) {
  const graph::Graph& g = in.graph;
  const LoweredGraph& ir = in.ir;
  const Schedule& s = in.schedule;
  std::string out = "# AOT ID: ['" + in.aot_id + "']\n";
  const std::string target = in.compiler.target_description();
  const std::size_t features = target.find(" +");
  const std::string device(in.compiler.device());
  const bool cpu = device == "cpu";
  out += "# torchscope inductor: " + device +
         (cpu ? " kernels generated through LLVM, run on " + std::to_string(thread_count()) +
                    " threads\n"
              : " kernels generated as CUDA C++, compiled by NVRTC, launched through the driver\n");
  out += "# target: " + target.substr(0, std::min(features, target.find(" -"))) + "\n";
  const std::string empty_strided = "empty_strided_" + device;
  out += "from torchscope import " + empty_strided +
         ", extern_kernels, fallback, reinterpret_tensor\n\n";
  for (std::size_t k = 0; k < s.kernels.size(); ++k) {
    const KernelPlan& kp = s.kernels[k];
    out += "\n";
    if (!in.kernel_path.empty()) {
      out += "# kernel path: " + in.kernel_path + "\n";
    }
    out += node_comment(g, kp.origins);
    out += fragment(g, kp.origins);
    out += kp.name + " = async_compile." + (cpu ? std::string("cpp") : device) + "('''\n";
    out += in.compiler.kernel_source(s, k, ir);
    out += "''')\n";
  }
  // The wrapper.
  out += "\n\ndef call(args):\n";
  std::string params;
  std::vector<std::string> names(ir.buffers.size());
  for (const Buffer& b : ir.buffers) {
    names[static_cast<std::size_t>(b.id)] = b.name;
    if (b.kind == BufferKind::Input) {
      params += (params.empty() ? "" : ", ") + b.name;
    }
  }
  if (!params.empty()) {
    out += "    " + params + (params.find(',') == std::string::npos ? ", = args\n" : " = args\n");
    out += "    args.clear()\n";
  }
  for (const Buffer& b : ir.buffers) {
    if (b.kind == BufferKind::Input) {
      out += "    assert_size_stride(" + b.name + ", " + tuple(b.layout.sizes) + ", " +
             tuple(b.layout.strides) + ")\n";
    }
  }
  // The allocation each buffer lands in, to print reuse.
  std::vector<BufferId> holder(s.allocations.size(), -1);
  const std::vector<std::string> handles = step_handles(ir, s);
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    std::vector<BufferId> made;
    std::vector<std::size_t> origins;
    if (st.kind == Step::Kind::Kernel) {
      for (const LoopStage& stage : s.kernels[st.kernel].stages) {
        for (const FusedNode& n : stage.nodes) {
          made.push_back(n.buffer);
        }
      }
      origins = s.kernels[st.kernel].origins;
    } else {
      made.push_back(st.buffer);
      origins = sorted_origins(ir.buffer(st.buffer).origins);
    }
    for (BufferId id : made) {
      const Buffer& b = ir.buffer(id);
      const BufferPlan& p = s.buffers[static_cast<std::size_t>(id)];
      if (p.source != BufferPlan::Source::Slot && p.source != BufferPlan::Source::Output) {
        continue;
      }
      const auto slot = static_cast<std::size_t>(p.slot);
      // In place: the allocation's current buffer is read by this very step (same index).
      bool read_here = std::find(made.begin(), made.end(), holder[slot]) != made.end();
      if (st.kind == Step::Kind::Kernel) {
        for (const KernelArg& a : s.kernels[st.kernel].args) {
          read_here = read_here || a.buffer == holder[slot];
        }
      }
      if (holder[slot] >= 0 && read_here) {
        out += "    " + b.name + " = " + names[static_cast<std::size_t>(holder[slot])] +
               "  # computed in place over it\n";
      } else if (holder[slot] >= 0) {
        out += "    " + b.name + " = " + names[static_cast<std::size_t>(holder[slot])] + "; del " +
               names[static_cast<std::size_t>(holder[slot])] + "  # reuse\n";
      } else {
        out += "    " + b.name + " = " + empty_strided + "(" + tuple(b.layout.sizes) + ", " +
               tuple(b.layout.strides) + ", " + torch_dtype(b.layout.dtype) + ")\n";
      }
      holder[slot] = id;
    }
    out += "    # Topologically Sorted Source Nodes: " + source_nodes(g, origins) +
           ", Original ATen: " + original_aten(g, origins) + "\n";
    out += "    # [Provenance debug handles] " + handles[i] + "\n";
    switch (st.kind) {
    case Step::Kind::Kernel: {
      const KernelPlan& kp = s.kernels[st.kernel];
      out += "    " + kp.name + "(";
      for (std::size_t a = 0; a < kp.args.size(); ++a) {
        out += (a ? ", " : "") + names[static_cast<std::size_t>(kp.args[a].buffer)];
      }
      out += ")\n";
      break;
    }
    case Step::Kind::Extern: {
      const Buffer& b = ir.buffer(st.buffer);
      const ExternCall& c = *b.extern_call;
      auto view = [&](const BufferView& v) {
        return "reinterpret_tensor(" + names[static_cast<std::size_t>(v.buffer)] + ", " +
               tuple(v.layout.sizes) + ", " + tuple(v.layout.strides) + ", " +
               v.layout.offset.str() + ")";
      };
      const std::string name = handles[i].substr(0, handles[i].find(':'));
      if (c.kind == ExternCall::Kind::Convolution) {
        out += "    " + b.name + " = " + name + "(" + convolution_arguments(*c.node, names) + ")\n";
        break;
      }
      out += "    " + name + "(" +
             (c.kind == ExternCall::Kind::Addmm ? view(c.bias) + ", " : std::string()) + view(c.a) +
             ", " + view(c.b) + ", out=" + b.name + ")\n";
      break;
    }
    case Step::Kind::Fallback: {
      const Buffer& b = ir.buffer(st.buffer);
      out += "    " + b.name + " = fallback(torch.ops." + aten_name(b.fallback->node) + ", ";
      for (std::size_t o = 0; o < b.fallback->operands.size(); ++o) {
        out += names[static_cast<std::size_t>(b.fallback->operands[o].buffer)] + ", ";
      }
      out += "...)  # the eager kernel\n";
      break;
    }
    }
  }
  out += "    return (";
  for (const BufferView& v : ir.outputs) {
    const Buffer& b = ir.buffer(v.buffer);
    if (v.layout.sizes == b.layout.sizes && v.layout.strides == b.layout.strides &&
        v.layout.offset == b.layout.offset) {
      out += b.name + ", ";
    } else {
      out += "reinterpret_tensor(" + b.name + ", " + tuple(v.layout.sizes) + ", " +
             tuple(v.layout.strides) + ", " + v.layout.offset.str() + "), ";
    }
  }
  out += ")\n";
  return out;
}

} // namespace compiler::inductor
