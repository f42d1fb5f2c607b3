import torch

for batch in data:
    loss = model(batch)
    loss.backward()
    optimizer.step()
    with torch.inference_mode():
        t = model(batch)
    optimizer.zero_grad()
    model.eval()
