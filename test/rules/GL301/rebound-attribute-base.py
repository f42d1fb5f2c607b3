# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL301 and attribute paths whose base is rebound. `trainer = Trainer(...)` (or `self.trainer =
# ...`) makes `trainer.optimizer` another object, over another model: a step taken through the
# old path before the rebinding is not followed by the new trainer's backward (silent). With no
# rebinding, or a rebinding of another name that merely starts the same, the step's gradients
# are still there at the next backward (reported).
from transformers import Trainer


def debug_then_train(model_factory, args, batch):
    trainer = Trainer(model_factory(), args)
    trainer.model(**batch).loss.backward()
    trainer.create_optimizer()
    trainer.optimizer.step()
    trainer = Trainer(model_factory(), args)  # a new model and a new optimizer
    trainer.create_optimizer()
    for _ in range(20):
        loss = trainer.model(**batch).loss
        loss.backward()
        trainer.optimizer.step()
        trainer.optimizer.zero_grad()


class Experiment:
    def run(self, model_factory, args, batch):
        self.trainer = Trainer(model_factory(), args)
        self.trainer.model(**batch).loss.backward()
        self.trainer.optimizer.step()
        self.trainer = Trainer(model_factory(), args)
        for _ in range(20):
            self.trainer.model(**batch).loss.backward()
            self.trainer.optimizer.step()
            self.trainer.optimizer.zero_grad()


# Wrong: the same trainer: the first step's gradients are added to by the loop's backward.
def debug_then_train_same(trainer, batch):
    trainer.model(**batch).loss.backward()
    # CHECK: [[@LINE+1]]:5: GL301 `trainer.optimizer.step()` applies the gradients, but nothing resets them
    trainer.optimizer.step()
    trainer_args = dict(batch)  # another name: `trainer` is still the same object
    for _ in range(20):
        loss = trainer.model(**trainer_args).loss
        loss.backward()
        trainer.optimizer.step()
        trainer.optimizer.zero_grad()
