# A worker thread leaks grad mode; the main thread's state is its own (grad mode is per thread):
# its training is unaffected, its correct `with torch.no_grad()` is counted as restored.
# REQUIRES: probe
# RUN: %expect-exit 1 %gradlint probe run -- %torch-python %s > %t.out 2>&1
# RUN: FileCheck %s < %t.out
# RUN: FileCheck %s --check-prefix=MAIN < %t.out
import threading

import torch


def leaky_worker():
    # CHECK: worker_thread.py:[[@LINE+1]]: `leaky_worker` disabled grad mode and its thread ended with it still disabled (pid {{[0-9]+}}, thread {{[0-9]+}})
    torch.set_grad_enabled(False)


model = torch.nn.Linear(4, 1)


def evaluate():
    # CHECK: grad mode disabled at:
    # CHECK-NEXT: worker_thread.py:{{[0-9]+}}: `leaky_worker`: disabled 1, restored 0, leaked 1
    # CHECK-NEXT: worker_thread.py:[[@LINE+1]]: `evaluate`: disabled 1, restored 1, leaked 0
    with torch.no_grad():
        return model(torch.randn(2, 4))


worker = threading.Thread(target=leaky_worker)
worker.start()
worker.join()
evaluate()
model(torch.randn(8, 4)).sum().backward()
# MAIN: main thread trains: True, grad enabled: True
print(f"main thread trains: {model.weight.grad is not None}, grad enabled: {torch.is_grad_enabled()}")
# MAIN-NOT: backward() ran with grad disabled
# CHECK: gradlint probe: 1 grad-mode leak
