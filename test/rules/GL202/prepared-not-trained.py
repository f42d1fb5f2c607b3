# RUN: not %check-file --select GL202 %s | FileCheck %s --implicit-check-not=': GL'
# A model loaded with an automatic map and readied with accelerate, but only run: a frozen
# embedding or reward model next to the trained one. prepare_model(m), or prepare() of the model
# without an optimizer or a training data loader, is not training; training the prepared
# model later is. accelerate itself refuses any multi-device map at prepare() in a distributed
# run ("You can't train a model that has been loaded with `device_map='auto'`"); that is a
# different mistake from training across offload hooks, and GL202 does not report it.
from functools import partial

import torch
from accelerate import Accelerator
from transformers import AutoModel, AutoModelForCausalLM, Trainer


def embed(texts, model):
    with torch.no_grad():
        return model(**texts).last_hidden_state.mean(dim=1)


def frozen_embedding_model(args, dataset):
    accelerator = Accelerator()
    embedding_model = AutoModel.from_pretrained("embedder", device_map="auto")
    embedding_model = accelerator.prepare_model(embedding_model)
    embed_texts = partial(embed, model=embedding_model)
    policy = AutoModelForCausalLM.from_pretrained(args.model)
    trainer = Trainer(model=policy, args=args, train_dataset=dataset.map(embed_texts))
    trainer.train()


def reward_model_with_evaluation_loader(eval_dataloader):
    accelerator = Accelerator()
    reward = AutoModel.from_pretrained("reward", device_map="auto")
    reward, eval_dataloader = accelerator.prepare(reward, eval_dataloader)
    return [reward(**batch).logits for batch in eval_dataloader]


# Twins: prepared with what trains it, or prepared alone and then trained.
def prepared_with_optimizer(name, optimizer, train_dataloader):
    accelerator = Accelerator()
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    # CHECK: [[@LINE+1]]:41: GL202 `model` is loaded with an automatic device map and trained here (`accelerator.prepare()` for training)
    model, loader = accelerator.prepare(model, train_dataloader)
    return model, loader, optimizer


def prepared_alone_then_trained(name, batch):
    accelerator = Accelerator()
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    model = accelerator.prepare_model(model)
    loss = model(**batch).loss
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`backward()` through it)
    loss.backward()
