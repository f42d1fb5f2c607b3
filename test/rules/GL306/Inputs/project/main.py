from gl306pkg.evaluation import evaluate
from gl306pkg.training import train_one_epoch, train_one_epoch_fixed


def run(model, train_loader, val_loader, loss_fn, optimizer):
    for epoch in range(10):
        train_one_epoch(model, train_loader, loss_fn, optimizer)
        evaluate(model, val_loader)


def run_fixed(model, train_loader, val_loader, loss_fn, optimizer):
    for epoch in range(10):
        train_one_epoch_fixed(model, train_loader, loss_fn, optimizer)
        evaluate(model, val_loader)
