# A multiprocessing worker leaks grad mode and trains. The worker ends by os._exit, which runs no
# exit handlers: the tracer writes its report when it records the leak's backward(), not only at
# exit. The worker's only thread is its main thread, not the thread that forked it.
# REQUIRES: probe
# RUN: %expect-exit 1 %gradlint probe run -- %torch-python %s > %t.out 2>&1
# RUN: FileCheck %s < %t.out
import multiprocessing

import torch


def load_for_inference(model):
    # CHECK: forked_worker.py:[[@LINE+1]]: `load_for_inference` disabled grad mode and returned with it still disabled (pid {{[0-9]+}}, main thread)
    torch.set_grad_enabled(False)
    return model


def train_one_step():
    model = load_for_inference(torch.nn.Linear(4, 1))
    loss = model(torch.randn(8, 4)).sum()
    try:
        # CHECK-NEXT: = backward() ran with grad disabled at {{.*}}forked_worker.py:[[@LINE+1]] in `train_one_step`
        loss.backward()
    except RuntimeError as error:
        print("worker: training failed:", str(error).splitlines()[0])


if __name__ == "__main__":
    worker = multiprocessing.get_context("fork").Process(target=train_one_step)
    worker.start()
    worker.join()
    # CHECK: gradlint probe: 1 grad-mode leak
