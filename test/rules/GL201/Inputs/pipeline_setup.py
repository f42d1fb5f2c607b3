# Fixture for helper-module.py: helpers that attach offload hooks to the pipeline they are given.
def prepare_for_inference(pipe):
    pipe.enable_model_cpu_offload()
    return pipe


def save_memory(pipe, sequential=False):
    if sequential:
        pipe.enable_sequential_cpu_offload()
    else:
        pipe.enable_model_cpu_offload()
