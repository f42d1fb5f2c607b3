# RUN: not %check-file --ignore GL107 %s | FileCheck %s --implicit-check-not=': GL'
# GL101 and threads: grad mode is thread-local. A toggle at the top of a function that runs as a
# thread's body (`Thread.run` of a subclass, `Thread(target=f)`, `executor.submit(f)`,
# `executor.map(f, ...)`) ends with that thread: it leaks into neither the caller that starts
# the thread nor the function itself. A toggle in the starting thread, meant for the worker,
# stays in the starting thread and still leaks.
import threading
from concurrent.futures import ThreadPoolExecutor
from threading import Thread

import torch


# Correct: the body of a thread class.
class Worker(threading.Thread):
    def __init__(self, model, batches):
        super().__init__()
        self.model = model
        self.batches = batches

    def run(self):
        torch.set_grad_enabled(False)
        for x in self.batches:
            self.model(x)


def start_worker(model, batches):
    worker = Worker(model, batches)
    worker.start()
    worker.join()


# Correct: a function handed to `Thread(target=...)`.
def infer_once(model, x):
    torch.set_grad_enabled(False)
    return model(x)


def start_infer(model, x):
    threading.Thread(target=infer_once, args=(model, x)).start()


# Correct: functions submitted to, or mapped over by, an executor.
def score(model, x):
    torch.set_grad_enabled(False)
    return model(x)


def score_chunk(chunk):
    torch.set_grad_enabled(False)
    return [float(v) for v in chunk]


def score_all(model, xs, chunks):
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(score, model, x) for x in xs]
        totals = list(pool.map(score_chunk, chunks))
    return [f.result() for f in futures], totals


# Wrong: the caller disables grad for the worker, but the toggle runs in the caller's thread
# (the worker starts with grad enabled), and the caller returns with it off.
def worker_body(model, x):
    return model(x)


def start_without_grad(model, x):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `start_without_grad` returns with it still disabled
    torch.set_grad_enabled(False)
    thread = threading.Thread(target=worker_body, args=(model, x))
    thread.start()
    thread.join()


# Wrong: a function that disables grad and is called directly, not as a thread's body, even
# when another place hands it to a thread.
def shared_body(model, x):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `shared_body` returns with it still disabled
    torch.set_grad_enabled(False)
    return model(x)


def run_both(model, x):
    Thread(target=shared_body, args=(model, x)).start()
    # CHECK: [[@LINE+1]]:12: GL101 `shared_body()` returns with grad mode disabled and `run_both` returns without restoring it
    return shared_body(model, x)
