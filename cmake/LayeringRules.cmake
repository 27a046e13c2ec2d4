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
