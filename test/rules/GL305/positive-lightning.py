# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL305 zero-grad-between-backward-and-step with PyTorch Lightning manual optimization:
# `self.manual_backward(loss)` in a LightningModule method is a backward, like `loss.backward()`.
import lightning.pytorch as pl


class LitModel(pl.LightningModule):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        loss = self.model(batch)
        self.manual_backward(loss)
        # CHECK: [[@LINE+1]]:9: GL305 `opt.zero_grad()` runs after `backward()` and before `step()`
        opt.zero_grad()
        opt.step()
