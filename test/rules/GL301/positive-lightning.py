# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL301 missing-zero-grad with PyTorch Lightning manual optimization: `self.manual_backward(loss)`
# in a LightningModule method is a backward, like `loss.backward()`.
import lightning.pytorch as pl


class LitModel(pl.LightningModule):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        for x in batch:
            loss = self.model(x)
            self.manual_backward(loss)
            # CHECK: [[@LINE+1]]:13: GL301 `opt.step()` applies the gradients, but nothing resets them before the next `backward()`
            opt.step()
