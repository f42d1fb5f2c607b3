import torch

# A script, not a package module: a top-level toggle here is the author's choice.
torch.set_grad_enabled(True)


def main():
    model = torch.nn.Linear(4, 2)
    with torch.no_grad():
        model.weight.fill_(0.0)
    loss = model(torch.randn(3, 4)).sum()
    loss.backward()


if __name__ == "__main__":
    torch.set_grad_enabled(False)
    main()
