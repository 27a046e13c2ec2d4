# The layering of docs/ARCHITECTURE.md as data: "target:forbidden,forbidden,...". A target may
# not reach a forbidden target directly or transitively. `*` forbids every target of ours
# (names starting with torchscope_ or tlparse).
set(TORCHSCOPE_LAYERING_RULES
  "torchscope_tracer:*"
  "torchscope_tracer_shared:*"
  "torchscope_tlparse:torchscope_compiler,torchscope_tracer,torchscope_gui_models"
  "tlparse:torchscope_compiler,torchscope_tracer"
  "torchscope_gui_models:torchscope_compiler,torchscope_tracer"
  "tlparse-gui:torchscope_compiler,torchscope_tracer")

# The folder half of the layering (tests/layering/folder_cycles.cpp): inside each component listed
# here no folder may include a folder that includes it back. TORCHSCOPE_FOLDER_ROOMS_<component>
# lists folders that are one room by design, checked as one node.
# - compiler: the eager runtime (core values, tensors, ops, their kernels and eager autograd) is
#   one room: a tensor's methods call ops, ops record autograd nodes, kernels compute on tensors.
#   Every compile stage (capture, aot, passes, inductor, ...) sits above it and must be acyclic.
# - tlparse: the ingest is one room (src/ingest: reader, envelope, handlers, trackers, writer);
#   the index read API, the report and the CLI sit above src/common and include no ingest folder.
set(TORCHSCOPE_FOLDER_LAYERING gui compiler tlparse)
set(TORCHSCOPE_FOLDER_ROOMS_compiler "autograd,core,kernels,ops,tensor")
