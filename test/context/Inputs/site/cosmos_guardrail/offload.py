# Fixture (test/context): an installed helper that attaches offload hooks to its argument.
def save_memory(pipe):
    pipe.enable_model_cpu_offload()
    return pipe
