# RUN: not %gradlint check --no-respect-gitignore --output-format full %s | FileCheck %s --implicit-check-not=': GL'
# GL304 in full output: the finding is at the assignment that uses the inference tensor, and the
# related location is where inference mode starts.
import torch


def train_head(backbone, head, x):
    with torch.inference_mode():
        feats = backbone(x)
    loss = head(feats).sum()
    loss.backward()
# CHECK: related.py:[[@LINE-2]]:5: GL304 `feats` is an inference tensor
# CHECK: = note: {{.*}}related.py:[[@LINE-5]]:10: inference mode starts here
# CHECK: = help: use `feats.clone()` here, outside inference mode, or compute `feats` under `torch.no_grad()` instead
