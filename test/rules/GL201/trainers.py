# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# Trainers are training: transformers' `Trainer(model=m).train()`, TRL's `SFTTrainer`,
# Lightning's `trainer.fit(m)`, and (as before) `accelerator.prepare(m)` and an optimizer over
# `m.parameters()`. A model with offload hooks handed to one of them is reported at the call
# that starts training.
import lightning as L
import pytorch_lightning as pl
from accelerate import cpu_offload, disk_offload
from transformers import Seq2SeqTrainer, Trainer
from trl import SFTTrainer


def transformers_trainer(model, args, dataset):
    cpu_offload(model)
    trainer = Trainer(model=model, args=args, train_dataset=dataset)
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `cpu_offload()` and is trained here (`trainer.train()` (transformers `Trainer`))
    trainer.train(resume_from_checkpoint=True)


def trl_trainer_positional(model, dataset, folder):
    disk_offload(model, folder)
    trainer = SFTTrainer(model, train_dataset=dataset)
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `disk_offload()` and is trained here (`trainer.train()` (TRL `SFTTrainer`))
    trainer.train()


def unnamed_trainer(model, args):
    cpu_offload(model)
    # CHECK: [[@LINE+1]]:5: GL201 `model` has offload hooks from `cpu_offload()` and is trained here (`Seq2SeqTrainer.train()` (transformers `Seq2SeqTrainer`))
    Seq2SeqTrainer(model=model, args=args).train()


def lightning_fit(module, loader):
    cpu_offload(module)
    trainer = pl.Trainer(max_epochs=1)
    # CHECK: [[@LINE+1]]:5: GL201 `module` has offload hooks from `cpu_offload()` and is trained here (`trainer.fit()` (Lightning `Trainer`))
    trainer.fit(module, loader)


def lightning_fit_keyword(module, loader):
    cpu_offload(module)
    trainer = L.Trainer()
    # CHECK: [[@LINE+1]]:5: GL201 `module` has offload hooks from `cpu_offload()` and is trained here (`trainer.fit()` (Lightning `Trainer`))
    trainer.fit(model=module, train_dataloaders=loader)


# ---- silent --------------------------------------------------------------------------------


# Another model is trained; the offloaded one only evaluates.
def trainer_on_another_model(model, teacher, args):
    cpu_offload(teacher)
    trainer = Trainer(model=model, args=args)
    trainer.train()
    trainer.evaluate()


# A project's own class named Trainer is not transformers' trainer.
class Trainer2:
    def train(self):
        return self


def own_trainer(model):
    cpu_offload(model)
    trainer = Trainer2()
    trainer.train()


# `trainer.evaluate()` / `predict()` do not train.
def evaluate_only(model, args):
    cpu_offload(model)
    trainer = Trainer(model=model, args=args)
    trainer.evaluate()
    trainer.predict(args.dataset)
