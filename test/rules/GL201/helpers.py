# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# Helpers count by what they leave behind: a helper that returns with its argument offloaded
# offloads it at each call, however the argument is passed; a helper that removes the hooks
# again before it returns does not.


def _offload(pipe, sequential=False):
    if sequential:
        pipe.enable_sequential_cpu_offload()
    else:
        pipe.enable_model_cpu_offload()


# The argument passed by keyword.
def keyword_argument(pipe):
    _offload(pipe=pipe)
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has offload hooks from `_offload()` and is trained here (`pipe.unet.train()`)
    pipe.unet.train()


# A validation helper that generates with offload and takes the hooks off again.
def _log_validation(pipe, prompt):
    pipe.enable_model_cpu_offload()
    images = pipe(prompt).images
    pipe.remove_all_hooks()
    return images


def train_after_validation(pipe, prompt):
    _log_validation(pipe, prompt)
    pipe.unet.train()
