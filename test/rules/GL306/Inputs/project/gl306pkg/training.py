def train_one_epoch(model, loader, loss_fn, optimizer):
    for x, y in loader:
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_one_epoch_fixed(model, loader, loss_fn, optimizer):
    model.train()
    train_one_epoch(model, loader, loss_fn, optimizer)
